"""Pointwise ops: arithmetic, elementwise math, comparisons, casts and their in-place forms.

Each differentiable op is an ``Op`` (forward/backward on ndarrays, see ``autograd/function.py``);
the public function below it handles type promotion and scalars. Gradients of broadcast operands
are summed back to the operand's shape with ``unbroadcast``.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.function import Op, rebase_view
from ..autograd.grad_mode import _State, no_grad
from ._util import bump, check_inplace, prep2, to_tensor, unbroadcast

__all__ = """add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow float_power
neg negative abs absolute sign exp exp2 expm1 log log2 log10 log1p sqrt rsqrt reciprocal square sin cos tan
asin acos atan arcsin arccos arctan atan2 arctan2 sinh cosh tanh sigmoid relu erf erfinv floor ceil trunc fix
frac round clamp clip clamp_min clamp_max maximum minimum fmax fmin where lerp addcmul addcdiv eq ne lt le gt
ge greater greater_equal less less_equal not_equal logical_and logical_or logical_xor logical_not bitwise_and
bitwise_or bitwise_xor bitwise_not isnan isinf isfinite isclose allclose equal nan_to_num""".split()

# ------------------------------------------------------------------------------------------------
# casts
# ------------------------------------------------------------------------------------------------
class ToCopyBackward0(Op):
    def forward(self, a, dtype):
        self.src = a.dtype
        return a.astype(dtype)

    def backward(self, g):
        return g.astype(self.src)


def cast(t: Tensor, dtype) -> Tensor:
    """``t`` converted to ``dtype`` (differentiable between floating types); ``t`` itself if equal."""
    npd = _dtype.to_np(dtype)
    if t._data.dtype == npd:
        return t
    return ToCopyBackward0.apply(t, dtype=npd)


# ------------------------------------------------------------------------------------------------
# binary arithmetic
# ------------------------------------------------------------------------------------------------
def _shape(x):
    return x.shape if isinstance(x, np.ndarray) else ()


def _bshape(a, b):
    try:
        return np.broadcast_shapes(_shape(a), _shape(b))
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({_mismatch(a, b)[0]}) must match the size of tensor b "
                           f"({_mismatch(a, b)[1]}) at non-singleton dimension {_mismatch(a, b)[2]}") from None


def _mismatch(a, b):
    sa, sb = _shape(a), _shape(b)
    n = max(len(sa), len(sb))
    sa, sb = (1,) * (n - len(sa)) + tuple(sa), (1,) * (n - len(sb)) + tuple(sb)
    for i in range(n - 1, -1, -1):
        if sa[i] != sb[i] and 1 not in (sa[i], sb[i]):
            return sa[i], sb[i], i
    return sa, sb, 0


class _Binary(Op):
    """Shared apply-time checks for broadcasting binary ops. Backward computes only the gradients
    that have somewhere to go (``_edges[i]`` is None for scalars and inputs without grad)."""

    def forward(self, a, b):
        self.sa = a.shape if type(a) is np.ndarray else ()
        self.sb = b.shape if type(b) is np.ndarray else ()
        try:
            return self._f(a, b)
        except ValueError:
            _bshape(a, b)
            raise


class AddBackward0(_Binary):
    @staticmethod
    def _f(a, b):
        return a + b

    def backward(self, g):
        ea, eb = self._edges
        return (unbroadcast(g, self.sa) if ea is not None else None,
                unbroadcast(g, self.sb) if eb is not None else None)


class SubBackward0(_Binary):
    @staticmethod
    def _f(a, b):
        return a - b

    def backward(self, g):
        ea, eb = self._edges
        return (unbroadcast(g, self.sa) if ea is not None else None,
                unbroadcast(-g, self.sb) if eb is not None else None)


class MulBackward0(_Binary):
    _saves = (0, 1)

    def _f(self, a, b):
        self.saved = (a, b)
        return a * b

    def backward(self, g):
        a, b = self.saved
        ea, eb = self._edges
        return (unbroadcast(g * b, self.sa) if ea is not None else None,
                unbroadcast(g * a, self.sb) if eb is not None else None)


class DivBackward0(_Binary):
    _saves = (0, 1)

    def _f(self, a, b):
        self.saved = (a, b)
        return a / b

    def backward(self, g):
        a, b = self.saved
        gb = None
        ga = g / b
        if self._edges[1] is not None:
            gb = unbroadcast(-ga * a / b, self.sb)
        return (unbroadcast(ga, self.sa) if self._edges[0] is not None else None), gb


class PowBackward0(_Binary):
    _saves = (0, 1, "out")

    def _f(self, a, b):
        out = np.power(a, b)
        self.saved = (a, b, out)
        return out

    def backward(self, g):
        a, b, out = self.saved
        ga = gb = None
        if self._edges[0] is not None:
            if isinstance(b, np.ndarray):
                ga = g * b * np.power(a, b - 1)
            elif b == 0:
                ga = np.zeros_like(g)
            else:
                ga = g * (b * np.power(a, b - 1))
            ga = unbroadcast(ga, self.sa)
        if len(self._edges) > 1 and self._edges[1] is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                la = np.log(a) if isinstance(a, np.ndarray) else np.log(np.asarray(a, out.dtype))
                gb = g * out * np.where((a == 0) & (np.asarray(b) >= 0), 0, la)
            gb = unbroadcast(gb, self.sb)
        return ga, gb


class MaximumBackward0(_Binary):
    _saves = (0, 1)

    def _f(self, a, b):
        self.saved = (a, b)
        return np.maximum(a, b)

    def backward(self, g):
        a, b = self.saved
        # ties split the gradient evenly, as PyTorch does
        w = (a > b) + 0.5 * (a == b)
        return unbroadcast(g * w, self.sa), unbroadcast(g * (1 - w), self.sb)


class MinimumBackward0(_Binary):
    _saves = (0, 1)

    def _f(self, a, b):
        self.saved = (a, b)
        return np.minimum(a, b)

    def backward(self, g):
        a, b = self.saved
        w = (a < b) + 0.5 * (a == b)
        return unbroadcast(g * w, self.sa), unbroadcast(g * (1 - w), self.sb)


class Atan2Backward0(_Binary):
    _saves = (0, 1)

    def _f(self, a, b):
        self.saved = (a, b)
        return np.arctan2(a, b)

    def backward(self, g):
        a, b = self.saved
        d = a * a + b * b
        return unbroadcast(g * b / d, self.sa), unbroadcast(-g * a / d, self.sb)


def _binary(op, a, b):
    a, b = prep2(a, b)
    return op.apply(a, b)


def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other`` with broadcasting and type promotion (``torch.add``)."""
    if alpha != 1:
        other = mul(other, alpha)
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
        other = mul(other, alpha)
    r = SubBackward0.apply(*prep2(input, other))
    return r if out is None else _out(r, out)


