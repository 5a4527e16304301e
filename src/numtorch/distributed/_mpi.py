"""The MPI engine under ``numtorch.distributed``: loading mpi4py, waiting without hanging, and the
checks that make a broken job fail loudly instead of hanging or computing garbage.

Three ideas, each small:

* **Waiting with a deadline.** Every transfer is an MPI non-blocking call (``Iallreduce``, ``Isend``,
  ...). :func:`wait_all` polls its requests until they finish, the process group's ``timeout``
  passes (then ``DistBackendError``), or another rank reports a failure (then ``DistBackendError``
  naming that rank and its error). A rank that dies therefore never makes the others hang.
* **Failure notices.** When a rank's program raises (an uncaught exception, see
  :func:`install_excepthook`), it sends a short message on a private communicator to every other
  rank before exiting; their waits see it and raise. A rank killed by a signal cannot send one: the
  others see the ``timeout`` pass, and ``mpiexec`` ends the job.
* **Collective headers.** Before each collective every rank sends every other rank of the group a
  small header (sequence number, collective, dtype, shape, root, reduce op) and checks the ones it
  receives. Ranks that call different collectives, or the same one on different shapes, all raise
  ``RuntimeError`` naming both calls, where MPI itself would hang or mix up data.

mpi4py is imported lazily (``import numtorch`` must not start MPI); ``mpi()`` returns its ``MPI``.
"""
from __future__ import annotations

import json
import os
import pickle
import sys
import time

import numpy as np

__all__ = ["mpi", "mpi_importable", "DistError", "DistBackendError", "DistNetworkError", "DistStoreError",
           "wait_all", "check_headers", "Channel", "install_excepthook", "mpi_dtype"]

_TAG_HEADER, _TAG_FAIL, _TAG_EXIT = 1, 2, 3
_MPI = None


class DistError(RuntimeError):
    """``torch.distributed.DistError``: the base of distributed errors (a RuntimeError)."""


class DistBackendError(DistError):
    """``torch.distributed.DistBackendError``: a collective failed (timeout, peer failure)."""


class DistNetworkError(DistError):
    """``torch.distributed.DistNetworkError``."""


class DistStoreError(DistError):
    """``torch.distributed.DistStoreError``."""


for _cls in (DistError, DistBackendError, DistNetworkError, DistStoreError):
    _cls.__module__ = "numtorch.distributed"  # where users import them from


def mpi_importable() -> bool:
    """True when mpi4py can be imported (it does not start MPI: only ``mpi4py.MPI`` does)."""
    try:
        import mpi4py  # noqa: F401  # the package only; importing it does not initialize MPI
    except ImportError:
        return False
    return True


def mpi():
    """``mpi4py.MPI``, imported (and MPI initialized) on first use, with finalization left to us."""
    global _MPI
    if _MPI is None:
        import mpi4py  # the MPI runtime starts only when a process group is made
        mpi4py.rc.threads = False  # collectives run on the caller's thread only
        from mpi4py import MPI  # initializes MPI (a singleton when not started by mpiexec)
        _MPI = MPI
    return _MPI


# ------------------------------------------------------------------------------------------- dtypes
_MPI_TYPE_NAMES = {"float32": "FLOAT", "float64": "DOUBLE", "int8": "INT8_T", "int16": "INT16_T",
                   "int32": "INT32_T", "int64": "INT64_T", "uint8": "UINT8_T", "uint16": "UINT16_T",
                   "uint32": "UINT32_T", "uint64": "UINT64_T", "bool": "C_BOOL", "complex64": "C_FLOAT_COMPLEX",
                   "complex128": "C_DOUBLE_COMPLEX"}


def mpi_dtype(np_dtype):
    """The MPI datatype of a NumPy dtype, or None (float16, bfloat16: reduced by NumPy instead)."""
    name = _MPI_TYPE_NAMES.get(np.dtype(np_dtype).name)
    return None if name is None else getattr(mpi(), name)


# -------------------------------------------------------------------------------------- failures
class Channel:
    """One process group's communicators: ``comm`` (collectives), ``ctrl`` (a duplicate, for headers
    and failure notices, so they never meet user messages), ``p2p`` (a duplicate for send/recv, so
    user tags never meet collectives), and the collective sequence counter."""

    def __init__(self, comm, timeout: float):
        self.comm, self.timeout, self.seq = comm, float(timeout), 0
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        # collectives, made here (and not on first use) because every rank of the group must call them
        (self.ctrl, r1), (self.p2p, r2) = comm.Idup(), comm.Idup()
        wait_all([r1, r2], "creating the process group's communicators", self.timeout)


