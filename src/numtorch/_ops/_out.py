"""The ``out=`` argument: write an op's result into a caller's tensor, as PyTorch's ``out=`` does."""
from __future__ import annotations

import numpy as np

from ._cast import _can_cast
from ._inplace import copy_

__all__ = ["_out"]


def _out(result, out):
    """Write ``result`` into ``out`` (resized to its shape) and return ``out``. RuntimeError, as PyTorch,
    when the result's dtype category can't be cast to ``out``'s (float into int, int into bool, ...)."""
    if out is None:
        return result
    if not _can_cast(result._data.dtype, out._data.dtype):
        raise RuntimeError(f"result type {result.dtype._aten_name} can't be cast to the desired output "
                           f"type {out.dtype._aten_name}")
    if out._data.shape != result._data.shape:
        out._data = np.empty(result._data.shape, out._data.dtype)
    copy_(out, result)
    return out
