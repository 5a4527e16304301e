"""Window functions for spectral analysis: ``torch.hann_window`` & co. (ATen's, with ``periodic=``) and
the functions of ``torch.signal.windows`` (SciPy's conventions, with ``sym=``).

A window of length ``M`` is a function of the sample positions ``n = 0 .. M-1``. A *symmetric* window
(``sym=True``, ``periodic=False``) is symmetric about ``(M - 1) / 2``; a *periodic* one is the symmetric
window of length ``M + 1`` without its last sample, the right thing to tile for an STFT. Each window is
computed in NumPy in the requested dtype (float32 by default) and returned as a new leaf tensor.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]

_NUTTALL = (0.3635819, 0.4891775, 0.1365995, 0.0106411)


def _leaf(arr, requires_grad) -> Tensor:
    out = _make(np.ascontiguousarray(arr))
    return out.requires_grad_(True) if requires_grad else out


# ------------------------------------------------------------------------------------------------
# torch.*_window (ATen): periodic=True by default, any floating dtype
# ------------------------------------------------------------------------------------------------
def _aten_window(name, length, periodic, dtype, requires_grad, formula):
    """``formula(n, N)`` at positions ``n`` (of the requested dtype) for a window of denominator ``N``."""
    dt = _dtype.get_default_dtype() if dtype is None else dtype
    if not dt.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dt}")
    if length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={length}")
    npd = _dtype.to_np(dt)
    if length <= 1:
        return _leaf(np.ones(length, npd), requires_grad)
    m = length + 1 if periodic else length
    n = np.arange(m, dtype=np.float64)
    w = formula(n, m - 1).astype(npd)
    return _leaf(w[:length], requires_grad)


def _cosine_sum(coeffs):
    """``sum_k (-1)^k a_k cos(2 pi k n / N)`` (the Hann, Hamming, Blackman, Nuttall family)."""
    return lambda n, big_n: sum((-1) ** k * a * np.cos(2 * np.pi * k * n / big_n) for k, a in enumerate(coeffs))


def hann_window(window_length: int, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False,
                pin_memory=False) -> Tensor:
    """``0.5 - 0.5 cos(2 pi n / N)`` (``torch.hann_window``); ``N = window_length`` when periodic, else
    ``window_length - 1``. RuntimeError for a negative length or a non-float dtype."""
    return _aten_window("hann_window", window_length, periodic, dtype, requires_grad, _cosine_sum((0.5, 0.5)))


def hamming_window(window_length: int, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None,
                   device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """``alpha - beta cos(2 pi n / N)`` (``torch.hamming_window``)."""
    return _aten_window("hamming_window", window_length, periodic, dtype, requires_grad,
                        _cosine_sum((alpha, beta)))


def blackman_window(window_length: int, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False, pin_memory=False) -> Tensor:
    """``0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)`` (``torch.blackman_window``)."""
    return _aten_window("blackman_window", window_length, periodic, dtype, requires_grad,
                        _cosine_sum((0.42, 0.5, 0.08)))


def bartlett_window(window_length: int, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False, pin_memory=False) -> Tensor:
    """The triangle ``1 - |2 n / N - 1|`` (``torch.bartlett_window``)."""
    return _aten_window("bartlett_window", window_length, periodic, dtype, requires_grad,
                        lambda n, big_n: 1 - np.abs(2 * n / big_n - 1))


def kaiser_window(window_length: int, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False, pin_memory=False) -> Tensor:
    """``I0(beta sqrt(1 - (2 n / N - 1)^2)) / I0(beta)`` (``torch.kaiser_window``)."""
    return _aten_window("kaiser_window", window_length, periodic, dtype, requires_grad,
                        lambda n, big_n: np.i0(beta * np.sqrt(np.maximum(1 - (2 * n / big_n - 1) ** 2, 0)))
                        / np.i0(beta))


# ------------------------------------------------------------------------------------------------
# torch.signal.windows (SciPy's conventions): sym=True by default, float32/float64 only
# ------------------------------------------------------------------------------------------------
def _signal_checks(name, m, dtype, layout):
    dt = _dtype.get_default_dtype() if dtype is None else dtype
    if m < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={m}")
    if layout is not None and "strided" not in str(layout):
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dt not in (_dtype.float32, _dtype.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dt}")
    return _dtype.to_np(dt)


def _positions(m, sym):
    """Sample positions and the symmetric length they belong to (``M`` or ``M + 1`` when periodic)."""
    big = m if sym or m <= 1 else m + 1
    return np.arange(m, dtype=np.float64), big


def general_cosine(M: int, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """``sum_i (-1)^i a_i cos(2 pi i n / (M - 1))`` (``torch.signal.windows.general_cosine``). TypeError
    when ``a`` is not a sequence, ValueError when it is empty."""
    npd = _signal_checks("general_cosine", M, dtype, layout)
    if M <= 1:
        return _leaf(np.ones(M, npd), requires_grad)
    if not hasattr(a, "__iter__"):
        raise TypeError("Coefficients must be a list/tuple")
    a = list(a)
    if not a:
        raise ValueError("Coefficients cannot be empty")
    n, big = _positions(M, sym)
    return _leaf(_cosine_sum(a)(n, big - 1).astype(npd), requires_grad)


def general_hamming(M: int, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False) -> Tensor:
    """``alpha - (1 - alpha) cos(2 pi n / (M - 1))`` (``torch.signal.windows.general_hamming``)."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, requires_grad=requires_grad)


