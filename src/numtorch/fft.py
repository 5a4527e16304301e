"""``torch.fft``: discrete Fourier transforms and their helpers, differentiable.

Every transform checks and canonicalizes its arguments as PyTorch does (``n``/``s`` trim or
zero-pad the input at the end of each transformed dim, ``-1`` in ``s`` keeps that dim's size, ``dim``
defaults to the last ``len(s)`` dims), promotes integer and bool inputs to the default float dtype,
and then runs one of the three ops (c2c, r2c, c2r); the functions here are the public signatures and
docs, the work is in ``_ops/spectral.py``. Dtypes follow PyTorch: float32/complex64 in -> complex64
out (``irfft``/``hfft``: float32 out), float64/complex128 -> complex128 (float64); float16 and
bfloat16 raise RuntimeError, as on PyTorch's CPU.

``hfft`` is ``irfft`` of the conjugate with the dual scaling, and ``ihfft`` the conjugate of ``rfft``
with the dual scaling, exactly PyTorch's definitions (so ``ihfft``'s node is ``ConjBackward0``).
"""
from __future__ import annotations

from ._ops import spectral as _sp
from ._tensor import Tensor

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
           "Tensor"]


def fft(input: Tensor, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    """1-D discrete Fourier transform along ``dim`` (``torch.fft.fft``).

    ``n`` trims or zero-pads ``input`` along ``dim`` first (default: its size). ``norm``: ``None`` or
    ``"backward"`` (unscaled), ``"ortho"`` (``1/sqrt(n)``), ``"forward"`` (``1/n``). Real input gives the
    full (Hermitian) spectrum. Output complex64 or complex128. Errors as PyTorch: IndexError for a bad
    ``dim``, RuntimeError for ``n < 1``, an unknown ``norm`` or a half-precision input, TypeError for
    non-int ``n``/``dim``.
    """
    return _sp._fft1(input, n, dim, norm, "fft", True, out)


def ifft(input: Tensor, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    """1-D inverse discrete Fourier transform (``torch.fft.ifft``); ``norm="backward"`` scales by ``1/n``.
    Arguments, dtypes and errors as :func:`fft`."""
    return _sp._fft1(input, n, dim, norm, "ifft", False, out)


def fft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    """2-D discrete Fourier transform over ``dim`` (``torch.fft.fft2``); see :func:`fftn`."""
    return _sp._fftn(input, s, _sp._dim2(dim, "fft2"), norm, "fft2", True, out)


def ifft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    """2-D inverse discrete Fourier transform over ``dim`` (``torch.fft.ifft2``); see :func:`ifftn`."""
    return _sp._fftn(input, s, _sp._dim2(dim, "ifft2"), norm, "ifft2", False, out)


def fftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """N-D discrete Fourier transform (``torch.fft.fftn``).

    ``dim``: the dims to transform (default: the last ``len(s)`` dims, or all). ``s``: the signal size
    per transformed dim (trim or zero-pad at the end; ``-1`` keeps that dim). ``norm`` as :func:`fft`
    with ``N = prod(s)``. RuntimeError for repeated dims, ``s``/``dim`` of different lengths, ``s``
    longer than ``input.ndim`` or a size below 1; IndexError for a dim out of range.
    """
    return _sp._fftn(input, s, dim, norm, "fftn", True, out)


def ifftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """N-D inverse discrete Fourier transform (``torch.fft.ifftn``); arguments as :func:`fftn`."""
    return _sp._fftn(input, s, dim, norm, "ifftn", False, out)


def rfft(input: Tensor, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    """1-D Fourier transform of a real signal, onesided (``torch.fft.rfft``).

    Output length along ``dim`` is ``n // 2 + 1`` (``n`` defaults to the input's size); float32 ->
    complex64, float64 -> complex128. RuntimeError for a complex input; otherwise as :func:`fft`.
    """
    return _sp._rfft(input, n, dim, norm, "rfft", "rfft", True, out)


def irfft(input: Tensor, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    """Inverse of :func:`rfft`: a onesided spectrum to a real signal of length ``n`` along ``dim``
    (``torch.fft.irfft``). ``n`` defaults to ``2 * (m - 1)`` for an input of length ``m``; the input is
    trimmed or zero-padded to ``n // 2 + 1`` bins. Output float32 or float64. RuntimeError when the
    output length is below 1."""
    return _sp._irfft(input, n, dim, norm, "irfft", "irfft", True, out)


def rfft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    """2-D :func:`rfftn` over ``dim`` (``torch.fft.rfft2``)."""
    return _sp._rfft(input, s, _sp._dim2(dim, "rfft2"), norm, "rfft2", "rfftn", False, out)


def irfft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    """2-D :func:`irfftn` over ``dim`` (``torch.fft.irfft2``)."""
    return _sp._irfft(input, s, _sp._dim2(dim, "irfft2"), norm, "irfft2", "irfftn", False, out)


def rfftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """N-D Fourier transform of a real signal (``torch.fft.rfftn``): full transforms over all but the
    last of ``dim``, onesided (``s[-1] // 2 + 1`` bins) over the last. Arguments as :func:`fftn`;
    RuntimeError for a complex input or no dims to transform."""
    return _sp._rfft(input, s, dim, norm, "rfftn", "rfftn", False, out)


def irfftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """Inverse of :func:`rfftn`, real output (``torch.fft.irfftn``). The last dim's output size is
    ``s[-1]`` or, when not given (or ``-1``), ``2 * (m - 1)``. Arguments as :func:`fftn`."""
    return _sp._irfft(input, s, dim, norm, "irfftn", "irfftn", False, out)


def hfft(input: Tensor, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    """Fourier transform of a Hermitian-symmetric signal given by its first half (``torch.fft.hfft``):
    a real output of length ``n`` (default ``2 * (m - 1)``). ``norm="backward"`` is unscaled.
    Equals ``irfft(input.conj(), n, dim, dual norm)``."""
    return _sp._hfft(input, n, dim, norm, "hfft", "hfft", True, out)


def ihfft(input: Tensor, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    """Inverse of :func:`hfft` for a real signal: the onesided half, ``n // 2 + 1`` bins
    (``torch.fft.ihfft``); ``norm="backward"`` scales by ``1/n``. RuntimeError for a complex input."""
    return _sp._ihfft(input, n, dim, norm, "ihfft", "ihfft", True, out)


def hfft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    """2-D :func:`hfftn` over ``dim`` (``torch.fft.hfft2``)."""
    return _sp._hfft(input, s, _sp._dim2(dim, "hfft2"), norm, "hfft2", "hfftn", False, out)


def ihfft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    """2-D :func:`ihfftn` over ``dim`` (``torch.fft.ihfft2``)."""
    return _sp._ihfft(input, s, _sp._dim2(dim, "ihfft2"), norm, "ihfft2", "ihfftn", False, out)


def hfftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """N-D :func:`hfft`: the last of ``dim`` is the Hermitian half (``torch.fft.hfftn``); real output."""
    return _sp._hfft(input, s, dim, norm, "hfftn", "hfftn", False, out)


def ihfftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """N-D :func:`ihfft` of a real signal: onesided along the last of ``dim`` (``torch.fft.ihfftn``)."""
    return _sp._ihfft(input, s, dim, norm, "ihfftn", "ihfftn", False, out)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """Sample frequencies of a length-``n`` FFT with sample spacing ``d`` (``torch.fft.fftfreq``):
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``.

    dtype: ``dtype`` or the default float dtype. TypeError for a non-int ``n``; RuntimeError for a
    negative ``n`` or a non-floating ``dtype``.
    """
    return _sp._frequencies(n, d, "fftfreq", False, out, dtype, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """Sample frequencies of a length-``n`` :func:`rfft` (``torch.fft.rfftfreq``):
    ``[0, 1, ..., n // 2] / (d * n)``. dtype and errors as :func:`fftfreq`."""
    return _sp._frequencies(n, d, "rfftfreq", True, out, dtype, requires_grad)


def fftshift(input: Tensor, dim=None) -> Tensor:
    """Move the zero-frequency bin to the center: roll each of ``dim`` (default all) by ``size // 2``
    (``torch.fft.fftshift``); differentiable (a roll). IndexError for a dim out of range."""
    return _sp._shift(input, dim, "fftshift", False)


def ifftshift(input: Tensor, dim=None) -> Tensor:
    """Inverse of :func:`fftshift`: roll each of ``dim`` by ``(size + 1) // 2`` (``torch.fft.ifftshift``)."""
    return _sp._shift(input, dim, "ifftshift", True)
