"""A minimal pytree (the containers torch.func transforms look through): tuples, lists, dicts.

``tree_flatten(tree) -> (leaves, spec)`` lists the leaves left to right (a dict's in key order);
``tree_unflatten(leaves, spec)`` rebuilds the same containers around new leaves. Named tuples keep
their class. Anything else (a Tensor, a number, None...) is a leaf. Two trees have the same structure
when their specs compare equal, as in ``torch.utils._pytree``.
"""
from __future__ import annotations

__all__ = ["tree_flatten", "tree_unflatten", "tree_map", "spec_str"]

_LEAF = None  # the spec of a leaf


def tree_flatten(tree):
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(x, leaves):
    if isinstance(x, (tuple, list)):
        return (type(x), None, tuple(_flatten(c, leaves) for c in x))
    if isinstance(x, dict):
        keys = tuple(x)
        return (type(x), keys, tuple(_flatten(x[k], leaves) for k in keys))
    leaves.append(x)
    return _LEAF


def tree_unflatten(leaves, spec):
    it = iter(leaves)
    out = _build(it, spec)
    if next(it, it) is not it:
        raise ValueError("tree_unflatten: more leaves than the spec holds")
    return out


def _build(it, spec):
    if spec is _LEAF:
        return next(it)
    typ, keys, children = spec
    values = [_build(it, c) for c in children]
    if keys is not None:
        return typ(zip(keys, values))
    if typ is not tuple and typ is not list and hasattr(typ, "_fields"):  # a named tuple
        return typ(*values)
    return typ(values)


def tree_map(fn, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def spec_str(spec):
    """A short text form of a structure for error messages: ``(*, [*, *])``, ``{'a': *}``."""
    if spec is _LEAF:
        return "*"
    typ, keys, children = spec
    if keys is not None:
        return "{" + ", ".join(f"{k!r}: {spec_str(c)}" for k, c in zip(keys, children)) + "}"
    inner = ", ".join(spec_str(c) for c in children)
    if issubclass(typ, list):
        return f"[{inner}]"
    return f"({inner}{',' if len(children) == 1 else ''})"
