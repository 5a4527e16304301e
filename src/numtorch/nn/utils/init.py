"""``torch.nn.utils.skip_init``: build a module without running its parameter initialisation."""
from __future__ import annotations

import inspect

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with uninitialised parameters and buffers, as PyTorch: the module is
    built on the ``meta`` device (no memory, no draws from the generator), then ``to_empty`` on the
    ``device`` asked for (default cpu). The class must take a ``device`` argument.

    Raises TypeError when ``module_cls`` is not a class (Python's ``issubclass``, as PyTorch);
    RuntimeError when it is not a Module class or has no ``device`` argument.
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    return module_cls(*args, device="meta", **kwargs).to_empty(device=final_device)
