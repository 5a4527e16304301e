"""``CrossMapLRN2d``'s autograd Function (mirrors ``torch.nn.modules._functions.CrossMapLRN2d``): the legacy
(Lua Torch) cross-channel local response normalisation, kept for old models.

``scale[c] = k + alpha / size * sum of x[j]^2 over a window of channels j``, ``out = x * scale^-beta``. The
window is the legacy running-sum one: it is NOT ``LocalResponseNorm``'s centred window (the running sum
adds channel ``c + pre_pad - 1`` and only drops channel ``c - pre_pad`` for ``c > pre_pad``), and the
backward is the legacy formula, so both forward values and gradients are PyTorch's.
"""
from __future__ import annotations

import numpy as np

from ...autograd.function import Function
from ..._tensor import _make


def _window(channels: int, size: int) -> np.ndarray:
    """``M`` with ``scale_sum[c] = sum_j M[c, j] * x[j]^2``, replaying the legacy running sum on unit inputs."""
    pre_pad = int((size - 1) / 2 + 1)
    m = np.zeros((channels, channels))
    m[0, :min(pre_pad, channels)] = 1
    for c in range(1, channels):
        m[c] = m[c - 1]
        if c < channels - pre_pad + 1:
            m[c, c + pre_pad - 1] += 1
        if c > pre_pad:
            m[c, c - pre_pad] -= 1
    return m


class CrossMapLRN2d(Function):
    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        x = input.detach().numpy()
        m = _window(x.shape[1], size).astype(x.dtype)
        scale = np.einsum("cj,njhw->nchw", m, x * x) * (alpha / size) + k
        out = scale ** -beta * x
        ctx.size, ctx.alpha, ctx.beta, ctx.scale = size, alpha, beta, scale
        ctx.save_for_backward(input)
        ctx.out = out
        return _make(out.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad_output):
        (input,) = ctx.saved_tensors
        x, g, size = input.detach().numpy(), grad_output.detach().numpy(), ctx.size
        channels = x.shape[1]
        inverse_pre_pad = int(size - (size - 1) / 2)
        if inverse_pre_pad + channels > channels + size - 1:
            raise RuntimeError(f"start ({inverse_pre_pad}) + length ({channels}) exceeds dimension size "
                               f"({channels + size - 1}).")
        padded = np.zeros((x.shape[0], channels + size - 1, *x.shape[2:]), x.dtype)
        padded[:, inverse_pre_pad:inverse_pre_pad + channels] = g * ctx.out / ctx.scale
        csum = np.concatenate([np.zeros_like(padded[:, :1]), np.cumsum(padded, axis=1)], axis=1)
        accum = csum[:, size:size + channels] - csum[:, :channels]  # sum of padded[c .. c + size - 1]
        grad = ctx.scale ** -ctx.beta * g - (2 * ctx.alpha * ctx.beta / size) * x * accum
        return _make(grad.astype(x.dtype, copy=False)), None, None, None, None
