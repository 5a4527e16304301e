"""Double (and third-order) backward of the math ops against PyTorch.

For every differentiable op of the pointwise, unary, special, complex, reduction, cumulative,
statistics, calculus, vector, cast, in-place and FFT families: the gradients of
``sum(grad(f(x), x, v, create_graph=True) * w)`` w.r.t. the inputs and v match torch's (float32 and
float64), and numtorch's ``gradgradcheck`` passes in float64.
"""
import numpy as np
import pytest
import torch

import numtorch
import numtorch.fft  # noqa: F401  (the facades the cases call)
import numtorch.linalg  # noqa: F401
import numtorch.special  # noqa: F401

from _gradgrad import check_gradgrad, check_gradgradcheck, third_order

# Input kinds: r normal, p positive, u in (-0.9, 0.9), g > 1.1, s distinct well separated values,
# c complex normal, z normal with exact zeros (cumprod)
def _make(kind, shape, dtype, gen):
    if kind == "c":
        cd = torch.complex64 if dtype == torch.float32 else torch.complex128
        return torch.randn(shape, dtype=cd, generator=gen)
    x = torch.randn(shape, dtype=dtype, generator=gen)
    if kind == "p":
        return torch.rand(shape, dtype=dtype, generator=gen) + 0.5
    if kind == "u":
        return torch.rand(shape, dtype=dtype, generator=gen) * 1.6 - 0.8
    if kind == "g":
        return torch.rand(shape, dtype=dtype, generator=gen) + 1.2
    if kind == "s":
        n = int(np.prod(shape))
        return (torch.randperm(n, generator=gen).to(dtype) * 0.5 + 0.1 * torch.rand(n, dtype=dtype, generator=gen)
                - n / 4).reshape(shape)
    if kind == "z":
        x = x.clone()
        x.view(-1)[1] = 0
        return x
    if kind == "q":  # away from the kinks of abs/clamp/max (values not within 0.1 of 0 or +-0.5)
        return torch.sign(x) * (x.abs() + 0.15)
    return x


def _xfail(why):
    return dict(marks=pytest.mark.xfail(strict=True, reason=why))


