"""Shape and view ops: differential tests against PyTorch (values, gradients, grad_fn names,
view-vs-copy), memory sharing and version counters, gradcheck, error types/messages, properties."""
import re
import warnings

import numpy as np
import pytest
import torch as ref
from hypothesis import given, settings, strategies as st

import numtorch as nt
from conftest import assert_close, to_nt, to_ref

rng = np.random.default_rng(0)

# (id, input shapes, fn(M, *inputs)) where M is either the numtorch or the torch module.
CASES = [
    ("view", [(2, 3, 4)], lambda M, x: x.view(6, 4)),
    ("view_tuple", [(2, 3, 4)], lambda M, x: x.view((4, -1))),
    ("view_size", [(2, 3, 4)], lambda M, x: x.view(M.Size([24]))),
    ("view_0d", [()], lambda M, x: x.view(1, 1)),
    ("view_as", [(2, 3, 4)], lambda M, x: x.view_as(M.zeros(4, 6))),
    ("reshape_view", [(2, 3, 4)], lambda M, x: x.reshape(-1)),
    ("reshape_copy", [(2, 3, 4)], lambda M, x: x.transpose(0, 2).reshape(4, 6)),
    ("reshape_fn", [(2, 3, 4)], lambda M, x: M.reshape(x, (3, 8))),
    ("reshape_as", [(2, 3, 4)], lambda M, x: x.reshape_as(M.zeros(6, 4))),
    ("flatten", [(2, 3, 4)], lambda M, x: x.flatten()),
    ("flatten_1", [(2, 3, 4)], lambda M, x: M.flatten(x, 1)),
    ("flatten_nc", [(2, 3, 4)], lambda M, x: x.transpose(0, 1).flatten(0, 1)),
    ("flatten_0d", [()], lambda M, x: x.flatten()),
    ("unflatten", [(2, 3, 4)], lambda M, x: x.unflatten(2, (2, 2))),
    ("unflatten_neg", [(2, 3, 4)], lambda M, x: M.unflatten(x, -1, (-1, 2))),
    ("ravel", [(2, 3)], lambda M, x: x.ravel()),
    ("ravel_nc", [(2, 3)], lambda M, x: M.ravel(x.mT)),
    ("permute", [(2, 3, 4)], lambda M, x: x.permute(2, 0, 1)),
    ("permute_fn", [(2, 3, 4)], lambda M, x: M.permute(x, (1, -1, 0))),
    ("transpose", [(2, 3, 4)], lambda M, x: x.transpose(0, -1)),
    ("swapaxes", [(2, 3, 4)], lambda M, x: M.swapaxes(x, 1, 2)),
    ("swapdims", [(2, 3, 4)], lambda M, x: x.swapdims(0, 1)),
    ("t", [(2, 3)], lambda M, x: x.t()),
    ("t_1d", [(3,)], lambda M, x: M.t(x)),
    ("T", [(2, 3)], lambda M, x: x.T),
    ("mT", [(2, 3, 4)], lambda M, x: x.mT),
    ("H", [(2, 3)], lambda M, x: x.H),
    ("mH", [(2, 3, 4)], lambda M, x: x.mH),
    ("movedim", [(2, 3, 4)], lambda M, x: x.movedim(0, -1)),
    ("movedim_tuple", [(2, 3, 4)], lambda M, x: M.movedim(x, (0, 1), (2, 0))),
    ("moveaxis", [(2, 3, 4)], lambda M, x: M.moveaxis(x, 2, 0)),
    ("squeeze", [(1, 3, 1, 2)], lambda M, x: x.squeeze()),
    ("squeeze_dim", [(1, 3, 1, 2)], lambda M, x: x.squeeze(-2)),
    ("squeeze_noop", [(1, 3, 1, 2)], lambda M, x: M.squeeze(x, 1)),
    ("squeeze_tuple", [(1, 3, 1, 2)], lambda M, x: x.squeeze((0, 1, 2))),
    ("unsqueeze", [(2, 3)], lambda M, x: x.unsqueeze(1)),
    ("unsqueeze_neg", [(2, 3)], lambda M, x: M.unsqueeze(x, -1)),
    ("unsqueeze_0d", [()], lambda M, x: x.unsqueeze(0)),
    ("expand", [(3, 1)], lambda M, x: x.expand(2, 3, 4)),
    ("expand_neg", [(3, 1)], lambda M, x: x.expand(-1, 5)),
    ("expand_tuple", [(3, 1)], lambda M, x: x.expand((2, 3, 4))),
    ("expand_same", [(3, 1)], lambda M, x: x.expand(3, 1)),
    ("expand_as", [(3, 1)], lambda M, x: x.expand_as(M.zeros(2, 3, 4))),
    ("broadcast_to", [(3, 1)], lambda M, x: M.broadcast_to(x, (2, 3, 4))),
    ("broadcast_tensors", [(3, 1), (1, 4)], lambda M, x, y: M.broadcast_tensors(x, y)),
    ("repeat", [(2, 3)], lambda M, x: x.repeat(2, 1, 3)),
    ("repeat_tuple", [(2, 3)], lambda M, x: x.repeat((1, 2))),
    ("repeat_zero", [(2, 3)], lambda M, x: x.repeat(0, 2)),
    ("tile", [(2, 3)], lambda M, x: M.tile(x, (2,))),
    ("tile_method", [(2, 3)], lambda M, x: x.tile(2, 1, 1)),
    ("repeat_interleave", [(2, 3)], lambda M, x: x.repeat_interleave(2, dim=1)),
    ("repeat_interleave_flat", [(2, 3)], lambda M, x: M.repeat_interleave(x, 3)),
    ("repeat_interleave_t", [(2, 3)], lambda M, x: x.repeat_interleave(M.tensor([1, 0, 2]), dim=1)),
    ("repeat_interleave_t1", [(2, 3)], lambda M, x: x.repeat_interleave(M.tensor([2]), dim=0)),
    ("cat", [(2, 3), (2, 4)], lambda M, x, y: M.cat([x, y], 1)),
    ("cat_neg", [(2, 3), (1, 3)], lambda M, x, y: M.cat((x, y, x), -2)),
    ("concat", [(2, 3), (1, 3)], lambda M, x, y: M.concat([x, y])),
    ("concatenate", [(2, 3), (1, 3)], lambda M, x, y: M.concatenate([x, y], axis=0)),
    ("cat_legacy_empty", [(2, 3)], lambda M, x: M.cat([x, M.zeros(0, dtype=x.dtype)], 1)),
    ("stack", [(2, 3), (2, 3)], lambda M, x, y: M.stack([x, y])),
    ("stack_neg", [(2, 3), (2, 3)], lambda M, x, y: M.stack([x, y, x], -1)),
    ("stack_mid", [(2, 3), (2, 3)], lambda M, x, y: M.stack((x, y), 1)),
    ("stack_0d", [(), ()], lambda M, x, y: M.stack([x, y])),
    ("hstack", [(2, 3), (2, 4)], lambda M, x, y: M.hstack([x, y])),
    ("hstack_1d", [(3,), (2,)], lambda M, x, y: M.hstack([x, y])),
    ("vstack", [(2, 3), (3,)], lambda M, x, y: M.vstack([x, y])),
    ("row_stack", [(2, 3), (3,)], lambda M, x, y: M.row_stack([x, y])),
    ("dstack", [(2, 3), (2, 3)], lambda M, x, y: M.dstack([x, y])),
    ("dstack_1d", [(3,), (3,)], lambda M, x, y: M.dstack([x, y])),
    ("split", [(3, 5)], lambda M, x: x.split(2, 1)),
    ("split_list", [(3, 5)], lambda M, x: M.split(x, [1, 4], 1)),
    ("split_one", [(3, 5)], lambda M, x: x.split(3)),
    ("chunk", [(3, 5)], lambda M, x: x.chunk(3, 1)),
    ("chunk_fn", [(3, 5)], lambda M, x: M.chunk(x, 2)),
    ("tensor_split", [(3, 5)], lambda M, x: x.tensor_split(3, 1)),
    ("tensor_split_idx", [(3, 5)], lambda M, x: M.tensor_split(x, [1, 4], dim=1)),
    ("unbind", [(3, 4)], lambda M, x: x.unbind(1)),
    ("unbind_fn", [(3,)], lambda M, x: M.unbind(x)),
    ("narrow", [(3, 5)], lambda M, x: x.narrow(1, 1, 3)),
    ("narrow_neg", [(3, 5)], lambda M, x: M.narrow(x, -1, -2, 2)),
    ("select", [(3, 5)], lambda M, x: x.select(1, 2)),
    ("select_neg", [(3, 5)], lambda M, x: M.select(x, 0, -1)),
    ("select_1d", [(4,)], lambda M, x: x.select(0, 1)),
    ("flip", [(2, 3, 4)], lambda M, x: x.flip(0, 2)),
    ("flip_fn", [(2, 3, 4)], lambda M, x: M.flip(x, (1,))),
    ("fliplr", [(2, 3, 4)], lambda M, x: M.fliplr(x)),
    ("flipud", [(2, 3)], lambda M, x: x.flipud()),
    ("roll", [(2, 3, 4)], lambda M, x: x.roll(1, 0)),
    ("roll_multi", [(2, 3, 4)], lambda M, x: M.roll(x, (1, -2), (0, 2))),
    ("roll_flat", [(2, 3, 4)], lambda M, x: x.roll(5)),
    ("rot90", [(2, 3, 4)], lambda M, x: M.rot90(x)),
    ("rot90_k", [(2, 3, 4)], lambda M, x: x.rot90(3, (1, 2))),
    ("rot90_neg", [(2, 3, 4)], lambda M, x: M.rot90(x, -1, (0, 2))),
    ("tril", [(3, 4)], lambda M, x: x.tril()),
    ("tril_k", [(2, 3, 4)], lambda M, x: M.tril(x, -1)),
    ("triu", [(3, 4)], lambda M, x: x.triu(1)),
    ("triu_batch", [(2, 4, 3)], lambda M, x: M.triu(x)),
    ("diagonal", [(3, 4)], lambda M, x: x.diagonal()),
    ("diagonal_off", [(3, 4, 5)], lambda M, x: M.diagonal(x, 1, 0, 2)),
    ("diagonal_neg", [(3, 4, 5)], lambda M, x: x.diagonal(-1, -1, -2)),
    ("diag_1d", [(3,)], lambda M, x: M.diag(x)),
    ("diag_1d_off", [(3,)], lambda M, x: x.diag(-2)),
    ("diag_2d", [(3, 4)], lambda M, x: x.diag(1)),
    ("diag_embed", [(2, 3)], lambda M, x: M.diag_embed(x)),
    ("diag_embed_off", [(2, 3)], lambda M, x: M.diag_embed(x, 1, 0, 2)),
    ("clone", [(2, 3)], lambda M, x: x.clone()),
    ("clone_fn", [(2, 3)], lambda M, x: M.clone(x.mT)),
    ("contiguous", [(2, 3)], lambda M, x: x.mT.contiguous()),
    ("contiguous_self", [(2, 3)], lambda M, x: x.contiguous()),
    ("atleast_1d", [()], lambda M, x: M.atleast_1d(x)),
    ("atleast_2d", [(3,)], lambda M, x: M.atleast_2d(x)),
    ("atleast_2d_many", [(), (2, 3)], lambda M, x, y: M.atleast_2d(x, y)),
    ("atleast_3d", [(2, 3)], lambda M, x: M.atleast_3d(x)),
    ("atleast_3d_1d", [(3,)], lambda M, x: M.atleast_3d([x])),
]
IDS = [c[0] for c in CASES]


