"""The ``meta`` device (docs/meta.md): tensors with a shape and a dtype but no data, against PyTorch's.

Each case runs the same code on numtorch and on PyTorch, both on their meta device, and compares the
results' shapes, dtypes, devices, grad_fn names and requires_grad; then the exception types of the
value reads, the default-device context, ``Module.to``/``to_empty``/``load_state_dict`` on meta modules,
a GPT built on meta and materialized, and the memory a big meta model costs (tracemalloc).
"""
import threading
import tracemalloc
import warnings

import numpy as np
import pytest
import torch as ref

import numtorch


def _flat(o):
    if isinstance(o, (tuple, list)):
        return [y for x in o for y in _flat(x)]
    return [o]


def _desc(lib, o, names=True):
    """(shape, dtype, device, grad_fn name, requires_grad) of each tensor in ``o`` (nested tuples/lists)."""
    out = []
    for x in _flat(o):
        if isinstance(x, lib.Tensor):
            name = x.grad_fn.name() if x.grad_fn is not None and names else None
            out.append((tuple(x.shape), str(x.dtype), str(x.device), name, x.requires_grad))
        else:
            out.append(repr(x))
    return out


def _op_cases(torch):
    """name -> a function making meta tensors and running ops on them (the same code for both libraries)."""
    F = torch.nn.functional
    M = dict(device="meta")
    x = lambda *s, **k: torch.randn(*s, **M, **k)  # noqa: E731
    ints = lambda *s, dtype=torch.int64: torch.zeros(*s, dtype=dtype, **M)  # noqa: E731
    C = {}
    C["add"] = lambda: x(3, 4) + x(4)
    C["add_scalar_int"] = lambda: ints(3) + 2.5
    C["mul_cpu_scalar"] = lambda: x(3) * torch.tensor(2.)
    C["promote"] = lambda: (ints(3, dtype=torch.int32) * x(3, dtype=torch.float64), ints(2) / 2, ints(2) // 2)
    C["matmul"] = lambda: x(2, 3, 4) @ x(4, 5)
    C["matmul_vec"] = lambda: (x(4) @ x(4, 5), x(2, 3, 4) @ x(4), x(4) @ x(4))
    C["bmm"] = lambda: torch.bmm(x(2, 3, 4), x(2, 4, 5))
    C["einsum"] = lambda: torch.einsum("bij,bjk->bik", x(2, 3, 4), x(2, 4, 5))
    C["sum"] = lambda: (x(3, 4).sum(), x(3, 4).sum(1, keepdim=True), x(3, 4, dtype=torch.float64).mean(0))
    C["int_sum"] = lambda: ints(3, 4, dtype=torch.int32).sum()
    C["reductions"] = lambda: (x(3, 4).var(1), x(3, 4).std(), x(3, 4).norm(), x(3, 4).prod(0), x(3, 4).amax((0, 1)),
                               x(3, 4).logsumexp(1), x(3, 4).cumsum(1), ints(3).bool().any())
    C["max"] = lambda: x(3, 4).max(1)
    C["argmax"] = lambda: x(3, 4).argmax(-1)
    C["sort_topk"] = lambda: (x(3, 5).sort(1), x(3, 5).topk(2), x(3, 5).argsort())
    C["softmax"] = lambda: (F.softmax(x(3, 4), -1), F.log_softmax(x(3, 4), 0))
    C["reshape"] = lambda: (x(3, 4).reshape(2, 6), x(3, 4).view(-1), x(3, 4).t(), x(2, 3, 4).permute(2, 0, 1),
                            x(3, 1).expand(3, 5), x(3, 4).unsqueeze(0), x(3, 1).squeeze(), x(2, 3).repeat(2, 2),
                            x(2, 3, 4).flatten(1), x(3, 4).t().contiguous(), x(4, 4).tril())
    C["cat"] = lambda: (torch.cat([x(2, 3), x(4, 3)]), torch.stack([x(2, 3), x(2, 3)], 1))
    C["split"] = lambda: (x(6, 2).split(2), x(6, 2).chunk(3, 1), x(4, 3).unbind(1))
    C["index"] = lambda: (x(5, 4)[1], x(5, 4)[:, 1:3], x(5, 4)[None, ..., 2], x(5, 4)[ints(2, 3)],
                          x(5, 4).index_select(1, ints(2)), x(5, 4).gather(1, ints(5, 2)))
    C["scatter"] = lambda: (x(5, 4).scatter(1, ints(5, 2), x(5, 2)), x(5, 4).index_add(0, ints(3), x(3, 4)),
                            x(3, 4).masked_fill(x(3, 4) > 0, 0.0))
    C["compare"] = lambda: (x(3) > 0, x(3) == x(3), torch.where(x(3) > 0, x(3), x(3)), torch.isnan(x(3)))
    C["cast"] = lambda: (x(3).double(), x(3).to(torch.int64), x(3).half(), x(3).to(x(1, dtype=torch.float64)))
    C["unary"] = lambda: (x(3).exp(), x(3).tanh(), x(3).sigmoid(), x(3).relu(), F.gelu(x(3)), x(3).abs(),
                          torch.sqrt(x(3)), x(3).clamp(0, 1), x(3) ** 2, F.softplus(x(3)), F.silu(x(3)))
    C["linear"] = lambda: F.linear(x(5, 3), x(4, 3), x(4))
    C["conv2d"] = lambda: F.conv2d(x(2, 3, 16, 16), x(8, 3, 3, 3), x(8), stride=2, padding=1)
    C["conv1d"] = lambda: F.conv1d(x(2, 3, 16), x(8, 3, 5), None, dilation=2)
    C["conv_transpose1d"] = lambda: F.conv_transpose1d(x(2, 4, 7), x(4, 3, 3), stride=3, padding=1, output_padding=2)
    C["pools"] = lambda: (F.max_pool2d(x(2, 3, 16, 16), 2), F.avg_pool2d(x(2, 3, 15, 15), 3, 2, 1),
                          F.adaptive_avg_pool2d(x(2, 3, 15, 15), (4, 5)), F.max_pool1d(x(3, 10), 3, ceil_mode=True))
    C["maxpool_idx"] = lambda: F.max_pool2d(x(2, 3, 16, 16), 2, return_indices=True)
    C["pad_interpolate"] = lambda: (F.pad(x(2, 3, 4), (1, 2)), F.interpolate(x(1, 2, 4, 4), scale_factor=2),
                                    F.interpolate(x(1, 2, 5), size=7, mode="linear"))
    C["batchnorm"] = lambda: F.batch_norm(x(4, 3, 5), x(3), x(3).abs(), x(3), x(3), training=True)
    C["layernorm"] = lambda: F.layer_norm(x(4, 3, 5), (5,), x(5), x(5))
    C["groupnorm"] = lambda: F.group_norm(x(4, 6, 5), 3, x(6), x(6))
    C["embedding"] = lambda: (F.embedding(ints(2, 7), x(10, 4)), F.one_hot(ints(3), 5))
    C["dropout"] = lambda: F.dropout(x(3, 4), 0.5, training=True)
    C["sdpa"] = lambda: F.scaled_dot_product_attention(x(2, 4, 6, 8), x(2, 4, 6, 8), x(2, 4, 6, 8), is_causal=True)
    C["cross_entropy"] = lambda: (F.cross_entropy(x(4, 5), ints(4)), F.cross_entropy(x(4, 5, 3), ints(4, 3), reduction="none"))
    C["losses"] = lambda: (F.mse_loss(x(4, 5), x(4, 5)), F.mse_loss(x(4, 5), x(4, 5), reduction="none"),
                           F.nll_loss(x(4, 5), ints(4)), F.binary_cross_entropy_with_logits(x(3), x(3)),
                           F.smooth_l1_loss(x(3), x(3)), F.kl_div(x(3, 2), x(3, 2), reduction="batchmean"))
    C["arange"] = lambda: (torch.arange(10, **M), torch.arange(0, 1, 0.1, **M), torch.linspace(0, 1, 7, **M),
                           torch.eye(3, 4, **M), torch.logspace(0, 1, 3, **M))
    C["factories"] = lambda: (torch.zeros(2, 3, **M), torch.ones(2, dtype=torch.int32, **M), torch.full((2,), 3, **M),
                              torch.full((2,), 1.5, **M), torch.empty(0, **M), torch.rand(2, **M),
                              torch.randint(0, 5, (3,), **M), torch.randperm(4, **M), torch.tensor([1, 2], **M),
                              torch.tensor(3.0, **M), torch.zeros(2, **M, requires_grad=True))
    C["like"] = lambda: (torch.zeros_like(x(2, 3)), torch.empty_like(x(2, 3), dtype=torch.int64), torch.ones_like(x(2)),
                         torch.full_like(x(2), 7), torch.rand_like(x(2, 3)), torch.randn_like(x(3)), x(2).new_zeros(4),
                         x(2).new_empty((3, 1)), x(2).new_full((2,), 3), x(2).new_tensor([1.0]),
                         torch.empty_like(torch.ones(2), device="meta"))
    C["to_meta"] = lambda: (torch.ones(2, 3).to("meta"), torch.ones(2, 3, requires_grad=True).to("meta"),
                            torch.ones(2).to(device="meta", dtype=torch.float64), torch.ones(2).to(x(1)))
    C["inplace"] = lambda: (x(3).add_(1), x(3).zero_(), x(3).fill_(2.0), x(3).uniform_(), x(3).normal_(),
                            x(2, 3).copy_(torch.ones(3)), x(3).mul_(x(3)), x(2, 3).t_(), x(3).clamp_(0, 1))
    return C


def _grad_cases(torch):
    nn, F = torch.nn, torch.nn.functional
    M = dict(device="meta")
    def leaf(*s, dtype=None):
        return torch.randn(*s, device="meta", dtype=dtype, requires_grad=True)
    C = {}
    def mlp():
        a, w, b = leaf(5, 3), leaf(4, 3), leaf(4)
        (F.relu(F.linear(a, w, b)) ** 2).mean().backward()
        return a.grad, w.grad, b.grad
    C["mlp"] = mlp
    def conv():
        a, w = leaf(2, 3, 8, 8), leaf(4, 3, 3, 3)
        F.max_pool2d(F.conv2d(a, w, padding=1), 2).sum().backward()
        return a.grad, w.grad
    C["conv"] = conv
    def attn():
        q, k, v = leaf(2, 2, 5, 4), leaf(2, 2, 5, 4), leaf(2, 2, 5, 4)
        F.scaled_dot_product_attention(q, k, v).sum().backward()
        return q.grad, k.grad, v.grad
    C["attn"] = attn
    def multi():
        a = leaf(6, 4, dtype=torch.float64)
        p, q = a.split(3)
        (p * 2).sum().backward()
        return a.grad
    C["multi_out"] = multi
    def ce():
        a = leaf(4, 5)
        F.cross_entropy(a.softmax(-1), torch.zeros(4, dtype=torch.int64, **M)).backward()
        return a.grad
    C["ce"] = ce
    return C


def _module_cases(torch):
    """name -> (build modules on meta, run) ; run returns outputs and the grads of the parameters."""
    nn, F = torch.nn, torch.nn.functional
    def run(build, inputs):
        def f():
            torch.manual_seed(0)
            with torch.device("meta"):
                m = build()
                xs = inputs()
            out = m(*xs)
            first = out[0] if isinstance(out, tuple) else out
            first.float().sum().backward()
            return out, [p.grad for p in m.parameters()], [x.grad for x in xs if x.requires_grad]
        return f
    r = lambda *s: (lambda: (torch.randn(*s, requires_grad=True),))
    C = {
        "Linear": run(lambda: nn.Linear(6, 4), r(3, 6)),
        "Bilinear": run(lambda: nn.Bilinear(3, 4, 5), lambda: (torch.randn(2, 3), torch.randn(2, 4))),
        "Conv1d": run(lambda: nn.Conv1d(3, 4, 3, padding=2, dilation=2), r(2, 3, 9)),
        "Conv2d": run(lambda: nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1, groups=1), nn.ReLU(), nn.MaxPool2d(2, ceil_mode=True), nn.BatchNorm2d(8), nn.GroupNorm(2, 8)), r(2, 3, 17, 17)),
        "Conv2d_unbatched": run(lambda: nn.Conv2d(3, 6, 3, groups=3), r(3, 9, 9)),
        "ConvTranspose2d": run(lambda: nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1), r(2, 4, 5, 5)),
        "Conv3d": run(lambda: nn.Conv3d(2, 3, 2), r(1, 2, 4, 4, 4)),
        "Pools": run(lambda: nn.Sequential(nn.AvgPool2d(3, 2, 1), nn.AdaptiveMaxPool2d((3, 2)), nn.AdaptiveAvgPool2d(2)), r(2, 3, 13, 11)),
        "MaxPool1d_idx": run(lambda: nn.MaxPool1d(3, 2, 1, return_indices=True), r(2, 3, 10)),
        "LayerNorm": run(lambda: nn.Sequential(nn.LayerNorm(5), nn.GELU(), nn.Dropout(0.3), nn.SiLU(), nn.Tanh()), r(4, 3, 5)),
        "BatchNorm1d": run(lambda: nn.BatchNorm1d(5), r(4, 5)),
        "Embedding": run(lambda: nn.Embedding(10, 4, padding_idx=0), lambda: (torch.zeros(3, 7, dtype=torch.int64),)),
        "MultiheadAttention": run(lambda: nn.MultiheadAttention(8, 2, batch_first=True), lambda: (torch.randn(2, 5, 8), torch.randn(2, 6, 8), torch.randn(2, 6, 8))),
        "TransformerEncoderLayer": run(lambda: nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), r(2, 7, 16)),
        "LSTM": run(lambda: nn.LSTM(5, 6, 2, batch_first=True), r(3, 4, 5)),
        "GRU": run(lambda: nn.GRU(5, 6, bidirectional=True), r(4, 3, 5)),
        "RNN_unbatched": run(lambda: nn.RNN(5, 6), r(4, 5)),
        "Softmax_CE": run(lambda: nn.Sequential(nn.Linear(4, 5), nn.LogSoftmax(-1)), r(3, 4)),
        "Flatten_Unflatten": run(lambda: nn.Sequential(nn.Flatten(), nn.Linear(12, 4), nn.Unflatten(1, (2, 2))), r(2, 3, 4)),
    }
    return C


