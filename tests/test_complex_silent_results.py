"""Issue #15 item 11, "no silently wrong result", for complex statistics and linear algebra and the
log-determinant: numtorch must give torch's values, dtypes, gradients (first order and, where torch
has one, through create_graph) and exception types for

* ``var``/``std``/``var_mean``/``std_mean`` of complex tensors (a real result: the mean of
  ``|x - mean|^2``),
* the backward of complex ``linalg.qr`` in each mode (torch raises for 'r' and for tall 'complete'),
* ``vdot`` of complex vectors (the first argument conjugated), ``.mH``, ``.H``, ``.mT``,
  ``adjoint()`` of complex tensors,
* ``logdet`` and ``slogdet`` at negative, zero and positive determinants (values and gradients,
  torch's nan/inf pattern at singular matrices included).
"""
import numpy as np
import pytest
import torch

import numtorch

LIBS = (torch, numtorch)


def _np(t):
    t = t.detach()
    if isinstance(t, torch.Tensor):
        t = t.resolve_conj()
    return t.numpy()


def _close(a, b, tol=1e-10):
    assert str(a.dtype) == str(b.dtype), (a.dtype, b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    x, y = _np(a), _np(b)
    assert np.array_equal(np.isnan(x), np.isnan(y)), (x, y)
    assert np.array_equal(np.isinf(x), np.isinf(y)), (x, y)
    ok = np.isfinite(x)
    np.testing.assert_allclose(x[ok], y[ok], rtol=tol, atol=tol)
    assert np.array_equal(x[np.isinf(x)], y[np.isinf(y)])


def _cplx(rng, shape, dtype=np.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _both(fn, *arrays, grad=True):
    """``fn(lib, *tensors)`` on torch and numtorch; returns per library (outputs, inputs)."""
    out = []
    for lib in LIBS:
        ts = [lib.tensor(a, requires_grad=grad and a.dtype.kind in "fc") for a in arrays]
        out.append((fn(lib, *ts), ts))
    return out


# ------------------------------------------------------------------------------------------------
# var / std of complex tensors
# ------------------------------------------------------------------------------------------------
MOMENTS = ["var", "std", "var_mean", "std_mean"]


@pytest.mark.parametrize("name", MOMENTS)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("kw", [{}, {"dim": 1}, {"dim": (0, 2), "keepdim": True}, {"correction": 0},
                                {"dim": 1, "correction": 2}, {"unbiased": False, "dim": -1}])
def test_complex_moments_values_dtypes_grads(name, dtype, kw):
    rng = np.random.default_rng(0)
    x = _cplx(rng, (3, 4, 5), dtype)
    tol = 1e-5 if dtype == np.complex64 else 1e-10
    res = []
    for lib in LIBS:
        t = lib.tensor(x, requires_grad=True)
        out = getattr(lib, name)(t, **kw)
        outs = out if isinstance(out, tuple) else (out,)
        # a real loss reading every output: the real result, and both parts of the complex mean
        loss = (outs[0] * outs[0]).sum() + outs[0].sum()
        if len(outs) == 2:
            loss = loss + (outs[1].real * 3 - outs[1].imag * 2).sum()
        (g,) = lib.autograd.grad(loss, t)
        res.append((outs, g))
    (o_t, g_t), (o_n, g_n) = res
    assert not o_t[0].is_complex()
    for a, b in zip(o_t, o_n):
        _close(a, b, tol)
    _close(g_t, g_n, tol)


@pytest.mark.parametrize("name", ["var", "std"])
def test_complex_moments_double_backward(name):
    rng = np.random.default_rng(1)
    x = _cplx(rng, (4, 3))
    res = []
    for lib in LIBS:
        t = lib.tensor(x, requires_grad=True)
        (g,) = lib.autograd.grad(getattr(lib, name)(t, dim=0).pow(2).sum(), t, create_graph=True)
        (gg,) = lib.autograd.grad((g * g.conj()).real.sum(), t)
        res.append((g, gg))
    _close(res[0][0], res[1][0])
    _close(res[0][1], res[1][1], 1e-8)


@pytest.mark.parametrize("name", ["var", "std"])
def test_complex_moments_out_and_single_element(name):
    x = np.array([1 + 2j], np.complex64)
    res = []
    for lib in LIBS:  # N - correction = 0: nan, with torch's warning
        with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
            res.append(getattr(lib, name)(lib.tensor(x)))
    _close(*res)
    outs = []
    for lib in LIBS:
        o = lib.empty(0, dtype=lib.float32)
        getattr(lib, name)(lib.tensor(_cplx(np.random.default_rng(2), (5,), np.complex64)), out=o)
        outs.append(o)
    _close(*outs, 1e-5)


# ------------------------------------------------------------------------------------------------
# complex QR backward
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 5, 3), (2, 3, 4)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float64])
def test_qr_backward(shape, mode, dtype):
    rng = np.random.default_rng(3)
    a = _cplx(rng, shape, dtype) if dtype != np.float64 else rng.standard_normal(shape)
    tol = 2e-4 if dtype == np.complex64 else 1e-9
    errs, res = [], []
    for lib in LIBS:
        t = lib.tensor(a, requires_grad=True)
        q, r = lib.linalg.qr(t, mode=mode)
        wq = lib.tensor(np.cos(np.arange(q.numel())).reshape(q.shape).astype(a.dtype))
        wr = lib.tensor(np.sin(np.arange(r.numel())).reshape(r.shape).astype(a.dtype))
        loss = (r * wr).real.sum() + (r.abs() ** 2).sum()
        if mode != "r":
            loss = loss + (q * wq).real.sum() + ((q * wq).imag.sum() if q.is_complex() else 0)
        try:
            (g,) = lib.autograd.grad(loss, t)
        except RuntimeError as e:
            errs.append(type(e))
            continue
        res.append((q, r, g))
    assert len(errs) in (0, 2), errs  # both raise or neither
    if errs:
        assert errs[0] is errs[1]
        return
    (q0, r0, g0), (q1, r1, g1) = res
    _close(q0, q1, tol)
    _close(r0, r1, tol)
    _close(g0, g1, tol)


