"""Probability distributions (mirrors ``torch.distributions``).

Each distribution computes with numtorch tensor ops, so gradients flow through ``rsample``,
``log_prob``, ``entropy`` and ``kl_divergence`` to the parameters, and samples its values with the same
calls, in the same order, as PyTorch's implementation: after ``numtorch.manual_seed(s)`` a distribution's
``sample()``/``rsample()`` returns PyTorch's values.

Implemented: ``Distribution``, ``ExponentialFamily``, ``Normal``, ``Uniform``, ``Bernoulli``,
``Categorical``, ``OneHotCategorical``, ``OneHotCategoricalStraightThrough``, ``MultivariateNormal``,
``Independent``, ``Gamma``, ``Beta``, ``Dirichlet``, plus ``constraints``, ``kl_divergence``/``register_kl``
and ``utils``. Not yet: transforms and ``TransformedDistribution`` and the other PyTorch distributions.
"""
from . import constraints, utils  # noqa: F401  (torch.distributions.constraints, .utils)
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "ExponentialFamily", "Gamma", "Independent",
           "MultivariateNormal", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Uniform",
           "kl_divergence", "register_kl"]
