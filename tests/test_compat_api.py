"""Drop-in compatibility, API level: what real programs touch beyond the op families, each against
PyTorch: the Tensor protocol (``__index__``, ``__format__``, ``__contains__``, ``keepdims=``,
``.data``, ``nelement``, ``type``), indexing forms for read/write/``+=``, sampling with generators,
optimizer signatures and hand-set learning rates, lazy samplers, and the device/precision/
distributed/jit probes that CPU programs call.
"""
import inspect
import operator
import time

import numpy as np
import pytest
import torch as ref

import numtorch as nt
from conftest import assert_close, to_nt, to_ref


def both(fn):
    """Run ``fn(lib)`` with numtorch and PyTorch; returns (numtorch result, torch result)."""
    return fn(nt), fn(ref)


def raises_same(fn):
    """``fn(lib)`` raises the same exception type in numtorch as in PyTorch."""
    with pytest.raises(Exception) as er:
        fn(ref)
    with pytest.raises(er.type):
        fn(nt)


# ---- Tensor protocol ------------------------------------------------------------------------------
def test_index_protocol():
    arr, lst = np.arange(10), list(range(10))
    for lib in (nt, ref):
        i = lib.tensor(3)
        assert arr[i] == 3 and lst[i] == 3 and lst[lib.tensor([1])] == 1 and operator.index(lib.tensor(True)) == 1
        assert lst[lib.tensor(2):lib.tensor(5)] == [2, 3, 4] and range(10)[lib.tensor(-1)] == 9
    for bad in (lambda L: operator.index(L.tensor(1.0)), lambda L: operator.index(L.tensor([1, 2])),
                lambda L: [1, 2][L.tensor(0.5)]):
        raises_same(bad)


@pytest.mark.parametrize("value, spec", [(1.23456, ".3f"), (1.23456, ""), (2.5, "8.2e"), (-3.0, "+.1f"),
                                         (7, "04d"), (7, ""), (7, "x"), (True, ""), (0.125, ".1%")])
def test_format_zero_dim(value, spec):
    a, b = both(lambda L: format(L.tensor(value), spec))
    assert a == b
    assert f"{nt.tensor(value):{spec}}" == b


def test_format_multi_element():
    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    assert format(to_nt(x), "") == str(to_nt(x)) and f"{to_nt(x)}" == str(to_nt(x))
    for shape in ((2,), (1,), (1, 1)):
        raises_same(lambda L: format(L.ones(shape), ".2f"))


def test_scalar_conversions_len_iter_bool():
    x = np.array([[1.5, -2.0, 0.0], [3.0, 4.0, 5.0]], dtype=np.float32)
    for fn in (lambda L: float(L.tensor([2.5])), lambda L: int(L.tensor(-2.7)), lambda L: int(L.tensor([7])),
               lambda L: bool(L.tensor([0.0])), lambda L: bool(L.tensor(3)), lambda L: len(L.tensor(x)),
               lambda L: [r.tolist() for r in L.tensor(x)], lambda L: [float(v) for v in L.tensor(x)[0]]):
        a, b = both(fn)
        assert a == b
    for bad in (lambda L: float(L.ones(2)), lambda L: int(L.ones(2)), lambda L: bool(L.ones(2)),
                lambda L: len(L.tensor(1.0)), lambda L: iter(L.tensor(1.0))):
        raises_same(bad)


def test_contains():
    x = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)
    for item in (3.0, 5, 2, True, np.float32(4.0)):
        a, b = both(lambda L: item in L.tensor(x))
        assert a == b, item
    for t in ([1.0, 2.0], [9.0, 2.0], [5.0]):
        a, b = both(lambda L: L.tensor(t) in L.tensor(x))
        assert a == b, t
    raises_same(lambda L: "a" in L.ones(2))
    raises_same(lambda L: None in L.ones(2))


def test_hash_is_identity_and_array_protocol():
    a, b = nt.ones(2), nt.ones(2)
    assert len({a, b, a}) == 2 and {a: 1, b: 2}[a] == 1 and hash(a) == hash(a)
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    t = to_nt(x)
    assert np.asarray(t).dtype == np.float32 and np.array_equal(np.asarray(t), x)
    assert np.array(t, dtype=np.float64).dtype == np.float64
    raises_same(lambda L: np.asarray(L.ones(2, requires_grad=True)))  # as PyTorch: detach first


