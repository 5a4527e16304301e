"""numtorch.utils._pytree against torch.utils._pytree: leaves, specs (printed and counted), rebuilding,
maps, key paths, registration and the errors for mismatched structures."""
from __future__ import annotations

import collections
import dataclasses

import pytest
import torch
import torch.utils._pytree as tp

import numtorch
import numtorch.utils._pytree as npt

Point = collections.namedtuple("Point", "x y")

TREES = [
    (1, [2, None], {"b": 3, "a": 4}, collections.OrderedDict(x=5)),
    None, 5, "text", [], {}, (1,), ((),),
    Point(1, [2, 3]),
    collections.defaultdict(int, {"a": 1, "b": [2]}),
    collections.deque([1, 2], maxlen=3),
    {"w": [1, 2], "opt": {"lr": 0.1, "betas": (0.9, 0.99)}},
]


@pytest.mark.quick
@pytest.mark.parametrize("tree", TREES, ids=range(len(TREES)))
def test_flatten_unflatten_like_torch(tree):
    (tl, ts), (nl, ns) = tp.tree_flatten(tree), npt.tree_flatten(tree)
    assert nl == tl
    assert repr(ns) == repr(ts)
    assert (ns.num_leaves, ns.num_nodes, ns.num_children, ns.is_leaf()) == \
        (ts.num_leaves, ts.num_nodes, ts.num_children, ts.is_leaf())
    assert npt.tree_unflatten(nl, ns) == tree
    assert type(npt.tree_unflatten(nl, ns)) is type(tree)
    assert npt.tree_leaves(tree) == tp.tree_leaves(tree)
    assert npt.tree_structure(tree) == ns


def test_specs_compare_by_structure():
    assert npt.tree_structure((1, [2])) == npt.tree_structure((3, [4]))
    assert npt.tree_structure((1, [2])) != npt.tree_structure((1, (2,)))
    assert npt.tree_structure({"a": 1}) != npt.tree_structure({"b": 1})
    assert hash(npt.tree_structure((1, 2))) == hash(npt.tree_structure((3, 4)))
    assert repr(npt.treespec_leaf()) == repr(tp.treespec_leaf()) == "*"


def test_return_types_are_nodes():
    n, t = numtorch.max(numtorch.ones(2, 3), 1), torch.max(torch.ones(2, 3), 1)
    assert repr(npt.tree_structure(n)) == repr(tp.tree_structure(t))
    rebuilt = npt.tree_structure(n).unflatten(["v", "i"])
    assert type(rebuilt) is type(n) and rebuilt.indices == "i"


def test_maps():
    f = lambda a, b: a * 10 + b  # noqa: E731
    tree, other = (1, [2, {"k": 3}]), (4, [5, {"k": 6}])
    assert npt.tree_map(f, tree, other) == tp.tree_map(f, tree, other)
    assert npt.tree_map(str, [1, (2,)], is_leaf=lambda z: isinstance(z, tuple)) == \
        tp.tree_map(str, [1, (2,)], is_leaf=lambda z: isinstance(z, tuple))
    mixed = (1, "a", 2.0, [3])
    assert npt.tree_map_only(int, lambda x: x * 10, mixed) == tp.tree_map_only(int, lambda x: x * 10, mixed)
    assert npt.tree_map_only((int, float), lambda x: -x, mixed) == tp.tree_map_only((int, float), lambda x: -x, mixed)
    seen = []
    assert npt.tree_map_(seen.append, mixed) is mixed and seen == [1, "a", 2.0, 3]
    for fn in ("tree_all", "tree_any"):
        for pred in (lambda z: z == 1, lambda z: isinstance(z, (int, str, float))):
            assert getattr(npt, fn)(pred, mixed) == getattr(tp, fn)(pred, mixed)
    assert npt.tree_any_only(int, lambda z: z > 2, mixed) == tp.tree_any_only(int, lambda z: z > 2, mixed)
    assert npt.tree_all_only(str, lambda z: z == "a", mixed) == tp.tree_all_only(str, lambda z: z == "a", mixed)


def test_tensors_are_leaves():
    x = numtorch.ones(2)
    out = npt.tree_map_only(numtorch.Tensor, lambda t: t * 2, {"x": x, "n": 3})
    assert out["n"] == 3 and out["x"].tolist() == [2.0, 2.0]


def test_key_paths():
    tree = {"a": [1, (2,)], "p": Point(3, 4)}
    (tp_pairs, _), (np_pairs, _) = tp.tree_flatten_with_path(tree), npt.tree_flatten_with_path(tree)
    assert [(tp.keystr(k), v) for k, v in tp_pairs] == [(npt.keystr(k), v) for k, v in np_pairs]
    assert [npt.key_get(tree, k) for k, _ in np_pairs] == [v for _, v in np_pairs]
    assert npt.tree_map_with_path(lambda kp, x: npt.keystr(kp), tree) == \
        tp.tree_map_with_path(lambda kp, x: tp.keystr(kp), tree)
    assert [npt.keystr(k) for k, _ in npt.tree_leaves_with_path(tree)] == \
        [tp.keystr(k) for k, _ in tp.tree_leaves_with_path(tree)]


def test_register_pytree_node_and_dataclass():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    npt.register_pytree_node(Pair, lambda p: ([p.a, p.b], None), lambda v, _: Pair(*v))
    leaves, spec = npt.tree_flatten([Pair(1, (2, 3))])
    assert leaves == [1, 2, 3]
    assert npt.tree_unflatten([4, 5, 6], spec)[0].b == (5, 6)

    @dataclasses.dataclass
    class Config:
        lr: float
        steps: list

    npt.register_dataclass(Config)
    cfg = npt.tree_map(lambda v: v * 2, Config(0.5, [1, 2]))
    assert cfg == Config(1.0, [2, 4])
    assert [npt.keystr(k) for k, _ in npt.tree_leaves_with_path(Config(0.5, [1]))] == [".lr", ".steps[0]"]


@pytest.mark.parametrize("call", [
    lambda m: m.tree_map(lambda a, b: a + b, (1, 2), (3, 4, 5)),
    lambda m: m.tree_map(lambda a, b: a + b, (1, 2), [3, 4]),
    lambda m: m.tree_map(lambda a, b: a, {"a": 1}, {"b": 1}),
    lambda m: m.tree_unflatten([1], (1,)),
    lambda m: m.tree_unflatten([1, 2], m.tree_structure((1, 2, 3))),
    lambda m: m.register_pytree_node(list, lambda x: (x, None), lambda v, c: list(v)),
], ids=["arity", "type", "keys", "not-a-spec", "leaf-count", "registered-twice"])
def test_errors_like_torch(call):
    with pytest.raises(Exception) as t_err:
        call(tp)
    with pytest.raises(type(t_err.value)) as n_err:
        call(npt)
    assert str(n_err.value).split(" (")[0] == str(t_err.value).split(" (")[0]
