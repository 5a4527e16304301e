"""Differentiable special functions and samplers the distributions need (private to this package).

PyTorch's distributions call ``torch.lgamma``, ``torch.digamma``, ``torch.xlogy``, ``torch.atanh``,
``torch.special.gammainc`` and ``torch.cholesky_inverse`` (re-exported here from numtorch's op families),
and ``torch.linalg.solve_triangular``, ``torch._standard_gamma``, ``torch._sample_dirichlet`` and
``torch._s_binomial``, which numtorch's op families lack, so those live here as ``Op`` subclasses named
after PyTorch's backward nodes. The samplers replay ATen's CPU kernels on numtorch's copy of PyTorch's generator
(``_generator.py``), so seeded samples equal PyTorch's:

- ``_s_gamma_cpu``: per element, in order, Marsaglia and Tsang's rejection method with float64 uniforms
  and float64 Box-Muller normals from the generator (``sample_gamma`` in ATen's ``Distributions.h``);
  the arithmetic keeps the C++ kernel's float/double mix (``alpha - 1.0f / 3.0f`` is a float for
  float32 inputs);
- ``_standard_gamma_grad``: the reparameterized gradient ``d sample / d alpha`` of
  ``standard_gamma_grad_one`` (Taylor series, Rice saddle point, rational approximation).

Rejection sampling is sequential by nature (each element consumes an unknown number of draws from
one stream), so the samplers loop in Python over elements, as ATen's ``cpu_serial_kernel`` does.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import importlib
import math

import numpy as np

from .. import _generator as _G, linalg
from .._ops._util import unbroadcast
from .._ops._window import _as_tensor
from .._tensor import Tensor, _make
from ..autograd.function import Op
from .._ops.sampling import _eng

class _Lazy_scipy_special:
    """``scipy.special``, imported on first use so that ``import numtorch`` stays light."""

    def __getattr__(self, attr):
        return getattr(importlib.import_module("scipy.special"), attr)


scipy_special = _Lazy_scipy_special()


class _Lazy_scipy_linalg:
    """``scipy.linalg``, imported on first use so that ``import numtorch`` stays light."""

    def __getattr__(self, attr):
        return getattr(importlib.import_module("scipy.linalg"), attr)


scipy_linalg = _Lazy_scipy_linalg()


__all__ = ["lgamma", "digamma", "xlogy", "atanh", "gammainc", "solve_triangular", "cholesky_inverse", "standard_gamma",
           "standard_gamma_grad", "sample_dirichlet", "rsample_dirichlet", "dirichlet_grad"]


def _same(out: np.ndarray, like: np.ndarray) -> np.ndarray:
    return np.asarray(out, dtype=like.dtype)


# lgamma / digamma / xlogy are public ops now (numtorch._ops.special)
from .._ops.special import digamma, lgamma, xlogy  # noqa: E402,F401
from .._ops.linalg_legacy import cholesky_inverse  # noqa: E402,F401
from .._ops.unary import atanh  # noqa: E402,F401
from .._ops.special import igamma as gammainc  # noqa: E402,F401


# ---- triangular solve ----------------------------------------------------------------------------
class LinalgSolveTriangularBackward0(Op):
    _saves = (0, "out")

    def forward(self, a, b, upper=False):
        shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        aa = np.broadcast_to(a, shape + a.shape[-2:])
        bb = np.broadcast_to(b, shape + b.shape[-2:])
        x = scipy_linalg.solve_triangular(aa, bb, lower=not upper, check_finite=False)
        self.saved = (a, x)
        self.upper = upper
        self.shapes = (a.shape, b.shape)
        return x.astype(np.result_type(a, b), copy=False)

    def backward(self, g):
        a, x = self.saved
        # X = A^-1 B: gB = A^-T gX, gA = -gB X^T restricted to A's triangle
        if self._graph:  # create_graph: gB by this op on Tensors (A^T is triangular the other way round)
            at = _as_tensor(a).mT
            gb = g.apply_tensor_fn(lambda gt: LinalgSolveTriangularBackward0.apply(at, gt, upper=not self.upper))
        else:
            gb = scipy_linalg.solve_triangular(np.broadcast_to(a, g.shape[:-2] + a.shape[-2:]), g,
                                               trans="T", lower=not self.upper, check_finite=False).astype(g.dtype)
        ga = None
        if self._edges[0] is not None:
            full = -gb @ np.swapaxes(x, -1, -2)
            ga = unbroadcast(np.triu(full) if self.upper else np.tril(full), self.shapes[0])
        return ga, (unbroadcast(gb, self.shapes[1]) if self._edges[1] is not None else None)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool) -> Tensor:
    """``torch.linalg.solve_triangular(A, B, upper=upper)`` (left side, batched and broadcast): ``X`` with
    ``A @ X = B`` for triangular ``A`` of shape ``(*, n, n)`` and ``B`` of shape ``(*, n, k)``."""
    own = getattr(linalg, "solve_triangular", None)
    if own is not None:  # numtorch's own, once the linalg family has it
        return own(A, B, upper=upper)
    return LinalgSolveTriangularBackward0.apply(A, B, upper=upper)


# ---- Gamma sampling (ATen's _s_gamma_cpu) --------------------------------------------------------
_THIRD_F = float(np.float32(1.0) / np.float32(3.0))  # ``1.0f / 3.0f``
_C0331_F = float(np.float32(0.0331))                  # ``0.0331f``


def _uniform(eng) -> float:
    """``at::uniform_real_distribution<double>(0, 1)``: 53 bits of one 64-bit draw."""
    return float(_G.uniform01(eng, 1, np.float64)[0])


def _normal(eng) -> float:
    """``at::normal_distribution<double>(0, 1)``: Box-Muller with the cached second value."""
    return float(_G._normal_scalar(eng, 1, 0.0, 1.0)[0])


def _sample_gamma_one(eng, alpha, single: bool) -> float:
    """One draw of ``sample_gamma<scalar_t, double>``: ``single`` is True when ``scalar_t`` is float, so the
    ops on ``alpha`` round to float32 as the C++ template's do."""
    f32 = np.float32
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv = float(f32(1.0) / f32(alpha)) if single else 1.0 / alpha
        scale *= math.pow(1.0 - _uniform(eng), inv)
        alpha = float(f32(alpha) + f32(1.0)) if single else alpha + 1.0
    d = float(f32(alpha) - f32(_THIRD_F)) if single else alpha - _THIRD_F
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = _normal(eng)
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1.0 - _uniform(eng)
        xx = x * x
        if u < 1.0 - _C0331_F * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def _s_gamma(eng, alpha: np.ndarray) -> np.ndarray:
    """``torch._standard_gamma(alpha)`` values in ``alpha``'s dtype, elements in C order, each at least the
    dtype's smallest normal number."""
    dt = alpha.dtype
    single = dt != np.float64
    out = np.array([_sample_gamma_one(eng, a, single) for a in alpha.ravel().tolist()], np.float64)
    out = out.astype(dt)
    return np.maximum(out, np.finfo(dt).tiny).reshape(alpha.shape)


