"""Matrices built with a fixed structure from their inputs: the block-diagonal matrix of several
tensors (``block_diag``, an ``Op``), the Kronecker product (``kron``, an ``Op``) and the Vandermonde matrix of a vector (``vander``, a composite
of differentiable ops); and ``Tensor.fill_diagonal_``, the main diagonal overwritten in place.
"""
from __future__ import annotations

import builtins

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd.function import Op
from .creation import ones
from .cumulative import cumprod
from .matmul import _cz, _promote
from ._out import _out
from .pointwise import cast
from .rearrange import cat

__all__ = ["block_diag", "kron", "vander"]  # and Tensor.fill_diagonal_ (bound as a method only, as PyTorch)


class BlockDiagBackward0(Op):
    def forward(self, *mats):
        self.shapes = [m.shape for m in mats]
        ms = [m.reshape(1, -1) if m.ndim == 1 else m.reshape(1, 1) if m.ndim == 0 else m for m in mats]
        self.blocks = [m.shape for m in ms]
        dt = np.result_type(*mats) if mats else np.float32
        out = np.zeros((builtins.sum(m.shape[0] for m in ms), builtins.sum(m.shape[1] for m in ms)), dt)
        r = c = 0
        for m in ms:  # one slice assignment per input tensor
            out[r:r + m.shape[0], c:c + m.shape[1]] = m
            r, c = r + m.shape[0], c + m.shape[1]
        return out

    def backward(self, g):
        grads, r, c = [], 0, 0
        for (h, w), s in zip(self.blocks, self.shapes):
            grads.append(g[r:r + h, c:c + w].reshape(s))
            r, c = r + h, c + w
        return tuple(grads)


def block_diag(*tensors):
    """Block-diagonal matrix of 0-, 1- or 2-D tensors (``torch.block_diag``), dtypes promoted.
    RuntimeError for a tensor with more than 2 dims."""
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.dim()} dimensions")
    if tensors:
        rt = _dtype.result_type(*tensors)
        tensors = [t if t._data.dtype == rt.np else cast(t, rt) for t in tensors]
    return BlockDiagBackward0.apply(*tensors)


def vander(x, N=None, increasing=False):
    """Vandermonde matrix (``torch.vander``): columns ``x**(N-1) ... x**0`` (reversed if
    ``increasing``); bool/int inputs give int64. RuntimeError for non-1-D x or negative N."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if x._data.dtype.kind in "bu" or x._data.dtype.kind == "i":
        x = cast(x, _dtype.int64)
    res = ones(x.shape[0], builtins.max(n, 1), dtype=x.dtype)
    if n > 1:
        res = cat([res[:, :1], cumprod(x.unsqueeze(1).expand(-1, n - 1), 1)], 1)
    res = res[:, :n]
    return res if increasing else res.flip(1)


class KronBackward0(Op):
    """``kron(a, b)``: ``a`` and ``b`` padded to one rank, interleaved as ``(a0, b0, a1, b1, ...)``."""

    _saves = (0, 1)
    _graph_recompute = True
    _saves_for = {0: (1,), 1: (0,)}

    def forward(self, a, b):
        n = max(a.ndim, b.ndim)
        A = a.reshape((1,) * (n - a.ndim) + a.shape)
        B = b.reshape((1,) * (n - b.ndim) + b.shape)
        self.saved = (A, B)
        self.sa, self.sb = a.shape, b.shape
        ai = A.reshape([s for d in A.shape for s in (d, 1)])
        bi = B.reshape([s for d in B.shape for s in (1, d)])
        return (ai * bi).reshape([x * y for x, y in zip(A.shape, B.shape)])

    def backward(self, g):
        A, B = self.saved
        if self._graph:  # the padded operands again, from the boxed inputs
            a, b = self._graph_args
            A, B = a.reshape(A.shape), b.reshape(B.shape)
        A, B = _cz(A), _cz(B)  # complex: grad * conj(other)
        n = A.ndim
        G = g.reshape([s for pair in zip(A.shape, B.shape) for s in pair])
        ga = gb = None
        if self._edges[0] is not None:
            bi = B.reshape([s for d in B.shape for s in (1, d)])
            ga = (G * bi).sum(axis=tuple(range(1, 2 * n, 2))).reshape(self.sa)
        if self._edges[1] is not None:
            ai = A.reshape([s for d in A.shape for s in (d, 1)])
            gb = (G * ai).sum(axis=tuple(range(0, 2 * n, 2))).reshape(self.sb)
        return ga, gb


def kron(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Kronecker product (``torch.kron``): shape ``input.shape[i] * other.shape[i]`` after padding the
    lower-rank operand with leading 1s; dtypes promote as in ``mul``."""
    a, b = _promote(input, other)
    return _out(KronBackward0.apply(a, b), out)


def fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """``Tensor.fill_diagonal_``: write ``fill_value`` on the main diagonal, in place, through a strided view
    of the diagonal (so autograd records ``CopySlices``, as PyTorch). 2-D tensors of any shape; more dims
    must all have the same size. ``wrap=True`` on a matrix taller than wide restarts the diagonal every
    ``cols + 1`` rows, as PyTorch (NumPy's ``fill_diagonal``). RuntimeError for fewer than 2 dims or unequal
    sizes."""
    shape, strides, offset = self.shape, self.stride(), self.storage_offset()
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    step, size = builtins.sum(strides), min(shape)
    if wrap and len(shape) == 2 and shape[0] > shape[1] + 1:  # the restarts: every (cols + 1) rows
        rows_per_block = shape[1] + 1
        for start in range(rows_per_block, shape[0], rows_per_block):
            n = min(shape[1], shape[0] - start)
            self.as_strided((n,), (step,), offset + start * strides[0]).fill_(fill_value)
    self.as_strided((size,), (step,), offset).fill_(fill_value)
    return self
