"""Pytrees: nested containers flattened to a list of leaves and a ``TreeSpec`` that rebuilds them
(mirrors ``torch.utils._pytree``; ``numtorch.utils._pytree`` re-exports it, ``torch.func`` uses it).

A pytree is a leaf or a registered container of pytrees. Registered out of the box, as in PyTorch:
tuple, list, dict (keys in insertion order), OrderedDict, defaultdict, deque, named tuples and
``torch.return_types`` result tuples; ``register_pytree_node`` adds a class. Anything else (a Tensor,
a number, None, a string) is a leaf.

    leaves, spec = tree_flatten((x, [y, z]))   # [x, y, z], TreeSpec(tuple, None, [*, TreeSpec(list, ...)])
    tree_unflatten([a, b, c], spec)            # (a, [b, c])
    tree_map(f, tree, *rests)                  # f over the leaves of tree and the matching leaves of rests

Errors, as PyTorch: a leaf count or structure that doesn't match raises ValueError; a ``treespec``
that is not a TreeSpec raises TypeError; registering a class twice raises ValueError.
"""
from __future__ import annotations

import collections
import dataclasses

__all__ = ["TreeSpec", "LeafSpec", "treespec_leaf", "register_pytree_node", "register_dataclass",
           "SequenceKey", "MappingKey", "GetAttrKey", "keystr", "key_get",
           "tree_flatten", "tree_unflatten", "tree_iter", "tree_leaves", "tree_structure", "tree_is_leaf",
           "tree_map", "tree_map_", "map_only", "tree_map_only", "tree_map_only_",
           "tree_all", "tree_any", "tree_all_only", "tree_any_only",
           "tree_flatten_with_path", "tree_leaves_with_path", "tree_map_with_path",
           "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance", "is_structseq",
           "is_structseq_class", "is_structseq_instance", "spec_str"]


# ------------------------------------------------------------------------------------------------
# key entries: how a child is reached from its container (for the *_with_path functions)
# ------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: object

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp) -> str:
    """A key path as text: ``(MappingKey('a'), SequenceKey(1))`` -> ``['a'][1]``."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    """The element of ``obj`` a key path leads to."""
    for k in kp:
        obj = k.get(obj)
    return obj


# ------------------------------------------------------------------------------------------------
# the registry of container types
# ------------------------------------------------------------------------------------------------
_Node = collections.namedtuple("_Node", "flatten unflatten flatten_with_keys")
SUPPORTED_NODES: dict = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None):
    """Make ``cls`` a container: ``flatten_fn(obj) -> (children, context)`` and
    ``unflatten_fn(children, context) -> obj``; ``flatten_with_keys_fn(obj) -> ([(key, child)], context)``
    for the path functions. The serialization arguments are accepted (numtorch has no treespec dumps).
    ValueError if ``cls`` is registered already."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = _Node(flatten_fn, unflatten_fn, flatten_with_keys_fn)


def register_dataclass(cls, *, field_names=None, drop_field_names=None, **kwargs):
    """Register a dataclass: its (init) fields are the children, in declaration order."""
    names = list(field_names) if field_names is not None else [
        f.name for f in dataclasses.fields(cls) if f.init and f.name not in (drop_field_names or ())]

    def flatten(obj):
        return [getattr(obj, n) for n in names], names

    def with_keys(obj):
        return [(GetAttrKey(n), getattr(obj, n)) for n in names], names

    register_pytree_node(cls, flatten, lambda values, ctx: cls(**dict(zip(ctx, values))),
                         flatten_with_keys_fn=with_keys)


def _seq_keys(obj):
    return [(SequenceKey(i), v) for i, v in enumerate(obj)]


def _dict_keys(obj):
    return [(MappingKey(k), obj[k]) for k in obj]


register_pytree_node(tuple, lambda t: (list(t), None), lambda v, _: tuple(v),
                     flatten_with_keys_fn=lambda t: (_seq_keys(t), None))
register_pytree_node(list, lambda t: (list(t), None), lambda v, _: list(v),
                     flatten_with_keys_fn=lambda t: (_seq_keys(t), None))
register_pytree_node(dict, lambda d: (list(d.values()), list(d)), lambda v, keys: dict(zip(keys, v)),
                     flatten_with_keys_fn=lambda d: (_dict_keys(d), list(d)))
register_pytree_node(collections.OrderedDict, lambda d: (list(d.values()), list(d)),
                     lambda v, keys: collections.OrderedDict(zip(keys, v)),
                     flatten_with_keys_fn=lambda d: (_dict_keys(d), list(d)))
register_pytree_node(collections.defaultdict, lambda d: (list(d.values()), [d.default_factory, list(d)]),
                     lambda v, ctx: collections.defaultdict(ctx[0], zip(ctx[1], v)),
                     flatten_with_keys_fn=lambda d: (_dict_keys(d), [d.default_factory, list(d)]))
