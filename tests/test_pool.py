"""Pooling, unpooling, interpolate and pixel shuffle: differential tests against PyTorch (values, indices,
input gradients), float64 gradcheck, and PyTorch's error types/messages."""
import numpy as np
import pytest
import torch as ref
import torch.nn.functional as RF

import numtorch as nt
import numtorch.nn.functional as F
from conftest import assert_close, to_nt, to_ref
from numtorch.autograd import gradcheck

rng = np.random.default_rng(1)


def _arr(shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


def _leaf(shape):
    return to_nt(_arr(shape, np.float64), True)


def check(fn_nt, fn_ref, x, dtype, tol=None):
    """Compare outputs (values and any int64 indices exactly) and the input gradient."""
    x_nt, x_ref = to_nt(x, True), to_ref(x, True)
    out_nt, out_ref = fn_nt(x_nt), fn_ref(x_ref)
    if isinstance(out_ref, tuple):
        (out_nt, idx_nt), (out_ref, idx_ref) = out_nt, out_ref
        assert idx_nt.dtype == nt.int64 and not idx_nt.requires_grad
        np.testing.assert_array_equal(idx_nt.numpy(), idx_ref.numpy())
    tol = tol or {}
    assert_close(out_nt, out_ref, **tol)
    g = _arr(tuple(out_ref.shape), dtype)
    out_nt.backward(to_nt(g))
    out_ref.backward(to_ref(g))
    assert_close(x_nt.grad, x_ref.grad, **tol)
    return out_nt


def _err(fn, x_shape):
    with pytest.raises(Exception) as e_ref:
        fn(RF, ref.from_numpy(_arr(x_shape, np.float32)))
    with pytest.raises(type(e_ref.value)) as e_nt:
        fn(F, to_nt(_arr(x_shape, np.float32)))
    assert str(e_nt.value) == str(e_ref.value)


# ------------------------------------------------------------------------------------------------
# max pooling
# ------------------------------------------------------------------------------------------------
MAXPOOL2D = [
    ((2, 3, 6, 6), dict(kernel_size=2)),
    ((2, 3, 7, 6), dict(kernel_size=3, stride=2, padding=1)),
    ((2, 3, 7, 8), dict(kernel_size=(3, 2), stride=(1, 2), padding=(1, 0), dilation=(2, 1))),
    ((2, 3, 7, 7), dict(kernel_size=2, stride=2, ceil_mode=True)),
    ((1, 2, 8, 9), dict(kernel_size=3, stride=3, padding=1, ceil_mode=True)),
    ((3, 5, 5), dict(kernel_size=2, stride=1)),  # unbatched, overlapping windows
    ((2, 3, 5, 5), dict(kernel_size=2, stride=[])),  # empty stride means kernel_size
]


@pytest.mark.parametrize("shape,kw", MAXPOOL2D)
@pytest.mark.parametrize("indices", [False, True])
def test_max_pool2d(shape, kw, indices, fdtype):
    out = check(lambda x: F.max_pool2d(x, **kw, return_indices=indices),
                lambda x: RF.max_pool2d(x, **kw, return_indices=indices), _arr(shape, fdtype), fdtype)
    assert type(out.grad_fn).__name__ == "MaxPool2DWithIndicesBackward0"


@pytest.mark.parametrize("shape,kw", [((2, 3, 9), dict(kernel_size=3)),
                                      ((2, 3, 10), dict(kernel_size=3, stride=2, padding=1, dilation=2)),
                                      ((2, 3, 10), dict(kernel_size=4, stride=3, ceil_mode=True)),
                                      ((3, 8), dict(kernel_size=2, stride=1))])
@pytest.mark.parametrize("indices", [False, True])
def test_max_pool1d(shape, kw, indices, fdtype):
    check(lambda x: F.max_pool1d(x, **kw, return_indices=indices),
          lambda x: RF.max_pool1d(x, **kw, return_indices=indices), _arr(shape, fdtype), fdtype)


def test_max_pool_ties_pick_first_like_pytorch():
    x = rng.integers(0, 3, (2, 2, 6, 6)).astype(np.float32)  # many equal maxima
    check(lambda t: F.max_pool2d(t, 3, stride=1, return_indices=True),
          lambda t: RF.max_pool2d(t, 3, stride=1, return_indices=True), x, np.float32)
    check(lambda t: F.max_pool2d(t, 2, return_indices=True),
          lambda t: RF.max_pool2d(t, 2, return_indices=True), x, np.float32)


def test_max_pool_integer_and_with_indices_names():
    x = rng.integers(-9, 9, (2, 3, 6, 6))
    out, idx = F.max_pool2d_with_indices(nt.tensor(x), 2)
    r_out, r_idx = RF.max_pool2d_with_indices(ref.tensor(x), 2)
    np.testing.assert_array_equal(out.numpy(), r_out.numpy())
    np.testing.assert_array_equal(idx.numpy(), r_idx.numpy())
    assert out.dtype == nt.int64


def test_max_pool_gradcheck():
    assert gradcheck(lambda x: F.max_pool2d(x, 2, stride=1, padding=1), (_leaf((1, 2, 3, 4)),))
    assert gradcheck(lambda x: F.max_pool1d(x, 3, stride=2, ceil_mode=True), (_leaf((2, 6)),))


# ------------------------------------------------------------------------------------------------
# average pooling
# ------------------------------------------------------------------------------------------------
AVGPOOL2D = [
    ((2, 3, 6, 6), dict(kernel_size=2)),
    ((2, 3, 7, 6), dict(kernel_size=3, stride=2, padding=1)),
    ((2, 3, 7, 6), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    ((2, 3, 7, 7), dict(kernel_size=(2, 3), stride=2, ceil_mode=True)),
    ((2, 3, 8, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ((2, 3, 8, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((2, 3, 6, 6), dict(kernel_size=3, padding=1, divisor_override=5)),
    ((3, 5, 5), dict(kernel_size=2, stride=1)),  # unbatched
]


@pytest.mark.parametrize("shape,kw", AVGPOOL2D)
def test_avg_pool2d(shape, kw, fdtype):
    out = check(lambda x: F.avg_pool2d(x, **kw), lambda x: RF.avg_pool2d(x, **kw), _arr(shape, fdtype), fdtype)
    assert type(out.grad_fn).__name__ == "AvgPool2DBackward0"


@pytest.mark.parametrize("shape,kw", [((2, 3, 9), dict(kernel_size=3)),
                                      ((2, 3, 10), dict(kernel_size=3, stride=2, padding=1)),
                                      ((2, 3, 10), dict(kernel_size=4, stride=3, padding=2, ceil_mode=True,
                                                        count_include_pad=False)),
                                      ((3, 8), dict(kernel_size=2, stride=1))])
def test_avg_pool1d(shape, kw, fdtype):
    check(lambda x: F.avg_pool1d(x, **kw), lambda x: RF.avg_pool1d(x, **kw), _arr(shape, fdtype), fdtype)


def test_avg_pool_integer_truncates_like_pytorch():
    x = rng.integers(-9, 9, (1, 2, 5, 5))
    np.testing.assert_array_equal(F.avg_pool2d(nt.tensor(x), 2).numpy(), RF.avg_pool2d(ref.tensor(x), 2).numpy())


def test_avg_pool_gradcheck():
    assert gradcheck(lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
                     (_leaf((1, 1, 4, 5)),))
    assert gradcheck(lambda x: F.avg_pool1d(x, 2, stride=1, padding=1), (_leaf((2, 5)),))


# ------------------------------------------------------------------------------------------------
# adaptive pooling
# ------------------------------------------------------------------------------------------------
ADAPTIVE2D = [((2, 3, 6, 6), 3), ((2, 3, 7, 5), (3, 4)), ((2, 3, 5, 7), (None, 2)), ((3, 5, 4), (7, 6)),
              ((2, 3, 6, 6), 1)]


def test_adaptive_pool_empty_output():
    x = nt.zeros(2, 3, 4, 4)
    assert F.adaptive_avg_pool2d(x, 0).shape == (2, 3, 0, 0)
    out, idx = F.adaptive_max_pool2d(x, (0, 2), return_indices=True)
    assert out.shape == idx.shape == (2, 3, 0, 2)


@pytest.mark.parametrize("shape,size", ADAPTIVE2D)
def test_adaptive_avg_pool2d(shape, size, fdtype):
    tol = dict(rtol=1e-5, atol=1e-6) if fdtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    check(lambda x: F.adaptive_avg_pool2d(x, size), lambda x: RF.adaptive_avg_pool2d(x, size), _arr(shape, fdtype),
          fdtype, tol)


@pytest.mark.parametrize("shape,size", ADAPTIVE2D)
@pytest.mark.parametrize("indices", [False, True])
def test_adaptive_max_pool2d(shape, size, indices, fdtype):
    check(lambda x: F.adaptive_max_pool2d(x, size, return_indices=indices),
          lambda x: RF.adaptive_max_pool2d(x, size, return_indices=indices), _arr(shape, fdtype), fdtype)


@pytest.mark.parametrize("shape,size", [((2, 3, 10), 4), ((2, 3, 9), 3), ((3, 5), 8)])
def test_adaptive_pool1d(shape, size, fdtype):
    tol = dict(rtol=1e-5, atol=1e-6) if fdtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    check(lambda x: F.adaptive_avg_pool1d(x, size), lambda x: RF.adaptive_avg_pool1d(x, size), _arr(shape, fdtype),
          fdtype, tol)
    check(lambda x: F.adaptive_max_pool1d(x, size, return_indices=True),
          lambda x: RF.adaptive_max_pool1d(x, size, return_indices=True), _arr(shape, fdtype), fdtype)


def test_adaptive_gradcheck():
    assert gradcheck(lambda x: F.adaptive_avg_pool2d(x, (2, 3)), (_leaf((1, 2, 3, 4)),))
    assert gradcheck(lambda x: F.adaptive_max_pool2d(x, (2, 3)), (_leaf((1, 2, 3, 4)),))
    assert gradcheck(lambda x: F.adaptive_max_pool1d(x, 3), (_leaf((2, 5)),))


# ------------------------------------------------------------------------------------------------
# max unpooling
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,kw,out_size", [((2, 3, 6, 6), dict(kernel_size=2), None),
                                               ((2, 3, 7, 7), dict(kernel_size=3, stride=2, padding=1), None),
                                               ((2, 3, 7, 7), dict(kernel_size=2), (7, 7)),
                                               ((2, 3, 7, 7), dict(kernel_size=2), (2, 3, 7, 7))])
def test_max_unpool2d(shape, kw, out_size, fdtype):
    x = _arr(shape, fdtype)
    v_nt, i_nt = F.max_pool2d(to_nt(x), **kw, return_indices=True)
    v_ref, i_ref = RF.max_pool2d(to_ref(x), **kw, return_indices=True)
    check(lambda v: F.max_unpool2d(v, i_nt, **kw, output_size=out_size),
          lambda v: RF.max_unpool2d(v, i_ref, **kw, output_size=out_size), v_nt.numpy(), fdtype)


def test_max_unpool1d_and_gradcheck():
    x = _arr((2, 3, 8), np.float64)
    v, i = F.max_pool1d(to_nt(x), 2, return_indices=True)
    _, i_ref = RF.max_pool1d(to_ref(x), 2, return_indices=True)
    check(lambda t: F.max_unpool1d(t, i, 2), lambda t: RF.max_unpool1d(t, i_ref, 2), v.numpy(), np.float64)
    assert gradcheck(lambda t: F.max_unpool1d(t, i, 2), (to_nt(v.numpy(), True),))


def test_max_unpool_errors():
    v, i = F.max_pool2d(nt.zeros(2, 3, 6, 6), 2, return_indices=True)
    with pytest.raises(ValueError, match=r'invalid output_size "\(9, 9\)" \(dim 0 must be between 4 and 8\)'):
        F.max_unpool2d(v, i, 2, output_size=(9, 9))
    with pytest.raises(RuntimeError, match="Found an invalid max index: 50"):
        F.max_unpool2d(v, nt.full((2, 3, 3, 3), 50, dtype=nt.int64), 2)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_unpool_invalid_index_message_matches_torch(nd):
    msgs = []
    for T in (nt, ref):
        unpool = getattr(T.nn.functional, f"max_unpool{nd}d")
        with pytest.raises(RuntimeError) as e:
            unpool(T.ones((1, 1) + (2,) * nd), T.full((1, 1) + (2,) * nd, 100, dtype=T.int64), 2)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# ------------------------------------------------------------------------------------------------
# interpolate
# ------------------------------------------------------------------------------------------------
INTERP = [
    ((2, 3, 4, 5), dict(scale_factor=2)),
    ((2, 3, 4, 5), dict(size=(7, 3))),
    ((2, 3, 6, 5), dict(scale_factor=1.7)),
    ((2, 3, 6, 5), dict(scale_factor=(0.5, 1.5), recompute_scale_factor=True)),
    ((2, 3, 6, 5), dict(size=(9, 4), mode="nearest-exact")),
    ((2, 3, 4, 5), dict(size=(7, 9), mode="bilinear")),
    ((2, 3, 4, 5), dict(size=(7, 9), mode="bilinear", align_corners=True)),
    ((2, 3, 6, 5), dict(scale_factor=1.7, mode="bilinear")),
    ((2, 3, 6, 8), dict(size=(3, 3), mode="bilinear")),
    ((2, 3, 6, 8), dict(size=(1, 3), mode="bilinear", align_corners=True)),
    ((2, 3, 7), dict(size=11, mode="linear")),
    ((2, 3, 7), dict(scale_factor=0.6, mode="linear", align_corners=True)),
    ((2, 3, 7), dict(size=10, mode="nearest")),
    ((1, 2, 3, 4, 3), dict(size=(4, 3, 5), mode="trilinear")),
    ((1, 2, 3, 4, 3), dict(scale_factor=2, mode="nearest")),
    ((2, 3, 6, 6), dict(size=(4, 3), mode="area")),
]


@pytest.mark.parametrize("shape,kw", INTERP)
def test_interpolate(shape, kw, fdtype):
    tol = dict(rtol=1e-5, atol=1e-6) if fdtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    check(lambda x: F.interpolate(x, **kw), lambda x: RF.interpolate(x, **kw), _arr(shape, fdtype), fdtype, tol)


def test_interpolate_grad_fn_and_gradcheck():
    x = _leaf((1, 2, 3, 4))
    assert type(F.interpolate(x, scale_factor=2).grad_fn).__name__ == "UpsampleNearest2DBackward0"
    assert type(F.interpolate(x, size=5, mode="bilinear").grad_fn).__name__ == "UpsampleBilinear2DBackward0"
    assert gradcheck(lambda t: F.interpolate(t, size=(5, 3), mode="bilinear"), (x,))
    assert gradcheck(lambda t: F.interpolate(t, scale_factor=1.5), (x,))


INTERP_ERRORS = [
    ("both", lambda M, x: M.interpolate(x, size=4, scale_factor=2)),
    ("neither", lambda M, x: M.interpolate(x)),
    ("size_len", lambda M, x: M.interpolate(x, size=(2, 2, 2))),
    ("align_nearest", lambda M, x: M.interpolate(x, size=(3, 9), align_corners=True)),
    ("linear_4d", lambda M, x: M.interpolate(x, size=(3, 9), mode="linear")),
    ("bad_mode", lambda M, x: M.interpolate(x, size=(3, 9), mode="foo")),
]


@pytest.mark.parametrize("name,fn", INTERP_ERRORS, ids=[c[0] for c in INTERP_ERRORS])
def test_interpolate_errors_match_pytorch(name, fn):
    _err(fn, (2, 3, 6, 6))


BICUBIC_AA = [((2, 3, 9, 7), dict(size=(20, 15), mode="bicubic")),
              ((1, 2, 9, 7), dict(size=(20, 15), mode="bicubic", align_corners=True)),
              ((1, 2, 19, 17), dict(scale_factor=0.3, mode="bicubic")),
              ((2, 3, 40, 50), dict(size=(20, 17), mode="bilinear", antialias=True)),
              ((1, 2, 10, 12), dict(size=(23, 31), mode="bilinear", antialias=True)),
              ((1, 2, 40, 50), dict(size=(13, 11), mode="bicubic", antialias=True)),
              ((1, 1, 30, 30), dict(size=(7, 9), mode="bilinear", antialias=True, align_corners=True)),
              ((1, 1, 30, 30), dict(scale_factor=(0.4, 0.25), mode="bicubic", antialias=True))]


@pytest.mark.parametrize("shape,kw", BICUBIC_AA, ids=[f"{k['mode']}-aa{k.get('antialias', False)}-{i}"
                                                      for i, (_, k) in enumerate(BICUBIC_AA)])
def test_interpolate_bicubic_and_antialias(shape, kw, fdtype):
    tol = dict(rtol=1e-5, atol=1e-5) if fdtype == np.float32 else None  # float32 gradients sum up to ~20 terms
    out = check(lambda x: F.interpolate(x, **kw), lambda x: RF.interpolate(x, **kw), _arr(shape, fdtype), fdtype, tol)
    name = "UpsampleBicubic2D" if kw["mode"] == "bicubic" else "UpsampleBilinear2D"
    assert type(out.grad_fn).__name__ == name + ("AaBackward0" if kw.get("antialias") else "Backward0")


def test_interpolate_bicubic_antialias_gradcheck():
    assert gradcheck(lambda x: F.interpolate(x, size=(5, 3), mode="bicubic"), (_leaf((1, 2, 3, 4)),))
    assert gradcheck(lambda x: F.interpolate(x, size=(2, 3), mode="bilinear", antialias=True), (_leaf((1, 1, 5, 7)),))


def test_interpolate_antialias_errors():
    _err(lambda M, x: M.interpolate(x, size=3, mode="nearest", antialias=True), (1, 1, 4, 4))
    _err(lambda M, x: M.interpolate(x, size=3, mode="linear", antialias=True), (1, 1, 4))
    # uint8 antialiasing: PyTorch's fixed-point kernel (values: tests/test_opinfo_values.py)
    x = ref.randint(0, 256, (1, 1, 4, 4), dtype=ref.uint8)
    out = F.interpolate(nt.tensor(x.numpy()), size=3, mode="bilinear", antialias=True)
    assert out.dtype == nt.uint8 and np.array_equal(out.numpy(), RF.interpolate(
        x, size=3, mode="bilinear", antialias=True).numpy())


# ------------------------------------------------------------------------------------------------
# pixel shuffle
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,r", [((2, 8, 3, 4), 2), ((9, 2, 3), 3), ((2, 2, 4, 2, 2), 2)])
def test_pixel_shuffle(shape, r, fdtype):
    out = check(lambda x: F.pixel_shuffle(x, r), lambda x: RF.pixel_shuffle(x, r), _arr(shape, fdtype), fdtype)
    back = check(lambda x: F.pixel_unshuffle(x, r), lambda x: RF.pixel_unshuffle(x, r), out.detach().numpy(), fdtype)
    np.testing.assert_array_equal(back.detach().numpy(), _np_roundtrip(out.detach().numpy(), r))


def _np_roundtrip(y, r):
    return RF.pixel_unshuffle(ref.from_numpy(y.copy()), r).numpy()


def test_pixel_shuffle_errors_match_pytorch():
    _err(lambda M, x: M.pixel_shuffle(x, 2), (2, 7, 3, 3))
    _err(lambda M, x: M.pixel_unshuffle(x, 2), (2, 7, 3, 4))
    _err(lambda M, x: M.pixel_unshuffle(x, 2), (2, 7, 4, 3))


# ------------------------------------------------------------------------------------------------
# pooling errors: same type and message as PyTorch
# ------------------------------------------------------------------------------------------------
POOL_ERRORS = [
    ("pad_half", lambda M, x: M.max_pool2d(x, 3, padding=2), (2, 3, 6, 6)),
    ("zero_stride", lambda M, x: M.max_pool2d(x, 2, stride=0), (2, 3, 6, 6)),
    ("too_small", lambda M, x: M.max_pool2d(x, 7), (2, 3, 6, 6)),
    ("rank2d", lambda M, x: M.max_pool2d(x, 2), (6, 6)),
    ("rank1d", lambda M, x: M.max_pool1d(x, 2), (2, 3, 6, 6)),
    ("kernel_len", lambda M, x: M.max_pool2d(x, (2, 2, 2)), (2, 3, 6, 6)),
    ("stride_len", lambda M, x: M.avg_pool2d(x, 2, stride=(1, 1, 1)), (2, 3, 6, 6)),
    ("neg_pad", lambda M, x: M.max_pool2d(x, 2, padding=-1), (2, 3, 6, 6)),
    ("avg_pad_half", lambda M, x: M.avg_pool2d(x, 3, padding=2), (2, 3, 6, 6)),
    ("avg_too_small", lambda M, x: M.avg_pool2d(x, 7), (2, 3, 6, 6)),
    ("divisor", lambda M, x: M.avg_pool2d(x, 2, divisor_override=0), (2, 3, 6, 6)),
    ("adaptive_len", lambda M, x: M.adaptive_avg_pool2d(x, (2, 2, 2)), (2, 3, 6, 6)),
    ("adaptive_rank", lambda M, x: M.adaptive_max_pool2d(x, 2), (6, 6)),
    ("adaptive_rank_1d", lambda M, x: M.adaptive_avg_pool1d(x, 2), (2, 3, 6, 6)),
    ("adaptive_neg", lambda M, x: M.adaptive_avg_pool2d(x, -1), (2, 3, 6, 6)),
    ("adaptive_empty", lambda M, x: M.adaptive_avg_pool2d(x, 2), (2, 3, 0, 4)),
]


@pytest.mark.parametrize("name,fn,shape", POOL_ERRORS, ids=[c[0] for c in POOL_ERRORS])
def test_pool_errors_match_pytorch(name, fn, shape):
    _err(fn, shape)
