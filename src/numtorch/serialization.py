"""``save``/``load`` in PyTorch's zip format (mirrors ``torch/serialization.py``).

File layout (what ``torch.save`` writes since PyTorch 1.6)::

    archive/data.pkl            pickle (protocol 2) of the object; each tensor is
                                torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)
                                and each storage a persistent id ('storage', torch.FloatStorage, key, 'cpu', numel)
    archive/data/<key>          raw little-endian bytes of one storage
    archive/byteorder           "little"
    archive/version             "3\\n"
    (plus .format_version, .storage_alignment, .data/serialization_id; records are 64-byte aligned)

Tensors that view one NumPy buffer share one storage, so views stay views after a round trip.
``load`` unpickles with an allow-list (``weights_only=True``, the default): any other global raises
``pickle.UnpicklingError`` naming it, and nothing from the file is executed. ``save`` is atomic: it
writes a temporary file in the target directory, fsyncs it and renames it over the target.
"""
from __future__ import annotations

import collections
import codecs
import io
import os
import pickle
import struct
import tempfile
import warnings
import zipfile

import numpy as np

from . import _dtype
from ._device import check as _check_device
from ._device import device as _Device
from ._tensor import Size, Tensor, _make
from .nn.parameter import Parameter

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]

_STORAGE_NAMES = {"float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
                  "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
                  "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
                  "complex64": "ComplexFloatStorage", "complex128": "ComplexDoubleStorage"}
_STORAGE_DTYPES = {v: _dtype._NAMES[k] for k, v in _STORAGE_NAMES.items()}
_ALIGN = 64


# ================================================================================================
# save
# ================================================================================================
class _Global:
    """A reference to ``module.name`` written as a pickle GLOBAL without importing it (torch may be absent)."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle requires reduce callables to be callable; never called
        raise TypeError(f"{self.module}.{self.name} is a pickle reference, not a function")


class _Storage:
    def __init__(self, key, dtype, numel):
        self.key, self.dtype, self.numel = key, dtype, numel


def _root(arr: np.ndarray) -> np.ndarray:
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


class _TorchPickler(pickle._Pickler):  # the pure-Python pickler lets us write torch's globals by name
    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.storages = {}  # id(root array) -> (_Storage, root array)
        self.arrays = []

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _dtype.dtype):  # torch pickles dtypes as bare globals: torch.float32
            obj = _Global("torch", obj.name)
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
            return
        super().save(obj, save_persistent_id)

    def persistent_id(self, obj):
        if isinstance(obj, _Storage):
            return ("storage", _Global("torch", _STORAGE_NAMES[obj.dtype.name]), obj.key, "cpu", obj.numel)
        return None

    def _storage_of(self, arr):
        """(storage, offset, stride) in elements for ``arr``, sharing storage among views of one buffer."""
        root = _root(arr)
        isz = arr.itemsize
        ok = (root.flags.c_contiguous and root.dtype == arr.dtype and all(s >= 0 and s % isz == 0 for s in arr.strides))
        if not ok:
            arr = np.ascontiguousarray(arr)
            root = arr
        entry = self.storages.get(id(root))
        if entry is None:
            st = _Storage(str(len(self.storages)), _dtype.from_np(root.dtype), root.size)
            entry = self.storages[id(root)] = (st, root)
        offset = (arr.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // isz if arr.size else 0
        return entry[0], offset, tuple(s // isz for s in arr.strides)

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            if type(obj) is not Tensor and _is_parameter(obj):
                plain = _make(obj._data)
                return (_Global("torch._utils", "_rebuild_parameter"),
                        (plain, obj.requires_grad, collections.OrderedDict()))
            if obj.grad_fn is not None and obj._rg:
                raise RuntimeError("Cannot save a tensor that requires grad and is not a leaf; call .detach() first")
            st, off, stride = self._storage_of(obj._data)
            return (_Global("torch._utils", "_rebuild_tensor_v2"),
                    (st, off, tuple(obj._data.shape), stride, obj._rg, collections.OrderedDict()))
        if isinstance(obj, Size):
            return (_Global("torch", "Size"), (tuple(obj),))
        if isinstance(obj, _Device):
            return (_Global("torch", "device"), (str(obj),))
        return NotImplemented


def _is_parameter(obj):
    return isinstance(obj, Parameter)


def _write_record(zf: zipfile.ZipFile, name: str, data: bytes):
    """Write one stored (uncompressed) record whose payload starts on a 64-byte boundary, as torch does."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    start = zf.fp.tell()
    base = start + 30 + len(name.encode())
    pad = (-(base + 4)) % _ALIGN
    info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    zf.writestr(info, data)


