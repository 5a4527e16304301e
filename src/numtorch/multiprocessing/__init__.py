"""``numtorch.multiprocessing`` (mirrors ``torch.multiprocessing``): Python's ``multiprocessing`` plus
PyTorch's sharing-strategy functions and ``spawn``.

numtorch tensors are NumPy arrays and are pickled (copied) when sent to another process; there is no
shared-memory tensor storage, so the sharing strategy is recorded but changes nothing.

``spawn`` starts its workers through ``mpiexec`` when MPI is installed, so that
``torch.distributed.init_process_group`` in them forms one process group (see ``_mpi_spawn.py`` and
docs/distributed.md); without MPI it uses Python's ``multiprocessing``.
"""
from __future__ import annotations

import multiprocessing as _mp
import multiprocessing.connection  # noqa: F401  # ProcessContext.join waits on the workers' sentinels
import os
import pickle
import signal
import sys
import tempfile
import time
from multiprocessing import *  # noqa: F401,F403

from . import _mpi_spawn
from ._exceptions import ProcessExitedException, ProcessRaisedException

__all__ = list(getattr(_mp, "__all__", [])) + ["set_sharing_strategy", "get_sharing_strategy",
                                               "get_all_sharing_strategies", "spawn", "start_processes",
                                               "ProcessContext", "ProcessRaisedException", "ProcessExitedException"]

_strategy = "file_descriptor"


def get_all_sharing_strategies() -> set:
    return {"file_descriptor", "file_system"}


def get_sharing_strategy() -> str:
    return _strategy


def set_sharing_strategy(new_strategy: str) -> None:
    """Record the strategy (``file_descriptor`` or ``file_system``); ValueError for any other name."""
    global _strategy
    if new_strategy not in get_all_sharing_strategies():
        raise ValueError(f"invalid sharing strategy {new_strategy!r}")
    _strategy = new_strategy


def _wrap(fn, i, args, error_file):
    """Body of an in-process (multiprocessing) worker: run ``fn`` and leave its traceback on failure."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        import traceback  # only a failing worker needs it
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        sys.exit(1)


class ProcessContext:
    """The in-process workers of ``start_processes(..., join=False)`` (``torch.multiprocessing.ProcessContext``)."""

    def __init__(self, processes, error_files):
        self.processes, self.error_files = processes, error_files

    def pids(self) -> list:
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None, grace_period=None) -> bool:
        """True when all finished, False if ``timeout`` passed; raises for the first failed worker
        (ProcessRaisedException with its traceback, or ProcessExitedException) after stopping the rest."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            failed = [i for i, p in enumerate(self.processes) if p.exitcode not in (None, 0)]
            if failed or all(p.exitcode == 0 for p in self.processes):
                break
            if end is not None and time.monotonic() >= end:
                return False
            _mp.connection.wait([p.sentinel for p in self.processes if p.exitcode is None], timeout=0.1)
        if not failed:
            return True
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        for p in self.processes:
            p.join()
        i, proc = failed[0], self.processes[failed[0]]
        if os.path.exists(self.error_files[i]):
            with open(self.error_files[i], "rb") as fh:
                trace = pickle.load(fh)
            raise ProcessRaisedException(f"\n\n-- Process {i:d} terminated with the following error:\n" + trace,
                                         i, proc.pid)
        code = proc.exitcode
        if code < 0:
            name = signal.Signals(-code).name
            raise ProcessExitedException(f"process {i:d} terminated with signal {name}", error_index=i,
                                         error_pid=proc.pid, exit_code=code, signal_name=name)
        raise ProcessExitedException(f"process {i:d} terminated with exit code {code:d}", error_index=i,
                                     error_pid=proc.pid, exit_code=code)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Run ``fn(i, *args)`` for ``i`` in ``range(nprocs)`` in new processes
    (``torch.multiprocessing.start_processes``).

    With ``start_method`` ``"spawn"`` or ``"forkserver"`` and MPI installed (mpi4py and ``mpiexec``),
    the workers are the ranks of one ``mpiexec`` job (see ``_mpi_spawn.py``), so
    ``torch.distributed.init_process_group`` inside ``fn`` joins them; ``fn`` and ``args`` must be
    picklable. Without MPI, with ``"fork"``, or with the environment variable
    ``NUMTORCH_SPAWN=multiprocessing``, they are Python ``multiprocessing`` processes (which cannot
    form a process group of more than one rank).

    ``join=True`` waits for all of them and returns None; if one fails, the others are stopped and
    ProcessRaisedException (its traceback in the message: ``"-- Process i terminated with the
    following error:"``) or ProcessExitedException (``"process i terminated with exit code c"`` / ``"with
    signal NAME"``) is raised. ``join=False`` returns a context whose ``join()`` does that.
    """
    if start_method in ("spawn", "forkserver") and nprocs >= 1 and _mpi_spawn.mpi_spawn_available():
        context = _mpi_spawn.start(fn, args, nprocs, daemon)
    else:
        ctx = _mp.get_context(start_method)
        error_files, processes = [], []
        for i in range(nprocs):
            fd, path = tempfile.mkstemp(prefix="numtorch-errorfile-", suffix=".pickle")
            os.close(fd)
            os.unlink(path)  # the worker creates it only when it fails
            error_files.append(path)
            processes.append(ctx.Process(target=_wrap, args=(fn, i, args, path), daemon=daemon))
            processes[-1].start()
        context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``torch.multiprocessing.spawn``: ``start_processes`` with the ``spawn`` start method (so, with MPI
    installed, through ``mpiexec``)."""
    return start_processes(fn, args, nprocs, join, daemon, "spawn")
