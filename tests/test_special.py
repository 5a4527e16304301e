"""Special functions (torch.lgamma/digamma/erfc/xlogy/logit and torch.special) against PyTorch."""
import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck

torch = pytest.importorskip("torch")

X = np.array([0.3, 1.5, 4.0, 7.25, 0.05, 2.5, 11.0, 0.75])
P = np.array([0.1, 0.5, 0.9, 0.3, 0.02, 0.97, 0.66, 0.25])


def _pair(fn_name, data, dtype, lib_fn=None):
    out = []
    for lib in (numtorch, torch):
        x = lib.tensor(data.astype(dtype), requires_grad=True)
        y = (lib_fn or (lambda L, t: getattr(L, fn_name)(t)))(lib, x)
        w = lib.tensor(np.linspace(-1, 1, data.size).astype(dtype))
        (y * w).sum().backward()
        out.append((y.detach().numpy(), x.grad.numpy(), str(y.dtype)))
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,data", [("lgamma", X), ("digamma", X), ("erfc", X - 2), ("logit", P)])
def test_unary_special_values_and_grads(name, data, dtype):
    (ya, ga, da), (yb, gb, db) = _pair(name, data, dtype)
    assert da == db
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ya, yb, **tol)
    # PyTorch's trigamma (digamma's gradient) is a series accurate to ~1e-9; SciPy's is exact to rounding
    np.testing.assert_allclose(ga, gb, **(tol if dtype == np.float32 else dict(rtol=1e-8, atol=1e-10)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_xlogy_forms(dtype):
    x = np.array([0.0, 1.0, 2.5, 0.0, 3.0]).astype(dtype)
    y = np.array([0.0, 3.0, 0.5, np.nan, 2.0]).astype(dtype)
    for lib_call in (lambda L, a, b: L.xlogy(a, b), lambda L, a, b: a.xlogy(b),
                     lambda L, a, b: L.special.xlogy(a, b)):
        ra = lib_call(numtorch, numtorch.tensor(x), numtorch.tensor(y)).numpy()
        rb = lib_call(torch, torch.tensor(x), torch.tensor(y)).numpy()
        np.testing.assert_allclose(ra, rb, rtol=1e-6, equal_nan=True)
    for a, b in ((2.0, y), (x, 3.0)):
        ra = numtorch.xlogy(*(numtorch.tensor(v) if isinstance(v, np.ndarray) else v for v in (a, b)))
        rb = torch.xlogy(*(torch.tensor(v) if isinstance(v, np.ndarray) else v for v in (a, b)))
        assert str(ra.dtype) == str(rb.dtype)
        np.testing.assert_allclose(ra.numpy(), rb.numpy(), rtol=1e-6, equal_nan=True)
    # gradients for both operands, with broadcasting
    xs, ys = np.array([[0.5, 2.0, 0.0]]).astype(dtype), np.array([[1.5], [0.7]]).astype(dtype)
    grads = []
    for lib in (numtorch, torch):
        a, b = lib.tensor(xs, requires_grad=True), lib.tensor(ys, requires_grad=True)
        lib.xlogy(a, b).sum().backward()
        grads.append((a.grad.numpy(), b.grad.numpy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-6)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-6)


def test_integer_inputs_promote_and_edge_values():
    for name in ("lgamma", "digamma", "erfc"):
        a = getattr(numtorch, name)(numtorch.tensor([1, 2, 3]))
        b = getattr(torch, name)(torch.tensor([1, 2, 3]))
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    assert numtorch.digamma(numtorch.tensor([0.0])).item() == torch.digamma(torch.tensor([0.0])).item()
    np.testing.assert_allclose(numtorch.logit(numtorch.tensor([0.0, 1.0, 0.5]), eps=1e-6).numpy(),
                               torch.logit(torch.tensor([0.0, 1.0, 0.5]), eps=1e-6).numpy(), rtol=1e-6)
    t = numtorch.tensor([0.3, 0.6])
    t.logit_()
    np.testing.assert_allclose(t.numpy(), torch.tensor([0.3, 0.6]).logit_().numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["gammaln", "digamma", "psi", "expit", "logit", "erf", "erfc", "erfinv", "log1p",
                                  "expm1", "exp2", "ndtr", "entr", "round"])
def test_torch_special_names(name):
    p = np.array([0.1, 0.5, 0.9, 0.0, 0.3, -0.2])
    a = getattr(numtorch.special, name)(numtorch.tensor(p))
    b = getattr(torch.special, name)(torch.tensor(p))
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12, equal_nan=True)


def test_special_softmax_family():
    x = np.random.default_rng(0).standard_normal((3, 4))
    for name in ("softmax", "log_softmax", "logsumexp"):
        a = getattr(numtorch.special, name)(numtorch.tensor(x), 1)
        b = getattr(torch.special, name)(torch.tensor(x), 1)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)


def test_gradcheck_float64():
    x = numtorch.tensor(X, dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(numtorch.lgamma, (x,))
    assert gradcheck(numtorch.digamma, (x,))
    assert gradcheck(numtorch.erfc, (x - 2,))
    p = numtorch.tensor(P, dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(numtorch.logit, (p,))
    y = numtorch.tensor(X + 0.5, dtype=numtorch.float64, requires_grad=True)
    assert gradcheck(numtorch.xlogy, (x, y))


def test_xlogy_needs_a_tensor():
    with pytest.raises(TypeError):
        numtorch.xlogy(2.0, 3.0)
    with pytest.raises(TypeError):
        torch.xlogy(2.0, 3.0)
