"""Double (and third-order) backward of the structure ops (shape, slicing, indexing, scatter, sorting,
matmul, linalg, ...) against PyTorch: gradients of <grad(f(x), x, v, create_graph=True), w> with
respect to the inputs x and to the incoming gradient v, for float32 and float64, plus numtorch's
gradgradcheck in float64."""
import numpy as np
import pytest
import torch

import numtorch

TOL = {np.float32: dict(rtol=2e-3, atol=2e-4), np.float64: dict(rtol=1e-7, atol=1e-9)}


def _lib_tensor(lib, a, rg):
    t = lib.tensor(a)
    if rg:
        t.requires_grad_(True)
    return t


def _outs(y):
    ys = list(y) if isinstance(y, (tuple, list)) else [y]
    return [o for o in ys if hasattr(o, "dtype") and o.dtype in (torch.float32, torch.float64,
                                                                 numtorch.float32, numtorch.float64)
            and o.requires_grad]


def _run(lib, fn, arrays, vs, ws):
    xs = [_lib_tensor(lib, a, True) for a in arrays]
    ys = _outs(fn(lib, *xs))
    vt = [_lib_tensor(lib, v, True) for v in vs]
    gs = lib.autograd.grad(ys, xs, vt, create_graph=True, allow_unused=True)
    s = 0
    for g, w in zip(gs, ws):
        if g is not None and g.requires_grad:
            s = s + (g * lib.tensor(w)).sum()
    if not hasattr(s, "requires_grad"):
        return gs, [None] * (len(xs) + len(vt))
    return gs, lib.autograd.grad(s, xs + vt, allow_unused=True)


def check(fn, arrays, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [np.asarray(a, dtype) for a in arrays]
    ys = _outs(fn(torch, *[torch.tensor(a, requires_grad=True) for a in arrays]))
    vs = [rng.standard_normal(tuple(y.shape)).astype(dtype) for y in ys]
    ws = [rng.standard_normal(a.shape).astype(dtype) for a in arrays]
    g_t, gg_t = _run(torch, fn, arrays, vs, ws)
    g_n, gg_n = _run(numtorch, fn, arrays, vs, ws)
    for a, b in zip(list(g_t) + list(gg_t), list(g_n) + list(gg_n)):
        if a is None or b is None:
            # PyTorch may give an explicit zero where numtorch gives None (and back)
            other = b if a is None else a
            assert other is None or not np.any(other.detach().numpy()), "None-ness differs"
            continue
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), **TOL[dtype])


def gradgrad(fn, arrays):
    xs = [numtorch.tensor(np.asarray(a, np.float64), requires_grad=True) for a in arrays]

    def f(*xs):
        return tuple(_outs(fn(numtorch, *xs)))
    assert numtorch.autograd.gradgradcheck(f, xs)


R = np.random.default_rng(123)


def r(*s):
    return R.standard_normal(s)


