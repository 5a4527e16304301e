"""torch.polygamma/mvlgamma/i0/sinc/igamma/igammac and the rest of torch.special, against PyTorch."""
import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck

torch = pytest.importorskip("torch")

INF, NAN = np.inf, np.nan
X = np.array([0.3, 1.5, -0.7, 4.0, -2.25, 0.05, 7.5, -11.3])      # real line, no poles
POS = np.array([0.3, 1.5, 0.7, 4.0, 2.25, 0.05, 7.5, 11.0])       # positive
PROB = np.array([0.1, 0.5, 0.9, 0.3, 0.02, 0.97, 0.66, 0.25])     # (0, 1)
EDGE = np.array([0.0, -0.0, 1.0, -1.0, -1.5, 2.0, 30.0, -30.0, 700.0, -700.0, 1e-20, INF, -INF, NAN])
TOL = {np.float32: dict(rtol=1e-5, atol=1e-6), np.float64: dict(rtol=1e-10, atol=1e-12)}


def _lib_fn(lib, name):
    """A callable ``f(lib, tensor)`` for one of the unary functions under test."""
    s = lib.special
    return {
        "ndtri": s.ndtri, "log_ndtr": s.log_ndtr, "erfcx": s.erfcx, "i0": lib.i0, "i0e": s.i0e, "i1": s.i1,
        "i1e": s.i1e, "sinc": lib.sinc, "polygamma0": lambda t: lib.polygamma(0, t),
        "polygamma1": lambda t: lib.polygamma(1, t), "polygamma2": lambda t: s.polygamma(2, t),
        "polygamma3": lambda t: t.polygamma(3), "mvlgamma1": lambda t: lib.mvlgamma(t, 1),
        "mvlgamma2": lambda t: lib.mvlgamma(t, p=2), "multigammaln4": lambda t: s.multigammaln(t, 4),
    }[name]


def _run(lib, name, data, dtype):
    x = lib.tensor(data.astype(dtype), requires_grad=True)
    y = _lib_fn(lib, name)(x)
    w = lib.tensor(np.linspace(-1, 1, data.size).astype(dtype))
    (y * w).sum().backward()
    return y.detach().numpy(), x.grad.numpy(), str(y.dtype), type(y.grad_fn).__name__


