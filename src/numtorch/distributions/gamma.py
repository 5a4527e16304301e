"""The Gamma distribution (mirrors ``torch.distributions.gamma``)."""
from __future__ import annotations

import numtorch as torch

from .._tensor import Size, Tensor
from . import constraints
from ._special import digamma, gammainc, lgamma, standard_gamma, xlogy
from .exp_family import ExponentialFamily

__all__ = ["Gamma"]


def _standard_gamma(concentration: Tensor) -> Tensor:
    return standard_gamma(concentration)


class Gamma(ExponentialFamily):
    """Gamma distribution with shape ``concentration`` (alpha) and ``rate`` (beta = 1 / scale)
    (``torch.distributions.Gamma``); both positive, broadcast together.

    ``rsample`` is ``torch._standard_gamma(concentration) / rate``: ATen's Marsaglia-Tsang sampler replayed
    on PyTorch's CPU stream (seeded samples equal PyTorch's), with ATen's reparameterized gradient.
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None) -> None:
        super().__init__(self._broadcast_params(concentration=concentration, rate=rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Gamma, batch_shape, _instance, "concentration", "rate")

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=torch.finfo(value.dtype).tiny)  # not recorded by autograd
        return value

    def log_prob(self, value):
        value = torch.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration, self.rate) + xlogy(self.concentration - 1, value)
                - self.rate * value - lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - self.rate.log() + lgamma(self.concentration)
                + (1.0 - self.concentration) * digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return lgamma(x + 1) + (x + 1) * (-y.reciprocal()).log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)