def _inputs(shapes, dtype, requires_grad=True):
    arrs = [np.asarray(rng.standard_normal(s)).astype(dtype) for s in shapes]
    return ([to_nt(a, requires_grad) for a in arrs], [to_ref(a, requires_grad) for a in arrs])


def _tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def _node(t):
    return type(t.grad_fn).__name__ if t.grad_fn is not None else None


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_matches_torch(case, fdtype):
    """Forward values, dtypes, grad_fn names and gradients agree with PyTorch."""
    _, shapes, fn = case
    xs, rs = _inputs(shapes, fdtype)
    outs, routs = _tuple(fn(nt, *xs)), _tuple(fn(ref, *rs))
    assert len(outs) == len(routs)
    for o, r in zip(outs, routs):
        assert_close(o, r)
        assert _node(o) == _node(r)
    gos = [rng.standard_normal(r.shape).astype(fdtype) for r in routs]
    diff = [(o, r, g) for o, r, g in zip(outs, routs, gos) if r.requires_grad]
    rgrads = ref.autograd.grad([r for _, r, _ in diff], rs, [ref.from_numpy(g) for *_, g in diff], allow_unused=True)
    grads = nt.autograd.grad([o for o, _, _ in diff], xs, [nt.tensor(g) for *_, g in diff], allow_unused=True)
    for x, g, rg in zip(xs, grads, rgrads):
        if rg is None:
            assert g is None or not g.numpy().any()
        else:
            assert g.dtype == x.dtype
            assert_close(g, rg)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradcheck(case):
    _, shapes, fn = case
    xs, _ = _inputs(shapes, np.float64)
    assert nt.autograd.gradcheck(lambda *a: fn(nt, *a), xs)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_view_or_copy_like_torch(case):
    """Where PyTorch returns a view (shares storage), so does numtorch, and vice versa."""
    _, shapes, fn = case
    xs, rs = _inputs(shapes, np.float32, requires_grad=False)
    for o, r in zip(_tuple(fn(nt, *xs)), _tuple(fn(ref, *rs))):
        shares = any(np.shares_memory(o.numpy(), x.numpy()) for x in xs)
        assert shares == any(r.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() for x in rs)


