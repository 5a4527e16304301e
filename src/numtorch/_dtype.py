"""dtype objects with PyTorch's names, and PyTorch's type-promotion rules.

Mirrors ``torch.dtype`` and ``torch.result_type``. Each numtorch dtype wraps a NumPy dtype;
``bfloat16`` comes from the ``ml_dtypes`` package (NumPy has none), imported on first use so that
``import numtorch`` stays light.
"""
from __future__ import annotations

import builtins

import numpy as np

__all__ = ["dtype", "float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64",
           "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "get_default_dtype", "set_default_dtype",
           "promote_types", "result_type", "to_np", "from_np"]


class dtype:
    """A tensor element type (mirrors ``torch.dtype``); compare with ``is`` or ``==``."""

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "_cat",
                 "_aten_name", "_cpp_name")

    def __init__(self, name, np_dtype, cat):
        self.name = name
        self.np = np.dtype(np_dtype)
        self._cat = cat  # 0 bool, 1 integer, 2 floating, 3 complex
        self.is_floating_point = cat == 2
        self.is_complex = cat == 3
        self.is_signed = name not in ("uint8", "bool")
        self.itemsize = self.np.itemsize
        self._set_names()

    def _set_names(self):
        # PyTorch's names for this type in its messages: ATen's ScalarType ("Float", as in
        # "expected scalar type Float") and the C++ type ("float", as in "float != double").
        self._aten_name, self._cpp_name = _TYPE_NAMES[self.name]

    @property
    def _tensor_type(self) -> str:
        """The legacy tensor-type name: ``torch.FloatTensor``."""
        return f"torch.{self._aten_name}Tensor"

    @property
    def _storage_name(self) -> str:
        """The legacy storage class name used by the torch file format: ``FloatStorage``."""
        return f"{self._aten_name}Storage"

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):  # pickles as the module-level singleton
        return (_by_name, (self.name,))

    def to_real(self):
        return {"complex64": float32, "complex128": float64}.get(self.name, self)


class _LazyDtype(dtype):
    """``bfloat16``: its NumPy dtype (from ``ml_dtypes``) is resolved, and registered, on first use."""

    __slots__ = ()

    def __init__(self, name, itemsize, cat):
        self.name = name
        self._cat = cat
        self.is_floating_point = cat == 2
        self.is_complex = cat == 3
        self.is_signed = True
        self.itemsize = itemsize
        self._set_names()

    @property
    def np(self):
        try:
            return _np_slot.__get__(self, dtype)
        except AttributeError:
            import ml_dtypes  # bfloat16/float8 types: ml_dtypes loads on first use (start-up cost)
            npd = np.dtype(getattr(ml_dtypes, self.name))
            _np_slot.__set__(self, npd)
            _NP2DT[npd] = self
            return npd


_np_slot = dtype.__dict__["np"]  # the slot's descriptor, shadowed by _LazyDtype.np


class _ShellDtype(dtype):
    """``uint16``/``uint32``/``uint64``: named, comparable and printable (libraries test ``dtype ==
    torch.uint16``), but numtorch makes no tensors of them: asking for their storage raises TypeError.
    (PyTorch itself supports them in few ops and does not promote them.)"""

    __slots__ = ()

    def __init__(self, name, itemsize):
        self.name, self._cat, self.itemsize = name, 1, itemsize
        self.is_floating_point = self.is_complex = self.is_signed = False
        self._set_names()

    @property
    def np(self):
        raise TypeError(f"numtorch does not support tensors of dtype torch.{self.name} (PyTorch's limited "
                        "unsigned types); use torch.int32 or torch.int64")


# name -> (ATen ScalarType name, C++ type name), as PyTorch prints them in error messages
_TYPE_NAMES = {
    "float32": ("Float", "float"), "float64": ("Double", "double"), "float16": ("Half", "c10::Half"),
    "bfloat16": ("BFloat16", "c10::BFloat16"), "int8": ("Char", "signed char"), "int16": ("Short", "short int"),
    "int32": ("Int", "int"), "int64": ("Long", "long int"), "uint8": ("Byte", "unsigned char"),
    "bool": ("Bool", "bool"), "uint16": ("UInt16", "uint16_t"), "uint32": ("UInt32", "uint32_t"),
    "uint64": ("UInt64", "uint64_t"), "complex64": ("ComplexFloat", "c10::complex<float>"),
    "complex128": ("ComplexDouble", "c10::complex<double>"),
}

