"""``numtorch.onnx`` (mirrors the entry points of ``torch.onnx``): importable, so programs that offer an
ONNX export option run; numtorch has no graph capture, so ``export`` raises RuntimeError and
``is_in_onnx_export()`` is False."""
from __future__ import annotations

__all__ = ["export", "is_in_onnx_export", "register_custom_op_symbolic", "unregister_custom_op_symbolic"]


def is_in_onnx_export() -> bool:
    return False


def export(model, args=(), f=None, *pos, **kwargs):
    raise RuntimeError("numtorch has no ONNX exporter: torch.onnx.export needs PyTorch's graph capture; save the "
                       "weights with torch.save(model.state_dict()) and export from PyTorch")


_custom_symbolics = {}  # (op name, opset) -> symbolic function: recorded for libraries that register them


def register_custom_op_symbolic(symbolic_name: str, symbolic_fn, opset_version: int) -> None:
    """Record an ONNX symbolic for a custom op (torchvision registers some at import); never used, as numtorch
    cannot export."""
    _custom_symbolics[(symbolic_name, opset_version)] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name: str, opset_version: int) -> None:
    _custom_symbolics.pop((symbolic_name, opset_version), None)
