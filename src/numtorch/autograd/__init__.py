"""``numtorch.autograd`` (mirrors ``torch.autograd``): Function, backward, grad, grad modes, gradcheck."""
import importlib

from . import engine, function, graph, grad_mode, forward_ad
from .engine import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                        set_grad_enabled)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .._tensor import Tensor

__all__ = ["Function", "FunctionCtx", "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "is_grad_enabled", "gradcheck", "gradgradcheck", "GradcheckError", "once_differentiable",
           "detect_anomaly", "set_detect_anomaly"]


class _ExecutionEngine:
    """``Variable._execution_engine``: PyTorch's handle on the autograd engine; ``queue_callback(fn)``
    runs ``fn()`` at the end of the backward pass now running."""

    queue_callback = staticmethod(engine.queue_callback)


class _VariableMeta(type):
    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, Tensor)  # every Tensor is a Variable, as in PyTorch


class Variable(metaclass=_VariableMeta):
    """Deprecated alias kept for old programs: ``Variable(t)`` returns ``t``; ``isinstance(t, Variable)`` is
    True for every Tensor."""

    _execution_engine = _ExecutionEngine()

    def __new__(cls, data, requires_grad=False):
        if requires_grad:
            data.requires_grad_(True)
        return data


def __getattr__(name):
    # torch.autograd.profiler (and its profiler_util) load on first use: `import numtorch` stays light
    if name in ("profiler", "profiler_util"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
