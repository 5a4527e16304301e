"""Module hooks (mirrors the hook half of ``torch/nn/modules/module.py``): the registries, the
``register_*_hook`` functions and methods, and calling a module with its hooks.

* **Global registries** (``register_module_forward_hook`` & co.): hooks run for every module,
  before the module's own; kept in the module-level ordered dicts below.
* **Per-module registration**: the bodies of ``Module.register_forward_hook`` & co. (``Module``
  binds these functions as its methods; the hook dicts themselves are made in ``Module.__init__``).
* **Calling** (``call_with_hooks``): ``Module.__call__`` runs ``forward`` directly when no hook is
  registered anywhere and this slow path otherwise. Full backward hooks are wired by
  ``_backward_hook.BackwardHook``: an identity autograd ``Function`` wraps the tensors entering and
  leaving ``forward``, and hooks on its two graph nodes see (and may replace) the gradients w.r.t.
  the module's outputs and inputs.
* **State-dict hooks**: registration only; ``state_dict``/``load_state_dict`` run them.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict
from functools import partial

from ..._tensor import Tensor
from ...autograd.hooks import RemovableHandle, add_hook
from ._backward_hook import BackwardHook

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook"]

# ================================================================================================
# Global hooks: run for every module, before the module's own hooks (debugging/profiling aids)
# ================================================================================================
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """``hook(module, args) -> None or new args`` before every module's forward (before its own hooks)."""
    return add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False) -> RemovableHandle:
    """``hook(module, args, output) -> None or new output`` after every module's forward."""
    handle = add_hook(_global_forward_hooks, hook,
                      extra=[_global_forward_hooks_with_kwargs, _global_forward_hooks_always_called])
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """``hook(module, grad_output) -> None or new grad_output`` for every module."""
    return add_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """``hook(module, grad_input, grad_output) -> None or new grad_input`` for every module."""
    return add_hook(_global_backward_hooks, hook)


# ================================================================================================
# Per-module registration: the bodies of Module.register_*_hook
# ================================================================================================
def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False) -> RemovableHandle:
    """``hook(module, args) -> None or new args`` before ``forward`` (a non-tuple is wrapped).

    With ``with_kwargs=True``: ``hook(module, args, kwargs) -> None or (args, kwargs)``.
    ``prepend=True`` runs it before the hooks already registered (global ones still come first).
    """
    handle = add_hook(self._forward_pre_hooks, hook, extra=self._forward_pre_hooks_with_kwargs)
    if with_kwargs:
        self._forward_pre_hooks_with_kwargs[handle.id] = True
    if prepend:
        self._forward_pre_hooks.move_to_end(handle.id, last=False)
    return handle


def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
    """``hook(module, args, output) -> None or new output`` after ``forward``.

    ``with_kwargs=True``: ``hook(module, args, kwargs, output)``; ``always_call=True`` also runs
    it when forward (or an earlier hook) raises; ``prepend`` as for pre-hooks.
    """
    handle = add_hook(self._forward_hooks, hook,
                      extra=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    if prepend:
        self._forward_hooks.move_to_end(handle.id, last=False)
    return handle


def _set_backward_kind(self, full: bool):
    if self._is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single "
                           "Module. Please use only one of them.")
    self._is_full_backward_hook = full


def register_full_backward_pre_hook(self, hook, prepend=False) -> RemovableHandle:
    """``hook(module, grad_output) -> None or new grad_output`` when the output gradients arrive."""
    handle = add_hook(self._backward_pre_hooks, hook)
    if prepend:
        self._backward_pre_hooks.move_to_end(handle.id, last=False)
    return handle


def register_full_backward_hook(self, hook, prepend=False) -> RemovableHandle:
    """``hook(module, grad_input, grad_output) -> None or new grad_input``.

    Fires when the gradients w.r.t. the positional inputs are computed (or, if no input requires
    grad, w.r.t. the outputs, with ``grad_input`` all None). Entries for non-tensor arguments are
    None. The module's forward sees identity views of its tensor inputs, as in PyTorch.
    """
    self._set_backward_kind(True)
    handle = add_hook(self._backward_hooks, hook)
    if prepend:
        self._backward_hooks.move_to_end(handle.id, last=False)
    return handle


def register_backward_hook(self, hook) -> RemovableHandle:
    """Deprecated: a hook on the ``grad_fn`` of the output (the last op only); prefer the full hook."""
    self._set_backward_kind(False)
    return add_hook(self._backward_hooks, hook)


def _get_backward_hooks(self):
    """The (full, legacy) backward hooks for one call; global hooks (all full) come first."""
    own = list(self._backward_hooks.values())
    full = [*_global_backward_hooks.values(), *(own if self._is_full_backward_hook else ())]
    return full, (own if self._is_full_backward_hook is False else [])


