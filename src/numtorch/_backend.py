"""The array backend: the one place where numtorch creates arrays for tensors.

Everything on a tensor's data path allocates through these helpers, so that a CuPy backend for
``device="cuda"`` can later be chosen here without touching ``nn/``. Other NumPy functions dispatch
to CuPy arrays through ``__array_function__``; creation functions do not, hence this module.
"""
from __future__ import annotations

import os
import sys

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


def empty(shape, dtype):
    return np.empty(shape, dtype)


def zeros(shape, dtype):
    return np.zeros(shape, dtype)


def ones(shape, dtype):
    return np.ones(shape, dtype)


def full(shape, value, dtype):
    return np.full(shape, value, dtype)


def asarray(data, dtype=None):
    return np.asarray(data, dtype)


def array(data, dtype=None, copy=True):
    return np.array(data, dtype, copy=copy)
