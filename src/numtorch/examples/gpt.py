"""gpt: a nanoGPT-style character-level transformer, trained on a text file and sampled from.

Data: any UTF-8 text (``tinyshakespeare.txt``: 1.1M characters of Shakespeare's plays, from
karpathy/char-rnn). As in nanoGPT's ``shakespeare_char`` the vocabulary is the sorted set of the
text's characters and the first 90% of the text is the training split, the rest validation.

Model (nanoGPT's ``GPT``, same module names so its state_dict keys match): token + position
embeddings, ``n_layer`` pre-LayerNorm blocks of causal self-attention and a 4x GELU MLP, a final
LayerNorm and an ``lm_head`` whose weight is tied to the token embedding. N(0, 0.02) init with the
residual projections scaled by 1/sqrt(2 n_layer).

Training (nanoGPT's ``train.py``): random windows of ``block_size`` characters, AdamW (betas 0.9/0.99,
weight decay 0.1 only on >= 2-D parameters), linear warmup then cosine decay of the learning rate
from ``--lr`` to ``--min-lr``, gradient clipping at 1.0. The default is nanoGPT's CPU configuration
(4 layers, 4 heads, 128 wide, block 64, batch 12, 2000 iterations, lr 1e-3 -> 1e-4, dropout 0),
which nanoGPT reports reaching val loss 1.88. numtorch's generator is PyTorch's and the random draws
come in nanoGPT's order, so a seed gives the same initial weights and batches as nanoGPT's train.py.

    python -m numtorch.examples.gpt --data ../shared/data/tinyshakespeare.txt --out runs/gpt
    python -m numtorch.examples.gpt --sample-only --checkpoint runs/gpt/gpt.pt --prompt "ROMEO:"

Last line: ``val_loss=... train_loss=... seconds=...`` (``--sample-only``: ``tokens=... seconds=...``).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

import numtorch as torch
import numtorch.nn as nn
import numtorch.nn.functional as F

from ._common import Timer, final_line, parser, progress, save_outputs


@dataclass
class GPTConfig:
    block_size: int = 64
    vocab_size: int = 65
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 128
    dropout: float = 0.0
    bias: bool = False  # nanoGPT's default: no biases in Linear and LayerNorm


# ------------------------------------------------------------------------------------------------
# model
# ------------------------------------------------------------------------------------------------
class CausalSelfAttention(nn.Module):
    """(B, T, C) -> (B, T, C): multi-head self-attention where position t sees positions <= t."""

    def __init__(self, config: GPTConfig):
        super().__init__()
        assert config.n_embd % config.n_head == 0, "n_embd must be a multiple of n_head"
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)  # q, k, v in one matmul
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.dropout = config.dropout

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        # (B, T, C) -> (B, nh, T, hs)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0,
                                           is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.resid_dropout(self.c_proj(y))


class MLP(nn.Module):
    def __init__(self, config: GPTConfig):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):
    """Pre-LayerNorm transformer block: x + attn(ln(x)), then x + mlp(ln(x))."""

    def __init__(self, config: GPTConfig):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """int64 token ids (B, T) with T <= block_size -> logits (B, T, vocab_size) (and the loss given targets)."""

    def __init__(self, config: GPTConfig):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=nn.LayerNorm(config.n_embd, bias=config.bias),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying (Press & Wolf 2017)
        self.apply(self._init_weights)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):  # GPT-2: scale the residual projections by depth
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    @staticmethod
    def _init_weights(module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def num_parameters(self, non_embedding: bool = True) -> int:
        """Parameter count (tied weights once); nanoGPT leaves the position embedding out by default."""
        n = sum(p.numel() for p in self.parameters())
        return n - self.transformer.wpe.weight.numel() if non_embedding else n

    def forward(self, idx, targets=None):
        B, T = idx.shape
        if T > self.config.block_size:
            raise ValueError(f"sequence length {T} exceeds block_size {self.config.block_size}")
        pos = torch.arange(T, dtype=torch.long)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        if targets is None:
            return logits, None
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas):
        """AdamW with weight decay on the >= 2-D parameters (matmul weights, embeddings) only."""
        params = [p for p in self.parameters() if p.requires_grad]
        decay = [p for p in params if p.dim() >= 2]
        no_decay = [p for p in params if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)

    @torch.no_grad()
    def generate(self, idx, max_new_tokens: int, temperature: float = 1.0, top_k: int | None = None):
        """Append ``max_new_tokens`` sampled tokens to ``idx`` (B, T), feeding back the last block_size."""
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits = logits.masked_fill(logits < v[:, [-1]], float("-inf"))
            probs = F.softmax(logits, dim=-1)
            idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
        return idx


# ------------------------------------------------------------------------------------------------
# data and schedule
# ------------------------------------------------------------------------------------------------
def read_text(path: str):
    """(train ids, val ids, vocabulary string): nanoGPT's char encoding and 90/10 split."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    chars = "".join(sorted(set(text)))
    if len(text) < 2:
        raise ValueError(f"{path}: need at least 2 characters of text, got {len(text)}")
    lut = {ch: i for i, ch in enumerate(chars)}
    data = np.fromiter((lut[c] for c in text), dtype=np.int64, count=len(text))
    n = int(0.9 * len(data))
    return data[:n], data[n:], chars


