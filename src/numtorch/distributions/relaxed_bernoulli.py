"""Relaxed (Concrete / Gumbel-softmax) Bernoulli distributions (mirrors
``torch.distributions.relaxed_bernoulli``)."""
from __future__ import annotations

import numtorch as torch

from .._tensor import Size, Tensor
from . import constraints
from ._probs_or_logits import _BinaryProbsOrLogits
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import _delegated, broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(_BinaryProbsOrLogits, Distribution):
    """The logit of a ``RelaxedBernoulli`` sample (``torch.distributions.LogitRelaxedBernoulli``).

    Args:
        temperature (Tensor): relaxation temperature.
        probs / logits (Number or Tensor): exactly one (ValueError otherwise).

    ``rsample`` is ``(logit(u) + logit(probs)) / temperature`` with clamped ``u = rand(shape)``.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None) -> None:
        self.temperature = temperature
        super().__init__(self._set_probs_or_logits(probs, logits), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_probs_or_logits(LogitRelaxedBernoulli, batch_shape, _instance)
        new.temperature = self.temperature  # not a batched parameter: shared as is
        return new

    def _new(self, *args, **kwargs):
        return torch.empty(*args, dtype=self._param.dtype, **kwargs)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(torch.rand(shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """``sigmoid`` of a ``LogitRelaxedBernoulli`` sample: a reparameterizable relaxation of ``Bernoulli``
    with values in ``[0, 1]`` (``torch.distributions.RelaxedBernoulli``)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    temperature = _delegated("base_dist", "temperature")
    logits = _delegated("base_dist", "logits")
    probs = _delegated("base_dist", "probs")

    def __init__(self, temperature, probs=None, logits=None, validate_args=None) -> None:
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)
