"""Differential tests (against torch) of the value, dtype and variant fixes found by running PyTorch's
OpInfo database uncapped (issue #16): integer ``alpha``/``beta`` of the addmm family, ``addbmm_`` growing
its input, ``as_strided_``, uint8 interpolation and losses, polygamma's poles, bfloat16/chalf, ..."""
from __future__ import annotations

import warnings

import numpy as np

import pytest
import torch

import numtorch

from _opinfo_common import to_nt
from _opinfo_harness import compare, same_error


def _both(fn, values=True):
    """``fn(lib)`` in torch and numtorch: the same values, dtypes, shapes (or the same exception type)."""
    try:
        torch.manual_seed(0)
        t = fn(torch)
    except Exception as e:  # noqa: BLE001 (torch raises: numtorch must raise the same type)
        with pytest.raises(Exception) as info:
            numtorch.manual_seed(0)
            fn(numtorch)
        assert same_error(info.value, type(e)), (type(info.value), type(e), info.value)
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        numtorch.manual_seed(0)
        n = fn(numtorch)
    compare(n, t, "result", values)
    return n, t


def _t(lib, x, dtype=None):
    """A copy of ``x`` (a torch tensor) in ``lib``."""
    x = x.clone() if lib is torch else to_nt(x)
    return x if dtype is None else x.to(getattr(lib, str(dtype).split(".")[1]))


# ---- the addmm family with integer tensors: alpha/beta converted as c10 does (truncated, checked) ----
_MATS = torch.randint(-9, 9, (3, 4, 4), generator=torch.Generator().manual_seed(0))


@pytest.mark.quick
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64])
@pytest.mark.parametrize("ab", [(0.2, 0.6), (1.7, 2.6), (-1.5, 3), (-1, -1), (0, 1.0), (1e10, 1), (float("nan"), 1),
                                (1 + 0j, 2), (1 + 1j, 1), (300, 1), (70000, 2)])
def test_addmm_family_integer_alpha_beta(dtype, ab):
    beta, alpha = ab
    x, a, b = _MATS[0], _MATS[1], _MATS[2]
    _both(lambda lib: lib.addmm(_t(lib, x, dtype), _t(lib, a, dtype), _t(lib, b, dtype), beta=beta, alpha=alpha))
    _both(lambda lib: lib.addmv(_t(lib, x[0], dtype), _t(lib, a, dtype), _t(lib, b[0], dtype), beta=beta, alpha=alpha))
    _both(lambda lib: lib.baddbmm(_t(lib, x, dtype)[None], _t(lib, a, dtype)[None], _t(lib, b, dtype)[None],
                                  beta=beta, alpha=alpha))
    _both(lambda lib: lib.addbmm(_t(lib, x, dtype), _t(lib, _MATS[:2], dtype), _t(lib, _MATS[1:], dtype),
                                 beta=beta, alpha=alpha))
    _both(lambda lib: _t(lib, x, dtype).addmm_(_t(lib, a, dtype), _t(lib, b, dtype), beta=beta, alpha=alpha))
    _both(lambda lib: lib.addr(_t(lib, x, dtype), _t(lib, a[0], dtype), _t(lib, b[0], dtype), beta=beta, alpha=alpha))


@pytest.mark.parametrize("ab", [(1 + 1j, 1), (1e39, 1), (float("inf"), 2.0)])
def test_addmm_float_alpha_beta_checked(ab):
    x = torch.randn(3, 3)
    _both(lambda lib: lib.addmm(_t(lib, x), _t(lib, x), _t(lib, x), beta=ab[0], alpha=ab[1]))


