"""The parameterization shared by the distributions of a binary event (Bernoulli, Binomial, Geometric,
LogitRelaxedBernoulli): exactly one of ``probs`` and ``logits`` is given, the other derived on first use."""
from __future__ import annotations

from .._tensor import Size
from .utils import _NUMBER, broadcast_all, lazy_property, logits_to_probs, probs_to_logits


class _BinaryProbsOrLogits:
    """Mixin (before the Distribution base): lazy ``probs``/``logits`` and the helpers that store and
    expand whichever was given (also kept as ``_param``)."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @staticmethod
    def _check_one_of(probs, logits) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")

    def _set_probs_or_logits(self, probs, logits) -> Size:
        """Store the one given (ValueError unless exactly one) as a tensor; return the batch shape, ``()``
        for a Python number."""
        self._check_one_of(probs, logits)
        name, value = ("probs", probs) if probs is not None else ("logits", logits)
        (self._param,) = broadcast_all(value)
        setattr(self, name, self._param)
        return Size() if isinstance(value, _NUMBER) else self._param.size()

    def _expand_probs_or_logits(self, cls, batch_shape, _instance, *names):
        """``expand`` of the distribution ``cls``: a new instance whose ``probs`` and/or ``logits`` (those
        already computed here) and parameters ``names`` are views expanded to ``batch_shape``."""
        batch_shape = Size(batch_shape)
        new = self._expanded_params(cls, batch_shape, _instance, *names)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                new._param = self.__dict__[name].expand(batch_shape)
                setattr(new, name, new._param)
        super(cls, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new
