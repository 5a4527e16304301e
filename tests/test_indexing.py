"""Indexing, selection and sorting: differential tests against PyTorch, view semantics, errors."""
import numpy as np
import pytest
import torch as ref
from hypothesis import given, settings, strategies as st

import numtorch as nt
from numtorch.autograd import gradcheck
from conftest import assert_close

rng = np.random.default_rng(0)


def _pair(arr, rg):
    """The same values as a numtorch and a torch tensor; float ones require grad when ``rg``."""
    rg = rg and arr.dtype.kind == "f"
    return (nt.tensor(arr.copy(), requires_grad=rg), ref.tensor(arr.copy(), requires_grad=rg))


def diff(fn, *arrays, grad=True, seed=1, tol=None):
    """Run ``fn(module, *tensors)`` on numtorch and torch; compare outputs, then input gradients
    for a random cotangent on the first (or only) output."""
    pairs = [_pair(a, grad) for a in arrays]
    out_n = fn(nt, *[p[0] for p in pairs])
    out_r = fn(ref, *[p[1] for p in pairs])
    outs_n = out_n if isinstance(out_n, tuple) else (out_n,)
    outs_r = out_r if isinstance(out_r, tuple) else (out_r,)
    assert len(outs_n) == len(outs_r)
    tol = tol or {}
    for a, b in zip(outs_n, outs_r):
        assert_close(a, b, **tol)
    if grad and outs_r[0].requires_grad:
        assert outs_n[0].requires_grad
        g = np.random.default_rng(seed).standard_normal(tuple(outs_r[0].shape)).astype(
            np.dtype(str(outs_r[0].dtype).replace("torch.", "")))
        outs_n[0].backward(nt.tensor(g))
        outs_r[0].backward(ref.tensor(g))
        for (tn, tr) in pairs:
            if tr.requires_grad:
                if tr.grad is None:
                    assert tn.grad is None or not np.any(tn.grad.numpy())
                else:
                    assert_close(tn.grad, tr.grad, **tol)
    return out_n


def rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def M_idx(M, arr):
    return M.tensor(np.asarray(arr))


# ------------------------------------------------------------------------------------------------
# __getitem__
# ------------------------------------------------------------------------------------------------
BASIC = [0, -1, (1, 2), slice(1, 3), slice(None, None, 2), (slice(None), 1), (Ellipsis, 0), (0, Ellipsis, 1),
         None, (None, 0, None), (slice(1, None), None, slice(0, 3, 2)), Ellipsis, (), slice(5, 10), (1, 2, 3),
         (slice(None), slice(None), -1)]


@pytest.mark.parametrize("idx", BASIC, ids=[repr(i) for i in BASIC])
def test_getitem_basic(idx, fdtype):
    out = diff(lambda M, x: x[idx], rand(3, 4, 5, dtype=fdtype))
    assert out._base is not None  # a view


ADV = [[0, 2], [[0, 1], [2, 2]], ([0, 1], [1, 2]), (slice(None), [0, 3, 3]), (0, slice(None), [1, 0]),
       ([0, 2], slice(None), [1, 4]), (Ellipsis, [4, 0, 4]), ([1], [[0], [2]], slice(1, 3)), (True,), (False,),
       (0, True), ([-1, 0],), (slice(None, None, 2), [2, 2, 2]), (None, [0, 1], None), ([[0]], 1, [[1, 2]])]


@pytest.mark.parametrize("idx", ADV, ids=[repr(i) for i in ADV])
def test_getitem_advanced(idx, fdtype):
    def conv(M, i):
        if isinstance(i, tuple):
            return tuple(conv(M, j) for j in i)
        return M.tensor(i) if isinstance(i, list) else i
    out = diff(lambda M, x: x[conv(M, idx)], rand(3, 4, 5, dtype=fdtype))
    assert out._base is None  # a copy


def test_getitem_masks(fdtype):
    x = rand(3, 4, dtype=fdtype)
    m2 = rng.random((3, 4)) > 0.5
    m1 = np.array([True, False, True])
    diff(lambda M, t: t[M.tensor(m2)], x)
    diff(lambda M, t: t[M.tensor(m1)], x)
    diff(lambda M, t: t[:, M.tensor([True, False, False, True])], x)
    diff(lambda M, t: t[t > 0], x)
    diff(lambda M, t: t[M.tensor(m1), 1:], x)
    diff(lambda M, t: t[M.tensor(True)], x)


def test_getitem_0d_int_tensor_is_select():
    x = nt.tensor(rand(3, 4), requires_grad=True)
    y = x[nt.tensor(1)]
    assert y.grad_fn.name() == "SelectBackward0" and y.shape == (4,)
    diff(lambda M, t: t[M.tensor(2), M.tensor([0, 1])], rand(3, 4))


def test_getitem_int_dtypes_and_ndarray_index():
    x = rand(4, 3)
    for dt in (np.int64, np.int32):
        i = np.array([3, 0, 3], dt)
        assert_close(nt.tensor(x)[nt.tensor(i)], ref.tensor(x)[ref.tensor(i)])
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool"):
        nt.tensor(x)[nt.tensor(np.array([1], np.int16))]
    assert_close(nt.tensor(x)[np.array([1, 2])], ref.tensor(x)[np.array([1, 2])])
    assert_close(nt.tensor(x)[np.int64(1)], ref.tensor(x)[1])
    assert_close(nt.tensor(x)[[]], ref.tensor(x)[[]])
    u8 = np.array([1, 0, 1, 0], np.uint8)
    assert_close(nt.tensor(x)[nt.tensor(u8)], ref.tensor(x)[ref.tensor(u8).bool()])