@pytest.mark.parametrize("shape", [(1,), (), (4,), (1, 4), (5, 4), (3,), (2, 5, 4)])  # (5, 1): torch reads its own writes
def test_addbmm_inplace_grows_a_broadcast_input(shape):
    """torch's addbmm_ resizes a ``self`` that only broadcasts to ``(n, p)``; gradients reach its old value."""
    g = torch.Generator().manual_seed(1)
    x, a, b = torch.randn(shape, generator=g), torch.randn(3, 5, 2, generator=g), torch.randn(3, 2, 4, generator=g)
    _both(lambda lib: _t(lib, x).addbmm_(_t(lib, a), _t(lib, b), beta=0.5, alpha=2))

    def grads(lib):
        xl, al = _t(lib, x).requires_grad_(), _t(lib, a).requires_grad_()
        y = xl * 3
        r = y.addbmm_(al, _t(lib, b))
        assert r is y
        (r * lib.arange(20.).reshape(5, 4)).sum().backward()
        return xl.grad, al.grad, r
    _both(grads)


# ---- einsum of integer/bool operands: PyTorch's result dtype (int64 where its algorithm sums) ----
_EINSUM_CASES = [("i->", [(3,)]), ("i->i", [(3,)]), ("ij->i", [(2, 1)]), ("ii->", [(3, 3)]), ("ii->i", [(3, 3)]),
                 ("ij", [(3, 3)]), ("ij->", [(0, 3)]), ("i,j->ij", [(3,), (4,)]), ("i,j->", [(3,), (4,)]),
                 ("i,j->", [(1,), (1,)]), ("i,j->i", [(3,), (1,)]), ("i,j->i", [(1,), (3,)]),
                 ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk->ik", [(2, 1), (3, 4)]), ("ij,jk->ik", [(2, 3), (1, 4)]),
                 ("ij,jk->", [(2, 3), (3, 4)]), ("ijk,jl->il", [(2, 3, 1), (3, 4)]), ("ijk,jl->il", [(2, 3, 2), (3, 4)]),
                 ("jl,ijk->il", [(3, 4), (2, 3, 2)]), ("ij,j->", [(2, 3), (3,)]), ("ij,k->ik", [(2, 1), (3,)]),
                 ("ij,jk,k->i", [(2, 3), (3, 1), (1,)]), ("ij,jk,k->i", [(2, 3), (3, 1), (2,)]),
                 ("ij,jk,klm->il", [(2, 3), (3, 4), (4, 5, 2)]), ("i,i,i->", [(3,), (3,), (3,)]),
                 ("...ik,...j->ij", [(1, 2, 3), (3,)]), ("...ik,...j->ij", [(2, 2, 3), (2, 3)]), ("i,i->", [(0,), (0,)]),
                 ("i,i->", [(3,), (3,)])]


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int32, torch.bool, torch.float32])
@pytest.mark.parametrize("eq,shapes", _EINSUM_CASES, ids=[f"{e}:{s}" for e, s in _EINSUM_CASES])
def test_einsum_integer_result_dtype(eq, shapes, dtype):
    g = torch.Generator().manual_seed(0)
    ops = [torch.randint(0, 20, s, generator=g).to(dtype) for s in shapes]
    _both(lambda lib: lib.einsum(eq, *[_t(lib, x) for x in ops]))


def test_inner_and_tensordot_still_bound():
    a, b = torch.randn(2, 3), torch.randn(4, 3)
    _both(lambda lib: _t(lib, a).inner(_t(lib, b)))
    _both(lambda lib: lib.tensordot(_t(lib, a), _t(lib, b), dims=([1], [1])))


# ---- float_power_: the base must already have the result's dtype ----
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.complex128])
@pytest.mark.parametrize("exponent", [2, 0.5, 1j, "tensor"])
def test_float_power_inplace_dtype(dtype, exponent):
    x = torch.rand(4, dtype=torch.float64).to(dtype) + 1
    e = torch.rand(4, dtype=torch.float64) if exponent == "tensor" else exponent
    _both(lambda lib: _t(lib, x).float_power_(_t(lib, e) if isinstance(e, torch.Tensor) else e))


# ---- trigamma at the negative integers: PyTorch's reflection formula, finite (not the pole's inf) ----
@pytest.mark.parametrize("dtype", [torch.int8, torch.int16, torch.int64, torch.uint8, torch.float32, torch.float64])
@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_polygamma_at_the_poles(n, dtype):
    x = torch.tensor([-100, -9, -8, -5, -2, -1, 0, 1, 2, 7, 100]).to(dtype)
    _both(lambda lib: lib.polygamma(n, _t(lib, x)))
    _both(lambda lib: _t(lib, x).polygamma(n))
    _both(lambda lib: lib.special.polygamma(n, _t(lib, x)))


