"""``numtorch.amp`` (mirrors ``torch.amp``): ``autocast`` and ``GradScaler`` for CPU programs.

numtorch computes in each tensor's own dtype. ``autocast`` is a context manager/decorator that
changes nothing; when a program asks it for float16/bfloat16 it warns once that numtorch keeps
float32 (results are then more precise than PyTorch's autocast, not bit-identical). ``GradScaler``
is PyTorch's disabled scaler: ``scale`` returns its input, ``step`` calls ``optimizer.step()``.
"""
from __future__ import annotations

import functools
import warnings

__all__ = ["autocast", "GradScaler", "is_autocast_available", "is_autocast_enabled"]

_warned = False


_depth = {}  # device type -> number of enabled autocast regions entered


def is_autocast_available(device_type: str) -> bool:
    return device_type == "cpu"


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """``torch.is_autocast_enabled(device_type)``: inside an enabled ``autocast(device_type)`` region (no
    argument: the CUDA one, as in PyTorch). The region still computes in the tensors' own dtypes."""
    return _depth.get("cuda" if device_type is None else device_type, 0) > 0


class autocast:
    """``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: a no-op region."""

    def __init__(self, device_type="cpu", dtype=None, enabled=True, cache_enabled=None):
        global _warned
        self.device_type, self.fast_dtype, self._enabled = device_type, dtype, enabled
        if enabled and not _warned and (dtype is None or getattr(dtype, "name", "") in ("float16", "bfloat16")):
            _warned = True
            warnings.warn("numtorch: autocast keeps float32 (no float16/bfloat16 autocast yet); the region runs "
                          "in the tensors' own dtypes.", UserWarning, stacklevel=2)

    def __enter__(self):
        if self._enabled:
            _depth[self.device_type] = _depth.get(self.device_type, 0) + 1
        return self

    def __exit__(self, *exc):
        if self._enabled:
            _depth[self.device_type] -= 1
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


class GradScaler:
    """``torch.amp.GradScaler``: always disabled on numtorch (no float16 gradients to scale).

    ``scale(outputs)`` returns ``outputs``; ``unscale_`` and ``update`` do nothing; ``step(optimizer)``
    calls ``optimizer.step()``. Asking for ``enabled=True`` warns once, as PyTorch does without CUDA.
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        if enabled:
            warnings.warn("numtorch: GradScaler is enabled, but numtorch has no CUDA/float16 backend. Disabling.",
                          UserWarning, stacklevel=2)
        self._enabled = False

    def is_enabled(self) -> bool:
        return False

    def scale(self, outputs):
        return outputs

    def unscale_(self, optimizer) -> None:
        return None

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None) -> None:
        return None

    def get_scale(self) -> float:
        return 1.0

    def get_growth_factor(self) -> float:
        return 2.0

    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, state_dict) -> None:
        return None
