"""The Categorical distribution (mirrors ``torch.distributions.categorical``)."""
from __future__ import annotations

import numtorch as torch

from .._tensor import Size, Tensor
from . import constraints
from .bernoulli import _new_like
from .distribution import Distribution
from .utils import _delegated, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Categorical distribution over ``{0, ..., K-1}`` given ``probs`` or ``logits`` of shape
    ``batch_shape + (K,)`` (``torch.distributions.Categorical``).

    ``probs`` (non-negative, finite, non-zero sum) are normalized to sum to 1 over the last dim; ``logits``
    are unnormalized log-probabilities, normalized with ``logsumexp``. ValueError unless exactly one is
    given, or for a 0-d parameter. ``sample`` draws ``torch.multinomial(probs_2d, n, True)``, as PyTorch
    does, so seeded samples are equal; samples are int64.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = Size(batch_shape)
        param_shape = Size(tuple(batch_shape) + (self._num_events,))
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return _new_like(self._param, *args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        return torch.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Tensor:
        return torch.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        with torch.no_grad():
            samples_2d = torch.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = torch.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        min_real = torch.finfo(self.logits.dtype).min
        logits = torch.clamp(self.logits, min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand=True):
        values = torch.arange(self._num_events, dtype=torch.long)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


class _CategoricalBased:
    """Mixin (before the Distribution base) for distributions built on a ``Categorical`` kept as
    ``_categorical`` (OneHotCategorical, Multinomial, ExpRelaxedCategorical): its parameters, shapes
    and ``expand``."""

    def _set_categorical(self, probs, logits) -> tuple:
        """Build the Categorical (ValueError unless exactly one of ``probs``/``logits``); return
        ``(batch_shape, event_shape)``, the event being one vector of its ``K`` classes."""
        self._categorical = Categorical(probs, logits)
        return self._categorical.batch_shape, self._categorical.param_shape[-1:]

    def _expand_categorical(self, cls, batch_shape, _instance, *shared):
        """``expand`` of ``cls``: the Categorical expanded, the attributes named in ``shared`` kept."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = Size(batch_shape)
        for name in shared:
            setattr(new, name, getattr(self, name))
        new._categorical = self._categorical.expand(batch_shape)
        super(cls, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    _param = _delegated("_categorical", "_param")
    probs = _delegated("_categorical", "probs")
    logits = _delegated("_categorical", "logits")
    param_shape = _delegated("_categorical", "param_shape")
