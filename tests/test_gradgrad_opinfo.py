"""Coverage audit of double backward against PyTorch's OpInfo database.

For every OpInfo entry of ``op_db`` that supports autograd in float64 on CPU and that numtorch
implements: the first float64 sample input (PyTorch's own curated inputs), run through
``autograd.grad(f(x), x, v, create_graph=True)`` and then the gradient of ``sum(g * w)`` w.r.t. the
inputs and ``v``, in numtorch and in torch; values, shapes, dtypes and None-ness must agree. Where
torch raises (entries marked ``supports_gradgrad=False``, or inputs torch refuses), numtorch must raise
the same exception type.

Nothing is skipped silently: an entry numtorch has no function for is listed in ``NOT_IN_NUMTORCH``
(a test checks that list against op_db both ways), a known failure in ``XFAIL`` with its reason.
The numtorch function of an entry is found by its name (``nn.functional.relu`` ->
``numtorch.nn.functional.relu``, a Tensor method otherwise); an entry whose ``op`` is a lambda of
the database is run with ``torch`` in its globals replaced by ``numtorch``.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import numtorch
import numtorch.fft  # noqa: F401  (the facades the entries name)
import numtorch.linalg  # noqa: F401
import numtorch.special  # noqa: F401
import numtorch.nn.functional  # noqa: F401

from _gradgrad import _diff_outputs, _leaves, _run, _same
from _opinfo_common import canonical, key as _key, resolve as _resolve, to_nt, wrapped as _wrapped

common = pytest.importorskip("torch.testing._internal.common_methods_invocations",
                             reason="PyTorch's OpInfo database needs the 'expecttest' package (test extra)")

NOT_YET = "no numtorch function yet (issue #16)"

# OpInfo entries (name or name.variant) numtorch has no function for
NOT_IN_NUMTORCH = {name: NOT_YET for name in [
]}

# entries numtorch has, whose double backward differs from torch's today (reason each)
XFAIL = {
    "sparse.mm.reduce": "the samples are sparse CSR tensors: numtorch has only the sparse COO layout",
    "sparse.sampled_addmm": "the samples are sparse CSR tensors: numtorch has only the sparse COO layout",
    "as_strided_scatter": "PyTorch's AsStridedScatterBackward0 gives the input the gradient AT the scattered positions "
                          "instead of elsewhere (its own OpInfo marks test_fn_grad expectedFailure: gradcheck fails); "
                          "numtorch's is the true derivative",
    "nn.functional.linear_cross_entropy.chunked": "PyTorch's chunked path (options=) is documented as not supporting "
                                                  "higher-order AD; numtorch always runs the reference path",
    "nn.functional.linear_cross_entropy.chunked_none": "PyTorch's chunked path (options=) is documented as not "
                                                       "supporting higher-order AD; numtorch always runs the reference "
                                                       "path",
    "nn.functional.grid_sample": "grid_sample (added with torchvision support) keeps intermediate arrays in its backward, "
                                 "so its double backward raises NotImplementedError; PyTorch supports it",
    "grid_sampler_2d": "grid_sample's backward keeps intermediate arrays, so its double backward raises "
                       "NotImplementedError; PyTorch supports it",
    "grid_sampler_3d": "grid_sample's backward keeps intermediate arrays, so its double backward raises "
                       "NotImplementedError; PyTorch supports it",
    "bfloat16": "the output is bfloat16, which torch cannot hand to NumPy (.numpy()) to seed numtorch's inputs",
    "chalf": "the output is complex32, which torch cannot hand to NumPy (.numpy()) to seed numtorch's inputs",
}


def _entries():
    out = []
    for op in common.op_db:
        if op.supports_autograd and torch.float64 in op.supported_dtypes("cpu"):
            out.append(op)
    return out


ENTRIES = _entries()


def _first_sample(op):
    torch.manual_seed(0)
    for s in op.sample_inputs("cpu", torch.float64, requires_grad=True):
        return s
    return None


def _compare(op, nt_fn):
    s = _first_sample(op)
    if s is None:
        pytest.fail(f"{_key(op)}: no float64 sample")
    args, kwargs = (s.input, *s.args), dict(s.kwargs)
    tfn, nfn = _wrapped(op, op.op, torch), _wrapped(op, nt_fn, numtorch)
    tfn, nfn = canonical(op, tfn), canonical(op, nfn)
    touts = _diff_outputs(tfn(*args, **kwargs), torch)
    if not touts:
        return
    gen = torch.Generator().manual_seed(1)
    tvs = [torch.randn(o.shape, dtype=o.dtype, generator=gen).requires_grad_(True) for o in touts]
    tws = [torch.randn(x.shape, dtype=x.dtype, generator=gen) for x in _leaves(args, kwargs, torch)]
    nargs, nkw = to_nt(args), to_nt(kwargs)
    try:
        tgs, tgg = _run(torch, tfn, args, kwargs, tvs, tws)
    except Exception as e:  # noqa: BLE001 (torch refuses: numtorch must refuse with the same type)
        with pytest.raises(type(e)):
            _run(numtorch, nfn, nargs, nkw, [to_nt(v) for v in tvs], [to_nt(w) for w in tws])
        return
    ngs, ngg = _run(numtorch, nfn, nargs, nkw, [to_nt(v) for v in tvs], [to_nt(w) for w in tws])
    for i, (a, b) in enumerate(zip(ngs, tgs)):
        _same(a, b, f"first grad {i}", torch.float64)
    if tgg is None:
        assert ngg is None or all(g is None or not np.any(g.detach().numpy()) for g in ngg), "numtorch has a graph"
        return
    assert ngg is not None, "numtorch's first grads have no graph"
    for i, (a, b) in enumerate(zip(ngg, tgg)):
        _same(a, b, f"grad of grad {i}", torch.float64)


def _params():
    out = []
    for op in ENTRIES:
        key = _key(op)
        if key in NOT_IN_NUMTORCH:
            continue
        marks = [pytest.mark.xfail(strict=True, reason=XFAIL[key])] if key in XFAIL else []
        out.append(pytest.param(op, marks=marks, id=key))
    return out


@pytest.mark.parametrize("op", _params())
def test_gradgrad_matches_torch(op):
    fn = _resolve(op)
    assert fn is not None, f"{_key(op)}: no numtorch function; list it in NOT_IN_NUMTORCH"
    _compare(op, fn)


def test_not_in_numtorch_is_exact():
    """NOT_IN_NUMTORCH lists exactly the entries numtorch lacks: every key is in op_db, and each listed entry
    still has no numtorch function (by name; a database lambda raises AttributeError on numtorch), so the
    list shrinks as issue #16 adds them."""
    ops = {_key(op): op for op in ENTRIES}
    assert not set(NOT_IN_NUMTORCH) - set(ops), sorted(set(NOT_IN_NUMTORCH) - set(ops))
    for key in NOT_IN_NUMTORCH:
        op = ops[key]
        fn = _resolve(op)
        if fn is None:
            continue
        s = _first_sample(op)
        with pytest.raises(AttributeError):
            _wrapped(op, fn, numtorch)(*to_nt((s.input, *s.args)), **to_nt(dict(s.kwargs)))


def test_audit_counts():
    """The audit's size, so a change of op_db or of the lists shows (numbers quoted in docs/higher_order.md)."""
    checked = [k for k in map(_key, ENTRIES) if k not in NOT_IN_NUMTORCH]
    no_gradgrad = [_key(op) for op in ENTRIES if not op.supports_gradgrad and _key(op) not in NOT_IN_NUMTORCH]
    assert (len(ENTRIES), len(checked), len(XFAIL), len(NOT_IN_NUMTORCH)) == (540, 540, 11, 0)
    assert not set(XFAIL) - set(checked)
    assert sorted(no_gradgrad) == ["_segment_reduce.lengths", "_segment_reduce.offsets", "cdist",
                                   "nn.functional.embedding_bag", "nn.functional.hardsigmoid",
                                   "nn.functional.multi_margin_loss", "nn.functional.multilabel_margin_loss",
                                   "nn.functional.pdist", "sparse.mm.reduce"]
