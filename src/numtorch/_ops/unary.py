"""Unary elementwise math: exp/log family, roots, trigonometric and hyperbolic functions (and their
inverses), tanh/sigmoid/relu, erf, sign/sgn/angle, rounding, clamp, degree/radian conversion and
frexp (mirrors the matching ``torch.*`` functions).

Each differentiable op is an ``Op`` that saves what its backward needs (the input, or the output
when the derivative is cheapest from it: exp, tanh, sigmoid, sqrt). Integer inputs promote to the
default float dtype where PyTorch's do. Binary arithmetic is in ``pointwise.py``, comparisons and
predicates in ``logic.py``.
"""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd.forward_ad import jvp_elementwise, jvp_linear
from ..autograd.function import Op
from ._cast import cast
from ._inplace import inplace_fn
from ._out import _out
from ._util import _cj, _const, _f32, _floating, _need_tensor, to_tensor, unbroadcast

__all__ = """neg abs sign exp exp2 expm1 log log2 log10 log1p sqrt rsqrt reciprocal square sin cos tan asin acos atan
arcsin arccos arctan sinh cosh tanh sigmoid relu erf erfinv floor ceil trunc fix frac round clamp clip
clamp_min clamp_max negative absolute atanh asinh acosh arctanh arcsinh arccosh deg2rad rad2deg frexp sgn
positive angle atanh_ asinh_ acosh_ arctanh_ arcsinh_ arccosh_ deg2rad_ rad2deg_""".split()

# ------------------------------------------------------------------------------------------------
# unary math
# ------------------------------------------------------------------------------------------------
class NegBackward0(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
    jvp = jvp_linear  # forward AD (autograd/forward_ad.py)
    def forward(self, a):
        if a.dtype.kind == "b":
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                               "invert a mask, use the `~` or `logical_not()` operator instead.")
        return -a

    def backward(self, g):
        return -g


def _cz(x):
    """``conj(x)`` for complex ``x`` (array or create_graph box), else ``x`` itself. Holomorphic f's gradient
    is ``g * conj(f'(z))`` (PyTorch's convention); every ``f'`` here has real coefficients, so
    ``conj(f'(z)) == f'(conj(z))``: conjugating the saved operand once costs nothing on real dtypes."""
    return x.conj() if x.dtype.kind == "c" else x


class _SavesOutput(Op):
    """``_f(x)`` whose gradient ``_grad(g, out)`` reads the output (conjugated for complex)."""
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)

    _saves = ("out",)
    jvp = jvp_elementwise  # forward AD (autograd/forward_ad.py): this backward on the tangent

    def forward(self, a):
        self.saved = self._f(a)
        return self.saved

    def backward(self, g):
        return self._grad(g, _cz(self.saved))


class _SavesInput(Op):
    """``_f(x)`` whose gradient ``_grad(g, x)`` reads the input (conjugated for complex)."""
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)

    _saves = (0,)
    jvp = jvp_elementwise

    def forward(self, a):
        self.saved = a
        return self._f(a)

    def backward(self, g):
        return self._grad(g, _cz(self.saved))


class AbsBackward0(_SavesInput):
    @staticmethod
    def _f(a):
        if a.dtype.kind == "b":  # PyTorch has no bool kernel
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
        return np.abs(a)

    def backward(self, g):
        a = self.saved
        if a.dtype.kind == "c" and not isinstance(a, np.ndarray):  # create_graph: sgn(a) = a/|a| depends on a
            m = np.abs(a)
            return g * np.where(m == 0, 0, a / np.where(m == 0, 1, m))
        return g * np.sign(a)