# ---- uint8 images: PyTorch's fixed-point bilinear/bicubic kernels (antialiased or not) ----
@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [False, True])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("shapes", [((4, 4), (3, 3)), ((4, 4), (6, 6)), ((7, 5), (13, 3)), ((3, 8), (3, 5)),
                                    ((20, 20), (41, 7)), ((6, 6), (6, 6))])
def test_interpolate_uint8_images(mode, antialias, align_corners, shapes):
    (h, w), size = shapes
    g = torch.Generator().manual_seed(h * 100 + w)
    for c in (3, 5):
        x = torch.randint(0, 256, (2, c, h, w), dtype=torch.uint8, generator=g)
        _both(lambda lib: lib.nn.functional.interpolate(_t(lib, x), size=size, mode=mode, align_corners=align_corners,
                                                        antialias=antialias))
    xs = torch.randint(0, 256, (1, 3, h, w), dtype=torch.uint8, generator=g)
    _both(lambda lib: lib.nn.functional.interpolate(_t(lib, xs), scale_factor=1.7, mode=mode, antialias=antialias,
                                                    align_corners=align_corners, recompute_scale_factor=False))


def test_interpolate_uint8_other_modes_refuse_as_torch():
    x = torch.randint(0, 256, (1, 2, 5), dtype=torch.uint8)
    _both(lambda lib: lib.nn.functional.interpolate(_t(lib, x), size=7, mode="linear"))
    x = torch.randint(0, 256, (1, 2, 3, 3, 3), dtype=torch.uint8)
    _both(lambda lib: lib.nn.functional.interpolate(_t(lib, x), size=4, mode="trilinear"))
    _both(lambda lib: lib.nn.functional.interpolate(_t(lib, x[:, :, 0], torch.int16), size=4, mode="bilinear"))


# ---- pairwise distance / triplet losses of integer tensors: the difference wraps in the integer dtype ----
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int64, torch.bool])
@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.0, float("inf")])
def test_pairwise_distance_integers(dtype, p):
    g = torch.Generator().manual_seed(3)
    a, b = torch.randint(0, 10, (4, 6), generator=g).to(dtype), torch.randint(0, 10, (4, 6), generator=g).to(dtype)
    _both(lambda lib: lib.nn.functional.pairwise_distance(_t(lib, a), _t(lib, b), p=p))
    _both(lambda lib: lib.pairwise_distance(_t(lib, a[0, 0]), _t(lib, b[0, 0]), p=p))
    _both(lambda lib: lib.nn.functional.triplet_margin_loss(_t(lib, a), _t(lib, b), _t(lib, b.flip(0)), p=p))


# ---- as_strided_ and views of a storage (as_strided reads the whole storage, from any view) ----
@pytest.mark.parametrize("offset", [None, 0, 3, 10])
def test_as_strided_on_a_partial_view_and_inplace(offset):
    base = torch.arange(20.)

    def f(lib):
        b = _t(lib, base)
        v = b[5:15]
        kw = {} if offset is None else {"storage_offset": offset}
        out = v.as_strided((2, 2), (1, 2), **kw)
        w = b[5:15]
        r = w.as_strided_((2, 2), (1, 2), **kw)
        assert r is w and w.storage_offset() == (5 if offset is None else offset)
        u = b[5:15]
        assert lib.as_strided_(u, (3,), (2,)) is u
        return out, w, u, out.storage_offset(), v.unfold(0, 2, 3).storage_offset()
    _both(f)


def test_as_strided_inplace_gradient_and_version():
    x = torch.randn(3, 3, dtype=torch.float64)

    def f(lib):
        leaf = _t(lib, x).requires_grad_()
        y = leaf * 2
        v0 = y._version
        y.as_strided_((2, 2), (1, 2), 1)
        assert y._version == v0 + 1
        (y * lib.arange(4.0, dtype=lib.float64).reshape(2, 2)).sum().backward()
        return leaf.grad, y.grad_fn.name()
    _both(f)