def register_state_dict_pre_hook(self, hook) -> RemovableHandle:
    """``hook(module, prefix, keep_vars) -> None`` before this module's ``state_dict`` runs."""
    return add_hook(self._state_dict_pre_hooks, hook)


def _register_state_dict_hook(self, hook) -> RemovableHandle:
    """``hook(module, state_dict, prefix, local_metadata) -> None or new state_dict`` (private API)."""
    if getattr(hook, "_from_public_api", False):
        raise RuntimeError("Cannot register the same function as the state dict post hook that was previously "
                           "registered via register_state_dict_post_hook")
    return add_hook(self._state_dict_hooks, hook)


def register_state_dict_post_hook(self, hook) -> RemovableHandle:
    """``hook(module, state_dict, prefix, local_metadata) -> None``; may edit ``state_dict`` in place."""
    hook._from_public_api = True
    return add_hook(self._state_dict_hooks, hook)


def _register_load_state_dict_pre_hook(self, hook, with_module=False) -> RemovableHandle:
    """``hook([module,] state_dict, prefix, local_metadata, strict, missing, unexpected, errors)``."""
    return add_hook(self._load_state_dict_pre_hooks, partial(hook, self) if with_module else hook)


def register_load_state_dict_pre_hook(self, hook) -> RemovableHandle:
    """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
    error_msgs)`` before this module loads its entries."""
    return self._register_load_state_dict_pre_hook(hook, with_module=True)


def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
    """``hook(module, incompatible_keys) -> None`` after this module and its children loaded;
    editing ``incompatible_keys`` in place changes what ``strict=True`` reports."""
    return add_hook(self._load_state_dict_post_hooks, hook)


# ================================================================================================
# Calling a module that has hooks
# ================================================================================================
def call_with_hooks(self, args, kwargs):
    """``module(*args, **kwargs)`` when some hook is registered: forward pre-hooks (global, then the
    module's), full-backward-hook wiring of the inputs, ``forward``, forward hooks, wiring of the
    outputs, legacy backward hooks; in PyTorch's order. ``always_call`` hooks run even when forward
    (or an earlier hook) raises; their own errors then become warnings."""
    forward_call = self.forward
    result = None
    called_always = set()

    def run():
        nonlocal result, args, kwargs
        pre_bw = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
        full_bw, non_full_bw = self._get_backward_hooks()
        # each hook list is frozen when its loop starts: a hook removing hooks affects later calls
        for hook_id, hook in (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                res = hook(self, args, kwargs)
                if res is not None:
                    if not (isinstance(res, tuple) and len(res) == 2):
                        raise RuntimeError(f"forward pre-hook must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {res}.")
                    args, kwargs = res
            else:
                res = hook(self, args)
                if res is not None:
                    args = res if isinstance(res, tuple) else (res,)
        bw_hook = None
        if full_bw or pre_bw:
            bw_hook = BackwardHook(self, full_bw, pre_bw)
            args = bw_hook.setup_input_hook(args)
        result = forward_call(*args, **kwargs)
        for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
            if hook_id in self._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called:
                called_always.add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                res = hook(self, args, kwargs, result)
            else:
                res = hook(self, args, result)
            if res is not None:
                result = res
        if bw_hook is not None:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple "
                              f"of Tensors but received {type(result)}", stacklevel=4)  # the module's caller
            result = bw_hook.setup_output_hook(result)
        if non_full_bw:
            var = result
            while not isinstance(var, Tensor):
                var = next(v for v in var.values() if isinstance(v, Tensor)) if isinstance(var, dict) else var[0]
            if var.grad_fn is not None:
                for hook in non_full_bw:
                    var.grad_fn.register_hook(partial(hook, self))
        return result

    try:
        return run()
    except Exception:
        # always_call hooks that have not run yet still run; their own errors become warnings
        pending = [(hid, h, False) for hid, h in _global_forward_hooks.items()
                   if hid in _global_forward_hooks_always_called and hid not in called_always]
        pending += [(hid, h, True) for hid, h in self._forward_hooks.items()
                    if hid in self._forward_hooks_always_called and hid not in called_always]
        for hook_id, hook, own in pending:
            try:
                with_kwargs = own and hook_id in self._forward_hooks_with_kwargs
                res = hook(self, args, kwargs, result) if with_kwargs else hook(self, args, result)
                if res is not None:
                    result = res
            except Exception as e:
                warnings.warn(f"{'module' if own else 'global module'} forward hook with ``always_call=True`` "
                              f"raised an exception that was silenced as another error was raised in forward: "
                              f"{e}", stacklevel=3)
        raise
