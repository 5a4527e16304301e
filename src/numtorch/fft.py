"""``torch.fft``: discrete Fourier transforms and their helpers, differentiable.

Every transform checks and canonicalizes its arguments here as PyTorch does (``n``/``s`` trim or
zero-pad the input at the end of each transformed dim, ``-1`` in ``s`` keeps that dim's size, ``dim``
defaults to the last ``len(s)`` dims), promotes integer and bool inputs to the default float dtype,
and then runs one of the three ops of ``_ops/spectral.py`` (c2c, r2c, c2r). Dtypes follow PyTorch:
float32/complex64 in -> complex64 out (``irfft``/``hfft``: float32 out), float64/complex128 ->
complex128 (float64); float16 and bfloat16 raise RuntimeError, as on PyTorch's CPU.

``hfft`` is ``irfft`` of the conjugate with the dual scaling, and ``ihfft`` the conjugate of ``rfft``
with the dual scaling, exactly PyTorch's definitions (so ``ihfft``'s node is ``ConjBackward0``).
"""
from __future__ import annotations

import numpy as np

from . import _dtype
from ._ops.complex_ops import conj
from ._ops._cast import _ATEN_NAMES as _TYPE  # PyTorch's scalar-type names
from ._ops._out import _out
from ._ops.rearrange import roll
from ._ops.spectral import FftC2CBackward0, FftC2RBackward0, FftR2CBackward0
from ._tensor import Tensor, _make, _wrap_dim

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
           "Tensor"]

_NORMS = (None, "backward", "ortho", "forward")
_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_REAL_ONLY = {"rfft": "rfft expects a real input tensor, but got ",
              "ihfft": "ihfft expects a real input tensor, but got ",
              "rfftn": "rfftn expects a real-valued input tensor, but got ",
              "ihfftn": "Only supports floating-point dtypes, but found: "}


# ------------------------------------------------------------------------------------------------
# argument checking, in PyTorch's words
# ------------------------------------------------------------------------------------------------
def _int(v, fn, arg):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"fft_{fn}(): argument '{arg}' must be int, not {type(v).__name__}")
    return int(v)


def _ints(v, fn, arg):
    """An int or a sequence of ints as a list (PyTorch's ``int[]?`` arguments accept a bare int)."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return [int(v)]
    if not isinstance(v, (tuple, list)) or any(isinstance(x, (bool, np.bool_)) or
                                                not isinstance(x, (int, np.integer)) for x in v):
        raise TypeError(f"fft_{fn}(): argument '{arg}' must be tuple of ints, not {type(v).__name__}")
    return [int(x) for x in v]


def _norm(norm, fn):
    if norm is not None and not isinstance(norm, str):
        raise TypeError(f"fft_{fn}(): argument 'norm' must be str, not {type(norm).__name__}")
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm or "backward"


def _input(x, fn, real_only=None):
    """``x`` ready to transform: a float or complex Tensor (integers and bool become the default float).
    ``real_only`` (a key of ``_REAL_ONLY``) makes a complex input a RuntimeError."""
    if not isinstance(x, Tensor):
        raise TypeError(f"fft_{fn}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    dt = x._data.dtype
    if dt.kind in "biu":
        return _make(x._data.astype(_dtype.get_default_dtype().np))
    if dt.kind == "c" and real_only:
        raise RuntimeError(_REAL_ONLY[real_only] + _TYPE[dt.name])
    if dt.kind not in "fc" or dt.itemsize < 4:
        raise RuntimeError(f"Unsupported dtype {_TYPE.get(dt.name, dt.name)}")
    return x


def _dim(d, ndim):
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return _wrap_dim(d, ndim)


def _dim2(dim, fn):
    """The 2-D transforms take a tuple ``dim`` (default ``(-2, -1)``), never None."""
    if dim is None:
        raise TypeError(f"fft_{fn}(): argument 'dim' must be tuple of ints, not NoneType")
    return dim


def _check_sizes(sizes):
    for n in sizes:
        if n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _shape_and_dims(x, s, dim, fn):
    """PyTorch's ``canonicalize_fft_shape_and_dim_args``: the transformed ``dims`` and their sizes."""
    shape, nd = x._data.shape, x._data.ndim
    dims = None
    if dim is not None:
        dims = [_dim(d, nd) for d in _ints(dim, fn, "dim")]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = _ints(s, fn, "s")
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > nd:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {nd} dimensions.")
        if dims is None:
            dims = list(range(nd - len(s), nd))
        sizes = [shape[d] if n == -1 else n for d, n in zip(dims, s)]
    else:
        dims = list(range(nd)) if dims is None else dims
        sizes = [shape[d] for d in dims]
    _check_sizes(sizes)
    return tuple(dims), sizes


