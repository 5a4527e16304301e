"""A small job that goes wrong on purpose: ``python failures.py MODE`` on N ranks (mpiexec or
numtorch.distributed.run). Every rank prints its torchrun environment as one JSON line first.

MODE: ``ok``; ``raise`` (rank 1 raises ValueError); ``shape`` (the last rank all-reduces a tensor of
another shape; ``ashape``: the same with async_op=True); ``order`` (rank 1 broadcasts while the
others all-reduce); ``hang`` (rank 1 sleeps; timeout 3 s); ``kill`` (rank 1 kills itself with
SIGKILL); ``exit`` (rank 1 calls sys.exit(3)); ``exit0`` (rank 1 ends with sys.exit(0), without the
second collective).
With ``--torch`` it imports ``torch`` (to run under numtorch.alias) instead of ``numtorch``."""
import datetime
import json
import os
import signal
import sys
import time

if "--torch" in sys.argv:
    import torch
    import torch.distributed as dist
else:
    import numtorch as torch
    import numtorch.distributed as dist

mode = sys.argv[1]
env = {k: os.environ.get(k) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                                      "MASTER_PORT", "GROUP_RANK", "TORCHELASTIC_RUN_ID")}
print("ENV " + json.dumps(env) + " ARGS " + json.dumps(sys.argv[2:]), flush=True)
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=3 if mode == "hang" else 30))
rank, n = dist.get_rank(), dist.get_world_size()
assert (rank, n) == (int(env["RANK"]), int(env["WORLD_SIZE"]))
t = torch.ones(2)
dist.all_reduce(t)  # one good collective first
if rank == 1 and mode == "raise":
    raise ValueError("boom on purpose")
if rank == 1 and mode == "exit":
    sys.exit(3)
if rank == 1 and mode == "exit0":
    sys.exit(0)
if rank == 1 and mode == "hang":
    time.sleep(60)
if rank == 1 and mode == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
if rank == n - 1 and mode in ("shape", "ashape"):
    t = torch.ones(3)
if rank == 1 and mode == "order":
    dist.broadcast(t, src=0)
elif mode == "ashape":
    work = dist.all_reduce(t, async_op=True)  # the transfer starts; the check comes at wait()
    work.wait()
else:
    dist.all_reduce(t)
print(f"DONE rank {rank} {t.tolist()} {torch.__name__}", flush=True)
dist.destroy_process_group()
