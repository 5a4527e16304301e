"""``numtorch.multiprocessing`` (mirrors ``torch.multiprocessing``): Python's ``multiprocessing`` plus
PyTorch's sharing-strategy functions and ``spawn``.

numtorch tensors are NumPy arrays and are pickled (copied) when sent to another process; there is no
shared-memory tensor storage, so the sharing strategy is recorded but changes nothing.
"""
from __future__ import annotations

import multiprocessing as _mp
from multiprocessing import *  # noqa: F401,F403

__all__ = list(getattr(_mp, "__all__", [])) + ["set_sharing_strategy", "get_sharing_strategy",
                                               "get_all_sharing_strategies", "spawn", "start_processes",
                                               "ProcessRaisedException", "ProcessExitedException"]

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


class ProcessRaisedException(Exception):
    """A spawned process raised; the message holds its error."""


class ProcessExitedException(Exception):
    """A spawned process exited with a non-zero code."""

    def __init__(self, msg, error_index=None, error_pid=None, exit_code=None, signal_name=None):
        super().__init__(msg)
        self.error_index, self.error_pid, self.exit_code, self.signal_name = error_index, error_pid, exit_code, \
            signal_name


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Run ``fn(i, *args)`` in ``nprocs`` processes (``torch.multiprocessing.start_processes``).

    ``join=True`` waits for all of them and raises ProcessExitedException for the first that failed;
    ``join=False`` returns the list of started processes.
    """
    ctx = _mp.get_context(start_method)
    procs = [ctx.Process(target=fn, args=(i, *args), daemon=daemon) for i in range(nprocs)]
    for p in procs:
        p.start()
    if not join:
        return procs
    for p in procs:
        p.join()
    for i, p in enumerate(procs):
        if p.exitcode != 0:
            raise ProcessExitedException(f"process {i} terminated with exit code {p.exitcode}", error_index=i,
                                         error_pid=p.pid, exit_code=p.exitcode)
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``torch.multiprocessing.spawn``: ``start_processes`` with the ``spawn`` start method."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
