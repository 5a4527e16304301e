"""Storages (mirrors ``torch/storage.py``): the memory under a tensor, seen as bytes (``UntypedStorage``) or
as elements of one dtype (``TypedStorage``, deprecated in PyTorch).

A numtorch tensor's memory is a NumPy array; its storage is the array that owns the memory (the end of
the ``.base`` chain), so every view of a tensor reports the same storage and ``data_ptr()``, as in
PyTorch. Storages here are read-mostly views for inspection; PyTorch programs use them to check memory
sharing (``a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()``) and sizes.
"""
from __future__ import annotations

import warnings

import numpy as np

from ._device import device as _device
from ._dtype import get_default_dtype, to_np as _to_np

__all__ = ["UntypedStorage", "TypedStorage"]


def _owner(a: np.ndarray) -> np.ndarray:
    """The array owning ``a``'s memory: the end of its ``.base`` chain, walking through the holder NumPy's
    ``as_strided``/``broadcast_to`` put between a strided view and the array it views (its ``.base``)."""
    b = a.base
    while b is not None:
        if isinstance(b, np.ndarray):
            a = b
        b = getattr(b, "base", None)
    return a


class UntypedStorage:
    """``UntypedStorage(size=0)``: ``size`` zero bytes, or ``UntypedStorage(sequence)`` of byte values; a
    tensor's via ``Tensor.untyped_storage()``."""

    def __init__(self, data=0, *, device=None) -> None:
        self._array = np.zeros(int(data), np.uint8) if isinstance(data, (int, np.integer)) else \
            np.array(list(data), np.uint8)

    @classmethod
    def _of(cls, array: np.ndarray) -> "UntypedStorage":
        s = cls.__new__(cls)
        s._array = _owner(array)
        return s

    def _bytes(self) -> np.ndarray:
        a = self._array
        return a.reshape(-1).view(np.uint8) if a.flags.c_contiguous else np.ascontiguousarray(a).view(np.uint8)

    def nbytes(self) -> int:
        return self._array.nbytes

    size = nbytes

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return self._array.__array_interface__["data"][0]

    @property
    def device(self):
        return _device("cpu")

    def is_shared(self) -> bool:
        return False

    def tolist(self) -> list:
        return self._bytes().tolist()

    def __getitem__(self, i):
        return self._bytes().tolist()[i] if isinstance(i, slice) else int(self._bytes()[i])

    def __repr__(self) -> str:
        return _pretty(self.tolist(), f"[torch.storage.UntypedStorage(device=cpu) of size {len(self)}]")


class TypedStorage:
    """The elements of a storage in one dtype (``torch.TypedStorage``; deprecated in PyTorch, which warns on
    ``Tensor.storage()``). ``size()`` counts elements. ``TypedStorage(size=0, dtype=None)`` holds ``size``
    zeros, ``TypedStorage(sequence, dtype=None)`` those values, ``TypedStorage(wrap_storage=untyped,
    dtype=...)`` views ``untyped``'s bytes; ``dtype`` defaults to the default dtype."""

    def __init__(self, data=0, *, wrap_storage: UntypedStorage | None = None, dtype=None, device=None) -> None:
        self.dtype = get_default_dtype() if dtype is None else dtype
        if wrap_storage is None:
            np_dtype = _to_np(self.dtype)
            wrap_storage = UntypedStorage._of(np.zeros(int(data), np_dtype) if isinstance(data, (int, np.integer))
                                              else np.array(list(data), np_dtype))
        self._untyped_storage = wrap_storage

    def _values(self) -> np.ndarray:
        itemsize = self.element_size()
        raw = self._untyped_storage._bytes()
        return raw[:len(raw) // itemsize * itemsize].view(_to_np(self.dtype))

    def element_size(self) -> int:
        return _to_np(self.dtype).itemsize

    def size(self) -> int:
        return self._untyped_storage.nbytes() // self.element_size()

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    @property
    def device(self):
        return _device("cpu")

    def tolist(self) -> list:
        return self._values().tolist()

    def __getitem__(self, i):
        return self._values().tolist()[i]

    def __repr__(self) -> str:
        footer = f"[torch.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size {len(self)}]"
        return _pretty(self.tolist(), footer)


def _pretty(values: list, footer: str) -> str:
    """PyTorch's storage repr: each value on its own line after a space, then the footer line."""
    return " " + "\n ".join(str(v) for v in values) + "\n" + footer


def _typed_storage_warning() -> None:
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
                  "storage class. This should only matter to you if you are using storages directly.  To access "
                  "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                  UserWarning, stacklevel=3)
