"""Extra elementwise math: inverse hyperbolic functions, ``logaddexp``/``logaddexp2``, ``hypot``,
``copysign``, ``heaviside``, ``nextafter``, ``deg2rad``/``rad2deg``, ``frexp``/``ldexp``, ``sgn``,
``angle``, ``positive``, sign/infinity predicates and ``gcd``/``lcm`` (mirrors the ``torch.*`` functions).

Float-valued functions promote integer (and bool) inputs to the default float dtype, binary ones
after PyTorch's type promotion of the two operands (``prep2``). Differentiable ops are ``Op``
subclasses named after PyTorch's backward nodes; predicates, ``gcd``/``lcm`` never require grad and
``heaviside`` records a node whose backward raises, as in PyTorch. Tensor methods and in-place
forms are attached in ``_tensor_methods.py``.
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.function import Op
from ._util import prep2, unbroadcast
from .pointwise import _ATEN_NAMES, _bshape, _can_cast, _out, cast, inplace

__all__ = """atanh asinh acosh arctanh arcsinh arccosh logaddexp logaddexp2 hypot copysign heaviside nextafter
deg2rad rad2deg frexp ldexp signbit sgn positive angle isreal isneginf isposinf gcd lcm
atanh_ asinh_ acosh_ arctanh_ arcsinh_ arccosh_ deg2rad_ rad2deg_ ldexp_ gcd_ lcm_""".split()

_LN2 = math.log(2.0)


# ------------------------------------------------------------------------------------------------
# helpers: argument checks, dtype rules, out=
# ------------------------------------------------------------------------------------------------
def _aten(dt: np.dtype) -> str:
    return _ATEN_NAMES.get(dt.name, dt.name)


def _need_tensor(x, fname: str, arg: str = "input", pos: int = 1) -> None:
    """PyTorch's argument-parser TypeError for a non-Tensor where a Tensor is required."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _floating(t: Tensor) -> Tensor:
    """``t`` itself if floating/complex, else cast to the default float dtype (PyTorch's int -> float rule)."""
    return t if t._data.dtype.kind in "fcV" else cast(t, _dtype.get_default_dtype())


def _outc(r: Tensor, out):
    """``out=`` with PyTorch's check that the result dtype casts to ``out``'s (float into int refused)."""
    if out is None:
        return r
    if not _can_cast(r._data.dtype, out._data.dtype):
        raise RuntimeError(f"result type {_aten(r._data.dtype)} can't be cast to the desired output type "
                           f"{_aten(out._data.dtype)}")
    return _out(r, out)


def _f32(fn, a: np.ndarray) -> np.ndarray:
    """``fn(a)``; bfloat16 (NumPy kind "V") is computed in float32 and cast back."""
    if a.dtype.kind == "V":
        return fn(a.astype(np.float32)).astype(a.dtype)
    return fn(a)


def _cj(x):
    return np.conj(x) if np.iscomplexobj(x) else x


def _const(c: float, like: np.ndarray):
    """Python float ``c`` as a scalar of ``like``'s dtype, so float32 stays float32."""
    return like.dtype.type(c) if like.dtype.kind in "fc" else c


# ------------------------------------------------------------------------------------------------
# unary: inverse hyperbolic functions, degree/radian conversion, sgn, angle
# ------------------------------------------------------------------------------------------------
class _UnaryIn(Op):
    _saves = (0,)

    def forward(self, a):
        self.saved = a
        with np.errstate(divide="ignore", invalid="ignore"):
            return _f32(self._f, a)


class AtanhBackward0(_UnaryIn):
    _f = staticmethod(np.arctanh)

    def backward(self, g):
        a = self.saved
        with np.errstate(divide="ignore", invalid="ignore"):
            return g / _cj(1 - a * a)


class AsinhBackward0(_UnaryIn):
    _f = staticmethod(np.arcsinh)

    def backward(self, g):
        a = self.saved
        return g / _cj(np.sqrt(a * a + 1))


class AcoshBackward0(_UnaryIn):
    _f = staticmethod(np.arccosh)

    def backward(self, g):
        a = self.saved
        with np.errstate(divide="ignore", invalid="ignore"):
            return g / _cj(np.sqrt(a - 1) * np.sqrt(a + 1))  # branch-correct for complex


class _Scale(Op):
    """Multiplication by a fixed constant (``deg2rad``, ``rad2deg``)."""

    def forward(self, a):
        return a * _const(self._c, a)

    def backward(self, g):
        return g * _const(self._c, g)


