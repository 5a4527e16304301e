"""``ZeroRedundancyOptimizer`` (mirrors ``torch.distributed.optim.ZeroRedundancyOptimizer``; ZeRO stage 1).

With plain data parallelism every rank keeps the whole optimizer state (Adam: two extra copies of the
model). ZeRO shards it: the parameters are split among the ranks, each rank's local optimizer updates
only its own share (so it keeps only that share's state), and after each step every rank broadcasts
its updated parameters to the others. The gradients must already be averaged (DistributedDataParallel).

Partition (PyTorch's): within each parameter group, the parameters in decreasing size order, each
given to the rank with the fewest elements so far (counting every group).
"""
from __future__ import annotations

import copy

from ..._tensor import Tensor
from ...optim.optimizer import Optimizer
from .. import distributed_c10d, p2p
from .._ddp import broadcast_coalesced

__all__ = ["ZeroRedundancyOptimizer"]


class ZeroRedundancyOptimizer(Optimizer):
    """``ZeroRedundancyOptimizer(params, optimizer_class, process_group=None, parameters_as_bucket_view=False,
    overlap_with_ddp=False, **defaults)``: ``optimizer_class(my_share, **defaults)`` is this rank's
    optimizer (``.optim``); ``step()`` runs it and then broadcasts every rank's share.

    ``consolidate_state_dict(to=0)`` (all ranks) gathers the shards' states on rank ``to``; there
    ``state_dict()`` returns the state of the whole model, in the format of an unsharded
    ``optimizer_class``. Errors as PyTorch: TypeError for a single Tensor, ValueError for no parameters,
    RuntimeError from ``state_dict()`` before consolidation. ``overlap_with_ddp=True`` (a DDP comm hook
    in PyTorch) raises NotImplementedError.
    """

    def __init__(self, params, optimizer_class, process_group=None, parameters_as_bucket_view=False,
                 overlap_with_ddp=False, **defaults):
        if isinstance(params, Tensor):
            raise TypeError(f"params argument should be an iterable of Tensors, but got {type(params).__name__}")
        params = list(params)
        if not params:
            raise ValueError("ZeroRedundancyOptimizer did not receive any parameters")
        if overlap_with_ddp:
            raise NotImplementedError("numtorch's ZeroRedundancyOptimizer does not support overlap_with_ddp=True "
                                      "(it needs DDP communication hooks); call step() after backward instead")
        self.initialized = False
        super().__init__(params, defaults)
        self.process_group = distributed_c10d.default_group() if process_group is None else process_group
        self.world_size = distributed_c10d.get_world_size(self.process_group)
        self.rank = distributed_c10d.get_rank(self.process_group)
        self.global_rank = distributed_c10d.get_global_rank(self.process_group, self.rank)
        self.parameters_as_bucket_view = parameters_as_bucket_view
        self._optim_defaults, self._optim_constructor = defaults, optimizer_class
        self._partition_cache = []
        self._all_state_dicts = []
        self._init_local_optimizer()
        self.initialized = True

    # ----------------------------------------------------------------------------- partition
    def _partition_parameters(self):
        """Per rank, its param groups (copies of ours holding only its parameters)."""
        if not self._partition_cache:
            per_rank = [[] for _ in range(self.world_size)]
            sizes = [0] * self.world_size
            for group in self.param_groups:
                share = [[] for _ in range(self.world_size)]
                for p in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
                    r = sizes.index(min(sizes))
                    share[r].append(p)
                    sizes[r] += p.numel()
                for r, ps in enumerate(share):
                    g = copy.copy(group)
                    g["params"] = ps
                    per_rank[r].append(g)
            self._partition_cache = per_rank
        return self._partition_cache

    @property
    def _param_to_rank(self):
        return {id(p): r for r, groups in enumerate(self._partition_parameters()) for g in groups
                for p in g["params"]}

    @property
    def _index_to_param(self):
        return [p for g in self.param_groups for p in g["params"]]

    def _init_local_optimizer(self):
        self.optim = self._optim_constructor(self._partition_parameters()[self.rank], **self._optim_defaults)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)

    def add_param_group(self, param_group: dict) -> None:
        super().add_param_group(param_group)
        if getattr(self, "initialized", False):  # repartition, as PyTorch (state of the old shards is kept)
            self._partition_cache = []
            self._init_local_optimizer()

    @staticmethod
    def _sync_param_groups(src, dst):
        """Copy the options (lr, ...) of each group of ``src`` onto the matching group of ``dst``."""
        for s, d in zip(src, dst):
            for k, v in s.items():
                if k != "params":
                    d[k] = v

    # ---------------------------------------------------------------------------------- step
    def step(self, closure=None, **kwargs):
        """Step this rank's share, then broadcast every share from its owner (rank order)."""
        self._sync_param_groups(self.param_groups, self.optim.param_groups)  # schedulers change ours
        loss = self.optim.step(closure=closure, **kwargs) if closure is not None else self.optim.step(**kwargs)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)
        for r, groups in enumerate(self._partition_parameters()):
            broadcast_coalesced([p for g in groups for p in g["params"]], r, self.process_group)
        return loss

    # --------------------------------------------------------------------------- state dicts
    def consolidate_state_dict(self, to: int = 0) -> None:
        """Gather every rank's local optimizer state on rank ``to`` (call on all ranks)."""
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        got = [None] * self.world_size if self.rank == to else None
        dst = distributed_c10d.get_global_rank(self.process_group, to)
        p2p.gather_object(self.optim.state_dict(), got, dst=dst, group=self.process_group)
        self._all_state_dicts = got if self.rank == to else []

    def state_dict(self) -> dict:
        """The whole optimizer's state, as an unsharded optimizer would save it (rank ``to`` only)."""
        if not self._all_state_dicts:
            raise RuntimeError("Optimizer state has not been consolidated on this rank. Please call "
                               f"`consolidate_state_dict(to={self.rank})` on all ranks beforehand if you meant to "
                               "save the global state.")
        sd = super().state_dict()
        index = {id(p): i for i, p in enumerate(self._index_to_param)}
        for rank, local in enumerate(self._all_state_dicts):
            for lg, gg in zip(local["param_groups"], self._partition_parameters()[rank]):
                for li, p in zip(lg["params"], gg["params"]):
                    if li in local["state"]:
                        sd["state"][index[id(p)]] = local["state"][li]
        sd["state"] = dict(sorted(sd["state"].items()))
        return sd

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a (consolidated) ``state_dict``: this rank keeps the state of its own share."""
        owner, params = self._param_to_rank, self._index_to_param
        for i, value in state_dict["state"].items():
            p = params[i]
            if owner[id(p)] != self.rank:
                state_dict["state"][i] = None  # as PyTorch: other ranks' entries are dropped here
            else:
                self.optim.state[p] = Optimizer._cast_state(p, value)
        super().load_state_dict(state_dict)
        self._sync_param_groups(state_dict["param_groups"], self.param_groups)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
