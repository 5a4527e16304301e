"""Point-to-point transfers and object collectives (mirrors ``send``/``recv``/``isend``/``irecv`` and
``broadcast_object_list``/``all_gather_object``/... of ``torch/distributed/distributed_c10d.py``).

Tensors travel as raw bytes on a private duplicate of the group's communicator, with the user's
``tag``. ``recv`` first probes the message and raises RuntimeError when its size is not the
receiving tensor's (MPI would truncate or leave bytes unwritten).

Objects are pickled, exactly as in PyTorch: **unpickling runs code chosen by whoever made the bytes,
so only exchange objects with ranks you trust** (the same warning as PyTorch's documentation).
"""
from __future__ import annotations

import pickle
import time

import numpy as np

from . import _mpi
from ._work import Work
from .collectives import buffer, check_tensor, store
from .distributed_c10d import resolve, warn_not_in_group

__all__ = ["send", "recv", "isend", "irecv", "P2POp", "batch_isend_irecv", "broadcast_object_list",
           "all_gather_object", "gather_object", "scatter_object_list"]


def _p2p_comm(pg):
    """The group's communicator for user point-to-point messages."""
    return pg._ch.p2p


def _peer(pg, rank, group_rank, kind):
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can't specify both {kind} and group_{kind}")
    if group_rank is not None:
        peer = int(group_rank)
    elif rank is None:
        return None
    elif int(rank) not in pg._ranks:
        raise ValueError(f"Global rank {rank} is not part of group {pg}")
    else:
        peer = pg._ranks.index(int(rank))
    if not 0 <= peer < pg.size():
        raise ValueError(f"Invalid {kind} rank {peer}")
    if peer == pg.rank():
        name = "destination" if kind == "dst" else "source"
        raise ValueError(f"Invalid {name} rank: {name} rank should not be the same as the rank of the current "
                         "process.")
    return peer


def _start(tensor, group, rank, group_rank, kind, name):
    """(process group, peer's group rank) of a transfer, or (None, None) when this rank is not in it."""
    check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        warn_not_in_group(name)
        return None, None
    return pg, _peer(pg, rank, group_rank, kind)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Start sending ``tensor`` to rank ``dst``; returns a Work (``wait()`` before changing the tensor)."""
    pg, peer = _start(tensor, group, dst, group_dst, "dst", "isend")
    if pg is None:
        return None
    if peer is None:
        raise ValueError("dst or group_dst must be given")
    a = np.ascontiguousarray(tensor._data).copy()  # the message owns its bytes, as PyTorch's send does
    req = _p2p_comm(pg).Isend([a.view(np.uint8).reshape(-1), _mpi.mpi().BYTE], dest=peer, tag=int(tag))
    return Work([req], f"send to rank {pg._ranks[peer]}", pg._ch.timeout, outputs=[tensor])


def send(tensor, dst=None, group=None, tag=0, group_dst=None) -> None:
    """Send ``tensor`` to rank ``dst`` and wait until the message has left."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Start receiving into ``tensor`` from rank ``src`` (any rank when None); returns a Work whose
    ``source_rank()`` names the sender. The message must have ``tensor``'s size in bytes."""
    pg, peer = _start(tensor, group, src, group_src, "src", "irecv")
    if pg is None:
        return None
    MPI = _mpi.mpi()
    comm, a = _p2p_comm(pg), buffer(tensor)
    want = a.nbytes
    state = {}

    class _Probe:  # a request-like object: done once the message is matched and received
        def Test(self):
            if "req" not in state:
                status = MPI.Status()
                msg = comm.Improbe(source=MPI.ANY_SOURCE if peer is None else peer, tag=int(tag), status=status)
                if msg is None:
                    return False
                if status.Get_count(MPI.BYTE) != want:
                    state["error"] = (status.Get_source(), status.Get_count(MPI.BYTE))
                    msg.Recv([bytearray(status.Get_count(MPI.BYTE)), MPI.BYTE])
                    return True
                state["source"] = status.Get_source()
                state["req"] = msg.Irecv([a.view(np.uint8).reshape(-1), MPI.BYTE])
            return state["req"].Test()

    def finish():
        if "error" in state:
            src_rank, got = state["error"]
            raise RuntimeError(f"recv: the message from rank {pg._ranks[src_rank]} has {got} bytes but the "
                               f"receiving tensor has {want} (shape {tuple(tensor.shape)}, {tensor.dtype})")
        store(tensor, a)
        return pg._ranks[state["source"]]
    work = _ProbeWork([_Probe()], f"recv from rank {'any' if peer is None else pg._ranks[peer]}", pg._ch.timeout,
                      finish, [tensor])
    return work


class _ProbeWork(Work):
    """A Work over probe-then-receive steps, which are tested one by one (not MPI requests)."""

    def wait(self, timeout=None) -> bool:
        if not self._done:
            limit = self._timeout if timeout is None else timeout.total_seconds()
            deadline, pause = time.monotonic() + limit, 0.0
            while not all(r.Test() for r in self._requests):
                _mpi._poll_failure()
                if time.monotonic() > deadline:
                    raise _mpi.DistBackendError(f"{self._what} timed out after {limit:g} s (the sender died, "
                                                "hangs, or sent nothing)")
                pause = min(0.002, pause + 0.00005)
                time.sleep(pause)
            self._complete()
        return True

    def is_completed(self) -> bool:
        if not self._done and all(r.Test() for r in self._requests):
            self._complete()
        return self._done


