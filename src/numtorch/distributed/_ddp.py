"""``DistributedDataParallel`` (mirrors ``torch.nn.parallel.DistributedDataParallel``).

Each rank holds a full copy of the model and trains on its own shard of the batch. At construction
the parameters and buffers of rank 0 are broadcast to every rank; in each backward the gradients are
averaged across ranks by the :class:`Reducer` (``_reducer.py``: buckets of ``bucket_cap_mb``,
non-blocking all-reduces launched as buckets fill, waited for at the end of backward), so every rank's
optimizer takes the same step and the copies stay identical. Buffers (BatchNorm's running stats) are
broadcast from rank 0 before each forward (``broadcast_buffers=True``).

numtorch's layers: ``nn`` (layer 6) cannot import ``distributed`` (layer 9), so this module installs
the class as ``numtorch.nn.parallel.DistributedDataParallel`` when it is imported (the package root
imports it), the way ``autograd.graph_backward`` installs ``engine.graph_runner``.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from .._tensor import Tensor, _make
from ..autograd.grad_mode import is_grad_enabled
from ..nn import parallel as _nn_parallel
from ..nn.modules.module import Module
from . import collectives, distributed_c10d, p2p
from ._reducer import DEFAULT_FIRST_BUCKET_BYTES, Reducer

__all__ = ["DistributedDataParallel", "broadcast_coalesced"]

_MB = 1024 * 1024
_DEFAULT_BUCKET_CAP_MB = 25


class _api:
    """The collectives DDP and its Reducer call, as one namespace (importing the ``distributed`` package
    here would be an import circle; the benchmark wraps ``all_reduce`` here to time it)."""

    all_reduce, broadcast = staticmethod(collectives.all_reduce), staticmethod(collectives.broadcast)
    all_gather_object = staticmethod(p2p.all_gather_object)
    broadcast_object_list = staticmethod(p2p.broadcast_object_list)
    get_rank, get_world_size = staticmethod(distributed_c10d.get_rank), staticmethod(distributed_c10d.get_world_size)
    default_group = staticmethod(distributed_c10d.default_group)


def broadcast_coalesced(tensors, group_src, group):
    """Broadcast ``tensors`` (in place) from rank ``group_src`` of ``group`` as one message per dtype
    (PyTorch's ``_broadcast_coalesced``: many small buffers cost one collective, not one each)."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t._data.dtype, []).append(t)
    for dtype, ts in by_dtype.items():
        flat = _make(np.concatenate([t._data.reshape(-1) for t in ts]) if ts else np.zeros(0, dtype))
        _api.broadcast(flat, group=group, group_src=group_src)
        off = 0
        for t in ts:
            n = t._data.size
            t._data[...] = flat._data[off:off + n].reshape(t._data.shape)
            off += n


def _output_tensors(out):
    """The tensors inside a forward's output (tensors, lists, tuples, dicts, nested)."""
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _output_tensors(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in _output_tensors(o)]
    return []


class DistributedDataParallel(Module):
    """``DistributedDataParallel(module, device_ids=None, output_device=None, dim=0, broadcast_buffers=None,
    init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
    check_reduction=False, gradient_as_bucket_view=False, static_graph=False, ...)``.

    Wraps ``module`` as the child ``module`` (state_dict keys gain ``module.``); ``forward`` runs it and
    arms gradient averaging for the next backward. Errors as PyTorch: ValueError without an initialized
    default process group, or for ``device_ids``/``output_device`` with a CPU module; RuntimeError when
    no parameter requires grad, when parameter shapes differ across ranks, and at the next forward after
    a backward that left parameters without gradients (set ``find_unused_parameters=True``).
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=None, init_sync=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None,
                 skip_all_reduce_unused_params=False, bucket_cap_mb_list=None, batched_grad_copy=False,
                 forward_sync_buffers=None):
        super().__init__()
        dist = _api
        self.process_group = dist.default_group() if process_group is None else process_group
        ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        self.parameters_to_ignore = ignore
        named = [(n, p) for n, p in module.named_parameters() if n not in ignore]
        if not any(p.requires_grad for _, p in named):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        if device_ids or output_device:
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with "
                "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                f"{device_ids}, output_device {output_device}, and module parameters "
                f"{ {p.device for _, p in named} }.")
        self.module = module
        self.device_ids, self.output_device, self.dim = None, None, dim
        self.device_type = "cpu"
        sync_buffers = forward_sync_buffers if forward_sync_buffers is not None else broadcast_buffers
        self.broadcast_buffers = True if sync_buffers is None else bool(sync_buffers)
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        cap = bucket_cap_mb if bucket_cap_mb is not None else _DEFAULT_BUCKET_CAP_MB
        self.bucket_bytes_cap = int(cap * _MB)
        first = DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap
        params = [p for _, p in named if p.requires_grad]
        names = [n for n, p in named if p.requires_grad]
        if init_sync:
            self._verify_param_shapes(params)
            states = [p for _, p in named]
            if broadcast_buffers is not False:
                states += self._module_buffers()
            broadcast_coalesced(states, 0, self.process_group)
        self.reducer = Reducer(params, names, dist, self.process_group, self.bucket_bytes_cap, first,
                               find_unused_parameters, static_graph, gradient_as_bucket_view)

    def _module_buffers(self):
        return [b for n, b in self.module.named_buffers() if n not in self.parameters_to_ignore]

    def _verify_param_shapes(self, params):
        """Every rank must wrap the same model: compare parameter shapes (PyTorch's
        ``_verify_param_shape_across_processes``)."""
        dist = _api
        mine = [tuple(p.shape) for p in params]
        everyone = [None] * dist.get_world_size(self.process_group)
        dist.all_gather_object(everyone, mine, group=self.process_group)
        rank = dist.get_rank(self.process_group)
        for r, theirs in enumerate(everyone):
            if len(theirs) != len(mine):
                raise RuntimeError(f"DDP expects same model across all ranks, but Rank {rank} has {len(mine)} "
                                   f"params, while rank {r} has inconsistent {len(theirs)} params.")
            for k, (a, b) in enumerate(zip(mine, theirs)):
                if a != b:
                    raise RuntimeError(f"DDP expects same model across all ranks, but Rank {rank} has param {k} "
                                       f"of shape {list(a)}, while rank {r} has inconsistent shape {list(b)}.")

    # ------------------------------------------------------------------------------- forward
    def forward(self, *inputs, **kwargs):
        grad_sync = is_grad_enabled() and self.require_backward_grad_sync
        if grad_sync:
            self.reducer.ensure_prior_reduction_finished()
            self.reducer.rebuild_buckets()
        if self.require_forward_param_sync and self.broadcast_buffers:
            bufs = self._module_buffers()
            if bufs:
                broadcast_coalesced(bufs, 0, self.process_group)
        output = self.module(*inputs, **kwargs)
        if grad_sync:
            self.require_forward_param_sync = True
            self.reducer.prepare_for_backward(_output_tensors(output))
        else:
            self.require_forward_param_sync = False
        return output

    @contextmanager
    def no_sync(self):
        """Inside, backward accumulates local gradients without averaging them; the first backward after it
        averages the accumulated gradients (gradient accumulation over micro-batches)."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def _get_ddp_logging_data(self):
        return {"bucket_sizes": [int(b.flat._data.nbytes) for b in self.reducer.buckets],
                "can_set_static_graph": not self.find_unused_parameters}

    def extra_repr(self) -> str:
        return ""


_nn_parallel.DistributedDataParallel = DistributedDataParallel  # the hook: nn.parallel's name for this class
