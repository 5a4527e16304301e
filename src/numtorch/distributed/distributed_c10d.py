"""Process groups (mirrors the group half of ``torch/distributed/distributed_c10d.py``).

A :class:`ProcessGroup` wraps one MPI communicator. The default group is ``MPI.COMM_WORLD`` (or a
reordering of it when ``init_process_group`` is given ``rank=``); ``new_group(ranks)`` splits it.
Ranks come from MPI: start the program with ``mpiexec -n N python train.py`` or with
``python -m numtorch.distributed.run --nproc_per_node=N train.py`` (torchrun's flags).

Backends: ``"mpi"``; ``"gloo"`` (PyTorch's CPU default) runs on the same MPI engine; ``"nccl"``
raises RuntimeError as PyTorch without CUDA does. The collectives are in ``collectives.py``.
"""
from __future__ import annotations

import enum
import os
import warnings
from datetime import timedelta

from . import _mpi
from ._mpi import Channel

__all__ = ["Backend", "ReduceOp", "ProcessGroup", "GroupMember", "group", "init_process_group",
           "destroy_process_group", "is_initialized", "is_available", "is_mpi_available", "is_gloo_available",
           "is_nccl_available", "is_ucc_available", "is_backend_available", "is_torchelastic_launched",
           "get_rank", "get_world_size", "get_backend", "new_group", "get_process_group_ranks", "get_global_rank",
           "get_group_rank", "get_node_local_rank", "default_pg_timeout"]

default_pg_timeout = timedelta(minutes=30)  # PyTorch's default for CPU backends


class Backend(str):
    """``torch.distributed.Backend``: lower-case backend names; ``Backend("GLOO")`` gives ``"gloo"``."""

    UNDEFINED, GLOO, NCCL, UCC, MPI, XCCL, FAKE = "undefined", "gloo", "nccl", "ucc", "mpi", "xccl", "fake"
    backend_list = [UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI, FAKE]

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return value