_OPS, _GRADS, _MODULES = _op_cases(numtorch), _grad_cases(numtorch), _module_cases(numtorch)
_ROPS, _RGRADS, _RMODULES = _op_cases(ref), _grad_cases(ref), _module_cases(ref)


@pytest.mark.parametrize("name", list(_OPS))
def test_ops_on_meta(name):
    assert _desc(numtorch, _OPS[name]()) == _desc(ref, _ROPS[name]())


@pytest.mark.parametrize("name", list(_GRADS))
def test_backward_on_meta(name):
    """loss.backward() on meta tensors: meta gradients of the leaves' shapes and dtypes."""
    assert _desc(numtorch, _GRADS[name]()) == _desc(ref, _RGRADS[name]())


@pytest.mark.parametrize("name", list(_MODULES))
def test_modules_on_meta(name):
    """Modules built under ``with torch.device("meta")``, forward and backward. grad_fn names are left out:
    a few differ from PyTorch's on the CPU too (numtorch's fused Bilinear, unbatched conv and pooling)."""
    assert _desc(numtorch, _MODULES[name](), names=False) == _desc(ref, _RMODULES[name](), names=False)


# ------------------------------------------------------------------------------------------------ values
def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (the type is what is compared)
        return type(e)
    return None


_READS = {
    "item": lambda t, x: x.item(),
    "item_1": lambda t, x: x[0, 0].item(),
    "numpy": lambda t, x: x.numpy(),
    "tolist": lambda t, x: x.tolist(),
    "to_cpu": lambda t, x: x.to("cpu"),
    "cpu": lambda t, x: x.cpu(),
    "bool": lambda t, x: bool(x[0, 0]),
    "float": lambda t, x: float(x[0, 0]),
    "int": lambda t, x: int(x[0, 0]),
    "asarray": lambda t, x: np.asarray(x),
    "mix_cpu": lambda t, x: x + t.ones(3, 4),
    "mix_cpu_0d": lambda t, x: x + t.tensor(1.0),
    "copy_into_cpu": lambda t, x: t.zeros(3, 4).copy_(x),
    "nonzero": lambda t, x: t.nonzero(x),
    "legacy_constructor": lambda t, x: t.Tensor(2, 3, device="meta"),
    "masked_select": lambda t, x: t.masked_select(x, x > 0),
    "bool_index": lambda t, x: x[x > 0],
    "unique": lambda t, x: t.unique(x),
}