def _digamma_one(x: np.ndarray) -> np.ndarray:
    """ATen's ``digamma_one<double, double>`` (Cephes), vectorized; used inside the gamma gradient."""
    x = np.array(x, np.float64)
    extra = np.zeros_like(x)
    neg = x < 0
    with np.errstate(divide="ignore", invalid="ignore"):
        extra[neg] = -math.pi / np.tan(math.pi * x[neg])
    x = np.where(neg, 1 - x, x)
    result = np.zeros_like(x)
    while True:  # push x to >= 10, at most 10 rounds for x > 0
        small = x < 10
        if not small.any():
            break
        result = np.where(small, result - 1 / np.where(small, x, 1), result)
        x = np.where(small, x + 1, x)
    coef = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
            -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
            8.33333333333333333333E-2)
    z = 1.0 / (x * x)
    poly = np.zeros_like(x)
    for a in coef:
        poly = poly * z + a
    y = np.where(x < 1.0e17, z * poly, 0.0)
    out = np.where(x == 10, result + 2.25175258906672110764 + extra, result + np.log(x) - 0.5 / x - y + extra)
    return out


def standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``torch._standard_gamma_grad(alpha, x)``: ``-(d cdf / d alpha) / pdf`` at the sample ``x``, computed in
    float64 and returned in ``alpha``'s dtype (ATen's ``standard_gamma_grad_one``)."""
    dt = alpha.dtype
    a = alpha.astype(np.float64)
    s = x.astype(np.float64)
    with np.errstate(all="ignore"):
        # Taylor series for small x
        numer = np.ones_like(s)
        denom = a.copy()
        series1 = numer / denom
        series2 = numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-s / i)
            denom = denom + 1
            series1 = series1 + numer / denom
            series2 = series2 + numer / (denom * denom)
        pow_x_alpha = np.power(s, a)
        pdf = np.power(s, a - 1) * np.exp(-s)
        cdf = pow_x_alpha * series1
        cdf_alpha = (np.log(s) - _digamma_one(a)) * cdf - pow_x_alpha * series2
        small = -cdf_alpha / pdf
        small = np.where(np.isnan(small), 0.0, small)
        # Rice saddle point expansion for large alpha
        near = (float(np.float32(0.9)) * a <= s) & (s <= float(np.float32(1.1)) * a)  # 0.9f, 1.1f: float consts
        n1 = 1 + 24 * a * (1 + 12 * a)
        n2 = 1440 * (a * a) + 6 * s * (53 - 120 * s) - 65 * s * s / a + a * (107 + 3600 * s)
        saddle_near = n1 * n2 / (1244160 * (a * a) * (a * a))
        den = np.sqrt(8 * a)
        term2 = den / (a - s)
        term3 = np.power(s - a - a * np.log(s / a), -1.5)
        term23 = np.where(s < a, term2 - term3, term2 + term3)
        term1 = np.log(s / a) * term23 - np.sqrt(2 / a) * (a + s) / ((a - s) * (a - s))
        stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
        saddle_far = -stirling * (s * term1) / den
        # bivariate rational approximation otherwise
        u = np.log(s / a)
        v = np.log(a)
        cuv = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
               (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
                -0.00058392623),
               (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326,
                0.00085092367, -1.5247877e-07))
        cv = [cuv[0][i] + u * (cuv[1][i] + u * cuv[2][i]) for i in range(8)]
        p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
        q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
        rational = np.exp(p / q)
    out = np.where(s < np.float64(np.float32(0.8)), small,
                   np.where(a > 8.0, np.where(near, saddle_near, saddle_far), rational))
    return out.astype(dt)


class StandardGammaBackward0(Op):
    _saves = (0, "out")

    def forward(self, alpha, eng=None):
        out = _s_gamma(eng, np.ascontiguousarray(alpha))
        self.saved = (alpha, out)
        return out

    def backward(self, g):
        alpha, out = self.saved
        return g * standard_gamma_grad(np.asarray(alpha), out)


def standard_gamma(alpha: Tensor, generator=None) -> Tensor:
    """``torch._standard_gamma(alpha)``: Gamma(alpha, 1) samples of ``alpha``'s shape and dtype, drawn from
    PyTorch's CPU stream; differentiable w.r.t. ``alpha`` (reparameterized gradient)."""
    return StandardGammaBackward0.apply(alpha, eng=_eng(generator))


