"""Probability distributions (mirrors ``torch.distributions``).

Each distribution computes with numtorch tensor ops, so gradients flow through ``rsample``,
``log_prob``, ``entropy`` and ``kl_divergence`` to the parameters, and samples its values with the same
calls, in the same order, as PyTorch's implementation: after ``numtorch.manual_seed(s)`` a distribution's
``sample()``/``rsample()`` returns PyTorch's values (samplers PyTorch runs in C++ -- gamma, Dirichlet,
Poisson, binomial -- are replayed element by element on numtorch's copy of PyTorch's generator).

Implemented: ``Distribution``, ``ExponentialFamily``, ``Bernoulli``, ``Beta``, ``Binomial``, ``Categorical``,
``Cauchy``, ``Chi2``, ``Dirichlet``, ``Exponential``, ``Gamma``, ``Geometric``,
``Gumbel``, ``HalfCauchy``, ``HalfNormal``, ``Independent``, ``Kumaraswamy``, ``Laplace``, ``LogNormal``,
``LogisticNormal``, ``LowRankMultivariateNormal``, ``MixtureSameFamily``,
``Multinomial``, ``MultivariateNormal``, ``Normal``, ``OneHotCategorical``,
``OneHotCategoricalStraightThrough``, ``Pareto``, ``Poisson``, ``RelaxedBernoulli``,
``RelaxedOneHotCategorical`` (with ``LogitRelaxedBernoulli``/``ExpRelaxedCategorical`` in their modules),
``StudentT``, ``TransformedDistribution``, ``Uniform``, ``Weibull``, ``NegativeBinomial``, ``VonMises``,
``InverseGamma``, ``ContinuousBernoulli``, ``FisherSnedecor``, ``GeneralizedPareto``,
``Wishart``, ``LKJCholesky``; the
transforms of ``transforms``; ``constraints``, ``biject_to``/``transform_to``, ``kl_divergence``/
``register_kl`` and ``utils``.
"""
from . import constraints, transforms, utils  # noqa: F401  (torch.distributions.constraints, ...)
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .inverse_gamma import InverseGamma
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from . import kl_continuous_bernoulli  # noqa: F401,E402  (registers ContinuousBernoulli's KL pairs)
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403  (PyTorch exports the transforms at package level too)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli",
           "Dirichlet", "Distribution", "ExponentialFamily", "Exponential", "FisherSnedecor", "Gamma",
           "GeneralizedPareto", "Geometric", "Gumbel", "HalfCauchy", "InverseGamma", "HalfNormal",
           "Independent", "Kumaraswamy", "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal",
           "LowRankMultivariateNormal", "MixtureSameFamily", "Multinomial", "MultivariateNormal",
           "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Pareto",
           "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT", "TransformedDistribution",
           "Uniform", "VonMises", "Weibull", "Wishart", "biject_to", "kl_divergence", "register_kl",
           "transform_to"] + transforms.__all__
