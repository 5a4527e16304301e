"""The negative binomial distribution (mirrors ``torch.distributions.negative_binomial``)."""
from __future__ import annotations

import numtorch as torch

from .._tensor import Size, Tensor
from ..nn.functional import logsigmoid
from . import constraints
from ._probs_or_logits import _BinaryProbsOrLogits
from ._special import lgamma
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_BinaryProbsOrLogits, Distribution):
    """Number of successes of Bernoulli trials (success probability ``probs`` in ``[0, 1)``, or log-odds
    ``logits``; exactly one, ValueError otherwise) before ``total_count`` (real, >= 0) failures
    (``torch.distributions.NegativeBinomial``). ``total_count`` takes the parameter's dtype.

    ``sample`` is PyTorch's Gamma-Poisson mixture: ``torch.poisson(Gamma(total_count, exp(-logits)).sample())``,
    the same generator calls in the same order, so seeded draws equal PyTorch's.
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None) -> None:
        self._check_one_of(probs, logits)
        name, value = ("probs", probs) if probs is not None else ("logits", logits)
        self.total_count, self._param = broadcast_all(total_count, value)
        self.total_count = self.total_count.type_as(self._param)
        setattr(self, name, self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_probs_or_logits(NegativeBinomial, batch_shape, _instance, "total_count")

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    @property
    def mean(self) -> Tensor:
        return self.total_count * torch.exp(self.logits)

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / torch.sigmoid(-self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @lazy_property
    def _gamma(self) -> Gamma:
        # not validated: total_count may be 0, outside Gamma's positive concentration
        return Gamma(concentration=self.total_count, rate=torch.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=Size()):
        with torch.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return torch.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = (-lgamma(self.total_count + value) + lgamma(1.0 + value)
                             + lgamma(self.total_count))
        # total_count == value == 0 has probability 1, but lgamma(0) is infinite
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
