"""torch.linalg's LU, triangular and LDL solvers, eig/eigvals, cond, tensorinv, tensorsolve and vander against
torch: values, dtypes, first-order gradients (float64) and error types/messages."""
import math

import numpy as np
import pytest
import torch as ref

import numtorch as nt


def _rng(seed=0):
    return np.random.default_rng(seed)


def _mat(shape, seed=0, dtype=np.float64, spd=False, complex_=False):
    a = _rng(seed).standard_normal(shape)
    if complex_:
        a = a + 1j * _rng(seed + 1).standard_normal(shape)
    if spd:
        a = a + np.swapaxes(a, -1, -2).conj() + 2 * shape[-1] * np.eye(shape[-1])
    return a.astype(dtype if not complex_ else np.complex128)


def _both(fn, *arrays, grad=True):
    """fn(T, *tensors) in numtorch and torch; returns outputs and input gradients of sum(out * weights)."""
    res = []
    for T in (nt, ref):
        ts = [T.tensor(a, requires_grad=grad and a.dtype.kind in "fc") for a in arrays]
        out = fn(T, *ts)
        outs = out if isinstance(out, tuple) else (out,)
        vals = [o.detach().numpy() if hasattr(o, "detach") else o for o in outs]
        grads = None
        if grad:
            loss = 0
            for k, o in enumerate(outs):
                if o.dtype.is_floating_point or o.dtype.is_complex:
                    w = T.tensor(np.cos(np.arange(o.numel()) + k).reshape(tuple(o.shape)))
                    loss = loss + ((o.real if o.is_complex() else o) * w).sum()
                    if o.is_complex():
                        loss = loss + (o.imag * w.flip(-1) if o.ndim else o.imag * w).sum()
            if loss.requires_grad:
                loss.backward()
            grads = [t.grad.numpy() if t.grad is not None else None for t in ts]
        res.append((vals, grads))
    return res


def _close(a, b, tol):
    for x, y in zip(a, b):
        if x is None or y is None:
            assert x is None and y is None
            continue
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), **tol)