@pytest.mark.parametrize("name", list(_READS))
def test_value_reads_raise_as_torch(name):
    x = numtorch.empty(3, 4, device="meta")
    r = ref.empty(3, 4, device="meta")
    got, want = _error(lambda: _READS[name](numtorch, x)), _error(lambda: _READS[name](ref, r))
    assert got is want


def test_messages():
    x = numtorch.empty(3, 4, device="meta")
    with pytest.raises(RuntimeError, match="Tensor.item\\(\\) cannot be called on meta tensors"):
        x[0, 0].item()
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        x.to("cpu")
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        x.numpy()


@pytest.mark.parametrize("make", [
    lambda t: t.empty(3, 4, device="meta"),
    lambda t: t.zeros(0, device="meta"),
    lambda t: t.tensor(3.0, device="meta"),
    lambda t: t.zeros(2, dtype=t.int64, device="meta"),
    lambda t: t.ones(2, 2, dtype=t.float64, device="meta"),
    lambda t: t.zeros(3, device="meta", requires_grad=True),
    lambda t: t.zeros(3, device="meta", requires_grad=True) * 2,
    lambda t: t.nn.Linear(3, 4, device="meta").weight,
])
def test_repr(make):
    assert repr(make(numtorch)) == repr(make(ref))
    assert str(make(numtorch)) == str(make(ref))


