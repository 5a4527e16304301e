"""``numtorch._dynamo.utils``: ``is_compile_supported``.

torchvision asks it before running a pure-Python fallback of an op (``roi_align``): True for the CPU,
which is where numtorch runs, so such fallbacks run.
"""
from __future__ import annotations


def is_compile_supported(device_type) -> bool:
    return device_type == "cpu"
