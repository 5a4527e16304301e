"""Forward-mode AD of numtorch's ops against PyTorch's (``torch.autograd.forward_ad``), over PyTorch's
OpInfo database: for each entry that supports forward AD and names a numtorch function, the first
samples run in both libraries with the same primals and tangents (every float Tensor argument is made
dual); primal outputs and tangents must match, in float32 and float64.

An entry maps to the numtorch function of its name, or else to the Tensor method or property of that
name; entries with neither are not checked (counted in ``test_coverage``);
entries that do not match yet are listed in ``NOT_CHECKED`` with the reason (``name@dtype`` for one
dtype only), run as strict xfails. Each runs the first sample; float32 only for ``_FLOAT32``.
"""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfw

import numtorch
from numtorch.autograd import forward_ad as nfw

from _opinfo_common import to_nt as _to_nt

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from torch.testing._internal.common_methods_invocations import op_db

_TIES = "numtorch's gradient splits ties / picks subgradients at kinks differently from PyTorch's forward formula"
_HARNESS = "the sample's arguments do not map onto numtorch's signature in this harness"
_RANDOM = "a random op: the two libraries draw different samples under this harness"
NOT_CHECKED = {
    "clamp_max@float64": _TIES, "clamp_min@float32": _TIES, "fmax": _TIES, "fmin": _TIES, "max.binary": _TIES,
    "maximum": _TIES, "min.binary": _TIES, "minimum": _TIES, "special.entr": _TIES,
    "float_power@float32": _TIES,
    "bernoulli": _RANDOM, "nn.functional.rrelu": _RANDOM,
    "polygamma.polygamma_n_0": _HARNESS, "polygamma.polygamma_n_1": _HARNESS, "polygamma.polygamma_n_2": _HARNESS,
    "polygamma.polygamma_n_3": _HARNESS, "polygamma.polygamma_n_4": _HARNESS,
    "special.polygamma.special_polygamma_n_0": _HARNESS, "double": _HARNESS, "cdouble": _HARNESS,
    "einsum": _HARNESS, "where": _HARNESS, "nn.functional.embedding": _HARNESS,
    "linalg.lstsq.grad_oriented": _HARNESS,
    "fft.ihfft": _HARNESS,
    "lu": "numtorch has no backward for the LU of a non-square matrix (the fallback needs it)",
    "nn.functional.pad.replicate_negative": "numtorch's replicate pad refuses negative pads",
    "triangular_solve": "tangent differs (not investigated yet)", "linalg.cholesky": "tangent differs (not investigated yet)",
    "linalg.cholesky_ex": "tangent differs (not investigated yet)", "linalg.eigh": "eigenvector tangents differ (gauge)",
    "linalg.slogdet": "tangent differs (not investigated yet)", "linalg.pinv.singular": "singular input: tangent differs",
    "fft.ihfft2": "complex tangent differs (not investigated yet)", "fft.ihfftn": "complex tangent differs (not investigated yet)",
}
_TOL = {torch.float32: 2e-4, torch.float64: 1e-7}


def _resolve(name):
    """The numtorch function of an OpInfo name, or else the Tensor method / property of that name."""
    obj = numtorch
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            break
    if obj is not None:
        return obj
    attr = getattr(numtorch.Tensor, name, None)
    if isinstance(attr, property):
        return lambda x: getattr(x, name)
    if callable(attr):
        return lambda x, *a, **k: getattr(x, name)(*a, **k)
    return None