_world: Channel | None = None  # set by init_process_group; failure notices travel on its ``ctrl``
_failure: str | None = None    # the first failure notice received
_exited: set = set()           # ranks that ended their program with the process group still initialized


def set_world(channel) -> None:
    global _world, _failure
    _world, _failure = channel, None
    _exited.clear()


def _poll_failure(pending=None):
    """Raise DistBackendError if a failure notice from another rank has arrived, or if a rank that the
    wait still needs (``pending()``: global ranks not heard from) has ended its program."""
    global _failure
    if _failure is None and _world is not None:
        MPI = mpi()
        status = MPI.Status()
        if _world.ctrl.Iprobe(source=MPI.ANY_SOURCE, tag=_TAG_FAIL, status=status):
            _failure = _world.ctrl.recv(source=status.Get_source(), tag=_TAG_FAIL)
        while _world.ctrl.Iprobe(source=MPI.ANY_SOURCE, tag=_TAG_EXIT, status=status):
            _exited.add(_world.ctrl.recv(source=status.Get_source(), tag=_TAG_EXIT))
    if _failure is not None:
        raise DistBackendError(f"{_failure} (this is rank {_world.rank}; the job cannot continue)")
    gone = sorted(_exited.intersection(pending())) if _exited and pending is not None else None
    if gone:
        raise DistBackendError(f"rank(s) {gone} exited while this rank (rank {_world.rank}) waits for them in a "
                               "collective (their program ended without calling it)")


def wait_all(requests, what: str, timeout: float, pending_ranks=None) -> None:
    """Wait for MPI ``requests`` without hanging: raise DistBackendError when ``timeout`` seconds pass
    (naming ``what`` and, when given, ``pending_ranks(requests)`` -- the ranks not heard from) or when
    another rank reports a failure. Spins briefly, then sleeps a little longer each time (up to 2 ms)
    so that a busy machine's other processes get the cores."""
    MPI = mpi()
    deadline, pause, spins = time.monotonic() + timeout, 0.0, 0
    while not MPI.Request.Testall(requests):
        _poll_failure(pending_ranks and (lambda: pending_ranks(requests)))
        if time.monotonic() > deadline:
            late = f"; no answer from rank(s) {pending_ranks(requests)}" if pending_ranks else ""
            raise DistBackendError(f"{what} timed out after {timeout:g} s{late} (a rank died, hangs, or "
                                   "called a different collective)")
        spins += 1
        if spins > 200:
            pause = min(0.002, pause + 0.0001)
            time.sleep(pause)


class HeaderCheck:
    """The header exchange of one collective, posted: ``requests`` to wait for, then ``verify()``."""

    def __init__(self, ch: Channel, name: str, arr, root, op, same_shape, group_ranks):
        ch.seq += 1
        shape = list(arr.shape) if arr is not None and same_shape else None
        self.mine = [ch.seq, name, arr.dtype.name if arr is not None else "", shape, root, op]
        payload = json.dumps(self.mine).encode()
        self.others = [r for r in range(ch.size) if r != ch.rank]
        self.glob = (lambda r: group_ranks[r]) if group_ranks else (lambda r: r)
        self.me, self.what, self.timeout = self.glob(ch.rank), f"{name} (collective #{ch.seq} of this group)", \
            ch.timeout
        MPI = mpi()
        self.bufs = {r: bytearray(len(payload) + 4096) for r in self.others}
        self.recvs = [ch.ctrl.Irecv([self.bufs[r], MPI.BYTE], source=r, tag=_TAG_HEADER) for r in self.others]
        self.requests = [ch.ctrl.Isend([payload, MPI.BYTE], dest=r, tag=_TAG_HEADER) for r in self.others]
        self.requests += self.recvs

    def pending(self, _=None):
        """The global ranks whose header has not arrived."""
        return [self.glob(r) for r, q in zip(self.others, self.recvs) if not q.Test()]

    def wait(self):
        wait_all(self.requests, self.what, self.timeout, self.pending)
        self.verify()

    def verify(self):
        for r in self.others:
            theirs = json.loads(bytes(self.bufs[r]).rstrip(b"\0"))
            if theirs != self.mine:
                raise RuntimeError(f"Collective mismatch: rank {self.me} called {_describe(self.mine)} but rank "
                                   f"{self.glob(r)} called {_describe(theirs)}; every rank of a group must call the "
                                   "same collectives in the same order on tensors of the same shape and dtype")


