"""Tensor collectives (mirrors the collective half of ``torch/distributed/distributed_c10d.py``).

Each one (1) checks its arguments as PyTorch does, (2) exchanges a header with the group so that
mismatched calls raise instead of hanging (``_mpi.check_headers``), (3) starts an MPI non-blocking
collective on the tensors' NumPy buffers, (4) returns a :class:`Work` (``async_op=True``) or waits for
it. Results are written in place into the tensors given, as in PyTorch.

Reductions use MPI's own operators where MPI has the dtype; float16 and bfloat16 (which MPI lacks)
are gathered and reduced by NumPy in rank order. ``ReduceOp.AVG`` is a SUM divided by the group size.
Data that is only moved (broadcast, gather, scatter, all-to-all) travels as raw bytes.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from . import _mpi
from ._work import Work
from .distributed_c10d import ReduceOp, resolve, warn_not_in_group

__all__ = ["all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "gather", "scatter",
           "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "barrier",
           "monitored_barrier"]

_NP_REDUCE = {ReduceOp.SUM: np.add, ReduceOp.AVG: np.add, ReduceOp.PRODUCT: np.multiply, ReduceOp.MIN: np.minimum,
              ReduceOp.MAX: np.maximum, ReduceOp.BAND: np.bitwise_and, ReduceOp.BOR: np.bitwise_or,
              ReduceOp.BXOR: np.bitwise_xor}


# --------------------------------------------------------------------------------------- helpers
def check_tensor(t, name="tensor"):
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor\n"
                        f"             but got {type(t)} instead.")


def check_tensor_list(ts, name):
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
                        f"             but got {type(ts)} with elements of type "
                        f"{[type(t) for t in ts] if isinstance(ts, (list, tuple)) else None} instead.")


def _op(op):
    if isinstance(op, ReduceOp):
        op = op.op
    if not isinstance(op, ReduceOp.RedOpType):
        raise TypeError(f"incompatible function arguments: op must be a torch.distributed.ReduceOp, got {op!r}")
    if op == ReduceOp.PREMUL_SUM:
        raise RuntimeError("ReduceOp.PREMUL_SUM is not supported by numtorch's MPI backend")
    return op


def buffer(t):
    """A C-contiguous ndarray for ``t``'s values: its own storage when possible, else a copy."""
    a = t._data
    return a if a.flags.c_contiguous and a.flags.writeable else np.ascontiguousarray(a)


def store(t, values) -> None:
    """Write ``values`` into tensor ``t`` in place (a no-op when they are its storage already)."""
    a = t._data
    if values is not a:
        np.copyto(a, np.asarray(values).reshape(a.shape), casting="unsafe")
    t._vc[0] += 1


def _bytes(a):
    return [a.view(np.uint8).reshape(-1) if a.size else np.empty(0, np.uint8), _mpi.mpi().BYTE]


def _group(group, name):
    pg = resolve(group)
    if pg is None:
        warn_not_in_group(name)
    return pg


def _root(pg, rank, group_rank, kind, name):
    """The group rank of a collective's root, from a global ``rank`` or a ``group_rank``."""
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can't specify both {kind} and group_{kind}")
    if group_rank is None:
        rank = 0 if rank is None else int(rank)
        if rank not in pg._ranks:
            if pg is resolve(None):  # PyTorch's backends check the root of the default group
                raise RuntimeError(f"{name}: invalid root rank: {rank}")
            raise ValueError(f"Global rank {rank} is not part of group {pg}")
        return pg._ranks.index(rank)
    if not 0 <= group_rank < pg.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
    return int(group_rank)


def _rooted(tensor, group, rank, group_rank, kind, name):
    """(process group, root's group rank) of a rooted collective; (None, None) off the group."""
    check_tensor(tensor)
    pg = _group(group, name)
    return (None, None) if pg is None else (pg, _root(pg, rank, group_rank, kind, name))


def _run(pg, hdr, reqs, name, finish, async_op, outputs=()):
    work = Work(reqs, name, pg._ch.timeout, finish, outputs, header=hdr)
    if async_op:
        return work
    work.wait()
    return None


def _check_op(op, dtype):
    """PyTorch's refusals, raised on every rank before any message: bitwise ops on floating-point or
    complex tensors, AVG on integer or bool tensors (their mean is not of their dtype)."""
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and dtype.kind not in "iub":
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op == ReduceOp.AVG and dtype.kind in "iub":
        raise RuntimeError(f"ReduceOp.AVG: result type Float can't be cast to the desired output type {dtype.name} "
                           "(average a floating-point tensor)")