CASES = {
    "lu_factor": (lambda T, a: T.linalg.lu_factor(a), [(4, 4)]),
    "lu_factor_batched": (lambda T, a: T.linalg.lu_factor(a)[0], [(2, 3, 3)]),
    "lu": (lambda T, a: T.linalg.lu(a), [(3, 3)]),
    "lu_solve": (lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b), [(3, 3), (3, 2)]),
    "lu_solve_adjoint": (lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b, adjoint=True), [(3, 3), (3, 2)]),
    "lu_solve_right": (lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b, left=False), [(3, 3), (2, 3)]),
    "lu_solve_right_adj": (lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b, left=False, adjoint=True),
                           [(2, 3, 3), (2, 3)]),
    "solve_triangular_up": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=True), [(3, 3), (3, 4)]),
    "solve_triangular_low_right": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=False, left=False),
                                   [(3, 3), (2, 3)]),
    "solve_triangular_unit": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=False, unitriangular=True),
                              [(2, 3, 3), (3, 1)]),
    "solve_ex": (lambda T, a, b: T.linalg.solve_ex(a, b), [(3, 3), (3, 2)]),
    "eigvals": (lambda T, a: T.linalg.eigvals(a), [(4, 4)]),
    "cond": (lambda T, a: T.linalg.cond(a), [(3, 4)]),
    # torch 2.13 cannot differentiate cond for these orders (its inv_ex output is modified in place):
    # values are compared here, numtorch's gradients by gradcheck below
    "cond_fro": (lambda T, a: T.linalg.cond(a.detach(), "fro"), [(3, 3)]),
    "cond_1": (lambda T, a: T.linalg.cond(a.detach(), 1), [(2, 3, 3)]),
    "cond_-2": (lambda T, a: T.linalg.cond(a, -2), [(3, 3)]),
    "tensorinv": (lambda T, a: T.linalg.tensorinv(a, ind=2), [(2, 3, 6)]),
    "tensorsolve": (lambda T, a, b: T.linalg.tensorsolve(a, b), [(2, 3, 6), (2, 3)]),
    "tensorsolve_dims": (lambda T, a, b: T.linalg.tensorsolve(a, b, dims=(0,)), [(6, 2, 3), (2, 3)]),
    "vander": (lambda T, a: T.linalg.vander(a), [(4,)]),
    "vander_N": (lambda T, a: T.linalg.vander(a, N=3), [(2, 5)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    fn, shapes = CASES[name]
    arrays = [_mat(s, i) + (3 * np.eye(s[-1]) if len(s) > 1 and s[-1] == s[-2] else 0) for i, s in enumerate(shapes)]
    (va, ga), (vb, gb) = _both(fn, *arrays)
    _close(va, vb, dict(rtol=1e-9, atol=1e-10))
    _close(ga, gb, dict(rtol=1e-7, atol=1e-9))


def test_eig_values_vectors_and_gradients_match_torch():
    a = _mat((2, 4, 4), 3)
    (va, ga), (vb, gb) = _both(lambda T, x: T.linalg.eigvals(x), a)
    _close(va, vb, dict(rtol=1e-10, atol=1e-12))
    _close(ga, gb, dict(rtol=1e-7, atol=1e-9))
    na, ra = nt.linalg.eig(nt.tensor(a)), ref.linalg.eig(ref.tensor(a))
    # eigenvectors are unit columns defined up to a phase, which LAPACK builds (NumPy's, PyTorch's MKL) may
    # choose differently: compare with each column turned so that its largest entry is real positive
    def fix(v):
        k = np.argmax(np.abs(v), axis=-2)[..., None, :]
        ph = np.take_along_axis(v, k, axis=-2)
        return v * (np.abs(ph) / ph)
    np.testing.assert_allclose(fix(na.eigenvectors.numpy()), fix(ra.eigenvectors.numpy()), rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(np.linalg.norm(na.eigenvectors.numpy(), axis=-2), 1.0, rtol=1e-12)
    assert na.eigenvalues.dtype == nt.complex128 and nt.linalg.eig(nt.randn(2, 2)).eigenvalues.dtype == nt.complex64
    # a phase-invariant loss of the eigenvectors: |V|^2
    grads = []
    for T in (nt, ref):
        x = T.tensor(a, requires_grad=True)
        L, V = T.linalg.eig(x)
        ((V.abs() ** 2) * T.tensor(np.arange(16.0).reshape(4, 4))).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-8)


def test_ldl_factor_and_solve_match_torch():
    for herm, cplx in ((False, False), (True, True), (False, True)):
        a = _mat((2, 4, 4), 5, complex_=cplx)
        a = a + (np.swapaxes(a, -1, -2).conj() if herm else np.swapaxes(a, -1, -2))
        b = _mat((2, 4, 2), 6, complex_=cplx)
        n_ld, n_p = nt.linalg.ldl_factor(nt.tensor(a), hermitian=herm)
        r_ld, r_p = ref.linalg.ldl_factor(ref.tensor(a), hermitian=herm)
        np.testing.assert_allclose(n_ld.numpy(), r_ld.numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_array_equal(n_p.numpy(), r_p.numpy())
        x = nt.linalg.ldl_solve(n_ld, n_p, nt.tensor(b), hermitian=herm)
        np.testing.assert_allclose(x.numpy(), ref.linalg.ldl_solve(r_ld, r_p, ref.tensor(b), hermitian=herm).numpy(),
                                   rtol=1e-9, atol=1e-11)
    ld, piv, info = nt.linalg.ldl_factor_ex(nt.zeros(2, 2))
    assert int(info) > 0


def test_gradcheck_float64():
    a = nt.tensor(_mat((3, 3), 1) + 3 * np.eye(3), requires_grad=True)
    b = nt.tensor(_mat((3, 2), 2), requires_grad=True)
    assert nt.autograd.gradcheck(lambda x, y: nt.linalg.lu_solve(*nt.linalg.lu_factor(x), y, adjoint=True), (a, b))
    assert nt.autograd.gradcheck(lambda x, y: nt.linalg.solve_triangular(x, y, upper=True), (a, b))
    assert nt.autograd.gradcheck(lambda x: nt.linalg.eigvals(x).real, (a,))
    assert nt.autograd.gradcheck(lambda x: nt.linalg.cond(x, "nuc"), (a,))
    assert nt.autograd.gradcheck(lambda x: nt.linalg.cond(x, 1), (a,))
    assert nt.autograd.gradgradcheck(lambda x, y: nt.linalg.solve_triangular(x, y, upper=False, left=True), (a, b))


def test_singular_and_info_match_torch():
    s = np.stack([np.eye(2), np.zeros((2, 2))])
    for fn in (lambda T: T.linalg.lu_factor(T.tensor(s)), lambda T: T.linalg.lu_factor(T.zeros(2, 2)),
               lambda T: T.linalg.lu_factor_ex(T.zeros(2, 2), check_errors=True)):
        msgs = []
        for T in (nt, ref):
            with pytest.raises(RuntimeError) as e:
                fn(T)
            msgs.append(str(e.value))
        assert msgs[0] == msgs[1]
    for T in (nt, ref):
        assert T.linalg.lu_factor_ex(T.tensor(s)).info.tolist() == [0, 1]
        assert T.linalg.solve_ex(T.tensor(s), T.ones(2, 2, 1, dtype=T.float64)).info.tolist() == [0, 1]
        assert math.isinf(float(T.linalg.cond(T.zeros(2, 2), 1)))


@pytest.mark.parametrize("call", [
    lambda T: T.linalg.lu_factor(T.eye(2), pivot=False),
    lambda T: T.linalg.eig(T.tensor([[float("nan"), 0.0], [0.0, 1.0]])),
    lambda T: T.linalg.eig(T.ones(2, 3)),
    lambda T: T.linalg.vander(T.ones(3), N=1),
    lambda T: T.linalg.tensorinv(T.ones(2, 3), ind=1),
    lambda T: T.linalg.tensorinv(T.ones(2, 2), ind=0),
    lambda T: T.linalg.tensorsolve(T.ones(2, 3), T.ones(2)),
    lambda T: T.linalg.solve_triangular(T.ones(2, 2), T.ones(3, 2), upper=True),
    lambda T: T.linalg.solve_triangular(T.ones(2, 2), T.ones(2, 3), upper=True, left=False),
    lambda T: T.linalg.solve_triangular(T.ones(2), T.ones(2, 3), upper=True),
    lambda T: T.linalg.cond(T.ones(2, 3), 1),
    lambda T: T.linalg.cond(T.eye(2), 3),
    lambda T: T.linalg.lu_solve(*T.linalg.lu_factor(T.eye(3)), T.ones(2, 2)),
])
def test_errors_match_torch(call):
    msgs = []
    for T in (nt, ref):
        with pytest.raises(RuntimeError) as e:
            call(T)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (3, 0), (0, 3), (2, 3, 0), (0, 3, 3)])
def test_lu_of_empty_matrices_matches_torch(shape):
    for name in ("lu", "lu_factor", "lu_factor_ex"):
        outs = [getattr(T.linalg, name)(T.zeros(shape, dtype=T.float64)) for T in (nt, ref)]
        assert [tuple(o.shape) for o in outs[0]] == [tuple(o.shape) for o in outs[1]]
        for a, b in zip(*outs):
            np.testing.assert_array_equal(a.numpy(), b.numpy())


# ------------------------------------------------------------------ LU of wide, tall and batched matrices
_LU_FNS = {
    "lu_factor": lambda T, a: T.linalg.lu_factor(a).LU,
    "lu": lambda T, a: T.linalg.lu(a)[1:],
    "torch.lu": lambda T, a: T.lu(a)[0],
}


def _lu_grads(T, fn, a, v, create_graph):
    x = T.tensor(a, requires_grad=True)
    outs = fn(T, x)
    outs = outs if isinstance(outs, tuple) else (outs,)
    loss = sum(((o * T.tensor(np.cos(np.arange(o.numel()) + k).reshape(tuple(o.shape)))).sum()
                for k, o in enumerate(outs)))
    (g,) = T.autograd.grad(loss, x, create_graph=create_graph)
    if not create_graph:
        return [o.detach().numpy() for o in outs], g.numpy()
    (gg,) = T.autograd.grad((g * T.tensor(v)).sum(), x)  # double backward
    return gg.numpy()


@pytest.mark.quick
@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (2, 3, 5), (2, 5, 3), (4, 4), (2, 1, 4), (4, 1)])
@pytest.mark.parametrize("name", list(_LU_FNS))
def test_lu_nonsquare_values_gradients_double_backward_match_torch(name, shape):
    fn = _LU_FNS[name]
    a, v = _mat(shape, 7), _mat(shape, 8)
    (nv, ng), (rv, rg) = (_lu_grads(T, fn, a, v, False) for T in (nt, ref))
    _close(nv, rv, dict(rtol=1e-10, atol=1e-12))
    np.testing.assert_allclose(ng, rg, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(_lu_grads(nt, fn, a, v, True), _lu_grads(ref, fn, a, v, True), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (2, 2, 4), (2, 4, 2)])
