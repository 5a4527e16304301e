"""State-dict compatibility with PyTorch: a model built from the layers (conv, batch norm, layer norm,
embedding, attention, linear) moves between PyTorch and numtorch with ``strict=True`` in both
directions (in memory and through ``torch.save``/``numtorch.load`` files) and computes the same outputs
and gradients; BatchNorm's version-2 rule loads old checkpoints without ``num_batches_tracked``."""
from collections import OrderedDict

import numpy as np
import pytest
import torch as ref

import numtorch as nt
import numtorch.nn  # noqa: F401  (makes nt.nn available)
from conftest import assert_close, to_nt, to_ref

TOL = dict(rtol=1e-4, atol=1e-4)  # gradients of magnitude ~10 after three SGD steps: float32 sums differ by ~1e-5


def make_model(lib):
    """The same small network written against ``lib`` (torch or numtorch)."""
    n = lib.nn

    class Net(n.Module):
        def __init__(self):
            super().__init__()
            self.emb = n.Embedding(10, 4, padding_idx=0)
            self.features = n.Sequential(
                n.Conv2d(1, 4, 3, padding=1), n.BatchNorm2d(4), n.ReLU(), n.MaxPool2d(2),
                n.Conv2d(4, 6, 3, groups=2, padding_mode="reflect", padding=1), n.BatchNorm2d(6, momentum=None),
                n.GELU(), n.AdaptiveAvgPool2d(2), n.Flatten())
            self.attn = n.MultiheadAttention(4, 2, batch_first=True)
            self.norm = n.LayerNorm(28)
            self.head = n.Sequential(n.Linear(28, 16), n.BatchNorm1d(16), n.Dropout(0.0), n.Linear(16, 3))

        def forward(self, img, tok):
            h = self.features(img)
            e = self.emb(tok)
            e, _ = self.attn(e, e, e)
            return self.head(self.norm(lib.cat([h, e.mean(1)], 1)))

    return Net()


def _inputs(rng, n=4):
    img = rng.standard_normal((n, 1, 8, 8)).astype(np.float32)
    tok = rng.integers(0, 10, (n, 5)).astype(np.int64)
    return img, tok


def _train_steps(model, lib, to_lib, rng, steps=3):
    """A few SGD steps by hand so that weights and BatchNorm statistics move away from their init."""
    model.train()
    for _ in range(steps):
        img, tok = _inputs(rng)
        out = model(to_lib(img), to_lib(tok))
        (out ** 2).mean().backward()
        with lib.no_grad():
            for p in model.parameters():
                if p.grad is not None:
                    p -= 0.1 * p.grad
                    p.grad = None


def _compare_models(m_nt, m_ref, rng):
    for mode in ("train", "eval"):
        m_nt.train(mode == "train")
        m_ref.train(mode == "train")
        m_nt.zero_grad()
        m_ref.zero_grad()
        img, tok = _inputs(rng)
        img_nt, img_ref = to_nt(img, True), to_ref(img, True)
        out_nt, out_ref = m_nt(img_nt, to_nt(tok)), m_ref(img_ref, to_ref(tok))
        assert_close(out_nt, out_ref, **TOL)
        g = rng.standard_normal(tuple(out_ref.shape)).astype(np.float32)  # not a plain sum: BatchNorm1d
        (out_nt * to_nt(g)).sum().backward()                                # would make its gradient ~0
        (out_ref * to_ref(g)).sum().backward()
        assert_close(img_nt.grad, img_ref.grad, **TOL)
        for (k, p_nt), (k2, p_ref) in zip(m_nt.named_parameters(), m_ref.named_parameters()):
            assert k == k2
            assert_close(p_nt.grad, p_ref.grad, **TOL)
        # the training-mode pass moved the running statistics the same way in both
        for (k, b_nt), (_, b_ref) in zip(m_nt.named_buffers(), m_ref.named_buffers()):
            assert_close(b_nt, b_ref, **TOL)


def test_keys_shapes_and_versions_match():
    sd_nt, sd_ref = make_model(nt).state_dict(), make_model(ref).state_dict()
    assert list(sd_nt) == list(sd_ref)
    assert [tuple(v.shape) for v in sd_nt.values()] == [tuple(v.shape) for v in sd_ref.values()]
    assert [str(v.dtype) for v in sd_nt.values()] == [str(v.dtype) for v in sd_ref.values()]
    assert dict(sd_nt._metadata) == dict(sd_ref._metadata)


def test_torch_state_dict_loads_into_numtorch():
    rng = np.random.default_rng(0)
    m_ref, m_nt = make_model(ref), make_model(nt)
    _train_steps(m_ref, ref, to_ref, rng)
    sd = OrderedDict((k, to_nt(v)) for k, v in m_ref.state_dict().items())
    sd._metadata = m_ref.state_dict()._metadata
    result = m_nt.load_state_dict(sd, strict=True)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert int(m_nt.features[1].num_batches_tracked) == 3
    assert m_nt.features[1].num_batches_tracked.dtype == nt.int64
    _compare_models(m_nt, m_ref, rng)


