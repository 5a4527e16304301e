"""Pointwise binary ops: arithmetic (add, sub, mul, div, pow, remainder, ...), maximum/minimum,
atan2, where/lerp/addcmul/addcdiv, nan_to_num and the binary float functions (logaddexp, hypot,
copysign, heaviside, nextafter, ldexp) and gcd/lcm (mirrors the matching ``torch.*`` functions).

Each differentiable op is an ``Op`` (forward/backward on ndarrays, see ``autograd/function.py``);
the public function below it handles type promotion and scalars. Gradients of broadcast operands
are summed back to the operand's shape with ``unbroadcast``. Unary math is in ``unary.py``,
comparisons and logic in ``logic.py``; casts, ``out=`` and in-place writes are the machinery
modules ``_cast.py``, ``_out.py`` and ``_inplace.py``.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from .._tensor_sparse import SparseCOO
from ..autograd.forward_ad import jvp_linear, jvp_multilinear
from ..autograd.function import Op, save_indices
from ..autograd.grad_mode import _State
from ._cast import _aten, cast
from ._inplace import _FAST_INPLACE, inplace, inplace_fn
from ._out import _out
from ._util import _bshape, _cj, _wrap_int, _const, _f32, _need_tensor, _nondiff, _shape, prep2, to_tensor, unbroadcast
from .sorting import nonzero
from .unary import SquareBackward, trunc

__all__ = """add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow float_power atan2 arctan2
maximum minimum fmax fmin where lerp addcmul addcdiv nan_to_num logaddexp logaddexp2 hypot copysign heaviside
nextafter ldexp gcd lcm ldexp_ gcd_ lcm_ rsub""".split()

_LN2 = math.log(2.0)

# ------------------------------------------------------------------------------------------------
# binary arithmetic
# ------------------------------------------------------------------------------------------------
class _Binary(Op):
    """Shared apply-time checks for broadcasting binary ops. Backward computes only the gradients
    that have somewhere to go (``_edges[i]`` is None for scalars and inputs without grad)."""
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)

    def forward(self, a, b):
        self.sa = a.shape if type(a) is np.ndarray else () if type(a) is not SparseCOO else _sparse_shape(self, a, b)
        self.sb = b.shape if type(b) is np.ndarray else () if type(b) is not SparseCOO else b.shape
        try:
            return self._f(a, b)
        except ValueError:
            _bshape(a, b)
            raise


def _sparse_shape(node, a, b):
    """The shape of a sparse tensor's payload as left operand: PyTorch adds to or subtracts from it another
    sparse tensor, not a dense one."""
    if type(b) is np.ndarray and isinstance(node, (AddBackward0, SubBackward0)):  # sub words it as add too
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    return a.shape


class AddBackward0(_Binary):
    @staticmethod
    def _f(a, b):
        return a + b

    def backward(self, g):
        ea, eb = self._edges
        return (unbroadcast(g, self.sa) if ea is not None else None,
                unbroadcast(g, self.sb) if eb is not None else None)

    def jvp(self, ta, tb):  # forward AD (autograd/forward_ad.py)
        return _broadcast_tangent(ta if tb is None else tb if ta is None else ta + tb, self.fw_out)


class SubBackward0(_Binary):
    @staticmethod
    def _f(a, b):
        return a - b

    def backward(self, g):
        ea, eb = self._edges
        return (unbroadcast(g, self.sa) if ea is not None else None,
                unbroadcast(-g, self.sb) if eb is not None else None)

    def jvp(self, ta, tb):
        return _broadcast_tangent(ta if tb is None else -tb if ta is None else ta - tb, self.fw_out)


def _broadcast_tangent(t, out):
    """A tangent of a broadcasting op expanded to the output's shape."""
    return t if tuple(t.shape) == out._data.shape else t.expand(*out._data.shape)


def _conj(x):
    """Complex conjugate keeping Python scalars Python scalars (a NumPy scalar would upcast complex64)."""
    return np.conj(x) if isinstance(x, np.ndarray) else x.conjugate()


