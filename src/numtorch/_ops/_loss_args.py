"""Argument checks shared by the losses of ``nn.functional``: the input/target pair of the elementwise
losses, class-index targets of ``cross_entropy``/``nll_loss`` and the dtypes of ``binary_cross_entropy``.

Each check raises PyTorch's exception type with its message, in PyTorch's order, so that a bad call
fails as it does in PyTorch (and never with a NumPy error from deeper down). Checks read shapes and
dtypes only, except the value-range checks PyTorch also makes (target bounds, probabilities in [0, 1]).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._dtype import from_np
from .._tensor import Tensor, _make
from ..autograd.grad_mode import is_grad_enabled
from ._cast import cast


def _name(a: np.ndarray) -> str:
    return from_np(a.dtype)._aten_name


def pair(input: Tensor, target: Tensor, kernel=None):
    """``input``/``target`` of an elementwise loss as PyTorch's ``broadcast_tensors`` leaves them: one
    dtype by ``promote_types`` (a 0-d operand is not weak here, unlike ``x - y``); RuntimeError when
    the shapes do not broadcast; ``kernel``: ``integral_inputs``'s checks."""
    integral_inputs(kernel, input, target)
    a, b = input._data.shape, target._data.shape
    if a != b:
        for i in range(1, min(len(a), len(b)) + 1):
            if a[-i] != b[-i] and a[-i] != 1 and b[-i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[-i]}) must match the size of tensor b ({b[-i]}) at "
                                   f"non-singleton dimension {max(len(a), len(b)) - i}")
    if input.dtype is not target.dtype:
        rt = _dtype.promote_types(input.dtype, target.dtype)
        input, target = cast(input, rt), cast(target, rt)
    return input, target


_BOOL_SUB = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.")


def integral_inputs(kernel, input: Tensor, target: Tensor) -> None:
    """PyTorch's refusals of integer/bool operands, per loss (``kernel``; None: no check), in its order:
    ``"smooth_l1"``/``"huber"``: NotImplementedError for an integer result (huber: RuntimeError for an
    integer input with a float target); ``"soft_margin"``: RuntimeError for an integer or bool input;
    ``"kl_div"``: RuntimeError for any integral operand; ``"poisson"``: RuntimeError for two bools;
    ``"bce_logits"``: NotImplementedError for an integer input, RuntimeError for an integer target."""
    if kernel is None:
        return
    a, b = input._data.dtype, target._data.dtype
    rt = _dtype.promote_types(input.dtype, target.dtype)
    if kernel in ("smooth_l1", "huber") and rt.np.kind in "biu":
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for \'{rt._aten_name}\'')
    if kernel == "bce_logits" and a.kind in "biu":
        raise NotImplementedError(f'"log_sigmoid_cpu" not implemented for \'{from_np(a)._aten_name}\'')
    if kernel == "kl_div" and (a.kind in "biu" or b.kind in "biu"):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if kernel == "soft_margin" and a.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    if kernel == "poisson" and a.kind == b.kind == "b":
        raise RuntimeError(_BOOL_SUB)
    bad = a if kernel in ("huber", "soft_margin") else b if kernel == "bce_logits" else None
    if bad is not None and bad.kind in "biu":  # the float result cannot be written into this operand's dtype
        res = _dtype.get_default_dtype() if kernel == "soft_margin" else rt
        raise RuntimeError(f"result type {res._aten_name} can't be cast to the desired output type "
                           f"{from_np(bad)._aten_name}")


def no_bool_subtraction(input: Tensor, target: Tensor) -> None:
    """``l1_loss`` subtracts its operands first, and PyTorch refuses ``-`` with a bool tensor."""
    bi, bt = input._data.dtype.kind == "b", target._data.dtype.kind == "b"
    if bi and bt:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    if bi or bt:
        raise RuntimeError(_BOOL_SUB)


def integer_l1(x: Tensor, y: Tensor, reduction: str) -> Tensor:
    """``l1_loss`` of integer tensors (no gradient): ``|x - y|`` wrapping as PyTorch's integer
    subtraction, summed in int64; RuntimeError for "mean", which has no integer result dtype."""
    if reduction == "mean":
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {_name(x._data)}")
    d = np.abs(np.subtract(*np.broadcast_arrays(x._data, y._data)))
    return _make(np.asarray(d.sum(dtype=np.int64)) if reduction == "sum" else d)


def bce(input: Tensor, target: Tensor, weight):
    """``binary_cross_entropy``'s checks; returns the weight as an array of the input's shape and dtype.

    RuntimeError when the dtypes differ or a value lies outside [0, 1] (NaN included);
    NotImplementedError for integer input; RuntimeError when the weight does not broadcast.
    """
    x, y = input._data, target._data
    if x.dtype != y.dtype:
        raise RuntimeError(f"Found dtype {_name(y)} but expected {_name(x)}")
    if x.dtype.kind not in "fV":
        raise NotImplementedError(f"\"binary_cross_entropy\" not implemented for '{_name(x)}'")
    for what, a in (("input", x), ("target", y)):
        if getattr(a, "_src", None) is not None:  # batched under vmap: every sample's values
            a = a._src[0]._data
        if a.size and (not (a >= 0).all() or not (a <= 1).all()):
            raise RuntimeError(f"all elements of {what} should be between 0 and 1")
    if weight is None:
        return None
    w = weight._data
    try:
        return np.broadcast_to(w, x.shape).astype(x.dtype, copy=False)
    except ValueError:
        raise RuntimeError(f"Attempting to broadcast a dimension of length {w.shape[-1] if w.ndim else 1} at -1! "
                           f"Mismatching argument at index 1 had torch.Size({list(w.shape)}); but expected shape "
                           f"should be broadcastable to {list(x.shape)}") from None