def test_as_strided_inplace_errors():
    _both(lambda lib: lib.zeros(4).as_strided_((3,), (2,)))
    _both(lambda lib: lib.zeros(4).as_strided_((2,), (-1,)))
    _both(lambda lib: lib.zeros(4, requires_grad=True).as_strided_((2,), (1,)))


# ---- empty_strided / new_empty_strided keep their strides ----
@pytest.mark.parametrize("size,stride", [((), ()), ((2, 0), (3, 4)), ((3, 2, 2), (1, 2, 3)), ((2, 3), (7, 8)),
                                         ((2, 3), (1,)), ((2, 3), (1, -2))])
def test_empty_strided_strides(size, stride):
    def f(lib):
        e = lib.empty_strided(size, stride, dtype=lib.float64)
        n = _t(lib, torch.zeros(5, dtype=torch.int16)).new_empty_strided(size, stride)
        return e.shape, e.stride(), e.dtype, n.shape, n.stride(), n.dtype
    _both(f)


# ---- numbers converted as c10 does: scalar_tensor, index_add's alpha ----
@pytest.mark.parametrize("value", [-5, -5.5, 300, 3.7, -3.7, 1e10, float("nan"), float("inf"), 2 + 0j, 2 + 1j, True])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int64, torch.float32, torch.bool])
def test_scalar_tensor_conversion(value, dtype):
    _both(lambda lib: lib.scalar_tensor(value, dtype=getattr(lib, str(dtype).split(".")[1])))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int32, torch.float32])
@pytest.mark.parametrize("alpha", [-1, 2, 300, -300, 2.5, 1.0, True, 1e39, 1j])
def test_index_add_alpha_conversion(dtype, alpha):
    x, s, i = torch.tensor([10, 20, 30]).to(dtype), torch.tensor([1, 2]).to(dtype), torch.tensor([0, 2])
    _both(lambda lib: lib.index_add(_t(lib, x), 0, _t(lib, i), _t(lib, s), alpha=alpha))
    _both(lambda lib: _t(lib, x).index_add_(0, _t(lib, i), _t(lib, s), alpha=alpha))


# ---- normal's factory keywords; tensordot broadcasting a size-1 contracted dim (values and gradients) ----
def test_normal_factory_keywords():
    _both(lambda lib: lib.normal(1.6, 0.3, [2, 2, 2], dtype=lib.float64, layout=torch.strided, device="cpu",
                                 pin_memory=False))


@pytest.mark.parametrize("sa,sb,dims", [((1, 1, 1), (2, 1, 2), ([0, 1], [2, 0])), ((1, 3), (2, 3), ([0], [0])),
                                        ((2, 3), (1, 3), ([1, 0], [1, 0])), ((2, 2), (3, 2), ([0], [0]))])
def test_tensordot_broadcasts_size_one(sa, sb, dims):
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(sa, dtype=torch.float64, generator=g), torch.randn(sb, dtype=torch.float64, generator=g)

    def f(lib):
        x, y = _t(lib, a).requires_grad_(), _t(lib, b).requires_grad_()
        out = lib.tensordot(x, y, dims=dims)
        out.sum().backward()
        return out, x.grad, y.grad
    _both(f)


