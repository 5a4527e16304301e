"""Bad-input differential fuzzing of numtorch against PyTorch.

A seeded generator builds calls to ~70 of the most used ops with random shapes (0-d and empty
included), dims (in and out of range, and of wrong types), dtypes and values; most calls are
invalid. Each call runs on numtorch and on torch; a case is a mismatch when torch raises and
numtorch returns, when numtorch raises and torch returns, when the exception types differ, or when
both return and values/dtypes/shapes differ.

``tests/test_fuzz_bad_input.py`` runs a fixed seed set; the long run is this script:
``python tests/fuzz_bad_input.py --n 100000 [--seed 0] [--show 30]``.
"""
from __future__ import annotations

import argparse
import collections
import sys
import warnings

import numpy as np

DTYPES = ["float32", "float64", "int64", "int32", "uint8", "bool"]
BAD_DIMS = [1.5, None, "a", (0, 0), [0, 1, 5]]


class Case:
    """One call: ``op`` name, input arrays, extra positional/keyword arguments (plain Python)."""

    def __init__(self, op, arrays, args=(), kwargs=None):
        self.op, self.arrays, self.args, self.kwargs = op, arrays, tuple(args), dict(kwargs or {})

    def __repr__(self):
        ins = ", ".join(f"{a.dtype}{list(a.shape)}" for a in self.arrays)
        return f"{self.op}({ins}; args={self.args}, kwargs={self.kwargs})"


