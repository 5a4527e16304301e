"""``numtorch.onnx.symbolic_opset11``: importable; its symbolic functions raise RuntimeError when called.

Libraries import it to write ONNX symbolics for their ops (torchvision does); numtorch has no ONNX
exporter, so they are only ever called during an export, which numtorch cannot run.
"""
from __future__ import annotations


from .._stand_ins import raising_getattr

__getattr__ = raising_getattr("torch.onnx.symbolic_opset11", RuntimeError, "numtorch has no ONNX exporter")
