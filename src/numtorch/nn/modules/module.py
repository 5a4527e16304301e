"""``nn.Module``, the base class of every layer and model (mirrors ``torch/nn/modules/module.py``).

A Module is a tree of named state. The hook plumbing (global registries, the bodies of the
``register_*_hook`` methods, calling a module that has hooks, full-backward-hook wiring) lives in
``_hooks.py`` and ``_backward_hook.py``; this file keeps the state and its routing. Reading top to
bottom:

* **State** (``__init__``): three insertion-ordered dicts, ``_parameters``, ``_buffers`` and
  ``_modules``, plus the set of non-persistent buffer names and one ordered dict per hook kind.
* **Registration and attribute routing** (``register_parameter``, ``register_buffer``,
  ``add_module``, ``__setattr__``, ``__getattr__``, ``__delattr__``): ``self.x = value`` files a
  Parameter under ``_parameters``, a Module under ``_modules``, a tensor assigned over a buffer
  name under ``_buffers``; anything else is a plain attribute. Lookups fall back to the dicts.
* **Hooks and calling** (``register_*_hook``, ``__call__``): the registration methods are the
  functions of ``_hooks.py``, bound here; ``__call__`` runs ``forward`` directly when no hook is
  registered anywhere, else ``_hooks.call_with_hooks`` (pre-hooks, ``forward``, hooks, in
  PyTorch's order, with full backward hooks wired around ``forward``).
* **Traversal** (``_named_members``, ``named_modules``): one generic walk, insertion-ordered and
  deduplicated by identity, behind ``parameters``, ``buffers``, ``children`` and ``modules``.
* **Serialization** (``state_dict``, ``load_state_dict``): a flat OrderedDict keyed by dotted
  paths (``features.0.weight``); loading copies in place so that parameter objects, and hence
  optimizers, stay valid. ``_save_to_state_dict`` / ``_load_from_state_dict`` are the per-module
  override points.
* **Conversion** (``_apply``): one function behind ``to``, ``float``, ``double``, ``cpu``, ...;
  it swaps the data inside each Parameter (``param.data = ...``) so identities are kept.
* **Modes, repr, pickling**: ``train``/``eval``, ``zero_grad``, the nested ``__repr__``,
  ``__getstate__``/``__setstate__``.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..._device import check
from ..._dtype import dtype as _Dtype
from ..._ops.creation import empty_like
from ..._tensor import Tensor, _make
from ...autograd.grad_mode import no_grad
from ..parameter import Buffer, Parameter, is_lazy
from . import _hooks
from ._hooks import (_global_backward_hooks, _global_backward_pre_hooks, _global_forward_hooks,
                     _global_forward_pre_hooks, call_with_hooks, register_module_forward_hook,
                     register_module_forward_pre_hook, register_module_full_backward_hook,
                     register_module_full_backward_pre_hook)

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: ``(missing_keys, unexpected_keys)``."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s, num_spaces):
    """Indent every line but the first (blank lines stay empty); used by the nested repr."""
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join((" " * num_spaces + ln) if ln.strip() else "" for ln in lines[1:])


def _typename(obj) -> str:
    """``torch.typename``: ``'torch.FloatTensor'`` for tensors, else the qualified type name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = type(obj).__module__ or "", type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _forward_unimplemented(self, *input):
    """Define the computation performed at every call; every subclass overrides it."""
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module:
    """Base class for all neural network modules (mirrors ``torch.nn.Module``).

    Subclass it, call ``super().__init__()`` first, assign Parameters, buffers and submodules as
    attributes, and define ``forward``; call the module (not ``forward``) so hooks run::

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x).relu()

    Where the methods are (``numtorch/nn/modules/``):

    * ``module.py``: state (``__init__``), registration (``register_parameter``, ``register_buffer``,
      ``add_module``, ``get_submodule``...), attribute routing (``__setattr__``, ``__getattr__``,
      ``__delattr__``), calling (``__call__``: its fast path), traversal (``parameters``,
      ``named_modules``, ``children``...), serialization (``state_dict``, ``load_state_dict``),
      conversion (``_apply``, ``to``, ``float``...), modes (``train``, ``eval``, ``zero_grad``),
      ``__repr__`` and pickling.
    * ``_hooks.py``: every ``register_*_hook`` method (forward, forward pre, full backward, backward
      pre, legacy backward, state-dict and load-state-dict hooks), the global
      ``register_module_*_hook`` registries, and ``call_with_hooks``, ``__call__`` when hooks exist.
    * ``_backward_hook.py``: ``BackwardHook``, the graph wiring behind full backward hooks.
    """

    dump_patches = False
    _version = 1  # bumped by a subclass when its state_dict format changes; saved in _metadata
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} "
                            f"were given")
        # written to __dict__ directly: our __setattr__ needs these dicts to exist
        d = self.__dict__
        d.update(training=True, _parameters={}, _buffers={}, _non_persistent_buffers_set=set(),
                 _is_full_backward_hook=None, _backward_pre_hooks=OrderedDict(), _backward_hooks=OrderedDict(),
                 _forward_hooks=OrderedDict(), _forward_hooks_with_kwargs=OrderedDict(),
                 _forward_hooks_always_called=OrderedDict(), _forward_pre_hooks=OrderedDict(),
                 _forward_pre_hooks_with_kwargs=OrderedDict(), _state_dict_hooks=OrderedDict(),
                 _state_dict_pre_hooks=OrderedDict(), _load_state_dict_pre_hooks=OrderedDict(),
                 _load_state_dict_post_hooks=OrderedDict())
        d["_modules"] = {}
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ------------------------------------------------------------------ registration
    def _check_name(self, kind, name, table):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError(f"{kind} name can't contain \".\"")
        if name == "":
            raise KeyError(f"{kind} name can't be empty string \"\"")
        if hasattr(self, name) and name not in table:
            raise KeyError(f"attribute '{name}' already exists")

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Add a buffer: state that is not a parameter (BatchNorm's ``running_mean``); ``None`` = empty slot.

        ``persistent=False`` keeps it out of ``state_dict``. AttributeError before ``Module.__init__()``;
        TypeError for a non-string name or a non-tensor value; KeyError for an empty or dotted name or
        one that clashes with an existing attribute.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name("buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            f"(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param) -> None:
        """Add a Parameter (or a ``None`` slot) under ``name``.

        Errors as ``register_buffer``, plus TypeError when ``param`` is a plain Tensor and
        ValueError for a non-leaf Parameter (one with a ``grad_fn``).
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name("parameter", name, self._parameters)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            f"(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                             f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                             f"the value in the forward() method.")
        self._parameters[name] = param

    def add_module(self, name: str, module) -> None:
        """Add a child module (or a ``None`` slot), reachable as ``self.<name>``.

        TypeError when ``module`` is not a Module or ``name`` not a string; KeyError for a name
        that clashes with an attribute, contains "." or is empty.
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module

    def register_module(self, name: str, module) -> None:
        """Alias for ``add_module``."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> "Module":
        """The submodule at dotted path ``target`` (``""`` is self); AttributeError naming the bad step."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        """Replace (or, unless ``strict``, create) the submodule at dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def _get_leaf(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        return mod, name, getattr(mod, name)

    def get_parameter(self, target: str) -> Parameter:
        """The Parameter at dotted path ``target``; AttributeError if absent or not a Parameter."""
        _, name, param = self._get_leaf(target)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target``; AttributeError if absent or not a buffer."""
        mod, name, buf = self._get_leaf(target)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return buf

    def get_extra_state(self):
        """Override (with ``set_extra_state``) to store non-tensor state under ``<prefix>_extra_state``."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called.")

    def set_extra_state(self, state) -> None:
        """Override (with ``get_extra_state``) to restore what ``get_extra_state`` returned."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called.")

    # ------------------------------------------------------------------ attribute routing
    def __getattr__(self, name: str):
        # only called when ordinary lookup fails: parameters, buffers, submodules
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        def remove_from(*containers):
            for c in containers:
                if name in c:
                    if isinstance(c, dict):
                        del c[name]
                    else:
                        c.discard(name)

        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                f"(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                    f"(torch.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = d.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        f"(torch.nn.Buffer, torch.Tensor or None expected)")
                    persistent = (value.persistent if isinstance(value, Buffer)
                                  else name not in self._non_persistent_buffers_set)
                    self.register_buffer(name, value, persistent)
                else:
                    super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__) + list(self._parameters) + list(self._modules)
                + list(self._buffers))
        return sorted(k for k in keys if not k[0].isdigit())

    # ------------------------------------------------------------------ hooks (bodies in _hooks.py)
    register_forward_pre_hook = _hooks.register_forward_pre_hook
    register_forward_hook = _hooks.register_forward_hook
    register_full_backward_pre_hook = _hooks.register_full_backward_pre_hook
    register_full_backward_hook = _hooks.register_full_backward_hook
    register_backward_hook = _hooks.register_backward_hook
    _set_backward_kind = _hooks._set_backward_kind
    _get_backward_hooks = _hooks._get_backward_hooks
    register_state_dict_pre_hook = _hooks.register_state_dict_pre_hook
    _register_state_dict_hook = _hooks._register_state_dict_hook
    register_state_dict_post_hook = _hooks.register_state_dict_post_hook
    _register_load_state_dict_pre_hook = _hooks._register_load_state_dict_pre_hook
    register_load_state_dict_pre_hook = _hooks.register_load_state_dict_pre_hook
    register_load_state_dict_post_hook = _hooks.register_load_state_dict_post_hook

    # ------------------------------------------------------------------ calling
    def _call_impl(self, *args, **kwargs):
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks or self._forward_pre_hooks
                or _global_backward_pre_hooks or _global_backward_hooks or _global_forward_hooks
                or _global_forward_pre_hooks):
            return self.forward(*args, **kwargs)  # the fast path: no hooks anywhere
        return call_with_hooks(self, args, kwargs)

    __call__ = _call_impl

    # ------------------------------------------------------------------ traversal
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        """The one generic walk: ``(dotted name, member)`` over every module's members, deduplicated."""
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse: bool = True):
        """Iterator over parameters (each shared Parameter once), the order an optimizer sees."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """Iterator over ``(name, Parameter)``; names are dotted paths like ``"0.weight"``."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True):
        """Iterator over buffers (persistent or not)."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """Iterator over ``(name, buffer)``."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def children(self):
        """Iterator over immediate child modules."""
        for _, module in self.named_children():
            yield module

    def named_children(self):
        """Iterator over ``(name, child)``; a child registered under two names appears once."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True):
        """Iterator over all modules in the tree, self first (pre-order)."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """Iterator over ``(dotted name, module)``, self first as ``(prefix, self)``."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    # ------------------------------------------------------------------ state_dict
    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        """Write this module's own parameters and persistent buffers (not its children's)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of the whole state: parameters, then persistent buffers, then children.

        Keys are dotted paths (``"features.0.weight"``); values are detached tensors sharing
        memory with the module (the live objects with ``keep_vars=True``); ``None`` slots are
        skipped. ``state_dict._metadata[module_path] == {"version": module._version}``.
        """
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to https://pytorch.org/"
                          "docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict for details.",
                          FutureWarning, stacklevel=2)
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            res = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if res is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif res is not None:
                destination = res
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        """Load this module's own entries (not its children's) from ``state_dict``.

        The override point for version upgrades (``local_metadata.get("version")``). Appends to
        ``missing_keys``/``unexpected_keys`` (when ``strict``) and to ``error_msgs`` instead of raising.
        """
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        local_state.update((k, v) for k, v in self._buffers.items()
                           if v is not None and k not in self._non_persistent_buffers_set)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                                  f"object from checkpoint but received {type(input_param)}")
                continue
            if is_lazy(param) and is_lazy(input_param):  # placeholder into placeholder: nothing to copy
                continue
            if param.ndim == 0 and input_param.shape == (1,):  # an old checkpoint's 1-element scalar
                input_param = _make(input_param._data.reshape(()))
            if input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if not isinstance(input_param, Parameter):
                                input_param = Parameter(input_param, requires_grad=param.requires_grad)
                            else:
                                input_param.requires_grad_(param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        if not is_lazy(param) and param.is_meta and not input_param.is_meta:
                            warnings.warn(f"for {key}: copying from a non-meta parameter in the checkpoint to a meta "
                                          f"parameter in the current model, which is a no-op. (Did you mean to pass "
                                          f"`assign=True` to assign items in the state dictionary to their "
                                          f"corresponding key in the module instead of copying them in place?)",
                                          stacklevel=2)
                        param.copy_(input_param)
            except Exception as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.size()} and whose dimensions in the checkpoint are {input_param.size()}, "
                                  f"an exception occurred : {ex.args}.")
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head, *rest = key[len(prefix):].split(".", 1)
                    if (rest and head not in self._modules) or (not rest and head not in local_state):
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy parameters and persistent buffers from ``state_dict`` into this module and its children.

        By default tensors are copied in place under ``no_grad`` (dtype cast as ``copy_`` does), so
        every Parameter object survives and an optimizer built on it stays valid. ``assign=True``
        installs the given tensors instead (wrapped as Parameters keeping the module's
        ``requires_grad``). Returns ``_IncompatibleKeys(missing_keys, unexpected_keys)``.

        Every problem is collected and reported in one RuntimeError ``"Error(s) in loading
        state_dict for <Class>:\\n\\t..."``: missing and unexpected keys (only when ``strict``), and
        shape mismatches or non-tensor values (always, even with ``strict=False``). TypeError when
        ``state_dict`` is not a Mapping.

        What a failed load leaves behind (as in PyTorch): errors are raised only after the whole
        tree has been visited, so every entry that could be copied *has* been copied; only the
        mismatched entries keep their old values. The module is therefore in a mixed state; load
        into a fresh module (or reload a good checkpoint) after a failure.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = dict({} if metadata is None else metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            # per-module checks always run strict; `strict` only decides what is reported below
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                         child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if incompatible_keys need to be modified, "
                                         "it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ------------------------------------------------------------------ conversion
    def _apply(self, fn, recurse=True):
        """Apply ``fn`` to every parameter, gradient and buffer (children first), keeping identities.

        A Parameter keeps its identity (its data is swapped, as PyTorch's ``param.data = ...``), so
        optimizers built before ``model.double()`` still hold the right objects; so does its
        ``.grad``. A move between devices (cpu and meta) makes a new Parameter instead (keeping
        ``requires_grad``), as PyTorch does when the tensor types differ. Buffers are replaced by
        ``fn(buffer)``.
        """
        if recurse:
            for module in self.children():
                module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                param_applied = fn(param)
            grad = param.grad
            if not is_lazy(param) and param_applied.is_meta != param.is_meta:  # another device: a new Parameter
                new = self._parameters[key] = Parameter(param_applied, param.requires_grad)
                if grad is not None:
                    with no_grad():
                        new.grad = fn(grad).requires_grad_(grad.requires_grad)
                continue
            param.data = param_applied
            if grad is not None:
                with no_grad():
                    grad.data = fn(grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn):
        """Call ``fn(module)`` on every submodule (children first, recursively) and then self; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        """``to(device=None, dtype=None, non_blocking=False)``, ``to(dtype)``, ``to(tensor)``; returns self.

        Casts floating-point (and complex) parameters and buffers only; integer buffers keep their
        dtype. TypeError for a non-floating ``dtype``; RuntimeError for a device without a backend.
        """
        device, dtype = kwargs.get("device"), kwargs.get("dtype")
        for a in args:
            if isinstance(a, Tensor):
                device, dtype = a.device, a.dtype
            elif isinstance(a, _Dtype):
                dtype = a
            elif isinstance(a, bool) or a is None:
                pass  # non_blocking
            else:
                device = a
        device = None if device is None else check(device)
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                                f"dtype={dtype}")
            if dtype.is_complex:
                warnings.warn("Complex modules are a new feature under active development whose design may change, "
                              "and some modules might not work as expected when using complex tensors as "
                              "parameters or buffers.", stacklevel=2)

        def convert(t):
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                return t.to(device, dtype)
            return t if device is None else t.to(device)
        return self._apply(convert)

    def cpu(self):
        """Move parameters and buffers to the CPU (where they already are); returns self."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        """Move parameters and buffers to the GPU: RuntimeError until numtorch has a GPU backend."""
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type):
        """Cast every parameter and buffer (integer ones too) to ``dst_type``; returns self."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        """Cast floating-point parameters and buffers to float32; returns self."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Cast floating-point parameters and buffers to float64; returns self."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        """Cast floating-point parameters and buffers to float16; returns self."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        """Cast floating-point parameters and buffers to bfloat16; returns self."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse: bool = True):
        """Replace every parameter and buffer by an uninitialized tensor of the same shape and dtype on
        ``device`` (``None``: each tensor's own), without copying values (``Module.to_empty``): the way to
        materialize a module built on the ``meta`` device, before ``reset_parameters()`` or
        ``load_state_dict``. With ``recurse=False`` only this module's own tensors."""
        device = None if device is None else check(device)
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def compile(self, *args, **kwargs) -> None:
        """``Module.compile``: PyTorch compiles ``forward`` with ``torch.compile``; numtorch has no compiler
        (``torch.compile`` returns its argument), so calls run as before."""

    def share_memory(self):
        """No-op (returns self): numtorch's arrays already live in this process's memory."""
        return self

    # ------------------------------------------------------------------ modes and gradients
    def train(self, mode: bool = True):
        """Set training mode on self and every descendant (Dropout, BatchNorm react); returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """``train(False)``; returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True):
        """Set ``requires_grad`` on every parameter (freezing/unfreezing); returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset parameter gradients: to None (default) or, with ``set_to_none=False``, zero in place."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    # ------------------------------------------------------------------ repr and pickling
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self) -> str:
        """One or more lines shown inside this module's repr (e.g. ``in_features=4, ...``); override it."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __getstate__(self):
        return self.__dict__.copy()

    def __setstate__(self, state):
        d = self.__dict__
        d.update(state)
        fresh = object.__new__(Module)  # modules pickled by older versions may lack newer tables
        Module.__init__(fresh)
        for name, value in fresh.__dict__.items():
            if name != "training":
                d.setdefault(name, value)
