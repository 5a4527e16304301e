"""Data-parallel training throughput of the GPT workload (numtorch DDP on MPI), 1 and 2 processes.

    python benchmarks/distributed_gpt.py                 # 1 and 2 processes, a table and a JSON line
    python benchmarks/distributed_gpt.py --procs 1,2,4 --steps 8 --batch 12

Each process runs with one BLAS thread and trains ``numtorch.examples.gpt``'s default model (nanoGPT's
CPU configuration: 4 layers, 4 heads, 128 wide, block 64, vocab 65) with AdamW on ``--batch`` sequences
per rank (weak scaling: p ranks process p times the tokens of one). Per step it records the wall time,
and the time DistributedDataParallel's reducer spends inside all-reduce calls (launching each bucket
and waiting for it at the end of backward: the communication that backward did not hide). After
training, it times a standalone all-reduce of the whole gradient (all buckets' bytes) to give the
pure communication cost on this machine. ``docs/distributed.md`` turns these numbers into the ring
all-reduce cost model for 2, 8 and 64 ranks on a 10 Gbit/s network.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def worker(args):
    import numtorch as torch
    import numtorch.distributed as dist
    from numtorch.distributed import _ddp
    from numtorch.examples.gpt import GPT, GPTConfig

    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    comm = {"t": 0.0}
    real_all_reduce = _ddp._api.all_reduce

    class Timed:  # a Work handle whose wait() is counted as all-reduce time
        def __init__(self, work):
            self.work = work

        def wait(self, *a):
            t0 = time.perf_counter()
            r = self.work.wait(*a)
            comm["t"] += time.perf_counter() - t0
            return r

    def timed_all_reduce(t, *a, **kw):
        t0 = time.perf_counter()
        w = real_all_reduce(t, *a, **kw)
        comm["t"] += time.perf_counter() - t0
        return Timed(w) if kw.get("async_op") else w
    _ddp._api.all_reduce = staticmethod(timed_all_reduce)

    torch.manual_seed(1337)
    model = torch.nn.parallel.DistributedDataParallel(GPT(GPTConfig()))
    opt = model.module.configure_optimizers(0.1, 1e-3, (0.9, 0.99))
    rng = np.random.default_rng(rank)
    steps, comms = [], []
    for i in range(args.warmup + args.steps):
        x = torch.tensor(rng.integers(0, 65, (args.batch, 64)))
        y = torch.tensor(rng.integers(0, 65, (args.batch, 64)))
        dist.barrier()
        comm["t"] = 0.0
        t0 = time.perf_counter()
        _, loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        dt = time.perf_counter() - t0
        if i >= args.warmup:
            steps.append(dt)
            comms.append(comm["t"])
    buckets = [int(b.flat._data.nbytes) for b in model.reducer.buckets]
    flat = torch.zeros(sum(buckets) // 4)
    pure = []
    for _ in range(5):
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(flat)
        pure.append(time.perf_counter() - t0)
    # every rank's medians; the slowest rank sets the pace
    mine = [float(np.median(steps)), float(np.median(comms)), float(np.median(pure))]
    everyone = [None] * world
    dist.all_gather_object(everyone, mine)
    if rank == 0:
        step, comm_t, pure_t = (max(r[k] for r in everyone) for k in range(3))
        print("RESULT " + json.dumps({"procs": world, "batch_per_rank": args.batch, "step_s": step,
                                      "allreduce_in_step_s": comm_t, "allreduce_standalone_s": pure_t,
                                      "tokens_per_s": world * args.batch * 64 / step, "bucket_bytes": buckets,
                                      "params": sum(p.numel() for p in model.parameters())}), flush=True)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", default="1,2")
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--batch", type=int, default=12)
    ap.add_argument("--worker", action="store_true")
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    rows = []
    for p in [int(x) for x in args.procs.split(",")]:
        cmd = [sys.executable, "-m", "numtorch.distributed.run", "--standalone", f"--nproc_per_node={p}", __file__,
               "--worker", "--steps", str(args.steps), "--warmup", str(args.warmup), "--batch", str(args.batch)]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
        line = [ln for ln in out.stdout.splitlines() if ln.startswith("RESULT ")]
        if out.returncode or not line:
            sys.exit(f"{p} processes failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")
        rows.append(json.loads(line[0][len("RESULT "):]))
    base = rows[0]["tokens_per_s"] / rows[0]["procs"]
    print(f"{'procs':>5} {'batch/rank':>10} {'step ms':>8} {'tokens/s':>9} {'scaling':>8} {'allreduce ms/step':>18} "
          f"{'standalone allreduce ms':>24} {'grad MB':>8}")
    for r in rows:
        print(f"{r['procs']:>5} {r['batch_per_rank']:>10} {1e3 * r['step_s']:>8.1f} {r['tokens_per_s']:>9.0f} "
              f"{r['tokens_per_s'] / (base * r['procs']):>8.2f} {1e3 * r['allreduce_in_step_s']:>18.2f} "
              f"{1e3 * r['allreduce_standalone_s']:>24.2f} {sum(r['bucket_bytes']) / 2**20:>8.2f}")
    print("JSON " + json.dumps(rows))


if __name__ == "__main__":
    main()