# ---- Bessel functions: PyTorch's evaluation (bits of its kernels), not SciPy's ----
@pytest.mark.parametrize("fn", ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_bessel_values_are_torchs(fn, dtype):
    x = torch.cat([torch.linspace(-30, 30, 2001, dtype=torch.float64),
                   torch.tensor([0.0, -0.0, 1e-6, 5.0, 4.9999999, 5.0000001, 1e10, float("inf"), -float("inf"),
                                 float("nan")], dtype=torch.float64)]).to(dtype)
    res = _both(lambda lib: getattr(lib.special, fn)(_t(lib, x)))
    if dtype == torch.float64:  # closer than the harness's 1e-7: a few ulps of PyTorch's value
        n, t = res[0].numpy(), res[1].numpy()
        fin = np.isfinite(t)
        assert np.abs(n[fin] - t[fin]).max() < 4e-15


# ---- the masked pointwise ops' canonical mask (PyTorch's _input_mask(input, *args, mask=..., **kwargs)) ----
def test_masked_logaddexp_with_keyword_masks():
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(5, 10, 5, generator=g), torch.randn(5, 10, 5, generator=g)
    ma, mb = torch.rand(5, 10, 1, generator=g) > 0.5, torch.rand(5, 1, 5, generator=g) > 0.5
    _both(lambda lib: lib.masked.logaddexp(_t(lib, a), _t(lib, b), input_mask=_t(lib, ma), other_mask=_t(lib, mb)))
    _both(lambda lib: lib.masked._input_mask(_t(lib, a), _t(lib, b), mask=_t(lib, ma), input_mask=None))
    _both(lambda lib: lib.masked._input_mask(_t(lib, a)))


# ---- more entries found failing uncapped: diff with n=0, gather of an empty index, full_like's fill value,
# clamp's tensor bounds in type promotion, matmul's gradient with no elements ----
@pytest.mark.parametrize("n", [0, 1, 2])
def test_diff_order_zero_ignores_prepend(n):
    g = torch.Generator().manual_seed(0)
    x, p, a = torch.randn(5, 5, generator=g), torch.randn(1, 5, generator=g), torch.randn(2, 5, generator=g)

    def f(lib):
        xl = _t(lib, x)
        out = lib.diff(xl, n, 0, _t(lib, p), _t(lib, a))
        assert out is not xl
        return out, lib.diff(xl, n)
    _both(f)
    _both(lambda lib: lib.diff(_t(lib, x), n, 0, _t(lib, p[0])))


def test_gather_empty_index_of_another_rank():
    x = torch.randn(5, dtype=torch.float64)

    def f(lib):
        xl = _t(lib, x).requires_grad_()
        out = lib.gather(xl, 0, lib.zeros(2, 0, dtype=lib.uint8 if lib is numtorch else torch.uint8).long())
        out.sum().backward()
        return out, xl.grad
    _both(f)
    _both(lambda lib: lib.gather(_t(lib, x), 0, _t(lib, torch.zeros(2, 1, dtype=torch.int64))))


@pytest.mark.parametrize("value", [-9, 2.7, 300, -2.5, float("nan"), True])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.float32, torch.bool])
def test_full_like_fill_conversion(value, dtype):
    _both(lambda lib: lib.full_like(_t(lib, torch.ones(3), dtype), value))


@pytest.mark.parametrize("bounds", [("int32", None), (None, "int32"), ("float32", "int64"), ("float64", None),
                                    (1.5, "int32"), ("int32", 300)])
def test_clamp_tensor_bounds_promote(bounds):
    x = torch.tensor([1, 200, 7], dtype=torch.uint8)

    def bound(lib, b):
        return _t(lib, torch.tensor([5, 3, 9]), getattr(torch, b)) if isinstance(b, str) else b
    _both(lambda lib: lib.clamp(_t(lib, x), bound(lib, bounds[0]), bound(lib, bounds[1])))
    _both(lambda lib: _t(lib, x).clamp_(bound(lib, bounds[0]), bound(lib, bounds[1])))


def test_matmul_gradient_without_elements():
    def f(lib):
        a = lib.zeros(5, 5, 0, dtype=lib.float64, requires_grad=True)
        b = lib.zeros(0, 5, dtype=lib.float64, requires_grad=True)
        lib.matmul(a, b).sum().backward()
        return a.grad, b.grad
    _both(f)


# ---- arange into integer dtypes: bounds and step truncated first; int64's length in integer arithmetic ----
@pytest.mark.parametrize("args", [(0.0, -8.000001, -4.0), (-0.9, 2.1, 2.0), (0, 10, 3), (10, 0, -3), (1.5, 9.7, 2.2),
                                  (-5, 5, 1.5), (0, 7.9, 2), (3, -3, -0.9)])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.int8, torch.float32, torch.float64])
def test_arange_integer_dtypes(args, dtype):
    _both(lambda lib: lib.arange(*args, dtype=getattr(lib, str(dtype).split(".")[1])))
