"""The matmul family: matmul and its special cases (mm, bmm, mv, dot), fused multiply-adds
(addmm, baddbmm, addmv, addbmm), outer products, einsum/tensordot, kron and trace.

Every product goes straight to BLAS through ``np.matmul`` on the operands as they are (float32 stays
float32; transposed views are handed to BLAS without copies). Batched products whose right operand
is a matrix fold the batch into the rows of one GEMM, as PyTorch does. Backward is the textbook
``dA = G @ B^T``, ``dB = A^T @ G``, summed over broadcast batch dims.

Like PyTorch, products do not promote dtypes: mixing float32 and float64 is a RuntimeError.
"""
from __future__ import annotations

import string

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.forward_ad import jvp_linear, jvp_multilinear
from ..autograd.function import Op, linear_backward
from ._cast import checked_scalar
from ._util import unbroadcast
from .pointwise import _out, cast, mul
from ._inplace import inplace

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm", "baddbmm", "addmv",
           "addbmm", "einsum", "tensordot", "trace"]

def _aname(arr):
    """ATen's scalar-type name of an array's dtype ("Float"), as PyTorch's messages spell it."""
    return _dtype.from_np(arr.dtype)._aten_name


def _cname(arr):
    """The C++ type name of an array's dtype ("float", "long int"), as in "float != double"."""
    return _dtype.from_np(arr.dtype)._cpp_name


def _check_tensor(x, fn, arg, pos):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _operands(fn, input, other, name):
    """The two operands' arrays, after PyTorch's TypeError for one that is not a Tensor."""
    _check_tensor(input, fn, "input", 1)
    _check_tensor(other, fn, name, 2)
    return input._data, other._data


def _check_bool(a, b, empty_ok=False):
    """PyTorch has no bool matmul kernel; with ``empty_ok`` (mm/bmm/matmul) an empty product needs none."""
    if (a.dtype == np.bool_ or b.dtype == np.bool_) and not (empty_ok and (a.size == 0 or b.size == 0)):
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")


def _bmm_dtype_error(a, b):  # a bool batch1 fails on PyTorch's missing kernel before the dtype check
    if a.dtype == np.bool_:
        return NotImplementedError("\"bmm\" not implemented for 'Bool'")
    return RuntimeError(f"expected scalar type {_aname(a)} but found {_aname(b)}")


def _mm_dtype_error(a, b):
    return RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cname(a)} != {_cname(b)}")


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _check_expand(shape, target):
    """PyTorch's error when ``input`` of addmm/baddbmm/addmv cannot broadcast to the product's shape."""
    if len(shape) > len(target):
        raise RuntimeError(f"The expanded size of the tensor ({target[0] if target else 0}) must match the existing "
                           f"size ({shape[0]}) at non-singleton dimension 0.  Target sizes: {list(target)}.  "
                           f"Tensor sizes: {list(shape)}")
    off = len(target) - len(shape)
    for i, s in enumerate(shape):
        if s != 1 and s != target[off + i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[off + i]}) must match the existing size "
                               f"({s}) at non-singleton dimension {off + i}.  Target sizes: {list(target)}.  "
                               f"Tensor sizes: {list(shape)}")


# ------------------------------------------------------------------------------------------------
# matmul kernels on ndarrays
# ------------------------------------------------------------------------------------------------
def _fold(x, w):
    """``x @ w`` for a matrix ``w``: a stack ``x`` is folded into the rows of one GEMM (a view when contiguous)."""
    if x.ndim > 2 and x.size and isinstance(x, np.ndarray) and x.flags.c_contiguous:
        return (x.reshape(-1, x.shape[-1]) @ w).reshape(x.shape[:-1] + w.shape[1:])
    return np.matmul(x, w)


def _mm_forward(a, b):
    if a.dtype.kind == "V":  # bfloat16: NumPy's matmul answers in float32
        return np.matmul(a, b).astype(a.dtype)
    if b.ndim <= 2 and a.ndim > 2:
        return _fold(a, b)
    return np.matmul(a, b)


def _cz(x):
    """``conj(x)`` for a complex array or create_graph box, else ``x`` itself (no copy)."""
    return x.conj() if x.dtype.kind == "c" else x


