"""The matmul family: matmul and its special cases (mm, bmm, mv, dot), fused multiply-adds
(addmm, baddbmm, addmv, addbmm), outer products and trace (einsum, tensordot and inner: ``einsum.py``).

Every product goes straight to BLAS through ``np.matmul`` on the operands as they are (float32 stays
float32; transposed views are handed to BLAS without copies). Batched products whose right operand
is a matrix fold the batch into the rows of one GEMM, as PyTorch does. Backward is the textbook
``dA = G @ B^T``, ``dB = A^T @ G``, summed over broadcast batch dims.

Like PyTorch, products do not promote dtypes: mixing float32 and float64 is a RuntimeError.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.forward_ad import jvp_linear, jvp_multilinear
from ..autograd.function import Op, linear_backward
from ._cast import checked_scalar
from ._util import check_inplace, unbroadcast
from .pointwise import _out, cast
from ._inplace import inplace

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "outer", "ger", "addmm", "baddbmm", "addmv",
           "addbmm", "trace"]

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
                rows = int(np.prod(A.shape[:-1]))  # not reshape(-1, k): ambiguous when there are no elements
                gb = A.reshape(rows, A.shape[-1]).T @ G.reshape(rows, G.shape[-1])
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
    beta, alpha = checked_scalar(beta, c.dtype), checked_scalar(alpha, c.dtype)
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
    beta, alpha = checked_scalar(beta, c.dtype), checked_scalar(alpha, c.dtype)
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
    beta, alpha = checked_scalar(beta, c.dtype), checked_scalar(alpha, c.dtype)
    return _out(AddmvBackward0.apply(input, mat, vec, beta=beta, alpha=alpha), out)


def _inplace_of(fn):
    """``fn``'s in-place Tensor method ``fn_`` (``torch.Tensor.addmm_``...), recorded through ``pointwise.inplace``."""
    def method(self, *args, **kwargs):
        return inplace(self, fn, *args, **kwargs)
    method.__name__ = method.__qualname__ = name = fn.__name__ + "_"
    method.__doc__ = f"In-place ``{fn.__name__}`` writing into ``self`` (``torch.Tensor.{name}``)."
    return method


def _addbmm_checks(a, b):
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


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``torch.addbmm``: ``beta * input + alpha * sum_b batch1[b] @ batch2[b]``; ``batch1`` ``(B, n, m)``,
    ``batch2`` ``(B, m, p)``, ``input`` broadcastable to ``(n, p)``. One matmul over the folded
    batch: ``batch1`` as ``(n, B*m)`` times ``batch2`` as ``(B*m, p)``. Backward node: AddmmBackward0."""
    a, b = batch1._data, batch2._data
    _addbmm_checks(a, b)
    m1 = batch1.transpose(0, 1).reshape(a.shape[1], a.shape[0] * a.shape[2])
    m2 = batch2.reshape(b.shape[0] * b.shape[1], b.shape[2])
    return addmm(input, m1, m2, beta=beta, alpha=alpha, out=out)


addmm_, baddbmm_, addmv_ = map(_inplace_of, (addmm, baddbmm, addmv))


def addbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """In-place ``addbmm`` (``torch.Tensor.addbmm_``). Unlike ``addmm_``, PyTorch's kernel grows a ``self``
    that only broadcasts to the result's ``(n, p)`` (shape ``[1]``, ``[]``, ``[p]``) into that shape, its
    values broadcast first; the history of the old value flows through that broadcast."""
    a, b = batch1._data, batch2._data
    _addbmm_checks(a, b)
    shape = (a.shape[1], b.shape[2])
    if self._base is None and self._data.shape != shape:
        check_inplace(self)
        _addmm_dtypes(self._data, a, b)
        _check_expand(self._data.shape, shape)
        grown = self.expand(*shape)
        self._data = np.ascontiguousarray(grown._data)
        if grown._rg:  # self's old value reaches the result through the broadcast (summed back in backward)
            self.grad_fn, self._output_nr = grown.grad_fn, grown._output_nr
    return inplace(self, addbmm, batch1, batch2, beta=beta, alpha=alpha)


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