UNARY = [("ndtri", PROB), ("log_ndtr", X), ("erfcx", X), ("i0", X), ("i0e", X), ("i1", X), ("i1e", X),
         ("sinc", X), ("polygamma0", X), ("polygamma1", X), ("polygamma2", X), ("polygamma3", X),
         ("mvlgamma1", POS), ("mvlgamma2", POS + 0.5), ("multigammaln4", POS + 1.5)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,data", UNARY)
def test_unary_values_grads_dtype_node(name, data, dtype):
    ya, ga, da, na = _run(numtorch, name, data, dtype)
    yb, gb, db, nb = _run(torch, name, data, dtype)
    assert (da, na) == (db, nb)
    tol = TOL[dtype]
    if dtype == np.float64 and name.startswith(("polygamma0", "polygamma1", "polygamma2", "mvlgamma", "multi")):
        tol = dict(rtol=1e-8, atol=1e-10)  # PyTorch's trigamma is a series good to ~1e-9; SciPy's is exact
    np.testing.assert_allclose(ya, yb, **tol)
    np.testing.assert_allclose(ga, gb, **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["log_ndtr", "erfcx", "i0", "i0e", "i1", "i1e", "sinc", "polygamma0",
                                  "polygamma2", "polygamma3", "mvlgamma2"])
def test_unary_edge_values(name, dtype):
    a = _lib_fn(numtorch, name)(numtorch.tensor(EDGE.astype(dtype))).numpy()
    b = _lib_fn(torch, name)(torch.tensor(EDGE.astype(dtype))).numpy()
    np.testing.assert_allclose(a, b, rtol=2e-5 if dtype == np.float32 else 1e-10, atol=0, equal_nan=True)


def test_edge_conventions():
    # values where SciPy's and PyTorch's conventions differ: each patched to PyTorch's
    t = np.array([0.0, -0.0, INF, -INF, 1.5])
    for n in (0, 1, 2):
        a = numtorch.polygamma(n, numtorch.tensor(t)).numpy()
        np.testing.assert_allclose(a, torch.polygamma(n, torch.tensor(t)).numpy(), rtol=1e-8, equal_nan=True)
    np.testing.assert_array_equal(numtorch.lgamma(numtorch.tensor([-INF, INF, -0.0])).numpy(), [INF, INF, INF])
    np.testing.assert_array_equal(numtorch.special.ndtri(numtorch.tensor([0.0, 1.0, -0.1, 1.1, NAN, 0.5])).numpy(),
                                  [-INF, INF, NAN, NAN, NAN, 0.0])
    q = np.array([INF, INF, INF, 0.0, -1.0, -1.5, 2.0])
    x = np.array([2.0, 1.0, 0.5, 2.0, 2.0, 2.0, 1.0])
    np.testing.assert_array_equal(numtorch.special.zeta(numtorch.tensor(x), numtorch.tensor(q)).numpy(),
                                  torch.special.zeta(torch.tensor(x), torch.tensor(q)).numpy())
    a = np.array([NAN, NAN, INF, 0.0, 0.0, -1.0, 1.0, INF, 2.0])
    z = np.array([0.0, INF, NAN, 1.0, 0.0, 1.0, -1.0, 2.0, INF])
    for name in ("igamma", "igammac"):
        np.testing.assert_array_equal(getattr(numtorch, name)(numtorch.tensor(a), numtorch.tensor(z)).numpy(),
                                      getattr(torch, name)(torch.tensor(a), torch.tensor(z)).numpy())
    np.testing.assert_array_equal(numtorch.special.spherical_bessel_j0(numtorch.tensor([0.0, INF, 1e-5])).numpy(),
                                  torch.special.spherical_bessel_j0(torch.tensor([0.0, INF, 1e-5])).numpy())


def _grads(lib, name, data, dtype):
    x = lib.tensor(data.astype(dtype), requires_grad=True)
    _lib_fn(lib, name)(x).backward(lib.ones_like(x))
    return x.grad.numpy()


@pytest.mark.parametrize("name,data", [
    ("i1", [0.0, -0.0, 1e-20, -1e-20, 1e-10, 3.0]), ("i1e", [0.0, 1e-20, -1e-20, 1e-10, -3.0]),
    ("i0e", [0.0, -0.0, 2.0, -2.0]), ("sinc", [0.0, 1e-20, 1e-200, 1.0, -0.5]),
    ("log_ndtr", [-40.0, -10.0, 40.0, 0.0, -INF, INF]), ("erfcx", [-30.0, 30.0, 1e5, -INF, INF]),
    ("ndtri", [0.0, 1.0, 0.5, 1e-300])])
def test_gradient_edges(name, data):
    for dtype in (np.float32, np.float64):
        d = np.array(data)
        # float32: erfcx' = 2 x erfcx(x) - 2 / sqrt(pi) cancels to within an ulp of 1 for large x
        np.testing.assert_allclose(_grads(numtorch, name, d, dtype), _grads(torch, name, d, dtype),
                                   rtol=1e-5 if dtype == np.float32 else 1e-10,
                                   atol=2e-7 if dtype == np.float32 else 0, equal_nan=True)


def test_complex_sinc():
    z = np.array([0.5 + 0.25j, -1.5 + 1j, 0j, 2.0 - 0.5j]).astype(np.complex128)
    out = []
    for lib in (numtorch, torch):
        x = lib.tensor(z, requires_grad=True)
        y = lib.sinc(x)
        (y * lib.tensor(np.array([1.0, -0.5j, 2.0, 0.25 + 1j]))).real.sum().backward()
        out.append((y.detach().numpy(), x.grad.numpy(), str(y.dtype)))
    assert out[0][2] == out[1][2]
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-12)