float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)
float16 = dtype("float16", np.float16, 2)
bfloat16 = _LazyDtype("bfloat16", 2, 2)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 1)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 1)
uint8 = dtype("uint8", np.uint8, 1)
bool = dtype("bool", np.bool_, 0)  # noqa: A001 - PyTorch's name
complex64 = dtype("complex64", np.complex64, 3)
complex128 = dtype("complex128", np.complex128, 3)
uint16, uint32, uint64 = _ShellDtype("uint16", 2), _ShellDtype("uint32", 4), _ShellDtype("uint64", 8)

_ALL = (float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8, bool, complex64, complex128)
_NP2DT = {d.np: d for d in _ALL if not isinstance(d, _LazyDtype)}
_NAMES = {d.name: d for d in _ALL}


def _by_name(name):
    return _NAMES[name]


def from_np(np_dtype) -> dtype:
    """The numtorch dtype of a NumPy dtype; TypeError for dtypes numtorch has no counterpart for."""
    try:
        return _NP2DT[np_dtype]
    except KeyError:
        pass
    d = np.dtype(np_dtype)
    if d in _NP2DT:
        return _NP2DT[d]
    if d.name == "bfloat16" and d == bfloat16.np:  # an ml_dtypes array met before bfloat16 was used
        return bfloat16
    if d.kind == "u":  # uint16/32/64 have no torch counterpart; widen to int64
        return int64
    raise TypeError(f"can't convert np.ndarray of type {d}. The only supported types are: "
                    "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.")


def to_np(d) -> np.dtype:
    """The NumPy dtype for a numtorch dtype (or anything NumPy accepts)."""
    if isinstance(d, dtype):
        return d.np
    if d is None:
        return _default.np
    return np.dtype(d)


_default = float32


def get_default_dtype() -> dtype:
    """The dtype of new floating-point tensors (``torch.get_default_dtype``); float32 at start."""
    return _default


def set_default_dtype(d: dtype) -> None:
    """Set the default floating-point dtype (``torch.set_default_dtype``); TypeError for non-float types."""
    global _default
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default = d


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's ``promote_types``: the smallest dtype both ``a`` and ``b`` convert to safely."""
    if a is b:
        return a
    if a._cat != b._cat:
        hi, lo = (a, b) if a._cat > b._cat else (b, a)
        if hi._cat >= 2 and lo._cat < 2:  # int/bool with float/complex: the float type wins
            return hi
        if hi._cat == 1 and lo._cat == 0:
            return hi
    if {a.name, b.name} == {"float16", "bfloat16"} or (a is bfloat16 or b is bfloat16):
        other = b if a is bfloat16 else a
        if other._cat == 2 and other is not float16:
            return other if other.itemsize > 2 else float32
        if other is float16:
            return float32
        if other._cat == 3:
            return other
    return _NP2DT[np.promote_types(a.np, b.np)]


def _combine(higher, lower):
    # torch/ATen combine_categories: a higher-priority operand keeps its dtype unless the
    # lower-priority one is of a higher category (e.g. a float scalar with an int tensor).
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher._cat >= 2 and higher._cat >= lower._cat:
        return higher
    if higher is bool or lower._cat > higher._cat:
        if lower._cat == 3 and higher._cat == 2:  # float tensor with complex scalar
            return {2: complex64, 4: complex64, 8: complex128}[higher.itemsize]
        return promote_types(higher, lower)
    return higher


def scalar_dtype(x) -> dtype:
    """The dtype a Python scalar takes when it is "wrapped" in an op (weak typing)."""
    if isinstance(x, (builtins.bool, np.bool_)):
        return bool
    if isinstance(x, (int, np.integer)):
        return int64
    if isinstance(x, (float, np.floating)):
        return _default
    if isinstance(x, complex):
        return complex64 if _default is float32 else complex128
    raise TypeError(f"unsupported scalar type {type(x).__name__}")


def result_type(*operands) -> dtype:
    """``torch.result_type`` over Tensors and Python scalars.

    Dimensioned tensors take priority over zero-dim tensors, which take priority over Python
    scalars; a lower-priority operand only matters when its category (bool < int < float < complex)
    is higher.
    """
    dim = zero = wrapped = None
    for x in operands:
        d = getattr(x, "dtype", None)
        if isinstance(d, dtype):
            if x.ndim:
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        else:
            d = scalar_dtype(x)
            wrapped = d if wrapped is None else promote_types(wrapped, d)
    return _combine(dim, _combine(zero, wrapped))
