"""The loading half of ``numtorch.serialization``: the allow-list unpickler and validated tensor rebuilds.

Mirrors ``torch/_weights_only_unpickler.py`` and the ``_rebuild_*`` functions of ``torch/_utils.py``.
What a ``weights_only`` load guarantees (see docs/serialization.md):

* only globals on the allow-list (plus ``add_safe_globals``) are looked up, and only callables on it
  are called (REDUCE / NEWOBJ); INST, OBJ and the copyreg extension opcodes are refused;
* BUILD, SETITEM(S), APPEND(S) and ADDITEMS touch only objects the file itself created, and BUILD
  only on Tensor, Parameter, OrderedDict or an ``add_safe_globals`` class: a file cannot rename
  ``torch.float32`` or patch ``torch.Size``;
* every tensor is checked against its storage record (offset, sizes and strides non-negative and
  inside the record's bytes; one dtype per record) before any NumPy view is made.

Every refusal is ``pickle.UnpicklingError`` (PyTorch's type); a tensor outside its storage is
``RuntimeError`` naming the record, as PyTorch raises for it.
"""
from __future__ import annotations

import codecs
import collections
import pickle

import numpy as np

from . import _dtype
from ._backend import meta
from ._device import device as _Device
from ._ops.sparse import sparse_coo_tensor as _sparse_coo_tensor
from ._tensor import Size, Tensor, _make
from ._tensor_sparse import sparse_coo as _sparse_coo, strided as _strided
from .nn.parameter import Parameter