def test_entry_points_inplace_and_promotion():
    for name in ("polygamma", "mvlgamma", "i0", "sinc", "igamma", "igammac"):
        assert hasattr(numtorch, name) and hasattr(numtorch.Tensor, name) and hasattr(numtorch.Tensor, name + "_")
    for name in ("ndtri", "log_ndtr", "erfcx", "i0e", "i1", "i1e", "xlog1py", "zeta", "bessel_j0", "gammainc"):
        assert hasattr(numtorch, name) == hasattr(torch, name) is False
    calls = [lambda L, t: t.i0_(), lambda L, t: t.sinc_(), lambda L, t: t.polygamma_(2), lambda L, t: t.mvlgamma_(2),
             lambda L, t: t.igamma_(L.tensor([0.5, 2.0, 3.0])), lambda L, t: t.igammac_(L.tensor(1.5)),
             lambda L, t: L.special.i0(t), lambda L, t: L.special.sinc(t), lambda L, t: t.igamma(t + 1)]
    for f in calls:
        a, b = numtorch.tensor([1.5, 2.5, 4.0]), torch.tensor([1.5, 2.5, 4.0])
        ra, rb = f(numtorch, a), f(torch, b)
        np.testing.assert_allclose(ra.numpy(), rb.numpy(), rtol=1e-5)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5)  # in-place wrote into self
    ints = [lambda L, t: L.i0(t), lambda L, t: L.sinc(t), lambda L, t: L.polygamma(1, t + 1),
            lambda L, t: L.mvlgamma(t + 2, 2), lambda L, t: L.special.ndtri(t), lambda L, t: L.special.log_ndtr(t),
            lambda L, t: L.special.erfcx(t), lambda L, t: L.special.i1e(t), lambda L, t: L.special.bessel_j0(t),
            lambda L, t: L.special.xlog1py(t, t), lambda L, t: L.special.zeta(t + 2, 3),
            lambda L, t: L.special.xlog1py(2, t), lambda L, t: L.igamma(t + 1, L.tensor(2.0, dtype=L.float64))]
    for f in ints:
        for data in ([0, 1, 3], [True, False, True]):
            ra, rb = f(numtorch, numtorch.tensor(data)), f(torch, torch.tensor(data))
            assert str(ra.dtype) == str(rb.dtype)
            np.testing.assert_allclose(ra.numpy(), rb.numpy(), rtol=1e-5, equal_nan=True)
    # 16-bit floats where PyTorch has a kernel (computed through float32 here)
    for f in (lambda L, t: L.i0(t), lambda L, t: L.special.i1(t), lambda L, t: L.sinc(t),
              lambda L, t: L.polygamma(2, t), lambda L, t: L.special.xlog1py(t, t), lambda L, t: L.igamma(t, t)):
        for dt in ("float16", "bfloat16"):
            ra = f(numtorch, numtorch.tensor([0.5, 1.5, 3.0], dtype=getattr(numtorch, dt)))
            rb = f(torch, torch.tensor([0.5, 1.5, 3.0], dtype=getattr(torch, dt)))
            assert str(ra.dtype) == str(rb.dtype)
            np.testing.assert_allclose(ra.float().numpy(), rb.float().numpy(), rtol=2e-2)


def test_out_argument():
    for f in (lambda L, t, o: L.special.ndtri(t, out=o), lambda L, t, o: L.i0(t, out=o),
              lambda L, t, o: L.polygamma(1, t, out=o), lambda L, t, o: L.special.zeta(t + 1, t, out=o),
              lambda L, t, o: L.special.bessel_j1(t, out=o), lambda L, t, o: L.igammac(t, t, out=o)):
        outs = []
        for L in (numtorch, torch):
            o = L.empty(3, dtype=L.float64)
            r = f(L, L.tensor([0.25, 0.5, 0.75], dtype=L.float64), o)
            assert r is o
            outs.append(o.numpy())
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-8)


@pytest.mark.parametrize("name", ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
                                  "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
                                  "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "airy_ai",
                                  "spherical_bessel_j0"])
def test_nondifferentiable_bessel(name):
    data = np.array([0.0, 0.5, 1.5, 2.75, -2.0, 6.0, 12.0, INF, -INF, NAN])
    if "_k" in name or "_y" in name:
        data = np.abs(data)
    for dtype in (np.float32, np.float64):
        a = getattr(numtorch.special, name)(numtorch.tensor(data.astype(dtype), requires_grad=True))
        b = getattr(torch.special, name)(torch.tensor(data.astype(dtype), requires_grad=True))
        assert a.requires_grad is b.requires_grad is False and str(a.dtype) == str(b.dtype)
        # PyTorch's own Bessel kernels are good to ~1e-9 in float64
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-5 if dtype == np.float32 else 1e-7, atol=1e-6,
                                   equal_nan=True)


