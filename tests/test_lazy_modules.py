"""Lazy modules (LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*) and the
Uninitialized placeholders against torch: shapes inferred from the first input, the same random
initialisation, the class they become, state_dicts before and after, errors."""
import copy
import io

import numpy as np
import pytest
import torch as ref

import numtorch as nt

CASES = [
    ("LazyLinear", (5,), {}, (2, 7)), ("LazyLinear", (3,), dict(bias=False), (4, 2, 6)),
    ("LazyConv1d", (4, 3), dict(stride=2, padding=1), (2, 3, 9)), ("LazyConv1d", (4, 3), {}, (3, 9)),
    ("LazyConv2d", (6, 3), dict(groups=2, bias=False), (2, 4, 7, 7)),
    ("LazyConv3d", (2, 2), {}, (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), dict(stride=2), (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3), dict(output_padding=1, stride=2), (2, 2, 4, 4)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 3, 3, 3)),
    ("LazyBatchNorm1d", (), {}, (4, 3)), ("LazyBatchNorm2d", (), dict(affine=False), (4, 3, 2, 2)),
    ("LazyBatchNorm3d", (), dict(track_running_stats=False), (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)), ("LazyInstanceNorm2d", (), dict(affine=False), (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {}, (2, 3, 2, 2, 2)),
]


def _run(T, name, args, kw, shape):
    T.manual_seed(0)
    m = getattr(T.nn, name)(*args, **kw)
    before = (type(m).__name__, list(m.state_dict()), m.has_uninitialized_params())
    x = T.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    y = m(x)
    return m, before, y


@pytest.mark.parametrize("name,args,kw,shape", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_lazy_module_matches_torch(name, args, kw, shape):
    (a, ba, ya), (b, bb, yb) = (_run(T, name, args, kw, shape) for T in (nt, ref))
    assert ba == bb and ba[2]
    assert type(a).__name__ == type(b).__name__ == name[4:] and not hasattr(a, "has_uninitialized_params")
    assert isinstance(a, getattr(nt.nn, name[4:]))
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for k in sa:
        assert tuple(sa[k].shape) == tuple(sb[k].shape) and str(sa[k].dtype) == str(sb[k].dtype), k
        np.testing.assert_allclose(sa[k].numpy(), sb[k].numpy(), rtol=1e-6, atol=1e-7, err_msg=k)
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-5, atol=1e-5)
    assert repr(a) == repr(b)
    assert not a._forward_pre_hooks and not hasattr(a, "_initialize_hook")


def test_load_state_dict_materializes_from_torch():
    src = ref.nn.Linear(4, 3)
    m = nt.nn.LazyLinear(3)
    m.load_state_dict({k: nt.tensor(v.numpy()) for k, v in src.state_dict().items()})
    assert type(m.weight).__name__ == "Parameter" and tuple(m.weight.shape) == (3, 4)
    np.testing.assert_array_equal(m.weight.detach().numpy(), src.weight.detach().numpy())
    y = m(nt.ones(2, 4))  # the first forward finishes the switch without re-initialising
    assert type(m) is nt.nn.Linear
    np.testing.assert_allclose(y.detach().numpy(), src(ref.ones(2, 4)).detach().numpy(), rtol=1e-6)


def test_uninitialized_placeholders_match_torch():
    for T in (nt, ref):
        p, b = T.nn.UninitializedParameter(), T.nn.UninitializedBuffer()
        assert repr(p) == "<UninitializedParameter>" and repr(b) == "<UninitializedBuffer>"
        assert isinstance(p, T.nn.Parameter) and p.requires_grad and not b.requires_grad
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
            p.shape
        p.materialize((2, 3))
        assert type(p) is T.nn.Parameter and tuple(p.shape) == (2, 3)
        m = T.nn.LazyLinear(2).double()  # a dtype set before the first forward is kept
        m(T.ones(1, 3, dtype=T.float64))
        assert m.weight.dtype == T.float64
        c = copy.deepcopy(T.nn.LazyConv2d(2, 1))
        assert c.has_uninitialized_params()
        assert len(T.nn.LazyLinear(1).state_dict()) == 2


def test_lazy_errors_match_torch():
    for T in (nt, ref):
        with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input to LazyConv2d"):
            T.nn.LazyConv2d(2, 1)(T.ones(2, 3, 4, 4, 4))
        with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
            T.nn.LazyConv1d(4, 1, groups=2)(T.ones(1, 3, 4))


def _lazy_net(T):
    return T.nn.Sequential(T.nn.LazyConv2d(4, 3), T.nn.LazyBatchNorm2d(), T.nn.Flatten(), T.nn.LazyLinear(5))


@pytest.mark.parametrize("use", [
    lambda T, m: sum(p.numel() for p in m.parameters()),  # counting parameters before the dry run
    lambda T, m: m[0].weight + 1,
    lambda T, m: m[0].weight.sum(),
    lambda T, m: m[0].weight.dim(),
    lambda T, m: m[1].running_mean * 2,  # an UninitializedBuffer
    lambda T, m: T.nn.init.normal_(m[3].weight),
    lambda T, m: T.nn.utils.parameters_to_vector(m.parameters()),
])
def test_ops_on_uninitialized_placeholders_raise_value_error_as_torch(use):
    for T in (nt, ref):
        with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
            use(T, _lazy_net(T))


def test_uninitialized_metadata_and_conversions_still_work_as_torch():
    for T in (nt, ref):
        m = _lazy_net(T).double()
        w = m[0].weight
        assert (w.dtype, w.requires_grad, w.ndim, tuple(w.size()), w.is_floating_point()) == \
            (T.float64, True, 1, (0,), True)
        m.load_state_dict(_lazy_net(T).double().state_dict())  # placeholders into placeholders
        assert m[3].has_uninitialized_params()
        m(T.randn(2, 3, 6, 6, dtype=T.float64))
        assert tuple(m[3].weight.shape) == (5, 64) and m[3].weight.dtype == T.float64


def test_uninitialized_module_save_load_stays_lazy():
    for T in (nt, ref):
        buf = io.BytesIO()
        T.save(_lazy_net(T), buf)
        buf.seek(0)
        m = T.load(buf, weights_only=False)
        assert type(m[3].weight).__name__ == "UninitializedParameter"
        assert type(m[1].running_mean).__name__ == "UninitializedBuffer"
        assert tuple(m(T.randn(2, 3, 6, 6)).shape) == (2, 5)


def test_loading_placeholders_into_an_initialized_module_raises_as_torch():
    """An uninitialized state_dict into a materialized module: RuntimeError naming the cause; a partial load
    leaves the rest lazy, and the first forward then fails on the loaded Parameter as in torch."""
    for T in (nt, ref):
        m = T.nn.LazyLinear(3)
        m(T.ones(2, 4))
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter or buffer"):
            m.load_state_dict(T.nn.LazyLinear(3).state_dict())
        m = T.nn.LazyLinear(3)
        m.load_state_dict({"weight": T.ones(3, 4)}, strict=False)
        assert type(m.weight).__name__ == "Parameter" and type(m.bias).__name__ == "UninitializedParameter"
        with pytest.raises(AttributeError, match="'Parameter' object has no attribute 'materialize'"):
            m(T.ones(2, 4))