class MulBackward0(_Binary):
    _saves = (0, 1)
    _saves_for = {0: (1,), 1: (0,)}
    jvp = jvp_multilinear

    def _f(self, a, b):
        self.saved = (a, b)
        return a * b

    def backward(self, g):
        a, b = self.saved
        if g.dtype.kind == "c":  # complex: PyTorch's gradient is grad * conj(other)
            a, b = _conj(a), _conj(b)
        ea, eb = self._edges
        return (unbroadcast(g * b, self.sa) if ea is not None else None,
                unbroadcast(g * a, self.sb) if eb is not None else None)


class MulByNumber(_Binary):
    """``tensor * number`` in either order: keeps only the number (no tensor to save or version-check)."""

    _node_name = "MulBackward0"
    jvp = jvp_linear  # linear in its one Tensor

    def _f(self, a, b):
        self.saved = b if type(a) is np.ndarray or type(a) is SparseCOO else a
        return a * b

    def backward(self, g):
        gt = g * (_conj(self.saved) if g.dtype.kind == "c" else self.saved)  # the tensor's gradient
        return (unbroadcast(gt, self.sa), None) if self._edges[0] is not None else (None, unbroadcast(gt, self.sb))


class DivByNumber(_Binary):
    """``tensor / number``: keeps only the number."""

    _node_name = "DivBackward0"
    jvp = jvp_linear

    def _f(self, a, b):
        self.saved = b
        return a / b

    def backward(self, g):
        b = self.saved
        return unbroadcast(g / (_conj(b) if g.dtype.kind == "c" else b), self.sa), None


class DivBackward0(_Binary):
    _saves = (0, 1)
    _saves_for = {0: (1,)}

    def _f(self, a, b):
        self.saved = (a, b)
        return a / b

    def backward(self, g):
        a, b = self.saved
        if g.dtype.kind == "c":  # complex: grad / conj(b) and -grad * conj(a / b**2)
            a, b = _conj(a), _conj(b)
        gb = None
        ga = g / b
        if self._edges[1] is not None:
            gb = unbroadcast(-ga * a / b, self.sb)
        return (unbroadcast(ga, self.sa) if self._edges[0] is not None else None), gb

    def jvp(self, ta, tb):  # (ta - tb * out) / b
        a, b = self.fw_inputs
        if tb is None:
            return _broadcast_tangent(ta / b, self.fw_out)
        num = -(tb * self.fw_out) if ta is None else ta - tb * self.fw_out
        return num / b


class PowBackward0(_Binary):
    _saves = (0, 1, "out")

    def _f(self, a, b):
        try:
            out = np.power(a, b)
        except ValueError:  # NumPy refuses integers to negative powers; PyTorch truncates 1 / a**-b
            out = _int_pow(a, b)
        self.saved = (a, b, out)
        return out

    def backward(self, g):
        a, b, out = self.saved
        if g.dtype.kind == "c":  # complex: holomorphic, so PyTorch's gradient is grad * conj(d out / d operand)
            a, b, out = _conj(a), _conj(b), _conj(out)
        ga = gb = None
        if self._edges[0] is not None:
            if not np.isscalar(b):  # an array, or a box under create_graph
                ga = g * b * np.power(a, b - 1)
            elif b == 0:
                ga = np.zeros_like(g)
            else:
                ga = g * (b * np.power(a, b - 1))
            ga = unbroadcast(ga, self.sa)
        if len(self._edges) > 1 and self._edges[1] is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                la = np.log(a) if not np.isscalar(a) else np.log(np.asarray(a, out.dtype))
                gb = g * out * np.where((a == 0) & np.greater_equal(b, 0), 0, la)
            gb = unbroadcast(gb, self.sb)
        return ga, gb