# ------------------------------------------------------------------------------------------------
# memory sharing and version counters
# ------------------------------------------------------------------------------------------------
VIEWS = [
    lambda x: x.view(6, 4), lambda x: x.reshape(4, 6), lambda x: x.transpose(0, 2), lambda x: x.permute(1, 2, 0),
    lambda x: x.unsqueeze(1), lambda x: x.unsqueeze(0).squeeze(0), lambda x: x.narrow(1, 1, 2),
    lambda x: x.select(2, 3), lambda x: x.split(1, 1)[1], lambda x: x.chunk(2, 2)[1], lambda x: x.unbind(0)[1],
    lambda x: x.diagonal(0, 1, 2), lambda x: x.mT, lambda x: x.unflatten(2, (2, 2)), lambda x: x.flatten(1),
    lambda x: x.select(0, 0).T, lambda x: x.movedim(0, 2), lambda x: x.expand(1, 2, 3, 4), lambda x: x.view(nt.int32),
]


@pytest.mark.parametrize("i", range(len(VIEWS)))
def test_views_share_memory_and_version(i):
    x = to_nt(rng.standard_normal((2, 3, 4)).astype(np.float32))
    y = VIEWS[i](x)
    assert y._base is x
    before = y.numpy().copy()
    x.add_(1)
    assert x._version == y._version == 1
    assert not np.array_equal(y.numpy(), before)  # the view sees the write
    y.mul_(0)
    assert x._version == y._version == 2
    assert np.shares_memory(x.numpy(), y.numpy())