REDUCTIONS = "sum mean nansum nanmean amax amin std var prod logsumexp any all argmax argmin max min median".split()


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_keepdims_numpy_spelling(name, dim):
    x = np.random.default_rng(1).standard_normal((3, 4, 2)).astype(np.float32)
    out = {}
    for lib, t in ((nt, to_nt(x)), (ref, to_ref(x))):
        m = getattr(t, name)(dim, keepdims=True)
        f = getattr(lib, name)(t, dim, keepdims=True)
        out[lib] = (m, f)
    for got, want in zip(out[nt], out[ref]):
        got, want = (got[0], want[0]) if isinstance(want, tuple) else (got, want)
        assert tuple(got.shape) == tuple(want.shape)
        assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_data_read_shares_storage_outside_autograd():
    for lib in (nt, ref):
        p = lib.nn.Parameter(lib.ones(3))
        d = p.data
        assert not d.requires_grad and d.grad_fn is None and type(d) is lib.Tensor
        d.mul_(2)  # in-place through .data is invisible to autograd, allowed on a leaf
        assert p.tolist() == [2.0, 2.0, 2.0]
        p.data += 1
        assert p.tolist() == [3.0, 3.0, 3.0] and p.requires_grad


def test_data_write_replaces_values_shape_dtype():
    res = {}
    for lib in (nt, ref):
        p = lib.nn.Parameter(lib.ones(3))
        old = p.data
        p.data = lib.arange(6, dtype=lib.float64).view(2, 3)
        res[lib] = (type(p).__name__, p.requires_grad, str(p.dtype), tuple(p.shape), p.sum().item(),
                    old.tolist(), p.is_leaf)
        lin = lib.nn.Linear(2, 3)
        lin.weight.data = lib.zeros(3, 2)
        assert lin(lib.ones(1, 2)).tolist() == [lin.bias.tolist()]
    assert res[nt] == res[ref]
    raises_same(lambda L: setattr(L.ones(2), "data", [1, 2]))


def test_grad_none_retain_grad_and_sizes():
    x = np.array([[1.0, -2.0], [0.5, 3.0]], dtype=np.float32)
    got = {}
    for lib, t in ((nt, to_nt(x, True)), (ref, to_ref(x, True))):
        h = t * 2
        h.retain_grad()
        (h ** 2).sum().backward()
        got[lib] = (h.grad.tolist(), t.grad.tolist(), h.retains_grad)
        t.grad = None
        assert t.grad is None
        (t * 3).sum().backward()
        assert t.grad.tolist() == [[3.0, 3.0], [3.0, 3.0]]
        assert (t.nelement(), t.numel(), tuple(t.size()), t.size(-1), t.dim(), t.ndimension()) == (4, 4, (2, 2), 2, 2, 2)
    assert got[nt] == got[ref]


DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_type_method(dtype):
    a, b = both(lambda L: L.ones(2, dtype=getattr(L, dtype)).type())
    assert a == b
    for target in ("torch.DoubleTensor", "torch.LongTensor", "torch.FloatTensor", "torch.BoolTensor"):
        a, b = both(lambda L: str(L.ones(2, dtype=getattr(L, dtype)).type(target).dtype))
        assert a == b
    a, b = both(lambda L: str(L.ones(2, dtype=getattr(L, dtype)).type(L.int32).dtype))
    assert a == b


# ---- indexing forms: read, write, += --------------------------------------------------------------
def _idx(kind, L):
    return {
        "int_tensor": lambda: L.tensor([2, 0, 2]),
        "bool_mask": lambda: L.tensor([True, False, True, False]),
        "list": lambda: [3, 1],
        "range": lambda: range(1, 3),
        "none_ellipsis": lambda: (None, Ellipsis, 1),
        "tuple_tensors": lambda: (L.tensor([0, 3, 1]), L.tensor([2, 2, 0])),
        "tensor_and_slice": lambda: (slice(1, None), L.tensor([0, 2])),
        "zero_dim_tensor": lambda: L.tensor(1),
        "row_list_col": lambda: ([0, 2], slice(None), None),
        "negative": lambda: (-1, L.tensor([-1, 0])),
        "numpy_array": lambda: np.array([1, 3]),
        "mask_2d": lambda: L.tensor(np.arange(12).reshape(4, 3) % 3 == 0),
    }[kind]()


INDEX_KINDS = ["int_tensor", "bool_mask", "list", "range", "none_ellipsis", "tuple_tensors", "tensor_and_slice",
               "zero_dim_tensor", "row_list_col", "negative", "numpy_array", "mask_2d"]