def _mpi_op(op, dtype):
    """MPI's operator for ``op`` on ``dtype``, or None when NumPy must reduce (no MPI type)."""
    MPI = _mpi.mpi()
    if _mpi.mpi_dtype(dtype) is None:
        return None
    if dtype == np.bool_:
        return MPI.LOR if op in (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.BOR) else MPI.LAND
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD, ReduceOp.MIN: MPI.MIN,
            ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND, ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR}[op]


def _avg(values, op, size):
    if op == ReduceOp.AVG:  # floating point only (see _check_op)
        return (values / size).astype(values.dtype)
    return values


def _reduce_stack(stack, op):
    """Reduce ``stack`` (shape ``(size, ...)``, rank order) along axis 0 with NumPy."""
    if stack.dtype.kind in "fV" and stack.dtype.itemsize < 4:  # float16/bfloat16: accumulate in float32
        out = _NP_REDUCE[op].reduce(stack.astype(np.float32), axis=0)
        return _avg(out, op, len(stack)).astype(stack.dtype)
    return _avg(_NP_REDUCE[op].reduce(stack, axis=0), op, len(stack))


def _gathered_reduce(comm, a, op, pg):
    """Start gathering every rank's ``a`` (for reductions MPI cannot do); returns (request, stack)."""
    stack = np.empty((pg.size(),) + a.shape, a.dtype)
    return comm.Iallgather(_bytes(a), _bytes(stack)), stack


# ------------------------------------------------------------------------------------ collectives
def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` across the group with ``op``; every rank gets the result in place."""
    check_tensor(tensor)
    op = _op(op)
    pg = _group(group, "all_reduce")
    if pg is None:
        return None
    a = buffer(tensor)
    _check_op(op, a.dtype)
    hdr = _mpi.check_headers(pg._ch, "all_reduce", a, op=op.name, group_ranks=pg._ranks, defer=async_op)
    comm, mop = pg._ch.comm, _mpi_op(op, a.dtype)
    if mop is None:
        req, stack = _gathered_reduce(comm, a, op, pg)
        return _run(pg, hdr, [req], "all_reduce", lambda: store(tensor, _reduce_stack(stack, op)), async_op, [tensor])
    req = comm.Iallreduce(_mpi.mpi().IN_PLACE, [a, _mpi.mpi_dtype(a.dtype)], mop)
    return _run(pg, hdr, [req], "all_reduce", lambda: store(tensor, _avg(a, op, pg.size())), async_op, [tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` across the group into rank ``dst``'s tensor (the others' are left as they
    were, which PyTorch does not promise either)."""
    op = _op(op)
    pg, root = _rooted(tensor, group, dst, group_dst, "dst", "reduce")
    if pg is None:
        return None
    a = buffer(tensor)
    _check_op(op, a.dtype)
    hdr = _mpi.check_headers(pg._ch, "reduce", a, root=root, op=op.name, group_ranks=pg._ranks, defer=async_op)
    comm, mop, mine = pg._ch.comm, _mpi_op(op, a.dtype), pg.rank() == root
    if mop is None:
        req, stack = _gathered_reduce(comm, a, op, pg)
        return _run(pg, hdr, [req], "reduce", (lambda: store(tensor, _reduce_stack(stack, op))) if mine else None,
                    async_op, [tensor])
    MPI, mt = _mpi.mpi(), _mpi.mpi_dtype(a.dtype)
    if mine:
        req = comm.Ireduce(MPI.IN_PLACE, [a, mt], mop, root=root)
        return _run(pg, hdr, [req], "reduce", lambda: store(tensor, _avg(a, op, pg.size())), async_op, [tensor])
    req = comm.Ireduce([a, mt], None, mop, root=root)
    return _run(pg, hdr, [req], "reduce", None, async_op, [tensor])


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy rank ``src``'s ``tensor`` into every other rank's ``tensor``."""
    pg, root = _rooted(tensor, group, src, group_src, "src", "broadcast")
    if pg is None:
        return None
    a = buffer(tensor)
    hdr = _mpi.check_headers(pg._ch, "broadcast", a, root=root, group_ranks=pg._ranks, defer=async_op)
    req = pg._ch.comm.Ibcast(_bytes(a), root=root)
    finish = None if pg.rank() == root else (lambda: store(tensor, a))
    return _run(pg, hdr, [req], "broadcast", finish, async_op, [tensor])


