"""The fast paths added for speed keep PyTorch's behaviour.

Each test pins one shortcut taken for performance (see benchmarks/README.md): gradients handed to
``.grad`` without a copy must never alias anything else; in-place arithmetic outside autograd goes
straight into the tensor's memory; max pooling's running-max pass keeps PyTorch's tie and NaN
rules; GELU's float32 erf and the BLAS row sums stay within float32 tolerance of PyTorch; binary
ops skip gradients nobody needs; ``bfloat16`` support loads ``ml_dtypes`` only when first used.
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch as ref
from conftest import assert_close, to_nt, to_ref

import numtorch as nt
from numtorch._ops._util import erf_np, sum_lastdim


# ------------------------------------------------------------------------------------------------
# engine: leaf gradients taken without a copy
# ------------------------------------------------------------------------------------------------
def test_leaf_grads_never_alias_each_other_or_the_given_gradient():
    a = nt.randn(3, 4, requires_grad=True)
    b = nt.randn(3, 4, requires_grad=True)
    (a + b).sum().backward()  # AddBackward0 passes the same array to both leaves
    assert not np.shares_memory(a.grad._data, b.grad._data)
    a.grad._data[0, 0] = 5.0
    assert b.grad._data[0, 0] == 1.0
    g = nt.ones(3, 4)
    for y in (a, a * 1.0, a + 0):
        a.grad = None
        y.backward(g)
        assert not np.shares_memory(a.grad._data, g._data)
    assert np.all(g._data == 1.0)


def test_stolen_grad_accumulates_in_place_on_the_next_backward():
    x = nt.randn(2, 3, requires_grad=True)
    w = nt.randn(3, 4, requires_grad=True)
    (x @ w).tanh().sum().backward()
    first = x.grad
    (x @ w).tanh().sum().backward()
    assert x.grad is first and x._grad._version == 1
    xr, wr = to_ref(x, True), to_ref(w, True)
    for _ in range(2):
        (xr @ wr).tanh().sum().backward()
    assert_close(x.grad, xr.grad)
    assert_close(w.grad, wr.grad)


def test_retained_and_captured_grads_are_copies():
    x = nt.randn(4, requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = y + 0
    z.sum().backward()
    assert not np.shares_memory(y.grad._data, x.grad._data)
    (gx,) = nt.autograd.grad((x * 3).sum(), x)
    gx._data[0] = 0.0
    assert_close(gx[1:], ref.full((3,), 3.0))


def test_binary_ops_with_scalars_and_constants_match_torch(fdtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4)).astype(fdtype)
    c = rng.standard_normal((1, 4)).astype(fdtype)
    x, xr = to_nt(a, True), to_ref(a, True)
    k, kr = to_nt(c), to_ref(c)  # a broadcast constant: its gradient is never computed
    y = ((x * 1.5 + 2) - k) / (k + 3) * x - 0.5
    yr = ((xr * 1.5 + 2) - kr) / (kr + 3) * xr - 0.5
    y.sum().backward()
    yr.sum().backward()
    assert_close(y, yr)
    assert_close(x.grad, xr.grad)


# ------------------------------------------------------------------------------------------------
# in-place arithmetic outside autograd
# ------------------------------------------------------------------------------------------------
def test_fast_inplace_writes_through_views_and_bumps_versions():
    base = nt.zeros(2, 3)
    row = base[0]
    v0 = base._version
    row.add_(1.5)
    row.mul_(nt.full((3,), 2.0))
    assert_close(base, ref.tensor([[3.0, 3.0, 3.0], [0.0, 0.0, 0.0]]))
    assert base._version == v0 + 2
    n = nt.tensor(0)
    n.add_(1)
    n += 2
    assert n.item() == 3 and n.dtype == nt.int64


def test_fast_inplace_keeps_pytorch_errors():
    i = nt.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.add_(1.5)
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.div_(2)
    x = nt.zeros(3)
    with pytest.raises(RuntimeError):
        x.add_(nt.ones(2, 3))  # does not broadcast into x
    leaf = nt.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        leaf.add_(1.0)
    with nt.no_grad():
        leaf.add_(1.0)  # allowed outside autograd, as in PyTorch
    assert_close(leaf.detach(), ref.ones(3))


def test_inplace_with_grad_tracking_still_records():
    x = nt.randn(3, requires_grad=True)
    y = x * 1.0
    y.mul_(3.0)
    y.sum().backward()
    assert_close(x.grad, ref.full((3,), 3.0))


# ------------------------------------------------------------------------------------------------
# max pooling: ties, NaN, padding
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1),
                                dict(kernel_size=3, stride=2, ceil_mode=True), dict(kernel_size=2, dilation=2),
                                dict(kernel_size=(2, 3), stride=(1, 2), padding=(1, 0)), dict(kernel_size=2, stride=3)])
@pytest.mark.parametrize("kind", ["ties", "nan", "ninf", "grad_nan"])
def test_max_pool_ties_nan_and_indices_match_torch(kw, kind):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 3, (2, 3, 7, 8)).astype(np.float32)  # many ties
    if kind == "nan":
        a[0, 0, 1, 1] = a[1, 2, 3, 4] = a[1, 2, 3, 5] = np.nan
    if kind == "ninf":
        a[:] = -np.inf
        a[0, 0, 2, 2] = 1.0
    x, xr = to_nt(a, True), to_ref(a, True)
    y, idx = nt.nn.functional.max_pool2d(x, return_indices=True, **kw)
    yr, idxr = ref.nn.functional.max_pool2d(xr, return_indices=True, **kw)
    np.testing.assert_array_equal(y.detach().numpy(), yr.detach().numpy())
    np.testing.assert_array_equal(idx.numpy(), idxr.numpy())
    g = rng.standard_normal(tuple(yr.shape)).astype(np.float32)
    if kind == "grad_nan":
        g[0, 0, 0, 0] = np.nan
    nt.nn.functional.max_pool2d(x, **kw).backward(nt.tensor(g))
    yr.backward(ref.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), xr.grad.numpy(), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------------
# convolution: stride-1 input gradient through the flattened ("wide") padded plane
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("xs, ws, kw", [
    ((2, 4, 9, 11), (6, 2, 3, 3), {"padding": 1, "groups": 2}),
    ((2, 3, 10, 10), (4, 3, 3, 2), {"padding": (2, 0), "dilation": (2, 1)}),
    ((2, 3, 12), (5, 3, 4), {"padding": "same"}),
    ((3, 8, 8), (4, 3, 3, 3), {"padding": 1}),  # unbatched
    ((2, 3, 7, 7), (4, 3, 1, 1), {}),
    ((2, 3, 9, 9), (4, 3, 3, 3), {"stride": 2, "padding": 1}),  # strided: the general col2im
])
def test_conv_gradients_match_torch(xs, ws, kw):
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])
    fn = "conv1d" if len(ws) == 3 else "conv2d"
    xa, wa, ba = (to_nt(v, True) for v in (x, w, b))
    xr, wr, br = (to_ref(v, True) for v in (x, w, b))
    y = getattr(nt.nn.functional, fn)(xa, wa, ba, **kw)
    yr = getattr(ref.nn.functional, fn)(xr, wr, br, **kw)
    g = rng.standard_normal(tuple(yr.shape))
    y.backward(to_nt(g))
    yr.backward(to_ref(g))
    for a, r in ((y, yr), (xa.grad, xr.grad), (wa.grad, wr.grad), (ba.grad, br.grad)):
        assert_close(a, r)


# ------------------------------------------------------------------------------------------------
# float32 kernels: erf for GELU, BLAS row sums
# ------------------------------------------------------------------------------------------------
def test_erf_np_float32_is_within_a_few_ulp_and_float64_exact():
    x = np.concatenate([np.linspace(-7, 7, 20001), np.geomspace(1e-30, 1, 200), [0.0, -0.0]]).astype(np.float32)
    exact = ref.erf(ref.from_numpy(x.astype(np.float64))).numpy()
    got = erf_np(x)
    assert got.dtype == np.float32
    ulp = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    assert (np.abs(got - exact) / ulp).max() <= 8
    special = erf_np(np.array([np.inf, -np.inf, np.nan], np.float32))
    assert special[0] == 1 and special[1] == -1 and np.isnan(special[2])
    assert erf_np(x[:10].astype(np.float16)).dtype == np.float16
    x64 = np.linspace(-3, 3, 101)
    np.testing.assert_allclose(erf_np(x64), ref.erf(ref.from_numpy(x64)).numpy(), rtol=1e-15, atol=1e-16)


def test_gelu_float32_matches_torch_forward_and_backward():
    a = (np.random.default_rng(0).standard_normal((4, 64)) * 3).astype(np.float32)
    a[0, :4] = [-9.0, 9.0, 0.0, -1e-30]
    x, xr = to_nt(a, True), to_ref(a, True)
    y = nt.nn.functional.gelu(x)
    yr = ref.nn.functional.gelu(xr)
    y.sum().backward()
    yr.sum().backward()
    assert_close(y, yr)
    assert_close(x.grad, xr.grad)


def test_sum_lastdim_matches_reduction():
    rng = np.random.default_rng(0)
    for dt in (np.float32, np.float64, np.int64, np.float16):
        a = (rng.standard_normal((2, 3, 5)) * 10).astype(dt)
        out = sum_lastdim(a)
        assert out.shape == (2, 3, 1) and out.dtype == a.dtype
        np.testing.assert_allclose(out.astype(np.float64), a.astype(np.float64).sum(-1, keepdims=True),
                                   rtol=1e-3 if dt == np.float16 else 1e-5)
    assert sum_lastdim(np.zeros((3, 0), np.float32)).shape == (3, 1)


def test_softmax_and_layer_norm_with_inf_and_nan_match_torch():
    a = np.random.default_rng(0).standard_normal((3, 6)).astype(np.float32)
    a[0, 2:] = -np.inf
    a[1, 1] = np.nan
    for fn, args in ((lambda F, t: F.softmax(t, -1), ()), (lambda F, t: F.log_softmax(t, -1), ()),
                     (lambda F, t: F.layer_norm(t, (6,)), ())):
        got = fn(nt.nn.functional, to_nt(a))
        want = fn(ref.nn.functional, to_ref(a))
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6, equal_nan=True)


# ------------------------------------------------------------------------------------------------
# startup: bfloat16 without importing ml_dtypes up front
# ------------------------------------------------------------------------------------------------
def test_import_does_not_load_ml_dtypes_and_bfloat16_still_works():
    code = ("import sys, numtorch as t; assert 'ml_dtypes' not in sys.modules; "
            "x = t.ones(2, dtype=t.bfloat16); assert 'ml_dtypes' in sys.modules; "
            "assert x.dtype is t.bfloat16 and str(t.bfloat16.np) == 'bfloat16'; "
            "assert (x * 1.5).dtype is t.bfloat16; print(t.finfo(t.bfloat16).eps)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) == 0.0078125


def test_bfloat16_array_made_before_numtorch_resolved_it():
    code = ("import ml_dtypes, numpy as np, numtorch as t; a = np.ones(3, ml_dtypes.bfloat16); "
            "x = t.from_numpy(a); assert x.dtype is t.bfloat16 and t.tensor(a).dtype is t.bfloat16")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