def class_targets(input: Tensor, target: Tensor, weight):
    """Check class-index targets for ``nll_loss`` (and ``cross_entropy``'s NLL step) as PyTorch's
    ``nll_loss_nd`` does, in its order; returns (int64 target array, weight array or None, classes).

    ValueError for a 0-d input, batch-size mismatches and a 1-D input's target of another size than 1;
    RuntimeError for target ranks/shapes, a target dtype other than int64/uint8, weight shape or dtype;
    NotImplementedError for a non-floating input (empty or not); IndexError is left to ``check_bounds``.
    """
    x, t = input._data, target._data
    if x.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    if x.ndim != 1 and (t.shape[0] if t.ndim else 0) != x.shape[0]:  # PyTorch reads a 0-d target's size as 0
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                         f"({t.shape[0] if t.ndim else 0}).")
    spatial = x.ndim > 2
    if spatial:
        if x.ndim != 4 and t.shape[1:] != x.shape[2:]:
            raise RuntimeError(f"Expected target size {list(x.shape[:1] + x.shape[2:])}, got {list(t.shape)}")
        if x.ndim == 4 and t.ndim != 3:
            raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of "
                               f"dimension: {t.ndim}")
    elif t.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if t.dtype != np.int64 and t.dtype != np.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_name(t)}")
    c = x.shape[1] if x.ndim > 1 else x.shape[0]
    if spatial:
        if x.ndim == 4 and t.shape != x.shape[:1] + x.shape[2:]:
            raise RuntimeError(f"size mismatch (got input: {list(x.shape)} , target: {list(t.shape)}")
        if x.ndim != 4 and x.shape[0] and not x.shape[1] and t.size:  # folded to 4-D, no class leaves no room
            raise RuntimeError(f"size mismatch (got input: [{x.shape[0]}, 0, 0, 0] , target: "
                               f"[{x.shape[0]}, 1, {t.size // x.shape[0]}]")
        if weight is not None and (weight._data.ndim != 1 or weight._data.size != c):
            raise RuntimeError("weight tensor should be defined either for all or no classes")
    else:
        if x.ndim == 1 and t.ndim == 1 and t.shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {t.shape[0]}")
        if weight is not None and (weight._data.ndim != 1 or weight._data.size != c):
            raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but got "
                               f"weight tensor of shape: {list(weight._data.shape)}")
    if x.dtype.kind not in "fV":
        kernel = "nll_loss2d_forward_out_frame" if spatial else "nll_loss_out_frame"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(x)}'")
    w = None
    if weight is not None:
        if weight.requires_grad and is_grad_enabled():
            raise RuntimeError("The function 'nll_loss_forward' is not differentiable with respect to argument "
                               "'weight'. This input cannot have requires_grad True.")
        if weight._data.dtype != x.dtype:
            raise RuntimeError(f"expected scalar type {_name(x)} but found {_name(weight._data)}")
        w = weight._data
    if x.ndim == 1 and t.ndim == 1:  # a 1-element target of an unbatched input counts as 0-d
        t = t.reshape(())
    return t.astype(np.int64, copy=False), w, c


def probability_targets(input: Tensor, target: Tensor, weight, ignore_index: int) -> None:
    """``cross_entropy``'s checks when target and input shapes agree (class probabilities): RuntimeError
    for a non-floating target, a non-negative ``ignore_index`` or a weight not of ``(C,)``; IndexError
    for a 0-d input (no class dim); NotImplementedError for a non-empty integer input."""
    x, y = input._data, target._data
    if y.dtype.kind not in "fV":
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got {_name(y)}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if x.ndim == 0:
        raise IndexError("Dimension specified as 1 but tensor has no dimensions")
    c = x.shape[1] if x.ndim > 1 else x.shape[0]
    if weight is not None and (weight._data.ndim != 1 or weight._data.size != c):
        raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {c} classes or no "
                           f"classes but got weight tensor of shape: {list(weight._data.shape)}")
    if x.size and x.dtype.kind not in "fV":
        kernel = "log_softmax_lastdim_kernel_impl" if x.ndim <= 2 else "log_softmax_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(x)}'")


_C_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool"}


def clamped_var(var: Tensor, eps: float) -> Tensor:
    """``gaussian_nll_loss``'s ``var.clamp(min=eps)``; PyTorch clamps in place, so an integer or bool ``var``
    raises its RuntimeError (the float ``eps`` cannot be written into it)."""
    if var._data.dtype.kind in "biu":
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_C_NAMES.get(var._data.dtype.name, var._data.dtype.name)}")
    return var.clamp(min=eps)


def empty_class_loss(input: Tensor, reduction: str) -> Tensor:
    """Cross entropy with probability targets over no elements, as PyTorch's ``-(input * target).sum(1)``:
    -0 per row ("none"), -0 ("sum") or NaN ("mean": 0 / 0), on the graph of ``input`` (gradient 0,
    ``NegBackward0``)."""
    zero = input * 0
    if reduction == "none":
        return -zero.sum(1 if input.dim() > 1 else 0)
    return -zero.sum() if reduction == "sum" else -(zero.sum() * float("nan"))


def check_bounds(t: np.ndarray, c: int, ignore_index) -> None:
    """IndexError "Target k is out of bounds." for a class index outside ``[0, c)`` (``ignore_index`` exempt)."""
    if getattr(t, "_src", None) is not None:  # a batched target under vmap: check every sample's values
        t = t._src[0]._data
    bad = (t < 0) | (t >= c)
    if ignore_index is not None:
        bad &= t != ignore_index
    if bad.any():
        raise IndexError(f"Target {int(t[bad].reshape(-1)[0])} is out of bounds.")
