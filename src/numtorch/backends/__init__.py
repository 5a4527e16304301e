"""``numtorch.backends`` (mirrors ``torch.backends``): the flags and probes programs set and query.

One submodule per backend, as in PyTorch, so ``import torch.backends.cudnn as cudnn`` works.
numtorch computes with NumPy on the CPU; the flags are remembered and read back but change nothing,
and every ``is_available()`` is False.
"""
from __future__ import annotations

from . import cpu, cuda, cudnn, mkldnn, mps, openmp

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps", "openmp"]
