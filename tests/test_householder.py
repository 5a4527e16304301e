"""torch.geqrf and torch.linalg.householder_product (torch.orgqr) against torch: values, dtypes, gradients
(first order against torch, second order by gradgradcheck), errors; torch.linalg.matrix_exp exported."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt

SHAPES = [(4, 3), (3, 3), (2, 5, 2), (2, 1, 4, 4)]


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_geqrf_and_householder_product_match_torch(shape, dtype):
    a = _data(shape, dtype)
    na, ntau = nt.geqrf(nt.tensor(a))
    ra, rtau = ref.geqrf(ref.tensor(a))
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(na.numpy(), ra.numpy(), **tol)
    np.testing.assert_allclose(ntau.numpy(), rtau.numpy(), **tol)
    assert na.dtype == nt.tensor(a).dtype and tuple(ntau.shape) == tuple(rtau.shape)
    q = nt.linalg.householder_product(na, ntau)
    rq = ref.linalg.householder_product(ra, rtau)
    np.testing.assert_allclose(q.numpy(), rq.numpy(), **tol)
    np.testing.assert_allclose(nt.tensor(a).geqrf()[0].numpy(), na.numpy())
    np.testing.assert_allclose(nt.orgqr(na, ntau).numpy(), q.numpy())


@pytest.mark.parametrize("shape,k", [((4, 3), 3), ((4, 3), 2), ((2, 3, 3), 1)])
def test_householder_product_gradients(shape, k):
    a = _data(shape, np.float64, 1)
    tau = np.random.default_rng(2).uniform(0.5, 1.5, shape[:-2] + (k,))
    grads = []
    for T in (nt, ref):
        A, t = T.tensor(a, requires_grad=True), T.tensor(tau, requires_grad=True)
        (T.linalg.householder_product(A, t) * T.tensor(np.cos(np.arange(np.prod(shape))).reshape(shape))).sum() \
            .backward()
        grads.append((A.grad.numpy(), t.grad.numpy()))
    for x, y in zip(*grads):
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-12)
    A, t = nt.tensor(a, requires_grad=True), nt.tensor(tau, requires_grad=True)
    assert nt.autograd.gradgradcheck(nt.linalg.householder_product, (A, t))


def test_geqrf_has_no_derivative():
    a, _ = nt.geqrf(nt.randn(3, 3, requires_grad=True))
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented."):
        a.sum().backward()


@pytest.mark.parametrize("args", [
    lambda T: (T.randn(3), T.rand(2)), lambda T: (T.randn(2, 3), T.rand(1)), lambda T: (T.randn(3, 3), T.rand(4)),
    lambda T: (T.randn(3, 3), T.rand(2, 2)), lambda T: (T.randn(3, 3), T.rand(2).double()),
    lambda T: (T.randn(2, 3, 3), T.rand(3, 2))])
def test_householder_product_errors_match_torch(args):
    msgs = []
    for T in (nt, ref):
        with pytest.raises(RuntimeError) as e:
            T.linalg.householder_product(*args(T))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    with pytest.raises(RuntimeError, match="torch.geqrf: input must have at least 2 dimensions."):
        nt.geqrf(nt.ones(3))


def test_linalg_matrix_exp_is_torch_matrix_exp():
    a = _data((3, 3), np.float64) * 0.3
    np.testing.assert_allclose(nt.linalg.matrix_exp(nt.tensor(a)).numpy(), ref.linalg.matrix_exp(ref.tensor(a)).numpy(),
                               rtol=1e-12)
