"""``DataLoader`` (mirrors ``torch.utils.data.DataLoader``): batches a dataset with a sampler and a collate function.

Supported: map-style and iterable datasets; ``batch_size``, ``shuffle`` (with ``generator``),
``sampler``, ``batch_sampler``, ``drop_last``, ``collate_fn``, ``batch_size=None`` (no batching),
``num_workers`` (0: in the main process; > 0: map-style datasets are loaded by a ``multiprocessing``
pool of that many forked workers, batches in order; iterable datasets always load in the main
process; at most ``prefetch_factor`` (default 2) batches per worker are in flight, so samplers are
drawn lazily), ``worker_init_fn``, ``persistent_workers``/``pin_memory``/``timeout`` (accepted; no
effect on CPU). A ``TensorDataset`` with the default collate is indexed once per
batch with the whole index array instead of sample by sample.
"""
from __future__ import annotations

import collections
import itertools
import multiprocessing

from ... import _generator, random as _random
from ..._ops.sampling import _eng
from ._collate import default_collate, default_convert
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]

_worker_info = None


def get_worker_info():
    """Information about the current worker process (None in the main process)."""
    return _worker_info


class _WorkerInfo:
    def __init__(self, id, num_workers, seed, dataset):
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset


_pool_state = {}


def _pool_init(dataset, collate_fn, fast, worker_init_fn, num_workers, base_seed, counter):
    global _worker_info
    with counter.get_lock():
        wid = counter.value
        counter.value += 1
    _random.manual_seed(base_seed + wid)
    _worker_info = _WorkerInfo(wid, num_workers, base_seed + wid, dataset)
    _pool_state.update(dataset=dataset, collate_fn=collate_fn, fast=fast)
    if worker_init_fn is not None:
        worker_init_fn(wid)


def _pool_fetch(indices):
    s = _pool_state
    return _fetch(s["dataset"], s["collate_fn"], s["fast"], indices)


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
            n = len(self.dataset)
            if self.batch_size is not None:
                return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self.batch_sampler) if self.batch_sampler is not None else len(self.sampler)

    def __iter__(self):
        # PyTorch draws a base seed for worker processes from ``generator`` each time an iterator is made,
        # workers or not; drawing it too keeps the default stream in step with PyTorch's
        base_seed = int(_generator.random_default(_eng(self.generator), 1, "int64")[0])
        if self._iterable:
            return self._iter_iterable()
        if self.num_workers > 0:
            return self._iter_workers(base_seed)
        return self._iter_map()

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

    def _iter_workers(self, base_seed):
        ctx = self.multiprocessing_context or multiprocessing.get_context("fork")
        if isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        counter = ctx.Value("i", 0)
        # jobs are drawn lazily and at most prefetch_factor * num_workers are in flight (as in PyTorch), so a
        # sampler with a huge num_samples is never materialized (Pool.imap would drain it eagerly)
        jobs = iter(self.batch_sampler) if self.batch_sampler is not None else ([i] for i in self.sampler)
        collate = self.collate_fn if self.batch_sampler is not None else (lambda b: self.collate_fn(b[0]))
        depth = (self.prefetch_factor or 2) * self.num_workers
        with ctx.Pool(self.num_workers, initializer=_pool_init,
                      initargs=(self.dataset, collate, self._fast, self.worker_init_fn, self.num_workers,
                                base_seed, counter)) as pool:
            pending = collections.deque(pool.apply_async(_pool_fetch, (j,)) for j in itertools.islice(jobs, depth))
            while pending:
                batch = pending.popleft().get()
                pending.extend(pool.apply_async(_pool_fetch, (j,)) for j in itertools.islice(jobs, 1))
                yield batch