def _int_pow(a, b):
    """Integer ``a ** b`` with negative exponents as PyTorch computes it: 1 for a base of 1, +-1 for -1
    (by the exponent's parity), 0 for every other base."""
    neg = np.less(b, 0)
    out = np.power(a, np.where(neg, 0, b))
    tiny = np.where(np.equal(a, 1), 1, np.where(np.equal(a, -1), 1 - 2 * (np.abs(b) % 2), 0))
    return np.where(neg, tiny, out).astype(out.dtype, copy=False)


class _SavesOperands(_Binary):
    """A binary op ``_np(a, b)`` whose backward reads both operands."""

    _saves = (0, 1)

    def _f(self, a, b):
        self.saved = (a, b)
        return self._np(a, b)


class _Extremum(_SavesOperands):
    """maximum/minimum: the gradient goes to the operand ``_wins`` picks; ties split it evenly, as PyTorch does."""

    def backward(self, g):
        a, b = self.saved
        w = self._wins(a, b) + 0.5 * (a == b)
        return unbroadcast(g * w, self.sa), unbroadcast(g * (1 - w), self.sb)


class MaximumBackward0(_Extremum):
    _np, _wins = staticmethod(np.maximum), staticmethod(np.greater)


class MinimumBackward0(_Extremum):
    _np, _wins = staticmethod(np.minimum), staticmethod(np.less)


class Atan2Backward0(_SavesOperands):
    _np = staticmethod(np.arctan2)

    def backward(self, g):
        a, b = self.saved
        d = a * a + b * b
        return unbroadcast(g * b / d, self.sa), unbroadcast(-g * a / d, self.sb)


def _binary(op, a, b):
    a, b = prep2(a, b)
    return op.apply(a, b)


