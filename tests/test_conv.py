"""Convolution, transposed convolution, padding and fold/unfold: differential tests against PyTorch
(values; gradients wrt input, weight and bias), float64 gradcheck, and PyTorch's error types/messages."""
import numpy as np
import pytest
import torch as ref
import torch.nn.functional as RF

import numtorch as nt
import numtorch.nn.functional as F
from conftest import assert_close, to_nt, to_ref
from numtorch.autograd import gradcheck

rng = np.random.default_rng(0)
CONV_TOL = {np.float32: dict(rtol=1e-4, atol=1e-4), np.float64: dict(rtol=1e-10, atol=1e-10)}


def _arr(shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


def check(fn_nt, fn_ref, arrays, dtype, grads=None, tol=None, **kw):
    """Run both libraries on the same arrays (None passes through); compare output and every gradient."""
    grads = [a is not None for a in arrays] if grads is None else grads
    a_nt = [None if a is None else to_nt(a, g) for a, g in zip(arrays, grads)]
    a_ref = [None if a is None else to_ref(a, g) for a, g in zip(arrays, grads)]
    out_nt, out_ref = fn_nt(*a_nt, **kw), fn_ref(*a_ref, **kw)
    tol = tol or CONV_TOL[dtype]
    assert_close(out_nt, out_ref, **tol)
    if any(grads):
        g = _arr(tuple(out_ref.shape), dtype)
        out_nt.backward(to_nt(g))
        out_ref.backward(to_ref(g))
        for t_nt, t_ref, need in zip(a_nt, a_ref, grads):
            if need:
                assert t_nt.grad is not None
                assert_close(t_nt.grad, t_ref.grad, **tol)
    return out_nt


# ------------------------------------------------------------------------------------------------
# conv2d / conv1d
# ------------------------------------------------------------------------------------------------
CONV2D = [  # x shape, w shape, bias?, kwargs
    ((2, 3, 7, 6), (4, 3, 3, 3), True, {}),
    ((2, 3, 7, 6), (4, 3, 3, 2), False, dict(stride=2, padding=1)),
    ((2, 4, 9, 8), (6, 2, 3, 3), True, dict(stride=(2, 1), padding=(1, 2), dilation=(2, 1), groups=2)),
    ((2, 4, 6, 6), (4, 1, 3, 3), True, dict(padding=1, groups=4)),  # depthwise
    ((2, 4, 6, 6), (8, 1, 3, 3), True, dict(stride=2, groups=4)),  # depthwise multiplier 2
    ((2, 3, 8, 7), (5, 3, 4, 4), True, dict(padding="same")),  # even kernel: extra pad on the right
    ((2, 3, 8, 7), (5, 3, 4, 3), True, dict(padding="same", dilation=(2, 3))),
    ((2, 3, 8, 7), (5, 3, 3, 3), True, dict(padding="valid", stride=3)),
    ((3, 7, 6), (4, 3, 3, 3), True, dict(padding=1)),  # unbatched
    ((2, 3, 5, 5), (4, 3, 1, 1), True, {}),  # 1x1
    ((2, 3, 5, 5), (4, 3, 5, 5), True, {}),  # kernel = input
    ((0, 3, 5, 5), (4, 3, 3, 3), True, {}),  # empty batch
]


@pytest.mark.parametrize("xs,ws,bias,kw", CONV2D)
def test_conv2d(xs, ws, bias, kw, fdtype):
    b = _arr((ws[0],), fdtype) if bias else None
    out = check(F.conv2d, RF.conv2d, [_arr(xs, fdtype), _arr(ws, fdtype), b], fdtype, **kw)
    assert out.dtype == (nt.float32 if fdtype == np.float32 else nt.float64)
    assert type(out.grad_fn).__name__ == "ConvolutionBackward0"


CONV1D = [
    ((2, 3, 9), (4, 3, 3), True, {}),
    ((2, 4, 11), (6, 2, 2), True, dict(stride=2, padding=2, dilation=2, groups=2)),
    ((2, 3, 10), (4, 3, 4), False, dict(padding="same", dilation=3)),
    ((3, 9), (4, 3, 3), True, dict(stride=3)),  # unbatched
]


@pytest.mark.parametrize("xs,ws,bias,kw", CONV1D)
def test_conv1d(xs, ws, bias, kw, fdtype):
    b = _arr((ws[0],), fdtype) if bias else None
    check(F.conv1d, RF.conv1d, [_arr(xs, fdtype), _arr(ws, fdtype), b], fdtype, **kw)


@pytest.mark.parametrize("grads", [(False, True, True), (True, False, False), (True, True, False)])
def test_conv2d_partial_grads(grads):
    arrays = [_arr((2, 3, 6, 6), np.float64), _arr((4, 3, 3, 3), np.float64), _arr((4,), np.float64)]
    check(F.conv2d, RF.conv2d, arrays, np.float64, grads=list(grads), padding=1)


def test_conv2d_integer_input():
    x = rng.integers(-5, 5, (2, 3, 5, 5))
    w = rng.integers(-3, 3, (4, 3, 3, 3))
    out = F.conv2d(nt.tensor(x), nt.tensor(w), padding=1)
    expected = RF.conv2d(ref.tensor(x), ref.tensor(w), padding=1)
    assert out.dtype == nt.int64
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


def test_conv2d_torch_namespace_and_no_grad():
    x, w = to_nt(_arr((1, 2, 5, 5), np.float32)), to_nt(_arr((3, 2, 3, 3), np.float32), True)
    with nt.no_grad():
        out = nt.conv2d(x, w)
    assert not out.requires_grad and out.grad_fn is None
    assert_close(out, RF.conv2d(to_ref(x), to_ref(w)), rtol=1e-5, atol=1e-5)


def test_conv2d_inplace_modified_input_raises():
    x = to_nt(_arr((1, 2, 5, 5), np.float32), True) * 1
    w = to_nt(_arr((3, 2, 3, 3), np.float32), True)
    out = F.conv2d(x, w)
    x.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward(nt.ones(1, 3, 3, 3))


# ------------------------------------------------------------------------------------------------
# transposed convolution
# ------------------------------------------------------------------------------------------------
CONVT2D = [
    ((2, 3, 4, 5), (3, 2, 3, 3), True, {}),
    ((2, 3, 4, 5), (3, 2, 3, 2), True, dict(stride=2, padding=1, output_padding=1)),
    ((2, 4, 4, 4), (4, 3, 3, 3), True, dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2), groups=2)),
    ((2, 4, 4, 4), (4, 1, 2, 2), False, dict(stride=2, dilation=2, groups=4, output_padding=1)),
    ((3, 4, 5), (3, 2, 3, 3), True, dict(stride=2)),  # unbatched
    ((2, 3, 5, 5), (3, 2, 3, 3), True, dict(padding=2)),
]


