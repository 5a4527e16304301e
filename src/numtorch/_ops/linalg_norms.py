"""The norms of ``torch.linalg``: ``vector_norm``, ``matrix_norm`` and ``norm``, which picks one of them.

The reductions themselves are ``reduction.py``'s ``LinalgVectorNormBackward0`` and
``NuclearNormBackward0`` (shared with ``torch.norm``); the spectral norms (``ord=2``/``-2``) go through
``linalg.svdvals``. Float or complex input only, as in PyTorch.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._util import dims_arg, wrap_dim
from .creation import zeros
from .linalg import svdvals
from .matmul import _aname
from .pointwise import cast
from .reduction import LinalgVectorNormBackward0, NuclearNormBackward0

__all__ = ["norm", "vector_norm", "matrix_norm"]


def _float_input(x, fn, dtype):
    if dtype is not None:
        x = cast(x, dtype)
    if x._data.dtype.kind not in "fcV":
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got {_aname(x._data)}")
    return x


def vector_norm(x: Tensor, ord=2, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor:
    """``(sum |x|^ord)^(1/ord)`` over ``dim`` (int, tuple, or None for all elements)
    (``torch.linalg.vector_norm``); ``ord`` any number, with 0 (count of non-zeros) and +-inf (max/min
    of |x|). ``dtype`` casts first. RuntimeError for integer input, TypeError for a string ``ord``."""
    if isinstance(ord, str) or not isinstance(ord, (int, float, np.number)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}")
    x = _float_input(x, "linalg.vector_norm", dtype)
    if isinstance(dim, int):
        dim = (dim,)
    axes = dims_arg(dim, x._data.ndim) if x._data.ndim else None
    return LinalgVectorNormBackward0.apply(x, ord=float(ord), axes=axes, keepdim=bool(keepdim))


def _matrix_dims(A, dim, fn="linalg.matrix_norm"):
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        got = " ".join(map(str, dim)) if isinstance(dim, (tuple, list)) else dim
        raise RuntimeError(f"{fn}: dim must be a 2-tuple. Got {got}")
    d0, d1 = wrap_dim(dim[0], A._data.ndim), wrap_dim(dim[1], A._data.ndim)
    if d0 == d1:
        raise RuntimeError(f"{fn}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None) -> Tensor:
    """A matrix norm over the two dims ``dim`` (``torch.linalg.matrix_norm``): ``ord`` 'fro', 'nuc',
    inf/-inf (max/min absolute row sum), 1/-1 (max/min absolute column sum), 2/-2 (largest/smallest
    singular value). All are differentiable. RuntimeError for fewer than 2 dims or another order."""
    A = _float_input(A, "linalg.matrix_norm", dtype)
    if A._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    d0, d1 = _matrix_dims(A, dim)
    if ord == "fro":
        return LinalgVectorNormBackward0.apply(A, ord=2.0, axes=(d0, d1), keepdim=bool(keepdim))
    if ord == "nuc":
        return NuclearNormBackward0.apply(A, dims=(d0, d1), keepdim=bool(keepdim))
    if isinstance(ord, str) or ord not in (1, -1, 2, -2, float("inf"), float("-inf")):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if abs(ord) == 2:
        s = svdvals(A.movedim((d0, d1), (-2, -1)))
        if ord > 0 and not s.shape[-1]:  # the largest of no singular values: 0, without a graph (PyTorch's)
            r = zeros(tuple(s.shape[:-1]), dtype=s.dtype)
        else:
            r = s.amax(-1) if ord > 0 else s.amin(-1)
        return r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1)) if keepdim else r
    sum_dim, red_dim = (d1, d0) if abs(ord) != 1 else (d0, d1)  # inf: row sums; 1: column sums
    sums = A.abs().sum(sum_dim, keepdim=True)
    if ord > 0 and not sums.shape[red_dim]:  # the largest of no sums: 0, without a graph (PyTorch's)
        r = zeros(tuple(1 if i == red_dim else n for i, n in enumerate(sums.shape)), dtype=sums.dtype)
    elif ord > 0:
        r = sums.amax(red_dim, keepdim=True)
    else:  # the smallest of no sums raises IndexError, as in PyTorch
        r = sums.amin(red_dim, keepdim=True)
    return r if keepdim else r.squeeze((d0, d1))


def norm(A: Tensor, ord=None, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor:
    """A vector or matrix norm (``torch.linalg.norm``): a string ``ord`` or a 2-tuple ``dim`` gives the
    matrix norm, an int (or 1-tuple) ``dim`` the vector norm; with ``dim=None`` the matrix norm of a
    2-D input when ``ord`` is given, else the 2-norm of all elements. RuntimeError when ``ord`` is
    given without ``dim`` for an input that is not 1-D or 2-D."""
    if dim is not None:
        dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if ord is not None and dim is None:
        if A.dim() not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                               f"{A.dim()}D.")
        dim = tuple(range(A.dim()))
    if isinstance(ord, str) or (dim is not None and len(dim) == 2):
        return matrix_norm(A, "fro" if ord is None else ord, dim if dim is not None else (-2, -1), keepdim,
                           dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