def _scaled(input, other, alpha):
    """``alpha * other`` for add/sub, computed in the dtype of the result (Python numbers stay exact)."""
    if isinstance(alpha, float) and all(x._data.dtype.kind in "biu" if isinstance(x, Tensor) else
                                        not isinstance(x, (float, complex)) for x in (input, other)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if not isinstance(other, Tensor):
        if isinstance(other, bool) and isinstance(input, Tensor) and input._data.dtype.kind == "b":
            return other and bool(alpha)
        return other * alpha
    if isinstance(input, Tensor):
        input, other = prep2(input, other)
    k = other._data.dtype.kind
    if k == "b" and isinstance(alpha, int):  # bool: "+" is "or", alpha only says whether other counts
        return mul(other, bool(alpha))
    if k in "iu" and isinstance(alpha, int):  # wraps in the result dtype (uint8 with alpha=-1 subtracts)
        alpha = _wrap_int(alpha, other._data.dtype)
    return mul(other, alpha)


def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other`` with broadcasting and type promotion (``torch.add``)."""
    if alpha != 1:  # scale in the result dtype: uint8 * 2 must not wrap before a float input is added
        other = _scaled(input, other, alpha)
    r = AddBackward0.apply(*prep2(input, other))
    return r if out is None else _out(r, out)


def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other`` (``torch.sub``); RuntimeError for bool operands, as in PyTorch."""
    na = isinstance(input, bool) or isinstance(input, Tensor) and input._data.dtype.kind == "b"
    nb = isinstance(other, bool) or isinstance(other, Tensor) and other._data.dtype.kind == "b"
    if na and nb:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    if na or nb:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    if alpha != 1:
        other = _scaled(input, other, alpha)
    r = SubBackward0.apply(*prep2(input, other))
    return r if out is None else _out(r, out)


subtract = sub


def mul(input, other, *, out=None):
    """Elementwise product with broadcasting (``torch.mul``)."""
    a, b = prep2(input, other)
    r = (MulBackward0 if isinstance(a, Tensor) and isinstance(b, Tensor) else MulByNumber).apply(a, b)
    return r if out is None else _out(r, out)


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    """True division (integers promote to the default float dtype), or ``rounding_mode`` "trunc"/"floor"."""
    if rounding_mode is not None:
        if rounding_mode == "floor":
            return _out(floor_divide(input, other), out)
        if rounding_mode == "trunc":
            return _out(trunc(true_divide(input, other)) if _is_float(input, other)
                        else _nondiff(_trunc_divide, input, other), out)
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    a, b = prep2(input, other)
    if (a._data if isinstance(a, Tensor) else b._data).dtype.kind in "biu":
        dt = _dtype.get_default_dtype()
        a = cast(a, dt) if isinstance(a, Tensor) else a
        b = cast(b, dt) if isinstance(b, Tensor) else b
    return _out((DivBackward0 if isinstance(b, Tensor) else DivByNumber).apply(a, b), out)


true_divide = divide = div


def _is_float(*xs):
    return any(isinstance(x, float) or (isinstance(x, Tensor) and x._data.dtype.kind in "fcV") for x in xs)


def pow(input, exponent, *, out=None):
    """``input ** exponent`` (``torch.pow``); either may be a scalar."""
    if isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        if exponent == 2 and (type(exponent) is int or input._data.dtype.kind in "fcV"):  # int ** 2.0 is float
            return _out(SquareBackward.apply(input), out)
        if isinstance(exponent, bool) and input._data.dtype.kind == "b":  # bool ** bool stays bool
            return _out(cast(_binary(PowBackward0, input, int(exponent)), _dtype.bool), out)
        if isinstance(exponent, int) and exponent < 0 and input._data.dtype.kind in "iub":
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    elif isinstance(exponent, Tensor) and exponent._data.dtype.kind == "b" and (
            input._data.dtype.kind == "b" if isinstance(input, Tensor) else isinstance(input, bool)):
        _binary(PowBackward0, input, exponent)  # PyTorch's broadcast error comes first
        raise NotImplementedError('"pow" not implemented for \'Bool\'')  # no bool ** bool kernel
    return _out(_binary(PowBackward0, input, exponent), out)


def float_power(input, exponent, *, out=None):
    """``pow`` computed in double precision (``torch.float_power``): float64, or complex128 when either
    operand is complex."""
    cx = any(isinstance(x, complex) or isinstance(x, Tensor) and x._data.dtype.kind == "c" for x in (input, exponent))
    dt = _dtype.complex128 if cx else _dtype.float64
    to64 = lambda x: cast(x, dt) if isinstance(x, Tensor) else x  # noqa: E731
    return pow(to64(input), to64(exponent), out=out)


def float_power_(self: Tensor, exponent) -> Tensor:
    """In-place ``float_power`` (``Tensor.float_power_``): RuntimeError unless ``self`` already has the
    result's dtype (float64; complex128 when either operand is complex), which it cannot change."""
    cx = self._data.dtype.kind == "c" or isinstance(exponent, complex) or \
        isinstance(exponent, Tensor) and exponent._data.dtype.kind == "c"
    need = _dtype.complex128 if cx else _dtype.float64
    if self.dtype != need:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype._aten_name} but the operation's "
                           f"result requires dtype {need._aten_name}")
    return inplace(self, float_power, exponent)


def maximum(input, other, *, out=None):
    return _out(_binary(MaximumBackward0, input, other), out)


def minimum(input, other, *, out=None):
    return _out(_binary(MinimumBackward0, input, other), out)


fmax, fmin = maximum, minimum


def atan2(input, other, *, out=None):
    _need_tensor(other, "atan2", "other", 2)  # no Scalar overload in PyTorch
    a, b = prep2(input, other)
    if (a._data if isinstance(a, Tensor) else b._data).dtype.kind in "biu":  # integers give the default float
        dt = _dtype.get_default_dtype()
        a = cast(a, dt) if isinstance(a, Tensor) else a
        b = cast(b, dt) if isinstance(b, Tensor) else b
    return _out(Atan2Backward0.apply(a, b), out)


arctan2 = atan2


def _int_checked(fn):
    """``fn(x, y)`` that raises PyTorch's RuntimeError("ZeroDivisionError") for an integer division by
    zero (NumPy returns 0 with a warning: a silently wrong result)."""
    def checked(x, y):
        if np.result_type(x, y).kind in "iu" and np.any(np.asarray(y) == 0):
            raise RuntimeError("ZeroDivisionError")
        return fn(x, y)
    return checked


