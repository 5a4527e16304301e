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
``load`` unpickles with an allow-list (``weights_only=True``, the default; the unpickler and the
validated tensor rebuilds live in ``_serialization_unpickler``) and also reads legacy (pre-1.6,
``_use_new_zipfile_serialization=False``) files. ``save`` to a path is atomic. What each guarantees
is written down in docs/serialization.md.
"""
from __future__ import annotations

import collections
import contextlib
import io
import os
import pickle
import re
import stat
import struct
import warnings
import zipfile
import zlib

import numpy as np

from . import _dtype
from ._device import check as _check_device
from ._device import device as _Device
from ._serialization_unpickler import (FullUnpickler, WeightsUnpickler, _is_int, _LoadedStorage, _StorageType,
                                       add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals)
from ._tensor import Size, Tensor, _make
from ._tensor_sparse import SparseCOO
from .nn.parameter import Parameter, is_lazy

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]

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


class _Layout:
    """The sparse COO layout as a sparse tensor's pickle names it."""


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
            return ("storage", _Global("torch", obj.dtype._storage_name), obj.key, "cpu", obj.numel)
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
            if is_lazy(obj):  # as PyTorch's __reduce_ex__: the class and requires_grad (no data, no dtype)
                return (_Global("torch.nn.parameter", type(obj).__name__), (obj.requires_grad,))
            if type(obj._data) is SparseCOO:  # as PyTorch: the layout, then indices, values, size, is_coalesced
                p = obj._data
                return (_Global("torch._utils", "_rebuild_sparse_tensor"),
                        (_Layout(), (_make(p.indices), _make(p.values), Size(p.shape),
                                                           p.coalesced)))
            if obj.is_meta and not isinstance(obj, Parameter):  # no data: the dtype, size, strides, as PyTorch
                return (_Global("torch._utils", "_rebuild_meta_tensor_no_storage"),
                        (_Global("torch", str(obj.dtype).split(".")[-1]), tuple(obj._data.shape), obj.stride(),
                         obj._rg))
            if isinstance(obj, Parameter):
                plain = _make(obj._data)
                return (_Global("torch._utils", "_rebuild_parameter"),
                        (plain, obj.requires_grad, collections.OrderedDict()))
            # a non-leaf is saved as PyTorch saves it: its data and requires_grad flag, no grad_fn
            st, off, stride = self._storage_of(obj._data)
            return (_Global("torch._utils", "_rebuild_tensor_v2"),
                    (st, off, tuple(obj._data.shape), stride, obj._rg, collections.OrderedDict()))
        if isinstance(obj, _Layout):  # torch pickles a layout as _get_layout("torch.sparse_coo")
            return (_Global("torch.serialization", "_get_layout"), ("torch.sparse_coo",))
        if isinstance(obj, Size):
            return (_Global("torch", "Size"), (tuple(obj),))
        if isinstance(obj, _Device):
            return (_Global("torch", "device"), (str(obj),))
        return NotImplemented


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


