"""``LinearCrossEntropyOptions`` (mirrors ``torch.nn.modules.linear_cross_entropy_options``): the settings of
PyTorch's chunked ``linear_cross_entropy``, validated as PyTorch validates them.

numtorch computes ``F.linear_cross_entropy`` on its reference path whatever the options say (the values
are the same; the chunking is a memory optimisation of PyTorch's kernels), so the options are accepted,
checked and kept (``LinearCrossEntropyLoss.options``), not acted upon.
"""
from __future__ import annotations

import dataclasses

from ... import _dtype

__all__ = ["LinearCrossEntropyOptions"]

_POLICIES = {"auto", "accurate", "balanced", "compact"}


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Fields (PyTorch's): ``allow_retain_graph=False``, ``batch_chunk_size=None`` (positive int or None),
    ``chunking_method="auto"`` (``"auto"``, ``"aspect_ratio"``, ``"aspect_ratio:N"`` or None),
    ``acc_policy="auto"`` (``"accurate"``, ``"balanced"``, ``"compact"``, ``"auto"``), ``acc_dtype=None``
    (a float dtype or None). ValueError for anything else, as PyTorch."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in _POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in (_dtype.float16, _dtype.bfloat16, _dtype.float32,
                                                                  _dtype.float64):
            raise ValueError(f"acc_dtype must be one of {{None, torch.float16, torch.bfloat16, torch.float32, "
                             f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                             f"automatically.")