def spd(n, b=()):
    a = R.standard_normal(b + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def L(lib):
    return lib.linalg


SPD3 = spd(3)
I2 = np.array([[0, 2], [1, 0]])
CASES = {
    # shape / views
    "reshape": (lambda T, x: x.reshape(6, 2), [r(3, 4)]),
    "view": (lambda T, x: x.view(2, 6), [r(3, 4)]),
    "flatten": (lambda T, x: T.flatten(x, 1), [r(2, 3, 2)]),
    "unflatten": (lambda T, x: T.unflatten(x, 1, (2, 2)), [r(3, 4)]),
    "permute": (lambda T, x: x.permute(2, 0, 1), [r(2, 3, 4)]),
    "transpose": (lambda T, x: x.transpose(0, 1), [r(3, 4)]),
    "t": (lambda T, x: x.t(), [r(3, 4)]),
    "mT": (lambda T, x: x.mT, [r(2, 3, 4)]),
    "movedim": (lambda T, x: T.movedim(x, 0, 2), [r(2, 3, 4)]),
    "squeeze": (lambda T, x: x.squeeze(1), [r(3, 1, 4)]),
    "unsqueeze": (lambda T, x: x.unsqueeze(1), [r(3, 4)]),
    "expand": (lambda T, x: x.expand(2, 3, 4), [r(3, 1)]),
    "broadcast_to": (lambda T, x: T.broadcast_to(x, (2, 3, 4)), [r(4)]),
    "clone": (lambda T, x: x.clone(), [r(3, 4)]),
    # slicing
    "split": (lambda T, x: T.split(x, 2, 1), [r(3, 5)]),
    "chunk": (lambda T, x: T.chunk(x, 2, 0), [r(4, 3)]),
    "tensor_split": (lambda T, x: T.tensor_split(x, [1, 3], 1), [r(3, 5)]),
    "unbind": (lambda T, x: T.unbind(x, 1), [r(3, 4)]),
    "narrow": (lambda T, x: T.narrow(x, 1, 1, 2), [r(3, 4)]),
    "select": (lambda T, x: T.select(x, 1, 2), [r(3, 4)]),
    # strided
    "unfold": (lambda T, x: x.unfold(1, 2, 1), [r(3, 5)]),
    "as_strided": (lambda T, x: T.as_strided(x, (2, 2), (1, 2)), [r(3, 4)]),
    # rearrange
    "cat": (lambda T, x, y: T.cat([x, y], 1), [r(3, 2), r(3, 4)]),
    "stack": (lambda T, x, y: T.stack([x, y], 1), [r(3, 2), r(3, 2)]),
    "hstack": (lambda T, x, y: T.hstack([x, y]), [r(3, 2), r(3, 4)]),
    "repeat": (lambda T, x: x.repeat(2, 3), [r(3, 2)]),
    "tile": (lambda T, x: T.tile(x, (2,)), [r(3, 2)]),
    "repeat_interleave": (lambda T, x: T.repeat_interleave(x, 2, dim=0), [r(3, 2)]),
    "flip": (lambda T, x: T.flip(x, (0, 1)), [r(3, 2)]),
    "roll": (lambda T, x: T.roll(x, 1, 0), [r(3, 2)]),
    "rot90": (lambda T, x: T.rot90(x, 1, (0, 1)), [r(3, 2)]),
    "tril": (lambda T, x: T.tril(x), [r(3, 3)]),
    "triu": (lambda T, x: T.triu(x, 1), [r(3, 4)]),
    "diagonal": (lambda T, x: T.diagonal(x, 1), [r(3, 4)]),
    "diag_embed": (lambda T, x: T.diag_embed(x), [r(2, 3)]),
    "diag": (lambda T, x: T.diag(x), [r(3)]),
    "diag_matrix": (lambda T, x: T.diag(x, 1), [r(3, 3)]),
    # indexing
    "getitem_basic": (lambda T, x: x[1:, ::2], [r(3, 4)]),
    "getitem_int": (lambda T, x: x[1], [r(3, 4)]),
    "getitem_adv": (lambda T, x: x[T.tensor([0, 2, 0])], [r(3, 4)]),
    "getitem_adv2": (lambda T, x: x[T.tensor([0, 2, 0]), 1:], [r(3, 4)]),
    "getitem_mask": (lambda T, x: x[x > 0], [r(3, 4)]),
    "setitem": (lambda T, x, y: _setitem(T, x, y), [r(3, 4), r(2)]),
    "setitem_view": (lambda T, x, y: _setitem_view(T, x, y), [r(3, 4), r(4)]),
    "index_put": (lambda T, x, y: T.index_put(x, (T.tensor([0, 2]),), y), [r(3, 4), r(2, 4)]),
    "index_put_acc": (lambda T, x, y: T.index_put(x, (T.tensor([0, 0]),), y, accumulate=True),
                      [r(3, 4), r(2, 4)]),
    "index_select": (lambda T, x: T.index_select(x, 1, T.tensor([0, 2, 2])), [r(3, 4)]),
    "index_add": (lambda T, x, y: T.index_add(x, 0, T.tensor([0, 2, 0]), y, alpha=2.0),
                  [r(3, 4), r(3, 4)]),
    "index_copy": (lambda T, x, y: T.index_copy(x, 0, T.tensor([2, 0]), y), [r(3, 4), r(2, 4)]),
    "index_fill": (lambda T, x: T.index_fill(x, 1, T.tensor([0, 2]), 1.5), [r(3, 4)]),
    "masked_fill": (lambda T, x: T.masked_fill(x, T.tensor([True, False, True, False]), 2.0), [r(3, 4)]),
    "masked_fill_t": (lambda T, x, y: T.masked_fill(x, T.tensor([True, False, True, False]), y), [r(3, 4), r()]),
    "masked_select": (lambda T, x: T.masked_select(x, T.tensor([True, False, True, True])), [r(3, 4)]),
    "masked_scatter": (lambda T, x, y: T.masked_scatter(x, T.tensor([True, False, True, False]), y),
                       [r(3, 4), r(3, 4)]),
    # scatter / gather / take
    "gather": (lambda T, x: T.gather(x, 1, T.tensor([[0, 1, 1], [2, 0, 0], [3, 3, 1]])), [r(3, 4)]),
    "scatter": (lambda T, x, y: T.scatter(x, 1, T.tensor([[0, 1], [2, 0], [3, 1]]), y), [r(3, 4), r(3, 2)]),
    "scatter_value": (lambda T, x: T.scatter(x, 1, T.tensor([[0, 1], [2, 0], [3, 1]]), 2.0), [r(3, 4)]),
    "scatter_add": (lambda T, x, y: T.scatter_add(x, 1, T.tensor([[0, 0], [2, 0], [3, 1]]), y),
                    [r(3, 4), r(3, 2)]),
    "scatter_reduce_sum": (lambda T, x, y: T.scatter_reduce(x, 1, T.tensor([[0, 0], [2, 0], [3, 1]]), y, "sum"),
                           [r(3, 4), r(3, 2)]),
    "scatter_reduce_mean": (lambda T, x, y: T.scatter_reduce(x, 1, T.tensor([[0, 0], [2, 0], [3, 1]]), y, "mean",
                                                             include_self=False), [r(3, 4), r(3, 2)]),
    "scatter_reduce_amax": (lambda T, x, y: T.scatter_reduce(x, 1, T.tensor([[0, 0], [2, 0], [3, 1]]), y, "amax"),
                            [r(3, 4), r(3, 2)]),
    "scatter_reduce_amin": (lambda T, x, y: T.scatter_reduce(x, 1, T.tensor([[0, 0], [2, 0], [3, 1]]), y, "amin",
                                                             include_self=False), [r(3, 4), r(3, 2)]),
    "scatter_reduce_prod": (lambda T, x, y: T.scatter_reduce(x, 1, T.tensor([[0, 0], [2, 0], [3, 1]]), y, "prod"),
                            [r(3, 4), r(3, 2)]),
    "take": (lambda T, x: T.take(x, T.tensor([[0, 5], [11, 5]])), [r(3, 4)]),
    "take_along_dim": (lambda T, x: T.take_along_dim(x, T.tensor([[0], [2], [1]]), 1), [r(3, 4)]),
    # sorting
    "sort": (lambda T, x: T.sort(x, 1)[0], [r(3, 4)]),
    "sort_desc": (lambda T, x: T.sort(x, 0, descending=True)[0], [r(3, 4)]),
    "topk": (lambda T, x: T.topk(x, 2, 1)[0], [r(3, 4)]),
    "kthvalue": (lambda T, x: T.kthvalue(x, 2, 1)[0], [r(3, 4)]),
    "msort": (lambda T, x: T.msort(x), [r(3, 4)]),
    # matmul family
    "mm": (lambda T, a, b: T.mm(a, b), [r(3, 4), r(4, 2)]),
    "bmm": (lambda T, a, b: T.bmm(a, b), [r(2, 3, 4), r(2, 4, 2)]),
    "matmul": (lambda T, a, b: T.matmul(a, b), [r(2, 3, 4), r(4, 2)]),
    "matmul_vec": (lambda T, a, b: T.matmul(a, b), [r(3, 4), r(4)]),
    "mv": (lambda T, a, b: T.mv(a, b), [r(3, 4), r(4)]),
    "dot": (lambda T, a, b: T.dot(a, b), [r(4), r(4)]),
    "inner": (lambda T, a, b: T.inner(a, b), [r(3, 4), r(2, 4)]),
    "outer": (lambda T, a, b: T.outer(a, b), [r(3), r(4)]),
    "addmm": (lambda T, c, a, b: T.addmm(c, a, b, beta=0.5, alpha=2.0), [r(3, 2), r(3, 4), r(4, 2)]),
    "addmv": (lambda T, c, a, b: T.addmv(c, a, b), [r(3), r(3, 4), r(4)]),
    "addbmm": (lambda T, c, a, b: T.addbmm(c, a, b), [r(3, 2), r(2, 3, 4), r(2, 4, 2)]),
    "baddbmm": (lambda T, c, a, b: T.baddbmm(c, a, b), [r(2, 3, 2), r(2, 3, 4), r(2, 4, 2)]),
    "einsum": (lambda T, a, b: T.einsum("ij,jk->ik", a, b), [r(3, 4), r(4, 2)]),
    "einsum_trace": (lambda T, a: T.einsum("ii->", a), [r(3, 3)]),
    "tensordot": (lambda T, a, b: T.tensordot(a, b, 1), [r(3, 4), r(4, 2)]),
    "kron": (lambda T, a, b: T.kron(a, b), [r(2, 3), r(2, 2)]),
    "trace": (lambda T, a: T.trace(a), [r(3, 3)]),
    "chain_matmul": (lambda T, a, b, c: T.linalg.multi_dot([a, b, c]), [r(2, 3), r(3, 4), r(4, 2)]),
    "matrix_power": (lambda T, a: T.linalg.matrix_power(a, 3), [r(3, 3)]),
    "vecdot": (lambda T, a, b: T.linalg.vecdot(a, b), [r(3, 4), r(3, 4)]),
    "cross": (lambda T, a, b: T.linalg.cross(a, b), [r(2, 3), r(2, 3)]),
    # linalg
    "det": (lambda T, a: T.linalg.det(a), [r(3, 3)]),
    "slogdet": (lambda T, a: T.linalg.slogdet(a)[1], [r(3, 3)]),
    "logdet": (lambda T, a: T.logdet(a), [spd(3)]),
    "inv": (lambda T, a: T.linalg.inv(a), [spd(3)]),
    "solve": (lambda T, a, b: T.linalg.solve(a, b), [spd(3), r(3, 2)]),
    "cholesky": (lambda T, a: T.linalg.cholesky(a + a.mT), [spd(3)]),
    "cholesky_solve": (lambda T, b, l: T.cholesky_solve(b, T.tril(l)), [r(3, 2), np.linalg.cholesky(spd(3))]),
    "cholesky_inverse": (lambda T, l: T.cholesky_inverse(T.tril(l)), [np.linalg.cholesky(spd(3))]),
    "qr": (lambda T, a: T.linalg.qr(a), [r(4, 3)]),
    "eigh": (lambda T, a: T.linalg.eigh(a + a.mT), [spd(3)]),
    "eigvalsh": (lambda T, a: T.linalg.eigvalsh(a + a.mT), [spd(3)]),
    "svd": (lambda T, a: _svd_signfree(T.linalg.svd(a, full_matrices=False)), [r(4, 3)]),
    "svd_full": (lambda T, a: _svd_signfree(T.linalg.svd(a)), [r(3, 4)]),
    "svdvals": (lambda T, a: T.linalg.svdvals(a), [r(4, 3)]),
    "pinv": (lambda T, a: T.linalg.pinv(a), [r(4, 3)]),
    "lstsq": (lambda T, a, b: T.linalg.lstsq(a, b).solution, [r(4, 3), r(4, 2)]),
    "matrix_norm_fro": (lambda T, a: T.linalg.matrix_norm(a), [r(3, 4)]),
    "matrix_norm_nuc": (lambda T, a: T.linalg.matrix_norm(a, "nuc"), [r(3, 4)]),
    "matrix_norm_2": (lambda T, a: T.linalg.matrix_norm(a, 2), [r(3, 4)]),
    "vector_norm": (lambda T, a: T.linalg.vector_norm(a, 3), [r(3, 4)]),
    "norm": (lambda T, a: T.linalg.norm(a), [r(3, 4)]),
    "matrix_exp": (lambda T, a: T.matrix_exp(a), [0.3 * r(3, 3)]),
    "inverse": (lambda T, a: T.inverse(a), [spd(3)]),
    "pinverse": (lambda T, a: T.pinverse(a), [r(4, 3)]),
    "chain_matmul": (lambda T, a, b: T.chain_matmul(a, b), [r(2, 3), r(3, 4)]),
    "det_legacy": (lambda T, a: T.det(a), [r(3, 3)]),
    "svd_legacy": (lambda T, a: _svd_signfree(_usv(T.svd(a))), [r(4, 3)]),
    "qr_legacy": (lambda T, a: T.qr(a), [r(4, 3)]),
    "triangular_solve": (lambda T, b, a: T.triangular_solve(b, T.triu(a))[0],
                         [r(3, 2), np.triu(r(3, 3)) + 3 * np.eye(3)]),
    "lu_solve": (lambda T, b: T.lu_solve(b, *T.lu(T.tensor(SPD3, dtype=b.dtype))), [r(3, 2)]),
    "lu_solve_lu": (lambda T, b, a: T.lu_solve(b, *T.lu(a)), [r(3, 2), spd(3)]),
    "lu_unpack": (lambda T, a: T.lu_unpack(*T.lu(a))[1:], [spd(3)]),
    # more shape / rearrange / matmul spellings
    "swapaxes": (lambda T, x: T.swapaxes(x, 0, 2), [r(2, 3, 4)]),
    "ravel": (lambda T, x: T.ravel(x.t()), [r(3, 4)]),
    "atleast_3d": (lambda T, x: T.atleast_3d(x), [r(3, 4)]),
    "broadcast_tensors": (lambda T, x, y: T.broadcast_tensors(x, y), [r(3, 1), r(4)]),
    "vstack": (lambda T, x, y: T.vstack([x, y]), [r(3), r(3)]),
    "dstack": (lambda T, x, y: T.dstack([x, y]), [r(2, 3), r(2, 3)]),
    "fliplr": (lambda T, x: T.fliplr(x), [r(3, 4)]),
    "flipud": (lambda T, x: T.flipud(x), [r(3, 4)]),
    "vdot": (lambda T, a, b: T.vdot(a, b), [r(4), r(4)]),
    "ger": (lambda T, a, b: T.ger(a, b), [r(3), r(4)]),
    "matrix_rank_free_pinv_h": (lambda T, a: T.linalg.pinv(a + a.mT, hermitian=True), [spd(3)]),
    "index_add_inplace": (lambda T, x, y: (x * 1).index_add_(0, T.tensor([0, 2]), y * y), [r(3, 4), r(2, 4)]),
    "scatter_inplace": (lambda T, x, y: (x * 1).scatter_(1, T.tensor([[0], [2], [1]]), y * y), [r(3, 4), r(3, 1)]),
    "masked_fill_inplace": (lambda T, x: (x * 1).masked_fill_(T.tensor([True, False, True, False]), 0.5),
                            [r(3, 4)]),
    "view_inplace_mul": (lambda T, x: _view_inplace(x), [r(3, 4)]),
    # combinatorics / structured matrices
    "cartesian_prod": (lambda T, a, b: T.cartesian_prod(a, b), [r(3), r(2)]),
    "block_diag": (lambda T, a, b: T.block_diag(a, b), [r(2, 3), r(2, 2)]),
    # torch.vander's own backward raises (see test_torch_vander_backward_raises): its reference is
    # torch.linalg.vander, the same matrix with increasing powers, flipped
    "vander": (lambda T, a: T.vander(a, 3) if T is numtorch else T.linalg.vander(a, N=3).flip(-1), [r(4)]),
    "vander_increasing": (lambda T, a: T.vander(a, 4, True) if T is numtorch else T.linalg.vander(a, N=4), [r(3)]),
    "tril_indices_gather": (lambda T, a: a[tuple(T.tril_indices(3, 3))], [r(3, 3)]),
}


def _svd_signfree(usv):
    u, s, vh = usv  # LAPACK builds may pick other signs for singular vectors: use what does not depend on them
    return s, u @ vh[..., :u.shape[-1], :] if u.shape[-1] <= vh.shape[-2] else u[..., :vh.shape[-2]] @ vh, u * u


def _usv(res):
    u, s, v = res
    return u, s, v.mT


def _view_inplace(x):
    z = x * 1
    z[1:].mul_(x[:2] * 2)
    z.diagonal().exp_()
    return z


def _setitem(T, x, y):
    z = x * 1
    z[0, 1:3] = y
    z[T.tensor([2]), 0] = y[0] * 2
    return z


def _setitem_view(T, x, y):
    z = x * 1
    v = z[1:]
    v[0] = y * y
    return v * z.sum()


XFAIL = {}


def _params(extra=None):
    out = []
    reasons = {**XFAIL, **(extra or {})}
    for name, (fn, arrays) in CASES.items():
        marks = [pytest.mark.xfail(strict=True, reason=reasons[name])] if name in reasons else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.mark.parametrize("name", _params())
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_double_backward(name, dtype):
    fn, arrays = CASES[name]
    check(fn, arrays, dtype)


@pytest.mark.parametrize("name", _params())
def test_gradgradcheck(name):
    fn, arrays = CASES[name]
    gradgrad(fn, arrays)


def test_torch_vander_backward_raises():
    """Why numtorch's vander is compared with torch.linalg.vander: PyTorch 2.13's torch.vander cannot be
    differentiated at all (first order included; a defect, not a refusal: its composite writes cumprod's
    result into a view of the output that CumprodBackward saved, so the version check fires). numtorch
    differentiates it (same values as torch.linalg.vander, to any order). Fails once PyTorch fixes it."""
    a = torch.randn(4, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        torch.vander(a, 3).sum().backward()
    x = numtorch.tensor(a.detach().numpy(), requires_grad=True)
    numtorch.vander(x, 3).sum().backward()
    ref, = torch.autograd.grad(torch.linalg.vander(a, N=3).sum(), a)
    np.testing.assert_allclose(x.grad.numpy(), ref.numpy(), rtol=1e-12)


THIRD = {
    "mm": (lambda T, a, b: T.mm(a, b) ** 2, [r(3, 4), r(4, 2)]),
    "matmul": (lambda T, a, b: T.matmul(a, b) ** 2, [r(2, 3, 4), r(4, 2)]),
    "bmm": (lambda T, a, b: T.bmm(a, b) ** 2, [r(2, 3, 4), r(2, 4, 2)]),
    "getitem": (lambda T, a, b: (a[1:, ::2] * b) ** 3, [r(3, 4), r(2, 2)]),
    "gather": (lambda T, a, b: T.gather(a * b, 1, T.tensor([[0, 1], [2, 2], [3, 0]])) ** 3, [r(3, 4), r(3, 4)]),
}


@pytest.mark.parametrize("name", list(THIRD))
def test_third_order(name):
    fn, arrays = THIRD[name]
    res = []
    for lib in (torch, numtorch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        y = fn(lib, *xs).sum()
        g1 = lib.autograd.grad(y, xs, create_graph=True)
        s1 = sum((g * lib.tensor(np.cos(a))).sum() for g, a in zip(g1, arrays))
        g2 = lib.autograd.grad(s1, xs, create_graph=True)
        s2 = sum((g * lib.tensor(np.sin(a))).sum() for g, a in zip(g2, arrays))
        g3 = lib.autograd.grad(s2, xs)
        res.append([g.detach().numpy() for g in g3])
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-7, atol=1e-9)
