"""``numtorch.library`` and ``numtorch.ops`` (mirror ``torch.library`` and ``torch.ops``): Python custom ops.

PyTorch keeps every operator in a registry that ``torch.ops.<namespace>.<name>`` reads and
``torch.library`` writes. numtorch keeps one too, for operators written in Python:

* ``Library(ns, "DEF").define("myop(Tensor x) -> Tensor")`` or ``define("ns::myop", schema)`` declares
  an operator; ``impl`` / ``register_kernel`` give it a Python kernel (for ``"CPU"``,
  ``"CompositeImplicitAutograd"``, ``"CompositeExplicitAutograd"`` or no key), and
  ``torch.ops.ns.myop(...)`` (or ``.default(...)``) calls that kernel. A kernel written with numtorch
  ops is differentiated through those ops.
* ``register_fake``/``impl_abstract``, ``register_autograd``, ``register_autocast`` and kernels for other
  dispatch keys (Meta, CUDA, Autocast...) are recorded and not used: numtorch has no fake tensors,
  no devices but the CPU, and no autocast.
* ``torch.ops.load_library(path)`` raises OSError: numtorch runs only Python code, so a compiled
  extension (a ``.so`` built against libtorch, such as torchvision's ``_C``) cannot be loaded. An
  operator that such a library would have provided but that only had fake or autograd formulas
  registered from Python (torchvision registers them for ``torchvision::nms``, ``roi_align``, ...)
  raises NotImplementedError saying so when called, as PyTorch does for an operator without a CPU kernel.
* ``torch.ops.aten.<name>`` is numtorch's ``torch.<name>`` (``torch.ops.aten.add.Tensor(a, b)``), or one of the
  operators PyTorch has only there (``aten.slice``, ``aten._batch_norm_with_update``: ``_ops/aten_internals.py``).

Differences: schemas are kept as text and not parsed or checked; ``register_fake`` on an operator
nobody defined records it instead of raising (so libraries that register formulas for their
compiled operators import); ``torch.library.custom_op`` is not provided.
"""
from __future__ import annotations

import importlib
import sys

from ._ops.aten_internals import ATEN_ONLY

__all__ = ["Library", "define", "impl", "impl_abstract", "register_fake", "register_autograd", "register_kernel",
           "register_autocast", "fallthrough_kernel", "get_ctx"]

_PYTHON_KEYS = ("CPU", "CompositeExplicitAutograd", "CompositeImplicitAutograd", "")


class _OpEntry:
    """One operator of the registry: its schema text and the Python functions registered for it."""

    def __init__(self, qualname):
        self.qualname = qualname
        self.schema = None
        self.kernels = {}      # dispatch key -> kernel
        self.fake = None       # recorded, unused
        self.autograd = None   # recorded, unused (numtorch differentiates through the kernel's own ops)


_registry: dict[str, _OpEntry] = {}


def _entry(qualname) -> _OpEntry:
    if isinstance(qualname, (OpOverloadPacket, OpOverload)):
        qualname = qualname._qualified_op_name
    if "::" not in qualname:
        raise ValueError(f"Expected there to be a namespace in {qualname}, i.e. The operator name should look "
                         "something like ns::foo")
    if "." in qualname.split("::", 1)[1]:  # "ns::op.overload" names the op's overload; one table per op here
        qualname = qualname.split(".")[0]
    return _registry.setdefault(qualname, _OpEntry(qualname))


def _unavailable(qualname):
    ns = qualname.split("::")[0]
    return NotImplementedError(
        f"Could not run '{qualname}': the operator has no Python kernel. numtorch runs only Python code, so "
        f"operators implemented in a compiled extension (for '{ns}': the C++ library that "
        f"torch.ops.load_library would load) are unavailable. Use a pure-Python alternative, or run this "
        "part of the program on PyTorch.")


class OpOverload:
    """``torch.ops.ns.op.overload``: calls the operator's Python kernel."""

    def __init__(self, packet, overload):
        self._packet, self._overloadname = packet, overload
        self._qualified_op_name = packet._qualified_op_name

    def __call__(self, *args, **kwargs):
        return self._packet(*args, **kwargs)

    def __repr__(self):
        return f"{self._qualified_op_name.replace('::', '.')}.{self._overloadname}"


class OpOverloadPacket:
    """``torch.ops.ns.op``: an operator of the registry (or an aten op: numtorch's ``torch.<op>``)."""

    def __init__(self, qualname, func=None):
        self._qualified_op_name = qualname
        self._func = func
        self.__name__ = qualname.split("::")[1]

    def __getattr__(self, overload):
        if overload.startswith("__"):
            raise AttributeError(overload)
        return OpOverload(self, overload)

    def overloads(self):
        return ["default"]

    def __call__(self, *args, **kwargs):
        if self._func is not None:
            return self._func(*args, **kwargs)
        kernels = _registry[self._qualified_op_name].kernels
        for key in _PYTHON_KEYS:
            if key in kernels:
                return kernels[key](*args, **kwargs)
        raise _unavailable(self._qualified_op_name)

    def __repr__(self):
        return f"<OpOverloadPacket(op='{self._qualified_op_name.replace('::', '.')}')>"


