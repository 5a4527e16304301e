"""The ``functorch`` package on numtorch (what ``import functorch`` loads under ``numtorch.alias``).

PyTorch 2.13 still ships ``functorch`` as deprecated wrappers around ``torch.func``: each call warns
a FutureWarning naming its replacement, then runs it. The same here: ``grad``, ``grad_and_value``,
``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap`` forward to ``numtorch.func``;
``make_functional``, ``make_functional_with_buffers`` and ``combine_state_for_ensemble`` (functorch's
own module API, replaced by ``torch.func.functional_call`` / ``stack_module_state``) are implemented
below. Not provided: ``functionalize``, ``make_fx``, ``functorch.compile``/``dim``/``experimental``.
"""
from __future__ import annotations

import copy
import warnings

from . import func as _func
from .func._functional_call import _swap
from .nn import Module
from ._ops.rearrange import stack
from .version import __version__  # noqa: F401  (functorch.__version__ is torch's)

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "make_functional",
           "make_functional_with_buffers", "combine_state_for_ensemble", "FunctionalModule",
           "FunctionalModuleWithBuffers", "replace_all_batch_norm_modules_"]


def _warn(api, new_api=None):
    new_api = new_api or f"torch.func.{api}"
    warnings.warn(f"We've integrated functorch into PyTorch. As the final step of the integration, `functorch.{api}` "
                  "is deprecated as of PyTorch 2.0 and will be deleted in a future version of PyTorch >= 2.3. Please "
                  f"use `{new_api}` instead; see the PyTorch 2.0 release notes and/or the `torch.func` migration "
                  "guide for more details https://pytorch.org/docs/main/func.migrating.html", FutureWarning,
                  stacklevel=3)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    _warn("vmap", "torch.vmap")
    return _func.vmap(func, in_dims, out_dims, randomness, chunk_size=chunk_size)


def grad(func, argnums=0, has_aux=False):
    _warn("grad")
    return _func.grad(func, argnums, has_aux)


def grad_and_value(func, argnums=0, has_aux=False):
    _warn("grad_and_value")
    return _func.grad_and_value(func, argnums, has_aux)


def vjp(func, *primals, has_aux=False):
    _warn("vjp")
    return _func.vjp(func, *primals, has_aux=has_aux)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    _warn("jvp")
    return _func.jvp(func, primals, tangents, strict=strict, has_aux=has_aux)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    _warn("jacrev")
    return _func.jacrev(func, argnums, has_aux=has_aux, chunk_size=chunk_size)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    _warn("jacfwd")
    return _func.jacfwd(func, argnums, has_aux, randomness=randomness)


def hessian(func, argnums=0):
    _warn("hessian")
    return _func.hessian(func, argnums=argnums)


replace_all_batch_norm_modules_ = _func.replace_all_batch_norm_modules_


# ------------------------------------------------------------------------------------------------
# make_functional: a stateless copy of the module called with explicit parameters (and buffers)
# ------------------------------------------------------------------------------------------------
def _members(named):
    """``(tensors, names, names_map)``: the unique tensors, their first names, and for each first name
    every name (tied ones included) it is reachable under."""
    unique = list(named(remove_duplicate=True))
    first = {id(t): n for n, t in unique}
    names_map = {n: [] for n, _ in unique}
    for n, t in named(remove_duplicate=False):
        names_map[first[id(t)]].append(n)
    return tuple(t for _, t in unique), tuple(n for n, _ in unique), names_map


def _submodule(root, path):
    for part in path.split(".")[:-1] if path else ():
        root = getattr(root, part)
    return root


def _swap_state(model, names_map, values):
    """Put ``values`` (one per entry of ``names_map``, in order) at every name; return the old ones."""
    old = []
    for (_, names), v in zip(names_map.items(), values):
        for i, name in enumerate(names):
            prev = _swap(_submodule(model, name), name.rpartition(".")[2], v)
            if i == 0:
                old.append(prev)
    return old


class FunctionalModule(Module):
    """``fmodel(params, *args, **kwargs)``: the wrapped model run with ``params`` (functorch)."""

    def __init__(self, stateless_model, param_names, names_map):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.names_map = names_map

    def forward(self, params, *args, **kwargs):
        old = _swap_state(self.stateless_model, self.names_map, params)
        try:
            return self.stateless_model(*args, **kwargs)
        finally:
            _swap_state(self.stateless_model, self.names_map, old)


class FunctionalModuleWithBuffers(Module):
    """``fmodel(params, buffers, *args, **kwargs)`` (functorch)."""

    def __init__(self, stateless_model, param_names, buffer_names, param_names_map, buffer_names_map):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.buffer_names = buffer_names
        self.all_names_map = dict(param_names_map)
        self.all_names_map.update(buffer_names_map)

    def forward(self, params, buffers, *args, **kwargs):
        old = _swap_state(self.stateless_model, self.all_names_map, tuple(params) + tuple(buffers))
        try:
            return self.stateless_model(*args, **kwargs)
        finally:
            _swap_state(self.stateless_model, self.all_names_map, old)


def _copy_params(model, disable_autograd_tracking):
    copy_ = copy.deepcopy(model)
    params, names, names_map = _members(copy_.named_parameters)
    if disable_autograd_tracking:
        for p in params:
            p.requires_grad_(False)
    return copy_, params, names, names_map


def make_functional(model, disable_autograd_tracking=False):
    """``(fmodel, params)`` (deprecated functorch API; use ``torch.func.functional_call``): ``fmodel``
    runs a deep copy of ``model`` with the given tuple of parameters. RuntimeError for a model with
    buffers (use ``make_functional_with_buffers``)."""
    _warn("make_functional", "torch.func.functional_call")
    if len(list(model.buffers())) > 0:
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    copy_, params, names, names_map = _copy_params(model, disable_autograd_tracking)
    return FunctionalModule(copy_, names, names_map), params


def _make_functional_with_buffers(model, disable_autograd_tracking=False):
    copy_, params, names, names_map = _copy_params(model, disable_autograd_tracking)
    buffers, buffer_names, buffer_names_map = _members(copy_.named_buffers)
    return FunctionalModuleWithBuffers(copy_, names, buffer_names, names_map, buffer_names_map), params, buffers


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """``(fmodel, params, buffers)`` (deprecated functorch API; use ``torch.func.functional_call``)."""
    _warn("make_functional_with_buffers", "torch.func.functional_call")
    return _make_functional_with_buffers(model, disable_autograd_tracking)


def combine_state_for_ensemble(models):
    """``(fmodel, params, buffers)`` with each parameter/buffer stacked over the models (deprecated;
    use ``torch.func.stack_module_state``). Same checks and RuntimeErrors as PyTorch."""
    _warn("combine_state_for_ensemble", "torch.func.stack_module_state")
    if len(models) == 0:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to be of the same class.")
    funcs, params, buffers = zip(*[_make_functional_with_buffers(m) for m in models])
    return (funcs[0], tuple(stack(s).detach() for s in zip(*params)),
            tuple(stack(s).detach() for s in zip(*buffers)))
