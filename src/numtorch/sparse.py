"""``torch.sparse``: products, sums and softmax on sparse COO tensors (the ops are ``_ops/sparse.py``).

A sparse COO tensor (``torch.sparse_coo_tensor(indices, values, size)``, ``dense.to_sparse()``) keeps
int64 ``indices`` ``(sparse_dim, nnz)`` and ``values`` ``(nnz, *dense_shape)``; see docs/sparse.md for
what numtorch runs on it. The compressed layouts (CSR, CSC, BSR, BSC) and semi-structured sparsity
are not implemented: the functions that need them raise NotImplementedError.
"""
from __future__ import annotations

from ._ops import sparse as _S
from ._tensor_sparse import unsupported as _unsupported

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax", "sampled_addmm", "spsolve", "check_sparse_tensor_invariants",
           "to_sparse_semi_structured"]

mm = _S.mm
sum = _S.sparse_sum  # noqa: A001  (torch.sparse.sum)
softmax = _S.softmax
log_softmax = _S.log_softmax


def addmm(mat, mat1, mat2, *, beta=1, alpha=1):
    """``beta * mat + alpha * (mat1 @ mat2)`` for a sparse ``mat1`` (``torch.sparse.addmm``). The result's
    values and gradients are PyTorch's; its node is the last step's (AddBackward0), not SparseAddmmBackward0."""
    prod = _S.mm(mat1, mat2)
    return (mat if beta == 1 else mat * beta) + (prod if alpha == 1 else prod * alpha)


def sampled_addmm(input, mat1, mat2, *, beta=1.0, alpha=1.0, out=None):
    """``torch.sparse.sampled_addmm`` works on CSR tensors, a layout numtorch lacks: NotImplementedError."""
    raise _unsupported("aten::sparse_sampled_addmm (it needs the sparse CSR layout)")


def spsolve(input, other, *, left=True):
    """``torch.sparse.spsolve`` needs the sparse CSR layout, which numtorch lacks: NotImplementedError."""
    raise _unsupported("aten::_spsolve (it needs the sparse CSR layout)")


def to_sparse_semi_structured(original_tensor, transposed=False):
    """Semi-structured (2:4) sparsity is a CUDA feature: NotImplementedError in numtorch."""
    raise _unsupported("to_sparse_semi_structured")


class check_sparse_tensor_invariants:
    """``torch.sparse.check_sparse_tensor_invariants``: a context manager/decorator that turns invariant checks
    on while it is active. numtorch checks the invariants of every tensor it builds, so this only records the
    flag (``is_enabled()``) for programs that read it."""

    _enabled = False

    def __init__(self, enable=True):
        self.state, self.saved = bool(enable), None

    @staticmethod
    def is_enabled() -> bool:
        return check_sparse_tensor_invariants._enabled

    @staticmethod
    def enable():
        check_sparse_tensor_invariants._enabled = True

    @staticmethod
    def disable():
        check_sparse_tensor_invariants._enabled = False

    def __enter__(self):
        self.saved = check_sparse_tensor_invariants._enabled
        check_sparse_tensor_invariants._enabled = self.state
        return self

    def __exit__(self, *exc):
        check_sparse_tensor_invariants._enabled = self.saved

    def __call__(self, fn):
        def run(*args, **kwargs):
            with check_sparse_tensor_invariants(self.state):
                return fn(*args, **kwargs)
        return run
