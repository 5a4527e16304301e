"""The Bessel functions ``J0``, ``J1``, ``Y0``, ``Y1`` as PyTorch's CPU kernels evaluate them
(``torch.special.bessel_j0`` & co.), so that numtorch returns torch's numbers, not just the function's.

PyTorch evaluates Cephes' rational approximations (Stephen L. Moshier's Cephes Math Library, the same
coefficients SciPy's ``j0``... use): for ``|x| <= 5`` a ratio of polynomials in ``x^2``, beyond it the
Hankel asymptotic form ``sqrt(2 / (pi x)) (P cos(x - phase) - (5 / x) Q sin(x - phase))`` with ``P``, ``Q``
ratios of polynomials in ``25 / x^2``. Its port sums every denominator from the first listed coefficient,
without the leading ``1 * z^n`` term Cephes' ``p1evl`` adds, which moves values by up to ~1e-7 relative:
the same is done here, in the input's own precision (float32 stays float32, as its kernel's ``T``).
"""
from __future__ import annotations

import numpy as np

__all__ = ["j0", "j1", "y0", "y1"]

# order 0, |x| > 5: P(w) / Q(w) and the phase correction's, in w = 25 / x^2 (shared by J0 and Y0)
_P0_NUM = (0.0007969367292973471, 0.08283523921074408, 1.239533716464143, 5.447250030587687, 8.74716500199817,
    5.303240382353949, 1.0)
_P0_DEN = (0.0009244088105588637, 0.08562884743544745, 1.2535274390105895, 5.470977403304171, 8.761908832370695,
    5.306052882353947, 1.0)
_Q0_NUM = (-0.011366383889846916, -1.2825271867050931, -19.553954425773597, -93.20601521237683,
    -177.68116798048806, -147.07750515495118, -51.41053267665993, -6.050143506007285)
_Q0_DEN = (64.3178256118178, 856.4300259769806, 3882.4018360540163, 7240.467741956525, 5930.727011873169,
    2062.0933166032783, 242.0057402402914)
# order 1, |x| > 5 (shared by J1 and Y1)
_P1_NUM = (0.0007621256162081731, 0.07313970569409176, 1.1271960812968493, 5.112079511468076, 8.424045901417724,
    5.214515986823615, 1.0)
_P1_DEN = (0.0005713231280725487, 0.06884559087544954, 1.105142326340617, 5.073863861286015, 8.399855543276042,
    5.209828486823619, 1.0)
_Q1_NUM = (0.05108625947501766, 4.982138729512334, 75.82382841325453, 366.7796093601508, 710.8563049989261,
    597.4896124006136, 211.68875710057213, 25.207020585802372)
_Q1_DEN = (74.23732770356752, 1056.4488603826283, 4986.410583376536, 9562.318924047562, 7997.041604473507,
    2826.1927851763908, 336.0936078106983)
# |x| <= 5, in z = x^2
_J0_NUM = (-4794432209.782018, 1956174919465.5657, -249248344360967.72, 9708622510473064.0)
_J0_DEN = (499.563147152651, 173785.4016763747, 48440965.83399621, 11185553704.535683, 2112775201154.892,
    310518229857422.56, 3.1812195594320496e+16, 1.7108629408104315e+18)
_J1_NUM = (-899971225.7055594, 452228297998.19403, -72749424522181.83, 3682957328638529.0)
_J1_DEN = (620.8364781180543, 256987.25675774884, 83514679.14319493, 22151159547.97925, 4749141220799.914,
    784369607876235.9, 8.952223361846274e+16, 5.322786203326801e+18)
_Y0_NUM = (15592.436785523574, -14663929.59039716, 5435264770.518765, -982136065717.9115, 87590639439536.7,
    -3466283033847297.0, 4.4273326857256984e+16, -1.8495080043698668e+16)
_Y0_DEN = (1041.2835366425984, 626107.330137135, 268919633.39381415, 86400248710.3935, 20297961275010.555,
    3171577528429750.5, 2.5059625617265306e+17)
_Y1_NUM = (1263204747.9017804, -647355876379.1603, 114509511541823.73, -8127702555013251.0, 2.024394757135949e+17,
    -7.788771962659501e+17)
