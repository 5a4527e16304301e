"""One worker of ``numtorch.distributed.run``: set torchrun's environment from MPI's, then run the script.

``mpiexec`` starts ``python -m numtorch.distributed._worker [--module] SCRIPT ARGS...`` on every
rank (under ``python -m numtorch.alias -m ...`` when the launcher ran under the alias). Open MPI tells
each process its rank (``OMPI_COMM_WORLD_RANK``, ``..._LOCAL_RANK``, ...); this module turns them into
``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``GROUP_RANK`` (the node), ``ROLE_RANK``,
``ROLE_WORLD_SIZE`` before the script reads them, runs the script as ``__main__`` and leaves a status line
for the launcher: ``ok``, ``error: ...`` (this rank failed first) or ``peer-failure: ...``.
"""
from __future__ import annotations

import os
import runpy
import sys


def _env() -> None:
    e = os.environ
    rank = int(e.get("OMPI_COMM_WORLD_RANK", e.get("PMIX_RANK", "0")))
    world = int(e.get("OMPI_COMM_WORLD_SIZE", "1"))
    local = int(e.get("OMPI_COMM_WORLD_LOCAL_RANK", "0"))
    local_world = int(e.get("OMPI_COMM_WORLD_LOCAL_SIZE", "1"))
    nproc = int(e.get("NUMTORCH_DIST_NPROC_PER_NODE", str(local_world)))
    e.update(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=str(local), LOCAL_WORLD_SIZE=str(local_world),
             GROUP_RANK=str(rank // max(nproc, 1)), ROLE_RANK=str(rank), ROLE_WORLD_SIZE=str(world),
             ROLE_NAME="default", GROUP_WORLD_SIZE=str(max(world // max(nproc, 1), 1)))


def main(argv=None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    module = bool(argv) and argv[0] == "--module"
    if module:
        argv.pop(0)
    _env()
    rank = int(os.environ["RANK"])
    from . import _mpi  # status files for the launcher
    sys.argv = argv
    try:
        if module:
            runpy.run_module(argv[0], run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code not in (None, 0):
            _mpi.write_status(rank, f"error: rank {rank} exited with code {code}")
            _mpi.notify_failure(f"rank {rank} exited with code {code}")
            if _mpi._world is not None:
                _mpi.die(code if isinstance(code, int) else 1, 2.0)
        else:
            _mpi.write_status(rank, "ok")
        raise
    except BaseException as e:
        kind = "peer-failure" if _mpi._failure is not None else "error"
        _mpi.write_status(rank, f"{kind}: rank {rank} failed with {type(e).__name__}: {e}")
        raise
    _mpi.write_status(rank, "ok")


if __name__ == "__main__":
    main()
