"""``numtorch.linalg`` (mirrors ``torch.linalg``): norms, inverses and solves, determinants,
factorizations (Cholesky, QR, eigh, SVD), pseudo-inverse and rank, and small helpers.

A facade: the functions live in ``_ops/linalg.py`` (decompositions, solvers, ``multi_dot``...),
``_ops/determinants.py`` (``det``, ``slogdet``), ``_ops/householder.py`` (``householder_product``),
``_ops/linalg_eig.py`` (``eig``, ``eigvals``), ``_ops/linalg_solvers.py`` (LU, triangular and LDL
solvers, ``cond``, ``tensorinv``, ``tensorsolve``, ``vander``),
``_ops/linalg_norms.py`` (norms) and ``_ops/matmul.py`` (``matmul``), with PyTorch's signatures.
Every function takes batches ``(*, m, n)``; float32 stays float32. Errors follow PyTorch:
RuntimeError for non-float input, fewer than 2 dims or non-square matrices, and ``LinAlgError`` (a
RuntimeError) naming the batch element and pivot or minor for singular or non-positive-definite input.
"""
from __future__ import annotations

from ._tensor import Tensor
from ._ops.determinants import det, slogdet
from ._ops.householder import householder_product
from ._ops.linalg_eig import eig, eigvals
from ._ops.linalg_solvers import (cond, ldl_factor, ldl_factor_ex, ldl_solve, lu, lu_factor, lu_factor_ex, lu_solve,
                                  solve_ex, solve_triangular, tensorinv, tensorsolve, vander)
from ._ops.linalg import (LinAlgError, cholesky, cholesky_ex, cross, eigh, eigvalsh, inv, inv_ex, lstsq, matrix_exp,
                          matrix_power, matrix_rank, pinv, qr, solve, svd, svdvals, vecdot)
from ._ops.linalg_legacy import multi_dot
from ._ops import linalg_jvp as _linalg_jvp  # noqa: F401  (attaches the decompositions' forward-AD rules)
from ._ops.linalg_norms import matrix_norm, norm, vector_norm
from ._ops.matmul import matmul
from ._ops.rearrange import diagonal as _diagonal

__all__ = ["LinAlgError", "norm", "vector_norm", "matrix_norm", "inv", "inv_ex", "det", "slogdet", "solve",
           "cholesky", "cholesky_ex", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_rank",
           "matrix_power", "cross", "vecdot", "multi_dot", "lstsq", "matmul", "diagonal", "matrix_exp",
           "householder_product", "eig", "eigvals", "cond", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lu",
           "lu_factor", "lu_factor_ex", "lu_solve", "solve_ex", "solve_triangular", "tensorinv", "tensorsolve",
           "vander"]


def diagonal(A: Tensor, *, offset=0, dim1=-2, dim2=-1) -> Tensor:
    """``torch.linalg.diagonal``: the diagonal of each matrix (defaults to the last two dims)."""
    return _diagonal(A, offset, dim1, dim2)
