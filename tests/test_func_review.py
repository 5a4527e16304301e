"""Review of torch.func as a new user meets it (issue #14): differential tests against PyTorch."""
import numpy as np
import pytest
import torch

import numtorch as nt

_R = np.random.RandomState(0)
_X = _R.randn(3, 5, 4).astype(np.float32)
_X[0, 1, 2] = _X[0, 1, 3]  # a tie for argmax/argmin
_I = _R.randint(-2, 3, (3, 5, 4)).astype(np.int32)

# integer/bool reductions and arg-reductions are computed outside an Op: they must still batch
_CASES = {
    "argmax": lambda T, a: a.argmax(),
    "argmax_dim": lambda T, a: a.argmax(1),
    "argmin_dim_keep": lambda T, a: T.argmin(a, 0, keepdim=True),
    "accuracy_count": lambda T, a: (a.argmax(-1) == 1).sum(),
    "bool_sum_dim": lambda T, a: (a > 0).sum(1),
    "long_sum": lambda T, a: a.long().sum(),
    "int_sum_dtype": lambda T, a: (a * 10).int().sum(0, dtype=T.int32),
    "int_prod": lambda T, a: (a > 0).prod(1, keepdim=True),
    "int_nansum": lambda T, a: T.nansum((a > 0).long(), 1),
    "all": lambda T, a: (a > -1).all(),
    "any_dim": lambda T, a: T.any(a > 1, 1),
    "count_nonzero": lambda T, a: T.count_nonzero(a > 0, dim=0),
}


@pytest.mark.parametrize("name", sorted(_CASES))
@pytest.mark.parametrize("in_dims", [0, 1])
def test_value_reductions_under_vmap(name, in_dims):
    f = _CASES[name]
    x = np.moveaxis(_X, 0, in_dims).copy()
    want = torch.func.vmap(lambda a: f(torch, a), in_dims=in_dims)(torch.tensor(x))
    got = nt.func.vmap(lambda a: f(nt, a), in_dims=in_dims)(nt.tensor(x))
    assert str(got.dtype) == str(want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.quick
def test_int_reductions_nested_vmap_and_outside():
    f = lambda T, a: (a.sum(-1), a.argmax(), a.prod(0), (a > 0).all(0))  # noqa: E731
    want = torch.func.vmap(torch.func.vmap(lambda a: f(torch, a)))(torch.tensor(_I))
    got = nt.func.vmap(nt.func.vmap(lambda a: f(nt, a)))(nt.tensor(_I))
    for w, g in zip(want, got):
        assert str(g.dtype) == str(w.dtype)
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    for w, g in zip(f(torch, torch.tensor(_I)), f(nt, nt.tensor(_I))):  # unchanged without vmap
        assert str(g.dtype) == str(w.dtype)
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    u = np.array([[1, 0], [255, 3]], np.uint8)
    assert str(nt.tensor(u).all(1).dtype) == str(torch.tensor(u).all(1).dtype)


def test_ensemble_accuracy_under_vmap():
    """The model-ensembling tutorial's accuracy: argmax and a bool sum over per-model predictions."""
    logits = _R.randn(5, 8, 3).astype(np.float32)
    y = _R.randint(0, 3, (8,))
    acc = lambda T, lg, yy: (lg.argmax(-1) == yy).sum() / yy.shape[0]  # noqa: E731
    want = torch.func.vmap(lambda lg: acc(torch, lg, torch.tensor(y)))(torch.tensor(logits))
    got = nt.func.vmap(lambda lg: acc(nt, lg, nt.tensor(y)))(nt.tensor(logits))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_allclose(got.numpy(), want.numpy())


_RESTRIDE = {
    "unsqueeze_": lambda a: a.unsqueeze_(0),
    "clone_unsqueeze_": lambda a: a.clone().unsqueeze_(-1) * 2,
    "t_": lambda a: a.clone().t_(),
    "transpose_": lambda a: a.clone().transpose_(0, 1),
    "squeeze_": lambda a: a.clone().unsqueeze_(1).squeeze_(),
}


@pytest.mark.parametrize("name", sorted(_RESTRIDE))
def test_inplace_view_ops_under_vmap(name):
    """In-place shape changes (``unsqueeze_``, ``t_``...) of a batched tensor restride its physical tensor."""
    x = _R.randn(3, 4, 2).astype(np.float32)
    want = torch.func.vmap(_RESTRIDE[name])(torch.tensor(x))
    got = nt.func.vmap(_RESTRIDE[name])(nt.tensor(x))
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy())


def test_inplace_view_op_under_vmap_grad():
    x = _R.randn(3, 4).astype(np.float32)
    f = lambda a: (a.clone().unsqueeze_(0).t_() ** 3).sum()  # noqa: E731
    want = torch.func.vmap(torch.func.grad(f))(torch.tensor(x))
    got = nt.func.vmap(nt.func.grad(f))(nt.tensor(x))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)