def test_metadata():
    for lib in (numtorch, ref):
        x = lib.empty(3, 4, 5, device="meta")
        assert x.is_meta and not x.is_cpu and x.device == lib.device("meta") and str(x.device) == "meta"
        assert x.stride() == (20, 5, 1) and x.is_contiguous() and x.numel() == 60 and x.element_size() == 4
        assert x.shape == (3, 4, 5) and not lib.empty(2).is_meta


def test_no_generator_draws():
    """Random factories on meta draw nothing, so the CPU stream continues as if they had not run."""
    for lib in (numtorch, ref):
        lib.manual_seed(3)
        lib.rand(1000, device="meta")
        lib.empty(5, device="meta").normal_()
        a = lib.rand(3)
        lib.manual_seed(3)
        b = lib.rand(3)
        assert a.tolist() == b.tolist()


def test_save_load_and_pickle():
    """torch.save of meta tensors (PyTorch's _rebuild_meta_tensor_no_storage records), both directions."""
    import io
    import pickle
    x = numtorch.empty(3, 4, device="meta", dtype=numtorch.float64, requires_grad=True)
    assert repr(pickle.loads(pickle.dumps(x))) == repr(x)
    for save, load, lib_in in ((numtorch.save, ref.load, numtorch), (ref.save, numtorch.load, ref)):
        buf = io.BytesIO()
        t = lib_in.empty(3, 4, device="meta", dtype=lib_in.float64, requires_grad=True)
        save({"t": t, "sd": lib_in.nn.Linear(2, 3, device="meta").state_dict()}, buf)
        buf.seek(0)
        got = load(buf)
        assert (tuple(got["t"].shape), str(got["t"].dtype), got["t"].requires_grad) == ((3, 4), "torch.float64", True)
        assert got["t"].is_meta and got["sd"]["weight"].is_meta and tuple(got["sd"]["weight"].shape) == (3, 2)