_floor_divide, _mod, _fmod = _int_checked(np.floor_divide), _int_checked(np.mod), _int_checked(np.fmod)
_trunc_divide = _int_checked(lambda x, y: np.trunc(np.true_divide(x, y)).astype(np.result_type(x, y)))


def floor_divide(input, other, *, out=None):
    """``input // other`` rounding toward negative infinity (``torch.floor_divide``); no gradient.
    RuntimeError("ZeroDivisionError") for an integer division by zero, as PyTorch."""
    return _out(_nondiff(_floor_divide, input, other), out)


def remainder(input, other, *, out=None):
    """Python-style modulus (sign of the divisor), as ``torch.remainder``; gradient 1 w.r.t. input."""
    a, b = prep2(input, other)
    if isinstance(a, Tensor) and (a._rg and _State.enabled or _State.fw):  # fw: forward AD
        return _out(sub(a, mul(floor_divide(a.detach(), b), b)), out)
    return _out(_nondiff(_mod, a, b), out)


def fmod(input, other, *, out=None):
    a, b = prep2(input, other)
    if isinstance(a, Tensor) and (a._rg and _State.enabled or _State.fw):  # fw: forward AD
        return _out(sub(a, mul(_nondiff(_trunc_divide, a.detach(), b), b)), out)
    return _out(_nondiff(_fmod, a, b), out)


# ------------------------------------------------------------------------------------------------
# where / lerp
# ------------------------------------------------------------------------------------------------
class WhereBackward0(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
    def forward(self, cond, a, b):
        self.cond = cond
        self.sa, self.sb = _shape(a), _shape(b)
        return np.where(cond, a, b)

    def backward(self, g):
        c = self.cond
        ga = unbroadcast(np.where(c, g, 0), self.sa) if self._edges[1] is not None else None
        gb = unbroadcast(np.where(c, 0, g), self.sb) if self._edges[2] is not None else None
        return None, ga, gb


def where(condition, input=None, other=None, *, out=None):
    """``torch.where(condition, input, other)``: elementwise select with broadcasting.

    ``where(condition)`` alone returns ``condition.nonzero(as_tuple=True)``.
    """
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if isinstance(condition, Tensor) and condition._data.dtype != np.bool_:
        condition = _uint8_condition(condition)
    a, b = prep2(input, other) if (isinstance(input, Tensor) or isinstance(other, Tensor)) else (
        to_tensor(input), to_tensor(other))
    if not isinstance(a, Tensor):
        a = _make(np.asarray(a, b._data.dtype))
    if not isinstance(b, Tensor):
        b = _make(np.asarray(b, a._data.dtype))
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    try:
        np.broadcast_shapes(cond.shape, a._data.shape, b._data.shape)
    except ValueError:
        raise RuntimeError(f"where: shapes {list(cond.shape)}, {list(a._data.shape)} and {list(b._data.shape)} "
                           f"cannot be broadcast together") from None
    return _out(save_indices(WhereBackward0.apply(condition if isinstance(condition, Tensor) else cond, a, b),
                             condition), out)  # backward reads the condition


def _uint8_condition(condition):
    """A uint8 ``where`` condition as bool, with PyTorch's deprecation warning (once per process, as
    PyTorch's TORCH_WARN_ONCE); RuntimeError for other non-bool dtypes."""
    if condition._data.dtype != np.uint8:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{condition.dtype._aten_name}")
    if not _WARNED:
        _WARNED.append(True)
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed "
                      "in a future version of PyTorch. Use a boolean condition instead.", UserWarning, stacklevel=3)
    return _make(condition._data != 0)


_WARNED = []  # where's uint8 warning was given


