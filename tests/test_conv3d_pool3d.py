"""3-d convolution and pooling (conv3d, conv_transpose3d, max/avg/adaptive pool3d and their modules):
differential tests against PyTorch (values, indices, gradients of input/weight/bias, float32 and float64),
float64 gradcheck, seeded construction, reprs, and PyTorch's error types and messages."""
import platform

import numpy as np
import pytest
import torch as ref
import torch.nn as rnn
import torch.nn.functional as RF

import numtorch as nt
import numtorch.nn as nn
import numtorch.nn.functional as F
from conftest import assert_close, to_nt, to_ref
from numtorch.autograd import gradcheck

rng = np.random.default_rng(3)
X86 = platform.machine().lower() in ("x86_64", "amd64")


def _arr(shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


def _leaf(shape):
    return to_nt(_arr(shape, np.float64), True)


def _tol(dtype):
    # float32 convolutions sum up to a few hundred products: allow a little more than one rounding
    return dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)


def _conv_check(fn_nt, fn_ref, xs, ws, bias, kw, dtype):
    """Run both libraries on the same x, w, b; compare output and the gradients of all three."""
    arrs = [_arr(xs, dtype), _arr(ws, dtype)] + ([_arr((bias,), dtype)] if bias else [])
    ins_nt = [to_nt(a, True) for a in arrs]
    ins_ref = [to_ref(a, True) for a in arrs]
    out_nt = fn_nt(*ins_nt, **kw)
    out_ref = fn_ref(*ins_ref, **kw)
    assert_close(out_nt, out_ref, **_tol(dtype))
    # (PyTorch wraps an unbatched convolution in a SqueezeBackward1; numtorch's one node handles both)
    assert type(out_nt.grad_fn).__name__ == "ConvolutionBackward0"
    assert out_ref.grad_fn.name() == ("ConvolutionBackward0" if len(xs) == 5 else "SqueezeBackward1")
    g = _arr(tuple(out_ref.shape), dtype)
    out_nt.backward(to_nt(g))
    out_ref.backward(to_ref(g))
    for a, b in zip(ins_nt, ins_ref):
        assert_close(a.grad, b.grad, **_tol(dtype))


# ------------------------------------------------------------------------------------------------
# conv3d / conv_transpose3d
# ------------------------------------------------------------------------------------------------
CONV3D = [  # input shape, weight shape, bias size (0: none), kwargs
    ((2, 3, 5, 6, 7), (4, 3, 3, 3, 3), 4, {}),
    ((2, 3, 6, 6, 5), (4, 3, 3, 3, 3), 0, dict(stride=2, padding=1)),
    ((2, 2, 7, 6, 8), (3, 2, 2, 3, 2), 3, dict(stride=(1, 2, 3), padding=(0, 1, 2), dilation=(2, 1, 1))),
    ((2, 4, 5, 5, 5), (6, 2, 3, 2, 3), 6, dict(padding="same", groups=2)),
    ((1, 4, 5, 6, 5), (4, 1, 3, 3, 3), 4, dict(padding=1, groups=4)),  # depthwise
    ((2, 3, 6, 5, 5), (2, 3, 2, 2, 4), 2, dict(padding="same", dilation=(1, 2, 1))),  # asymmetric 'same'
    ((2, 3, 4, 5, 6), (5, 3, 2, 2, 2), 5, dict(padding="valid", stride=(2, 1, 2))),
    ((3, 5, 4, 6), (2, 3, 3, 2, 3), 2, dict(stride=(2, 1, 1), padding=(1, 0, 1))),  # unbatched
    ((2, 3, 3, 4, 5), (4, 3, 1, 1, 1), 0, dict(stride=[2])),  # 1x1x1 kernel, 1-list stride
]


@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")  # PyTorch's perf note
@pytest.mark.parametrize("xs,ws,bias,kw", CONV3D)
def test_conv3d(xs, ws, bias, kw, fdtype):
    _conv_check(F.conv3d, RF.conv3d, xs, ws, bias, kw, fdtype)


