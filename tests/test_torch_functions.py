"""torch.* functions under PyTorch's other names (numtorch/_torch_functions.py), the small Tensor predicates,
``Tensor.fill_diagonal_`` / ``Tensor.new``, and autograd through ``fill_`` / ``zero_`` (issue #16), each
against torch 2.13."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import numtorch

RNG = np.random.default_rng(0)


def _pair(shape, dtype="float32"):
    a = RNG.standard_normal(shape).astype(dtype)
    return numtorch.tensor(a.copy()), torch.tensor(a.copy())


INPLACE = """abs_ acos_ arccos_ arcsin_ arctan_ asin_ atan_ ceil_ clamp_min_ cos_ cosh_ erf_ erfc_ exp2_ exp_
    expm1_ fix_ floor_ frac_ i0_ log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ negative_ reciprocal_ relu_ round_
    rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_""".split()


@pytest.mark.quick
@pytest.mark.parametrize("name", INPLACE)
def test_torch_inplace_functions(name):
    n, t = _pair((3, 4))
    args = (0.0,) if name == "clamp_min_" else ()
    rn, rt = getattr(numtorch, name)(n, *args), getattr(torch, name)(t, *args)
    assert rn is n and rt is t
    np.testing.assert_allclose(n.numpy(), t.numpy(), rtol=1e-5, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name,base", [("absolute_", "abs_"), ("negative_", "neg_"), ("fix_", "trunc_"),
                                       ("arccos_", "acos_"), ("arcsin_", "asin_"), ("arctan_", "atan_"),
                                       ("greater_", "gt_"), ("greater_equal_", "ge_"), ("less_", "lt_"),
                                       ("less_equal_", "le_"), ("not_equal_", "ne_"), ("arctan2_", "atan2_")])
def test_tensor_inplace_aliases(name, base):
    n, t = _pair((5,))
    n2, t2 = _pair((5,))
    two = name in ("greater_", "greater_equal_", "less_", "less_equal_", "not_equal_", "arctan2_")
    getattr(n, name)(*((n2,) if two else ()))
    getattr(t, name)(*((t2,) if two else ()))
    np.testing.assert_allclose(n.numpy(), t.numpy(), rtol=1e-6, equal_nan=True)


def test_predicates():
    for dt in ("uint8", "int8", "int64", "float32", "bool", "complex64"):
        n, t = numtorch.zeros(2, dtype=getattr(numtorch, dt)), torch.zeros(2, dtype=getattr(torch, dt))
        assert numtorch.is_signed(n) == torch.is_signed(t) == n.is_signed()
        assert n.get_device() == t.get_device() == numtorch.get_device(n)
        assert n.is_neg() == t.is_neg() and numtorch.is_neg(n) is False
    assert numtorch.is_same_size(numtorch.ones(2, 3), numtorch.zeros(2, 3))
    assert not numtorch.ones(2).is_same_size(numtorch.ones(3))
    assert numtorch.is_nonzero(numtorch.tensor([1.5])) and not numtorch.tensor(0).is_nonzero()
    for bad in (numtorch.ones(2), numtorch.ones(0)):
        with pytest.raises(RuntimeError):
            numtorch.is_nonzero(bad)
    assert numtorch.ones(1).is_xla is False and numtorch.ones(1).is_nested is False
    with numtorch.inference_mode():
        assert numtorch.is_inference(numtorch.ones(1) + 1)


def test_dim_order():
    for make in (lambda m: m.ones(2, 3, 4, 5), lambda m: m.ones(2, 3, 4, 5).to(memory_format=m.channels_last),
                 lambda m: m.ones(2, 3).t(), lambda m: m.ones(4, 2, 3).permute(2, 0, 1)):
        assert make(numtorch).dim_order() == make(torch).dim_order()


def test_typename_can_cast_range():
    assert numtorch.typename(numtorch.ones(1)) == torch.typename(torch.ones(1))
    assert numtorch.typename(numtorch.ones(1, dtype=numtorch.int64)) == "torch.LongTensor"
    assert numtorch.typename(3) == torch.typename(3) == "int"
    dts = ("bool", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64")
    for a in dts:
        for b in dts:
            assert numtorch.can_cast(getattr(numtorch, a), getattr(numtorch, b)) == \
                torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)
    with pytest.raises(TypeError):
        numtorch.can_cast("float32", numtorch.int32)
    for args, kw in (((0, 3), {}), ((0, 1, 0.25), {}), ((1, 10, 3), {}), ((0, 4), {"dtype": "int64"})):
        kwn = {k: getattr(numtorch, v) for k, v in kw.items()}
        kwt = {k: getattr(torch, v) for k, v in kw.items()}
        with pytest.warns(UserWarning, match="deprecated"):
            rn = numtorch.range(*args, **kwn)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rt = torch.range(*args, **kwt)
        assert rn.dtype == getattr(numtorch, str(rt.dtype).split(".")[1])
        np.testing.assert_allclose(rn.numpy(), rt.numpy())


def test_nn_aliases_match_functional():
    n, t = _pair((2, 4, 6, 6))
    for name, args in (("max_pool2d", (2,)), ("pixel_shuffle", (2,)), ("pixel_unshuffle", (2,)),
                       ("native_channel_shuffle", (2,))):
        np.testing.assert_allclose(getattr(numtorch, name)(n, *args).numpy(), getattr(torch, name)(t, *args).numpy())
    n, t = _pair((2, 3, 8))
    for name, args in (("avg_pool1d", (2,)), ("max_pool1d", (3,)), ("adaptive_avg_pool1d", (3,))):
        np.testing.assert_allclose(getattr(numtorch, name)(n, *args).numpy(), getattr(torch, name)(t, *args).numpy(),
                                   rtol=1e-6)
    for name, args in (("adaptive_max_pool1d", (3,)), ("max_pool1d_with_indices", (2,))):
        (vn, in_), (vt, it) = getattr(numtorch, name)(n, *args), getattr(torch, name)(t, *args)
        np.testing.assert_allclose(vn.numpy(), vt.numpy())
        assert in_.tolist() == it.tolist()
    n, t = _pair((4, 4))
    for name, args in (("frobenius_norm", ((0, 1),)), ("frobenius_norm", (1, True)), ("nuclear_norm", ()),
                       ("nuclear_norm", (True,))):
        with pytest.warns(UserWarning, match="deprecated"):
            rn = getattr(numtorch, name)(n, *args)
        with warnings.catch_warnings():  # torch warns once per process
            warnings.simplefilter("ignore")
            rt = getattr(torch, name)(t, *args)
        np.testing.assert_allclose(rn.numpy(), rt.numpy(), rtol=1e-5)
    assert numtorch.vmap is numtorch.func.vmap
    n, t = _pair((3, 5))
    np.testing.assert_allclose(numtorch.selu_(n).numpy(), torch.selu_(t).numpy(), rtol=1e-6)
    np.testing.assert_allclose(numtorch.celu_(n, 0.5).numpy(), torch.celu_(t, 0.5).numpy(), rtol=1e-6)
    np.testing.assert_allclose(numtorch.threshold_(n, 0.1, 9.0).numpy(), torch.threshold_(t, 0.1, 9.0).numpy())


@pytest.mark.parametrize("shape,wrap", [((3, 4), False), ((4, 3), False), ((7, 3), True), ((7, 3), False),
                                        ((8, 3), True), ((9, 2), True), ((2, 5), True), ((3, 3, 3), False)])
def test_fill_diagonal_(shape, wrap):
    n, t = numtorch.zeros(*shape), torch.zeros(*shape)
    assert n.fill_diagonal_(5, wrap=wrap) is n
    t.fill_diagonal_(5, wrap=wrap)
    assert n.tolist() == t.tolist()
    n, t = numtorch.zeros(*shape[::-1]).transpose(0, -1), torch.zeros(*shape[::-1]).transpose(0, -1)
    n.fill_diagonal_(-1, wrap=False)
    t.fill_diagonal_(-1, wrap=False)
    assert n.tolist() == t.tolist()


def test_fill_diagonal_autograd_and_errors():
    xn, xt = numtorch.ones(3, 4, requires_grad=True), torch.ones(3, 4, requires_grad=True)
    yn, yt = xn * 2, xt * 2
    yn.fill_diagonal_(0)
    yt.fill_diagonal_(0)
    assert type(yn.grad_fn).__name__ == type(yt.grad_fn).__name__ == "CopySlices"
    yn.sum().backward()
    yt.sum().backward()
    assert xn.grad.tolist() == xt.grad.tolist()
    for shape in ((3,), (3, 3, 2)):
        with pytest.raises(RuntimeError):
            torch.zeros(*shape).fill_diagonal_(1)
        with pytest.raises(RuntimeError):
            numtorch.zeros(*shape).fill_diagonal_(1)


def test_tensor_new():
    for dt in ("float32", "int64"):
        n, t = numtorch.ones(2, dtype=getattr(numtorch, dt)), torch.ones(2, dtype=getattr(torch, dt))
        assert n.new(2, 3).shape == t.new(2, 3).shape and n.new(2, 3).dtype == n.dtype
        assert n.new([1, 2]).tolist() == t.new([1, 2]).tolist() and n.new([1, 2]).dtype == n.dtype
        assert n.new().shape == t.new().shape
        assert n.new(numtorch.Size([4])).shape == (4,)


# ---- fill_ / zero_ under autograd: recorded as PyTorch records them ---------------------------------------
def _fill_case(lib, how, view):
    x = lib.ones(3, 3, requires_grad=True)
    v = lib.tensor(2.0, requires_grad=True)
    y = x * 2
    target = y.diagonal() if view else y
    {"zero": lambda: target.zero_(), "fill": lambda: target.fill_(3.0), "fill_t": lambda: target.fill_(v)}[how]()
    name = type(y.grad_fn).__name__
    (y * lib.arange(9.0).reshape(3, 3)).sum().backward()
    return name, x.grad.tolist(), None if v.grad is None else v.grad.item(), y.tolist()


@pytest.mark.quick
@pytest.mark.parametrize("how", ["zero", "fill", "fill_t"])
@pytest.mark.parametrize("view", [False, True], ids=["tensor", "view"])
def test_fill_and_zero_are_recorded(how, view):
    assert _fill_case(numtorch, how, view) == _fill_case(torch, how, view)


def test_fill_gradcheck_and_forward_ad():
    from numtorch.autograd import gradcheck, gradgradcheck

    def f(x, v):
        y = x * x
        y[1].fill_(v)
        return y * x

    x = numtorch.randn(3, 3, dtype=numtorch.float64, requires_grad=True)
    v = numtorch.tensor(0.7, dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(f, (x, v))
    assert gradgradcheck(f, (x, v))
    import numtorch.autograd.forward_ad as fwad
    tv = numtorch.tensor(1.5, dtype=numtorch.float64)
    with fwad.dual_level():
        out = f(x.detach(), fwad.make_dual(v.detach(), tv))
        tangent = fwad.unpack_dual(out).tangent
    expected = numtorch.zeros(3, 3, dtype=numtorch.float64)
    expected[1] = 1.5 * x.detach()[1]
    np.testing.assert_allclose(tangent.numpy(), expected.numpy())


def test_fill_of_leaf_still_refused():
    for lib in (numtorch, torch):
        with pytest.raises(RuntimeError, match="leaf Variable"):
            lib.ones(2, requires_grad=True).fill_(1)
        with pytest.raises(RuntimeError, match="leaf Variable"):
            lib.ones(2, requires_grad=True).zero_()