def test_view_of_view_has_root_base_and_writes_through():
    x = nt.zeros(2, 3)
    v = x.view(3, 2).transpose(0, 1).select(0, 1)
    assert v._base is x
    v.fill_(5)
    np.testing.assert_array_equal(x.numpy(), [[0, 5, 0], [5, 0, 5]])


def test_modified_view_invalidates_saved_tensor():
    x = to_nt(rng.standard_normal((2, 3)), requires_grad=True)
    y = x * 1
    v = y.view(6)
    z = v * v  # saves v
    with nt.no_grad():
        y.view(3, 2).add_(1)  # in-place through another view of the same base
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward(nt.ones(6, dtype=nt.float64))


def test_view_not_viewable_message_and_reshape_copies():
    x = nt.zeros(2, 3)
    msg = ("view size is not compatible with input tensor's size and stride (at least one dimension spans across "
           "two contiguous subspaces). Use .reshape(...) instead.")
    with pytest.raises(RuntimeError, match=re.escape(msg)):
        x.t().view(6)
    y = x.t().reshape(6)
    assert y._base is None and not np.shares_memory(y.numpy(), x.numpy())
    np.testing.assert_array_equal(x.t().reshape(6).numpy(), x.numpy().T.reshape(6))


def test_contiguous_and_clone():
    x = nt.zeros(2, 3)
    assert x.contiguous() is x
    c = x.t().contiguous()
    assert c.is_contiguous() and not np.shares_memory(c.numpy(), x.numpy())
    r = ref.zeros(2, 3)
    assert x.t().clone().stride() == r.t().clone().stride()  # clone keeps the layout, like PyTorch
    assert x.clone().numpy() is not x.numpy()


