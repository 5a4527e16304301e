"""The Fisher-Snedecor (F) distribution (mirrors ``torch.distributions.fishersnedecor``)."""
from __future__ import annotations

import math

import numtorch as torch

from .._tensor import Size, Tensor
from . import constraints
from ._special import lgamma
from .distribution import Distribution
from .gamma import Gamma
from .utils import _NUMBER, broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """F distribution with positive degrees of freedom ``df1`` and ``df2`` (``torch.distributions.FisherSnedecor``).

    ``rsample`` is ``X1 / X2`` with ``X1 ~ Gamma(df1 / 2, df1)`` drawn before ``X2 ~ Gamma(df2 / 2, df2)``,
    as in PyTorch (seeded draws equal PyTorch's), differentiable in ``df1``/``df2``. ``mean`` is nan
    where ``df2 <= 2``, ``mode`` where ``df1 <= 2``, ``variance`` where ``df2 <= 4``.
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        batch_shape = Size() if isinstance(df1, _NUMBER) and isinstance(df2, _NUMBER) else self.df1.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        new = self._expanded_params(FisherSnedecor, batch_shape, _instance, "df1", "df2")
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        super(FisherSnedecor, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        df2 = torch.where(self.df2 <= 2, math.nan, self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self) -> Tensor:
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return torch.where(self.df1 <= 2, math.nan, mode)

    @property
    def variance(self) -> Tensor:
        df2 = torch.where(self.df2 <= 4, math.nan, self.df2)
        return 2 * df2.pow(2) * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2).pow(2) * (df2 - 4))

    def rsample(self, sample_shape=Size(())) -> Tensor:
        shape = self._extended_shape(sample_shape)
        # X1 ~ Gamma(df1 / 2, df1), X2 ~ Gamma(df2 / 2, df2): X1 / X2 ~ F(df1, df2)
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = torch.finfo(x2.dtype).tiny
        ratio = x1 / x2.clamp(min=tiny)
        return ratio.clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1 = self.df1 * 0.5
        ct2 = self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = lgamma(ct1 + ct2) - lgamma(ct1) - lgamma(ct2)
        t2 = ct1 * ct3.log() + (ct1 - 1) * torch.log(value)
        t3 = (ct1 + ct2) * torch.log1p(ct3 * value)
        return t1 + t2 - t3