S = (3, 4)
# (id, fn(lib, *xs), [(kind, shape), ...]); a kind in upper case is a constant input (no grad)
CASES = [
    # ---- pointwise binaries
    ("add", lambda L, a, b: L.add(a, b, alpha=2), [("r", S), ("r", (4,))]),
    ("sub", lambda L, a, b: L.sub(a, b), [("r", S), ("r", S)]),
    ("mul", lambda L, a, b: a * b, [("r", S), ("r", (4,))]),
    ("div", lambda L, a, b: a / b, [("r", S), ("p", S)]),
    ("remainder", lambda L, a, b: L.remainder(a, b), [("r", S), ("p", S)]),
    ("fmod", lambda L, a, b: L.fmod(a, b), [("r", S), ("p", S)]),
    ("pow_tt", lambda L, a, b: L.pow(a, b), [("p", S), ("r", S)]),
    ("pow_ts", lambda L, a: L.pow(a, 3), [("r", S)]),
    ("pow_st", lambda L, b: L.pow(2.0, b), [("r", S)]),
    ("float_power", lambda L, a, b: L.float_power(a, b), [("p", S), ("r", S)]),
    ("float_power_s", lambda L, a: L.float_power(a, 2.5), [("p", S)]),
    ("pow_broadcast", lambda L, a, b: L.pow(a, b), [("p", S), ("r", (4,))]),
    ("atan2", lambda L, a, b: L.atan2(a, b), [("r", S), ("r", S)]),
    ("maximum", lambda L, a, b: L.maximum(a, b), [("r", S), ("r", S)]),
    ("minimum", lambda L, a, b: L.minimum(a, b), [("r", S), ("r", S)]),
    ("fmax", lambda L, a, b: L.fmax(a, b), [("r", S), ("r", S)]),
    ("fmin", lambda L, a, b: L.fmin(a, b), [("r", S), ("r", S)]),
    ("where", lambda L, a, b: L.where(a > 0, a * a, b), [("r", S), ("r", S)]),
    ("lerp_s", lambda L, a, b: L.lerp(a, b, 0.3), [("r", S), ("r", S)]),
    ("lerp_t", lambda L, a, b, w: L.lerp(a, b, w), [("r", S), ("r", S), ("r", S)]),
    ("addcmul", lambda L, a, b, c: L.addcmul(a, b, c, value=0.5), [("r", S), ("r", S), ("r", S)]),
    ("addcdiv", lambda L, a, b, c: L.addcdiv(a, b, c, value=0.5), [("r", S), ("r", S), ("p", S)]),
    ("nan_to_num", lambda L, a: L.nan_to_num(a * a), [("r", S)]),
    ("logaddexp", lambda L, a, b: L.logaddexp(a, b), [("r", S), ("r", S)]),
    ("logaddexp2", lambda L, a, b: L.logaddexp2(a, b), [("r", S), ("r", S)]),
    ("hypot", lambda L, a, b: L.hypot(a, b), [("r", S), ("r", S)]),
    ("copysign", lambda L, a, b: L.copysign(a, b), [("r", S), ("r", S)]),
    ("ldexp", lambda L, a, b: L.ldexp(a, b), [("r", S), ("r", S)]),
    ("remainder_s", lambda L, a: L.remainder(a * a, 1.5), [("r", S)]),
    ("fmod_s", lambda L, a: L.fmod(a * a, 1.5), [("r", S)]),
    ("copysign_s", lambda L, a: L.copysign(a * a, -1.0), [("r", S)]),
    ("where_s", lambda L, a: L.where(a > 0, a * a, 0.0), [("r", S)]),
    ("div_floor", lambda L, a, b: L.div(a, b, rounding_mode="floor") + a * b, [("r", S), ("p", S)]),
    # ---- unary
    *[(n, (lambda n: lambda L, a: getattr(L, n)(a))(n), [(k, S)]) for n, k in (
        ("neg", "r"), ("abs", "q"), ("exp", "r"), ("exp2", "r"), ("expm1", "r"), ("log", "p"), ("log2", "p"),
        ("log10", "p"), ("log1p", "p"), ("sqrt", "p"), ("rsqrt", "p"), ("reciprocal", "p"), ("square", "r"),
        ("sin", "r"), ("cos", "r"), ("tan", "u"), ("asin", "u"), ("acos", "u"), ("atan", "r"), ("sinh", "r"),
        ("cosh", "r"), ("tanh", "r"), ("sigmoid", "r"), ("relu", "q"), ("erf", "r"), ("erfinv", "u"),
        ("floor", "r"), ("ceil", "r"), ("trunc", "r"), ("frac", "r"), ("round", "r"), ("sign", "r"),
        ("sgn", "r"), ("atanh", "u"), ("asinh", "r"), ("acosh", "g"), ("deg2rad", "r"), ("rad2deg", "r"),
        ("angle", "r"), ("positive", "r"))],
    ("round_decimals", lambda L, a: L.round(a, decimals=1), [("r", S)]),
    ("clamp_s", lambda L, a: L.clamp(a, -0.5, 0.5), [("q", S)]),
    ("clamp_t", lambda L, a, lo, hi: L.clamp(a, lo, hi), [("r", S), ("r", S), ("r", S)]),
    ("clamp_min", lambda L, a: L.clamp_min(a, 0.5), [("q", S)]),
    ("clamp_t_min", lambda L, a, lo: L.clamp(a, min=lo), [("r", S), ("r", (4,))]),
    ("clamp_max", lambda L, a: L.clamp_max(a, 0.5), [("q", S)]),
    ("sgn_complex", lambda L, a: L.sgn(a), [("c", S)]),
    ("abs_complex", lambda L, a: L.abs(a), [("c", S)]),
    ("angle_complex", lambda L, a: L.angle(a), [("c", S)]),
    ("exp_complex", lambda L, a: L.exp(a), [("c", S)]),
    # ---- special
    ("lgamma", lambda L, a: L.lgamma(a), [("p", S)]),
    ("digamma", lambda L, a: L.digamma(a), [("p", S)]),
    ("polygamma", lambda L, a: L.polygamma(1, a), [("p", S)]),
    ("polygamma_2", lambda L, a: L.polygamma(2, a), [("p", S)]),
    ("mvlgamma", lambda L, a: L.mvlgamma(a, 2), [("g", S)]),
    ("xlogy", lambda L, a, b: L.xlogy(a, b), [("r", S), ("p", S)]),
    ("xlog1py", lambda L, a, b: L.special.xlog1py(a, b), [("r", S), ("p", S)]),
    ("xlog1py_scalar_other", lambda L, a: L.special.xlog1py(a, 0.7), [("r", S)]),
    ("xlog1py_scalar_self", lambda L, b: L.special.xlog1py(1.5, b), [("p", S)]),
    ("xlogy_scalar_self", lambda L, b: L.xlogy(2.0, b), [("p", S)]),
    ("zeta_scalar_x", lambda L, q: L.special.zeta(3.0, q), [("p", S)]),
    ("erfc", lambda L, a: L.erfc(a), [("r", S)]),
    ("erfcx", lambda L, a: L.special.erfcx(a), [("r", S)]),
    ("logit", lambda L, a: L.logit(a * 0.5 + 0.5), [("u", S)]),
    ("logit_eps", lambda L, a: L.logit(a * 0.5 + 0.5, eps=0.2), [("u", S)]),
    ("i0", lambda L, a: L.i0(a), [("r", S)]),
    ("i0e", lambda L, a: L.special.i0e(a), [("r", S)]),
    ("i1", lambda L, a: L.special.i1(a), [("r", S)]),
    ("i1e", lambda L, a: L.special.i1e(a), [("r", S)]),
    ("sinc", lambda L, a: L.sinc(a), [("r", S)]),
    ("ndtr", lambda L, a: L.special.ndtr(a), [("r", S)]),
    ("ndtri", lambda L, a: L.special.ndtri(a * 0.5 + 0.5), [("u", S)]),
    ("log_ndtr", lambda L, a: L.special.log_ndtr(a), [("r", S)]),
    ("entr", lambda L, a: L.special.entr(a), [("p", S)]),
    ("zeta", lambda L, a, q: L.special.zeta(a, q), [("G", S), ("p", S)]),
    ("igamma", lambda L, a, x: L.igamma(a, x), [("P", S), ("p", S)]),
    ("igammac", lambda L, a, x: L.igammac(a, x), [("P", S), ("p", S)]),
    # ---- complex
    ("view_as_real", lambda L, a: L.view_as_real(a * 1), [("c", S)]),
    ("view_as_complex", lambda L, a: L.view_as_complex(a), [("r", (3, 2))]),
    ("real", lambda L, a: L.real(a * 1), [("c", S)]),
    ("imag", lambda L, a: L.imag(a * 1), [("c", S)]),
    ("conj", lambda L, a: L.conj(a) * a, [("c", S)]),
    ("conj_physical", lambda L, a: L.conj_physical(a) * a, [("c", S)]),
    # ---- reductions
    ("sum", lambda L, a: L.sum(a, 1), [("r", S)]),
    ("mean", lambda L, a: L.mean(a, 0, keepdim=True), [("r", S)]),
    ("nansum", lambda L, a: L.nansum(a, 1), [("r", S)]),
    ("nanmean", lambda L, a: L.nanmean(a, 1), [("r", S)]),
    ("var", lambda L, a: L.var(a, 1), [("r", S)]),
    ("std", lambda L, a: L.std(a, 1, correction=0), [("r", S)]),
    ("var_all", lambda L, a: L.var(a), [("r", S)]),
    ("std_all", lambda L, a: L.std(a), [("r", S)]),
    ("var_mean", lambda L, a: L.var_mean(a, 1), [("r", S)]),
    ("std_mean", lambda L, a: L.std_mean(a, 0), [("r", S)]),
    ("prod", lambda L, a: L.prod(a), [("r", S)]),
    ("prod_dim", lambda L, a: L.prod(a, 1), [("r", S)]),
    ("prod_zero", lambda L, a: L.prod(a, 1), [("z", S)]),
    ("max", lambda L, a: L.max(a), [("s", S)]),
    ("min", lambda L, a: L.min(a), [("s", S)]),
    ("max_dim", lambda L, a: L.max(a, 1)[0], [("s", S)]),
    ("min_dim", lambda L, a: L.min(a, 0)[0], [("s", S)]),
    ("amax", lambda L, a: L.amax(a, 1), [("s", S)]),
    ("amin", lambda L, a: L.amin(a, 0), [("s", S)]),
    ("median", lambda L, a: L.median(a), [("s", S)]),
    ("median_dim", lambda L, a: L.median(a, 1)[0], [("s", S)]),
    ("logsumexp", lambda L, a: L.logsumexp(a, 1), [("r", S)]),
    ("logsumexp_all", lambda L, a: L.logsumexp(a, (0, 1), keepdim=True), [("r", S)]),
    ("var_keepdim", lambda L, a: L.var(a, (0, 1), keepdim=True, correction=0), [("r", S)]),
    ("sum_dtype", lambda L, a: L.sum(a * a, 1, dtype=L.float64), [("r", S)]),
    ("mean_all", lambda L, a: L.mean(a * a), [("r", S)]),
    ("aminmax", lambda L, a: L.aminmax(a, dim=1)[0] * L.aminmax(a, dim=1)[1], [("s", S)]),
    ("norm", lambda L, a: L.norm(a), [("r", S)]),
    ("norm_p3", lambda L, a: L.norm(a, 3, 1), [("r", S)]),
    ("norm_inf", lambda L, a: L.norm(a, float("inf"), 1), [("s", S)]),
    ("norm_1", lambda L, a: L.norm(a, 1), [("q", S)]),
    ("vector_norm", lambda L, a: L.linalg.vector_norm(a, 2, 0), [("r", S)]),
    ("vector_norm_p", lambda L, a: L.linalg.vector_norm(a, 1.5), [("r", S)]),
    ("norm_nuc", lambda L, a: L.norm(a, "nuc"), [("r", S)]),
    ("norm_nuc_batched", lambda L, a: L.norm(a, "nuc", (0, 2)), [("r", (2, 3, 4))]),
    ("vector_norm_inf", lambda L, a: L.linalg.vector_norm(a, float("-inf"), 1), [("s", S)]),
    ("vector_norm_0", lambda L, a: L.linalg.vector_norm(a, 0, 1) + a.sum(), [("r", S)]),
    ("norm_fro", lambda L, a: L.norm(a, "fro", (0, 1)), [("r", S)]),
    # ---- cumulative
    ("cumsum", lambda L, a: L.cumsum(a, 1), [("r", S)]),
    ("cumprod", lambda L, a: L.cumprod(a, 1), [("r", S)]),
    ("cumprod_zero", lambda L, a: L.cumprod(a, 1), [("z", S)]),
    ("cummax", lambda L, a: L.cummax(a, 1)[0], [("s", S)]),
    ("cummin", lambda L, a: L.cummin(a, 0)[0], [("s", S)]),
    ("logcumsumexp", lambda L, a: L.logcumsumexp(a, 1), [("r", S)]),
    ("cumulative_trapezoid", lambda L, a: L.cumulative_trapezoid(a, dim=1), [("r", S)]),
    # ---- statistics
    ("quantile", lambda L, a: L.quantile(a, 0.3, dim=1), [("s", S)]),
    ("nanquantile", lambda L, a: L.nanquantile(a, 0.7), [("s", S)]),
    ("nanmedian", lambda L, a: L.nanmedian(a), [("s", S)]),
    ("nanmedian_dim", lambda L, a: L.nanmedian(a, 1)[0], [("s", S)]),
    ("mode", lambda L, a: L.mode(L.round(a.detach()) + a * 0 + a, 1)[0], [("s", S)]),
    # ---- calculus, vectors
    ("diff", lambda L, a: L.diff(a, n=2, dim=1), [("r", S)]),
    ("trapezoid", lambda L, a: L.trapezoid(a, dim=1), [("r", S)]),
    ("trapezoid_x", lambda L, y, x: L.trapezoid(y, x, dim=1), [("r", S), ("r", S)]),
    ("cross", lambda L, a, b: L.cross(a, b, dim=1), [("r", (2, 3)), ("r", (2, 3))]),
    ("renorm", lambda L, a: L.renorm(a, 2, 0, 1.0), [("r", S)]),
    # ---- cast, copy, in-place
    ("to_dtype", lambda L, a: (a.to(L.float64) ** 2).to(a.dtype), [("r", S)]),
    ("copy_", lambda L, a, b: (a * 1).copy_(b * b), [("r", S), ("r", S)]),
    ("mul_", lambda L, a, b: (a * 1).mul_(b), [("r", S), ("r", S)]),
    ("exp_", lambda L, a: (a * 1).exp_(), [("r", S)]),
    ("addcdiv_", lambda L, a, b, c: (a * 1).addcdiv_(b, c, value=2), [("r", S), ("r", S), ("p", S)]),
    ("clamp_", lambda L, a: (a * 1).clamp_(-0.5, 0.5), [("q", S)]),
    ("pow_", lambda L, a, b: (a * 1).pow_(b), [("p", S), ("r", S)]),
    ("cumsum_dtype", lambda L, a: L.cumsum(a, 0, dtype=L.float64), [("r", S)]),
    ("setitem", lambda L, a, b: _setitem(a, b), [("r", S), ("r", (4,))]),
    # ---- fft
    ("fft", lambda L, a: L.fft.fft(a), [("c", S)]),
    ("ifft", lambda L, a: L.fft.ifft(a, norm="ortho"), [("c", S)]),
    ("fft_real_in", lambda L, a: L.fft.fft(a, n=6), [("r", S)]),
    ("fft2", lambda L, a: L.fft.fft2(a), [("c", S)]),
    ("rfft", lambda L, a: L.fft.rfft(a), [("r", S)]),
    ("irfft", lambda L, a: L.fft.irfft(a), [("c", S)]),
    ("rfftn", lambda L, a: L.fft.rfftn(a, norm="forward"), [("r", S)]),
    ("hfft", lambda L, a: L.fft.hfft(a), [("c", S)]),
    ("ihfft", lambda L, a: L.fft.ihfft(a), [("r", S)]),
]