def test_flatten_same_dim_returns_input():
    x = nt.zeros(2, 3)
    assert x.flatten(1, 1) is x and nt.atleast_2d(x) is x


@pytest.mark.parametrize("dt", ["int32", "float16", "float64", "uint8"])
def test_view_dtype(dt):
    a = rng.standard_normal((2, 4)).astype(np.float32)
    x, r = to_nt(a, requires_grad=True), to_ref(a, requires_grad=True)
    y, ry = x.view(getattr(nt, dt)), r.view(getattr(ref, dt))
    assert y.shape == tuple(ry.shape) and str(y.dtype) == str(ry.dtype)
    np.testing.assert_array_equal(y.numpy().view(np.uint8), ry.numpy().view(np.uint8))
    assert not y.requires_grad and y._base is x


def test_cat_type_promotion_and_grad_dtypes():
    a = to_nt(np.ones((2, 2), np.float32), requires_grad=True)
    b = to_nt(np.ones((1, 2), np.float64), requires_grad=True)
    c = nt.cat([a, b])
    assert c.dtype == nt.float64
    c.backward(nt.ones(3, 2, dtype=nt.float64))
    assert a.grad.dtype == nt.float32 and b.grad.dtype == nt.float64
    for dts in [("int64", "float16"), ("int32", "bool"), ("uint8", "int8")]:
        for join in ("cat", "stack"):
            got = getattr(nt, join)([nt.zeros(2, dtype=getattr(nt, d)) for d in dts]).dtype
            want = getattr(ref, join)([ref.zeros(2, dtype=getattr(ref, d)) for d in dts]).dtype
            assert str(got) == str(want)


def test_int_tensors_work_without_grad():
    x = nt.arange(12).view(3, 4)
    assert x.t().contiguous().view(-1).tolist() == ref.arange(12).view(3, 4).t().contiguous().view(-1).tolist()
    assert nt.cat([x, x], 1).dtype == nt.int64 and not nt.cat([x, x]).requires_grad


def test_split_partial_grads_are_zero_filled():
    x = to_nt(rng.standard_normal((5, 2)), requires_grad=True)
    a, b, c = x.split(2)
    b.backward(nt.ones(2, 2, dtype=nt.float64))
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0], [0, 0], [1, 1], [1, 1], [0, 0]])


def test_T_warns_like_torch():
    for shape in [(3,), (2, 3, 4), ()]:
        with pytest.warns(UserWarning):
            nt.zeros(*shape).T
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nt.zeros(2, 3).T.shape == (3, 2)


def test_out_argument():
    out = nt.zeros(1)
    r = nt.cat([nt.ones(2), nt.ones(3)], out=out)
    assert r is out and out.shape == (5,)