def test_lu_nonsquare_gradcheck_gradgradcheck_and_jvp(shape):
    a = nt.tensor(_mat(shape, 9), requires_grad=True)
    assert nt.autograd.gradcheck(lambda x: nt.linalg.lu_factor(x).LU, (a,))
    assert nt.autograd.gradgradcheck(lambda x: nt.linalg.lu(x)[1:], (a,))
    ac = _mat(shape, 9, complex_=True)  # complex: the gradient of a real loss (PyTorch's conjugate convention)
    cg = []
    for T in (nt, ref):
        x = T.tensor(ac, requires_grad=True)
        lu = T.linalg.lu_factor(x).LU
        (lu.real * lu.imag.cos() + lu.abs()).sum().backward()
        cg += [lu.detach().numpy(), x.grad.numpy()]  # LAPACK's complex pivots: largest |Re| + |Im|
    np.testing.assert_allclose(cg[0], cg[2], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cg[1], cg[3], rtol=1e-9, atol=1e-11)
    t = _mat(shape, 10)
    tangents = []
    for T in (nt, ref):
        fw = T.autograd.forward_ad
        with fw.dual_level():
            out = T.linalg.lu(fw.make_dual(T.tensor(a.detach().numpy()), T.tensor(t)))
            tangents.append([fw.unpack_dual(o).tangent.numpy() for o in out[1:]])
    _close(tangents[0], tangents[1], dict(rtol=1e-9, atol=1e-11))