@pytest.mark.parametrize("xs,ws,bias,kw", CONVT2D)
def test_conv_transpose2d(xs, ws, bias, kw, fdtype):
    b = _arr((ws[1] * kw.get("groups", 1),), fdtype) if bias else None
    out = check(F.conv_transpose2d, RF.conv_transpose2d, [_arr(xs, fdtype), _arr(ws, fdtype), b], fdtype, **kw)
    assert type(out.grad_fn).__name__ == "ConvolutionBackward0"


@pytest.mark.parametrize("xs,ws,kw", [((2, 3, 6), (3, 2, 3), dict(stride=3, padding=1, output_padding=2)),
                                      ((2, 4, 5), (4, 1, 2), dict(groups=2, dilation=3, output_padding=1)),
                                      ((3, 5), (3, 4, 3), {})])
def test_conv_transpose1d(xs, ws, kw, fdtype):
    b = _arr((ws[1] * kw.get("groups", 1),), fdtype)
    check(F.conv_transpose1d, RF.conv_transpose1d, [_arr(xs, fdtype), _arr(ws, fdtype), b], fdtype, **kw)


def test_conv_transpose_is_conv_input_gradient():
    # conv_transpose2d(g, w) is the gradient of conv2d(x, w) wrt x
    x = to_nt(_arr((2, 3, 7, 7), np.float64), True)
    w = to_nt(_arr((4, 3, 3, 3), np.float64))
    out = F.conv2d(x, w, stride=2, padding=1)
    g = to_nt(_arr(tuple(out.shape), np.float64))
    out.backward(g)
    xt = F.conv_transpose2d(g, w, stride=2, padding=1, output_padding=0)
    np.testing.assert_allclose(xt.numpy(), x.grad.numpy(), rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------------------------------
# gradcheck (float64, tiny shapes)
# ------------------------------------------------------------------------------------------------
def _leaf(shape):
    return to_nt(_arr(shape, np.float64), True)


def test_gradcheck_conv2d():
    x, w, b = _leaf((1, 4, 5, 4)), _leaf((2, 2, 2, 3)), _leaf((2,))
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
                     (x, w, b))
    assert gradcheck(lambda x, w: F.conv2d(x, w, padding="same"), (_leaf((1, 1, 4, 4)), _leaf((1, 1, 2, 2))))


