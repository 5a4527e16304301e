"""Special functions: ``torch.lgamma``, ``digamma``, ``polygamma``, ``mvlgamma``, ``erfc``, ``xlogy``,
``logit``, ``i0``, ``sinc``, ``igamma``, ``igammac``, and the kernels behind ``torch.special``'s other names
(``ndtri``, ``log_ndtr``, ``erfcx``, ``i0e``, ``i1``, ``i1e``, ``xlog1py``, ``zeta``, the Bessel functions).

Values come from SciPy's special functions, with PyTorch's conventions patched in where the two differ
(noted at each place); each Op is named after PyTorch's backward node and its backward is the formula of
PyTorch's ``derivatives.yaml``. Integer and bool inputs promote to the default float dtype, as in PyTorch;
float16/bfloat16 are computed through float32 where PyTorch accepts them.
"""
from __future__ import annotations

import importlib
import math
import numbers

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.forward_ad import jvp_elementwise
from ..autograd.function import Op
from . import bessel as _bessel
from ._util import prep2, unbroadcast
from .pointwise import _bshape, _out, cast, div, sub
from .unary import clamp, log
from ._inplace import inplace


# top-level ``torch.*`` names; the ``torch.special``-only kernels below are re-exported by ``numtorch.special``
class _Lazy_scipy_special:
    """``scipy.special``, imported on first use so that ``import numtorch`` stays light."""

    def __getattr__(self, attr):
        return getattr(importlib.import_module("scipy.special"), attr)


scipy_special = _Lazy_scipy_special()


__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "xlogy", "erfc", "logit", "i0", "sinc", "igamma", "igammac"]


_SQRT_2PI = math.sqrt(2 * math.pi)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_LOG_PI = math.log(math.pi)


def _same(out, like: np.ndarray) -> np.ndarray:
    if not isinstance(out, (np.ndarray, np.generic, numbers.Number)):  # a gradient box (create_graph=True)
        return out.astype(like.dtype)
    return np.asarray(out, dtype=like.dtype)


def _up(a):
    """``a`` as an array SciPy's ufuncs take: float16/bfloat16 widened to float32 (the result is cast back)."""
    if isinstance(a, np.ndarray) and (a.dtype.kind == "V" or a.dtype == np.float16):
        return a.astype(np.float32)
    return a


def _floating(t: Tensor) -> Tensor:
    return t if t._data.dtype.kind in "fcV" else cast(t, _dtype.get_default_dtype())


def _need_tensor(x, fname: str, arg: str = "input", pos: int = 1) -> None:
    """PyTorch's argument-parser TypeError for a non-Tensor where a Tensor is required."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _need_int(x, fname: str, arg: str, pos: int) -> None:
    if not isinstance(x, (int, np.integer)) or isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be int, not {type(x).__name__}")


def _kernel(t: Tensor, kernel: str, half: bool = True) -> None:
    """PyTorch's dispatch error for a real floating kernel given a complex (or, if not ``half``, a 16-bit) dtype."""
    d = t._data.dtype
    if d.kind == "c" or (not half and (d.kind == "V" or d == np.float16)):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype.from_np(d)._aten_name}'")


def _unary_input(input, fname: str, kernel: str, half: bool = True) -> Tensor:
    """Check and promote the one tensor operand of a unary special function (integers to the default float)."""
    _need_tensor(input, fname)
    x = _floating(input)
    _kernel(x, kernel, half)
    return x


def _lgamma(a):
    """``log|Gamma(a)|``; PyTorch gives ``+inf`` at ``-inf`` (SciPy: ``-inf``)."""
    return np.where(a == -np.inf, np.inf, scipy_special.gammaln(_up(a)))


class LgammaBackward0(Op):
    _saves = (0,)

    def forward(self, a):
        self.saved = a
        return _same(_lgamma(a), a)

    def backward(self, g):
        return g * _digamma(self.saved)


def _digamma(a):
    return _same(scipy_special.psi(_up(a)), a)  # SciPy and PyTorch agree: digamma(+-0) = -+inf


