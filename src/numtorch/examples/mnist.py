"""MNIST digits with an MLP or a LeNet-style CNN, read from the standard IDX files.

Data: the four IDX files of MNIST (LeCun, Cortes and Burges), gzipped or raw, found in ``--data DIR``
by their standard names (``train-images-idx3-ubyte[.gz]``, ``train-labels-idx1-ubyte[.gz]``,
``t10k-images-idx3-ubyte[.gz]``, ``t10k-labels-idx1-ubyte[.gz]``) or by any file name that starts with
those stems (e.g. ``train-images-idx3-ubyte.reconstructed.gz``); each may also be given explicitly.
The IDX reader below is self-contained and validates magic numbers, dimensions and payload sizes.

Models: ``mlp`` (784-256-10, ReLU) and ``cnn`` (LeNet-style: two 5x5 convolutions with max pooling,
then a 500-unit hidden layer). Both train with Adam and a cosine learning-rate decay, no augmentation.

    python -m numtorch.examples.mnist --data ../shared/data/mnist --model cnn --out runs/mnist

Last line: ``test_accuracy=0.99xx test_loss=... train_loss=... epoch_seconds=... seconds=...``.
"""
from __future__ import annotations

import gzip
import os

import numpy as np

import numtorch as torch
import numtorch.nn as nn
import numtorch.nn.functional as F
from numtorch.utils.data import DataLoader, TensorDataset

from ._common import Timer, final_line, parser, progress, save_outputs

# ------------------------------------------------------------------------------------------------
# IDX files
# ------------------------------------------------------------------------------------------------
IMAGES_MAGIC, LABELS_MAGIC = 2051, 2049  # 0x0803: ubyte, 3 dims; 0x0801: ubyte, 1 dim
# IDX type codes (third magic byte) -> big-endian NumPy dtypes
_IDX_DTYPES = {0x08: np.dtype(np.uint8), 0x09: np.dtype(np.int8), 0x0B: np.dtype(">i2"),
               0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}
STEMS = {"train_images": "train-images-idx3-ubyte", "train_labels": "train-labels-idx1-ubyte",
         "test_images": "t10k-images-idx3-ubyte", "test_labels": "t10k-labels-idx1-ubyte"}
MEAN, STD = 0.1307, 0.3081  # the usual MNIST normalisation constants