def _setitem(a, b):
    c = a * 1
    c[1] = b * b
    return c


XFAIL = {}
CASE_PARAMS = [pytest.param(c, id=c[0], **(_xfail(XFAIL[c[0]]) if c[0] in XFAIL else {})) for c in CASES]


def _inputs(kinds, dtype, seed=0):
    gen = torch.Generator().manual_seed(seed)
    xs = []
    for kind, shape in kinds:
        x = _make(kind.lower(), shape, dtype, gen)
        xs.append(x.requires_grad_(True) if kind.islower() else x)
    return xs


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", CASE_PARAMS)
def test_gradgrad_matches_torch(case, dtype):
    name, fn, kinds = case
    xs = _inputs(kinds, dtype)
    check_gradgrad(lambda *a: fn(torch, *a), lambda *a: fn(numtorch, *a), xs)


# numtorch's gradcheck compares real Jacobians only: complex cases are checked against torch above
_COMPLEX = {"view_as_complex", "fft_real_in", "rfft", "rfftn", "ihfft"}
GGC_PARAMS = [pytest.param(c, id=c[0], **(_xfail(XFAIL[c[0]]) if c[0] in XFAIL else {})) for c in CASES
              if c[0] not in _COMPLEX and all(k != "c" for k, _ in c[2])]


@pytest.mark.parametrize("case", GGC_PARAMS)
def test_gradgradcheck(case):
    name, fn, kinds = case
    xs = _inputs(kinds, torch.float64)
    assert check_gradgradcheck(lambda *a: fn(numtorch, *a), xs)


_BY_NAME = {c[0]: c for c in CASES}


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "log", "sin", "sqrt", "erf", "atan", "pow_ts", "lgamma",
                                  "digamma", "mvlgamma", "i1", "sinc", "logsumexp", "std", "prod_dim", "cumprod"])
def test_third_order(name):
    _, fn, kinds = _BY_NAME[name]
    x = _inputs(kinds, torch.float64)[0]
    third_order(lambda a: fn(torch, a), lambda a: fn(numtorch, a), x)
