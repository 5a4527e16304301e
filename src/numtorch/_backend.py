"""The array backend: the one place where numtorch creates arrays for tensors.

Everything on a tensor's data path allocates through these helpers, so that a CuPy backend for
``device="cuda"`` can later be chosen here without touching ``nn/``. Other NumPy functions dispatch
to CuPy arrays through ``__array_function__``; creation functions do not, hence this module.
"""
from __future__ import annotations

import os
import sys
import threading

import numpy as np

xp = np  # the array module for CPU tensors


def _tune_malloc() -> None:
    """Let glibc keep freed multi-MB blocks for reuse instead of handing them back to the OS.

    Every training step allocates and frees the same large temporaries (im2col columns, activations,
    their gradients). With glibc's defaults such blocks are mmap'ed and unmapped (or trimmed from the
    heap top) each time, so each reuse page-faults its memory back in: measured about 1.4x on the
    small CNN benchmark step. Blocks up to 32 MiB now come from the heap, and up to 128 MiB of free heap
    top is kept. Set ``NUMTORCH_MALLOC_TUNING=0`` to keep the C library's defaults; glibc's own
    ``MALLOC_MMAP_THRESHOLD_``/``MALLOC_TRIM_THRESHOLD_`` variables, when set, are respected.
    """
    if os.environ.get("NUMTORCH_MALLOC_TUNING", "1") == "0" or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes  # stdlib but ~1 ms: only Linux/glibc start-up tuning needs it
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc (e.g. musl): nothing to tune
        return
    if "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD (fixed value; glibc's maximum on 64-bit)
    if "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        mallopt(-1, 128 << 20)  # M_TRIM_THRESHOLD


_tune_malloc()


# ``device``: a ``torch.device``; on "meta" the array has the shape and dtype but no data
def empty(shape, dtype, device=None):
    return meta(shape, np.dtype(dtype)) if device is not None and device.type == "meta" else np.empty(shape, dtype)


def zeros(shape, dtype, device=None):
    return meta(shape, np.dtype(dtype)) if device is not None and device.type == "meta" else np.zeros(shape, dtype)


def ones(shape, dtype, device=None):
    return meta(shape, np.dtype(dtype)) if device is not None and device.type == "meta" else np.ones(shape, dtype)


def full(shape, value, dtype, device=None):
    if device is not None and device.type == "meta":
        return meta(shape, np.dtype(dtype) if dtype is not None else np.asarray(value).dtype)
    return np.full(shape, value, dtype)


def asarray(data, dtype=None):
    return np.asarray(data, dtype)


def array(data, dtype=None, copy=True):
    return np.array(data, dtype, copy=copy)


# ------------------------------------------------------------------------------------------------
# The meta backend: arrays with a shape and a dtype but no data (``device="meta"``)
# ------------------------------------------------------------------------------------------------
_NO_DATA = bytes(16)  # the one read-only buffer every meta array views, with zero strides
# One entry per meta array alive (list append/pop are atomic): while it is not empty, Op.apply asks
# whether an op's inputs are meta; once every meta array is gone, that costs nothing again.
LIVE = []
# While an op's own forward runs on meta arrays (_ops/_meta.py), an intermediate step may read values
# (np.nonzero of a mask it made) and sees zeros; outside one, a result shape that depends on values raises.
_FORWARD = threading.local()  # .depth: > 0 while an op's own forward runs on meta arrays in this thread


def in_forward(step: int = 0) -> int:
    """Change (by ``step``) and return this thread's depth of op forwards running on meta arrays."""
    d = getattr(_FORWARD, "depth", 0) + step
    _FORWARD.depth = d
    return d


