"""In-place machinery: ``inplace`` (run an op out of place, store into ``self``, rebase history),
``_store``, and the plain in-place writes ``copy_`` (``CopyBackwards``), ``fill_`` and ``zero_``.

Op families register ufunc fast paths for their in-place methods in ``_FAST_INPLACE`` (``add_``:
``np.add``), so ``self.add_(other)`` outside autograd is one ufunc writing into ``self``'s memory.
"""
from __future__ import annotations

import numpy as np

from .._backend import MetaArray
from .._tensor import Tensor, _make
from .._tensor_sparse import SparseCOO, unsupported
from ..autograd import function
from ..autograd.forward_ad import inplace_tangent, jvp_linear, zero_tangent
from ..autograd.function import Op, rebase_view
from ..autograd.grad_mode import _State, no_grad
from ._cast import _can_cast, cast
from ._util import _bshape, bump, check_inplace, check_writable, to_tensor, unbroadcast

__all__ = ["inplace", "inplace_fn", "copy_", "fill_", "zero_"]

# op function -> NumPy ufunc that computes it in place when nothing is recorded (filled by the families)
_FAST_INPLACE = {}


def inplace(self: Tensor, result_fn, *args, **kwargs) -> Tensor:
    """Run ``result_fn(self, *args)`` out of place and write the result into ``self``'s storage.

    Keeps views aliased (the write goes through the shared ndarray) and bumps the version counter.
    Under autograd, the op is recorded on a copy of ``self``'s old value and ``self`` becomes its
    output, as PyTorch rebases history; when ``self`` is a view, its base's history is rebased
    too (``CopySlices``), so gradients reach both the written region and the rest of the base.
    RuntimeError for a leaf (or a view of a leaf) that requires grad, and for a result dtype that
    cannot be cast to ``self``'s (e.g. float into an int tensor).
    """
    if _State.captured:  # inside a grad transform: a captured tensor must not be written (func/_captures.py)
        check_captured(self, result_fn)
    if _State.vmap:  # inside vmap: func/_batched.py writes into the batched tensor's physical data
        return function.vmap_inplace(self, result_fn, args, kwargs)
    fw = _State.fw  # forward AD: the written value's tangent becomes self's (forward_ad.py)
    if not fw and len(args) == 1 and not kwargs and result_fn in _FAST_INPLACE and _fast_inplace(self, result_fn, args[0]):
        return self
    check_inplace(self)
    base = self._base
    if base is not None and base._rg and base.grad_fn is None and _State.enabled:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    track = _State.enabled and (self._rg or any(isinstance(a, Tensor) and a._rg for a in args))
    if not track:
        with no_grad():
            res = result_fn(self, *args, **kwargs)
        _store(self, res)
        if fw:
            inplace_tangent(self, res)
        return self
    src = _make(self._data.copy(), self._rg)
    src.grad_fn, src._output_nr = self.grad_fn, self._output_nr
    if fw and "_fw" in self.__dict__:
        src._fw = self._fw
    res = result_fn(src, *args, **kwargs)
    _store(self, res)
    if fw:
        inplace_tangent(self, res)
    if res._rg:
        self.grad_fn, self._output_nr, self._rg = res.grad_fn, res._output_nr, True
        if base is not None:
            rebase_view(self, res)
    return self


_TENSOR_OVERLOAD = {"add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow",
                    "eq", "ne", "lt", "le", "gt", "ge", "bitwise_and", "bitwise_or", "bitwise_xor", "masked_fill",
                    "index_fill", "fill"}


def check_captured(self, op):
    """RuntimeError (PyTorch's) when ``self`` shares its version counter with a tensor the function under a
    grad transform captured (``_State.captured``); ``op`` is the out-of-place function or an aten name."""
    if id(self._vc) not in _State.captured:
        return
    if not isinstance(op, str):
        name = getattr(op, "__name__", "copy").lstrip("_")
        name = {"copy_result": "copy", "index_put_b": "index_put"}.get(name, name)
        op = f"aten::{name}_" + (".Tensor" if name in _TENSOR_OVERLOAD else "")
    raise RuntimeError(f"During a grad (vjp, jvp, grad, etc) transform, the function provided attempted to call "
                       f"in-place operation ({op}) that would mutate a captured Tensor. This is not supported; "
                       f"please rewrite the function being transformed to explicitly accept the mutated Tensor(s) "
                       f"as inputs.")


