"""Tensor creation: from data (``tensor``, ``as_tensor``, ``from_numpy``) and filled
(``zeros``, ``ones``, ``full``, ``empty``, ``arange``, ``linspace``, ``eye`` and ``*_like``).

Random creation lives in ``_ops/sampling.py``. All allocation goes through ``_backend``.
"""
from __future__ import annotations

import array
import collections
import collections.abc
import numbers
import warnings

import numpy as np

from .. import _backend as B
from .. import _dtype
from .._device import check as _check_device
from .._tensor import Tensor, _make
from .._tensor_sparse import SparseCOO, sparse_coo, strided, unsupported
from ..autograd import function as _function
from ._cast import checked_scalar
from ._layout import laid_out
from ._meta import to_meta
from ._out import _out

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full", "zeros_like",
           "ones_like", "empty_like", "full_like", "arange", "linspace", "logspace", "eye", "scalar_tensor",
           "tril_indices", "triu_indices", "meshgrid", "empty_strided", "frombuffer"]


def _infer_dtype(data):
    """PyTorch's dtype inference from nested Python data: bool < int64 < default float < complex."""
    if isinstance(data, Tensor):
        return data.dtype
    if isinstance(data, np.ndarray):
        return _dtype.from_np(data.dtype)
    if isinstance(data, (np.generic)):
        return _dtype.from_np(data.dtype)
    if isinstance(data, (bool, np.bool_)):
        return _dtype.bool
    if isinstance(data, numbers.Integral):
        return _dtype.int64
    if isinstance(data, numbers.Real):
        return _dtype.get_default_dtype()
    if isinstance(data, numbers.Complex):
        return _dtype.complex64 if _dtype.get_default_dtype() is _dtype.float32 else _dtype.complex128
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(data, (list, tuple)) or _is_sequence(data):
        best = None
        for x in data:
            d = _infer_dtype(x)
            if best is None or d._cat > best._cat or (d._cat == best._cat and d is not best and
                                                       isinstance(x, (Tensor, np.ndarray))):
                best = d if best is None or d._cat > best._cat else _dtype.promote_types(best, d)
        return best or _dtype.get_default_dtype()
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _is_sequence(data) -> bool:
    """Any sequence PyTorch reads element by element: range, deque, array.array, memoryview, Sequence types."""
    return isinstance(data, (range, collections.deque, array.array, memoryview, collections.abc.Sequence)) and \
        not isinstance(data, (str, bytes))


def _to_array(data, npd):
    if isinstance(data, Tensor):
        if getattr(data._data, "_src", None) is not None:  # a batched tensor inside vmap: its _data holds no values
            raise RuntimeError("Can't detach views in-place. Use detach() instead. (numtorch: torch.tensor() or "
                               "new_tensor() of a tensor being vmapped over; use x.detach().clone() instead)")
        return np.array(data._data, dtype=npd)
    if isinstance(data, memoryview):  # its elements, not its raw bytes
        data = data.tolist()
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        data = [_to_array(x, npd) for x in data]
    try:
        return np.array(data, dtype=npd)
    except ValueError as e:
        raise ValueError(_ragged(data) or str(e)) from None
    except OverflowError:  # PyTorch's error type and words for e.g. tensor([-1], dtype=uint8)
        raise RuntimeError(f"value cannot be converted to type {np.dtype(npd).name} without overflow") from None