subtract = sub


def mul(input, other, *, out=None):
    """Elementwise product with broadcasting (``torch.mul``)."""
    r = MulBackward0.apply(*prep2(input, other))
    return r if out is None else _out(r, out)


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    """True division (integers promote to the default float dtype), or ``rounding_mode`` "trunc"/"floor"."""
    if rounding_mode is not None:
        if rounding_mode == "floor":
            return _out(floor_divide(input, other), out)
        if rounding_mode == "trunc":
            return _out(trunc(true_divide(input, other)) if _is_float(input, other)
                        else _nondiff(lambda x, y: np.trunc(np.true_divide(x, y)).astype(np.result_type(x, y)),
                                      input, other), out)
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    a, b = prep2(input, other)
    if (a._data if isinstance(a, Tensor) else b._data).dtype.kind in "biu":
        dt = _dtype.get_default_dtype()
        a = cast(a, dt) if isinstance(a, Tensor) else a
        b = cast(b, dt) if isinstance(b, Tensor) else b
    return _out(DivBackward0.apply(a, b), out)


true_divide = divide = div


def _is_float(*xs):
    return any(isinstance(x, float) or (isinstance(x, Tensor) and x._data.dtype.kind in "fcV") for x in xs)


def pow(input, exponent, *, out=None):
    """``input ** exponent`` (``torch.pow``); either may be a scalar."""
    if isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        if exponent == 2:
            return _out(SquareBackward.apply(input), out)
        if isinstance(exponent, int) and exponent < 0 and input._data.dtype.kind in "iub":
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    return _out(_binary(PowBackward0, input, exponent), out)