register_pytree_node(collections.deque, lambda d: (list(d), d.maxlen),
                     lambda v, maxlen: collections.deque(v, maxlen=maxlen),
                     flatten_with_keys_fn=lambda d: (_seq_keys(d), d.maxlen))
# named tuples share one entry keyed by the namedtuple factory (context: the class), as PyTorch's spec
register_pytree_node(collections.namedtuple, lambda t: (list(t), type(t)), lambda v, cls: cls(*v),
                     flatten_with_keys_fn=lambda t: ([(GetAttrKey(f), v) for f, v in zip(t._fields, t)], type(t)))


def is_namedtuple_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields") \
        and not is_structseq_class(cls)


def is_namedtuple_instance(obj) -> bool:
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj) -> bool:
    """Whether ``obj`` is a named tuple class or instance."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls) -> bool:
    """numtorch's ``torch.return_types`` classes play the part of PyTorch's C struct sequences."""
    return isinstance(cls, type) and issubclass(cls, tuple) and cls.__qualname__.startswith("return_types.")


def is_structseq_instance(obj) -> bool:
    return is_structseq_class(type(obj))


def is_structseq(obj) -> bool:
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def _node_type(obj):
    """The registry key of ``obj``'s container type, or None for a leaf."""
    cls = type(obj)
    if cls in SUPPORTED_NODES:
        return cls
    if is_structseq_class(cls):
        return cls
    if is_namedtuple_class(cls):
        return collections.namedtuple
    return None


def _children(obj, kind):
    if is_structseq_class(kind):
        return list(obj), None
    return SUPPORTED_NODES[kind].flatten(obj)


def tree_is_leaf(tree, is_leaf=None) -> bool:
    """Whether ``tree`` is a leaf (not a registered container, or ``is_leaf(tree)`` is true)."""
    return (is_leaf is not None and is_leaf(tree)) or _node_type(tree) is None


# ------------------------------------------------------------------------------------------------
# TreeSpec
# ------------------------------------------------------------------------------------------------
class TreeSpec:
    """The structure of a pytree: the container ``type`` (None for a leaf), its ``context`` (dict keys,
    the named tuple class, ...) and one spec per child. ``num_leaves``, ``num_nodes``, ``num_children``;
    ``unflatten(leaves)`` rebuilds, ``flatten_up_to(tree)`` flattens another tree down to this structure.
    Specs compare equal when the structures are the same."""

    def __init__(self, type, context, children_specs):
        self.type, self.context, self._children = type, context, list(children_specs)
        self.num_children = len(self._children)
        leaf = type is None
        self.num_leaves = 1 if leaf else sum(c.num_leaves for c in self._children)
        self.num_nodes = 1 + sum(c.num_nodes for c in self._children)

    @property
    def children_specs(self):
        return self._children

    def children(self):
        return list(self._children)

    def child(self, index):
        return self._children[index]

    def is_leaf(self) -> bool:
        return self.type is None

    def unflatten(self, leaves):
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
                             f"to a pytree that holds {self.num_leaves} items ({self}).")
        return self._build(iter(leaves))

    def _build(self, it):
        if self.is_leaf():
            return next(it)
        values = [c._build(it) for c in self._children]
        if is_structseq_class(self.type):
            return self.type(*values)
        return SUPPORTED_NODES[self.type].unflatten(values, self.context)

    def flatten_up_to(self, tree):
        """The subtrees of ``tree`` at this spec's leaves; ValueError where ``tree`` has another structure."""
        out = []
        self._up_to(tree, out)
        return out

    def _up_to(self, tree, out):
        if self.is_leaf():
            out.append(tree)
            return
        kind = _node_type(tree)
        if kind != self.type:
            raise ValueError(f"Node type mismatch; expected {self.type}, but got {type(tree)}.")
        children, context = _children(tree, kind)
        if len(children) != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {len(children)}.")
        if kind in (dict, collections.OrderedDict, collections.defaultdict):
            mine = self.context[1] if kind is collections.defaultdict else self.context
            theirs = context[1] if kind is collections.defaultdict else context
            if set(mine) != set(theirs):
                raise ValueError(f"Node keys mismatch; missing key(s): {set(mine) - set(theirs)}; "
                                 f"extra key(s): {set(theirs) - set(mine)}.")
            children = [tree[k] for k in mine]
        elif context != self.context:
            raise ValueError(f"Node context mismatch for custom node type; expected {self.context!r}, "
                             f"but got {context!r}.")
        for spec, child in zip(self._children, children):
            spec._up_to(child, out)

    def __eq__(self, other):
        return isinstance(other, TreeSpec) and (self.type, self.context, self._children) == \
            (other.type, other.context, other._children)

    def __hash__(self):
        return hash((str(self.type), repr(self.context), tuple(hash(c) for c in self._children)))

    def __repr__(self, indent=0):
        if self.is_leaf():
            return "*"
        inner = ""
        if self._children:
            indent += 2
            parts = [c.__repr__(indent) for c in self._children]
            inner = parts[0] + ("," if len(parts) > 1 else "") + ",".join("\n" + " " * indent + p for p in parts[1:])
        return f"TreeSpec({self.type.__name__}, {self.context}, [{inner}])"


