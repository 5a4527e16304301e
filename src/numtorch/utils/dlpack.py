"""DLPack exchange (mirrors ``torch.utils.dlpack``): tensors share memory with other array libraries.

``from_dlpack(obj)`` takes anything with ``__dlpack__`` (a NumPy array, a PyTorch or JAX CPU array, a
numtorch tensor) or a DLPack capsule, and returns a numtorch tensor over the same memory (NumPy's
``from_dlpack`` does the protocol). ``to_dlpack(tensor)`` gives the capsule (consumable once).
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make

__all__ = ["from_dlpack", "to_dlpack"]


class _Capsule:
    """A bare DLPack capsule, dressed with the protocol so that NumPy can consume it (CPU only)."""

    def __init__(self, capsule) -> None:
        self._capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)


class _Writable:
    """Exposes an array's memory as writable. NumPy marks arrays imported from a legacy (unversioned) DLPack
    capsule read-only, as that format cannot say; PyTorch treats such memory as writable, and so does this."""

    def __init__(self, a: np.ndarray) -> None:
        self._keep = a  # the imported array owns the capsule: keep it alive
        self.__array_interface__ = dict(a.__array_interface__, data=(a.__array_interface__["data"][0], False))


def to_dlpack(tensor: Tensor):
    """The DLPack capsule of ``tensor``'s memory (``torch.utils.dlpack.to_dlpack``; like PyTorch's, it exports
    a tensor that requires grad too)."""
    return tensor._data.__dlpack__(max_version=(1, 0))


def from_dlpack(ext_tensor) -> Tensor:
    """A tensor sharing the memory of ``ext_tensor`` (an object with ``__dlpack__`` or a DLPack capsule).

    Raises BufferError for a tensor that requires grad (the exporter's refusal, as in PyTorch);
    RuntimeError for anything else (PyTorch's message), or a capsule already consumed.
    """
    if getattr(ext_tensor, "requires_grad", False):  # a numtorch or PyTorch tensor refuses to export
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if isinstance(ext_tensor, Tensor):  # numtorch's own: share the array (NumPy's DLPack has no bfloat16)
        return _make(ext_tensor._data)
    obj = ext_tensor if hasattr(ext_tensor, "__dlpack__") else _Capsule(ext_tensor)
    try:
        arr = np.from_dlpack(obj)
        return _make(arr if arr.flags.writeable else np.asarray(_Writable(arr)))
    except (TypeError, ValueError, BufferError, AttributeError) as e:
        raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
                           "only once, so you might have already constructed a tensor from it once.") from e