class ExpBackward0(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
    _saves = ("out",)

    def forward(self, a):
        out = np.exp(a)
        self.saved = out
        return out

    def backward(self, g):
        return g * _cz(self.saved)

    def jvp(self, t):  # forward AD (autograd/forward_ad.py)
        return t * self.fw_out


# each: f, and the gradient g * f'(x) from the saved input x or output o
class Exp2Backward0(_SavesOutput):
    _f, _grad = staticmethod(np.exp2), staticmethod(lambda g, o: g * o * math.log(2))


class Expm1Backward0(_SavesOutput):
    _f, _grad = staticmethod(np.expm1), staticmethod(lambda g, o: g * (o + 1))


class LogBackward0(_SavesInput):
    _f, _grad = staticmethod(np.log), staticmethod(lambda g, x: g / x)


class Log2Backward0(_SavesInput):
    _f, _grad = staticmethod(np.log2), staticmethod(lambda g, x: g / (x * math.log(2)))


class Log10Backward0(_SavesInput):
    _f, _grad = staticmethod(np.log10), staticmethod(lambda g, x: g / (x * math.log(10)))


class Log1PBackward0(_SavesInput):
    _f, _grad = staticmethod(np.log1p), staticmethod(lambda g, x: g / (x + 1))


class SinBackward0(_SavesInput):
    _f, _grad = staticmethod(np.sin), staticmethod(lambda g, x: g * np.cos(x))


class CosBackward0(_SavesInput):
    _f, _grad = staticmethod(np.cos), staticmethod(lambda g, x: -g * np.sin(x))


class TanBackward0(_SavesOutput):
    _f, _grad = staticmethod(np.tan), staticmethod(lambda g, o: g * (1 + o * o))


class AsinBackward0(_SavesInput):
    _f, _grad = staticmethod(np.arcsin), staticmethod(lambda g, x: g / np.sqrt(1 - x * x))


class AcosBackward0(_SavesInput):
    _f, _grad = staticmethod(np.arccos), staticmethod(lambda g, x: -g / np.sqrt(1 - x * x))


class AtanBackward0(_SavesInput):
    _f, _grad = staticmethod(np.arctan), staticmethod(lambda g, x: g / (1 + x * x))


class SinhBackward0(_SavesInput):
    _f, _grad = staticmethod(np.sinh), staticmethod(lambda g, x: g * np.cosh(x))


class CoshBackward0(_SavesInput):
    _f, _grad = staticmethod(np.cosh), staticmethod(lambda g, x: g * np.sinh(x))


class ErfBackward0(_SavesInput):
    def _f(self, a):
        from scipy.special import erf as _erf  # lazy: keeps `import numtorch` light
        return _erf(a).astype(a.dtype, copy=False)

    def backward(self, g):
        a = self.saved
        return g * (2.0 / math.sqrt(math.pi)) * np.exp(-a * a)


class ErfinvBackward0(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
    _saves = ("out",)

    def forward(self, a):
        from scipy.special import erfinv as _erfinv  # lazy: keeps `import numtorch` light
        self.saved = _erfinv(a).astype(a.dtype, copy=False)
        return self.saved

    def backward(self, g):
        y = self.saved
        return g * (math.sqrt(math.pi) / 2) * np.exp(y * y)


class SqrtBackward0(_SavesOutput):
    _f, _grad = staticmethod(np.sqrt), staticmethod(lambda g, o: g / (2 * o))


class RsqrtBackward0(_SavesOutput):
    _f, _grad = staticmethod(lambda a: 1 / np.sqrt(a)), staticmethod(lambda g, o: -0.5 * g * o * o * o)


class ReciprocalBackward0(_SavesOutput):
    _f, _grad = staticmethod(lambda a: 1 / a), staticmethod(lambda g, o: -g * o * o)


class SquareBackward(Op):
    """``x ** 2`` and ``square``: saves the input, gradient ``2 x g``."""
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)

    _saves = (0,)
    _node_name = "PowBackward0"  # what PyTorch shows for x ** 2 and square(x)

    def forward(self, a):
        self.saved = a
        return a * a

    def backward(self, g):
        return g * (2 * _cz(self.saved))


class TanhBackward0(_SavesOutput):
    _f = staticmethod(np.tanh)

    def backward(self, g):
        t = _cz(self.saved)
        return g * (1 - t * t)

    def jvp(self, t):
        y = self.fw_out
        return t * (1 - y * y)


class SigmoidBackward0(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
    _saves = ("out",)

    def forward(self, a):
        if a.dtype.kind == "c":  # the |a| trick below is for real inputs only
            self.saved = out = 1 / (1 + np.exp(-a))
            return out
        # exp(-|a|) never overflows; both branches agree where they meet
        e = np.exp(-np.abs(a))
        out = np.where(a >= 0, 1 / (1 + e), e / (1 + e))
        self.saved = out
        return out

    def backward(self, g):
        s = _cz(self.saved)
        return g * s * (1 - s)

    def jvp(self, t):
        y = self.fw_out
        return t * y * (1 - y)


class ReluBackward0(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
    _saves = ("out",)

    def forward(self, a):
        # clip to [0, inf] is NaN-propagating like maximum(a, 0) but several times faster in NumPy
        if a.dtype.kind == "f":
            out = np.clip(a, 0, np.inf)
        elif a.dtype.kind == "b":
            raise RuntimeError("Boolean inputs not supported for relu")
        else:
            out = np.maximum(a, 0)
        self.saved = out
        return out

    def backward(self, g):
        return g * (self.saved > 0)

    def jvp(self, t):
        return t * (self.fw_out > 0)


class SignBackward0(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
    def forward(self, a):
        if a.dtype == np.bool_:  # sign of a bool is itself (PyTorch); NumPy has no bool sign loop
            return a.copy()
        out = np.asarray(np.sign(a))  # a 0-dim input gives a NumPy scalar
        if a.dtype.kind in "fV":
            out[out != out] = 0  # sign(nan) is 0 in PyTorch
        return out

    def backward(self, g):
        return np.zeros_like(g)


class _ZeroGrad(Op):
    """Piecewise-constant functions (floor, ceil, round, trunc): gradient zero everywhere."""
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)

    def forward(self, a):
        return self._f(a)

    def backward(self, g):
        return np.zeros_like(g)


class FloorBackward0(_ZeroGrad):
    _f = staticmethod(np.floor)


class CeilBackward0(_ZeroGrad):
    _f = staticmethod(np.ceil)


class TruncBackward0(_ZeroGrad):
    _f = staticmethod(np.trunc)


class RoundBackward0(_ZeroGrad):
    _f = staticmethod(np.round)


class RoundBackward1(_ZeroGrad):
    """``round(x, decimals=d)``: ``round(x * 10**d) / 10**d`` in ``x``'s dtype."""

    def forward(self, a, decimals):
        s = 10.0 ** decimals
        return np.round(a * s) / s


class FracBackward0(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
    def forward(self, a):
        return a - np.trunc(a)

    def backward(self, g):
        return g


class ClampBackward1(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
    _saves = (0,)

    def forward(self, a, lo, hi):
        self.saved = a
        self.lo, self.hi = lo, hi
        return np.clip(a, lo, hi).astype(a.dtype, copy=False)  # Python-float bounds must not widen 16-bit floats

    def backward(self, g):
        a = self.saved
        m = np.ones(a.shape, bool)
        if self.lo is not None:
            m &= a >= self.lo
        if self.hi is not None:
            m &= a <= self.hi
        return g * m, None, None


class ClampBackward0(Op):
    """clamp with tensor bounds: gradient flows to whichever of input/min/max was selected."""
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)

    _saves = (0, 1, 2)

    def forward(self, a, lo, hi):
        self.saved = (a, lo, hi)
        out = a
        if lo is not None:
            out = np.maximum(out, lo)
        if hi is not None:
            out = np.minimum(out, hi)
        return out

    def backward(self, g):
        a, lo, hi = self.saved
        m = np.ones(g.shape, bool)  # bounds may broadcast the output beyond input's shape
        glo = ghi = None
        # PyTorch's masks: the input where lo <= a <= hi (so not at NaN), lo where a < lo only while lo < hi,
        # hi where a > hi or hi < lo (crossed bounds give hi)
        if lo is not None:
            m &= a >= lo
            if not np.isscalar(lo):
                below = (a < lo) & np.less(lo, hi) if hi is not None else a < lo
                glo = unbroadcast(g * below, np.shape(lo))
        if hi is not None:
            m &= a <= hi
            if not np.isscalar(hi):
                above = (a > hi) | np.less(hi, lo) if lo is not None else a > hi
                ghi = unbroadcast(g * above, np.shape(hi))
        return unbroadcast(g * m, a.shape), glo, ghi


def _unary(op):
    def fn(input, *, out=None):
        r = op.apply(input if input._data.dtype.kind in "fcV" else cast(input, _dtype.get_default_dtype()))
        return r if out is None else _out(r, out)
    fn.__name__ = op.__name__.replace("Backward0", "").lower()
    fn.__doc__ = (f"Elementwise ``torch.{fn.__name__}``; integer inputs promote to the default float dtype. "
                  f"Backward node: ``{op.__name__}``.")
    return fn


exp, exp2, expm1 = _unary(ExpBackward0), _unary(Exp2Backward0), _unary(Expm1Backward0)
log, log2, log10, log1p = _unary(LogBackward0), _unary(Log2Backward0), _unary(Log10Backward0), _unary(Log1PBackward0)
sin, cos, tan = _unary(SinBackward0), _unary(CosBackward0), _unary(TanBackward0)
asin, acos, atan = _unary(AsinBackward0), _unary(AcosBackward0), _unary(AtanBackward0)
arcsin, arccos, arctan = asin, acos, atan
sinh, cosh = _unary(SinhBackward0), _unary(CoshBackward0)
erf, erfinv = _unary(ErfBackward0), _unary(ErfinvBackward0)
sqrt, rsqrt, reciprocal = _unary(SqrtBackward0), _unary(RsqrtBackward0), _unary(ReciprocalBackward0)
tanh, sigmoid = _unary(TanhBackward0), _unary(SigmoidBackward0)
for _n, _f in (("exp", exp), ("exp2", exp2), ("expm1", expm1), ("log", log), ("log2", log2), ("log10", log10),
               ("log1p", log1p), ("sin", sin), ("cos", cos), ("tan", tan), ("asin", asin), ("acos", acos),
               ("atan", atan), ("sinh", sinh), ("cosh", cosh), ("erf", erf), ("erfinv", erfinv),
               ("sqrt", sqrt), ("rsqrt", rsqrt), ("reciprocal", reciprocal), ("tanh", tanh),
               ("sigmoid", sigmoid)):
    _f.__name__ = _f.__qualname__ = _n
del _n, _f


def _same_dtype_unary(op, name):
    def fn(input, *, out=None):
        r = op.apply(input)
        return r if out is None else _out(r, out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``torch.{name}``, keeping the input's dtype. Backward node: ``{op.__name__}``."
    return fn


neg = negative = _same_dtype_unary(NegBackward0, "neg")
abs = absolute = _same_dtype_unary(AbsBackward0, "abs")
sign = _same_dtype_unary(SignBackward0, "sign")
relu = _same_dtype_unary(ReluBackward0, "relu")
_square = _same_dtype_unary(SquareBackward, "square")


def square(input, *, out=None):
    """Elementwise ``torch.square``; a bool input squares as int64, as PyTorch (``pow(x, 2)``)."""
    if input._data.dtype == np.bool_:
        input = input.long()
    return _square(input, out=out)


def _rounding(op, name):
    def fn(input, *, out=None):
        if input._data.dtype.kind in "biu":
            return _out(input.clone(), out)
        return _out(op.apply(input), out)
    fn.__name__ = fn.__qualname__ = name
    return fn


floor, ceil, trunc = _rounding(FloorBackward0, "floor"), _rounding(CeilBackward0, "ceil"), _rounding(TruncBackward0, "trunc")
fix = trunc
frac = _same_dtype_unary(FracBackward0, "frac")


def round(input, *, decimals=0, out=None):
    """Round half to even (``torch.round``); ``decimals`` as PyTorch."""
    if decimals:
        if input._data.dtype.kind in "biu":  # PyTorch has no integer kernel for round(decimals=)
            raise NotImplementedError(f'"round_cpu" not implemented for \'{input.dtype._aten_name}\'')
        return _out(RoundBackward1.apply(_floating(input), decimals=decimals), out)
    if input._data.dtype.kind == "b":
        raise NotImplementedError('"round_vml_cpu" not implemented for \'Bool\'')
    if input._data.dtype.kind in "iu":
        return _out(input.clone(), out)
    return _out(RoundBackward0.apply(input), out)


def clamp(input, min=None, max=None, *, out=None):
    """Limit values to ``[min, max]`` (``torch.clamp``/``clip``); gradient 1 inside, 0 outside.

    RuntimeError if both bounds are None.
    """
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if min is not None and max is not None and isinstance(min, Tensor) != isinstance(max, Tensor):
        t = min if isinstance(min, Tensor) else max  # a Tensor and a number: a 0-d one passes as a number
        if t.dim() or t.requires_grad:  # (unless it requires grad)
            raise TypeError(f"clamp() received an invalid combination of arguments - got (Tensor, "
                            f"{type(max if t is min else min).__name__}), but expected (Tensor min, Tensor max) "
                            f"or (Number min, Number max)")
        min, max = (t.item(), max) if t is min else (min, t.item())
    if isinstance(min, Tensor) or isinstance(max, Tensor):  # one dtype for all three, as PyTorch's result_type
        rt = _dtype.result_type(*(t for t in (input, min, max) if t is not None))
        lo, hi = (cast(t, rt) if t is not None else None for t in (min, max))
        return _out(ClampBackward0.apply(cast(input, rt), lo, hi), out)
    if input._data.dtype.kind in "biu" and (isinstance(min, float) or isinstance(max, float)):
        input = cast(input, _dtype.get_default_dtype())
    return _out(ClampBackward1.apply(input, lo=min, hi=max), out)


clip = clamp


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


# ------------------------------------------------------------------------------------------------
# inverse hyperbolic functions, degree/radian conversion, sgn, angle, positive
# ------------------------------------------------------------------------------------------------
class _UnaryIn(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
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
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)

    def forward(self, a):
        return a * _const(self._c, a)

    def backward(self, g):
        return g * _const(self._c, g)


class Deg2RadBackward0(_Scale):
    _c = math.pi / 180.0


class Rad2DegBackward0(_Scale):
    _c = 180.0 / math.pi


class SgnBackward0(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
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
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
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
        return _out(op.apply(_floating(input)), out)
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
    return _out(SgnBackward0.apply(input), out)


def angle(input, *, out=None):
    """``torch.angle``: the argument of complex values (a real tensor); for real inputs pi where
    negative, else 0 (nan stays nan); integers promote to the default float dtype."""
    _need_tensor(input, "angle")
    x = input if input._data.dtype.kind == "c" else _floating(input)
    return _out(AngleBackward0.apply(x), out)


def positive(input):
    """``torch.positive``: returns ``input`` itself; RuntimeError for bool tensors."""
    _need_tensor(input, "positive")
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ------------------------------------------------------------------------------------------------
# frexp
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
        raise RuntimeError(f"torch.frexp() expects mantissa to have dtype {_dtype.from_np(input._data.dtype)._cpp_name} but got "
                           f"{_dtype.from_np(om._data.dtype)._cpp_name}")
    if oe._data.dtype != np.int32:
        raise RuntimeError(f"torch.frexp() expects exponent to have int dtype but got {_dtype.from_np(oe._data.dtype)._cpp_name}")
    _out(m, om)
    _out(e, oe)
    return frexp_result(om, oe)


# ------------------------------------------------------------------------------------------------
# torch-level in-place forms (torch.atanh_(x) etc.); Tensor methods are bound in _tensor_methods.py
# ------------------------------------------------------------------------------------------------
atanh_ = arctanh_ = inplace_fn(atanh, "atanh_")
asinh_ = arcsinh_ = inplace_fn(asinh, "asinh_")
acosh_ = arccosh_ = inplace_fn(acosh, "acosh_")
deg2rad_, rad2deg_ = inplace_fn(deg2rad, "deg2rad_"), inplace_fn(rad2deg, "rad2deg_")
