"""Collectives inside autograd (mirrors ``torch.distributed.nn.functional``).

Each is an ``autograd.Function`` whose forward runs the collective on a copy of its input and whose
backward runs the collective that moves gradients back, PyTorch's rules:

| forward | backward |
|---|---|
| ``broadcast(src)`` | ``reduce`` (SUM) to ``src``; other ranks get zeros |
| ``reduce(dst)`` | ``broadcast`` from ``dst`` |
| ``all_reduce(op)`` | ``all_reduce(op)`` of the gradients |
| ``all_gather`` | each rank's gradient pieces exchanged (all-to-all) and summed |
| ``gather(dst)`` | ``scatter`` from ``dst`` |
| ``scatter(src)`` | ``gather`` to ``src`` |
| ``reduce_scatter`` | ``all_gather`` |
| ``all_to_all(_single)`` | ``all_to_all(_single)`` with the split sizes swapped |

Every rank must run the backward (the backward collectives need all of them).
"""
from __future__ import annotations

from ..._ops.creation import empty, empty_like, zeros_like
from ..._ops.rearrange import stack
from ..._ops.reduction import sum as _sum
from ...autograd.function import Function
from .. import collectives as C
from ..distributed_c10d import ReduceOp, get_rank, get_world_size

__all__ = ["broadcast", "gather", "scatter", "reduce", "reduce_scatter", "all_gather", "all_to_all",
           "all_to_all_single", "all_reduce"]


def _copy(t):
    return t.detach().clone().contiguous()


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group, ctx.rank = src, group, get_rank(group)
        out = _copy(tensor)
        C.broadcast(out, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        gx = _Reduce.apply(ctx.src, ReduceOp.SUM, ctx.group, grad)
        if ctx.rank != ctx.src:
            gx = zeros_like(gx)
        return None, None, gx


class _Reduce(Function):
    @staticmethod
    def forward(ctx, dst, op, group, tensor):
        ctx.dst, ctx.group = dst, group
        out = _copy(tensor)
        C.reduce(out, dst, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        return None, None, None, _Broadcast.apply(ctx.dst, ctx.group, grad)


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.op, ctx.group = op, group
        out = _copy(tensor)
        C.all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        return None, None, _AllReduce.apply(ctx.op, ctx.group, grad)


class _Gather(Function):
    @staticmethod
    def forward(ctx, dst, group, tensor):
        ctx.dst, ctx.group = dst, group
        outs = [zeros_like(tensor) for _ in range(get_world_size(group))]
        C.gather(_copy(tensor), outs if get_rank(group) == dst else None, dst, group=group)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        return None, None, _Scatter.apply(ctx.dst, ctx.group, *grads)


class _Scatter(Function):
    @staticmethod
    def forward(ctx, src, group, *tensors):
        ctx.src, ctx.group = src, group
        out = zeros_like(tensors[0])
        C.scatter(out, [_copy(t) for t in tensors] if get_rank(group) == src else None, src, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        return (None, None) + _Gather.apply(ctx.src, ctx.group, grad)


class _ReduceScatter(Function):
    @staticmethod
    def forward(ctx, op, group, output, *inputs):
        ctx.group = group
        out = _copy(output)
        C.reduce_scatter(out, [_copy(t) for t in inputs], op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        return (None, None, None) + _AllGather.apply(ctx.group, grad)


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        ctx.group = group
        outs = [empty_like(tensor) for _ in range(get_world_size(group))]
        C.all_gather(outs, _copy(tensor), group=group)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        # rank j's gradient for rank i's piece goes to rank i, which sums what it receives
        pieces = _AllToAll.apply(ctx.group, [empty_like(g) for g in grads], *grads)
        return None, _sum(stack(pieces), 0)


class _AllToAll(Function):
    @staticmethod
    def forward(ctx, group, outputs, *inputs):
        ctx.group, ctx.sizes = group, [tuple(t.shape) for t in inputs]
        outs = [_copy(t) for t in outputs]
        C.all_to_all(outs, [_copy(t) for t in inputs], group=group)
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        back = [empty(s, dtype=grads[0].dtype) for s in ctx.sizes]
        return (None, None) + _AllToAll.apply(ctx.group, back, *grads)


class _AllToAllSingle(Function):
    @staticmethod
    def forward(ctx, group, output, output_split_sizes, input_split_sizes, input):
        ctx.group, ctx.shape = group, tuple(input.shape)
        ctx.splits = (input_split_sizes, output_split_sizes)  # swapped for the way back
        out = _copy(output)
        C.all_to_all_single(out, _copy(input), output_split_sizes, input_split_sizes, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        back = empty(ctx.shape, dtype=grad.dtype)
        gx = _AllToAllSingle.apply(ctx.group, back, ctx.splits[0], ctx.splits[1], grad.contiguous())
        return None, None, None, None, gx


def broadcast(tensor, src, group=None):
    """A copy of rank ``src``'s ``tensor`` on every rank; the gradient flows back to ``src``."""
    return _Broadcast.apply(src, group, tensor)


def gather(tensor, dst=0, group=None):
    """A tuple of every rank's ``tensor`` (filled on ``dst``, zeros elsewhere)."""
    return _Gather.apply(dst, group, tensor)


def scatter(tensors, src=0, group=None):
    """Rank ``src``'s ``tensors[rank]`` on each rank (other ranks pass tensors of the same shape)."""
    return _Scatter.apply(src, group, *tensors)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None):
    """``tensor`` reduced across ranks onto ``dst`` (other ranks' results are unspecified)."""
    return _Reduce.apply(dst, op, group, tensor)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None):
    """``input_list[rank]`` reduced across ranks, as a new tensor shaped like ``output``."""
    return _ReduceScatter.apply(op, group, output, *input_list)


def all_gather(tensor, group=None):
    """A tuple of every rank's ``tensor``; gradients go back to the rank that owned each piece."""
    return _AllGather.apply(group, tensor)


def all_to_all(output_tensor_list, input_tensor_list, group=None):
    """A tuple: piece j is rank j's ``input_tensor_list[rank]``."""
    return _AllToAll.apply(group, output_tensor_list, *input_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None):
    """``input`` split along dim 0 and exchanged, as ``dist.all_to_all_single``, as a new tensor."""
    return _AllToAllSingle.apply(group, output, output_split_sizes, input_split_sizes, input)


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """``tensor`` reduced across ranks, as a new tensor on every rank; the gradient is all-reduced."""
    return _AllReduce.apply(op, group, tensor)