def test_getitem_sequence_as_tuple_legacy():
    x = rand(3, 4, 5)
    with pytest.warns(UserWarning):
        a = nt.tensor(x)[[[0, 1], [1, 2]]]
    np.testing.assert_array_equal(a.numpy(), x[[0, 1], [1, 2]])


def test_getitem_view_semantics():
    x = nt.tensor(np.zeros((3, 4), np.float32))
    v = x[1]
    assert v._base is x and v.data_ptr() == x._data[1].__array_interface__["data"][0]
    v0 = x._version
    v[2] = 5.0
    assert x._data[1, 2] == 5.0 and x._version == v0 + 1 and v._version == x._version
    s = x[:, 1:3]
    s.fill_(7.0)
    assert np.all(x.numpy()[:, 1:3] == 7.0) and x._version == v._version
    w = x[0, 0]  # a 0-d view, not a copy
    x[0, 0] = 9.0
    assert w.item() == 9.0
    a = x[[0, 1]]  # advanced: a copy
    a[0, 0] = -1.0
    assert x._data[0, 0] == 9.0


def test_getitem_grad_repeated_and_names():
    x = nt.tensor(rand(4, 3), requires_grad=True)
    assert x[0].grad_fn.name() == "SelectBackward0"
    assert x[1:].grad_fn.name() == "SliceBackward0"
    assert x[None].grad_fn.name() == "UnsqueezeBackward0"
    assert x[[0, 0]].grad_fn.name() == "IndexBackward0"
    diff(lambda M, t: t[M.tensor([0, 0, 3, 0])], rand(4, 3))
    diff(lambda M, t: t[M.tensor([[1, 1], [1, 2]]), M.tensor([0, 0])], rand(4, 3, dtype=np.float64))


def test_embedding_lookup_fast_path(fdtype):
    C, X = rand(27, 10, dtype=fdtype), rng.integers(0, 27, (32, 3))
    diff(lambda M, c: c[M.tensor(X)], C)
    big = rng.integers(0, 65, (64, 200))  # large problem: the sort + reduceat kernel
    # ~200 float32 terms per row are summed in another order than PyTorch's
    diff(lambda M, c: c[M.tensor(big)], rand(65, 16, dtype=fdtype), tol=dict(rtol=1e-4, atol=1e-5))
    diff(lambda M, c: c[M.tensor(big)], rand(65, 1, dtype=fdtype))  # single column: bincount
    diff(lambda M, c: c[M.tensor(X)], rand(27, dtype=fdtype))


def test_getitem_int_tensor_grad_int_dtype_input():
    x = np.arange(12).reshape(3, 4)
    out = diff(lambda M, t: t[M.tensor([2, 0])], x)
    assert out.dtype == nt.int64


