"""``numtorch.version`` (mirrors ``torch.version``): ``__version__`` is numtorch's own; ``cuda`` and
``hip`` are None (no GPU backend), so ``torch.version.cuda is None`` probes report a CPU build."""
from __future__ import annotations

__all__ = ["__version__", "cuda", "hip", "debug", "git_version"]

__version__ = "0.1.0"
cuda = None
hip = None
debug = False
git_version = "unknown"
