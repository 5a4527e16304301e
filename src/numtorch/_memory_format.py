"""``torch.memory_format`` and its four values (``contiguous_format``, ``channels_last``, ...).

numtorch stores tensors as NumPy arrays and makes contiguous tensors in row-major order. The formats
exist so programs can name them: ``x.is_contiguous(memory_format=torch.channels_last)`` checks the
NHWC (NDHWC) stride order, and ``contiguous``/``clone``/``to`` accept them (a channels-last request
gives a row-major tensor with the same values).
"""
from __future__ import annotations

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


class memory_format:  # noqa: N801 - PyTorch's name
    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
