"""DistributedDataParallel, SyncBatchNorm and ZeroRedundancyOptimizer against PyTorch.

The training programs of ``ddp_programs.py`` (an MLP, gradient accumulation with ``no_sync``, unused
parameters with BatchNorm buffers, a small GPT from ``numtorch.examples.gpt``, SyncBatchNorm, ZeRO)
run, all at once, in six jobs: numtorch on 2 and 3 MPI ranks (``numtorch.distributed.run`` and ``mpiexec``), PyTorch's DDP on the gloo backend under
its own ``torchrun`` on 2 and 3 ranks (the oracle), and numtorch in one process on the full batch.
Three ranks give shards that DistributedSampler has to pad. The tests compare the saved losses,
final weights and optimizer states. The rest of the file needs no processes: DistributedSampler's
shards, PyTorch's bucket assignment, SyncBatchNorm as BatchNorm without a process group, errors.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import numtorch as nt

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "ddp_programs.py")
BIN = os.path.dirname(sys.executable)
SRC = os.path.dirname(os.path.dirname(nt.__file__))  # the numtorch under test, for the child processes


def _env():
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _commands(out):
    cmds = {}
    for w in (2, 3):
        cmds[("torch", w)] = [os.path.join(BIN, "torchrun"), "--standalone", f"--nproc_per_node={w}", PROGRAMS,
                              "torch", out(f"torch{w}")]
        # 2 ranks through numtorch's torchrun, 3 through a bare mpiexec: both ways of starting a job
        start = ([sys.executable, "-m", "numtorch.distributed.run", "--standalone", f"--nproc_per_node={w}"] if w == 2
                 else [os.path.join(BIN, "mpiexec"), "--oversubscribe", "-n", str(w), sys.executable])
        cmds[("numtorch", w)] = start + [PROGRAMS, "numtorch", out(f"numtorch{w}")]
        cmds[("single", w)] = [sys.executable, PROGRAMS, "numtorch", out(f"single{w}"), "--single", str(w)]
    return cmds


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Run the six jobs concurrently; a failed job fails the tests with its output."""
    root = tmp_path_factory.mktemp("ddp")

    def out(name):
        d = root / name
        d.mkdir(exist_ok=True)
        return str(d)
    procs = {k: subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_env(), cwd=str(root))
             for k, c in _commands(out).items()}
    logs = {}
    for k, p in procs.items():
        try:
            logs[k] = p.communicate(timeout=300)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            p.kill()
            logs[k] = p.communicate()[0].decode(errors="replace") + "\n[timed out]"
        assert p.returncode == 0, f"{k} failed:\n{logs[k][-4000:]}"
    return {k: root / f"{k[0]}{k[1]}" for k in procs}


def load(runs, kind, world, prog, rank=0):
    return np.load(runs[(kind, world)] / f"{prog}_rank{rank}.npz")


def assert_same(a, b, keys=None, atol=1e-5, what=""):
    keys = keys or [k for k in a.files if k != "buckets"]
    assert set(keys) <= set(b.files), f"{what}: missing {set(keys) - set(b.files)}"
    for k in keys:
        np.testing.assert_allclose(a[k], b[k], rtol=1e-5, atol=atol, err_msg=f"{what} {k}")


@pytest.mark.parametrize("world", [2, 3])
@pytest.mark.parametrize("prog", ["mlp", "nosync", "unused", "gpt", "zero"])
def test_same_losses_and_weights_as_torch_ddp(runs, world, prog):
    """Every rank's losses, final weights (and extras: unused-branch grads, ZeRO's consolidated Adam
    state and shard sizes) equal PyTorch's DDP on gloo."""
    for r in range(world):
        mine, ref = load(runs, "numtorch", world, prog, r), load(runs, "torch", world, prog, r)
        assert_same(mine, ref, what=f"{prog} rank {r}/{world}")