CONVT3D = [  # input shape, weight shape (C_in, C_out/groups, k...), bias size, kwargs
    ((2, 3, 3, 4, 3), (3, 2, 3, 3, 3), 2, {}),
    ((2, 3, 3, 3, 4), (3, 4, 2, 3, 2), 0, dict(stride=2, padding=1, output_padding=1)),
    ((2, 4, 3, 3, 3), (4, 3, 3, 2, 3), 6, dict(stride=(2, 1, 3), padding=(1, 0, 1), output_padding=(1, 0, 2),
                                               groups=2)),
    ((1, 2, 4, 3, 3), (2, 2, 2, 3, 2), 2, dict(dilation=(2, 1, 3), padding=(1, 1, 0), stride=2,
                                               output_padding=(1, 1, 0))),
    ((3, 3, 2, 4), (3, 2, 3, 2, 2), 2, dict(stride=(1, 2, 2))),  # unbatched
]


@pytest.mark.parametrize("xs,ws,bias,kw", CONVT3D)
def test_conv_transpose3d(xs, ws, bias, kw, fdtype):
    _conv_check(F.conv_transpose3d, RF.conv_transpose3d, xs, ws, bias, kw, fdtype)


def test_conv3d_input_only_and_weight_only_gradients():
    x, w = _arr((1, 2, 4, 4, 4), np.float32), _arr((3, 2, 2, 2, 2), np.float32)
    x_nt, w_nt = to_nt(x, True), to_nt(w)
    F.conv3d(x_nt, w_nt, stride=2).sum().backward()
    x_ref = to_ref(x, True)
    RF.conv3d(x_ref, to_ref(w), stride=2).sum().backward()
    assert_close(x_nt.grad, x_ref.grad, **_tol(np.float32))
    assert w_nt.grad is None
    x_nt, w_nt = to_nt(x), to_nt(w, True)
    F.conv3d(x_nt, w_nt, padding=1).sum().backward()
    w_ref = to_ref(w, True)
    RF.conv3d(to_ref(x), w_ref, padding=1).sum().backward()
    assert_close(w_nt.grad, w_ref.grad, **_tol(np.float32))
    assert x_nt.grad is None


def test_conv3d_integer_input_like_pytorch():
    x, w = rng.integers(-5, 5, (1, 2, 4, 5, 4)), rng.integers(-3, 3, (3, 2, 2, 2, 2))
    for fn_nt, fn_ref, wt in ((F.conv3d, RF.conv3d, w), (F.conv_transpose3d, RF.conv_transpose3d, w[:2])):
        out = fn_nt(nt.tensor(x), nt.tensor(wt), stride=2)
        assert out.dtype == nt.int64
        np.testing.assert_array_equal(out.numpy(), fn_ref(ref.tensor(x), ref.tensor(wt), stride=2).numpy())


def test_conv3d_gradcheck():
    x, w, b = _leaf((1, 2, 4, 3, 4)), _leaf((4, 1, 2, 2, 3)), _leaf((4,))
    assert gradcheck(lambda x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=1, dilation=(1, 1, 2), groups=2),
                     (x, w, b))
    x, w, b = _leaf((1, 2, 2, 3, 2)), _leaf((2, 3, 2, 2, 2)), _leaf((3,))
    assert gradcheck(lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=(1, 0, 1), output_padding=1),
                     (x, w, b))


def _same_error(fn):
    """``fn(lib_functional, lib)`` raises the same type and message in both libraries."""
    with pytest.raises(Exception) as e_ref:
        fn(RF, ref)
    with pytest.raises(type(e_ref.value)) as e_nt:
        fn(F, nt)
    assert str(e_nt.value) == str(e_ref.value)


def _z(lib, *shape, dtype=None):
    return lib.zeros(*shape, dtype=dtype or lib.float32)


