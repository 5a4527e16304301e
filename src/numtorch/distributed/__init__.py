"""``numtorch.distributed``: importable so that programs can probe it; there is no distributed engine yet.

``is_available()`` and ``is_initialized()`` are False; ``init_process_group`` raises RuntimeError.
"""
from __future__ import annotations

__all__ = ["is_available", "is_initialized", "init_process_group", "destroy_process_group", "get_rank",
           "get_world_size", "barrier", "ReduceOp"]


def is_available() -> bool:
    return False


def is_initialized() -> bool:
    return False


def init_process_group(*args, **kwargs):
    raise RuntimeError("numtorch.distributed has no backend yet (is_available() is False); run in a single "
                       "process")


def destroy_process_group(*args, **kwargs) -> None:
    return None


def get_rank(group=None) -> int:
    return 0


def get_world_size(group=None) -> int:
    return 1


def barrier(*args, **kwargs) -> None:
    return None


class ReduceOp:
    SUM, PRODUCT, MIN, MAX, AVG = "sum", "product", "min", "max", "avg"


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    return None
