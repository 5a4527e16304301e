"""Relaxed (Concrete / Gumbel-softmax) categorical distributions (mirrors
``torch.distributions.relaxed_categorical``)."""
from __future__ import annotations

import numtorch as torch

from .._tensor import Size, Tensor
from . import constraints
from ._special import lgamma
from .categorical import _CategoricalBased
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import _delegated, broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(_CategoricalBased, Distribution):
    """The log of a ``RelaxedOneHotCategorical`` sample (``torch.distributions.ExpRelaxedCategorical``).

    ``rsample`` is ``log_softmax((logits + gumbel) / temperature)`` with Gumbel noise from clamped
    ``rand(shape)``, as PyTorch.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None) -> None:
        shapes = self._set_categorical(probs, logits)
        self.temperature = temperature
        super().__init__(*shapes, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_categorical(ExpRelaxedCategorical, batch_shape, _instance, "temperature")

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(torch.rand(shape, dtype=self.logits.dtype))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = lgamma(torch.full_like(self.temperature, float(K))) - self.temperature.log().mul(-(K - 1))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """``exp`` of an ``ExpRelaxedCategorical`` sample: a reparameterizable relaxation of
    ``OneHotCategorical`` on the simplex (``torch.distributions.RelaxedOneHotCategorical``)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True
    temperature = _delegated("base_dist", "temperature")
    logits = _delegated("base_dist", "logits")
    probs = _delegated("base_dist", "probs")

    def __init__(self, temperature, probs=None, logits=None, validate_args=None) -> None:
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)
