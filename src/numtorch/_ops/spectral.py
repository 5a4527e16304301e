"""The three FFT ops behind ``numtorch.fft`` (PyTorch's ``_fft_c2c``, ``_fft_r2c``, ``_fft_c2r``).

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

import numpy as np

from ..autograd.function import Op

class _Lazy__sf:
    """``scipy.fft``, imported on first use so that ``import numtorch`` stays light."""

    def __getattr__(self, attr):
        import importlib
        return getattr(importlib.import_module("scipy.fft"), attr)


_sf = _Lazy__sf()


__all__ = []  # internal: numtorch.fft is the public face

_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
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
        gi = _sf.rfftn(g, axes=self.dims, norm=_DUAL[self.norm])
        _scale_paired_bins(gi, self.dims[-1], self.s[-1], 2.0)
        gi = resize(gi, self.dims, self.in_sizes)
        return gi.real.copy() if self.real_in else gi
