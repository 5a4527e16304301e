"""``numtorch.onnx.symbolic_helper``: ``parse_args``, the decorator ONNX symbolic functions are written with.

numtorch has no ONNX exporter, so symbolic functions are never called; ``parse_args`` returns them unchanged.
"""
from __future__ import annotations

__all__ = ["parse_args"]


def parse_args(*arg_descriptors):
    """Decorator for ONNX symbolic functions; returns the function unchanged (numtorch never exports)."""
    return lambda fn: fn
