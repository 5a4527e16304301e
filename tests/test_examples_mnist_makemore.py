"""The mnist and makemore examples: IDX reading and its errors, --smoke runs end to end on tiny data
written here (final line, checkpoint reload in numtorch and in PyTorch, PNG), the makemore pipeline."""
from __future__ import annotations

import gzip
import math
import os
import random
import re

import numpy as np
import pytest
import torch as ref

import numtorch
from numtorch.examples import makemore, mnist
from numtorch.examples._common import SMOKE_NOTICE

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------------
def idx_bytes(arr: np.ndarray, magic: int | None = None) -> bytes:
    """An IDX file for a uint8 array (type code 0x08), with an optional forced magic number."""
    arr = np.ascontiguousarray(arr, dtype=np.uint8)
    magic = 0x0800 | arr.ndim if magic is None else magic
    dims = np.asarray(arr.shape, dtype=">u4").tobytes()
    return magic.to_bytes(4, "big") + dims + arr.tobytes()


def write(path, data: bytes, gz: bool):
    with open(path, "wb") as f:
        f.write(gzip.compress(data) if gz else data)
    return str(path)


def fake_mnist(directory, n_train=192, n_test=64, train_name="train-images-idx3-ubyte.reconstructed.gz"):
    """Four tiny IDX files: class k images are a bright horizontal bar at row 2k+4 plus noise."""
    rng = np.random.default_rng(0)
    os.makedirs(directory, exist_ok=True)

    def make(n):
        y = rng.integers(0, 10, n).astype(np.uint8)
        x = rng.integers(0, 60, (n, 28, 28)).astype(np.uint8)
        x[np.arange(n), 2 * y + 4, 4:24] = 250
        return x, y

    (xtr, ytr), (xte, yte) = make(n_train), make(n_test)
    write(os.path.join(directory, train_name), idx_bytes(xtr), gz=True)
    write(os.path.join(directory, "train-labels-idx1-ubyte.gz"), idx_bytes(ytr), gz=True)
    write(os.path.join(directory, "t10k-images-idx3-ubyte"), idx_bytes(xte), gz=False)  # raw
    write(os.path.join(directory, "t10k-labels-idx1-ubyte"), idx_bytes(yte), gz=False)
    return (xtr, ytr), (xte, yte)


def metrics(line: str) -> dict:
    assert re.fullmatch(r"(\w+=[-\w.]+ )*seconds=\d+\.\d", line), line
    return {k: float(v) for k, v in (kv.split("=") for kv in line.split())}


def check_outputs(out_dir, name):
    """The checkpoint loads in numtorch and in PyTorch (weights_only) with equal tensors; the PNG is a PNG."""
    ckpt = os.path.join(out_dir, f"{name}.pt")
    mine = numtorch.load(ckpt)
    theirs = ref.load(ckpt, weights_only=True)
    assert set(mine["model"]) == set(theirs["model"]) and mine["model"]
    for k, v in mine["model"].items():
        assert isinstance(theirs["model"][k], ref.Tensor)
        np.testing.assert_array_equal(v.numpy(), theirs["model"][k].numpy())
    with open(os.path.join(out_dir, f"{name}.png"), "rb") as f:
        assert f.read(8) == PNG_SIGNATURE
    return mine


# ------------------------------------------------------------------------------------------------
# IDX reader
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("gz", [False, True])
def test_read_idx_roundtrip(tmp_path, gz):
    imgs = np.arange(3 * 28 * 28, dtype=np.int64).reshape(3, 28, 28) % 256
    p = write(tmp_path / "imgs.bin", idx_bytes(imgs), gz)
    got = mnist.read_idx(p, mnist.IMAGES_MAGIC)
    assert got.dtype == np.uint8 and got.shape == (3, 28, 28)
    np.testing.assert_array_equal(got, imgs)
    labels = np.array([3, 1, 4, 1, 5], dtype=np.uint8)
    np.testing.assert_array_equal(mnist.read_idx(write(tmp_path / "l", idx_bytes(labels), gz)), labels)


