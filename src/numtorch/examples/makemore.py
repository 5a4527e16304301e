"""makemore: character-level name models from Karpathy's "Neural Networks: Zero to Hero" lectures.

Data: a text file with one word per line (``names.txt``: the 32K most common US baby names of 2018,
from karpathy/makemore). As in the lectures the words are shuffled with ``random.seed(42)`` and split
80/10/10 into train/val/test; each character of ``word + '.'`` is one example whose input is the
previous ``block_size`` characters ('.' = index 0 pads the start).

Models (``--model``), each with the lecture's initialisation and optimisation (plain SGD, batch 32):

* ``bigram`` (part 1): the count table with +1 smoothing. Its loss over all bigrams of the whole
  word list (the lecture's figure) is printed as ``all_loss``; train/val/test use the table counted
  on the training split.
* ``mlp`` (part 2, Bengio et al. 2003): block 3, embedding 10, 200 tanh units; N(0, 1) init;
  200k steps, lr 0.1 then 0.01 after 100k.
* ``mlp-bn`` (part 3): block 3, embedding 10, Linear(bias=False) -> BatchNorm1d(200) -> Tanh with
  the "kaiming" tanh gain init and a 0.01-scaled output layer; 200k steps, lr 0.01 after 100k.
* ``wavenet`` (part 5): block 8, embedding 24, three FlattenConsecutive(2) -> Linear -> BatchNorm
  -> Tanh stages of 128 units (76,579 parameters); 200k steps, lr 0.01 after 150k.

    python -m numtorch.examples.makemore --data ../shared/data/names.txt --model wavenet --out runs/mm

``--diagnostics`` records lecture 4's statistics over the first 1000 steps (``numtorch.utils.diagnostics``:
activation and gradient histograms, update:data ratios), prints the summary and writes three PNGs.

Last line: ``val_loss=... train_loss=... test_loss=... seconds=...``.
"""
from __future__ import annotations

import os
import random

import numpy as np

import numtorch as torch
import numtorch.nn as nn
import numtorch.nn.functional as F

from ..utils.diagnostics import Diagnostics
from ._common import Timer, final_line, parser, progress, save_outputs

WAVENET_PARAMETERS = 76_579  # the lecture's count for n_embd 24, n_hidden 128


# ------------------------------------------------------------------------------------------------
# data
# ------------------------------------------------------------------------------------------------
def read_words(path: str) -> list[str]:
    """Non-empty lines of ``path``, stripped."""
    with open(path, encoding="utf-8") as f:
        words = [w.strip() for w in f.read().splitlines()]
    words = [w for w in words if w]
    if not words:
        raise ValueError(f"{path}: no words found")
    return words


