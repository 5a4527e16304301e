"""Drop-in compatibility: small torch-style programs run unmodified on numtorch through the import alias.

Each program below is plain PyTorch code (it also runs on real PyTorch). The tests write it to a
temporary directory and run it as ``python -m numtorch.alias prog.py`` in a subprocess, so
``import torch`` loads numtorch; each program trains (the test checks the loss falls), samples or
evaluates, and round-trips the whole module through ``torch.save(model)`` / ``torch.load``. Other
tests cover the alias itself and whole-module pickles (weights_only refusal, safe_globals, files
written by real PyTorch).
"""
import io
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch as ref

import numtorch as nt
import numtorch.alias

GPT = r"""
import math, warnings
import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(0)
text = "to be or not to be that is the question whether tis nobler in the mind to suffer " * 8
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
block, V, E, H = 16, len(chars), 32, 4

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(E), nn.LayerNorm(E)
        self.qkv, self.proj = nn.Linear(E, 3 * E), nn.Linear(E, E)
        self.mlp = nn.Sequential(nn.Linear(E, 4 * E), nn.GELU(approximate="tanh"), nn.Linear(4 * E, E))
        self.register_buffer("mask", torch.tril(torch.ones(block, block)).view(1, 1, block, block))
    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.qkv(self.ln1(x)).split(E, dim=2)
        q, k, v = (t.view(B, T, H, C // H).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        y2 = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        assert torch.allclose(y, y2, atol=1e-5)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(B, T, C))
        return x + self.mlp(self.ln2(x))

class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, E), nn.Embedding(block, E)
        self.blocks = nn.ModuleList([Block() for _ in range(2)])
        self.ln_f, self.head = nn.LayerNorm(E), nn.Linear(E, V, bias=False)
        self.wte.weight = self.head.weight  # weight tying
        self.apply(self._init)
    def _init(self, m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
    def forward(self, idx, targets=None):
        pos = torch.arange(0, idx.size(1), dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for b in self.blocks:
            x = b(x)
        logits = self.head(self.ln_f(x))
        loss = None if targets is None else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss
    @torch.no_grad()
    def generate(self, idx, n, top_k=5, generator=None):
        for _ in range(n):
            logits, _ = self(idx[:, -block:])
            logits = logits[:, -1, :]
            v, _ = torch.topk(logits, top_k)
            logits[logits < v[:, [-1]]] = -float("Inf")
            nxt = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1, generator=generator)
            idx = torch.cat((idx, nxt), dim=1)
        return idx

model = GPT()
decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
assert sum(p.numel() for p in decay + no_decay) == sum(p.numel() for p in model.parameters())
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                        lr=3e-3, betas=(0.9, 0.95))
g = torch.Generator().manual_seed(1)
losses = []
for it in range(60):
    ix = torch.randint(len(data) - block - 1, (8,), generator=g)
    x = torch.stack([data[i:i + block] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block] for i in ix])
    for group in opt.param_groups:
        group["lr"] = 3e-3 * min(1.0, (it + 1) / 10)
    _, loss = model(x, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    losses.append(loss.item())
print(f"LOSS {sum(losses[:5]) / 5:.4f} {sum(losses[-5:]) / 5:.4f}")
model.eval()
out = model.generate(torch.zeros((1, 1), dtype=torch.long), 20, generator=torch.Generator().manual_seed(2))
print("SAMPLE", "".join(chars[i] for i in out[0].tolist()))
torch.save(model, "gpt.pt")
try:
    torch.load("gpt.pt")
    raise SystemExit("weights_only load of a whole module should refuse")
except Exception as e:
    assert "GPT" in str(e) or "Unsupported global" in str(e), e
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    m2 = torch.load("gpt.pt", weights_only=False)
x = data[:block].view(1, -1)
assert torch.equal(m2(x)[0], model(x)[0])
assert m2.wte.weight is m2.head.weight  # tying survives the round trip
print("SAVE ok")
"""

