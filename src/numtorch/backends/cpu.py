"""``numtorch.backends.cpu`` (mirrors ``torch.backends.cpu``)."""
from __future__ import annotations

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """The SIMD level PyTorch's CPU kernels were dispatched to; numtorch relies on NumPy's, reported as
    ``"DEFAULT"``."""
    return "DEFAULT"
