"""Data-parallel training programs run by tests/test_distributed_ddp.py, the same source on both
libraries: ``python ddp_programs.py LIB OUT [--single WORLD]``.

* Under ``torchrun`` (LIB=torch, the oracle: gloo backend) or numtorch's launcher (LIB=numtorch,
  MPI) each rank trains with DistributedDataParallel on its DistributedSampler shard.
* With ``--single WORLD`` one process trains on the full batch that WORLD ranks would see together
  (the concatenation of their shards), without DistributedDataParallel.

Each program writes ``OUT/<program>_rank<r>.npz``: ``loss`` (this rank's loss per step; the full
batch's in --single) and the final ``state_dict`` arrays (``sd.<key>``), plus program-specific extras.
Every rank starts from different initial weights (seeded by rank), so matching numbers also show that
DDP broadcast rank 0's weights.
"""
import importlib
import os
import sys

import numpy as np

LIB, OUT = sys.argv[1], sys.argv[2]
SINGLE = int(sys.argv[sys.argv.index("--single") + 1]) if "--single" in sys.argv else 0
ONLY = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
torch = importlib.import_module("torch" if LIB == "torch" else "numtorch")
nn, F = torch.nn, torch.nn.functional
dist = torch.distributed
torch.set_num_threads(1)

if SINGLE:
    RANK, WORLD = 0, SINGLE
else:
    dist.init_process_group("gloo")
    RANK, WORLD = dist.get_rank(), dist.get_world_size()
DDP = torch.nn.parallel.DistributedDataParallel


def shard(n, step, rank=None):
    """This rank's sample indices for ``step`` (DistributedSampler, shuffled by epoch=step); in --single,
    every rank's shard concatenated in rank order."""
    Sampler = torch.utils.data.DistributedSampler
    ranks = range(WORLD) if SINGLE else [RANK if rank is None else rank]
    out = []
    for r in ranks:
        s = Sampler(range(n), num_replicas=WORLD, rank=r, shuffle=True, seed=7)
        s.set_epoch(step)
        out += list(s)
    return out


def data(n, d, classes, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)).astype(np.float32), rng.integers(0, classes, n)


def mlp(extra=False):
    layers = [nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 3)]
    if extra:
        layers.insert(1, nn.BatchNorm1d(32))
    return nn.Sequential(*layers)


def wrap(model, **kw):
    return model if SINGLE else DDP(model, **kw)


def save(name, losses, model, **extra):
    sd = {f"sd.{k}": v.detach().numpy() for k, v in model.state_dict().items()}
    np.savez(os.path.join(OUT, f"{name}_rank{RANK}.npz"), loss=np.array(losses), **sd, **extra)