def check_headers(ch: Channel, name: str, arr, root=-1, op="", same_shape=True, group_ranks=None, defer=False):
    """Exchange this rank's header of the collective ``name`` (dtype and, when ``same_shape``, shape of
    ``arr``; ``root``; reduce ``op``) with every other rank of the channel's group; raise RuntimeError
    when one of them called something else. ``group_ranks`` maps group ranks to global ranks for the
    messages. ``defer=True`` (async collectives) returns the posted :class:`HeaderCheck` for the Work
    to finish, so that the transfer can start at once; otherwise it waits and returns None."""
    if ch.size == 1:
        ch.seq += 1
        return None
    check = HeaderCheck(ch, name, arr, root, op, same_shape, group_ranks)
    if defer:
        return check
    check.wait()
    return None


def _describe(h) -> str:
    seq, name, dtype, shape, root, op = h
    parts = [f"dtype={dtype}"] if dtype else []
    if shape is not None and dtype:
        parts.append(f"shape={list(shape)}")
    if root >= 0:
        parts.append(f"root={root}")
    if op:
        parts.append(f"op={op}")
    return f"{name}({', '.join(parts)}) as collective #{seq}"


# ------------------------------------------------------------------------------ dying with notice
def notify_exit() -> None:
    """At interpreter exit with the process group still initialized: tell the other ranks, so that one
    still waiting for this rank in a collective raises instead of waiting for the timeout (PyTorch's
    gloo sees the connection close). Best effort: half a second for the small sends."""
    if _world is None or _world.size == 1 or _failure is not None:
        return
    MPI = mpi()
    reqs = [_world.ctrl.isend(_world.rank, dest=r, tag=_TAG_EXIT) for r in range(_world.size) if r != _world.rank]
    deadline = time.monotonic() + 0.5
    while not MPI.Request.Testall(reqs) and time.monotonic() < deadline:
        time.sleep(0.001)


def notify_failure(message: str) -> None:
    """Tell every other rank that this one failed (best effort: a second's wait for the sends)."""
    if _world is None or _world.size == 1 or _failure is not None:
        return  # nobody to tell, or the failure came from elsewhere and everyone already knows
    MPI = mpi()
    data = pickle.dumps(message)
    reqs = [_world.ctrl.Isend([data, MPI.BYTE], dest=r, tag=_TAG_FAIL) for r in range(_world.size)
            if r != _world.rank]
    deadline = time.monotonic() + 1.0
    while not MPI.Request.Testall(reqs) and time.monotonic() < deadline:
        time.sleep(0.001)


_status_dir = os.environ.get("NUMTORCH_DIST_STATUS_DIR")  # set by numtorch.distributed.run


def write_status(rank: int, text: str) -> None:
    """Leave ``text`` for the launcher (``run.py``) in its status folder, if it gave one. The first
    status a rank writes stays (it is the closest to the cause)."""
    if _status_dir:
        try:
            with open(os.path.join(_status_dir, f"rank{rank}.txt"), "x") as f:
                f.write(text)
        except OSError:  # already written, or the folder is gone
            pass


def die(code: int, grace: float) -> None:
    """End this failed process now, skipping MPI_Finalize (which waits for every rank, and a stuck
    peer would never come). The root cause first waits ``grace`` seconds so that the ranks its failure
    notice reached can print their own error; ``mpiexec`` then ends whatever is left of the job."""
    if _failure is None:
        time.sleep(grace)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


_hooked_rank = None


def install_excepthook(rank: int) -> None:
    """On an uncaught exception: print it as usual, record it for the launcher, send a failure notice
    to the other ranks, and exit (see :func:`die`) once the interpreter starts shutting down -- not in
    the hook itself, so that hooks wrapping this one (torch.distributed's adds a rank prefix) can print."""
    import atexit  # runs die() before MPI's own finalization
    global _hooked_rank
    if _hooked_rank is not None:  # once per process (init_process_group may run again after destroy)
        _hooked_rank = rank
        return
    _hooked_rank = rank
    previous = sys.excepthook
    atexit.register(notify_exit)  # registered first, so a failed rank's die() (registered later) runs first

    def hook(kind, value, tb):
        previous(kind, value, tb)
        if _world is None:  # the process group was destroyed: an ordinary exit
            return
        peer, rank = _failure is not None, _hooked_rank
        message = f"rank {rank} failed with {kind.__name__}: {value}"
        write_status(rank, ("peer-failure: " if peer else "error: ") + message)
        try:
            notify_failure(message)
        finally:
            atexit.register(die, 1, min(2.0, _world.timeout))
    sys.excepthook = hook
