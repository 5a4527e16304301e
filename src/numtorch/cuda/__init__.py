"""``numtorch.cuda`` (mirrors the probes of ``torch.cuda`` that CPU programs touch).

numtorch has no GPU backend yet: ``is_available()`` is False, ``device_count()`` 0, seeding calls
are accepted (and do nothing), and calls that need a GPU raise RuntimeError.
"""
from __future__ import annotations

from . import amp

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "synchronize", "empty_cache",
           "is_bf16_supported", "current_device", "get_device_name", "amp"]


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed) -> None:
    """Accepted for compatibility; there is no CUDA generator to seed."""


def manual_seed_all(seed) -> None:
    """Accepted for compatibility; there is no CUDA generator to seed."""


def synchronize(device=None) -> None:
    return None


def empty_cache() -> None:
    return None


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def _no_gpu(*args, **kwargs):
    raise RuntimeError("numtorch has no CUDA backend: torch.cuda.is_available() is False")


current_device = get_device_name = get_device_properties = set_device = memory_allocated = _no_gpu
max_memory_allocated = reset_peak_memory_stats = _no_gpu