class LeafSpec(TreeSpec):
    """The spec of a leaf (printed ``*``)."""

    def __init__(self):
        super().__init__(None, None, [])


def treespec_leaf() -> TreeSpec:
    return LeafSpec()


def _spec(tree, is_leaf, leaves, keys=None, path=()):
    if tree_is_leaf(tree, is_leaf):
        leaves.append(tree if keys is None else (path, tree))
        return LeafSpec()
    kind = _node_type(tree)
    if is_structseq_class(kind):
        children, context = list(tree), None
        entries = [(GetAttrKey(f), v) for f, v in zip(tree._fields, tree)]
    else:
        node = SUPPORTED_NODES[kind]
        children, context = node.flatten(tree)
        entries = None
        if keys is not None:
            entries = node.flatten_with_keys(tree)[0] if node.flatten_with_keys else \
                [(SequenceKey(i), c) for i, c in enumerate(children)]
    if keys is None:
        specs = [_spec(c, is_leaf, leaves) for c in children]
    else:
        specs = [_spec(c, is_leaf, leaves, True, path + (k,)) for k, c in entries]
    return TreeSpec(kind, context, specs)


# ------------------------------------------------------------------------------------------------
# flatten / unflatten / map
# ------------------------------------------------------------------------------------------------
def tree_flatten(tree, is_leaf=None):
    """``(leaves, spec)``: the leaves left to right (a dict's in its key order) and the structure."""
    leaves = []
    return leaves, _spec(tree, is_leaf, leaves)


def tree_unflatten(leaves, treespec):
    """The pytree of structure ``treespec`` holding ``leaves``."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"Expected `treespec` to be an instance of PyTreeSpec but got item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """The leaves, one by one."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    for child in _children(tree, _node_type(tree))[0]:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None) -> list:
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """``func`` applied to each leaf of ``tree`` (and the leaves at the same places in ``rests``, which
    must have ``tree``'s structure, or be leaves there), in a tree of the same structure."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(*xs) for xs in zip(leaves, *others))


def tree_map_(func, tree, *rests, is_leaf=None):
    """``func`` called on the leaves for its side effects; returns ``tree``."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    for xs in zip(leaves, *others):
        func(*xs)
    return tree


def _pred(type_or_types_or_pred):
    if isinstance(type_or_types_or_pred, (type, tuple)) or type(type_or_types_or_pred).__name__ == "UnionType":
        return lambda x: isinstance(x, type_or_types_or_pred)
    if callable(type_or_types_or_pred):
        return type_or_types_or_pred
    raise TypeError("Argument must be a type, a tuple of types, or a callable.")


def map_only(type_or_types_or_pred, /):
    """A decorator: the function applies to leaves of the given type(s) (or passing the predicate),
    other leaves pass through."""
    pred = _pred(type_or_types_or_pred)

    def wrap(func):
        return lambda x: func(x) if pred(x) else x
    return wrap


def tree_map_only(type_or_types_or_pred, /, func, tree, is_leaf=None):
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, /, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, /, pred, tree, is_leaf=None) -> bool:
    check = _pred(type_or_types)
    return all(pred(x) for x in tree_iter(tree, is_leaf) if check(x))


def tree_any_only(type_or_types, /, pred, tree, is_leaf=None) -> bool:
    check = _pred(type_or_types)
    return any(pred(x) for x in tree_iter(tree, is_leaf) if check(x))


def tree_flatten_with_path(tree, is_leaf=None):
    """``([(key_path, leaf), ...], spec)``; a key path is a tuple of SequenceKey/MappingKey/GetAttrKey."""
    pairs = []
    return pairs, _spec(tree, is_leaf, pairs, True)


def tree_leaves_with_path(tree, is_leaf=None) -> list:
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    """``func(key_path, leaf, *matching_leaves_of_rests)`` over the leaves, in a tree of the same structure."""
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(kp, x, *xs) for (kp, x), *xs in zip(pairs, *others))


def spec_str(spec) -> str:
    """A short text form of a structure for torch.func's error messages: ``(*, [*, *])``, ``{'a': *}``."""
    if spec.is_leaf():
        return "*"
    inner = [spec_str(c) for c in spec.children_specs]
    if spec.type in (dict, collections.OrderedDict):
        return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(spec.context, inner)) + "}"
    if spec.type is list:
        return "[" + ", ".join(inner) + "]"
    return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
