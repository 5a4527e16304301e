"""Module-level utilities of the ``torch`` namespace that hold no math: type limits (``finfo``,
``iinfo``), print options, thread counts, determinism and matmul-precision flags, anomaly-mode
queries, and the memory-pinning Tensor methods (mirrors the matching ``torch.*`` functions).

Flags that steer GPU kernels in PyTorch (determinism, TF32 matmul precision) are remembered and
reported back but change nothing here: NumPy on the CPU is already deterministic and full precision.
"""
from __future__ import annotations

import os
import warnings

import numpy as np

from . import _dtype, _tensor_str
from ._tensor import Tensor
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled

__all__ = ["finfo", "iinfo", "set_printoptions", "get_printoptions", "set_num_threads", "get_num_threads",
           "set_num_interop_threads", "get_num_interop_threads", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "set_float32_matmul_precision", "get_float32_matmul_precision", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_anomaly_enabled"]


# ------------------------------------------------------------------------------------------------
# finfo / iinfo
# ------------------------------------------------------------------------------------------------
class finfo:
    """Limits of a floating-point dtype (``torch.finfo``); default: the default dtype.

    Attributes (Python floats, as in PyTorch): ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (=
    ``smallest_normal``), ``resolution`` (``10**-precision``) and ``dtype`` (its name, a str).
    Complex dtypes report their real part's limits. TypeError for integer and bool dtypes.
    """

    def __init__(self, type=None):  # noqa: A002 - PyTorch's parameter name
        d = _dtype.get_default_dtype() if type is None else type
        if not isinstance(d, _dtype.dtype) or not (d.is_floating_point or d.is_complex):
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        d = d.to_real()
        if d is _dtype.bfloat16:
            import ml_dtypes  # loads on first use (start-up cost), as in _dtype
            info = ml_dtypes.finfo(d.np)
        else:
            info = np.finfo(d.np)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = d.name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    __hash__ = None  # PyTorch's finfo is unhashable too


class iinfo:
    """Limits of an integer dtype (``torch.iinfo``): ``bits``, ``max``, ``min`` (Python ints) and
    ``dtype`` (its name). TypeError for floating dtypes and for bool."""

    def __init__(self, type):  # noqa: A002
        if not isinstance(type, _dtype.dtype) or type._cat != 1:
            if isinstance(type, _dtype.dtype) and type is _dtype.bool:
                raise TypeError("torch.bool is not supported by torch.iinfo")
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits, self.max, self.min, self.dtype = int(info.bits), int(info.max), int(info.min), type.name

    def __repr__(self):
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    __hash__ = None


# ------------------------------------------------------------------------------------------------
# printing
# ------------------------------------------------------------------------------------------------
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, float("inf"), 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """Set how tensors print (``torch.set_printoptions``).

    ``precision``: digits after the point (default 4); ``threshold``: element count above which the
    middle of each dimension is elided (1000); ``edgeitems``: items kept at each end when eliding
    (3); ``linewidth``: characters per line (80); ``profile``: ``'default'``, ``'short'`` or
    ``'full'`` presets applied first; ``sci_mode``: True/False forces scientific notation on/off,
    None (also what any call without it sets) chooses automatically.
    """
    if profile is not None and profile in _PROFILES:
        (_tensor_str.PRECISION, _tensor_str.THRESHOLD, _tensor_str.EDGEITEMS,
         _tensor_str.LINEWIDTH) = _PROFILES[profile]
    if precision is not None:
        _tensor_str.PRECISION = precision
    if threshold is not None:
        _tensor_str.THRESHOLD = threshold
    if edgeitems is not None:
        _tensor_str.EDGEITEMS = edgeitems
    if linewidth is not None:
        _tensor_str.LINEWIDTH = linewidth
    _tensor_str.SCI_MODE = sci_mode


def get_printoptions() -> dict:
    """The current print options as a dict that ``set_printoptions(**opts)`` accepts."""
    s = _tensor_str
    return dict(precision=s.PRECISION, threshold=s.THRESHOLD, edgeitems=s.EDGEITEMS, linewidth=s.LINEWIDTH,
                sci_mode=s.SCI_MODE)


# ------------------------------------------------------------------------------------------------
# threads
# ------------------------------------------------------------------------------------------------
_threads = {"intra": None, "interop": None}


def _positive_int(n, fn):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise RuntimeError(f"{fn} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{fn} expects a positive integer")
    return int(n)


def set_num_threads(int):  # noqa: A002 - PyTorch's parameter name
    """Threads used for intra-op parallelism (``torch.set_num_threads``): sets NumPy's BLAS thread
    pool to ``int`` threads (through ``threadpoolctl``), the only multithreaded part of numtorch
    (NumPy's elementwise kernels use one thread). RuntimeError for a non-positive or non-int value."""
    n = _positive_int(int, "set_num_threads")
    from threadpoolctl import threadpool_limits  # ~10 ms to import: only when threads change
    threadpool_limits(limits=n, user_api="blas")  # stays in force until changed again
    _threads["intra"] = n


def get_num_threads() -> int:
    """The intra-op thread count (``torch.get_num_threads``): the last value set (by the user or by
    the choice made at import, see ``_choose_num_threads``), else the BLAS pool's size."""
    if _threads["intra"] is not None:
        return _threads["intra"]
    from threadpoolctl import threadpool_info  # ~10 ms to import: only when asked
    sizes = [i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"]
    return max(sizes) if sizes else (os.cpu_count() or 1)


def _usable_cpus() -> set:
    """The logical CPUs this process may run on (its affinity mask where the OS has one)."""
    return os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set(range(os.cpu_count() or 1))


def _physical_cores(cpus) -> int:
    """How many physical cores ``cpus`` span: hyper-threads of one core count once (Linux sysfs;
    elsewhere every logical CPU counts)."""
    cores = set()
    for c in cpus:
        try:
            with open(f"/sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list") as f:
                cores.add(f.read().strip())
        except OSError:
            cores.add(c)
    return max(1, len(cores))


def _default_num_threads(cpus) -> int:
    """PyTorch's default intra-op thread count is the number of physical cores; on a machine that
    other work keeps busy, BLAS threads that share a core with it wait for each other (OpenBLAS's
    idle threads also spin), so numtorch takes only the cores the load average leaves free, at
    least one. Measured: the digits demo on a 2-core machine at load average 11-14 took 214 s
    (median of 3) with 2 BLAS threads, 42 s with this choice (1)."""
    cores = _physical_cores(cpus)
    try:
        busy = os.getloadavg()[0]  # runnable processes, averaged over the last minute
    except (AttributeError, OSError):  # no load average on this OS
        busy = 0.0
    return max(1, min(cores, int((os.cpu_count() or cores) - busy + 0.5)))


_THREAD_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "GOTO_NUM_THREADS")


def _choose_num_threads() -> None:
    """At import: set NumPy's BLAS pool to ``_default_num_threads()``, unless the user chose a count
    through the environment (those variables win, as they do in PyTorch). OpenBLAS starts one thread
    per usable CPU, so ``threadpoolctl`` (~10-30 ms) is loaded only when fewer are wanted."""
    if any(os.environ.get(v) for v in _THREAD_ENV):
        return
    cpus = _usable_cpus()
    n = _default_num_threads(cpus)
    if n < len(cpus):
        from threadpoolctl import ThreadpoolController  # only when the pool must shrink (see above)
        for pool in ThreadpoolController().select(user_api="blas").lib_controllers:
            if pool.num_threads > n:  # never raise a limit someone set before numtorch was imported
                pool.set_num_threads(n)
    _threads["intra"] = n


_choose_num_threads()


def set_num_interop_threads(int):  # noqa: A002
    """Threads for inter-op parallelism (``torch.set_num_interop_threads``); numtorch runs ops one at
    a time, so the value is only remembered. RuntimeError for a non-positive or non-int value."""
    _threads["interop"] = _positive_int(int, "set_num_interop_threads")


def get_num_interop_threads() -> int:
    """The value given to ``set_num_interop_threads``, else the CPU count."""
    return _threads["interop"] if _threads["interop"] is not None else (os.cpu_count() or 1)


# ------------------------------------------------------------------------------------------------
# determinism and matmul precision flags
# ------------------------------------------------------------------------------------------------
_flags = {"deterministic": False, "warn_only": False, "matmul_precision": "highest"}


def use_deterministic_algorithms(mode, *, warn_only=False) -> None:
    """Ask for deterministic algorithms (``torch.use_deterministic_algorithms``); every numtorch op
    already is, so this records the flags. TypeError for non-bool arguments, as in PyTorch."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _flags["deterministic"], _flags["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    return _flags["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _flags["warn_only"]


def set_float32_matmul_precision(precision: str) -> None:
    """Record ``'highest'``, ``'high'`` or ``'medium'`` (``torch.set_float32_matmul_precision``);
    float32 matmuls always run at full precision here. Other values warn and change nothing."""
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      f"setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _flags["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _flags["matmul_precision"]


# ------------------------------------------------------------------------------------------------
# pinned memory (Tensor methods, bound in _tensor_methods.py)
# ------------------------------------------------------------------------------------------------
def pin_memory(self: Tensor, device=None) -> Tensor:
    """``Tensor.pin_memory``: there is no accelerator to pin memory for, so ``self`` is returned."""
    return self


def is_pinned(self: Tensor, device=None) -> bool:
    """``Tensor.is_pinned``: always False (numtorch never pins memory)."""
    return False
