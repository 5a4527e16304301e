"""``torch.sparse``: products, sums and softmax on sparse COO tensors (the ops are ``_ops/sparse.py``).

A sparse COO tensor (``torch.sparse_coo_tensor(indices, values, size)``, ``dense.to_sparse()``) keeps
int64 ``indices`` ``(sparse_dim, nnz)`` and ``values`` ``(nnz, *dense_shape)``; see docs/sparse.md for
what numtorch runs on it. The compressed layouts (CSR, CSC, BSR, BSC) and semi-structured sparsity
are not implemented: the functions that need them raise NotImplementedError.
"""
from __future__ import annotations

from . import _dtype
from ._ops import sparse as _S
from ._ops.creation import zeros as _zeros
from ._tensor import Size as _Size
from ._tensor import Tensor as _Tensor
from ._tensor_sparse import sparse_coo as _sparse_coo
from ._tensor_sparse import unsupported as _unsupported

__all__ = ["mm", "addmm", "sum", "softmax", "log_softmax", "sampled_addmm", "spsolve", "check_sparse_tensor_invariants",
           "to_sparse_semi_structured",
           "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor", "ShortTensor",
           "CharTensor", "ByteTensor"]

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


class _SparseTypeMeta(type):
    """Legacy sparse type names (``torch.sparse.FloatTensor``, ...), as old GCN code uses them:
    ``FloatTensor(indices, values, size)`` is ``sparse_coo_tensor`` (the values keep their dtype, as in
    PyTorch), ``FloatTensor(*sizes)`` / ``FloatTensor(size)`` an empty sparse tensor of this dtype, and
    ``isinstance(t, FloatTensor)`` is True for a sparse float32 tensor. RuntimeError for indices that are
    not int64."""

    def __call__(cls, *args, device=None):
        if args and isinstance(args[0], _Tensor):
            if args[0].dtype is not _dtype.int64:
                raise RuntimeError("indices must be an int64 tensor")
            return _S.sparse_coo_tensor(*args, device=device)
        shape = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (_Size, tuple, list)) else args or (0,)
        return _zeros(*shape, dtype=cls.dtype, layout=_sparse_coo, device=device)

    def __instancecheck__(cls, obj):
        return isinstance(obj, _Tensor) and obj.is_sparse and obj.dtype is cls.dtype

    def __repr__(cls):
        return f"<class 'torch.sparse.{cls.__name__}'>"


def _sparse_type(name, dtype):
    return _SparseTypeMeta(name, (), {"dtype": dtype, "__module__": "torch.sparse",
                                      "__doc__": f"``torch.sparse.{name}``: the legacy {dtype} sparse COO type."})


FloatTensor = _sparse_type("FloatTensor", _dtype.float32)
DoubleTensor = _sparse_type("DoubleTensor", _dtype.float64)
HalfTensor = _sparse_type("HalfTensor", _dtype.float16)
BFloat16Tensor = _sparse_type("BFloat16Tensor", _dtype.bfloat16)
LongTensor = _sparse_type("LongTensor", _dtype.int64)
IntTensor = _sparse_type("IntTensor", _dtype.int32)
ShortTensor = _sparse_type("ShortTensor", _dtype.int16)
CharTensor = _sparse_type("CharTensor", _dtype.int8)
ByteTensor = _sparse_type("ByteTensor", _dtype.uint8)
