"""Differential tests of PyTorch's lower-level (ATen) operators numtorch provides (``_ops/aten_internals.py``,
``_ops/native_norms.py``, the deprecated ``F.upsample*``) and of ``numtorch.ops.aten``: values, dtypes,
shapes, gradients, in-place semantics and exception types against torch, beyond the OpInfo samples."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import numtorch
import numtorch.nn.functional as NF


def nt(x, grad=False):
    t = numtorch.tensor(x.detach().numpy().copy())
    return t.requires_grad_(True) if grad else t


def same(n, t, tol=1e-6):
    assert tuple(n.shape) == tuple(t.shape)
    assert str(n.dtype) == str(t.dtype)
    np.testing.assert_allclose(n.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def raises_alike(tcall, ncall):
    with pytest.raises(Exception) as te:
        tcall()
    with pytest.raises(Exception) as ne:
        ncall()
    assert type(ne.value).__name__ == type(te.value).__name__, (ne.value, te.value)


# ---- torch.ops.aten ---------------------------------------------------------------------------------
def test_ops_aten_resolves_aten_only_and_public_names():
    x = torch.arange(10.)
    same(numtorch.ops.aten.slice.Tensor(nt(x), 0, 2, None, 3), torch.ops.aten.slice.Tensor(x, 0, 2, None, 3))
    same(numtorch.ops.aten.slice(nt(x), 0, -50, 3), torch.ops.aten.slice(x, 0, -50, 3))
    same(numtorch.ops.aten.constant_pad_nd(nt(x), [1, 2]), torch.ops.aten.constant_pad_nd(x, [1, 2]))
    with pytest.raises(AttributeError):
        numtorch.ops.aten.no_such_operator_xyz


def test_slice_is_a_view_and_checks():
    x = torch.randn(4, 6)
    n = nt(x)
    v = numtorch.ops.aten.slice(n, 1, 1, 5, 2)
    v.mul_(0)
    assert float(n[:, 1].abs().sum()) == 0 and float(n[:, 3].abs().sum()) == 0
    raises_alike(lambda: torch.ops.aten.slice(x, 0, 0, 2, 0), lambda: numtorch.ops.aten.slice(n, 0, 0, 2, 0))
    raises_alike(lambda: torch.ops.aten.slice(x, 2), lambda: numtorch.ops.aten.slice(n, 2))


# ---- native norms -----------------------------------------------------------------------------------
@pytest.mark.quick
@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm_outputs_stats_and_grads(training):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 3, 5, generator=g, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, generator=g, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, generator=g, dtype=torch.float64, requires_grad=True)
    rm, rv = torch.randn(3, generator=g, dtype=torch.float64), torch.rand(3, generator=g, dtype=torch.float64) + 0.5
    nx, nw, nb, nrm, nrv = nt(x, True), nt(w, True), nt(b, True), nt(rm), nt(rv)
    tout = torch.native_batch_norm(x, w, b, rm, rv, training, 0.3, 1e-3)
    nout = numtorch.native_batch_norm(nx, nw, nb, nrm, nrv, training, 0.3, 1e-3)
    for a, c in zip(nout, tout):
        same(a, c)
        assert a.requires_grad == c.requires_grad
    same(nrm, rm)
    same(nrv, rv)
    gw = torch.randn(tout[0].shape, generator=g, dtype=torch.float64)
    tg = torch.autograd.grad(tout[0], (x, w, b), gw)
    ng = numtorch.autograd.grad(nout[0], (nx, nw, nb), nt(gw))
    for a, c in zip(ng, tg):
        same(a, c)


def test_native_batch_norm_legit_and_with_update():
    x = torch.randn(3, 2, 4, dtype=torch.float64)
    t = torch._native_batch_norm_legit(x, None, None, True, 0.1, 1e-5)
    n = numtorch._native_batch_norm_legit(nt(x), None, None, True, 0.1, 1e-5)
    for a, c in zip(n, t):
        same(a, c)
    rm, rv = torch.zeros(2, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    nrm, nrv = nt(rm), nt(rv)
    t = torch.ops.aten._batch_norm_with_update(x, None, None, rm, rv, 0.1, 1e-5)
    n = numtorch.ops.aten._batch_norm_with_update(nt(x), None, None, nrm, nrv, 0.1, 1e-5)
    assert len(n) == len(t) == 4
    for a, c in zip(n, t):
        same(a, c)
    same(nrm, rm)
    same(nrv, rv)


def test_native_layer_norm_stats_and_bias_only_grad():
    x = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    nx, nb = nt(x, True), nt(b, True)
    t = torch.native_layer_norm(x, (3, 4), None, b, 1e-5)
    n = numtorch.native_layer_norm(nx, (3, 4), None, nb, 1e-5)
    for a, c in zip(n, t):
        same(a, c)
    gw = torch.randn(2, 3, 4, dtype=torch.float64)
    for a, c in zip(numtorch.autograd.grad(n[0], (nx, nb), nt(gw)), torch.autograd.grad(t[0], (x, b), gw)):
        same(a, c)  # the bias gradient has the bias's shape when no weight is given


def test_native_group_norm_stats_are_differentiable():
    x = torch.randn(2, 6, 3, dtype=torch.float64, requires_grad=True)
    nx = nt(x, True)
    t = torch.native_group_norm(x, None, None, 2, 6, 3, 3, 1e-5)
    n = numtorch.native_group_norm(nx, None, None, 2, 6, 3, 3, 1e-5)
    ws = [torch.randn(o.shape, dtype=torch.float64) for o in t]
    for a, c in zip(n, t):
        same(a, c)
        assert a.requires_grad == c.requires_grad
    tg, = torch.autograd.grad(t, x, ws)
    ng, = numtorch.autograd.grad(n, nx, [nt(w) for w in ws])
    same(ng, tg)


def test_group_norm_of_an_empty_batch():
    x = torch.randn(0, 4, 3)
    same(NF.group_norm(nt(x), 2), torch.nn.functional.group_norm(x, 2))


# ---- fill / zero_ / resize_as_ / pads / splits -----------------------------------------------------------
def test_fill_out_of_place_and_tensor_value_grad():
    x = torch.randn(3, 2)
    v = torch.tensor(2.5, requires_grad=True)
    nv = nt(v, True)
    t, n = torch.fill(x, v), numtorch.fill(nt(x), nv)
    same(n, t)
    t.sum().backward()
    n.sum().backward()
    same(nv.grad, v.grad)
    same(numtorch.fill(nt(torch.tensor([1, 2])), 2.7), torch.fill(torch.tensor([1, 2]), 2.7))
    raises_alike(lambda: torch.fill(x, torch.ones(2)), lambda: numtorch.fill(nt(x), numtorch.ones(2)))


@pytest.mark.parametrize("op", ["zero_", "fill_"])
def test_inplace_fill_of_a_tensor_requiring_grad_cuts_its_history(op):
    x = torch.randn(4, requires_grad=True)
    nx = nt(x, True)
    args = () if op == "zero_" else (3.0,)
    y = getattr(x * 2, op)(*args)
    ny = getattr(nx * 2, op)(*args)
    assert ny.requires_grad and type(ny.grad_fn).__name__ == type(y.grad_fn).__name__
    (y * torch.arange(4.)).sum().backward()
    (ny * numtorch.arange(4.)).sum().backward()
    same(nx.grad, x.grad)


def test_resize_as_and_resolve_neg():
    a, b = torch.randn(2, 3), torch.randn(6)
    na = nt(a)
    assert torch.resize_as_(a, b) is a and numtorch.resize_as_(na, nt(b)) is na
    assert tuple(na.shape) == (6,)
    x = nt(torch.randn(3))
    assert numtorch.resolve_neg(x) is x and x.resolve_neg() is x


def test_constant_pad_nd_negative_and_int():
    x = torch.arange(12).reshape(3, 4)
    same(numtorch.constant_pad_nd(nt(x), [-1, 2, 1, 0], 7), torch.constant_pad_nd(x, [-1, 2, 1, 0], 7))


def test_unsafe_split_and_chunk_grads():
    x = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
    nx = nt(x, True)
    for tf, nf in ((lambda: torch.unsafe_split(x, 2), lambda: numtorch.unsafe_split(nx, 2)),
                   (lambda: x.unsafe_chunk(3, 1), lambda: nx.unsafe_chunk(3, 1))):
        t, n = tf(), nf()
        assert len(t) == len(n)
        for a, c in zip(n, t):
            same(a, c)
        tg, = torch.autograd.grad(sum((p * (i + 1)).sum() for i, p in enumerate(t)), x)
        ng, = numtorch.autograd.grad(sum((p * (i + 1)).sum() for i, p in enumerate(n)), nx)
        same(ng, tg)


# ---- _chunk_cat, masked index, nonzero_static, empty_permuted ------------------------------------------
def test_chunk_cat_values_and_errors():
    ts = [torch.randn(2, 3), torch.randn(2, 5)]
    same(numtorch._chunk_cat([nt(t) for t in ts], 1, 2), torch._chunk_cat(ts, 1, 2))
    for args in (([torch.randn(2, 3), torch.randn(2, 3, dtype=torch.float64)], 1, 2), ([torch.zeros(0)], 0, 2),
                 ([torch.randn(2, 3)], 1, 0), ([torch.randn(2, 3)], 5, 2)):
        raises_alike(lambda: torch._chunk_cat(*args), lambda: numtorch._chunk_cat(*[
            [nt(t) for t in args[0]], *args[1:]]))


def test_unsafe_masked_index_and_put_accumulate():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
    mask = torch.rand(6, 6, generator=g) > 0.3
    i0 = torch.randint(-2, 7, (6, 1), generator=g)
    i1 = torch.randint(-2, 8, (1, 6), generator=g)
    ok = mask & (i0 >= 0) & (i0 < 4) & (i1 >= 0) & (i1 < 5)
    nx = nt(x, True)
    t = torch._unsafe_masked_index(x, ok, [i0, i1], -1.5)
    n = numtorch._unsafe_masked_index(nx, nt(ok), [nt(i0), nt(i1)], -1.5)
    same(n, t)
    vals = torch.randn(6, 6, dtype=torch.float64, requires_grad=True)
    nvals = nt(vals, True)
    t2 = torch._unsafe_masked_index_put_accumulate(x, ok, [i0, i1], vals)
    n2 = numtorch._unsafe_masked_index_put_accumulate(nx, nt(ok), [nt(i0), nt(i1)], nvals)
    same(n2, t2)
    tg = torch.autograd.grad((t.sum() + (t2 * t2).sum()), (x, vals))
    ng = numtorch.autograd.grad((n.sum() + (n2 * n2).sum()), (nx, nvals))
    for a, c in zip(ng, tg):
        same(a, c)
    same(numtorch._unsafe_masked_index(nx, nt(ok.int() * 2), [nt(i0), nt(i1)], 0.),
         torch._unsafe_masked_index(x, ok.int() * 2, [i0, i1], 0.))  # any nonzero mask value counts as True
    raises_alike(lambda: torch._unsafe_masked_index(x, ok, [i0.float(), i1], 0.),
                 lambda: numtorch._unsafe_masked_index(nx, nt(ok), [nt(i0.float()), nt(i1)], 0.))


@pytest.mark.parametrize("size,fill", [(0, -1), (2, -1), (7, 9)])
def test_nonzero_static(size, fill):
    x = torch.tensor([[0, 1, 3], [2, 0, 4]])
    same(numtorch.nonzero_static(nt(x), size=size, fill_value=fill), torch.nonzero_static(x, size=size,
                                                                                          fill_value=fill))
    same(nt(x).nonzero_static(size=size), x.nonzero_static(size=size))


def test_empty_permuted_layout_and_errors():
    n = numtorch.empty_permuted((2, 3, 4), (2, 0, 1), dtype=numtorch.float64)
    t = torch.empty_permuted((2, 3, 4), (2, 0, 1), dtype=torch.float64)
    assert tuple(n.shape) == tuple(t.shape) and n.stride() == t.stride() and n.dtype == numtorch.float64
    for args in (((2,), (0, 1)), ((2,), (3,)), ((2, 3), (0, 0)), ((2, 3), (-1, 0))):
        raises_alike(lambda: torch.empty_permuted(*args), lambda: numtorch.empty_permuted(*args))


# ---- softmax, dropout and pooling backward kernels -------------------------------------------------------
def test_softmax_backward_data_matches_autograd():
    x = torch.randn(3, 4, dtype=torch.float64)
    o = torch.softmax(x, 1)
    gout = torch.randn(3, 4, dtype=torch.float64)
    same(numtorch._softmax_backward_data(nt(gout), nt(o), 1, numtorch.float64),
         torch._softmax_backward_data(gout, o, 1, torch.float64))
    raises_alike(lambda: torch._softmax_backward_data(gout.float(), o, 1, torch.float32),
                 lambda: numtorch._softmax_backward_data(nt(gout.float()), nt(o), 1, numtorch.float32))


def test_safe_softmax_zero_rows_and_grad():
    x = torch.tensor([[-float("inf")] * 3, [1., 2., 3.], [0., -float("inf"), 1.]], dtype=torch.float64,
                     requires_grad=True)
    nx = nt(x, True)
    t = torch.ops.aten._safe_softmax(x, 1)
    n = numtorch._safe_softmax(nx, 1)
    same(n, t)
    w = torch.randn(3, 3, dtype=torch.float64)
    same(numtorch.autograd.grad(n, nx, nt(w))[0], torch.autograd.grad(t, x, w)[0])
    raises_alike(lambda: torch.ops.aten._safe_softmax(torch.ones(2, 2, dtype=torch.int64), 1),
                 lambda: numtorch._safe_softmax(numtorch.ones(2, 2, dtype=numtorch.int64), 1))


@pytest.mark.parametrize("dtype", [torch.float64, torch.int64, torch.bool])
def test_native_dropout_backward(dtype):
    g = torch.ones(5, dtype=dtype)
    mask = torch.tensor([True, False, True, True, False])
    same(numtorch.ops.aten.native_dropout_backward(nt(g), nt(mask), 2.5),
         torch.ops.aten.native_dropout_backward(g, mask, 2.5))


def test_max_pool2d_with_indices_backward():
    x = torch.randn(2, 3, 6, 7, dtype=torch.float64)
    out, idx = torch.nn.functional.max_pool2d_with_indices(x, 3, 2, 1, return_indices=True)
    gout = torch.randn(out.shape, dtype=torch.float64, requires_grad=True)
    ngout = nt(gout, True)
    t = torch.ops.aten.max_pool2d_with_indices_backward(gout, x, [3, 3], [2, 2], [1, 1], [1, 1], False, idx)
    n = numtorch.ops.aten.max_pool2d_with_indices_backward(ngout, nt(x), [3, 3], [2, 2], [1, 1], [1, 1], False,
                                                           nt(idx))
    same(n, t)
    w = torch.randn(x.shape, dtype=torch.float64)
    same(numtorch.autograd.grad(n, ngout, nt(w))[0], torch.autograd.grad(t, gout, w)[0])


# ---- resampling ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,kw", [("upsample_nearest", dict(scale_factor=1.7)),
                                     ("upsample_bilinear", dict(size=(5, 3))),
                                     ("upsample", dict(scale_factor=2, mode="bilinear", align_corners=False))])
def test_deprecated_upsample_functions_warn_and_match(name, kw):
    x = torch.randn(2, 3, 4, 4, dtype=torch.float64)
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        t = getattr(torch.nn.functional, name)(x, **kw)
    with warnings.catch_warnings(record=True) as nw:
        warnings.simplefilter("always")
        n = getattr(NF, name)(nt(x), **kw)
    same(n, t)
    assert [str(w.message) for w in nw] == [str(w.message) for w in tw]


@pytest.mark.parametrize("kw", [dict(output_size=[3, 7], align_corners=False, scale_factors=None),
                                dict(output_size=None, align_corners=True, scale_factors=[0.8, 1.3]),
                                dict(output_size=[4, 4], align_corners=False, scales_h=1.7, scales_w=0.6)])
def test_upsample_bilinear2d_aa(kw):
    x = torch.randn(2, 3, 8, 9, dtype=torch.float64, requires_grad=True)
    nx = nt(x, True)
    t = torch.ops.aten._upsample_bilinear2d_aa(x, **kw)
    n = numtorch.ops.aten._upsample_bilinear2d_aa(nx, **kw)
    same(n, t)
    w = torch.randn(t.shape, dtype=torch.float64)
    same(numtorch.autograd.grad(n, nx, nt(w))[0], torch.autograd.grad(t, x, w)[0])


@pytest.mark.parametrize("interp,pad", [(0, 0), (0, 2), (1, 1), (2, 0), (2, 1), (2, 2)])
def test_grid_sampler_2d_enums(interp, pad):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1, 2, 4, 5, generator=g, dtype=torch.float64)
    grid = torch.rand(1, 3, 3, 2, generator=g, dtype=torch.float64) * 2.4 - 1.2
    same(numtorch.grid_sampler_2d(nt(x), nt(grid), interp, pad, False), torch.grid_sampler_2d(x, grid, interp, pad,
                                                                                                False))


def test_rdiv_is_rtruediv():
    x = torch.tensor([1., 2., 4.])
    same(nt(x).__rdiv__(3), x.__rdiv__(3))


def test_grid_sampler_3d_values_and_grads():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 3, 4, 5, 6, generator=g, dtype=torch.float64, requires_grad=True)
    grid = (torch.rand(2, 3, 2, 4, 3, generator=g, dtype=torch.float64) * 2.4 - 1.2).requires_grad_(True)
    nx, ngrid = nt(x, True), nt(grid, True)
    for mode in ("bilinear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            t = torch.nn.functional.grid_sample(x, grid, mode, pad, align_corners=False)
            n = NF.grid_sample(nx, ngrid, mode, pad, align_corners=False)
            same(n, t)
            w = torch.randn(t.shape, generator=g, dtype=torch.float64)
            for a, c in zip(numtorch.autograd.grad(n, (nx, ngrid), nt(w)), torch.autograd.grad(t, (x, grid), w)):
                same(a, c)
    raises_alike(lambda: torch.nn.functional.grid_sample(x, grid, "bicubic", align_corners=False),
                 lambda: NF.grid_sample(nx, ngrid, "bicubic", align_corners=False))


# ---- segment_reduce, ormqr, low-rank decompositions, multi-head attention -------------------------------
@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("initial", [None, 2.0])
def test_segment_reduce_ties_zeros_and_empty_segments(reduce, initial):
    x = torch.tensor([[3., 3., 0., 2., 0., 0., 5.], [1., -1., 4., 4., 0., 2., -3.]], dtype=torch.float64,
                     requires_grad=True)
    lengths = torch.tensor([[2, 0, 2, 2, 1], [1, 3, 0, 1, 2]])
    nx = nt(x, True)
    t = torch.segment_reduce(x, reduce, lengths=lengths, axis=1, initial=initial)
    n = numtorch.segment_reduce(nx, reduce, lengths=nt(lengths), axis=1, initial=initial)
    same(n, t)
    w = torch.randn(t.shape, dtype=torch.float64)
    same(numtorch.autograd.grad(n, nx, nt(w))[0], torch.autograd.grad(t, x, w)[0])
    offsets = torch.cat([torch.zeros(2, 1, dtype=torch.long), lengths.cumsum(1)], 1)
    same(numtorch._segment_reduce(nx, reduce, offsets=nt(offsets), axis=1, initial=initial), t)


def test_segment_reduce_errors():
    x = torch.arange(6.)
    for kw in (dict(lengths=torch.tensor([1, 2])), dict(lengths=torch.tensor([4, -1, 3]))):
        raises_alike(lambda: torch.segment_reduce(x, "sum", **kw),
                     lambda: numtorch.segment_reduce(nt(x), "sum", **{k: nt(v) for k, v in kw.items()}))
    raises_alike(lambda: torch.segment_reduce(torch.arange(6), "sum", lengths=torch.tensor([6])),
                 lambda: numtorch.segment_reduce(numtorch.arange(6), "sum", lengths=numtorch.tensor([6])))
    same(numtorch.segment_reduce(nt(x), "sum", lengths=numtorch.tensor([1, 2]), unsafe=True),
         torch.segment_reduce(x, "sum", lengths=torch.tensor([1, 2]), unsafe=True))


@pytest.mark.parametrize("left,transpose", [(True, False), (True, True), (False, False), (False, True)])
def test_ormqr_matches_and_differentiates(left, transpose):
    g = torch.Generator().manual_seed(2)
    a, tau = torch.geqrf(torch.randn(3, 5, 3, generator=g, dtype=torch.float64))
    a, tau = a.requires_grad_(True), tau.requires_grad_(True)
    c = torch.randn((3, 5, 4) if left else (3, 4, 5), generator=g, dtype=torch.float64, requires_grad=True)
    na, ntau, nc = nt(a, True), nt(tau, True), nt(c, True)
    t = torch.ormqr(a, tau, c, left, transpose)
    n = numtorch.ormqr(na, ntau, nc, left, transpose)
    same(n, t, 1e-10)
    w = torch.randn(t.shape, generator=g, dtype=torch.float64)
    for x, y in zip(numtorch.autograd.grad(n, (na, ntau, nc), nt(w)), torch.autograd.grad(t, (a, tau, c), w)):
        same(x, y, 1e-10)
    raises_alike(lambda: torch.ormqr(a, tau, c.mT, left, transpose), lambda: na.ormqr(ntau, nc.mT, left, transpose))


def _signs(u, s, v):
    sign = u.gather(-2, u.abs().argmax(dim=-2, keepdim=True)).sign()
    return u * sign, s, v * sign


@pytest.mark.parametrize("fn,kw", [("svd_lowrank", dict(q=3)), ("svd_lowrank", dict(q=2, niter=4)),
                                   ("pca_lowrank", dict(q=3, center=True)), ("pca_lowrank", dict(q=3, center=False))])
def test_lowrank_draws_torch_random_matrix(fn, kw):
    a = torch.randn(2, 7, 3, dtype=torch.float64) @ torch.randn(2, 3, 5, dtype=torch.float64)
    torch.manual_seed(5)
    numtorch.manual_seed(5)
    t = _signs(*getattr(torch, fn)(a, **kw))
    n = _signs(*getattr(numtorch, fn)(nt(a), **kw))
    for x, y in zip(n, t):
        same(x, y, 1e-9)
    raises_alike(lambda: torch.pca_lowrank(a, q=9), lambda: numtorch.pca_lowrank(nt(a), q=9))


@pytest.mark.parametrize("batch_first,need_weights", [(False, True), (True, False), (True, True)])
def test_multihead_attention_module_calls_the_functional_form(batch_first, need_weights):
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(4, 2, bias=True, add_bias_kv=True, batch_first=batch_first,
                                     dtype=torch.float64)
    numtorch.manual_seed(0)
    nm = numtorch.nn.MultiheadAttention(4, 2, bias=True, add_bias_kv=True, batch_first=batch_first,
                                        dtype=numtorch.float64)
    q = torch.randn((2, 3, 4) if batch_first else (3, 2, 4), dtype=torch.float64)  # batch 2, length 3
    kpm = torch.tensor([[False, False, True], [False, True, False]])
    t = tm(q, q, q, key_padding_mask=kpm, need_weights=need_weights)
    n = nm(nt(q), nt(q), nt(q), key_padding_mask=nt(kpm), need_weights=need_weights)
    same(n[0], t[0], 1e-9)
    assert (n[1] is None) == (t[1] is None)
    if t[1] is not None:
        same(n[1], t[1], 1e-9)


def test_multi_head_attention_forward_checks():
    e, h = 4, 2
    q = torch.randn(3, 2, e)
    w, b, ow = torch.randn(3 * e, e), torch.randn(3 * e), torch.randn(e, e)
    args = (e, h, w, b, None, None, False, 0.0, ow, None)
    nargs = tuple(nt(a) if isinstance(a, torch.Tensor) else a for a in args)
    t = torch.nn.functional.multi_head_attention_forward(q, q, q, *args, average_attn_weights=False)
    n = NF.multi_head_attention_forward(nt(q), nt(q), nt(q), *nargs, average_attn_weights=False)
    same(n[0], t[0], 1e-5)
    same(n[1], t[1], 1e-5)
    bad = torch.ones(2, 5, dtype=torch.bool)
    raises_alike(lambda: torch.nn.functional.multi_head_attention_forward(q, q, q, *args, key_padding_mask=bad),
                 lambda: NF.multi_head_attention_forward(nt(q), nt(q), nt(q), *nargs, key_padding_mask=nt(bad)))
    raises_alike(lambda: torch.nn.functional.multi_head_attention_forward(q, q, q, 5, *args[1:]),
                 lambda: NF.multi_head_attention_forward(nt(q), nt(q), nt(q), 5, *nargs[1:]))


@pytest.mark.parametrize("size", [(5, 7), (30, 20), (17, 6)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_upsample_bilinear2d_aa_uint8_like_pytorch(size, align_corners):
    """uint8 goes through PyTorch's fixed-point antialiasing kernel (the one interpolate(antialias=True) uses)."""
    x = np.random.default_rng(0).integers(0, 256, (1, 3, 17, 13)).astype(np.uint8)
    t = torch.ops.aten._upsample_bilinear2d_aa(torch.tensor(x), size, align_corners)
    n = numtorch.ops.aten._upsample_bilinear2d_aa(numtorch.tensor(x), size, align_corners)
    assert n.dtype == numtorch.uint8 and n.tolist() == t.tolist()