def _ragged(data, dim=0):
    """PyTorch's message for nested lists of unequal lengths, or None if the lists are regular."""
    if not isinstance(data, (list, tuple)) or not data:
        return None
    n = len(data[0]) if isinstance(data[0], (list, tuple)) else None
    for x in data:
        m = len(x) if isinstance(x, (list, tuple)) else None
        if m != n:
            return f"expected sequence of length {n} at dim {dim + 1} (got {m})"
    for x in data:
        msg = _ragged(x, dim + 1)
        if msg:
            return msg
    return None


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False) -> Tensor:
    """A new tensor copying ``data`` (nested lists, numbers, ndarrays or tensors), as ``torch.tensor``.

    dtype is inferred like PyTorch: Python floats give the default dtype (float32), ints int64,
    bools bool; NumPy arrays keep their dtype. RuntimeError for ``requires_grad`` on a non-float dtype.
    """
    dev = _check_device(device)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    d = _dtype.from_np(np.dtype(dtype.np if isinstance(dtype, _dtype.dtype) else dtype)) if dtype is not None \
        else _infer_dtype(data)
    if isinstance(data, Tensor) and data.is_meta:
        return _finish(to_meta(data._data).astype(d.np), requires_grad, dev)
    return _finish(_to_array(data, d.np), requires_grad, dev)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a Tensor or ndarray of the same dtype (``torch.as_tensor``)."""
    _check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None or data.dtype is dtype else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or _dtype.to_np(dtype) == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


asarray = as_tensor


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False) -> Tensor:
    """A 1-D tensor over the bytes of ``buffer`` (any object with the buffer protocol), sharing its memory
    (``torch.frombuffer``): ``count`` elements (-1: all) of ``dtype`` from byte ``offset``. ValueError
    when the buffer is empty or too short, as in PyTorch; a read-only buffer gives a tensor that must
    not be written (PyTorch warns about it too)."""
    npd = _dtype.to_np(dtype)
    n = len(memoryview(buffer).cast("B"))
    if n <= 0:
        raise ValueError("both buffer length (0) and count (-1) must not be 0")
    if not 0 <= offset < n:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({n} bytes) minus 1")
    if count <= 0 and (n - offset) % npd.itemsize:
        raise ValueError(f"buffer length ({n - offset} bytes) after offset ({offset} bytes) must be a multiple of "
                         f"element size ({npd.itemsize})")
    if count > 0 and offset + count * npd.itemsize > n:
        raise ValueError(f"requested buffer length ({count} * {npd.itemsize} bytes) after offset ({offset} bytes) "
                         f"must not be greater than actual buffer length ({n} bytes)")
    return _make(np.frombuffer(buffer, dtype=npd, count=count, offset=offset), requires_grad)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``ndarray`` (``torch.from_numpy``); TypeError for unsupported dtypes."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if ndarray.dtype.kind == "u" and ndarray.dtype != np.uint8:
        raise TypeError(f"can't convert np.ndarray of type numpy.{ndarray.dtype}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, "
                        "and bool.")
    _dtype.from_np(ndarray.dtype)
    if any(st < 0 for st in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative strides "
                         "are not currently supported. (You can probably work around this by making a copy of your "
                         "array  with array.copy().) ")
    if not ndarray.flags.writeable:
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
                      "This means writing to this tensor will result in undefined behavior. You may want to copy "
                      "the array to protect its data or make it writable before converting it to a tensor. This "
                      "type of warning will be suppressed for the rest of this program.", UserWarning, stacklevel=2)
    return _make(ndarray)


def _require_grad(t):
    if t._data.dtype.kind not in "fcV":  # factory functions word it with a capital O, as PyTorch does
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    t._rg = True


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list, Tensor)) or (len(size) == 1 and hasattr(size[0], "__iter__")):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, (int, np.integer)):
            raise TypeError(f"expected a sequence of integers or a single integer, got '{type(s).__name__}'")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
        out.append(int(s))
    return tuple(out)


def _shape(fn, args, size):
    """The shape from ``fn(*args)`` or ``fn(size=...)`` (PyTorch takes either, not both)."""
    if size is None:
        return _size(args)
    if args:
        raise TypeError(f"{fn}() got multiple values for argument 'size'")
    if not isinstance(size, (tuple, list, Tensor)) and not hasattr(size, "__iter__"):
        raise TypeError(f"{fn}(): argument 'size' must be tuple of ints, not {type(size).__name__}")
    return _size((size,))


def _finish(arr, requires_grad, device=None):
    """``arr`` as a new leaf, on ``device`` ("meta": its shape and dtype only)."""
    if device is not None and device.type == "meta" and type(arr) is not B.MetaArray:
        arr = to_meta(arr)
    t = _make(arr)
    if requires_grad:
        _require_grad(t)
    return t


def _npd(dtype):
    return _dtype.get_default_dtype().np if dtype is None else _dtype.to_np(dtype)


def _is_sparse(layout, what="", like=None) -> bool:
    """Whether a factory must make a sparse COO tensor: ``layout=torch.sparse_coo``, or no layout and a sparse
    ``like``. ``what`` names a factory that has no sparse form (PyTorch's error for it); other layouts raise
    NotImplementedError (numtorch has no compressed layouts)."""
    sparse = layout is sparse_coo or (layout is None and like is not None and type(like._data) is SparseCOO)
    if layout is not None and layout is not strided and layout is not sparse_coo:
        raise unsupported(f"tensor creation with layout={layout}")
    if sparse and what == "full":
        raise RuntimeError("full(...) is not implemented for sparse layout")
    if sparse and what:
        raise unsupported(what)
    return sparse


def _sparse_zeros(shape, npd, requires_grad, dev):
    """An all-zero sparse COO tensor (no entries), what PyTorch's zeros/empty make for ``layout=torch.sparse_coo``."""
    if dev is not None and dev.type == "meta":
        raise unsupported("sparse COO tensors on the meta device")
    return _finish(SparseCOO(np.zeros((len(shape), 0), np.int64), np.zeros((0,), npd), shape, True), requires_grad)


def zeros(*sizes, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A tensor of zeros with shape ``size`` (``torch.zeros``); default dtype float32."""
    dev = _check_device(device)
    if _is_sparse(layout):
        return _sparse_zeros(_shape("zeros", sizes, size), _npd(dtype), requires_grad, dev)
    return _finish(B.zeros(_shape("zeros", sizes, size), _npd(dtype), dev), requires_grad)


def ones(*sizes, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A tensor of ones with shape ``size`` (``torch.ones``)."""
    dev = _check_device(device)
    _is_sparse(layout, "full")
    return _finish(B.ones(_shape("ones", sizes, size), _npd(dtype), dev), requires_grad)


def empty(*sizes, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None):
    """An uninitialized tensor (``torch.empty``)."""
    dev = _check_device(device)
    if _is_sparse(layout):
        return _sparse_zeros(_shape("empty", sizes, size), _npd(dtype), requires_grad, dev)
    return _finish(B.empty(_shape("empty", sizes, size), _npd(dtype), dev), requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """An uninitialized tensor of ``size`` laid out with ``stride`` (elements) in a storage just large
    enough (``torch.empty_strided``). RuntimeError when the lengths differ or a stride is negative."""
    _check_device(device)
    return _finish(_strided_array(size, stride, _npd(dtype)), requires_grad)


def _strided_array(size, stride, npd):
    size, stride = _size((size,)), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    need = 1 + sum((n - 1) * st for n, st in zip(size, stride)) if all(size) else 0
    isz = np.dtype(npd).itemsize
    return np.ndarray(size, npd, buffer=B.empty((need,), npd), strides=tuple(st * isz for st in stride))


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A tensor filled with ``fill_value`` (``torch.full``); dtype inferred from the value if not given."""
    dev = _check_device(device)
    _is_sparse(layout, "full")
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    d = _dtype.to_np(dtype) if dtype is not None else _infer_dtype(fill_value).np
    return _finish(B.full(_size((size,)) if not isinstance(size, int) else (size,), fill_value, d, dev),
                   requires_grad)


def _like(input, dtype):
    return input._data.dtype if dtype is None else _dtype.to_np(dtype)


def _made_like(input, make, dtype, requires_grad, memory_format=None, device=None):
    """``make(shape, np_dtype)`` shaped like ``input``; inside vmap, one per sample: a batched tensor
    over the physical shape (``autograd.function.vmap_wrap``, set by ``func/_batched.py``), as PyTorch's
    ``*_like`` ops give under vmap."""
    dt = _like(input, dtype)
    if type(input._data) is SparseCOO and make is not B.zeros and make is not B.empty:  # full_like of a sparse one
        raise unsupported("aten::fill_.Scalar")
    src = getattr(input._data, "_src", None)
    if src is not None:
        phys, levels = src
        return _function.vmap_wrap(_finish(make(phys._data.shape, dt), requires_grad), levels)
    dev = input.device if device is None else _check_device(device)  # as the input's unless given
    if dev.type == "meta":
        return _finish(B.empty(input._data.shape, dt, dev), requires_grad)
    arr = make(input._data.shape, dt)
    if type(input._data) is not SparseCOO and (memory_format is not None or not (input._data.flags.c_contiguous
                                                                                 or input.is_meta)):  # as asked / as input
        arr = laid_out(arr, memory_format, like=input._data)
    return _finish(arr, requires_grad)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    if _is_sparse(layout, like=input):
        return _sparse_zeros(tuple(input.shape), _like(input, dtype), requires_grad, device and _check_device(device))
    return _made_like(input, B.zeros, dtype, requires_grad, memory_format, device)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    _is_sparse(layout, "aten::fill_.Scalar", like=input)
    return _made_like(input, B.ones, dtype, requires_grad, memory_format, device)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    if _is_sparse(layout, like=input):
        return _sparse_zeros(tuple(input.shape), _like(input, dtype), requires_grad, device and _check_device(device))
    return _made_like(input, B.empty, dtype, requires_grad, memory_format, device)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """A tensor like ``input`` filled with ``fill_value`` (``torch.full_like``), converted as c10 does (uint8:
    -9 wraps to 247; RuntimeError for a value out of the dtype's range)."""
    def fill(shape, dt):
        v = checked_scalar(fill_value, dt) if isinstance(fill_value, (int, float, complex, np.number, np.bool_)) \
            else fill_value
        return B.full(shape, v, dt)
    return _made_like(input, fill, dtype, requires_grad, memory_format, device)


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Values in ``[start, end)`` spaced by ``step`` (``torch.arange``); int64 unless a bound is a float."""
    dev = _check_device(device)
    _is_sparse(layout, "aten::arange.start_out")
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if vals[2] == 0 or vals[2] != vals[2]:  # a NaN step too, as PyTorch
        raise RuntimeError("step must be nonzero")
    if any(isinstance(v, (float, np.floating)) and not np.isfinite(v) for v in vals[:2]):
        raise RuntimeError(f"unsupported range: {vals[0]} -> {vals[1]}")
    if (vals[1] - vals[0]) * vals[2] < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None and out is not None:
        dtype = out.dtype
    elif dtype is None:
        dtype = _dtype.int64 if all(isinstance(v, (int, np.integer)) for v in vals) else _dtype.get_default_dtype()
    npd = _dtype.to_np(dtype)
    if npd.kind in "iu":  # PyTorch's integer kernel: bounds and step truncated to int64 first
        xs, xe, xst = (int(v) for v in vals)
        if npd == np.int64:  # the length in integer arithmetic (C++'s truncating division)
            if xst == 0:  # a step truncated to 0 (the other dtypes repeat the start instead)
                raise ValueError("step must be nonzero")
            q = xe - xs + xst - (1 if xst > 0 else -1)
            n = abs(q) // abs(xst) * (1 if (q >= 0) == (xst > 0) else -1)
        else:  # the other integer dtypes: the length from the bounds as given, in double
            n = int(np.ceil((vals[1] - vals[0]) / vals[2]))
        arr = (xs + np.arange(max(n, 0), dtype=np.int64) * xst).astype(npd)
    else:
        # PyTorch computes in double, then casts
        n = int(np.ceil((vals[1] - vals[0]) / vals[2]))
        arr = (vals[0] + np.arange(n, dtype=np.float64) * vals[2]).astype(npd)
    return _out(_finish(arr, requires_grad, dev), out)


def _scalar_bounds(name, start, end):
    """``start``/``end`` as numbers; RuntimeError, in PyTorch's words, for a tensor bound with dimensions."""
    ts = [(what, v._data.ndim) for what, v in (("start", start), ("end", end)) if isinstance(v, Tensor)]
    if any(nd for _, nd in ts):
        got = " and ".join(f"{what} with {nd} dimension(s)" for what, nd in ts)
        raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got {got}.")
    return [v.item() if isinstance(v, Tensor) else v for v in (start, end)]


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive (``torch.linspace``)."""
    return _spaced("linspace", start, end, steps, dtype, device, requires_grad)


def _spaced(name, start, end, steps, dtype, device, requires_grad, base=None):
    """``linspace`` (``logspace`` with ``base``): the checks, then PyTorch's integer kernel or NumPy's."""
    dev = _check_device(device)
    start, end = _scalar_bounds(name, start, end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    npd = _npd(dtype)
    if npd.kind in "iu":
        arr = _integer_range(start, end, steps, npd, base)
    elif base is None:
        arr = np.linspace(start, end, steps, dtype=np.float64).astype(npd)
    else:
        arr = np.logspace(start, end, steps, base=base).astype(npd)
    return _finish(arr, requires_grad, dev)


def _integer_range(start, end, steps, npd, base=None):
    """PyTorch's integer ``linspace`` (``logspace`` with ``base``) kernel: the bounds converted to the dtype
    first (c10's checked conversion: truncated, a negative int wraps into uint8), the step in double, the
    first half counted up from ``start`` and the second half down from ``end``, each value truncated."""
    if steps == 1:  # PyTorch fills the one value: the start (logspace: base ** start, the start unconverted)
        if base is None:
            return np.array([checked_scalar(start, npd)], npd)
        return _c_cast(np.array([float(base) ** float(start)]), npd)
    lo, hi = (checked_scalar(v, npd) for v in (start, end))
    step = (float(hi) - float(lo)) / (steps - 1) if steps > 1 else 0.0
    idx = np.arange(steps, dtype=np.float64)
    vals = np.where(idx < steps // 2, lo + step * idx, hi - step * (steps - idx - 1))
    if base is not None:
        vals = np.power(float(base), vals)
    return _c_cast(vals, npd)


def _c_cast(vals, npd):
    """A C++ ``static_cast`` of doubles to an integer dtype on x86, as PyTorch's kernels do it: truncation;
    out of range (or NaN) gives the minimum of int64, or of int32 for the narrower types, whose low bits
    are then kept (a double reaches int8/int16/uint8 through int32)."""
    v = np.trunc(vals)
    if npd == np.int64:
        return np.where(np.abs(v) < 2.0 ** 63, v, -2.0 ** 63).astype(np.int64)
    ok = (v >= -2.0 ** 31) & (v < 2.0 ** 31)
    return np.where(ok, v, -2.0 ** 31).astype(np.int64).astype(np.int32).astype(npd)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, out=None):
    """``steps`` values ``base ** linspace(start, end, steps)`` (``torch.logspace``)."""
    return _spaced("logspace", start, end, steps, dtype, device, requires_grad, base)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The ``n x m`` identity matrix (``torch.eye``)."""
    dev = _check_device(device)
    _is_sparse(layout, "aten::eye.m_out")
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"{'n' if n < 0 else 'm'} must be greater or equal to 0, got {n if n < 0 else m}")
    if dev.type == "meta":
        return _finish(B.empty((n, n if m is None else m), _npd(dtype), dev), requires_grad)
    return _finish(np.eye(n, n if m is None else m, dtype=_npd(dtype)), requires_grad)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding number ``s`` (``torch.scalar_tensor``; default dtype: the default float). ``s``
    is converted as c10 does: truncated into integer dtypes, a negative int wrapped into uint8, and
    RuntimeError for a value out of the dtype's range (or NaN into an integer dtype)."""
    npd = _npd(dtype)
    if isinstance(s, (int, float, complex, np.number, np.bool_)):
        s = checked_scalar(s, npd)
    return _finish(np.asarray(s, npd), requires_grad, _check_device(device))


def tril_indices(row, col, offset=0, *, dtype=None, device=None):
    r, c = np.tril_indices(row, offset, col)
    return _make(np.stack([r, c]).astype(np.int64 if dtype is None else _dtype.to_np(dtype)))


def triu_indices(row, col, offset=0, *, dtype=None, device=None):
    r, c = np.triu_indices(row, offset, col)
    return _make(np.stack([r, c]).astype(np.int64 if dtype is None else _dtype.to_np(dtype)))


def meshgrid(*tensors, indexing="ij"):
    """``torch.meshgrid``: coordinate grids of 0-D/1-D tensors, as expanded views (differentiable).

    ``indexing`` "ij" (default; output dim i runs along tensor i) or "xy" (the first two swapped).
    RuntimeError for an empty list, a tensor of more than 1 dim, mixed dtypes or another indexing.
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    ts = list(tensors)
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in ts:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
        if t._data.dtype != ts[0]._data.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    shape = tuple(t._data.size for t in ts)
    n = len(ts)
    outs = [t.reshape(tuple(-1 if j == i else 1 for j in range(n))).expand(shape) for i, t in enumerate(ts)]
    if indexing == "xy" and n > 1:  # the "ij" grid with its first two dims swapped
        outs = [o.transpose(0, 1) for o in outs]
    return tuple(outs)


# ------------------------------------------------------------------------------------------------
# Tensor.new_*: creation with the source tensor's dtype as default (bound in _tensor_methods.py)
# ------------------------------------------------------------------------------------------------
def _new_size(size, fn):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"{fn}(): argument 'size' (position 1) must be tuple of ints, not {type(s).__name__}")
    return _size(size)


def _new_npd(self, dtype):
    return self._data.dtype if dtype is None else _dtype.to_np(dtype)


def new_zeros(self: Tensor, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """Zeros of ``size`` (varargs or one sequence) with ``self``'s dtype unless ``dtype`` is given
    (``Tensor.new_zeros``). TypeError for a non-int size; RuntimeError for a negative one, or for
    ``requires_grad`` with an integer dtype."""
    dev = self.device if device is None else _check_device(device)
    if _is_sparse(layout, like=self):
        return _sparse_zeros(_new_size(size, "new_zeros"), _new_npd(self, dtype), requires_grad, dev)
    return _finish(B.zeros(_new_size(size, "new_zeros"), _new_npd(self, dtype), dev), requires_grad)


def new_ones(self: Tensor, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """Ones of ``size`` with ``self``'s dtype by default (``Tensor.new_ones``)."""
    dev = self.device if device is None else _check_device(device)
    _is_sparse(layout, "aten::fill_.Scalar", like=self)
    return _finish(B.ones(_new_size(size, "new_ones"), _new_npd(self, dtype), dev), requires_grad)


def new_empty(self: Tensor, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """An uninitialized tensor of ``size`` with ``self``'s dtype by default (``Tensor.new_empty``)."""
    dev = self.device if device is None else _check_device(device)
    if _is_sparse(layout, like=self):
        return _sparse_zeros(_new_size(size, "new_empty"), _new_npd(self, dtype), requires_grad, dev)
    return _finish(B.empty(_new_size(size, "new_empty"), _new_npd(self, dtype), dev), requires_grad)


def new_empty_strided(self: Tensor, size, stride, dtype=None, device=None, requires_grad=False, layout=None,
                      pin_memory=False):
    """``torch.empty_strided(size, stride)`` with ``self``'s dtype by default (``Tensor.new_empty_strided``)."""
    _check_device(device)
    return _finish(_strided_array(size, stride, _new_npd(self, dtype)), requires_grad)


def new_full(self: Tensor, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    """``size`` (a sequence) filled with ``fill_value``, in ``self``'s dtype unless ``dtype`` is given,
    whatever the value's type (``Tensor.new_full``). TypeError when ``size`` is not a sequence."""
    dev = self.device if device is None else _check_device(device)
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    _is_sparse(layout, "aten::fill_.Scalar", like=self)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return _finish(B.full(_new_size((size,), "new_full"), fill_value, _new_npd(self, dtype), dev), requires_grad)


def new_tensor(self: Tensor, data, *, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    """A copy of ``data`` as a leaf tensor in ``self``'s dtype unless ``dtype`` is given (not the
    dtype inferred from ``data``, unlike ``torch.tensor``) (``Tensor.new_tensor``)."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
    return tensor(data, dtype=self.dtype if dtype is None else dtype, device=self.device if device is None else device,
                  requires_grad=requires_grad)
