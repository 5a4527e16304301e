"""``torch.func.functional_call`` and ``stack_module_state`` (mirrors ``torch._functorch.functional_call``
and ``torch.nn.utils.stateless``).

``functional_call`` runs a module with some of its parameters and buffers replaced by given tensors:
each name ``"a.b.weight"`` is swapped into the submodule's ``_parameters``/``_buffers`` dict (or set as
an attribute), the module is called, and the originals are put back, also when the call raises.
This package sits below ``nn`` in numtorch's layers, so modules are handled by duck typing
(``named_parameters``, ``named_buffers``, ``_parameters``, ``_buffers``, ``_get_name``).
"""
from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager

from .._tensor import Tensor
from .._ops.rearrange import stack

__all__ = ["functional_call", "stack_module_state"]

_MISSING = object()


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with its parameters and buffers replaced by ``parameter_and_buffer_dicts``
    (a dict name -> Tensor, or a sequence of dicts with distinct keys). ``args`` that is not a tuple is
    one argument. ``tie_weights``: a value given for one of several tied names (``named_parameters
    (remove_duplicate=False)`` names of the same tensor) is used for all of them (ValueError for
    different values for tied names). ``strict``: RuntimeError naming missing and unexpected keys.
    The module's own tensors are back in place afterwards, even when the call raises."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is "
                             "ambiguous")
        values = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, values, tie_weights, strict):
        return module(*args, **kwargs)


def _named_tensors(module):
    names = dict(module.named_parameters(remove_duplicate=False))
    names.update(module.named_buffers(remove_duplicate=False))
    return names


def _untie(module, values):
    """``values`` with every tied name filled in from the one given (PyTorch's ``_untie_named_tensors_map``)."""
    by_tensor = {}
    for name, t in _named_tensors(module).items():
        by_tensor.setdefault(id(t), set()).add(name)
    tied = {n: names for names in by_tensor.values() if len(names) > 1 for n in names}
    given = [n for n in values if n in tied]
    for n in given:
        names = tied[n]
        if len(names.intersection(given)) > 1 and len({id(values[m]) for m in names if m in values}) != 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, which are tied. "
                             "Consider using tie_weights=False")
    out = dict(values)
    for n in given:
        for m in tied[n]:
            out[m] = values[n]
    return out


def _submodule(module, path, memo):
    if not path:
        return module
    if path not in memo:
        prefix, _, attr = path.rpartition(".")
        parent = _submodule(module, prefix, memo)
        try:
            memo[path] = getattr(parent, attr)
        except AttributeError as e:
            raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from e
    return memo[path]


def _swap(module, name, tensor):
    """Put ``tensor`` (or ``_MISSING``: remove) at ``name`` of ``module``; return what was there."""
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    for store in (module._parameters, module._buffers):
        if name in store:
            orig = store[name]
            if tensor is _MISSING:
                del store[name]
            else:
                store[name] = tensor
            return orig
    orig = getattr(module, name, _MISSING)
    if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return orig


def _swap_all(module, values, memo):
    done = {}
    try:
        for path, t in values.items():
            prefix, _, attr = path.rpartition(".")
            done[path] = _swap(_submodule(module, prefix, memo), attr, t)
    except Exception:
        _swap_back(module, done, memo)
        raise
    return done


def _swap_back(module, done, memo):
    for path, t in done.items():
        prefix, _, attr = path.rpartition(".")
        _swap(_submodule(module, prefix, memo), attr, t)


@contextmanager
def _reparametrize(module, values, tie_weights, strict):
    if tie_weights:
        values = _untie(module, values)
    if strict:
        valid = set(_named_tensors(module))
        missing, unexpected = sorted(valid - set(values)), sorted(set(values) - valid)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                                 "\n\t".join(msgs)))
    memo = {}
    done = _swap_all(module, values, memo)
    try:
        yield
    finally:
        _swap_back(module, done, memo)


def stack_module_state(models):
    """``(params, buffers)``: for ``M`` modules of one class and one training mode, dicts name -> the
    ``M`` tensors stacked on a new dim 0 (``torch.func.stack_module_state``, for ensembling with vmap).
    Stacked parameters are new leaves that require grad (when the originals do). RuntimeError for no
    models, mixed classes or modes, or mixed ``requires_grad``."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    typ = type(models[0])
    if not all(type(m) is typ for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors, name):
    rg = [t.requires_grad for t in tensors]
    if any(rg) and not all(rg):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    out = stack(tensors)
    return out.detach().requires_grad_() if all(rg) else out
