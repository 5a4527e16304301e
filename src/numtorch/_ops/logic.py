"""Comparisons and logic: ``eq``/``ne``/``lt``/..., ``logical_*``, ``bitwise_*``, the float predicates
(``isnan``, ``isinf``, ``isfinite``, ``isposinf``, ``isneginf``, ``isreal``, ``signbit``) and
``isclose``/``allclose``/``equal``, and the logical reductions ``all``/``any``/``count_nonzero``
(mirrors the matching ``torch.*`` functions).

Nothing here is differentiable: results are bool (or integer, for bitwise ops) tensors that never
require grad. Operands broadcast and promote as in PyTorch's binary ops (``prep2``).
"""
from __future__ import annotations

import builtins

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make, _no_values
from ._cast import _aten, cast
from ._out import _out
from ._util import _LOGICAL, _CountNonzero, _need_tensor, _nondiff, _result, prep2, to_tensor
from .reduction import _axes, _np_aliases

__all__ = """eq ne lt le gt ge greater greater_equal less less_equal not_equal logical_and logical_or logical_xor
logical_not bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift isnan isinf isfinite isclose allclose equal
signbit isreal isneginf isposinf all any count_nonzero""".split()


# ------------------------------------------------------------------------------------------------
# comparisons and logical ops
# ------------------------------------------------------------------------------------------------
def _cmp(fn, name, tensor_other=False):
    def op(input, other, *, out=None):
        if tensor_other:  # no Scalar overload in PyTorch: logical_and(t, 2) is a TypeError
            _need_tensor(other, name, "other", 2)
        return _out(_nondiff(fn, input, other), out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``torch.{name}`` with broadcasting; returns a bool tensor."
    return op


def _ordered(fn, name):
    """``fn`` for lt/le/gt/ge: complex numbers have no order (PyTorch raises; NumPy compares real parts)."""
    def compare(x, y):
        if builtins.any(isinstance(v, complex) or getattr(v, "dtype", np.dtype(bool)).kind == "c" for v in (x, y)):
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_aten(np.result_type(x, y))}\'')
        return fn(x, y)
    return compare


eq, ne = _cmp(np.equal, "eq"), _cmp(np.not_equal, "ne")
lt, le, gt, ge = (_cmp(_ordered(np.less, "lt"), "lt"), _cmp(_ordered(np.less_equal, "le"), "le"),
                  _cmp(_ordered(np.greater, "gt"), "gt"), _cmp(_ordered(np.greater_equal, "ge"), "ge"))
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
logical_and, logical_or, logical_xor = (_cmp(np.logical_and, "logical_and", True),
                                        _cmp(np.logical_or, "logical_or", True), _cmp(np.logical_xor, "logical_xor", True))


def logical_not(input, *, out=None):
    return _out(_nondiff(np.logical_not, input), out)


# ------------------------------------------------------------------------------------------------
# bitwise ops (integer and bool tensors only)
# ------------------------------------------------------------------------------------------------
def _bitwise(fn, name, kernel=None):
    kernel = kernel or name  # ATen's kernel name in the "not implemented" message

    def op(input, other, *, out=None):
        a, b = prep2(input, other)
        x = a._data if isinstance(a, Tensor) else a
        y = b._data if isinstance(b, Tensor) else b
        if builtins.any(isinstance(v, (float, np.floating)) or (isinstance(v, np.ndarray) and v.dtype.kind in "fcV")
               for v in (x, y)):
            fl = next(v for v in (x, y) if np.result_type(v).kind in "fcV")
            raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{_aten(np.result_type(fl))}'")
        return _out(_nondiff(fn, a, b), out)  # _nondiff: batched under vmap
    op.__name__ = op.__qualname__ = name
    return op


bitwise_and, bitwise_or, bitwise_xor = (_bitwise(np.bitwise_and, "bitwise_and"), _bitwise(np.bitwise_or, "bitwise_or"),
                                        _bitwise(np.bitwise_xor, "bitwise_xor"))


def _shift(left):
    """PyTorch's shift kernels: a count below 0 or at least the bit width shifts everything out (0; a right
    shift of a signed value fills with its sign bit instead), where C (and NumPy) leave it undefined."""
    def kernel(x, y):
        rdt = x.dtype if isinstance(x, np.ndarray) else np.asarray(y).dtype
        if rdt.kind == "b":
            raise NotImplementedError(f"\"{'l' if left else 'r'}shift_cpu\" not implemented for 'Bool'")
        # arrays as they are (np.asarray would read a vmap stand-in's values instead of raising), scalars as rdt
        x, y = (v if isinstance(v, np.ndarray) else np.asarray(v, rdt) for v in (x, y))
        bits = rdt.itemsize * 8
        bad = (y < 0) | (y >= bits) if rdt.kind == "i" else y >= bits
        count = np.where(bad, 0 if left else bits - 1, y).astype(rdt)
        r = np.left_shift(x, count) if left else np.right_shift(x, count)
        if left or rdt.kind == "u":
            r = np.where(bad, rdt.type(0), r)
        return np.asarray(r, rdt)
    return kernel


bitwise_left_shift = _bitwise(_shift(True), "bitwise_left_shift", "lshift")
bitwise_right_shift = _bitwise(_shift(False), "bitwise_right_shift", "rshift")
bitwise_left_shift.__doc__ = ("``input << other`` elementwise (``torch.bitwise_left_shift``), integer tensors; a count "
                              "outside [0, bits) gives 0, as PyTorch.")