class MetaArray(np.ndarray):
    """The data of a ``device="meta"`` tensor: an ndarray of any shape and dtype that views the same
    16 zero bytes with zero strides, so it costs no memory whatever its size.

    NumPy calls on it compute only the result's shape and dtype and return new meta arrays: ufuncs
    (elementwise, ``reduce``, ``accumulate``, ``outer``, ``matmul``) by their shape rules; any other
    NumPy function runs on zero-strided stand-ins (views cost nothing; a function that allocates its
    result allocates it once, transiently) and its array results become meta arrays. Writes into it
    (``a[k] = v``, ``out=a``, ``fill``) write nothing. Its values read as zeros; numtorch never shows
    them to users (``Tensor.item()``/``numpy()`` on a meta tensor raise, as in PyTorch).
    """

    def __array_finalize__(self, obj):  # every new meta array, however NumPy made it
        LIVE.append(None)

    def __del__(self):
        LIVE.pop()

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kw):
        if out is not None:
            if all(isinstance(o, MetaArray) for o in out):
                if method == "__call__" and ufunc.signature is None:  # NumPy's check of the write's shape
                    shape = np.broadcast_shapes(*(np.shape(x) for x in inputs))
                    if np.broadcast_shapes(shape, out[0].shape) != out[0].shape:
                        raise ValueError(f"non-broadcastable output operand with shape {out[0].shape} doesn't match "
                                         f"the broadcast shape {shape}")
                return out[0] if len(out) == 1 else out  # writing into a meta array: nothing to write
            return getattr(ufunc, method)(*_plain(inputs), out=out, **_plain(kw))
        if method == "__call__" and ufunc.signature is None:
            shape = np.broadcast_shapes(*(np.shape(x) for x in (*inputs, kw.get("where", True))))
            kw.pop("where", None)
            r = ufunc(*(np.zeros((), x.dtype) if isinstance(x, np.ndarray) else x for x in inputs), **kw)
            return tuple(meta(shape, x.dtype) for x in r) if isinstance(r, tuple) else meta(shape, r.dtype)
        if method == "__call__" and ufunc is np.matmul and not kw:
            return _matmul(*inputs)
        if method == "reduce" and "where" not in kw:
            return _reduce(ufunc, inputs[0], kw)
        if method == "accumulate":
            a = inputs[0]
            r = ufunc.accumulate(np.zeros((1,) * max(a.ndim, 1), a.dtype), **{**kw, "axis": 0})
            return meta(a.shape, r.dtype)
        if method == "at":
            return None
        return _wrap(getattr(ufunc, method)(*_plain(inputs), **_plain(kw)))

    def __array_function__(self, func, types, args, kwargs):
        if func in _WRITERS and type(args[0] if args else kwargs.get("dst", kwargs.get("a"))) is MetaArray:
            return None  # writing into a meta array: nothing to write
        if func in _DATA_DEPENDENT and not in_forward():
            _no_data(func.__name__)
        rule = _FUNCTION_RULES.get(func)
        if rule is not None and "out" not in kwargs:
            r = rule(*args, **kwargs)
            if r is not None:
                return r
        out = kwargs.get("out")
        if type(out) is MetaArray:  # np.clip(a, lo, hi, out=a): compute the shape, write nothing
            func(*_plain(args), **_plain({k: v for k, v in kwargs.items() if k != "out"}))
            return out
        return _wrap(func(*_plain(args), **_plain(kwargs)))

    def __setitem__(self, key, value):  # no data to write; NumPy's shape check of the write still runs
        keys = key if type(key) is tuple else (key,)
        if not any(isinstance(k, np.ndarray) for k in keys):  # an array key's selection depends on values
            target = self.view(np.ndarray)[_plain(key)].shape
            if np.broadcast_shapes(np.shape(value), target) != target:
                raise ValueError(f"could not broadcast input array from shape {np.shape(value)} into shape {target}")

    def fill(self, value):
        pass

    def __getitem__(self, key):
        if not in_forward() and any(type(k) is MetaArray and k.dtype == np.bool_
                                     for k in (key if type(key) is tuple else (key,))):
            _no_data("boolean mask indexing")
        return _wrap(self.view(np.ndarray)[_plain(key)])

    def nonzero(self):
        if not in_forward():
            _no_data("nonzero")
        return _wrap(self.view(np.ndarray).nonzero())

    def astype(self, dtype, *args, **kwargs):
        return meta(self.shape, np.dtype(dtype))

    def copy(self, order="K"):
        return meta(self.shape, self.dtype)

    def reshape(self, *shape, **kwargs):
        return _wrap(self.view(np.ndarray).reshape(*shape, **kwargs))

    def ravel(self, order="C"):
        return meta((self.size,), self.dtype)

    flatten = ravel


def _no_data(what):
    """PyTorch's NotImplementedError for an op whose result shape depends on values a meta array lacks."""
    raise NotImplementedError(f"{what}: the shape of the result depends on the tensor's values, which a meta "
                              f"tensor does not have (no data-independent implementation exists)")


_DATA_DEPENDENT = (np.nonzero, np.argwhere, np.flatnonzero, np.unique, np.extract, np.compress)
_WRITERS = (np.copyto, np.put, np.place, np.putmask, np.put_along_axis, np.fill_diagonal)


def meta(shape, dtype) -> MetaArray:
    """A new meta array of ``shape`` and ``dtype`` (no memory)."""
    shape = tuple(shape)
    return MetaArray(shape, dtype, buffer=_NO_DATA, strides=(0,) * len(shape))