def _check_same(ts, ref, name, what="tensor size"):
    for i, t in enumerate(ts):
        if tuple(t.shape) != tuple(ref.shape):
            raise RuntimeError(f"{name}: invalid {what} at index {i} (expected {_shape(ref)}, got {_shape(t)})")
        if t.dtype != ref.dtype:
            raise RuntimeError(f"{name}: invalid tensor type at index {i} (expected {ref.dtype}, got {t.dtype})")


def _shape(t):
    return "(" + ", ".join(str(s) for s in t.shape) + ")"


def _store_rows(tensors, stack):
    for t, row in zip(tensors, stack):
        store(t, row)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's ``tensor``, into ``tensor_list`` (one tensor per rank of the group, in rank order)."""
    check_tensor_list(tensor_list, "tensor_list")
    check_tensor(tensor)
    pg = _group(group, "all_gather")
    if pg is None:
        return None
    if len(tensor_list) != pg.size():
        raise RuntimeError(f"ProcessGroupMPI::allgather: invalid output tensor list at index 0 (expected length "
                           f"{pg.size()}, got {len(tensor_list)})")
    _check_same(tensor_list, tensor, "ProcessGroupMPI::allgather")
    a = np.ascontiguousarray(tensor._data)
    hdr = _mpi.check_headers(pg._ch, "all_gather", a, group_ranks=pg._ranks, defer=async_op)
    stack = np.empty((pg.size(),) + a.shape, a.dtype)
    req = pg._ch.comm.Iallgather(_bytes(a), _bytes(stack))
    return _run(pg, hdr, [req], "all_gather", lambda: _store_rows(tensor_list, stack), async_op, tensor_list)


def _check_whole(pg, whole, piece, whole_name, piece_name):
    """RuntimeError (as PyTorch's gloo) unless ``whole`` has group size x ``piece``'s elements and its dtype."""
    if whole.numel() != piece.numel() * pg.size():
        raise RuntimeError(f"{whole_name} tensor size must be equal to world_size times {piece_name} tensor size: "
                           f"{whole_name.lower()} {tuple(whole.shape)}, {piece_name} {tuple(piece.shape)}, "
                           f"world_size {pg.size()}")
    if whole.dtype != piece.dtype:
        raise RuntimeError(f"{whole_name.lower()} tensor must have the same type as {piece_name} tensor")


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's ``input_tensor`` concatenated along dim 0 (or stacked) into ``output_tensor``,
    whose size must be group size x the input's."""
    check_tensor(output_tensor, "output_tensor")
    check_tensor(input_tensor, "input_tensor")
    pg = _group(group, "all_gather_into_tensor")
    if pg is None:
        return None
    _check_whole(pg, output_tensor, input_tensor, "Output", "input")
    a, out = np.ascontiguousarray(input_tensor._data), buffer(output_tensor)
    hdr = _mpi.check_headers(pg._ch, "all_gather_into_tensor", a, group_ranks=pg._ranks, defer=async_op)
    req = pg._ch.comm.Iallgather(_bytes(a), _bytes(out))
    return _run(pg, hdr, [req], "all_gather_into_tensor", lambda: store(output_tensor, out), async_op, [output_tensor])