# ---- binary functions ------------------------------------------------------------------------
def _binary(lib, name, a, b, dtype):
    ta = lib.tensor(a.astype(dtype), requires_grad=name != "zeta")
    tb = lib.tensor(b.astype(dtype), requires_grad=True)
    f = {"xlog1py": lib.special.xlog1py, "zeta": lib.special.zeta, "gammainc": lib.special.gammainc,
         "gammaincc": lib.special.gammaincc, "igamma": lambda u, v: u.igamma(v)}[name]
    if name in ("gammainc", "gammaincc", "igamma"):
        ta.requires_grad_(False)
    y = f(ta, tb)
    (y * lib.tensor(np.linspace(-1, 1, y.numel()).reshape(y.shape).astype(dtype))).sum().backward()
    return y.detach().numpy(), ta.grad, tb.grad.numpy(), type(y.grad_fn).__name__


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,a,b", [
    ("xlog1py", np.array([[0.0, 1.5, -2.0, 0.0, 3.0]]), np.array([[0.5], [-1.0], [-2.0], [4.0]])),
    ("zeta", np.array([[2.0, 3.5, 1.5]]), np.array([[0.5], [1.0], [4.25]])),
    ("gammainc", np.array([[0.5, 1.0, 2.5, 7.0]]), np.array([[0.25], [1.0], [3.5]])),
    ("gammaincc", np.array([[0.5, 1.0, 2.5, 7.0]]), np.array([[0.25], [1.0], [3.5]])),
    ("igamma", np.array([0.5, 1.0, 2.5]), np.array([2.0]))])
def test_binary_values_grads_broadcast(name, a, b, dtype):
    ya, gxa, gya, na = _binary(numtorch, name, a, b, dtype)
    yb, gxb, gyb, nb = _binary(torch, name, a, b, dtype)
    assert na == nb
    tol = TOL[dtype] if dtype == np.float32 else dict(rtol=1e-9, atol=1e-12)  # PyTorch's igamma: ~1e-10
    np.testing.assert_allclose(ya, yb, equal_nan=True, **tol)
    np.testing.assert_allclose(gya, gyb, equal_nan=True, **tol)
    if name == "xlog1py":
        np.testing.assert_allclose(gxa.numpy(), gxb.numpy(), equal_nan=True, **tol)


def test_binary_scalar_variants():
    t = np.array([0.0, 1.5, 2.0, 0.0])
    for f in (lambda L, x: L.special.xlog1py(2.0, x), lambda L, x: L.special.xlog1py(x, -1.0),
              lambda L, x: L.special.xlog1py(x, float("nan")), lambda L, x: L.special.xlog1py(x, 3),
              lambda L, x: L.special.zeta(2.5, x + 1), lambda L, x: L.special.zeta(3, x + 1)):
        res = []
        for L in (numtorch, torch):
            x = L.tensor(t, requires_grad=True)
            y = f(L, x)
            y.sum().backward()
            res.append((y.detach().numpy(), x.grad.numpy(), type(y.grad_fn).__name__, str(y.dtype)))
        assert res[0][2:] == res[1][2:]
        np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-6, equal_nan=True)
        np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("call,message", [
    (lambda L, a, b: L.special.zeta(a, b), "the derivative for 'zeta' is not implemented."),
    (lambda L, a, b: L.special.zeta(a, 2.0), "the derivative for 'zeta' is not implemented."),
    (lambda L, a, b: L.igamma(a, b), "the derivative for 'igamma: input' is not implemented."),
    (lambda L, a, b: L.special.gammaincc(a, b.detach()), "the derivative for 'igammac: input' is not implemented.")])
def test_not_implemented_derivatives(call, message):
    for L in (numtorch, torch):
        a = L.tensor([2.0, 3.0], requires_grad=True)
        b = L.tensor([1.0, 1.5], requires_grad=True)
        y = call(L, a, b)
        assert y.requires_grad
        with pytest.raises(NotImplementedError, match=message):
            y.sum().backward()