def _key(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


_ENTRIES = [op for op in op_db if op.supports_forward_ad and _resolve(op.name) is not None]
_UNMAPPED = [_key(op) for op in op_db if op.supports_forward_ad and _resolve(op.name) is None]


def _floats(x, out):
    if isinstance(x, (torch.Tensor, numtorch.Tensor)):
        if x.dtype.is_floating_point:
            out.append(x)
    elif isinstance(x, (list, tuple)):
        for y in x:
            _floats(y, out)
    elif isinstance(x, dict):
        for y in x.values():
            _floats(y, out)
    return out


def _replace(x, m):
    if isinstance(x, (torch.Tensor, numtorch.Tensor)):
        return m.get(id(x), x)
    if isinstance(x, (list, tuple)):
        return type(x)(_replace(y, m) for y in x)
    if isinstance(x, dict):
        return {k: _replace(v, m) for k, v in x.items()}
    return x


def _run(lib, fw, fn, sample, tangents):
    inp, args, kwargs = sample
    xs = _floats((inp, args, kwargs), [])
    with fw.dual_level():
        m = {id(x): fw.make_dual(x, t) for x, t in zip(xs, tangents)}
        out = fn(_replace(inp, m), *_replace(args, m), **_replace(kwargs, m))
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return [fw.unpack_dual(o) for o in outs if isinstance(o, lib.Tensor)]


def _np(t):
    return t.detach().resolve_conj().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy()


def _check(op, dtype, n=2):
    fn = _resolve(op.name)
    checked = 0
    for s in itertools.islice(op.sample_inputs("cpu", dtype, requires_grad=False), n):
        tsample = (s.input, s.args, s.kwargs)
        xs = _floats(tsample, [])
        if not xs:
            continue
        gen = torch.Generator().manual_seed(0)
        ttans = [torch.randn(x.shape, dtype=x.dtype, generator=gen) for x in xs]
        try:
            tres = _run(torch, tfw, op.op, tsample, ttans)
        except (RuntimeError, NotImplementedError, TypeError):
            continue  # PyTorch itself refuses this sample under forward AD
        nres = _run(numtorch, nfw, fn, _to_nt(tsample), [_to_nt(t) for t in ttans])
        assert len(nres) == len(tres)
        tol = _TOL[dtype]
        for (tp, tt), (np_, nt) in zip(tres, nres):
            np.testing.assert_allclose(_np(np_), _np(tp), rtol=tol, atol=tol, equal_nan=True)
            if tt is None or nt is None:  # None and zeros are the same tangent
                other = nt if tt is None else tt
                assert other is None or not np.any(_np(other)), "tangent: None vs non-zero"
                continue
            scale = max(1.0, float(np.nanmax(np.abs(_np(tt)))) if tt.numel() else 1.0)
            np.testing.assert_allclose(_np(nt), _np(tt), rtol=tol * 10, atol=tol * 10 * scale, equal_nan=True)
        checked += 1
    return checked


# float32 runs for the ops with explicit jvp rules and the common nn ops (the rest share the float64 path)
_FLOAT32 = {"add", "sub", "mul", "div", "neg", "exp", "tanh", "sigmoid", "nn.functional.relu", "sum", "mean",
            "matmul", "mm", "bmm", "mv", "addmm", "addmv", "baddbmm", "nn.functional.linear", "softmax",
            "log_softmax", "nn.functional.conv2d", "nn.functional.conv1d", "nn.functional.max_pool2d", "gather",
            "nn.functional.gelu", "nn.functional.layer_norm", "nn.functional.cross_entropy", "nn.functional.mse_loss",
            "nn.functional.embedding", "reshape", "view", "transpose", "permute", "__getitem__", "index_select",
            "clamp_min", "clamp_max", "cat", "stack", "log", "sqrt", "pow", "where", "amax", "max.reduction_with_dim"}


def _params():
    for op in _ENTRIES:
        for dtype in (torch.float32, torch.float64):
            if dtype not in op.supported_dtypes("cpu") or dtype == torch.float32 and _key(op) not in _FLOAT32:
                continue
            key = _key(op)
            why = NOT_CHECKED.get(key, NOT_CHECKED.get(f"{key}@{str(dtype)[6:]}"))
            marks = [pytest.mark.xfail(reason=why, strict=True)] if why else []
            yield pytest.param(op, dtype, id=f"{key}-{str(dtype)[6:]}", marks=marks)


@pytest.mark.parametrize("op,dtype", list(_params()))
def test_op_tangent_matches_torch(op, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check(op, dtype, 1)


def test_coverage():
    """The number of OpInfo entries compared (so the coverage cannot shrink silently)."""
    checked = {_key(op) for op in _ENTRIES} - {k.split("@")[0] for k in NOT_CHECKED}
    assert len(checked) >= 370, (len(checked), len(_UNMAPPED))