def get_batch(data: np.ndarray, block_size: int, batch_size: int):
    """Random windows: x = data[i:i+T], y = data[i+1:i+T+1], as int64 (B, T) tensors."""
    if len(data) <= block_size:
        raise ValueError(f"a split of {len(data)} tokens is too short for block_size {block_size}")
    ix = torch.randint(len(data) - block_size, (batch_size,)).numpy()
    rows = ix[:, None] + np.arange(block_size)
    return torch.from_numpy(data[rows]), torch.from_numpy(data[rows + 1])


def get_lr(it: int, lr: float, min_lr: float, warmup_iters: int, lr_decay_iters: int) -> float:
    """Linear warmup for warmup_iters, cosine decay to min_lr at lr_decay_iters, then min_lr."""
    if it < warmup_iters:
        return lr * (it + 1) / (warmup_iters + 1)
    if it > lr_decay_iters:
        return min_lr
    ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (lr - min_lr)


@torch.no_grad()
def estimate_loss(model, splits: dict, eval_iters: int, block_size: int, batch_size: int) -> dict:
    """Mean loss over ``eval_iters`` random batches of each split, in eval mode."""
    model.eval()
    out = {}
    for name, data in splits.items():
        losses = [model(*get_batch(data, block_size, batch_size))[1].item() for _ in range(eval_iters)]
        out[name] = float(np.mean(losses))
    model.train()
    return out


# ------------------------------------------------------------------------------------------------
# sampling
# ------------------------------------------------------------------------------------------------
def sample(model, chars: str, prompt: str, max_new_tokens: int, temperature: float, top_k):
    """The prompt followed by ``max_new_tokens`` generated characters (unknown prompt chars are dropped)."""
    lut = {ch: i for i, ch in enumerate(chars)}
    ids = [lut[c] for c in prompt if c in lut] or [lut.get("\n", 0)]
    idx = torch.tensor([ids], dtype=torch.long)
    model.eval()
    out = model.generate(idx, max_new_tokens, temperature=temperature, top_k=top_k)
    return "".join(chars[i] for i in out[0].tolist())


def load_checkpoint(path: str):
    """(model, vocabulary) from a checkpoint written by this example."""
    ckpt = torch.load(path, weights_only=True)
    model = GPT(GPTConfig(**ckpt["config"]))
    model.load_state_dict(ckpt["model"])
    return model, ckpt["vocab"]


