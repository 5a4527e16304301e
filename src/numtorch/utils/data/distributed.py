"""``DistributedSampler`` (mirrors ``torch.utils.data.distributed.DistributedSampler``).

Each of ``num_replicas`` processes reads a disjoint slice (``rank``, ``rank + num_replicas``, ...) of
one permutation shared by all ranks (seeded by ``seed + epoch``; call ``set_epoch`` each epoch). The
index list is padded by wrapping around (or, with ``drop_last``, cut) to a multiple of
``num_replicas``. numtorch has no process group, so ``num_replicas`` and ``rank`` must be given.
"""
from __future__ import annotations

import math

from ...random import Generator, randperm
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """``DistributedSampler(dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False)``.

    RuntimeError when ``num_replicas``/``rank`` are omitted (no distributed backend); ValueError for a
    rank outside ``[0, num_replicas - 1]``.
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:  # PyTorch asks the process group, which needs a backend
            raise RuntimeError("Requires distributed package to be available")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank, self.epoch = dataset, num_replicas, rank, 0
        self.drop_last, self.shuffle, self.seed = drop_last, shuffle, seed
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank: self.total_size: self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Reseed the shuffle for ``epoch`` (all ranks must call it with the same value)."""
        self.epoch = epoch