def _mm_grads(g, a, b, need_a, need_b):
    """Gradients of ``matmul(a, b)`` for upstream ``g``; 1-D operands act as a row / column matrix.
    Complex: ``dA = G @ B^H``, ``dB = A^H @ G`` (PyTorch's convention for holomorphic ops)."""
    if g.dtype.kind == "c":
        a, b = _cz(a), _cz(b)
    ga = gb = None
    if a.ndim == 2 and b.ndim == 2:  # the hot path: two GEMMs, BLAS reads the transposes as views
        if need_a:
            ga = g @ b.T
        if need_b:
            gb = a.T @ g
    elif a.ndim == 1 and b.ndim == 1:
        ga = g * b if need_a else None
        gb = g * a if need_b else None
    else:
        A = a[None, :] if a.ndim == 1 else a
        B = b[:, None] if b.ndim == 1 else b
        G = g[..., None, :] if a.ndim == 1 else g
        G = G[..., None] if b.ndim == 1 else G
        if need_a:
            Bt = B.swapaxes(-1, -2)
            ga = _fold(G, Bt) if B.ndim == 2 else unbroadcast(np.matmul(G, Bt), A.shape)
            ga = ga.reshape(a.shape)
        if need_b:
            if B.ndim == 2:  # sum over the whole stack in one GEMM
                rows = G.size // G.shape[-1] if G.shape[-1] else A.size // A.shape[-1] if A.shape[-1] else 0
                gb = A.reshape(rows, A.shape[-1]).T @ G.reshape(rows, G.shape[-1])  # (rows: a 0 may be anywhere)
            else:
                gb = unbroadcast(np.matmul(A.swapaxes(-1, -2), G), B.shape)
            gb = gb.reshape(b.shape)
    if ga is not None and ga.dtype != a.dtype:
        ga = ga.astype(a.dtype)
    if gb is not None and gb.dtype != b.dtype:
        gb = gb.astype(b.dtype)
    return ga, gb


class _Matmul(Op):
    """``a @ b`` on ndarrays; the subclasses only differ in the node name PyTorch shows."""
    _vmap = "matmul"  # batching rule kind (func/_batching_rules.py)

    _saves = (0, 1)
    _saves_for = {0: (1,), 1: (0,)}
    jvp = jvp_multilinear  # forward AD (autograd/forward_ad.py)

    def forward(self, a, b):
        self.saved = (a, b)
        return _mm_forward(a, b)

    def backward(self, g):
        a, b = self.saved
        return _mm_grads(g, a, b, self._edges[0] is not None, self._edges[1] is not None)


class MmBackward0(_Matmul):
    """matrix @ matrix (and vector @ matrix)."""


class MvBackward0(_Matmul):
    """matrix @ vector."""


class DotBackward0(_Matmul):
    """vector @ vector."""


class VdotBackward0(Op):
    """``sum(conj(a) * b)``; PyTorch's gradients ``conj(g) * b`` for ``a``, ``g * a`` for ``b``."""

    _saves = (0, 1)
    _saves_for = {0: (1,), 1: (0,)}

    def forward(self, a, b):
        self.saved = (a, b)
        return np.asarray(np.vdot(a, b))  # np.vdot conjugates its first argument, as torch.vdot

    def backward(self, g):
        a, b = self.saved
        return (_cz(g) * b if self._edges[0] is not None else None), (g * a if self._edges[1] is not None else None)


class BmmBackward0(_Matmul):
    """3-D @ 3-D of equal batch size (``torch.bmm``)."""


class BatchedMatmulBackward(_Matmul):
    """Batched, broadcasting matmul: PyTorch's graph ends in an ``_unsafe_view`` of the bmm result, so
    the node shows as UnsafeViewBackward0 (a class name taken by ``shape.py``'s reshape node)."""

    _node_name = "UnsafeViewBackward0"


# ------------------------------------------------------------------------------------------------
# public products
# ------------------------------------------------------------------------------------------------
def _dot_checks(a, b, name="dot"):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name} : expected both vectors to have same dtype, but found {_aname(a)} and {_aname(b)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to have "
                           f"the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements respectively")


