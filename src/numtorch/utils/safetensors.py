"""Hugging Face ``.safetensors`` files for numtorch tensors, through the ``safetensors`` package's NumPy API.

Mirrors ``safetensors.torch``: ``save_file(tensors, filename, metadata=None)``, ``load_file(filename)``,
``save(tensors)`` -> bytes and ``load(data)``. bfloat16 is carried by ``ml_dtypes``. Requires the
``safetensors`` package (``pip install numtorch[safetensors]``).
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make

__all__ = ["save_file", "load_file", "save", "load"]


def _np():
    try:
        import safetensors.numpy as stn  # optional dependency
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("numtorch.utils.safetensors needs the 'safetensors' package: pip install safetensors") from e
    return stn


def _to_arrays(tensors):
    if not isinstance(tensors, dict):
        raise TypeError(f"expected a dict of str -> Tensor, got {type(tensors).__name__}")
    out = {}
    for k, v in tensors.items():
        if not isinstance(k, str):
            raise TypeError(f"safetensors keys must be str, got {type(k).__name__}")
        if not isinstance(v, Tensor):
            raise TypeError(f"value for key {k!r} must be a Tensor, got {type(v).__name__}")
        out[k] = np.ascontiguousarray(v.detach()._data)
    return out


def save_file(tensors: dict, filename, metadata: dict | None = None) -> None:
    """Write ``{name: Tensor}`` to ``filename`` in safetensors format (tensors are made contiguous)."""
    _np().save_file(_to_arrays(tensors), str(filename), metadata=metadata)


def load_file(filename, device="cpu") -> dict:
    """Read a safetensors file into ``{name: Tensor}`` (CPU); load into a model with ``load_state_dict``."""
    return {k: _make(np.array(v, copy=True)) for k, v in _np().load_file(str(filename)).items()}


def save(tensors: dict, metadata: dict | None = None) -> bytes:
    return _np().save(_to_arrays(tensors), metadata=metadata)


def load(data: bytes) -> dict:
    return {k: _make(np.array(v, copy=True)) for k, v in _np().load(data).items()}
