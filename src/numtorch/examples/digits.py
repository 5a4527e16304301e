"""Handwritten digits with a small CNN: the default numtorch demo, no download needed.

Data: scikit-learn's bundled 8x8 digits (1,797 real scans from the UCI ML repository, shipped inside
the scikit-learn package), split 80/20 with a seeded permutation. Model: two 3x3 convolutions, max
pooling and a two-layer classifier head, trained with Adam.

    python -m numtorch.examples.digits --out runs/digits

Last line: ``test_accuracy=0.98xx train_loss=... seconds=...``.
"""
from __future__ import annotations

import numpy as np

import numtorch as torch
import numtorch.nn as nn
import numtorch.nn.functional as F
from numtorch.utils.data import DataLoader, TensorDataset

from ._common import Timer, final_line, parser, progress, save_outputs


class DigitsCNN(nn.Module):
    """(N, 1, 8, 8) images -> (N, 10) logits."""

    def __init__(self, width: int = 16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, 2 * width, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(2 * width * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def load_digits(seed: int):
    """(train_x, train_y, test_x, test_y) tensors; images scaled to [0, 1], shape (N, 1, 8, 8)."""
    try:
        from sklearn.datasets import load_digits as sk_load  # optional: scikit-learn's copy of the data
    except ImportError as e:
        raise SystemExit("the digits example needs scikit-learn: pip install 'numtorch[examples]'") from e
    d = sk_load()
    x = (d.images / 16.0).astype(np.float32)[:, None]
    y = d.target.astype(np.int64)
    perm = np.random.default_rng(seed).permutation(len(x))
    n_test = len(x) // 5
    te, tr = perm[:n_test], perm[n_test:]
    return torch.from_numpy(x[tr]), torch.from_numpy(y[tr]), torch.from_numpy(x[te]), torch.from_numpy(y[te])


@torch.no_grad()
def evaluate(model, x, y):
    model.eval()
    logits = model(x)
    return F.cross_entropy(logits, y).item(), (logits.argmax(1) == y).float().mean().item()


def main(argv=None):
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    args = ap.parse_args(argv)
    if args.smoke:
        args.epochs = 2
    torch.manual_seed(args.seed)
    timer = Timer()
    xtr, ytr, xte, yte = load_digits(args.seed)
    if args.smoke:
        xtr, ytr = xtr[:256], ytr[:256]
    loader = DataLoader(TensorDataset(xtr, ytr), batch_size=args.batch_size, shuffle=True,
                        generator=torch.Generator().manual_seed(args.seed))
    model = DigitsCNN()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    train_curve, test_curve = ([], []), ([], [])
    bar = progress(range(args.epochs), args, desc="digits", unit="epoch")
    train_loss = float("nan")
    for epoch in bar:
        model.train()
        total, count = 0.0, 0
        for xb, yb in loader:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(xb)
            count += len(xb)
        train_loss = total / count
        test_loss, test_acc = evaluate(model, xte, yte)
        train_curve[0].append(epoch + 1)
        train_curve[1].append(train_loss)
        test_curve[0].append(epoch + 1)
        test_curve[1].append(test_loss)
        if hasattr(bar, "set_postfix"):
            bar.set_postfix(train_loss=f"{train_loss:.4f}", test_acc=f"{test_acc:.4f}")
    test_loss, test_acc = evaluate(model, xte, yte)
    save_outputs(args, "digits", {"model": model.state_dict(), "optimizer": opt.state_dict(), "epochs": args.epochs,
                                  "test_accuracy": test_acc},
                 {"train": train_curve, "test": test_curve}, xlabel="epoch", ylabel="cross-entropy")
    return final_line(args.smoke, test_accuracy=test_acc, test_loss=test_loss, train_loss=train_loss, seconds=timer())


if __name__ == "__main__":
    main()