def _mv_checks(a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_aname(b)}, {_aname(a)}, "
                           f"and {_aname(b)}")
    if a.shape[-1] != b.shape[0]:
        rows = _prod(a.shape[:-1])
        raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{a.shape[-1]}), vec ({b.shape[0]})")


def _mm_checks(a, b):
    if a.shape[-1] != b.shape[0]:  # PyTorch checks the shapes first
        rows = _prod(a.shape[:-1])
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a.shape[-1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")
    if a.dtype != b.dtype:
        raise _mm_dtype_error(a, b)


def _batch_checks(a, b, strict=True):
    """bmm's shape checks, then dtypes; unless ``strict``, mixed dtypes pass for an empty product."""
    ba, bb = a.shape[:-2], b.shape[:-2]
    try:
        batch = ba if ba == bb else np.broadcast_shapes(ba, bb)
    except ValueError:
        n = max(len(ba), len(bb))
        sa, sb = (1,) * (n - len(ba)) + ba, (1,) * (n - len(bb)) + bb
        i = max(i for i in range(n) if sa[i] != sb[i] and 1 not in (sa[i], sb[i]))
        raise RuntimeError(f"The size of tensor a ({sa[i]}) must match the size of tensor b ({sb[i]}) at "
                           f"non-singleton dimension {i}") from None
    k = a.shape[-1] if a.ndim > 1 else a.shape[0]
    if b.shape[-2] != k:
        n = _prod(batch)
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {k}] but got: "
                           f"[{n}, {b.shape[-2]}].")
    if a.dtype != b.dtype and (strict or a.size and b.size):  # strict: a vector, folded into mv
        raise RuntimeError(f"expected scalar type {_aname(a)} but found {_aname(b)}") if strict else \
            _bmm_dtype_error(a, b)