__all__ = ["add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]

_STORAGE_DTYPES = {d._storage_name: d for d in _dtype._NAMES.values()}


# ================================================================================================
# storages and rebuild functions (the callables a checkpoint may name)
# ================================================================================================
class _LoadedStorage:
    """One storage record of a checkpoint: its bytes as a flat array of one dtype, and the record's name."""

    __slots__ = ("array", "dtype", "record")

    def __init__(self, array, dtype, record):
        self.array, self.dtype, self.record = array, dtype, record


class _StorageType:
    """``torch.FloatStorage`` and friends as named in a checkpoint: only a dtype marker."""

    def __init__(self, name):
        self.dtype = _STORAGE_DTYPES[name]


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def _check_view(storage, offset, size, stride):
    """RuntimeError naming the record unless ``(offset, size, stride)`` lies inside ``storage``."""
    rec = storage.record
    if not isinstance(size, (tuple, list)) or not isinstance(stride, (tuple, list)) or len(size) != len(stride):
        raise RuntimeError(f"{rec}: tensor size {size!r} and stride {stride!r} must be sequences of equal length")
    if not _is_int(offset) or not all(_is_int(s) for s in size) or not all(_is_int(s) for s in stride):
        raise RuntimeError(f"{rec}: tensor offset, size and stride must be integers")
    if offset < 0 or any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError(f"{rec}: negative storage offset, size or stride (offset {offset}, size {list(size)}, "
                           f"stride {list(stride)})")
    n = storage.array.size
    if all(size):
        last = offset + sum((s - 1) * st for s, st in zip(size, stride))
        if last >= n:
            raise RuntimeError(f"{rec}: tensor of size {list(size)}, stride {list(stride)} at storage offset "
                               f"{offset} reads element {last}, out of bounds for a storage of {n} elements")
    elif offset > n:
        raise RuntimeError(f"{rec}: storage offset {offset} is out of bounds for a storage of {n} elements")


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    """``torch._utils._rebuild_tensor_v2``: a view of a loaded storage, bounds-checked first."""
    if not isinstance(storage, _LoadedStorage):
        raise pickle.UnpicklingError(f"_rebuild_tensor_v2 expects a storage, got {type(storage).__name__}")
    _check_view(storage, storage_offset, size, stride)
    arr, isz = storage.array, storage.dtype.itemsize
    size, stride, storage_offset = tuple(map(int, size)), tuple(map(int, stride)), int(storage_offset)
    try:
        if not all(size):
            view = np.empty(size, arr.dtype)
        else:
            view = np.lib.stride_tricks.as_strided(arr[storage_offset:], size, tuple(s * isz for s in stride))
    except (ValueError, OverflowError) as e:
        raise RuntimeError(f"{storage.record}: cannot view size {list(size)}, stride {list(stride)}: {e}") from None
    t = _make(view)
    if requires_grad:
        if not isinstance(requires_grad, bool):
            raise pickle.UnpicklingError("_rebuild_tensor_v2: requires_grad must be a bool")
        t.requires_grad = True
    return t


def _get_layout(name):
    """``torch.serialization._get_layout``: the layout a checkpoint names (``"torch.sparse_coo"``)."""
    if name == "torch.sparse_coo":
        return _sparse_coo
    if name == "torch.strided":
        return _strided
    raise pickle.UnpicklingError(f"_get_layout: numtorch has no layout {name!r}")


def _rebuild_sparse_tensor(layout, data):
    """``torch._utils._rebuild_sparse_tensor`` for the sparse COO layout: ``data`` is ``(indices, values, size)``
    or ``(indices, values, size, is_coalesced)``. ``sparse_coo_tensor`` checks the invariants (indices inside
    ``size``, one nnz, a tensor called coalesced sorted without repeats); other layouts are refused."""
    if layout is not _sparse_coo:
        raise pickle.UnpicklingError(f"_rebuild_sparse_tensor: numtorch loads only the sparse COO layout, not {layout}")
    if not isinstance(data, tuple) or len(data) not in (3, 4):
        raise pickle.UnpicklingError("_rebuild_sparse_tensor expects (indices, values, size[, is_coalesced])")
    indices, values, size = data[:3]
    coalesced = data[3] if len(data) == 4 else None
    if not (isinstance(indices, Tensor) and isinstance(values, Tensor) and isinstance(size, tuple)
            and all(_is_int(s) for s in size) and coalesced in (None, True, False)):
        raise pickle.UnpicklingError("_rebuild_sparse_tensor: indices and values must be tensors, size a tuple of ints")
    if indices._data.dtype.kind not in "iu" or indices.is_sparse or values.is_sparse:
        raise pickle.UnpicklingError("_rebuild_sparse_tensor: indices must be a dense integer tensor")
    try:
        t = _sparse_coo_tensor(indices, values, size, is_coalesced=coalesced)
    except RuntimeError as e:
        raise pickle.UnpicklingError(f"_rebuild_sparse_tensor: a damaged sparse tensor: {e}") from None
    return t


# attributes a file's state may not overwrite on a tensor (numtorch's own fields)
_TENSOR_FIELDS = frozenset(n for c in Parameter.__mro__ for n in getattr(c, "__slots__", ()))


def _set_tensor_state(t, state):
    if not state:
        return
    if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
        raise pickle.UnpicklingError("a tensor's state must be a dict with string keys")
    # nor shadow a method or property on this tensor (a state {"sum": ...} would make t.sum() return it)
    bad = sorted(k for k in state if k in _TENSOR_FIELDS or k.startswith("__") or hasattr(type(t), k))
    if bad:
        raise pickle.UnpicklingError(f"a tensor's state may not set {bad}")
    t.__dict__.update(state)


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad=False):
    """``torch._utils._rebuild_meta_tensor_no_storage``: a saved meta tensor (shape and dtype, no data)."""
    if not isinstance(dtype, _dtype.dtype) or not isinstance(size, (tuple, list)) or \
            not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 2 ** 62 for n in size):
        raise pickle.UnpicklingError("_rebuild_meta_tensor_no_storage expects a dtype and a size of non-negative ints")
    if not isinstance(requires_grad, bool):
        raise pickle.UnpicklingError("_rebuild_meta_tensor_no_storage: requires_grad must be a bool")
    return _make(meta(tuple(size), dtype.np), requires_grad and (dtype.is_floating_point or dtype.is_complex))


def _rebuild_parameter(data, requires_grad, backward_hooks, *args):
    """``torch._utils._rebuild_parameter``."""
    if not isinstance(data, Tensor):
        raise pickle.UnpicklingError(f"_rebuild_parameter expects a tensor, got {type(data).__name__}")
    return Parameter(data, bool(requires_grad))


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    _set_tensor_state(p, state)
    return p


def _codecs_encode(obj, encoding="utf-8", errors="strict"):
    # protocol-2 pickles write bytes as _codecs.encode(str, "latin1"); no other codec may run
    try:
        codec = codecs.lookup(encoding).name if isinstance(encoding, str) else None
    except LookupError:
        codec = None
    if not isinstance(obj, str) or codec not in ("latin-1", "iso8859-1", "utf-8", "ascii"):
        raise pickle.UnpicklingError(f"_codecs.encode: unsupported arguments ({type(obj).__name__}, {encoding!r})")
    return codecs.encode(obj, encoding, errors)


def _bytearray(*args):
    if len(args) > 1 or (args and not isinstance(args[0], (bytes, list))):
        raise pickle.UnpicklingError("bytearray: only bytes or a list of ints may be given")
    return bytearray(*args)


def _size(seq=()):
    if not isinstance(seq, (tuple, list)) or not all(_is_int(s) for s in seq):
        raise pickle.UnpicklingError(f"torch.Size expects a sequence of ints, got {seq!r}")
    return Size(seq)


