"""Karpathy's makemore MLP (nn-zero-to-hero part 2) on raw tensors with manual SGD.

The same training code runs on numtorch and on PyTorch from the same initial weights; the losses
must decrease and agree to 1e-5 at every step.
"""
import numpy as np
import torch as ref

import numtorch as nt

WORDS = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia", "harper", "evelyn",
         "abigail", "emily", "elizabeth", "mila", "ella", "avery", "sofia", "camila", "aria", "scarlett"]


def build_dataset(words, block_size=3):
    chars = sorted(set("".join(words)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return np.array(X, dtype=np.int64), np.array(Y, dtype=np.int64)


def init_weights(seed=2147483647):
    rng = np.random.default_rng(seed)
    return {"C": rng.standard_normal((27, 10)), "W1": rng.standard_normal((30, 200)) * 0.2,
            "b1": rng.standard_normal(200) * 0.01, "W2": rng.standard_normal((200, 27)) * 0.01,
            "b2": np.zeros(27)}


def train(T, weights, Xn, Yn, steps=60, batch=32, lr=0.1):
    """The lecture's loop; cross-entropy written with logsumexp. Returns the loss at every step."""
    params = {k: T.tensor(v.astype(np.float32), requires_grad=True) for k, v in weights.items()}
    C, W1, b1, W2, b2 = (params[k] for k in ("C", "W1", "b1", "W2", "b2"))
    X, Y = T.tensor(Xn), T.tensor(Yn)
    rng = np.random.default_rng(0)
    losses = []
    for _ in range(steps):
        ix = T.tensor(rng.integers(0, X.shape[0], batch))
        emb = C[X[ix]]
        h = T.tanh(emb.view(-1, 30) @ W1 + b1)
        logits = h @ W2 + b2
        loss = (T.logsumexp(logits, dim=1) - logits[T.arange(batch), Y[ix]]).mean()
        for p in params.values():
            p.grad = None
        loss.backward()
        with T.no_grad():
            for p in params.values():
                p -= lr * p.grad
        losses.append(loss.item())
    return np.array(losses)


def test_makemore_mlp_raw_tensors_match_pytorch():
    Xn, Yn = build_dataset(WORDS)
    w = init_weights()
    ours = train(nt, w, Xn, Yn)
    theirs = train(ref, w, Xn, Yn)
    assert ours[-10:].mean() < ours[:10].mean() - 0.5, "loss must decrease"
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