def inplace_fn(fn, name: str):
    """The in-place form ``name`` of op ``fn`` (``atanh_``, ``scatter_``): ``inplace(input, fn, ...)``,
    as a Tensor method or a ``torch.*`` function."""
    def f(input, *args, **kwargs):
        return inplace(input, fn, *args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"In-place ``{fn.__name__}``: writes into ``input`` and returns it (``torch.Tensor.{name}``)."
    return f


def _fast_inplace(self, fn, other) -> bool:
    """``self.add_(other)`` and friends outside autograd, as one ufunc writing into ``self``'s memory.

    Taken only when nothing is recorded (grad mode off, or no operand requires grad), ``other`` is a
    Python number or a tensor of ``self``'s dtype, and the result keeps ``self``'s dtype (no true
    division of integers); returns False (nothing written) otherwise, and the general path runs
    with its checks and messages.
    """
    if _State.enabled and (self._rg or isinstance(other, Tensor) and other._rg):
        return False
    d = self._data
    k = d.dtype.kind
    uf = _FAST_INPLACE[fn]
    ts = type(other)
    if ts is float or ts is int:
        if not (k in "fc" or (ts is int and k in "iu" and uf is not np.true_divide)):
            return False
    elif isinstance(other, Tensor):
        if other._data.dtype != d.dtype or k not in "fciu" or (k in "iu" and uf is np.true_divide):
            return False
        other = other._data
    else:
        return False
    try:
        uf(d, other, out=d)
    except ValueError:  # shapes that do not broadcast into self: the general path raises PyTorch's error
        return False
    self._vc[0] += 1
    return True


def _store(self, res):
    check_writable(self._data)
    if type(res._data) is MetaArray and type(self._data) is not MetaArray:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    if not _can_cast(res._data.dtype, self._data.dtype):
        raise RuntimeError(f"result type {res.dtype._aten_name} can't be cast to the desired output "
                           f"type {self.dtype._aten_name}")
    if res._data.shape != self._data.shape:
        try:
            np.broadcast_to(res._data, self._data.shape)
        except ValueError:
            raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                               f"{list(res._data.shape)}") from None
    np.copyto(self._data, res._data, casting="unsafe")
    bump(self)


class CopyBackwards(Op):
    """``self.copy_(src)`` under autograd: the value is ``src`` broadcast and cast to ``self``'s dtype;
    the gradient goes to ``src`` (summed over broadcast axes, in ``src``'s dtype), zero to the old ``self``."""

    _node_name = "torch::autograd::CopyBackwards"  # PyTorch's name for this manually written node

    def forward(self, s, x):
        self.sx, self.src = x.shape, x.dtype
        try:
            shape = np.broadcast_shapes(s.shape, x.shape)
        except ValueError:
            _bshape(s, x)
            raise
        return np.broadcast_to(x, shape).astype(s.dtype)

    def backward(self, g):
        gs = np.zeros_like(g) if self._edges[0] is not None else None
        gx = None
        if self._edges[1] is not None:
            gx = unbroadcast(g, self.sx)
            if gx.dtype.kind == "c" and self.src.kind != "c":
                gx = gx.real  # complex self, real src: the real part
            gx = gx.astype(self.src, copy=False)
        return gs, gx


def copy_(self: Tensor, src, non_blocking=False) -> Tensor:
    """Copy ``src`` (broadcast, cast) into ``self`` in place (``Tensor.copy_``); differentiable w.r.t. src
    (backward node ``CopyBackwards``)."""
    src = to_tensor(src)
    if type(self._data) is SparseCOO or type(src._data) is SparseCOO:
        return _copy_sparse(self, src)
    return inplace(self, _copy_result, src)


def _copy_sparse(self, src):
    """``copy_`` with a sparse side: sparse into sparse takes ``src``'s entries and size, as PyTorch's
    copy_sparse_to_sparse_ (``load_state_dict`` of sparse buffers and parameters); a dense and a sparse
    tensor do not mix (RuntimeError, as PyTorch)."""
    p, q = self._data, src._data
    if type(p) is not type(q):
        kind = lambda t: t.type().replace("torch.", "torch.sparse.") if t.is_sparse else t.type()  # noqa: E731
        raise RuntimeError(f"copy_() between dense and sparse Tensors is not implemented! Found self type = "
                           f"{kind(self)} and src type = {kind(src)}")
    check_inplace(self)
    if src._rg and _State.enabled:  # numtorch records no sparse copy: refuse rather than lose the gradient
        raise unsupported("aten::copy_sparse_to_sparse_ recorded by autograd")
    p.indices, p.values, p.shape, p.coalesced = q.indices.copy(), q.values.astype(p.dtype), q.shape, q.coalesced
    bump(self)
    return self