def _finish(result, out, fn, want_complex):
    if out is None:
        return result
    kind = out._data.dtype.kind
    if want_complex and kind != "c":
        raise RuntimeError(f"{fn} expects a complex output tensor, but got {_TYPE.get(out.dtype.name)}")
    if not want_complex and kind != "f":
        raise RuntimeError(f"{fn} expects a floating point output tensor, but got {_TYPE.get(out.dtype.name)}")
    return _out(result, out)


# ------------------------------------------------------------------------------------------------
# the transforms, built on three ops
# ------------------------------------------------------------------------------------------------
def _c2c_or_r2c(x, dims, sizes, norm, forward):
    if x._data.dtype.kind == "c":
        return FftC2CBackward0.apply(x, dims=dims, s=sizes, norm=norm, forward=forward)
    return FftR2CBackward0.apply(x, dims=dims, s=sizes, norm=norm, forward=forward, onesided=False)


def _fft1(x, n, dim, norm, fn, forward):
    x, norm = _input(x, fn), _norm(norm, fn)
    d = _dim(_int(dim, fn, "dim"), x._data.ndim)
    n = x._data.shape[d] if n is None else _int(n, fn, "n")
    _check_sizes([n])
    return _c2c_or_r2c(x, (d,), [n], norm, forward)


def _fftn(x, s, dim, norm, fn, forward):
    x, norm = _input(x, fn), _norm(norm, fn)
    dims, sizes = _shape_and_dims(x, s, dim, fn)
    return _c2c_or_r2c(x, dims, sizes, norm, forward)


def _rfft(x, s, dim, norm, fn, err_name, one_d):
    """Forward onesided real transform (``rfft``/``rfftn``; ``ihfft*`` conjugate it)."""
    x, norm = _input(x, fn, real_only=err_name), _norm(norm, fn)
    if one_d:
        d = _dim(_int(dim, fn, "dim"), x._data.ndim)
        dims, sizes = (d,), [x._data.shape[d] if s is None else _int(s, fn, "n")]
        _check_sizes(sizes)
    else:
        dims, sizes = _shape_and_dims(x, s, dim, fn)
        if not dims:
            raise RuntimeError(f"{err_name} must transform at least one axis")
    return FftR2CBackward0.apply(x, dims=dims, s=sizes, norm=norm, forward=True, onesided=True)


def _irfft(x, s, dim, norm, fn, err_name, one_d):
    """Inverse onesided transform to a real signal (``irfft``/``irfftn``; ``hfft*`` conjugate the input).
    The last transformed dim's output length defaults to ``2 * (m - 1)`` for an input of length ``m``."""
    x, norm = _input(x, fn), _norm(norm, fn)
    if one_d:
        d = _dim(_int(dim, fn, "dim"), x._data.ndim)
        dims, sizes = (d,), [2 * (x._data.shape[d] - 1) if s is None else _int(s, fn, "n")]
    else:
        dims, sizes = _shape_and_dims(x, s, dim, fn)
        if not dims:
            raise RuntimeError(f"{err_name} must transform at least one axis")
        if s is None or _ints(s, fn, "s")[-1] == -1:
            sizes[-1] = 2 * (x._data.shape[dims[-1]] - 1)
    _check_sizes(sizes)
    return FftC2RBackward0.apply(x, dims=dims, s=sizes, norm=norm)


def _hfft(x, s, dim, norm, fn, err_name, one_d):
    _norm(norm, fn)
    x = _input(x, fn)
    return _irfft(conj(x), s, dim, _DUAL[norm or "backward"], fn, err_name, one_d)


def _ihfft(x, s, dim, norm, fn, err_name, one_d):
    _norm(norm, fn)
    return conj(_rfft(x, s, dim, _DUAL[norm or "backward"], fn, err_name, one_d))


