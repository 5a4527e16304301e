"""DataLoader with worker processes: dead workers, timeouts, exceptions, persistence, seeding, Ctrl-C."""
import ctypes
import faulthandler
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import torch as ref

import numtorch as nt
from numtorch.utils import data as ndata


class Dies(ndata.Dataset):
    def __init__(self, how, at=3):
        self.how, self.at = how, at

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == self.at:
            if self.how == "exit":
                os._exit(3)
            if self.how == "sigkill":
                os.kill(os.getpid(), signal.SIGKILL)
            if self.how == "segfault":
                faulthandler.disable()  # keep pytest's inherited handler from dumping its stack
                ctypes.string_at(0)
        return i


@pytest.mark.parametrize("how", ["exit", "sigkill", "segfault"])
def test_dead_worker_raises_promptly(how):
    loader = ndata.DataLoader(Dies(how), batch_size=2, num_workers=2)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        for _ in loader:
            pass
    assert time.monotonic() - t0 < 3


class Slow(ndata.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            time.sleep(10)
        return i


def test_timeout_is_honoured_with_torchs_message():
    loader = ndata.DataLoader(Slow(), batch_size=1, num_workers=1, timeout=0.5)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.5 seconds$"):
        list(loader)
    assert time.monotonic() - t0 < 3
    with pytest.raises(ValueError, match="timeout option should be non-negative"):
        ndata.DataLoader(Slow(), timeout=-1)


class TwoArgError(Exception):
    def __init__(self, code, detail):
        super().__init__(code, detail)


class Raises(ndata.Dataset):
    def __init__(self, exc):
        self.exc = exc

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 1:
            raise self.exc
        return i


def test_exception_with_extra_init_args_is_reraised_as_runtime_error_with_traceback():
    loader = ndata.DataLoader(Raises(TwoArgError(7, "bad")), batch_size=1, num_workers=2)
    with pytest.raises(RuntimeError) as e:
        list(loader)
    msg = str(e.value)
    assert msg.startswith("Caught TwoArgError in DataLoader worker process 1.\nOriginal Traceback")
    assert "__getitem__" in msg and "TwoArgError: (7, 'bad')" in msg


def test_plain_exceptions_keep_their_type_as_in_torch():
    for exc in (ValueError("bad value"), KeyError("k"), IndexError("i")):
        with pytest.raises(type(exc), match=f"Caught {type(exc).__name__} in DataLoader worker process 1"):
            list(ndata.DataLoader(Raises(exc), batch_size=1, num_workers=2))
    # (torch.utils.data raises the same three types with the same first line; not run here, since a failed
    # torch iterator takes seconds to shut its workers down when garbage-collected)


def test_local_exception_class_that_cannot_travel():
    class Local(Exception):
        pass
    with pytest.raises(RuntimeError, match="Caught Local in DataLoader worker process 1"):
        list(ndata.DataLoader(Raises(Local("x")), batch_size=1, num_workers=2))


class Pids(ndata.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return nt.tensor([i, os.getpid()])


def _pids(loader):
    return {int(p) for b in loader for p in b[:, 1].tolist()}


def test_persistent_workers_survive_epochs_and_abandoned_epochs():
    loader = ndata.DataLoader(Pids(), batch_size=2, num_workers=2, persistent_workers=True)
    first = _pids(loader)
    assert len(first) == 2
    for b in loader:  # abandon an epoch half-way: its stale answers must not leak into the next one
        break
    values = [b[:, 0].tolist() for b in loader]
    assert values == [[0, 1], [2, 3], [4, 5]] and _pids(loader) == first
    old = iter(loader)
    next(old)
    assert [b[:, 0].tolist() for b in loader] == [[0, 1], [2, 3], [4, 5]]
    rest = [b[:, 0].tolist() for b in old]  # superseded: it ends (after what it already had), never hangs
    assert rest == [[2, 3], [4, 5]][:len(rest)] and len(rest) < 2
    loader._workers.shutdown()
    assert all(p.exitcode is not None for p in loader._workers.procs)
    plain = ndata.DataLoader(Pids(), batch_size=2, num_workers=2)
    assert _pids(plain).isdisjoint(_pids(plain))
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        ndata.DataLoader(Pids(), persistent_workers=True)


def test_persistent_workers_shuffle_and_default_stream_as_torch():
    # PyTorch draws the workers' base seed once, when its one persistent iterator is made; later epochs
    # only reset that iterator, so each epoch draws just the sampler's seed
    def run(mod):
        mod.manual_seed(0)
        loader = mod.utils.data.DataLoader(list(range(10)), batch_size=5, shuffle=True, num_workers=2,
                                           persistent_workers=True)
        firsts = []
        for epoch in range(5):
            for i, b in enumerate(loader):
                if i == 0:
                    firsts.append(b.tolist())
                    if epoch == 2:
                        break  # an abandoned epoch draws nothing more
        return firsts, mod.rand(1).item()

    got, want = run(nt), run(ref)
    assert want[0][:4] == [[6, 7, 1, 4, 2], [3, 5, 0, 6, 1], [2, 4, 7, 0, 8], [2, 4, 9, 8, 7]]
    assert got[0] == want[0]
    assert got[1] == pytest.approx(want[1])


class Seeds(ndata.Dataset):
    def __init__(self, mod):
        self.mod = mod

    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = self.mod.utils.data.get_worker_info()
        return [info.seed, random.random(), float(np.random.rand())]


def test_workers_are_seeded_as_torch_seeds_them():
    def run(mod):
        g = mod.Generator()
        g.manual_seed(1234)
        loader = mod.utils.data.DataLoader(Seeds(mod), batch_size=None, num_workers=2, generator=g)
        return [[int(row[0]), float(row[1]), float(row[2])] for row in loader]
    ours, theirs = run(nt), run(ref)
    assert ours == theirs
    assert ours[0][0] != ours[1][0] and ours[0][1:] != ours[1][1:]


CTRL_C = r"""
import os, sys, time
sys.path.insert(0, {src!r})
import numtorch as nt
from numtorch.utils import data as ndata

class Hang(ndata.Dataset):
    def __len__(self):
        return 100
    def __getitem__(self, i):
        with open({pidfile!r}, "a") as f:
            f.write(f"{{os.getpid()}}\n")
        time.sleep(60)
        return i

print("start", flush=True)
for batch in ndata.DataLoader(Hang(), num_workers=3):
    pass
"""


@pytest.mark.parametrize("group", [True, False], ids=["terminal_ctrl_c", "sigint_to_main_only"])
def test_ctrl_c_leaves_no_stray_workers(tmp_path, group):
    pidfile = tmp_path / "pids"
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    proc = subprocess.Popen([sys.executable, "-c", CTRL_C.format(src=src, pidfile=str(pidfile))],
                            start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "start"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (not pidfile.exists() or len(pidfile.read_text().split()) < 3):
        time.sleep(0.05)
    workers = [int(p) for p in pidfile.read_text().split()]
    assert len(workers) == 3
    if group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=10)
    assert "KeyboardInterrupt" in err
    time.sleep(0.2)
    alive = []
    for pid in workers:
        try:
            os.kill(pid, 0)
            alive.append(pid)
        except ProcessLookupError:
            pass
    assert not alive, f"stray worker processes: {alive}\n{textwrap.shorten(err, 500)}"


@pytest.mark.parametrize("workers, prefetch", [(0, 2), (2, -1)])
def test_bad_prefetch_factor_raises_value_error_as_torch(workers, prefetch):
    data = list(range(4))
    with pytest.raises(ValueError, match="prefetch_factor"):
        ref.utils.data.DataLoader(data, num_workers=workers, prefetch_factor=prefetch)
    with pytest.raises(ValueError, match="prefetch_factor"):
        ndata.DataLoader(data, num_workers=workers, prefetch_factor=prefetch)


def test_prefetch_factor_defaults_as_torch():
    for workers in (0, 2):
        want = ref.utils.data.DataLoader(list(range(4)), num_workers=workers).prefetch_factor
        assert ndata.DataLoader(list(range(4)), num_workers=workers).prefetch_factor == want
