"""Review of the sparse COO layout and the meta device against PyTorch: each test is a bug a new user or
a hostile input found (values, layouts, gradients and exception types compared with torch)."""
import warnings

import numpy as np
import pytest
import torch

import numtorch as nt

warnings.filterwarnings("ignore", message="Sparse invariant checks")

IDX = [[0, 1, 1, 0], [2, 0, 2, 2]]  # (0, 2) twice: uncoalesced


def both(fn):
    """``fn(torch)`` and ``fn(numtorch)``: (result, None) or (None, exception type) for each."""
    out = []
    for L in (torch, nt):
        try:
            out.append((fn(L), None))
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            out.append((None, type(e)))
    return out


def dense(x):
    x = x.to_dense() if x.is_sparse else x
    return x.detach().numpy()


def same(fn, tol=1e-6):
    """``fn`` gives torch's layout, shape, dtype and values, or raises torch's exception type."""
    (t, te), (n, ne) = both(fn)
    if te is not None or ne is not None:
        assert ne is not None and te is not None and issubclass(ne, te) or ne is te, (te, ne)
        return
    assert str(n.layout) == str(t.layout) and tuple(n.shape) == tuple(t.shape) and str(n.dtype) == str(t.dtype)
    np.testing.assert_allclose(dense(n), dense(t), rtol=tol, atol=tol)


def S(L, size=(2, 3)):
    return L.sparse_coo_tensor(IDX, L.tensor([3., 4., 5., 1.]), size)


# ---------------------------------------------------------------------------------- dense (op) sparse
@pytest.mark.quick
@pytest.mark.parametrize("fn", [
    lambda L: L.ones(2, 3) - S(L),                       # was NotImplementedError (graph Laplacians: I - A)
    lambda L: L.ones(2, 3) * S(L),                       # was NotImplementedError
    lambda L: L.ones(2, 3).add_(S(L)),                   # was NotImplementedError (in place)
    lambda L: L.ones(2, 3).sub_(S(L)),
    lambda L: L.ones(3) + S(L),                          # broadcast: torch refuses, numtorch added silently
    lambda L: L.ones(1, 3) + S(L),
    lambda L: L.add(L.ones(3), S(L), alpha=2),
    lambda L: L.ones(2, 3) + L.sparse_coo_tensor([[0]], [1.], (3,)),  # was NumPy's ValueError
    lambda L: L.ones(3) - S(L),
    lambda L: L.ones(3).add_(S(L)),
    lambda L: 1 - S(L),                                  # was TypeError
    lambda L: 2 / S(L),                                  # was TypeError
    lambda L: S(L) / L.ones(2, 3),                       # was NotImplementedError
    lambda L: L.ones(2, 3) / S(L),
    lambda L: S(L) @ L.ones(2, 3, 2),                    # was scipy's ValueError
    lambda L: L.matmul(S(L), L.ones(2, 3, 2)),
], ids=lambda f: "")
def test_dense_sparse_arithmetic(fn):
    same(fn)


def test_dense_minus_sparse_gradients():
    grads = []
    for L in (torch, nt):
        d = L.arange(6.).reshape(2, 3).requires_grad_()
        v = L.tensor([3., 4., 5., 1.], requires_grad=True)
        y = (d - L.sparse_coo_tensor(IDX, v, (2, 3))) * (L.ones(2, 3) * 2)
        (y.pow(2).sum() + (d * L.sparse_coo_tensor(IDX, v, (2, 3))).to_dense().sum()).backward()
        grads.append((d.grad.numpy(), v.grad.numpy()))
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-6)


# ---------------------------------------------------------------------------------- EmbeddingBag(sparse=True)
def _bag(L, mode, pad=None, psw=False, freq=False, optimizer=False):
    e = L.nn.EmbeddingBag(10, 3, sparse=True, mode=mode, padding_idx=pad, scale_grad_by_freq=freq)
    with L.no_grad():
        e.weight.copy_(L.arange(30.).reshape(10, 3) / 10)
    idx, offs = L.tensor([1, 2, 2, 5, 2, 7, 3]), L.tensor([0, 2, 2, 5])
    w = L.arange(7.) / 3 if psw else None
    opt = L.optim.SparseAdam(e.parameters(), lr=0.1) if optimizer else None
    for _ in range(2 if optimizer else 1):
        e.zero_grad()
        (e(idx, offs, per_sample_weights=w) * L.arange(12.).reshape(4, 3)).sum().backward()
        if opt:
            opt.step()
    return e.weight.grad, e.weight