def _dump(obj, fileobj):
    buf = io.BytesIO()
    p = _TorchPickler(buf)
    p.dump(obj)
    with zipfile.ZipFile(fileobj, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        _write_record(zf, "archive/data.pkl", buf.getvalue())
        _write_record(zf, "archive/.format_version", b"1")
        _write_record(zf, "archive/.storage_alignment", b"64")
        _write_record(zf, "archive/byteorder", b"little")
        for st, root in p.storages.values():
            data = root.astype(root.dtype.newbyteorder("<"), copy=False) if root.dtype.byteorder == ">" else root
            _write_record(zf, f"archive/data/{st.key}", data.tobytes())
        _write_record(zf, "archive/version", b"3\n")
        _write_record(zf, "archive/.data/serialization_id", str(int.from_bytes(os.urandom(16), "little")).encode())


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False) -> None:
    """Save ``obj`` (tensors, state_dicts, optimizer states, nested containers, modules) to ``f``.

    Mirrors ``torch.save``: PyTorch's zip format, readable by real ``torch.load(f, weights_only=True)``.
    ``f`` is a path (str or os.PathLike; written atomically through a temporary file, fsync and
    rename, so an interrupted save never leaves a truncated file) or a writable binary file object.
    RuntimeError for a non-leaf tensor that requires grad.
    """
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        d = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(prefix=".numtorch-save-", suffix=".tmp", dir=d)
        try:
            with os.fdopen(fd, "wb") as fh:
                _dump(obj, fh)
                fh.flush()
                os.fsync(fh.fileno())
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file the usual permissions
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        return
    _dump(obj, f)


# ================================================================================================
# load
# ================================================================================================
def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    arr, dt = storage
    isz = dt.itemsize
    if not size:
        view = np.ndarray((), dt.np, buffer=arr, offset=storage_offset * isz) if arr.size else np.zeros((), dt.np)
    else:
        need = storage_offset + 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
        if need > arr.size:
            raise RuntimeError(f"storage of {arr.size} elements is too small for a tensor of size {list(size)}, "
                               f"stride {list(stride)} at offset {storage_offset}")
        view = np.lib.stride_tricks.as_strided(arr[storage_offset:] if arr.size else arr, tuple(size),
                                               tuple(s * isz for s in stride))
    t = _make(view)
    if requires_grad:
        t.requires_grad = True
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks, *args):
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    if state:
        p.__dict__.update(state)
    return p


_safe_globals: dict = {}


def add_safe_globals(safe_globals) -> None:
    """Allow these classes/functions in ``weights_only`` loads (``torch.serialization.add_safe_globals``).

    Items are objects or ``(object, "module.Name")`` pairs. A ``torch.`` name in a file also matches
    the numtorch object of the same dotted path (``torch.nn.modules.linear.Linear`` ->
    ``numtorch.nn.modules.linear.Linear``).
    """
    for g in safe_globals:
        obj, name = (g if isinstance(g, tuple) else (g, f"{g.__module__}.{g.__qualname__}"))
        _safe_globals[name] = obj
        if name.startswith("numtorch."):
            _safe_globals["torch." + name[len("numtorch."):]] = obj


def get_safe_globals():
    return list(dict.fromkeys(_safe_globals.values()))


def clear_safe_globals() -> None:
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


def _builtin_allowed():
    allowed = {
        "collections.OrderedDict": collections.OrderedDict,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch.Size": Size,
        "torch.device": _Device,
        "builtins.set": set, "builtins.frozenset": frozenset, "builtins.slice": slice,
        "builtins.complex": complex, "builtins.bytearray": bytearray,
        # protocol-2 pickles name Python 3's builtins by their Python 2 module
        "__builtin__.set": set, "__builtin__.frozenset": frozenset, "__builtin__.slice": slice,
        "__builtin__.complex": complex, "__builtin__.bytearray": bytearray,
        "_codecs.encode": _codecs_encode,
    }
    for name in _STORAGE_DTYPES:
        allowed["torch." + name] = _StorageType(name)
    for name, d in _dtype._NAMES.items():
        allowed["torch." + name] = d
    return allowed


def _codecs_encode(obj, encoding="utf-8", errors="strict"):
    return codecs.encode(obj, encoding, errors)


