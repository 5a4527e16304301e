"""The ``Optimizer`` base class (mirrors ``torch.optim.Optimizer``).

An optimizer holds ``param_groups`` (a list of dicts: ``"params"`` plus that group's options) and
``state`` (a ``defaultdict(dict)`` keyed by parameter). Options are read from the group dicts at every
step, so ``group["lr"] = x`` (what LR schedulers do) takes effect at once. ``state_dict()`` packs both
into PyTorch's layout, parameters replaced by their index in insertion order across groups, so a state
saved by PyTorch loads here and the reverse.

``Optimizer.step`` is the one per-parameter loop every optimizer here shares (PyTorch's ``_init_group``
and per-tensor loop): subclasses give their fresh state (``_new_state``) and their update
(``_update``), which writes with NumPy ufuncs in place (``out=``) into ``p._data``, the parameter's own
ndarray: neither the Parameter object nor its array ever changes identity, and work buffers
(:meth:`Optimizer._work`) are reused across steps instead of allocated per step.
"""
from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

import numpy as np

from .. import _backend as B
from .._tensor import Tensor, _make
from .._tensor_sparse import SparseCOO
from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.hooks import RemovableHandle

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marker for an option with no default that every param group must give."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj) -> str:
    """``torch.typename``: ``"torch.FloatTensor"`` for a Tensor, else the type's name."""
    return obj.dtype._tensor_type if isinstance(obj, Tensor) else type(obj).__name__


def _to_scalar(x):
    """A Python number for an option that may be given as a one-element Tensor (``lr=torch.tensor(0.1)``)."""
    return x.item() if isinstance(x, Tensor) else x