LSTM_LM = r"""
import warnings
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
text = "the quick brown fox jumps over the lazy dog " * 20
vocab = sorted(set(text))
ids = torch.tensor([vocab.index(c) for c in text])

class LM(nn.Module):
    def __init__(self, V, E=16, Hd=32):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.rnn = nn.LSTM(E, Hd, num_layers=2, batch_first=True, dropout=0.1)
        self.drop = nn.Dropout(0.1)
        self.out = nn.Linear(Hd, V)
    def forward(self, x, hidden=None):
        y, hidden = self.rnn(self.emb(x), hidden)
        return self.out(self.drop(y)), hidden

model = LM(len(vocab))
assert [n for n, _ in model.rnn.named_parameters()][:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0",
                                                            "bias_hh_l0"]
opt = torch.optim.SGD(model.parameters(), lr=1.0, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=20, gamma=0.5)
crit = nn.CrossEntropyLoss()
B, T = 4, 12
stream = ids[: (len(ids) // B) * B].view(B, -1)
hidden, losses = None, []
for epoch in range(3):
    for i in range(0, stream.size(1) - T - 1, T):
        x, y = stream[:, i:i + T], stream[:, i + 1:i + 1 + T]
        if hidden is not None:
            hidden = tuple(h.detach() for h in hidden)  # truncated BPTT
        logits, hidden = model(x, hidden)
        loss = crit(logits.reshape(-1, len(vocab)), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        sched.step()
        losses.append(loss.item())
print(f"LOSS {sum(losses[:3]) / 3:.4f} {sum(losses[-3:]) / 3:.4f}")
model.eval()
with torch.no_grad():
    h, tok, out = None, ids[:1].view(1, 1), []
    for _ in range(20):
        logits, h = model(tok, h)
        tok = logits[:, -1].argmax(-1, keepdim=True)
        out.append(vocab[tok.item()])
print("SAMPLE", "".join(out))
with open("lstm.pt", "wb") as f:
    torch.save(model, f)
with torch.serialization.safe_globals([LM, nn.Embedding, nn.LSTM, nn.Dropout, nn.Linear]):
    m2 = torch.load("lstm.pt")
x = ids[:10].view(1, -1)
assert torch.equal(m2(x)[0], model(x)[0])
print("SAVE ok")
"""

MLP_BN = r"""
import warnings
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
g = torch.Generator().manual_seed(0)
X = torch.randn(512, 10, generator=g)
w = torch.randn(10, 3, generator=g)
y = (X @ w).argmax(dim=1)
ds = TensorDataset(X, y)
loader = DataLoader(ds, batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(1), drop_last=True)
model = nn.Sequential(nn.Linear(10, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=40)
loss_fn = nn.CrossEntropyLoss()

def accuracy():
    model.eval()
    with torch.inference_mode():
        return (model(X).argmax(1) == y).float().mean().item()

acc0, losses = accuracy(), []
model.train()
for epoch in range(5):
    for xb, yb in loader:
        loss = loss_fn(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    sched.step()
acc1 = accuracy()
bn = model[1]
assert bn.num_batches_tracked.item() == 5 * (512 // 64), bn.num_batches_tracked
assert not torch.allclose(bn.running_mean, torch.zeros(64))
print(f"LOSS {sum(losses[:3]) / 3:.4f} {sum(losses[-3:]) / 3:.4f}")
print(f"ACC {acc0:.3f} {acc1:.3f}")
torch.save(model, "mlp.pt")
torch.serialization.add_safe_globals([nn.Sequential, nn.Linear, nn.BatchNorm1d, nn.ReLU])
m2 = torch.load("mlp.pt")
m2.eval()
model.eval()
assert torch.equal(m2(X[:5]), model(X[:5]))
assert torch.equal(m2[1].running_var, bn.running_var)
print("SAVE ok")
"""

