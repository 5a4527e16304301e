"""Parametrizations (mirrors ``torch.nn.utils.parametrize``): a module's tensor computed by modules.

``register_parametrization(module, "weight", P())`` moves ``module.weight`` to
``module.parametrizations.weight.original`` and makes ``module.weight`` a property that returns
``P()(original)`` each time it is read (``P`` may chain: ``P2(P1(original))``). How it works, as in
PyTorch:

* the module's class is swapped for a subclass made on the fly, ``Parametrized<Class>``, that holds
  the property (properties live on classes; the original class is its first base, and comes back when
  the last parametrization is removed);
* a ``ParametrizationList`` (a ``ModuleList`` of the parametrizations) owns the original tensor,
  so ``state_dict()`` keys read ``parametrizations.weight.original`` and optimizers see the original;
* assigning ``module.weight = X`` runs the parametrizations' ``right_inverse`` backwards and stores
  the result in the original (in place, so optimizers keep the same Parameter);
* a ``right_inverse`` that returns a sequence of tensors splits the original into ``original0``,
  ``original1``, ... (weight norm stores ``g`` and ``v`` this way);
* inside ``with cached():`` each parametrized tensor is computed once and reused.
"""
from __future__ import annotations

import collections.abc
from contextlib import contextmanager
from copy import deepcopy

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations", "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Context manager: inside it, each parametrized tensor is computed on first read and then reused
    (for example a weight read at every step of an RNN); the cache is cleared on leaving."""
    global _cache_enabled, _cache
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, x):
    if isinstance(x, Parameter):
        module.register_parameter(name, x)
    else:
        module.register_buffer(name, x)


def _check_registered(x, y, z, name):
    """PyTorch's ValueErrors when a parametrization added to the parametrized ``module.<name>`` (value
    ``y``) maps it to ``x`` of another dtype or shape, or its ``right_inverse`` maps ``x`` to such a ``z``
    (``z`` None: not checked)."""
    if not isinstance(x, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
    for attr in ("dtype", "shape"):
        if getattr(x, attr) != getattr(y, attr):
            raise ValueError(f"Registering a parametrization may not change the {attr} of the tensor, unless the "
                             f"`unsafe` flag is enabled.\nmodule.{name}.{attr}: {getattr(y, attr)}\n"
                             f"parametrization(module.{name}).{attr}: {getattr(x, attr)}")
    for attr in ("dtype", "shape") if z is not None else ():
        if getattr(z, attr) != getattr(y, attr):
            raise ValueError(f"The tensor returned by parametrization.right_inverse must have the same {attr} as "
                             f"module.{name}, unless the `unsafe` flag is enabled.\nmodule.{name}.{attr}: "
                             f"{getattr(y, attr)}\nreturned {attr}: {getattr(z, attr)}")


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the ``original`` tensor(s) they read.

    ``forward()`` computes the parametrized tensor; ``right_inverse(value)`` stores into the original
    the tensor whose parametrization is ``value``. Built by :func:`register_parametrization`.

    Raises:
        ValueError: no modules; ``right_inverse`` returning something other than a tensor or a
            sequence of tensors, or (unless ``unsafe``) changing the dtype; the parametrized tensor
            having another dtype or shape than the original (unless ``unsafe``).
    """

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            with no_grad():
                original.data = new  # PyTorch's original.set_(new): same Parameter object, new values
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, new_i in enumerate(new):
                if not isinstance(new_i, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(new_i).__name__}.")
                if isinstance(original, Parameter):
                    new_i = Parameter(new_i, original.requires_grad)
                new_i.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", new_i)
        if not self.unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {z.dtype}")
            if z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {z.shape}")

    def _originals(self):
        return [getattr(self, f"original{i}") for i in range(self.ntensors)]

    def right_inverse(self, value) -> None:
        """Store into the original(s) the value whose parametrization is ``value`` (no_grad).

        Raises RuntimeError when a parametrization has no ``right_inverse``; ValueError when the
        result does not fit the original(s)."""
        with no_grad():
            for module in reversed(self):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:  # checked even when unsafe; a new shape is taken, as set_
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                self.original.data = value
            else:
                if not isinstance(value, collections.abc.Sequence) or len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                     f"Got {type(value).__name__}")
                for original_i, value_i in zip(self._originals(), value):
                    original_i.data = value_i

    def forward(self):
        x = self[0](self.original) if self.is_tensor else self[0](*self._originals())
        for module in list(self)[1:]:
            x = module(x)
        return x


