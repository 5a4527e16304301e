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

__all__ = ["UntypedStorage", "TypedStorage"]


def _owner(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


class UntypedStorage:
    """``UntypedStorage(size=0)``: ``size`` zero bytes; a tensor's via ``Tensor.untyped_storage()``."""

    def __init__(self, size: int = 0, *, device=None) -> None:
        self._array = np.zeros(int(size), np.uint8)

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
        body = "\\n".join(f" {b}" for b in self.tolist())
        return f"{body}\\n[torch.storage.UntypedStorage(device=cpu) of size {len(self)}]"


class TypedStorage:
    """The elements of a storage in one dtype (``torch.TypedStorage``; deprecated in PyTorch, which warns on
    ``Tensor.storage()``). ``size()`` counts elements."""

    def __init__(self, untyped: UntypedStorage, dtype) -> None:
        self._untyped_storage, self.dtype = untyped, dtype

    def _values(self) -> np.ndarray:
        itemsize = self.element_size()
        raw = self._untyped_storage._bytes()
        return raw[:len(raw) // itemsize * itemsize].view(self._untyped_storage._array.dtype)

    def element_size(self) -> int:
        return self._untyped_storage._array.itemsize

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
        body = "\\n".join(f" {v}" for v in self.tolist())
        return f"{body}\\n[torch.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size {len(self)}]"


def _typed_storage_warning() -> None:
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
                  "storage class. This should only matter to you if you are using storages directly.  To access "
                  "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                  UserWarning, stacklevel=3)