def is_meta(a) -> bool:
    return type(a) is MetaArray


def _plain(x):
    """``x`` with each meta array (also inside tuples, lists and dicts) as a plain zero-strided view."""
    if isinstance(x, MetaArray):
        return x.view(np.ndarray)
    if type(x) is tuple or type(x) is list:
        return type(x)(_plain(v) for v in x)
    if type(x) is dict:
        return {k: _plain(v) for k, v in x.items()}
    return x


def _wrap(r):
    """The array results of a NumPy call (also inside tuples and lists) as meta arrays."""
    if isinstance(r, (np.ndarray, np.generic)):
        return meta(np.shape(r), r.dtype)
    if type(r) is tuple or type(r) is list:
        return type(r)(_wrap(v) for v in r)
    return r


def _elementwise(func):
    """A rule for np.clip / np.where(c, x, y): the broadcast shape of the array arguments, the dtype of a
    0-d run; None (the general path) for other forms (np.where(c) reads values)."""
    def rule(*args, **kwargs):
        if len(args) != 3:
            return None
        shape = np.broadcast_shapes(*(np.shape(x) for x in args if isinstance(x, np.ndarray)))
        r = np.asarray(func(*(np.zeros((), x.dtype) if isinstance(x, np.ndarray) else x for x in args), **kwargs))
        return meta(shape, r.dtype)
    return rule


def _concatenate(arrays, axis=0, dtype=None, **kwargs):
    """np.concatenate / np.stack of equal-rank arrays; None (the general path: its checks and errors) else."""
    shapes = [np.shape(a) for a in arrays]
    if axis is None or kwargs or not shapes or len({len(s) for s in shapes}) != 1 or not shapes[0]:
        return None
    ax = axis % len(shapes[0])
    if len({s[:ax] + s[ax + 1:] for s in shapes}) != 1:
        return None
    dt = np.concatenate([np.zeros((1,), a.dtype) for a in arrays], dtype=dtype).dtype
    return meta(shapes[0][:ax] + (sum(s[ax] for s in shapes),) + shapes[0][ax + 1:], dt)


def _stack(arrays, axis=0, dtype=None, **kwargs):
    shapes = {np.shape(a) for a in arrays}
    if kwargs or len(shapes) != 1:
        return None
    shape = shapes.pop()
    ax = axis % (len(shape) + 1)
    dt = np.concatenate([np.zeros((1,), a.dtype) for a in arrays], dtype=dtype).dtype
    return meta(shape[:ax] + (len(arrays),) + shape[ax:], dt)


_FUNCTION_RULES = {np.clip: _elementwise(np.clip), np.where: _elementwise(np.where), np.concatenate: _concatenate,
                   np.stack: _stack}


def _matmul(a, b):
    """``np.matmul``'s result shape and dtype, with NumPy's errors for mismatched shapes."""
    sa, sb = np.shape(a), np.shape(b)
    if not sa or not sb:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    ma, mb = (sa if len(sa) > 1 else (1,) + sa), (sb if len(sb) > 1 else sb + (1,))
    if ma[-1] != mb[-2]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0 (size {mb[-2]} is "
                         f"different from {ma[-1]})")
    shape = np.broadcast_shapes(ma[:-2], mb[:-2]) + (ma[-2], mb[-1])
    if len(sa) == 1:
        shape = shape[:-2] + shape[-1:]
    if len(sb) == 1:
        shape = shape[:-1]
    dt = np.matmul(np.zeros((1, 1), np.asarray(a).dtype if isinstance(a, np.ndarray) else np.result_type(a)),
                   np.zeros((1, 1), b.dtype if isinstance(b, np.ndarray) else np.result_type(b))).dtype
    return meta(shape, dt)


def _reduce(ufunc, a, kw):
    """``ufunc.reduce``'s result shape and dtype (``axis`` None, an int or a tuple; ``keepdims``)."""
    axis, keep = kw.get("axis", 0), kw.get("keepdims", False)
    nd = a.ndim
    axes = tuple(range(nd)) if axis is None else tuple(
        int(x) % max(nd, 1) for x in (axis if isinstance(axis, tuple) else (axis,)))
    small = {k: v for k, v in kw.items() if k in ("dtype", "initial")}
    dt = ufunc.reduce(np.zeros((1,) * nd, a.dtype), axis=axis, **small).dtype if nd else \
        ufunc.reduce(np.zeros((1,), a.dtype), **small).dtype
    shape = tuple(1 if i in axes else s for i, s in enumerate(a.shape) if keep or i not in axes)
    return meta(shape, dt)
