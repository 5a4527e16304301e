"""dtype/device conversion methods: ``to``, ``type``, ``type_as``, ``cpu``, ``cuda`` and the casters
``float()``, ``double()``, ``long()``, ... (mirrors the ``torch.Tensor`` methods). Every dtype change
goes through the differentiable ``cast``; ``_tensor_methods.py`` binds these as Tensor methods.
"""
from __future__ import annotations

from .. import _dtype
from .._device import check as _check_device
from .._device import device as _Device
from .._tensor import Tensor
from .._tensor_sparse import unsupported
from ._cast import ToCopyBackward0, cast

__all__ = ["to", "type_", "type_as", "cpu", "cuda"]


def _parse_to(args, kwargs):
    dtype = kwargs.get("dtype")
    device = kwargs.get("device")
    flags = []  # positional non_blocking, copy (after the dtype / device / tensor), as in PyTorch's signatures
    for a in args:
        if isinstance(a, bool):
            flags.append(a)
        elif isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, _Device, int)) and a is not None:
            device = a
        elif a is not None:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
    if len(flags) > 1:
        kwargs = {**kwargs, "copy": flags[1]}
    return dtype, device, kwargs


def to(self: Tensor, *args, **kwargs) -> Tensor:
    """``to(dtype)``, ``to(device)``, ``to(other)``, ``to(device, dtype)``: ``self`` if nothing changes.

    RuntimeError for devices without a backend (``"cuda"``).
    """
    dtype, device, kwargs = _parse_to(args, kwargs)
    if device is not None and _check_device(device).type != self.device.type:  # to or from meta
        if self.is_meta:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        if self.is_sparse:  # a dense meta tensor would silently drop the layout
            raise unsupported("aten::_to_copy of a sparse COO tensor to the meta device (numtorch has no sparse "
                              "meta tensors)")
        return ToCopyBackward0.apply(self, dtype=self._data.dtype if dtype is None else dtype.np, to_meta=True)
    fmt = kwargs.get("memory_format")
    if fmt is not None and str(fmt).split(".")[-1] != "preserve_format" and not self.is_contiguous(memory_format=fmt):
        self = self.clone(memory_format=fmt)  # noqa: PLW0642 (then cast below, keeping the layout)
    if dtype is None or self._data.dtype == dtype.np:
        if kwargs.get("copy"):
            return self.clone()
        return self
    return cast(self, dtype)


def _caster(d, name):
    def fn(self, memory_format=None):
        return to(self, d, memory_format=memory_format)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``self.to({d})`` (``torch.Tensor.{name}``)."
    return fn


float_ = _caster(_dtype.float32, "float")
double = _caster(_dtype.float64, "double")
half = _caster(_dtype.float16, "half")
bfloat16 = _caster(_dtype.bfloat16, "bfloat16")
long = _caster(_dtype.int64, "long")
int_ = _caster(_dtype.int32, "int")
short = _caster(_dtype.int16, "short")
char = _caster(_dtype.int8, "char")
byte = _caster(_dtype.uint8, "byte")
bool_ = _caster(_dtype.bool, "bool")
cfloat = _caster(_dtype.complex64, "cfloat")
cdouble = _caster(_dtype.complex128, "cdouble")

_BY_TENSOR_TYPE = {d._tensor_type: d for d in _dtype._ALL}  # "torch.FloatTensor" -> float32


def type_(self: Tensor, dtype=None, non_blocking=False, **kwargs):
    """``t.type()`` returns the type string (e.g. ``'torch.FloatTensor'``); ``t.type(dtype)`` casts.
    ValueError for an unknown type string."""
    if dtype is None:
        name = self.dtype._tensor_type
        return name.replace("torch.", "torch.sparse.", 1) if self.is_sparse else name
    if isinstance(dtype, str):
        if dtype not in _BY_TENSOR_TYPE:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _BY_TENSOR_TYPE[dtype]
    return cast(self, dtype)


def type_as(self: Tensor, other: Tensor) -> Tensor:
    return cast(self, other.dtype)


def cpu(self: Tensor, memory_format=None) -> Tensor:
    if self.is_meta:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    return self


def cuda(self: Tensor, device=None, non_blocking=False, memory_format=None) -> Tensor:
    _check_device("cuda")
