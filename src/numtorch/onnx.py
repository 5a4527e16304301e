"""``numtorch.onnx`` (mirrors the entry points of ``torch.onnx``): importable, so programs that offer an
ONNX export option run; numtorch has no graph capture, so ``export`` raises RuntimeError and
``is_in_onnx_export()`` is False."""
from __future__ import annotations

__all__ = ["export", "is_in_onnx_export"]


def is_in_onnx_export() -> bool:
    return False


def export(model, args=(), f=None, *pos, **kwargs):
    raise RuntimeError("numtorch has no ONNX exporter: torch.onnx.export needs PyTorch's graph capture; save the "
                       "weights with torch.save(model.state_dict()) and export from PyTorch")
