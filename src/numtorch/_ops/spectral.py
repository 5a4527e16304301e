"""The three FFT ops behind ``numtorch.fft`` (PyTorch's ``_fft_c2c``, ``_fft_r2c``, ``_fft_c2r``), and the
transforms, frequencies and shifts built on them, with PyTorch's argument checks.

The transforms are ``scipy.fft``'s (pocketfft), which keeps float32/complex64 in single precision
as PyTorch does. ``s`` (the transform length along each of ``dims``) zero-pads or trims the input
at the end of each dim before transforming; ``norm`` is the scaling mode of the named direction:
``"backward"`` (forward transform unscaled, inverse ``1/N``), ``"ortho"`` (``1/sqrt(N)`` both ways)
or ``"forward"`` (forward ``1/N``, inverse unscaled), with ``N = prod(s)``.

Backward of a linear map is its adjoint, here always the opposite-direction transform with the
*same* scale factor: passing scipy the dual norm mode (``"backward" <-> "forward"``) to the
opposite-direction function gives exactly that. Two more pieces come from real signals:

* r2c onesided (``rfft``): the output keeps bins ``0 .. n//2`` of ``n``. The adjoint is
  ``Re(F^H g_padded)``; ``irfft`` computes ``Re`` of the Hermitian extension, which counts each bin
  ``1 .. (n-1)//2`` twice, so those bins of the gradient are halved first.
* c2r (``irfft``): the input's bins ``1 .. (n-1)//2`` each stand for a conjugate pair of the full
  spectrum, so the gradient (an ``rfft``) is doubled there; the imaginary parts of bin 0 (and of
  bin ``n/2`` for even ``n``) do not reach the output and get a zero gradient (rfft gives a real value).

Gradients of complex tensors follow PyTorch's convention (``dL/dRe + i dL/dIm``); a real input gets
the real part.
"""
from __future__ import annotations

import importlib
import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make, _wrap_dim
from ..autograd.function import Op
from .complex_ops import conj
from .pointwise import _out
from .rearrange import cat, roll


class _Lazy__sf:
    """``scipy.fft``, imported on first use so that ``import numtorch`` stays light."""

    def __getattr__(self, attr):
        return getattr(importlib.import_module("scipy.fft"), attr)


_sf = _Lazy__sf()


__all__ = []  # internal: numtorch.fft is the public face

_NORMS = (None, "backward", "ortho", "forward")
_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_REAL_ONLY = {"rfft": "rfft expects a real input tensor, but got ",
              "ihfft": "ihfft expects a real input tensor, but got ",
              "rfftn": "rfftn expects a real-valued input tensor, but got ",
              "ihfftn": "Only supports floating-point dtypes, but found: "}
_COMPLEX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def resize(a: np.ndarray, dims, sizes) -> np.ndarray:
    """``a`` trimmed or zero-padded at the end of each of ``dims`` to ``sizes`` (``a`` itself if equal)."""
    cut = [slice(None)] * a.ndim
    pad = [(0, 0)] * a.ndim
    trim = grow = False
    for d, n in zip(dims, sizes):
        if a.shape[d] > n:
            cut[d], trim = slice(0, n), True
        elif a.shape[d] < n:
            pad[d], grow = (0, n - a.shape[d]), True
    if trim:
        a = a[tuple(cut)]
    if grow:
        a = np.pad(a, pad)
    return a