# temporary files of a save in progress: ".{name}.{pid}.{random}.tmp" next to the target
_TMP_RE = re.compile(r"^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def _remove_stale_temps(directory: str) -> None:
    """Delete temporary files left by saves whose process died (kill -9, power loss) in ``directory``."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    me = os.getpid()
    for e in entries:
        m = _TMP_RE.match(e.name)
        if m and int(m.group(1)) != me and not _pid_alive(int(m.group(1))):
            with contextlib.suppress(OSError):
                if e.is_file(follow_symlinks=False):
                    os.unlink(e.path)


def _fsync_dir(directory: str) -> None:
    """Make a rename in ``directory`` durable (no-op where directories cannot be opened or fsynced)."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _cannot_open(path, e: OSError) -> RuntimeError:
    # torch.save's file writer reports a target it cannot open (a directory, a symlink loop, no
    # permission) as RuntimeError, not as the OSError subclass
    return RuntimeError(f"File {path} cannot be opened: {e.strerror or e}")


def _save_to_path(obj, path: str) -> None:
    target = os.path.realpath(path)  # through symlinks: the link keeps pointing at the checkpoint
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as e:  # ELOOP, EACCES on a path component, ...
        raise _cannot_open(path, e) from e
    if st is not None and not stat.S_ISREG(st.st_mode):  # /dev/null, a FIFO, a device: never replace it
        try:
            fh = open(target, "wb")
        except OSError as e:
            raise _cannot_open(path, e) from e
        with fh:
            _dump(obj, fh)
        return
    directory, name = os.path.split(target)
    if not os.path.isdir(directory):
        raise RuntimeError(f"Parent directory {directory} does not exist.")
    _remove_stale_temps(directory)
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    try:
        # a new file gets 0666 & ~umask like open(); an existing one keeps its mode (set below)
        fd = os.open(tmp, flags, 0o600 if st is not None else 0o666)
    except PermissionError:  # a writable file in a directory we may not create files in: write in place
        try:
            fh = open(target, "r+b")
        except OSError as e:
            raise _cannot_open(path, e) from e
        with fh:
            _dump(obj, fh)
            fh.truncate()
        return
    except OSError as e:  # a read-only file system, ...
        raise _cannot_open(path, e) from e
    try:
        with os.fdopen(fd, "wb") as fh:
            _dump(obj, fh)
            fh.flush()
            os.fsync(fh.fileno())
            if st is not None:
                with contextlib.suppress(PermissionError):  # only root may give a file to another user
                    os.fchown(fh.fileno(), st.st_uid, st.st_gid)
                os.fchmod(fh.fileno(), stat.S_IMODE(st.st_mode))  # after chown, which may clear setuid bits
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(directory)


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False) -> None:
    """Save ``obj`` (tensors, state_dicts, optimizer states, nested containers, modules) to ``f``.

    Mirrors ``torch.save``: PyTorch's zip format, readable by real ``torch.load(f, weights_only=True)``.
    ``f`` is a path (str or os.PathLike) or a writable binary file object (written directly).
    A path to a regular file (or to nothing yet) is written atomically: a temporary
    ``.{name}.{pid}.{random}.tmp`` in the same directory, fsync, rename over the target, fsync of
    the directory; the target is always the old file or the complete new one. Symlinks are written
    through (the link stays), an existing file keeps its mode and (where permitted) owner, and
    device files and FIFOs (``/dev/null``) are written directly, never replaced. Temporary files of
    saves whose process died are removed by the next save into the same directory.
    A non-leaf tensor that requires grad is saved as PyTorch saves it: values and ``requires_grad``,
    no ``grad_fn`` (it loads as a leaf requiring grad).
    """
    if isinstance(f, (str, os.PathLike)):
        _save_to_path(obj, os.fspath(f))
        return
    _dump(obj, f)


# ================================================================================================
# load
# ================================================================================================
_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C  # legacy (pre-zip) format header, as torch.serialization
_PROTOCOL_VERSION = 1001
_DEFLATE_MAX_RATIO = 1032  # deflate cannot expand more than this; bounds what a record may declare
_TRUE_VALUES = ("1", "y", "yes", "true")


def _damaged(reason, record=None) -> RuntimeError:
    where = f" (record {record})" if record else ""
    return RuntimeError(f"numtorch.load failed reading zip archive{where}: {reason}. The checkpoint file is damaged: "
                        "it was not saved completely, was truncated or corrupted in transfer, or is not a "
                        "PyTorch checkpoint.")


_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, struct.error, ValueError, OSError,
               NotImplementedError)