class ReduceOp:
    """``torch.distributed.ReduceOp``: ``ReduceOp.SUM`` etc. are members of ``ReduceOp.RedOpType``."""

    class RedOpType(enum.IntEnum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8

    SUM, AVG, PRODUCT, MIN, MAX = RedOpType.SUM, RedOpType.AVG, RedOpType.PRODUCT, RedOpType.MIN, RedOpType.MAX
    BAND, BOR, BXOR, PREMUL_SUM = RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR, RedOpType.PREMUL_SUM

    def __init__(self, op=RedOpType.SUM):
        self.op = ReduceOp.RedOpType(op)

    def __eq__(self, other):
        return self.op == (other.op if isinstance(other, ReduceOp) else other)

    def __hash__(self):
        return hash(self.op)


class ProcessGroup:
    """A set of ranks and the MPI communicator joining them (``torch.distributed.ProcessGroup``).
    ``rank()``/``size()`` are this process's rank in the group and the group's size."""

    def __init__(self, comm, ranks, backend, timeout, name):
        self._ch = Channel(comm, timeout)
        self._ranks, self._backend, self._name = list(ranks), backend, name

    def rank(self) -> int:
        return self._ch.rank

    def size(self) -> int:
        return self._ch.size

    def name(self) -> str:
        return self._backend

    @property
    def group_name(self) -> str:
        return self._name

    def _free(self):
        comm = self._ch.comm
        self._ch.ctrl.Free()
        self._ch.p2p.Free()
        if comm != _mpi.mpi().COMM_WORLD:
            comm.Free()

    def __repr__(self):
        return f"<numtorch ProcessGroup {self._name!r} ranks={self._ranks} backend={self._backend}>"


class _WorldMeta(type):
    @property
    def WORLD(cls):
        return _state.default

    @property
    def NON_GROUP_MEMBER(cls):
        return _NON_MEMBER


class group(metaclass=_WorldMeta):
    """``torch.distributed.group``: ``group.WORLD`` is the default process group."""


class GroupMember(metaclass=_WorldMeta):
    """``torch.distributed.GroupMember``: ``WORLD`` and ``NON_GROUP_MEMBER`` (what ``new_group`` gives
    a rank outside the new group)."""


class _NonGroupMember:
    """What ``new_group`` returns to ranks outside the group (PyTorch's ``GroupMember.NON_GROUP_MEMBER``)."""

    def __repr__(self):
        return "GroupMember.NON_GROUP_MEMBER"


_NON_MEMBER = _NonGroupMember()


class _State:
    default: ProcessGroup | None = None
    groups: list = []
    backend: str | None = None


_state = _State()


# --------------------------------------------------------------------------------- availability
def is_available() -> bool:
    """True when mpi4py (numtorch's transport) can be imported."""
    return _mpi.mpi_importable()


def is_mpi_available() -> bool:
    return _mpi.mpi_importable()


def is_gloo_available() -> bool:
    """``"gloo"`` is served by the MPI engine, so it is available exactly when MPI is."""
    return _mpi.mpi_importable()


def is_nccl_available() -> bool:
    return False


def is_ucc_available() -> bool:
    return False


def is_backend_available(backend: str) -> bool:
    return Backend(backend) in (Backend.MPI, Backend.GLOO) and _mpi.mpi_importable()


def is_initialized() -> bool:
    return _state.default is not None


def is_torchelastic_launched() -> bool:
    """True in a worker started by ``numtorch.distributed.run`` (it sets ``TORCHELASTIC_RUN_ID``)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


# ------------------------------------------------------------------------------------ creation
def _parse_backend(backend) -> str:
    name = "gloo" if backend is None else str(backend)
    if ":" in name:  # "cpu:gloo,cuda:nccl": numtorch runs on the CPU entry
        parts = dict(p.split(":", 1) for p in name.split(",") if ":" in p)
        if "cpu" not in parts:
            raise ValueError(f"backend {backend!r} names no backend for the cpu device")
        name = parts["cpu"]
    name = Backend(name)
    if name in (Backend.NCCL, Backend.XCCL, Backend.UCC):
        raise RuntimeError(f"Distributed package doesn't have {name.upper()} built in")
    if name not in (Backend.MPI, Backend.GLOO):
        raise AssertionError(f"Unknown backend type {name}")
    return name


def _check_init_method(init_method):
    if init_method is None or init_method.startswith(("env://", "file://", "mpi://")):
        return
    if init_method.startswith("tcp://"):
        host, _, port = init_method[len("tcp://"):].split("?")[0].rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"Error initializing torch.distributed using tcp:// rendezvous: port number missing "
                             f"in {init_method!r}")
        return
    raise RuntimeError(f"No rendezvous handler for {init_method.split('://')[0]}://")


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Join this process to the default process group (``torch.distributed.init_process_group``).

    Ranks and the world size come from MPI (``mpiexec`` or ``numtorch.distributed.run``); ``rank=``
    and ``world_size=`` may be given and must agree with it (``rank=`` may reorder the processes).
    ``init_method`` (``"env://"``, ``"tcp://host:port"``, ``"file://"``) and ``store`` are accepted;
    MPI does the rendezvous. ``timeout`` (a ``timedelta``, default 30 minutes) bounds every wait.

    Errors as PyTorch: ValueError when already initialized; RuntimeError for ``"nccl"``;
    AssertionError for an unknown backend; TypeError for a ``timeout`` that is not a timedelta.
    """
    if _state.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if init_method is not None and store is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    name = _parse_backend(backend)
    if timeout is None:
        timeout = default_pg_timeout
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout)}")
    _check_init_method(init_method)
    if not _mpi.mpi_importable():
        raise RuntimeError("numtorch.distributed needs mpi4py and an MPI runtime: pip install 'numtorch[distributed]'")
    MPI = _mpi.mpi()
    world = MPI.COMM_WORLD
    n = world.Get_size()
    env_world = int(os.environ.get("WORLD_SIZE", "-1")) if world_size in (-1, None) else int(world_size)
    if n == 1 and env_world > 1:
        raise RuntimeError(
            f"init_process_group: world_size is {env_world} but this process was not started by MPI (its MPI "
            "world has 1 process). Start the program with `mpiexec -n N python script.py` or `python -m "
            "numtorch.distributed.run --nproc_per_node=N script.py`, or start the workers with "
            "torch.multiprocessing.spawn (which uses mpiexec when MPI is installed); processes started "
            "another way cannot be joined into one MPI job by numtorch.")
    if env_world not in (-1, n):
        raise ValueError(f"init_process_group: world_size={env_world} but MPI started {n} processes")
    comm = world
    if rank not in (-1, None):
        comm = _reorder(world, int(rank))
    seconds = timeout.total_seconds()
    pg = ProcessGroup(comm, range(n), name, seconds, group_name or "0")
    _state.default, _state.groups, _state.backend = pg, [pg], name
    _mpi.set_world(pg._ch)
    _mpi.install_excepthook(pg.rank())
    # the first collective: every rank has joined (or the timeout reports who has not)
    _mpi.check_headers(pg._ch, "init_process_group", None)