def test_read_idx_other_types(tmp_path):
    a = np.array([[1.5, -2.0], [3.25, 0.0]], dtype=">f4")
    data = (0x0D02).to_bytes(4, "big") + np.asarray(a.shape, ">u4").tobytes() + a.tobytes()
    got = mnist.read_idx(write(tmp_path / "f", data, False))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, a.astype(np.float32))


@pytest.mark.parametrize("gz", [False, True])
def test_read_idx_bad_magic(tmp_path, gz):
    labels = np.zeros(4, np.uint8)
    p = write(tmp_path / "labels", idx_bytes(labels), gz)
    with pytest.raises(ValueError, match=r"labels: bad IDX magic number: expected 2051, found 2049"):
        mnist.read_idx(p, mnist.IMAGES_MAGIC)
    p = write(tmp_path / "junk", b"PK\x03\x04" + bytes(20), gz)
    with pytest.raises(ValueError, match="not an IDX file"):
        mnist.read_idx(p)
    with pytest.raises(ValueError, match="expected 2049, found"):
        mnist.read_idx(p, mnist.LABELS_MAGIC)


@pytest.mark.parametrize("gz", [False, True])
def test_read_idx_truncated(tmp_path, gz):
    data = idx_bytes(np.ones((5, 28, 28), np.uint8))
    p = write(tmp_path / "short", data[:-100], gz)
    with pytest.raises(ValueError, match=r"short: truncated IDX file: header says shape \(5, 28, 28\) "
                                         r"\(3920 bytes of data\), found 3820 bytes"):
        mnist.read_idx(p, mnist.IMAGES_MAGIC)
    p = write(tmp_path / "header", data[:9], gz)
    with pytest.raises(ValueError, match="truncated IDX header: expected 16 bytes"):
        mnist.read_idx(p)
    p = write(tmp_path / "tiny", data[:2], gz)
    with pytest.raises(ValueError, match="truncated IDX file: expected a 4-byte magic"):
        mnist.read_idx(p)
    p = write(tmp_path / "long", data + b"\x00\x00", gz)
    with pytest.raises(ValueError, match="2 trailing bytes"):
        mnist.read_idx(p)