def _zeta(x, q):
    """Hurwitz zeta; PyTorch (Cephes) gives nan where ``q = +inf`` and ``x > 1`` (SciPy: 0)."""
    out = scipy_special.zeta(_up(x), _up(q))
    return np.where((q == np.inf) & (x > 1), np.nan, out)


def _polygamma(n: int, a):
    """``polygamma(n, a)`` in ``a``'s dtype, with PyTorch's values at the poles and infinities."""
    if n == 0:
        return _digamma(a)
    if n == 1:  # PyTorch's trigamma is nan at -inf (SciPy: inf)
        out = np.where(a == -np.inf, np.nan, scipy_special.zeta(2.0, _up(a)))
        pole = (a < 0) & (a == np.floor(a))
        if pole.any():
            out = np.where(pole, _trigamma_at_poles(a), out)
    else:  # (-1)^(n+1) n! zeta(n+1, a), as PyTorch
        out = (-1.0) ** (n + 1) * scipy_special.gamma(n + 1.0) * _zeta(np.float64(n + 1), _up(a))
    with np.errstate(over="ignore", invalid="ignore"):  # beyond float32's range: inf, as PyTorch
        return _same(out, a)


def _trigamma_at_poles(a):
    """PyTorch's trigamma at the negative integers: not the pole's inf, but its reflection formula
    ``pi^2 / sin(pi x)^2 - trigamma(1 - x)`` with ``pi x`` rounded to ``a``'s precision (float32 for
    float32 and narrower), so that ``sin`` is tiny but not 0 and the value huge but finite."""
    ft = np.float64 if a.dtype == np.float64 else np.float32
    x = a.astype(ft)
    s = np.sin((ft(np.pi) * x).astype(np.float64)).astype(ft).astype(np.float64)  # sinf, correctly rounded
    with np.errstate(divide="ignore"):
        return np.pi ** 2 / (s * s) - scipy_special.zeta(2.0, 1.0 - x.astype(np.float64))


class DigammaBackward0(Op):
    _saves = (0,)

    def forward(self, a):
        self.saved = a
        return _digamma(a)

    def backward(self, g):
        return g * _polygamma(1, self.saved)


class PolygammaBackward0(Op):
    _saves = (0,)

    def forward(self, a, n=1):
        self.saved, self.n = a, n
        return _polygamma(n, a)

    def backward(self, g):
        return g * _polygamma(self.n + 1, self.saved)


class MvlgammaBackward0(Op):
    """``sum_j lgamma(a + (1 - j) / 2)`` over ``j = 1..p`` plus ``p (p - 1) / 4 log(pi)``."""
    _saves = (0,)
    _graph, _graph_recompute = False, True

    def forward(self, a, p=1):
        w = _up(a)
        args = w[..., None] + np.arange(-(p - 1) / 2, 0.25, 0.5, dtype=w.dtype)  # last axis: the p shifts
        self.saved, self.p = args, p
        return _same(_lgamma(args).sum(-1) + p * (p - 1) / 4 * _LOG_PI, a)

    def backward(self, g):
        args = self.saved
        if self._graph:  # create_graph: the shifted arguments from the input's box
            args = np.expand_dims(self._graph_args[0], -1) + np.arange(-(self.p - 1) / 2, 0.25, 0.5, dtype=g.dtype)
        return g * _same(_digamma(args).sum(-1), g)


class SpecialNdtriBackward0(Op):
    _saves = ("out",)

    def forward(self, a):
        self.saved = out = _same(scipy_special.ndtri(a), a)
        return out

    def backward(self, g):
        r = self.saved
        return g * _same(_SQRT_2PI * np.exp(r * r / 2), g)


class _Input(Op):
    """A unary function (SciPy's ``_scipy``) whose backward reads the input."""
    _saves = (0,)
    _scipy = ""

    def forward(self, a):
        self.saved = a
        return _same(getattr(scipy_special, self._scipy)(_up(a)), a)


class _InputAndOutput(_Input):
    """A unary function (SciPy's ``_scipy``) whose backward reads both the input and the output."""
    _saves = (0, "out")

    def forward(self, a):
        out = _same(getattr(scipy_special, self._scipy)(_up(a)), a)
        self.saved = (a, out)
        return out


