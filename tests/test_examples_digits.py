"""The digits demo (README's first command) in --smoke mode: metric line, checkpoint, plot."""
import re

import pytest
import torch as ref

import numtorch as nt
from numtorch.examples._common import SMOKE_NOTICE

pytest.importorskip("sklearn")
pytest.importorskip("matplotlib")


def test_digits_smoke(tmp_path, capsys):
    from numtorch.examples import digits
    line = digits.main(["--smoke", "--out", str(tmp_path), "--seed", "0"])
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-2:] == [SMOKE_NOTICE, line]  # a smoke run's accuracy is labelled as not meaningful
    m = dict(kv.split("=") for kv in line.split())
    assert set(m) == {"test_accuracy", "test_loss", "train_loss", "seconds"}
    assert 0.0 <= float(m["test_accuracy"]) <= 1.0 and float(m["seconds"]) > 0
    assert re.fullmatch(r"\d\.\d{4}", m["test_accuracy"])
    ckpt = tmp_path / "digits.pt"
    mine = nt.load(ckpt)
    theirs = ref.load(ckpt, weights_only=True)
    assert set(mine["model"]) == set(theirs["model"]) and "features.0.weight" in theirs["model"]
    model = digits.DigitsCNN()
    model.load_state_dict(mine["model"])
    assert theirs["optimizer"]["param_groups"][0]["lr"] == pytest.approx(2e-3)
    assert (tmp_path / "digits.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_digits_split_is_80_20_and_deterministic():
    from numtorch.examples.digits import load_digits
    a = load_digits(3)
    b = load_digits(3)
    assert len(a[0]) + len(a[2]) == 1797 and len(a[2]) == 1797 // 5
    assert tuple(a[0].shape[1:]) == (1, 8, 8) and float(a[0].max()) <= 1.0
    assert nt.equal(a[3], b[3])