@pytest.mark.parametrize("world", [2, 3])
@pytest.mark.parametrize("prog", ["mlp", "nosync", "gpt", "syncbn", "zero"])
def test_same_as_one_process_on_the_full_batch(runs, world, prog):
    """The ranks' mean loss is the full batch's loss, and every rank ends with the single process's
    weights (for syncbn: BatchNorm's running statistics too; for zero: plain Adam's state)."""
    single = load(runs, "single", world, prog)
    ranks = [load(runs, "numtorch", world, prog, r) for r in range(world)]
    steps = 3 if prog == "syncbn" else len(single["loss"])  # syncbn's last loss: eval on the full data
    np.testing.assert_allclose(np.mean([r["loss"][:steps] for r in ranks], 0), single["loss"][:steps], atol=1e-6)
    if prog == "syncbn":
        np.testing.assert_allclose(ranks[0]["loss"][3], single["loss"][3], atol=1e-6)
    keys = [k for k in single.files if k.startswith(("sd.", "state."))]
    assert_same(ranks[0], single, keys, atol=3e-6, what=f"{prog}/{world} vs one process")
    for r in ranks[1:]:  # the replicas are identical, bit for bit
        for k in single.files:
            if k.startswith("sd."):
                np.testing.assert_array_equal(r[k], ranks[0][k])


def test_ddp_on_a_subgroup_as_torch(runs):
    """process_group=new_group([1, 2]) on 3 ranks: ranks 1 and 2 train as PyTorch's do, from rank 1's weights."""
    for r in (1, 2):
        assert_same(load(runs, "numtorch", 3, "subgroup", r), load(runs, "torch", 3, "subgroup", r),
                    what=f"subgroup rank {r}")
    a, b = load(runs, "numtorch", 3, "subgroup", 1), load(runs, "numtorch", 3, "subgroup", 2)
    for k in a.files:
        if k.startswith("sd."):
            np.testing.assert_array_equal(a[k], b[k])


@pytest.mark.parametrize("world", [2, 3])
def test_errors_as_torch_ddp(runs, world):
    """A parameter left out of the loss without find_unused_parameters: the next forward raises
    PyTorch's RuntimeError on every rank (same first sentence)."""
    for r in range(world):
        mine, ref = load(runs, "numtorch", world, "errors", r), load(runs, "torch", world, "errors", r)
        assert list(mine["types"]) == list(ref["types"]) == ["RuntimeError"]
        first = [str(m).split(".")[0] for m in ref["messages"]]
        assert [str(m).split(".")[0] for m in mine["messages"]] == first


def test_wrapper_api_as_torch_ddp(runs):
    """state_dict keys with the ``module.`` prefix, isinstance, ``.module``, ``device_ids``, and the
    constructor's errors (device_ids/output_device with a CPU module, no trainable parameter; and,
    numtorch's alone, parameter shapes that differ across ranks)."""
    for w in (2, 3):
        facts = list(load(runs, "numtorch", w, "api")["facts"])
        assert facts == list(load(runs, "torch", w, "api")["facts"])
        assert facts[0].startswith("module.0.weight") and "ValueError" in facts[6] and "RuntimeError" in facts[8]
        for r in range(w):  # a rank whose model differs: every rank's constructor raises
            assert "DDP expects same model across all ranks" in str(load(runs, "numtorch", w, "api", r)["shape_error"])


def test_buckets_and_torch_syncbn_on_cpu(runs):
    assert int(load(runs, "numtorch", 2, "gpt")["buckets"]) >= 4  # 4 KB buckets: several all-reduces a step
    assert int(load(runs, "numtorch", 3, "mlp")["buckets"]) >= 2
    # the reason the SyncBatchNorm oracle is BatchNorm on the full batch: PyTorch's needs a GPU
    errors = load(runs, "torch", 2, "syncbn")["torch_error"]
    assert len(errors) == 2 and all("GPU" in str(e) for e in errors), errors


# ------------------------------------------------------------------------- no processes needed
@pytest.mark.quick
@pytest.mark.parametrize("n,replicas,shuffle,drop_last", [(10, 3, True, False), (10, 3, False, True),
                                                          (7, 4, True, True), (2, 5, True, False),
                                                          (12, 4, False, False), (11, 2, True, True)])