def float_power(input, exponent, *, out=None):
    """``pow`` computed in float64 (``torch.float_power``): the result is always double."""
    to64 = lambda x: cast(x, _dtype.float64) if isinstance(x, Tensor) else x  # noqa: E731
    return pow(to64(input), to64(exponent), out=out)


def maximum(input, other, *, out=None):
    return _out(_binary(MaximumBackward0, input, other), out)


def minimum(input, other, *, out=None):
    return _out(_binary(MinimumBackward0, input, other), out)


fmax, fmin = maximum, minimum


def atan2(input, other, *, out=None):
    a, b = prep2(input, other)
    if (a._data if isinstance(a, Tensor) else b._data).dtype.kind in "biu":  # integers give the default float
        dt = _dtype.get_default_dtype()
        a = cast(a, dt) if isinstance(a, Tensor) else a
        b = cast(b, dt) if isinstance(b, Tensor) else b
    return _out(Atan2Backward0.apply(a, b), out)


arctan2 = atan2


def _nondiff(fn, a, b=None):
    """Run a non-differentiable NumPy function on Tensor/scalar operands; result never requires grad."""
    if b is None:
        return _make(np.asarray(fn(a._data)))
    a, b = prep2(a, b)
    x = a._data if isinstance(a, Tensor) else a
    y = b._data if isinstance(b, Tensor) else b
    try:
        return _make(np.asarray(fn(x, y)))
    except ValueError:
        _bshape(x, y)
        raise


def floor_divide(input, other, *, out=None):
    """``input // other`` rounding toward negative infinity (``torch.floor_divide``); no gradient."""
    return _out(_nondiff(np.floor_divide, input, other), out)


def remainder(input, other, *, out=None):
    """Python-style modulus (sign of the divisor), as ``torch.remainder``; gradient 1 w.r.t. input."""
    a, b = prep2(input, other)
    if isinstance(a, Tensor) and a._rg and _State.enabled:
        return _out(sub(a, mul(floor_divide(a.detach(), b), b)), out)
    return _out(_nondiff(np.mod, a, b), out)


def fmod(input, other, *, out=None):
    a, b = prep2(input, other)
    if isinstance(a, Tensor) and a._rg and _State.enabled:
        q = _nondiff(lambda x, y: np.trunc(np.true_divide(x, y)).astype(np.result_type(x, y)), a.detach(), b)
        return _out(sub(a, mul(q, b)), out)
    return _out(_nondiff(np.fmod, a, b), out)


# ------------------------------------------------------------------------------------------------
# unary math
# ------------------------------------------------------------------------------------------------
class NegBackward0(Op):
    def forward(self, a):
        return -a

    def backward(self, g):
        return -g


class AbsBackward0(Op):
    _saves = (0,)

    def forward(self, a):
        self.saved = a
        return np.abs(a)

    def backward(self, g):
        return g * np.sign(self.saved)


class ExpBackward0(Op):
    _saves = ("out",)

    def forward(self, a):
        out = np.exp(a)
        self.saved = out
        return out

    def backward(self, g):
        return g * self.saved


class Exp2Backward0(Op):
    _saves = ("out",)

    def forward(self, a):
        out = np.exp2(a)
        self.saved = out
        return out

    def backward(self, g):
        return g * self.saved * math.log(2)


class Expm1Backward0(Op):
    _saves = ("out",)

    def forward(self, a):
        out = np.expm1(a)
        self.saved = out
        return out

    def backward(self, g):
        return g * (self.saved + 1)


class _SavesInput(Op):
    _saves = (0,)

    def forward(self, a):
        self.saved = a
        return self._f(a)


class LogBackward0(_SavesInput):
    _f = staticmethod(np.log)

    def backward(self, g):
        return g / self.saved


class Log2Backward0(_SavesInput):
    _f = staticmethod(np.log2)

    def backward(self, g):
        return g / (self.saved * math.log(2))


class Log10Backward0(_SavesInput):
    _f = staticmethod(np.log10)

    def backward(self, g):
        return g / (self.saved * math.log(10))


class Log1PBackward0(_SavesInput):
    _f = staticmethod(np.log1p)

    def backward(self, g):
        return g / (self.saved + 1)


class SinBackward0(_SavesInput):
    _f = staticmethod(np.sin)

    def backward(self, g):
        return g * np.cos(self.saved)


