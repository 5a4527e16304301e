"""Run numtorch and PyTorch side by side on the same workloads and print time ratios.

Usage::

    python benchmarks/run.py                 # all workloads, table
    python benchmarks/run.py --json out.json # also write JSON
    python benchmarks/run.py --only makemore_mlp,gpt_tiny
    python benchmarks/run.py --quick         # a few steps each: checks the suite runs (used by the tests)

Measurements alternate between the frameworks in pairs (numtorch, torch, torch, numtorch, ...);
each measurement times a batch of steps and divides. The ratio numtorch/PyTorch is taken within
each pair; we report the median time per step of each framework and min/median/max of the ratios.
Ratios below 1 mean numtorch is faster.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W  # noqa: E402


def _time(step, k):
    t0 = time.perf_counter()
    for _ in range(k):
        step()
    return (time.perf_counter() - t0) / k


def _calibrate(step, target=0.05):
    t = _time(step, 1)
    return max(1, min(2000, int(target / max(t, 1e-7))))


def compare(name, nt_step, pt_step, pairs, unit_scale=1e3, unit="ms", per=1):
    for _ in range(3):  # warm up both
        nt_step()
        pt_step()
    k_nt, k_pt = _calibrate(nt_step), _calibrate(pt_step)
    nts, pts, ratios = [], [], []
    for i in range(pairs):
        if i % 2 == 0:
            a = _time(nt_step, k_nt)
            b = _time(pt_step, k_pt)
        else:
            b = _time(pt_step, k_pt)
            a = _time(nt_step, k_nt)
        nts.append(a / per)
        pts.append(b / per)
        ratios.append(a / b)
    return {"workload": name, "unit": unit, "numtorch": statistics.median(nts) * unit_scale,
            "torch": statistics.median(pts) * unit_scale, "ratio_median": statistics.median(ratios),
            "ratio_min": min(ratios), "ratio_max": max(ratios), "pairs": pairs}


def run_workloads(only, pairs):
    import torch

    import numtorch
    torch.manual_seed(0)
    data = W.make_data()
    results = []

    def want(n):
        return not only or n in only

    if want("op_overhead"):
        results.append(compare("op_overhead", W.make_op_overhead(numtorch, data), W.make_op_overhead(torch, data),
                               pairs, 1e6, "us/op", per=W.N_OPS))
    for name, build, make in (("makemore_mlp", W.build_makemore, W.make_makemore_mlp),
                              ("mnist_mlp", W.build_mnist_mlp, W.make_mnist_mlp),
                              ("small_cnn", W.build_small_cnn, W.make_small_cnn),
                              ("gpt_tiny", W.build_gpt, W.make_gpt_tiny)):
        if not want(name):
            continue
        pm, nm = build(torch), build(numtorch)
        W.sync_weights(pm, nm, numtorch)
        results.append(compare(name, make(numtorch, data, nm), make(torch, data, pm), pairs))
    if want("gpt_inference"):
        pm, nm = W.build_gpt(torch), W.build_gpt(numtorch)
        W.sync_weights(pm, nm, numtorch)
        for b in (1, 12):
            results.append(compare(f"gpt_inference_b{b}", W.make_gpt_inference(numtorch, data, nm, b),
                                   W.make_gpt_inference(torch, data, pm, b), pairs))
    if want("matmul"):
        results.append(bench_matmul(torch, numtorch, pairs))
    if want("startup"):
        results.append(bench_startup(max(3, pairs // 2)))
    return results


def bench_matmul(torch, numtorch, pairs, n=1024):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32)
    ta, tb = numtorch.from_numpy(a), numtorch.from_numpy(b)
    pa, pb = torch.from_numpy(a), torch.from_numpy(b)
    flop = 2 * n ** 3
    r = compare("matmul", lambda: ta @ tb, lambda: pa @ pb, pairs)
    k = _calibrate(lambda: a @ b)
    t_np = statistics.median(_time(lambda: a @ b, k) for _ in range(pairs))
    r.update(unit="GFLOP/s", numtorch=flop / (r["numtorch"] / 1e3) / 1e9, torch=flop / (r["torch"] / 1e3) / 1e9,
             numpy=flop / t_np / 1e9)
    r["numtorch_vs_numpy"] = r["numtorch"] / r["numpy"]
    return r


_STARTUP_CODE = """
import time
t = time.perf_counter()
import {m}
dt = time.perf_counter() - t
rss = 0
with open("/proc/self/status") as fh:  # peak RSS of this process alone (ru_maxrss survives exec)
    for line in fh:
        if line.startswith("VmHWM:"):
            rss = int(line.split()[1]) / 1024
