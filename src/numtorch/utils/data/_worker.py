"""DataLoader worker processes (mirrors ``torch/utils/data/_utils/worker.py`` and ``ExceptionWrapper``).

Each worker is a process with its own pipe: the main process sends ``(epoch, batch_index, indices)``
jobs and the worker answers ``(epoch, batch_index, payload)``, ``payload`` being the pickled batch
or an ``ExceptionWrapper``. For an ``IterableDataset`` each worker iterates its own copy of the
dataset (a fresh ``iter(dataset)`` per epoch); the indices are placeholders saying how many samples
make a batch, and a worker whose iterator is exhausted answers once with
``_IterableDatasetStopIteration`` and then ignores the rest of that epoch's jobs, as PyTorch's. One pipe per worker (no lock shared between processes) means a worker
killed at any moment cannot wedge the others; the main process (``DataLoader``) waits on the pipes
and the workers' exit sentinels together, so a dead worker is reported at once instead of hanging.
"""
from __future__ import annotations

import gc
import os
import pickle
import random
import sys
import traceback

import numpy as np

from ...random import manual_seed

__all__ = ["get_worker_info"]

_POLL_S = 0.1  # how often a waiting process checks on the other side
_worker_info = None


def get_worker_info():
    """Information about the current worker process (``torch.utils.data.get_worker_info``); None in the
    main process. Attributes: ``id``, ``num_workers``, ``seed``, ``dataset``."""
    return _worker_info


class WorkerInfo:
    def __init__(self, id, num_workers, seed, dataset):
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


class _IterableDatasetStopIteration:
    """A worker's answer when its copy of an iterable dataset is exhausted (PyTorch's class of that name)."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class KeyErrorMessage(str):
    """A KeyError's message printed as-is (KeyError would repr it), as ``torch._utils.KeyErrorMessage``."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception and its formatted traceback, sent from a worker (``torch._utils.ExceptionWrapper``).

    The exception object itself never travels (it may not pickle); only its class (when picklable)
    and the text, re-raised by ``reraise`` as ``exc_type(message)``, or RuntimeError when the class
    cannot be rebuilt from one message argument.
    """

    def __init__(self, exc_info=None, where="in background"):
        exc_info = exc_info or sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def __reduce__(self):
        try:  # a class defined inside a function cannot travel by reference
            pickle.dumps(self.exc_type)
            exc_type = self.exc_type
        except Exception:
            exc_type = None
        return (_rebuild_wrapper, (exc_type, self.exc_type.__name__, self.exc_msg, self.where))

    def reraise(self):
        name = self.exc_type.__name__ if self.exc_type is not None else self._name
        msg = f"Caught {name} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is None:
            raise RuntimeError(msg)
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exception


def _rebuild_wrapper(exc_type, name, exc_msg, where):
    w = ExceptionWrapper.__new__(ExceptionWrapper)
    w.exc_type, w._name, w.exc_msg, w.where = exc_type, name, exc_msg, where
    return w


# numpy's SeedSequence hash as PyTorch 2.13 uses it (torch/utils/data/_utils/worker.py::_generate_state,
# MIT licence, (c) 2015 Melissa E. O'Neill, (c) 2019 NumPy Developers): numpy's global RandomState of
# worker ``worker_id`` is seeded with these four uint32 words, so it differs from ``random``'s seed
def _generate_state(base_seed, worker_id):
    INIT_A, MULT_A, INIT_B, MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
    MIX_MULT_L, MIX_MULT_R, XSHIFT, MASK32 = 0xCA01F9DD, 0x4973F715, 16, 0xFFFFFFFF
    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    pool = [0] * 4
    hash_const_A = INIT_A

    def hash(value):
        nonlocal hash_const_A
        value = (value ^ hash_const_A) & MASK32
        hash_const_A = (hash_const_A * MULT_A) & MASK32
        value = (value * hash_const_A) & MASK32
        return (value ^ (value >> XSHIFT)) & MASK32

    def mix(x, y):
        result = (((MIX_MULT_L * x) & MASK32) - ((MIX_MULT_R * y) & MASK32)) & MASK32
        return (result ^ (result >> XSHIFT)) & MASK32

    for i in range(4):
        pool[i] = hash(entropy[i])
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash(pool[i_src]))
    hash_const_B = INIT_B
    state = []
    for i_dst in range(4):
        data_val = (pool[i_dst] ^ hash_const_B) & MASK32
        hash_const_B = (hash_const_B * MULT_B) & MASK32
        data_val = (data_val * hash_const_B) & MASK32
        state.append((data_val ^ (data_val >> XSHIFT)) & MASK32)
    return state


def seed_worker(base_seed, worker_id):
    """Seed ``random``, numtorch and NumPy's global generator in worker ``worker_id`` as PyTorch does."""
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(_generate_state(base_seed, worker_id))
    return seed


def worker_loop(fetch, dataset, conn, worker_id, num_workers, base_seed, init_fn, parent):
    """Body of one worker process: answer the jobs ``conn`` sends until it sends None, closes, or the parent dies.

    ``fetch.start(dataset)`` gives the fetcher of one epoch (for an iterable dataset it holds this
    worker's ``iter(dataset)``); it runs at start-up after ``init_fn`` and again for each later epoch
    of persistent workers."""
    global _worker_info
    # a forked worker must never collect (and run __del__ of) the parent's pending garbage, e.g. another
    # loader's iterator that would try to shut down the parent's processes from here
    gc.freeze()
    where = f"in DataLoader worker process {worker_id}"
    try:
        seed = seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
        init_error = fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = fetch.start(dataset)
        except Exception:
            init_error = ExceptionWrapper(where=where)
        current, ended = 1, False  # the epoch being served; its iterable dataset is exhausted
        while True:
            if not conn.poll(_POLL_S):
                if os.getppid() != parent:  # the main process is gone: nobody will read our results
                    return
                continue
            job = conn.recv()
            if job is None:
                return
            epoch, idx, indices = job
            error = init_error
            if epoch != current and init_error is None:  # a new epoch of persistent workers
                current, ended = epoch, False
                try:
                    fetcher = fetch.start(dataset)
                except Exception:
                    fetcher, error = None, ExceptionWrapper(where=where)
            if ended:
                continue  # PyTorch's worker skips the jobs that follow its end of iteration
            if error is not None:
                payload = error
            else:
                try:
                    payload = pickle.dumps(fetcher(dataset, indices), protocol=pickle.HIGHEST_PROTOCOL)
                except Exception as e:
                    if isinstance(e, StopIteration) and fetch.iterable:
                        payload, ended = _IterableDatasetStopIteration(worker_id), True
                    else:
                        payload = ExceptionWrapper(where=where)
            conn.send((epoch, idx, payload))
    except (KeyboardInterrupt, EOFError, BrokenPipeError, ConnectionResetError):
        pass  # Ctrl-C reaches the whole process group and the main process handles it; or the main side closed
