"""Datasets (mirrors ``torch.utils.data.dataset``): Dataset, IterableDataset, TensorDataset, Subset,
ConcatDataset, random_split."""
from __future__ import annotations

import bisect
import math
import warnings
from typing import Generic, TypeVar

import numpy as np

from ..._tensor import Tensor, _make
from ...random import randperm

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "StackDataset",
           "ChainDataset", "random_split"]


_T_co = TypeVar("_T_co", covariant=True)


class Dataset(Generic[_T_co]):
    """A map-style dataset: subclasses define ``__getitem__(index)`` and usually ``__len__``.
    Generic in its item type, as in PyTorch (``Dataset[int]``)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co]):
    """An iterable-style dataset: subclasses define ``__iter__`` (used for streams)."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are tuples ``(t[i] for t in tensors)``; all tensors share the first dimension.

    ``dataset[idx]`` also accepts an index array, returning whole batches (the DataLoader uses this
    to build a batch with one indexing operation per tensor). AssertionError "Size mismatch between
    tensors" when first dimensions differ, as in PyTorch.
    """

    def __init__(self, *tensors: Tensor):
        assert all(tensors[0].size(0) == t.size(0) for t in tensors), "Size mismatch between tensors"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def _get_batch(self, indices):
        idx = np.asarray(indices, dtype=np.int64)
        return [_make(t._data[idx]) for t in self.tensors]  # a list, as default_collate returns

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Samples are tuples (or dicts) of the samples of several datasets of equal length."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/"
                             "output, but both types are given.")
        self.datasets = args or kwargs
        lens = {len(d) for d in (args or kwargs.values())}
        if len(lens) != 1:
            raise ValueError("Size mismatch between datasets")
        self._length = lens.pop()

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """The concatenation of several map-style datasets."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        for d in self.datasets:
            assert not isinstance(d, IterableDataset), "ConcatDataset does not support IterableDataset"
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]).tolist())

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[d - 1] if d > 0 else 0
        return self.datasets[d][idx - start]


class ChainDataset(IterableDataset):
    """Chains several iterable datasets."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            yield from d

    def __len__(self):
        return sum(len(d) for d in self.datasets)


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping random Subsets of the given lengths (``torch.utils.data.random_split``).

    ``lengths`` are counts summing to ``len(dataset)``, or fractions summing to 1 (remainders are
    distributed round-robin, as PyTorch does). ValueError otherwise.
    """
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, c in enumerate(counts):
            if c == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.")
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = randperm(n, generator=generator).tolist()
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[start:start + length]))
        start += length
    return out
