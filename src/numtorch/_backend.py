"""The array backend: the one place where numtorch creates arrays for tensors.

Everything on a tensor's data path allocates through these helpers, so that a CuPy backend for
``device="cuda"`` can later be chosen here without touching ``nn/``. Other NumPy functions dispatch
to CuPy arrays through ``__array_function__``; creation functions do not, hence this module.
"""
from __future__ import annotations

import numpy as np

xp = np  # the array module for CPU tensors


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
