"""The package's import graph keeps the layers of DESIGN.md section 2.

Walks every module's imports with ``ast`` (imports inside functions included) and fails on any import
circle, or on an import from a lower layer to a higher one. Same-layer imports are allowed as long as
they make no circle.
"""
from __future__ import annotations

import ast
import os

import pytest

import numtorch

PKG = "numtorch"
ROOT = os.path.dirname(numtorch.__file__)

# Layers, lowest first (DESIGN.md section 2). A module's layer is the first rule that matches its
# dotted path below ``numtorch.``; "" is the package root.
LAYERS = [
    ("dtypes, devices, backend, generator", ("_dtype", "_device", "_backend", "_generator", "version")),
    ("Tensor", ("_tensor", "_tensor_str", "_tensor_storage", "_tensor_sparse")),
    ("autograd core", ("autograd.function", "autograd.graph", "autograd.engine", "autograd.grad_mode",
                       "autograd.anomaly_mode", "autograd.hooks", "autograd.forward_ad")),
    ("op machinery", ("_ops._",)),
    ("op families", ("_ops",)),
    ("public facades", ("linalg", "random", "fft", "special", "func", "_tensor_methods", "_tensor_types",
                        "_utils_api", "autograd", "masked", "signal", "sparse")),
    ("nn", ("nn",)),
    ("optim", ("optim",)),
    ("utils, data", ("utils",)),
    ("distributed", ("distributed",)),
    ("serialization", ("serialization", "_serialization_")),
    ("package root", ("",)),
    ("on the torch namespace", ("distributions", "examples")),
]


def layer_of(mod: str) -> int:
    rel = mod[len(PKG) + 1:] if mod != PKG else ""
    best, best_len = None, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            hit = (rel == p or rel.startswith(p + ".") or (p.endswith("_") and rel.startswith(p))
                   or p == "")
            if hit and len(p) > best_len:
                best, best_len = i, len(p)
    return best


def _modules():
    mods = {}
    for dirpath, _, files in os.walk(ROOT):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, os.path.dirname(ROOT))[:-3].replace(os.sep, ".")
                mods[rel[:-9] if rel.endswith(".__init__") else rel] = path
    return mods


def _targets(mod, node, is_pkg, mods):
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names if a.name.split(".")[0] == PKG]
    else:
        if node.level:
            parts = mod.split(".")
            if not is_pkg:
                parts = parts[:-1]
            parts = parts[:len(parts) - (node.level - 1)]
            base = ".".join(parts + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        if base.split(".")[0] != PKG:
            return []
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
    out = []
    for t in names:
        while t not in mods and "." in t:
            t = t.rsplit(".", 1)[0]
        if t in mods and t != mod:
            out.append(t)
    return out


def import_graph():
    mods = _modules()
    edges = {m: set() for m in mods}
    for m, path in mods.items():
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges[m].update(_targets(m, node, path.endswith("__init__.py"), mods))
    return edges


def _cycles(edges):
    """Strongly connected components with more than one module (iterative Tarjan)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]; counter[0] += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop(); on.discard(w); comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_every_module_has_a_layer():
    assert all(layer_of(m) is not None for m in _modules())


def test_no_import_circles():
    cycles = _cycles(import_graph())
    assert not cycles, "import circles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_no_upward_imports():
    bad = [f"{m} ({LAYERS[layer_of(m)][0]}) imports {t} ({LAYERS[layer_of(t)][0]})"
           for m, ts in import_graph().items() for t in sorted(ts) if layer_of(t) > layer_of(m)]
    assert not bad, "imports from a lower layer to a higher one:\n" + "\n".join(bad)


def test_ops_import_no_facade_or_upper_package():
    banned = ("numtorch.nn", "numtorch.optim", "numtorch.utils", "numtorch.linalg", "numtorch.random",
              "numtorch.fft", "numtorch.special")
    bad = [f"{m} imports {t}" for m, ts in import_graph().items() if m.startswith("numtorch._ops")
           for t in ts if t == PKG or any(t == b or t.startswith(b + ".") for b in banned)]
    assert not bad, "\n".join(bad)


def test_no_file_over_800_lines():
    long = []
    for m, path in _modules().items():
        with open(path, encoding="utf-8") as fh:
            n = sum(1 for _ in fh)
        if n > 800:
            long.append(f"{m}: {n} lines")
    assert not long, "\n".join(long)


def test_function_level_imports_say_why():
    # an import inside a function stays only for an optional dependency or a start-up cost (SciPy,
    # ml_dtypes, tqdm, matplotlib, a heavy stdlib module...), and a comment on its line says which
    bad = []
    for m, path in _modules().items():
        with open(path, encoding="utf-8") as fh:
            src = fh.read()
        lines = src.splitlines()
        for fn in ast.walk(ast.parse(src, path)):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, (ast.Import, ast.ImportFrom)) and not any(
                            "#" in line for line in lines[node.lineno - 1:node.end_lineno]):
                        bad.append(f"{m}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert not bad, "imports inside functions without a comment saying why:\n" + "\n".join(sorted(set(bad)))


def test_op_class_names_unique():
    # grad_fn shows the class name (Node.name), so two node classes never share one; a class named for
    # what it computes reports PyTorch's shared node name through its ``_node_name`` attribute instead
    import importlib
    import pkgutil

    from numtorch.autograd.graph import Node
    for info in pkgutil.walk_packages(numtorch.__path__, PKG + "."):
        try:
            importlib.import_module(info.name)
        except ImportError:  # a module of an optional dependency that is not installed
            pass
    seen, todo = {}, [Node]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            # the node classes of autograd.Function subclasses belong to the Function's module
            mod = getattr(getattr(sub, "_forward_cls", None), "__module__", None) or sub.__module__
            if mod.startswith(PKG + ".") and sub not in seen:
                seen[sub] = f"{sub.__module__}.{sub.__qualname__}"
                todo.append(sub)
    by_name = {}
    for cls, where in seen.items():
        if "_meta_op" not in cls.__dict__:  # the meta device's shape-only twin of an op shares its name (_ops/_meta.py)
            by_name.setdefault(cls.__name__, []).append(where)
    dup = {n: sorted(w) for n, w in by_name.items() if len(w) > 1}
    assert not dup, dup
    assert len(seen) > 200


def test_no_files_named_by_history():
    bad = [m for m in _modules() if any(w in m.rsplit(".", 1)[-1] for w in ("_extra", "misc", "_new", "3d"))]
    assert not bad, bad


def test_checker_sees_a_circle_and_an_upward_import():
    # the checker itself can fail: a made-up graph with a circle and an upward edge
    edges = {"numtorch._ops.a": {"numtorch._ops.b"}, "numtorch._ops.b": {"numtorch._ops.a"},
             "numtorch._tensor": {"numtorch.nn.modules"}, "numtorch.nn.modules": set()}
    assert _cycles(edges) == [["numtorch._ops.a", "numtorch._ops.b"]]
    assert layer_of("numtorch.nn.modules") > layer_of("numtorch._tensor")
    assert layer_of("numtorch._ops._cast") < layer_of("numtorch._ops.pointwise")


@pytest.mark.parametrize("mod", ["numtorch.distributions", "numtorch.fft", "numtorch.special", "numtorch.linalg"])
def test_lazy_and_facade_packages_import_alone(mod):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", f"import {mod}"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