def test_qr_complex_double_backward():
    rng = np.random.default_rng(4)
    a = _cplx(rng, (4, 3))
    res = []
    for lib in LIBS:
        t = lib.tensor(a, requires_grad=True)
        q, r = lib.linalg.qr(t)
        (g,) = lib.autograd.grad((q.real * 2).sum() + (r.imag ** 2).sum(), t, create_graph=True)
        (gg,) = lib.autograd.grad((g.abs() ** 2).sum(), t)
        res.append((g, gg))
    _close(res[0][0], res[1][0], 1e-9)
    _close(res[0][1], res[1][1], 1e-7)


# ------------------------------------------------------------------------------------------------
# vdot, mH, H, mT, adjoint of complex tensors
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float32, np.float64])
def test_vdot_values_and_grads(dtype):
    rng = np.random.default_rng(5)
    a = _cplx(rng, (6,), dtype) if np.dtype(dtype).kind == "c" else rng.standard_normal(6).astype(dtype)
    b = _cplx(rng, (6,), dtype) if np.dtype(dtype).kind == "c" else rng.standard_normal(6).astype(dtype)
    tol = 1e-5 if dtype in (np.complex64, np.float32) else 1e-12
    res = []
    for lib, (v, ts) in zip(LIBS, _both(lambda L, x, y: L.vdot(x, y), a, b)):
        loss = (v * v).real + v.imag * 3 if v.is_complex() else v * v
        res.append((v, *lib.autograd.grad(loss, ts)))
    for x, y in zip(*res):
        _close(x, y, tol)
    assert type(res[1][0].grad_fn).__name__ == "VdotBackward0"


def test_vdot_errors():
    for make in (lambda L: L.vdot(L.ones(3, dtype=L.complex64), L.ones(3, dtype=L.complex128)),
                 lambda L: L.vdot(L.ones(3, dtype=L.complex64), L.ones(4, dtype=L.complex64)),
                 lambda L: L.vdot(L.ones(2, 3, dtype=L.complex64), L.ones(6, dtype=L.complex64)),
                 lambda L: L.vdot(L.ones(3, dtype=L.bool), L.ones(3, dtype=L.bool))):
        types = []
        for lib in LIBS:
            with pytest.raises(Exception) as info:
                make(lib)
            types.append(info.type)
        assert types[0] is types[1]


TRANSPOSES = {
    "mH": lambda L, x: x.mH, "mT": lambda L, x: x.mT, "adjoint": lambda L, x: x.adjoint(),
    "torch.adjoint": lambda L, x: L.adjoint(x), "H": lambda L, x: x[0].H,
}


