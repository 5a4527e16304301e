"""The short-time Fourier transform and its inverse: ``torch.stft`` and ``torch.istft``.

``stft`` cuts the (optionally centre-padded) signal into frames of ``n_fft`` samples every ``hop_length``
samples, multiplies each by the window (zero-padded to ``n_fft`` in the middle) and takes its FFT: an
output ``(n_freq, n_frames)`` per signal. ``istft`` inverts it by weighted overlap-add: the inverse FFT
of each frame, times the window, summed into place, divided by the summed squared window (the
"envelope"), which must not vanish anywhere it is kept.

Both are compositions of differentiable ops (pad, ``unfold``, multiply, the FFT ops of ``spectral.py``,
``index_add``), so gradients, double backward and forward mode come from those ops, as in PyTorch.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from .complex_ops import view_as_real
from .conv import pad as _pad
from .indexing import index_add
from .spectral import FftC2CBackward0, FftR2CBackward0, _irfft

__all__ = ["stft", "istft"]


def _stft_error(msg):
    raise RuntimeError(f"stft: {msg}")


def _padded_window(window, win_length, n_fft, length_err):
    """The window (default: ones) zero-padded on both sides to ``n_fft`` samples (left gets the floor)."""
    if window is None:
        return None
    if window._data.ndim != 1 or window._data.shape[0] != win_length:
        length_err(f"expected a 1D window tensor of size equal to win_length={win_length}, but got window with size "
                   f"{list(window._data.shape)}")
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    return _pad(window, (left, n_fft - win_length - left))


def _lengths(n_fft, hop_length, win_length):
    hop = n_fft // 4 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)
    return hop, win


def stft(input: Tensor, n_fft: int, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None, align_to_window=None) -> Tensor:
    """Short-time Fourier transform (``torch.stft``) of a ``(L,)`` or ``(B, L)`` signal.

    Returns ``(B?, n_freq, n_frames)`` complex (``n_freq = n_fft // 2 + 1`` when ``onesided``, the
    default for a real input and window; else ``n_fft``), or with ``return_complex=False`` (deprecated,
    warns) its ``view_as_real`` ``(..., 2)``. ``hop_length`` defaults to ``n_fft // 4``, ``win_length``
    to ``n_fft``, ``window`` to ones (with PyTorch's warning). ``center`` pads ``n_fft // 2`` on both
    sides with ``pad_mode``; ``normalized`` scales by ``n_fft ** -0.5``.
    RuntimeError when ``return_complex`` is missing for real input, or for bad lengths or shapes.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"stft(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    complex_in = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None:
        if not complex_in:
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                               "require that return_complex=True in a future PyTorch release.")
        return_complex = True
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
                      "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
                      "still call torch.view_as_real on the complex output to recover the old return format.")
    hop, win = _lengths(n_fft, hop_length, win_length)
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied,which is known to cause "
                      "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                      "recommended to reduce spectral leakage.To suppress this warning and use a rectangular window, "
                      "explicitly set `window=torch.ones(n_fft, device=<device>)`.")
    nd = input._data.ndim
    x = input
    if center and nd in (1, 2):
        if pad_mode not in ("constant", "reflect", "replicate", "circular"):
            raise NotImplementedError(f"Unrecognised padding mode {pad_mode}")
        p = n_fft // 2
        x = _pad(x.reshape((1,) * (3 - nd) + tuple(x.shape)), (p, p), pad_mode).reshape(*x.shape[:-1], -1)
    if nd not in (1, 2):
        _stft_error(f"expected a 1D or 2D tensor")
    batched = nd == 2
    x = x if batched else x.unsqueeze(0)
    length = x.shape[-1]
    if n_fft <= 0 or n_fft > length:
        _stft_error(f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        _stft_error(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        _stft_error(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    w = _padded_window(window, win, n_fft, _stft_error)
    if onesided is None:
        onesided = not complex_in
    elif onesided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    frames = x.unfold(-1, n_fft, hop)  # (B, n_frames, n_fft)
    if w is not None:
        frames = frames * w
    if frames.dtype != _dtype.promote_types(x.dtype, frames.dtype):
        frames = frames.to(_dtype.promote_types(x.dtype, frames.dtype))
    norm = "ortho" if normalized else "backward"
    if frames.is_complex():
        spec = FftC2CBackward0.apply(frames, dims=(2,), s=[n_fft], norm=norm, forward=True)
    else:
        spec = FftR2CBackward0.apply(frames, dims=(2,), s=[n_fft], norm=norm, forward=True, onesided=bool(onesided))
    spec = spec.transpose(1, 2)
    spec = spec if batched else spec.squeeze(0)
    return spec if return_complex else view_as_real(spec)


def istft(input: Tensor, n_fft: int, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False) -> Tensor:
    """Inverse short-time Fourier transform (``torch.istft``) of a complex ``(B?, n_freq, n_frames)``
    spectrogram, by windowed overlap-add divided by the summed squared window.

    ``onesided`` defaults to ``n_freq != n_fft``; ``length`` trims (or zero-pads, with a warning) the
    result; ``return_complex=True`` keeps a complex signal (needs ``onesided=False``).
    RuntimeError for a real input, bad lengths, or a window whose overlap-add vanishes somewhere kept.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"istft(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    hop, win = _lengths(n_fft, hop_length, win_length)

    def err(msg):
        raise RuntimeError(f"istft: {msg}")
    nd = input._data.ndim
    if nd not in (2, 3):
        err(f"expected a tensor with a 2 or 3 dimensions of complex, but got {nd}D")
    x = input if nd == 3 else input.unsqueeze(0)
    n_freq, n_frames = x.shape[1], x.shape[2]
    if onesided is None:
        onesided = n_freq != n_fft
    if onesided:
        if n_fft // 2 + 1 != n_freq:
            err(f"expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 when "
                f"onesided=True, but got {n_freq}")
    elif n_fft != n_freq:
        err(f"expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
            f"onesided=False, but got {n_freq}")
    if not 0 < hop <= win:
        err(f"expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        err(f"expected 0 < win_length <= n_fft")
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied.Please provide the same window "
                      "used by stft to make the inversion lossless.To suppress this warning and use a rectangular "
                      "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.")
    w = _padded_window(window, win, n_fft, err)
    if return_complex and onesided:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spec = x.transpose(1, 2)  # (B, n_frames, n_freq)
    if return_complex:
        frames = FftC2CBackward0.apply(spec, dims=(2,), s=[n_fft], norm=norm, forward=False)
    else:
        if w is not None and w.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        # a real signal: only the non-negative frequencies are read (PyTorch's c2r), whatever onesided says
        half = spec if onesided else spec.narrow(-1, 0, n_fft // 2 + 1)
        frames = _irfft(half, n_fft, -1, norm, "irfft", "irfft", True)
    if w is None:
        wd = frames.real.dtype if frames.is_complex() else frames.dtype
        w = _make(np.ones(n_fft, _dtype.to_np(wd)))
    else:
        frames = frames * w
    total = n_fft + hop * (n_frames - 1)
    # overlap-add: frame f, sample k lands at f * hop + k
    pos = (np.arange(n_frames)[:, None] * hop + np.arange(n_fft)[None, :]).reshape(-1)
    out_shape = (frames.shape[0], total)
    zeros = _make(np.zeros(out_shape, frames._data.dtype))
    y = index_add(zeros, 1, _make(pos.astype(np.int64)), frames.reshape(frames.shape[0], -1))
    # the envelope: the overlap-add of window ** 2 (not |window| ** 2, as PyTorch), differentiable in the window
    sq = (w * w).repeat(n_frames)
    env = index_add(_make(np.zeros(total, sq._data.dtype)), 0, _make(pos.astype(np.int64)), sq)
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else min(start + int(length), total)
    y, env = y[:, start:end], env[start:end]
    if env._data.size and np.abs(env._data).min() < 1e-11:
        raise RuntimeError(f"istft(...): window overlap add min: {float(np.abs(env._data).min()):g}")
    y = y / env
    if length is not None and y.shape[1] < length:
        warnings.warn("The length of signal is shorter than the length parameter. Result is being padded with zeros "
                      "in the tail. Please check your center and hop_length settings.")
        y = _pad(y, (0, int(length) - y.shape[1]))
    return y if nd == 3 else y.squeeze(0)
