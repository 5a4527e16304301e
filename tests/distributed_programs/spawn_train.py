"""A program written for PyTorch that starts its own workers with ``torch.multiprocessing.spawn``.

Run with real torch (gloo) and with ``python -m numtorch.alias``; the test compares what they print.

    python spawn_train.py MODE PORT     MODE: env | tcp | raise | exit | kill
"""
import os
import signal
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

WORLD = 2


def show(tag, rank, values):
    # one write per line: the workers share the parent's stdout, and print's two writes may interleave
    sys.stdout.write(f"{tag} rank={rank} " + " ".join(f"{v:.6g}" for v in values) + "\n")
    sys.stdout.flush()


def worker(rank, mode, port):
    init = f"tcp://127.0.0.1:{port}" if mode == "tcp" else "env://"
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=WORLD)
    show("WORLD", rank, [dist.get_rank(), dist.get_world_size()])
    x = torch.tensor([rank + 1.0, 10.0 * rank, -2.0])
    dist.all_reduce(x)
    show("ALLREDUCE", rank, x.tolist())
    if mode == "raise" and rank == 1:
        raise ValueError("boom in worker 1")
    if mode == "exit" and rank == 1:
        sys.exit(3)
    if mode == "kill" and rank == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    # a tiny linear model, the same weights everywhere, each rank its own data; gradients averaged
    model = torch.nn.Linear(3, 2)
    with torch.no_grad():
        model.weight.copy_(torch.arange(6.0).reshape(2, 3) / 10)
        model.bias.copy_(torch.tensor([0.1, -0.1]))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.arange(12.0).reshape(4, 3) / 7 * (rank + 1)
    target = torch.arange(8.0).reshape(4, 2) / 5 - rank
    for step in range(2):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(data), target)
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= WORLD
        opt.step()
        total = loss.detach().clone()
        dist.all_reduce(total)
        show(f"LOSS{step}", rank, [loss.item(), total.item()])
    show("WEIGHT", rank, model.weight.flatten().tolist() + model.bias.tolist())
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    mode, port = sys.argv[1], int(sys.argv[2])
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    try:
        mp.spawn(worker, args=(mode, port + 1), nprocs=WORLD, join=True)
    except mp.ProcessRaisedException as e:
        print(f"PARENT ProcessRaisedException index={e.error_index} pid_is_int={isinstance(e.error_pid, int)}")
        print("MESSAGE-BEGIN" + str(e) + "MESSAGE-END", flush=True)
        sys.exit(0)
    except mp.ProcessExitedException as e:
        print(f"PARENT ProcessExitedException index={e.error_index} code={e.exit_code} signal={e.signal_name} "
              f"msg={e}", flush=True)
        sys.exit(0)
    print("PARENT DONE", flush=True)