def _check_root_list(pg, mine, tensors, tensor, op, role, kind):
    """PyTorch's checks of ``gather_list``/``scatter_list``: given (one per rank, like ``tensor``) on
    the root only."""
    name = f"{op}_list"
    if not mine:
        if tensors:
            raise ValueError(f"Argument ``{name}`` must NOT be specified on non-{role} ranks.")
        return
    if tensors is None:
        raise ValueError(f"Argument ``{name}`` must be specified on {role} rank.")
    check_tensor_list(tensors, name)
    if len(tensors) != pg.size():
        raise RuntimeError(f"ProcessGroupMPI::{op}: Incorrect {kind} list size {len(tensors)}. {kind.capitalize()} "
                           f"list size should be {pg.size()}, same as size of the process group.")
    _check_same(tensors, tensor, f"ProcessGroupMPI::{op}")


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst`` (which must give one; the others
    must not)."""
    pg, root = _rooted(tensor, group, dst, group_dst, "dst", "gather")
    if pg is None:
        return None
    mine = pg.rank() == root
    _check_root_list(pg, mine, gather_list, tensor, "gather", "destination", "output")
    a = np.ascontiguousarray(tensor._data)
    hdr = _mpi.check_headers(pg._ch, "gather", a, root=root, group_ranks=pg._ranks, defer=async_op)
    stack = np.empty((pg.size(),) + a.shape, a.dtype) if mine else None
    req = pg._ch.comm.Igather(_bytes(a), _bytes(stack) if mine else None, root=root)
    finish = (lambda: _store_rows(gather_list, stack)) if mine else None
    return _run(pg, hdr, [req], "gather", finish, async_op, list(gather_list or []))


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Rank ``src``'s ``scatter_list[i]`` into rank i's ``tensor``."""
    pg, root = _rooted(tensor, group, src, group_src, "src", "scatter")
    if pg is None:
        return None
    mine = pg.rank() == root
    _check_root_list(pg, mine, scatter_list, tensor, "scatter", "source", "input")
    out = buffer(tensor)
    hdr = _mpi.check_headers(pg._ch, "scatter", out, root=root, group_ranks=pg._ranks, defer=async_op)
    send = np.stack([np.ascontiguousarray(t._data) for t in scatter_list]) if mine else None
    req = pg._ch.comm.Iscatter(_bytes(send) if mine else None, _bytes(out), root=root)
    return _run(pg, hdr, [req], "scatter", lambda: store(tensor, out), async_op, [tensor])


