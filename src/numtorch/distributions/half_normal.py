"""The half-normal distribution (mirrors ``torch.distributions.half_normal``)."""
from __future__ import annotations

import math

from .._tensor import Tensor
from ._half import _HalfDistribution
from .normal import Normal

__all__ = ["HalfNormal"]


class HalfNormal(_HalfDistribution):
    """``|X|`` for ``X ~ Normal(0, scale)`` (``torch.distributions.HalfNormal``); ``log_prob`` is ``-inf``
    below 0."""

    _base = Normal

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (1 - 2 / math.pi)