def test_gradcheck_conv1d_and_transposed():
    assert gradcheck(lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1), (_leaf((2, 2, 5)), _leaf((2, 2, 3)),
                                                                               _leaf((2,))))
    assert gradcheck(lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
                     (_leaf((1, 2, 2, 3)), _leaf((2, 1, 3, 2)), _leaf((1,))))
    assert gradcheck(lambda x, w: F.conv_transpose1d(x, w, groups=2, dilation=2),
                     (_leaf((1, 2, 3)), _leaf((2, 2, 2))))


# ------------------------------------------------------------------------------------------------
# conv errors: same type and message as PyTorch
# ------------------------------------------------------------------------------------------------
def _err(fn_nt, fn_ref, arrays, **kw):
    with pytest.raises(Exception) as e_ref:
        fn_ref(*[None if a is None else to_ref(a) for a in arrays], **kw)
    with pytest.raises(type(e_ref.value)) as e_nt:
        fn_nt(*[None if a is None else to_nt(a) for a in arrays], **kw)
    return str(e_nt.value), str(e_ref.value)


F32 = np.float32
CONV_ERRORS = [
    ("channels", F.conv2d, RF.conv2d, [(2, 4, 5, 5), (8, 3, 3, 3)], {}),
    ("channels_unbatched", F.conv2d, RF.conv2d, [(4, 5, 5), (8, 3, 3, 3)], {}),
    ("groups_div", F.conv2d, RF.conv2d, [(2, 6, 5, 5), (8, 2, 3, 3)], dict(groups=3)),
    ("input_rank", F.conv2d, RF.conv2d, [(2, 4, 5, 5, 5), (8, 4, 3, 3)], {}),
    ("input_rank_1d", F.conv1d, RF.conv1d, [(2, 3, 5, 5), (6, 3, 3)], {}),
    ("kernel_too_big", F.conv2d, RF.conv2d, [(2, 3, 2, 2), (6, 3, 3, 3)], {}),
    ("same_strided", F.conv2d, RF.conv2d, [(2, 3, 5, 5), (6, 3, 3, 3)], dict(stride=2, padding="same")),
    ("bad_padding_str", F.conv2d, RF.conv2d, [(2, 3, 5, 5), (6, 3, 3, 3)], dict(padding="foo")),
    ("neg_padding", F.conv2d, RF.conv2d, [(2, 3, 5, 5), (6, 3, 3, 3)], dict(padding=-1)),
    ("zero_stride", F.conv2d, RF.conv2d, [(2, 3, 5, 5), (6, 3, 3, 3)], dict(stride=0)),
    ("zero_dilation", F.conv2d, RF.conv2d, [(2, 3, 5, 5), (6, 3, 3, 3)], dict(dilation=0)),
    ("stride_len", F.conv2d, RF.conv2d, [(2, 3, 5, 5), (6, 3, 3, 3)], dict(stride=(1, 1, 1))),
    ("bias_size", F.conv2d, RF.conv2d, [(2, 6, 5, 5), (6, 2, 3, 3), (5,)], dict(groups=3)),
    ("t_channels", F.conv_transpose2d, RF.conv_transpose2d, [(2, 4, 5, 5), (3, 2, 3, 3)], {}),
    ("t_bias", F.conv_transpose2d, RF.conv_transpose2d, [(2, 3, 5, 5), (3, 2, 3, 3), (3,)], {}),
    ("t_groups", F.conv_transpose2d, RF.conv_transpose2d, [(2, 3, 5, 5), (3, 2, 3, 3)], dict(groups=2)),
    ("t_outpad", F.conv_transpose2d, RF.conv_transpose2d, [(2, 3, 5, 5), (3, 2, 3, 3)],
     dict(stride=2, output_padding=2)),
    ("t_outpad_1d", F.conv_transpose1d, RF.conv_transpose1d, [(2, 3, 5), (3, 2, 3)], dict(stride=2, output_padding=2)),
]