# ------------------------------------------------------------------------------------------------
# errors: same type and message as PyTorch
# ------------------------------------------------------------------------------------------------
ERRORS = [
    lambda M: M.zeros(2, 3).t().view(6),
    lambda M: M.zeros(2, 3).view(4),
    lambda M: M.zeros(2, 3).view(-1, -1),
    lambda M: M.zeros(2, 3).view(-1, 4),
    lambda M: M.zeros(2, 3).view(-2, 3),
    lambda M: M.zeros(0, 3).view(-1, 0),
    lambda M: M.zeros(2, 3).reshape(5),
    lambda M: M.zeros(2, 3).view(M.float64),
    lambda M: M.zeros(()).view(M.float16),
    lambda M: M.zeros(2, 3).t().view(M.float16),
    lambda M: M.zeros(2, 3).flatten(1, 0),
    lambda M: M.zeros(2, 3).flatten(0, 5),
    lambda M: M.zeros(2, 3).unflatten(1, (2, 2)),
    lambda M: M.zeros(2, 3).unflatten(1, ()),
    lambda M: M.zeros(2, 3).permute(0),
    lambda M: M.zeros(2, 3).permute(0, 0),
    lambda M: M.zeros(2, 3).permute(0, 2),
    lambda M: M.zeros(2, 3).transpose(0, 2),
    lambda M: M.zeros(2, 3, 4).t(),
    lambda M: M.zeros(2, 3, 4).movedim((0, 0), (1, 2)),
    lambda M: M.zeros(2, 3, 4).movedim((0, 1), (1,)),
    lambda M: M.zeros(2, 3).squeeze(3),
    lambda M: M.zeros(2, 3).squeeze((0, 0)),
    lambda M: M.zeros(2, 3).unsqueeze(4),
    lambda M: M.zeros(2, 3).unsqueeze(-4),
    lambda M: M.zeros(2, 3).expand(2, 4),
    lambda M: M.zeros(2, 3).expand(3),
    lambda M: M.zeros(2, 3).expand(-1, 2, 3),
    lambda M: M.zeros(2, 3).expand(2, -2),
    lambda M: M.broadcast_to(M.zeros(2, 3), (4,)),
    lambda M: M.broadcast_tensors(M.zeros(2, 3), M.zeros(4)),
    lambda M: M.zeros(2, 3).repeat(2),
    lambda M: M.zeros(2, 3).repeat(-1, 1),
    lambda M: M.zeros(2, 3).tile(-1),
    lambda M: M.zeros(2, 3).repeat_interleave(M.tensor([1, 2, 3]), dim=0),
    lambda M: M.zeros(2, 3).repeat_interleave(-1),
    lambda M: M.cat([M.zeros(2, 3), M.zeros(3, 3)], 1),
    lambda M: M.cat([M.zeros(2, 3), M.zeros(2, 3)], 2),
    lambda M: M.cat([]),
    lambda M: M.cat([M.tensor(1.), M.tensor(2.)]),
    lambda M: M.cat([M.zeros(2, 3), M.zeros(3)]),
    lambda M: M.cat([M.zeros(2, 3), 1]),
    lambda M: M.cat(M.zeros(2, 3)),
    lambda M: M.stack([M.zeros(2, 3), M.zeros(3, 2)]),
    lambda M: M.stack([]),
    lambda M: M.stack([M.zeros(2, 3)], 4),
    lambda M: M.zeros(2, 3).split(0),
    lambda M: M.zeros(2, 3).split(-1),
    lambda M: M.zeros(2, 3).split([1, 1], 1),
    lambda M: M.zeros(()).split(1),
    lambda M: M.zeros(2, 3).chunk(0),
    lambda M: M.zeros(2, 3).narrow(1, 2, 2),
    lambda M: M.zeros(2, 3).narrow(1, 0, -1),
    lambda M: M.zeros(2, 3).narrow(1, 4, 0),
    lambda M: M.zeros(()).narrow(0, 0, 1),
    lambda M: M.zeros(2, 3).select(1, 3),
    lambda M: M.zeros(2, 3).select(1, -4),
    lambda M: M.zeros(()).select(0, 0),
    lambda M: M.zeros(()).unbind(),
    lambda M: M.zeros(2, 3).flip(0, 0),
    lambda M: M.zeros(2, 3).flip(2),
    lambda M: M.zeros(3).fliplr(),
    lambda M: M.zeros(()).flipud(),
    lambda M: M.zeros(2, 3).roll((1, 2), (0,)),
    lambda M: M.zeros(2, 3).roll((1, 2)),
    lambda M: M.zeros(2, 3).rot90(1, (0, 0)),
    lambda M: M.zeros(3).rot90(),
    lambda M: M.zeros(2, 3).rot90(1, (0,)),
    lambda M: M.zeros(3).tril(),
    lambda M: M.zeros(3).triu(),
    lambda M: M.zeros(2, 3).diagonal(0, 0, 0),
    lambda M: M.zeros(3).diagonal(),
    lambda M: M.zeros(2, 3, 4).diag(),
    lambda M: M.zeros(2, 3, 4).H,
    lambda M: M.zeros(3).H,
    lambda M: M.zeros(3).mT,
    lambda M: M.zeros(3).mH,
    lambda M: M.zeros(2, 3).view_as(M.zeros(5)),
]


