"""Run numtorch and PyTorch side by side on the same workloads and print time ratios.

Usage::

    python benchmarks/run.py                       # every workload, as a table
    python benchmarks/run.py --json out.json       # also write the results as JSON ('-': stdout)
    python benchmarks/run.py --only makemore_mlp,gpt_tiny
    python benchmarks/run.py --threads 1           # pin both frameworks to one thread
    python benchmarks/run.py --quick               # 2 short pairs each: checks the suite runs (tests use it)

Each framework runs in its own worker process (as users run them: no shared allocator settings or
thread pools), driven from this one; measurements alternate between the two in pairs (numtorch
then PyTorch, then PyTorch then numtorch, ...), each timing a batch of steps (about ``--target``
seconds) and dividing. The ratio numtorch/PyTorch is taken within each pair, so a slow moment of a
shared machine hits both sides of a ratio; we report each framework's median time per step and the
min/median/max of the per-pair ratios. Ratios below 1 mean numtorch is faster. See
benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workloads as W  # noqa: E402

WORKLOADS = ("op_overhead", "makemore_mlp", "mnist_mlp", "small_cnn", "gpt_tiny", "gpt_inference", "matmul",
             "startup")


# ------------------------------------------------------------------------------------------------
# timing
# ------------------------------------------------------------------------------------------------
def _time(step, k):
    t0 = time.perf_counter()
    for _ in range(k):
        step()
    return (time.perf_counter() - t0) / k


def _calibrate(step, target):
    """How many steps make one measurement of about ``target`` seconds (at least 1)."""
    t = min(_time(step, 1), _time(step, 1))
    return max(1, min(5000, int(target / max(t, 1e-7))))


class Worker:
    """One framework in its own process, answering JSON commands on stdin/stdout (see ``worker_main``)."""

    def __init__(self, framework, threads=None):
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", framework]
        if threads:
            cmd += ["--threads", str(threads)]
        self.framework = framework
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def call(self, **cmd):
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.framework} worker exited (see its stderr above)")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"{self.framework} worker: {reply['error']}")
        return reply

    def close(self):
        if self.proc.poll() is None:
            try:
                self.call(cmd="quit")
            except (RuntimeError, OSError):
                pass
            self.proc.wait(timeout=30)


def worker_main(framework, threads):
    """Serve commands: env; setup(workload, weights_in/weights_out: .npz paths); calibrate(target); time(k); quit."""
    fw = __import__(framework)
    if threads:
        set_threads(fw, threads)
    fw.manual_seed(0)
    data = W.make_data()
    step = None
    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            op = cmd["cmd"]
            if op == "quit":
                print(json.dumps({}), flush=True)
                return
            if op == "env":
                reply = environment(fw)
            elif op == "setup":
                weights = dict(np.load(cmd["weights_in"])) if cmd.get("weights_in") else None
                step, initial = W.make_step(fw, cmd["workload"], data, weights)
                if cmd.get("weights_out") and initial is not None:
                    np.savez(cmd["weights_out"], **initial)
                for _ in range(3):  # warm up: first calls allocate, fill caches, import lazily
                    step()
                reply = {}
            elif op == "calibrate":
                reply = {"k": _calibrate(step, cmd["target"])}
            elif op == "time":
                reply = {"t": _time(step, cmd["k"])}
            else:
                raise ValueError(f"unknown command {op!r}")
        except Exception as e:  # report to the driver instead of dying silently
            reply = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), flush=True)


def compare(name, a, b, pairs, target, unit_scale=1e3, unit="ms", per=1, wa=None, wb=None):
    """Alternating pairs: workload ``wa`` (default ``name``) on worker ``a`` vs ``wb`` on worker ``b``.

    ``b`` is set up first and its initial weights are loaded into ``a``, so both compute the same.
    """
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "weights.npz")
        b.call(cmd="setup", workload=wb or name, weights_out=path)
        a.call(cmd="setup", workload=wa or name, weights_in=path if os.path.exists(path) else None)
    ka, kb = a.call(cmd="calibrate", target=target)["k"], b.call(cmd="calibrate", target=target)["k"]
    ta, tb, ratios = [], [], []
    for i in range(pairs):
        if i % 2 == 0:
            x = a.call(cmd="time", k=ka)["t"]
            y = b.call(cmd="time", k=kb)["t"]
        else:
            y = b.call(cmd="time", k=kb)["t"]
            x = a.call(cmd="time", k=ka)["t"]
        ta.append(x / per)
        tb.append(y / per)
        ratios.append(x / y)
    return {"workload": name, "unit": unit, "numtorch": statistics.median(ta) * unit_scale,
            "torch": statistics.median(tb) * unit_scale, "ratio_median": statistics.median(ratios),
            "ratio_min": min(ratios), "ratio_max": max(ratios), "pairs": pairs, "steps_per_measurement": [ka, kb]}


# ------------------------------------------------------------------------------------------------
# workloads
# ------------------------------------------------------------------------------------------------
def run_workloads(only, pairs, target, nt, pt):
    results = []

    def want(n):
        return not only or n in only

    if want("op_overhead"):
        results.append(compare("op_overhead", nt, pt, pairs, target, 1e6, "us/op", per=W.N_OPS))
    for name in ("makemore_mlp", "mnist_mlp", "small_cnn", "gpt_tiny"):
        if want(name):
            results.append(compare(name, nt, pt, pairs, target))
    for b in (1, 12):
        if want("gpt_inference") or want(f"gpt_inference_b{b}"):
            results.append(compare(f"gpt_inference_b{b}", nt, pt, pairs, target))
    if want("matmul"):
        results.append(bench_matmul(nt, pt, pairs, target))
    if want("startup"):
        results.append(bench_startup(max(3, pairs // 2)))
    return results


_NUMPY_GEMM = """
import time, numpy as np
a = np.random.default_rng(0).standard_normal(({n}, {n}), dtype=np.float32); b = a.T.copy()
a @ b
best = min((lambda t: (a @ b, time.perf_counter() - t)[1])(time.perf_counter()) for _ in range(10))
print(2 * {n} ** 3 / best / 1e9)
"""


def bench_matmul(nt, pt, pairs, target):
    """1024^3 float32 GEMM: numtorch vs PyTorch (ratio of times), and numtorch vs raw NumPy in the
    numtorch process, alternating the same way (GFLOP/s)."""
    n = W.MATMUL_N
    flop = 2 * n ** 3
    r = compare("matmul", nt, pt, pairs, target)
    npy = compare("matmul", nt, nt, pairs, target, wa="matmul", wb="matmul_numpy")
    gf = lambda ms: flop / (ms / 1e3) / 1e9  # noqa: E731
    r.update(unit="GFLOP/s", time_ms_numtorch=r["numtorch"], time_ms_torch=r["torch"], numtorch=gf(r["numtorch"]),
             torch=gf(r["torch"]), numpy=gf(npy["torch"]), numtorch_in_numpy_pairs=gf(npy["numtorch"]),
             # GFLOP/s numtorch / NumPy = time NumPy / time numtorch
             numtorch_vs_numpy=1 / npy["ratio_median"], numtorch_vs_numpy_min=1 / npy["ratio_max"],
             numtorch_vs_numpy_max=1 / npy["ratio_min"])
    # These machines may pin OpenBLAS to older kernels through the environment; report the GEMM
    # speed without those variables too (one subprocess; the tests and the rest keep them).
    pinned = [v for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if v in os.environ]
    if pinned:
        env = {k: v for k, v in os.environ.items() if k not in pinned}
        res = subprocess.run([sys.executable, "-c", _NUMPY_GEMM.format(n=n)], capture_output=True, text=True,
                             env=env)
        if res.returncode == 0:
            r["numpy_unpinned"] = float(res.stdout.split()[0])
            r["unpinned_vars"] = pinned
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


def bench_startup(reps, modules=("numtorch", "torch")):
    """``python -c "import numtorch"`` vs ``python -c "import torch"``: wall time of the whole process
    (interpreter start included) and its peak RSS, alternating. Bytecode caching is on (in a private
    cache directory), as in a normal install, and one warm-up run of each fills that cache."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "numtorch-bench-pycache")
    a, b = modules
    out, rss, imp = {a: [], b: []}, {a: [], b: []}, {a: [], b: []}

    def once(m):
        t0 = time.perf_counter()
        res = subprocess.run([sys.executable, "-c", _STARTUP_CODE.format(m=m)], capture_output=True, text=True,
                             check=True, env=env)
        wall = time.perf_counter() - t0
        dt, peak = (float(v) for v in res.stdout.split())
        return wall, dt, peak

    once(a), once(b)  # warm the bytecode cache
    ratios = []
    for i in range(reps):
        pair = {}
        for m in ((a, b) if i % 2 == 0 else (b, a)):
            wall, dt, peak = once(m)
            out[m].append(wall)
            imp[m].append(dt)
            rss[m].append(peak)
            pair[m] = wall
        ratios.append(pair[a] / pair[b])
    nt, pt = statistics.median(out[a]), statistics.median(out[b])
    rn, rt = statistics.median(rss[a]), statistics.median(rss[b])
    return {"workload": "startup", "unit": "s", "numtorch": nt, "torch": pt,
            "ratio_median": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
            "import_s_numtorch": statistics.median(imp[a]), "import_s_torch": statistics.median(imp[b]),
            "rss_mib_numtorch": rn, "rss_mib_torch": rt, "rss_ratio": rn / rt, "pairs": reps}