def _reduce_scatter_arrays(pg, name, stack, out, op, output_tensor, async_op):
    """Reduce ``stack`` (``(size, *chunk)``) across ranks; this rank's chunk into ``out``."""
    _check_op(op, stack.dtype)
    hdr = _mpi.check_headers(pg._ch, name, stack, op=op.name, group_ranks=pg._ranks, defer=async_op)
    comm, mop = pg._ch.comm, _mpi_op(op, stack.dtype)
    if mop is None:  # gather everyone's chunk for this rank, then reduce with NumPy
        mine = np.empty((pg.size(),) + out.shape, out.dtype)
        req = comm.Ialltoall(_bytes(stack), _bytes(mine))
        return _run(pg, hdr, [req], name, lambda: store(output_tensor, _reduce_stack(mine, op)), async_op,
                    [output_tensor])
    req = comm.Ireduce_scatter_block([stack, _mpi.mpi_dtype(stack.dtype)], [out, _mpi.mpi_dtype(out.dtype)], mop)
    return _run(pg, hdr, [req], name, lambda: store(output_tensor, _avg(out, op, pg.size())), async_op, [output_tensor])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input_list[i]`` across ranks into rank i's ``output``."""
    check_tensor(output, "output")
    check_tensor_list(input_list, "input_list")
    op = _op(op)
    pg = _group(group, "reduce_scatter")
    if pg is None:
        return None
    if len(input_list) != pg.size():
        raise RuntimeError("invalid input tensor list size, must be world size")
    _check_same(input_list, output, "ProcessGroupMPI::reduce_scatter")
    stack = np.stack([np.ascontiguousarray(t._data) for t in input_list])
    return _reduce_scatter_arrays(pg, "reduce_scatter", stack, buffer(output), op, output, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """``input`` (group size x ``output``'s size, split along dim 0) reduced across ranks; rank i gets
    chunk i in ``output``."""
    check_tensor(output, "output")
    check_tensor(input, "input")
    op = _op(op)
    pg = _group(group, "reduce_scatter_tensor")
    if pg is None:
        return None
    _check_whole(pg, input, output, "Input", "output")
    stack = np.ascontiguousarray(input._data).reshape((pg.size(),) + tuple(output.shape))
    return _reduce_scatter_arrays(pg, "reduce_scatter_tensor", stack, buffer(output), op, output, async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Rank j's ``input_tensor_list[i]`` into rank i's ``output_tensor_list[j]`` (sizes may differ)."""
    check_tensor_list(output_tensor_list, "output_tensor_list")
    check_tensor_list(input_tensor_list, "input_tensor_list")
    pg = _group(group, "all_to_all")
    if pg is None:
        return None
    n = pg.size()
    for what, ts in (("input", input_tensor_list), ("output", output_tensor_list)):
        if len(ts) != n:
            raise RuntimeError(f"ProcessGroupMPI::alltoall: {what} tensor list size {len(ts)} does not match "
                               f"world size {n}")
    ins = [np.ascontiguousarray(t._data) for t in input_tensor_list]
    outs = [buffer(t) for t in output_tensor_list]
    return _alltoallv(pg, "all_to_all", ins, outs, output_tensor_list, async_op)


def _alltoallv(pg, name, ins, outs, out_tensors, async_op, whole=None):
    """Exchange byte blocks: ``ins[j]`` to rank j, ``outs[j]`` from rank j (``whole``: ``outs`` are
    views of one output tensor's buffer)."""
    dtypes = {a.dtype for a in ins + outs}
    if len(dtypes) > 1:
        raise RuntimeError(f"{name}: tensors must all have the same dtype, got {sorted(d.name for d in dtypes)}")
    # checked before the transfer even when async: the byte counts are exchanged by a blocking call
    hdr = _mpi.check_headers(pg._ch, name, ins[0] if ins else None, same_shape=False, group_ranks=pg._ranks)
    scounts = [a.nbytes for a in ins]
    rcounts = [a.nbytes for a in outs]
    sbuf = np.concatenate([a.reshape(-1).view(np.uint8) for a in ins]) if ins else np.empty(0, np.uint8)
    rbuf = np.empty(sum(rcounts), np.uint8)
    sdispl, rdispl = np.cumsum([0] + scounts[:-1]).tolist(), np.cumsum([0] + rcounts[:-1]).tolist()
    # every rank must agree on the sizes it sends and receives: check against the peers' send counts
    counts = pg._ch.comm.alltoall(scounts)
    if counts != rcounts:
        raise RuntimeError(f"{name}: rank {pg._ranks[pg.rank()]} expects {rcounts} bytes from the ranks but they "
                           f"send {counts}")
    MPI = _mpi.mpi()
    req = pg._ch.comm.Ialltoallv([sbuf, (scounts, sdispl), MPI.BYTE], [rbuf, (rcounts, rdispl), MPI.BYTE])

    def finish():
        for t, o, start, count in zip(out_tensors if whole is None else [None] * len(outs), outs, rdispl, rcounts):
            o.reshape(-1).view(np.uint8)[:] = rbuf[start:start + count]
            if t is not None:
                store(t, o)
        if whole is not None:
            store(whole[0], whole[1])
    return _run(pg, hdr, [req], name, finish, async_op, out_tensors if whole is None else [whole[0]])


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    """``input`` split along dim 0 (equally, or by ``input_split_sizes``), piece j to rank j; the pieces
    received, in rank order, fill ``output`` (split by ``output_split_sizes``)."""
    check_tensor(output, "output")
    check_tensor(input, "input")
    pg = _group(group, "all_to_all_single")
    if pg is None:
        return None
    n = pg.size()
    a, out = np.ascontiguousarray(input._data), buffer(output)
    ins = _split(a, input_split_sizes, n, "input")
    outs = _split(out, output_split_sizes, n, "output")
    return _alltoallv(pg, "all_to_all_single", ins, outs, [output] * 0, async_op, whole=(output, out))


def _split(a, sizes, n, what):
    rows = a.shape[0] if a.ndim else 1
    if sizes is None or len(sizes) == 0:
        if rows % n:
            raise ValueError(f"Tensor's dim 0 does not divide equally across group size: {what} has {rows} rows "
                             f"and the group {n} ranks")
        sizes = [rows // n] * n
    sizes = [int(s) for s in sizes]
    if len(sizes) != n or sum(sizes) != rows or min(sizes) < 0:
        raise RuntimeError(f"Split sizes doesn't match total dim 0 size: {what} split sizes {sizes} for "
                           f"{rows} rows and {n} ranks")
    flat = a.reshape(rows, -1) if a.ndim else a.reshape(1, 1)
    bounds = np.cumsum([0] + sizes).tolist()
    return [flat[bounds[i]:bounds[i + 1]] for i in range(n)]


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank of the group has reached it (with the group's timeout)."""
    pg = _group(group, "barrier")
    if pg is None:
        return None
    hdr = _mpi.check_headers(pg._ch, "barrier", None, group_ranks=pg._ranks, defer=async_op)
    return _run(pg, hdr, [pg._ch.comm.Ibarrier()], "barrier", None, async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """``barrier`` whose timeout error names the ranks that did not arrive (every barrier here does)."""
    pg = _group(group, "monitored_barrier")
    if pg is None:
        return None
    if timeout is not None:
        saved, pg._ch.timeout = pg._ch.timeout, timeout.total_seconds()
        try:
            return barrier(pg)
        finally:
            pg._ch.timeout = saved
    return barrier(pg)