CUSTOM_FN = r"""
import warnings
import torch
import torch.nn as nn
from torch.autograd import Function, gradcheck

class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias

class ScaledTanh(Function):
    @staticmethod
    def forward(ctx, x, scale):
        y = torch.tanh(x)
        ctx.save_for_backward(y)
        ctx.scale = scale
        return y * scale

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * ctx.scale * (1 - y * y), None

args = (torch.randn(5, 3, dtype=torch.double, requires_grad=True),
        torch.randn(4, 3, dtype=torch.double, requires_grad=True),
        torch.randn(4, dtype=torch.double, requires_grad=True))
assert gradcheck(LinearFunction.apply, args, eps=1e-6, atol=1e-4)
assert gradcheck(lambda x: ScaledTanh.apply(x, 1.5), (args[0],))

class MyLinear(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(o, i).uniform_(-0.5, 0.5))
        self.bias = nn.Parameter(torch.zeros(o))
    def forward(self, x):
        return LinearFunction.apply(x, self.weight, self.bias)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = MyLinear(2, 16), MyLinear(16, 1)
    def forward(self, x):
        return self.l2(ScaledTanh.apply(self.l1(x), 2.0))

torch.manual_seed(0)
x = torch.rand(128, 2) * 4 - 2
y = (x[:, :1] * x[:, 1:]).sin()
net = Net()
opt = torch.optim.Adam(net.parameters(), lr=0.02)
losses = []
for step in range(150):
    loss = ((net(x) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
out = net(x[:3])
assert out.grad_fn is not None and "LinearFunction" in type(out.grad_fn).__name__, type(out.grad_fn)
print(f"LOSS {losses[0]:.4f} {losses[-1]:.4f}")
torch.save(net, "net.pt")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    n2 = torch.load("net.pt", weights_only=False)
assert torch.equal(n2(x), net(x))
print("SAVE ok")
"""



def run_alias(tmp_path, source, *args, timeout=180):
    """Run ``source`` as a script through ``python -m numtorch.alias``; returns its stdout (asserts exit 0)."""
    prog = tmp_path / "prog.py"
    prog.write_text("import torch as _t\nassert _t.__name__ == 'numtorch', _t\ndel _t\n" + source)
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    res = subprocess.run([sys.executable, "-m", "numtorch.alias", str(prog), *args], cwd=tmp_path,
                         capture_output=True, text=True, timeout=timeout, env=env)
    assert res.returncode == 0, f"exit {res.returncode}\nstdout:\n{res.stdout}\nstderr:\n{res.stderr[-4000:]}"
    return res.stdout


def losses(out):
    line = next(ln for ln in out.splitlines() if ln.startswith("LOSS "))
    first, last = map(float, line.split()[1:3])
    return first, last


@pytest.mark.parametrize("name, source, ratio", [("gpt", GPT, 0.92), ("lstm", LSTM_LM, 0.6),
                                                  ("mlp_bn", MLP_BN, 0.5), ("custom_fn", CUSTOM_FN, 0.5)])
def test_program_trains_and_saves_whole_module(tmp_path, name, source, ratio):
    out = run_alias(tmp_path, source)
    first, last = losses(out)
    assert np.isfinite(first) and last < ratio * first, out
    assert "SAVE ok" in out, out
    if name == "gpt":  # top-k multinomial sampling produced text from the vocabulary
        sample = next(ln for ln in out.splitlines() if ln.startswith("SAMPLE "))[len("SAMPLE "):]
        assert len(sample) == 21 and set(sample) <= set(GPT.split('"')[1])
    if name == "mlp_bn":
        acc0, acc1 = map(float, next(ln for ln in out.splitlines() if ln.startswith("ACC ")).split()[1:])
        assert acc1 > 0.9 and acc1 > acc0 + 0.3, out


# ---- the alias ----------------------------------------------------------------------------------
def test_alias_resolves_submodules_and_passes_argv(tmp_path):
    src = """
import sys
import torch, torch.nn.functional as F
from torch.nn.modules.linear import Linear
from torch.utils.data import DataLoader
import torch.backends.cudnn as cudnn, torch.cuda.amp, torch.nn.parallel, torch.utils.checkpoint
from torch.utils.data.distributed import DistributedSampler
import torch.multiprocessing as mp
print(torch.__name__, F.__name__, Linear.__module__, cudnn.__name__, sys.argv[1:])
"""
    out = run_alias(tmp_path, src, "--flag", "3")
    assert out.split() == ["numtorch", "numtorch.nn.functional", "numtorch.nn.modules.linear",
                           "numtorch.backends.cudnn", "['--flag',", "'3']"]