# ------------------------------------------------------------------------------------------------ default device
def test_device_context_and_default_device():
    for lib in (numtorch, ref):
        assert lib.get_default_device() == lib.device("cpu")
        with lib.device("meta"):
            assert lib.get_default_device() == lib.device("meta")
            assert lib.zeros(2).is_meta and lib.arange(3).is_meta and lib.tensor([1.0]).is_meta
            assert not lib.zeros(2, device="cpu").is_meta
            with lib.device("cpu"):
                assert not lib.ones(2).is_meta
            assert lib.randn(2).is_meta
        assert not lib.zeros(2).is_meta
        lib.set_default_device("meta")
        try:
            assert lib.empty(2).is_meta and lib.get_default_device() == lib.device("meta")
        finally:
            lib.set_default_device(None)  # back to no default (torch: "cpu" would leave a device mode active)
        assert not lib.empty(2).is_meta


def test_device_context_is_per_thread():
    seen = []
    with numtorch.device("meta"):
        t = threading.Thread(target=lambda: seen.append(numtorch.zeros(1).is_meta))
        t.start()
        t.join()
        assert numtorch.zeros(1).is_meta
    assert seen == [False]


# ------------------------------------------------------------------------------------------------ modules
def _module_moves(lib):
    nn = lib.nn
    out = []
    with lib.device("meta"):
        m = nn.Linear(3, 4)
    w = m.weight
    m.to_empty(device="cpu")
    out += [m.weight is w, str(m.weight.device), type(m.weight).__name__, m.weight.requires_grad, m.weight.shape]
    m2 = nn.Linear(3, 4)
    w2 = m2.weight
    m2.to("meta")
    out += [m2.weight is w2, str(m2.weight.device), m2.weight.requires_grad]
    bn = nn.BatchNorm1d(3).to("meta")
    out += [str(bn.running_mean.device), bn.num_batches_tracked.dtype is lib.int64]
    bn.to_empty(device="cpu")
    out += [str(bn.running_var.device), bn.num_batches_tracked.dtype is lib.int64]
    seq = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2)).to("meta")
    seq.to_empty(device="cpu", recurse=False)
    out += [str(seq[0].weight.device)]
    return out


