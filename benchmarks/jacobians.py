"""Jacobians by reverse mode: ``jacrev`` of a 64 -> 64 -> 64 tanh MLP, and ``vmap(jacrev)`` over 16 inputs.

numtorch computes ``jacrev(f)(x)`` as PyTorch does, ``vmap(vjp_fn)(basis)``: ONE backward pass with a
batched cotangent (64 rows at once, ``func/_batched_backward.py``). ``numtorch_loop`` is the previous
way, one backward per row (``_seams._batched``), kept here for the before/after comparison. Each
framework runs in its own process, one thread; the processes alternate (numtorch, loop, torch) for
``--rounds`` rounds and the medians over rounds are printed.

    python benchmarks/jacobians.py [--reps 7] [--rounds 3]
"""
import json
import sys

import numpy as np

from per_sample_grads import _time, run_worker  # the timing loop and the one-thread worker process

D = 64
B = 16


def _data():
    rng = np.random.default_rng(0)
    w1, w2 = (rng.standard_normal((D, D)).astype(np.float32) / 8 for _ in range(2))
    b1, b2 = (rng.standard_normal(D).astype(np.float32) / 8 for _ in range(2))
    return (w1, b1, w2, b2), rng.standard_normal(D).astype(np.float32), rng.standard_normal((B, D)).astype(np.float32)


def _mlp(lib, params):
    w1, b1, w2, b2 = (lib.tensor(p) for p in params)
    return lambda x: lib.tanh(w2 @ lib.tanh(w1 @ x + b1) + b2)


def worker(which, reps):
    params, x, xs = _data()
    if which == "torch":
        import torch as lib
        lib.set_num_threads(1)
    else:
        import numtorch as lib
        if which == "loop":  # the row-by-row Jacobian numtorch had before the batched backward
            from numtorch.func import _seams
            _seams.vmap = lambda fn, chunk_size=None: lambda *basis: _seams._batched(fn, basis)
    f = _mlp(lib, params)
    xt, xst = lib.tensor(x), lib.tensor(xs)
    jac, vjac = lib.func.jacrev(f), lib.func.vmap(lib.func.jacrev(f))
    return {f"{which}_jacrev": _time(lambda: jac(xt), reps), f"{which}_vmap_jacrev": _time(lambda: vjac(xst), reps)}


def main():
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 7
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    if "--worker" in sys.argv:
        print(json.dumps(worker(sys.argv[sys.argv.index("--worker") + 1], reps)))
        return
    runs = {}
    for _ in range(rounds):
        for which in ("numtorch", "loop", "torch"):
            for k, v in run_worker(__file__, which, reps).items():
                runs.setdefault(k, []).append(v)
    res = {k: float(np.median(v)) for k, v in runs.items()}
    for k, v in res.items():
        print(f"{k:22s} {v:9.2f} ms   (rounds: {', '.join(f'{x:.2f}' for x in runs[k])})")
    for case in ("jacrev", "vmap_jacrev"):
        print(f"{case:12s} loop / batched: {res[f'loop_{case}'] / res[f'numtorch_{case}']:.2f}x   "
              f"numtorch / torch: {res[f'numtorch_{case}'] / res[f'torch_{case}']:.2f}x")


if __name__ == "__main__":
    main()