def hamming(M: int, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """``general_hamming`` with ``alpha = 0.54`` (``torch.signal.windows.hamming``)."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, requires_grad=requires_grad)


def hann(M: int, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """``general_hamming`` with ``alpha = 0.5`` (``torch.signal.windows.hann``)."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, requires_grad=requires_grad)


def blackman(M: int, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """``general_cosine`` with ``a = [0.42, 0.5, 0.08]`` (``torch.signal.windows.blackman``)."""
    _signal_checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, requires_grad=requires_grad)


def nuttall(M: int, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """Nuttall's 4-term ``general_cosine`` (``torch.signal.windows.nuttall``)."""
    return general_cosine(M, a=list(_NUTTALL), sym=sym, dtype=dtype, layout=layout, requires_grad=requires_grad)


def _simple(name, m, sym, dtype, layout, requires_grad, formula, ones_at_1=False):
    npd = _signal_checks(name, m, dtype, layout)
    if m == 0 or (ones_at_1 and m == 1):
        return _leaf(np.ones(m, npd), requires_grad)
    n, big = _positions(m, sym)
    return _leaf(formula(n, big).astype(npd), requires_grad)


def bartlett(M: int, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """The triangle ``1 - |2 n / (M - 1) - 1|`` (``torch.signal.windows.bartlett``)."""
    return _simple("bartlett", M, sym, dtype, layout, requires_grad,
                   lambda n, big: 1 - np.abs(2 * n / (big - 1) - 1), ones_at_1=True)


def cosine(M: int, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """``sin(pi (n + 0.5) / M)`` (``torch.signal.windows.cosine``)."""
    return _simple("cosine", M, sym, dtype, layout, requires_grad, lambda n, big: np.sin(np.pi * (n + 0.5) / big))


def gaussian(M: int, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """``exp(-((n - (M - 1) / 2) / std)^2 / 2)`` (``torch.signal.windows.gaussian``); ValueError for std <= 0."""
    _signal_checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    return _simple("gaussian", M, sym, dtype, layout, requires_grad,
                   lambda n, big: np.exp(-0.5 * ((n - (big - 1) / 2.0) / std) ** 2))


def exponential(M: int, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False) -> Tensor:
    """``exp(-|n - center| / tau)`` (``torch.signal.windows.exponential``; ``center`` defaults to the
    middle). ValueError for tau <= 0 or a ``center`` given with ``sym=True``."""
    _signal_checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    return _simple("exponential", M, sym, dtype, layout, requires_grad,
                   lambda n, big: np.exp(-np.abs(n - ((big - 1) / 2.0 if center is None else center)) / tau))


def kaiser(M: int, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """``I0(beta sqrt(1 - (2 n / (M - 1) - 1)^2)) / I0(beta)`` (``torch.signal.windows.kaiser``);
    ValueError for beta < 0."""
    _signal_checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    return _simple("kaiser", M, sym, dtype, layout, requires_grad,
                   lambda n, big: np.i0(beta * np.sqrt(np.maximum(1 - (2 * n / (big - 1) - 1) ** 2, 0))) / np.i0(beta),
                   ones_at_1=True)