def sample_dirichlet(alpha: np.ndarray, generator=None) -> np.ndarray:
    """``torch._sample_dirichlet(alpha)`` values: float64 gamma draws normalised over the last axis, cast to
    ``alpha``'s dtype and kept inside ``[tiny, 1)`` (ATen's ``_s_dirichlet_cpu``)."""
    eng = _eng(generator)
    dt = alpha.dtype
    gam = np.array([_sample_gamma_one(eng, a, False) for a in alpha.astype(np.float64).ravel().tolist()],
                   np.float64).reshape(alpha.shape)
    gam = np.maximum(gam, np.finfo(np.float64).tiny)
    out = (gam / gam.sum(-1, keepdims=True)).astype(dt)
    return np.minimum(np.nextafter(dt.type(1), dt.type(0)), np.maximum(np.finfo(dt).tiny, out))


# ---- Dirichlet reparameterized gradient (ATen's dirichlet_grad_one) -------------------------------
# The C++ template computes some parts in the input's type (``scalar_t``: float32 for float32 inputs) and
# others in double; ``st`` below is that scalar type, so float32 inputs round where PyTorch's do.
_PSI_10 = 2.25175258906672110764
_DIGAMMA_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
              -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
              8.33333333333333333333E-2)


def _digamma_st(x: np.ndarray, st) -> np.ndarray:
    """``digamma_one<scalar_t, double>(x)`` for ``x > 0``: the shift loop in ``st``, sums in double."""
    x = np.array(x, st)
    result = np.zeros(x.shape, np.float64)
    while True:
        small = x < 10
        if not small.any():
            break
        with np.errstate(divide="ignore"):
            result = np.where(small, result - (st(1) / x).astype(np.float64), result)
        x = np.where(small, x + st(1), x)
    z = 1.0 / (x * x).astype(np.float64)
    poly = np.zeros_like(z)
    for a in _DIGAMMA_A:
        poly = poly * z + a
    y = np.where(x < np.float32(1.0e17), z * poly, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = result + np.log(x).astype(np.float64) - (st(0.5) / x).astype(np.float64) - y
    out = np.where(x == 10, result + _PSI_10, out)
    return np.where(x == 0, np.inf, out).astype(st)


def _beta_grad_alpha_small(x, alpha, beta, st):
    factor = _digamma_st(alpha, st) - _digamma_st(alpha + beta, st) - np.log(x)
    numer = np.ones_like(x)
    series = numer / alpha * (factor + st(1) / alpha)
    for i in range(1, 11):
        ci = st(i)
        numer = numer * ((ci - beta) * x / ci)
        denom = alpha + ci
        series = series + numer / denom * (factor + st(1) / denom)
    result = x * np.power(st(1) - x, -beta) * series
    return np.where(np.isnan(result), st(0), result)


def _beta_grad_beta_small(x, alpha, beta, st):
    factor = _digamma_st(alpha + beta, st) - _digamma_st(beta, st)
    numer = np.ones_like(x)
    betas = np.ones_like(x)
    dbetas = np.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        ci = st(i)
        numer = numer * (-x / ci)
        dbetas = dbetas * (beta - ci) + betas
        betas = betas * (beta - ci)
        series = series + numer / (alpha + ci) * (dbetas + factor * betas)
    result = -np.power(st(1) - x, st(1) - beta) * series
    return np.where(np.isnan(result), st(0), result)


def _beta_grad_alpha_mid(x, alpha, beta):
    """Rice saddle-point expansion for large ``alpha`` and ``beta``, in double."""
    total = alpha + beta
    mean = alpha / total
    std = np.sqrt(alpha * beta / (total + 1)) / total
    poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (8 * (1 - x) * (135 * beta - 11)))))
    prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
    prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
    near = prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / np.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1 = term1_num / (np.sqrt(2 * alpha / beta) * np.power(total, 1.5) * axbx * axbx)
    term2 = 0.5 * np.log(alpha / (total * x))
    term3 = np.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = np.power(beta * np.log(beta / (total * (1 - x))) + alpha * np.log(alpha / (total * x)), -1.5)
    far = stirling * prefactor * (term1 + term2 * (term3 + np.where(x < mean, term4, -term4)))
    return np.where((mean - 0.1 * std <= x) & (x <= mean + 0.1 * std), near, far)


