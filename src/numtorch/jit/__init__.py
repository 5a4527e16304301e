"""``numtorch.jit`` (mirrors the parts of ``torch.jit`` that eager programs touch).

numtorch has no TorchScript compiler: ``script`` and ``trace`` return the module or function
unchanged (calls behave as in eager PyTorch), ``is_scripting()``/``is_tracing()`` are False, and the
decorators ``ignore``, ``unused``, ``export`` return their function. ``save``/``load`` of TorchScript
archives raise RuntimeError.
"""
from __future__ import annotations

from typing import Final  # noqa: F401 - torch.jit.Final

__all__ = ["script", "trace", "trace_module", "is_scripting", "is_tracing", "ignore", "unused", "export",
           "annotate", "Final", "save", "load", "ScriptModule", "ScriptFunction"]


def _script_if_tracing(fn):
    """Decorator: returns ``fn`` (it runs eagerly; numtorch never traces)."""
    return fn


def _overload_method(fn):
    """TorchScript overload declaration: returns ``fn`` (eager Python ignores it)."""
    return fn


def _overload(fn):
    return fn


class ScriptModule:
    """Placeholder type so ``isinstance(m, torch.jit.ScriptModule)`` is False for every numtorch module."""


class ScriptFunction:
    """Placeholder type so ``isinstance(f, torch.jit.ScriptFunction)`` is False."""


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``torch.jit.script``: returns ``obj`` unchanged (no TorchScript in numtorch)."""
    return obj


def trace(func, example_inputs=None, *args, **kwargs):
    """``torch.jit.trace``: returns ``func`` unchanged; it keeps running eagerly, with its control flow."""
    return func


def trace_module(mod, inputs, *args, **kwargs):
    return mod


def is_scripting() -> bool:
    return False


def is_tracing() -> bool:
    return False


def ignore(drop=False, **kwargs):
    """``@torch.jit.ignore`` / ``@torch.jit.ignore(drop=True)``: leaves the function as it is."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def annotate(the_type, the_value):
    return the_value


def save(m, f, _extra_files=None):
    raise RuntimeError("numtorch has no TorchScript: torch.jit.save is not supported; use torch.save(model) or "
                       "torch.save(model.state_dict())")


def load(f, map_location=None, _extra_files=None):
    raise RuntimeError("numtorch has no TorchScript: torch.jit.load cannot read TorchScript archives; load a "
                       "state_dict saved with torch.save instead")