def _read_record(zf, info, limit_ratio=_DEFLATE_MAX_RATIO) -> np.ndarray:
    """The bytes of one zip record as a uint8 array, CRC-checked; never more than it declares."""
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise RuntimeError(f"numtorch.load: record {info.filename} uses compression method {info.compress_type}; "
                           "PyTorch checkpoints are stored or deflated")
    n = info.file_size
    if n > max(info.compress_size, 1) * (1 if info.compress_type == zipfile.ZIP_STORED else limit_ratio):
        raise _damaged(f"it declares {n} bytes from {info.compress_size} stored bytes", info.filename)
    buf = np.empty(n, np.uint8)
    mv = memoryview(buf)
    pos = 0
    try:
        with zf.open(info) as src:
            while pos < n:
                chunk = src.read(min(1 << 24, n - pos))
                if not chunk:
                    raise EOFError("the record ends early")
                mv[pos:pos + len(chunk)] = chunk
                pos += len(chunk)
            src.read(1)  # reaching the end verifies the CRC
    except _ZIP_ERRORS + (zlib.error,) as e:
        raise _damaged(e, info.filename) from None
    return buf


def _data_offset(zf, info):
    zf.fp.seek(info.header_offset)
    hdr = zf.fp.read(30)
    if len(hdr) != 30 or hdr[:4] != b"PK\x03\x04":
        raise _damaged("bad local file header", info.filename)
    n, e = struct.unpack("<HH", hdr[26:30])
    return info.header_offset + 30 + n + e