bitwise_right_shift.__doc__ = ("``input >> other`` elementwise (``torch.bitwise_right_shift``), integer tensors; a count "
                               "outside [0, bits) gives 0 or -1 (the sign), as PyTorch.")


def bitwise_not(input, *, out=None):
    if input._data.dtype.kind in "fcV":
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{_aten(input._data.dtype)}'")
    return _out(_nondiff(np.invert, input), out)


# ------------------------------------------------------------------------------------------------
# float predicates
# ------------------------------------------------------------------------------------------------
def isnan(input):
    return _make(np.isnan(input._data))


def isinf(input):
    return _make(np.isinf(input._data))


def isfinite(input):
    return _make(np.isfinite(input._data))


def signbit(input, *, out=None):
    """``torch.signbit``: True where the sign bit is set (including -0.0 and -nan); bool result.
    NotImplementedError for complex input."""
    _need_tensor(input, "signbit")
    a = input._data
    k = a.dtype.kind
    if k == "c":
        raise NotImplementedError("signbit is not implemented for complex tensors.")
    r = np.signbit(a.astype(np.float32) if k == "V" else a) if k in "fV" else (
        a < 0 if k == "i" else np.zeros(a.shape, bool))
    return _out(_make(_result(r)), out)


def _inf_pred(name: str, sign: float):
    def fn(input, *, out=None):
        _need_tensor(input, name)
        a = input._data
        if a.dtype.kind == "c":
            raise RuntimeError(f"{name} does not support complex inputs.")
        r = (a == sign) if a.dtype.kind in "fV" else np.zeros(a.shape, bool)
        if out is not None and out._data.dtype != np.bool_:
            raise RuntimeError(f"{name} does not support non-boolean outputs.")
        return _out(_make(_result(r)), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``torch.{name}``: True where ``input`` is {'+' if sign > 0 else '-'}inf (bool result, "
                  f"all False for integers). RuntimeError for complex input or a non-bool ``out``.")
    return fn


isposinf, isneginf = _inf_pred("isposinf", np.inf), _inf_pred("isneginf", -np.inf)


def isreal(input):
    """``torch.isreal``: True where the imaginary part is zero (always True for real dtypes)."""
    _need_tensor(input, "isreal")
    a = input._data
    return _make(np.asarray(a.imag == 0) if a.dtype.kind == "c" else np.ones(a.shape, bool))


# ------------------------------------------------------------------------------------------------
# closeness and equality
# ------------------------------------------------------------------------------------------------
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (``torch.isclose``). TypeError for a
    non-Tensor ``input`` or ``other``; RuntimeError for a negative ``rtol`` or ``atol``."""
    _check_close(input, other, rtol, atol, "isclose")
    return _make(np.isclose(input._data, to_tensor(other)._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _check_close(input, other, rtol, atol, name):
    """isclose's checks, in PyTorch's order: Tensors, the same dtype, tolerances >= 0."""
    _need_tensor(input, name)
    _need_tensor(other, name, "other", 2)
    if input.dtype != other.dtype:
        raise RuntimeError(f"{input.dtype._aten_name} did not match {other.dtype._aten_name}")
    for what, v in (("rtol", rtol), ("atol", atol)):
        if v < 0:
            raise RuntimeError(f"{what} must be greater than or equal to zero, but got {v}")


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    _check_close(input, other, rtol, atol, "allclose")
    _no_values(input)  # a meta tensor's zeros would answer True
    _no_values(to_tensor(other))
    return bool(np.allclose(input._data, to_tensor(other)._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input, other) -> bool:
    """True if both tensors have the same shape and elements (``torch.equal``). NotImplementedError for meta
    tensors (no values to compare), as PyTorch."""
    if input.is_meta or other.is_meta:
        raise NotImplementedError("aten::equal: attempted to run this operator with Meta tensors, but there was no "
                                  "fake impl or Meta kernel registered")
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


# ------------------------------------------------------------------------------------------------
# all, any, count_nonzero (never differentiable)
# ------------------------------------------------------------------------------------------------
def _logical(fn, name, input, dim, keepdim, out):
    a = input._data
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        r = a.astype(bool)  # PyTorch reduces over no dims here, unlike sum
    else:
        r = _LOGICAL[fn].apply(input, _axes(dim, a.ndim, name), keepdim)  # a reduction vmap can batch
        return _out(cast(r, _dtype.uint8) if a.dtype == np.uint8 else r, out)
    return _out(_make(r.astype(np.uint8) if a.dtype == np.uint8 else r), out)


@_np_aliases
def all(input, dim=None, keepdim=False, *, out=None):
    """True where every element over ``dim`` is non-zero (``torch.all``); bool, or uint8 for uint8 input."""
    return _logical(np.all, "all", input, dim, keepdim, out)


@_np_aliases
def any(input, dim=None, keepdim=False, *, out=None):
    """True where some element over ``dim`` is non-zero (``torch.any``); bool, or uint8 for uint8 input."""
    return _logical(np.any, "any", input, dim, keepdim, out)


@_np_aliases
def count_nonzero(input, dim=None):
    """Number of non-zero elements over ``dim`` (int, tuple or None), as int64 (``torch.count_nonzero``)."""
    a = input._data
    return _CountNonzero.apply(input, _axes(dim, a.ndim, "count_nonzero"), False)  # vmap can batch it
