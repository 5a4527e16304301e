"""Helpers shared by the op families: operand preparation and type promotion (``prep2``), broadcast
shapes and reduction, argument checks, the ``torch.*`` input guard and a few fast float kernels."""
from __future__ import annotations

import functools
import inspect
import numbers

import numpy as np

from .. import _dtype
from .._backend import MetaArray
from .._tensor import Tensor, _make, _wrap_dim
from .._tensor_sparse import SparseCOO
from ..autograd import function
from ..autograd.grad_mode import _State
from ._cast import cast

__all__ = ["unbroadcast", "prep2", "to_tensor", "wrap_dim", "dims_arg", "check_inplace", "_make"]

wrap_dim = _wrap_dim


def unbroadcast(g, shape):
    """Sum ``g`` over the axes that broadcasting added or stretched, so it has ``shape``."""
    if g.shape == shape:
        return g
    if type(g) is SparseCOO:  # the gradient of a dense factor broadcast against a sparse tensor: summed densely
        g = g.to_dense()
    nd = g.ndim - len(shape)
    if nd:
        g = g.sum(axis=tuple(range(nd)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


def placed(shape, key, g):
    """A zero array of ``shape`` with ``g`` written at ``key``: the gradient of ``a[key]``."""
    out = np.zeros(shape, g.dtype)
    out[key] = g
    return out


def to_tensor(x, dtype=None) -> Tensor:
    """A Tensor for ``x`` (a Tensor passes through; scalars, lists and arrays are wrapped)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray):
        return _make(x if dtype is None else x.astype(_dtype.to_np(dtype)))
    d = _dtype.result_type(x) if dtype is None and isinstance(x, numbers.Number) else dtype
    return _make(np.asarray(x, dtype=_dtype.to_np(d) if d is not None else None))


def _is_scalar(x):
    return isinstance(x, (int, float, bool, complex, np.number, np.bool_))


def _wrap_int(x: int, dtype) -> int:
    """A Python int outside ``dtype``'s range wraps around as PyTorch's integer arithmetic does."""
    info = np.iinfo(dtype)
    if info.min <= x <= info.max:
        return x
    return int(np.array(x & 0xFFFFFFFFFFFFFFFF, dtype=np.uint64).astype(dtype))


def prep2(a, b):
    """Promote two operands of a binary op as PyTorch does; returns (a, b) ready for an Op.

    Tensors whose dtype must change are cast with the differentiable cast op, so gradients flow back
    in each input's own dtype. Python scalars stay scalars (NumPy treats them as weak, like PyTorch)
    unless the tensor is integral and the scalar is a float.
    """
    # fast path: a float/complex tensor with a Python float or int (or an int tensor with an int)
    if isinstance(a, Tensor):
        ts = type(b)
        if ts is float or ts is int:
            k = a._data.dtype.kind
            if k in "fc":
                return a, b
            if ts is int and k in "iu":
                return a, (b if 0 <= b <= 127 or (k == "i" and -128 <= b < 0) else _wrap_int(b, a._data.dtype))
    elif isinstance(b, Tensor):  # the same fast path, scalar first
        ts, k = type(a), b._data.dtype.kind
        if (ts is float or ts is int) and k in "fc":
            return a, b
        if ts is int and k in "iu":
            return (a if 0 <= a <= 127 or (k == "i" and -128 <= a < 0) else _wrap_int(a, b._data.dtype)), b
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    if ta and tb:
        if a._data.dtype == b._data.dtype:
            return a, b
        rt = _dtype.result_type(a, b)
        if a._data.dtype != rt.np:
            a = cast(a, rt)
        if b._data.dtype != rt.np:
            b = cast(b, rt)
        return a, b
    if ta:
        t, s = a, b
    elif tb:
        t, s = b, a
    else:
        raise TypeError(f"expected at least one Tensor operand, got {type(a).__name__} and {type(b).__name__}")
    if isinstance(s, np.generic) and s.dtype.kind == "V":
        s = float(s)  # a bfloat16 scalar made by an earlier prep2 (see below)
    if not _is_scalar(s):
        if isinstance(s, np.ndarray):  # PyTorch converts NumPy arrays, but not lists
            s = to_tensor(s)
            return prep2(a if ta else s, b if tb else s)
        raise TypeError(f"unsupported operand type: '{type(s).__name__}' (expected a Tensor or a number)")
    k = t._data.dtype.kind
    sd = _dtype.scalar_dtype(s)
    if sd._cat > (0 if k == "b" else 1 if k in "iu" else 3 if k == "c" else 2):
        rt = _dtype.result_type(t, s)
        t = cast(t, rt)
    if isinstance(s, (np.number, np.bool_)):
        s = s.item()  # NumPy scalars are "strong" in NumPy; PyTorch treats them as Python numbers
    if k == "V" and isinstance(s, float):
        s = t._data.dtype.type(s)  # NumPy would widen bfloat16 * float to float32
    return (t, s) if ta else (s, t)


def _shape(x):
    return x.shape if isinstance(x, np.ndarray) else ()


def _bshape(a, b):
    """The broadcast shape of two operands (arrays or scalars); PyTorch's RuntimeError if they don't broadcast."""
    try:
        return np.broadcast_shapes(_shape(a), _shape(b))
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({_mismatch(a, b)[0]}) must match the size of tensor b "
                           f"({_mismatch(a, b)[1]}) at non-singleton dimension {_mismatch(a, b)[2]}") from None


def _mismatch(a, b):
    sa, sb = _shape(a), _shape(b)
    n = max(len(sa), len(sb))
    sa, sb = (1,) * (n - len(sa)) + tuple(sa), (1,) * (n - len(sb)) + tuple(sb)
    for i in range(n - 1, -1, -1):
        if sa[i] != sb[i] and 1 not in (sa[i], sb[i]):
            return sa[i], sb[i], i
    return sa, sb, 0


def _result(r):
    """A NumPy call's result as an array; a meta array (no data, docs/meta.md) stays one."""
    return r if type(r) is MetaArray else np.asarray(r)


def _nondiff(fn, a, b=None):
    """Run a non-differentiable NumPy function on Tensor/scalar operands; result never requires grad."""
    if _State.vmap:  # inside vmap: elementwise on the batched operands (func/_batched.py)
        return function.vmap_nondiff(fn, a, b)
    if b is None:
        return _make(_result(fn(a._data)))
    a, b = prep2(a, b)
    x = a._data if isinstance(a, Tensor) else a
    y = b._data if isinstance(b, Tensor) else b
    try:
        return _make(_result(fn(x, y)))
    except ValueError:
        _bshape(x, y)
        raise


def dims_arg(dim, ndim):
    """Normalize ``dim`` (None, int, or tuple/list of ints) to a tuple of non-negative axes or None."""
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        if len(dim) == 0:
            return None
        axes = tuple(_wrap_dim(d, ndim) for d in dim)
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"dim {axes[0]} appears multiple times in the list of dims")
        return axes
    return (_wrap_dim(dim, ndim),)


def check_inplace(t: Tensor):
    """PyTorch's refusal of in-place ops on a leaf that requires grad (outside no_grad), and
    ``check_writable``'s."""
    if t._rg and t.grad_fn is None and _State.enabled:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if not t._data.flags.writeable:
        check_writable(t._data)


def check_writable(a: np.ndarray):
    """RuntimeError before a write into read-only memory: an expanded tensor (PyTorch's message), or
    one sharing a read-only NumPy array's memory (PyTorch writes there, undefined behaviour, after
    warning at ``from_numpy``; NumPy cannot)."""
    if a.flags.writeable or type(a) is MetaArray:  # a meta array takes writes (of nothing)
        return
    if 0 in a.strides:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    raise RuntimeError("numtorch cannot write into this tensor: it shares memory with a read-only NumPy array "
                       "(see the warning given when it was converted). Please clone() the tensor before "
                       "performing the operation.")


def bump(t: Tensor):
    t._vc[0] += 1


# erf(x) ~ x * P(x^2) / Q(x^2) on |x| <= 4 (beyond, erf is +-1 in float32). Coefficients fitted for
# this project (weighted least squares toward minimax relative error 7.5e-8 on [0, 4]); evaluated in
# float32 the result is within 7 ulp of the exact erf (median 0.4 ulp), about 10x faster than
# scipy.special.erf's float32 loop, which makes GELU's exact form cheap.
_ERF_P = (1.1283791651839261, 0.18800374214190374, 0.052373255702282066, 0.003652736582041996,
          0.0002804736499517091, 2.0395273173523445e-06)
_ERF_Q = (1.0, 0.4999471327559473, 0.11306492790224337, 0.014737085047782657, 0.001132171636288876,
          3.776206886730596e-05)


def erf_np(x: np.ndarray) -> np.ndarray:
    """``erf`` of an ndarray as a new array of the same dtype: exact (scipy) for float64,
    the fast rational form above for float32 and narrower floats (computed in float32)."""
    if x.dtype == np.float64 or x.dtype.kind == "c":
        from scipy.special import erf  # lazy: keeps `import numtorch` light
        return erf(x)
    if x.ndim == 0:  # NumPy turns 0-d arithmetic into scalars, which the in-place clip below refuses
        return erf_np(x.reshape(1)).reshape(())
    dt = x.dtype
    xc = np.clip(x, -4.0, 4.0, dtype=np.float32)
    u = xc * xc
    p = u * np.float32(_ERF_P[5])
    for c in _ERF_P[4::-1]:
        p += np.float32(c)
        if c is not _ERF_P[0]:
            p *= u
    q = u * np.float32(_ERF_Q[5])
    for c in _ERF_Q[4:0:-1]:
        q += np.float32(c)
        q *= u
    q += np.float32(1.0)
    p *= xc
    p /= q
    np.clip(p, -1.0, 1.0, out=p)
    return p if dt == np.float32 else p.astype(dt)


def sum_lastdim(a: np.ndarray) -> np.ndarray:
    """``a.sum(-1, keepdims=True)``; for float32/float64 as a product with a ones vector, which BLAS
    does several times faster than NumPy's reduction over a short last axis (softmax rows)."""
    if a.dtype.kind == "f" and a.dtype.itemsize >= 4 and a.ndim and a.shape[-1]:
        return np.matmul(a, np.ones((a.shape[-1], 1), a.dtype))
    return np.add.reduce(a, axis=-1, keepdims=True)


def _type_name(x) -> str:
    """A type's name as PyTorch's argument errors print it: ``list``, ``numpy.ndarray``."""
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


# functions whose first argument PyTorch never takes as a number (no Scalar overload): torch.eq(2, t) raises
_NO_SCALAR_INPUT = frozenset("""eq ne lt le gt ge greater greater_equal less less_equal not_equal maximum minimum
    fmax fmin atan2 arctan2 fmod copysign hypot logical_and logical_or logical_xor clamp_max clamp_min max min""".split())
_NO_SCALAR_OTHER = frozenset("maximum minimum fmax fmin".split())  # torch.maximum(t, 2) raises too


def guard_tensor_input(namespace: dict, names, _wrapped=None) -> None:
    """Wrap the functions ``names`` of ``namespace`` whose first parameter is ``input`` so that a
    non-Tensor there (a list, an ndarray) raises PyTorch's TypeError instead of failing deep inside.

    Used for the ``torch.*`` namespace; Tensor methods are bound unwrapped (``self`` is a Tensor).
    A function is wrapped once (``_wrapped``: function -> wrapper and wrapper -> itself, shared across calls), so aliases
    stay one object (``torch.arctanh is torch.atanh``).
    """
    def wrap(fn, name):
        strict, strict_other = name in _NO_SCALAR_INPUT, name in _NO_SCALAR_OTHER

        @functools.wraps(fn)
        def checked(input, *args, **kwargs):
            if not isinstance(input, Tensor) and (strict or not _is_scalar(input)):  # numbers: some wrap (add)
                raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {_type_name(input)}")
            if strict_other and args and not isinstance(args[0], Tensor):
                raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {_type_name(args[0])}")
            return fn(input, *args, **kwargs)
        return checked

    _wrapped = {} if _wrapped is None else _wrapped
    for name in names:
        fn = namespace.get(name)
        if not inspect.isfunction(fn):
            continue
        if fn in _wrapped:  # an alias of a wrapped function, or a wrapper itself
            namespace[name] = _wrapped[fn]
            continue
        params = list(inspect.signature(fn).parameters)
        if params and params[0] == "input":
            w = namespace[name] = _wrapped[fn] = wrap(fn, name)
            _wrapped[w] = w


def _need_tensor(x, fname: str, arg: str = "input", pos: int = 1) -> None:
    """PyTorch's argument-parser TypeError for a non-Tensor where a Tensor is required."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not {_type_name(x)}")


def _floating(t: Tensor) -> Tensor:
    """``t`` itself if floating/complex, else cast to the default float dtype (PyTorch's int -> float rule)."""
    return t if t._data.dtype.kind in "fcV" else cast(t, _dtype.get_default_dtype())


def _f32(fn, a: np.ndarray) -> np.ndarray:
    """``fn(a)``; bfloat16 (NumPy kind "V") is computed in float32 and cast back."""
    if a.dtype.kind == "V":
        return fn(a.astype(np.float32)).astype(a.dtype)
    return fn(a)


def _cj(x):
    return np.conj(x) if np.iscomplexobj(x) else x


def _const(c: float, like: np.ndarray):
    """Python float ``c`` as a scalar of ``like``'s dtype, so float32 stays float32."""
    return like.dtype.type(c) if like.dtype.kind in "fc" else c


class _ValueReduction:
    """A non-differentiable NumPy reduction ``fn(array, axes, keepdim)`` (axes: tuple of ints, or None for
    all) seen as an Op class, so that under vmap the "axis" batching rule runs it on the physical
    tensor (batch dims in front, logical axes shifted) instead of reading a batched stand-in's values."""

    _vmap = ("axis", "axes")

    def forward(self, input, axes=None, keepdim=False):  # the signature the batching rules read
        raise NotImplementedError

    @classmethod
    def apply(cls, input, axes=None, keepdim=False):
        if _State.vmap:
            return function.vmap_dispatch(cls, (input,), {"axes": axes, "keepdim": keepdim})
        return _make(_result(cls.fn(input._data, axes, keepdim)))


def value_reduction(name, fn):
    """``_ValueReduction`` for ``fn`` (one class per reduction: the batching rules cache per class)."""
    return type(name, (_ValueReduction,), {"fn": staticmethod(fn)})


_IntSum = value_reduction("IntSum", lambda a, axes, keep: np.sum(a, axis=axes, keepdims=keep, dtype=a.dtype))
_IntProd = value_reduction("IntProd", lambda a, axes, keep: np.prod(a, axis=axes, keepdims=keep, dtype=a.dtype))


def _arg_kernel(fn):
    """argmax/argmin (``fn``) over one axis, or of the flattened trailing ``axes`` (None: all; under vmap
    the logical dims after the batch dims), first index among ties, as int64."""
    def kernel(a, axes, keep):
        if axes is not None and len(axes) == 1:
            return fn(a, axis=axes[0], keepdims=keep).astype(np.int64, copy=False)
        k = a.ndim if axes is None else len(axes)
        lead = a.shape[:a.ndim - k]
        r = fn(a.reshape(lead + (-1,)), axis=-1).astype(np.int64, copy=False)
        return r.reshape(lead + (1,) * k) if keep else r
    return kernel


_ARG = {"argmax": value_reduction("Argmax", _arg_kernel(np.argmax)),
        "argmin": value_reduction("Argmin", _arg_kernel(np.argmin))}
_LOGICAL = {np.all: value_reduction("All", lambda a, axes, keep: np.all(a, axis=axes, keepdims=keep)),
            np.any: value_reduction("Any", lambda a, axes, keep: np.any(a, axis=axes, keepdims=keep))}
_CountNonzero = value_reduction("CountNonzero", lambda a, axes, keep: np.asarray(
    np.count_nonzero(a, axis=axes), np.int64))
