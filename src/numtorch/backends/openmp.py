"""``numtorch.backends.openmp`` (mirrors ``torch.backends.openmp``): numtorch does not use OpenMP itself."""
from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    return False