def lerp(input, end, weight, *, out=None):
    """``input + weight * (end - input)`` (``torch.lerp``), computed as PyTorch's kernel does: where
    ``|weight| >= 0.5`` as ``end - (end - input) * (1 - weight)``, which is exact at ``weight == 1``."""
    diff = sub(end, input)
    if not isinstance(weight, Tensor):
        near_end = abs(weight) >= 0.5
        return _out(sub(end, mul(diff, 1 - weight)) if near_end else add(input, mul(weight, diff)), out)
    low = add(input, mul(weight, diff))
    high = sub(end, mul(diff, sub(1, weight)))
    return _out(where(weight.abs() < 0.5, low, high), out)


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    return _out(add(input, mul(mul(tensor1, tensor2), value)), out)


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    return _out(add(input, mul(div(tensor1, tensor2), value)), out)


class NanToNumBackward0(Op):
    """nan -> ``nan``, +inf -> ``posinf``, -inf -> ``neginf`` (dtype max/min by default); the gradient passes
    where the input is finite and is 0 elsewhere, as in PyTorch."""
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
    _saves = (0,)

    def forward(self, a, nan, posinf, neginf):
        self.saved = a
        return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)

    def backward(self, g):
        return g * np.isfinite(self.saved), None, None, None


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """``torch.nan_to_num``: replace nan/+inf/-inf; differentiable (zero gradient at replaced entries)."""
    if input._data.dtype.kind not in "fcV":
        return _out(_make(input._data.copy()), out)
    return _out(NanToNumBackward0.apply(input, nan, posinf, neginf), out)


_FAST_INPLACE.update({add: np.add, sub: np.subtract, mul: np.multiply, div: np.true_divide})


# ------------------------------------------------------------------------------------------------
# binary float functions
# ------------------------------------------------------------------------------------------------
class _Bin(Op):
    """Broadcasting binary op; ``backward`` returns full-shape gradients, reduced here to each operand."""
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)

    _saves = (0, 1, "out")

    def forward(self, a, b):
        self.sa, self.sb = np.shape(a), np.shape(b)
        try:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                out = self._f(a, b)
        except ValueError:
            _bshape(a, b)
            raise
        out = np.asarray(out)
        if isinstance(a, np.ndarray) and out.dtype != a.dtype and a.dtype.kind != "V":
            out = out.astype(np.result_type(a, b) if isinstance(b, np.ndarray) else a.dtype)
        self.saved = (a, b, out)
        return out

    def backward(self, g):
        a, b, out = self.saved
        ea, eb = self._edges
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ga, gb = self._grads(g, a, b, out, ea is not None, eb is not None)
        return (unbroadcast(np.broadcast_to(ga, out.shape), self.sa) if ga is not None else None,
                unbroadcast(np.broadcast_to(gb, out.shape), self.sb) if gb is not None else None)


def _logaddexp_c(a, b):
    # complex: log(exp(a) + exp(b)) pivoting on the operand with the larger real part
    big = np.where(np.real(a) >= np.real(b), a, b)
    small = np.where(np.real(a) >= np.real(b), b, a)
    return big + np.log1p(np.exp(small - big))


class LogaddexpBackward0(_Bin):
    @staticmethod
    def _f(a, b):
        if np.iscomplexobj(a) or np.iscomplexobj(b):
            return _logaddexp_c(a, b)
        return _f32(lambda x: np.logaddexp(x, b if not isinstance(b, np.ndarray) or b.dtype.kind != "V"
                                           else b.astype(np.float32)), a)

    def _grads(self, g, a, b, out, na, nb):
        return (g / _cj(1 + np.exp(b - a)) if na else None, g / _cj(1 + np.exp(a - b)) if nb else None)


class Logaddexp2Backward0(_Bin):
    @staticmethod
    def _f(a, b):
        return _f32(lambda x: np.logaddexp2(x, b if b.dtype.kind != "V" else b.astype(np.float32)), a)

    def _grads(self, g, a, b, out, na, nb):
        return (g / (1 + np.exp2(b - a)) if na else None, g / (1 + np.exp2(a - b)) if nb else None)