class _StorageType:
    def __init__(self, name):
        self.dtype = _STORAGE_DTYPES[name]


class _Unpickler(pickle.Unpickler):
    def __init__(self, data, zf, prefix, weights_only, mmap_file):
        super().__init__(io.BytesIO(data))
        self.zf, self.prefix, self.weights_only, self.mmap_file = zf, prefix, weights_only, mmap_file
        self.allowed = _builtin_allowed()
        self.loaded = {}

    def find_class(self, module, name):
        full = f"{module}.{name}"
        if full in self.allowed:
            return self.allowed[full]
        if full in _safe_globals:
            return _safe_globals[full]
        if self.weights_only:
            raise pickle.UnpicklingError(
                f"Weights only load failed. Unsupported global: GLOBAL {full} was not an allowed global by "
                f"default. Use `numtorch.serialization.add_safe_globals([{name}])` or the "
                f"`numtorch.serialization.safe_globals([{name}])` context manager to allowlist this global if you "
                f"trust this class/function; or load with weights_only=False only if you trust the file, since "
                f"that can run arbitrary code.")
        if module == "torch" or module.startswith("torch."):
            module = "numtorch" + module[5:]
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"Unsupported persistent id: {pid!r}")
        _, stype, key, location, numel = pid
        dt = stype.dtype if isinstance(stype, _StorageType) else stype
        if key not in self.loaded:
            name = f"{self.prefix}data/{key}"
            if self.mmap_file is not None:
                info = self.zf.getinfo(name)
                arr = np.memmap(self.mmap_file, dtype=dt.np, mode="c", offset=_data_offset(self.zf, info),
                                shape=(info.file_size // dt.itemsize,))
            else:
                raw = self.zf.read(name)
                arr = np.frombuffer(bytearray(raw), dtype=dt.np)
            self.loaded[key] = arr
        return (self.loaded[key], dt)


def _data_offset(zf, info):
    zf.fp.seek(info.header_offset)
    hdr = zf.fp.read(30)
    n, e = struct.unpack("<HH", hdr[26:30])
    return info.header_offset + 30 + n + e


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=False, **pickle_load_args):
    """Load an object saved by ``numtorch.save`` or by real ``torch.save`` (``torch.load``).

    ``weights_only=True`` (default) unpickles only tensors, containers, numbers, strings, dtypes and
    globals allowed with ``add_safe_globals``; anything else raises ``pickle.UnpicklingError`` naming
    the global, without executing it. ``weights_only=False`` runs the full unpickler (which can
    execute code from the file) and warns. ``map_location`` is accepted for compatibility; tensors
    always load on the CPU. ``mmap=True`` maps storages from the file (copy-on-write) instead of
    reading them. RuntimeError for files that are not PyTorch zip archives (e.g. legacy pre-1.6 files)
    and for big-endian files.
    """
    if weights_only is None:
        weights_only = True
    if map_location is not None and not callable(map_location):
        locs = map_location.values() if isinstance(map_location, dict) else [map_location]
        for loc in locs:
            _check_device(loc)
    if not weights_only:
        warnings.warn("numtorch.load with weights_only=False can execute arbitrary code from the file; use it "
                      "only for files you trust.", UserWarning, stacklevel=2)
    opened = isinstance(f, (str, os.PathLike))
    fh = open(f, "rb") if opened else f
    try:
        if not zipfile.is_zipfile(fh):
            raise RuntimeError("numtorch.load: not a PyTorch zip archive (numtorch reads the format that "
                               "torch.save writes since PyTorch 1.6; re-save legacy files with a recent PyTorch)")
        fh.seek(0)
        with zipfile.ZipFile(fh) as zf:
            names = zf.namelist()
            pkl = next((n for n in names if n.endswith("data.pkl") and n.count("/") == 1), None)
            if pkl is None:
                raise RuntimeError("numtorch.load: archive has no data.pkl record")
            prefix = pkl[: -len("data.pkl")]
            if prefix + "byteorder" in names and zf.read(prefix + "byteorder").strip() != b"little":
                raise RuntimeError("numtorch.load: this file was saved on a big-endian machine; numtorch reads "
                                   "little-endian files only")
            mm = os.fspath(f) if (mmap and opened) else None
            if mmap and not opened:
                raise ValueError("f must be a file path in order to use the mmap argument")
            return _Unpickler(zf.read(pkl), zf, prefix, weights_only, mm).load()
    finally:
        if opened:
            fh.close()
