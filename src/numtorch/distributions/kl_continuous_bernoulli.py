"""The KL divergences PyTorch registers for ``ContinuousBernoulli`` (mirrors those in ``torch.distributions.kl``).

Kept next to ``kl.py`` (which holds the registry and the other pairs) so that file stays small; importing
the package registers them.
"""
from __future__ import annotations

import math

import numtorch as torch

from .beta import Beta
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import _INF, _kl_infinite, register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform

for _other in (Exponential, Gamma, Gumbel, Laplace, Normal, Pareto):
    # ContinuousBernoulli lives on [0, 1], inside these supports but missing most of them: KL is +inf
    register_kl(_other, ContinuousBernoulli)(_kl_infinite)
register_kl(ContinuousBernoulli, Pareto)(_kl_infinite)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + torch.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - torch.log1p(-q.probs)
    return t1 + t2 + t3


def _cross_entropy_term(p, q):
    """``-E_p[log q(x)]`` minus p's entropy term, for p with a mean on [0, 1] and q a ContinuousBernoulli."""
    return -p.entropy() - p.mean * q.logits - torch.log1p(-q.probs) - q._cont_bern_log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return _cross_entropy_term(p, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = _cross_entropy_term(p, q)
    outside = torch.ge(p.high, q.support.upper_bound) | torch.le(p.low, q.support.lower_bound)
    return torch.where(outside, torch.ones_like(result) * _INF, result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - torch.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    t1 = -p.entropy()
    t2 = 0.5 * (math.log(2.0 * math.pi) + torch.square(q.loc / q.scale)) + torch.log(q.scale)
    t3 = (p.variance + torch.square(p.mean) - 2.0 * q.loc * p.mean) / (2.0 * torch.square(q.scale))
    return t1 + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    outside = torch.ge(q.low, p.support.lower_bound) | torch.le(q.high, p.support.upper_bound)
    return torch.where(outside, torch.ones_like(result) * _INF, result)