class HypotBackward0(_Bin):
    @staticmethod
    def _f(a, b):
        return _f32(lambda x: np.hypot(x, b if b.dtype.kind != "V" else b.astype(np.float32)), a)

    def _grads(self, g, a, b, out, na, nb):
        return (g * a / out if na else None, g * b / out if nb else None)


class CopysignBackward0(_Bin):
    @staticmethod
    def _f(a, b):
        if a.dtype.kind == "V":
            return np.copysign(a.astype(np.float32), np.asarray(b, np.float32)).astype(a.dtype)
        return np.copysign(a, b)

    def _grads(self, g, a, b, out, na, nb):
        # d/da copysign(a, b) = out / a, taken as 0 at a == 0; the sign operand gets zero gradient
        ga = g * np.where(a == 0, 0, out / np.where(a == 0, 1, a)).astype(out.dtype) if na else None
        return ga, (np.zeros_like(g) if nb else None)


class NextafterBackward0(_Bin):
    _saves = ()
    _graph_constants = ("saved",)  # its gradients read only the shapes of the kept arrays

    @staticmethod
    def _f(a, b):
        if a.dtype.kind == "V":  # step in bfloat16's own spacing via its bit pattern
            return _nextafter_bf16(a, b)
        return np.nextafter(a, b)

    def _grads(self, g, a, b, out, na, nb):
        return (g if na else None), (np.zeros_like(g) if nb else None)


def _nextafter_bf16(a, b):
    """nextafter for bfloat16 arrays: move the 16-bit pattern one step toward ``b``."""
    a, b = np.broadcast_arrays(a, b)
    x, y = a.astype(np.float32), b.astype(np.float32)
    bits = a.view(np.uint16).astype(np.int32)
    sign = (bits & 0x8000) != 0
    up = (y > x) != sign  # magnitude grows when moving away from zero
    step = np.where(up, 1, -1)
    nb = np.where(x == 0, np.where(y > 0, 1, 0x8001), bits + step)
    res = nb.astype(np.uint16).view(a.dtype)
    res = np.where(x == y, b, res)
    return np.where((x != x) | (y != y), np.array(np.nan, a.dtype), res).astype(a.dtype)


class LdexpBackward0(_Bin):
    @staticmethod
    def _f(a, b):
        return a * _f32(np.exp2, b)

    def _grads(self, g, a, b, out, na, nb):
        return (g * _f32(np.exp2, b) if na else None, g * out * _const(_LN2, out) if nb else None)


def _float_pair(input, other, name: str, kernel_ok: str = "fV", scalar_ok: bool = False):
    """Check and promote a binary op's operands; ints/bools go to the default float dtype."""
    _need_tensor(input, name)
    if not scalar_ok:
        _need_tensor(other, name, "other", 2)
    a, b = prep2(input, other)
    dt = (a if isinstance(a, Tensor) else b)._data.dtype
    if dt.kind in "biu" and kernel_ok == "promote":
        d = _dtype.get_default_dtype()
        a = cast(a, d) if isinstance(a, Tensor) else a
        b = cast(b, d) if isinstance(b, Tensor) else b
    elif kernel_ok != "promote" and dt.kind not in kernel_ok:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_aten(dt)}'")
    return a, b


def _float_binary(op, name: str, kernel_ok: str):
    def fn(input, other, *, out=None):
        return _out(op.apply(*_float_pair(input, other, name, kernel_ok)), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise ``torch.{name}(input, other)`` with broadcasting and type promotion; both "
                  f"operands must be Tensors (TypeError otherwise). NotImplementedError for dtypes PyTorch's "
                  f"CPU kernel lacks (integers, bool). Backward node ``{op.__name__}``.")
    return fn


logaddexp = _float_binary(LogaddexpBackward0, "logaddexp", "fVc")
logaddexp2 = _float_binary(Logaddexp2Backward0, "logaddexp2", "fV")
hypot = _float_binary(HypotBackward0, "hypot", "fV")
nextafter = _float_binary(NextafterBackward0, "nextafter", "fV")