def test_gradcheck_float64():
    def t(data):
        return numtorch.tensor(np.array(data, dtype=np.float64), requires_grad=True)
    s = numtorch.special
    for f, x in [(s.ndtri, PROB), (s.log_ndtr, X), (s.erfcx, X), (numtorch.i0, X), (s.i0e, X), (s.i1, X),
                 (s.i1e, X), (numtorch.sinc, X), (lambda v: numtorch.polygamma(0, v), X),
                 (lambda v: numtorch.polygamma(1, v), X), (lambda v: s.polygamma(3, v), X),
                 (lambda v: numtorch.mvlgamma(v, 3), POS + 1)]:
        assert gradcheck(f, (t(x),))
    a, b = t([[0.5, -1.0, 2.0]]), t([[0.25], [3.0]])
    assert gradcheck(s.xlog1py, (a, b))
    assert gradcheck(lambda q: s.zeta(t([2.5, 4.0]).detach(), q), (t([0.5, 2.0]),))
    assert gradcheck(lambda q: s.zeta(3.0, q), (t([0.5, 2.0]),))
    for f in (numtorch.igamma, numtorch.igammac):
        assert gradcheck(lambda z, f=f: f(t([0.5, 2.5, 4.0]).detach(), z), (t([0.75, 2.0, 5.0]),))


@pytest.mark.parametrize("call", [
    lambda L: L.i0(2.0), lambda L: L.special.i0(2.0), lambda L: L.special.ndtri(0.3), lambda L: L.sinc(1.0),
    lambda L: L.polygamma(1.0, L.tensor([1.0])), lambda L: L.special.polygamma(True, L.tensor([1.0])),
    lambda L: L.polygamma(1, 2.0), lambda L: L.tensor([1.0]).polygamma(1.0), lambda L: L.mvlgamma(L.tensor([3.0]), 2.0),
    lambda L: L.special.multigammaln(L.tensor([3.0]), 2.0), lambda L: L.igamma(1.0, L.tensor([1.0])),
    lambda L: L.special.gammainc(L.tensor([1.0]), 1.0), lambda L: L.special.xlog1py(2.0, 3.0),
    lambda L: L.special.zeta(2.0, 1.0)])
def test_type_errors(call):
    with pytest.raises(TypeError) as ea:
        call(numtorch)
    with pytest.raises(TypeError) as eb:
        call(torch)
    assert str(ea.value).splitlines()[0] == str(eb.value).splitlines()[0]


@pytest.mark.parametrize("call,exc", [
    (lambda L: L.polygamma(-1, L.tensor([1.0])), RuntimeError),
    (lambda L: L.tensor([1.0]).polygamma_(-2), RuntimeError),
    (lambda L: L.mvlgamma(L.tensor([3.0]), 0), RuntimeError),
    (lambda L: L.mvlgamma(L.tensor([True]), 2), RuntimeError),
    (lambda L: L.tensor([1, 2]).mvlgamma_(2), RuntimeError),
    (lambda L: L.tensor([1, 2]).sinc_(), RuntimeError),
    (lambda L: L.tensor([1, 2]).polygamma_(1), RuntimeError),
    (lambda L: L.special.xlog1py(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0, 3.0])), RuntimeError),
    (lambda L: L.igamma(L.tensor([1, 2]), L.tensor([1, 2])), NotImplementedError),
    (lambda L: L.special.gammainc(L.tensor([True]), L.tensor([False])), NotImplementedError),
    (lambda L: L.special.ndtri(L.tensor([0.5], dtype=L.float16)), NotImplementedError),
    (lambda L: L.special.zeta(L.tensor([2.0], dtype=L.bfloat16), 2.0), NotImplementedError),
    (lambda L: L.special.bessel_j0(L.tensor([0.5], dtype=L.float16)), NotImplementedError),
    (lambda L: L.i0(L.tensor([0.5], dtype=L.complex64)), NotImplementedError),
    (lambda L: L.polygamma(1, L.tensor([0.5], dtype=L.complex128)), NotImplementedError),
    (lambda L: L.special.xlog1py(L.tensor([0.5j]), 2.0), NotImplementedError)])
def test_errors(call, exc):
    with pytest.raises(exc) as ea:
        call(numtorch)
    with pytest.raises(exc) as eb:
        call(torch)
    assert str(ea.value) == str(eb.value)
