"""The binomial distribution (mirrors ``torch.distributions.binomial``)."""
from __future__ import annotations

import numtorch as torch

from .._tensor import Size, Tensor
from . import constraints
from ._special import binomial, lgamma
from ._probs_or_logits import _BinaryProbsOrLogits
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # like clamp(x, min=0) but with gradient 0.5 at x == 0
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(_BinaryProbsOrLogits, Distribution):
    """Number of successes in ``total_count`` Bernoulli trials with success probability ``probs`` or
    log-odds ``logits`` (exactly one; ValueError otherwise) (``torch.distributions.Binomial``).

    ``total_count`` (int or tensor, broadcast with the parameter) takes the parameter's dtype.
    ``sample`` replays ATen's ``torch.binomial`` CPU sampler (BTRS / inversion), so seeded draws equal
    PyTorch's. ``entropy``/``enumerate_support`` need one ``total_count`` for the whole batch
    (NotImplementedError otherwise).
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None) -> None:
        self._check_one_of(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_probs_or_logits(Binomial, batch_shape, _instance, "total_count")

    def _new(self, *args, **kwargs):
        return torch.empty(*args, dtype=self._param.dtype, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = lgamma(self.total_count + 1)
        log_factorial_k = lgamma(value + 1)
        log_factorial_nmk = lgamma(self.total_count - value + 1)
        # n * log1p(exp(logits)), computed without overflow
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * torch.log1p(torch.exp(-torch.abs(self.logits))) - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what) -> int:
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(torch.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = self._homogeneous_count("enumerate_support")
        values = torch.arange(1 + total_count, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
