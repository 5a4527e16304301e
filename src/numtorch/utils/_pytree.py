"""``numtorch.utils._pytree`` (mirrors ``torch.utils._pytree``'s core): flatten and rebuild nested containers.

``tree_flatten(tree) -> (leaves, spec)``, ``tree_unflatten(leaves, spec)``, ``tree_map(fn, tree)``
over tuples, lists, dicts and named tuples (``numtorch.func._pytree``, shared with ``torch.func``).
A spec is a nested tuple (None for a leaf); ``TreeSpec`` names its type in annotations.
"""
from __future__ import annotations

from ..func._pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["tree_flatten", "tree_unflatten", "tree_map", "TreeSpec", "tree_leaves"]

TreeSpec = tuple  # specs are (container type, keys, child specs) tuples, None for a leaf


def tree_leaves(tree):
    return tree_flatten(tree)[0]