def test_module_to_and_to_empty_as_torch():
    assert _module_moves(numtorch) == _module_moves(ref)


def _load(lib, assign):
    nn = lib.nn
    lib.manual_seed(0)
    src = nn.Linear(3, 4)
    with lib.device("meta"):
        m = nn.Linear(3, 4)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = m.load_state_dict(src.state_dict(), assign=assign)
    meta_warn = [str(x.message).split(":")[0] for x in w if "meta parameter" in str(x.message)]
    return [str(res), str(m.weight.device), type(m.weight).__name__, m.weight.requires_grad, meta_warn,
            None if m.weight.is_meta else m.weight.tolist() == src.weight.tolist()]


@pytest.mark.parametrize("assign", [False, True])
def test_load_state_dict_onto_meta(assign):
    assert _load(numtorch, assign) == _load(ref, assign)


def _reset_after_to_empty(lib):
    """Build on meta (no draws), materialize, then initialise: the values a normal build gives."""
    nn = lib.nn
    with lib.device("meta"):
        m = nn.Sequential(nn.Linear(4, 3), nn.LayerNorm(3), nn.Conv1d(2, 2, 3))
    m.to_empty(device="cpu")
    lib.manual_seed(5)
    for layer in m:
        layer.reset_parameters()
    return [p.detach().numpy().tolist() for p in m.parameters()]