class Deg2RadBackward0(_Scale):
    _c = math.pi / 180.0


class Rad2DegBackward0(_Scale):
    _c = 180.0 / math.pi


class SgnBackward0(Op):
    _saves = (0, "out")

    def forward(self, a):
        if a.dtype.kind == "b":
            return a.copy()
        if a.dtype.kind == "c":
            m = np.abs(a)
            with np.errstate(divide="ignore", invalid="ignore"):
                out = np.where(m == 0, 0, a / m).astype(a.dtype)
        else:
            out = np.asarray(np.sign(a))
            if a.dtype.kind in "fV":
                out[out != out] = 0  # sgn(nan) is 0, as torch.sign
        self.saved = (a, out)
        return out

    def backward(self, g):
        a, s = self.saved
        if a.dtype.kind != "c":
            return np.zeros_like(g)
        m = np.abs(a)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = (g - s * np.real(g * np.conj(s))) / m
        return np.where(m == 0, 0, r).astype(g.dtype)


class AngleBackward0(Op):
    _saves = (0,)

    def forward(self, a):
        self.saved = a
        if a.dtype.kind == "c":
            return np.angle(a)
        pi = _const(math.pi, a)
        # -0.0 gives 0 (np.angle would give pi); nan stays nan
        return np.where(a < 0, pi, np.where(a != a, a, _const(0.0, a))).astype(a.dtype)

    def backward(self, g):
        a = self.saved
        if a.dtype.kind != "c":
            return np.zeros_like(g)
        m2 = np.real(a * np.conj(a))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = g * a / m2 * 1j
        return np.where(m2 == 0, 0, r).astype(a.dtype)


def _float_unary(op, name: str, complex_ok: bool = True):
    def fn(input, *, out=None):
        _need_tensor(input, name)
        if not complex_ok and input._data.dtype.kind == "c":
            raise RuntimeError(f"{name} is not supported for complex tensors.")
        return _outc(op.apply(_floating(input)), out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise ``torch.{name}`` (any shape); integer/bool inputs promote to the default float "
                  f"dtype. Backward node ``{op.__name__}``. TypeError for a non-Tensor input.")
    return fn


atanh = arctanh = _float_unary(AtanhBackward0, "atanh")
asinh = arcsinh = _float_unary(AsinhBackward0, "asinh")
acosh = arccosh = _float_unary(AcoshBackward0, "acosh")
deg2rad = _float_unary(Deg2RadBackward0, "deg2rad", complex_ok=False)
rad2deg = _float_unary(Rad2DegBackward0, "rad2deg", complex_ok=False)


def sgn(input, *, out=None):
    """``torch.sgn``: ``x / |x|`` for complex (0 at 0), ``sign`` for real; keeps the input's dtype.
    Backward node ``SgnBackward0`` (zero gradient for real inputs)."""
    _need_tensor(input, "sgn")
    return _outc(SgnBackward0.apply(input), out)


def angle(input, *, out=None):
    """``torch.angle``: the argument of complex values (a real tensor); for real inputs pi where
    negative, else 0 (nan stays nan); integers promote to the default float dtype."""
    _need_tensor(input, "angle")
    x = input if input._data.dtype.kind == "c" else _floating(input)
    return _outc(AngleBackward0.apply(x), out)


def positive(input):
    """``torch.positive``: returns ``input`` itself; RuntimeError for bool tensors."""
    _need_tensor(input, "positive")
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ------------------------------------------------------------------------------------------------
# predicates (bool results, never differentiable)
# ------------------------------------------------------------------------------------------------
def _bool_out(name: str, r: np.ndarray, out):
    if out is not None and out._data.dtype != np.bool_:
        raise RuntimeError(f"{name} does not support non-boolean outputs.")
    return _out(_make(np.asarray(r)), out)


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
    return _outc(_make(np.asarray(r)), out)


def _inf_pred(name: str, sign: float):
    def fn(input, *, out=None):
        _need_tensor(input, name)
        a = input._data
        if a.dtype.kind == "c":
            raise RuntimeError(f"{name} does not support complex inputs.")
        r = (a == sign) if a.dtype.kind in "fV" else np.zeros(a.shape, bool)
        return _bool_out(name, r, out)
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
# binary float functions
# ------------------------------------------------------------------------------------------------
class _Bin(Op):
    """Broadcasting binary op; ``backward`` returns full-shape gradients, reduced here to each operand."""

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
        return _outc(op.apply(*_float_pair(input, other, name, kernel_ok)), out)
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
    return _outc(CopysignBackward0.apply(*_float_pair(input, other, "copysign", "promote", scalar_ok=True)), out)


