"""DataLoader over an IterableDataset with worker processes, against torch's DataLoader on the same
dataset: each worker iterates its own copy, ``get_worker_info()`` lets the dataset shard itself,
batches come worker by worker in torch's order (a worker that runs out leaves the rotation without
ending the others), ``worker_init_fn``, ``persistent_workers``, per-worker seeding, dead workers,
``timeout`` and exceptions re-raised with "Caught X in DataLoader worker process N". Every test
starts real worker processes and checks that none is left behind."""
import multiprocessing
import os
import random
import re
import time
import warnings

import numpy as np
import pytest
import torch

import numtorch

LIBS = (torch, numtorch)


def _ours():
    """numtorch's worker processes still alive (torch's are reaped when its iterator is collected)."""
    return [p for p in multiprocessing.active_children() if p.name.startswith("DataLoader worker")]


@pytest.fixture(autouse=True)
def no_stray_processes():
    yield
    deadline = time.monotonic() + 3
    while _ours() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _ours() == []


def _dataset(lib, sizes=None, n=23, how="shard", fail=None):
    """An iterable dataset of ``[sample, worker id]`` rows. ``how``: 'shard' (contiguous shards of
    ``range(n)``), 'sizes' (worker ``i`` yields ``sizes[i]`` samples), 'all' (no sharding: every worker
    yields everything). ``fail``: ``(worker id, at sample, what)`` with what 'raise' or 'exit'."""

    class Stream(lib.utils.data.IterableDataset):
        def __iter__(self):
            info = lib.utils.data.get_worker_info()
            wid, nw = (info.id, info.num_workers) if info is not None else (-1, 1)
            if how == "shard":
                per = -(-n // nw)
                rows = range(max(wid, 0) * per, min((max(wid, 0) + 1) * per, n))
            elif how == "sizes":
                rows = range(100 * wid, 100 * wid + sizes[wid])
            else:
                rows = range(n)
            for k, i in enumerate(rows):
                if fail is not None and fail[0] == wid and fail[1] == k:
                    if fail[2] == "exit":
                        os._exit(3)
                    raise ValueError(f"bad sample {i}")
                yield lib.tensor([float(i), float(wid)])

    return Stream()


def _run(loader):
    """``(batches so far, exception type, message)`` of one pass over ``loader``. The exception and the
    iterator are dropped before returning, so the next library's forked workers do not inherit them."""
    got, err, it = [], (None, ""), iter(loader)
    try:
        for b in it:
            got.append(b.tolist() if hasattr(b, "tolist") else b)
    except Exception as e:
        err = (type(e), str(e))
    del it  # by reference count: torch's iterator shuts its workers down at once (not in a gc pass)
    return got, err[0], err[1]


def _batches(lib, ds_kw, **kw):
    lib.manual_seed(0)
    loader = lib.utils.data.DataLoader(_dataset(lib, **ds_kw), **kw)
    return [b.numpy().tolist() for b in loader]


CASES = [
    ({}, dict(batch_size=4, num_workers=2)),
    ({}, dict(batch_size=4, num_workers=3)),
    ({}, dict(batch_size=5, num_workers=2, drop_last=True)),
    ({}, dict(batch_size=None, num_workers=2)),
    ({"n": 5}, dict(batch_size=3, num_workers=3)),
    ({"how": "all", "n": 6}, dict(batch_size=4, num_workers=2)),
    ({"how": "sizes", "sizes": [9, 2]}, dict(batch_size=2, num_workers=2)),
    ({"how": "sizes", "sizes": [1, 10, 0]}, dict(batch_size=3, num_workers=3, prefetch_factor=1)),
    ({"how": "sizes", "sizes": [7, 3, 5]}, dict(batch_size=2, num_workers=3, drop_last=True, prefetch_factor=3)),
    ({"how": "sizes", "sizes": [0, 0]}, dict(batch_size=2, num_workers=2)),
]


@pytest.mark.parametrize("ds_kw,kw", CASES, ids=[str(i) for i in range(len(CASES))])
def test_batch_sequence_equals_torchs(ds_kw, kw):
    ref = _batches(torch, ds_kw, **kw)
    got = _batches(numtorch, ds_kw, **kw)
    assert got == ref
    assert len(ref) > 0 or ds_kw.get("sizes") == [0, 0]


def test_worker_info_seeds_and_random_streams_equal_torchs():
    def make(lib):
        class Info(lib.utils.data.IterableDataset):
            def __iter__(self):
                info = lib.utils.data.get_worker_info()
                assert isinstance(info.dataset, Info)
                yield [info.id, info.num_workers, info.seed, random.random(), float(np.random.rand()),
                       int(lib.randint(0, 1 << 30, ()).item())]
        return Info()

    res = []
    for lib in LIBS:
        lib.manual_seed(1234)
        loader = lib.utils.data.DataLoader(make(lib), batch_size=None, num_workers=2)
        res.append([[float(v) for v in row] for row in loader])
    assert res[0] == res[1]
    assert [r[0] for r in res[1]] == [0.0, 1.0]


def test_worker_init_fn_shards_through_worker_info():
    def make(lib):
        class Range(lib.utils.data.IterableDataset):
            def __init__(self):
                self.start, self.end = 0, 10

            def __iter__(self):
                return iter(range(self.start, self.end))

        def init_fn(worker_id):
            info = lib.utils.data.get_worker_info()
            ds = info.dataset
            per = -(-(ds.end - ds.start) // info.num_workers)
            ds.start, ds.end = ds.start + worker_id * per, min(ds.start + (worker_id + 1) * per, ds.end)

        return Range(), init_fn

    res = []
    for lib in LIBS:
        ds, init_fn = make(lib)
        loader = lib.utils.data.DataLoader(ds, batch_size=3, num_workers=2, worker_init_fn=init_fn)
        res.append([b.tolist() for b in loader])
        assert (ds.start, ds.end) == (0, 10)  # the main process's copy is untouched
    assert res[0] == res[1]


def test_persistent_workers_restart_each_workers_iterator():
    def make(lib):
        class Pids(lib.utils.data.IterableDataset):
            def __iter__(self):
                info = lib.utils.data.get_worker_info()
                for i in range(3 + 2 * info.id):
                    yield lib.tensor([float(i), float(info.id), float(os.getpid())])
        return Pids()

    res = []
    for lib in LIBS:
        lib.manual_seed(0)
        loader = lib.utils.data.DataLoader(make(lib), batch_size=2, num_workers=2, persistent_workers=True)
        epochs = [[b.tolist() for b in loader] for _ in range(2)]
        pids = [{row[2] for batch in e for row in batch} for e in epochs]
        assert pids[0] == pids[1] and len(pids[0]) == 2  # the same two processes served both epochs
        res.append([[[row[:2] for row in batch] for batch in e] for e in epochs])
        del loader
    assert res[0] == res[1]
    assert res[1][0] == res[1][1]


# torch's own shutdown after a worker error can wait 5 s per worker (its join timeout), so torch runs only
# where it is quick; elsewhere the expected text is torch's message format
@pytest.mark.parametrize("at,libs", [(0, LIBS), (2, (numtorch,))])
def test_exception_in_a_worker_is_reraised_with_its_worker_id(at, libs):
    # batches alternate workers 0, 1, 0, 1...: worker 1's batch holding its sample ``at`` fails
    first = [[[0.0, 0.0], [1.0, 0.0]], [[100.0, 1.0], [101.0, 1.0]], [[2.0, 0.0], [3.0, 0.0]]]
    res = [(first[:2 * (at // 2) + 1], "Caught ValueError in DataLoader worker process 1.")]
    for lib in libs:
        loader = lib.utils.data.DataLoader(_dataset(lib, how="sizes", sizes=[6, 6], fail=(1, at, "raise")),
                                           batch_size=2, num_workers=2)
        got, etype, msg = _run(loader)
        assert etype is ValueError and "bad sample" in msg and "Traceback" in msg
        res.append((got, msg.splitlines()[0]))
    assert all(r == res[0] for r in res), res


def _bad_init(worker_id):
    raise KeyError("no shard")


def test_exception_in_worker_init_fn_and_in_iter():
    def bad_iter(lib):
        class BadIter(lib.utils.data.IterableDataset):
            def __iter__(self):
                raise TypeError("cannot iterate")
        return BadIter()

    for lib in (numtorch,):  # torch's messages; torch itself is slow to shut down here (see above)
        loader = lib.utils.data.DataLoader(_dataset(lib), batch_size=2, num_workers=2, worker_init_fn=_bad_init)
        got, etype, msg = _run(loader)
        assert (got, etype) == ([], KeyError) and msg.startswith("Caught KeyError in DataLoader worker process 0")
        got, etype, msg = _run(lib.utils.data.DataLoader(bad_iter(lib), batch_size=2, num_workers=2))
        assert (got, etype) == ([], TypeError) and msg.startswith("Caught TypeError in DataLoader worker process 0")


def test_dead_worker_raises_promptly():
    for lib in LIBS:
        loader = lib.utils.data.DataLoader(_dataset(lib, how="sizes", sizes=[6, 6], fail=(1, 1, "exit")),
                                           batch_size=2, num_workers=2)
        t0 = time.monotonic()
        got, etype, msg = _run(loader)
        assert etype is RuntimeError and re.match(r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly", msg)
        assert time.monotonic() - t0 < 5


def test_timeout_is_honoured():
    def make(lib):
        class Stuck(lib.utils.data.IterableDataset):
            def __iter__(self):
                yield 1
                time.sleep(20)
                yield 2
        return Stuck()

    for lib in (numtorch,):  # torch's message; torch's shutdown then waits 5 s for the sleeping worker
        loader = lib.utils.data.DataLoader(make(lib), batch_size=None, num_workers=1, timeout=0.5)
        t0 = time.monotonic()
        got, etype, msg = _run(loader)
        assert (got, etype, msg) == ([1], RuntimeError, "DataLoader timed out after 0.5 seconds")
        assert time.monotonic() - t0 < 3


def test_breaking_out_early_stops_the_workers():
    loader = numtorch.utils.data.DataLoader(_dataset(numtorch, how="all", n=1000), batch_size=2, num_workers=2)
    it = iter(loader)
    assert next(it).shape == (2, 2)
    del it  # the fixture checks that no worker outlives the iterator


@pytest.mark.parametrize("num_workers", [0, 2])
def test_yielding_more_than_len_warns_as_torch(num_workers):
    def make(lib):
        class Sized(lib.utils.data.IterableDataset):
            def __len__(self):
                return 4

            def __iter__(self):
                return iter(range(4))  # unsharded: each worker yields all four
        return Sized()

    res = []
    for lib in LIBS:  # PyTorch compares the number of batches yielded with len(dataset) (4 here)
        loader = lib.utils.data.DataLoader(make(lib), batch_size=1, num_workers=num_workers)
        assert len(loader) == 4
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            got, etype, _ = _run(loader)
        msgs = [str(w.message) for w in rec if "Length of IterableDataset" in str(w.message)]
        res.append((got, etype, [m.split(" was reported")[1] for m in msgs]))
    assert res[0] == res[1]
    assert len(res[1][2]) == (4 if num_workers else 0)
