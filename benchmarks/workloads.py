"""Benchmark workloads, written once against the PyTorch API.

Each ``make_*`` takes the framework module (``numtorch`` or ``torch``) and a NumPy RNG-derived data
dict, and returns a zero-argument ``step()`` that runs one unit of work (a training step: forward,
loss, ``zero_grad``, backward, optimizer step). Weights are created by the framework, then made
identical across frameworks through ``state_dict`` (``state_arrays`` / ``load_arrays``, or
``sync_weights`` in one process) so both compute the same. ``make_step`` builds any workload by name.
"""
from __future__ import annotations

import numpy as np


def state_arrays(model) -> dict:
    """A model's ``state_dict`` as NumPy arrays (framework-neutral)."""
    return {k: np.array(v.detach().cpu().numpy(), copy=True) for k, v in model.state_dict().items()}


def load_arrays(model, arrays, torch):
    """Load ``state_arrays`` output into ``model`` of framework ``torch``."""
    model.load_state_dict({k: torch.tensor(np.asarray(v)) for k, v in arrays.items()})


def sync_weights(src_model, dst_model, dst_torch):
    """Copy ``src_model``'s weights into ``dst_model`` through NumPy (framework-neutral)."""
    load_arrays(dst_model, state_arrays(src_model), dst_torch)


def make_step(torch, name, data=None, weights=None):
    """``(step, weights)`` for the workload ``name`` on framework ``torch``.

    ``weights``: ``state_arrays`` of the model to start from (another framework's initial weights);
    the returned ``weights`` are the model's initial ones (None for workloads without a model).
    Names: op_overhead, makemore_mlp, mnist_mlp, small_cnn, gpt_tiny, gpt_inference_b1,
    gpt_inference_b12, matmul (1024^3 GEMM), matmul_numpy (the same GEMM in raw NumPy).
    """
    data = make_data() if data is None else data
    if name == "op_overhead":
        return make_op_overhead(torch, data), None
    if name in ("matmul", "matmul_numpy"):
        rng = np.random.default_rng(0)
        a, b = (rng.standard_normal((MATMUL_N, MATMUL_N), dtype=np.float32) for _ in range(2))
        if name == "matmul_numpy":
            return (lambda: a @ b), None
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        return (lambda: ta @ tb), None
    if name.startswith("gpt_inference_b"):
        model = build_gpt(torch)
        make = lambda fw, d, m: make_gpt_inference(fw, d, m, int(name[len("gpt_inference_b"):]))  # noqa: E731
    else:
        build, make = {"makemore_mlp": (build_makemore, make_makemore_mlp),
                       "mnist_mlp": (build_mnist_mlp, make_mnist_mlp),
                       "small_cnn": (build_small_cnn, make_small_cnn),
                       "gpt_tiny": (build_gpt, make_gpt_tiny)}[name]
        model = build(torch)
    if weights is not None:
        load_arrays(model, weights, torch)
    initial = state_arrays(model)
    return make(torch, data, model), initial


MATMUL_N = 1024


# ---- 1. op_overhead -----------------------------------------------------------------------------
N_OPS = 20


def make_op_overhead(torch, data):
    x = torch.tensor(data["vec16"], requires_grad=True)

    def step():
        y = x
        for i in range(N_OPS // 4):
            y = y * 1.01
            y = y + 0.5
            y = y.tanh()
            y = y - 0.1
        y.sum().backward()
        x.grad = None
    return step


def _classifier_step(torch, model, x, y, opt):
    """One training step of a classifier on fixed (x, y): forward, cross-entropy, zero_grad, backward, step."""
    X, Y = torch.tensor(x), torch.tensor(y)
    F = torch.nn.functional

    def step():
        loss = F.cross_entropy(model(X), Y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return step


# ---- 2. makemore_mlp ----------------------------------------------------------------------------
def build_makemore(torch):
    nn = torch.nn

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(27, 10)
            self.net = nn.Sequential(nn.Linear(30, 200, bias=False), nn.BatchNorm1d(200), nn.Tanh(),
                                     nn.Linear(200, 27))

        def forward(self, x):
            return self.net(self.emb(x).view(x.shape[0], -1))
    return MLP()


def make_makemore_mlp(torch, data, model):
    return _classifier_step(torch, model, data["mm_x"], data["mm_y"],
                            torch.optim.SGD(model.parameters(), lr=0.1))


# ---- 3. mnist_mlp -------------------------------------------------------------------------------
def build_mnist_mlp(torch):
    nn = torch.nn
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))


def make_mnist_mlp(torch, data, model):
    return _classifier_step(torch, model, data["mnist_x"], data["mnist_y"],
                            torch.optim.Adam(model.parameters(), lr=1e-3))


# ---- 4. small_cnn -------------------------------------------------------------------------------
def build_small_cnn(torch):
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(784, 10))


def make_small_cnn(torch, data, model):
    return _classifier_step(torch, model, data["img_x"], data["mnist_y"],
                            torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))


# ---- 5/6. gpt_tiny and gpt_inference ------------------------------------------------------------
GPT = dict(n_layer=4, n_head=4, n_embd=128, block_size=64, vocab_size=65)


def build_gpt(torch, n_layer=4, n_head=4, n_embd=128, block_size=64, vocab_size=65):
    nn, F = torch.nn, torch.nn.functional
    import math

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size,
                                                                                              block_size))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(n_embd, dim=2)
            q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
            k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
            v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
            return self.c_proj(y)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(n_embd)
            self.attn = Attention()
            self.ln_2 = nn.LayerNorm(n_embd)
            self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPTModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab_size, n_embd)
            self.wpe = nn.Embedding(block_size, n_embd)
            self.h = nn.ModuleList([Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
            self.wte.weight = self.lm_head.weight

        def forward(self, idx, targets=None):
            T = idx.size(1)
            pos = torch.arange(0, T, dtype=torch.long)
            x = self.wte(idx) + self.wpe(pos)
            for block in self.h:
                x = block(x)
            logits = self.lm_head(self.ln_f(x))
            if targets is None:
                return logits, None
            return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
    return GPTModel()


def make_gpt_tiny(torch, data, model):
    X, Y = torch.tensor(data["gpt_x"]), torch.tensor(data["gpt_y"])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)

    def step():
        _, loss = model(X, Y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss
    return step


def make_gpt_inference(torch, data, model, batch):
    X = torch.tensor(data["gpt_x"][:batch])
    model.eval()

    def step():
        with torch.no_grad():
            logits, _ = model(X)
        return logits
    return step


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "vec16": rng.standard_normal(16).astype(np.float32),
        "mm_x": rng.integers(0, 27, (32, 3)).astype(np.int64),
        "mm_y": rng.integers(0, 27, 32).astype(np.int64),
        "mnist_x": rng.random((64, 784), dtype=np.float32),
        "mnist_y": rng.integers(0, 10, 64).astype(np.int64),
        "img_x": rng.random((64, 1, 28, 28), dtype=np.float32),
        "gpt_x": rng.integers(0, 65, (12, 64)).astype(np.int64),
        "gpt_y": rng.integers(0, 65, (12, 64)).astype(np.int64),
    }