def _error(fn, M):
    with pytest.raises(Exception) as info:
        fn(M)
    return type(info.value), str(info.value).split("\n")[0]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_match_torch(i):
    etype, msg = _error(ERRORS[i], ref)
    ntype, nmsg = _error(ERRORS[i], nt)
    assert ntype is etype, (nmsg, msg)
    assert nmsg == msg


def test_type_errors():
    with pytest.raises(TypeError):
        nt.zeros(2, 3).view(2.0, 3)
    with pytest.raises(TypeError):
        nt.zeros(2, 3).unsqueeze(1.0)
    with pytest.raises(TypeError):
        nt.zeros(2, 3).permute("a", 0)


# ------------------------------------------------------------------------------------------------
# property tests
# ------------------------------------------------------------------------------------------------
shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


@settings(max_examples=30, deadline=None)
@given(shape=shapes, data=st.data())
def test_permute_reshape_round_trip(shape, data):
    perm = tuple(data.draw(st.permutations(range(len(shape)))))
    a = rng.standard_normal(shape).astype(np.float32)
    x, r = to_nt(a, requires_grad=True), to_ref(a, requires_grad=True)
    p, rp = x.permute(perm), r.permute(perm)
    flat, rflat = p.reshape(-1), rp.reshape(-1)
    assert_close(flat, rflat)
    assert (flat._base is not None) == rflat._is_view()  # view-or-copy decided like PyTorch
    back = flat.reshape(p.shape).permute(tuple(np.argsort(perm)))
    np.testing.assert_array_equal(back.detach().numpy(), a)
    g = rng.standard_normal(a.shape).astype(np.float32)
    back.backward(nt.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), g)


@settings(max_examples=30, deadline=None)
@given(shape=shapes, data=st.data())
def test_view_compatibility_matches_torch(shape, data):
    """After a transpose, viewing to a random factorization fails exactly when PyTorch's does."""
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    d0, d1 = data.draw(st.integers(0, len(shape) - 1)), data.draw(st.integers(0, len(shape) - 1))
    x, r = to_nt(a).transpose(d0, d1), to_ref(a).transpose(d0, d1)
    n = a.size
    target = tuple(data.draw(st.lists(st.sampled_from([k for k in range(1, n + 1) if n % k == 0]),
                                      min_size=1, max_size=3)))
    rest = n // int(np.prod(target)) if n % int(np.prod(target)) == 0 else None
    if rest is None:
        return
    target = target + (rest,)
    try:
        rv = r.view(target)
    except RuntimeError:
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            x.view(target)
        return
    v = x.view(target)
    np.testing.assert_array_equal(v.numpy(), rv.numpy())
    assert np.shares_memory(v.numpy(), x.numpy())


@settings(max_examples=30, deadline=None)
@given(shape=shapes, data=st.data())
def test_broadcast_round_trip(shape, data):
    """expand / broadcast_tensors: values as NumPy broadcasting, gradients summed back like PyTorch."""
    small = tuple(s if data.draw(st.booleans()) else 1 for s in shape)
    small = small[data.draw(st.integers(0, len(small))):]  # drop some leading dims
    a = rng.standard_normal(small).astype(np.float64)
    x, r = to_nt(a, requires_grad=True), to_ref(a, requires_grad=True)
    y, ry = x.expand(shape), r.expand(shape)
    np.testing.assert_array_equal(y.detach().numpy(), np.broadcast_to(a, shape))
    g = rng.standard_normal(shape)
    y.backward(nt.tensor(g))
    ry.backward(ref.from_numpy(g))
    assert_close(x.grad, r.grad)
    bx, by = nt.broadcast_tensors(to_nt(a), nt.zeros(*shape))
    assert bx.shape == by.shape == shape
