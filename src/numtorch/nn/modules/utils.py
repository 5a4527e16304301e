"""Argument normalizers shared by the layer modules (mirrors ``torch/nn/modules/utils.py``).

``_pair(3) == (3, 3)``, ``_pair((1, 2)) == (1, 2)``: layers store their size arguments as tuples,
which is what their ``extra_repr`` prints (``kernel_size=(3, 3)``).
"""
from __future__ import annotations

import collections.abc
from itertools import repeat


def _ntuple(n: int, name: str = "parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n: int) -> tuple:
    """``(a, b)`` -> ``(b, b, a, a)`` for n=2: per-dim padding in the last-dim-first order ``F.pad`` takes."""
    return tuple(x for x in reversed(t) for _ in range(n))