@pytest.mark.parametrize("kind", INDEX_KINDS)
def test_index_read_with_grad(kind, fdtype):
    x = np.random.default_rng(2).standard_normal((4, 3)).astype(fdtype)
    a, b = to_nt(x, True), to_ref(x, True)
    ya, yb = a[_idx(kind, nt)], b[_idx(kind, ref)]
    assert_close(ya, yb)
    w = np.random.default_rng(3).standard_normal(tuple(yb.shape)).astype(fdtype)
    (ya * to_nt(w)).sum().backward()
    (yb * to_ref(w)).sum().backward()
    assert_close(a.grad, b.grad)


@pytest.mark.parametrize("kind", INDEX_KINDS)
@pytest.mark.parametrize("op", ["set_scalar", "set_tensor", "iadd", "imul_scalar"])
def test_index_write_and_augmented(kind, op):
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = {}
    for L in (nt, ref):
        t = L.tensor(x.copy())
        idx = _idx(kind, L)
        shape = tuple(t[idx].shape)
        v = L.tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 100)
        if op == "set_scalar":
            t[idx] = -1.0
        elif op == "set_tensor":
            t[idx] = v
        elif op == "iadd":
            t[idx] += v
        else:
            t[idx] *= 3
        out[L] = t
    assert_close(out[nt], out[ref])


def test_index_write_into_grad_graph():
    for_ref = {}
    for L in (nt, ref):
        w = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = w * 2
        y[L.tensor([0, 2])] += w[:2] * 10  # index_put on a non-leaf is recorded
        y.sum().backward()
        for_ref[L] = (y.tolist(), w.grad.tolist())
    assert for_ref[nt] == for_ref[ref]


# ---- sampling and selection -----------------------------------------------------------------------
def test_multinomial_generator_reproducible_and_distribution():
    p = nt.tensor([0.1, 0.2, 0.7])
    a = nt.multinomial(p, 20, replacement=True, generator=nt.Generator().manual_seed(5))
    b = nt.multinomial(p, 20, replacement=True, generator=nt.Generator().manual_seed(5))
    c = nt.multinomial(p, 20, replacement=True, generator=nt.Generator().manual_seed(6))
    assert nt.equal(a, b) and not nt.equal(a, c) and a.dtype == nt.int64 and a.shape == (20,)
    draws = nt.multinomial(nt.tensor([[1.0, 3.0, 0.0, 6.0]] * 4), 5000, replacement=True,
                           generator=nt.Generator().manual_seed(0))
    freq = np.stack([np.bincount(r, minlength=4) for r in draws.numpy()]) / 5000
    np.testing.assert_allclose(freq, np.tile([0.1, 0.3, 0.0, 0.6], (4, 1)), atol=0.025)
    no_rep = nt.multinomial(nt.tensor([[1.0, 0.0, 2.0, 3.0], [5.0, 1.0, 1.0, 0.0]]), 3, generator=nt.Generator().manual_seed(1))
    assert no_rep.shape == (2, 3)
    assert sorted(no_rep[0].tolist()) == [0, 2, 3] and sorted(no_rep[1].tolist()) == [0, 1, 2]
    assert nt.equal(p.multinomial(4, True, generator=nt.Generator().manual_seed(2)),
                    nt.multinomial(p, 4, True, generator=nt.Generator().manual_seed(2)))


@pytest.mark.parametrize("bad", [
    lambda L: L.multinomial(L.ones(3), 4),                      # more samples than categories
    lambda L: L.multinomial(L.tensor([1.0, -1.0]), 1),          # negative weight
    lambda L: L.multinomial(L.zeros(3), 1),                     # zero sum
    lambda L: L.multinomial(L.ones(2, 2, 2), 1),                # 3-d
    lambda L: L.multinomial(L.ones(3, dtype=L.int64), 1),       # integer weights
])
def test_multinomial_errors(bad):
    raises_same(bad)


def test_randint_and_generator():
    g1, g2 = nt.Generator(), nt.Generator()
    assert g1.manual_seed(3) is g1 and g1.initial_seed() == 3
    g2.manual_seed(3)
    a, b = nt.randint(0, 10, (50,), generator=g1), nt.randint(0, 10, (50,), generator=g2)
    assert nt.equal(a, b) and a.dtype == nt.int64 and 0 <= a.min().item() and a.max().item() < 10
    c = nt.randint(7, (4, 5), generator=g1)  # (high, size) form
    assert c.shape == (4, 5) and c.max().item() < 7
    raises_same(lambda L: L.randint(5, 3, (2,)))