def _copy_result(s, x):
    if (s._rg or x._rg) and _State.enabled:
        return CopyBackwards.apply(s, x)
    return cast(x, s.dtype)


def _filled(s, value):
    """The value ``fill_``/``zero_`` write, as a 0-d tensor of ``s``'s dtype (broadcast by ``inplace``)."""
    if isinstance(value, Tensor):
        return value if value._data.dtype == s._data.dtype else cast(value, s.dtype)
    return _make(np.asarray(value, s._data.dtype))


class ZeroBackward0(Op):
    """``zero_`` recorded by autograd (when ``self`` requires grad): the zeros do not depend on the old
    value, so its gradient is zero, and a view's base gets ``CopySlices`` through ``inplace``."""
    jvp = jvp_linear

    def forward(self, s):
        return np.zeros_like(s)

    def backward(self, g):
        return g * 0


class FillBackward2(Op):
    """``fill_(number)`` recorded by autograd: zero gradient to the old value."""
    def forward(self, s, value):
        return np.full_like(s, value)

    def backward(self, g):
        return g * 0, None

    def jvp(self, t, *_):
        return ZeroBackward0.apply(t if t is not None else self.fw_inputs[0])


class FillBackward3(Op):
    """``fill_(0-d tensor)`` recorded by autograd: the value's gradient is the sum of the incoming one."""
    def forward(self, s, value):
        self.vdtype = value.dtype
        return np.full_like(s, value)

    def backward(self, g):
        return g * 0, g.sum().astype(self.vdtype)

    def jvp(self, t_s, t_v=None):
        if t_v is None:
            return ZeroBackward0.apply(t_s if t_s is not None else self.fw_inputs[0])
        return FillBackward3.apply(ZeroBackward0.apply(self.fw_inputs[0]), t_v)


def _fill_recorded(s, value):
    if isinstance(value, Tensor):
        return FillBackward3.apply(s, value)
    return FillBackward2.apply(s, value)


def _recorded(self, value=None) -> bool:
    """Whether autograd must record this fill (self or the value requires grad, or the value carries a
    forward-AD tangent): then it runs through ``inplace``, which rebases ``self`` (and a view's base) onto
    the fill's node, as PyTorch does."""
    if isinstance(value, Tensor) and _State.fw and "_fw" in value.__dict__:  # forward AD: a dual value's tangent
        return True
    return _State.enabled and (self._rg or (isinstance(value, Tensor) and value._rg))


def zero_(self: Tensor) -> Tensor:
    if _State.captured:  # inside a grad transform (func/_captures.py)
        check_captured(self, "aten::zero_")
    if _State.vmap:  # inside vmap: the in-place hook writes every sample of a batched tensor
        return inplace(self, _filled, 0)
    if _recorded(self):
        return inplace(self, ZeroBackward0.apply)
    check_inplace(self)
    self._data[...] = 0
    bump(self)
    if _State.fw:  # forward AD: the tangent is zero too
        zero_tangent(self)
    return self


def fill_(self: Tensor, value) -> Tensor:
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions.")
    if _State.captured:  # inside a grad transform (func/_captures.py)
        check_captured(self, "aten::fill_." + ("Tensor" if isinstance(value, Tensor) else "Scalar"))
    if _State.vmap:  # inside vmap: every sample of a batched tensor; a batched 0-d value gives one per sample
        return inplace(self, _filled, value)
    if _recorded(self, value):
        if isinstance(value, Tensor) and value._data.dtype != self._data.dtype:
            value = cast(value, self.dtype)
        return inplace(self, _fill_recorded, value)
    check_inplace(self)
    if isinstance(value, Tensor):
        value = value.item()
    self._data[...] = value
    bump(self)
    if _State.fw:  # forward AD: the tangent is zero too
        zero_tangent(self)
    return self