@pytest.mark.parametrize("kw", [dict(mode="sum"), dict(mode="mean"), dict(mode="mean", pad=2),
                                dict(mode="sum", psw=True), dict(mode="mean", optimizer=True),
                                dict(mode="sum", freq=True)], ids=str)
def test_embedding_bag_sparse_gradient(kw):
    """The weight's gradient was dense, so SparseAdam refused EmbeddingBag(sparse=True)."""
    (t, te), (n, ne) = both(lambda L: _bag(L, **kw))
    if te is not None:
        assert ne is te
        return
    (tg, tw), (ng, nw) = t, n
    assert ng.is_sparse and tg.is_sparse
    np.testing.assert_array_equal(ng._indices().numpy(), tg._indices().numpy())
    np.testing.assert_allclose(ng._values().numpy(), tg._values().numpy(), rtol=1e-6)
    np.testing.assert_allclose(nw.detach().numpy(), tw.detach().numpy(), rtol=1e-5)


# ---------------------------------------------------------------------------------- empty sparse operands
@pytest.mark.quick
@pytest.mark.parametrize("opt", ["SGD", "SparseAdam", "Adagrad"])
def test_zero_grad_keeping_sparse_grad(opt):
    """zero_grad(set_to_none=False) leaves an empty sparse .grad; adding the next (uncoalesced) sparse gradient
    to it raised NumPy's IndexError."""
    res = []
    for L in (torch, nt):
        e = L.nn.Embedding(10, 3, sparse=True)
        with L.no_grad():
            e.weight.copy_(L.arange(30.).reshape(10, 3) / 10)
        o = getattr(L.optim, opt)(e.parameters(), lr=0.1)
        for _ in range(3):
            o.zero_grad(set_to_none=False)
            e(L.tensor([1, 2, 2])).pow(2).sum().backward()
            o.step()
        res.append((e.weight.detach().numpy(), e.weight.grad.to_dense().numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-5)


@pytest.mark.parametrize("fn", [
    lambda L: L.sparse_coo_tensor(L.zeros(2, 0, dtype=L.long), L.zeros(0), (2, 3)) + S(L),
    lambda L: S(L) + L.sparse_coo_tensor(L.zeros(2, 0, dtype=L.long), L.zeros(0, dtype=L.float64), (2, 3)),
    lambda L: S(L) - L.zeros(2, 3, layout=L.sparse_coo),
], ids=lambda f: "")
def test_add_empty_sparse(fn):
    same(fn)


# ---------------------------------------------------------------------------------- factories' layout=
@pytest.mark.parametrize("fn", [
    lambda L: L.zeros(2, 3, layout=L.sparse_coo),        # all of these ignored layout= (dense results)
    lambda L: L.zeros(2, 3, layout=L.sparse_coo, dtype=L.float64, requires_grad=True),
    lambda L: L.empty(2, 3, layout=L.sparse_coo).shape,
    lambda L: L.zeros(2, layout=L.strided),
    lambda L: L.ones(2, 3, layout=L.sparse_coo),
    lambda L: L.full((2, 3), 1., layout=L.sparse_coo),
    lambda L: L.rand(2, 3, layout=L.sparse_coo),
    lambda L: L.randn(2, 3, layout=L.sparse_coo),
    lambda L: L.arange(3, layout=L.sparse_coo),
    lambda L: L.eye(3, layout=L.sparse_coo),
    lambda L: L.zeros_like(S(L)),
    lambda L: L.zeros_like(S(L), layout=L.strided),
    lambda L: L.zeros_like(L.ones(2, 3), layout=L.sparse_coo),
    lambda L: L.empty_like(S(L)).shape,
    lambda L: L.ones_like(S(L)),
    lambda L: L.full_like(S(L), 2.),
    lambda L: S(L).new_zeros(2, 2),
    lambda L: S(L).new_empty(2, 2).layout,
    lambda L: S(L).new_ones(2, 2),
    lambda L: S(L).new_full((2, 2), 1.),
    lambda L: L.ones(2).new_zeros(2, 2, layout=L.sparse_coo),
], ids=lambda f: "")
def test_factory_layout(fn):
    (t, te), (n, ne) = both(fn)
    if te is None and not isinstance(t, torch.Tensor):  # a shape or a layout
        assert ne is None and (tuple(n) == tuple(t) if isinstance(t, tuple) else str(n) == str(t))
        return
    same(fn)


# ---------------------------------------------------------------------------------- copy_, load_state_dict
def _sd_roundtrip(L, kind):
    i = L.tensor([[0, 1, 1, 2, 3, 0], [1, 0, 2, 1, 3, 3]])
    src, dst = L.nn.Module(), L.nn.Module()
    if kind == "buffer":
        src.register_buffer("adj", L.sparse_coo_tensor(i, L.arange(6.), (4, 4)))
        dst.register_buffer("adj", L.zeros(4, 4).to_sparse())
    else:
        src.adj = L.nn.Parameter(L.sparse_coo_tensor(i, L.arange(6.), (4, 4)))
        dst.adj = L.nn.Parameter(L.zeros(4, 4).to_sparse())
    dst.load_state_dict(src.state_dict())
    return dst.adj


@pytest.mark.parametrize("kind", ["buffer", "parameter"])
def test_load_state_dict_sparse(kind):
    """load_state_dict into a sparse buffer or parameter raised (copy_ had no sparse form)."""
    same(lambda L: _sd_roundtrip(L, kind))


@pytest.mark.parametrize("fn", [
    lambda L: S(L).copy_(S(L, (4, 4)).double()),
    lambda L: S(L).copy_(L.ones(2, 3)),                  # was NotImplementedError: torch's RuntimeError
    lambda L: L.ones(2, 3).copy_(S(L)),
    lambda L: S(L).requires_grad_().copy_(S(L)),
], ids=lambda f: "")
def test_sparse_copy_(fn):
    same(fn)


# ---------------------------------------------------------------------------------- legacy sparse types
@pytest.mark.parametrize("fn", [
    lambda L: L.sparse.FloatTensor(L.tensor([[0, 1], [1, 0]]), L.tensor([1., 2.]), L.Size([2, 2])),  # pygcn
    lambda L: L.sparse.FloatTensor(L.tensor([[0, 1], [1, 0]]), L.tensor([1., 2.], dtype=L.float64), (2, 2)),
    lambda L: L.sparse.FloatTensor(L.tensor([[0, 1], [1, 0]]), L.tensor([1., 2.])),
    lambda L: L.sparse.FloatTensor(L.tensor([[0., 1.], [1., 0.]]), L.tensor([1., 2.])),
    lambda L: L.sparse.FloatTensor(2, 3),
    lambda L: L.sparse.DoubleTensor(L.Size([2, 3])),
    lambda L: L.sparse.LongTensor(),
], ids=lambda f: "")
def test_legacy_sparse_constructors(fn):
    same(fn)


def test_legacy_sparse_types():
    for L in (torch, nt):
        s = L.sparse.FloatTensor(2, 3)
        assert isinstance(s, L.sparse.FloatTensor) and not isinstance(s, L.sparse.DoubleTensor)
        assert not isinstance(s, L.FloatTensor) and not isinstance(L.ones(2), L.sparse.FloatTensor)
        assert (s.type(), s.double().type()) == ("torch.sparse.FloatTensor", "torch.sparse.DoubleTensor")
    assert repr(nt.sparse.FloatTensor) == repr(torch.sparse.FloatTensor)


# ---------------------------------------------------------------------------------- sparse meets meta
@pytest.mark.parametrize("fn", [
    lambda L: L.sparse_coo_tensor([[0]], L.ones(1), (2,), device="meta"),      # was a CPU tensor, silently
    lambda L: S(L).to("meta"),                                               # was a dense meta tensor
    lambda L: L.sparse_coo_tensor(L.tensor([[0]]), L.ones(1, device="meta"), (2,)),
], ids=["device", "to", "mixed"])
def test_sparse_meta_is_refused_not_wrong(fn):
    """numtorch has no sparse meta tensors: it must refuse (NotImplementedError), never give a tensor of another
    device or layout; where PyTorch itself refuses, the type is PyTorch's."""
    (t, te), (n, ne) = both(fn)
    if te is not None:  # torch's type here depends on its default-device state (RuntimeError when unset)
        assert ne is te or ne is RuntimeError and te is NotImplementedError
    else:
        assert t.is_sparse and t.is_meta and ne is not None and issubclass(ne, NotImplementedError)


# ---------------------------------------------------------------------------------- meta: no silent values
def _m(L, *shape, **kw):
    return L.empty(*shape, device="meta", **kw)


@pytest.mark.quick
@pytest.mark.parametrize("fn", [
    lambda L: L.bincount(_m(L, 5, dtype=L.long)),                  # was a meta tensor of size 1
    lambda L: L.bincount(_m(L, 5, dtype=L.long), minlength=7),
    lambda L: L.unique_consecutive(_m(L, 5)),                      # was size 1
    lambda L: L.repeat_interleave(_m(L, 3), _m(L, 3, dtype=L.long)),  # was size 0
    lambda L: L.nn.functional.one_hot(_m(L, 4, dtype=L.long)),     # was (4, 1)
    lambda L: 1 in _m(L, 5),                                       # was False
    lambda L: L.allclose(_m(L, 3), _m(L, 3)),                      # was True
    lambda L: L.equal(_m(L, 3), _m(L, 3)),                         # was True
    lambda L: _m(L, 3).mul_(_m(L, 2, 3)),                          # a write of the wrong shape was accepted
    lambda L: _m(L, 3).add_(_m(L, 2, 3)),
    lambda L: _m(L, 5).__setitem__(slice(0, 2), _m(L, 3)),
], ids=lambda f: "")
def test_meta_value_dependent_raises(fn):
    """Ops whose result depends on values must raise on meta tensors, with PyTorch's type."""
    (t, te), (n, ne) = both(fn)
    assert te is not None and ne is not None and issubclass(ne, te), (te, ne)


def test_meta_index_and_matrix_rank():
    for L in (torch, nt):                                           # numtorch's was range(0, 0)
        with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
            range(L.empty((), dtype=L.long, device="meta"))
    for L in (torch, nt):                                           # numtorch's was a CPU tensor
        r = L.linalg.matrix_rank(_m(L, 2, 4, 3))
        assert r.is_meta and tuple(r.shape) == (2,) and str(r.dtype) == "torch.int64"
    for L in (torch, nt):                                           # writes of the right shape still work
        x = _m(L, 2, 3)
        x.mul_(_m(L, 3))
        x[0:1] = _m(L, 3)
        assert x.is_meta and tuple(x.shape) == (2, 3)


# ---------------------------------------------------------------------------------- autograd.grad
def _grad_of_sparse(L, which):
    L.manual_seed(0)
    if which == "embedding":  # was NotImplementedError ('a dense view'): the engine copied the gradient densely
        e = L.nn.Embedding(6, 3, sparse=True)
        return L.autograd.grad(e(L.tensor([1, 2, 1])).pow(2).sum(), e.weight)[0]
    s = L.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], L.tensor([1., 2., 3.]), (2, 3), requires_grad=True)
    return L.autograd.grad(L.sparse.mm(s, L.arange(6.).reshape(3, 2)).sum(), s)[0]