def copysign(input, other, *, out=None):
    """``torch.copysign``: ``|input|`` with the sign of ``other`` (Tensor or number), broadcast; integer
    and bool results promote to the default float dtype. Gradient ``copysign(1, other) * sign(input)``
    w.r.t. input (0 at input == 0), zero w.r.t. other. NotImplementedError for complex."""
    _need_tensor(input, "copysign")
    if isinstance(other, complex) or (isinstance(other, Tensor) and other._data.dtype.kind == "c") or \
            input._data.dtype.kind == "c":
        dt = input._data.dtype if input._data.dtype.kind == "c" else np.dtype(np.complex64)
        raise NotImplementedError(f"\"copysign_cpu\" not implemented for '{_aten(dt)}'")
    return _out(CopysignBackward0.apply(*_float_pair(input, other, "copysign", "promote", scalar_ok=True)), out)


def ldexp(input, other, *, out=None):
    """``torch.ldexp``: ``input * 2 ** other`` (both Tensors, broadcast); integer/bool results promote to
    the default float dtype. Backward node ``LdexpBackward0``."""
    return _out(LdexpBackward0.apply(*_float_pair(input, other, "ldexp", "promote")), out)


class _NotImplementedBackward(Op):
    """A recorded node whose backward raises, as PyTorch's ``torch::autograd::NotImplemented``."""

    _node_name = "torch::autograd::NotImplemented"

    def forward(self, a, b):
        return self._f(a, b)

    def backward(self, g):
        raise RuntimeError(f"derivative for aten::{self._aten_op} is not implemented")


class _HeavisideNode(_NotImplementedBackward):
    _aten_op = "heaviside"

    @staticmethod
    def _f(a, b):
        try:
            return np.where(a == 0, b, a > 0).astype(a.dtype)
        except ValueError:
            _bshape(a, b)
            raise


def heaviside(input, values, *, out=None):
    """``torch.heaviside``: 0 where input < 0 (and nan), 1 where > 0, ``values`` where input == 0.
    Both must be Tensors of the same dtype (RuntimeError otherwise; complex unsupported). The result
    records a node whose backward raises RuntimeError, as in PyTorch."""
    _need_tensor(input, "heaviside")
    _need_tensor(values, "heaviside", "values", 2)
    if input._data.dtype.kind == "c" or values._data.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return _out(_HeavisideNode.apply(input, values), out)


# ------------------------------------------------------------------------------------------------
# gcd, lcm
# ------------------------------------------------------------------------------------------------
def _int_binary(fn, name: str):
    def op(input, other, *, out=None):
        _need_tensor(input, name)
        _need_tensor(other, name, "other", 2)
        a, b = prep2(input, other)
        dt = a._data.dtype
        if dt.kind not in "iu":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_aten(dt)}'")
        try:
            r = np.asarray(fn(a._data, b._data)).astype(dt, copy=False)
        except ValueError:
            _bshape(a._data, b._data)
            raise
        return _out(_make(r), out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Elementwise ``torch.{name}`` of two integer Tensors (broadcast, promoted); the result is "
                  f"non-negative and never requires grad. NotImplementedError for float/bool dtypes.")
    return op


gcd, lcm = _int_binary(np.gcd, "gcd"), _int_binary(np.lcm, "lcm")


# torch-level in-place forms (torch.ldexp_(x, y) etc.); Tensor methods are bound in _tensor_methods.py
ldexp_, gcd_, lcm_ = inplace_fn(ldexp, "ldexp_"), inplace_fn(gcd, "gcd_"), inplace_fn(lcm, "lcm_")


def rsub(input, other, *, alpha=1) -> Tensor:
    """``other - alpha * input`` (``torch.rsub``: ``sub`` with its operands swapped; ``other`` may be a number)."""
    _need_tensor(input, "rsub")
    return sub(other, input, alpha=alpha)
