"""The Bernoulli distribution (mirrors ``torch.distributions.bernoulli``)."""
from __future__ import annotations

import numtorch as torch

from .._tensor import Size, Tensor
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from ._probs_or_logits import _BinaryProbsOrLogits
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Bernoulli"]


def _new_like(param: Tensor, *args, **kwargs) -> Tensor:
    """``param.new(*args)``: a tensor of ``param``'s dtype from data, or uninitialized of a size."""
    if len(args) == 1 and not isinstance(args[0], int):
        return param.new_tensor(args[0], **kwargs)
    return param.new_empty(args, **kwargs)


class Bernoulli(_BinaryProbsOrLogits, ExponentialFamily):
    """Bernoulli distribution over ``{0, 1}`` given ``probs`` or ``logits`` (log-odds), not both
    (``torch.distributions.Bernoulli``).

    Args:
        probs (Number or Tensor): the probability of 1, in ``[0, 1]``.
        logits (Number or Tensor): the log-odds of 1.
        validate_args (bool, optional): see ``Distribution``.

    ValueError unless exactly one of ``probs``/``logits`` is given. ``sample`` is
    ``torch.bernoulli(probs.expand(shape))``; ``log_prob`` and ``entropy`` use
    ``binary_cross_entropy_with_logits`` as PyTorch does.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        super().__init__(self._set_probs_or_logits(probs, logits), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_probs_or_logits(Bernoulli, batch_shape, _instance)

    def _new(self, *args, **kwargs):
        return _new_like(self._param, *args, **kwargs)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = float("nan")
        return mode

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = torch.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return ((self.probs / (1 - self.probs)).log(),)  # torch.logit(probs)

    def _log_normalizer(self, x):
        return x.exp().log1p()
