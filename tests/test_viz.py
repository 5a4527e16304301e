"""numtorch.utils.viz: the drawn graph of a small MLP's loss equals the known graph (node names, edges,
leaf labels, saved shapes), its node names are torch's grad_fn names for the same model, double-backward
graphs draw, and rendering either writes an image (Graphviz's dot installed) or says how to install dot."""
from __future__ import annotations

import shutil
from collections import Counter

import graphviz
import pytest
import torch as ref

import numtorch
import numtorch.nn as nn
from numtorch.utils import viz


def mlp_loss(torch_mod, nn_mod, n=16):
    torch_mod.manual_seed(0)
    model = nn_mod.Sequential(nn_mod.Linear(3, 4), nn_mod.Tanh(), nn_mod.Linear(4, 1))
    x, y = torch_mod.randn(n, 3), torch_mod.randn(n, 1)
    return model, nn_mod.functional.mse_loss(model(x), y)


def first_line(label):
    return label.split("\n")[0]


def named_edges(nodes, edges):
    return Counter((first_line(nodes[a][1]), first_line(nodes[b][1])) for a, b in edges)


def test_mlp_graph_is_the_known_graph():
    model, loss = mlp_loss(numtorch, nn)
    nodes, edges = viz.graph_structure(loss, dict(model.named_parameters()))
    kinds = Counter(kind for kind, _ in nodes.values())
    assert kinds == {"node": 4, "leaf": 4, "output": 1}
    assert named_edges(nodes, edges) == Counter({
        ("MseLossBackward0", "output"): 1,
        ("AddmmBackward0", "MseLossBackward0"): 1,
        ("TanhBackward0", "AddmmBackward0"): 1,
        ("2.weight", "AddmmBackward0"): 1, ("2.bias", "AddmmBackward0"): 1,
        ("AddmmBackward0", "TanhBackward0"): 1,
        ("0.weight", "AddmmBackward0"): 1, ("0.bias", "AddmmBackward0"): 1,
    })
    leaves = sorted(label for kind, label in nodes.values() if kind == "leaf")
    assert leaves == ["0.bias\n(4)", "0.weight\n(4, 3)", "2.bias\n(1)", "2.weight\n(1, 4)"]
    # the two Linear layers are distinct nodes: the first feeds Tanh, the second reads it
    by_label = {first_line(lbl): key for key, (kind, lbl) in nodes.items() if kind == "node" and "Addmm" not in lbl}
    tanh = by_label["TanhBackward0"]
    assert sum(1 for a, b in edges if b == tanh) == 1 and sum(1 for a, b in edges if a == tanh) == 1
    # saved shapes: Tanh keeps its (16, 4) result, the loss its two (16, 1) inputs, layer 0 its input x
    labels = [lbl for kind, lbl in nodes.values() if kind == "node"]
    assert "TanhBackward0\nsaved: (16, 4)" in labels
    assert "MseLossBackward0\nsaved: (16, 1), (16, 1)" in labels
    assert any(lbl.startswith("AddmmBackward0\nsaved:") and "(16, 3)" in lbl for lbl in labels)
    bare, _ = viz.graph_structure(loss, dict(model.named_parameters()), show_saved=False)
    assert all("saved" not in lbl for _, lbl in bare.values())


def torch_node_names(t):
    names, seen, todo = Counter(), set(), [t.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        names[fn.name()] += 1
        todo.extend(f for f, _ in fn.next_functions)
    return names


def test_node_names_match_torch():
    model, loss = mlp_loss(numtorch, nn)
    nodes, _ = viz.graph_structure(loss)
    ours = Counter(first_line(lbl) for kind, lbl in nodes.values() if kind == "node")
    _, tloss = mlp_loss(ref, ref.nn)
    theirs = torch_node_names(tloss)
    # torch also shows AccumulateGrad per leaf (drawn here as the leaf itself) and a TBackward0 per
    # weight (torch's linear transposes the weight as an op; numtorch's addmm reads it transposed)
    del theirs["torch::autograd::AccumulateGrad"]
    assert theirs.pop("TBackward0") == 2
    assert ours == theirs


def test_draw_graph_returns_digraph_with_labels():
    model, loss = mlp_loss(numtorch, nn)
    dot = viz.draw_graph(loss, params=dict(model.named_parameters()))
    assert isinstance(dot, graphviz.Digraph)
    src = dot.source
    for text in ("MseLossBackward0", "AddmmBackward0", "TanhBackward0", "0.weight", "2.bias", "->"):
        assert text in src
    nodes, edges = viz.graph_structure(loss, dict(model.named_parameters()))
    assert src.count("->") == len(set(edges))
    with pytest.raises(TypeError):
        viz.draw_graph([loss, 3.0])


def test_double_backward_graph():
    model, _ = mlp_loss(numtorch, nn)
    x = numtorch.randn(5, 3, requires_grad=True)
    (g,) = numtorch.autograd.grad(model(x).sum(), x, create_graph=True)
    penalty = (g.norm(2, dim=1) - 1).pow(2).mean()
    nodes, edges = viz.graph_structure(penalty, dict(model.named_parameters()))
    keys = set(nodes)
    assert all(a in keys and b in keys for a, b in edges)
    names = Counter(first_line(lbl) for _, lbl in nodes.values())
    # the gradient's graph reaches the first-order graph (Tanh's node, through its saved output) and the weights
    assert names["TanhBackward0"] == 1 and names["0.weight"] == 1 and names["2.weight"] == 1
    reach = {"output0"}
    changed = True
    while changed:  # every node is connected to the output
        changed = False
        for a, b in edges:
            if b in reach and a not in reach:
                reach.add(a)
                changed = True
    assert reach == keys
    assert isinstance(viz.draw_graph(penalty), graphviz.Digraph)


def test_leaf_and_no_grad_outputs():
    w = numtorch.randn(2, 3, requires_grad=True)
    nodes, edges = viz.graph_structure(w, {"w": w})
    assert [lbl for k, lbl in nodes.values() if k == "leaf"] == ["w\n(2, 3)"] and len(edges) == 1
    nodes, edges = viz.graph_structure(numtorch.ones(2))
    assert list(nodes.values()) == [("output", "output\n(2)")] and edges == []


def test_render(tmp_path, monkeypatch):
    model, loss = mlp_loss(numtorch, nn)
    target = str(tmp_path / "graph.svg")
    if shutil.which("dot") is not None:  # this machine has Graphviz: a real SVG is written
        viz.draw_graph(loss, dict(model.named_parameters()), filename=target, format="svg")
        text = (tmp_path / "graph.svg").read_text()
        assert "<svg" in text and "AddmmBackward0" in text
    else:
        with pytest.raises(RuntimeError, match="apt-get install graphviz"):
            viz.draw_graph(loss, filename=target)
    # without dot: a clear error saying how to install it, and no file
    monkeypatch.setattr(viz.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="brew install graphviz"):
        viz.render(viz.draw_graph(loss), str(tmp_path / "other.png"), format="png")
    assert not (tmp_path / "other.png").exists()