@pytest.mark.parametrize("name", sorted(TRANSPOSES))
@pytest.mark.parametrize("dtype", [np.complex64, np.float32])
def test_conjugate_transposes(name, dtype):
    rng = np.random.default_rng(6)
    x = _cplx(rng, (2, 3, 4), dtype) if np.dtype(dtype).kind == "c" else rng.standard_normal((2, 3, 4)).astype(dtype)
    res = []
    for lib in LIBS:
        t = lib.tensor(x, requires_grad=True)
        y = TRANSPOSES[name](lib, t)
        w = lib.tensor(np.arange(y.numel()).reshape(y.shape).astype(x.dtype) * (1 + 0.5j if y.is_complex() else 1))
        loss = (y * w).real.sum() + ((y * w).imag.sum() if y.is_complex() else 0)
        (g,) = lib.autograd.grad(loss, t)
        res.append((y, g, type(y.grad_fn).__name__))
    _close(res[0][0], res[1][0], 1e-6)
    _close(res[0][1], res[1][1], 1e-6)
    assert res[0][2] == res[1][2]


@pytest.mark.parametrize("name", ["mH", "adjoint", "H"])
def test_conjugate_transpose_rank_errors(name):
    for shape in [(3,), (2, 3, 4)] if name == "H" else [(3,)]:
        types = []
        for lib in LIBS:
            t = lib.ones(*shape, dtype=lib.complex64)
            with pytest.raises(Exception) as info:
                t.adjoint() if name == "adjoint" else getattr(t, name)
            types.append(info.type)
        assert types[0] is types[1] is RuntimeError


def test_H_of_0d_warns_and_conjugates():
    res = []
    for lib in LIBS:
        with pytest.warns(UserWarning, match="deprecated on 0-D"):
            res.append(lib.tensor(1 + 2j).H)
    _close(*res)


# ------------------------------------------------------------------------------------------------
# logdet / slogdet: negative, zero and positive determinants
# ------------------------------------------------------------------------------------------------
MATS = {
    "negative": [[1., 2.], [3., 1.]],
    "positive": [[2., 1.], [1., 3.]],
    "singular_zero_col": [[0., 0.], [0., 1.]],
    "singular_rank1": [[1., 2.], [2., 4.]],
    "singular_3x3": [[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]],
    "zeros": [[0., 0.], [0., 0.]],
    "batch_mixed": [[[1., 2.], [3., 1.]], [[2., 1.], [1., 3.]], [[1., 2.], [2., 4.]]],
}


@pytest.mark.parametrize("case", sorted(MATS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("what", ["logdet", "slogdet_logabs", "slogdet_both", "torch.slogdet"])
def test_logdet_slogdet_values_and_grads(case, dtype, what):
    a = np.array(MATS[case], dtype)
    res = []
    for lib in LIBS:
        t = lib.tensor(a, requires_grad=True)
        if what == "logdet":
            out = (lib.logdet(t),)
            loss = out[0].sum()
        else:
            out = tuple(lib.linalg.slogdet(t) if what != "torch.slogdet" else lib.slogdet(t))
            loss = out[1].sum() + (out[0] * 2).sum() if what != "slogdet_logabs" else out[1].sum()
        loss.backward()
        res.append((out, t.grad, type(out[-1].grad_fn).__name__))
    (o0, g0, n0), (o1, g1, n1) = res
    for x, y in zip(o0, o1):
        _close(x, y, 1e-5)
    _close(g0, g1, 1e-5)
    assert n0 == n1


def test_slogdet_sign_alone_gives_no_gradient():
    res = []
    for lib in LIBS:
        t = lib.tensor([[1., 2.], [3., 1.]], requires_grad=True)
        sign, _ = lib.linalg.slogdet(t)
        assert sign.requires_grad
        (sign * 1.0).sum().backward()
        res.append(t.grad)
    assert res[0] is None and res[1] is None


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_logdet_slogdet_complex_and_double_backward(shape):
    rng = np.random.default_rng(7)
    a = _cplx(rng, shape)
    res = []
    for lib in LIBS:
        t = lib.tensor(a, requires_grad=True)
        s, l = lib.linalg.slogdet(t)
        ld = lib.logdet(t)
        loss = (s.real * 3 + s.imag * 2).sum() + l.sum() * 1.5 + (ld.real + ld.imag * 0.7).sum()
        (g,) = lib.autograd.grad(loss, t, create_graph=True)
        (gg,) = lib.autograd.grad((g.abs() ** 2).sum(), t)
        res.append((s, l, ld, g, gg))
    for x, y in zip(*res):
        _close(x, y, 1e-8)
