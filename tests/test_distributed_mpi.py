"""numtorch.distributed on MPI, tested by launching real jobs (``mpiexec`` and
``numtorch.distributed.run``) on 1, 2 and 3 processes.

The jobs are started together, once per test session (``jobs`` fixture), because each spends most of
its time importing numtorch and torch; each test then checks one job's exit code and output:

* ``tests/distributed_programs/collectives_vs_torch.py`` compares every collective, point-to-point,
  object, group, async and autograd call with NumPy and with torch.distributed's gloo backend running
  in the same processes, and argument errors' types with torch's (2 and 3 ranks);
* ``tests/distributed_programs/failures.py`` fails on purpose: a rank raising, exiting, hanging or
  being killed, collectives with mismatched shapes or order; the others must fail with a clear error
  within the timeout, the launcher must name the failed rank and return non-zero, and no process may
  remain.
"""
import datetime
import json
import os
import socket
import subprocess
import sys
import time

import pytest
import torch as ref
import torch.distributed.nn.functional

import numtorch as nt
import numtorch.distributed.nn.functional
import numtorch.distributed.run

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "distributed_programs")
BIN = os.path.dirname(sys.executable)
MPIEXEC = [os.path.join(BIN, "mpiexec"), "--oversubscribe", "--bind-to", "none"]
LIMIT = 150  # seconds: a job still running then is a hang (the jobs need 10-40 s on a busy machine)


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(tag):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               PYTHONWARNINGS="ignore", NUMTORCH_TEST_JOB=tag)
    src = os.path.join(os.path.dirname(HERE), "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)
    return env


def _launch(n):
    return [sys.executable, "-m", "numtorch.distributed.run", f"--nproc_per_node={n}"]


JOBS = {
    "collectives2": MPIEXEC + ["-n", "2", sys.executable, os.path.join(PROGRAMS, "collectives_vs_torch.py")],
    "collectives3": MPIEXEC + ["-n", "3", sys.executable, os.path.join(PROGRAMS, "collectives_vs_torch.py")],
    "launch_raise": _launch(2) + ["--master_port=29123", os.path.join(PROGRAMS, "failures.py"), "raise", "--flag"],
    "launch_exit": _launch(2) + ["--standalone", os.path.join(PROGRAMS, "failures.py"), "exit"],
    "launch_hang": _launch(2) + [os.path.join(PROGRAMS, "failures.py"), "hang"],
    "mpiexec_kill": MPIEXEC + ["-n", "2", sys.executable, os.path.join(PROGRAMS, "failures.py"), "kill"],
    "mpiexec_exit0": MPIEXEC + ["-n", "2", sys.executable, os.path.join(PROGRAMS, "failures.py"), "exit0"],
    "mpiexec_shape": MPIEXEC + ["-n", "3", sys.executable, os.path.join(PROGRAMS, "failures.py"), "shape"],
    "mpiexec_ashape": MPIEXEC + ["-n", "2", sys.executable, os.path.join(PROGRAMS, "failures.py"), "ashape"],
    "mpiexec_order": MPIEXEC + ["-n", "2", sys.executable, os.path.join(PROGRAMS, "failures.py"), "order"],
    "alias_ok": [sys.executable, "-m", "numtorch.alias", "-m", "torch.distributed.run", "--nproc-per-node", "3",
                 os.path.join(PROGRAMS, "failures.py"), "ok", "x y", "--torch"],
    "single": [sys.executable, "-c", (
        "import os, numtorch as t, numtorch.distributed as d\n"
        "d.init_process_group('mpi', init_method='tcp://127.0.0.1:29999', rank=0, world_size=1)\n"
        "x = t.arange(3.); d.all_reduce(x); l = [t.zeros(3)]; d.all_gather(l, x); d.barrier()\n"
        "print('SINGLE', d.get_rank(), d.get_world_size(), x.tolist(), l[0].tolist(), flush=True)\n"
        "d.destroy_process_group(); os.environ['WORLD_SIZE'] = '2'\n"
        "try:\n    d.init_process_group('gloo', init_method='env://')\n"
        "except RuntimeError as e:\n    print('SPAWN-ERROR', e)\n")],
}


class Job:
    def __init__(self, tag, cmd):
        if "collectives" in tag:
            cmd = cmd + [str(_port())]
        self.tag, self.cmd, self.start = tag, cmd, time.monotonic()
        self.proc = subprocess.Popen(cmd, env=_env(tag), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, start_new_session=True)
        self._out = None

    def result(self):
        if self._out is None:
            try:
                out, _ = self.proc.communicate(timeout=max(1, LIMIT - (time.monotonic() - self.start)))
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                out, _ = self.proc.communicate()
                out += "\n<<HUNG: killed by the test>>"
            self._out = (self.proc.returncode, out, time.monotonic() - self.start)
        return self._out


@pytest.fixture(scope="module")
def jobs():
    started = {tag: Job(tag, cmd) for tag, cmd in JOBS.items()}
    yield started
    for job in started.values():
        job.result()


def _stray(tag):
    """Processes of the job ``tag`` still alive (found through the environment marker)."""
    left = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    if f"NUMTORCH_TEST_JOB={tag}\0".encode() in f.read():
                        left.append(pid)
            except OSError:
                pass
    return left


def _finished(job, ok):
    rc, out, secs = job.result()
    assert "<<HUNG" not in out, out[-3000:]
    assert (rc == 0) == ok, f"exit code {rc}\n{out[-3000:]}"
    time.sleep(0.2)
    assert not _stray(job.tag), f"processes left behind: {_stray(job.tag)}"
    return out, secs


@pytest.mark.parametrize("n", [2, 3])
def test_collectives_match_numpy_and_torch_gloo(jobs, n):
    out, _ = _finished(jobs[f"collectives{n}"], ok=True)
    assert sorted(line.split()[3] for line in out.splitlines() if line.startswith("CHECKS OK")) == \
        [str(r) for r in range(n)], out[-3000:]


def _env_lines(out):
    return [json.loads(line[4:].split(" ARGS ")[0]) for line in out.splitlines() if line.startswith("ENV ")]


def test_launcher_raise_names_rank_and_sets_env(jobs):
    out, _ = _finished(jobs["launch_raise"], ok=False)
    envs = sorted(_env_lines(out), key=lambda e: e["RANK"])
    assert [(e["RANK"], e["LOCAL_RANK"], e["WORLD_SIZE"], e["LOCAL_WORLD_SIZE"]) for e in envs] == \
        [("0", "0", "2", "2"), ("1", "1", "2", "2")]
    assert all(e["MASTER_ADDR"] == "127.0.0.1" and e["MASTER_PORT"] == "29123" and e["TORCHELASTIC_RUN_ID"]
               for e in envs)
    assert '["--flag"]' in out  # the script's own arguments reach it
    assert "worker rank 1 failed: rank 1 failed with ValueError: boom on purpose" in out
    # rank 0 was waiting in all_reduce: it fails too, naming the cause
    assert "DistBackendError: rank 1 failed with ValueError: boom on purpose (this is rank 0" in out
    assert "DONE" not in out


def test_launcher_nonzero_exit_code_of_a_rank(jobs):
    out, _ = _finished(jobs["launch_exit"], ok=False)
    assert "worker rank 1 failed: rank 1 exited with code 3" in out
    assert "MASTER_PORT" in out and '"MASTER_PORT": "29500"' not in out  # --standalone picks a free port


def test_hanging_rank_times_out(jobs):
    out, secs = _finished(jobs["launch_hang"], ok=False)
    assert "timed out after 3 s; no answer from rank(s) [1]" in out
    assert "worker rank 0 failed" in out and "DONE" not in out
    assert secs < 60  # rank 1 sleeps 60 s: the job ended well before


def test_killed_rank_ends_the_job(jobs):
    out, secs = _finished(jobs["mpiexec_kill"], ok=False)
    assert "signal 9" in out and "DONE" not in out


def test_rank_ending_cleanly_mid_job_fails_the_waiting_rank_at_once(jobs):
    # rank 1 ends (code 0) while rank 0 waits for it in all_reduce: as with gloo's closed connection,
    # rank 0 raises at once instead of waiting for the 30 s timeout
    out, _ = _finished(jobs["mpiexec_exit0"], ok=False)
    assert "DistBackendError: rank(s) [1] exited while this rank (rank 0) waits for them in a collective" in out
    assert "timed out" not in out and "DONE" not in out


def test_mismatched_shapes_raise_on_every_rank(jobs):
    out, _ = _finished(jobs["mpiexec_shape"], ok=False)
    assert "RuntimeError: Collective mismatch: rank 2 called all_reduce(dtype=float32, shape=[3], op=SUM) as " \
           "collective #3 but rank 0 called all_reduce(dtype=float32, shape=[2], op=SUM)" in out
    assert "Collective mismatch: rank 0 called all_reduce(dtype=float32, shape=[2], op=SUM)" in out
    assert "DONE" not in out


def test_mismatched_async_collective_raises_at_wait(jobs):
    out, _ = _finished(jobs["mpiexec_ashape"], ok=False)
    assert "Collective mismatch: rank 1 called all_reduce(dtype=float32, shape=[3], op=SUM)" in out
    assert "work.wait()" in out and "DONE" not in out


def test_mismatched_order_raises(jobs):
    out, _ = _finished(jobs["mpiexec_order"], ok=False)
    assert "Collective mismatch: rank 1 called broadcast(dtype=float32, shape=[2], root=0)" in out
    assert "DONE" not in out


def test_torchrun_module_path_under_alias(jobs):
    out, _ = _finished(jobs["alias_ok"], ok=True)
    assert sorted(line.split()[2] for line in out.splitlines() if line.startswith("DONE")) == ["0", "1", "2"]
    assert out.count("[9.0, 9.0] numtorch") == 3 and '["x y", "--torch"]' in out  # torch was numtorch


def test_single_process_without_mpiexec(jobs):
    out, _ = _finished(jobs["single"], ok=True)
    assert "SINGLE 0 1 [0.0, 1.0, 2.0] [0.0, 1.0, 2.0]" in out
    assert "SPAWN-ERROR init_process_group: world_size is 2 but this process was not started by MPI" in out


# ---- in this process: no MPI needed ------------------------------------------------------------
def _kind(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 -- the exception type is what is compared
        return type(e), str(e)
    return None, None


@pytest.mark.parametrize("call", [
    lambda d, t: d.get_rank(), lambda d, t: d.get_world_size(), lambda d, t: d.get_backend(),
    lambda d, t: d.all_reduce(t.ones(2)), lambda d, t: d.barrier(), lambda d, t: d.broadcast(t.ones(1), 0),
    lambda d, t: d.destroy_process_group(), lambda d, t: d.new_group([0]),
    lambda d, t: d.init_process_group("nccl", init_method="tcp://127.0.0.1:1", rank=0, world_size=1),
    lambda d, t: d.init_process_group("nosuch", init_method="tcp://127.0.0.1:1", rank=0, world_size=1),
    lambda d, t: d.init_process_group("gloo", timeout=5),
])
def test_errors_before_init_match_torch(call):
    got, want = _kind(lambda: call(nt.distributed, nt)), _kind(lambda: call(ref.distributed, ref))
    assert got[0] is want[0] and want[0] is not None, (got, want)
    if want[0] is ValueError:
        assert got[1] == want[1]


def test_api_surface():
    d = nt.distributed
    assert d.is_available() and d.is_mpi_available() and d.is_gloo_available() and not d.is_nccl_available()
    assert not d.is_initialized()
    assert {k: int(v) for k, v in d.ReduceOp.RedOpType.__members__.items()} == \
        {k: int(v) for k, v in ref.distributed.ReduceOp.RedOpType.__members__.items()}
    assert int(d.ReduceOp.AVG) == int(ref.distributed.ReduceOp.AVG) and d.ReduceOp.SUM == d.ReduceOp.RedOpType.SUM
    assert d.Backend("GLOO") == "gloo" == ref.distributed.Backend("GLOO")
    assert d.default_pg_timeout == datetime.timedelta(minutes=30)
    assert issubclass(d.DistBackendError, RuntimeError)
    for name in ("broadcast", "gather", "scatter", "reduce", "reduce_scatter", "all_gather", "all_to_all",
                 "all_to_all_single", "all_reduce"):
        assert callable(getattr(ref.distributed.nn.functional, name))
        assert callable(getattr(nt.distributed.nn.functional, name)), name
    args = nt.distributed.run.parse_args(["--nnodes=1", "--nproc-per-node=2", "--node_rank=0",
                                          "--master_addr=h", "--master_port=1", "--rdzv-id=x", "t.py", "--lr", "1"])
    assert (args.nproc_per_node, args.master_addr, args.master_port, args.training_script,
            args.training_script_args) == ("2", "h", 1, "t.py", ["--lr", "1"])
