"""PyTorch's ModuleInfo database (``module_db``) run through numtorch, compared with torch (issue #16).

One test per entry (id = the entry's name, e.g. ``nn.Linear``): its module inputs in float32 and float64,
in train and in eval mode; the module built from the same constructor arguments with torch's
``state_dict`` loaded, forward values/dtypes/shapes, the state after the forward, and in float64 the
gradients w.r.t. the inputs and every parameter must match torch's (``_moduleinfo_harness.py``).

To fit in CI the inputs are capped, deterministically: the first ``CAP`` module inputs of each
(dtype, mode) in the database's order (seeded with ``torch.manual_seed(0)``). The uncapped measurement
quoted in issue #16 is ``python tests/_moduleinfo_harness.py``.

``MISSING``: modules numtorch has no class for (xfail; when the class appears the test fails and asks
for the line to be removed). ``XFAIL``: ``entry`` or ``entry:mode:dtype`` (mode train/eval) -> reason;
failures not in the table fail, and a table line that passes fails too (strict), so it only shrinks.
"""
from __future__ import annotations

import pytest

from _moduleinfo_harness import check_module, module_db, nt_class

CAP = 6

NOT_IN = "not in numtorch"
MISSING = {name: NOT_IN for name in [
]}

XFAIL = {
}


def _covered(k, failure, table):
    return k in table or f"{k}:{failure}" in table or f"{k}:{failure.split(':')[0]}" in table


@pytest.mark.parametrize("info", module_db, ids=[info.name for info in module_db])
def test_moduleinfo_entry_matches_torch(info):
    k = info.name
    if k in MISSING:
        assert nt_class(info) is None, f"{k} now has a numtorch class: remove it from MISSING"
        pytest.xfail(MISSING[k])
    fails, _ = check_module(info, CAP)
    table = {t: why for t, why in XFAIL.items() if t == k or t.startswith(k + ":")}
    unexpected = {f: m for f, m in fails.items() if not _covered(k, f, table)}
    assert not unexpected, "\n".join(f"{f}: {m}" for f, m in unexpected.items())
    stale = [t for t in table if not any(_covered(k, f, {t: 1}) for f in fails)]
    assert not stale, f"these XFAIL lines pass now, remove them: {stale}"
    if fails:
        pytest.xfail("; ".join(sorted(set(table.values()))))


def test_tables_name_entries():
    """Every MISSING / XFAIL line names an entry of module_db."""
    names = {info.name for info in module_db}
    assert not set(MISSING) - names, sorted(set(MISSING) - names)
    assert not {t.split(":")[0] for t in XFAIL} - names, sorted({t.split(":")[0] for t in XFAIL} - names)