def matmul(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Matrix product with NumPy/PyTorch broadcasting semantics (``torch.matmul``, ``@``).

    1-D @ 1-D is a dot product (0-d result); a 1-D left operand is a row vector and a 1-D right
    operand a column vector (the added dim is removed from the result); otherwise the last two dims
    multiply and the leading (batch) dims broadcast. Dtypes must match (no promotion).
    Raises RuntimeError with PyTorch's messages for 0-d operands, mismatched inner sizes, batch dims
    that do not broadcast and mixed dtypes; TypeError for non-Tensor arguments.
    Backward nodes: DotBackward0, MvBackward0, MmBackward0, UnsafeViewBackward0 (batched).
    """
    _check_tensor(input, "matmul", "input", 1)
    _check_tensor(other, "matmul", "other", 2)
    a, b = input._data, other._data
    da, db = a.ndim, b.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        _dot_checks(a, b)
        op = DotBackward0
    elif db == 1:
        _mv_checks(a, b)
        op = MvBackward0 if da == 2 else BatchedMatmulBackward
    elif db == 2 and da <= 2:
        _mm_checks(a[None] if da == 1 else a, b)
        op = MmBackward0
    elif db == 2:
        _mm_checks(a, b)
        op = BatchedMatmulBackward
    else:
        _batch_checks(a, b, strict=da == 1)  # a 1-D left operand folds into mv, which checks dtypes
        if a.dtype != b.dtype:  # an empty product: zeros of other's dtype, as PyTorch's bmm path
            return _out(_make(np.matmul(np.zeros(a.shape, b.dtype), b)), out)
        op = BatchedMatmulBackward
    _check_bool(a, b, empty_ok=op is not DotBackward0)
    return _out(op.apply(input, other), out)


def mm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    """``(n, k) @ (k, m) -> (n, m)`` (``torch.mm``); no broadcasting. RuntimeError unless both are matrices
    of the same dtype with matching inner size. Backward node: MmBackward0."""
    a, b = _operands("mm", input, mat2, "mat2")
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _mm_checks(a, b)
    _check_bool(a, b, empty_ok=True)
    return _out(MmBackward0.apply(input, mat2), out)


def bmm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    """``(b, n, k) @ (b, k, m) -> (b, n, m)`` (``torch.bmm``); both must be 3-D with equal batch size and
    dtype, else RuntimeError. Backward node: BmmBackward0."""
    a, b = _operands("bmm", input, mat2, "mat2")
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
                           f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    if a.dtype != b.dtype:
        if a.size and b.size:
            raise _bmm_dtype_error(a, b)
        return _out(_make(np.zeros((a.shape[0], a.shape[1], b.shape[2]), b.dtype)), out)  # as PyTorch: mat2's
    _check_bool(a, b, empty_ok=True)
    return _out(BmmBackward0.apply(input, mat2), out)


def mv(input: Tensor, vec: Tensor, *, out=None) -> Tensor:
    """``(n, m) @ (m,) -> (n,)`` (``torch.mv``). RuntimeError for wrong ranks, sizes or dtypes.
    Backward node: MvBackward0."""
    a, b = _operands("mv", input, vec, "vec")
    if a.ndim != 2 or b.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {b.ndim}")
    _mv_checks(a, b)
    _check_bool(a, b)
    return _out(MvBackward0.apply(input, vec), out)


def dot(input: Tensor, tensor: Tensor, *, out=None) -> Tensor:
    """Inner product of two 1-D tensors of equal length and dtype, a 0-d tensor (``torch.dot``).
    Backward node: DotBackward0."""
    a, b = _operands("dot", input, tensor, "tensor")
    _dot_checks(a, b)
    if a.dtype == np.bool_:
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    return _out(DotBackward0.apply(input, tensor), out)


def vdot(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``sum(conj(input) * other)`` of two 1-D tensors of equal length and dtype, a 0-d tensor (``torch.vdot``);
    RuntimeError for other ranks, sizes or mixed dtypes."""
    a, b = _operands("vdot", input, other, "other")
    _dot_checks(a, b)
    if a.dtype == np.bool_:
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    return _out(VdotBackward0.apply(input, other), out)


# ------------------------------------------------------------------------------------------------
# fused multiply-add: beta * input + alpha * (a @ b)
# ------------------------------------------------------------------------------------------------
class _AddMatmul(Op):
    _saves = (1, 2)
    _saves_for = {1: (2,), 2: (1,)}

    def forward(self, c, a, b, beta=1, alpha=1):
        self.saved = (a, b)
        self.sc, self.beta, self.alpha = c.shape, beta, alpha
        out = _mm_forward(a, b)
        if alpha != 1:
            out *= alpha
        if beta == 1:
            out += c
        elif beta != 0:  # beta == 0 ignores input entirely (nan and inf included), as PyTorch does
            out += beta * c
        return out

    def backward(self, g):
        a, b = self.saved
        e = self._edges
        gc = None
        if e[0] is not None:
            gc = unbroadcast(g if self.beta == 1 else g * self.beta, self.sc)
        ga, gb = _mm_grads(g, a, b, e[1] is not None, e[2] is not None)
        if self.alpha != 1:
            ga = ga * self.alpha if ga is not None else None
            gb = gb * self.alpha if gb is not None else None
        return gc, ga, gb

    def jvp(self, tc, ta, tb):  # beta * tc + alpha * (ta @ b + a @ tb)
        c, a, b = self.fw_inputs
        beta, alpha = self.fw_kwargs.get("beta", 1), self.fw_kwargs.get("alpha", 1)
        out = None
        if ta is not None or tb is not None:
            out = ta @ b if tb is None else a @ tb if ta is None else ta @ b + a @ tb
            out = out * alpha if alpha != 1 else out
        if tc is not None and beta != 0:
            tcb = tc * beta if beta != 1 else tc
            out = tcb if out is None else out + tcb
        return out.expand(*self.fw_out._data.shape) if out is not None else None


class AddmmMatmulBackward(_AddMatmul):
    """``torch.addmm``; shows as AddmmBackward0, as ``nn_ops.py``'s ``LinearAddmm`` (F.linear) does."""

    _node_name = "AddmmBackward0"


class BaddbmmBackward0(_AddMatmul):
    pass


class AddmvBackward0(_AddMatmul):
    pass


def _addmm_dtypes(c, a, b):
    if c.dtype != a.dtype or a.dtype != b.dtype:
        bad = a if c.dtype != a.dtype else b
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_aname(c)} and {_aname(bad)}")


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` (``torch.addmm``); ``input`` broadcasts to ``(n, m)``.
    RuntimeError for non-matrix operands, mismatched sizes or dtypes. Backward node: AddmmBackward0."""
    c, a, b = input._data, mat1._data, mat2._data
    if a.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {a.ndim}-D tensor")
    if b.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {b.ndim}-D tensor")
    _addmm_dtypes(c, a, b)
    _mm_checks(a, b)
    _check_expand(c.shape, (a.shape[0], b.shape[1]))
    _check_bool(a, b)
    beta, alpha = checked_scalar(beta, a.dtype), checked_scalar(alpha, a.dtype)  # int tensors: truncated
    return _out(AddmmMatmulBackward.apply(input, mat1, mat2, beta=beta, alpha=alpha), out)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * bmm(batch1, batch2)`` (``torch.baddbmm``); ``input`` broadcasts to
    ``(b, n, m)``. Backward node: BaddbmmBackward0."""
    c, a, b = input._data, batch1._data, batch2._data
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if not (c.dtype == a.dtype == b.dtype):
        raise RuntimeError(f"expected scalar type {_aname(c)} but found {_aname(a if a.dtype != c.dtype else b)}")
    if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
                           f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    _check_expand(c.shape, (a.shape[0], a.shape[1], b.shape[2]))
    _check_bool(a, b)
    beta, alpha = checked_scalar(beta, a.dtype), checked_scalar(alpha, a.dtype)  # int tensors: truncated
    return _out(BaddbmmBackward0.apply(input, batch1, batch2, beta=beta, alpha=alpha), out)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * (mat @ vec)`` (``torch.addmv``). Backward node: AddmvBackward0."""
    c, a, b = input._data, mat._data, vec._data
    if a.ndim != 2 or b.ndim != 1 or c.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {c.ndim}, {a.ndim}, {b.ndim}")
    if not (c.dtype == a.dtype == b.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_aname(c)}, {_aname(a)}, "
                           f"and {_aname(b)}")
    if a.shape[1] != b.shape[0] or (c.ndim == 1 and c.shape[0] not in (1, a.shape[0])):
        raise RuntimeError(f"size mismatch, got input ({c.shape[0] if c.ndim else 1}), mat "
                           f"({a.shape[0]}x{a.shape[1]}), vec ({b.shape[0]})")
    _check_bool(a, b)
    beta, alpha = checked_scalar(beta, a.dtype), checked_scalar(alpha, a.dtype)  # int tensors: truncated
    return _out(AddmvBackward0.apply(input, mat, vec, beta=beta, alpha=alpha), out)


def _inplace_of(fn):
    """``fn``'s in-place Tensor method ``fn_`` (``torch.Tensor.addmm_``...), recorded through ``pointwise.inplace``."""
    def method(self, *args, **kwargs):
        return inplace(self, fn, *args, **kwargs)
    method.__name__ = method.__qualname__ = name = fn.__name__ + "_"
    method.__doc__ = f"In-place ``{fn.__name__}`` writing into ``self`` (``torch.Tensor.{name}``)."
    return method


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``torch.addbmm``: ``beta * input + alpha * sum_b batch1[b] @ batch2[b]``; ``batch1`` ``(B, n, m)``,
    ``batch2`` ``(B, m, p)``, ``input`` broadcastable to ``(n, p)``. One matmul over the folded
    batch: ``batch1`` as ``(n, B*m)`` times ``batch2`` as ``(B*m, p)``. Backward node: AddmmBackward0."""
    a, b = batch1._data, batch2._data
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {a.shape[0]} and "
                           f"{b.shape[0]}")
    if a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({a.shape[1]}x{a.shape[2]} and "
                           f"{b.shape[1]}x{b.shape[2]})")
    m1 = batch1.transpose(0, 1).reshape(a.shape[1], a.shape[0] * a.shape[2])
    m2 = batch2.reshape(b.shape[0] * b.shape[1], b.shape[2])
    return addmm(input, m1, m2, beta=beta, alpha=alpha, out=out)


addmm_, baddbmm_, addmv_, addbmm_ = map(_inplace_of, (addmm, baddbmm, addmv, addbmm))


# ------------------------------------------------------------------------------------------------
# outer product
# ------------------------------------------------------------------------------------------------
class OuterProduct(Op):
    """``a[:, None] * b[None, :]``; PyTorch builds outer as a broadcast multiply, so it shows MulBackward0."""

    _saves = (0, 1)
    _node_name = "MulBackward0"
    _saves_for = {0: (1,), 1: (0,)}

    def forward(self, a, b):
        self.saved = (a, b)
        return np.multiply.outer(a, b)

    def backward(self, g):
        a, b = self.saved
        a, b = _cz(a), _cz(b)  # complex: grad * conj(other), as for mul
        ga = g @ b if self._edges[0] is not None else None
        gb = a @ g if self._edges[1] is not None else None
        return ga, gb


def _promote(x, y):
    """Cast two tensors to their common dtype (differentiably), for ops that promote like ``mul``."""
    if x._data.dtype == y._data.dtype:
        return x, y
    rt = _dtype.result_type(x, y)
    return cast(x, rt), cast(y, rt)


def outer(input: Tensor, vec2: Tensor, *, out=None) -> Tensor:
    """Outer product ``(n,) x (m,) -> (n, m)`` (``torch.outer``/``ger``); dtypes promote as in ``mul``.
    RuntimeError for operands that are not 1-D."""
    if input._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input._data.ndim}-D")
    if vec2._data.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2._data.ndim}-D")
    a, b = _promote(input, vec2)
    return _out(OuterProduct.apply(a, b), out)


ger = outer


def inner(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Sum over the last dims: ``(..., k), (..., k)`` -> ``input.shape[:-1] + other.shape[:-1]`` (``torch.inner``);
    a 0-d operand multiplies elementwise."""
    if input._data.ndim == 0 or other._data.ndim == 0:
        return _out(mul(input, other), out)
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input._data.shape)} and {list(other._data.shape)}")
    return _out(tensordot(input, other, dims=([-1], [-1])), out)


# ------------------------------------------------------------------------------------------------
# einsum and tensordot
# ------------------------------------------------------------------------------------------------
_LETTERS = string.ascii_uppercase + string.ascii_lowercase


def _parse_einsum(equation, shapes):
    """Make an equation explicit: per-operand letter strings (ellipsis spelt out), the output letters
    and every letter's size. Raises PyTorch's RuntimeErrors for malformed equations."""
    lhs, arrow, rhs = equation.partition("->")
    for i, ch in enumerate(equation):
        if not (ch in _LETTERS or ch in ",.- >" or ch == " "):
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                               f"subscripts must be in [a-zA-Z]")
    terms = [t.replace(" ", "") for t in lhs.split(",")]
    if len(terms) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    used = set(equation)
    free = [c for c in _LETTERS if c not in used]
    n_ell = 0
    for k, (t, shp) in enumerate(zip(terms, shapes)):
        n_let = len(t.replace("...", ""))
        if "..." in t:
            if n_let > len(shp):
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_let}) is more than the "
                                   f"number of dimensions ({len(shp)}) for operand {k}")
            n_ell = max(n_ell, len(shp) - n_let)
        elif n_let != len(shp):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_let}) does not match the "
                               f"number of dimensions ({len(shp)}) for operand {k} and no ellipsis was given")
    ell = "".join(free[:n_ell])
    terms = [t.replace("...", ell[n_ell - (len(s) - len(t.replace("...", ""))):] if n_ell else "")
             if "..." in t else t for t, s in zip(terms, shapes)]
    sizes = {}
    for k, (t, shp) in enumerate(zip(terms, shapes)):
        seen = {}
        for c, s in zip(t, shp):
            if c in seen and seen[c] != s:
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't match, "
                                   f"{s} != {seen[c]}")
            seen[c] = s
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = s
            elif s != 1 and s != prev:
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {k} which does not broadcast "
                                   f"with previously seen size {prev}")
    if arrow:
        out = rhs.replace(" ", "").replace("...", ell)
        for c in out:
            if c not in sizes:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input "
                                   f"operand")
            if out.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
    else:  # implicit output: ellipsis dims, then the letters used once, sorted
        counts = {}
        for t in terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    return terms, out, sizes


def _einsum(eq, arrays):
    if arrays[0].dtype.kind == "V":  # bfloat16: compute in float32
        return np.einsum(eq, *(a.astype(np.float32) for a in arrays), optimize=len(arrays) > 1).astype(arrays[0].dtype)
    return np.einsum(eq, *arrays, optimize=len(arrays) > 1)


class _Einsum(Op):
    """``np.einsum`` over explicit subscripts; each operand's gradient is another einsum.

    The gradient of operand i contracts the upstream gradient (output subscripts) with the other
    operands into operand i's distinct subscripts; subscripts that appear nowhere else are
    broadcast back, size-1 (broadcast) dims are summed, and repeated subscripts (a diagonal) are
    written into a zero tensor through a diagonal view.
    """

    def forward(self, *arrays, spec):
        terms, out, sizes = spec
        self.saved = arrays
        self.spec = spec
        res = _einsum(",".join(terms) + "->" + out, arrays)
        if len(arrays) == 1 and np.may_share_memory(res, arrays[0]):
            return np.array(res, order="C", copy=True)  # einsum may return a view (e.g. a transpose)
        return np.asarray(res, order="C")  # keeps 0-d results 0-d (ascontiguousarray would not)

    def backward(self, g):
        arrays = self.saved
        if g.dtype.kind == "c":  # complex: contract with the conjugated other operands
            arrays = tuple(_cz(x) for x in arrays)
        terms, out, sizes = self.spec
        grads = []
        for i, (arr, term) in enumerate(zip(arrays, terms)):
            if self._edges[i] is None:
                grads.append(None)
                continue
            others = [j for j in range(len(terms)) if j != i]
            avail = set(out).union(*(terms[j] for j in others))
            uniq = "".join(dict.fromkeys(term))
            keep = "".join(c for c in uniq if c in avail)
            eq = ",".join([out] + [terms[j] for j in others]) + "->" + keep
            r = _einsum(eq, [g] + [arrays[j] for j in others])
            if len(keep) < len(uniq):  # letters summed only inside this operand: broadcast the grad back
                order = keep + "".join(c for c in uniq if c not in keep)
                r = r.reshape(r.shape + (1,) * (len(uniq) - len(keep)))
                r = np.broadcast_to(r.transpose([order.index(c) for c in uniq]), [sizes[c] for c in uniq])
            own = [arr.shape[term.index(c)] for c in uniq]
            axes = tuple(k for k, s in enumerate(own) if s == 1 and r.shape[k] != 1)
            if axes:
                r = r.sum(axis=axes, keepdims=True)
            if len(uniq) < len(term) and self._graph:  # the diagonal written through a 0/1 mask
                mask = np.zeros(arr.shape, arr.dtype)
                np.einsum(term + "->" + uniq, mask)[...] = 1
                shape = [r.shape[uniq.index(c)] if term.index(c) == k else 1 for k, c in enumerate(term)]
                r = r.reshape(shape) * mask
            elif len(uniq) < len(term):
                full = np.zeros(arr.shape, arr.dtype)
                np.einsum(term + "->" + uniq, full)[...] = r
                r = full
            grads.append(r.astype(arr.dtype, copy=False))
        return tuple(grads)


class TensordotBackward0(_Einsum):
    _saves = (0, 1)
    _saves_for = {0: (1,), 1: (0,)}  # an operand is read only for the other's gradient (as mm saves)


_EINSUM_OPS = {}


def _einsum_op(n):
    """The einsum node class for ``n`` operands (``_saves`` lists them all, so each is version-checked)."""
    op = _EINSUM_OPS.get(n)
    if op is None:
        # an operand's values are read only for the other operands' gradients (its own needs its shape)
        saves_for = {i: tuple(j for j in range(n) if j != i) for i in range(n)} if n > 1 else None
        op = _EINSUM_OPS[n] = type(f"Einsum{n}Operands", (_Einsum,),
                                   {"_saves": tuple(range(n)), "_node_name": "EinsumBackward0",
                                    "_saves_for": saves_for})
    return op


def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation (``torch.einsum``): ``einsum("ij,jk->ik", a, b)``; operands may also be
    given as one list. Supports implicit output, ``...`` (broadcasting) and repeated subscripts
    (diagonals). All operands must share one dtype. Contractions run through ``np.einsum`` with
    path optimization (BLAS for pairwise contractions). RuntimeError with PyTorch's messages for
    malformed equations and size mismatches. Backward node: EinsumBackward0.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' must be str, not {type(equation).__name__}")
    for k, t in enumerate(operands):
        _check_tensor(t, "einsum", "operands", k + 2)
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    d0 = operands[0]._data.dtype
    for t in operands[1:]:
        if t._data.dtype != d0:
            raise RuntimeError(f"expected scalar type {_aname(operands[0]._data)} but found {_aname(t._data)}")
    spec = _parse_einsum(equation, [t._data.shape for t in operands])
    return _einsum_op(len(operands)).apply(*operands, spec=spec)


def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """Contract ``dims`` of ``a`` with ``dims`` of ``b`` (``torch.tensordot``).

    ``dims`` is an int (last ``dims`` of ``a`` with first ``dims`` of ``b``) or a pair of dim lists.
    Result shape: ``a``'s free dims then ``b``'s. RuntimeError for mismatched sizes or dtypes.
    """
    na, nb = a._data.ndim, b._data.ndim
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(na, nb):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(na - dims, na)), list(range(dims))
    else:
        da, db = dims
        if isinstance(da, int) or isinstance(db, int):  # PyTorch's parser takes two lists of dims here
            raise TypeError("tensordot(): argument 'dims_self' (position 3) must be tuple of ints, not int")
        da, db = list(da), list(db)
        if len(da) != len(db):
            raise RuntimeError(f"both dimension lists should have same length, but got {len(da)} and {len(db)}")
        da = [d + na if d < 0 else d for d in da]
        db = [d + nb if d < 0 else d for d in db]
    for d in [d for dl in (da, db) for d in dl if dl.count(d) > 1][:1]:
        raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    for x, y in zip(da, db):
        sx, sy = a._data.shape[x], b._data.shape[y]
        if sx != sy and 1 not in (sx, sy):
            raise RuntimeError(f"contracted dimensions need to match, but first has size {sx} in dim {x} and second "
                               f"has size {sy} in dim {y}")
        if sx != sy:  # a size-1 dim broadcasts against the other's, as in PyTorch
            a = a.expand(*[sy if k == x else n for k, n in enumerate(a.shape)]) if sx == 1 else a
            b = b.expand(*[sx if k == y else n for k, n in enumerate(b.shape)]) if sy == 1 else b
    la = _LETTERS[:na]
    lb = [None] * nb
    for x, y in zip(da, db):
        lb[y] = la[x]
    extra = iter(_LETTERS[na:])
    lb = "".join(c if c is not None else next(extra) for c in lb)
    outl = "".join(c for k, c in enumerate(la) if k not in da) + "".join(c for k, c in enumerate(lb) if k not in db)
    sizes = dict(zip(la, a._data.shape))
    sizes.update(zip(lb, b._data.shape))
    res = TensordotBackward0.apply(a, b, spec=([la, lb], outl, sizes))
    return _out(res, out)


# ------------------------------------------------------------------------------------------------
# trace
# ------------------------------------------------------------------------------------------------
class TraceBackward0(Op):
    def forward(self, a):
        self.shape = a.shape
        return np.asarray(np.trace(a), dtype=a.dtype if a.dtype.kind in "fcV" else np.int64)

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), lambda w: np.asarray(np.trace(w)))
        gi = np.zeros(self.shape, g.dtype)
        np.fill_diagonal(gi, g)
        return gi


def trace(input: Tensor) -> Tensor:
    """Sum of the main diagonal of a 2-D tensor, a 0-d tensor (``torch.trace``); integer inputs give
    int64. RuntimeError for non-matrices. Backward node: TraceBackward0."""
    a = input._data
    if a.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.ndim}")
    if a.dtype == np.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return TraceBackward0.apply(input)
