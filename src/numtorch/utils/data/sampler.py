"""Samplers (mirrors ``torch.utils.data.sampler``): which indices a DataLoader visits, in what order."""
from __future__ import annotations

from typing import Generic, TypeVar

import numpy as np

from ... import _generator
from ..._dtype import float64
from ..._ops.creation import as_tensor
from ...random import Generator, multinomial, randint, randperm

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]


_T_co = TypeVar("_T_co", covariant=True)


class Sampler(Generic[_T_co]):
    """Base class: subclasses define ``__iter__`` over indices (and ``__len__``); generic in the index type."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation, or ``num_samples`` draws with ``replacement``.

    Indices are produced in chunks (permutations of ``n`` or blocks of 32 draws), so a huge
    ``num_samples`` never builds its index list up front.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.replacement, self._num_samples, self.generator = (
            data_source, replacement, num_samples, generator)
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:  # as PyTorch: a fresh generator seeded from the default stream
            seed = _generator.random_default(_generator.default_engine, 1, np.int64)[0]
            generator = Generator().manual_seed(int(seed))
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(0, n, (32,), generator=generator).tolist()
            yield from randint(0, n, (self.num_samples % 32,), generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=generator).tolist()
        # PyTorch draws this last permutation even when nothing of it is used, which moves the stream
        yield from randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in random order."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = as_tensor(weights, dtype=float64)
        if weights.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights = weights
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self):
        yield from multinomial(self.weights, self.num_samples, self.replacement,
                               generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size`` (last one shorter unless ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