# ================================================================================================
# allow-list
# ================================================================================================
_safe_globals: dict = {}


def add_safe_globals(safe_globals) -> None:
    """Allow these classes/functions in ``weights_only`` loads (``torch.serialization.add_safe_globals``).

    Items are objects or ``(object, "module.Name")`` pairs. A ``torch.`` name in a file also matches
    the numtorch object of the same dotted path (``torch.nn.modules.linear.Linear`` ->
    ``numtorch.nn.modules.linear.Linear``). Classes added here may be instantiated and given a state.
    """
    for g in safe_globals:
        obj, name = (g if isinstance(g, tuple) else (g, f"{g.__module__}.{g.__qualname__}"))
        _safe_globals[name] = obj
        if name.startswith("numtorch."):
            _safe_globals["torch." + name[len("numtorch."):]] = obj


def get_safe_globals():
    """The objects added with ``add_safe_globals`` (``torch.serialization.get_safe_globals``)."""
    return list(dict.fromkeys(_safe_globals.values()))


def clear_safe_globals() -> None:
    """Forget every ``add_safe_globals`` entry (``torch.serialization.clear_safe_globals``)."""
    _safe_globals.clear()


class safe_globals:
    """Context manager form of ``add_safe_globals`` (``torch.serialization.safe_globals``)."""

    def __init__(self, safe_globals):
        self.items = safe_globals

    def __enter__(self):
        self.saved = dict(_safe_globals)
        add_safe_globals(self.items)

    def __exit__(self, *exc):
        _safe_globals.clear()
        _safe_globals.update(self.saved)


_ALLOWED_CALLABLES = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.Counter": collections.Counter,
    "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
    "torch._utils._rebuild_parameter": _rebuild_parameter,
    "torch._utils._rebuild_meta_tensor_no_storage": _rebuild_meta_tensor_no_storage,
    "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
    "torch._utils._rebuild_sparse_tensor": _rebuild_sparse_tensor,
    "torch.serialization._get_layout": _get_layout,
    "torch.Size": _size,
    "torch.device": _Device,
    "builtins.set": set, "builtins.frozenset": frozenset, "builtins.slice": slice,
    "builtins.complex": complex, "builtins.bytearray": _bytearray,
    # protocol-2 pickles name Python 3's builtins by their Python 2 module
    "__builtin__.set": set, "__builtin__.frozenset": frozenset, "__builtin__.slice": slice,
    "__builtin__.complex": complex, "__builtin__.bytearray": _bytearray,
    "_codecs.encode": _codecs_encode,
}


def _builtin_allowed():
    """dotted name -> object for every global a checkpoint may name without ``add_safe_globals``."""
    allowed = dict(_ALLOWED_CALLABLES)
    for name in _STORAGE_DTYPES:
        allowed["torch." + name] = _StorageType(name)
    for name, d in _dtype._NAMES.items():
        allowed["torch." + name] = d
    return allowed


_BUILTIN_ALLOWED = _builtin_allowed()
_CALLABLE_IDS = frozenset(map(id, _ALLOWED_CALLABLES.values()))


def _find_allowed(module, name, weights_only):
    full = f"{module}.{name}"
    if full in _BUILTIN_ALLOWED:
        return _BUILTIN_ALLOWED[full]
    if full in _safe_globals:
        return _safe_globals[full]
    if weights_only:
        raise pickle.UnpicklingError(
            f"Weights only load failed. Unsupported global: GLOBAL {full} was not an allowed global by "
            f"default. Use `numtorch.serialization.add_safe_globals([{name}])` or the "
            f"`numtorch.serialization.safe_globals([{name}])` context manager to allowlist this global if you "
            f"trust this class/function; or load with weights_only=False only if you trust the file, since "
            f"that can run arbitrary code.")
    return None


# ================================================================================================
# unpicklers
# ================================================================================================
class FullUnpickler(pickle.Unpickler):
    """``weights_only=False``: the ordinary unpickler (it can run any code the file names), with
    ``torch.*`` globals mapped to numtorch's and tensors rebuilt through the validated functions."""

    def __init__(self, file, persistent_load, **kwargs):
        super().__init__(file, **kwargs)
        self.persistent_load = persistent_load

    def find_class(self, module, name):
        found = _find_allowed(module, name, False)
        if found is not None:
            return found
        if module == "torch" or module.startswith("torch."):
            module = "numtorch" + module[5:]
        return super().find_class(module, name)


def _refuse(msg):
    raise pickle.UnpicklingError("Weights only load failed. " + msg)