@pytest.mark.parametrize("k, dim, largest", [(1, -1, True), (3, 1, True), (2, 0, False), (4, -1, False)])
def test_topk_sort_argmax(k, dim, largest):
    x = np.random.default_rng(4).permutation(40).reshape(5, 8).astype(np.float32)
    a, b = to_nt(x, True), to_ref(x, True)
    (va, ia), (vb, ib) = nt.topk(a, k, dim=dim, largest=largest), ref.topk(b, k, dim=dim, largest=largest)
    assert_close(va, vb)
    assert_close(ia, ib)
    va.sum().backward()
    vb.sum().backward()
    assert_close(a.grad, b.grad)
    for desc in (True, False):
        sa, sb = nt.sort(a, dim=dim, descending=desc), ref.sort(b, dim=dim, descending=desc)
        assert_close(sa.values, sb.values)
        assert_close(sa.indices, sb.indices)
    assert_close(a.argmax(dim=dim, keepdim=True), b.argmax(dim=dim, keepdim=True))
    assert_close(nt.argmax(a), ref.argmax(b))
    raises_same(lambda L: L.topk(L.ones(3), 4))


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta"])
def test_optimizer_signatures_match(name):
    sa = inspect.signature(getattr(nt.optim, name))
    sb = inspect.signature(getattr(ref.optim, name))
    assert list(sa.parameters) == list(sb.parameters)
    assert {k: v.default for k, v in sa.parameters.items() if k != "params"} == \
        {k: v.default for k, v in sb.parameters.items() if k != "params"}


@pytest.mark.parametrize("name, kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01)),
                                      ("AdamW", dict(lr=0.01, weight_decay=0.1))])
def test_param_group_lr_set_by_hand(name, kw):
    x = np.random.default_rng(5).standard_normal((3, 2)).astype(np.float32)
    res = {}
    for L, p in ((nt, nt.nn.Parameter(to_nt(x))), (ref, ref.nn.Parameter(to_ref(x)))):
        opt = getattr(L.optim, name)([p], **kw)
        for step, lr in enumerate([kw["lr"], kw["lr"] * 0.1, 0.0, kw["lr"] * 3]):
            for g in opt.param_groups:
                g["lr"] = lr
            opt.zero_grad()
            (p ** 2).sum().backward()
            opt.step()
        res[L] = p
    assert_close(res[nt], res[ref], rtol=1e-5, atol=1e-6)


# ---- lazy samplers --------------------------------------------------------------------------------
def test_random_sampler_huge_num_samples_is_lazy():
    ds = list(range(10))
    t0 = time.perf_counter()
    s = nt.utils.data.RandomSampler(ds, replacement=True, num_samples=10 ** 12)
    it = iter(s)
    first = [next(it) for _ in range(100)]
    s2 = nt.utils.data.RandomSampler(ds, replacement=False, num_samples=10 ** 12)
    second = [next(iter(s2)) for _ in range(3)]
    assert time.perf_counter() - t0 < 2.0
    assert len(s) == 10 ** 12 and all(0 <= i < 10 for i in first + second)


def test_dataloader_workers_draw_sampler_lazily():
    ds = nt.utils.data.TensorDataset(nt.arange(20.0))
    sampler = nt.utils.data.RandomSampler(ds, replacement=True, num_samples=10 ** 10)
    loader = nt.utils.data.DataLoader(ds, batch_size=4, sampler=sampler, num_workers=2)
    t0 = time.perf_counter()
    it = iter(loader)
    batches = [next(it)[0] for _ in range(5)]
    assert time.perf_counter() - t0 < 20.0
    assert all(b.shape == (4,) for b in batches)
    del it


@pytest.mark.parametrize("n, replicas, drop_last", [(10, 3, False), (10, 3, True), (9, 3, False), (2, 4, False)])
def test_distributed_sampler(n, replicas, drop_last):
    for rank in range(replicas):
        a, b = both(lambda L: list(L.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=rank,
                                                                   shuffle=False, drop_last=drop_last)))
        assert a == b
    parts = [nt.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=r, seed=1) for r in range(replicas)]
    idx = sum((list(p) for p in parts), [])
    assert all(len(p) == len(list(p)) for p in parts) and set(idx) == set(range(n))  # every sample is seen
    e0 = [list(p) for p in parts]
    for p in parts:
        p.set_epoch(1)
    if n >= 9:  # a new epoch reshuffles (two elements may well come out in the same order)
        assert [list(p) for p in parts] != e0
    raises_same(lambda L: L.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=replicas))