class CosBackward0(_SavesInput):
    _f = staticmethod(np.cos)

    def backward(self, g):
        return -g * np.sin(self.saved)


class TanBackward0(Op):
    _saves = ("out",)

    def forward(self, a):
        self.saved = np.tan(a)
        return self.saved

    def backward(self, g):
        return g * (1 + self.saved * self.saved)


class AsinBackward0(_SavesInput):
    _f = staticmethod(np.arcsin)

    def backward(self, g):
        return g / np.sqrt(1 - self.saved * self.saved)


class AcosBackward0(_SavesInput):
    _f = staticmethod(np.arccos)

    def backward(self, g):
        return -g / np.sqrt(1 - self.saved * self.saved)


class AtanBackward0(_SavesInput):
    _f = staticmethod(np.arctan)

    def backward(self, g):
        return g / (1 + self.saved * self.saved)


class SinhBackward0(_SavesInput):
    _f = staticmethod(np.sinh)

    def backward(self, g):
        return g * np.cosh(self.saved)


class CoshBackward0(_SavesInput):
    _f = staticmethod(np.cosh)

    def backward(self, g):
        return g * np.sinh(self.saved)


class ErfBackward0(_SavesInput):
    def _f(self, a):
        from scipy.special import erf as _erf  # lazy: keeps `import numtorch` light
        return _erf(a).astype(a.dtype, copy=False)

    def backward(self, g):
        a = self.saved
        return g * (2.0 / math.sqrt(math.pi)) * np.exp(-a * a)


class ErfinvBackward0(Op):
    _saves = ("out",)

    def forward(self, a):
        from scipy.special import erfinv as _erfinv
        self.saved = _erfinv(a).astype(a.dtype, copy=False)
        return self.saved

    def backward(self, g):
        y = self.saved
        return g * (math.sqrt(math.pi) / 2) * np.exp(y * y)


class SqrtBackward0(Op):
    _saves = ("out",)

    def forward(self, a):
        self.saved = np.sqrt(a)
        return self.saved

    def backward(self, g):
        return g / (2 * self.saved)


class RsqrtBackward0(Op):
    _saves = ("out",)

    def forward(self, a):
        out = 1 / np.sqrt(a)
        self.saved = out
        return out

    def backward(self, g):
        o = self.saved
        return -0.5 * g * o * o * o


class ReciprocalBackward0(Op):
    _saves = ("out",)

    def forward(self, a):
        self.saved = 1 / a
        return self.saved

    def backward(self, g):
        o = self.saved
        return -g * o * o


class SquareBackward(Op):
    """``x ** 2`` and ``square``: saves the input, gradient ``2 x g``."""

    _saves = (0,)

    def name(self):
        return "PowBackward0"  # what PyTorch shows for x ** 2 and square(x)

    def forward(self, a):
        self.saved = a
        return a * a

    def backward(self, g):
        return g * (2 * self.saved)


class TanhBackward0(Op):
    _saves = ("out",)

    def forward(self, a):
        self.saved = np.tanh(a)
        return self.saved

    def backward(self, g):
        t = self.saved
        return g * (1 - t * t)


class SigmoidBackward0(Op):
    _saves = ("out",)

    def forward(self, a):
        # exp(-|a|) never overflows; both branches agree where they meet
        e = np.exp(-np.abs(a))
        out = np.where(a >= 0, 1 / (1 + e), e / (1 + e))
        self.saved = out
        return out

    def backward(self, g):
        s = self.saved
        return g * s * (1 - s)


class ReluBackward0(Op):
    _saves = ("out",)

    def forward(self, a):
        # clip to [0, inf] is NaN-propagating like maximum(a, 0) but several times faster in NumPy
        out = np.clip(a, 0, np.inf) if a.dtype.kind == "f" else np.maximum(a, 0)
        self.saved = out
        return out

    def backward(self, g):
        return g * (self.saved > 0)


class SignBackward0(Op):
    def forward(self, a):
        out = np.sign(a)
        if a.dtype.kind in "fV":
            out[out != out] = 0  # sign(nan) is 0 in PyTorch
        return out

    def backward(self, g):
        return np.zeros_like(g)


