"""Differential tests of the top-level linalg functions (torch.det, torch.svd, torch.lu, ...)."""
import warnings

import numpy as np
import pytest
import torch as ref

import numtorch as nt
from numtorch.autograd import gradcheck
from conftest import assert_close, to_nt, to_ref

warnings.filterwarnings("ignore", category=UserWarning)


def _tol(dt):
    return dict(rtol=1e-4, atol=1e-4) if dt == np.float32 else dict(rtol=1e-8, atol=1e-9)


def _mat(shape, dt, seed=0, spd=False, wellcond=True):
    r = np.random.default_rng(seed)
    a = r.standard_normal(shape)
    if spd:
        a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
    elif wellcond and shape[-1] == shape[-2]:
        a = a + 2 * np.eye(shape[-1])
    return a.astype(dt)


def _both(fn_nt, fn_ref, arrays, dt, out_idx=None, seed=1):
    """Forward + backward of a scalar loss sum(out * w) in both libraries; compares values and grads."""
    xs = [to_nt(a, True) for a in arrays]
    rs = [to_ref(a, True) for a in arrays]
    o, r = fn_nt(*xs), fn_ref(*rs)
    if out_idx is not None:
        o, r = o[out_idx], r[out_idx]
    assert_close(o, r, **_tol(dt))
    w = np.random.default_rng(seed).standard_normal(r.shape).astype(dt)
    (o * to_nt(w)).sum().backward()
    (r * to_ref(w)).sum().backward()
    for x, rr in zip(xs, rs):
        assert_close(x.grad, rr.grad, **_tol(dt))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
@pytest.mark.parametrize("name", ["det", "logdet", "inverse", "matrix_exp", "pinverse"])
def test_unary(name, shape, fdtype):
    a = _mat(shape, fdtype, spd=name == "logdet")
    _both(getattr(nt, name), getattr(ref, name), [a], fdtype)
    assert_close(getattr(to_nt(a), name)(), getattr(to_ref(a), name)(), **_tol(fdtype))


def test_logdet_negative_and_singular():
    a = np.diag([-1.0, 2.0, 3.0])
    assert np.isnan(nt.logdet(nt.tensor(a)).item()) and np.isnan(ref.logdet(ref.tensor(a)).item())
    assert nt.logdet(nt.zeros(2, 2)).item() == -np.inf
    assert_close(nt.logdet(nt.tensor(np.diag([-1.0, -2.0, 3.0]))), ref.logdet(ref.tensor(np.diag([-1.0, -2, 3]))))


def test_slogdet_and_power(fdtype):
    a = _mat((2, 3, 3), fdtype)
    s, r = nt.slogdet(to_nt(a)), ref.slogdet(to_ref(a))
    assert type(s).__name__ == "slogdet" and s._fields == ("sign", "logabsdet")
    assert_close(s.sign, r.sign)
    _both(lambda x: nt.slogdet(x)[1], lambda x: ref.slogdet(x)[1], [a], fdtype)
    for n in (0, 1, 3, -2):
        _both(lambda x: nt.matrix_power(x, n), lambda x: ref.matrix_power(x, n), [a], fdtype)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(upper, fdtype):
    a = _mat((2, 3, 3), fdtype, spd=True)
    _both(lambda x: nt.cholesky(x, upper), lambda x: ref.cholesky(x, upper), [a], fdtype)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("some", [True, False])
def test_svd(shape, some, fdtype):
    a = _mat(shape, fdtype, wellcond=False)
    u, s, v = nt.svd(to_nt(a), some=some)
    ru, rs, rv = ref.svd(to_ref(a), some=some)
    assert u.shape == ru.shape and v.shape == rv.shape
    assert_close(s, rs, **_tol(fdtype))
    k = s.shape[-1]
    rec = (u[..., :k] * s.unsqueeze(-2)) @ v[..., :k].mT
    assert_close(rec, to_ref(a), **_tol(fdtype))
    assert_close(u[..., :k].abs(), ru[..., :k].abs(), **_tol(fdtype))
    assert_close(v[..., :k].abs(), rv[..., :k].abs(), **_tol(fdtype))
    # sign-invariant losses: S and U S V^T
    _both(lambda x: nt.svd(x, some)[1], lambda x: ref.svd(x, some)[1], [a], fdtype)
    f = lambda lib: lambda x: (lambda r: (r[0][..., :k] * r[1].unsqueeze(-2)) @ r[2][..., :k].mT)(lib.svd(x, some))
    _both(f(nt), f(ref), [a], fdtype)