@pytest.mark.parametrize("name,fn,rfn,shapes,kw", CONV_ERRORS, ids=[c[0] for c in CONV_ERRORS])
def test_conv_errors_match_pytorch(name, fn, rfn, shapes, kw):
    msg_nt, msg_ref = _err(fn, rfn, [_arr(s, F32) for s in shapes], **kw)
    assert msg_nt == msg_ref


def test_conv_error_channel_message():
    with pytest.raises(RuntimeError) as e:
        F.conv2d(nt.zeros(2, 4, 5, 5), nt.zeros(8, 3, 3, 3))
    assert str(e.value) == ("Given groups=1, weight of size [8, 3, 3, 3], expected input[2, 4, 5, 5] to have 3 "
                            "channels, but got 4 channels instead")


def test_conv_dtype_mismatch_errors():
    x, w = nt.zeros(1, 3, 5, 5), nt.zeros(2, 3, 3, 3, dtype=nt.float64)
    with pytest.raises(RuntimeError, match=r"Input type \(torch.FloatTensor\) and weight type "
                                           r"\(torch.DoubleTensor\) should be the same"):
        F.conv2d(x, w)
    with pytest.raises(RuntimeError, match=r"Input type \(float\) and bias type \(double\) should be the same"):
        F.conv2d(x, nt.zeros(2, 3, 3, 3), nt.zeros(2, dtype=nt.float64))
    with pytest.raises(TypeError):
        F.conv2d([[1.0]], w)
    with pytest.raises(TypeError, match="must be tuple of ints, not str"):
        F.conv_transpose2d(x, nt.zeros(3, 2, 3, 3), padding="same")


# ------------------------------------------------------------------------------------------------
# F.pad
# ------------------------------------------------------------------------------------------------
PADS = [  # shape, pad, mode, value
    ((2, 3, 4, 5), (1, 2), "constant", None),
    ((2, 3, 4, 5), (1, 2, 0, 3), "constant", 2.5),
    ((2, 3, 4, 5), (1, 1, 1, 1, 1, 1, 1, 1), "constant", -1.0),
    ((2, 3, 4, 5), (-1, 2, 1, -2), "constant", 0.0),
    ((3, 5), (-5, 0), "constant", None),  # crops to empty
    ((2, 3, 4, 5), (1, 2, 3, 2), "reflect", None),
    ((3, 4, 5), (4, 3), "reflect", None),
    ((2, 5), (-1, 3), "reflect", None),
    ((2, 3), (-1, 2), "reflect", None),  # the reflection reads the cropped element
    ((2, 2, 3, 4, 5), (1, 2, 2, 1, 1, 2), "reflect", None),
    ((2, 3, 4, 5), (3, 0, 2, 6), "replicate", None),
    ((3, 5), (-2, 4), "replicate", None),
    ((3, 5), (2, -3), "replicate", None),
    ((2, 2, 3, 4, 5), (1, 0, 0, 2, 3, 1), "replicate", None),
    ((2, 3, 4, 5), (5, 2, 1, 4), "circular", None),
    ((3, 5), (-1, 2), "circular", None),
    ((1, 5), (2, -1), "circular", None),  # the wrap uses the cropped tensor
    ((2, 2, 3, 4, 5), (1, 1, 2, 0, 3, 1), "circular", None),
]


@pytest.mark.parametrize("shape,p,mode,value", PADS)
def test_pad(shape, p, mode, value, fdtype):
    kw = dict(mode=mode) if value is None else dict(mode=mode, value=value)
    out = check(lambda x: F.pad(x, p, **kw), lambda x: RF.pad(x, p, **kw), [_arr(shape, fdtype)], fdtype,
                tol=dict(rtol=1e-6, atol=1e-6) if fdtype == np.float32 else None)
    assert out.grad_fn is not None


def test_pad_grad_fn_names():
    x = to_nt(_arr((2, 4, 5), np.float32), True)
    assert type(F.pad(x, (1, 1)).grad_fn).__name__ == "ConstantPadNdBackward0"
    assert type(F.pad(x, (1, 1), mode="reflect").grad_fn).__name__ == "ReflectionPad1DBackward0"
    assert type(F.pad(x, (1, 1, 1, 1), mode="replicate").grad_fn).__name__ == "ReplicationPad2DBackward0"


