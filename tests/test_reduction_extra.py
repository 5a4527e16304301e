"""Differential tests (vs PyTorch) for numtorch._ops.reduction_extra."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt
from numtorch.autograd import gradcheck
from conftest import assert_close, to_nt, to_ref

rng = np.random.default_rng(0)


def _pair(shape, dt, rg=True):
    a = rng.standard_normal(shape).astype(dt)
    return to_nt(a, rg), to_ref(a, rg)


def _check(fn_nt, fn_ref, shapes, dt, grad=True, tol=None):
    ins = [_pair(s, dt, grad) for s in shapes]
    o, r = fn_nt(*[i[0] for i in ins]), fn_ref(*[i[1] for i in ins])
    assert_close(o, r, **(tol or {}))
    if grad:
        w = rng.standard_normal(tuple(r.shape)).astype(dt)
        (o * to_nt(w)).sum().backward()
        (r * to_ref(w)).sum().backward()
        for (a, b) in ins:
            assert_close(a.grad, b.grad, **(tol or {}))
    return o, r


@pytest.mark.parametrize("p", [0, 1, 2, 3, 0.5, float("inf")])
@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                                  "donot_use_mm_for_euclid_dist"])
def test_cdist(fdtype, p, mode):
    tol = dict(rtol=1e-4, atol=1e-4) if fdtype == np.float32 or mode == "use_mm_for_euclid_dist" else None
    o, r = _check(lambda a, b: nt.cdist(a, b, p, compute_mode=mode), lambda a, b: ref.cdist(a, b, p, compute_mode=mode),
                  [(2, 4, 3), (5, 3)], fdtype, tol=tol)
    if mode.startswith("donot") or p != 2:
        assert type(o.grad_fn).__name__ == type(r.grad_fn).__name__ == "CdistBackward0"
    _check(lambda a, b: nt.cdist(a, b, p), lambda a, b: ref.cdist(a, b, p), [(30, 3), (4, 3)], fdtype,
           tol=dict(rtol=1e-4, atol=1e-4))


def test_cdist_errors_gradcheck():
    a, b = _pair((3, 2), np.float64)
    a, b = a, to_nt(b)
    assert gradcheck(lambda x, y: nt.cdist(x, y, 3.0), (a, b[:2]))
    with pytest.raises(RuntimeError, match="same number of columns"):
        nt.cdist(a, nt.zeros(2, 3, dtype=nt.float64))
    with pytest.raises(RuntimeError, match="at least 2D"):
        nt.cdist(nt.zeros(3), a)
    with pytest.raises(RuntimeError, match="floating-point"):
        nt.cdist(nt.zeros(3, 2, dtype=nt.int64), a)


@pytest.mark.parametrize("n,dim", [(1, -1), (2, 0), (3, 1)])
def test_diff(fdtype, n, dim):
    o, r = _check(lambda a: nt.diff(a, n, dim), lambda a: ref.diff(a, n, dim), [(4, 5)], fdtype)
    assert type(o.grad_fn).__name__ == type(r.grad_fn).__name__
    _check(lambda a, p, q: nt.diff(a, n, 1, p, q), lambda a, p, q: ref.diff(a, n, 1, p, q),
           [(3, 4), (3, 2), (3, 1)], fdtype)
    b = np.array([True, False, False, True])
    assert_close(nt.diff(to_nt(b)), ref.diff(to_ref(b)))
    with pytest.raises(RuntimeError):
        nt.diff(nt.tensor(1.0))


@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
def test_quantile(fdtype, interp, fn):
    q = [0.0, 0.25, 0.5, 0.7, 1.0]
    for dim, keep in [(None, False), (None, True), (1, False), (0, True)]:
        _check(lambda a: getattr(nt, fn)(a, 0.3, dim, keep, interpolation=interp),
               lambda a: getattr(ref, fn)(a, 0.3, dim, keep, interpolation=interp), [(4, 5)], fdtype)
        _check(lambda a: getattr(nt, fn)(a, nt.tensor(q, dtype=a.dtype), dim, keep, interpolation=interp),
               lambda a: getattr(ref, fn)(a, ref.tensor(q, dtype=a.dtype), dim, keep, interpolation=interp),
               [(4, 5)], fdtype)
    x = rng.standard_normal((3, 6)).astype(fdtype)
    x[0, 2] = np.nan
    x[2, :] = np.nan
    assert_close(getattr(nt, fn)(to_nt(x), to_nt(np.array(q, fdtype)), 1, interpolation=interp),
                 getattr(ref, fn)(to_ref(x), to_ref(np.array(q, fdtype)), 1, interpolation=interp))


def test_quantile_errors_gradcheck():
    a, _ = _pair((3, 4), np.float64)
    assert gradcheck(lambda x: nt.quantile(x, nt.tensor([0.2, 0.9], dtype=nt.float64), 1), (a,))
    with pytest.raises(RuntimeError, match="range"):
        nt.quantile(a, 1.5)
    with pytest.raises(RuntimeError, match="float or double"):
        nt.quantile(nt.tensor([1, 2]), 0.5)
    with pytest.raises(ValueError):
        nt.quantile(a, 0.5, interpolation="bad")


@pytest.mark.parametrize("fn", ["cummax", "cummin"])
def test_cummax(fdtype, fn):
    for dim in (0, 1, -1):
        o, r = _check(lambda a: getattr(nt, fn)(a, dim).values, lambda a: getattr(ref, fn)(a, dim).values,
                      [(4, 5)], fdtype)
        assert type(o.grad_fn).__name__ == type(r.grad_fn).__name__
    x = np.array([[1, 3, 3, 2, np.nan, 5, np.nan], [2, 2, 1, 1, 2, 0, 2]], fdtype)
    a, b = to_nt(x, True), to_ref(x, True)
    o, r = getattr(nt, fn)(a, 1), getattr(ref, fn)(b, 1)
    assert type(o).__name__ == type(r).__name__ and repr(o).startswith(f"torch.return_types.{fn}(")
    assert_close(o.values, r.values)
    assert_close(o.indices, r.indices)
    o.values.sum().backward(), r.values.sum().backward()
    assert_close(a.grad, b.grad)
    assert_close(getattr(nt, fn)(nt.tensor([3, 1, 4]), 0).values, getattr(ref, fn)(ref.tensor([3, 1, 4]), 0).values)
    assert gradcheck(lambda t: getattr(nt, fn)(t, 1).values, (_pair((3, 4), np.float64)[0],))


def test_logcumsumexp(fdtype):
    for dim in (0, 1):
        o, r = _check(lambda a: nt.logcumsumexp(a * 30, dim), lambda a: ref.logcumsumexp(a * 30, dim),
                      [(4, 5)], fdtype, tol=dict(rtol=1e-4, atol=1e-5))
    assert type(o.grad_fn).__name__ == type(r.grad_fn).__name__
    assert gradcheck(lambda t: nt.logcumsumexp(t, 1), (_pair((3, 4), np.float64)[0],))


def test_cross(fdtype):
    _check(lambda a, b: nt.cross(a, b, dim=0), lambda a, b: ref.cross(a, b, dim=0), [(3, 4), (3, 4)], fdtype)
    _check(lambda a, b: a.cross(b, 1), lambda a, b: a.cross(b, 1), [(2, 3), (2, 3)], fdtype)


@pytest.mark.parametrize("keep", [False, True])
def test_nanmedian_mode(fdtype, keep):
    x = rng.integers(0, 3, (4, 7)).astype(fdtype)
    x[0, 1] = x[1, 3] = np.nan
    x[2] = np.nan
    a, b = to_nt(x, True), to_ref(x, True)
    o, r = nt.nanmedian(a, 1, keep), ref.nanmedian(b, 1, keep)
    assert_close(o.values, r.values)
    # (PyTorch's index for an all-NaN row depends on its selection algorithm; compare the others)
    assert_close(o.indices[[0, 1, 3]], r.indices[[0, 1, 3]])
    assert type(o.values.grad_fn).__name__ == type(r.values.grad_fn).__name__
    o.values.nansum().backward(), r.values.nansum().backward()
    assert_close(a.grad, b.grad)
    a, b = to_nt(x, True), to_ref(x, True)
    o, r = nt.nanmedian(a), ref.nanmedian(b)
    assert_close(o, r)
    o.backward(), r.backward()
    assert_close(a.grad, b.grad)
    y = rng.integers(0, 4, (5, 9)).astype(fdtype)
    for dim in (0, 1):
        a, b = to_nt(y, True), to_ref(y, True)
        o, r = nt.mode(a, dim, keep), ref.mode(b, dim, keep)
        assert_close(o.values, r.values)
        assert_close(o.indices, r.indices)
        assert type(o).__name__ == "mode" and type(o.values.grad_fn).__name__ == type(r.values.grad_fn).__name__
        o.values.sum().backward(), r.values.sum().backward()
        assert_close(a.grad, b.grad)


def test_renorm(fdtype):
    for p, dim, mx in [(2, 0, 1.0), (1, 1, 0.5), (3, -1, 100.0)]:
        _check(lambda a: nt.renorm(a, p, dim, mx), lambda a: ref.renorm(a, p, dim, mx), [(3, 4)], fdtype,
               tol=dict(rtol=1e-4, atol=1e-5))
    assert gradcheck(lambda t: nt.renorm(t, 2, 0, 0.5), (_pair((3, 4), np.float64)[0],))
    with pytest.raises(RuntimeError):
        nt.renorm(nt.ones(3, 3), -1, 0, 1.0)


def test_trapezoid(fdtype):
    _check(lambda y: nt.trapezoid(y), lambda y: ref.trapezoid(y), [(3, 5)], fdtype)
    _check(lambda y: nt.trapezoid(y, dx=0.5, dim=0), lambda y: ref.trapezoid(y, dx=0.5, dim=0), [(3, 5)], fdtype)
    _check(lambda y, x: nt.trapezoid(y, x, dim=0), lambda y, x: ref.trapezoid(y, x, dim=0), [(3, 5), (3,)], fdtype)
    _check(lambda y, x: nt.trapezoid(y, x), lambda y, x: ref.trapezoid(y, x), [(3, 5), (3, 5)], fdtype)
    _check(lambda y: nt.cumulative_trapezoid(y, dim=0), lambda y: ref.cumulative_trapezoid(y, dim=0), [(4, 5)], fdtype)
    _check(lambda y, x: nt.cumulative_trapezoid(y, x), lambda y, x: ref.cumulative_trapezoid(y, x),
           [(3, 5), (5,)], fdtype)


def test_builders(fdtype):
    o, r = _check(lambda a, b, c: nt.block_diag(a, b, c), lambda a, b, c: ref.block_diag(a, b, c),
                  [(2, 3), (4,), ()], fdtype)
    assert type(o.grad_fn).__name__ == type(r.grad_fn).__name__
    assert_close(nt.block_diag(nt.tensor([[1, 2]]), nt.tensor([1.5])), ref.block_diag(ref.tensor([[1, 2]]), ref.tensor([1.5])))
    _check(lambda a, b, c: nt.cartesian_prod(a, b, c), lambda a, b, c: ref.cartesian_prod(a, b, c),
           [(2,), (3,), (2,)], fdtype)
    for r_, rep in [(2, False), (3, False), (2, True)]:
        _check(lambda a: nt.combinations(a, r_, rep), lambda a: ref.combinations(a, r_, rep), [(4,)], fdtype)
    for N, inc in [(None, False), (3, True), (1, False)]:
        _check(lambda a: nt.vander(a, N, inc), lambda a: ref.vander(a, N, inc), [(4,)], fdtype, grad=False)
    # (PyTorch's own vander backward trips its in-place check; gradcheck ours instead)
    assert gradcheck(lambda t: nt.vander(t, 3), (_pair((4,), np.float64)[0],))
    assert_close(nt.vander(nt.tensor([1, 2, 3])), ref.vander(ref.tensor([1, 2, 3])))
    with pytest.raises(RuntimeError):
        nt.block_diag(nt.zeros(1, 1, 1))


def test_histc(fdtype):
    x = rng.standard_normal(50).astype(fdtype)
    for args in [(10,), (7, -1, 1), (5, 0, 0), (4, 2, 2)]:
        assert_close(nt.histc(to_nt(x), *args), ref.histc(to_ref(x), *args))
        assert_close(to_nt(x).histc(*args), to_ref(x).histc(*args))
    with pytest.raises(NotImplementedError):
        nt.histc(nt.tensor([1, 2]))
    with pytest.raises(RuntimeError):
        nt.histc(to_nt(x), 5, 2, 1)