def _check_lr(lr) -> None:
    """PyTorch's ValueErrors for a learning rate: a Tensor of more than one element, or a negative value."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _no_grad_step(step):
    """Decorator for ``step(closure=None)``: the update runs under ``no_grad`` and the closure (which
    re-computes the loss, usually calling ``backward``) runs under ``enable_grad``, as in PyTorch."""

    @functools.wraps(step)
    def wrapper(self, closure=None):
        if closure is not None:
            user_closure = closure

            def closure():
                with enable_grad():
                    return user_closure()
        with no_grad():
            return step(self, closure)

    return wrapper


def _hooked(step):
    """Wrap a class's ``step`` so that step pre/post hooks run around it (done once per class)."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        for hook in list(self._optimizer_step_pre_hooks.values()):
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but got "
                                       f"{result}.")
                args, kwargs = result
        out = step(self, *args, **kwargs)
        for hook in list(self._optimizer_step_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


class Optimizer:
    """Base class of all optimizers (``torch.optim.Optimizer``).

    Args:
        params: an iterable of Tensors, of ``(name, Tensor)`` pairs, or of dicts each holding
            ``"params"`` and per-group options that override ``defaults``.
        defaults: the default value of every option.

    Raises:
        TypeError: ``params`` is a single Tensor or a set (sets have no stable order, and the
            optimizer state is matched to parameters by order).
        ValueError: ``params`` is empty, or a parameter appears in two groups.
    """

    # (option, value) pairs filled into param groups that lack them (saved by older versions)
    _group_fallbacks: tuple = ()
    # the zero buffers (shaped like the parameter) of a fresh state, next to its ``step`` counter
    _state_buffers: tuple = ()

    def __init__(self, params, defaults: dict) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()
        if isinstance(params, (Tensor, set, frozenset)):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def _patch_step_function(self) -> None:
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _hooked(cls.step)

    # ------------------------------------------------------------------ pickling and printing
    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                     "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            self.__dict__.setdefault(name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)
        for st in self.state.values():  # older checkpoints stored ``step`` as a Python number
            if isinstance(st, dict) and "step" in st and not isinstance(st["step"], Tensor):
                st["step"] = _step_tensor(float(st["step"]))
        for group in self.param_groups:
            for k, v in self._group_fallbacks:
                group.setdefault(k, v)

    def __repr__(self):
        lines = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {k}: {group[k]}" for k in sorted(group) if k != "params"]
        return "\n".join(lines) + "\n)"

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict) -> None:
        """Append a group (``{"params": [...], option: value, ...}``); missing options take ``defaults``.

        Raises TypeError for a non-dict group, a set of params or a non-Tensor param; ValueError for a
        non-leaf param, a missing required option, or params already in another group.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = params
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ gradients and stepping
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to None (default), or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g._data.fill(0)
                    g._vc[0] += 1

    @_no_grad_step
    def step(self, closure=None):
        """Perform one optimization step; ``closure`` re-evaluates the model and returns the loss.

        For each parameter that has a ``.grad``, group by group: its state, filled by ``_new_state``
        on first use (none when ``_keeps_state(group)`` is false); its ``step`` counter, bumped;
        decoupled weight decay (``theta *= 1 - lr * weight_decay``, for groups with
        ``decoupled_weight_decay``); then ``_update`` with the effective gradient
        (:meth:`_grad_with_decay`). A subclass that defines no ``_update`` must override ``step``.
        """
        if type(self)._update is Optimizer._update:
            raise NotImplementedError
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            wd, maximize = group.get("weight_decay", 0), group["maximize"]  # Rprop has no weight decay
            decoupled = wd != 0 and group.get("decoupled_weight_decay", False)
            keeps_state = self._keeps_state(group)
            for p in group["params"]:
                if p.grad is None:
                    continue
                if type(p.grad._data) is SparseCOO:  # nn.Embedding(sparse=True) & co.: see _sparse_update
                    self._sparse_update(group, lr, p, self.state[p] if keeps_state else None)
                    p._vc[0] += 1
                    continue
                state = t = None
                if keeps_state:
                    state = self.state[p]
                    if len(state) == 0:
                        state.update(self._new_state(p, group))
                    if "step" in state:
                        t = _bump(state["step"])
                x = _real(p._data)
                if decoupled:
                    np.multiply(x, x.dtype.type(1 - lr * wd), out=x)
                d = self._grad_with_decay(x, _real(p.grad._data), 0 if decoupled else wd, maximize)
                self._update(group, lr, p, x, d, state, t)
                p._vc[0] += 1
        return loss

    # PyTorch's RuntimeError for a sparse gradient ({name}: the class name); None where PyTorch has a
    # sparse update that numtorch lacks (NotImplementedError)
    _sparse_refusal = "{name} does not support sparse gradients"

    def _sparse_update(self, group: dict, lr: float, p: Tensor, state) -> None:
        """Update ``p`` from its sparse COO ``.grad`` (``state``: its state dict, None when not kept); by
        default refused as PyTorch refuses it."""
        if self._sparse_refusal is None:
            raise NotImplementedError(f"numtorch's {type(self).__name__} has no update for sparse gradients")
        raise RuntimeError(self._sparse_refusal.format(name=type(self).__name__))

    def _keeps_state(self, group) -> bool:
        """Whether parameters of ``group`` have per-parameter state (SGD without momentum has none)."""
        return True

    def _new_state(self, p: Tensor, group: dict) -> dict:
        """The state of parameter ``p`` before its first step: by default a ``step`` counter and
        the zero buffers named in ``_state_buffers``."""
        return _fresh_state(p, *self._state_buffers)

    def _update(self, group: dict, lr: float, p: Tensor, x: np.ndarray, d: np.ndarray, state, t) -> None:
        """Update ``x`` (``p._data``, complex viewed as real pairs) in place from the effective
        gradient ``d`` (read-only); ``state`` is ``p``'s state dict (None when not kept) and ``t``
        the new step count (None without a ``step`` counter)."""
        raise NotImplementedError

    def _work(self, like: np.ndarray, k: int = 0) -> np.ndarray:
        """Scratch buffer ``k`` shaped like ``like``: a view of one flat array per (dtype, k), grown to the
        largest parameter, so steps after the first allocate nothing."""
        pool = self.__dict__.get("_scratch")
        if pool is None:
            pool = self.__dict__["_scratch"] = {}
        key = (like.dtype, k)
        buf = pool.get(key)
        if buf is None or buf.size < like.size:
            buf = pool[key] = B.empty(like.size, like.dtype)
        return buf[:like.size].reshape(like.shape)

    # ------------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)``, run before each ``step``."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs) -> None``, run after each ``step``."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _register(self, hooks, hook, prepend):
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer) -> None``, run before ``state_dict()`` builds its result."""
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict) -> state_dict or None``, run on ``state_dict()``'s result."""
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer, state_dict) -> state_dict or None``, run before loading."""
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(optimizer) -> None``, run after loading."""
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------------ state dict
    def state_dict(self) -> dict:
        """``{"state": {index: {name: value}}, "param_groups": [{option: value, ..., "params": [index, ...]}]}``.

        Indices number the parameters in order of first appearance across the groups; the state tensors
        are returned by reference, as PyTorch does.
        """
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        index: dict[int, int] = {}
        groups = []
        start = 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        sd = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = hook(self, sd)
            if result is not None:
                sd = result
        return sd

    @staticmethod
    def _cast_state(param: Tensor, value, key=None):
        """Copy a loaded state value for ``param``: floating tensors take the parameter's dtype,
        except ``step`` counters, which keep theirs; containers are copied recursively.

        Unlike PyTorch (which may alias the loaded tensors), tensors are always copied, so two
        optimizers loaded from one state dict never share buffers that ``step`` writes in place.
        """
        if isinstance(value, Tensor):
            data = value._data
            if key != "step" and param._data.dtype.kind in "fcV" and data.dtype.kind in "fcV":
                return _make(B.array(data, dtype=param._data.dtype))
            return _make(B.array(data))
        if isinstance(value, dict):
            return {k: Optimizer._cast_state(param, v, k) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(Optimizer._cast_state(param, v) for v in value)
        return value

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state produced by ``state_dict()`` here or in PyTorch (tensors converted to numtorch).

        Raises:
            ValueError: the number of groups, or the size of a group, differs from this optimizer's.
        """
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = self._cast_state(id_map[k], v)
            else:
                state[k] = v
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # ------------------------------------------------------------------ helpers for subclasses
    @staticmethod
    def _check_no_differentiable(differentiable):
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by numtorch optimizers (their updates "
                                      "run outside autograd)")

    def _grad_with_decay(self, p: np.ndarray, g: np.ndarray, weight_decay, maximize: bool):
        """The effective gradient ``(-g if maximize else g) + weight_decay * p`` as an ndarray.

        Returns ``g`` itself when there is nothing to add (never write into it), else scratch buffer 0.
        """
        if not weight_decay and not maximize:
            return g
        d = self._work(p, 0)
        if weight_decay:
            np.multiply(p, p.dtype.type(weight_decay), out=d)
            (np.subtract if maximize else np.add)(d, g, out=d)
        else:
            np.negative(g, out=d)
        return d


def _fresh_state(p: Tensor, *buffers: str) -> dict:
    """A ``step`` counter and one zero buffer per name in ``buffers``, shaped and typed like ``p``."""
    state = {"step": _step_tensor()}
    for name in buffers:
        state[name] = _zeros_state(p)
    return state


def _zeros_state(p: Tensor) -> Tensor:
    """A zero state buffer shaped and typed like parameter ``p``."""
    return _make(B.zeros(p._data.shape, p._data.dtype, p.device))  # on meta for a meta parameter


def _step_tensor(value: float = 0.0) -> Tensor:
    """The per-parameter step counter: a float32 0-d tensor, as PyTorch 2.x stores it."""
    return _make(B.full((), value, np.float32))


def _bump(step: Tensor) -> float:
    """Increment a step counter in place and return its new value as a Python float."""
    data = step._data
    np.add(data, 1, out=data)
    return float(data)


def _real(a: np.ndarray) -> np.ndarray:
    """Complex arrays are updated as (real, imag) pairs, as PyTorch's ``view_as_real`` does."""
    return a.view(a.real.dtype) if a.dtype.kind == "c" else a