def test_read_idx_truncated_gzip_stream(tmp_path):
    raw = gzip.compress(idx_bytes(np.ones((5, 28, 28), np.uint8)))
    p = write(tmp_path / "cut.gz", raw[: len(raw) // 2], False)
    with pytest.raises(ValueError, match=r"cut\.gz: corrupt or truncated gzip data"):
        mnist.read_idx(p)


def test_load_split_checks(tmp_path):
    imgs = write(tmp_path / "i", idx_bytes(np.zeros((4, 28, 28), np.uint8)), False)
    labels = write(tmp_path / "l", idx_bytes(np.zeros(3, np.uint8)), True)
    with pytest.raises(ValueError, match=r"has 4 images but .* has 3 labels"):
        mnist.load_split(imgs, labels)
    small = write(tmp_path / "s", idx_bytes(np.zeros((4, 8, 8), np.uint8)), False)
    with pytest.raises(ValueError, match="expected 28x28 images, found 8x8"):
        mnist.load_split(small, labels)
    bad = write(tmp_path / "b", idx_bytes(np.array([1, 2, 12, 3], np.uint8)), False)
    with pytest.raises(ValueError, match="expected labels 0..9, found 12"):
        mnist.load_split(imgs, bad)
    x, y = mnist.load_split(imgs, write(tmp_path / "ok", idx_bytes(np.arange(4, dtype=np.uint8)), False))
    assert x.shape == (4, 28, 28) and y.dtype == np.int64 and y.tolist() == [0, 1, 2, 3]


def test_find_file(tmp_path):
    fake_mnist(tmp_path, 8, 8)
    assert mnist.find_file(str(tmp_path), "train-images-idx3-ubyte").endswith(".reconstructed.gz")
    assert mnist.find_file(str(tmp_path), "t10k-images-idx3-ubyte").endswith("t10k-images-idx3-ubyte")
    write(tmp_path / "t10k-labels-idx1-ubyte.gz", b"", False)  # the standard names win over prefixes
    assert mnist.find_file(str(tmp_path), "t10k-labels-idx1-ubyte").endswith("t10k-labels-idx1-ubyte")
    with pytest.raises(FileNotFoundError, match="no foo-idx3-ubyte"):
        mnist.find_file(str(tmp_path), "foo-idx3-ubyte")
    write(tmp_path / "train-images-idx3-ubyte.copy", b"", False)
    with pytest.raises(ValueError, match="several files match"):
        mnist.find_file(str(tmp_path), "train-images-idx3-ubyte")


# ------------------------------------------------------------------------------------------------
# mnist --smoke
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_mnist_smoke(tmp_path, model, capsys):
    fake_mnist(tmp_path / "data")
    out = tmp_path / "out"
    line = mnist.main(["--data", str(tmp_path / "data"), "--model", model, "--smoke", "--out", str(out)])
    assert capsys.readouterr().out.strip().splitlines()[-2:] == [SMOKE_NOTICE, line]
    m = metrics(line)
    assert list(m) == ["test_accuracy", "test_loss", "train_loss", "epoch_seconds", "seconds"]
    assert 0.0 <= m["test_accuracy"] <= 1.0 and m["test_loss"] > 0 and m["train_loss"] > 0
    assert 0 < m["epoch_seconds"] <= m["seconds"] + 0.05
    ckpt = check_outputs(out, f"mnist-{model}")
    assert ckpt["model_name"] == model and math.isclose(ckpt["test_accuracy"], m["test_accuracy"], abs_tol=1e-4)
    net = mnist.MODELS[model]()
    net.load_state_dict(ckpt["model"])  # strict: same architecture


def test_mnist_explicit_paths_override_dir(tmp_path):
    fake_mnist(tmp_path / "a", n_train=64, n_test=16)
    (xtr, ytr), _ = fake_mnist(tmp_path / "b", n_train=64, n_test=32, train_name="weird-name.gz")
    args = ["--data", str(tmp_path / "a"), "--test-images", str(tmp_path / "b" / "t10k-images-idx3-ubyte"),
            "--test-labels", str(tmp_path / "b" / "t10k-labels-idx1-ubyte"), "--model", "mlp", "--smoke"]
    assert metrics(mnist.main(args))["test_accuracy"] >= 0
    bad = ["--data", str(tmp_path / "a"), "--test-labels", str(tmp_path / "a" / "train-labels-idx1-ubyte.gz"),
           "--model", "mlp", "--smoke"]
    with pytest.raises(ValueError, match="has 16 images but .* has 64 labels"):
        mnist.main(bad)


def test_mnist_normalisation():
    x, y = mnist.to_tensors(np.array([[[0] * 28] * 28, [[255] * 28] * 28], np.uint8), np.array([1, 2]))
    assert x.shape == (2, 1, 28, 28) and x.dtype == numtorch.float32 and y.dtype == numtorch.int64
    np.testing.assert_allclose(x.numpy()[:, 0, 0, 0], [-0.1307 / 0.3081, (1 - 0.1307) / 0.3081], rtol=1e-6)


def test_mnist_model_shapes():
    x = numtorch.randn(3, 1, 28, 28)
    for name, cls in mnist.MODELS.items():
        assert cls()(x).shape == (3, 10), name
    assert sum(p.numel() for p in mnist.MLP().parameters()) == 784 * 256 + 256 + 256 * 10 + 10


# ------------------------------------------------------------------------------------------------
# makemore
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def names_file(tmp_path_factory):
    """~600 pronounceable names from a fixed syllable list (every letter a..z appears)."""
    rng = random.Random(0)
    syl = ["an", "be", "ca", "do", "el", "fi", "ga", "ha", "is", "jo", "ki", "lu", "ma", "ne", "ol", "pa",
           "qu", "ri", "sa", "ty", "uv", "wen", "xa", "ya", "zo", "mi", "la", "ra"]
    words = ["".join(rng.choice(syl) for _ in range(rng.randint(1, 4))) for _ in range(600)]
    p = tmp_path_factory.mktemp("mm") / "names.txt"
    p.write_text("\n".join(words) + "\n")
    return str(p), words


def test_makemore_pipeline(names_file):
    path, words = names_file
    got = makemore.read_words(path)
    assert got == words
    stoi, itos = makemore.vocabulary(got)
    assert stoi["."] == 0 and stoi["a"] == 1 and len(stoi) == 27 and itos[26] == "z"
    tr, va, te = makemore.split_words(got)
    expect = list(words)
    random.seed(42)
    random.shuffle(expect)
    assert tr + va + te == expect and (len(tr), len(va), len(te)) == (480, 60, 60)
    x, y = makemore.build_dataset(["ab", "c"], stoi, 3)
    assert x.tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 2], [0, 0, 0], [0, 0, 3]]
    assert y.tolist() == [1, 2, 0, 3, 0] and x.dtype == numtorch.int64


