"""``DistributedSampler`` (mirrors ``torch.utils.data.distributed.DistributedSampler``).

Each of ``num_replicas`` processes reads a disjoint slice (``rank``, ``rank + num_replicas``, ...) of
one permutation shared by all ranks (seeded by ``seed + epoch``; call ``set_epoch`` each epoch). The
index list is padded by wrapping around (or, with ``drop_last``, cut) to a multiple of
``num_replicas``. Omitted ``num_replicas``/``rank`` come from the default process group of
``numtorch.distributed`` (through ``process_group_info``, which that higher layer sets at import).
"""
from __future__ import annotations

import math

from ...random import Generator, randperm
from .sampler import Sampler

__all__ = ["DistributedSampler"]

# () -> (world_size, rank) of the default process group; set by numtorch.distributed (a higher layer)
process_group_info = None


class DistributedSampler(Sampler):
    """``DistributedSampler(dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False)``.

    Omitted ``num_replicas``/``rank``: the default process group's (ValueError, as PyTorch, when it is
    not initialized; RuntimeError when there is no distributed package). ValueError for a rank outside
    ``[0, num_replicas - 1]``.
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:  # PyTorch asks the default process group
            if process_group_info is None:
                raise RuntimeError("Requires distributed package to be available")
            world, me = process_group_info()
            num_replicas = world if num_replicas is None else num_replicas
            rank = me if rank is None else rank
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
