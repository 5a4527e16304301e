"""Exponential-family base class (mirrors ``torch.distributions.exp_family``)."""
from __future__ import annotations

from ..autograd import grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of distributions whose density is ``exp(<t(x), theta> - F(theta) + k(x))``.

    Subclasses give ``_natural_params`` (theta), ``_log_normalizer(*theta)`` (F) and
    ``_mean_carrier_measure`` (E[k(x)]); the generic ``entropy`` (and the same-family KL in ``kl.py``) is
    the Bregman divergence of F, computed with autograd. numtorch has no double backward yet, so that
    generic path raises NotImplementedError; every distribution here overrides ``entropy`` and has its
    own KL, as in PyTorch.
    """

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """Entropy from the log normalizer: ``F(theta) - <theta, grad F(theta)> - E[k(x)]``."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = grad(lg_normal.sum(), nparams, create_graph=True)
        result += lg_normal
        for np_, g in zip(nparams, gradients):
            result -= (np_ * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
