"""Module-level ``__getattr__`` for importable stand-ins of PyTorch modules numtorch cannot implement
(quantization, ONNX export): any public name resolves to a function that raises when called, so
libraries that only import or register such functions (torchvision does) load, and a real use says
clearly what is missing.
"""
from __future__ import annotations


def raising_getattr(module: str, error: type, reason: str):
    """A ``__getattr__`` for module ``module`` (its PyTorch name): ``name`` gives a function named
    ``name`` that raises ``error(f"{module}.{name}: {reason}")`` when called; dunder names raise
    AttributeError, as a normal module's missing attributes do (so ``hasattr``/pickling behave)."""
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)

        def unavailable(*args, **kwargs):
            raise error(f"{module}.{name}: {reason}")
        unavailable.__name__ = name
        return unavailable
    return __getattr__
