"""Conv2d forward+backward: numtorch versus PyTorch in one process (median of repeated steps).

Run ``python benchmarks/conv_bench.py``. Each case builds the same input, weight and bias in both
libraries, runs ``conv2d`` forward and a backward with a fixed output gradient (input, weight and
bias gradients), and prints the median step time of each and the ratio numtorch/PyTorch.
"""
from __future__ import annotations

import statistics
import time

import numpy as np
import torch

import numtorch as nt
import numtorch.nn.functional as F

CASES = [  # (batch, C_in, C_out, H=W, kernel, padding, stride)
    (64, 1, 8, 28, 3, 1, 1),
    (64, 8, 16, 28, 3, 1, 1),
    (64, 16, 32, 14, 3, 1, 2),
]


def _median_time(step, repeats):
    step()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench(n, cin, cout, hw, k, pad, stride, repeats=20):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, cin, hw, hw), dtype=np.float32)
    w = rng.standard_normal((cout, cin, k, k), dtype=np.float32) * 0.1
    b = rng.standard_normal(cout, dtype=np.float32)
    hout = (hw + 2 * pad - k) // stride + 1
    g = rng.standard_normal((n, cout, hout, hout), dtype=np.float32)

    xs, ws, bs = (nt.tensor(a, requires_grad=True) for a in (x, w, b))
    gn = nt.tensor(g)

    def step_nt():
        xs.grad = ws.grad = bs.grad = None
        F.conv2d(xs, ws, bs, stride=stride, padding=pad).backward(gn)

    xt, wt, bt = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    gt = torch.tensor(g)

    def step_torch():
        xt.grad = wt.grad = bt.grad = None
        torch.nn.functional.conv2d(xt, wt, bt, stride=stride, padding=pad).backward(gt)

    t_nt, t_ref = _median_time(step_nt, repeats), _median_time(step_torch, repeats)
    print(f"Conv2d fwd+bwd N={n} {cin}->{cout} {hw}x{hw} k={k} p={pad} s={stride}: numtorch {t_nt * 1e3:7.2f} ms  "
          f"torch {t_ref * 1e3:7.2f} ms  ratio {t_nt / t_ref:5.2f}x")


if __name__ == "__main__":
    print(f"torch threads: {torch.get_num_threads()}")
    for case in CASES:
        bench(*case)