def ldexp(input, other, *, out=None):
    """``torch.ldexp``: ``input * 2 ** other`` (both Tensors, broadcast); integer/bool results promote to
    the default float dtype. Backward node ``LdexpBackward0``."""
    return _outc(LdexpBackward0.apply(*_float_pair(input, other, "ldexp", "promote")), out)


class _NotImplementedBackward(Op):
    """A recorded node whose backward raises, as PyTorch's ``torch::autograd::NotImplemented``."""

    def name(self):
        return "torch::autograd::NotImplemented"

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
    return _outc(_HeavisideNode.apply(input, values), out)


# ------------------------------------------------------------------------------------------------
# frexp, gcd, lcm
# ------------------------------------------------------------------------------------------------
frexp_result = namedtuple("frexp", ["mantissa", "exponent"])
frexp_result.__qualname__ = "return_types.frexp"


class FrexpBackward0(Op):
    _nondiff_outputs = (1,)

    def forward(self, a):
        m, e = _f32(np.frexp, a) if a.dtype.kind != "V" else np.frexp(a.astype(np.float32))
        m = m.astype(a.dtype, copy=False)
        e = np.asarray(e, np.int32)
        self.e = e
        return np.asarray(m), e

    def backward(self, gm, ge):
        return gm / np.exp2(self.e).astype(gm.dtype)


def frexp(input, *, out=None):
    """``torch.frexp``: ``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``, mantissa in
    ``[0.5, 1)`` (same dtype as input) and an int32 exponent. Float inputs only (RuntimeError otherwise);
    ``out`` is a (mantissa, exponent) pair of matching dtypes. Gradient flows to the mantissa only."""
    _need_tensor(input, "frexp")
    if input._data.dtype.kind not in "fV":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = FrexpBackward0.apply(input)
    if out is None:
        return frexp_result(m, e)
    om, oe = out
    if om._data.dtype != input._data.dtype:
        raise RuntimeError(f"torch.frexp() expects mantissa to have dtype {_c_name(input._data.dtype)} but got "
                           f"{_c_name(om._data.dtype)}")
    if oe._data.dtype != np.int32:
        raise RuntimeError(f"torch.frexp() expects exponent to have int dtype but got {_c_name(oe._data.dtype)}")
    _out(m, om)
    _out(e, oe)
    return frexp_result(om, oe)


def _c_name(dt: np.dtype) -> str:
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "bool": "bool"}.get(dt.name, dt.name)


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
        return _outc(_make(r), out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Elementwise ``torch.{name}`` of two integer Tensors (broadcast, promoted); the result is "
                  f"non-negative and never requires grad. NotImplementedError for float/bool dtypes.")
    return op


gcd, lcm = _int_binary(np.gcd, "gcd"), _int_binary(np.lcm, "lcm")


# ------------------------------------------------------------------------------------------------
# torch-level in-place forms (torch.atanh_(x) etc.); Tensor methods are bound in _tensor_methods.py
# ------------------------------------------------------------------------------------------------
def _inplace_fn(fn, name: str):
    def f(input, *args):
        return inplace(input, fn, *args)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"In-place ``torch.{fn.__name__}``: writes into ``input`` and returns it."
    return f


atanh_ = arctanh_ = _inplace_fn(atanh, "atanh_")
asinh_ = arcsinh_ = _inplace_fn(asinh, "asinh_")
acosh_ = arccosh_ = _inplace_fn(acosh, "acosh_")
deg2rad_, rad2deg_ = _inplace_fn(deg2rad, "deg2rad_"), _inplace_fn(rad2deg, "rad2deg_")
ldexp_, gcd_, lcm_ = _inplace_fn(ldexp, "ldexp_"), _inplace_fn(gcd, "gcd_"), _inplace_fn(lcm, "lcm_")

# names of Tensor methods with an in-place ``_`` form (bound in _tensor_methods.py)
INPLACE_METHODS = ("atanh asinh acosh arctanh arcsinh arccosh deg2rad rad2deg sgn hypot copysign heaviside "
                   "nextafter ldexp gcd lcm").split()
