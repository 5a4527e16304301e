"""``DataLoader`` (mirrors ``torch.utils.data.DataLoader``): batches a dataset with a sampler and a collate function.

Supported: map-style and iterable datasets; ``batch_size``, ``shuffle`` (with ``generator``),
``sampler``, ``batch_sampler``, ``drop_last``, ``collate_fn``, ``batch_size=None`` (no batching),
``num_workers`` (0: in the main process; > 0: that many worker processes (forked by default,
``multiprocessing_context`` to choose) load the batches, handed out in turn and yielded in order;
at most ``prefetch_factor`` (default 2) batches per worker are in flight, so samplers are drawn
lazily), ``worker_init_fn``, ``persistent_workers`` (the same workers serve every epoch), ``timeout`` (RuntimeError "DataLoader timed out after N seconds"),
``pin_memory`` (accepted; no effect on CPU). A ``TensorDataset`` with the default collate is
indexed once per batch with the whole index array instead of sample by sample.

An ``IterableDataset`` with workers, as in PyTorch: each worker iterates its own copy of the
dataset (``get_worker_info()`` gives its ``id``, ``num_workers``, ``seed`` and ``dataset`` copy, so
``__iter__`` or ``worker_init_fn`` can shard it; unsharded, every sample comes once per worker);
batch ``k`` comes from worker ``k % num_workers`` while all are active, and a worker whose iterator
is exhausted drops out of the rotation without ending the others. A partial last batch is made per
worker (``drop_last`` drops each worker's). After ``len(loader)``, an iterator that yields more
batches than ``len(dataset)`` warns as PyTorch's does.

Workers, as in PyTorch: a worker that dies (killed, ``os._exit``, segfault) raises
``RuntimeError: DataLoader worker (pid(s) ...) exited unexpectedly`` at once; an exception in the
dataset is re-raised in the main process as "Caught X in DataLoader worker process N" with the
worker's traceback; ``random``, numtorch and NumPy are seeded per worker from ``base_seed + id``;
the workers are shut down when the iterator ends, is dropped, or is interrupted (Ctrl-C), and exit
by themselves if the main process dies. See docs/serialization.md ("DataLoader").
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import pickle
import time
import warnings
from multiprocessing.connection import wait as _wait

from ... import _generator
from ..._ops.sampling import _eng
from ._collate import default_collate, default_convert
from ._worker import _POLL_S, ExceptionWrapper, _IterableDatasetStopIteration, get_worker_info, worker_loop
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]


class _Fetcher:
    """What a worker does with one job of a map-style dataset (a module-level class so spawn contexts
    can pickle it)."""

    iterable = False

    def __init__(self, collate_fn, fast, batched):
        self.collate_fn, self.fast, self.batched = collate_fn, fast, batched

    def start(self, dataset):
        return self

    def __call__(self, dataset, indices):
        if not self.batched:
            return self.collate_fn(dataset[indices[0]])
        return _fetch(dataset, self.collate_fn, self.fast, indices)


class _IterableFetcher:
    """What a worker does with one job of an iterable dataset (PyTorch's ``_IterableDatasetFetcher``):
    the next ``len(indices)`` samples of this worker's iterator, collated; StopIteration once it is
    exhausted (or, with ``drop_last``, when it cannot fill a batch)."""

    iterable = True

    def __init__(self, collate_fn, batched, drop_last):
        self.collate_fn, self.batched, self.drop_last, self.it, self.ended = collate_fn, batched, drop_last, None, False

    def start(self, dataset):
        """A fetcher over a fresh ``iter(dataset)``: one per worker and epoch."""
        fresh = _IterableFetcher(self.collate_fn, self.batched, self.drop_last)
        fresh.it = iter(dataset)
        return fresh

    def __call__(self, dataset, indices):
        if self.ended:
            raise StopIteration
        if not self.batched:
            return self.collate_fn(next(self.it))
        batch = list(itertools.islice(self.it, len(indices)))
        self.ended = len(batch) < len(indices)
        if not batch or (self.drop_last and self.ended):
            raise StopIteration
        return self.collate_fn(batch)


class _Workers:
    """The worker processes of one DataLoader, each with its own duplex pipe; kept across epochs with
    ``persistent_workers``."""

    def __init__(self, loader, base_seed):
        ctx = loader.multiprocessing_context or multiprocessing.get_context("fork")
        if isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        n = loader.num_workers
        if loader._iterable:
            fetch = _IterableFetcher(loader.collate_fn, loader._auto_collation, loader.drop_last)
        else:
            fetch = _Fetcher(loader.collate_fn, loader._fast, loader.batch_sampler is not None)
        self.conns, self.procs, self.epoch, self.closed = [], [], 0, False
        try:
            for wid in range(n):
                mine, theirs = ctx.Pipe(duplex=True)
                p = ctx.Process(target=worker_loop, daemon=True, name=f"DataLoader worker {wid}",
                                args=(fetch, loader.dataset, theirs, wid, n, base_seed, loader.worker_init_fn,
                                      os.getpid()))
                p.start()
                theirs.close()  # only the worker holds its end, so its death reads as EOF here
                self.conns.append(mine)
                self.procs.append(p)
        except BaseException:
            self.shutdown()
            raise

    def alive(self):
        return not self.closed and all(p.exitcode is None for p in self.procs)

    def send(self, wid, job):
        try:
            self.conns[wid].send(job)
        except (BrokenPipeError, ConnectionResetError, EOFError):
            self._died([self.procs[wid]])

    def _died(self, procs):
        for p in procs:
            p.join(_POLL_S)
        self.shutdown()
        raise RuntimeError(f"DataLoader worker (pid(s) {', '.join(str(p.pid) for p in procs)}) exited unexpectedly")

    def recv(self, timeout):
        """The next ``(epoch, idx, payload)`` from any worker; RuntimeError if one died or ``timeout`` passed."""
        deadline = time.monotonic() + timeout if timeout and timeout > 0 else None
        by_conn = dict(zip(self.conns, self.procs))
        by_sentinel = {p.sentinel: p for p in self.procs}
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = _wait(self.conns + list(by_sentinel), timeout=left)
            for r in ready:  # results first: a worker may have answered and then exited
                if r in by_conn:
                    try:
                        return r.recv()
                    except (EOFError, OSError):
                        self._died([by_conn[r]])
            dead = [by_sentinel[r] for r in ready if r in by_sentinel]
            if dead:
                self._died(dead)
            if deadline is not None and time.monotonic() >= deadline:
                self.shutdown()
                raise RuntimeError(f"DataLoader timed out after {timeout} seconds")

    def shutdown(self):
        """Ask every worker to stop, then terminate (and kill) those that do not: no process outlives this."""
        if self.closed:
            return
        self.closed = True
        for c in self.conns:
            try:
                c.send(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 1.0
        for p in self.procs:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in self.procs:
            if p.exitcode is None:
                p.terminate()
                p.join(0.5)
            if p.exitcode is None:
                p.kill()
                p.join()
        for c in self.conns:
            c.close()

    def __del__(self):
        try:
            self.shutdown()
        except Exception:
            pass


def _fetch(dataset, collate_fn, fast, indices):
    if fast:
        return dataset._get_batch(indices)
    if hasattr(dataset, "__getitems__"):
        return collate_fn(dataset.__getitems__(indices))
    return collate_fn([dataset[i] for i in indices])


class DataLoader:
    """Iterate over ``dataset`` in batches (``torch.utils.data.DataLoader``).

    ValueError for contradictory options, as in PyTorch (e.g. ``shuffle`` with a ``sampler``,
    ``batch_sampler`` with ``batch_size``/``shuffle``/``sampler``/``drop_last``).
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        self.dataset, self.num_workers, self.pin_memory, self.timeout = dataset, num_workers, pin_memory, timeout
        self.worker_init_fn, self.generator, self.prefetch_factor = worker_init_fn, generator, prefetch_factor
        self.persistent_workers, self.multiprocessing_context = persistent_workers, multiprocessing_context
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:  # as PyTorch
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if num_workers > 0 and prefetch_factor is None:
            self.prefetch_factor = 2
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self._workers = None  # the persistent workers, once started
        self._len_called = None  # len(loader) of an iterable dataset, once asked
        self._base_seed = None  # their base seed, drawn by the first iterator as in PyTorch
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last, self.sampler, self.batch_sampler = batch_size, drop_last, sampler, batch_sampler
        self._auto_collation = batch_sampler is not None or (self._iterable and batch_size is not None)
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self._fast = (isinstance(dataset, TensorDataset) and collate_fn is default_collate and
                      batch_sampler is not None)

    def __len__(self):
        if self._iterable:
            n = self._len_called = len(self.dataset)  # later iterators warn past it (PyTorch compares
            if self.batch_size is not None:  # batches yielded with the dataset's length, as here)
                return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self.batch_sampler) if self.batch_sampler is not None else len(self.sampler)

    def __iter__(self):
        # PyTorch draws a base seed for worker processes from ``generator`` each time an iterator is made,
        # workers or not; drawing it too keeps the default stream in step with PyTorch's. With persistent
        # workers PyTorch makes one iterator and only resets it for later epochs, so the seed is drawn once
        persistent = self.persistent_workers and self.num_workers > 0
        if persistent and self._base_seed is not None:
            base_seed = self._base_seed
        else:
            base_seed = int(_generator.random_default(_eng(self.generator), 1, "int64")[0])
            if persistent:
                self._base_seed = base_seed
        if self.num_workers > 0:
            it = self._iter_workers(base_seed)
        else:
            it = self._iter_iterable() if self._iterable else self._iter_map()
        return self._check_len(it, self._len_called) if self._iterable and self._len_called is not None else it

    def _check_len(self, it, reported):
        """PyTorch's warning when an iterable dataset yields more than ``len(loader)`` said."""
        for count, batch in enumerate(it, 1):
            if count > reported:
                msg = (f"Length of IterableDataset {self.dataset} was reported to be {reported}(when accessing "
                       f"len(dataloader)), but {count} samples have been fetched. ")
                if self.num_workers > 0:
                    msg += ("For multiprocessing data-loading, this could be caused by not properly configuring "
                            "the IterableDataset replica at each worker. Please see "
                            "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
                warnings.warn(msg, UserWarning, stacklevel=2)
            yield batch

    def _iter_map(self):
        ds = self.dataset
        if self.batch_sampler is None:
            for i in self.sampler:
                yield self.collate_fn(ds[i])
            return
        for indices in self.batch_sampler:
            yield _fetch(ds, self.collate_fn, self._fast, indices)

    def _iter_iterable(self):
        it = iter(self.dataset)
        if self.batch_size is None:
            for x in it:
                yield self.collate_fn(x)
            return
        batch = []
        for x in it:
            batch.append(x)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def _jobs(self):
        """The jobs sent to workers, drawn lazily: index lists of the batch sampler (or one index per
        sample); for an iterable dataset an endless stream of placeholders of a batch's size (PyTorch's
        ``_InfiniteConstantSampler``), each worker's StopIteration ending the epoch."""
        if self._iterable:
            return itertools.repeat([None] * self.batch_size if self._auto_collation else [None])
        return iter(self.batch_sampler) if self.batch_sampler is not None else ([i] for i in self.sampler)

    def _iter_workers(self, base_seed):
        """PyTorch's ``_MultiProcessingDataLoaderIter``: batch ``k`` goes to the next active worker in
        turn (round robin), at most ``prefetch_factor * num_workers`` are in flight, and batches are
        yielded in order. A worker whose iterable dataset is exhausted leaves the rotation; the jobs
        it had are skipped, and the epoch ends when no job is left."""
        workers = self._workers
        if workers is None or not workers.alive():
            workers = _Workers(self, base_seed)
            if self.persistent_workers:
                self._workers = workers
        workers.epoch += 1
        epoch, n = workers.epoch, self.num_workers
        jobs, rotation = self._jobs(), itertools.cycle(range(n))
        active = [True] * n
        owner, done = {}, {}  # batch index -> worker, for jobs not yet yielded; batch index -> payload
        sent = rcvd = 0

        def send_next():
            nonlocal sent
            for job in itertools.islice(jobs, 1):
                wid = next((w for w in itertools.islice(rotation, n) if active[w]), None)
                if wid is None:
                    return
                workers.send(wid, (epoch, sent, job))
                owner[sent] = wid
                sent += 1

        try:
            for _ in range((self.prefetch_factor or 2) * n):
                send_next()
            while True:
                while rcvd < sent and rcvd not in done and not active[owner[rcvd]]:
                    del owner[rcvd]  # its worker ran out of data before doing it
                    rcvd += 1
                if rcvd >= sent:
                    return
                if rcvd in done:
                    payload = done.pop(rcvd)
                    del owner[rcvd]
                    rcvd += 1
                    send_next()
                    if isinstance(payload, ExceptionWrapper):
                        payload.reraise()
                    yield pickle.loads(payload)
                    continue
                if workers.epoch != epoch:  # a newer iterator took over the persistent workers
                    return
                ep, idx, payload = workers.recv(self.timeout)
                if ep != epoch:  # a persistent worker may still answer an abandoned epoch
                    continue
                if isinstance(payload, _IterableDatasetStopIteration):
                    active[payload.worker_id] = False
                    send_next()
                else:
                    done[idx] = payload
        finally:
            if not self.persistent_workers:
                workers.shutdown()
