"""Linear algebra ops against PyTorch: matmul family, fused adds, outer/kron/trace, einsum, tensordot."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt
from numtorch.autograd import gradcheck
from conftest import assert_close, to_nt, to_ref

RNG = np.random.default_rng(0)


def _arr(shape, dtype):
    return np.asarray(RNG.standard_normal(shape)).astype(dtype)


def _tol(dtype):
    # products sum in a different order than PyTorch's kernels
    return dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)


def _diff(fn_nt, fn_ref, arrays, **kw):
    """Run both libraries on the same inputs; compare outputs and the gradients of every input."""
    tol = _tol(arrays[0].dtype)
    xs = [to_nt(a, requires_grad=True) for a in arrays]
    rs = [to_ref(a, requires_grad=True) for a in arrays]
    y, r = fn_nt(*xs, **kw), fn_ref(*rs, **kw)
    assert_close(y, r, **tol)
    go = _arr(tuple(r.shape), arrays[0].dtype)
    y.backward(nt.tensor(go))
    r.backward(ref.tensor(go))
    for x, rr in zip(xs, rs):
        assert_close(x.grad, rr.grad, **tol)
    return y, r


def _same_error(fn):
    """``fn(module)`` must raise the same exception type and message in numtorch and PyTorch."""
    with pytest.raises(Exception) as er:
        fn(ref)
    with pytest.raises(type(er.value)) as en:
        fn(nt)
    assert str(en.value) == str(er.value)


MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)), ((5, 2, 3), (3, 4)),
    ((5, 2, 3), (5, 3, 4)), ((3,), (5, 3, 4)), ((5, 2, 3), (3,)), ((2, 3), (5, 3, 4)), ((1, 2, 3), (5, 3, 4)),
    ((6, 1, 2, 3), (5, 3, 4)), ((5, 2, 3), (6, 1, 3, 4)), ((2, 1, 2, 3), (1, 3, 3, 4)), ((4, 2, 3), (4, 3, 1)),
    ((2, 3, 1), (1, 4)), ((0, 3), (3, 2)), ((2, 0), (0, 2)), ((3, 0, 2), (2, 4)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES, ids=str)
def test_matmul_values_and_grads(sa, sb, fdtype):
    a, b = _arr(sa, fdtype), _arr(sb, fdtype)
    y, r = _diff(nt.matmul, ref.matmul, [a, b])
    assert str(y.dtype) == str(r.dtype)
    y2 = to_nt(a) @ to_nt(b)
    assert_close(y2, r.detach(), **_tol(fdtype))


@pytest.mark.parametrize("sa,sb", [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)), ((5, 2, 3), (3, 4)),
                                   ((5, 2, 3), (5, 3, 4)), ((5, 2, 3), (3,)), ((3,), (5, 3, 4))])
def test_matmul_grad_fn_names(sa, sb):
    y = nt.randn(*sa, requires_grad=True) @ nt.randn(*sb, requires_grad=True)
    r = ref.randn(*sa, requires_grad=True) @ ref.randn(*sb, requires_grad=True)
    assert y.grad_fn.name() == r.grad_fn.name()
    assert nt.bmm(nt.randn(2, 2, 3, requires_grad=True), nt.randn(2, 3, 4)).grad_fn.name() == "BmmBackward0"


def test_matmul_stays_float32_and_contiguous():
    a = nt.randn(4, 5, 6, requires_grad=True)
    b = nt.randn(6, 7, requires_grad=True)
    y = a @ b
    assert y.dtype == nt.float32 and y.is_contiguous()
    y.backward(nt.ones(4, 5, 7))
    assert a.grad.dtype == nt.float32 and b.grad.dtype == nt.float32
    assert a.grad.shape == a.shape and b.grad.shape == b.shape


def test_matmul_noncontiguous_operands(fdtype):
    a, b = _arr((4, 3), fdtype), _arr((5, 4), fdtype)
    # transposed NumPy views as tensors: BLAS reads them as they are
    x = nt.from_numpy(a.T).requires_grad_()
    w = nt.from_numpy(b.T).requires_grad_()
    rx, rw = to_ref(a.T.copy(), True), to_ref(b.T.copy(), True)
    y, r = x @ w, rx @ rw
    assert_close(y, r, **_tol(fdtype))
    y.sum().backward()
    r.sum().backward()
    assert_close(x.grad, rx.grad, **_tol(fdtype))
    assert_close(w.grad, rw.grad, **_tol(fdtype))


def test_matmul_integer():
    a = np.arange(6).reshape(2, 3)
    b = np.arange(12).reshape(3, 4)
    assert_close(nt.tensor(a) @ nt.tensor(b), ref.tensor(a) @ ref.tensor(b))
    assert_close(nt.tensor(a, dtype=nt.int32) @ nt.tensor(b, dtype=nt.int32),
                 ref.tensor(a, dtype=ref.int32) @ ref.tensor(b, dtype=ref.int32))


def test_matmul_reduced_precision_dtypes():
    a, b = _arr((2, 3), np.float32), _arr((3, 4), np.float32)
    for nd, rd in ((nt.bfloat16, ref.bfloat16), (nt.float16, ref.float16)):
        y = nt.tensor(a, dtype=nd) @ nt.tensor(b, dtype=nd)
        r = ref.tensor(a, dtype=rd) @ ref.tensor(b, dtype=rd)
        assert y.dtype == nd
        np.testing.assert_allclose(y.float().numpy(), r.float().numpy(), rtol=2e-2, atol=2e-2)


def test_matmul_operators():
    a, b = _arr((2, 3), np.float32), _arr((3, 3), np.float32)
    x, w = to_nt(a), to_nt(b)
    assert_close(w.__rmatmul__(x), ref.tensor(a) @ ref.tensor(b), **_tol(np.float32))
    x0 = x
    x @= w
    assert x is not x0 and x0.shape == (2, 3)  # PyTorch has no in-place matmul
    assert_close(x, ref.tensor(a) @ ref.tensor(b), **_tol(np.float32))
    assert x0.__matmul__([1, 2, 3]) is NotImplemented
    with pytest.raises(TypeError):
        x0 @ [1.0, 2.0, 3.0]
    out = nt.empty(2, 3)
    res = nt.matmul(x0, w, out=out)
    assert res is out
    assert_close(out, ref.tensor(a) @ ref.tensor(b), **_tol(np.float32))


@pytest.mark.parametrize("sa,sb", [((2, 3), (4, 5)), ((3,), (4,)), ((2, 3), (4,)), ((3,), (4, 5)),
                                   ((5, 2, 3), (4, 5)), ((5, 2, 3), (4,)), ((5, 2, 3), (5, 4, 5)),
                                   ((3,), (5, 4, 5)), ((7, 1, 2, 3), (5, 4, 5)), ((5, 2, 3), (4, 2, 3, 4)),
                                   ((2, 2, 3), (3, 3, 4)), ((3, 5, 2, 3), (4, 5, 3, 5))])
def test_matmul_shape_errors(sa, sb):
    _same_error(lambda m: m.matmul(m.ones(*sa), m.ones(*sb)))


@pytest.mark.parametrize("sa,sb", [((2, 3), (3, 4)), ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)),
                                   ((5, 2, 3), (3, 3)), ((5, 2, 3), (3,)), ((3, 3), (5, 3, 3)), ((2, 2, 3), (2, 3, 2))])
def test_matmul_dtype_errors(sa, sb):
    _same_error(lambda m: m.matmul(m.ones(*sa, dtype=m.float64), m.ones(*sb)))
    _same_error(lambda m: m.matmul(m.ones(*sa, dtype=m.float64), m.ones(*sb, dtype=m.float16)))


def test_matmul_misc_errors():
    _same_error(lambda m: m.matmul(m.tensor(2.0), m.ones(2, 2)))
    _same_error(lambda m: m.matmul(m.ones(2), m.tensor(2.0)))
    _same_error(lambda m: m.matmul(m.ones(2, 3, dtype=m.int64), m.ones(3, 2)))
    _same_error(lambda m: m.matmul(m.ones(2), [1.0, 2.0]))
    _same_error(lambda m: m.matmul(m.ones(2, 3, dtype=m.bool), m.ones(3, 2, dtype=m.bool)))


# ---- mm / bmm / mv / dot ----------------------------------------------------------------------
def test_mm_bmm_mv_dot_values(fdtype):
    _diff(nt.mm, ref.mm, [_arr((2, 3), fdtype), _arr((3, 4), fdtype)])
    _diff(nt.bmm, ref.bmm, [_arr((3, 2, 3), fdtype), _arr((3, 3, 4), fdtype)])
    _diff(nt.mv, ref.mv, [_arr((2, 3), fdtype), _arr((3,), fdtype)])
    _diff(nt.dot, ref.dot, [_arr((5,), fdtype), _arr((5,), fdtype)])
    _diff(nt.vdot, ref.vdot, [_arr((5,), fdtype), _arr((5,), fdtype)])
    _diff(nt.inner, ref.inner, [_arr((2, 3), fdtype), _arr((4, 3), fdtype)])
    _diff(lambda a, b: a.mm(b), lambda a, b: a.mm(b), [_arr((2, 3), fdtype), _arr((3, 1), fdtype)])
    _diff(lambda a, b: a.dot(b), lambda a, b: a.dot(b), [_arr((4,), fdtype), _arr((4,), fdtype)])
    _diff(lambda a, b: a.bmm(b), lambda a, b: a.bmm(b), [_arr((1, 2, 3), fdtype), _arr((1, 3, 2), fdtype)])
    _diff(lambda a, b: a.mv(b), lambda a, b: a.mv(b), [_arr((1, 3), fdtype), _arr((3,), fdtype)])


def test_mm_bmm_mv_dot_errors():
    _same_error(lambda m: m.mm(m.ones(3), m.ones(3, 2)))
    _same_error(lambda m: m.mm(m.ones(2, 3), m.ones(3)))
    _same_error(lambda m: m.mm(m.ones(2, 3), m.ones(4, 5)))
    _same_error(lambda m: m.mm(m.ones(2, 3), m.ones(3, 5, dtype=m.float64)))
    _same_error(lambda m: m.mm(m.ones(2, 3, 3), m.ones(3, 5)))
    _same_error(lambda m: m.bmm(m.ones(2, 3), m.ones(3, 2)))
    _same_error(lambda m: m.bmm(m.ones(2, 2, 3), m.ones(2, 3)))
    _same_error(lambda m: m.bmm(m.ones(2, 2, 3), m.ones(2, 4, 2)))
    _same_error(lambda m: m.bmm(m.ones(2, 2, 3), m.ones(3, 3, 2)))
    _same_error(lambda m: m.bmm(m.ones(2, 2, 3), m.ones(2, 3, 2, dtype=m.float64)))
    _same_error(lambda m: m.mv(m.ones(2, 3), m.ones(4)))
    _same_error(lambda m: m.mv(m.ones(2, 3), m.ones(3, 1)))
    _same_error(lambda m: m.mv(m.ones(3), m.ones(3)))
    _same_error(lambda m: m.mv(m.ones(2, 3), m.ones(3, dtype=m.float64)))
    _same_error(lambda m: m.dot(m.ones(3), m.ones(4)))
    _same_error(lambda m: m.dot(m.ones(3, 1), m.ones(3)))
    _same_error(lambda m: m.dot(m.ones(3), m.ones(3, dtype=m.float64)))
    _same_error(lambda m: m.vdot(m.ones(3), m.ones(4)))
    _same_error(lambda m: m.inner(m.ones(2, 3), m.ones(4, 2)))


# ---- addmm / baddbmm / addmv ------------------------------------------------------------------
@pytest.mark.parametrize("sc", [(4,), (2, 4), (1, 4), (2, 1), ()])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0), (0, 1), (2, -0.5)])
def test_addmm(sc, beta, alpha, fdtype):
    _diff(nt.addmm, ref.addmm, [_arr(sc, fdtype), _arr((2, 3), fdtype), _arr((3, 4), fdtype)],
          beta=beta, alpha=alpha)


@pytest.mark.parametrize("sc", [(4,), (2, 3, 4), (1, 3, 1), ()])
def test_baddbmm(sc, fdtype):
    arrs = [_arr(sc, fdtype), _arr((2, 3, 5), fdtype), _arr((2, 5, 4), fdtype)]
    _diff(nt.baddbmm, ref.baddbmm, arrs)
    _diff(nt.baddbmm, ref.baddbmm, arrs, beta=0.25, alpha=3.0)


@pytest.mark.parametrize("sc", [(2,), (1,), ()])
def test_addmv(sc, fdtype):
    arrs = [_arr(sc, fdtype), _arr((2, 3), fdtype), _arr((3,), fdtype)]
    _diff(nt.addmv, ref.addmv, arrs)
    _diff(nt.addmv, ref.addmv, arrs, beta=-1.0, alpha=0.5)


def test_addmm_beta_zero_ignores_nan_and_grad_fn():
    c = nt.full((2, 4), float("nan"), requires_grad=True)
    y = nt.addmm(c, nt.ones(2, 3), nt.ones(3, 4), beta=0)
    assert np.array_equal(y.detach().numpy(), np.full((2, 4), 3.0, np.float32))
    assert y.grad_fn.name() == "AddmmBackward0"
    y.sum().backward()
    assert np.array_equal(c.grad.numpy(), np.zeros((2, 4), np.float32))
    assert nt.baddbmm(nt.ones(4, requires_grad=True), nt.ones(2, 2, 3), nt.ones(2, 3, 4)).grad_fn.name() == \
        "BaddbmmBackward0"
    assert nt.addmv(nt.ones(2, requires_grad=True), nt.ones(2, 3), nt.ones(3)).grad_fn.name() == "AddmvBackward0"


def test_addmm_inplace():
    a, m1, m2 = _arr((2, 4), np.float32), _arr((2, 3), np.float32), _arr((3, 4), np.float32)
    x = to_nt(a)
    v = x._version
    assert x.addmm_(to_nt(m1), to_nt(m2), alpha=2.0) is x
    assert x._version > v
    assert_close(x, ref.tensor(a).addmm_(ref.tensor(m1), ref.tensor(m2), alpha=2.0), **_tol(np.float32))
    with pytest.raises(RuntimeError, match="leaf Variable"):
        nt.zeros(2, 4, requires_grad=True).addmm_(to_nt(m1), to_nt(m2))


def test_addmm_errors():
    _same_error(lambda m: m.addmm(m.ones(4, dtype=m.float64), m.ones(2, 3), m.ones(3, 4)))
    _same_error(lambda m: m.addmm(m.ones(4), m.ones(2, 3), m.ones(3)))
    _same_error(lambda m: m.addmm(m.ones(4), m.ones(3), m.ones(3, 4)))
    _same_error(lambda m: m.addmm(m.ones(4), m.ones(2, 3), m.ones(2, 4)))
    _same_error(lambda m: m.addmm(m.ones(3, 4), m.ones(2, 3), m.ones(3, 4)))
    _same_error(lambda m: m.baddbmm(m.ones(3, 4), m.ones(2, 2, 3), m.ones(2, 3, 4)))
    _same_error(lambda m: m.baddbmm(m.ones(4), m.ones(2, 2, 3), m.ones(3, 3, 4)))
    _same_error(lambda m: m.addmv(m.ones(3), m.ones(2, 3), m.ones(3)))


# ---- outer / kron / trace ---------------------------------------------------------------------
def test_outer_kron_trace(fdtype):
    _diff(nt.outer, ref.outer, [_arr((3,), fdtype), _arr((4,), fdtype)])
    _diff(nt.ger, ref.ger, [_arr((1,), fdtype), _arr((4,), fdtype)])
    for sa, sb in [((2, 3), (3, 2)), ((2, 3), (3,)), ((2,), (3, 4, 2)), ((2, 1, 2), (1, 3, 2))]:
        _diff(nt.kron, ref.kron, [_arr(sa, fdtype), _arr(sb, fdtype)])
    for s in [(3, 3), (3, 5), (5, 2)]:
        _diff(nt.trace, ref.trace, [_arr(s, fdtype)])


def test_outer_kron_trace_dtypes_and_errors():
    i, f = np.arange(3), np.ones(4, np.float32)
    for fn in ("outer", "kron"):
        for x, y in ((i, f), (f, i), (i, i), (f, f.astype(np.float64))):
            r = getattr(ref, fn)(ref.tensor(x), ref.tensor(y))
            assert_close(getattr(nt, fn)(nt.tensor(x), nt.tensor(y)), r)
    for d in (nt.int32, nt.int64, nt.float64):
        x = nt.arange(9).reshape(3, 3) if hasattr(nt.Tensor, "reshape") else nt.tensor(np.arange(9).reshape(3, 3))
        x = x.to(d)
        r = ref.trace(ref.tensor(np.arange(9).reshape(3, 3)).to(getattr(ref, d.name)))
        assert_close(nt.trace(x), r)
    assert nt.outer(nt.ones(2, requires_grad=True), nt.ones(3)).grad_fn.name() == "MulBackward0"
    assert nt.trace(nt.ones(2, 2, requires_grad=True)).grad_fn.name() == "TraceBackward0"
    _same_error(lambda m: m.outer(m.ones(3, 1), m.ones(4)))
    _same_error(lambda m: m.outer(m.ones(3), m.ones(4, 1)))
    _same_error(lambda m: m.trace(m.ones(3)))
    _same_error(lambda m: m.trace(m.ones(3, 3, dtype=m.bool)))


# ---- einsum / tensordot -----------------------------------------------------------------------
EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("i,i->", [(5,), (5,)]),
    ("i,i", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij->ij", [(2, 2, 3)]),
    ("iji->j", [(2, 3, 2)]),
    ("ij->ji", [(2, 3)]),
    ("ji", [(2, 3)]),
    ("ba,ac", [(2, 3), (3, 4)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("ij,kl->", [(2, 3), (4, 5)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,j->i", [(2, 1), (3,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("i,i,i->", [(4,), (4,), (4,)]),
    ("...ij,...jk->...ik", [(5, 1, 2, 3), (4, 3, 2)]),
    ("...ij,...jk", [(2, 3), (4, 3, 2)]),
    ("i...->...", [(2, 3, 4)]),
    ("b...d,bd->b...", [(2, 3, 4), (2, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("i j , j k -> i k", [(2, 3), (3, 2)]),
    ("Ab,bC->AC", [(2, 3), (3, 4)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum(eq, shapes, fdtype):
    arrays = [_arr(s, fdtype) for s in shapes]
    y, r = _diff(lambda *xs: nt.einsum(eq, *xs), lambda *xs: ref.einsum(eq, *xs), arrays)
    assert str(y.dtype) == str(r.dtype)


def test_einsum_list_operands_view_safety_and_gradcheck():
    a, b = _arr((2, 3), np.float64), _arr((3, 4), np.float64)
    assert_close(nt.einsum("ij,jk->ik", [to_nt(a), to_nt(b)]), ref.einsum("ij,jk->ik", [to_ref(a), to_ref(b)]))
    x = to_nt(a)
    t = nt.einsum("ij->ji", x)
    x.add_(1.0)  # the result must not alias its input
    np.testing.assert_array_equal(t.numpy(), a.T)
    for eq, shapes in [("ij,jk->ik", [(2, 3), (3, 2)]), ("ii->i", [(3, 3)]), ("i,j->", [(2,), (3,)]),
                       ("...ij,...jk", [(2, 1, 2, 2), (3, 2, 2)])]:
        xs = [to_nt(_arr(s, np.float64), True) for s in shapes]
        assert gradcheck(lambda *t: nt.einsum(eq, *t), xs)


def test_einsum_integer():
    a, b = np.arange(6).reshape(2, 3), np.arange(3)
    assert_close(nt.einsum("ij,j->i", nt.tensor(a), nt.tensor(b)), ref.einsum("ij,j->i", ref.tensor(a), ref.tensor(b)))


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk", [(2, 3), (4, 4)]), ("ij->", [(2, 3, 4)]), ("ii->i", [(2, 3)]), ("i,i->ii", [(2,), (2,)]),
    ("i,i->k", [(2,), (2,)]), ("i,i", [(2,)]), ("i", [(2,), (2,)]), ("i1", [(2,)]), ("ijk...", [(2, 3)]),
])
def test_einsum_errors(eq, shapes):
    _same_error(lambda m: m.einsum(eq, *[m.ones(*s) for s in shapes]))


def test_einsum_dtype_error():
    _same_error(lambda m: m.einsum("ij,jk", m.ones(2, 3), m.ones(3, 4, dtype=m.float64)))


@pytest.mark.parametrize("sa,sb,dims", [((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 4), 1), ((2, 3), (4,), 0),
                                        ((2, 3, 4), (3, 4, 5), ([1, 2], [0, 1])), ((2, 3, 4), (4, 3, 5), ([2, 1], [0, 1])),
                                        ((3, 2, 4), (4, 5, 3), ([0, 2], [2, 0])), ((2, 3), (5, 3), ([-1], [-1]))])
def test_tensordot(sa, sb, dims, fdtype):
    _diff(lambda a, b: nt.tensordot(a, b, dims=dims), lambda a, b: ref.tensordot(a, b, dims=dims),
          [_arr(sa, fdtype), _arr(sb, fdtype)])


def test_tensordot_errors():
    _same_error(lambda m: m.tensordot(m.ones(2, 3, 4), m.ones(3, 4, 5), dims=([1], [1])))
    _same_error(lambda m: m.tensordot(m.ones(2, 3), m.ones(3, 4, dtype=m.float64), dims=1))


# ---- gradcheck and version checks -------------------------------------------------------------
@pytest.mark.parametrize("fn,shapes", [
    (nt.matmul, [(2, 3), (3, 2)]), (nt.matmul, [(3,), (3,)]), (nt.matmul, [(2, 2, 3), (3,)]),
    (nt.matmul, [(3,), (2, 3, 2)]), (nt.matmul, [(2, 1, 2, 3), (2, 3, 2)]), (nt.matmul, [(2, 2, 3), (3, 2)]),
    (nt.matmul, [(2, 3), (2, 3, 2)]), (nt.bmm, [(2, 2, 3), (2, 3, 2)]), (nt.mv, [(2, 3), (3,)]),
    (nt.dot, [(3,), (3,)]), (nt.outer, [(2,), (3,)]), (nt.kron, [(2, 2), (1, 3)]), (nt.trace, [(3, 4)]),
    (lambda c, a, b: nt.addmm(c, a, b, beta=0.5, alpha=2), [(2,), (2, 3), (3, 2)]),
    (lambda c, a, b: nt.baddbmm(c, a, b, beta=2, alpha=0.5), [(1, 2, 2), (2, 2, 3), (2, 3, 2)]),
    (nt.addmv, [(2,), (2, 3), (3,)]), (lambda a, b: nt.tensordot(a, b, dims=([0, 2], [2, 0])), [(2, 2, 3), (3, 2, 2)]),
])
def test_gradcheck(fn, shapes):
    xs = [to_nt(_arr(s, np.float64), True) for s in shapes]
    assert gradcheck(fn, xs)


def test_saved_operand_modified_inplace_raises():
    a = nt.randn(2, 3, requires_grad=True)
    w = nt.randn(3, 4)
    y = a @ w
    w.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_only_needed_grads_and_no_grad():
    a = nt.randn(2, 3, requires_grad=True)
    w = nt.randn(3, 4)
    (a @ w).sum().backward()
    assert w.grad is None and a.grad.shape == (2, 3)
    with nt.no_grad():
        y = a @ w
    assert not y.requires_grad and y.grad_fn is None