def test_distributed_sampler_needs_process_group():
    with pytest.raises(ValueError, match="process group has not been initialized"):
        nt.utils.data.DistributedSampler(range(5))
    with pytest.raises(ValueError, match="process group has not been initialized"):
        ref.utils.data.DistributedSampler(range(5))


# ---- device, precision, distributed and compiler probes -------------------------------------------
def test_device_probes():
    assert nt.cuda.is_available() is False and nt.cuda.device_count() == 0
    nt.cuda.manual_seed(1)
    nt.cuda.manual_seed_all(1)
    assert nt.backends.mps.is_available() is False and nt.accelerator.is_available() is False
    assert nt.backends.cudnn.is_available() is ref.backends.cudnn.is_available()
    assert str(nt.device("cpu")) == str(ref.device("cpu"))
    assert nt.version.cuda is None and nt.version.hip is None
    for mod, name in ((nt.backends.cuda.matmul, "allow_tf32"), (nt.backends.cudnn, "allow_tf32"),
                      (nt.backends.cudnn, "benchmark"), (nt.backends.cudnn, "deterministic")):
        refmod = ref.backends.cuda.matmul if mod is nt.backends.cuda.matmul else ref.backends.cudnn
        assert getattr(mod, name) == getattr(refmod, name), name  # PyTorch's defaults
        old = getattr(mod, name)
        setattr(mod, name, not old)
        assert getattr(mod, name) is (not old)
        setattr(mod, name, old)
    with nt.backends.cudnn.flags(enabled=False, benchmark=True):
        assert nt.backends.cudnn.benchmark is True and nt.backends.cudnn.enabled is False
    assert nt.backends.cudnn.benchmark is False and nt.backends.cudnn.enabled is True
    assert nt.backends.cuda.flash_sdp_enabled() == ref.backends.cuda.flash_sdp_enabled()


def test_compile_returns_the_same_callable():
    m = nt.nn.Linear(2, 2)
    assert nt.compile(m) is m and nt.compile(m, mode="reduce-overhead", fullgraph=True) is m

    def f(x, y=2):
        return x * y

    assert nt.compile(f) is f and inspect.signature(nt.compile(f)) == inspect.signature(f)
    g = nt.compile(mode="max-autotune")(f)
    assert g is f and nt.compile()(f)(3) == 6
    assert list(inspect.signature(nt.compile).parameters) == list(inspect.signature(ref.compile).parameters)


def test_autocast_and_grad_scaler_pass_through():
    x = nt.randn(3, 3)
    with nt.autocast(device_type="cpu", enabled=False):
        y = x @ x
    with nt.amp.autocast("cuda", enabled=False):
        z = x @ x
    assert nt.equal(y, z) and y.dtype == nt.float32
    with pytest.warns(UserWarning, match="autocast"):
        import numtorch.amp as amp_mod
        amp_mod._warned = False
        nt.autocast(device_type="cpu", dtype=nt.bfloat16)
    p = nt.nn.Parameter(nt.ones(2))
    opt = nt.optim.SGD([p], lr=0.5)
    for scaler in (nt.amp.GradScaler(enabled=False), nt.amp.GradScaler("cpu", enabled=False)):
        loss = (p * 2).sum()
        assert scaler.scale(loss) is loss and not scaler.is_enabled()
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
    assert p.tolist() == [-1.0, -1.0]
    with pytest.warns(FutureWarning, match="deprecated"):
        s = nt.cuda.amp.GradScaler(enabled=False)
    assert isinstance(s, nt.amp.GradScaler)
    with pytest.warns(FutureWarning, match="deprecated"):
        nt.cuda.amp.autocast(enabled=False)


def test_distributed_and_parallel():
    assert nt.distributed.is_available() is True and nt.distributed.is_initialized() is False
    with pytest.raises(ValueError, match="process group has not been initialized"):
        nt.nn.parallel.DistributedDataParallel(nt.nn.Linear(2, 2))
    with pytest.raises(ValueError):
        ref.nn.parallel.DistributedDataParallel(ref.nn.Linear(2, 2))
    inner = nt.nn.Linear(3, 2)
    dp = nt.nn.DataParallel(inner)
    assert nt.nn.DataParallel is nt.nn.parallel.DataParallel
    x = nt.randn(4, 3)
    assert nt.equal(dp(x), inner(x)) and dp.module is inner and dp.device_ids == []
    assert list(dp.state_dict()) == list(ref.nn.DataParallel(ref.nn.Linear(3, 2)).state_dict())
    assert repr(dp).splitlines()[:2] == repr(ref.nn.DataParallel(ref.nn.Linear(3, 2))).splitlines()[:2]