@pytest.mark.parametrize("complex_", [False, True])
def test_eig_double_backward_matches_torch(complex_):
    a, v = _mat((2, 4, 4), 11, complex_=complex_), _mat((2, 4, 4), 12, complex_=complex_)
    res = []
    for T in (nt, ref):
        x = T.tensor(a, requires_grad=True)
        L, V = T.linalg.eig(x)
        top = V.gather(-2, V.abs().argmax(dim=-2, keepdim=True))  # a phase-invariant function of V
        Vn = V * (top.abs() / top)
        w = T.tensor(np.cos(np.arange(32.0)).reshape(2, 4, 4))
        loss = (L.real * w[..., 0]).sum() + (L.imag * w[..., 1]).sum() + (Vn.real * w).sum() + (Vn.imag * w.mT).sum()
        (g,) = T.autograd.grad(loss, x, create_graph=True)
        (gg,) = T.autograd.grad((g * T.tensor(v)).real.sum(), x)
        res.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-7, atol=1e-9)
    if not complex_:
        x = nt.tensor(a[0], requires_grad=True)
        assert nt.autograd.gradgradcheck(lambda y: (lambda L, V: (L.real, L.imag, V.abs()))(*nt.linalg.eig(y)), (x,))


def test_eig_phase_dependent_loss_raises_as_torch():
    for T in (nt, ref):
        x = T.tensor(_mat((3, 3), 13), requires_grad=True)
        with pytest.raises(RuntimeError, match="specified up to multiplication by e"):
            T.linalg.eig(x)[1].real.sum().backward()


@pytest.mark.parametrize("ld_shape,b_shape", [((0, 0), (0, 5)), ((2, 0, 0), (2, 0, 3)), ((3, 3), (3, 0)),
                                              ((0, 3, 3), (3, 2))])
def test_ldl_solve_of_empty_matches_torch(ld_shape, b_shape):
    a = _mat(ld_shape, 14) + (3 * np.eye(ld_shape[-1]) if ld_shape[-1] else 0)
    outs = []
    for T in (nt, ref):
        ld, piv = T.linalg.ldl_factor(T.tensor(a + np.swapaxes(a, -1, -2)))
        outs.append(T.linalg.ldl_solve(ld, piv, T.tensor(_mat(b_shape, 15))).numpy())
    assert outs[0].shape == outs[1].shape
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-10, atol=1e-12)
