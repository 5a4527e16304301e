"""Per-sample gradients of a small CNN, batch 64 (issue #14, item 3).

Three ways to get the 64 gradients of a loss w.r.t. the CNN's parameters, one per sample:
numtorch ``vmap(grad(loss))``, PyTorch ``torch.func.vmap(torch.func.grad(loss))``, and a numtorch loop
of 64 backward passes. Prints medians (ms) and the ratios (targets: loop/vmap >= 5, vmap/torch <= 1.5).
Each framework runs in its own process (see README.md: shared thread pools distort both), one thread.

    python benchmarks/per_sample_grads.py [--reps 7]
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

B = 64
SHAPES = [(8, 1, 3, 3), (8,), (10, 8 * 14 * 14), (10,)]


def _data():
    rng = np.random.default_rng(0)
    params = [rng.standard_normal(s).astype(np.float32) * 0.1 for s in SHAPES]
    x = rng.standard_normal((B, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, B)
    return params, x, y


def _loss(torch, F):
    def loss(params, x, y):  # one sample: x (1, 28, 28), y a class index ()
        w1, b1, w2, b2 = params
        h = F.max_pool2d(F.relu(F.conv2d(x.unsqueeze(0), w1, b1, padding=1)), 2).flatten(1)
        return F.cross_entropy(F.linear(h, w2, b2), y.unsqueeze(0))
    return loss


def _numtorch_grad(f):
    """grad of ``f`` w.r.t. its first argument (a tuple of tensors), per sample inside vmap: the
    lifting and physical-gradient seams that ``numtorch.func.grad`` uses under vmap."""
    from numtorch import autograd
    from numtorch.func._batched import lift_inputs, physical_grad

    def g(params, *rest):
        (lifted,) = lift_inputs((tuple(p.detach().requires_grad_(True) for p in params),))
        return physical_grad(autograd.grad, [f(lifted, *rest)], list(lifted))
    return g


def _time(fn, reps):
    fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts)) * 1e3


def worker(which, reps):
    params, x, y = _data()
    if which == "torch":
        import torch
        import torch.nn.functional as F
        torch.set_num_threads(1)
        ps, xt, yt = tuple(torch.tensor(p) for p in params), torch.tensor(x), torch.tensor(y)
        f = torch.func.vmap(torch.func.grad(_loss(torch, F)), in_dims=(None, 0, 0))
        return {"torch_vmap": _time(lambda: f(ps, xt, yt), reps)}
    import numtorch as nt
    import numtorch.nn.functional as F
    from numtorch.func import vmap
    ps, xt, yt = tuple(nt.tensor(p) for p in params), nt.tensor(x), nt.tensor(y)
    loss = _loss(nt, F)
    f = vmap(_numtorch_grad(loss), in_dims=(None, 0, 0))

    def loop():
        out = []
        for i in range(B):
            leaves = [p.detach().requires_grad_(True) for p in ps]
            loss(leaves, xt[i], yt[i]).backward()
            out.append([p.grad for p in leaves])
        return out
    return {"numtorch_vmap": _time(lambda: f(ps, xt, yt), reps), "numtorch_loop": _time(loop, max(2, reps // 3))}


def run_worker(script, which, reps):
    """``script --worker which`` in a fresh one-thread process; its timings (the JSON it prints last)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run([sys.executable, script, "--worker", which, "--reps", str(reps)], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 7
    if "--worker" in sys.argv:
        print(json.dumps(worker(sys.argv[sys.argv.index("--worker") + 1], reps)))
        return
    res = {}
    for which in ("numtorch", "torch"):
        res.update(run_worker(__file__, which, reps))
    for k, v in res.items():
        print(f"{k:15s} {v:9.2f} ms")
    print(f"loop / numtorch vmap : {res['numtorch_loop'] / res['numtorch_vmap']:.2f}x (target >= 5)")
    print(f"numtorch vmap / torch: {res['numtorch_vmap'] / res['torch_vmap']:.2f}x (target <= 1.5)")


if __name__ == "__main__":
    main()