@pytest.mark.parametrize("which", ["embedding", "leaf"])
def test_autograd_grad_sparse(which):
    (t, te), (n, ne) = both(lambda L: _grad_of_sparse(L, which))
    assert te is None and ne is None, (te, ne)
    assert n.is_sparse and t.is_sparse
    np.testing.assert_allclose(n.to_dense().numpy(), t.to_dense().numpy(), rtol=1e-6)


# ---------------------------------------------------------------------------------- broadcast dense factors
def _adj(L, requires_grad=False):
    v = L.arange(1., 7., requires_grad=requires_grad)
    return L.sparse_coo_tensor([[0, 1, 1, 2, 3, 0], [1, 0, 2, 1, 3, 3]], v, (4, 4)), v


@pytest.mark.parametrize("fn", [
    lambda L: _adj(L)[0] * L.arange(1., 5.).view(-1, 1),     # row scaling: was NotImplementedError
    lambda L: L.arange(1., 5.).view(1, -1) * _adj(L)[0],
    lambda L: _adj(L)[0] * L.arange(1., 5.),
    lambda L: _adj(L)[0] * L.arange(1., 4.),                 # mismatch: torch's RuntimeError, not NumPy's ValueError
    lambda L: L.tensor(0.).to_sparse(),                      # a 0-d zero has no entry (had one)
    lambda L: L.tensor(2.).to_sparse(),
], ids=lambda f: "")
def test_sparse_times_broadcast_dense(fn):
    same(fn)


def test_gcn_normalisation_and_values_gradient():
    """D^-1/2 A D^-1/2 written with broadcasting, then a product; gradients reach the edge weights."""
    res = []
    for L in (torch, nt):
        a, v = _adj(L, True)
        dinv = L.sparse.sum(a, 1).to_dense().pow(-0.5).detach()  # PyTorch cannot differentiate through it
        out = L.sparse.mm(a * dinv.view(-1, 1) * dinv.view(1, -1), L.arange(8.).reshape(4, 2))
        out.pow(2).sum().backward()
        col = L.arange(1., 5.).view(-1, 1).requires_grad_()  # the broadcast factor's gradient (was NotImplementedError)
        (_adj(L)[0] * col).to_dense().pow(2).sum().backward()
        g = col.grad.to_dense() if col.grad.is_sparse else col.grad  # sparse in PyTorch, dense in numtorch
        res.append((out.detach().numpy(), v.grad.numpy(), g.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-5)