def test_alias_missing_submodule_names_numtorch_path(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text("import torch.no_such_module\n")
    res = subprocess.run([sys.executable, "-m", "numtorch.alias", str(prog)], capture_output=True, text=True,
                         timeout=60)
    assert res.returncode != 0
    assert "ModuleNotFoundError" in res.stderr and "numtorch.no_such_module" in res.stderr


def test_alias_runs_module_with_dash_m(tmp_path):
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    (tmp_path / "mypkg" / "__main__.py").write_text("import torch\nprint(torch.__name__, torch.ones(2).sum().item())\n")
    res = subprocess.run([sys.executable, "-m", "numtorch.alias", "-m", "mypkg"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["numtorch", "2.0"]


def test_alias_refuses_when_real_torch_is_loaded():
    # this test process has imported the real torch (the oracle), so installing the alias must refuse
    with pytest.raises(RuntimeError, match="real torch is already imported"):
        numtorch.alias.install()


# ---- whole-module pickles -------------------------------------------------------------------------
def _net():
    return nt.nn.Sequential(nt.nn.Linear(3, 4), nt.nn.BatchNorm1d(4), nt.nn.ReLU(), nt.nn.LSTM(4, 5))


def _save(obj):
    buf = io.BytesIO()
    nt.save(obj, buf)
    buf.seek(0)
    return buf


def test_whole_module_weights_only_refuses_naming_the_class():
    buf = _save(_net())
    with pytest.raises(pickle.UnpicklingError, match="Sequential"):
        nt.load(buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global"):
        nt.load(buf, weights_only=True)


def test_whole_module_safe_globals_and_add_safe_globals():
    net = _net().eval()
    x = nt.randn(2, 3)
    allowed = [nt.nn.Sequential, nt.nn.Linear, nt.nn.BatchNorm1d, nt.nn.ReLU, nt.nn.LSTM]
    buf = _save(net)
    with nt.serialization.safe_globals(allowed):
        m = nt.load(buf)
    assert nt.nn.LSTM not in nt.serialization.get_safe_globals()  # the context manager restores the list
    assert type(m) is nt.nn.Sequential and nt.equal(m[:3](x), net[:3](x))
    assert nt.equal(m[3](m[:3](x).unsqueeze(0))[0], net[3](net[:3](x).unsqueeze(0))[0])
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="LSTM"):  # one class missing from the list
        with nt.serialization.safe_globals(allowed[:-1]):
            nt.load(buf)
    try:
        nt.serialization.add_safe_globals(allowed)
        buf.seek(0)
        assert nt.equal(nt.load(buf)[0].weight, net[0].weight)
    finally:
        nt.serialization.clear_safe_globals()


def test_whole_module_weights_only_false_warns_and_keeps_parameters():
    net = _net()
    buf = _save(net)
    with warnings.catch_warnings():  # PyTorch 2.13 does not warn on an explicit weights_only=False
        warnings.simplefilter("error", UserWarning)
        m = nt.load(buf, weights_only=False)
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in net.named_parameters()]
    assert all(type(p) is nt.nn.Parameter and p.requires_grad for p in m.parameters())
    assert m[1].num_batches_tracked.dtype == nt.int64


def test_whole_module_written_by_real_torch_loads(tmp_path):
    ref.manual_seed(0)
    tm = ref.nn.Sequential(ref.nn.Linear(3, 4), ref.nn.LayerNorm(4), ref.nn.GELU(), ref.nn.GRU(4, 5, batch_first=True))
    ref.save(tm, tmp_path / "m.pt")
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.container.Sequential"):
        nt.load(tmp_path / "m.pt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = nt.load(tmp_path / "m.pt", weights_only=False)
    assert type(m[3]) is nt.nn.GRU and type(m[1]) is nt.nn.LayerNorm
    x = np.random.default_rng(0).standard_normal((2, 6, 3)).astype(np.float32)
    with ref.no_grad():
        expect = tm[3](tm[:3](ref.from_numpy(x)))[0].numpy()
    got = m[3](m[:3](nt.from_numpy(x)))[0].detach().numpy()
    np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-6)
    # the same classes, named by their torch paths, are accepted once allowed
    with nt.serialization.safe_globals([nt.nn.Sequential, nt.nn.Linear, nt.nn.LayerNorm, nt.nn.GELU, nt.nn.GRU]):
        assert type(nt.load(tmp_path / "m.pt")[3]) is nt.nn.GRU
