"""``torch.multiprocessing.spawn`` + ``init_process_group`` (issue #17): numtorch's ``spawn`` starts its
workers through ``mpiexec``, so they form one process group.

``tests/distributed_programs/spawn_train.py`` is written for PyTorch: it spawns 2 workers that join with
``env://`` or ``tcp://``, all-reduce a tensor and train a tiny model for 2 steps with averaged
gradients. It runs with real torch (gloo) and under ``python -m numtorch.alias``; the printed values
(loss, weights) must agree, a worker that raises must surface in the parent as
``ProcessRaisedException`` naming its index and error, an exit code as ``ProcessExitedException``, and
no process may be left behind. The jobs run at the same time (module fixture) to keep the file fast.
"""
import os
import re
import socket
import subprocess
import sys
import time

import pytest

import numtorch.multiprocessing as ntmp

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "distributed_programs", "spawn_train.py")
LIMIT = 150  # seconds: a job still running then is a hang
pytestmark = pytest.mark.skipif(not ntmp._mpi_spawn.mpi_spawn_available(), reason="needs mpi4py and mpiexec")


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(tag, **extra):
    env = dict(os.environ, PYTHONWARNINGS="ignore", NUMTORCH_TEST_JOB=tag, **extra)
    src = os.path.join(os.path.dirname(HERE), "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                 "OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"):
        env.pop(name, None)  # spawn itself must make mpiexec run as root
    return env


JOBS = {
    "torch_env": ([sys.executable, PROGRAM, "env"], {}),
    "alias_env": ([sys.executable, "-m", "numtorch.alias", PROGRAM, "env"], {}),
    "alias_tcp": ([sys.executable, "-m", "numtorch.alias", PROGRAM, "tcp"], {}),
    "torch_raise": ([sys.executable, PROGRAM, "raise"], {}),
    "alias_raise": ([sys.executable, "-m", "numtorch.alias", PROGRAM, "raise"], {}),
    "alias_exit": ([sys.executable, "-m", "numtorch.alias", PROGRAM, "exit"], {}),
    "alias_kill": ([sys.executable, "-m", "numtorch.alias", PROGRAM, "kill"], {}),
    # NUMTORCH_SPAWN=multiprocessing: Python's multiprocessing, whose workers cannot form a process group
    "fallback": ([sys.executable, os.path.join(HERE, "distributed_programs", "spawn_fallback.py")],
                 {"NUMTORCH_SPAWN": "multiprocessing"}),
}


class Job:
    def __init__(self, tag, cmd, extra):
        self.tag, self.start = tag, time.monotonic()
        cmd = cmd + [str(_port())]
        self.proc = subprocess.Popen(cmd, env=_env(tag, **extra), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
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
            self._out = (self.proc.returncode, out)
        return self._out


@pytest.fixture(scope="module")
def jobs():
    started = {tag: Job(tag, cmd, extra) for tag, (cmd, extra) in JOBS.items()}
    yield started
    for job in started.values():
        job.result()


def _stray(tag):
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


def _output(job):
    """The job's output once it ended with code 0 and left no process behind."""
    rc, out = job.result()
    assert "<<HUNG" not in out, out[-3000:]
    assert rc == 0, f"exit code {rc}\n{out[-3000:]}"
    time.sleep(0.2)
    assert not _stray(job.tag), f"processes left behind: {_stray(job.tag)}"
    return out


def _values(out, prefixes=("WORLD", "ALLREDUCE", "LOSS", "WEIGHT")):
    return sorted(line for line in out.splitlines() if line.startswith(prefixes))


@pytest.mark.quick
def test_spawned_workers_train_as_with_torch(jobs):
    expected, got = _output(jobs["torch_env"]), _output(jobs["alias_env"])
    assert "PARENT DONE" in expected and "PARENT DONE" in got, got[-3000:]
    lines = _values(expected)
    assert len(lines) == 10 and len([x for x in lines if x.startswith("WEIGHT")]) == 2, expected[-3000:]
    assert _values(got) == lines, got[-3000:]


def test_tcp_init_method(jobs):
    got = _output(jobs["alias_tcp"])
    assert "PARENT DONE" in got
    assert _values(got) == _values(_output(jobs["torch_env"])), got[-3000:]


def _raised(out):
    head = re.search(r"PARENT ProcessRaisedException index=(\d+) pid_is_int=(\w+)", out)
    body = re.search(r"MESSAGE-BEGIN(.*)MESSAGE-END", out, re.S)
    assert head and body, out[-3000:]
    return int(head.group(1)), head.group(2), body.group(1)


def test_worker_that_raises(jobs):
    expected, got = _raised(_output(jobs["torch_raise"])), _raised(_output(jobs["alias_raise"]))
    assert got[:2] == expected[:2] == (1, "True")
    for message in (expected[2], got[2]):
        assert message.startswith("\n\n-- Process 1 terminated with the following error:\nTraceback")
        assert message.rstrip().endswith("ValueError: boom in worker 1")
        assert 'raise ValueError("boom in worker 1")' in message
    assert "WEIGHT" not in _output(jobs["alias_raise"])


def test_worker_exit_code(jobs):
    out = _output(jobs["alias_exit"])
    assert "PARENT ProcessExitedException index=1 code=3 signal=None msg=process 1 terminated with exit code 3" \
        in out, out[-3000:]
    assert "WEIGHT" not in out


def test_worker_killed_by_a_signal(jobs):
    out = _output(jobs["alias_kill"])
    assert "PARENT ProcessExitedException index=1 code=-9 signal=SIGKILL msg=process 1 terminated with signal " \
           "SIGKILL" in out, out[-3000:]
    assert "WEIGHT" not in out


def test_fallback_without_mpi_uses_multiprocessing(jobs):
    out = _output(jobs["fallback"])
    assert "CHILD 0 x numtorch" in out and "CHILD 1 x numtorch" in out
    index, pid_is_int, message = _raised(out)
    assert index in (0, 1) and pid_is_int == "True"
    assert message.startswith(f"\n\n-- Process {index} terminated with the following error:\nTraceback")
    assert "RuntimeError: init_process_group: world_size is 2 but this process was not started by MPI" in message


def test_exceptions_mirror_torch():
    import torch.multiprocessing  # noqa: F401  # loads torch.multiprocessing.spawn (a module and a function)
    ref = sys.modules["torch.multiprocessing.spawn"]
    for name in ("ProcessRaisedException", "ProcessExitedException"):
        mine, theirs = getattr(ntmp, name), getattr(ref, name)
        assert [c.__name__ for c in mine.__mro__[:-2]] == [c.__name__ for c in theirs.__mro__[:-2]]
    e = ntmp.ProcessExitedException("process 1 terminated with signal SIGKILL", 1, 42, -9, "SIGKILL")
    r = ref.ProcessExitedException("process 1 terminated with signal SIGKILL", 1, 42, -9, "SIGKILL")
    assert (str(e), e.error_index, e.error_pid, e.exit_code, e.signal_name) == \
        (str(r), r.error_index, r.error_pid, r.exit_code, r.signal_name)