class WeightsUnpickler(pickle._Unpickler):
    """``weights_only=True``: the pure-Python unpickler with every opcode that could reach beyond the
    file's own objects restricted (see the module docstring)."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, file, persistent_load, **kwargs):
        super().__init__(file, **kwargs)
        self.persistent_load = persistent_load
        self._external = {}  # id -> object for everything find_class returned (kept alive so ids stay unique)

    def find_class(self, module, name):
        if not isinstance(module, str) or not isinstance(name, str):
            _refuse("GLOBAL names must be strings")
        obj = _find_allowed(module, name, True)
        self._external[id(obj)] = obj
        return obj

    def _own(self, obj, what):
        """Refuse ``what`` on an object the file did not create (a global)."""
        if id(obj) in self._external or isinstance(obj, type):
            _refuse(f"{what} on {obj!r}, which the file did not create")

    def _callable(self, func):
        if id(func) not in self._external or not (id(func) in _CALLABLE_IDS or func in _safe_globals.values()):
            _refuse(f"REDUCE/NEWOBJ on {func!r}, which is not an allowed callable")

    def load_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        self._callable(func)
        if not isinstance(args, tuple):
            _refuse("REDUCE arguments must be a tuple")
        self.stack[-1] = func(*args)
    dispatch[pickle.REDUCE[0]] = load_reduce

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        if not isinstance(cls, type):
            _refuse(f"NEWOBJ on {cls!r}, which is not a class")
        self._callable(cls)
        self.append(cls.__new__(cls, *args))
    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        self._own(inst, "BUILD")
        if type(inst) in (Tensor, Parameter):
            _set_tensor_state(inst, state)
        elif type(inst) is collections.OrderedDict:
            if not isinstance(state, dict) or not all(isinstance(k, str) and not k.startswith("__") for k in state):
                _refuse("an OrderedDict's state must be a dict of plain attribute names")
            inst.__dict__.update(state)
        elif type(inst) in _safe_globals.values():
            self.stack.append(state)
            pickle._Unpickler.load_build(self)
        else:
            _refuse(f"Can only build Tensor, Parameter, OrderedDict or types allowlisted via `add_safe_globals`, "
                    f"but got {type(inst)}")
    dispatch[pickle.BUILD[0]] = load_build

    def load_setitem(self):
        value = self.stack.pop()
        key = self.stack.pop()
        target = self.stack[-1]
        self._own_dict(target)
        target[key] = value
    dispatch[pickle.SETITEM[0]] = load_setitem

    def load_setitems(self):
        items = self.pop_mark()
        target = self.stack[-1]
        self._own_dict(target)
        for i in range(0, len(items) - 1, 2):
            target[items[i]] = items[i + 1]
    dispatch[pickle.SETITEMS[0]] = load_setitems

    def _own_dict(self, target):
        self._own(target, "SETITEM")
        if type(target) not in (dict, collections.OrderedDict, collections.Counter):
            _refuse(f"SETITEM on a {type(target).__name__}; only dicts the file created accept items")

    def load_append(self):
        value = self.stack.pop()
        target = self.stack[-1]
        self._own_list(target)
        target.append(value)
    dispatch[pickle.APPEND[0]] = load_append

    def load_appends(self):
        items = self.pop_mark()
        target = self.stack[-1]
        self._own_list(target)
        target.extend(items)
    dispatch[pickle.APPENDS[0]] = load_appends

    def _own_list(self, target):
        self._own(target, "APPEND")
        if type(target) is not list:
            _refuse(f"APPEND on a {type(target).__name__}; only lists the file created accept items")

    def load_additems(self):
        items = self.pop_mark()
        target = self.stack[-1]
        self._own(target, "ADDITEMS")
        if type(target) is not set:
            _refuse(f"ADDITEMS on a {type(target).__name__}")
        target.update(items)
    dispatch[pickle.ADDITEMS[0]] = load_additems

    def load_bytearray8(self):  # the stock one allocates the declared length before reading it
        n = int.from_bytes(self.read(8), "little")
        data = self.read(n)
        if len(data) != n:
            raise EOFError("BYTEARRAY8 ends early")
        self.append(bytearray(data))
    dispatch[pickle.BYTEARRAY8[0]] = load_bytearray8

    def _unsupported(self):
        _refuse("the file uses a pickle opcode that checkpoints never contain (INST, OBJ, NEWOBJ_EX, EXT*, PERSID)")
    for _op in (pickle.INST, pickle.OBJ, pickle.NEWOBJ_EX, pickle.EXT1, pickle.EXT2, pickle.EXT4, pickle.PERSID):
        dispatch[_op[0]] = _unsupported
    del _op