class _ZeroGrad(Op):
    """Piecewise-constant functions (floor, ceil, round, trunc): gradient zero everywhere."""

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


class FracBackward0(Op):
    def forward(self, a):
        return a - np.trunc(a)

    def backward(self, g):
        return g


class ClampBackward1(Op):
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
        if lo is not None:
            below = a < lo
            m &= ~below
            glo = unbroadcast(g * below, np.shape(lo)) if isinstance(lo, np.ndarray) else None
        if hi is not None:
            above = a > hi
            if lo is not None:
                above &= ~(a < lo) | (np.asarray(lo) > hi)
            m &= ~(a > hi)
            ghi = unbroadcast(g * (a > hi), np.shape(hi)) if isinstance(hi, np.ndarray) else None
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
square = _same_dtype_unary(SquareBackward, "square")


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
        s = 10.0 ** decimals
        return _out(div(RoundBackward0.apply(mul(input, s)), s), out)
    if input._data.dtype.kind in "biu":
        return _out(input.clone(), out)
    return _out(RoundBackward0.apply(input), out)


def clamp(input, min=None, max=None, *, out=None):
    """Limit values to ``[min, max]`` (``torch.clamp``/``clip``); gradient 1 inside, 0 outside.

    RuntimeError if both bounds are None.
    """
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = to_tensor(min, input.dtype) if min is not None else None
        hi = to_tensor(max, input.dtype) if max is not None else None
        if lo is not None:
            lo = cast(lo, input.dtype)
        if hi is not None:
            hi = cast(hi, input.dtype)
        return _out(ClampBackward0.apply(input, lo, hi), out)
    if input._data.dtype.kind in "biu" and (isinstance(min, float) or isinstance(max, float)):
        input = cast(input, _dtype.get_default_dtype())
    return _out(ClampBackward1.apply(input, lo=min, hi=max), out)


clip = clamp


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


# ------------------------------------------------------------------------------------------------
# where / lerp
# ------------------------------------------------------------------------------------------------
class WhereBackward0(Op):
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
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    if isinstance(condition, Tensor) and condition._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_ATEN_NAMES[condition.dtype.name]}")
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
    return _out(WhereBackward0.apply(cond, a, b), out)


def lerp(input, end, weight, *, out=None):
    """``input + weight * (end - input)`` (``torch.lerp``)."""
    return _out(add(input, mul(weight, sub(end, input))), out)


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    return _out(add(input, mul(mul(tensor1, tensor2), value)), out)


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    return _out(add(input, mul(div(tensor1, tensor2), value)), out)


# ------------------------------------------------------------------------------------------------
# comparisons and logic (never differentiable)
# ------------------------------------------------------------------------------------------------
def _cmp(fn, name):
    def op(input, other, *, out=None):
        return _out(_nondiff(fn, input, other), out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``torch.{name}`` with broadcasting; returns a bool tensor."
    return op


eq, ne = _cmp(np.equal, "eq"), _cmp(np.not_equal, "ne")
lt, le, gt, ge = _cmp(np.less, "lt"), _cmp(np.less_equal, "le"), _cmp(np.greater, "gt"), _cmp(np.greater_equal, "ge")
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
logical_and, logical_or, logical_xor = (_cmp(np.logical_and, "logical_and"), _cmp(np.logical_or, "logical_or"),
                                        _cmp(np.logical_xor, "logical_xor"))


_ATEN_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
               "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
               "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _bitwise(fn, name):
    def op(input, other, *, out=None):
        a, b = prep2(input, other)
        x = a._data if isinstance(a, Tensor) else a
        y = b._data if isinstance(b, Tensor) else b
        if any(isinstance(v, (float, np.floating)) or (isinstance(v, np.ndarray) and v.dtype.kind in "fcV")
               for v in (x, y)):
            fl = next(v for v in (x, y) if np.result_type(v).kind in "fcV")
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for "
                                      f"'{_ATEN_NAMES.get(str(np.result_type(fl)), 'Float')}'")
        return _out(_make(np.asarray(fn(x, y))), out)
    op.__name__ = op.__qualname__ = name
    return op


bitwise_and, bitwise_or, bitwise_xor = (_bitwise(np.bitwise_and, "bitwise_and"), _bitwise(np.bitwise_or, "bitwise_or"),
                                        _bitwise(np.bitwise_xor, "bitwise_xor"))