def _reorder(world, rank):
    """A communicator in which this process has rank ``rank`` (the ranks given must be a permutation)."""
    n = world.Get_size()
    if not 0 <= rank < n:
        raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {n - 1}]")
    ranks = world.allgather(rank)
    if sorted(ranks) != list(range(n)):
        raise ValueError(f"init_process_group: the ranks given by the processes, {ranks}, are not 0..{n - 1} "
                         "each once")
    if ranks == list(range(n)):
        return world
    return world.Split(0, rank)


def destroy_process_group(group=None) -> None:
    """Free ``group`` (default: every group, after which ``init_process_group`` may be called again)."""
    if _state.default is None:
        raise AssertionError("Process group cannot be None")
    if group is None or group is _state.default:
        for pg in _state.groups:
            pg._free()
        _state.default, _state.groups, _state.backend = None, [], None
        _mpi.set_world(None)
    elif group is not _NON_MEMBER and group in _state.groups:
        group._free()
        _state.groups.remove(group)


def _not_initialized():
    return ValueError("Default process group has not been initialized, please make sure to call "
                      "init_process_group.")


def default_group() -> ProcessGroup:
    if _state.default is None:
        raise _not_initialized()
    return _state.default


def resolve(group) -> ProcessGroup | None:
    """The process group to use (``None`` -> the default), or None when this rank is not a member."""
    if _state.default is None:
        raise _not_initialized()
    if group is None:
        return _state.default
    if group is _NON_MEMBER:
        return None
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup, got {type(group).__name__}")
    return group


def get_rank(group=None) -> int:
    """This process's rank in ``group`` (default: the world); -1 when it is not a member."""
    pg = resolve(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None) -> int:
    pg = resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None) -> str:
    pg = resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return Backend(pg._backend)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """A process group of the given global ``ranks`` (sorted; default: all), made by splitting the
    world's communicator. Every rank of the world must call it; ranks outside get
    ``GroupMember.NON_GROUP_MEMBER``."""
    world = default_group()
    n = world.size()
    ranks = sorted(range(n) if ranks is None else (int(r) for r in ranks))
    if len(ranks) > n:
        raise ValueError("the new group's world size should be less or equal to the world size set by "
                         "init_process_group")
    for r in ranks:
        if r < 0 or r >= n:
            raise ValueError("The new group's rank should be within the world_size set by init_process_group")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group: duplicate ranks in {ranks}")
    secs = world._ch.timeout if timeout is None else timeout.total_seconds()
    _mpi.check_headers(world._ch, f"new_group({ranks})", None)  # every rank is here (no Split hang)
    MPI = _mpi.mpi()
    me = world.rank()
    comm = world._ch.comm.Split(0 if me in ranks else MPI.UNDEFINED, ranks.index(me) if me in ranks else 0)
    if me not in ranks:
        return _NON_MEMBER
    pg = ProcessGroup(comm, ranks, _parse_backend(backend) if backend else world._backend, secs,
                      str(len(_state.groups)))
    _state.groups.append(pg)
    return pg


def get_process_group_ranks(group) -> list:
    pg = resolve(group)
    return list(pg._ranks)


def get_global_rank(group, group_rank: int) -> int:
    pg = resolve(group)
    if not 0 <= group_rank < pg.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
    return pg._ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    pg = resolve(group)
    if global_rank not in pg._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg._ranks.index(global_rank)


def get_node_local_rank(fallback_rank=None) -> int:
    """``LOCAL_RANK`` from the environment (set by the launcher), else ``fallback_rank``."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
                       "and want the code to run locally instead.")


def warn_not_in_group(op_name: str) -> None:
    warnings.warn(f"Running {op_name} on global rank {get_rank()} which does not belong to the given group.")