class SpecialLogNdtrBackward0(_InputAndOutput):
    _scipy = "log_ndtr"

    def backward(self, g):
        # phi(x) / ndtr(x) as exp(-(log_ndtr(x) + x^2 / 2)) / sqrt(2 pi): stable far into the left tail
        a, r = self.saved
        with np.errstate(invalid="ignore", over="ignore"):
            return g * _same(np.exp(-(r + a * a / 2)) / _SQRT_2PI, g)


class SpecialErfcxBackward0(_InputAndOutput):
    _scipy = "erfcx"

    def backward(self, g):
        a, r = self.saved
        with np.errstate(invalid="ignore", over="ignore"):
            return g * _same(2 * a * r - _TWO_OVER_SQRT_PI, g)


class I0Backward0(_Input):
    _scipy = "i0"

    def backward(self, g):
        return g * _same(scipy_special.i1(_up(self.saved)), g)


class SpecialI0EBackward0(_InputAndOutput):
    _scipy = "i0e"

    def backward(self, g):
        a, r = self.saved
        return g * _same(scipy_special.i1e(_up(a)) - np.sign(a) * r, g)


def _tiny_safe(a):
    """PyTorch's i1/i1e backward: ``|x| <= eps`` is replaced by eps and its gradient set to 1/2 (the limit)."""
    eps = np.finfo(np.float32 if a.dtype.kind == "V" else a.dtype).eps
    tiny = np.abs(a) <= eps
    return tiny, np.where(tiny, a.dtype.type(eps), a)


class SpecialI1Backward0(_InputAndOutput):
    _scipy = "i1"

    def backward(self, g):
        a, r = self.saved
        tiny, s = _tiny_safe(a)
        return g * _same(np.where(tiny, 0.5, scipy_special.i0(_up(s)) - r / s), g)


class SpecialI1EBackward0(_InputAndOutput):
    _scipy = "i1e"

    def backward(self, g):
        a, r = self.saved
        tiny, s = _tiny_safe(a)
        return g * _same(np.where(tiny, 0.5, scipy_special.i0e(_up(s)) - r * (np.sign(s) + 1 / s)), g)


class SincBackward0(Op):
    _saves = (0,)

    def forward(self, a):
        self.saved = a
        w = _up(a)
        y = w * math.pi
        with np.errstate(divide="ignore", invalid="ignore"):
            return _same(np.where(w == 0, 1, np.sin(y) / y), a)

    def backward(self, g):
        # (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 where pi x^2 is 0 (as PyTorch, also when it underflows)
        w = _up(self.saved)
        y, d = w * math.pi, w * w * math.pi
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = np.conj((y * np.cos(y) - np.sin(y)) / d)
        return g * _same(np.where(d == 0, 0, out), g)


class ErfcBackward0(_Input):
    _scipy = "erfc"

    def backward(self, g):
        a = self.saved
        return g * _same(-2.0 / math.sqrt(math.pi) * np.exp(-a * a), a)


def _xlogy(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x == 0, 0, x * np.log(y))
    return np.where(np.isnan(y), np.nan, out)  # PyTorch: nan wherever y is nan, even for x == 0


class XlogyBackward0(Op):
    _saves = (0, 1)

    def forward(self, x, y):
        self.saved = (x, y)
        return _xlogy(x, y).astype(np.result_type(x, y), copy=False)

    def backward(self, g):
        x, y = self.saved
        gx = gy = None
        if self._edges[0] is not None:
            # PyTorch: xlogy(grad, y), zeroed where x == 0 and y <= 0. SciPy's ufunc (not _xlogy's
            # np.where on grad == 0): traced with grad a zero Tensor, forward AD's fallback needs d/dgrad
            gx = np.where((x == 0) & (y <= 0), 0, scipy_special.xlogy(_up(g), _up(y)))
            gx = unbroadcast(_same(gx, g), np.shape(x))
        if self._edges[1] is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                gy = unbroadcast((g * x / y).astype(g.dtype), np.shape(y))
        return gx, gy


