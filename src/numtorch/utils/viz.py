"""The autograd graph as a picture (like micrograd's ``draw_dot`` and torchviz's ``make_dot``).

``draw_graph(loss, params=dict(model.named_parameters()))`` walks the backward graph from ``loss``
(``grad_fn``, then each node's ``_edges``) and returns a ``graphviz.Digraph``:

* one grey box per backward node, labelled with its name as PyTorch names it (``AddmmBackward0``)
  and, with ``show_saved=True``, the shapes of the arrays it saved for backward;
* one blue box per leaf that requires grad, labelled with its parameter name (from ``params``) and
  shape; one green box per output tensor;
* an arrow from each input (node or leaf) to the node that consumes it: the forward direction, as in
  torchviz (backward runs against the arrows).

Double-backward graphs (results of ``autograd.grad(..., create_graph=True)``) are graphs like any
other. Needs the ``graphviz`` Python package (``pip install numtorch[viz]``); rendering an image
(``filename=``, or ``render``) also needs Graphviz's ``dot`` program.
"""
from __future__ import annotations

import os
import shutil

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Unsaved, _SavedOutput
from ..autograd.graph import Node

__all__ = ["draw_graph", "render", "graph_structure"]

_INSTALL_DOT = ("Graphviz's `dot` program was not found on PATH; it renders the graph to an image. Install it "
                "with your system's package manager (Debian/Ubuntu: `apt-get install graphviz`; macOS: `brew install "
                "graphviz`; conda: `conda install -c conda-forge graphviz`; Windows: the installer from "
                "graphviz.org), or use the returned Digraph's `.source` (DOT text) without rendering.")


def _shape(a) -> str:
    return "(" + ", ".join(str(d) for d in a.shape) + ")"


def _saved_shapes(node) -> list[str]:
    """Shapes of the arrays ``node`` keeps for backward (``"freed"`` after a backward without retain_graph)."""
    if node._freed:
        return ["freed"]
    saved = node.saved
    items = saved if isinstance(saved, (tuple, list)) else (saved,)
    out = []
    for s in items:
        if isinstance(s, Tensor):
            a = s._data
        elif isinstance(s, _SavedOutput):  # an output a custom Function saved
            a = s.data
        else:
            a = s
        if isinstance(a, np.ndarray) and not isinstance(a, Unsaved):
            out.append(_shape(a))
    return out


def graph_structure(roots, params=None, show_saved=True):
    """The graph ``draw_graph`` draws, as plain data: ``(nodes, edges)`` with ``nodes`` a dict
    ``id -> (kind, label)`` (kind ``"node"``, ``"leaf"`` or ``"output"``) and ``edges`` a list of
    ``(from_id, to_id)`` pairs, inputs before consumers. ``roots``: a Tensor or a sequence of them."""
    roots = [roots] if isinstance(roots, Tensor) else list(roots)
    names = {id(p): n for n, p in (params or {}).items()}
    nodes, edges = {}, []
    keys = {}  # id(node or leaf) -> its key: "n0", "n1"... in the order met (stable across runs)
    seen = set()
    todo = []

    def visit(obj):
        key = keys.get(id(obj))
        if key is None:
            key = keys[id(obj)] = f"n{len(keys)}"
            if isinstance(obj, Node):
                label = obj.name()
                if show_saved:
                    shapes = _saved_shapes(obj)
                    if shapes:
                        label += "\nsaved: " + ", ".join(shapes)
                nodes[key] = ("node", label)
                todo.append(obj)
            else:  # a leaf tensor that requires grad
                name = names.get(id(obj))
                nodes[key] = ("leaf", (name + "\n" if name else "") + _shape(obj._data))
        return key

    for i, t in enumerate(roots):
        if not isinstance(t, Tensor):
            raise TypeError(f"draw_graph expects Tensors, got {type(t).__name__}")
        out = f"output{i}"
        nodes[out] = ("output", (names.get(id(t), "output") if len(roots) == 1 else f"output {i}") + "\n"
                      + _shape(t._data))
        if t.grad_fn is not None:
            edges.append((visit(t.grad_fn), out))
        elif t._rg:
            edges.append((visit(t), out))
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for e in node._edges:
            if e is not None:
                edges.append((visit(e[0]), keys[id(node)]))
    return nodes, edges


_STYLE = {"node": dict(shape="box", style="filled", fillcolor="lightgrey"),
          "leaf": dict(shape="box", style="filled", fillcolor="lightblue"),
          "output": dict(shape="box", style="filled", fillcolor="darkolivegreen1")}


def draw_graph(tensor_or_loss, params=None, show_saved=True, filename=None, format="svg", rankdir="TB",
               graph_attr=None):
    """Draw the backward graph behind ``tensor_or_loss`` (a Tensor or a sequence of Tensors).

    Args:
        params: ``{name: Tensor}`` (e.g. ``dict(model.named_parameters())``) to label leaves by name.
        show_saved: add the shapes of the arrays each node saved for backward to its label.
        filename: if given, also render to ``filename.<format>`` (needs Graphviz's ``dot``).
        format: ``"svg"``, ``"png"``, ``"pdf"``... for ``filename``.
        rankdir: graphviz layout direction (``"TB"`` top to bottom, ``"LR"`` left to right).

    Returns:
        a ``graphviz.Digraph`` (``.source`` is its DOT text; in Jupyter it displays itself).

    Raises:
        ImportError: the ``graphviz`` Python package is missing (``pip install graphviz``).
        RuntimeError: ``filename`` given and Graphviz's ``dot`` program is not installed.
        TypeError: something other than Tensors given.
    """
    try:
        import graphviz  # optional dependency (the `viz` extra), needed only here
    except ImportError as e:
        raise ImportError("numtorch.utils.viz.draw_graph needs the graphviz Python package: "
                          "pip install graphviz (or pip install numtorch[viz])") from e
    nodes, edges = graph_structure(tensor_or_loss, params, show_saved)
    attrs = dict(rankdir=rankdir, **(graph_attr or {}))
    dot = graphviz.Digraph(graph_attr=attrs, node_attr=dict(fontname="monospace", fontsize="10"))
    for key, (kind, label) in nodes.items():
        dot.node(key, label, **_STYLE[kind])
    for a, b in dict.fromkeys(edges):  # an input used twice by one node is one arrow
        dot.edge(a, b)
    if filename is not None:
        render(dot, filename, format)
    return dot


def render(dot, filename, format="svg") -> str:
    """Render ``dot`` (a ``graphviz.Digraph``) to ``filename.<format>``; returns the written path.

    Raises:
        RuntimeError: Graphviz's ``dot`` program is not installed (the message says how to install it).
    """
    if shutil.which("dot") is None:
        raise RuntimeError(_INSTALL_DOT)
    base = filename[: -len(format) - 1] if filename.endswith("." + format) else filename
    path = dot.render(base, format=format, cleanup=True)
    return os.fspath(path)