def bitwise_not(input, *, out=None):
    if input._data.dtype.kind in "fcV":
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for "
                                  f"'{_ATEN_NAMES.get(str(input._data.dtype), 'Float')}'")
    return _out(_make(np.invert(input._data)), out)


def logical_not(input, *, out=None):
    return _out(_make(np.logical_not(input._data)), out)


def isnan(input):
    return _make(np.isnan(input._data))


def isinf(input):
    return _make(np.isinf(input._data))


def isfinite(input):
    return _make(np.isfinite(input._data))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _make(np.isclose(input._data, to_tensor(other)._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return bool(np.allclose(input._data, to_tensor(other)._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input, other) -> bool:
    """True if both tensors have the same shape and elements (``torch.equal``)."""
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    return _out(_make(np.nan_to_num(input._data, nan=nan, posinf=posinf, neginf=neginf)), out)


# ------------------------------------------------------------------------------------------------
# out= and in-place forms
# ------------------------------------------------------------------------------------------------
def _out(result, out):
    if out is None:
        return result
    if out._data.shape != result._data.shape:
        out._data = np.empty(result._data.shape, out._data.dtype)
    copy_(out, result)
    return out


def _can_cast(src, dst):
    cat = lambda d: 0 if d.kind == "b" else 1 if d.kind in "iu" else 3 if d.kind == "c" else 2  # noqa: E731
    return cat(src) <= cat(dst)


def inplace(self: Tensor, result_fn, *args, **kwargs) -> Tensor:
    """Run ``result_fn(self, *args)`` out of place and write the result into ``self``'s storage.

    Keeps views aliased (the write goes through the shared ndarray) and bumps the version counter.
    Under autograd, the op is recorded on a copy of ``self``'s old value and ``self`` becomes its
    output, as PyTorch rebases history; when ``self`` is a view, its base's history is rebased
    too (``CopySlices``), so gradients reach both the written region and the rest of the base.
    RuntimeError for a leaf (or a view of a leaf) that requires grad, and for a result dtype that
    cannot be cast to ``self``'s (e.g. float into an int tensor).
    """
    if len(args) == 1 and not kwargs and result_fn in _FAST_INPLACE and _fast_inplace(self, result_fn, args[0]):
        return self
    check_inplace(self)
    base = self._base
    if base is not None and base._rg and base.grad_fn is None and _State.enabled:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    track = _State.enabled and (self._rg or any(isinstance(a, Tensor) and a._rg for a in args))
    if not track:
        with no_grad():
            res = result_fn(self, *args, **kwargs)
        _store(self, res)
        return self
    src = _make(self._data.copy(), self._rg)
    src.grad_fn, src._output_nr = self.grad_fn, self._output_nr
    res = result_fn(src, *args, **kwargs)
    _store(self, res)
    if res._rg:
        self.grad_fn, self._output_nr, self._rg = res.grad_fn, res._output_nr, True
        if base is not None:
            rebase_view(self, res)
    return self


def _fast_inplace(self, fn, other) -> bool:
    """``self.add_(other)`` and friends outside autograd, as one ufunc writing into ``self``'s memory.

    Taken only when nothing is recorded (grad mode off, or no operand requires grad), ``other`` is a
    Python number or a tensor of ``self``'s dtype, and the result keeps ``self``'s dtype; returns
    False (nothing written) otherwise, and the general path runs with its checks and messages.
    """
    if _State.enabled and (self._rg or isinstance(other, Tensor) and other._rg):
        return False
    d = self._data
    k = d.dtype.kind
    ts = type(other)
    if ts is float or ts is int:
        if not (k in "fc" or (ts is int and k in "iu" and fn is not div)):
            return False
    elif isinstance(other, Tensor):
        if other._data.dtype != d.dtype or k not in "fciu" or (k in "iu" and fn is div):
            return False
        other = other._data
    else:
        return False
    try:
        _FAST_INPLACE[fn](d, other, out=d)
    except ValueError:  # shapes that do not broadcast into self: the general path raises PyTorch's error
        return False
    self._vc[0] += 1
    return True


_FAST_INPLACE = {add: np.add, sub: np.subtract, mul: np.multiply, div: np.true_divide}


def _store(self, res):
    if not self._data.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    if not _can_cast(res._data.dtype, self._data.dtype):
        raise RuntimeError(f"result type {_ATEN_NAMES[res.dtype.name]} can't be cast to the desired output "
                           f"type {_ATEN_NAMES[self.dtype.name]}")
    if res._data.shape != self._data.shape:
        try:
            np.broadcast_to(res._data, self._data.shape)
        except ValueError:
            raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                               f"{list(res._data.shape)}") from None
    np.copyto(self._data, res._data, casting="unsafe")
    bump(self)


def copy_(self: Tensor, src, non_blocking=False) -> Tensor:
    """Copy ``src`` (broadcast, cast) into ``self`` in place (``Tensor.copy_``); differentiable w.r.t. src."""
    src = to_tensor(src)
    def result(s, x):
        x = cast(x, s.dtype) if x._data.dtype != s._data.dtype else x
        return add(mul(s, 0), x) if (s._rg or x._rg) and _State.enabled else x
    return inplace(self, result, src)


def zero_(self: Tensor) -> Tensor:
    check_inplace(self)
    self._data[...] = 0
    bump(self)
    return self


def fill_(self: Tensor, value) -> Tensor:
    check_inplace(self)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        value = value.item()
    self._data[...] = value
    bump(self)
    return self


# ------------------------------------------------------------------------------------------------
# dtype/device conversion methods: to, type, float, double, ...
# ------------------------------------------------------------------------------------------------
def _parse_to(args, kwargs):
    from .._device import device as _Device
    dtype = kwargs.get("dtype")
    device = kwargs.get("device")
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, _Device, int)) and a is not None:
            device = a
        elif a is not None:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
    return dtype, device