CONV_ERRORS = [
    lambda F, t: F.conv3d(_z(t, 2, 4, 4), _z(t, 3, 2, 2, 2, 2)),  # 3-D input
    lambda F, t: F.conv3d(_z(t, 1, 1, 2, 4, 4, 4), _z(t, 3, 2, 2, 2, 2)),  # 6-D input
    lambda F, t: F.conv3d(_z(t, 1, 3, 4, 4, 4), _z(t, 3, 2, 2, 2, 2)),  # channel mismatch
    lambda F, t: F.conv3d(_z(t, 1, 4, 4, 4, 4), _z(t, 3, 2, 2, 2, 2), groups=2),  # groups do not divide C_out
    lambda F, t: F.conv3d(_z(t, 1, 2, 4, 4, 4), _z(t, 3, 2, 2, 2, 2), _z(t, 4)),  # bias size
    lambda F, t: F.conv3d(_z(t, 1, 2, 4, 4, 4), _z(t, 3, 2, 2, 2, 2), stride=(1, 2)),
    lambda F, t: F.conv3d(_z(t, 1, 2, 4, 4, 4), _z(t, 3, 2, 2, 2, 2), padding=-1),
    lambda F, t: F.conv3d(_z(t, 1, 2, 4, 4, 4), _z(t, 3, 2, 2, 2, 2), stride=0),
    lambda F, t: F.conv3d(_z(t, 1, 2, 4, 4, 1), _z(t, 3, 2, 2, 2, 2)),  # kernel larger than the input
    lambda F, t: F.conv3d(_z(t, 1, 2, 4, 4, 4), _z(t, 3, 2, 2, 2, 2), padding="same", stride=2),
    lambda F, t: F.conv3d(_z(t, 1, 2, 4, 4, 4), _z(t, 3, 2, 2, 2, 2), padding="full"),
    lambda F, t: F.conv3d(_z(t, 1, 2, 4, 4, 4, dtype=t.float64), _z(t, 3, 2, 2, 2, 2)),
    lambda F, t: F.conv3d(_z(t, 1, 2, 4, 4, 4), _z(t, 3, 2, 2, 2, 2, dtype=t.float64)),
    lambda F, t: F.conv3d(_z(t, 1, 2, 4, 4, 4), _z(t, 3, 2, 2, 2, 2), _z(t, 3, dtype=t.float64)),
    lambda F, t: F.conv_transpose3d(_z(t, 1, 2, 4, 4, 4, dtype=t.float64), _z(t, 2, 3, 2, 2, 2)),
    lambda F, t: F.conv_transpose3d(_z(t, 1, 3, 4, 4, 4), _z(t, 2, 3, 2, 2, 2)),  # channel mismatch
    lambda F, t: F.conv_transpose3d(_z(t, 1, 2, 4, 4, 4), _z(t, 2, 3, 2, 2, 2), output_padding=2),
    lambda F, t: F.conv_transpose3d(_z(t, 1, 2, 4, 4, 4), _z(t, 2, 3, 2, 2, 2), padding="same"),  # TypeError
    lambda F, t: F.conv_transpose3d(_z(t, 1, 2, 1, 1, 1), _z(t, 2, 3, 1, 1, 1), padding=1),  # empty output
]


@pytest.mark.parametrize("fn", CONV_ERRORS)
def test_conv3d_errors_match_pytorch(fn):
    _same_error(fn)


def test_conv3d_weight_rank_errors():
    with pytest.raises(RuntimeError, match=r"5-D weight.*\[3, 2, 2, 2\]"):
        F.conv3d(nt.zeros(1, 2, 4, 4, 4), nt.zeros(3, 2, 2, 2))
    with pytest.raises(RuntimeError, match=r"5-D weight.*\[2, 3, 2, 2\]"):
        F.conv_transpose3d(nt.zeros(1, 2, 4, 4, 4), nt.zeros(2, 3, 2, 2))
    with pytest.raises(RuntimeError):  # PyTorch raises RuntimeError too (about the stride's length)
        RF.conv3d(ref.zeros(1, 2, 4, 4, 4), ref.zeros(3, 2, 2, 2))
    with pytest.raises(TypeError, match="must be Tensor"):
        F.conv3d(np.zeros((1, 2, 4, 4, 4)), nt.zeros(3, 2, 2, 2, 2))


