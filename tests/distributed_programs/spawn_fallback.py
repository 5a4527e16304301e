"""``numtorch.multiprocessing.spawn`` with ``NUMTORCH_SPAWN=multiprocessing`` (the start used without MPI):
the workers are Python multiprocessing processes; a world of 2 cannot form and each raises the
RuntimeError that says how to start the program.

    python spawn_fallback.py PORT
"""
import os
import sys

import numtorch
import numtorch.distributed as dist
import numtorch.multiprocessing as mp


def worker(rank, tag):
    sys.stdout.write(f"CHILD {rank} {tag} {numtorch.__name__}\n")
    sys.stdout.flush()
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=2)


if __name__ == "__main__":
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[1])
    try:
        mp.spawn(worker, args=("x",), nprocs=2)
    except mp.ProcessRaisedException as e:
        print(f"PARENT ProcessRaisedException index={e.error_index} pid_is_int={isinstance(e.error_pid, int)}")
        print("MESSAGE-BEGIN" + str(e) + "MESSAGE-END", flush=True)