_DIRICHLET_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]])


def dirichlet_grad(x: np.ndarray, alpha: np.ndarray, total: np.ndarray) -> np.ndarray:
    """``torch._dirichlet_grad(x, alpha, total)``: ``-(d cdf / d alpha) / pdf / (1 - x)`` of Beta(alpha,
    total - alpha) at ``x``, elementwise in ``x``'s dtype (ATen's ``dirichlet_grad_one``)."""
    st = x.dtype.type
    x, alpha, total = np.broadcast_arrays(x, alpha.astype(st), total.astype(st))
    xd, ad, td = x.astype(np.float64), alpha.astype(np.float64), total.astype(np.float64)
    beta = total - alpha
    beta_d = td - ad
    boundary = total * x * (st(1) - x)
    with np.errstate(all="ignore"):
        small_a = _beta_grad_alpha_small(x, alpha, beta, st)
        small_b = -_beta_grad_beta_small(st(1) - x, beta, alpha, st)
        mid = _beta_grad_alpha_mid(xd, ad, beta_d)
        u = np.log(xd)
        a = np.log(ad) - u
        b = np.log(td) - a
        pu, pa = (1.0, u, u * u), (1.0, a, a * a)
        p = np.zeros_like(xd)
        q = np.zeros_like(xd)
        c = _DIRICHLET_C
        for i in range(3):
            for j in range(3):
                ua = pu[i] * pa[j]
                p = p + ua * (c[0, i, j, 0] + b * (c[0, i, j, 1] + b * (c[0, i, j, 2] + b * c[0, i, j, 3])))
                q = q + ua * (c[1, i, j, 0] + b * (c[1, i, j, 1] + b * (c[1, i, j, 2] + b * c[1, i, j, 3])))
        approx = xd * (_digamma_st(td, st).astype(np.float64) - _digamma_st(ad, st).astype(np.float64)) / beta_d
        rational = p / q * approx
    out = np.where((x <= 0.5) & (boundary < 2.5), small_a,
                   np.where((x >= 0.5) & (boundary < 0.75), small_b,
                            np.where((alpha > 6) & (beta > 6), mid, rational)))
    return out.astype(st)