def main(argv=None):
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--data", help="UTF-8 text file to train on (e.g. tinyshakespeare.txt)")
    ap.add_argument("--n-layer", type=int, default=4)
    ap.add_argument("--n-head", type=int, default=4)
    ap.add_argument("--n-embd", type=int, default=128)
    ap.add_argument("--block-size", type=int, default=64)
    ap.add_argument("--dropout", type=float, default=0.0)
    ap.add_argument("--batch-size", type=int, default=12)
    ap.add_argument("--max-iters", type=int, default=2000)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--min-lr", type=float, default=1e-4)
    ap.add_argument("--warmup-iters", type=int, default=100)
    ap.add_argument("--lr-decay-iters", type=int, default=None, help="default: --max-iters")
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--grad-clip", type=float, default=1.0)
    ap.add_argument("--eval-interval", type=int, default=250)
    ap.add_argument("--eval-iters", type=int, default=20)
    ap.add_argument("--sample-only", action="store_true", help="only generate text from --checkpoint")
    ap.add_argument("--checkpoint", help="gpt.pt written by --out (for --sample-only)")
    ap.add_argument("--prompt", default="\n")
    ap.add_argument("--max-new-tokens", type=int, default=500)
    ap.add_argument("--temperature", type=float, default=0.8)
    ap.add_argument("--top-k", type=int, default=200)
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    timer = Timer()

    if args.sample_only:
        if not args.checkpoint:
            ap.error("--sample-only needs --checkpoint PATH")
        model, chars = load_checkpoint(args.checkpoint)
        print(sample(model, chars, args.prompt, args.max_new_tokens, args.temperature, args.top_k))
        return final_line(tokens=args.max_new_tokens, seconds=timer())

    if not args.data:
        ap.error("--data FILE is required for training")
    if args.smoke:
        args.n_layer, args.n_head, args.n_embd, args.block_size, args.batch_size = 2, 2, 32, 16, 4
        args.max_iters, args.warmup_iters, args.eval_interval, args.eval_iters = 20, 2, 10, 2
        args.max_new_tokens = 50
    lr_decay_iters = args.lr_decay_iters or args.max_iters
    train_data, val_data, chars = read_text(args.data)
    config = GPTConfig(block_size=args.block_size, vocab_size=len(chars), n_layer=args.n_layer,
                       n_head=args.n_head, n_embd=args.n_embd, dropout=args.dropout)
    model = GPT(config)
    print(f"vocab {len(chars)}, train {len(train_data):,} / val {len(val_data):,} tokens, "
          f"{model.num_parameters() / 1e6:.2f}M parameters", flush=True)
    opt = model.configure_optimizers(args.weight_decay, args.lr, (0.9, 0.99))
    splits = {"train": train_data, "val": val_data}

    train_curve, val_curve = ([], []), ([], [])
    losses = {"train": float("nan"), "val": float("nan")}
    bar = progress(range(args.max_iters + 1), args, desc="gpt", unit="iter")
    model.train()
    # The random draws come in nanoGPT's order (the first batch before the first evaluation, the next
    # batch right after each forward pass), so with the same seed this run takes the same batches as
    # nanoGPT's train.py on PyTorch.
    xb, yb = get_batch(train_data, args.block_size, args.batch_size)
    for it in bar:
        lr = get_lr(it, args.lr, args.min_lr, args.warmup_iters, lr_decay_iters)
        for group in opt.param_groups:
            group["lr"] = lr
        if it % args.eval_interval == 0 or it == args.max_iters:
            losses = estimate_loss(model, splits, args.eval_iters, args.block_size, args.batch_size)
            for curve, key in ((train_curve, "train"), (val_curve, "val")):
                curve[0].append(it)
                curve[1].append(losses[key])
            msg = f"step {it}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}"
            (bar.write if hasattr(bar, "write") else print)(msg)
        if it == args.max_iters:
            break
        _, loss = model(xb, yb)
        xb, yb = get_batch(train_data, args.block_size, args.batch_size)
        loss.backward()
        if args.grad_clip > 0:
            nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
        opt.step()
        opt.zero_grad(set_to_none=True)
        if hasattr(bar, "set_postfix") and it % 10 == 0:
            bar.set_postfix(loss=f"{loss.item():.4f}", lr=f"{lr:.2e}")

    print(sample(model, chars, args.prompt, args.max_new_tokens, args.temperature, args.top_k))
    save_outputs(args, "gpt", {"model": model.state_dict(), "config": asdict(config), "vocab": chars,
                               "iter_num": args.max_iters, "val_loss": losses["val"]},
                 {"train": train_curve, "val": val_curve}, xlabel="iteration", ylabel="cross-entropy")
    return final_line(args.smoke, val_loss=losses["val"], train_loss=losses["train"], seconds=timer())


if __name__ == "__main__":
    main()
