"""The LKJ distribution over Cholesky factors of correlation matrices (mirrors
``torch.distributions.lkj_cholesky``)."""
from __future__ import annotations

import math

import numtorch as torch

from .._tensor import Size
from . import constraints
from ._special import lgamma
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Lower Cholesky factors ``L`` of ``dim x dim`` correlation matrices ``L L^T``, with density
    proportional to ``det(L L^T) ** (concentration - 1)`` (Lewandowski, Kurowicka & Joe, 2009)
    (``torch.distributions.LKJCholesky``). ValueError for ``dim < 2``.

    Batch shape: ``concentration``'s (positive); event shape ``(dim, dim)``. ``sample`` is PyTorch's
    vectorized onion method: a Beta draw per row, then ``randn`` directions on the hypersphere, the same
    generator calls in the same order, so seeded draws equal PyTorch's. No ``rsample``.
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration=1.0, validate_args=None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # the Beta laws of the squared norms of the rows' off-diagonal parts (Sec. 3.2 of the paper)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = torch.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = torch.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = torch.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        u_hypersphere[..., 0, :].fill_(0.0)  # the first row is 0 / 0
        w = torch.sqrt(y) * u_hypersphere
        eps = torch.finfo(w.dtype).tiny  # clamped for stability: rows have unit norm
        diag_elems = torch.clamp(1 - torch.sum(w**2, dim=-1), min=eps).sqrt()
        w += torch.diag_embed(diag_elems)
        return w

    def log_prob(self, value):
        """``sum_i (2 (concentration - 1) + dim - i) log L_ii`` (density of L: the correlation matrix's
        ``det ** (concentration - 1)`` times the Jacobian ``prod L_ii ** (dim - i)``) minus the log normalizer."""
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = torch.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = torch.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = lgamma(alpha) * dm1
        numerator = torch.mvlgamma(alpha - 0.5, dm1)
        # the paper's pi constant is D (D - 1) / 4 log(pi), multigammaln's (D - 1) (D - 2) / 4 log(pi)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized_log_pdf - (pi_constant + numerator - denominator)
