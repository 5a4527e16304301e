"""Combinatorial builders over 1-D tensors: the ``cartesian_prod`` of several, and the
length-r ``combinations`` of one's elements. Both index or stack the inputs, so they are
differentiable.
"""
from __future__ import annotations

import itertools

import numpy as np

from .._tensor import _make
from .rearrange import stack

__all__ = ["cartesian_prod", "combinations"]


def cartesian_prod(*tensors):
    """Cartesian product of 1-D tensors (``torch.cartesian_prod``): (N1*...*Nk, k), or the tensor
    itself for one input. RuntimeError for non-1-D inputs."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    full = [t.shape[0] for t in tensors]
    k = len(tensors)
    cols = [t.reshape(*[-1 if j == i else 1 for j in range(k)]).expand(*full).reshape(-1)
            for i, t in enumerate(tensors)]
    return stack(cols, 1)


def combinations(input, r=2, with_replacement=False):
    """Length-``r`` combinations of a 1-D tensor's elements (``torch.combinations``), as rows of an
    (n_comb, r) tensor (``itertools.combinations`` order). RuntimeError for non-1-D input or r < 0."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _make(np.empty((0,), input._data.dtype))
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.fromiter(itertools.chain.from_iterable(gen(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    return input[_make(idx)]