def test_reset_parameters_after_to_empty():
    def normal(lib):
        lib.manual_seed(5)
        nn = lib.nn
        m = nn.Sequential(nn.Linear(4, 3), nn.LayerNorm(3), nn.Conv1d(2, 2, 3))
        return [p.detach().numpy().tolist() for p in m.parameters()]
    assert _reset_after_to_empty(numtorch) == _reset_after_to_empty(ref) == normal(numtorch) == normal(ref)


def _optimizer_state(lib):
    out = []
    for make in (lambda ps: lib.optim.Adam(ps), lambda ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9),
                 lambda ps: lib.optim.AdamW(ps)):
        p = lib.nn.Parameter(lib.randn(3, 2, device="meta"))
        p.grad = lib.randn(3, 2, device="meta")
        opt = make([p])
        opt.step()
        out.append([p.is_meta] + [(k, str(v.device), tuple(v.shape)) for k, v in opt.state[p].items() if v.ndim])
    return out


def test_optimizer_step_on_meta():
    assert _optimizer_state(numtorch) == _optimizer_state(ref)


def test_skip_init_builds_on_meta():
    numtorch.manual_seed(1)
    m = numtorch.nn.utils.skip_init(numtorch.nn.Linear, 300, 200)
    assert m.weight.shape == (200, 300) and not m.weight.is_meta
    a = numtorch.rand(2)
    numtorch.manual_seed(1)
    assert numtorch.rand(2).tolist() == a.tolist()  # nothing drawn


def test_gpt_built_on_meta_then_materialized():
    """nanoGPT's recipe: build on meta, ``to_empty`` on the CPU, load a checkpoint; same outputs."""
    from numtorch.examples.gpt import GPT, GPTConfig
    cfg = GPTConfig(block_size=16, vocab_size=11, n_layer=2, n_head=2, n_embd=8)
    numtorch.manual_seed(0)
    normal = GPT(cfg)
    with numtorch.device("meta"):
        lazy = GPT(cfg)
    assert all(p.is_meta for p in lazy.parameters())
    idx = numtorch.randint(0, 11, (3, 16), device="meta")
    logits, loss = lazy(idx, idx)
    loss.backward()
    assert logits.is_meta and logits.shape == (3, 16, 11) and loss.shape == () and loss.is_meta
    assert all(p.grad is not None and p.grad.is_meta and p.grad.shape == p.shape for p in lazy.parameters())
    lazy.zero_grad()
    lazy.to_empty(device="cpu")
    lazy.load_state_dict(normal.state_dict())
    x = numtorch.randint(0, 11, (2, 16))
    a, la = normal(x, x)
    b, lb = lazy(x, x)
    assert numtorch.equal(a, b) and la.item() == lb.item()


def test_hot_path_is_back_once_meta_tensors_are_gone():
    """Op.apply consults the meta dispatcher only while meta arrays are alive (``_backend.LIVE``)."""
    import gc
    from numtorch._backend import LIVE
    gc.collect()
    before = len(LIVE)
    x = numtorch.randn(4, 3, device="meta", requires_grad=True)
    (x.t() @ x).sum().backward()
    assert len(LIVE) > before
    del x
    gc.collect()
    assert len(LIVE) == before


def test_big_model_on_meta_costs_no_memory():
    """Linear(20000, 20000) (1.6 GB of float32 weights) with a (512, 20000) batch, forward and backward."""
    def run():
        with numtorch.device("meta"):
            m = numtorch.nn.Linear(20000, 20000)
            x = numtorch.randn(512, 20000, requires_grad=True)
        y = numtorch.nn.functional.gelu(m(x))
        (y ** 2).mean().backward()
        return y, m.weight.grad, x.grad
    run()  # first calls import and cache what they need
    tracemalloc.start()
    try:
        y, gw, gx = run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000, peak
    assert (y.shape, gw.shape, gx.shape) == ((512, 20000), (20000, 20000), (512, 20000))
    assert y.is_meta and gw.is_meta and gx.is_meta