class SpecialXlog1PyBackward0(Op):
    """``x * log1p(y)``, 0 where ``x == 0`` unless ``y`` is nan. Variants 1 and 2: ``x`` or ``y`` a number."""
    _saves = (0, 1)
    _scalar_other = False

    def forward(self, x, y):
        self.saved = (x, y)
        return _same(scipy_special.xlog1py(_up(x), _up(y)), x)

    def backward(self, g):
        x, y = self.saved
        gx = gy = None
        if self._edges[0] is not None:
            # zeroed where x == 0 and y <= -1 (for a number y: wherever y > -1 fails, nan included)
            below = ~(y > -1) if self._scalar_other else (y <= -1)
            gx = np.where((x == 0) & below, 0, scipy_special.xlog1py(_up(g), _up(y)))
            gx = unbroadcast(_same(gx, g), np.shape(x))
        if self._edges[1] is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                gy = unbroadcast(_same(g * x / (y + 1), g), np.shape(y))
        return gx, gy


class SpecialXlog1PyBackward1(SpecialXlog1PyBackward0):
    _graph_constants = ("saved",)  # the number operand, kept as a 0-d array (saved inputs are boxed first)


class SpecialXlog1PyBackward2(SpecialXlog1PyBackward0):
    _scalar_other = True
    _graph_constants = ("saved",)  # the number operand, kept as a 0-d array (saved inputs are boxed first)


class SpecialZetaBackward0(Op):
    """Hurwitz ``zeta(x, q)``; differentiable in ``q`` only (PyTorch has no derivative in ``x``)."""
    _saves = (0, 1)

    def forward(self, x, q):
        self.saved = (x, q)
        return _same(_zeta(x, q), x)

    def backward(self, g):
        if self._edges[0] is not None:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        x, q = self.saved
        return None, unbroadcast(g * _same(-x * _zeta(x + 1, q), g), np.shape(q))


class SpecialZetaBackward1(SpecialZetaBackward0):
    _graph_constants = ("saved",)  # the number operand, kept as a 0-d array (saved inputs are boxed first)


class SpecialZetaBackward2(SpecialZetaBackward0):
    _graph_constants = ("saved",)  # the number operand, kept as a 0-d array (saved inputs are boxed first)


def _igamma(a, x, upper: bool):
    out = (scipy_special.gammaincc if upper else scipy_special.gammainc)(_up(a), _up(x))
    # PyTorch tests x == 0, a == inf and x == inf before looking at nan: patch the cases SciPy makes nan
    low = 1 if upper else 0
    with np.errstate(invalid="ignore"):
        out = np.where(np.isnan(a) & (x == 0) | (a == np.inf) & np.isnan(x), low, out)
        return _same(np.where(np.isnan(a) & (x == np.inf), 1 - low, out), a)


class IgammaBackward0(Op):
    """Regularised lower incomplete gamma ``P(a, x)``; differentiable in ``x`` only, as PyTorch."""
    _saves = (0, 1)
    _upper = False

    def forward(self, a, x):
        self.saved = (a, x)
        return _igamma(a, x, self._upper)

    def backward(self, g):
        name = "igammac" if self._upper else "igamma"
        if self._edges[0] is not None:
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        a, x = self.saved
        w, v = _up(a), _up(x)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            d = np.exp((w - 1) * np.log(v) - v - scipy_special.gammaln(w))  # the gamma density at x
        return None, unbroadcast(g * _same(-d if self._upper else d, g), np.shape(x))


class IgammacBackward0(IgammaBackward0):
    """Regularised upper incomplete gamma ``Q(a, x) = 1 - P(a, x)``."""
    _upper = True