@pytest.mark.parametrize("use", ["add", "exp", "sum", "matmul"])
def test_escaped_batched_tensor_message(use):
    """A batched tensor that escaped its vmap raises PyTorch's RuntimeError, naming the escape."""
    ops = {"add": lambda e, T: e + 1, "exp": lambda e, T: e.exp(), "sum": lambda e, T: e.sum(),
           "matmul": lambda e, T: e @ T.ones(4)}
    msgs = []
    for T in (torch, nt):
        box = []
        T.func.vmap(lambda a: (box.append(a), a)[1])(T.ones(3, 4))
        with pytest.raises(RuntimeError) as info:
            ops[use](box[0], T)
        msgs.append(str(info.value))
    assert "escaped from inside a function being vmapped" in msgs[0]
    assert "escaped from inside a function being vmapped" in msgs[1]


@pytest.mark.parametrize("in_dims", [0, 1])
def test_one_hot_under_vmap(in_dims):
    t = _R.randint(0, 4, (3, 5))
    f = lambda T: T.func.vmap(lambda b: T.nn.functional.one_hot(b, 4) * 2, in_dims=in_dims)  # noqa: E731
    want, got = f(torch)(torch.tensor(t)), f(nt)(nt.tensor(t))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    nested = lambda T: T.func.vmap(T.func.vmap(lambda b: T.nn.functional.one_hot(b, 5)))  # noqa: E731
    np.testing.assert_array_equal(nested(nt)(nt.tensor(t)).numpy(), nested(torch)(torch.tensor(t)).numpy())
    for T in (torch, nt):  # num_classes=-1 would be data-dependent
        with pytest.raises(RuntimeError, match="explicit positive num_classes"):
            T.func.vmap(lambda b: T.nn.functional.one_hot(b))(T.tensor(t))


_INT_CASES = {
    "median": lambda T, a: a.median(),
    "float_median": lambda T, a: (a * 1.5).median(),
    "nanmedian": lambda T, a: T.where(a > 3, float("nan"), a * 1.0).nanmedian(),
    "bitwise_and": lambda T, a: a & 3,
    "bitwise_or_tensor": lambda T, a: a | a.flip(0),
    "bitwise_xor": lambda T, a: T.bitwise_xor(a, 5),
    "bitwise_not": lambda T, a: ~a,
    "lshift": lambda T, a: a << 2,
    "rshift_tensor": lambda T, a: a >> a.abs().clamp(max=3),
    "logical_not": lambda T, a: T.logical_not(a),
    "bool_and": lambda T, a: (a > 0) & (a < 3),
}


@pytest.mark.parametrize("name", sorted(_INT_CASES))
def test_int_ops_under_vmap(name):
    f = _INT_CASES[name]
    want = torch.func.vmap(torch.func.vmap(lambda a: f(torch, a)), in_dims=1)(torch.tensor(_I).long())
    got = nt.func.vmap(nt.func.vmap(lambda a: f(nt, a)), in_dims=1)(nt.tensor(_I).long())
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_median_grad_under_vmap():
    x = _R.randn(4, 5).astype(np.float32)
    for fn in ("median", "nanmedian"):
        want = torch.func.vmap(torch.func.grad(lambda a: getattr(a, fn)() * 2))(torch.tensor(x))
        got = nt.func.vmap(nt.func.grad(lambda a: getattr(a, fn)() * 2))(nt.tensor(x))
        np.testing.assert_allclose(got.numpy(), want.numpy())


_SEQ = np.sort(_R.randn(3, 6).astype(np.float32), 1)
_VAL = _R.randn(3, 2, 4).astype(np.float32)
_SS_CASES = {
    "both": ((0, 0), lambda T, s, v: T.searchsorted(s, v)),
    "seq_unbatched": ((None, 0), lambda T, s, v: T.searchsorted(s, v, right=True)),
    "values_unbatched": ((0, None), lambda T, s, v: T.searchsorted(s, v, out_int32=True)),
    "bucketize": ((0, 0), lambda T, s, v: T.bucketize(v, s)),
    "bucketize_side": ((0, 1), lambda T, s, v: T.bucketize(v, s, right=True)),
    "nd_seq": ((0, 0), lambda T, s, v: T.searchsorted(s.expand(2, 6), v[:, :3], side="right")),
    "scalar": ((0, 0), lambda T, s, v: T.searchsorted(s, 0.1) + v.sum().long() * 0),
}


@pytest.mark.parametrize("name", sorted(_SS_CASES))
def test_searchsorted_under_vmap(name):
    in_dims, f = _SS_CASES[name]
    seq = _SEQ if in_dims[0] is not None else _SEQ[0]
    val = _VAL if in_dims[1] != 1 else np.moveaxis(_VAL, 0, 1).copy()
    val = _VAL[0] if in_dims[1] is None else val
    want = torch.func.vmap(lambda s, v: f(torch, s, v), in_dims=in_dims)(torch.tensor(seq), torch.tensor(val))
    got = nt.func.vmap(lambda s, v: f(nt, s, v), in_dims=in_dims)(nt.tensor(seq), nt.tensor(val))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