class _ZipStorages:
    """``persistent_load`` for zip checkpoints: ``('storage', type, key, location, numel)`` -> _LoadedStorage."""

    def __init__(self, zf, prefix, mmap_path, archive_size):
        self.zf, self.prefix, self.mmap_path, self.archive_size = zf, prefix, mmap_path, archive_size
        self.loaded = {}

    def __call__(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"Unsupported persistent id: {pid!r}")
        return _storage(self, pid[1], pid[2], pid[4], self._read)

    def _read(self, key, dt, nbytes):
        name = f"{self.prefix}data/{key}"
        try:
            info = self.zf.getinfo(name)
        except KeyError:
            raise RuntimeError(f"numtorch.load: storage record {name} is missing from the archive") from None
        if info.file_size != nbytes:
            raise RuntimeError(f"numtorch.load: record {name} holds {info.file_size} bytes but the checkpoint declares "
                               f"{nbytes // dt.itemsize} elements of {dt} ({nbytes} bytes) in it")
        if self.mmap_path is None or nbytes == 0:
            return _LoadedStorage(_read_record(self.zf, info).view(dt.np), dt, name)
        if info.compress_type != zipfile.ZIP_STORED:
            raise RuntimeError(f"numtorch.load: record {name} is compressed and cannot be memory-mapped")
        off = _data_offset(self.zf, info)
        if off + nbytes > self.archive_size:
            raise _damaged("the record extends past the end of the file", name)
        arr = np.memmap(self.mmap_path, dtype=dt.np, mode="c", offset=off, shape=(nbytes // dt.itemsize,))
        return _LoadedStorage(arr, dt, name)


def _storage(loader, stype, key, numel, read):
    """Shared part of both formats' persistent_load: check the id, read each record once under one dtype."""
    dt = stype.dtype if isinstance(stype, _StorageType) else stype
    if not isinstance(dt, _dtype.dtype) or not isinstance(key, str) or not _is_int(numel) or numel < 0:
        raise pickle.UnpicklingError(f"malformed storage id (type {stype!r}, key {key!r}, numel {numel!r})")
    got = loader.loaded.get(key)
    if got is None:
        got = loader.loaded[key] = read(key, dt, int(numel) * dt.itemsize)
    elif got.dtype is not dt:
        raise RuntimeError(f"numtorch.load: storage {got.record} is read as {got.dtype} and as {dt}; a storage "
                           "record has one dtype")
    return got


class _LegacyStorages:
    """``persistent_load`` for legacy files: ``('storage', type, key, location, numel, None)``; the bytes follow
    the pickle, so storages are zero-filled here and read by ``fill`` (never more than the file holds)."""

    def __init__(self, file_size):
        self.loaded, self.budget = {}, file_size

    def __call__(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 6 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"Unsupported persistent id: {pid!r}")
        if pid[5] is not None:
            raise RuntimeError("numtorch.load: legacy storage views (view_metadata) are not supported")
        return _storage(self, pid[1], pid[2], pid[4], self._alloc)

    def _alloc(self, key, dt, nbytes):
        self.budget -= nbytes
        if self.budget < 0:
            raise RuntimeError(f"numtorch.load: storage {key} declares {nbytes} bytes, more than the file holds")
        return _LoadedStorage(np.zeros(nbytes // dt.itemsize, dt.np), dt, f"storage {key}")

    def fill(self, fh, keys):
        if not isinstance(keys, list) or set(keys) != set(self.loaded) or len(keys) != len(self.loaded):
            raise RuntimeError("numtorch.load: the legacy file's storage list does not match its tensors; "
                               "the file is damaged")
        for key in keys:
            st = self.loaded[key]
            head = fh.read(8)
            if len(head) != 8 or struct.unpack("<q", head)[0] != st.array.size:
                raise RuntimeError(f"numtorch.load: {st.record} has a bad size header; the file is damaged")
            raw = st.array.view(np.uint8)
            if st.array.size and fh.readinto(memoryview(raw)) != raw.size:
                raise EOFError(f"numtorch.load: {st.record} ends early; the file is truncated")


def _refuse_persistent(pid):
    raise pickle.UnpicklingError(f"Unsupported persistent id: {pid!r}")


_MALFORMED = {}


def _malformed(cls):
    """``pickle.UnpicklingError`` that is also ``cls``: PyTorch's weights-only unpickler lets the raw
    KeyError/IndexError/... of a malformed pickle (a text file) escape, so ``except KeyError`` written for
    torch still catches numtorch's error, and so does ``except pickle.UnpicklingError``."""
    if cls not in (KeyError, IndexError, ValueError, TypeError, AttributeError):  # one-message types only
        return pickle.UnpicklingError
    if cls not in _MALFORMED:
        _MALFORMED[cls] = type("UnpicklingError", (pickle.UnpicklingError, cls),
                               {"__str__": BaseException.__str__, "__module__": "_pickle"})
    return _MALFORMED[cls]


def _unpickle(file, weights_only, persistent_load, encoding="utf-8", **pickle_load_args):
    cls = WeightsUnpickler if weights_only else FullUnpickler
    kwargs = {} if weights_only else pickle_load_args
    try:
        return cls(file, persistent_load, encoding=encoding, **kwargs).load()
    except pickle.UnpicklingError as e:
        if not (weights_only and isinstance(e.__context__, KeyError) and str(e).startswith("Memo value not found")):
            raise
        # the stock unpickler's wording for a missing memo entry (a text file); PyTorch's raises KeyError
        raise _malformed(KeyError)(f"numtorch.load: the file is damaged or not a PyTorch checkpoint (malformed "
                                   f"pickle: {e})") from e
    except (RuntimeError, MemoryError):
        raise
    except EOFError as e:
        raise EOFError("numtorch.load: the checkpoint ends early: the file is empty, truncated or damaged") from e
    except (KeyError, IndexError, ValueError, TypeError, AttributeError, struct.error) as e:
        if not weights_only:
            raise
        raise _malformed(type(e))(f"numtorch.load: the file is damaged or not a PyTorch checkpoint (malformed "
                                  f"pickle: {type(e).__name__}: {e})") from e


def _resolve_weights_only(weights_only, pickle_module=None):
    """``weights_only`` after PyTorch 2.13's defaults (True, but False when a ``pickle_module`` is
    given) and TORCH_FORCE_(NO_)WEIGHTS_ONLY_LOAD overrides."""
    not_set = weights_only is None
    if not_set:
        weights_only = pickle_module is None
    force = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE_VALUES
    force_no = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE_VALUES
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set.")
    if force:
        return True
    if force_no and not_set:  # only overrides a call that did not pass weights_only
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the"
                      "`weights_only` argument was not explicitly passed to `torch.load`, forcing weights_only=False.",
                      UserWarning, stacklevel=3)
        return False
    return bool(weights_only)


def _load_zip(fh, weights_only, mmap_path, pickle_load_args):
    size = fh.seek(0, 2)
    fh.seek(0)
    try:
        zf = zipfile.ZipFile(fh)
    except _ZIP_ERRORS as e:
        raise _damaged(e) from None
    with zf:
        names = zf.namelist()
        pkl = next((n for n in names if n.endswith("data.pkl") and n.count("/") == 1), None)
        if pkl is None:
            raise RuntimeError("numtorch.load: archive has no data.pkl record; it is not a PyTorch checkpoint")
        prefix = pkl[: -len("data.pkl")]
        if prefix + "byteorder" in names and _read_record(zf, zf.getinfo(prefix + "byteorder")).tobytes().strip() \
                != b"little":
            raise RuntimeError("numtorch.load: this file was saved on a big-endian machine; numtorch reads "
                               "little-endian files only")
        data = _read_record(zf, zf.getinfo(pkl)).tobytes()
        return _unpickle(io.BytesIO(data), weights_only, _ZipStorages(zf, prefix, mmap_path, size),
                         **pickle_load_args)


def _load_legacy(fh, weights_only, pickle_load_args):
    start = fh.tell()
    size = fh.seek(0, 2) - start
    fh.seek(start)
    magic = _unpickle(fh, weights_only, _refuse_persistent, **pickle_load_args)
    if magic != _MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file? (numtorch.load: not a PyTorch checkpoint, or a "
                           "damaged one)")
    version = _unpickle(fh, weights_only, _refuse_persistent, **pickle_load_args)
    if version != _PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    _unpickle(fh, weights_only, _refuse_persistent, **pickle_load_args)  # sys_info
    storages = _LegacyStorages(size)
    result = _unpickle(fh, weights_only, storages, **pickle_load_args)
    storages.fill(fh, _unpickle(fh, weights_only, _refuse_persistent, **pickle_load_args))
    return result


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load an object saved by ``numtorch.save`` or by real ``torch.save`` (``torch.load``).

    Reads PyTorch's zip format and the legacy (pre-1.6) format. ``weights_only`` (default True, or
    as forced by the ``TORCH_FORCE_WEIGHTS_ONLY_LOAD`` / ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD``
    environment variables, as in PyTorch 2.13) unpickles only tensors, containers, numbers,
    strings, dtypes and globals allowed with ``add_safe_globals``; anything else raises
    ``pickle.UnpicklingError`` naming the global, without executing it. ``weights_only=False`` runs
    the full unpickler, which can execute any code the file names (no warning, as in PyTorch 2.13).
    Every tensor is bounds-checked against its storage record (RuntimeError naming the record).
    ``map_location`` is accepted for compatibility; tensors always load on the CPU. ``mmap=True``
    maps storages from the file (copy-on-write) instead of reading them.

    Errors, with PyTorch's types: EOFError for an empty or truncated legacy file; RuntimeError for
    a damaged zip archive (truncated, CRC mismatch), a bad legacy magic number, big-endian files;
    pickle.UnpicklingError for a file that is not a pickle (text) or for a refused global.
    """
    weights_only = _resolve_weights_only(weights_only, pickle_module)
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
        pickle_load_args = {}
    if map_location is not None and not callable(map_location):
        locs = map_location.values() if isinstance(map_location, dict) else [map_location]
        for loc in locs:
            _check_device(loc)
    opened = isinstance(f, (str, os.PathLike))
    if mmap and not opened:
        raise ValueError("f must be a file path in order to use the mmap argument")
    fh = open(f, "rb") if opened else f
    try:
        start = fh.tell()
        head = fh.read(4)
        fh.seek(start)
        if not head:
            raise EOFError("numtorch.load: the file is empty (0 bytes): not a checkpoint, or a save that never "
                           "finished")
        if head == b"PK\x03\x04":
            return _load_zip(fh, weights_only, os.fspath(f) if mmap else None, pickle_load_args)
        if mmap:
            raise RuntimeError("mmap can only be used with files saved with "
                               "`torch.save(_use_new_zipfile_serialization=True), please torch.save your "
                               "checkpoint with this option in order to use mmap.")
        return _load_legacy(fh, weights_only, pickle_load_args)
    finally:
        if opened:
            fh.close()
