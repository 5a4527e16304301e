"""``numtorch.jit.annotations``: the ``BroadcastingList`` type hints TorchScript code is annotated with.

``BroadcastingList2[int]`` means "an int or a list of 2 ints"; in eager code it is only an annotation,
so numtorch makes ``BroadcastingListN[T]`` the type ``T | list[T]``.
"""
from __future__ import annotations

__all__ = ["BroadcastingList1", "BroadcastingList2", "BroadcastingList3"]


class _BroadcastingList:
    def __getitem__(self, item):
        return item | list[item] if isinstance(item, type) else item


BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = _BroadcastingList()
