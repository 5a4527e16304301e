"""Legacy tensor type names (mirrors ``torch.FloatTensor``, ``torch.LongTensor``, ...).

Old PyTorch programs use these names two ways, and both work here:

* as constructors: ``LongTensor([1, 2])`` copies data into an int64 tensor, ``FloatTensor(2, 3)``
  makes an uninitialized float32 tensor of that size, ``FloatTensor()`` an empty one;
* in ``isinstance`` checks: ``isinstance(t, FloatTensor)`` is True only for a float32 (CPU) tensor.

Each name is a class whose metaclass supplies ``__call__`` (the constructor) and
``__instancecheck__``; calling it returns a plain ``Tensor``, as PyTorch does.
"""
from __future__ import annotations

import importlib
import warnings

import numpy as np

from . import _dtype
from ._ops._convert import type_
from ._ops.creation import _is_sequence, tensor
from ._tensor import Size, Tensor, _make

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "set_default_tensor_type"]


def _legacy_new(dtype, args, device):
    if device is not None and "cpu" not in str(device):
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                           f"{str(device).split(':')[0]} was passed")
    npd = dtype.np
    if not args:
        return _make(np.empty((0,), npd))
    if len(args) == 1 and isinstance(args[0], Tensor):
        src = args[0]
        if src._data.dtype != npd:  # PyTorch refuses to convert here; it shares memory instead
            raise TypeError(f"expected {dtype} (got {src.dtype})")
        return _make(src._data)
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args) or \
            (len(args) == 1 and isinstance(args[0], Size)):
        shape = tuple(args[0]) if isinstance(args[0], Size) else tuple(int(a) for a in args)
        if any(s < 0 for s in shape):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
        return _make(np.empty(shape, npd))
    if len(args) > 1:
        raise TypeError(f"new() received an invalid combination of arguments - got "
                        f"({', '.join(type(a).__name__ for a in args)}), but expected one of: (*sizes) or (data)")
    data = args[0]
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(data, (list, tuple, np.ndarray)) and not _is_sequence(data):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return tensor(data, dtype=dtype)


def new_method(self: Tensor, *args, device=None) -> Tensor:
    """``Tensor.new`` (legacy): ``x.new()`` empty, ``x.new(2, 3)`` uninitialised, ``x.new(data)`` from data,
    each in ``x``'s dtype; the rules of the legacy constructors (``torch.FloatTensor(...)``)."""
    return _legacy_new(self.dtype, args, device)


class _TensorTypeMeta(type):
    """The metaclass (PyTorch's ``torch.tensortype``): call to construct, ``isinstance`` by dtype."""

    def __call__(cls, *args, device=None):
        return _legacy_new(cls.dtype, args, device)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype.np and not obj.is_sparse

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"

    @property
    def is_cuda(cls):
        return False

    @property
    def is_sparse(cls):
        return False


def _make_type(name, dtype):
    doc = (f"``torch.{name}``: ``{name}(data)`` or ``{name}(*sizes)`` makes a {dtype} tensor; "
           f"``isinstance(t, {name})`` is True for {dtype} tensors.")
    return _TensorTypeMeta(name, (), {"dtype": dtype, "__doc__": doc, "__module__": "torch"})


FloatTensor = _make_type("FloatTensor", _dtype.float32)
DoubleTensor = _make_type("DoubleTensor", _dtype.float64)
HalfTensor = _make_type("HalfTensor", _dtype.float16)
BFloat16Tensor = _make_type("BFloat16Tensor", _dtype.bfloat16)
LongTensor = _make_type("LongTensor", _dtype.int64)
IntTensor = _make_type("IntTensor", _dtype.int32)
ShortTensor = _make_type("ShortTensor", _dtype.int16)
CharTensor = _make_type("CharTensor", _dtype.int8)
ByteTensor = _make_type("ByteTensor", _dtype.uint8)
BoolTensor = _make_type("BoolTensor", _dtype.bool)

_BY_CLASS = {globals()[n]: globals()[n].dtype for n in __all__[:-1]}


def set_default_tensor_type(t) -> None:
    """Deprecated ``torch.set_default_tensor_type``: sets the default dtype from a floating-point tensor
    type (``torch.DoubleTensor`` or its name ``"torch.DoubleTensor"``), with PyTorch's UserWarning.
    TypeError for an integer or CUDA type or any other object."""
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module == "torch" and name in _BY_NAME:
            t = _BY_NAME[name]
        elif module == "torch.cuda":
            raise TypeError(f"type {t} not available. Torch not compiled with CUDA enabled.")
        else:
            t = getattr(importlib.import_module(module), name)
    if type(t) is not _TensorTypeMeta:
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if not _WARNED:  # PyTorch warns once per process
        _WARNED.append(True)
        warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                      "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                      stacklevel=2)
    _dtype.set_default_dtype(t.dtype)


_BY_NAME = {n: globals()[n] for n in __all__[:-1]}
_WARNED = []


def type_method(self: Tensor, dtype=None, non_blocking=False, **kwargs):
    """``Tensor.type``: with no argument the type name (``'torch.FloatTensor'``); with a dtype, a
    type string or a legacy type class (``t.type(torch.LongTensor)``), a cast to that type."""
    return type_(self, _BY_CLASS.get(dtype, dtype), non_blocking, **kwargs)