def prog_mlp():
    """SGD with momentum, 4 steps, small buckets (several all-reduces per step)."""
    X, y = data(23, 6, 3, 0)
    torch.manual_seed(100 + RANK)
    model = wrap(mlp(), bucket_cap_mb=0.002)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for step in range(4):
        idx = shard(len(X), step)
        loss = F.cross_entropy(model(torch.tensor(X[idx])), torch.tensor(y[idx]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    buckets = len(model.reducer.bucket_indices()) if LIB == "numtorch" and not SINGLE else 0
    save("mlp", losses, model.module if not SINGLE else model, buckets=np.array(buckets))


def prog_nosync():
    """Gradient accumulation: two micro-batches per step, the first under no_sync()."""
    X, y = data(23, 6, 3, 1)
    torch.manual_seed(200 + RANK)
    model = wrap(mlp(), bucket_cap_mb=0.002, gradient_as_bucket_view=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for step in range(3):
        idx = shard(len(X), step)
        opt.zero_grad()
        total = 0.0
        for part, sync in ((0, False), (1, True)):
            if SINGLE:  # the same micro-batches: each rank's half, every rank together
                per = len(idx) // WORLD
                sub = [i for r in range(WORLD) for i in idx[r * per:(r + 1) * per][part * per // 2:(part + 1) * per // 2]]
            else:
                sub = idx[part * len(idx) // 2:(part + 1) * len(idx) // 2]
            ctx = model.no_sync() if not (SINGLE or sync) else _null()
            with ctx:
                loss = F.cross_entropy(model(torch.tensor(X[sub])), torch.tensor(y[sub])) / 2
                loss.backward()
            total += loss.item()
        opt.step()
        losses.append(total)
    save("nosync", losses, model if SINGLE else model.module)


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


class Branchy(nn.Module):
    """An MLP with BatchNorm (buffers to broadcast) and a branch only rank 1 uses in even steps."""

    def __init__(self):
        super().__init__()
        self.body = mlp(extra=True)
        self.unused = nn.Linear(6, 3)

    def forward(self, x, use_branch):
        out = self.body(x)
        return out + self.unused(x) if use_branch else out


def prog_unused():
    """find_unused_parameters=True (after a no_sync micro-batch too), buffers broadcast from rank 0,
    gradient_as_bucket_view."""
    if SINGLE:
        return
    X, y = data(23, 6, 3, 2)
    torch.manual_seed(300 + RANK)
    model = DDP(Branchy(), bucket_cap_mb=0.001, find_unused_parameters=True, gradient_as_bucket_view=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses, unused_grads = [], []
    for step in range(4):
        idx = shard(len(X), step)
        if step == 2:  # a no_sync micro-batch through the branch: rank 0's next backward, which does not use
            with model.no_sync():  # the branch, must send the branch's accumulated .grad (PyTorch's reducer)
                F.cross_entropy(model(torch.tensor(X[idx]), True), torch.tensor(y[idx])).backward()
        loss = F.cross_entropy(model(torch.tensor(X[idx]), RANK == 1 and step % 2 == 0), torch.tensor(y[idx]))
        if step != 2:
            opt.zero_grad()
        loss.backward()
        g = model.module.unused.weight.grad
        unused_grads.append(np.zeros((3, 6), np.float32) if g is None else g.numpy().copy())
        opt.step()
        losses.append(loss.item())
    save("unused", losses, model.module, unused_grads=np.array(unused_grads))


def gpt_module():
    """The gpt example's model: numtorch's own, or its source run by real torch."""
    if LIB != "torch":
        from numtorch.examples import gpt
        return gpt
    import types
    import numtorch.examples.gpt as ntgpt
    src = open(ntgpt.__file__).read()
    src = (src.replace("import numtorch as torch", "import torch")
           .replace("import numtorch.nn as nn", "import torch.nn as nn")
           .replace("import numtorch.nn.functional as F", "import torch.nn.functional as F")
           .replace("from ._common import", "from numtorch.examples._common import"))
    mod = types.ModuleType("gpt_torch")
    sys.modules["gpt_torch"] = mod
    exec(compile(src, "gpt_torch", "exec"), mod.__dict__)
    return mod


def prog_gpt():
    """A 2-layer GPT (tied embeddings) with AdamW for 3 steps; buckets of 4 KB."""
    gpt = gpt_module()
    cfg = gpt.GPTConfig(block_size=8, vocab_size=16, n_layer=2, n_head=2, n_embd=16, bias=True)
    rng = np.random.default_rng(5)
    toks = rng.integers(0, 16, (13, 9))
    torch.manual_seed(400 + RANK)
    model = wrap(gpt.GPT(cfg), bucket_cap_mb=0.004)
    inner = model if SINGLE else model.module
    opt = inner.configure_optimizers(0.1, 3e-3, (0.9, 0.99))
    losses = []
    for step in range(3):
        idx = shard(len(toks), step)
        x, t = torch.tensor(toks[idx, :-1]), torch.tensor(toks[idx, 1:])
        _, loss = model(x, t)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    buckets = len(model.reducer.bucket_indices()) if LIB == "numtorch" and not SINGLE else 0
    save("gpt", losses, inner, buckets=np.array(buckets))


def prog_syncbn():
    """Conv1d + BatchNorm1d over (N, C, L), converted to SyncBatchNorm under DDP: the same steps and running
    statistics as BatchNorm on the full batch. (PyTorch's SyncBatchNorm runs on GPUs only: on CPU its
    forward raises ValueError, which the torch run records instead.)"""
    rng = np.random.default_rng(6)
    X, y = rng.standard_normal((23, 2, 7)).astype(np.float32), rng.integers(0, 3, 23)
    torch.manual_seed(500 + RANK)
    model = nn.Sequential(nn.Conv1d(2, 4, 3), nn.BatchNorm1d(4), nn.Tanh(), nn.Flatten(), nn.Linear(20, 3))
    if not SINGLE:
        model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
        if LIB == "torch":  # its DDP refuses CPU SyncBatchNorm, and so does its forward
            errors = []
            for attempt in (lambda: DDP(model), lambda: model(torch.tensor(X[:4]))):
                try:
                    attempt()
                except ValueError as e:
                    errors.append(str(e))
            np.savez(os.path.join(OUT, f"syncbn_rank{RANK}.npz"), torch_error=np.array(errors))
            return
        model = DDP(model, bucket_cap_mb=0.001)
    opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.5)
    losses = []
    for step in range(3):
        idx = shard(len(X), step)
        loss = F.cross_entropy(model(torch.tensor(X[idx])), torch.tensor(y[idx]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():  # eval mode: running statistics, no synchronization
        losses.append(F.cross_entropy(model(torch.tensor(X)), torch.tensor(y)).item())
    save("syncbn", losses, model if SINGLE else model.module)


def prog_zero():
    """ZeroRedundancyOptimizer(Adam) under DDP (static_graph=True); rank 0 saves the consolidated optimizer
    state."""
    X, y = data(23, 6, 3, 4)
    torch.manual_seed(600 + RANK)
    model = wrap(mlp(), bucket_cap_mb=0.002, static_graph=True)
    if SINGLE:
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
    else:
        from importlib import import_module
        Zero = import_module(torch.__name__ + ".distributed.optim").ZeroRedundancyOptimizer
        opt = Zero(model.parameters(), optimizer_class=torch.optim.Adam, lr=0.01)
    losses = []
    for step in range(3):
        idx = shard(len(X), step)
        loss = F.cross_entropy(model(torch.tensor(X[idx])), torch.tensor(y[idx]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    extra = {}
    if not SINGLE:
        opt.consolidate_state_dict(to=0)
        extra["local_params"] = np.array([p.numel() for p in opt.optim.param_groups[0]["params"]])
    if SINGLE or RANK == 0:
        sd = opt.state_dict()
        for i, st in sd["state"].items():
            for k, v in st.items():
                extra[f"state.{i}.{k}"] = np.asarray(v.detach().numpy() if hasattr(v, "detach") else v)
        extra["groups"] = np.array([len(g["params"]) for g in sd["param_groups"]])
    save("zero", losses, model if SINGLE else model.module, **extra)


def prog_errors():
    """The error DDP raises on every rank at a forward after a backward that left a parameter without a
    gradient (find_unused_parameters=False)."""
    if SINGLE:
        return
    types, messages = [], []
    torch.manual_seed(0)
    model = DDP(Branchy())
    x = torch.tensor(data(4, 6, 3, 0)[0])
    try:
        model(x, False).sum().backward()
        model(x, False)
    except RuntimeError as e:
        types.append(type(e).__name__)
        messages.append(str(e))
    np.savez(os.path.join(OUT, f"errors_rank{RANK}.npz"), types=np.array(types), messages=np.array(messages))


def prog_api():
    """What a user sees of the wrapper: state_dict keys, types, .module, and the constructor's errors."""
    if SINGLE:
        return
    inner = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    m = DDP(inner, broadcast_buffers=False)
    facts = [",".join(m.state_dict()), str(isinstance(m, nn.Module)), str(isinstance(m, DDP)), str(m.module is inner),
             str(m.device_ids), str(m.output_device)]
    frozen = nn.Linear(2, 2).requires_grad_(False)
    for make in (lambda: DDP(nn.Linear(2, 2), device_ids=[0]), lambda: DDP(nn.Linear(2, 2), output_device=0),
                 lambda: DDP(frozen)):
        try:
            make()
            facts.append("no error")
        except Exception as e:  # the type, and the message's first sentence
            facts.append(f"{type(e).__name__}: {str(e).split('.')[0]}")
    shape_error = ""
    if LIB == "numtorch":  # (PyTorch's gloo check hangs on this, so it is numtorch's alone)
        try:
            DDP(nn.Linear(3, 2 + (RANK == WORLD - 1)))
        except RuntimeError as e:
            shape_error = str(e)
    np.savez(os.path.join(OUT, f"api_rank{RANK}.npz"), facts=np.array(facts), shape_error=shape_error)


def prog_subgroup():
    """On 3 ranks: DDP over new_group([1, 2]) (rank 0 stays out): rank 1's weights are broadcast to rank 2."""
    if SINGLE or WORLD != 3:
        return
    group = dist.new_group([1, 2])
    if RANK == 0:
        return
    X, y = data(23, 6, 3, 8)
    torch.manual_seed(700 + RANK)
    model = DDP(mlp(), process_group=group, bucket_cap_mb=0.002)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for step in range(3):
        s = torch.utils.data.DistributedSampler(range(len(X)), num_replicas=2, rank=RANK - 1, seed=7)
        s.set_epoch(step)
        idx = list(s)
        loss = F.cross_entropy(model(torch.tensor(X[idx])), torch.tensor(y[idx]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    save("subgroup", losses, model.module)


PROGRAMS = {"mlp": prog_mlp, "nosync": prog_nosync, "unused": prog_unused, "gpt": prog_gpt, "syncbn": prog_syncbn,
            "zero": prog_zero, "errors": prog_errors, "api": prog_api,
            "subgroup": prog_subgroup}

for name, fn in PROGRAMS.items():
    if ONLY is None or name in ONLY:
        fn()
if not SINGLE:
    dist.barrier()
    dist.destroy_process_group()
