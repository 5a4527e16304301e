"""``torch.nn.utils.skip_init``: build a module without running its parameter initialisation."""
from __future__ import annotations

import inspect

from ... import _generator
from ...autograd.grad_mode import no_grad
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with uninitialised parameters and buffers, as PyTorch (which builds
    on the ``meta`` device, then ``to_empty``). Here the module is built normally and its tensors then
    emptied; the random state is restored afterwards, so like PyTorch it draws nothing from the
    generator. The class must take a ``device`` argument.

    Raises TypeError when ``module_cls`` is not a class (Python's ``issubclass``, as PyTorch);
    RuntimeError when it is not a Module class or has no ``device`` argument.
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    state = _generator.default_engine.get_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        _generator.default_engine.set_state(state)
    with no_grad():
        return module.to_empty(device=kwargs.get("device", "cpu"))