def _binary_operands(input, other, fname: str, kernel: str, half: bool = True, integral: bool = True):
    """Promote the operands of a binary special function: ``(a, b, variant)`` with both in one floating
    dtype, a Python number as a 0-d array of it, and ``variant`` 0 (two tensors), 1 (``input`` a number) or 2
    (``other`` a number), as PyTorch's overloads. Integral results promote to the default float, or raise
    PyTorch's dispatch error when ``integral`` is False (igamma)."""
    ta, tb = isinstance(input, Tensor), isinstance(other, Tensor)
    if not (ta or tb) or not (ta or isinstance(input, numbers.Number)) or not (tb or isinstance(other, numbers.Number)):
        raise TypeError(f"{fname}() received an invalid combination of arguments - got ({type(input).__name__}, "
                        f"{type(other).__name__}), but expected one of:\n * (Tensor input, Tensor other, *, Tensor "
                        "out = None)\n * (Number self, Tensor other, *, Tensor out = None)\n * (Tensor input, "
                        "Number other, *, Tensor out = None)")
    rt = _dtype.to_np(_dtype.result_type(input, other))
    if rt.kind in "biu":
        if not integral:
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype.from_np(rt)._aten_name}'")
        rt = _dtype.to_np(_dtype.get_default_dtype())
    if rt.kind == "c" or (not half and (rt.kind == "V" or rt == np.float16)):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtype.from_np(rt)._aten_name}'")
    if ta and tb:
        _bshape(input._data, other._data)  # PyTorch's RuntimeError for shapes that do not broadcast
    a = cast(input, rt) if ta else np.asarray(input, rt)
    b = cast(other, rt) if tb else np.asarray(other, rt)
    return a, b, 0 if ta and tb else 1 if tb else 2


def lgamma(input: Tensor, *, out=None) -> Tensor:
    """``torch.lgamma``: ``log|Gamma(x)|`` elementwise, same shape, float dtype. Backward node
    ``LgammaBackward0`` (gradient ``digamma(x)``)."""
    return _out(LgammaBackward0.apply(_floating(input)), out)


def digamma(input: Tensor, *, out=None) -> Tensor:
    """``torch.digamma`` (``torch.special.psi``): the derivative of ``lgamma``; ``-inf`` at 0, as PyTorch.
    Backward node ``DigammaBackward0`` (gradient ``polygamma(1, x)``)."""
    return _out(DigammaBackward0.apply(_floating(input)), out)


def erfc(input: Tensor, *, out=None) -> Tensor:
    """``torch.erfc``: ``1 - erf(x)`` without cancellation for large ``x``. Backward node ``ErfcBackward0``."""
    return _out(ErfcBackward0.apply(_floating(input)), out)