def test_getitem_errors():
    x = nt.tensor(rand(3, 4))
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[5]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        x[-4]
    with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 1 with size 4"):
        x[0, 9]
    with pytest.raises(IndexError, match="out of bounds"):
        x[nt.tensor([0, 3])]
    with pytest.raises(IndexError, match="out of bounds"):
        x[nt.tensor([0, 1]), nt.tensor([1, 7])]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[nt.tensor([1.0])]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        x[0, 0, 0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
    with pytest.raises(IndexError, match="shape of the mask"):
        x[nt.tensor([True, False])]
    with pytest.raises(IndexError, match="shape mismatch"):
        x[nt.tensor([0, 1]), nt.tensor([0, 1, 2])]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        nt.tensor(1.0)[0]
    with pytest.raises(IndexError):
        x[1.5]


# ------------------------------------------------------------------------------------------------
# property test: random index tuples
# ------------------------------------------------------------------------------------------------
@st.composite
def index_case(draw):
    """A random shape and an index tuple of ints, slices, None, one Ellipsis, int lists and bool masks."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=4)))
    kinds = draw(st.lists(st.sampled_from(["int", "slice", "none", "arr", "mask", "ell"]), max_size=5))
    if "ell" in kinds:  # keep the first Ellipsis only
        first = kinds.index("ell")
        kinds = kinds[:first + 1] + [k for k in kinds[first + 1:] if k != "ell"]
    consuming = [k for k in kinds if k not in ("none", "ell")]
    while len(consuming) > len(shape):
        kinds.remove(consuming.pop())
    pos = kinds.index("ell") if "ell" in kinds else len(kinds)
    n_after = sum(1 for k in kinds[pos + 1:] if k not in ("none", "ell"))
    d, items = 0, []
    for j, k in enumerate(kinds):
        if j == pos:
            items.append(Ellipsis)
            d = len(shape) - n_after
            continue
        n = shape[d] if k not in ("none",) else None
        if k == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif k == "slice":
            a, b = (draw(st.one_of(st.none(), st.integers(-n - 1, n + 1))) for _ in range(2))
            items.append(slice(a, b, draw(st.one_of(st.none(), st.integers(1, 3)))))
        elif k == "none":
            items.append(None)
            continue
        elif k == "arr":
            size = draw(st.sampled_from([1, 2]))
            items.append(draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size)))
        else:
            items.append(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        d += 1
    return shape, tuple(items)


@settings(max_examples=50, deadline=None)
@given(index_case())
def test_getitem_hypothesis(case):
    shape, idx = case
    x = rand(*shape, dtype=np.float64)

    def conv(M):
        return tuple(M.tensor(i) if isinstance(i, list) else i for i in idx)
    try:
        ref.tensor(x)[conv(ref)]
    except (IndexError, RuntimeError) as e:  # e.g. index tensors that do not broadcast
        with pytest.raises(type(e)):
            nt.tensor(x)[conv(nt)]
        return
    diff(lambda M, t: t[conv(M)], x)
    # and assignment through the same index
    tn, tr = nt.tensor(x), ref.tensor(x)
    tn[conv(nt)] = 3.5
    tr[conv(ref)] = 3.5
    assert_close(tn, tr)


# ------------------------------------------------------------------------------------------------
# __setitem__
# ------------------------------------------------------------------------------------------------
SET = [(0, 1.5), ((slice(None), 1), [1.0, 2.0, 3.0]), ((Ellipsis, [0, 2]), 2.0), ([1, 1], [[5.0] * 4]),
       (([0, 2], [1, 3]), [7.0, 8.0]), ((1, slice(1, 3)), 4), ((0, 0), [[[9.0]]])]


@pytest.mark.parametrize("idx,val", SET, ids=[repr(s) for s in SET])
def test_setitem_no_grad(idx, val, fdtype):
    x = rand(3, 4, dtype=fdtype)
    tn, tr = nt.tensor(x), ref.tensor(x)

    def conv(M, i):
        if isinstance(i, tuple):
            return tuple(conv(M, j) for j in i)
        return M.tensor(i) if isinstance(i, list) else i
    v0 = tn._version
    vn = nt.tensor(np.array(val, fdtype)) if isinstance(val, list) else val
    vr = ref.tensor(np.array(val, fdtype)) if isinstance(val, list) else val
    tn[conv(nt, idx)] = vn
    tr[conv(ref, idx)] = vr
    assert_close(tn, tr)
    assert tn._version == v0 + 1


def test_setitem_mask_and_cast():
    x = rand(3, 4)
    tn, tr = nt.tensor(x), ref.tensor(x)
    tn[tn > 0] = 0
    tr[tr > 0] = 0
    assert_close(tn, tr)
    xi_n, xi_r = nt.tensor(np.zeros(3, np.int64)), ref.zeros(3, dtype=ref.int64)
    xi_n[0], xi_r[0] = 1.7, 1.7
    xi_n[1], xi_r[1] = nt.tensor(2.5), ref.tensor(2.5)
    xi_n[2:] = nt.tensor([3.9])
    xi_r[2:] = ref.tensor([3.9])
    assert_close(xi_n, xi_r)
    f = nt.tensor(np.zeros(4, np.float32))
    f[:2] = nt.tensor([1, 2])  # int tensor cast to float
    assert f.dtype == nt.float32 and f.tolist() == [1.0, 2.0, 0.0, 0.0]


def test_setitem_grad(fdtype):
    x, v = rand(4, 3, dtype=fdtype), rand(2, 3, dtype=fdtype)
    G = rand(4, 3, dtype=fdtype)
    res = []
    for M in (nt, ref):
        xa, va = M.tensor(x, requires_grad=True), M.tensor(v, requires_grad=True)
        y = xa * 2
        y[M.tensor([0, 2])] = va
        y[1, 1:] = 5.0
        y[3] = va[1] * 3
        assert y.grad_fn is not None
        y.backward(M.tensor(G))
        res.append((y, xa.grad, va.grad))
    for a, b in zip(*res):
        assert_close(a, b)


def test_setitem_value_requires_grad_only(fdtype):
    v, G = rand(3, dtype=fdtype), rand(2, 3, dtype=fdtype)
    res = []
    for M in (nt, ref):
        va = M.tensor(v, requires_grad=True)
        buf = M.zeros(2, 3, dtype=getattr(M, str(np.dtype(fdtype))))
        buf[0] = va
        buf[1] = va * va
        buf.backward(M.tensor(G))
        res.append((buf, va.grad))
    for a, b in zip(*res):
        assert_close(a, b)


def test_setitem_leaf_and_iadd():
    w = nt.tensor(rand(3), requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w[0] = 1.0
    with nt.no_grad():
        w[0] = 1.0
    assert w._data[0] == 1.0
    x = rand(3, 4)
    tn, tr = nt.tensor(x), ref.tensor(x)
    tn[1:, 2] += 10
    tr[1:, 2] += 10
    tn[nt.tensor([0, 0, 2]), 1] -= 1  # advanced: read, subtract, write (no accumulation)
    tr[ref.tensor([0, 0, 2]), 1] -= 1
    assert_close(tn, tr)


def test_setitem_errors():
    x = nt.tensor(rand(3, 4))
    with pytest.raises(TypeError, match="can't assign a list to a torch.FloatTensor"):
        x[0] = [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(TypeError, match="numpy.ndarray"):
        x[0] = np.ones(4)
    with pytest.raises(RuntimeError, match="shape mismatch"):
        x[0] = nt.tensor(np.ones((2, 4), np.float32))
    with pytest.raises(RuntimeError, match="shape mismatch"):
        x[nt.tensor([0, 1])] = nt.tensor(np.ones((3, 3, 4), np.float32))
    with pytest.raises(IndexError):
        x[3] = 1.0
    with pytest.raises(RuntimeError, match="shape mismatch"):
        nt.index_put(x, (nt.tensor([0, 0, 2]),), nt.tensor([1.0, 2.0]), accumulate=True)


def test_index_put(fdtype):
    x, v = rand(4, 3, dtype=fdtype), rand(3, 3, dtype=fdtype)
    i = np.array([0, 2, 0])
    diff(lambda M, a, b: M.index_put(a, (M.tensor(i),), b, accumulate=True), x, v)
    diff(lambda M, a, b: a.index_put((M.tensor([1, 3]), M.tensor([0, 2])), b[0, :2]), x, v)
    tn, tr = nt.tensor(x), ref.tensor(x)
    tn.index_put_((nt.tensor(i),), nt.tensor(v), accumulate=True)
    tr.index_put_((ref.tensor(i),), ref.tensor(v), accumulate=True)
    assert_close(tn, tr)


# ------------------------------------------------------------------------------------------------
# __iter__ / __contains__
# ------------------------------------------------------------------------------------------------
def test_iter_and_contains():
    x = nt.tensor(rand(3, 2))
    rows = list(x)
    assert len(rows) == 3 and all(r._base is x for r in rows)
    np.testing.assert_array_equal(rows[2].numpy(), x.numpy()[2])
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(nt.tensor(1.0))
    t = nt.tensor([1, 2, 3])
    assert 2 in t and 5 not in t and nt.tensor(3) in t
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
        "a" in t
    a, b = nt.tensor([1.0, 2.0])
    assert a.item() == 1.0 and b.item() == 2.0


# ------------------------------------------------------------------------------------------------
# gather / scatter family
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather(dim, fdtype):
    x = rand(4, 5, dtype=fdtype)
    idx = rng.integers(0, x.shape[dim], (3, 2))
    diff(lambda M, a: M.gather(a, dim, M.tensor(idx)), x)
    diff(lambda M, a: a.gather(dim, M.tensor(idx[:1, :1])), x)
    diff(lambda M, a: M.gather(a, 0, M.tensor(np.array(0))), rand(dtype=fdtype))


def test_gather_errors():
    x = nt.tensor(rand(3, 4))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        nt.gather(x, 0, nt.tensor([0]))
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 3"):
        nt.gather(x, 0, nt.tensor([[5]]))
    with pytest.raises(RuntimeError, match="out of bounds"):
        nt.gather(x, 0, nt.tensor([[-1]]))
    with pytest.raises(RuntimeError, match="Expected dtype int32/int64"):
        nt.gather(x, 0, nt.tensor([[0.0]]))
    with pytest.raises(RuntimeError, match="Size does not match at dimension 1"):
        nt.gather(x, 0, nt.tensor([[0] * 5]))


@pytest.mark.parametrize("dim", [0, 1])
def test_scatter(dim, fdtype):
    x, big = rand(3, 4, dtype=fdtype), rand(3, 5, dtype=fdtype)
    # distinct targets per column/row so overwrite order does not matter
    idx = np.stack([rng.permutation(x.shape[0])[:2] for _ in range(4)], 1) if dim == 0 else \
        np.stack([rng.permutation(x.shape[1])[:3] for _ in range(2)], 0)
    src = big[:idx.shape[0], :idx.shape[1]].copy()
    diff(lambda M, a, s: M.scatter(a, dim, M.tensor(idx), s), x, src)
    diff(lambda M, a, s: M.scatter(a, dim, M.tensor(idx), s), x, big, grad=False)  # src larger than index
    # PyTorch's own backward rejects a src larger than index; check ours directly
    s = nt.tensor(big, requires_grad=True)
    nt.scatter(nt.tensor(x), dim, nt.tensor(idx), s).backward(nt.tensor(np.ones((3, 4), fdtype)))
    np.testing.assert_array_equal(s.grad.numpy()[:idx.shape[0], :idx.shape[1]], 1)
    assert s.grad.shape == (3, 5) and s.grad.numpy().sum() == idx.size
    diff(lambda M, a: a.scatter(dim, M.tensor(idx), 2.5), x)
    diff(lambda M, a: M.scatter(a, dim, M.tensor(idx), value=-1.0), x)
    diff(lambda M, a, s: M.scatter(a, dim, M.tensor(idx), s, reduce="add"), x, src, grad=False)
    diff(lambda M, a, s: M.scatter(a, dim, M.tensor(idx), s, reduce="multiply"), x, src, grad=False)


def test_scatter_add(fdtype):
    x, src = rand(3, 4, dtype=fdtype), rand(5, 4, dtype=fdtype)
    idx = rng.integers(0, 3, (5, 4))
    diff(lambda M, a, s: M.scatter_add(a, 0, M.tensor(idx), s), x, src)
    diff(lambda M, a, s: a.scatter_add(1, M.tensor(idx[:2, :3] % 3), s), x, src[:2, :3].copy())
    diff(lambda M, a, s: a.scatter_add(1, M.tensor(idx[:2, :3] % 3), s), x, src, grad=False)
    ints = np.arange(12).reshape(3, 4)
    diff(lambda M, a: a.scatter_add(0, M.tensor(idx[:3]), a), ints)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self):
    x, src = rand(3, 4, dtype=np.float64), rand(6, 4, dtype=np.float64)
    idx = rng.integers(0, 3, (6, 4))
    diff(lambda M, a, s: M.scatter_reduce(a, 0, M.tensor(idx), s, reduce, include_self=include_self), x, src)
    src[0] = x[idx[0], np.arange(4)] if include_self else src[1]  # ties for amax/amin
    idx[0] = idx[1] if not include_self else idx[0]
    diff(lambda M, a, s: a.scatter_reduce(0, M.tensor(idx), s, reduce=reduce, include_self=include_self), x, src)
    ints = rng.integers(-5, 5, (3, 4))
    diff(lambda M, a: M.scatter_reduce(a, 0, M.tensor(idx[:3]), a, reduce, include_self=include_self), ints)


def test_scatter_inplace(fdtype):
    x, src = rand(3, 4, dtype=fdtype), rand(3, 4, dtype=fdtype)
    idx = np.array([[0, 1, 2, 0], [1, 2, 0, 1]])
    for name, args in [("scatter_", (0, idx, src)), ("scatter_add_", (0, idx, src)),
                       ("scatter_reduce_", (0, idx, src, "amax"))]:
        tn, tr = nt.tensor(x), ref.tensor(x)
        an = [nt.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        ar = [ref.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        assert getattr(tn, name)(*an) is tn
        getattr(tr, name)(*ar)
        assert_close(tn, tr)


def test_gather_scatter_gradcheck():
    x = nt.tensor(rand(3, 4, dtype=np.float64), requires_grad=True)
    s = nt.tensor(rand(2, 4, dtype=np.float64), requires_grad=True)
    idx = nt.tensor([[0, 1, 2, 0], [2, 2, 1, 1]])
    assert gradcheck(lambda a: nt.gather(a, 0, idx), (x,))
    assert gradcheck(lambda a, b: nt.scatter_add(a, 0, idx, b), (x, s))
    assert gradcheck(lambda a, b: nt.scatter(a, 0, nt.tensor([[0, 1, 2, 0], [1, 2, 0, 1]]), b), (x, s))
    assert gradcheck(lambda a, b: nt.scatter_reduce(a, 0, idx, b, "mean"), (x, s))
    assert gradcheck(lambda a, b: nt.scatter_reduce(a, 0, idx, b, "amax", include_self=False), (x, s))
    assert gradcheck(lambda a: a[nt.tensor([[0, 2], [2, 2]]), 1:], (x,))
    assert gradcheck(lambda a: a[1, ::2], (x,))
    assert gradcheck(lambda a: a[a > 0], (x,))


# ------------------------------------------------------------------------------------------------
# index_* family
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select(dim, fdtype):
    x = rand(4, 5, dtype=fdtype)
    idx = rng.integers(0, x.shape[dim], 6)
    diff(lambda M, a: M.index_select(a, dim, M.tensor(idx)), x)
    diff(lambda M, a: a.index_select(dim, M.tensor(np.array(1))), x)
    diff(lambda M, a: M.index_select(a, 0, M.tensor([0, 0])), rand(1, dtype=fdtype))
    diff(lambda M, a: M.index_select(a, 0, M.tensor([0])), rand(dtype=fdtype))


def test_index_select_errors():
    x = nt.tensor(rand(3, 4))
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        nt.index_select(x, 0, nt.tensor([[0]]))
    with pytest.raises(RuntimeError, match="Expected dtype int32 or int64 for index"):
        nt.index_select(x, 0, nt.tensor([0.0]))
    with pytest.raises(IndexError, match="index out of range in self"):
        nt.index_select(x, 0, nt.tensor([7]))
    with pytest.raises(IndexError, match="Dimension out of range"):
        nt.index_select(x, 2, nt.tensor([0]))


@pytest.mark.parametrize("dim", [0, 1])
def test_index_add_copy_fill(dim, fdtype):
    x = rand(4, 5, dtype=fdtype)
    idx = np.array([3, 0, 3]) if dim == 0 else np.array([4, 1, 1])
    src = rand(3, 5, dtype=fdtype) if dim == 0 else rand(4, 3, dtype=fdtype)
    uniq = np.array([3, 0, 1]) if dim == 0 else np.array([4, 1, 2])
    diff(lambda M, a, s: M.index_add(a, dim, M.tensor(idx), s), x, src)
    diff(lambda M, a, s: a.index_add(dim, M.tensor(idx), s, alpha=2.5), x, src)
    diff(lambda M, a, s: M.index_copy(a, dim, M.tensor(uniq), s), x, src)
    diff(lambda M, a: M.index_fill(a, dim, M.tensor(idx), -2.0), x)
    diff(lambda M, a, v: a.index_fill(dim, M.tensor(idx), v), x, np.array(1.5, fdtype))


def test_index_inplace_and_errors():
    x, src = rand(3, 4), rand(2, 4)
    for name, args in [("index_add_", (0, [2, 0], src)), ("index_copy_", (0, [2, 0], src)),
                       ("index_fill_", (1, [3], 0.5))]:
        tn, tr = nt.tensor(x), ref.tensor(x)
        conv = lambda M, a: M.tensor(np.asarray(a)) if isinstance(a, (list, np.ndarray)) else a  # noqa: E731
        assert getattr(tn, name)(*[conv(nt, a) for a in args]) is tn
        getattr(tr, name)(*[conv(ref, a) for a in args])
        assert_close(tn, tr)
    with pytest.raises(RuntimeError, match="source tensor shape must match"):
        nt.index_add(nt.tensor(x), 0, nt.tensor([0]), nt.tensor(rand(1, 5)))
    with pytest.raises(RuntimeError, match=r"Number of indices \(2\)"):
        nt.index_add(nt.tensor(x), 0, nt.tensor([0, 1]), nt.tensor(rand(1, 4)))
    w = nt.tensor(x, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w.index_fill_(0, nt.tensor([0]), 1.0)


def test_index_gradcheck():
    x = nt.tensor(rand(3, 4, dtype=np.float64), requires_grad=True)
    s = nt.tensor(rand(3, 2, dtype=np.float64), requires_grad=True)
    v = nt.tensor(np.array(0.5), requires_grad=True)
    i = nt.tensor([3, 0])
    assert gradcheck(lambda a: nt.index_select(a, 1, nt.tensor([3, 3, 1])), (x,))
    assert gradcheck(lambda a, b: nt.index_add(a, 1, i, b), (x, s))
    assert gradcheck(lambda a, b: nt.index_copy(a, 1, i, b), (x, s))
    assert gradcheck(lambda a, b: nt.index_fill(a, 1, i, b), (x, v))


# ------------------------------------------------------------------------------------------------
# masks, take
# ------------------------------------------------------------------------------------------------
def test_masked_fill(fdtype):
    x = rand(3, 4, dtype=fdtype)
    m = rng.random((3, 4)) > 0.5
    diff(lambda M, a: M.masked_fill(a, M.tensor(m), 0.0), x)
    diff(lambda M, a: a.masked_fill(M.tensor(m[0]), float("-inf")), x)  # mask broadcast
    diff(lambda M, a: M.masked_fill(a, M.tensor(m[:, :1]), -3), x)
    diff(lambda M, a: M.masked_fill(a[:, :1], M.tensor(m), 2.0), x)  # input broadcast
    diff(lambda M, a, v: a.masked_fill(M.tensor(m), v), x, np.array(4.0, fdtype))
    ints = np.arange(4)
    diff(lambda M, a: a.masked_fill(M.tensor([True, False, True, False]), 2.7), ints)


def test_masked_fill_inplace_and_errors():
    x = rand(3, 4)
    m = rng.random((3, 4)) > 0.5
    tn, tr = nt.tensor(x), ref.tensor(x)
    assert tn.masked_fill_(nt.tensor(m), 1.0) is tn
    tr.masked_fill_(ref.tensor(m), 1.0)
    assert_close(tn, tr)
    with pytest.raises(RuntimeError, match="only supports boolean masks, but got mask with dtype long int"):
        nt.tensor(x).masked_fill(nt.tensor(m.astype(np.int64)), 0.0)
    with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
        nt.tensor(x).masked_fill(nt.tensor(m), nt.tensor([1.0]))
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        nt.tensor(x[:, :1]).masked_fill_(nt.tensor(m), 0.0)
    # in-place with grad through history
    res = []
    for M in (nt, ref):
        a = M.tensor(x, requires_grad=True)
        y = a * 3
        y.masked_fill_(M.tensor(m), 0.0)
        y.backward(M.ones(3, 4))
        res.append(a.grad)
    assert_close(*res)


def test_masked_select_scatter(fdtype):
    x = rand(3, 4, dtype=fdtype)
    m = rng.random((3, 4)) > 0.5
    diff(lambda M, a: M.masked_select(a, M.tensor(m)), x)
    diff(lambda M, a: a.masked_select(M.tensor(m[1])), x)
    diff(lambda M, a: M.masked_select(a[:1], M.tensor(m)), x)
    src = rand(4, 4, dtype=fdtype)
    diff(lambda M, a, s: M.masked_scatter(a, M.tensor(m), s), x, src)
    diff(lambda M, a, s: a.masked_scatter(M.tensor(m[0]), s), x, src)
    with pytest.raises(RuntimeError, match="expected BoolTensor"):
        nt.masked_select(nt.tensor(x), nt.tensor(m.astype(np.int64)))
    with pytest.raises(RuntimeError, match="Number of elements of source"):
        nt.tensor([1.0, 2.0]).masked_scatter(nt.tensor([True, True]), nt.tensor([1.0]))
    tn, tr = nt.tensor(x), ref.tensor(x)
    tn.masked_scatter_(nt.tensor(m), nt.tensor(src))
    tr.masked_scatter_(ref.tensor(m), ref.tensor(src))
    assert_close(tn, tr)


def test_take_and_take_along_dim(fdtype):
    x = rand(3, 4, dtype=fdtype)
    diff(lambda M, a: M.take(a, M.tensor([[0, 11], [-1, 5], [5, 5]])), x)
    diff(lambda M, a: a.take(M.tensor(3)), x)
    i = rng.integers(0, 4, (3, 2))
    diff(lambda M, a: M.take_along_dim(a, M.tensor(i), dim=1), x)
    diff(lambda M, a: M.take_along_dim(a, M.tensor(i[:1]), dim=-1), x)  # broadcast rows
    diff(lambda M, a: a.take_along_dim(M.tensor(np.array([[2, 0, 0, 1]])), 0), x)
    diff(lambda M, a: M.take_along_dim(a, M.tensor([11, 0, 0])), x)
    diff(lambda M, a: M.take_along_dim(a[:, :1], M.tensor(i % 3), dim=0), x)  # broadcast input
    with pytest.raises(IndexError, match="out of range: tried to access index 12 on a tensor of 12 elements"):
        nt.take(nt.tensor(x), nt.tensor([12]))


def test_mask_take_gradcheck():
    x = nt.tensor(rand(3, 4, dtype=np.float64), requires_grad=True)
    m = nt.tensor(rng.random((3, 4)) > 0.5)
    v = nt.tensor(np.array(2.0), requires_grad=True)
    assert gradcheck(lambda a, b: nt.masked_fill(a, m, b), (x, v))
    assert gradcheck(lambda a: nt.masked_select(a, m), (x,))
    assert gradcheck(lambda a: nt.take(a, nt.tensor([[1, 1], [-1, 0]])), (x,))
    assert gradcheck(lambda a: nt.take_along_dim(a, nt.tensor([[0], [3], [3]]), 1), (x,))
    s = nt.tensor(rand(12, dtype=np.float64), requires_grad=True)
    assert gradcheck(lambda a, b: nt.masked_scatter(a, m, b), (x, s))


# ------------------------------------------------------------------------------------------------
# nonzero, sort, topk, kthvalue
# ------------------------------------------------------------------------------------------------
def test_nonzero_argwhere():
    x = rng.integers(0, 2, (3, 4)).astype(np.float32)
    assert_close(nt.nonzero(nt.tensor(x)), ref.nonzero(ref.tensor(x)))
    assert_close(nt.tensor(x).nonzero(), ref.tensor(x).nonzero())
    assert_close(nt.argwhere(nt.tensor(x)), ref.argwhere(ref.tensor(x)))
    for a, b in zip(nt.nonzero(nt.tensor(x), as_tuple=True), ref.nonzero(ref.tensor(x), as_tuple=True)):
        assert_close(a, b)
    assert_close(nt.nonzero(nt.tensor(1.0)), ref.nonzero(ref.tensor(1.0)))
    assert_close(nt.nonzero(nt.tensor(0.0), as_tuple=True)[0], ref.nonzero(ref.tensor(0.0), as_tuple=True)[0])
    w = nt.where(nt.tensor(x) > 0)
    assert_close(w[1], ref.where(ref.tensor(x) > 0)[1])


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort(dim, descending, fdtype):
    x = rng.integers(0, 4, (5, 6)).astype(fdtype)  # many ties: stable order matters
    x[0, 0] = np.nan
    res = diff(lambda M, a: M.sort(a, dim=dim, descending=descending, stable=True), x)
    assert isinstance(res, tuple) and res.values is res[0]
    diff(lambda M, a: a.argsort(dim=dim, descending=descending, stable=True), x)
    diff(lambda M, a: a.sort(dim, descending), rand(3, 4, dtype=fdtype))
    diff(lambda M, a: M.sort(a), rand(dtype=fdtype))
    diff(lambda M, a: M.msort(a), rand(4, 3, dtype=fdtype))
    diff(lambda M, a: M.argsort(a, stable=True), np.array([3, 1, 2, 1, 3]))


@pytest.mark.parametrize("largest", [True, False])
def test_topk(largest, fdtype):
    x = rand(4, 7, dtype=fdtype)
    for k, dim in [(3, -1), (2, 0), (0, 1), (7, 1)]:
        r = diff(lambda M, a: M.topk(a, k, dim=dim, largest=largest), x)
        assert type(r).__name__ == "topk"
    v, i = nt.topk(nt.tensor([1.0, 3.0, 2.0]), 2)
    assert v.tolist() == [3.0, 2.0] and i.tolist() == [1, 2] and i.dtype == nt.int64
    assert "torch.return_types.topk(" in repr(nt.topk(nt.tensor([1.0]), 1))
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        nt.topk(nt.tensor(x), 8)


def test_kthvalue(fdtype):
    x = rand(4, 5, dtype=fdtype)
    for k, dim, keep in [(1, -1, False), (3, 0, True), (5, 1, False)]:
        diff(lambda M, a: M.kthvalue(a, k, dim, keep), x)
    diff(lambda M, a: a.kthvalue(2), x)
    with pytest.raises(RuntimeError, match="selected number k out of range"):
        nt.kthvalue(nt.tensor(x), 9, 0)


def test_sort_gradcheck():
    x = nt.tensor(rand(3, 4, dtype=np.float64), requires_grad=True)
    assert gradcheck(lambda a: nt.sort(a, 1, descending=True).values, (x,))
    assert gradcheck(lambda a: nt.topk(a, 2, dim=0).values, (x,))
    assert gradcheck(lambda a: nt.kthvalue(a, 2, 1).values, (x,))


# ------------------------------------------------------------------------------------------------
# unique, bincount, searchsorted, bucketize, one_hot
# ------------------------------------------------------------------------------------------------
def test_unique():
    x = rng.integers(0, 5, (4, 3))
    for kw in [{}, dict(return_inverse=True), dict(return_counts=True),
               dict(return_inverse=True, return_counts=True), dict(sorted=False)]:
        out_n, out_r = nt.unique(nt.tensor(x), **kw), ref.unique(ref.tensor(x), **kw)
        out_n, out_r = (o if isinstance(o, tuple) else (o,) for o in (out_n, out_r))
        assert len(out_n) == len(out_r)
        for a, b in zip(out_n, out_r):
            assert_close(a, b)
    rows = np.array([[1, 2], [1, 2], [0, 5]])
    for a, b in zip(nt.tensor(rows).unique(dim=0, return_inverse=True, return_counts=True),
                    ref.tensor(rows).unique(dim=0, return_inverse=True, return_counts=True)):
        assert_close(a, b)
    seq = np.array([1, 1, 2, 2, 3, 1, 1, 2])
    for a, b in zip(nt.unique_consecutive(nt.tensor(seq), return_inverse=True, return_counts=True),
                    ref.unique_consecutive(ref.tensor(seq), return_inverse=True, return_counts=True)):
        assert_close(a, b)
    assert_close(nt.tensor(rows).unique_consecutive(dim=0), ref.tensor(rows).unique_consecutive(dim=0))
    f = nt.tensor(rand(5), requires_grad=True)
    assert not nt.unique(f).requires_grad


def test_bincount():
    x = rng.integers(0, 6, 20)
    w32, w64 = rand(20), rand(20, dtype=np.float64)
    assert_close(nt.bincount(nt.tensor(x)), ref.bincount(ref.tensor(x)))
    assert_close(nt.tensor(x).bincount(minlength=10), ref.tensor(x).bincount(minlength=10))
    assert_close(nt.bincount(nt.tensor(x), nt.tensor(w32)), ref.bincount(ref.tensor(x), ref.tensor(w32)))
    assert_close(nt.bincount(nt.tensor(x), nt.tensor(w64)), ref.bincount(ref.tensor(x), ref.tensor(w64)))
    assert_close(nt.bincount(nt.tensor(x), nt.tensor(x)), ref.bincount(ref.tensor(x), ref.tensor(x)))
    assert_close(nt.bincount(nt.tensor(np.zeros(0, np.int64)), minlength=3),
                 ref.bincount(ref.tensor(np.zeros(0, np.int64)), minlength=3))
    with pytest.raises(RuntimeError, match="1-d non-negative integral"):
        nt.bincount(nt.tensor([-1]))
    with pytest.raises(RuntimeError, match="1-d non-negative integral"):
        nt.bincount(nt.tensor([[1]]))
    with pytest.raises(NotImplementedError):
        nt.bincount(nt.tensor([1.0]))


def test_searchsorted_bucketize():
    seq = np.sort(rng.integers(0, 10, 8)).astype(np.float32)
    vals = rng.integers(-1, 11, (3, 4)).astype(np.float32)
    for kw in [{}, dict(right=True), dict(side="right"), dict(out_int32=True)]:
        assert_close(nt.searchsorted(nt.tensor(seq), nt.tensor(vals), **kw),
                     ref.searchsorted(ref.tensor(seq), ref.tensor(vals), **kw))
        assert_close(nt.bucketize(nt.tensor(vals), nt.tensor(seq), **{k: v for k, v in kw.items() if k != "side"}),
                     ref.bucketize(ref.tensor(vals), ref.tensor(seq), **{k: v for k, v in kw.items() if k != "side"}))
    seq2 = np.sort(rng.integers(0, 10, (3, 5)), axis=1).astype(np.float64)
    vals2 = rng.integers(-1, 11, (3, 6)).astype(np.float64)
    for right in (False, True):
        assert_close(nt.searchsorted(nt.tensor(seq2), nt.tensor(vals2), right=right),
                     ref.searchsorted(ref.tensor(seq2), ref.tensor(vals2), right=right))
    unsorted = rng.permutation(seq)
    srt = np.argsort(unsorted)
    assert_close(nt.searchsorted(nt.tensor(unsorted), nt.tensor(vals), sorter=nt.tensor(srt)),
                 ref.searchsorted(ref.tensor(unsorted), ref.tensor(vals), sorter=ref.tensor(srt)))
    assert_close(nt.searchsorted(nt.tensor(seq), 4.5), ref.searchsorted(ref.tensor(seq), 4.5))
    assert_close(nt.bucketize(4.5, nt.tensor(seq)), ref.bucketize(4.5, ref.tensor(seq)))
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        nt.searchsorted(nt.tensor(seq), nt.tensor(vals), side="left", right=True)
    with pytest.raises(RuntimeError, match="boundaries tensor must be 1 dimension"):
        nt.bucketize(nt.tensor(vals), nt.tensor(seq2))
    with pytest.raises(RuntimeError, match="first N-1 dimensions"):
        nt.searchsorted(nt.tensor(seq2), nt.tensor(vals2[:2]))


def test_one_hot():
    from numtorch._ops.sorting import one_hot
    x = rng.integers(0, 5, (3, 4))
    assert_close(one_hot(nt.tensor(x)), ref.nn.functional.one_hot(ref.tensor(x)))
    assert_close(one_hot(nt.tensor(x), 7), ref.nn.functional.one_hot(ref.tensor(x), 7))
    assert_close(one_hot(nt.tensor(np.array(2)), 3), ref.nn.functional.one_hot(ref.tensor(2), 3))
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        one_hot(nt.tensor([1, 5]), 3)
    with pytest.raises(RuntimeError, match="non-negative"):
        one_hot(nt.tensor([-1]), 3)
    with pytest.raises(RuntimeError, match="LongTensor"):
        one_hot(nt.tensor([1.0]))
    with pytest.raises(RuntimeError, match="Can not infer total number of classes"):
        one_hot(nt.tensor(np.zeros(0, np.int64)))


# ------------------------------------------------------------------------------------------------
# extra coverage: the scatter-add kernel, range/empty indices, setitem gradcheck, broadcast errors
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_rows,n,r,dt", [(5, 7, 3, np.float32), (5, 7, 1, np.float64), (40, 30000, 2, np.float32),
                                           (4, 9, 2, np.int64), (3, 0, 2, np.float32)])
def test_index_add_rows_kernel(n_rows, n, r, dt):
    from numtorch._ops.scatter import _index_add_rows
    idx = rng.integers(0, n_rows, n)
    vals = (rng.standard_normal((n, r)) * 4).astype(dt)
    want = np.zeros((n_rows, r), np.float64)
    np.add.at(want, idx, vals.astype(np.float64))
    got = _index_add_rows(n_rows, idx, vals)
    assert got.dtype == dt and got.shape == (n_rows, r)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3 if dt == np.float32 else 1e-9)


def test_range_and_empty_indices(fdtype):
    x = rand(4, 5, dtype=fdtype)
    y = rng.integers(0, 5, 4)
    diff(lambda M, a: a[range(4), M.tensor(y)], x)
    diff(lambda M, a: a[:, M.tensor(np.zeros(0, np.int64))], x)
    diff(lambda M, a: a[M.tensor(np.zeros((4, 5), bool))], x)
    tn, tr = nt.tensor(x), ref.tensor(x)
    tn[range(4), nt.tensor(y)] -= 1  # makemore's manual backprop idiom
    tr[range(4), ref.tensor(y)] -= 1
    assert_close(tn, tr)


def test_setitem_gradcheck():
    x = nt.tensor(rand(3, 4, dtype=np.float64), requires_grad=True)
    v = nt.tensor(rand(2, 1, dtype=np.float64), requires_grad=True)

    def f(a, b):
        y = a * 1.0
        y[nt.tensor([2, 0]), 1:3] = b
        y[1] = b[0, 0]
        return y
    assert gradcheck(f, (x, v))
    assert gradcheck(lambda a, b: nt.index_put(a, (nt.tensor([0, 0]),), b, accumulate=True), (x, v))


def test_mask_broadcast_error():
    with pytest.raises(RuntimeError, match="The size of tensor a \\(4\\) must match the size of tensor b \\(3\\) "
                                           "at non-singleton dimension 1"):
        nt.masked_fill(nt.tensor(rand(3, 4)), nt.tensor(np.ones((1, 3), bool)), 0.0)