def test_numtorch_state_dict_loads_into_torch():
    rng = np.random.default_rng(1)
    m_ref, m_nt = make_model(ref), make_model(nt)
    _train_steps(m_nt, nt, to_nt, rng)
    sd = OrderedDict((k, to_ref(v)) for k, v in m_nt.state_dict().items())
    sd._metadata = m_nt.state_dict()._metadata
    result = m_ref.load_state_dict(sd, strict=True)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert int(m_ref.features[5].num_batches_tracked) == 3
    _compare_models(m_nt, m_ref, rng)


def test_state_dict_through_files(tmp_path):
    rng = np.random.default_rng(2)
    m_ref, m_nt = make_model(ref), make_model(nt)
    _train_steps(m_ref, ref, to_ref, rng, steps=2)
    ref.save(m_ref.state_dict(), tmp_path / "ref.pt")
    m_nt.load_state_dict(nt.load(tmp_path / "ref.pt"), strict=True)
    _compare_models(m_nt, m_ref, rng)
    nt.save(m_nt.state_dict(), tmp_path / "nt.pt")
    m_ref2 = make_model(ref)
    m_ref2.load_state_dict(ref.load(tmp_path / "nt.pt"), strict=True)
    _compare_models(m_nt, m_ref2, rng)


def _without_counter(sd, version):
    old = OrderedDict((k, v) for k, v in sd.items() if not k.endswith("num_batches_tracked"))
    if version is not False:
        old._metadata = OrderedDict((k, dict(v, version=version) if k in ("", "bn") else v)
                                    for k, v in sd._metadata.items())
    return old


@pytest.mark.parametrize("version", [False, None, 1])
def test_batchnorm_old_checkpoint_without_counter(version):
    """A checkpoint from before version 2 (no metadata, or version 1) has no num_batches_tracked: strict
    loading still succeeds and keeps the module's counter, exactly as in PyTorch."""
    results = []
    for lib, conv in ((ref, to_ref), (nt, to_nt)):
        src = lib.nn.BatchNorm1d(3)
        src(conv(np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)))
        sd = src.state_dict()
        old = _without_counter(sd, version)
        if version is None:
            old._metadata[""].pop("version")
        dst = lib.nn.BatchNorm1d(3)
        dst.num_batches_tracked.fill_(7)
        res = dst.load_state_dict(old, strict=True)
        assert res.missing_keys == [] and res.unexpected_keys == []
        assert int(dst.num_batches_tracked) == 7
        results.append(dst.running_mean.detach().numpy().copy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)


def test_batchnorm_old_checkpoint_nested_and_current_version_missing_counter():
    seq_nt = nt.nn.Sequential(nt.nn.Linear(3, 3), nt.nn.BatchNorm1d(3))
    sd = seq_nt.state_dict()
    old = OrderedDict((k, v) for k, v in sd.items() if k != "1.num_batches_tracked")
    assert nt.nn.Sequential(nt.nn.Linear(3, 3), nt.nn.BatchNorm1d(3)).load_state_dict(old).missing_keys == []
    # a version-2 checkpoint that lacks the counter really is missing a key
    old._metadata = sd._metadata
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "1.num_batches_tracked"'):
        nt.nn.Sequential(nt.nn.Linear(3, 3), nt.nn.BatchNorm1d(3)).load_state_dict(old)
    res = nt.nn.Sequential(nt.nn.Linear(3, 3), nt.nn.BatchNorm1d(3)).load_state_dict(old, strict=False)
    assert res.missing_keys == ["1.num_batches_tracked"]


def test_batchnorm_without_running_stats_has_no_counter_to_add():
    m = nt.nn.BatchNorm1d(3, track_running_stats=False)
    sd = OrderedDict([("weight", nt.ones(3)), ("bias", nt.zeros(3))])
    assert m.load_state_dict(sd).missing_keys == []
    assert list(m.state_dict()) == list(ref.nn.BatchNorm1d(3, track_running_stats=False).state_dict())


def test_size_mismatch_reports_like_torch():
    m = nt.nn.Conv2d(3, 4, 3)
    bad = {"weight": nt.zeros(4, 3, 5, 5), "bias": nt.zeros(4)}
    with pytest.raises(RuntimeError, match=r"size mismatch for weight: copying a param with shape "
                                           r"torch.Size\(\[4, 3, 5, 5\]\) from checkpoint, the shape in current "
                                           r"model is torch.Size\(\[4, 3, 3, 3\]\)"):
        m.load_state_dict(bad)


def test_loaded_parameters_keep_identity_and_dtype():
    m = make_model(nt)
    params = list(m.parameters())
    sd = OrderedDict((k, to_nt(v.double())) for k, v in make_model(ref).state_dict().items())
    m.load_state_dict(sd)
    assert all(a is b for a, b in zip(params, m.parameters()))
    assert all(p.dtype == nt.float32 for p in m.parameters())