def xlogy(input, other, *, out=None) -> Tensor:
    """``torch.xlogy``: ``input * log(other)``, 0 where ``input == 0`` (nan where ``other`` is nan); tensors
    or Python numbers, broadcast and promoted as a binary op (integers to the default float)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("xlogy(): at least one of 'input' and 'other' must be a Tensor")
    a, b = prep2(input, other)
    ref = a if isinstance(a, Tensor) else b
    if ref._data.dtype.kind not in "fcV":
        fd = _dtype.get_default_dtype()
        a = cast(a, fd) if isinstance(a, Tensor) else float(a)
        b = cast(b, fd) if isinstance(b, Tensor) else float(b)
    if not isinstance(a, Tensor):  # keep the scalar operand out of the graph in the result dtype
        a = _make(np.asarray(a, dtype=b._data.dtype))
    if not isinstance(b, Tensor):
        b = _make(np.asarray(b, dtype=a._data.dtype))
    return _out(XlogyBackward0.apply(a, b), out)


def logit(input: Tensor, eps=None, *, out=None) -> Tensor:
    """``torch.logit``: ``log(p / (1 - p))``; with ``eps``, ``p`` is first clamped to ``[eps, 1 - eps]`` (the
    gradient is zero outside that range, as in PyTorch)."""
    x = _floating(input)
    if eps is not None:
        x = clamp(x, eps, 1 - eps)
    return _out(log(div(x, sub(1, x))), out)


# ------------------------------------------------------------------------------------------------
# polygamma family, Bessel-type and normal-distribution functions
# ------------------------------------------------------------------------------------------------
def polygamma(n: int, input: Tensor, *, out=None) -> Tensor:
    """``torch.polygamma(n, input)`` (``torch.special.polygamma``): the ``n``-th derivative of ``digamma``
    (``n = 0`` is digamma), elementwise in ``input``'s float dtype (integers promote to the default float).
    Backward node ``PolygammaBackward0`` (gradient ``polygamma(n + 1, x)``). TypeError for a non-int ``n``
    or a non-Tensor ``input``; RuntimeError for negative ``n``."""
    _need_int(n, "polygamma", "n", 1)
    _need_tensor(input, "polygamma", "input", 2)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = _floating(input)
    _kernel(x, "digamma" if n == 0 else "trigamma" if n == 1 else "polygamma")
    return _out(PolygammaBackward0.apply(x, n=int(n)), out)


def polygamma_method(self: Tensor, n: int) -> Tensor:
    """``Tensor.polygamma(n)``: ``torch.polygamma(n, self)`` (the Tensor comes first here)."""
    _need_int(n, "polygamma", "n", 1)
    return polygamma(n, self)


def mvlgamma(input: Tensor, p: int, *, out=None) -> Tensor:
    """``torch.mvlgamma(input, p)`` (``torch.special.multigammaln``): the log multivariate gamma function
    ``p (p - 1) / 4 log(pi) + sum_{j=1..p} lgamma(x + (1 - j) / 2)`` elementwise (PyTorch 2.13 has no
    domain check: ``lgamma`` is ``log|Gamma|``). Backward node ``MvlgammaBackward0`` (gradient: the sum of
    the digammas). RuntimeError for a bool input or ``p < 1``; TypeError for a non-int ``p``."""
    _need_tensor(input, "mvlgamma")
    _need_int(p, "mvlgamma", "p", 2)
    if input._data.dtype == np.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = _floating(input)
    _kernel(x, "arange_cpu")
    return _out(MvlgammaBackward0.apply(x, p=int(p)), out)


def mvlgamma_(self: Tensor, p: int) -> Tensor:
    """``Tensor.mvlgamma_(p)``: in-place ``mvlgamma``; RuntimeError for an integral tensor (PyTorch's wording)."""
    _need_int(p, "mvlgamma_", "p", 1)
    d = self._data.dtype
    if d == np.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p >= 1 and d.kind in "iu":
        raise RuntimeError(f"mvlgamma: result type {_dtype.from_np(d)._aten_name} can't be cast to the desired "
                           f"output type {_dtype.get_default_dtype()._aten_name}")
    return inplace(self, mvlgamma, p)


def ndtri(input: Tensor, *, out=None) -> Tensor:
    """``torch.special.ndtri``: the inverse of the standard normal CDF (``-inf``/``inf`` at 0/1, nan outside
    [0, 1]). Float32/float64 only (NotImplementedError for 16-bit). Backward ``SpecialNdtriBackward0``:
    ``sqrt(2 pi) exp(ndtri(x)^2 / 2)``."""
    return _out(SpecialNdtriBackward0.apply(_unary_input(input, "special_ndtri", "ndtri_cpu", half=False)), out)


def log_ndtr(input: Tensor, *, out=None) -> Tensor:
    """``torch.special.log_ndtr``: ``log`` of the standard normal CDF, accurate far into the left tail.
    Float32/float64 only. Backward ``SpecialLogNdtrBackward0``: ``exp(-x^2/2) / sqrt(2 pi) / ndtr(x)``."""
    x = _unary_input(input, "special_log_ndtr", "log_ndtr_cpu", half=False)
    return _out(SpecialLogNdtrBackward0.apply(x), out)


def erfcx(input: Tensor, *, out=None) -> Tensor:
    """``torch.special.erfcx``: the scaled complementary error function ``exp(x^2) erfc(x)``. Float32/float64
    only. Backward ``SpecialErfcxBackward0``: ``2 x erfcx(x) - 2 / sqrt(pi)``."""
    return _out(SpecialErfcxBackward0.apply(_unary_input(input, "special_erfcx", "erfcx_cpu", half=False)), out)


def i0(input: Tensor, *, out=None) -> Tensor:
    """``torch.i0`` (``torch.special.i0``): the modified Bessel function of the first kind, order 0.
    Backward ``I0Backward0``: ``i1(x)``. NotImplementedError for complex input."""
    return _out(I0Backward0.apply(_unary_input(input, "i0", "i0_vml_cpu")), out)


def i0e(input: Tensor, *, out=None) -> Tensor:
    """``torch.special.i0e``: ``exp(-|x|) i0(x)``. Backward ``SpecialI0EBackward0``: ``i1e(x) - sgn(x) i0e(x)``."""
    return _out(SpecialI0EBackward0.apply(_unary_input(input, "special_i0e", "i0e_cpu")), out)


def i1(input: Tensor, *, out=None) -> Tensor:
    """``torch.special.i1``: the modified Bessel function of the first kind, order 1. Backward
    ``SpecialI1Backward0``: ``i0(x) - i1(x) / x`` (1/2 at ``|x| <= eps``)."""
    return _out(SpecialI1Backward0.apply(_unary_input(input, "special_i1", "i1_cpu")), out)


def i1e(input: Tensor, *, out=None) -> Tensor:
    """``torch.special.i1e``: ``exp(-|x|) i1(x)``. Backward ``SpecialI1EBackward0``:
    ``i0e(x) - i1e(x) (sgn(x) + 1 / x)`` (1/2 at ``|x| <= eps``)."""
    return _out(SpecialI1EBackward0.apply(_unary_input(input, "special_i1e", "i1e_cpu")), out)


def sinc(input: Tensor, *, out=None) -> Tensor:
    """``torch.sinc`` (``torch.special.sinc``): the normalized sinc ``sin(pi x) / (pi x)``, 1 at 0; real or
    complex. Backward ``SincBackward0`` (0 where ``pi x^2`` is 0)."""
    _need_tensor(input, "sinc")
    return _out(SincBackward0.apply(_floating(input)), out)


def _nondiff(name: str, fn, what: str):
    """``torch.special.<name>``, a function PyTorch marks non-differentiable: ``fn`` (SciPy's function of that
    name, or a callable) elementwise on a float32/float64 input; the result never requires grad."""
    def op(input: Tensor, *, out=None) -> Tensor:
        x = _unary_input(input, "special_" + name, name + "_cpu", half=False)
        values = getattr(scipy_special, fn)(x._data) if isinstance(fn, str) else fn(x._data)
        return _out(_make(_same(values, x._data)), out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"``torch.special.{name}``: {what} (not differentiable)."
    return op


# J0, J1, Y0, Y1: PyTorch's own evaluation of Cephes' approximations (bessel.py), not SciPy's
bessel_j0 = _nondiff("bessel_j0", _bessel.j0, "the Bessel function of the first kind, order 0")
bessel_j1 = _nondiff("bessel_j1", _bessel.j1, "the Bessel function of the first kind, order 1")
bessel_y0 = _nondiff("bessel_y0", _bessel.y0, "the Bessel function of the second kind, order 0")
bessel_y1 = _nondiff("bessel_y1", _bessel.y1, "the Bessel function of the second kind, order 1")
modified_bessel_i0 = _nondiff("modified_bessel_i0", "i0", "``I_0``, the modified Bessel function of the first kind "
                              "(unlike ``i0``)")
modified_bessel_i1 = _nondiff("modified_bessel_i1", "i1", "``I_1`` (unlike ``i1``)")
modified_bessel_k0 = _nondiff("modified_bessel_k0", "k0", "``K_0``, the modified Bessel function of the second kind")
modified_bessel_k1 = _nondiff("modified_bessel_k1", "k1", "``K_1``, the modified Bessel function of the second kind")
scaled_modified_bessel_k0 = _nondiff("scaled_modified_bessel_k0", "k0e", "``exp(x) K_0(x)``")
scaled_modified_bessel_k1 = _nondiff("scaled_modified_bessel_k1", "k1e", "``exp(x) K_1(x)``")
airy_ai = _nondiff("airy_ai", lambda a: scipy_special.airy(a)[0], "the Airy function ``Ai``")
spherical_bessel_j0 = _nondiff("spherical_bessel_j0", lambda a: scipy_special.spherical_jn(0, a),
                               "``sin(x) / x``, 1 at 0")


def ndtr(input: Tensor) -> Tensor:
    """``torch.special.ndtr``: the standard normal CDF, ``(1 + erf(x / sqrt(2))) / 2``."""
    return erfc(input * -0.7071067811865476) * 0.5


class SpecialEntrBackward0(Op):
    """``-x log x``: 0 at 0, ``-inf`` for negative ``x``, nan for nan. Backward PyTorch's
    ``g * -(1 + log x)`` (inf at 0, nan for negative ``x``, as PyTorch's gradient and forward AD)."""
    _saves = (0,)
    jvp = jvp_elementwise  # forward AD (autograd/forward_ad.py): this backward on the tangent

    def forward(self, a):
        self.saved = a
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(a > 0, -a * np.log(np.where(a > 0, a, 1)), np.where(a == 0, 0, -np.inf))
        return np.where(np.isnan(a), a, out).astype(a.dtype, copy=False)

    def backward(self, g):
        with np.errstate(divide="ignore", invalid="ignore"):
            return g * -(1 + np.log(self.saved))


def entr(input: Tensor) -> Tensor:
    """``torch.special.entr``: the elementwise entropy term ``-x log x``; 0 at 0, ``-inf`` for negative ``x``
    (integers are computed in the default float dtype). Backward ``SpecialEntrBackward0``."""
    return SpecialEntrBackward0.apply(_floating(input))


# ------------------------------------------------------------------------------------------------
# binary: xlog1py, zeta, incomplete gamma
# ------------------------------------------------------------------------------------------------
def xlog1py(input, other, *, out=None) -> Tensor:
    """``torch.special.xlog1py``: ``input * log1p(other)``, 0 where ``input == 0`` (nan where ``other`` is
    nan). Tensors or one Python number, broadcast and promoted as a binary op (integers to the default float).
    Backward ``SpecialXlog1PyBackward0`` (``1``/``2`` when ``input``/``other`` is a number)."""
    a, b, v = _binary_operands(input, other, "special_xlog1py", "xlog1py_cpu")
    op = (SpecialXlog1PyBackward0, SpecialXlog1PyBackward1, SpecialXlog1PyBackward2)[v]
    return _out(op.apply(a, b), out)


def zeta(input, other, *, out=None) -> Tensor:
    """``torch.special.zeta(x, q)``: the Hurwitz zeta function ``sum_k (k + q)^-x`` (``q = 1``: Riemann's);
    tensors or one Python number, promoted as a binary op. Float32/float64 only. Backward
    ``SpecialZetaBackward0/1/2``: ``-x zeta(x + 1, q)`` for ``q``; NotImplementedError for ``x``."""
    a, b, v = _binary_operands(input, other, "special_zeta", "zeta_cpu", half=False)
    op = (SpecialZetaBackward0, SpecialZetaBackward1, SpecialZetaBackward2)[v]
    return _out(op.apply(a, b), out)


def igamma(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``torch.igamma(a, x)`` (``torch.special.gammainc``): the regularised lower incomplete gamma function
    ``P(a, x)``; both Tensors, broadcast and promoted (NotImplementedError if both are integral). Backward
    ``IgammaBackward0``: the gamma density in ``x``; NotImplementedError for ``a``."""
    _need_tensor(input, "igamma")
    _need_tensor(other, "igamma", "other", 2)
    a, b, _ = _binary_operands(input, other, "igamma", "igamma_cpu", integral=False)
    return _out(IgammaBackward0.apply(a, b), out)


def igammac(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``torch.igammac(a, x)`` (``torch.special.gammaincc``): ``Q(a, x) = 1 - P(a, x)``, as ``igamma``."""
    _need_tensor(input, "igammac")
    _need_tensor(other, "igammac", "other", 2)
    a, b, _ = _binary_operands(input, other, "igammac", "igammac_cpu", integral=False)
    return _out(IgammacBackward0.apply(a, b), out)
