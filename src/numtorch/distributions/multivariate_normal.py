"""The multivariate normal distribution (mirrors ``torch.distributions.multivariate_normal``)."""
from __future__ import annotations

import math

import numtorch as torch

from .._tensor import Size, Tensor
from . import constraints
from ._special import cholesky_inverse, solve_triangular
from .distribution import Distribution, _LocationFamily
from .utils import _broadcast_shapes, _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat: Tensor, bvec: Tensor) -> Tensor:
    """Batched matrix-vector product with broadcastable batch shapes: ``(*, n, n) x (*, n) -> (*, n)``."""
    return bmat.matmul(bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL: Tensor, bx: Tensor) -> Tensor:
    """Squared Mahalanobis distance ``x^T (L L^T)^-1 x`` for lower-triangular ``bL`` ``(*, n, n)`` and ``bx``
    ``(..., *, n)``; ``bL``'s batch shape must broadcast to ``bx``'s. Returns ``bx.shape[:-1]``.

    As PyTorch, ``bx`` is reshaped so that one batched triangular solve against the flattened ``bL`` serves
    every sample, instead of expanding ``bL``."""
    n = bx.size(-1)
    bx_batch_shape = tuple(bx.shape[:-1])
    bx_batch_dims = len(bx_batch_shape)
    bL_batch_dims = bL.dim() - 2
    outer_batch_dims = bx_batch_dims - bL_batch_dims
    old_batch_dims = outer_batch_dims + bL_batch_dims
    new_batch_dims = outer_batch_dims + 2 * bL_batch_dims
    # bx to (..., 1, j, i, 1, n) for bL of shape (i, 1, n, n)
    bx_new_shape = tuple(bx.shape[:outer_batch_dims])
    for sL, sx in zip(bL.shape[:-2], bx.shape[outer_batch_dims:-1]):
        bx_new_shape += (sx // sL, sL)
    bx_new_shape += (n,)
    bx = bx.reshape(bx_new_shape)
    permute_dims = (list(range(outer_batch_dims)) + list(range(outer_batch_dims, new_batch_dims, 2))
                    + list(range(outer_batch_dims + 1, new_batch_dims, 2)) + [new_batch_dims])
    bx = bx.permute(permute_dims)
    flat_L = bL.reshape(-1, n, n)  # b x n x n
    flat_x = bx.reshape(-1, flat_L.size(0), n)  # c x b x n
    flat_x_swap = flat_x.permute(1, 2, 0)  # b x n x c
    M_swap = solve_triangular(flat_L, flat_x_swap, upper=False).pow(2).sum(-2)  # b x c
    M = M_swap.t()  # c x b
    permuted_M = M.reshape(bx.shape[:-1])
    permute_inv_dims = list(range(outer_batch_dims))
    for i in range(bL_batch_dims):
        permute_inv_dims += [outer_batch_dims + i, old_batch_dims + i]
    return permuted_M.permute(permute_inv_dims).reshape(bx_batch_shape)


def _eye_like(P: Tensor) -> Tensor:
    return torch.eye(P.shape[-1], dtype=P.dtype)


def _batched_matrix(matrix: Tensor, loc: Tensor, label: str):
    """``(batch_shape, matrix expanded to batch_shape + (n, n))``, batch_shape broadcast from the batch dims of
    ``matrix`` and ``loc``; ValueError (naming ``label``) if ``matrix`` has fewer than 2 dims."""
    if matrix.dim() < 2:
        raise ValueError(f"{label} must be at least two-dimensional, with optional leading batch dimensions")
    batch_shape = _broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
    return batch_shape, matrix.expand(tuple(batch_shape) + (-1, -1))


def _precision_to_scale_tril(P: Tensor) -> Tensor:
    """Lower Cholesky factor of ``P^-1`` from a Cholesky factorization of the flipped ``P``."""
    Lf = torch.linalg.cholesky(torch.flip(P, (-2, -1)))
    L_inv = torch.transpose(torch.flip(Lf, (-2, -1)), -2, -1)
    return solve_triangular(L_inv, _eye_like(P), upper=False)


def _scale_tril_of(covariance_matrix, precision_matrix, scale_tril) -> Tensor:
    """The lower Cholesky factor of the covariance, from whichever of the three parameterizations is given."""
    if scale_tril is not None:
        return scale_tril
    if covariance_matrix is not None:
        return torch.linalg.cholesky(covariance_matrix)
    return _precision_to_scale_tril(precision_matrix)


class MultivariateNormal(_LocationFamily, Distribution):
    """Multivariate normal distribution with mean ``loc`` ``(*, n)`` and exactly one of
    ``covariance_matrix``, ``precision_matrix`` (positive definite) or ``scale_tril`` (lower triangular with
    a positive diagonal), each ``(*, n, n)`` (``torch.distributions.MultivariateNormal``).

    Batch shape: the broadcast of ``loc.shape[:-1]`` and the matrix's batch shape; event shape ``(n,)``.
    A covariance or precision matrix is factored with ``numtorch.linalg.cholesky``; all computations use
    the factor. ValueError for a 0-d ``loc``, a matrix with fewer than 2 dims, or not exactly one matrix.
    ``rsample`` is ``loc + L @ eps`` with ``eps = empty(shape).normal_()``, PyTorch's draw.
    """

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        if scale_tril is not None:
            batch_shape, self.scale_tril = _batched_matrix(scale_tril, loc, "scale_tril matrix")
        elif covariance_matrix is not None:
            batch_shape, self.covariance_matrix = _batched_matrix(covariance_matrix, loc, "covariance_matrix")
        else:
            batch_shape, self.precision_matrix = _batched_matrix(precision_matrix, loc, "precision_matrix")
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._unbroadcasted_scale_tril = _scale_tril_of(covariance_matrix, precision_matrix, scale_tril)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        ev = tuple(self.event_shape)
        loc_shape = tuple(batch_shape) + ev
        cov_shape = tuple(batch_shape) + ev + ev
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        if "covariance_matrix" in self.__dict__:
            new.covariance_matrix = self.covariance_matrix.expand(cov_shape)
        if "scale_tril" in self.__dict__:
            new.scale_tril = self.scale_tril.expand(cov_shape)
        if "precision_matrix" in self.__dict__:
            new.precision_matrix = self.precision_matrix.expand(cov_shape)
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        return L.matmul(L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        return cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def variance(self) -> Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)
