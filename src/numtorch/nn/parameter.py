"""``nn.Parameter`` and ``nn.Buffer`` (mirrors ``torch/nn/parameter.py``).

A Parameter is a Tensor subclass and nothing more: what makes it special is that
``Module.__setattr__`` sees its type and files it under ``_parameters``, so that ``parameters()``,
``state_dict()`` and optimizers find it. Building one never copies: the Parameter shares the data
array (and version counter) of the tensor it wraps, as ``torch.Tensor._make_subclass`` does.

``Buffer`` (PyTorch 2.5+) marks a tensor to be registered as a buffer on assignment; as in PyTorch,
``Buffer(t)`` returns a plain (detached) Tensor flagged with ``_is_buffer`` and ``persistent``,
and ``isinstance(x, Buffer)`` checks that flag.

``UninitializedParameter`` / ``UninitializedBuffer`` are the placeholders of the Lazy modules: no
shape yet (reading ``.shape`` raises RuntimeError, any op on them PyTorch's ValueError), a dtype and
device; ``materialize(shape)`` gives them an (uninitialised) array and turns them into a plain
``Parameter`` / ``Tensor``.
"""
from __future__ import annotations

import sys

from .._dtype import bfloat16, float16, float32, float64, from_np as _np_to_dtype
from .._ops.creation import empty
from .._tensor import Size, Tensor, _make, _python_state, _rebuild_tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "UninitializedTensorMixin",
           "is_lazy"]


class Parameter(Tensor):
    """A Tensor that a Module registers as a parameter when assigned as an attribute.

    ``Parameter(data=None, requires_grad=True)``: ``data`` (a Tensor; default ``torch.empty(0)``)
    is shared, not copied; the result is always a leaf, even when ``data`` has a ``grad_fn``,
    and ``no_grad()`` does not change its ``requires_grad``. RuntimeError when
    ``requires_grad=True`` and ``data`` is not floating point or complex; AttributeError (as
    PyTorch) when ``data`` is not a Tensor.
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            tp = type(data)
            name = tp.__name__ if tp.__module__ == "builtins" else f"{tp.__module__}.{tp.__name__}"
            raise AttributeError(f"'{name}' object has no attribute 'detach'")
        if requires_grad and data._data.dtype.kind not in "fcV":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t = _make(data._data, bool(requires_grad), cls)
        t._vc = data._vc  # like detach(): same storage, same version counter
        return t

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happened in __new__; Tensor.__init__ must not run again

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        # PyTorch copies data and requires_grad only: not .grad, not extra attributes
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(_make(self._data.copy()), self._rg)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        # rebuilt as a Parameter (the class travels with the pickle); hooks are never pickled
        return (_rebuild_tensor, (self._data, self._rg, _python_state(self), type(self)))


class _BufferMeta(type):
    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor to be registered as a buffer when assigned to a Module attribute.

    ``Buffer(data=None, *, persistent=True)`` returns ``data.detach()`` (same storage, same
    ``requires_grad``) tagged so that ``module.name = Buffer(t)`` calls
    ``register_buffer(name, t, persistent)``. ``isinstance(x, nn.Buffer)`` is True for such tensors.
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        t = data.detach()
        t._rg = data._rg
        t.persistent = persistent
        t._is_buffer = True
        return t


_SLOT = Tensor._data  # the array slot itself, past UninitializedTensorMixin's guarding property


def _caller() -> str:
    """The numtorch function (or Tensor method) that touched an uninitialized tensor, for the message."""
    frame = sys._getframe(2)
    return f"<function {frame.f_code.co_name}>" if frame is not None else "an operation"


class UninitializedTensorMixin:
    """What the uninitialized placeholders share: ``materialize``, a refusing ``.shape``, conversions
    (``to``, ``double``, ...) that keep the placeholder (so ``Module.to``/``double`` before the first
    forward set the dtype it will have), and PyTorch's ``<UninitializedParameter>`` repr."""

    cls_to_become: type = Tensor

    # Ops read a tensor's array through ``_data``; here that read raises PyTorch's ValueError (what its
    # ``__torch_function__`` does for all but a few methods), so no op silently runs on the empty stand-in.
    # The metadata below reads the slot itself; materializing changes the class, which ends the guard.
    @property
    def _data(self):
        raise ValueError(f"Attempted to use an uninitialized parameter in {_caller()}. This error happens when you "
                         f"are using a `LazyModule` or explicitly manipulating `torch.nn.parameter."
                         f"{type(self).__name__}` objects. When using LazyModules Call `forward` with a dummy batch "
                         f"to initialize the parameters before calling torch functions")

    @_data.setter
    def _data(self, array) -> None:
        _SLOT.__set__(self, array)

    @property
    def dtype(self):
        return _np_to_dtype(_SLOT.__get__(self).dtype)

    @property
    def data(self) -> Tensor:  # the empty stand-in, for Module.to/half/... (as PyTorch allows .data)
        return _make(_SLOT.__get__(self))

    @data.setter
    def data(self, value: Tensor) -> None:
        _SLOT.__set__(self, _SLOT.__get__(value))

    @property
    def requires_grad(self) -> bool:
        return self._rg

    @requires_grad.setter
    def requires_grad(self, flag) -> None:
        self._rg = bool(flag)

    @property
    def ndim(self) -> int:
        return _SLOT.__get__(self).ndim

    def size(self, dim=None):
        return Size(_SLOT.__get__(self).shape) if dim is None else _SLOT.__get__(self).shape[dim]

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give the placeholder an uninitialized array of ``shape`` and make it a ``cls_to_become``."""
        dtype = self.dtype if dtype is None else dtype
        device = self.data.device if device is None else device  # where it was made (meta stays meta)
        self.data = empty(shape, dtype=dtype, device=device)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually happens "
                           "in `load_state_dict` when trying to load an uninitialized parameter into an initialized one. "
                           "Call `forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
                           "the parameters before calling `module.share_memory()`.")

    def _retyped(self, dtype):
        out = type(self)(self.requires_grad, dtype=dtype) if isinstance(self, Parameter) else \
            type(self)(self.requires_grad, dtype=dtype, persistent=getattr(self, "persistent", True))
        return out

    def to(self, *args, **kwargs):
        dtype = kwargs.get("dtype")
        for a in args:
            if type(a).__name__ == "dtype":
                dtype = a
        return self._retyped(self.dtype if dtype is None else dtype)

    def float(self):
        return self._retyped(float32)

    def double(self):
        return self._retyped(float64)

    def half(self):
        return self._retyped(float16)

    def bfloat16(self):
        return self._retyped(bfloat16)

    def cpu(self, *args, **kwargs):
        return self

    cuda = cpu

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param) -> bool:
    """Whether ``param`` is an uninitialized placeholder of a Lazy module."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (``torch.nn.UninitializedParameter``); it becomes a
    ``Parameter`` when ``materialize``d (by a Lazy module's first forward)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _make(empty(0, dtype=dtype, device=device)._data, bool(requires_grad), cls)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, dtype=self.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (``torch.nn.UninitializedBuffer``); it becomes a plain
    Tensor when ``materialize``d."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = _make(empty(0, dtype=dtype, device=device)._data, bool(requires_grad), cls)
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, dtype=self.dtype, persistent=self.persistent)
        return memo[id(self)]
