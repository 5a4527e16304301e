"""``numtorch.onnx.symbolic_opset11``: importable; its symbolic functions raise RuntimeError when called.

Libraries import it to write ONNX symbolics for their ops (torchvision does); numtorch has no ONNX
exporter, so they are only ever called during an export, which numtorch cannot run.
"""
from __future__ import annotations


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def symbolic(*args, **kwargs):
        raise RuntimeError(f"torch.onnx.symbolic_opset11.{name}: numtorch has no ONNX exporter")
    symbolic.__name__ = name
    return symbolic
