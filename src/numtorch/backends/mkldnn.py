"""``numtorch.backends.mkldnn`` (mirrors ``torch.backends.mkldnn``): not used by numtorch (NumPy does the
math), so ``is_available()`` is False; ``enabled`` is a settable flag."""
from __future__ import annotations

__all__ = ["is_available", "enabled"]

enabled = False


def is_available() -> bool:
    return False