def _array(rng, shape=None, dtype=None):
    if shape is None:
        shape = tuple(int(s) for s in rng.integers(0, 4, rng.integers(0, 4)))
    dtype = dtype or (DTYPES[rng.integers(len(DTYPES))] if rng.random() < 0.5 else "float32")
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in ("uint8",):
        return rng.integers(0, 6, shape).astype(dtype)
    if dtype.startswith("int"):
        return rng.integers(-3, 6, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _dim(rng, nd):
    r = rng.random()
    if r < 0.1:
        return BAD_DIMS[rng.integers(len(BAD_DIMS))]
    return int(rng.integers(-nd - 2, nd + 2)) if nd else int(rng.integers(-2, 2))


def _index(rng, n_max, shape):
    return rng.integers(-1, max(n_max, 1) + 1, shape).astype("int64" if rng.random() < 0.9 else "int32")


# op name -> (how many arrays, builder of extra args, the call on a library ``L``)
def _unary(fn):
    return (1, lambda rng, a: ((), {}), fn)


def _binary(fn):
    return (2, lambda rng, a: ((), {}), fn)


def _reduce(fn, keep=True):
    def extra(rng, a):
        kw = {}
        if rng.random() < 0.8:
            kw["dim"] = _dim(rng, a[0].ndim)
        if keep and rng.random() < 0.5:
            kw["keepdim"] = bool(rng.random() < 0.5)
        return (), kw
    return (1, extra, fn)


def _F(L):
    return L.nn.functional


OPS = {
    # elementwise
    "add": _binary(lambda L, a, b: L.add(a, b)),
    "add_alpha": (2, lambda rng, a: ((), {"alpha": [2, -1, 0.5][rng.integers(3)]}),
                  lambda L, a, b, alpha: L.add(a, b, alpha=alpha)),
    "sub": _binary(lambda L, a, b: L.sub(a, b)),
    "mul": _binary(lambda L, a, b: L.mul(a, b)),
    "div": _binary(lambda L, a, b: L.div(a, b)),
    "pow": _binary(lambda L, a, b: L.pow(a, b)),
    "maximum": _binary(lambda L, a, b: L.maximum(a, b)),
    "eq": _binary(lambda L, a, b: L.eq(a, b)),
    "lt": _binary(lambda L, a, b: a < b),
    "where": (3, lambda rng, a: ((), {}), lambda L, c, a, b: L.where(c, a, b)),
    "exp": _unary(lambda L, a: L.exp(a)),
    "log": _unary(lambda L, a: L.log(a)),
    "sqrt": _unary(lambda L, a: L.sqrt(a)),
    "abs": _unary(lambda L, a: L.abs(a)),
    "neg": _unary(lambda L, a: L.neg(a)),
    "sigmoid": _unary(lambda L, a: L.sigmoid(a)),
    "tanh": _unary(lambda L, a: L.tanh(a)),
    "clamp": (1, lambda rng, a: ((), {"min": -0.5, "max": [0.5, None][rng.integers(2)]}),
              lambda L, a, **kw: L.clamp(a, **kw)),
    # reductions
    "sum": _reduce(lambda L, a, **kw: L.sum(a, **kw)),
    "mean": _reduce(lambda L, a, **kw: L.mean(a, **kw)),
    "prod": _reduce(lambda L, a, **kw: L.prod(a, **kw) if "dim" in kw else L.prod(a)),
    "amax": _reduce(lambda L, a, **kw: L.amax(a, **kw)),
    "argmax": _reduce(lambda L, a, **kw: L.argmax(a, **kw)),
    "logsumexp": _reduce(lambda L, a, **kw: L.logsumexp(a, **kw) if "dim" in kw else L.logsumexp(a, None)),
    "std": _reduce(lambda L, a, **kw: L.std(a, **kw)),
    "norm": (1, lambda rng, a: ((), {"p": [2, 1, float("inf"), 0][rng.integers(4)]}),
             lambda L, a, p: L.norm(a, p)),
    "cumsum": _reduce(lambda L, a, **kw: L.cumsum(a, kw.get("dim", 0)), keep=False),
    "softmax": _reduce(lambda L, a, **kw: L.softmax(a, kw.get("dim", 0)), keep=False),
    "log_softmax": _reduce(lambda L, a, **kw: L.log_softmax(a, kw.get("dim", 0)), keep=False),
    # shape ops
    "reshape": (1, lambda rng, a: ((tuple(int(s) for s in rng.integers(-1, 4, rng.integers(0, 3))),), {}),
                lambda L, a, s: a.reshape(s)),
    "view": (1, lambda rng, a: ((tuple(int(s) for s in rng.integers(-1, 4, rng.integers(0, 3))),), {}),
             lambda L, a, s: a.view(s)),
    "transpose": (1, lambda rng, a: ((_dim(rng, a[0].ndim), _dim(rng, a[0].ndim)), {}),
                  lambda L, a, d0, d1: L.transpose(a, d0, d1)),
    "permute": (1, lambda rng, a: (tuple(int(d) for d in rng.permutation(a[0].ndim)), {}),
                lambda L, a, *p: a.permute(*p)),
    "flatten": (1, lambda rng, a: ((_dim(rng, a[0].ndim),), {}), lambda L, a, d: L.flatten(a, d)),
    "squeeze": _reduce(lambda L, a, **kw: L.squeeze(a, kw["dim"]) if "dim" in kw else L.squeeze(a), keep=False),
    "unsqueeze": (1, lambda rng, a: ((_dim(rng, a[0].ndim + 1),), {}), lambda L, a, d: L.unsqueeze(a, d)),
    "flip": (1, lambda rng, a: ((_dim(rng, a[0].ndim),), {}), lambda L, a, d: L.flip(a, (d,))),
    "movedim": (1, lambda rng, a: ((_dim(rng, a[0].ndim), _dim(rng, a[0].ndim)), {}),
                lambda L, a, s, d: L.movedim(a, s, d)),
    "expand": (1, lambda rng, a: (tuple(int(s) for s in rng.integers(-1, 4, a[0].ndim + rng.integers(0, 2))), {}),
               lambda L, a, *s: a.expand(*s)),
    "cat": (2, lambda rng, a: ((_dim(rng, a[0].ndim),), {}), lambda L, a, b, d: L.cat([a, b], d)),
    "stack": (2, lambda rng, a: ((_dim(rng, a[0].ndim + 1),), {}), lambda L, a, b, d: L.stack([a, b], d)),
    "split": (1, lambda rng, a: ((int(rng.integers(0, 3)), _dim(rng, a[0].ndim)), {}),
              lambda L, a, n, d: L.split(a, n, d)),
    "chunk": (1, lambda rng, a: ((int(rng.integers(0, 3)), _dim(rng, a[0].ndim)), {}),
              lambda L, a, n, d: L.chunk(a, n, d)),
    # indexing
    "getitem_int": (1, lambda rng, a: ((int(rng.integers(-4, 4)),), {}), lambda L, a, i: a[i]),
    "getitem_slice": (1, lambda rng, a: ((int(rng.integers(-4, 4)), int(rng.integers(-4, 4))), {}),
                      lambda L, a, i, j: a[i:j]),
    "getitem_tensor": (1, lambda rng, a: ((_index(rng, 3, (2,)),), {}), lambda L, a, i: a[L.tensor(i)]),
    "index_select": (1, lambda rng, a: ((_dim(rng, a[0].ndim), _index(rng, 3, (2,))), {}),
                     lambda L, a, d, i: L.index_select(a, d, L.tensor(i))),
    "gather": (1, lambda rng, a: ((_dim(rng, a[0].ndim), _index(rng, 3, a[0].shape)), {}),
               lambda L, a, d, i: L.gather(a, d, L.tensor(i))),
    "scatter_add": (2, lambda rng, a: ((_dim(rng, a[0].ndim), _index(rng, 2, a[1].shape)), {}),
                    lambda L, a, s, d, i: L.scatter_add(a, d, L.tensor(i), s)),
    "index_add": (2, lambda rng, a: ((_dim(rng, a[0].ndim), _index(rng, 2, (a[1].shape[0] if a[1].ndim else 1,))),
                                     {}),
                  lambda L, a, s, d, i: L.index_add(a, d, L.tensor(i), s)),
    "masked_fill": (2, lambda rng, a: ((), {}), lambda L, a, m: a.masked_fill(m, 1.0)),
    # matmul family
    "matmul": _binary(lambda L, a, b: L.matmul(a, b)),
    "mm": _binary(lambda L, a, b: L.mm(a, b)),
    "bmm": _binary(lambda L, a, b: L.bmm(a, b)),
    "dot": _binary(lambda L, a, b: L.dot(a, b)),
    "outer": _binary(lambda L, a, b: L.outer(a, b)),
    "linear": _binary(lambda L, a, b: _F(L).linear(a, b)),
    # nn.functional
    "relu": _unary(lambda L, a: _F(L).relu(a)),
    "gelu": _unary(lambda L, a: _F(L).gelu(a)),
    "silu": _unary(lambda L, a: _F(L).silu(a)),
    "leaky_relu": _unary(lambda L, a: _F(L).leaky_relu(a, 0.1)),
    "dropout_eval": _unary(lambda L, a: _F(L).dropout(a, 0.5, training=False)),
    "mse_loss": _binary(lambda L, a, b: _F(L).mse_loss(a, b)),
    "l1_loss": _binary(lambda L, a, b: _F(L).l1_loss(a, b)),
    "cross_entropy": (1, lambda rng, a: ((_index(rng, 3, a[0].shape[:1]),), {}),
                      lambda L, a, t: _F(L).cross_entropy(a, L.tensor(t))),
    "nll_loss": (1, lambda rng, a: ((_index(rng, 3, a[0].shape[:1]),), {}),
                 lambda L, a, t: _F(L).nll_loss(a, L.tensor(t))),
    "bce": _binary(lambda L, a, b: _F(L).binary_cross_entropy(L.sigmoid(a), b)),
    "conv1d": _binary(lambda L, a, b: _F(L).conv1d(a, b)),
    "conv2d": _binary(lambda L, a, b: _F(L).conv2d(a, b)),
    "max_pool1d": (1, lambda rng, a: ((int(rng.integers(0, 4)),), {}), lambda L, a, k: _F(L).max_pool1d(a, k)),
    "avg_pool1d": (1, lambda rng, a: ((int(rng.integers(0, 4)),), {}), lambda L, a, k: _F(L).avg_pool1d(a, k)),
    "layer_norm": (1, lambda rng, a: ((a[0].shape[-1:] if rng.random() < 0.7 else (2,),), {}),
                   lambda L, a, s: _F(L).layer_norm(a, s)),
    "batch_norm": (1, lambda rng, a: ((int(a[0].shape[1]) if a[0].ndim > 1 else 1,), {}),
                   lambda L, a, c: _F(L).batch_norm(a, L.zeros(c), L.ones(c))),
    "pad": (1, lambda rng, a: ((tuple(int(p) for p in rng.integers(-3, 3, 2 * rng.integers(1, 3))),), {}),
            lambda L, a, p: _F(L).pad(a, p)),
    "interpolate": (1, lambda rng, a: ((int(rng.integers(0, 4)),), {}),
                    lambda L, a, s: _F(L).interpolate(a, size=s)),
    "one_hot": (1, lambda rng, a: ((int(rng.integers(-1, 4)),), {}),
                lambda L, a, n: _F(L).one_hot(a, n)),
    "embedding": (1, lambda rng, a: ((_index(rng, 3, (2,)),), {}),
                  lambda L, w, i: _F(L).embedding(L.tensor(i), w)),
}


def make_case(rng) -> Case:
    name = list(OPS)[rng.integers(len(OPS))]
    n, extra, _ = OPS[name]
    first = _array(rng)
    arrays = [first]
    for _ in range(n - 1):  # often a related shape, sometimes anything
        if rng.random() < 0.5:
            arrays.append(_array(rng, first.shape, str(first.dtype) if rng.random() < 0.7 else None))
        else:
            arrays.append(_array(rng))
    args, kwargs = extra(rng, arrays)
    return Case(name, arrays, args, kwargs)


def _wrap(L, case):
    fn = OPS[case.op][2]
    ins = [L.tensor(a.copy()) for a in case.arrays]
    return fn(L, *ins, *case.args, **case.kwargs)


def _result(L, case):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = _wrap(L, case)
    except Exception as e:  # noqa: BLE001 - the exception type is the result compared
        return e
    if isinstance(r, (tuple, list)):
        return tuple(r)
    return r


def _as_np(t):
    return t.detach().numpy()


def compare(case):
    """None when numtorch agrees with torch on ``case``, else a one-line description of the mismatch."""
    import torch

    import numtorch

    a, b = _result(torch, case), _result(numtorch, case)
    ea, eb = isinstance(a, Exception), isinstance(b, Exception)
    if ea and eb:
        if type(a).__name__ != type(b).__name__:
            return f"exception types differ: torch {type(a).__name__}: {str(a)[:80]!r} | numtorch " \
                   f"{type(b).__name__}: {str(b)[:80]!r}"
        return None
    if ea:
        return f"torch raises {type(a).__name__}: {str(a)[:80]!r}; numtorch returns"
    if eb:
        return f"numtorch raises {type(b).__name__}: {str(b)[:80]!r}; torch returns"
    xs, ys = (a, b) if isinstance(a, tuple) else ((a,), (b,))
    if len(xs) != len(ys):
        return f"result count {len(xs)} vs {len(ys)}"
    for x, y in zip(xs, ys):
        if not isinstance(x, torch.Tensor) or not isinstance(y, numtorch.Tensor):
            if x != y:
                return f"results differ: {x!r} vs {y!r}"
            continue
        if str(x.dtype) != str(y.dtype).replace("numtorch", "torch") or tuple(x.shape) != tuple(y.shape):
            return f"dtype/shape differ: {x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}"
        xn, yn = _as_np(x), _as_np(y)
        if xn.dtype.kind in "fc":
            ok = np.allclose(yn, xn, rtol=1e-4, atol=1e-5, equal_nan=True)
        else:
            ok = np.array_equal(yn, xn)
        if not ok:
            return "values differ"
    return None


def run(n, seed=0, skip=None):
    """Run ``n`` cases from ``seed``; returns (count by outcome, list of (case index, case, message))."""
    rng = np.random.default_rng(seed)
    stats, bad = collections.Counter(), []
    for k in range(n):
        case = make_case(rng)
        if skip and skip(case):
            stats["skipped"] += 1
            continue
        msg = compare(case)
        stats["mismatch" if msg else "agree"] += 1
        if msg:
            bad.append((k, case, msg))
    return stats, bad


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=10000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--show", type=int, default=40)
    ns = p.parse_args(argv)
    stats, bad = run(ns.n, ns.seed)
    by_op = collections.Counter(c.op for _, c, _ in bad)
    print(dict(stats), "mismatches by op:", dict(by_op.most_common()))
    seen = collections.Counter()
    for k, case, msg in bad:
        key = (case.op, msg.split(":")[0])
        seen[key] += 1
        if seen[key] <= 2 and sum(seen.values()) <= ns.show * 4:
            print(f"#{k} {case}\n    {msg}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