def test_pad_integer_and_gradcheck():
    x = rng.integers(0, 9, (2, 3, 4))
    np.testing.assert_array_equal(F.pad(nt.tensor(x), (1, 2), value=7).numpy(),
                                  RF.pad(ref.tensor(x), (1, 2), value=7).numpy())
    for mode in ("constant", "reflect", "replicate", "circular"):
        assert gradcheck(lambda t: F.pad(t, (2, 1, -1, 2), mode=mode), (_leaf((1, 2, 3, 4)),))


PAD_ERRORS = [
    ((2, 3, 4, 5), (1, 2, 3), {}),
    ((2, 3), (1, 2) * 3, {}),
    ((2, 3, 4, 5), (1, 2), dict(mode="reflect")),
    ((2, 3, 4, 5), (1, 2) * 4, dict(mode="circular")),
    ((3, 4, 5), (5, 1), dict(mode="reflect")),
    ((3, 4, 5), (6, 0), dict(mode="circular")),
    ((3, 4, 5), (1, 2), dict(mode="reflect", value=3.0)),
    ((3, 4, 5), (1, 2), dict(mode="foo")),
]


@pytest.mark.parametrize("shape,p,kw", PAD_ERRORS)
def test_pad_errors_match_pytorch(shape, p, kw):
    msg_nt, msg_ref = _err(lambda x: F.pad(x, p, **kw), lambda x: RF.pad(x, p, **kw), [_arr(shape, F32)])
    assert msg_nt == msg_ref


# ------------------------------------------------------------------------------------------------
# unfold / fold
# ------------------------------------------------------------------------------------------------
UNFOLD = [
    ((2, 3, 6, 5), dict(kernel_size=2)),
    ((2, 3, 7, 6), dict(kernel_size=(3, 2), dilation=(1, 2), padding=1, stride=(2, 1))),
    ((3, 5, 5), dict(kernel_size=3, padding=2, stride=2)),  # unbatched
]


@pytest.mark.parametrize("shape,kw", UNFOLD)
def test_unfold(shape, kw, fdtype):
    out = check(lambda x: F.unfold(x, **kw), lambda x: RF.unfold(x, **kw), [_arr(shape, fdtype)], fdtype)
    assert type(out.grad_fn).__name__ == "Im2ColBackward0"


@pytest.mark.parametrize("shape,kw", UNFOLD)
def test_fold_inverts_unfold_shape(shape, kw, fdtype):
    cols_shape = tuple(RF.unfold(ref.zeros(shape), **kw).shape)
    out = check(lambda c: F.fold(c, shape[-2:], **kw), lambda c: RF.fold(c, shape[-2:], **kw),
                [_arr(cols_shape, fdtype)], fdtype)
    assert type(out.grad_fn).__name__ == "Col2ImBackward0"


def test_fold_unfold_gradcheck():
    assert gradcheck(lambda x: F.unfold(x, 2, padding=1, stride=2), (_leaf((1, 2, 3, 3)),))
    assert gradcheck(lambda c: F.fold(c, (3, 4), 2, dilation=(1, 2)), (_leaf((1, 4, 4)),))


FOLD_ERRORS = [
    ("unfold_big", lambda M, x: M.unfold(x, 7), (2, 3, 6, 6)),
    ("unfold_stride", lambda M, x: M.unfold(x, 2, stride=0), (2, 3, 6, 6)),
    ("unfold_pad", lambda M, x: M.unfold(x, 2, padding=-1), (2, 3, 6, 6)),
    ("fold_div", lambda M, x: M.fold(x, (6, 6), 2), (2, 13, 25)),
    ("fold_blocks", lambda M, x: M.fold(x, (6, 6), 2), (2, 12, 24)),
    ("fold_rank", lambda M, x: M.fold(x, (6, 6), 2), (2, 2, 3, 4)),
]


@pytest.mark.parametrize("name,fn,shape", FOLD_ERRORS, ids=[c[0] for c in FOLD_ERRORS])
def test_fold_errors_match_pytorch(name, fn, shape):
    msg_nt, msg_ref = _err(lambda x: fn(F, x), lambda x: fn(RF, x), [_arr(shape, F32)])
    assert msg_nt == msg_ref