# ------------------------------------------------------------------------------------------------
# pooling functionals
# ------------------------------------------------------------------------------------------------
def _pool_check(fn_nt, fn_ref, x, dtype, node, tol=None):
    """Compare outputs (values, and int64 indices exactly), grad_fn names and the input gradient."""
    x_nt, x_ref = to_nt(x, True), to_ref(x, True)
    out_nt, out_ref = fn_nt(x_nt), fn_ref(x_ref)
    if isinstance(out_ref, tuple):
        (out_nt, idx_nt), (out_ref, idx_ref) = out_nt, out_ref
        assert idx_nt.dtype == nt.int64 and not idx_nt.requires_grad
        np.testing.assert_array_equal(idx_nt.numpy(), idx_ref.numpy())
    assert_close(out_nt, out_ref, **(tol or {}))
    assert type(out_nt.grad_fn).__name__ == out_ref.grad_fn.name() == node
    g = _arr(tuple(out_ref.shape), dtype)
    out_nt.backward(to_nt(g))
    out_ref.backward(to_ref(g))
    assert_close(x_nt.grad, x_ref.grad, **(tol or {}))


MAXPOOL3D = [
    ((2, 3, 4, 6, 6), dict(kernel_size=2)),
    ((2, 2, 5, 7, 6), dict(kernel_size=3, stride=2, padding=1)),
    ((1, 2, 7, 6, 8), dict(kernel_size=(3, 2, 2), stride=(1, 2, 1), padding=(1, 0, 1), dilation=(2, 1, 3))),
    ((2, 2, 5, 7, 7), dict(kernel_size=2, stride=2, ceil_mode=True)),
    ((1, 2, 5, 8, 7), dict(kernel_size=3, stride=3, padding=1, ceil_mode=True)),
    ((3, 4, 5, 5), dict(kernel_size=2, stride=1)),  # unbatched, overlapping windows
    ((2, 2, 4, 5, 5), dict(kernel_size=(2, 3, 2), stride=[])),  # empty stride means kernel_size
]


@pytest.mark.parametrize("shape,kw", MAXPOOL3D)
@pytest.mark.parametrize("indices", [False, True])
def test_max_pool3d(shape, kw, indices, fdtype):
    _pool_check(lambda x: F.max_pool3d(x, **kw, return_indices=indices),
                lambda x: RF.max_pool3d(x, **kw, return_indices=indices), _arr(shape, fdtype), fdtype,
                "MaxPool3DWithIndicesBackward0")


def test_max_pool3d_ties_nan_integers_and_empty_batch():
    x = rng.integers(0, 3, (2, 2, 4, 5, 5)).astype(np.float32)  # many equal maxima: the first one wins
    _pool_check(lambda t: F.max_pool3d(t, 3, stride=1, padding=1, return_indices=True),
                lambda t: RF.max_pool3d(t, 3, stride=1, padding=1, return_indices=True), x, np.float32,
                "MaxPool3DWithIndicesBackward0")
    x = _arr((1, 2, 4, 4, 4), np.float32)
    x[0, 1, 1, 2, 3] = np.nan
    _pool_check(lambda t: F.max_pool3d_with_indices(t, 2), lambda t: RF.max_pool3d_with_indices(t, 2), x,
                np.float32, "MaxPool3DWithIndicesBackward0")
    xi = rng.integers(-9, 9, (2, 2, 4, 4, 5))
    out, idx = F.max_pool3d(nt.tensor(xi), 2, return_indices=True)
    r_out, r_idx = RF.max_pool3d(ref.tensor(xi), 2, return_indices=True)
    assert out.dtype == nt.int64
    np.testing.assert_array_equal(out.numpy(), r_out.numpy())
    np.testing.assert_array_equal(idx.numpy(), r_idx.numpy())
    assert F.max_pool3d(nt.zeros(0, 2, 4, 4, 4), 2).shape == RF.max_pool3d(ref.zeros(0, 2, 4, 4, 4), 2).shape