def test_distributed_sampler_shards_as_torch(n, replicas, shuffle, drop_last):
    for rank in range(replicas):
        for epoch in (0, 3):
            kw = dict(num_replicas=replicas, rank=rank, shuffle=shuffle, seed=11, drop_last=drop_last)
            a = nt.utils.data.DistributedSampler(range(n), **kw)
            b = torch.utils.data.DistributedSampler(range(n), **kw)
            a.set_epoch(epoch)
            b.set_epoch(epoch)
            assert list(a) == list(b) and len(a) == len(b)


@pytest.mark.quick
def test_bucket_assignment_as_torch():
    from numtorch.distributed._reducer import assign_buckets
    rng = np.random.default_rng(0)
    for trial in range(20):
        sizes = rng.integers(1, 3000, rng.integers(1, 12))
        limits = sorted(rng.integers(500, 20000, 2).tolist())
        params = [nt.empty(int(s)) for s in sizes]
        order = list(reversed(range(len(sizes)))) if trial % 2 else rng.permutation(len(sizes)).tolist()
        want, _ = torch.distributed._compute_bucket_assignment_by_size(
            [torch.empty(int(sizes[i])) for i in order], limits)
        want = [[order[j] for j in b] for b in want]
        assert assign_buckets(params, order, limits) == sorted(want, key=lambda b: order.index(b[0]))


def test_ddp_and_zero_need_a_process_group():
    for lib in (nt, torch):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        nt.distributed.optim.ZeroRedundancyOptimizer(nt.nn.Linear(2, 2).parameters(), nt.optim.SGD, lr=0.1)
    assert nt.nn.parallel.DistributedDataParallel is nt.distributed._ddp.DistributedDataParallel


@pytest.mark.quick
def test_sync_batchnorm_without_process_group_is_batchnorm():
    """Without init_process_group both libraries' SyncBatchNorm fall back to BatchNorm: same outputs,
    gradients and running statistics, for (N, C), (N, C, L) and (N, C, H, W) inputs and momentum=None."""
    rng = np.random.default_rng(1)
    for shape, momentum in (((6, 3), 0.1), ((4, 3, 5), None), ((2, 3, 4, 4), 0.3)):
        x = rng.standard_normal(shape).astype(np.float32)
        outs = {}
        for lib in (nt, torch):
            m = lib.nn.SyncBatchNorm(3, momentum=momentum)
            with lib.no_grad():
                m.weight.copy_(lib.tensor([1.0, 2.0, -0.5]))
            xi = lib.tensor(x, requires_grad=True)
            y = m(xi)
            (y * y).sum().backward()
            m(xi)
            m.eval()
            outs[lib] = [y, xi.grad, m.weight.grad, m.running_mean, m.running_var, m(xi)]
        for a, b in zip(outs[nt], outs[torch]):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_convert_sync_batchnorm_and_errors_as_torch():
    def build(lib):
        lib.manual_seed(0)
        return lib.nn.Sequential(lib.nn.Conv2d(2, 3, 1), lib.nn.BatchNorm2d(3),
                                 lib.nn.Sequential(lib.nn.BatchNorm1d(4, affine=False, momentum=None)))
    got = {}
    for lib in (nt, torch):
        m = build(lib)
        bn = m[1]
        m[1].eval()
        s = lib.nn.SyncBatchNorm.convert_sync_batchnorm(m)
        got[lib] = ([type(x).__name__ for x in s.modules()], list(s.state_dict()), s[1].weight is bn.weight,
                    s[1].running_mean is bn.running_mean, s[1].training, s[2][0].momentum, s[2][0].affine)
        with pytest.raises(ValueError, match="expected at least 2D input"):
            lib.nn.SyncBatchNorm(3)(lib.ones(3))
        with pytest.raises(ValueError, match="number of input channels should be non-zero"):
            lib.nn.SyncBatchNorm(0)(lib.ones(2, 0))
    assert got[nt] == got[torch]
