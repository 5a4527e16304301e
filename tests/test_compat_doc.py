"""docs/compat.md's "What numtorch still lacks" section is current: regenerating it from PyTorch's
public API (docs/make_compat.py) gives the committed text."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "docs"))

import make_compat  # noqa: E402


def test_compat_section_is_current():
    with open(make_compat.DOC, encoding="utf-8") as f:
        committed = make_compat._current(f.read())
    assert committed is not None, "docs/compat.md has no generated section: run python docs/make_compat.py"
    assert committed == make_compat.report(), "docs/compat.md is stale: run python docs/make_compat.py"


def test_section_names_known_gaps_and_not_present_names():
    text = make_compat.report()
    assert "`torch.optim`" in text and "| `torch.nn.init` |" in text
    missing = text.split("Missing names:")[1]
    assert "`Adam`" not in missing  # present names are never listed


def test_math_constants_match_torch():
    import math

    import torch

    import numtorch
    for name in ("e", "pi", "inf"):
        assert getattr(numtorch, name) == getattr(torch, name)
    assert math.isnan(numtorch.nan) and numtorch.newaxis is torch.newaxis is None