def test_jit_passthrough():
    m = nt.nn.Linear(2, 2)
    assert nt.jit.script(m) is m and nt.jit.trace(m, nt.ones(1, 2)) is m
    assert nt.jit.is_scripting() is False and nt.jit.is_tracing() is False

    @nt.jit.ignore
    def f(x):
        return x + 1

    @nt.jit.ignore(drop=True)
    def g(x):
        return x + 2

    assert f(1) == 2 and g(1) == 3 and nt.jit.unused(f) is f and nt.jit.annotate(int, 5) == 5
    with pytest.raises(RuntimeError, match="TorchScript"):
        nt.jit.save(m, "x.pt")


def test_checkpoint_matches_pytorch(fdtype):
    from numtorch.utils.checkpoint import checkpoint, checkpoint_sequential
    from torch.utils.checkpoint import checkpoint as ref_checkpoint
    x = np.random.default_rng(6).standard_normal((3, 4)).astype(fdtype)
    w = np.random.default_rng(7).standard_normal((4, 4)).astype(fdtype)
    a, b = to_nt(x, True), to_ref(x, True)
    wa, wb = to_nt(w, True), to_ref(w, True)

    def seg(L):
        return lambda t, m: L.tanh(t @ m).sin()

    ya = checkpoint(seg(nt), a, wa, use_reentrant=False)
    yb = ref_checkpoint(seg(ref), b, wb, use_reentrant=False)
    assert_close(ya, yb)
    ya.sum().backward()
    yb.sum().backward()
    assert_close(a.grad, b.grad)
    assert_close(wa.grad, wb.grad)
    with pytest.warns(UserWarning, match="use_reentrant"):
        checkpoint(seg(nt), a, wa)
    seq = nt.nn.Sequential(nt.nn.Linear(4, 4), nt.nn.Tanh(), nt.nn.Linear(4, 2)).to(getattr(nt, np.dtype(fdtype).name))
    assert nt.equal(checkpoint_sequential(seq, 2, a, use_reentrant=False), seq(a))
    with pytest.raises(ValueError):
        checkpoint_sequential(seq, 0, a, use_reentrant=False)


def test_multiprocessing_namespace():
    import multiprocessing
    assert nt.multiprocessing.Queue is multiprocessing.Queue
    assert nt.multiprocessing.get_sharing_strategy() in nt.multiprocessing.get_all_sharing_strategies()
    nt.multiprocessing.set_sharing_strategy("file_system")
    assert nt.multiprocessing.get_sharing_strategy() == "file_system"
    nt.multiprocessing.set_sharing_strategy("file_descriptor")
    with pytest.raises(ValueError):
        nt.multiprocessing.set_sharing_strategy("nope")


def test_tensorboard_summary_writer(tmp_path):
    try:
        import tensorboard  # noqa: F401
    except ImportError:  # as in PyTorch, the writer needs the tensorboard package
        with pytest.raises(ImportError, match="TensorBoard"):
            import numtorch.utils.tensorboard  # noqa: F401
        return
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from numtorch.utils.tensorboard import SummaryWriter
    with SummaryWriter(log_dir=str(tmp_path)) as w:
        for step in range(3):
            w.add_scalar("Loss/train", nt.tensor(1.0 / (step + 1)), step)
        w.add_scalars("run", {"a": 1.0, "b": np.float32(2.0)}, 0)
        w.add_histogram("weights", nt.randn(100), 0)
        w.add_text("note", "hello", 0)
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert [round(e.value, 4) for e in acc.Scalars("Loss/train")] == [1.0, 0.5, 0.3333]
    assert [e.step for e in acc.Scalars("Loss/train")] == [0, 1, 2]
    assert acc.Tags()["histograms"] == ["weights"] and "note/text_summary" in acc.Tags()["tensors"]
    assert acc.Histograms("weights")[0].histogram_value.num == 100
    sub = EventAccumulator(str(tmp_path / "run_b"))
    sub.Reload()
    assert sub.Scalars("run")[0].value == 2.0
    with pytest.raises(AssertionError):
        SummaryWriter(log_dir=str(tmp_path / "x")).add_scalar("bad", nt.ones(2), 0)
