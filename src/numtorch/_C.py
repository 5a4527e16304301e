"""``numtorch._C``: the odds and ends of ``torch._C`` that pure-Python libraries (torchvision...) reach for.

PyTorch's ``torch._C`` is its compiled core. numtorch has none; this module gives the few names that
Python code calls directly, with the meaning they have in an eager CPU program:

* ``_get_tracing_state()`` is None (nothing is ever being traced);
* ``DisableTorchFunctionSubclass`` / ``DisableTorchFunction`` are no-op context managers (numtorch does
  not dispatch ``__torch_function__``, so there is nothing to disable);
* ``_log_api_usage_once`` does nothing;
* ``DispatchKey`` / ``DispatchKeySet`` / ``_ExcludeDispatchKeyGuard`` are placeholders that can be
  combined with ``|`` and entered (numtorch has no dispatcher).
"""
from __future__ import annotations

import contextlib


def _get_tracing_state():
    return None


class DisableTorchFunctionSubclass(contextlib.nullcontext):
    """No-op: numtorch does not dispatch ``__torch_function__``."""


class DisableTorchFunction(contextlib.nullcontext):
    """No-op: numtorch does not dispatch ``__torch_function__``."""


def _log_api_usage_once(event: str) -> None:
    pass


class DispatchKey:
    """Names of PyTorch's dispatch keys; numtorch has no dispatcher, so they only name things."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"DispatchKey.{self.name}"

    def __class_getitem__(cls, name):
        return cls(name)


for _k in ("CPU", "CUDA", "XPU", "MPS", "Meta", "Autograd", "AutogradCPU", "AutogradCUDA", "AutocastCPU",
           "AutocastCUDA", "AutocastXPU", "AutocastMPS", "CompositeImplicitAutograd", "CompositeExplicitAutograd",
           "Python", "PythonTLSSnapshot", "Functionalize", "ADInplaceOrView", "BackendSelect", "Undefined"):
    setattr(DispatchKey, _k, DispatchKey(_k))
del _k


class DispatchKeySet:
    """A set of dispatch keys (``DispatchKeySet(DispatchKey.CPU) | ...``)."""

    def __init__(self, *keys):
        self.keys = frozenset(k.name if isinstance(k, DispatchKey) else k for k in keys)

    def __or__(self, other):
        out = DispatchKeySet()
        out.keys = self.keys | other.keys
        return out

    def has(self, key):
        return key.name in self.keys

    def __repr__(self):
        return f"DispatchKeySet({', '.join(sorted(self.keys))})"


class _ExcludeDispatchKeyGuard(contextlib.nullcontext):
    """No-op guard: numtorch has no dispatcher."""

    def __init__(self, keyset=None):
        super().__init__()


def _dispatch_has_kernel_for_dispatch_key(name, key) -> bool:
    return False