AVGPOOL3D = [
    ((2, 3, 4, 6, 6), dict(kernel_size=2)),
    ((2, 2, 5, 7, 6), dict(kernel_size=3, stride=2, padding=1)),
    ((2, 2, 5, 7, 6), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    ((2, 2, 5, 7, 7), dict(kernel_size=(2, 3, 2), stride=2, ceil_mode=True)),
    ((1, 2, 6, 8, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)),
    ((1, 2, 6, 8, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ((2, 2, 4, 6, 6), dict(kernel_size=3, padding=(1, 0, 1), divisor_override=5)),
    ((3, 4, 5, 5), dict(kernel_size=2, stride=(1, 2, 1))),  # unbatched
]


@pytest.mark.parametrize("shape,kw", AVGPOOL3D)
def test_avg_pool3d(shape, kw, fdtype):
    _pool_check(lambda x: F.avg_pool3d(x, **kw), lambda x: RF.avg_pool3d(x, **kw), _arr(shape, fdtype), fdtype,
                "AvgPool3DBackward0")


def test_avg_pool3d_integer_truncates_like_pytorch():
    x = rng.integers(-9, 9, (1, 2, 5, 5, 4))
    for kw in (dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)):
        out = F.avg_pool3d(nt.tensor(x), **kw)
        assert out.dtype == nt.int64
        np.testing.assert_array_equal(out.numpy(), RF.avg_pool3d(ref.tensor(x), **kw).numpy())


ADAPTIVE3D = [((2, 3, 6, 6, 6), 3), ((2, 2, 7, 5, 6), (3, 4, 2)), ((2, 2, 5, 7, 4), (None, 2, 3)),
              ((3, 4, 5, 4), (6, 7, 3)), ((2, 3, 4, 5, 3), 1), ((2, 2, 5, 4, 6), (1, 1, None))]


@pytest.mark.parametrize("shape,size", ADAPTIVE3D)
def test_adaptive_avg_pool3d(shape, size, fdtype):
    tol = dict(rtol=1e-5, atol=1e-6) if fdtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    expect = RF.adaptive_avg_pool3d(ref.zeros(shape, requires_grad=True), size).grad_fn.name()
    assert expect == ("MeanBackward1" if size == 1 else "AdaptiveAvgPool3DBackward0")
    _pool_check(lambda x: F.adaptive_avg_pool3d(x, size), lambda x: RF.adaptive_avg_pool3d(x, size),
                _arr(shape, fdtype), fdtype, expect, tol)


@pytest.mark.parametrize("shape,size", ADAPTIVE3D)
@pytest.mark.parametrize("indices", [False, True])
def test_adaptive_max_pool3d(shape, size, indices, fdtype):
    _pool_check(lambda x: F.adaptive_max_pool3d(x, size, return_indices=indices),
                lambda x: RF.adaptive_max_pool3d(x, size, return_indices=indices), _arr(shape, fdtype), fdtype,
                "AdaptiveMaxPool3DBackward0")


def test_adaptive_pool3d_empty_outputs_and_with_indices():
    x = nt.zeros(2, 3, 4, 4, 4)
    assert F.adaptive_avg_pool3d(x, (2, 0, 2)).shape == (2, 3, 2, 0, 2)
    out, idx = F.adaptive_max_pool3d(x, (0, 2, 1), return_indices=True)
    assert out.shape == idx.shape == (2, 3, 0, 2, 1)
    xa = _arr((1, 2, 5, 4, 3), np.float32)
    out, idx = F.adaptive_max_pool3d_with_indices(to_nt(xa), (2, 3, 2))
    r_out, r_idx = RF.adaptive_max_pool3d_with_indices(to_ref(xa), (2, 3, 2))
    assert_close(out, r_out)
    np.testing.assert_array_equal(idx.numpy(), r_idx.numpy())


def test_pool3d_gradcheck():
    assert gradcheck(lambda x: F.max_pool3d(x, 2, stride=1, padding=1), (_leaf((1, 2, 3, 2, 3)),))
    assert gradcheck(lambda x: F.max_pool3d(x, (2, 1, 2), stride=2, ceil_mode=True), (_leaf((2, 3, 3, 3)),))
    assert gradcheck(lambda x: F.avg_pool3d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
                     (_leaf((1, 1, 4, 3, 5)),))
    assert gradcheck(lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), (_leaf((1, 2, 3, 4, 3)),))
    assert gradcheck(lambda x: F.adaptive_max_pool3d(x, (2, 3, 2)), (_leaf((1, 2, 3, 4, 3)),))


POOL_ERRORS = [
    lambda F, t: F.max_pool3d(_z(t, 4, 4), 2),
    lambda F, t: F.max_pool3d(_z(t, 1, 2, 4, 4, 4), (2, 2)),
    lambda F, t: F.max_pool3d(_z(t, 1, 2, 4, 4, 4), 2, stride=(1, 1)),
    lambda F, t: F.max_pool3d(_z(t, 1, 2, 4, 4, 4), 2, padding=(1, 1)),
    lambda F, t: F.max_pool3d(_z(t, 1, 2, 4, 4, 4), 2, dilation=(1, 1)),
    lambda F, t: F.max_pool3d(_z(t, 1, 2, 4, 4, 4), 2, padding=2),
    lambda F, t: F.max_pool3d(_z(t, 1, 2, 4, 4, 4), 3, padding=2, dilation=2),
    lambda F, t: F.max_pool3d(_z(t, 1, 2, 4, 4, 4), 0),
    lambda F, t: F.max_pool3d(_z(t, 1, 2, 4, 4, 4), 0, stride=1),
    lambda F, t: F.max_pool3d(_z(t, 1, 2, 4, 4, 4), 2, stride=-1),
    lambda F, t: F.max_pool3d(_z(t, 1, 2, 4, 4, 4), 2, dilation=0),
    lambda F, t: F.max_pool3d(_z(t, 1, 2, 4, 4, 4), 2, padding=-1),
    lambda F, t: F.max_pool3d(_z(t, 1, 2, 4, 4, 4), 5),
    lambda F, t: F.max_pool3d(_z(t, 1, 2, 0, 4, 4), 2),
    lambda F, t: F.max_pool3d(_z(t, 0, 4, 4, 4), 2),
    lambda F, t: F.avg_pool3d(_z(t, 4, 4), 2),
    lambda F, t: F.avg_pool3d(_z(t, 1, 2, 4, 4, 4), (2, 2)),
    lambda F, t: F.avg_pool3d(_z(t, 1, 2, 4, 4, 4), 2, stride=(1, 1)),
    lambda F, t: F.avg_pool3d(_z(t, 1, 2, 4, 4, 4), 2, padding=(1, 1)),
    lambda F, t: F.avg_pool3d(_z(t, 1, 2, 4, 4, 4), 2, divisor_override=0),
    lambda F, t: F.avg_pool3d(_z(t, 1, 2, 4, 4, 4), 5, padding=2),  # kernel larger than the unpadded input
    lambda F, t: F.avg_pool3d(_z(t, 1, 2, 4, 4, 4), (2, 2, 0), stride=1),
    lambda F, t: F.avg_pool3d(_z(t, 1, 2, 4, 4, 4), 2, stride=(1, 1, -1)),
    lambda F, t: F.avg_pool3d(_z(t, 1, 2, 0, 4, 4), 2),
    lambda F, t: F.adaptive_avg_pool3d(_z(t, 4, 4), 2),
    lambda F, t: F.adaptive_avg_pool3d(_z(t, 4, 4), (2, 2, 2)),  # ValueError
    lambda F, t: F.adaptive_avg_pool3d(_z(t, 4, 4), 1),  # IndexError from mean
    lambda F, t: F.adaptive_avg_pool3d(_z(t, 1, 2, 4, 4, 4), (2, 2)),
    lambda F, t: F.adaptive_avg_pool3d(_z(t, 1, 2, 4, 4, 4), (2, -1, 2)),
    lambda F, t: F.adaptive_avg_pool3d(_z(t, 1, 0, 4, 4, 4), 2),
    lambda F, t: F.adaptive_avg_pool3d(_z(t, 1, 2, 3, 3, 3, 3), 2),
    lambda F, t: F.adaptive_avg_pool3d(t.zeros(1, 2, 3, 3, 3, dtype=t.int64), 2),  # NotImplementedError
    lambda F, t: F.adaptive_avg_pool3d(t.zeros(1, 2, 3, 3, 3, dtype=t.int64), 1),
    lambda F, t: F.adaptive_max_pool3d(_z(t, 4, 4), 2),
    lambda F, t: F.adaptive_max_pool3d(_z(t, 1, 2, 4, 4, 4), (2, 2)),
    lambda F, t: F.adaptive_max_pool3d(_z(t, 1, 2, 4, 4, 4), (2, -1, 2)),
    lambda F, t: F.adaptive_max_pool3d(_z(t, 1, 0, 4, 4, 4), 2),
    lambda F, t: F.adaptive_max_pool3d(_z(t, 2, 4, 4, 4), (2, 2, 2, 2)),
    lambda F, t: F.adaptive_max_pool3d(t.zeros(1, 2, 3, 3, 3, dtype=t.int64), 2),
]


@pytest.mark.parametrize("fn", POOL_ERRORS)
def test_pool3d_errors_match_pytorch(fn):
    _same_error(fn)


# ------------------------------------------------------------------------------------------------
# modules
# ------------------------------------------------------------------------------------------------
def _module_check(make, x, dtype, **fwd):
    """Same weights (state_dict copy), same input: compare outputs and the input/parameter gradients."""
    m_ref = make(rnn).to(ref.float64 if dtype == np.float64 else ref.float32)
    m_nt = make(nn).to(nt.float64 if dtype == np.float64 else nt.float32)
    m_nt.load_state_dict({k: to_nt(v) for k, v in m_ref.state_dict().items()})
    x_nt, x_ref = to_nt(x, True), to_ref(x, True)
    out_nt, out_ref = m_nt(x_nt, **fwd), m_ref(x_ref, **fwd)
    assert_close(out_nt, out_ref, **_tol(dtype))
    g = _arr(tuple(out_ref.shape), dtype)
    out_nt.backward(to_nt(g))
    out_ref.backward(to_ref(g))
    assert_close(x_nt.grad, x_ref.grad, **_tol(dtype))
    p_nt, p_ref = dict(m_nt.named_parameters()), dict(m_ref.named_parameters())
    assert list(p_nt) == list(p_ref)
    for k in p_ref:
        assert_close(p_nt[k].grad, p_ref[k].grad, **_tol(dtype))
    assert repr(m_nt) == repr(m_ref)


CONV_MODULES = [
    (lambda n: n.Conv3d(3, 4, 3), (2, 3, 5, 5, 6)),
    (lambda n: n.Conv3d(4, 6, (3, 2, 3), stride=(2, 1, 1), padding=(1, 2, 0), dilation=(1, 2, 1), groups=2,
                        bias=False), (2, 4, 6, 5, 5)),
    (lambda n: n.Conv3d(2, 3, 3, padding=1, padding_mode="reflect"), (2, 2, 4, 5, 4)),
    (lambda n: n.Conv3d(2, 3, (3, 2, 4), padding="same", padding_mode="replicate"), (1, 2, 4, 5, 6)),
    (lambda n: n.Conv3d(2, 3, 3, stride=2, padding=(2, 1, 1), padding_mode="circular"), (2, 2, 5, 4, 4)),
    (lambda n: n.Conv3d(2, 3, 2, padding="valid"), (2, 4, 4, 4)),  # unbatched
    (lambda n: n.ConvTranspose3d(3, 4, 3), (2, 3, 3, 4, 3)),
    (lambda n: n.ConvTranspose3d(4, 6, (2, 3, 2), stride=2, padding=(0, 1, 1), output_padding=1, groups=2,
                                 dilation=(1, 1, 2)), (1, 4, 3, 3, 3)),
]


@pytest.mark.parametrize("make,shape", CONV_MODULES)
def test_conv3d_modules(make, shape, fdtype):
    _module_check(make, _arr(shape, fdtype), fdtype)


def test_conv_transpose3d_output_size():
    make = lambda n: n.ConvTranspose3d(2, 3, 3, stride=2, padding=1)
    x = _arr((1, 2, 3, 4, 3), np.float64)
    _module_check(make, x, np.float64, output_size=(6, 8, 5))
    _module_check(make, x, np.float64, output_size=(1, 3, 5, 7, 6))
    with pytest.raises(ValueError, match="requested an output size of"):
        nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1)(to_nt(x), output_size=(9, 8, 5))