# ------------------------------------------------------------------------------------------------
# environment and report
# ------------------------------------------------------------------------------------------------
def set_threads(fw, n):
    """Pin the framework's intra-op pool and NumPy's BLAS to ``n`` threads (NumPy's own ufuncs use one)."""
    fw.set_num_threads(n)  # numtorch: NumPy's BLAS pool; PyTorch: its own pool
    try:
        from threadpoolctl import threadpool_limits
        threadpool_limits(n)
    except ImportError:
        print("threadpoolctl is not installed: NumPy's BLAS thread count is left as it is", file=sys.stderr)


def environment(fw):
    """What a worker reports about itself: versions, threads, BLAS."""
    info = {"framework": fw.__name__, "version": fw.__version__, "python": platform.python_version(),
            "numpy": np.__version__, "pid": os.getpid()}
    info["threads"] = fw.get_num_threads()
    try:
        from threadpoolctl import threadpool_info
        pools = threadpool_info()
        blas = [p for p in pools if p.get("user_api") == "blas" and "torch" not in p.get("filepath", "")]
        info["numpy_blas"] = ", ".join(f"{p['internal_api']} {p.get('version')} {p.get('architecture', '')} "
                                       f"({p['num_threads']} threads)" for p in blas) or "unknown"
        info["numpy_blas_threads"] = max((p["num_threads"] for p in blas), default=None)
    except ImportError:
        info["numpy_blas"] = "unknown (install threadpoolctl)"
    return info