def test_wavenet_parameter_count():
    model = makemore.make_wavenet(27)
    assert sum(p.numel() for p in model.parameters()) == makemore.WAVENET_PARAMETERS == 76_579
    assert model(numtorch.zeros(5, 8, dtype=numtorch.int64)).shape == (5, 27)
    assert sum(p.numel() for p in makemore.make_mlp(27).parameters()) == 11_897
    assert sum(p.numel() for p in makemore.make_mlp_bn(27).parameters()) == 12_097


def test_flatten_consecutive_and_batchnorm_last():
    x = numtorch.arange(2 * 4 * 3, dtype=numtorch.float32).view(2, 4, 3)
    y = makemore.FlattenConsecutive(2)(x)
    assert y.shape == (2, 2, 6) and y[0, 1].tolist() == [6, 7, 8, 9, 10, 11]
    assert makemore.FlattenConsecutive(4)(x).shape == (2, 12)  # T of 1 is squeezed
    # BatchNorm over (B, T) per channel = the lecture's mean/var over dims (0, 1) (biased var, eps 1e-5)
    bn = makemore.BatchNormLast(3)
    z = numtorch.randn(4, 5, 3) * 3 + 1
    out = bn(z).detach().numpy()
    zn = z.numpy()
    want = (zn - zn.mean((0, 1))) / np.sqrt(zn.var((0, 1)) + 1e-5)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * zn.mean((0, 1)), rtol=1e-5, atol=1e-6)


def test_bigram_counts(names_file):
    path, words = names_file
    stoi, _ = makemore.vocabulary(words)
    x, y = makemore.build_dataset(words, stoi, 1)
    model = makemore.Bigram(27).fit(x, y)
    counts = np.zeros((27, 27))
    np.add.at(counts, (x.numpy()[:, 0], y.numpy()), 1)
    np.testing.assert_array_equal(model.counts.numpy(), counts)
    p = (counts + 1) / (counts + 1).sum(1, keepdims=True)
    nll = -np.log(p[x.numpy()[:, 0], y.numpy()]).mean()
    assert makemore.split_loss(model, x, y) == pytest.approx(nll, rel=1e-5)


@pytest.mark.parametrize("model", ["bigram", "mlp", "mlp-bn", "wavenet"])
def test_makemore_smoke(names_file, tmp_path, model, capsys):
    path, words = names_file
    line = makemore.main(["--data", path, "--model", model, "--smoke", "--out", str(tmp_path), "--samples", "5"])
    printed = capsys.readouterr().out.strip().splitlines()
    assert printed[-1] == line and printed[-2] == SMOKE_NOTICE
    samples = printed[-7:-2]
    assert len(samples) == 5 and all(re.fullmatch(r"[a-z]*", s) for s in samples)
    m = metrics(line)
    assert list(m)[:3] == ["val_loss", "train_loss", "test_loss"]
    for k in ("val_loss", "train_loss", "test_loss"):
        assert 0.5 < m[k] < (4.0 if model != "mlp" else 30.0), (k, m[k])  # mlp's N(0,1) init starts high
    if model == "bigram":
        assert 1.0 < m["all_loss"] < math.log(27)
    ckpt = check_outputs(tmp_path, f"makemore-{model}")
    assert ckpt["model_name"] == model and ckpt["itos"][0] == "."
    assert ckpt["val_loss"] == pytest.approx(m["val_loss"], abs=1e-4)