def to(self: Tensor, *args, **kwargs) -> Tensor:
    """``to(dtype)``, ``to(device)``, ``to(other)``, ``to(device, dtype)``: ``self`` if nothing changes.

    RuntimeError for devices without a backend (``"cuda"``).
    """
    from .._device import check
    dtype, device = _parse_to(args, kwargs)
    check(device)
    if dtype is None or self._data.dtype == dtype.np:
        if kwargs.get("copy"):
            from .shape import clone
            return clone(self)
        return self
    return cast(self, dtype)


def _caster(d, name):
    def fn(self, memory_format=None):
        return cast(self, d)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``self.to({d})`` (``torch.Tensor.{name}``)."
    return fn


float_ = _caster(_dtype.float32, "float")
double = _caster(_dtype.float64, "double")
half = _caster(_dtype.float16, "half")
bfloat16 = _caster(_dtype.bfloat16, "bfloat16")
long = _caster(_dtype.int64, "long")
int_ = _caster(_dtype.int32, "int")
short = _caster(_dtype.int16, "short")
char = _caster(_dtype.int8, "char")
byte = _caster(_dtype.uint8, "byte")
bool_ = _caster(_dtype.bool, "bool")

_TYPE_NAMES = {"torch.FloatTensor": _dtype.float32, "torch.DoubleTensor": _dtype.float64,
               "torch.HalfTensor": _dtype.float16, "torch.BFloat16Tensor": _dtype.bfloat16,
               "torch.LongTensor": _dtype.int64, "torch.IntTensor": _dtype.int32,
               "torch.ShortTensor": _dtype.int16, "torch.CharTensor": _dtype.int8,
               "torch.ByteTensor": _dtype.uint8, "torch.BoolTensor": _dtype.bool}


def type_(self: Tensor, dtype=None, non_blocking=False, **kwargs):
    """``t.type()`` returns the type string (e.g. ``'torch.FloatTensor'``); ``t.type(dtype)`` casts."""
    if dtype is None:
        inv = {v: k for k, v in _TYPE_NAMES.items()}
        return inv.get(self.dtype, "torch.Tensor")
    if isinstance(dtype, str):
        if dtype not in _TYPE_NAMES:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _TYPE_NAMES[dtype]
    return cast(self, dtype)


def type_as(self: Tensor, other: Tensor) -> Tensor:
    return cast(self, other.dtype)


def cpu(self: Tensor, memory_format=None) -> Tensor:
    return self


def cuda(self: Tensor, device=None, non_blocking=False, memory_format=None) -> Tensor:
    from .._device import check
    check("cuda")