def _refuse_pickle(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                       "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                       "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _deepcopy_via_dict(self, memo):
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = deepcopy(self.__dict__, memo)
    return replica


def _inject_new_class(module) -> None:
    """Swap ``module``'s class for ``Parametrized<Class>``, a subclass to hold the properties."""
    cls = module.__class__
    namespace = {"__getstate__": _refuse_pickle}
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _deepcopy_via_dict
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, name: str) -> None:
    def get_parametrized(self):
        parametrization = self.parametrizations[name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = parametrization()
        return tensor

    def set_original(self, value):
        self.parametrizations[name].right_inverse(value)

    setattr(module.__class__, name, property(get_parametrized, set_original))


def is_parametrized(module, tensor_name=None) -> bool:
    """Whether ``module`` has any parametrization (or one on ``tensor_name``)."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def register_parametrization(module, tensor_name: str, parametrization, *, unsafe: bool = False):
    """Parametrize ``module.<tensor_name>`` (a parameter, a buffer, or an already parametrized tensor,
    to which ``parametrization`` is appended) by the module ``parametrization``. Returns ``module``.

    ``parametrization(X)`` computes the tensor from the original ``X``; an optional
    ``right_inverse(Y)`` maps a tensor back (used at registration, to initialise the original, and on
    assignment). ``unsafe=True`` skips the dtype/shape checks.

    Raises:
        ValueError: ``module`` has no parameter, buffer or parametrized tensor ``tensor_name``; the
            parametrization (or its ``right_inverse``) changes dtype or shape without ``unsafe``.
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            _check_registered(x, y, None, tensor_name)
            if hasattr(parametrization, "right_inverse"):
                try:
                    z = parametrization.right_inverse(x)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(z, Tensor):
                        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: "
                                         f"{type(z).__name__}")
                    _check_registered(x, y, z, tensor_name)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    return module


def remove_parametrizations(module, tensor_name: str, leave_parametrized: bool = True):
    """Remove the parametrizations of ``module.<tensor_name>``: it becomes a plain parameter (or buffer)
    again, holding the parametrized value (``leave_parametrized=True``) or the original. Returns ``module``.

    Raises ValueError when there is no such parametrization, or for ``leave_parametrized=False`` on a
    tensor parametrized by several originals.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                original.data = getattr(module, tensor_name)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                             "in terms of a sequence of tensors.")
        with no_grad():
            t = getattr(module, tensor_name)
        original = Parameter(t.detach(), t.requires_grad) if t.requires_grad else t.detach()
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module) -> type:
    """The module's class as it was before its first parametrization."""
    return module.__class__.__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Copy the parametrizations of ``from_module`` (all, or the one on ``tensor_name``) and their
    original tensors' values onto ``to_module`` (which gets the parameter first if it lacks it).
    Returns ``to_module``."""
    if is_parametrized(from_module):
        names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
        for name in names:
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name)))
            for p in from_module.parametrizations[name]:
                register_parametrization(to_module, name, p)
            source, target = from_module.parametrizations[name], to_module.parametrizations[name]
            with no_grad():
                if source.is_tensor:
                    target.original.data = source.original.detach().clone()
                else:
                    for i in range(source.ntensors):
                        getattr(target, f"original{i}").data = getattr(source, f"original{i}").detach().clone()
    return to_module