def vocabulary(words):
    """(stoi, itos): '.' is 0, the sorted characters of ``words`` follow from 1."""
    chars = sorted(set("".join(words)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    return stoi, {i: s for s, i in stoi.items()}


def build_dataset(words, stoi, block_size: int):
    """X int64 (n, block_size) contexts and Y int64 (n,) next characters, one row per char of word + '.'."""
    xs, ys = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            xs.append(context)
            ys.append(ix)
            context = context[1:] + [ix]
    x = np.asarray(xs, dtype=np.int64).reshape(len(xs), block_size)
    return torch.from_numpy(x), torch.from_numpy(np.asarray(ys, dtype=np.int64))


def split_words(words):
    """The lectures' split: shuffle with random.seed(42), then 80% / 10% / 10%."""
    words = list(words)
    random.seed(42)
    random.shuffle(words)
    n1, n2 = int(0.8 * len(words)), int(0.9 * len(words))
    return words[:n1], words[n1:n2], words[n2:]


# ------------------------------------------------------------------------------------------------
# models
# ------------------------------------------------------------------------------------------------
class Bigram(nn.Module):
    """Count-based bigram model: (B, 1) previous character -> (B, V) log-probabilities (as logits).

    ``fit`` counts the pairs, adds ``smoothing`` to every cell and normalises the rows; there are no
    trainable parameters, the table is a buffer so it goes into the state_dict.
    """

    def __init__(self, vocab_size: int, smoothing: float = 1.0):
        super().__init__()
        self.smoothing = smoothing
        self.register_buffer("counts", torch.zeros(vocab_size, vocab_size))
        self.register_buffer("log_probs", torch.zeros(vocab_size, vocab_size))

    @torch.no_grad()
    def fit(self, x, y):
        """Count the (x[:, -1], y) pairs into the table and renormalise."""
        self.counts.zero_()
        self.counts.index_put_((x[:, -1], y), torch.ones(len(y)), accumulate=True)
        p = self.counts + self.smoothing
        self.log_probs.copy_((p / p.sum(1, keepdim=True)).log())
        return self

    def forward(self, x):
        return self.log_probs[x[:, -1]]


class FlattenConsecutive(nn.Module):
    """(B, T, C) -> (B, T // n, C * n): concatenate ``n`` consecutive embeddings; squeeze T when it is 1."""

    def __init__(self, n: int):
        super().__init__()
        self.n = n

    def forward(self, x):
        b, t, c = x.shape
        x = x.view(b, t // self.n, c * self.n)
        return x.squeeze(1) if x.shape[1] == 1 else x

    def extra_repr(self):
        return f"n={self.n}"


class BatchNormLast(nn.BatchNorm1d):
    """BatchNorm1d over the last dim: (B, C) as usual, (B, T, C) normalised over (B, T) per channel.

    nn.BatchNorm1d wants channels in dim 1 for 3-D input; part 5 of the lecture keeps them last.
    """

    def forward(self, x):
        if x.ndim == 3:
            return super().forward(x.transpose(1, 2)).transpose(1, 2)
        return super().forward(x)


def make_mlp(vocab_size: int, block_size: int = 3, n_embd: int = 10, n_hidden: int = 200) -> nn.Sequential:
    """Part 2: Embedding -> Linear -> Tanh -> Linear, every parameter N(0, 1) like the lecture."""
    model = nn.Sequential(
        nn.Embedding(vocab_size, n_embd), nn.Flatten(),
        nn.Linear(n_embd * block_size, n_hidden), nn.Tanh(),
        nn.Linear(n_hidden, vocab_size),
    )
    for p in model.parameters():
        nn.init.normal_(p)
    return model


def make_mlp_bn(vocab_size: int, block_size: int = 3, n_embd: int = 10, n_hidden: int = 200) -> nn.Sequential:
    """Part 3: Embedding -> Linear(bias=False) -> BatchNorm1d -> Tanh -> Linear.

    Hidden weights N(0, 1) * (5/3) / sqrt(fan_in) (tanh gain), output layer N(0, 1) * 0.01 with a
    zero bias; the lecture's running statistics move by 0.001 per step (momentum=0.001).
    """
    model = nn.Sequential(
        nn.Embedding(vocab_size, n_embd), nn.Flatten(),
        nn.Linear(n_embd * block_size, n_hidden, bias=False), nn.BatchNorm1d(n_hidden, momentum=0.001), nn.Tanh(),
        nn.Linear(n_hidden, vocab_size),
    )
    hidden, out = model[2], model[5]
    nn.init.normal_(hidden.weight, std=(5 / 3) / (n_embd * block_size) ** 0.5)
    nn.init.normal_(out.weight, std=0.01)
    nn.init.zeros_(out.bias)
    return model


def make_wavenet(vocab_size: int, block_size: int = 8, n_embd: int = 24, n_hidden: int = 128) -> nn.Sequential:
    """Part 5: the hierarchical (WaveNet-like) MLP fusing pairs of positions log2(block_size) times.

    Linear weights N(0, 1/fan_in), zero output bias, output weights scaled by 0.1.
    """
    levels = int(np.log2(block_size))
    if 2 ** levels != block_size:
        raise ValueError(f"wavenet needs a power-of-two block_size, got {block_size}")
    layers = [nn.Embedding(vocab_size, n_embd)]
    width = n_embd
    for _ in range(levels):
        layers += [FlattenConsecutive(2), nn.Linear(width * 2, n_hidden, bias=False), BatchNormLast(n_hidden),
                   nn.Tanh()]
        width = n_hidden
    layers.append(nn.Linear(n_hidden, vocab_size))
    model = nn.Sequential(*layers)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=m.in_features ** -0.5)
        nn.init.zeros_(layers[-1].bias)
        layers[-1].weight *= 0.1  # last layer: less confident at init
    return model


# name -> (builder, block_size, default lr-decay step)
MODELS = {
    "bigram": (lambda v: Bigram(v), 1, None),
    "mlp": (make_mlp, 3, 100_000),
    "mlp-bn": (make_mlp_bn, 3, 100_000),
    "wavenet": (make_wavenet, 8, 150_000),
}


# ------------------------------------------------------------------------------------------------
# evaluation and sampling
# ------------------------------------------------------------------------------------------------
@torch.no_grad()
def split_loss(model, x, y, chunk: int = 16384) -> float:
    """Mean cross-entropy of ``model`` over (x, y) in eval mode (computed in chunks)."""
    was_training = model.training
    model.eval()
    total = 0.0
    for i in range(0, len(y), chunk):
        total += F.cross_entropy(model(x[i:i + chunk]), y[i:i + chunk], reduction="sum").item()
    model.train(was_training)
    return total / len(y)


@torch.no_grad()
def sample(model, itos, block_size: int, n: int, generator, max_len: int = 50) -> list[str]:
    """``n`` words drawn character by character (torch.multinomial), all ``n`` in one batch."""
    model.eval()
    context = torch.zeros((n, block_size), dtype=torch.int64)
    out = np.zeros((n, max_len), dtype=np.int64)
    for t in range(max_len):
        probs = F.softmax(model(context), dim=1)
        ix = torch.multinomial(probs, num_samples=1, generator=generator)
        out[:, t] = ix.numpy()[:, 0]
        context = torch.cat([context[:, 1:], ix], dim=1)
    words = []
    for row in out:
        chars = []
        for i in row:
            if i == 0:
                break
            chars.append(itos[int(i)])
        words.append("".join(chars))
    return words


# ------------------------------------------------------------------------------------------------
# training
# ------------------------------------------------------------------------------------------------
def train(model, xtr, ytr, xva, yva, args, lr_decay_step: int, timer=None):
    """The lectures' loop: random minibatches (torch.randint), SGD, lr / 10 after ``lr_decay_step``.

    Returns (train curve, val curve) as (steps, losses) pairs; the train curve averages the minibatch
    losses over windows, the val curve evaluates the whole val split ~20 times.
    """
    timer = timer or Timer()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    diag = None
    if getattr(args, "diagnostics", False):  # lecture 4's plots: record every step of the first 1000
        diag = Diagnostics(model, opt, every=1)
    eval_every = max(args.steps // 20, 1)
    window = min(1000, eval_every)
    train_curve, val_curve = ([], []), ([], [])
    running = []
    bar = progress(range(args.steps), args, desc=f"makemore-{args.model}", unit="step", mininterval=1.0)
    model.train()
    for step in bar:
        if step == lr_decay_step:
            for group in opt.param_groups:
                group["lr"] = args.lr / 10
        ix = torch.randint(0, len(ytr), (args.batch_size,))
        loss = F.cross_entropy(model(xtr[ix]), ytr[ix])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if diag is not None and step + 1 == min(args.steps, 1000):
            write_diagnostics(diag, args)
            diag = None
        running.append(loss.item())
        if len(running) == window:
            train_curve[0].append(step + 1)
            train_curve[1].append(float(np.mean(running)))
            running = []
        if (step + 1) % eval_every == 0 or step + 1 == args.steps:
            val_curve[0].append(step + 1)
            val_curve[1].append(split_loss(model, xva, yva))
            train_now = train_curve[1][-1] if train_curve[1] else float("nan")
            if hasattr(bar, "set_postfix"):
                bar.set_postfix(train=f"{train_now:.4f}", val=f"{val_curve[1][-1]:.4f}")
            elif not args.smoke:
                print(f"step {step + 1:7d}/{args.steps}: train {train_now:.4f} val {val_curve[1][-1]:.4f} "
                      f"({timer():.0f}s)", flush=True)
    return train_curve, val_curve


def write_diagnostics(diag, args):
    """Print ``diag``'s summary, write its three plots into ``--out`` (if given) and remove its hooks."""
    diag.remove()
    print(diag.summary(), flush=True)
    if args.out:
        for path in diag.plot_all(args.out, prefix=f"makemore-{args.model}-diagnostics"):
            print(f"wrote {path}", flush=True)


def main(argv=None):
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="text file, one word per line (names.txt)")
    ap.add_argument("--model", choices=list(MODELS), default="mlp")
    ap.add_argument("--steps", type=int, default=200_000)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--lr-decay-step", type=int, default=None,
                    help="step after which lr is divided by 10 (default 100k for mlp/mlp-bn, 150k for wavenet)")
    ap.add_argument("--samples", type=int, default=20, help="how many names to sample at the end")
    ap.add_argument("--diagnostics", action="store_true",
                    help="record activation/gradient/update statistics over the first 1000 steps (as lecture 4 "
                         "plots them), print a summary and write the plots into --out")
    args = ap.parse_args(argv)
    build, block_size, decay = MODELS[args.model]
    if args.smoke:  # wavenet's step costs ~5x an MLP's: fewer steps keep its smoke run to seconds
        args.steps = min(args.steps, 60 if args.model == "wavenet" else 200)
    decay = args.lr_decay_step if args.lr_decay_step is not None else decay
    if decay is not None and args.steps != 200_000 and args.lr_decay_step is None:
        decay = int(args.steps * decay / 200_000)  # keep the schedule's shape for shorter runs
    torch.manual_seed(args.seed)
    timer = Timer()

    words = read_words(args.data)
    stoi, itos = vocabulary(words)
    train_w, val_w, test_w = split_words(words)
    if args.smoke:
        train_w, val_w, test_w = train_w[:1000], val_w[:200], test_w[:200]
    (xtr, ytr), (xva, yva), (xte, yte) = (build_dataset(w, stoi, block_size) for w in (train_w, val_w, test_w))
    model = build(len(stoi))
    n_params = sum(p.numel() for p in model.parameters())
    print(f"{args.model}: {n_params} parameters; {len(ytr)}/{len(yva)}/{len(yte)} train/val/test examples",
          flush=True)
    if args.model == "wavenet" and len(stoi) == 27:
        assert n_params == WAVENET_PARAMETERS, f"wavenet has {n_params} parameters, the lecture's has 76579"

    extra = {}
    if args.model == "bigram":
        # the lecture's number: the table counted on all words, scored on all their bigrams
        xall, yall = build_dataset(words, stoi, 1)
        extra["all_loss"] = split_loss(Bigram(len(stoi)).fit(xall, yall), xall, yall)
        model.fit(xtr, ytr)
        curves = {}
    else:
        train_curve, val_curve = train(model, xtr, ytr, xva, yva, args, decay, timer)
        curves = {"train (window mean)": train_curve, "val": val_curve}

    losses = {name: split_loss(model, x, y) for name, x, y in
              (("val_loss", xva, yva), ("train_loss", xtr, ytr), ("test_loss", xte, yte))}
    gen = torch.Generator().manual_seed(args.seed + 10)
    for word in sample(model, itos, block_size, args.samples, gen) if args.samples > 0 else []:
        print(word)
    if curves:
        save_outputs(args, f"makemore-{args.model}",
                     {"model": model.state_dict(), "model_name": args.model, "block_size": block_size,
                      "itos": itos, "steps": args.steps, **losses},
                     curves, xlabel="step", ylabel="cross-entropy")
    else:  # bigram: the table as an image
        save_bigram(args, model, itos, losses)
    return final_line(args.smoke, **losses, **extra, seconds=timer())


def save_bigram(args, model, itos, losses):
    """Checkpoint plus a heat map of the bigram probabilities (the lecture's figure)."""
    if not args.out:
        return
    os.makedirs(args.out, exist_ok=True)
    torch.save({"model": model.state_dict(), "model_name": "bigram", "block_size": 1, "itos": itos, **losses},
               os.path.join(args.out, "makemore-bigram.pt"))
    import matplotlib  # optional and slow to import: only plots need it
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # optional: only plots need it
    v = len(itos)
    fig, ax = plt.subplots(figsize=(7, 7))
    ax.imshow(model.log_probs.exp().numpy(), cmap="Blues")
    ax.set_xticks(range(v), [itos[i] for i in range(v)])
    ax.set_yticks(range(v), [itos[i] for i in range(v)])
    ax.set_xlabel("next character")
    ax.set_ylabel("previous character")
    ax.set_title("makemore-bigram: P(next | previous)")
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "makemore-bigram.png"), dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    main()