# ------------------------------------------------------------------------------------------------
# public API
# ------------------------------------------------------------------------------------------------
def fft(input: Tensor, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    """1-D discrete Fourier transform along ``dim`` (``torch.fft.fft``).

    ``n`` trims or zero-pads ``input`` along ``dim`` first (default: its size). ``norm``: ``None`` or
    ``"backward"`` (unscaled), ``"ortho"`` (``1/sqrt(n)``), ``"forward"`` (``1/n``). Real input gives the
    full (Hermitian) spectrum. Output complex64 or complex128. Errors as PyTorch: IndexError for a bad
    ``dim``, RuntimeError for ``n < 1``, an unknown ``norm`` or a half-precision input, TypeError for
    non-int ``n``/``dim``.
    """
    return _finish(_fft1(input, n, dim, norm, "fft", True), out, "fft", True)


def ifft(input: Tensor, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    """1-D inverse discrete Fourier transform (``torch.fft.ifft``); ``norm="backward"`` scales by ``1/n``.
    Arguments, dtypes and errors as :func:`fft`."""
    return _finish(_fft1(input, n, dim, norm, "ifft", False), out, "ifft", True)


def fft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    """2-D discrete Fourier transform over ``dim`` (``torch.fft.fft2``); see :func:`fftn`."""
    return _finish(_fftn(input, s, _dim2(dim, "fft2"), norm, "fft2", True), out, "fftn", True)


def ifft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    """2-D inverse discrete Fourier transform over ``dim`` (``torch.fft.ifft2``); see :func:`ifftn`."""
    return _finish(_fftn(input, s, _dim2(dim, "ifft2"), norm, "ifft2", False), out, "ifftn", True)


def fftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """N-D discrete Fourier transform (``torch.fft.fftn``).

    ``dim``: the dims to transform (default: the last ``len(s)`` dims, or all). ``s``: the signal size
    per transformed dim (trim or zero-pad at the end; ``-1`` keeps that dim). ``norm`` as :func:`fft`
    with ``N = prod(s)``. RuntimeError for repeated dims, ``s``/``dim`` of different lengths, ``s``
    longer than ``input.ndim`` or a size below 1; IndexError for a dim out of range.
    """
    return _finish(_fftn(input, s, dim, norm, "fftn", True), out, "fftn", True)


def ifftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """N-D inverse discrete Fourier transform (``torch.fft.ifftn``); arguments as :func:`fftn`."""
    return _finish(_fftn(input, s, dim, norm, "ifftn", False), out, "ifftn", True)


def rfft(input: Tensor, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    """1-D Fourier transform of a real signal, onesided (``torch.fft.rfft``).

    Output length along ``dim`` is ``n // 2 + 1`` (``n`` defaults to the input's size); float32 ->
    complex64, float64 -> complex128. RuntimeError for a complex input; otherwise as :func:`fft`.
    """
    return _finish(_rfft(input, n, dim, norm, "rfft", "rfft", True), out, "rfft", True)


def irfft(input: Tensor, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    """Inverse of :func:`rfft`: a onesided spectrum to a real signal of length ``n`` along ``dim``
    (``torch.fft.irfft``). ``n`` defaults to ``2 * (m - 1)`` for an input of length ``m``; the input is
    trimmed or zero-padded to ``n // 2 + 1`` bins. Output float32 or float64. RuntimeError when the
    output length is below 1."""
    return _finish(_irfft(input, n, dim, norm, "irfft", "irfft", True), out, "irfft", False)


def rfft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    """2-D :func:`rfftn` over ``dim`` (``torch.fft.rfft2``)."""
    return _finish(_rfft(input, s, _dim2(dim, "rfft2"), norm, "rfft2", "rfftn", False), out, "rfftn", True)


def irfft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    """2-D :func:`irfftn` over ``dim`` (``torch.fft.irfft2``)."""
    return _finish(_irfft(input, s, _dim2(dim, "irfft2"), norm, "irfft2", "irfftn", False), out, "irfftn", False)


def rfftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """N-D Fourier transform of a real signal (``torch.fft.rfftn``): full transforms over all but the
    last of ``dim``, onesided (``s[-1] // 2 + 1`` bins) over the last. Arguments as :func:`fftn`;
    RuntimeError for a complex input or no dims to transform."""
    return _finish(_rfft(input, s, dim, norm, "rfftn", "rfftn", False), out, "rfftn", True)


def irfftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """Inverse of :func:`rfftn`, real output (``torch.fft.irfftn``). The last dim's output size is
    ``s[-1]`` or, when not given (or ``-1``), ``2 * (m - 1)``. Arguments as :func:`fftn`."""
    return _finish(_irfft(input, s, dim, norm, "irfftn", "irfftn", False), out, "irfftn", False)


def hfft(input: Tensor, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    """Fourier transform of a Hermitian-symmetric signal given by its first half (``torch.fft.hfft``):
    a real output of length ``n`` (default ``2 * (m - 1)``). ``norm="backward"`` is unscaled.
    Equals ``irfft(input.conj(), n, dim, dual norm)``."""
    return _finish(_hfft(input, n, dim, norm, "hfft", "hfft", True), out, "hfft", False)


def ihfft(input: Tensor, n=None, dim=-1, norm=None, *, out=None) -> Tensor:
    """Inverse of :func:`hfft` for a real signal: the onesided half, ``n // 2 + 1`` bins
    (``torch.fft.ihfft``); ``norm="backward"`` scales by ``1/n``. RuntimeError for a complex input."""
    return _finish(_ihfft(input, n, dim, norm, "ihfft", "ihfft", True), out, "ihfft", True)


def hfft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    """2-D :func:`hfftn` over ``dim`` (``torch.fft.hfft2``)."""
    return _finish(_hfft(input, s, _dim2(dim, "hfft2"), norm, "hfft2", "hfftn", False), out, "hfftn", False)


def ihfft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:
    """2-D :func:`ihfftn` over ``dim`` (``torch.fft.ihfft2``)."""
    return _finish(_ihfft(input, s, _dim2(dim, "ihfft2"), norm, "ihfft2", "ihfftn", False), out, "ihfftn", True)


def hfftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """N-D :func:`hfft`: the last of ``dim`` is the Hermitian half (``torch.fft.hfftn``); real output."""
    return _finish(_hfft(input, s, dim, norm, "hfftn", "hfftn", False), out, "hfftn", False)


def ihfftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:
    """N-D :func:`ihfft` of a real signal: onesided along the last of ``dim`` (``torch.fft.ihfftn``)."""
    return _finish(_ihfft(input, s, dim, norm, "ihfftn", "ihfftn", False), out, "ihfftn", True)


# ------------------------------------------------------------------------------------------------
# frequencies and shifts
# ------------------------------------------------------------------------------------------------
def _freq(k, n, d, fn, out, dtype, requires_grad):
    if isinstance(d, Tensor):
        d = d.item()
    if isinstance(d, (bool, str)) or not isinstance(d, (int, float, np.number)):
        raise TypeError(f"fft_{fn}(): argument 'd' must be float, not {type(d).__name__}")
    dt = dtype if dtype is not None else out.dtype if out is not None else _dtype.get_default_dtype()
    if not dt.is_floating_point:
        raise RuntimeError(f"{fn} requires a floating point or complex dtype")
    npd = dt.np
    with np.errstate(divide="ignore", invalid="ignore"):  # n == 0: PyTorch gives nan (rfftfreq) or empty
        scale = np.float64(1.0) / (np.float64(n) * np.float64(d))
        # like PyTorch: bin numbers in the output dtype times the scale rounded to that dtype
        res = _make(k.astype(npd) * npd.type(scale))
    if out is not None:
        return _out(res, out)
    if requires_grad:
        res.requires_grad_(True)
    return res


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """Sample frequencies of a length-``n`` FFT with sample spacing ``d`` (``torch.fft.fftfreq``):
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``.

    dtype: ``dtype`` or the default float dtype. TypeError for a non-int ``n``; RuntimeError for a
    negative ``n`` or a non-floating ``dtype``.
    """
    n = _int(n, "fftfreq", "n")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    k = np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
    return _freq(k, n, d, "fftfreq", out, dtype, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """Sample frequencies of a length-``n`` :func:`rfft` (``torch.fft.rfftfreq``):
    ``[0, 1, ..., n // 2] / (d * n)``. dtype and errors as :func:`fftfreq`."""
    n = _int(n, "rfftfreq", "n")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    return _freq(np.arange(n // 2 + 1), n, d, "rfftfreq", out, dtype, requires_grad)


def _shift(x, dim, fn, inverse):
    if not isinstance(x, Tensor):
        raise TypeError(f"fft_{fn}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    shape = x._data.shape
    dims = list(range(len(shape))) if dim is None else [_wrap_dim(d, len(shape)) for d in _ints(dim, fn, "dim")]
    if not dims:
        raise RuntimeError("`shifts` required")
    shifts = [(shape[d] + 1) // 2 if inverse else shape[d] // 2 for d in dims]
    return roll(x, shifts, dims)


def fftshift(input: Tensor, dim=None) -> Tensor:
    """Move the zero-frequency bin to the center: roll each of ``dim`` (default all) by ``size // 2``
    (``torch.fft.fftshift``); differentiable (a roll). IndexError for a dim out of range."""
    return _shift(input, dim, "fftshift", False)


def ifftshift(input: Tensor, dim=None) -> Tensor:
    """Inverse of :func:`fftshift`: roll each of ``dim`` by ``(size + 1) // 2`` (``torch.fft.ifftshift``)."""
    return _shift(input, dim, "ifftshift", True)