def recv(tensor, src=None, group=None, tag=0, group_src=None) -> int:
    """Receive into ``tensor`` from rank ``src`` (any when None); returns the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work.source_rank()


class P2POp:
    """``torch.distributed.P2POp(op, tensor, peer=None, group=None, tag=0, group_peer=None)``: one
    transfer for :func:`batch_isend_irecv` (``op`` is ``isend`` or ``irecv``)."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        check_tensor(tensor)
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = op, tensor, peer, group, tag, \
            group_peer


def batch_isend_irecv(p2p_op_list) -> list:
    """Start every transfer of ``p2p_op_list`` (P2POps); returns their Works, in order."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    return [p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer) for p in p2p_op_list]


# --------------------------------------------------------------------------------------- objects
def _group_or_warn(group, name):
    pg = resolve(group)
    if pg is None:
        warn_not_in_group(name)
    return pg


def _root(pg, rank, group_rank):
    if group_rank is not None:
        return int(group_rank)
    return pg._ranks.index(0 if rank is None else int(rank))


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None) -> None:
    """Replace ``object_list``'s items on every rank with rank ``src``'s (pickled; see the module's
    warning). The lists must have the same length on every rank."""
    pg = _group_or_warn(group, "broadcast_object_list")
    if pg is None:
        return
    root = _root(pg, src, group_src)
    _mpi.check_headers(pg._ch, f"broadcast_object_list(len={len(object_list)})", None, root=root,
                       group_ranks=pg._ranks)
    data = pickle.dumps(list(object_list)) if pg.rank() == root else b""
    size = np.array([len(data)], np.int64)
    _mpi.wait_all([pg._ch.comm.Ibcast(size, root=root)], "broadcast_object_list", pg._ch.timeout)
    buf = np.frombuffer(data, np.uint8).copy() if pg.rank() == root else np.empty(int(size[0]), np.uint8)
    _mpi.wait_all([pg._ch.comm.Ibcast([buf, _mpi.mpi().BYTE], root=root)], "broadcast_object_list",
                  pg._ch.timeout)
    if pg.rank() != root:
        object_list[:] = pickle.loads(buf.tobytes())  # noqa: S301 -- as PyTorch: trusted peers only


def _allgather_bytes(pg, data: bytes, name) -> list:
    sizes = np.empty(pg.size(), np.int64)
    _mpi.wait_all([pg._ch.comm.Iallgather(np.array([len(data)], np.int64), sizes)], name, pg._ch.timeout)
    out = np.empty(int(sizes.sum()), np.uint8)
    MPI = _mpi.mpi()
    displ = np.cumsum([0] + sizes[:-1].tolist()).tolist()
    req = pg._ch.comm.Iallgatherv([np.frombuffer(data, np.uint8).copy(), MPI.BYTE],
                                  [out, (sizes.tolist(), displ), MPI.BYTE])
    _mpi.wait_all([req], name, pg._ch.timeout)
    return [out[d:d + int(s)].tobytes() for d, s in zip(displ, sizes)]


def all_gather_object(object_list, obj, group=None) -> None:
    """``object_list[i]`` = rank i's ``obj`` (pickled; see the module's warning). ``object_list`` must
    have the group's size."""
    pg = _group_or_warn(group, "all_gather_object")
    if pg is None:
        return
    if len(object_list) != pg.size():
        raise RuntimeError(f"all_gather_object: object_list has {len(object_list)} items, expected the group "
                           f"size {pg.size()}")
    _mpi.check_headers(pg._ch, "all_gather_object", None, group_ranks=pg._ranks)
    for i, b in enumerate(_allgather_bytes(pg, pickle.dumps(obj), "all_gather_object")):
        object_list[i] = pickle.loads(b)  # noqa: S301 -- as PyTorch: trusted peers only


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None) -> None:
    """Rank ``dst``'s ``object_gather_list[i]`` = rank i's ``obj`` (pickled)."""
    pg = _group_or_warn(group, "gather_object")
    if pg is None:
        return
    root = _root(pg, dst, group_dst)
    if pg.rank() == root and (object_gather_list is None or len(object_gather_list) != pg.size()):
        raise ValueError("Argument ``object_gather_list`` must be specified on destination rank, with the "
                         "group's size.")
    _mpi.check_headers(pg._ch, "gather_object", None, root=root, group_ranks=pg._ranks)
    got = _allgather_bytes(pg, pickle.dumps(obj), "gather_object")
    if pg.rank() == root:
        for i, b in enumerate(got):
            object_gather_list[i] = pickle.loads(b)  # noqa: S301 -- as PyTorch: trusted peers only


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None) -> None:
    """``scatter_object_output_list[0]`` = rank ``src``'s ``scatter_object_input_list[rank]``."""
    pg = _group_or_warn(group, "scatter_object_list")
    if pg is None:
        return
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    root = _root(pg, src, group_src)
    items = [None]
    if pg.rank() == root:
        items = list(scatter_object_input_list)
    box = [items]
    broadcast_object_list(box, group=pg, group_src=root)
    scatter_object_output_list[0] = box[0][pg.rank()]