class DirichletBackward(Op):
    """``torch._sample_dirichlet`` with the reparameterized backward of ``torch.distributions.dirichlet``."""
    _saves = (0, "out")

    def forward(self, alpha, generator=None):
        out = sample_dirichlet(np.ascontiguousarray(alpha), generator)
        self.saved = (alpha, out)
        return out

    def backward(self, g):
        alpha, x = self.saved
        total = np.broadcast_to(alpha.sum(-1, keepdims=True), alpha.shape)
        grad = dirichlet_grad(x, alpha, total)
        return grad * (g - (x * g).sum(-1, keepdims=True))


def rsample_dirichlet(concentration: Tensor, generator=None) -> Tensor:
    """Dirichlet samples over the last dim of ``concentration`` (PyTorch's ``_Dirichlet.apply``)."""
    return DirichletBackward.apply(concentration, generator=generator)


# ---- binomial sampling (ATen's _s_binomial_cpu) ---------------------------------------------------
# Per element, in order: BTRS (Hormann's transformed rejection) when count * min(p, 1 - p) >= 10, else
# inversion by summing geometric waiting times; float64 uniforms from the generator. The C++ template
# rounds some intermediates to ``scalar_t`` (float for float32 tensors); ``st`` below replays that.
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k: float) -> float:
    if k < 10:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _log1p_st(x, st) -> float:
    """``std::log1p`` on ``scalar_t``: glibc's ``log1pf`` for float (not the float64 result rounded)."""
    if st is np.float64:
        return math.log1p(x)
    return float(_libm_f("log1pf")(float(x)))


def _libm_f(name: str):
    global _LIBM
    if _LIBM is None:
        path = ctypes.util.find_library("m")
        _LIBM = ctypes.CDLL(path) if path else False
    fn = getattr(_LIBM, name, None) if _LIBM else None
    if fn is None:  # no C library: float64 result rounded to float (equal but in rare last-bit cases)
        return lambda v: float(np.float32(getattr(math, name[:-1])(v)))
    fn.restype = ctypes.c_float
    fn.argtypes = [ctypes.c_float]
    return fn


_LIBM = None


def _binomial_inversion(eng, count, prob, st) -> float:
    logprob = _log1p_st(st(-prob), st)
    geom_sum = 0.0
    num_geom = 0
    while True:
        geom = math.ceil(math.log(_uniform(eng)) / logprob)
        geom_sum += geom
        if geom_sum > count:
            return num_geom
        num_geom += 1


def _btrs(eng, count, prob, st) -> float:
    count, prob = st(count), st(prob)
    stddev = float(np.sqrt(count * prob * (st(1) - prob)))  # sqrt in scalar_t
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(prob)
    c = float(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(prob / (st(1) - prob))
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor(float((count + st(1)) * prob))
    n = float(count)  # counts and k are integers: exact in either type
    while True:
        u = _uniform(eng) - 0.5
        v = _uniform(eng)
        us = 0.5 - abs(u)
        k = float(st(math.floor((2 * a / us + b) * u + c)))
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        upper = ((m + 0.5) * math.log((m + 1) / (r * (n - m + 1)))
                 + (n + 1) * math.log((n - m + 1) / (n - k + 1))
                 + (k + 0.5) * math.log(r * (n - k + 1) / (k + 1))
                 + _stirling_tail(m) + _stirling_tail(n - m) - _stirling_tail(k) - _stirling_tail(n - k))
        if v <= upper:
            return k


def _sample_binomial_one(eng, count, prob, st) -> float:
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if float(st(count) * st(prob)) >= 10.0:
            return _btrs(eng, count, prob, st)
        return _binomial_inversion(eng, count, prob, st)
    if prob > 0.5:
        q = float(st(1.0 - prob))
        if float(st(count) * st(q)) >= 10.0:
            return count - _btrs(eng, count, q, st)
        return count - _binomial_inversion(eng, count, q, st)
    return math.nan


def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """``torch.binomial(count, prob)``: Binomial samples of ``count``'s shape and dtype (broadcast inputs
    of one float dtype), drawn element by element in C order from PyTorch's CPU stream; no gradient."""
    eng = _eng(generator)
    c, p = np.broadcast_arrays(np.asarray(count._data), np.asarray(prob._data))
    dt = c.dtype
    st = np.float64 if dt == np.float64 else np.float32
    out = [_sample_binomial_one(eng, cc, pp, st) for cc, pp in zip(c.ravel().tolist(), p.ravel().tolist())]
    return _make(np.array(out, np.float64).astype(dt).reshape(c.shape))
