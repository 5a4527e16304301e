"""Distance layers (mirrors ``torch/nn/modules/distance.py``): PairwiseDistance, CosineSimilarity.

Stateless wrappers around ``F.pairwise_distance`` and ``F.cosine_similarity``; neither defines an
``extra_repr``, so both print as ``Name()``, as in PyTorch.
"""
from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class PairwiseDistance(Module):
    """``forward(x1, x2)``: the ``p``-norm of ``x1 - x2 + eps`` along the last dim (``torch.nn.PairwiseDistance``).

    Args: ``p=2.0`` (kept as ``self.norm``, PyTorch's attribute name), ``eps=1e-6``, ``keepdim=False``.
    Shapes: ``(N, D)`` or ``(D,)`` inputs that broadcast -> ``(N,)`` or ``()`` (``(N, 1)`` with keepdim).
    RuntimeError when the shapes do not broadcast.
    """

    __constants__ = ["norm", "eps", "keepdim"]

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """``forward(x1, x2)``: ``x1 . x2 / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim``
    (``torch.nn.CosineSimilarity``); the inputs broadcast and ``dim`` is removed from the result.

    Args: ``dim=1``, ``eps=1e-8``. RuntimeError when the shapes do not broadcast or both are integral;
    IndexError for a ``dim`` out of range.
    """

    __constants__ = ["dim", "eps"]

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
