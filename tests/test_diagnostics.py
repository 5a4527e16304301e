"""numtorch.utils.diagnostics: the recorded statistics equal values computed by hand with NumPy on a
tiny model (forward, hand-written backward, SGD update), steps and sampling, warnings, plots, removal
of every hook, and the makemore example's --diagnostics flag in smoke mode."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

import numtorch
import numtorch.nn as nn
from numtorch.examples import makemore
from numtorch.utils.diagnostics import Diagnostics

PNG = b"\x89PNG\r\n\x1a\n"


def std(a):
    return np.std(a, ddof=1)  # torch's Tensor.std(): unbiased


def tiny(seed=0):
    numtorch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 2), nn.Sigmoid())
    with numtorch.no_grad():
        model[2].bias[0] = -100.0  # unit 0 of the ReLU is dead for any input
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((8, 3)) * 3).astype(np.float32)
    c = rng.standard_normal((8, 2)).astype(np.float32)
    return model, x, c


def by_hand(model, x, c):
    """Forward and backward of loss = sum(c * model(x)) in float64 NumPy: outputs, output gradients
    and parameter gradients per layer index."""
    W = {i: model[i].weight.detach().numpy().astype(np.float64) for i in (0, 2, 4)}
    b = {i: model[i].bias.detach().numpy().astype(np.float64) for i in (0, 2, 4)}
    out = {}
    out[0] = x @ W[0].T + b[0]
    out[1] = np.tanh(out[0])
    out[2] = out[1] @ W[2].T + b[2]
    out[3] = np.maximum(out[2], 0)
    out[4] = out[3] @ W[4].T + b[4]
    out[5] = 1 / (1 + np.exp(-out[4]))
    g = {5: c.astype(np.float64)}
    g[4] = g[5] * out[5] * (1 - out[5])
    g[3] = g[4] @ W[4]
    g[2] = g[3] * (out[2] > 0)
    g[1] = g[2] @ W[2]
    g[0] = g[1] * (1 - out[1] ** 2)
    inputs = {0: x, 2: out[1], 4: out[3]}
    pgrad = {}
    for i in (0, 2, 4):
        pgrad[f"{i}.weight"] = g[i].T @ inputs[i]
        pgrad[f"{i}.bias"] = g[i].sum(0)
    params = {f"{i}.weight": W[i] for i in W} | {f"{i}.bias": b[i] for i in b}
    return out, g, pgrad, params


def train_step(model, opt, x, c):
    loss = (model(numtorch.from_numpy(x)) * numtorch.from_numpy(c)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()


def test_statistics_equal_hand_computed_values():
    model, x, c = tiny()
    lr = 0.05
    opt = numtorch.optim.SGD(model.parameters(), lr=lr)
    out, g, pgrad, params = by_hand(model, x, c)
    with Diagnostics(model, opt) as diag:
        train_step(model, opt, x, c)
    assert diag.step_count == 1 and list(diag.layers) == ["0", "1", "2", "3", "4", "5"]
    for i, rec in enumerate(diag.layers.values()):
        assert rec.steps == [0] and rec.grad_steps == [0]
        assert rec.mean[0] == pytest.approx(out[i].mean(), rel=1e-4, abs=1e-5)
        assert rec.std[0] == pytest.approx(std(out[i]), rel=1e-4)
        assert rec.grad_mean[0] == pytest.approx(g[i].mean(), rel=1e-4, abs=1e-6)
        assert rec.grad_std[0] == pytest.approx(std(g[i]), rel=1e-4)
    sat = diag.layers
    assert sat["0"].saturated == [None] and sat["2"].saturated == [None]
    assert sat["1"].saturated[0] == pytest.approx(np.mean(np.abs(out[1]) > 0.97))
    assert sat["1"].saturated[0] > 0  # the x3 inputs saturate some tanh units
    assert sat["3"].saturated[0] == pytest.approx(np.mean(np.all(out[3] == 0, axis=0)))
    assert sat["3"].saturated[0] >= 0.25  # unit 0 is dead
    assert sat["5"].saturated[0] == pytest.approx(np.mean((out[5] < 0.03) | (out[5] > 0.97)))
    for name, rec in diag.params.items():
        assert rec.steps == [0]
        assert rec.grad_data[0] == pytest.approx(std(pgrad[name]) / std(params[name]), rel=1e-3)
        want = math.log10(std(lr * pgrad[name]) / std(params[name]))
        assert rec.update_data[0] == pytest.approx(want, abs=1e-3)
    np.testing.assert_allclose(diag.layers["1"].last_output, out[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(diag.layers["1"].last_grad, g[1], rtol=1e-4, atol=1e-6)


def no_hooks_left(model, opt, out=None):
    for m in model.modules():
        assert not m._forward_hooks and not m._forward_pre_hooks and not m._backward_hooks
    assert not opt._optimizer_step_pre_hooks and not opt._optimizer_step_post_hooks
    if out is not None:
        assert not any(out.grad_fn.__dict__.get("_tensor_hooks", {}).values())


def test_remove_leaves_no_hooks():
    model, x, c = tiny()
    opt = numtorch.optim.SGD(model.parameters(), lr=0.1)
    diag = Diagnostics(model, opt)
    assert all(len(m._forward_hooks) == 1 for m in model)
    assert len(opt._optimizer_step_pre_hooks) == len(opt._optimizer_step_post_hooks) == 1
    out = model(numtorch.from_numpy(x))  # a forward whose backward never runs: its tensor hook is pending
    assert out.grad_fn.__dict__["_tensor_hooks"][0]
    diag.remove()
    no_hooks_left(model, opt, out)
    diag.remove()  # twice is harmless
    n = len(diag.layers["1"].steps)
    train_step(model, opt, x, c)  # nothing is recorded any more
    assert len(diag.layers["1"].steps) == n and diag.step_count == 0
    with Diagnostics(model, opt) as d2:
        out = model(numtorch.from_numpy(x))
        assert len(model[1]._forward_hooks) == 1
    no_hooks_left(model, opt, out)
    assert d2.layers["1"].steps == [0]


def test_steps_every_and_eval_passes():
    model, x, c = tiny()
    opt = numtorch.optim.SGD(model.parameters(), lr=0.01)
    with Diagnostics(model, opt, every=2) as diag:
        for _ in range(5):
            train_step(model, opt, x, c)
            model.eval()
            with numtorch.no_grad():
                model(numtorch.from_numpy(x * 100))  # eval passes are not recorded
            model.train()
    assert diag.step_count == 5
    assert diag.layers["1"].steps == [0, 2, 4] and diag.layers["1"].grad_steps == [0, 2, 4]
    assert diag.params["0.weight"].steps == [0, 2, 4] and len(diag.params["0.weight"].update_data) == 3
    # without an optimizer: diag.step() ends a step, no update ratios
    model2, x, c = tiny()
    with Diagnostics(model2, layer_types=[nn.Tanh]) as d2:
        for _ in range(2):
            (model2(numtorch.from_numpy(x)) * numtorch.from_numpy(c)).sum().backward()
            d2.step()
    assert list(d2.layers) == ["1"] and d2.layers["1"].steps == [0, 1]
    assert d2.params["0.weight"].update_data == []


def test_summary_warnings():
    model, x, c = tiny()
    opt = numtorch.optim.SGD(model.parameters(), lr=5.0)  # far too high
    with Diagnostics(model, opt) as diag:
        train_step(model, opt, x, c)
    out, _, _, _ = by_hand(tiny()[0], x, c)
    text = diag.summary()
    share = round(100 * np.mean(np.abs(out[1]) > 0.97))
    assert f"layer 1 (Tanh): {share}% of units saturated" in text
    assert "layer 3 (ReLU): " in text and "of units dead" in text
    assert any(w.startswith("update/data ratio 1e") and "'0.weight': learning rate too high?" in w
               for w in diag.warnings())
    model, x, c = tiny()
    opt = numtorch.optim.SGD(model.parameters(), lr=1e-7)
    with Diagnostics(model, opt) as diag:
        train_step(model, opt, x, c)
    assert any("'2.weight': learning rate too low?" in w for w in diag.warnings())
    assert not any("too high" in w for w in diag.warnings())


def test_plots(tmp_path):
    model, x, c = tiny()
    opt = numtorch.optim.SGD(model.parameters(), lr=0.05)
    with Diagnostics(model, opt) as diag:
        for _ in range(3):
            train_step(model, opt, x, c)
    paths = diag.plot_all(str(tmp_path / "plots"))
    assert len(paths) == 3
    for p in paths:
        with open(p, "rb") as f:
            assert f.read(8) == PNG


def test_makemore_diagnostics_smoke(tmp_path, capsys):
    rng = random.Random(1)
    syl = ["an", "be", "ca", "do", "el", "fi", "ga", "ha", "is", "jo", "ki", "lu", "ma", "ne", "ol", "pa",
           "qu", "ri", "sa", "ty", "uv", "wen", "xa", "ya", "zo"]
    path = tmp_path / "names.txt"
    path.write_text("\n".join("".join(rng.choice(syl) for _ in range(rng.randint(1, 3))) for _ in range(400)))
    makemore.main(["--data", str(path), "--model", "mlp-bn", "--smoke", "--samples", "0", "--out",
                   str(tmp_path / "out"), "--diagnostics"])
    printed = capsys.readouterr().out
    assert "diagnostics after 200 steps" in printed and "layer 4 (Tanh)" in printed
    for kind in ("activations", "gradients", "update_ratios"):
        with open(tmp_path / "out" / f"makemore-mlp-bn-diagnostics_{kind}.png", "rb") as f:
            assert f.read(8) == PNG