print(dt, rss)
"""


def bench_startup(reps):
    """``python -c "import numtorch"`` vs ``python -c "import torch"``: wall time of the whole process
    (interpreter start included) and its peak RSS, alternating. Bytecode caching is on (in a private
    cache directory), as in a normal install, and one warm-up run of each fills that cache."""
    import tempfile
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "numtorch-bench-pycache")
    out = {"numtorch": [], "torch": []}
    rss = {"numtorch": [], "torch": []}
    imp = {"numtorch": [], "torch": []}

    def once(m):
        t0 = time.perf_counter()
        res = subprocess.run([sys.executable, "-c", _STARTUP_CODE.format(m=m)], capture_output=True, text=True,
                             check=True, env=env)
        wall = time.perf_counter() - t0
        dt, peak = (float(v) for v in res.stdout.split())
        return wall, dt, peak

    once("numtorch"), once("torch")  # warm the bytecode cache
    ratios = []
    for i in range(reps):
        pair = {}
        for m in (("numtorch", "torch") if i % 2 == 0 else ("torch", "numtorch")):
            wall, dt, peak = once(m)
            out[m].append(wall)
            imp[m].append(dt)
            rss[m].append(peak)
            pair[m] = wall
        ratios.append(pair["numtorch"] / pair["torch"])
    nt, pt = statistics.median(out["numtorch"]), statistics.median(out["torch"])
    rn, rt = statistics.median(rss["numtorch"]), statistics.median(rss["torch"])
    return {"workload": "startup", "unit": "s", "numtorch": nt, "torch": pt,
            "ratio_median": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
            "import_s_numtorch": statistics.median(imp["numtorch"]), "import_s_torch": statistics.median(imp["torch"]),
            "rss_mib_numtorch": rn, "rss_mib_torch": rt, "rss_ratio": rn / rt, "pairs": reps}


def environment():
    import torch
    info = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
            "numpy": np.__version__, "torch": torch.__version__, "torch_threads": torch.get_num_threads()}
    try:
        from threadpoolctl import threadpool_info
        blas = [p for p in threadpool_info() if p.get("user_api") == "blas"]
        info["numpy_blas"] = ", ".join(f"{p['internal_api']} {p.get('version')} ({p['num_threads']} threads)"
                                       for p in blas if "numpy" in p.get("filepath", "") or len(blas) == 1) or \
            ", ".join(f"{p['internal_api']} ({p['num_threads']} threads)" for p in blas)
    except ImportError:
        info["numpy_blas"] = "unknown (install threadpoolctl)"
    info["OPENBLAS_CORETYPE"] = os.environ.get("OPENBLAS_CORETYPE", "")
    return info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="2 pairs per workload: checks the suite runs")
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--only", default="", help="comma-separated workload names")
    ap.add_argument("--json", default=None, help="write results as JSON to this path ('-' for stdout)")
    args = ap.parse_args(argv)
    pairs = 2 if args.quick else args.pairs
    only = {s for s in args.only.split(",") if s}
    env = environment()
    print(f"# numtorch vs PyTorch {env['torch']} | Python {env['python']} | NumPy {env['numpy']} "
          f"BLAS: {env['numpy_blas']} | torch threads: {env['torch_threads']} | cores: {env['cpus']}")
    results = run_workloads(only, pairs)
    print(f"{'workload':<20}{'unit':>9}{'numtorch':>12}{'PyTorch':>12}{'ratio':>8}{'min':>7}{'max':>7}")
    for r in results:
        print(f"{r['workload']:<20}{r['unit']:>9}{r['numtorch']:>12.4g}{r['torch']:>12.4g}{r['ratio_median']:>8.2f}"
              f"{r['ratio_min']:>7.2f}{r['ratio_max']:>7.2f}")
        if "numpy" in r:
            print(f"{'  (raw NumPy)':<20}{'GFLOP/s':>9}{r['numpy']:>12.4g}{'':>12}{r['numtorch_vs_numpy']:>8.2f}"
                  "  numtorch/NumPy")
        if "rss_mib_numtorch" in r:
            print(f"{'  (peak RSS)':<20}{'MiB':>9}{r['rss_mib_numtorch']:>12.4g}{r['rss_mib_torch']:>12.4g}"
                  f"{r['rss_ratio']:>8.2f}")
    print("(for matmul the ratio column is time numtorch/PyTorch; GFLOP/s columns: higher is better)")
    if args.json:
        payload = json.dumps({"environment": env, "results": results}, indent=2)
        if args.json == "-":
            print(payload)
        else:
            with open(args.json, "w") as fh:
                fh.write(payload)
    return results


if __name__ == "__main__":
    main()