def machine():
    info = {"date": time.strftime("%Y-%m-%d %H:%M"), "machine": platform.machine(), "processor": _cpu_name(),
            "cpus": os.cpu_count()}
    try:
        info["load_average"] = os.getloadavg()
    except OSError:
        pass
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OMP_NUM_THREADS"):
        if var in os.environ:
            info[var] = os.environ[var]
    return info


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def print_table(env, results):
    nt, pt, m = env["numtorch"], env["torch"], env["machine"]
    print(f"# numtorch {nt['version']} vs PyTorch {pt['version']} | Python {nt['python']} | NumPy {nt['numpy']} "
          f"BLAS: {nt['numpy_blas']}")
    print(f"# {m['processor']}, {m['cpus']} cores; threads: PyTorch {pt['threads']}, NumPy BLAS "
          f"{nt.get('numpy_blas_threads')} (NumPy's elementwise kernels are single-threaded); each framework in "
          f"its own process" + (f"; load average {m['load_average'][0]:.1f}" if "load_average" in m else ""))
    print(f"{'workload':<20}{'unit':>9}{'numtorch':>12}{'PyTorch':>12}{'ratio':>8}{'min':>7}{'max':>7}")
    for r in results:
        print(f"{r['workload']:<20}{r['unit']:>9}{r['numtorch']:>12.4g}{r['torch']:>12.4g}{r['ratio_median']:>8.2f}"
              f"{r['ratio_min']:>7.2f}{r['ratio_max']:>7.2f}")
        if "numpy" in r:
            print(f"{'  vs raw NumPy GEMM':<20}{'GFLOP/s':>9}{r['numtorch_in_numpy_pairs']:>12.4g}{r['numpy']:>12.4g}"
                  f"{r['numtorch_vs_numpy']:>8.2f}{r['numtorch_vs_numpy_min']:>7.2f}{r['numtorch_vs_numpy_max']:>7.2f}"
                  "  (numtorch, NumPy; ratio of GFLOP/s numtorch/NumPy)")
        if "numpy_unpinned" in r:
            print(f"{'  NumPy, unpinned':<20}{'GFLOP/s':>9}{r['numpy_unpinned']:>12.4g}  "
                  f"(without {' and '.join(r['unpinned_vars'])})")
        if "rss_mib_numtorch" in r:
            print(f"{'  peak RSS':<20}{'MiB':>9}{r['rss_mib_numtorch']:>12.4g}{r['rss_mib_torch']:>12.4g}"
                  f"{r['rss_ratio']:>8.2f}")
    if any(r["workload"] == "matmul" for r in results):
        print("(matmul: GFLOP/s columns, higher is better; its ratio columns are time numtorch/PyTorch)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="2 short pairs per workload: checks the suite runs")
    ap.add_argument("--pairs", type=int, default=10, help="measurement pairs per workload (default 10)")
    ap.add_argument("--target", type=float, default=0.1, help="seconds per measurement (default 0.1)")
    ap.add_argument("--threads", type=int, default=None, help="pin both frameworks to this many threads")
    ap.add_argument("--only", default="", help=f"comma-separated workloads from: {', '.join(WORKLOADS)} "
                                               "(or gpt_inference_b1 / gpt_inference_b12)")
    ap.add_argument("--json", default=None, help="write results as JSON to this path ('-' for stdout)")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)  # internal: serve one framework
    args = ap.parse_args(argv)
    if args.worker:
        return worker_main(args.worker, args.threads)
    pairs, target = (2, 0.005) if args.quick else (args.pairs, args.target)
    only = {s for s in args.only.split(",") if s}
    unknown = only - set(WORKLOADS) - {"gpt_inference_b1", "gpt_inference_b12"}
    if unknown:
        ap.error(f"unknown workload(s): {', '.join(sorted(unknown))}")
    # Without --threads PyTorch keeps its default count and numtorch is pinned to the same count:
    # numtorch's own default takes fewer threads when the load average is high, which would make
    # the two sides' thread counts differ from run to run.
    pt = Worker("torch", args.threads)
    nt = None
    try:
        env = {"machine": machine(), "torch": pt.call(cmd="env")}
        nt = Worker("numtorch", args.threads or env["torch"]["threads"])
        env["numtorch"] = nt.call(cmd="env")
        results = run_workloads(only, pairs, target, nt, pt)
    finally:
        if nt is not None:
            nt.close()
        pt.close()
    print_table(env, results)
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
