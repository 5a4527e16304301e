"""``numtorch.linalg`` against ``torch.linalg``: values, gradients (float32/float64, batched), gradcheck,
and error types/messages."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt
import numtorch.linalg  # noqa: F401  (the import form must work too)
from numtorch.autograd import gradcheck
from conftest import assert_close, to_nt, to_ref

RNG = np.random.default_rng(0)


def _tol(dtype):
    return dict(rtol=2e-4, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-8, atol=1e-10)


def _rand(shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def _wellcond(shape, dtype):
    n = shape[-1]
    return (_rand(shape) + n * np.eye(n)).astype(dtype)


def _spd(shape, dtype):
    x = _rand(shape)
    return (x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _flat(out):
    return list(out) if isinstance(out, tuple) else [out]


def _diff(name, arrays, *, kw=None, loss=None, grad=True, tol=None):
    """Run ``linalg.<name>`` of both libraries on the same inputs; compare every output and the
    gradients of a fixed random weighting of the outputs (or of ``loss(module, out)``)."""
    kw = kw or {}
    tol = tol or _tol(arrays[0].dtype)
    xs = [to_nt(a, requires_grad=grad) for a in arrays]
    rs = [to_ref(a, requires_grad=grad) for a in arrays]
    y, r = getattr(nt.linalg, name)(*xs, **kw), getattr(ref.linalg, name)(*rs, **kw)
    if loss is None:
        for a, b in zip(_flat(y), _flat(r)):
            assert_close(a, b, **tol)
    if not grad:
        return y, r
    if loss is None:
        w = [_rand(tuple(b.shape), arrays[0].dtype) for b in _flat(r)]
        ly = sum((a * nt.tensor(wi)).sum() for a, wi in zip(_flat(y), w) if a.requires_grad)
        lr = sum((b * ref.tensor(wi)).sum() for b, wi in zip(_flat(r), w) if b.requires_grad)
    else:
        ly, lr = loss(nt, y), loss(ref, r)
        assert_close(ly, lr, **tol)
    ly.backward()
    lr.backward()
    for x, rr in zip(xs, rs):
        if rr.grad is None:  # e.g. vector_norm with ord=0 has no gradient
            assert x.grad is None
        else:
            assert_close(x.grad, rr.grad, **tol)
    return y, r


def _same_error(fn, exc=RuntimeError, match=None):
    """``fn(module)`` raises the same exception type and message in both libraries."""
    with pytest.raises(exc) as er:
        fn(ref)
    with pytest.raises(exc) as en:
        fn(nt)
    assert str(en.value) == str(er.value) if match is None else match in str(en.value)


SQUARE = [(3, 3), (2, 4, 4), (2, 1, 3, 3)]


# ---- namespace ---------------------------------------------------------------------------------
def test_namespace_reachable():
    import importlib
    mod = importlib.import_module("numtorch.linalg")
    assert nt.linalg is mod and callable(nt.linalg.inv)
    assert issubclass(nt.linalg.LinAlgError, RuntimeError)
    assert callable(nt.matmul)  # the matmul family still lives at top level


# ---- inverse, determinants, solve ----------------------------------------------------------------
@pytest.mark.parametrize("shape", SQUARE)
def test_inv(fdtype, shape):
    _diff("inv", [_wellcond(shape, fdtype)])


@pytest.mark.parametrize("shape", SQUARE)
def test_det_and_slogdet(fdtype, shape):
    a = _wellcond(shape, fdtype) - 2.5 * np.eye(shape[-1], dtype=fdtype)  # mixed signs
    _diff("det", [a])
    _diff("slogdet", [a])


def test_det_gradient_at_singular_matrix():
    # The gradient of det is the cofactor matrix, also where det = 0. (PyTorch 2.13 returns zeros for an
    # exactly singular input; numtorch returns the true derivative, which gradcheck confirms.)
    a = nt.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=nt.float64, requires_grad=True)
    nt.linalg.det(a).backward()
    np.testing.assert_allclose(a.grad.numpy(), [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)
    b = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]])
    assert gradcheck(nt.linalg.det, (nt.tensor(b, requires_grad=True),))


@pytest.mark.parametrize("ashape,bshape", [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3)),
                                           ((2, 3, 3), (3, 4)), ((2, 1, 3, 3), (1, 4, 3, 2)), ((3, 3), (2, 3, 1))])
def test_solve(fdtype, ashape, bshape):
    _diff("solve", [_wellcond(ashape, fdtype), _rand(bshape, fdtype)])


def test_solve_left_false(fdtype):
    _diff("solve", [_wellcond((2, 3, 3), fdtype), _rand((2, 4, 3), fdtype)], kw=dict(left=False))


def test_inv_ex_and_cholesky_ex():
    a = np.stack([np.eye(2), np.array([[1.0, 2.0], [2.0, 4.0]])])
    y, info = nt.linalg.inv_ex(nt.tensor(a))
    ry, rinfo = ref.linalg.inv_ex(ref.tensor(a))
    assert info.tolist() == rinfo.tolist() == [0, 2]
    assert_close(y[0], ry[0])
    spd = np.stack([np.eye(2), -np.eye(2)])
    low, info = nt.linalg.cholesky_ex(nt.tensor(spd))
    assert info.tolist() == ref.linalg.cholesky_ex(ref.tensor(spd)).info.tolist() == [0, 1]
    assert_close(low[0], ref.eye(2, dtype=ref.float64))
    with pytest.raises(nt.linalg.LinAlgError):
        nt.linalg.inv_ex(nt.tensor(a), check_errors=True)


# ---- factorizations ------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SQUARE)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(fdtype, shape, upper):
    _diff("cholesky", [_spd(shape, fdtype)], kw=dict(upper=upper))


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 5, 2), (2, 3, 5)])
def test_qr_reduced(fdtype, shape):
    _diff("qr", [_rand(shape, fdtype)])


def test_qr_modes(fdtype):
    a = _rand((4, 3), fdtype)
    for mode in ("complete", "r"):
        y, r = _diff("qr", [a], kw=dict(mode=mode), grad=False)
    _diff("qr", [_rand((3, 5), fdtype)], kw=dict(mode="complete"))


@pytest.mark.parametrize("shape", SQUARE)
def test_eigh(fdtype, shape):
    a = _spd(shape, fdtype) - 2 * shape[-1] * np.eye(shape[-1], dtype=fdtype)

    def loss(M, out):  # eigenvectors are defined up to sign: use sign-free functions of them
        w, v = out
        return (w * w).sum() + ((v * v) * M.arange(v.shape[-1], dtype=v.dtype)).sum() + \
            (v @ M.diag_embed(w.sin()) @ v.mT).pow(2).sum()
    _diff("eigh", [a], loss=loss)
    _diff("eigvalsh", [a])
    _diff("eigvalsh", [a], kw=dict(UPLO="U"))


def test_eigh_reads_one_triangle():
    a = _rand((3, 3))
    for uplo in ("L", "U"):
        assert_close(nt.linalg.eigvalsh(nt.tensor(a), UPLO=uplo), ref.linalg.eigvalsh(ref.tensor(a), UPLO=uplo))


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 3, 5)])
@pytest.mark.parametrize("full", [False, True])
def test_svd(fdtype, shape, full):
    a = _rand(shape, fdtype)

    def loss(M, out):
        u, s, vh = out
        k = s.shape[-1]
        uk, vk = u[..., :k], vh[..., :k, :]
        return (s * s).sum() + (uk @ M.diag_embed(s.cos()) @ vk).pow(2).sum() + (uk * uk).sum(-1).pow(2).sum()
    y, r = _diff("svd", [a], kw=dict(full_matrices=full), loss=loss)
    assert tuple(y.U.shape) == tuple(r.U.shape) and tuple(y.Vh.shape) == tuple(r.Vh.shape)
    tol = _tol(fdtype)
    recon = y.U[..., :, :min(shape[-2:])] @ nt.diag_embed(y.S) @ y.Vh[..., :min(shape[-2:]), :]
    np.testing.assert_allclose(recon.detach().numpy(), a, rtol=tol["rtol"] * 10, atol=tol["atol"] * 10)
    _diff("svdvals", [a])


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
def test_pinv(fdtype, shape):
    _diff("pinv", [_rand(shape, fdtype)], tol=dict(rtol=2e-3, atol=2e-4) if fdtype == np.float32 else None)


def test_pinv_rank_deficient_and_hermitian():
    a = _rand((4, 2)) @ _rand((2, 5))  # rank 2
    _diff("pinv", [a])
    s = _spd((3, 3), np.float64)
    y = nt.linalg.pinv(nt.tensor(s), hermitian=True)
    assert_close(y, ref.linalg.pinv(ref.tensor(s), hermitian=True))
    assert_close(nt.linalg.pinv(nt.tensor(a), rtol=0.5), ref.linalg.pinv(ref.tensor(a), rtol=0.5))


def test_matrix_rank():
    a = np.stack([_rand((4, 2)) @ _rand((2, 5)), _rand((4, 5))])
    for kw in ({}, dict(atol=1.0), dict(rtol=0.3), dict(atol=0.1, rtol=0.2)):
        r = nt.linalg.matrix_rank(nt.tensor(a), **kw)
        assert r.dtype == nt.int64 and r.tolist() == ref.linalg.matrix_rank(ref.tensor(a), **kw).tolist()
    s = _spd((3, 3), np.float64)
    assert nt.linalg.matrix_rank(nt.tensor(s), hermitian=True).item() == 3


@pytest.mark.parametrize("driver", [None, "gelsd", "gels"])
def test_lstsq(driver):
    a, b = _rand((2, 5, 3)), _rand((2, 5, 2))
    y = nt.linalg.lstsq(nt.tensor(a), nt.tensor(b), driver=driver)
    r = ref.linalg.lstsq(ref.tensor(a), ref.tensor(b), driver=driver)
    for f in ("solution", "residuals", "rank", "singular_values"):
        assert_close(getattr(y, f), getattr(r, f), rtol=1e-8, atol=1e-10)
    _diff("lstsq", [a, b], loss=lambda M, out: out.solution.pow(2).sum())


# ---- norms ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ord", [2, 1, 3.5, float("inf"), float("-inf"), 0, -1.5])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, True), ((0, 2), False), (-1, False)])
def test_vector_norm(fdtype, ord, dim, keepdim):
    _diff("vector_norm", [_rand((2, 3, 4), fdtype)], kw=dict(ord=ord, dim=dim, keepdim=keepdim))


@pytest.mark.parametrize("ord", ["fro", "nuc", float("inf"), float("-inf"), 1, -1, 2, -2])
@pytest.mark.parametrize("dim,keepdim", [((-2, -1), False), ((0, 2), True), ((2, 0), False)])
def test_matrix_norm(fdtype, ord, dim, keepdim):
    _diff("matrix_norm", [_rand((3, 2, 4), fdtype)], kw=dict(ord=ord, dim=dim, keepdim=keepdim))


@pytest.mark.parametrize("shape,kw", [((5,), {}), ((3, 4), {}), ((2, 3, 4), {}), ((3, 4), dict(ord=1)),
                                      ((3, 4), dict(ord="nuc")), ((4,), dict(ord=3)),
                                      ((2, 3, 4), dict(dim=1)), ((2, 3, 4), dict(dim=(0, 2), ord=-1)),
                                      ((2, 3, 4), dict(dim=(1, 2), keepdim=True))])
def test_norm(fdtype, shape, kw):
    _diff("norm", [_rand(shape, fdtype)], kw=kw)


def test_norm_dtype_argument():
    x = _rand((3, 4), np.float32)
    y = nt.linalg.vector_norm(nt.tensor(x), dtype=nt.float64)
    assert y.dtype == nt.float64
    assert_close(y, ref.linalg.vector_norm(ref.tensor(x), dtype=ref.float64))


# ---- products and powers ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power(fdtype, n):
    a = _wellcond((2, 3, 3), fdtype) / 3
    _diff("matrix_power", [a], kw=dict(n=n))


@pytest.mark.parametrize("ashape,bshape,dim", [((4, 3), (4, 3), -1), ((3, 5), (3, 1), 0), ((2, 1, 3), (1, 4, 3), -1)])
def test_cross(fdtype, ashape, bshape, dim):
    _diff("cross", [_rand(ashape, fdtype), _rand(bshape, fdtype)], kw=dict(dim=dim))


def test_vecdot(fdtype):
    _diff("vecdot", [_rand((2, 3, 4), fdtype), _rand((3, 4), fdtype)])
    _diff("vecdot", [_rand((2, 3, 4), fdtype), _rand((2, 3, 4), fdtype)], kw=dict(dim=1))


@pytest.mark.parametrize("shapes", [[(3, 4), (4, 2)], [(4,), (4, 5), (5, 2), (2,)], [(2, 6), (6, 3), (3, 7), (7, 1)],
                                    [(5,), (5, 2)]])
def test_multi_dot(fdtype, shapes):
    arrays = [_rand(s, fdtype) for s in shapes]
    xs = [to_nt(a, requires_grad=True) for a in arrays]
    rs = [to_ref(a, requires_grad=True) for a in arrays]
    y, r = nt.linalg.multi_dot(xs), ref.linalg.multi_dot(rs)
    assert_close(y, r, **_tol(fdtype))
    (y * y).sum().backward()
    (r * r).sum().backward()
    for x, rr in zip(xs, rs):
        assert_close(x.grad, rr.grad, **_tol(fdtype))


# ---- gradcheck ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn,make", [
    (lambda a: nt.linalg.inv(a), lambda: _wellcond((2, 3, 3), np.float64)),
    (lambda a: nt.linalg.det(a), lambda: _wellcond((3, 3), np.float64)),
    (lambda a: nt.linalg.slogdet(a)[1], lambda: _wellcond((2, 3, 3), np.float64)),
    (lambda a: nt.linalg.cholesky(a @ a.mT), lambda: _wellcond((3, 3), np.float64)),
    (lambda a: nt.linalg.eigvalsh(a + a.mT), lambda: _rand((3, 3))),
    (lambda a: nt.linalg.svdvals(a), lambda: _rand((4, 3))),
    (lambda a: nt.linalg.qr(a).Q, lambda: _rand((4, 3))),
    (lambda a: nt.linalg.qr(a).R, lambda: _rand((3, 5))),
    (lambda a: nt.linalg.pinv(a), lambda: _rand((3, 4))),
    (lambda a: nt.linalg.matrix_norm(a, "nuc"), lambda: _rand((3, 4))),
    (lambda a: nt.linalg.matrix_norm(a, 2), lambda: _rand((3, 4))),
    (lambda a: nt.linalg.vector_norm(a, 3), lambda: _rand((3, 4))),
    (lambda a: nt.linalg.matrix_power(a, 3), lambda: _rand((3, 3))),
    (lambda a: nt.linalg.svd(a, full_matrices=False).U.pow(2), lambda: _rand((4, 3))),
])
def test_gradcheck(fn, make):
    assert gradcheck(fn, (nt.tensor(make(), requires_grad=True),))


def test_gradcheck_two_inputs():
    a, b = _wellcond((2, 3, 3), np.float64), _rand((2, 3, 2))
    assert gradcheck(nt.linalg.solve, (nt.tensor(a, requires_grad=True), nt.tensor(b, requires_grad=True)))
    assert gradcheck(nt.linalg.cross, (nt.tensor(_rand((2, 3)), requires_grad=True),
                                       nt.tensor(_rand((2, 3)), requires_grad=True)))


def test_float32_stays_float32():
    a = nt.tensor(_wellcond((3, 3), np.float32))
    for fn in (nt.linalg.inv, nt.linalg.det, nt.linalg.svdvals, nt.linalg.pinv, nt.linalg.matrix_norm):
        assert fn(a).dtype == nt.float32
    assert nt.linalg.eigh(a @ a.mT).eigenvectors.dtype == nt.float32


# ---- errors -------------------------------------------------------------------------------------------
S = [[1.0, 2.0], [2.0, 4.0]]


@pytest.mark.parametrize("fn", [
    lambda M: M.linalg.inv(M.tensor(S)),
    lambda M: M.linalg.inv(M.stack([M.eye(2), M.tensor(S)])),
    lambda M: M.linalg.inv(M.ones(2, 3)),
    lambda M: M.linalg.inv(M.ones(3)),
    lambda M: M.linalg.inv(M.ones(2, 2, dtype=M.long)),
    lambda M: M.linalg.inv(M.eye(2).half()),
    lambda M: M.linalg.det(M.ones(2, 3)),
    lambda M: M.linalg.det(M.ones(2, 2, dtype=M.long)),
    lambda M: M.linalg.slogdet(M.ones(2, 3)),
    lambda M: M.linalg.solve(M.tensor(S), M.ones(2)),
    lambda M: M.linalg.solve(M.stack([M.eye(2), M.zeros(2, 2)]), M.ones(2, 2, 1)),
    lambda M: M.linalg.solve(M.ones(2, 3), M.ones(2)),
    lambda M: M.linalg.solve(M.eye(2), M.ones(3)),
    lambda M: M.linalg.solve(M.eye(2), M.ones(3, 3)),
    lambda M: M.linalg.solve(M.eye(2), M.ones(2, 3), left=False),
    lambda M: M.linalg.cholesky(M.tensor(S)),
    lambda M: M.linalg.cholesky(M.stack([M.eye(2), -M.eye(2)])),
    lambda M: M.linalg.cholesky(M.ones(2, 3)),
    lambda M: M.linalg.eigh(M.ones(2, 3)),
    lambda M: M.linalg.eigvalsh(M.ones(2, 2), UPLO="X"),
    lambda M: M.linalg.svd(M.ones(2)),
    lambda M: M.linalg.qr(M.ones(2)),
    lambda M: M.linalg.qr(M.ones(2, 2), mode="x"),
    lambda M: M.linalg.matrix_power(M.ones(2, 3), 2),
    lambda M: M.linalg.matrix_power(M.tensor(S), -1),
    lambda M: M.linalg.cross(M.ones(2), M.ones(2)),
    lambda M: M.linalg.cross(M.ones(3, 3), M.ones(2, 3)),
    lambda M: M.linalg.cross(M.ones(2, 1, 3), M.ones(4, 3)),
    lambda M: M.linalg.norm(M.ones(2, 2, 2), ord=2),
    lambda M: M.linalg.norm(M.ones(2, 2), ord="fro", dim=0),
    lambda M: M.linalg.matrix_norm(M.ones(2), ord=2),
    lambda M: M.linalg.matrix_norm(M.ones(2, 2), ord=3),
    lambda M: M.linalg.matrix_norm(M.ones(2, 2), dim=(0, 0)),
    lambda M: M.linalg.vector_norm(M.ones(2, dtype=M.long)),
    lambda M: M.linalg.multi_dot([M.ones(2, 2)]),
    lambda M: M.linalg.multi_dot([M.ones(2, 2), M.ones(3, 2)]),
    lambda M: M.linalg.multi_dot([M.ones(2, 2, 2), M.ones(2, 2)]),
    lambda M: M.linalg.multi_dot([M.ones(2), M.ones(2, 2, 2), M.ones(2)]),
    lambda M: M.linalg.multi_dot([M.ones(2, 2), M.ones(2, 2).double()]),
    lambda M: M.linalg.matrix_rank(M.ones(2)),
    lambda M: M.linalg.pinv(M.ones(2)),
    lambda M: M.linalg.lstsq(M.ones(3, 2), M.ones(3, 1), driver="x"),
])
def test_errors_match_pytorch(fn):
    _same_error(fn)


def test_error_types():
    _same_error(lambda M: M.linalg.vector_norm(M.ones(2), ord="fro"), TypeError)
    with pytest.raises(nt.linalg.LinAlgError):
        nt.linalg.inv(nt.tensor(S))
    for mode, msg in (("r", "mode='r'"), ("complete", "mode='complete'")):
        a = nt.tensor(_rand((3, 2)), requires_grad=True)
        with pytest.raises(RuntimeError, match=msg):
            q, r = nt.linalg.qr(a, mode=mode)
            (r.sum() + q.sum()).backward()


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (2, 0, 0), (2, 3, 0)])
@pytest.mark.parametrize("ord", [1, -1, float("inf"), float("-inf"), 2, -2, "fro", "nuc"])
def test_matrix_norm_of_empty_matrices_matches_torch(shape, ord):
    res = []
    for T in (nt, ref):
        x = T.zeros(shape, dtype=T.float64, requires_grad=True)
        try:
            r = T.linalg.matrix_norm(x, ord)
        except IndexError:  # the smallest of no sums / singular values: both raise IndexError
            res.append(None)
            continue
        if r.requires_grad:  # PyTorch: the largest of no sums / singular values is a fresh 0 without a graph
            r.sum().backward()
        res.append((r.detach().numpy(), np.array(r.requires_grad), x.grad.numpy() if x.grad is not None else None))
    assert (res[0] is None) == (res[1] is None)
    if res[1] is not None:
        for a, b in zip(*res):
            assert (a is None) == (b is None)
            if a is not None:
                assert a.shape == b.shape
                np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("shape,mode", [((3, 5), "reduced"), ((2, 3, 5), "complete"), ((4, 3), "reduced")])
def test_qr_double_backward_matches_torch(shape, mode):
    a, v = _rand(shape), np.random.default_rng(3).standard_normal(shape)
    res = []
    for M in (nt, ref):
        x = M.tensor(a, requires_grad=True)
        q, r = M.linalg.qr(x, mode=mode)
        (g,) = M.autograd.grad((q * q.detach().flip(-1)).sum() + (r ** 2).sum(), x, create_graph=True)
        (gg,) = M.autograd.grad((g * M.tensor(v)).sum(), x)
        res.append((g.detach().numpy(), gg.numpy()))
    for n_, r_ in zip(*res):
        np.testing.assert_allclose(n_, r_, rtol=1e-8, atol=1e-10)
    assert nt.autograd.gradgradcheck(lambda y: nt.linalg.qr(y, mode=mode), (nt.tensor(a, requires_grad=True),))


def test_det_of_1x1_double_backward_is_none_as_torch():
    res = []
    for M in (nt, ref):
        x, v = M.tensor(np.full((3, 1, 1), -1.5), requires_grad=True), M.tensor([0.3, -1.2, 2.0], requires_grad=True)
        (g,) = M.autograd.grad(M.linalg.det(x), x, v, create_graph=True)
        res.append(M.autograd.grad((g * M.tensor(np.array([0.5, 1.0, -2.0]).reshape(3, 1, 1))).sum(), [x, v],
                                   allow_unused=True))
    assert res[0][0] is None and res[1][0] is None  # det of a 1x1 matrix is linear: no rounding noise either
    np.testing.assert_array_equal(res[0][1].numpy(), res[1][1].numpy())


@pytest.mark.parametrize("ord", [2, -2])
def test_spectral_norm_of_zero_matrix_create_graph_matches_torch(ord):
    # svdvals under create_graph: its U and Vh get no gradient, so equal singular values divide nothing
    res = []
    for M in (nt, ref):
        x = M.zeros(4, 4, dtype=M.float64, requires_grad=True)
        (g,) = M.autograd.grad(M.linalg.matrix_norm(x, ord), x, create_graph=True)
        res.append(g.detach().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-12, atol=1e-12)