@pytest.mark.skipif(not X86, reason="the reference values are PyTorch's x86-64 kernels")
def test_seeded_construction_matches_pytorch():
    for make in (lambda n: n.Conv3d(3, 8, 3), lambda n: n.Conv3d(4, 6, (1, 2, 3), groups=2, bias=False),
                 lambda n: n.ConvTranspose3d(4, 6, 3, groups=2), lambda n: n.ConvTranspose3d(3, 5, (2, 1, 2))):
        nt.manual_seed(1234)
        ref.manual_seed(1234)
        a, b = make(nn).state_dict(), make(rnn).state_dict()
        assert list(a) == list(b)
        for k in a:
            assert a[k].dtype == nt.float32 and tuple(a[k].shape) == tuple(b[k].shape)
            np.testing.assert_array_equal(a[k].numpy(), b[k].numpy())


def test_conv3d_module_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv3d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="not supported for strided convolutions"):
        nn.Conv3d(3, 4, 3, padding="same", stride=2)
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv3d(3, 4, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for ConvTranspose3d'):
        nn.ConvTranspose3d(3, 4, 3, padding_mode="reflect")
    with pytest.raises(RuntimeError, match="expected input"):
        nn.Conv3d(3, 4, 3)(nt.zeros(1, 2, 5, 5, 5))


POOL_MODULES = [
    (lambda n: n.MaxPool3d(2), (2, 3, 4, 4, 6)),
    (lambda n: n.MaxPool3d((3, 2, 2), stride=(1, 2, 2), padding=1, dilation=(1, 1, 2), ceil_mode=True),
     (1, 2, 5, 6, 7)),
    (lambda n: n.AvgPool3d(3, stride=2, padding=1, count_include_pad=False), (2, 2, 5, 5, 6)),
    (lambda n: n.AvgPool3d((2, 2, 3), divisor_override=4, ceil_mode=True), (2, 5, 5, 7)),
    (lambda n: n.AdaptiveAvgPool3d((2, None, 3)), (2, 3, 5, 4, 7)),
    (lambda n: n.AdaptiveAvgPool3d(1), (2, 3, 5, 4, 7)),
    (lambda n: n.AdaptiveMaxPool3d((3, 2, 2)), (2, 3, 5, 4, 7)),
]


@pytest.mark.parametrize("make,shape", POOL_MODULES)
def test_pool3d_modules(make, shape, fdtype):
    _module_check(make, _arr(shape, fdtype), fdtype)


def test_pool3d_modules_return_indices():
    x = _arr((2, 2, 4, 6, 5), np.float32)
    for make in (lambda n: n.MaxPool3d(2, stride=1, return_indices=True),
                 lambda n: n.AdaptiveMaxPool3d((2, 3, 2), return_indices=True)):
        (v, i), (rv, ri) = make(nn)(to_nt(x)), make(rnn)(to_ref(x))
        assert_close(v, rv)
        np.testing.assert_array_equal(i.numpy(), ri.numpy())
        assert repr(make(nn)) == repr(make(rnn))
