"""``numtorch.version`` (mirrors ``torch.version``): ``__version__`` names the PyTorch release whose
behaviour numtorch follows plus numtorch's own version as a local label (``2.13.0+numtorch.0.1.0``),
so programs that compare ``torch.__version__`` take their modern code paths; ``cuda`` and ``hip`` are
None (no GPU backend), so ``torch.version.cuda is None`` probes report a CPU build."""
from __future__ import annotations

__all__ = ["__version__", "cuda", "hip", "debug", "git_version"]

__version__ = "2.13.0+numtorch.0.1.0"
cuda = None
hip = None
debug = False
git_version = "unknown"
