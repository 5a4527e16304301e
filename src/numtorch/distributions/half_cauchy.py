"""The half-Cauchy distribution (mirrors ``torch.distributions.half_cauchy``)."""
from __future__ import annotations

import math

import numtorch as torch

from .._tensor import Tensor
from ._half import _HalfDistribution
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(_HalfDistribution):
    """``|X|`` for ``X ~ Cauchy(0, scale)`` (``torch.distributions.HalfCauchy``); ``log_prob`` is ``-inf``
    below 0, the mean is infinite."""

    _base = Cauchy

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> Tensor:
        return torch.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._folded_log_prob(torch.as_tensor(value, dtype=self.base_dist.scale.dtype))
