"""Helpers shared by the distributions (mirrors ``torch.distributions.utils``)."""
from __future__ import annotations

from functools import update_wrapper

import numpy as np

import numtorch as torch

from .. import _dtype
from .._tensor import Size, Tensor, _make
from ..autograd import enable_grad

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant

_NUMBER = (int, float, bool)


def _broadcast_shapes(*shapes) -> Size:
    """The broadcast of ``shapes`` (``torch.broadcast_shapes``), raising PyTorch's RuntimeError."""
    try:
        return Size(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is "
                           f"between {list(shapes[0])} and {list(shapes[1])}") from None


def _delegated(holder: str, name: str) -> property:
    """A read-only property that forwards to ``self.<holder>.<name>``: the parameters a distribution
    exposes from the one it wraps (its ``base_dist``, its ``_categorical``)."""
    return property(lambda self: getattr(getattr(self, holder), name),
                    doc=f"The ``{name}`` of ``{holder}``.")


def broadcast_all(*values):
    """Broadcast tensors and numbers together (``torch.distributions.utils.broadcast_all``).

    Numbers become tensors of the first tensor's dtype (the default dtype if all are numbers); then
    all are broadcast with ``torch.broadcast_tensors``. Returns a tuple of tensors. ValueError for an
    argument that is neither a number nor a tensor.
    """
    if not all(isinstance(v, Tensor) or isinstance(v, _NUMBER) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        dtype = next((v.dtype for v in values if isinstance(v, Tensor)), _dtype.get_default_dtype())
        values = [v if isinstance(v, Tensor) else torch.tensor(v, dtype=dtype) for v in values]
    return torch.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device) -> Tensor:
    """``torch.empty(shape, dtype=dtype).normal_()``: standard normals from the default generator."""
    return torch.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sum out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: ``sigmoid`` (binary log-odds) or ``softmax`` over the last dim."""
    if is_binary:
        return torch.sigmoid(logits)
    return torch.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Clamp probabilities into ``[eps, 1 - eps]`` with ``eps`` the dtype's machine epsilon."""
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from (clamped) probabilities: log-odds when ``is_binary``, else ``log(p)``."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(ps_clamped) - torch.log1p(-ps_clamped)
    return torch.log(ps_clamped)


class lazy_property:
    """A property computed on first access (with grad enabled) and then stored on the instance.

    Distribution validation skips lazy parameters that were never computed, as PyTorch does.
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a class-level lookup of a lazy property returns: both a lazy_property and a property."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n: int, diag: int) -> Tensor:
    ar = np.arange(n)
    return _make(ar < ar.reshape(-1, 1) + (diag + 1))


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower-triangular entries (row order, below diagonal ``diag``) of ``(*, D, D)`` as ``(*, K)``."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """Inverse of ``tril_matrix_to_vec``: a ``(*, K)`` vector to ``(*, D, D)`` lower-triangular matrices.
    ValueError when ``K`` is not a triangular number for ``diag``."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = torch.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(Size(tuple(vec.shape[:-1]) + (n, n)))
    mat[..., _tril_mask(n, diag)] = vec
    return mat
