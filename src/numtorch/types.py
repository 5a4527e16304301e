"""``numtorch.types`` (mirrors ``torch.types``): type aliases used in annotations."""
from __future__ import annotations

from typing import Union

from ._device import device as _device
from ._dtype import dtype as _dtype
from ._tensor import Size as _size

__all__ = ["Device", "Number"]

_int, _float, _bool = int, float, bool
Number = Union[int, float, bool]
Device = Union[_device, str, int, None]