def _scale_paired_bins(a: np.ndarray, dim: int, n: int, factor: float) -> None:
    """Multiply, in place, bins ``1 .. (n-1)//2`` along ``dim`` of a onesided spectrum of a length-``n``
    signal: the bins whose conjugate twin the onesided form leaves out."""
    idx = [slice(None)] * a.ndim
    idx[dim] = slice(1, (n + 1) // 2)
    a[tuple(idx)] *= factor


class FftC2CBackward0(Op):
    """Complex-to-complex n-D transform; ``forward`` picks the direction (``fftn`` or ``ifftn``)."""

    def forward(self, a, dims, s, norm, forward):
        self.in_sizes = [a.shape[d] for d in dims]
        self.dims, self.norm, self.fwd = dims, norm, forward
        if not dims:
            return a.copy()
        return (_sf.fftn if forward else _sf.ifftn)(a, s=s, axes=dims, norm=norm)

    def backward(self, g):
        if not self.dims:
            return g
        if not isinstance(g, np.ndarray):  # create_graph: the adjoint with the differentiable ops
            return g.apply_tensor_fn(_c2c_adjoint, self)
        adj = _sf.ifftn if self.fwd else _sf.fftn
        return resize(adj(g, axes=self.dims, norm=_DUAL[self.norm]), self.dims, self.in_sizes)


class FftR2CBackward0(Op):
    """Real-to-complex n-D transform: the full spectrum (``onesided=False``, either direction) or,
    forward only, the onesided one of ``rfftn`` (last of ``dims`` halved to ``s[-1]//2 + 1``)."""

    def forward(self, a, dims, s, norm, forward, onesided):
        self.in_sizes = [a.shape[d] for d in dims]
        self.dims, self.s, self.norm, self.fwd, self.onesided = dims, s, norm, forward, onesided
        if onesided:
            return _sf.rfftn(a, s=s, axes=dims, norm=norm)
        if not dims:
            return a.astype(_COMPLEX[a.dtype])
        return (_sf.fftn if forward else _sf.ifftn)(a, s=s, axes=dims, norm=norm)

    def backward(self, g):
        dims = self.dims
        if not isinstance(g, np.ndarray):  # create_graph: the adjoint with the differentiable ops
            return g.apply_tensor_fn(_r2c_adjoint, self)
        if self.onesided:
            h = g.copy()
            _scale_paired_bins(h, dims[-1], self.s[-1], 0.5)
            gi = _sf.irfftn(h, s=self.s, axes=dims, norm=_DUAL[self.norm])
        elif not dims:
            return g.real.copy()
        else:
            gi = (_sf.ifftn if self.fwd else _sf.fftn)(g, axes=dims, norm=_DUAL[self.norm]).real
        return resize(gi, dims, self.in_sizes)


class FftC2RBackward0(Op):
    """Complex-to-real n-D inverse transform of a onesided spectrum (``irfftn``): the input is first
    trimmed/padded to ``s[:-1] + [s[-1]//2 + 1]``, the output is real with sizes ``s``."""

    def forward(self, a, dims, s, norm):
        self.in_sizes = [a.shape[d] for d in dims]
        self.dims, self.s, self.norm, self.real_in = dims, s, norm, a.dtype.kind != "c"
        if self.real_in:  # a real tensor is a spectrum with zero imaginary parts
            a = a.astype(_COMPLEX[a.dtype])
        return _sf.irfftn(a, s=s, axes=dims, norm=norm)

    def backward(self, g):
        if not isinstance(g, np.ndarray):  # create_graph: the adjoint with the differentiable ops
            return g.apply_tensor_fn(_c2r_adjoint, self)
        gi = _sf.rfftn(g, axes=self.dims, norm=_DUAL[self.norm])
        _scale_paired_bins(gi, self.dims[-1], self.s[-1], 2.0)
        gi = resize(gi, self.dims, self.in_sizes)
        return gi.real.copy() if self.real_in else gi


# ------------------------------------------------------------------------------------------------
# the same adjoints on Tensors, built from the three ops (create_graph=True differentiates through them)
# ------------------------------------------------------------------------------------------------
def _resize_t(t: Tensor, dims, sizes) -> Tensor:
    """``resize`` on a Tensor: trim with ``narrow``, pad with zeros by ``cat``."""
    for d, n in zip(dims, sizes):
        m = t._data.shape[d]
        if m > n:
            t = t.narrow(d, 0, n)
        elif m < n:
            shape = list(t._data.shape)
            shape[d] = n - m
            t = cat([t, _make(np.zeros(shape, t._data.dtype))], d)
    return t


def _paired_bins_scaled(t: Tensor, dim: int, n: int, factor: float) -> Tensor:
    f = np.ones(t._data.shape[dim], np.float64)
    f[1:(n + 1) // 2] = factor
    f = f.reshape((-1,) + (1,) * (t._data.ndim - 1 - dim)).astype(t._data.real.dtype)
    return t * _make(f)


def _sizes(t: Tensor, dims):
    return [t._data.shape[d] for d in dims]


def _c2c_adjoint(g: Tensor, node) -> Tensor:
    gi = FftC2CBackward0.apply(g, dims=node.dims, s=_sizes(g, node.dims), norm=_DUAL[node.norm],
                               forward=not node.fwd)
    return _resize_t(gi, node.dims, node.in_sizes)


def _r2c_adjoint(g: Tensor, node) -> Tensor:
    dims = node.dims
    if node.onesided:
        h = _paired_bins_scaled(g, dims[-1], node.s[-1], 0.5)
        gi = FftC2RBackward0.apply(h, dims=dims, s=list(node.s), norm=_DUAL[node.norm])
    elif not dims:
        return g.real
    else:
        gi = FftC2CBackward0.apply(g, dims=dims, s=_sizes(g, dims), norm=_DUAL[node.norm], forward=not node.fwd).real
    return _resize_t(gi, dims, node.in_sizes)


def _c2r_adjoint(g: Tensor, node) -> Tensor:
    gi = FftR2CBackward0.apply(g, dims=node.dims, s=_sizes(g, node.dims), norm=_DUAL[node.norm], forward=True,
                               onesided=True)
    gi = _resize_t(_paired_bins_scaled(gi, node.dims[-1], node.s[-1], 2.0), node.dims, node.in_sizes)
    return gi.real if node.real_in else gi


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
        raise RuntimeError(_REAL_ONLY[real_only] + _dtype.from_np(dt)._aten_name)
    if dt.kind not in "fc" or dt.itemsize < 4:
        raise RuntimeError(f"Unsupported dtype {_dtype.from_np(dt)._aten_name}")
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
        raise RuntimeError(f"{fn} expects a complex output tensor, but got {out.dtype._aten_name}")
    if not want_complex and kind != "f":
        raise RuntimeError(f"{fn} expects a floating point output tensor, but got {out.dtype._aten_name}")
    return _out(result, out)


# ------------------------------------------------------------------------------------------------
# the transforms behind numtorch.fft, built on the three ops
# ------------------------------------------------------------------------------------------------
def _c2c_or_r2c(x, dims, sizes, norm, forward):
    if x._data.dtype.kind == "c":
        return FftC2CBackward0.apply(x, dims=dims, s=sizes, norm=norm, forward=forward)
    return FftR2CBackward0.apply(x, dims=dims, s=sizes, norm=norm, forward=forward, onesided=False)


def _fft1(x, n, dim, norm, fn, forward, out=None):
    x, norm = _input(x, fn), _norm(norm, fn)
    d = _dim(_int(dim, fn, "dim"), x._data.ndim)
    n = x._data.shape[d] if n is None else _int(n, fn, "n")
    _check_sizes([n])
    return _finish(_c2c_or_r2c(x, (d,), [n], norm, forward), out, fn, True)


def _fftn(x, s, dim, norm, fn, forward, out=None):
    x, norm = _input(x, fn), _norm(norm, fn)
    dims, sizes = _shape_and_dims(x, s, dim, fn)
    return _finish(_c2c_or_r2c(x, dims, sizes, norm, forward), out, "fftn" if forward else "ifftn", True)


def _rfft(x, s, dim, norm, fn, err_name, one_d, out=None):
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
    return _finish(FftR2CBackward0.apply(x, dims=dims, s=sizes, norm=norm, forward=True, onesided=True), out,
                   err_name, True)


def _irfft(x, s, dim, norm, fn, err_name, one_d, out=None):
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
    return _finish(FftC2RBackward0.apply(x, dims=dims, s=sizes, norm=norm), out, err_name, False)


def _hfft(x, s, dim, norm, fn, err_name, one_d, out=None):
    _norm(norm, fn)
    x = _input(x, fn)
    return _irfft(conj(x), s, dim, _DUAL[norm or "backward"], fn, err_name, one_d, out)


def _ihfft(x, s, dim, norm, fn, err_name, one_d, out=None):
    _norm(norm, fn)
    return _finish(conj(_rfft(x, s, dim, _DUAL[norm or "backward"], fn, err_name, one_d)), out, err_name, True)


# ------------------------------------------------------------------------------------------------
# frequencies and shifts
# ------------------------------------------------------------------------------------------------
def _frequencies(n, d, fn, onesided, out, dtype, requires_grad):
    """``fftfreq``'s bins ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1]`` or, ``onesided``, ``rfftfreq``'s
    ``[0, 1, ..., n // 2]``, divided by ``d * n``."""
    n = _int(n, fn, "n")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    k = np.arange(n // 2 + 1) if onesided else np.concatenate([np.arange((n + 1) // 2), np.arange(-(n // 2), 0)])
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


def _shift(x, dim, fn, inverse):
    if not isinstance(x, Tensor):
        raise TypeError(f"fft_{fn}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    shape = x._data.shape
    dims = list(range(len(shape))) if dim is None else [_wrap_dim(d, len(shape)) for d in _ints(dim, fn, "dim")]
    if not dims:
        raise RuntimeError("`shifts` required")
    shifts = [(shape[d] + 1) // 2 if inverse else shape[d] // 2 for d in dims]
    return roll(x, shifts, dims)