class _OpNamespace:
    """``torch.ops.<ns>``."""

    def __init__(self, name):
        self.name = name

    def __getattr__(self, op):
        if op.startswith("__"):
            raise AttributeError(op)
        qualname = f"{self.name}::{op}"
        if qualname in _registry:
            return OpOverloadPacket(qualname)
        if self.name == "aten":
            func = ATEN_ONLY.get(op) or getattr(sys.modules[__package__], op, None)  # the numtorch package (imported: it imports us)
            if callable(func):
                return OpOverloadPacket(qualname, func)
        raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op}' (numtorch knows only "
                             "operators registered from Python and aten operators it implements; compiled "
                             "extensions cannot be loaded)")


class _Ops:
    """``torch.ops``: ``torch.ops.<namespace>.<op>``, ``load_library``, ``import_module``."""

    __name__ = "torch.ops"

    def __init__(self):
        self.loaded_libraries = set()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        ns = _OpNamespace(name)
        setattr(self, name, ns)
        return ns

    def load_library(self, path):
        """Raises OSError: numtorch cannot load compiled (C++) operator libraries."""
        raise OSError(f"Could not load this library: {path} (numtorch runs only Python code: compiled operator "
                      "libraries built for PyTorch cannot be loaded)")

    def import_module(self, module):
        importlib.import_module(module)


ops = _Ops()


class Library:
    """``torch.library.Library(ns, kind, dispatch_key="")``: define operators of ``ns`` and register kernels."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in ("prim",) and kind in ("DEF", "FRAGMENT"):
            raise ValueError(f"{ns} is a reserved namespace. Please try creating a library with another name.")
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key

    def __repr__(self):
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    def _qualname(self, op_name):
        if isinstance(op_name, (OpOverloadPacket, OpOverload)):
            return op_name._qualified_op_name
        return op_name if "::" in op_name else f"{self.ns}::{op_name}"

    def define(self, schema, alias_analysis="", *, tags=()):
        """Declare ``name(args) -> returns`` in this namespace; returns the operator's name."""
        name = schema.split("(", 1)[0].strip()
        entry = _entry(f"{self.ns}::{name}")
        if entry.schema is not None:
            raise RuntimeError(f"Tried to register an operator ({self.ns}::{name}) with the same name and overload "
                               "name multiple times.")
        entry.schema = schema
        return name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False, allow_override=False):
        """Register ``fn`` as the kernel of ``op_name`` for ``dispatch_key`` (default: the library's)."""
        _entry(self._qualname(op_name)).kernels[dispatch_key or self.dispatch_key] = fn

    def _register_fake(self, op_name, fn, _stacklevel=1, *, allow_override=True):
        _entry(self._qualname(op_name)).fake = fn

    def fallback(self, fn, dispatch_key="", *, with_keyset=False):
        pass  # backend fallbacks concern the C++ dispatcher only


def fallthrough_kernel():
    """A dummy kernel, as in PyTorch: registering it for a key means "skip this key"."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def define(qualname, schema, *, lib=None, tags=()):
    """``torch.library.define("ns::name", "(Tensor x) -> Tensor")``."""
    ns, name = qualname.split("::", 1)
    (lib or Library(ns, "FRAGMENT")).define(name + schema, tags=tags)


def _decorator(register, func):
    if func is None:
        def wrap(f):
            register(f)
            return f
        return wrap
    register(func)
    return func


def impl(qualname, types, func=None, *, lib=None):
    """Register a kernel of ``qualname`` for a device type or dispatch key (``"cpu"``, ``"CPU"``, ...)."""
    keys = [types] if isinstance(types, str) else list(types)
    keys = ["CPU" if k == "cpu" else "CompositeExplicitAutograd" if k in ("default", None) else k for k in keys]
    return _decorator(lambda f: [_entry(qualname).kernels.__setitem__(k, f) for k in keys], func)


def register_kernel(op, device_types, func=None, /, *, lib=None):
    """Register a kernel of ``op`` for ``device_types`` (None: every device)."""
    return impl(op, "default" if device_types is None else device_types, func, lib=lib)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=False):
    """Record a fake (meta) formula for ``op``; numtorch has no fake tensors, so it is not used."""
    return _decorator(lambda f: setattr(_entry(op), "fake", f), func)


impl_abstract = register_fake


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Record ``op``'s backward formula. numtorch differentiates a Python kernel through the numtorch ops it
    runs, so the formula is kept but not used."""
    _entry(op).autograd = (backward, setup_context)


def register_autocast(op, device_type, cast_inputs, /, *, lib=None):
    """Accepted and ignored: numtorch's autocast is a no-op region."""
    _entry(op)


def get_ctx():
    """Only valid inside a fake formula, which numtorch never runs: raises RuntimeError."""
    raise RuntimeError("torch.library.get_ctx() is only valid inside a fake (meta) formula; numtorch runs none")
