"""F.fractional_max_pool2d/3d (+ FractionalMaxPool2d/3d), F.lp_pool3d/LPPool3d and F.max_unpool3d/MaxUnpool3d
against torch: values, indices, gradients (seeded: the same random windows as torch), errors."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt

FRACTIONAL = [((2, 3, 9, 9), 3, dict(output_size=(4, 5)), 2), ((3, 7, 8), 2, dict(output_size=3), 2),
              ((1, 2, 20, 11), (3, 2), dict(output_ratio=(0.4, 0.5)), 2), ((2, 2, 6, 7, 5), 2, dict(output_size=(3, 4, 2)), 3),
              ((2, 5, 6, 5), 2, dict(output_ratio=0.5), 3), ((1, 1, 5, 5), 2, dict(output_size=1), 2),
              ((0, 3, 6, 6), 2, dict(output_size=3), 2), ((0, 2, 6, 6, 6), 2, dict(output_size=3), 3)]  # empty batch


def _run(T, shape, k, kw, nd, module=False, dtype=np.float32):
    T.manual_seed(3)
    x = T.tensor(np.random.default_rng(0).standard_normal(shape).astype(dtype), requires_grad=True)
    if module:
        m = getattr(T.nn, f"FractionalMaxPool{nd}d")(k, return_indices=True, **kw)
        y, i = m(x)
    else:
        y, i = getattr(T.nn.functional, f"fractional_max_pool{nd}d")(x, k, return_indices=True, **kw)
    (y * T.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
    return y.detach().numpy(), i.numpy(), x.grad.numpy()


@pytest.mark.parametrize("shape,k,kw,nd", FRACTIONAL)
@pytest.mark.parametrize("module", [False, True])
def test_fractional_max_pool_matches_torch(shape, k, kw, nd, module):
    if module and "output_ratio" in kw and not isinstance(kw["output_ratio"], tuple):
        kw = dict(output_ratio=(kw["output_ratio"],) * nd)
    a, b = (_run(T, shape, k, kw, nd, module) for T in (nt, ref))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert a[1].dtype == np.int64


def test_fractional_given_samples_float64_and_gradcheck():
    x = np.random.default_rng(1).standard_normal((2, 3, 7, 7))
    s = np.random.default_rng(2).uniform(size=(2, 3, 2))
    outs = [T.nn.functional.fractional_max_pool2d(T.tensor(x), 2, output_size=(3, 4), _random_samples=T.tensor(s))
            for T in (nt, ref)]
    np.testing.assert_array_equal(outs[0].numpy(), outs[1].numpy())
    xt = nt.tensor(x, requires_grad=True)
    assert nt.autograd.gradcheck(lambda t: nt.nn.functional.fractional_max_pool2d(
        t, 2, output_size=(3, 4), _random_samples=nt.tensor(s)), (xt,))


def test_fractional_extra_sample_rows_are_ignored_as_in_torch():
    x, s = np.random.default_rng(3).standard_normal((2, 3, 8, 8)), np.random.default_rng(4).uniform(size=(4, 3, 2))
    for xi in (x, x[0]):
        outs = [T.nn.functional.fractional_max_pool2d(T.tensor(xi), 2, output_size=3, _random_samples=T.tensor(s))
                for T in (nt, ref)]
        np.testing.assert_array_equal(outs[0].numpy(), outs[1].numpy())


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.fractional_max_pool2d(T.randn(1, 2, 5, 5), 3, output_size=4),
    lambda T: T.nn.functional.fractional_max_pool2d(T.randn(2, 5, 5, 5, 5), 2, output_size=2),
    lambda T: T.nn.functional.fractional_max_pool2d(T.randn(1, 2, 5, 5), 2, output_size=2,
                                                    _random_samples=T.rand(1, 3, 2)),
    lambda T: T.nn.functional.fractional_max_pool3d(T.randn(1, 1, 4, 4, 4), 2, output_size=3),
    lambda T: T.nn.functional.fractional_max_pool2d(T.randn(2, 2, 5, 5), 2, output_size=2,
                                                    _random_samples=T.rand(1, 2, 2)),  # fewer rows than N
    lambda T: T.nn.functional.fractional_max_pool2d(T.randn(1, 2, 5, 5), 2, output_size=2,
                                                    _random_samples=T.rand(1, 2, 3)),
    lambda T: T.nn.functional.fractional_max_pool2d(T.randn(1, 2, 5, 5), 2, output_size=2,
                                                    _random_samples=T.rand(1, 2, 2, 1)),
    lambda T: T.nn.functional.fractional_max_pool2d(T.randn(1, 2, 5, 5), 2, output_size=2,
                                                    _random_samples=T.rand(1, 2, 2, dtype=T.float64)),
    lambda T: T.nn.functional.fractional_max_pool2d(T.randn(2, 0, 5, 5), 2, output_size=2),
    lambda T: T.nn.functional.fractional_max_pool3d(T.randn(2, 0, 5, 5, 5), 2, output_size=2),
])
def test_fractional_runtime_errors_match_torch(call):
    msgs = []
    for T in (nt, ref):
        with pytest.raises(RuntimeError) as e:
            call(T)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_fractional_value_errors_match_torch():
    for T in (nt, ref):
        with pytest.raises(ValueError, match="requires specifying either an output_size or an output_ratio"):
            T.nn.functional.fractional_max_pool2d(T.randn(1, 1, 4, 4), 2)
        with pytest.raises(ValueError, match="FractionalMaxPool2d requires specifying either an output size"):
            T.nn.FractionalMaxPool2d(2)
        with pytest.raises(ValueError, match="only one of output_size and output_ratio may be specified"):
            T.nn.FractionalMaxPool3d(2, output_size=2, output_ratio=0.5)
        with pytest.raises(ValueError, match="output_ratio must be between 0 and 1"):
            T.nn.FractionalMaxPool2d(2, output_ratio=1.5)


@pytest.mark.parametrize("p,k,stride", [(2, 2, None), (1, (2, 3, 2), 1), (3.0, 2, (1, 2, 2)), (float("inf"), 2, None)])
def test_lp_pool3d_matches_torch(p, k, stride):
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 6, 4))
    res = []
    for T in (nt, ref):
        X = T.tensor(x, requires_grad=True)
        y = T.nn.LPPool3d(p, k, stride)(X)
        y.sum().backward()
        res.append((y.detach().numpy(), X.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_max_unpool3d_matches_torch():
    x = np.random.default_rng(0).standard_normal((2, 2, 4, 6, 4))
    res = []
    for T in (nt, ref):
        X = T.tensor(x, requires_grad=True)
        p, i = T.nn.functional.max_pool3d(X, 2, return_indices=True)
        u = T.nn.MaxUnpool3d(2)(p, i, output_size=(5, 7, 5))
        (u * T.arange(u.numel(), dtype=u.dtype).reshape(u.shape)).sum().backward()
        res.append((u.detach().numpy(), X.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)
    for T in (nt, ref):
        with pytest.raises(RuntimeError):
            T.nn.functional.max_unpool3d(T.ones(1, 2, 2), T.zeros(1, 2, 2, dtype=T.int64), 2)
