"""The base of the half distributions (``HalfNormal``, ``HalfCauchy``): ``|X|`` for ``X`` of a
location-0 distribution symmetric about 0."""
from __future__ import annotations

import math

import numtorch as torch

from .._tensor import Tensor
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform
from .utils import _delegated


class _HalfDistribution(TransformedDistribution):
    """``|X|`` for ``X ~ _base(0, scale)``; ``log_prob`` is ``-inf`` below 0."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _base: type  # the symmetric distribution folded at 0

    def __init__(self, scale, validate_args=None) -> None:
        base_dist = self._base(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    scale = _delegated("base_dist", "scale")

    @property
    def mode(self) -> Tensor:
        return torch.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._folded_log_prob(value)

    def _folded_log_prob(self, value):
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return torch.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