_Y1_DEN = (594.3015923461282, 235564.09294306856, 73481194.44597217, 18760131610.870617, 3882312774962.3857,
    620557727146953.8, 6.871410873553005e+16, 3.9727060811656064e+18)
_SQRT_2_OVER_PI, _TWO_OVER_PI = 0.797884560802865355879892119868763737, 0.636619772367581343075535053490057448
_PI_4, _3PI_4 = 0.785398163397448309615660845819875721, 2.356194490192344928846982537459627163


def _poly(coefs, z):
    """``sum coefs[i] z^(n-1-i)`` by Horner's rule, in ``z``'s dtype."""
    out = np.zeros_like(z)
    for c in coefs:
        out = out * z + c
    return out


def _hankel(x, w, phase, p_num, p_den, q_num, q_den, sine):
    """The asymptotic form for ``x > 5``: ``P cos(x - phase) - (5/x) Q sin(x - phase)`` (``sine``: the
    ``Y`` form ``P sin + (5/x) Q cos``), times ``sqrt(2 / (pi x))``."""
    p = _poly(p_num, w) / _poly(p_den, w)
    q = _poly(q_num, w) / _poly(q_den, w)
    xn = x - phase
    if sine:
        v = p * np.sin(xn) + 5.0 / x * q * np.cos(xn)
    else:
        v = p * np.cos(xn) - 5.0 / x * q * np.sin(xn)
    return v * _SQRT_2_OVER_PI / np.sqrt(x)


def _float(x):
    return np.asarray(x if x.dtype.kind == "f" and x.dtype.itemsize >= 4 else x.astype(np.float32))


def j0(x):
    """``J0(x)`` (even)."""
    x = np.abs(_float(x))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = x * x
        near = (z - 5.78318596294678452118) * (z - 30.4712623436620863991) * _poly(_J0_NUM, z) / _poly(_J0_DEN, z)
        near = np.where(x < 1e-5, 1.0 - z / 4.0, near)
        far = _hankel(x, 25.0 / z, _PI_4, _P0_NUM, _P0_DEN, _Q0_NUM, _Q0_DEN, sine=False)
    return np.where(x <= 5.0, near, far).astype(x.dtype, copy=False)


def j1(x):
    """``J1(x)`` (odd)."""
    x = _float(x)
    sign, x = np.where(x < 0, -1.0, 1.0).astype(x.dtype), np.abs(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = x * x
        near = _poly(_J1_NUM, z) / _poly(_J1_DEN, z) * x * (z - 14.6819706421238932572) * (z - 49.2184563216946036703)
        far = _hankel(x, 5.0 / x * (5.0 / x), _3PI_4, _P1_NUM, _P1_DEN, _Q1_NUM, _Q1_DEN, sine=False)
    return (sign * np.where(x <= 5.0, near, far)).astype(x.dtype, copy=False)


def _y_small(x, near):
    """``Y``'s values for ``x <= 5``: ``near`` for ``x > 0``, ``-inf`` at 0, NaN below."""
    return np.where(x == 0, -np.inf, np.where(x < 0, np.nan, near))


def y0(x):
    """``Y0(x)``; ``-inf`` at 0, NaN for ``x < 0``."""
    x = _float(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = x * x
        near = _poly(_Y0_NUM, z) / _poly(_Y0_DEN, z) + _TWO_OVER_PI * np.log(x) * j0(x)
        far = _hankel(x, 25.0 / z, _PI_4, _P0_NUM, _P0_DEN, _Q0_NUM, _Q0_DEN, sine=True)
    return np.where(x <= 5.0, _y_small(x, near), far).astype(x.dtype, copy=False)


def y1(x):
    """``Y1(x)``; ``-inf`` at 0, NaN for ``x < 0``."""
    x = _float(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = x * x
        near = x * (_poly(_Y1_NUM, z) / _poly(_Y1_DEN, z)) + _TWO_OVER_PI * (j1(x) * np.log(x) - 1.0 / x)
        far = _hankel(x, 5.0 / x * (5.0 / x), _3PI_4, _P1_NUM, _P1_DEN, _Q1_NUM, _Q1_DEN, sine=True)
    return np.where(x <= 5.0, _y_small(x, near), far).astype(x.dtype, copy=False)
