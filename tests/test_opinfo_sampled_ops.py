"""The ops issue #16 added (functional views, scatters, splits, statistics, shifts, histograms, windows,
orthogonal polynomials, stft, ``torch.masked``), run on PyTorch's own curated inputs.

For each OpInfo entry of these ops: the first samples of ``sample_inputs`` in float64 (with gradients of
every float input, compared with torch's for a random incoming gradient), float32 and one integer dtype
the entry supports, through numtorch and torch: values, dtypes and shapes must agree, and where torch
raises numtorch must raise the same exception type. Every ``error_inputs`` sample must raise PyTorch's
exception type. A float64 ``gradcheck`` of the first differentiable sample checks the derivative itself.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import numtorch
import numtorch.masked  # noqa: F401  (the facades the entries name)
import numtorch.signal.windows  # noqa: F401
import numtorch.special  # noqa: F401

from _gradgrad import _diff_outputs, _leaves, _np, to_nt

common = pytest.importorskip("torch.testing._internal.common_methods_invocations",
                             reason="PyTorch's OpInfo database needs the 'expecttest' package (test extra)")

OPS = """addr isin cov corrcoef dist rsub polar put index_reduce hsplit vsplit dsplit split_with_sizes slice_scatter
select_scatter diagonal_scatter as_strided_scatter view_copy permute_copy transpose_copy t_copy unsqueeze_copy
squeeze_copy expand_copy diagonal_copy alias_copy as_strided_copy narrow_copy split_with_sizes_copy unbind_copy
unfold_copy unravel_index column_stack diagflat broadcast_shapes bitwise_left_shift bitwise_right_shift gradient
histogram histogramdd histc sum_to_size stft""".split()
PREFIXES = ("masked.", "signal.windows.", "special.chebyshev", "special.shifted_chebyshev", "special.hermite",
            "special.laguerre", "special.legendre")
SAMPLES_PER_DTYPE = 4

# PyTorch's own gradient is wrong here (its OpInfo marks test_fn_grad an expected failure): numtorch's
# input gradient is the true derivative, checked by gradcheck below instead of against torch
GRAD_DIFFERS = {"as_strided_scatter": "PyTorch's AsStridedScatterBackward0 is wrong (gradcheck fails in torch)"}
# entries whose samples are all too large for finite differences (one evaluation per input element)
GRADCHECK_ELSEWHERE = {"slice_scatter": "samples are 20x20x20; test_shifts_stft_windows.py gradchecks a small case"}


def _key(op):
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def _entries():
    return [op for op in common.op_db if op.name in OPS or op.name.startswith(PREFIXES)]


ENTRIES = _entries()


def _resolve(op):
    obj = numtorch
    for part in op.name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            break
    if obj is not None and callable(obj):
        return obj
    meth = getattr(numtorch.Tensor, op.name, None)
    assert meth is not None, f"{op.name}: no numtorch function or Tensor method"
    return lambda x, *a, **k: getattr(x, op.name)(*a, **k)


def _same(a, b, what, dtype):
    if isinstance(b, (tuple, list)):
        assert isinstance(a, (tuple, list)) and len(a) == len(b), f"{what}: {type(a).__name__} vs {type(b).__name__}"
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{what}[{i}]", dtype)
        return
    if not isinstance(b, torch.Tensor):
        assert a == b or (a != a and b != b), f"{what}: {a} vs {b}"
        return
    assert isinstance(a, numtorch.Tensor), f"{what}: {type(a).__name__}"
    assert tuple(a.shape) == tuple(b.shape), f"{what}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], f"{what}: dtype {a.dtype} vs {b.dtype}"
    single = b.dtype in (torch.float32, torch.complex64)  # float32 results (also of integer inputs)
    rtol, atol = (1e-4, 1e-5) if single else (1e-7, 1e-9)
    bb = _np(b)
    scale = max(1.0, float(np.nanmax(np.abs(bb[np.isfinite(bb)]))) if np.isfinite(bb).any() else 1.0)
    np.testing.assert_allclose(_np(a), bb, rtol=rtol, atol=atol * scale, equal_nan=True, err_msg=what)


def _dtypes(op):
    supported = op.supported_dtypes("cpu")
    out = [d for d in (torch.float64, torch.float32) if d in supported]
    ints = [d for d in (torch.int64, torch.int32, torch.uint8) if d in supported]
    return out + ints[:1]


def _check_sample(op, fn, s, dtype, grads):
    args, kwargs = (s.input, *s.args), dict(s.kwargs)
    try:
        expected = op.op(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 (torch refuses the sample: numtorch must refuse with the same type)
        with pytest.raises(type(e)):
            fn(*to_nt(args), **to_nt(kwargs))
        return
    nargs, nkw = to_nt(args), to_nt(kwargs)
    got = fn(*nargs, **nkw)
    _same(got, expected, f"{_key(op)} {dtype} output", dtype)
    if not grads or _key(op) in GRAD_DIFFERS:
        return
    touts = _diff_outputs(expected, torch)
    if not touts:
        return
    nouts = _diff_outputs(got, numtorch)
    assert len(nouts) == len(touts), f"{_key(op)}: {len(nouts)} differentiable outputs, torch has {len(touts)}"
    gen = torch.Generator().manual_seed(1)
    vs = [torch.randn(o.shape, dtype=o.dtype, generator=gen) for o in touts]
    tl, nl = _leaves(args, kwargs, torch), _leaves(nargs, nkw, numtorch)
    tg = torch.autograd.grad(touts, tl, vs, allow_unused=True)
    ng = numtorch.autograd.grad(nouts, nl, [to_nt(v) for v in vs], allow_unused=True)
    for i, (a, b) in enumerate(zip(ng, tg)):
        if b is None:
            assert a is None or not np.any(_np(a)), f"{_key(op)}: grad {i} should be zero"
            continue
        _same(a, b, f"{_key(op)} grad {i}", dtype)


@pytest.mark.parametrize("op", ENTRIES, ids=_key)
def test_samples_match_torch(op):
    fn = _resolve(op)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # stft's window warning, index_reduce's beta warning
        for dtype in _dtypes(op):
            grads = op.supports_autograd and dtype == torch.float64
            torch.manual_seed(0)
            for i, s in enumerate(op.sample_inputs("cpu", dtype, requires_grad=grads)):
                if i == SAMPLES_PER_DTYPE:
                    break
                _check_sample(op, fn, s, dtype, grads)


@pytest.mark.parametrize("op", [op for op in ENTRIES if op.error_inputs_func is not None], ids=_key)
def test_error_inputs_raise_torch_type(op):
    fn = _resolve(op)
    for e in op.error_inputs("cpu"):
        s = e.sample_input
        with pytest.raises(e.error_type):
            fn(*to_nt((s.input, *s.args)), **to_nt(dict(s.kwargs)))


@pytest.mark.parametrize("op", [op for op in ENTRIES if op.supports_autograd and torch.float64 in
                                op.supported_dtypes("cpu") and _key(op) not in GRADCHECK_ELSEWHERE], ids=_key)
def test_gradcheck_first_sample(op):
    """numtorch's float64 gradient of the first sample against finite differences (no torch involved)."""
    fn = _resolve(op)
    torch.manual_seed(0)
    # the smallest of the first samples: finite differences cost one evaluation per input element
    s = min(list(op.sample_inputs("cpu", torch.float64, requires_grad=True))[:SAMPLES_PER_DTYPE],
            key=lambda s: sum(t.numel() for t in _leaves((s.input, *s.args), dict(s.kwargs), torch)) or 10 ** 9)
    nargs, nkw = to_nt((s.input, *s.args)), to_nt(dict(s.kwargs))
    leaves = _leaves(nargs, nkw, numtorch)
    if not leaves:
        pytest.fail(f"{_key(op)}: first float64 sample has no differentiable input")

    def rebuilt(x, it):
        if isinstance(x, numtorch.Tensor) and x.requires_grad:
            return next(it)
        if isinstance(x, (list, tuple)):
            return type(x)(rebuilt(y, it) for y in x)
        if isinstance(x, dict):
            return {k: rebuilt(v, it) for k, v in x.items()}
        return x

    def f(*xs):
        it = iter(xs)
        a, k = rebuilt(nargs, it), rebuilt(nkw, it)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(*a, **k)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return tuple(o for o in outs if isinstance(o, numtorch.Tensor) and (o.dtype.is_floating_point or o.is_complex()))

    assert numtorch.autograd.gradcheck(f, tuple(leaves), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.quick
def test_every_listed_op_has_entries():
    """The op_db names this file relies on still exist (a rename would silently shrink the test)."""
    names = {op.name for op in ENTRIES}
    assert set(OPS) <= names, sorted(set(OPS) - names)
    assert sum(op.name.startswith("masked.") for op in ENTRIES) >= 18
    assert sum(op.name.startswith("signal.windows.") for op in ENTRIES) == 11