def test_svd_no_uv(fdtype):
    a = _mat((2, 3), fdtype)
    u, s, v = nt.svd(to_nt(a), compute_uv=False)
    ru, rs, rv = ref.svd(to_ref(a), compute_uv=False)
    assert_close(u, ru), assert_close(v, rv), assert_close(s, rs, **_tol(fdtype))
    assert type(nt.svd(to_nt(a))).__name__ == "svd"


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 3, 4)])
@pytest.mark.parametrize("some", [True, False])
def test_qr(shape, some, fdtype):
    a = _mat(shape, fdtype)
    q, r = nt.qr(to_nt(a), some)
    rq, rr = ref.qr(to_ref(a), some)
    assert q.shape == rq.shape and r.shape == rr.shape
    assert_close(q @ r, to_ref(a), **_tol(fdtype))
    assert_close(r.abs(), rr.abs(), **_tol(fdtype))
    if some or shape[-2] <= shape[-1]:
        _both(lambda x: nt.qr(x, some)[1].abs(), lambda x: ref.qr(x, some)[1].abs(), [a], fdtype)


@pytest.mark.parametrize("shape", [(4, 4), (3, 4, 4), (3, 5), (5, 3)])
def test_lu_and_unpack(shape, fdtype):
    a = _mat(shape, fdtype)
    lu, piv = nt.lu(to_nt(a))
    rlu, rpiv = ref.lu(to_ref(a))
    assert piv.dtype == nt.int32
    assert_close(lu, rlu, **_tol(fdtype))
    assert (piv.numpy() == rpiv.numpy()).all()
    p, l, u = nt.lu_unpack(lu, piv)
    rp, rl, ru = ref.lu_unpack(rlu, rpiv)
    for x, y in ((p, rp), (l, rl), (u, ru)):
        assert_close(x, y, **_tol(fdtype))
    assert_close(p @ l @ u, to_ref(a), **_tol(fdtype))
    _both(lambda x: nt.lu(x)[0], lambda x: ref.lu(x)[0], [a], fdtype)
    _both(lambda x: nt.lu_unpack(x, piv)[1] + 2 * nt.lu_unpack(x, piv)[2].sum(),
          lambda x: ref.lu_unpack(x, rpiv)[1] + 2 * ref.lu_unpack(x, rpiv)[2].sum(), [a], fdtype)


def test_lu_infos_singular():
    s = np.zeros((2, 3, 3))
    s[0] = np.eye(3)
    s[1, 0, 0] = 1
    lu, piv, info = nt.lu(nt.tensor(s), get_infos=True)
    rlu, rpiv, rinfo = ref.lu(ref.tensor(s), get_infos=True)
    assert_close(lu, rlu), assert_close(info, rinfo)
    assert (piv.numpy() == rpiv.numpy()).all()


def test_lu_solve(fdtype):
    a, b = _mat((2, 3, 3), fdtype), _mat((2, 3, 2), fdtype, seed=3)
    rlu, rpiv = ref.lu(to_ref(a))
    _both(lambda bb, l: nt.lu_solve(bb, l, to_nt(rpiv)), lambda bb, l: ref.lu_solve(bb, l, rpiv),
          [b, rlu.numpy()], fdtype)
    assert_close(to_nt(b).lu_solve(*nt.lu(to_nt(a))), ref.lu_solve(to_ref(b), rlu, rpiv), **_tol(fdtype))


@pytest.mark.parametrize("upper,transpose,unitri", [(True, False, False), (False, True, False),
                                                   (True, True, True), (False, False, True)])
def test_triangular_solve(upper, transpose, unitri, fdtype):
    a, b = _mat((2, 3, 3), fdtype), _mat((3, 2), fdtype, seed=5)  # b broadcasts over A's batch
    fn = lambda lib: lambda bb, aa: lib.triangular_solve(bb, aa, upper, transpose, unitri)
    _both(fn(nt), fn(ref), [b, a], fdtype, out_idx=0)
    _both(fn(nt), fn(ref), [b, a], fdtype, out_idx=1)
    res = nt.triangular_solve(to_nt(b), to_nt(a))
    assert type(res).__name__ == "triangular_solve" and res._fields == ("solution", "cloned_coefficient")


def test_triangular_solve_singular():
    s = np.diag([1.0, 0.0, 0.0])
    x = nt.triangular_solve(nt.ones(3, 1, dtype=nt.float64), nt.tensor(s)).solution
    rx = ref.triangular_solve(ref.ones(3, 1, dtype=ref.float64), ref.tensor(s)).solution
    np.testing.assert_array_equal(x.numpy(), rx.numpy())


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_inverse(upper, fdtype):
    a = _mat((2, 3, 3), fdtype, spd=True)
    c = np.linalg.cholesky(a.astype(np.float64)).astype(fdtype)
    if upper:
        c = np.swapaxes(c, -1, -2).copy()
    b = _mat((2, 3, 2), fdtype, seed=7)
    _both(lambda bb, cc: nt.cholesky_solve(bb, cc, upper), lambda bb, cc: ref.cholesky_solve(bb, cc, upper),
          [b, c], fdtype)
    _both(lambda cc: nt.cholesky_inverse(cc, upper), lambda cc: ref.cholesky_inverse(cc, upper), [c[0]], fdtype)
    _both(lambda cc: cc.cholesky_inverse(upper), lambda cc: cc.cholesky_inverse(upper), [c], fdtype)


