"""The geometric distribution (mirrors ``torch.distributions.geometric``)."""
from __future__ import annotations

import numtorch as torch

from .._tensor import Size, Tensor
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from ._probs_or_logits import _BinaryProbsOrLogits
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Geometric"]


class Geometric(_BinaryProbsOrLogits, Distribution):
    """Number of failures before the first success of Bernoulli trials with success probability ``probs``
    (in ``(0, 1]``) or log-odds ``logits`` (exactly one of them; ValueError otherwise)
    (``torch.distributions.Geometric``).

    ``sample`` is ``floor(log(u) / log1p(-probs))`` with ``u = empty(shape).uniform_(tiny, 1)``.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        super().__init__(self._set_probs_or_logits(probs, logits), validate_args=validate_args)
        if self._validate_args and probs is not None:
            # probs == 0 is inside unit_interval but has no geometric distribution
            value = self.probs
            valid = value > 0
            if not valid.all():
                invalid_value = value.detach()[~valid]
                raise ValueError(f"Expected parameter probs ({type(value).__name__} of shape {tuple(value.shape)}) "
                                 f"of distribution {repr(self)} to be positive but found invalid values:\n"
                                 f"{invalid_value}")

    def expand(self, batch_shape, _instance=None):
        return self._expand_probs_or_logits(Geometric, batch_shape, _instance)

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return torch.zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        tiny = torch.finfo(self.probs.dtype).tiny
        with torch.no_grad():
            u = torch.empty(shape, dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone()
        probs[(probs == 1) & (value == 0)] = 0  # 0 * log(0) = 0 at the certain first success
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