def _read_bytes(path: str) -> bytes:
    """The file's bytes, gunzipped when it starts with the gzip magic ``1f 8b`` (whatever its name)."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] != b"\x1f\x8b":
        return raw
    try:
        return gzip.decompress(raw)
    except (EOFError, OSError, gzip.BadGzipFile) as e:  # truncated or corrupt gzip stream
        raise ValueError(f"{path}: corrupt or truncated gzip data ({e})") from e


def read_idx(path: str, expected_magic: int | None = None) -> np.ndarray:
    """Read an IDX file (gzipped or raw) into an array of shape given by its header.

    The header is a big-endian magic number ``0x0000TTNN`` (TT: element type, NN: number of dims)
    followed by NN big-endian uint32 sizes; the payload must hold exactly ``prod(sizes)`` elements.
    Raises ValueError naming the file when the magic differs from ``expected_magic`` (or is not an
    IDX magic), when the header or payload is truncated, or when there are trailing bytes.
    """
    data = _read_bytes(path)
    if len(data) < 4:
        raise ValueError(f"{path}: truncated IDX file: expected a 4-byte magic number, found {len(data)} bytes")
    magic = int.from_bytes(data[:4], "big")
    if expected_magic is not None and magic != expected_magic:
        raise ValueError(f"{path}: bad IDX magic number: expected {expected_magic}, found {magic}")
    if data[0] or data[1] or data[2] not in _IDX_DTYPES or data[3] == 0:
        raise ValueError(f"{path}: not an IDX file: magic number {magic} (0x{magic:08x})")
    dtype, ndim = _IDX_DTYPES[data[2]], data[3]
    header = 4 + 4 * ndim
    if len(data) < header:
        raise ValueError(f"{path}: truncated IDX header: expected {header} bytes for {ndim} dimensions, "
                         f"found {len(data)}")
    shape = tuple(int(d) for d in np.frombuffer(data, ">u4", count=ndim, offset=4))
    want = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    have = len(data) - header
    if have < want:
        raise ValueError(f"{path}: truncated IDX file: header says shape {shape} ({want} bytes of data), "
                         f"found {have} bytes")
    if have > want:
        raise ValueError(f"{path}: IDX file has {have - want} trailing bytes after the {want} bytes of data "
                         f"of shape {shape}")
    return np.frombuffer(data, dtype, offset=header).reshape(shape).astype(dtype.newbyteorder("="))


def find_file(directory: str, stem: str) -> str:
    """The file in ``directory`` for IDX ``stem``: ``stem``, ``stem.gz`` or the one name starting with ``stem``.

    Raises FileNotFoundError when there is none, ValueError when several non-standard names match.
    """
    for name in (stem, stem + ".gz"):
        if os.path.isfile(os.path.join(directory, name)):
            return os.path.join(directory, name)
    names = sorted(n for n in os.listdir(directory) if n.startswith(stem)
                   and os.path.isfile(os.path.join(directory, n)))
    if not names:
        raise FileNotFoundError(f"no {stem}[.gz] (or file named {stem}*) in {directory}")
    if len(names) > 1:
        raise ValueError(f"several files match {stem}* in {directory}: {names}; pass the path explicitly")
    return os.path.join(directory, names[0])


def load_split(images_path: str, labels_path: str):
    """(images uint8 (N, 28, 28), labels int64 (N,)) from one pair of IDX files, cross-checked."""
    images = read_idx(images_path, IMAGES_MAGIC)
    labels = read_idx(labels_path, LABELS_MAGIC)
    if images.shape[1:] != (28, 28):
        raise ValueError(f"{images_path}: expected 28x28 images, found {images.shape[1]}x{images.shape[2]}")
    if len(images) != len(labels):
        raise ValueError(f"{images_path} has {len(images)} images but {labels_path} has {len(labels)} labels")
    if labels.size and labels.max() > 9:
        raise ValueError(f"{labels_path}: expected labels 0..9, found {int(labels.max())}")
    return images, labels.astype(np.int64)


def to_tensors(images: np.ndarray, labels: np.ndarray):
    """Normalised float32 (N, 1, 28, 28) images and int64 labels as tensors."""
    x = ((images.astype(np.float32) / np.float32(255) - np.float32(MEAN)) / np.float32(STD))[:, None]
    return torch.from_numpy(x), torch.from_numpy(labels)


# ------------------------------------------------------------------------------------------------
# models
# ------------------------------------------------------------------------------------------------
class MLP(nn.Module):
    """(N, 1, 28, 28) -> (N, 10): 784-256-10 with ReLU."""

    def __init__(self, hidden: int = 256):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(784, hidden), nn.ReLU(), nn.Linear(hidden, 10))

    def forward(self, x):
        return self.net(x)


class LeNet(nn.Module):
    """(N, 1, 28, 28) -> (N, 10): conv5(20) pool conv5(50) pool fc(500) fc(10), ReLU (Caffe's LeNet)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2),   # 28 -> 24 -> 12
            nn.Conv2d(20, 50, 5), nn.ReLU(), nn.MaxPool2d(2),  # 12 -> 8 -> 4
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(50 * 4 * 4, 500), nn.ReLU(), nn.Linear(500, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


MODELS = {"mlp": MLP, "cnn": LeNet}
# per-model recipe: epochs, batch size, peak learning rate (Adam, cosine decay to 0 per step)
RECIPES = {"mlp": (15, 128, 1e-3), "cnn": (4, 128, 1e-3)}


@torch.no_grad()
def evaluate(model, x, y, batch_size: int = 1000):
    """(mean cross-entropy, accuracy) over (x, y) in eval mode, in batches."""
    model.eval()
    loss, correct = 0.0, 0
    for i in range(0, len(x), batch_size):
        logits = model(x[i:i + batch_size])
        yb = y[i:i + batch_size]
        loss += F.cross_entropy(logits, yb, reduction="sum").item()
        correct += (logits.argmax(1) == yb).sum().item()
    return loss / max(len(x), 1), correct / max(len(x), 1)


def resolve_paths(args) -> dict:
    """The four IDX paths from the explicit options, else from ``--data DIR``."""
    paths = {}
    for key, stem in STEMS.items():
        given = getattr(args, key)
        if given:
            paths[key] = given
        elif args.data:
            paths[key] = find_file(args.data, stem)
        else:
            raise SystemExit(f"mnist: give --data DIR or --{key.replace('_', '-')} PATH")
    return paths


def main(argv=None):
    ap = parser(__doc__.splitlines()[0])
    ap.add_argument("--data", default=None, help="directory holding the four MNIST IDX files")
    for key in STEMS:
        ap.add_argument(f"--{key.replace('_', '-')}", default=None, help=f"path of the {STEMS[key]} file")
    ap.add_argument("--model", choices=sorted(MODELS), default="cnn")
    ap.add_argument("--epochs", type=int, default=None, help="default: 15 (mlp), 4 (cnn)")
    ap.add_argument("--batch-size", type=int, default=None, help="default: 128")
    ap.add_argument("--lr", type=float, default=None, help="peak Adam learning rate (default 1e-3)")
    args = ap.parse_args(argv)
    epochs, batch_size, lr = RECIPES[args.model]
    epochs = 1 if args.smoke else (args.epochs or epochs)
    batch_size, lr = args.batch_size or batch_size, args.lr or lr
    torch.manual_seed(args.seed)
    timer = Timer()

    paths = resolve_paths(args)
    xtr, ytr = to_tensors(*load_split(paths["train_images"], paths["train_labels"]))
    xte, yte = to_tensors(*load_split(paths["test_images"], paths["test_labels"]))
    if args.smoke:
        xtr, ytr, xte, yte = xtr[:512], ytr[:512], xte[:256], yte[:256]
    loader = DataLoader(TensorDataset(xtr, ytr), batch_size=batch_size, shuffle=True,
                        generator=torch.Generator().manual_seed(args.seed))
    model = MODELS[args.model]()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(epochs * len(loader), 1))

    train_curve, test_curve, epoch_times = ([], []), ([], []), []
    bar = progress(range(epochs), args, desc=f"mnist-{args.model}", unit="epoch")
    train_loss = test_acc = float("nan")
    for epoch in bar:
        t0 = Timer()
        model.train()
        total, count = 0.0, 0
        for xb, yb in progress(loader, args, desc=f"epoch {epoch + 1}", leave=False, unit="batch"):
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(xb)
            count += len(xb)
        epoch_times.append(t0())
        train_loss = total / count
        test_loss, test_acc = evaluate(model, xte, yte)
        train_curve[0].append(epoch + 1)
        train_curve[1].append(train_loss)
        test_curve[0].append(epoch + 1)
        test_curve[1].append(test_loss)
        if hasattr(bar, "set_postfix"):
            bar.set_postfix(train_loss=f"{train_loss:.4f}", test_acc=f"{test_acc:.4f}")
        else:
            print(f"epoch {epoch + 1}: train_loss={train_loss:.4f} test_loss={test_loss:.4f} "
                  f"test_accuracy={test_acc:.4f} ({epoch_times[-1]:.1f}s)", flush=True)
    test_loss, test_acc = evaluate(model, xte, yte)
    save_outputs(args, f"mnist-{args.model}",
                 {"model": model.state_dict(), "optimizer": opt.state_dict(), "model_name": args.model,
                  "epochs": epochs, "test_accuracy": test_acc},
                 {"train": train_curve, "test": test_curve}, xlabel="epoch", ylabel="cross-entropy")
    return final_line(args.smoke, test_accuracy=test_acc, test_loss=test_loss, train_loss=train_loss,
                      epoch_seconds=float(np.mean(epoch_times)), seconds=timer())


if __name__ == "__main__":
    main()