def test_addbmm_chain_matmul(fdtype):
    c, b1, b2 = _mat((2, 4), fdtype), _mat((3, 2, 5), fdtype, 1), _mat((3, 5, 4), fdtype, 2)
    _both(lambda x, y, z: nt.addbmm(x, y, z, beta=0.5, alpha=2), lambda x, y, z: ref.addbmm(x, y, z, beta=0.5, alpha=2),
          [c, b1, b2], fdtype)
    _both(lambda x, y, z: x.addbmm(y, z), lambda x, y, z: x.addbmm(y, z), [c[0], b1, b2], fdtype)
    t = to_nt(c)
    assert t.addbmm_(to_nt(b1), to_nt(b2)) is t
    assert_close(t, to_ref(c).addbmm_(to_ref(b1), to_ref(b2)), **_tol(fdtype))
    m = [_mat(s, fdtype, i) for i, s in enumerate([(2, 3), (3, 4), (4, 2)])]
    _both(nt.chain_matmul, ref.chain_matmul, m, fdtype)
    assert_close(nt.chain_matmul(to_nt(m[0])), to_ref(m[0]))


def test_deprecation_warnings():
    import numtorch._ops.linalg_legacy as lx
    lx._WARNED.discard("chain_matmul")
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        nt.chain_matmul(nt.eye(2), nt.eye(2))


@pytest.mark.parametrize("fn", [
    lambda a: nt.logdet(a), lambda a: nt.matrix_exp(a), lambda a: nt.inverse(a),
    lambda a: nt.lu(a)[0], lambda a: nt.cholesky_inverse(a.tril() + 3 * nt.eye(3, dtype=a.dtype)),
    lambda a: nt.triangular_solve(a[:, :2], a, upper=False)[0],
    lambda a: nt.cholesky_solve(a[:, :2], a.tril() + 3 * nt.eye(3, dtype=a.dtype)),
    lambda a: nt.lu_solve(a[:, :2], *nt.lu(a)),
])
def test_gradcheck(fn):
    a = nt.tensor(_mat((3, 3), np.float64, spd=True), requires_grad=True)
    assert gradcheck(fn, (a,))


def test_errors():
    x = nt.randn(2, 3)
    for fn, msg in [(nt.det, "linalg.det: A must be batches of square matrices, but they are 2 by 3"),
                    (nt.logdet, "logdet: A must be batches of square matrices, but they are 2 by 3"),
                    (nt.inverse, "linalg.inv: A must be batches"), (nt.matrix_exp, "linalg.matrix_exp: A must"),
                    (nt.cholesky_inverse, "cholesky_inverse: A must be batches")]:
        with pytest.raises(RuntimeError, match=msg):
            fn(x)
        with pytest.raises(RuntimeError):
            getattr(ref, fn.__name__)(to_ref(x))
    s = nt.zeros(3, 3, dtype=nt.float64)
    s[0, 0] = 1
    with pytest.raises(nt.linalg.LinAlgError, match="linalg.inv: The diagonal element 2 is zero"):
        nt.inverse(s)
    with pytest.raises(nt.linalg.LinAlgError, match=r"^cholesky: .*leading minor of order 2"):
        nt.cholesky(s)
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        nt.addbmm(x, x, x)
    with pytest.raises(RuntimeError, match="expected 2"):
        nt.chain_matmul(nt.ones(3), nt.ones(3))
    with pytest.raises(RuntimeError, match="Incompatible matrix sizes for triangular_solve"):
        nt.triangular_solve(nt.ones(2, 1), nt.eye(3))
    with pytest.raises(RuntimeError):
        nt.det(nt.ones(3, 3, dtype=nt.int64))


def test_cholesky_at_the_edge_of_definiteness_raises_no_numpy_error():
    # a float32 matrix (a singular Wishart draw) that SciPy's LAPACK factors but NumPy's rejects: numtorch
    # reports it (info > 0, LinAlgError) instead of leaking numpy.linalg.LinAlgError. PyTorch's LAPACK
    # happens to factor it (info 0): at this edge the verdict depends on the LAPACK build's rounding.
    m = np.array([[12.888364791870117, 2.9254343509674072, 2.4161806106567383],
                  [2.9254343509674072, 0.6640248894691467, 0.5482854247093201],
                  [2.4161806106567383, 0.5482854247093201, 0.4623836874961853]], np.float32)
    try:
        np.linalg.cholesky(m)
        numpy_factors = True
    except np.linalg.LinAlgError:
        numpy_factors = False
    res = nt.linalg.cholesky_ex(nt.tensor(np.stack([m, np.eye(3, dtype=np.float32)])))
    assert res.info.dtype == nt.int32 and res.info.tolist()[1] == 0 and (res.info.tolist()[0] > 0) != numpy_factors
    if not numpy_factors:
        with pytest.raises(nt.linalg.LinAlgError):
            nt.linalg.cholesky(nt.tensor(m))
