"""Sparse COO tensors against PyTorch: construction, printing, conversions, coalescing, the ops PyTorch
runs on them (add, scalar mul/div, neg, t/transpose, sums, softmax, products), their gradients (dense
operands, values, sparse leaves; gradcheck in float64), bad input (exception types and messages),
nn.Embedding(sparse=True) gradients and optim.SparseAdam step by step with state dicts both ways."""
import warnings

import numpy as np
import pytest
import torch

import numtorch as nt

warnings.filterwarnings("ignore", message="Sparse invariant checks")

IDX = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]  # (0, 2) twice: uncoalesced


def to_nt(t):
    """A numtorch copy of a torch tensor (sparse COO ones entry for entry, coalesced flag kept)."""
    if t.is_sparse:
        return nt.sparse_coo_tensor(nt.tensor(t._indices().numpy()), nt.tensor(t._values().detach().numpy()),
                                    tuple(t.shape), is_coalesced=t.is_coalesced())
    return nt.tensor(t.detach().numpy())


def same(n, t, tol=1e-6):
    """``n`` is ``t``: layout, shape, dtype and, for sparse ones, coalesced flag, indices and values as stored."""
    assert str(n.layout) == str(t.layout)
    assert tuple(n.shape) == tuple(t.shape) and str(n.dtype) == str(t.dtype)
    if t.is_sparse:
        assert n.is_coalesced() == t.is_coalesced()
        np.testing.assert_array_equal(n._indices().numpy(), t._indices().numpy())
        np.testing.assert_allclose(n._values().detach().numpy(), t._values().detach().numpy(), rtol=tol, atol=tol)
    else:
        np.testing.assert_allclose(n.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def pair(values=(1., 2., 3., 4., 5.), size=(3, 3), dtype=torch.float32, requires_grad=False):
    """The same sparse tensor built from leaf values in both libraries: (torch values, torch sparse, nt values,
    nt sparse)."""
    tv = torch.tensor(values, dtype=dtype, requires_grad=requires_grad)
    nv = nt.tensor(np.array(values), dtype=getattr(nt, str(dtype).split(".")[1]), requires_grad=requires_grad)
    return tv, torch.sparse_coo_tensor(IDX, tv, size), nv, nt.sparse_coo_tensor(IDX, nv, size)


# ---------------------------------------------------------------------------------------------- construction
CONSTRUCT = [
    lambda L: L.sparse_coo_tensor(IDX, [1., 2., 3., 4., 5.], (3, 3)),
    lambda L: L.sparse_coo_tensor(IDX, [1., 2., 3., 4., 5.]),
    lambda L: L.sparse_coo_tensor(IDX, [1, 2, 3, 4, 5], (3, 4)),
    lambda L: L.sparse_coo_tensor(IDX, [1., 2., 3., 4., 5.], (3, 3), dtype=L.float64),
    lambda L: L.sparse_coo_tensor(IDX, L.ones(5, 2), (3, 3, 2)),
    lambda L: L.sparse_coo_tensor([[0, 1], [1, 0]], [1., 2.], (2, 2), is_coalesced=True),
    lambda L: L.sparse_coo_tensor(L.zeros(2, 0, dtype=L.long), L.zeros(0), (2, 2)),
    lambda L: L.sparse_coo_tensor(L.zeros(2, 0, dtype=L.long), L.zeros(0)),
    lambda L: L.sparse_coo_tensor(L.tensor(IDX, dtype=L.int32), L.arange(5.), (3, 3), requires_grad=True),
    lambda L: L.tensor([[0., 1.5, 0.], [2., 0., 0.]]).to_sparse(),
    lambda L: L.tensor([[0., 1.5, 0.], [0., 0., 0.], [2., 0., 1.]]).to_sparse(1),
    lambda L: L.tensor([[0, 3], [2, 0]], dtype=L.int16).to_sparse(),
    lambda L: L.tensor([[True, False], [False, True]]).to_sparse(),
    lambda L: L.tensor(3.).to_sparse(),
    lambda L: L.sparse_coo_tensor(IDX, [1., 2., 3., 4., 5.], (3, 3)).coalesce(),
    lambda L: L.sparse_coo_tensor(IDX, L.ones(5, 2), (3, 3, 2)).coalesce(),
]


@pytest.mark.quick
@pytest.mark.parametrize("i", range(len(CONSTRUCT)))
def test_construction_and_repr_match_torch(i):
    t, n = CONSTRUCT[i](torch), CONSTRUCT[i](nt)
    same(n, t)
    assert repr(n) == repr(t)
    assert (n.is_sparse, n.sparse_dim(), n.dense_dim(), n._nnz(), n.dim(), n.numel(), n.requires_grad) == \
           (t.is_sparse, t.sparse_dim(), t.dense_dim(), t._nnz(), t.dim(), t.numel(), t.requires_grad)
    assert (n.is_leaf, type(n) is nt.Tensor) == (t.is_leaf, True)
    same(n.to_dense(), t.to_dense())
    same(n.coalesce(), t.coalesce())
    same(n.coalesce().values(), t.coalesce().values())
    same(n.coalesce().indices(), t.coalesce().indices())


def test_layouts():
    assert repr(nt.strided) == "torch.strided" and repr(nt.sparse_coo) == "torch.sparse_coo"
    assert nt.zeros(2).layout is nt.strided and not nt.zeros(2).is_sparse
    s = nt.zeros(2, 2).to_sparse()
    assert s.layout is nt.sparse_coo and s.to_sparse() is s and s.coalesce() is s
    assert nt.zeros(2).to_dense() is not None and isinstance(nt.layout, type)
    assert nt.zeros(2, 3).to_sparse(layout=nt.sparse_coo).is_sparse


def _raises(fn):
    """Run ``fn`` on torch and numtorch: the same exception type and message, or the same result."""
    try:
        fn(torch)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as info:
            fn(nt)
        return str(e), str(info.value)
    raise AssertionError("torch does not raise")


V5 = [1., 2., 3., 4., 5.]
BAD = [
    lambda L: L.sparse_coo_tensor(IDX, [1., 2.], (3, 3)),                          # nnz mismatch
    lambda L: L.sparse_coo_tensor(IDX, V5, (3, 2), check_invariants=True),       # index out of range
    lambda L: L.sparse_coo_tensor([[0, -1, 1, 0, 2], [2, 0, 2, 2, 1]], V5, (3, 3), check_invariants=True),
    lambda L: L.sparse_coo_tensor(IDX, V5, (3,)),                                  # too few dims
    lambda L: L.sparse_coo_tensor(IDX, V5, (3, 3, 4)),                             # too many dims
    lambda L: L.sparse_coo_tensor(L.zeros(2, 5, 1, dtype=L.long), V5, (3, 3)),   # 3-D indices
    lambda L: L.sparse_coo_tensor(IDX, L.ones(5, 2), (3, 3, 5)),                   # dense dims differ
    lambda L: L.sparse_coo_tensor(IDX, L.tensor(3.), (3, 3)),                      # 0-d values
    lambda L: L.sparse_coo_tensor(IDX, [1, 2, 3, 4, 5], (3, 3), requires_grad=True),
    lambda L: L.sparse_coo_tensor(IDX, V5, (3, 3)).values(),                       # uncoalesced
    lambda L: L.sparse_coo_tensor(IDX, V5, (3, 3)).indices(),
    lambda L: L.sparse_coo_tensor(IDX, V5, (3, 3)).numpy(),
    lambda L: L.sparse_coo_tensor(IDX, V5, (3, 3)).exp(),                          # no sparse kernel
    lambda L: L.sparse_coo_tensor(IDX, V5, (3, 3)) + L.ones(3, 3),                 # add(sparse, dense)
    lambda L: L.sparse_coo_tensor(IDX, V5, (3, 3)) - L.ones(3, 3),
    lambda L: L.sparse_coo_tensor(IDX, V5, (3, 3)) + L.sparse_coo_tensor(IDX, V5, (3, 4)),
    lambda L: L.sparse_coo_tensor(IDX, V5, (3, 3)).to_dense(L.float64),
    lambda L: L.ones(2, 3).to_sparse(3),
    lambda L: L.ones(2, 3).to_sparse(0),
    lambda L: L.ones(2, 3).to_sparse().to_sparse(1),
    lambda L: L.sparse.mm(L.sparse_coo_tensor(IDX, V5, (3, 3)), L.ones(4, 2)),
    lambda L: L.sparse.mm(L.sparse_coo_tensor(IDX, V5, (3, 3)), L.ones(3, 2, dtype=L.float64)),
    lambda L: L.mm(L.sparse_coo_tensor(IDX, V5, (3, 3)), L.ones(4, 2)),
    lambda L: L.sparse_coo_tensor(IDX, V5, (3, 3)) @ L.ones(3, 2, dtype=L.float64),
]
EXACT_MESSAGE = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 16, 17, 18, 19, 20, 21, 22, 23}


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_input_raises_like_torch(i):
    theirs, ours = _raises(BAD[i])
    if i in EXACT_MESSAGE:
        assert ours == theirs


def test_out_of_range_indices_always_checked():
    """PyTorch builds a broken tensor without check_invariants (or trusts is_coalesced=True); numtorch refuses
    rather than give wrong results."""
    with pytest.raises(RuntimeError, match="size is inconsistent with indices"):
        nt.sparse_coo_tensor(IDX, V5, (3, 2))
    with pytest.raises(RuntimeError, match="found negative index"):
        nt.sparse_coo_tensor([[0, -1], [0, 0]], [1., 2.], (3, 3))
    with pytest.raises(RuntimeError, match="is_coalesced=True, but the indices are not sorted and unique"):
        nt.sparse_coo_tensor(IDX, V5, (3, 3), is_coalesced=True)


# ---------------------------------------------------------------------------------------------- ops
OPS = {
    "add_sparse": lambda L, s, d: s + s,
    "add_coalesced": lambda L, s, d: s.coalesce() + s.coalesce(),
    "add_mixed": lambda L, s, d: s.coalesce() + s * 2,
    "sub_sparse": lambda L, s, d: s.coalesce() - s * 0.5,
    "add_dense_sparse": lambda L, s, d: d + s,
    "add_alpha": lambda L, s, d: L.add(d, s, alpha=2),
    "mul_scalar": lambda L, s, d: s * 2.5,
    "rmul_scalar": lambda L, s, d: 3 * s.coalesce(),
    "div_scalar": lambda L, s, d: s / 4,
    "neg": lambda L, s, d: -s,
    "t": lambda L, s, d: s.t(),
    "t_coalesced": lambda L, s, d: s.coalesce().t(),
    "transpose": lambda L, s, d: s.transpose(0, 1),
    "to_dense": lambda L, s, d: s.to_dense() * d,
    "values": lambda L, s, d: s.coalesce().values() * 2,
    "sum": lambda L, s, d: s.sum(),
    "sparse_sum": lambda L, s, d: L.sparse.sum(s),
    "sparse_sum_dim0": lambda L, s, d: L.sparse.sum(s, 0),
    "sparse_sum_dim1": lambda L, s, d: L.sparse.sum(s, -1),
    "sparse_sum_dims": lambda L, s, d: L.sparse.sum(s, [0, 1]),
    "softmax": lambda L, s, d: L.sparse.softmax(s, 1),
    "softmax0": lambda L, s, d: L.sparse.softmax(s, 0),
    "log_softmax": lambda L, s, d: L.sparse.log_softmax(s, 1),
    "sparse_mm": lambda L, s, d: L.sparse.mm(s, d),
    "mm": lambda L, s, d: L.mm(s, d),
    "matmul": lambda L, s, d: L.matmul(s, d),
    "at": lambda L, s, d: s @ d,
    "at_t": lambda L, s, d: s.t() @ d,
    "mv": lambda L, s, d: L.mv(s, d[:, 0]),
    "dense_at_sparse": lambda L, s, d: d @ s,
    "spmm": lambda L, s, d: L.spmm(s, d),
    "sparse_at_sparse": lambda L, s, d: L.sparse.mm(s, s.t()),
    "addmm": lambda L, s, d: L.sparse.addmm(d, s, d, beta=0.5, alpha=2),
    "to_float64": lambda L, s, d: s.to(L.float64),
    "double": lambda L, s, d: s.double(),
}
SAME_NODE = set(OPS) - {"addmm"}  # numtorch's sparse.addmm is a composite: its node is AddBackward0


def _out_grad(out):
    """A loss of ``out``: sum(out * w) of its dense form with fixed weights w."""
    L = torch if isinstance(out, torch.Tensor) else nt
    w = L.tensor(np.linspace(-1, 2, max(out.numel(), 1)).reshape(tuple(out.shape)), dtype=out.dtype)
    dense = out.to_dense() if out.is_sparse else out
    return (dense * w).sum()


@pytest.mark.parametrize("name", list(OPS))
def test_op_values_and_gradients_match_torch(name):
    tv, ts, nv, ns = pair(requires_grad=True)
    td = torch.tensor(np.linspace(-2, 2, 9).reshape(3, 3), dtype=torch.float32, requires_grad=True)
    nd = nt.tensor(np.linspace(-2, 2, 9).reshape(3, 3), dtype=nt.float32, requires_grad=True)
    t, n = OPS[name](torch, ts, td), OPS[name](nt, ns, nd)
    same(n, t, 1e-5)
    if name in SAME_NODE:
        assert n.grad_fn.name() == t.grad_fn.name()
    _out_grad(t).backward()
    _out_grad(n).backward()
    same(nv.grad, tv.grad, 1e-5)
    if td.grad is not None:
        same(nd.grad, td.grad, 1e-5)
    else:
        assert nd.grad is None


@pytest.mark.parametrize("name", ["sparse_mm", "mm", "to_dense", "values", "t", "mul_scalar", "add_dense_sparse",
                                  "sparse_sum_dim0", "softmax", "sum"])
def test_sparse_leaf_gradient_layout_matches_torch(name):
    """A sparse leaf (sparse_coo_tensor(..., requires_grad=True)): its .grad is sparse or dense as torch's."""
    t = torch.sparse_coo_tensor(IDX, V5, (3, 3), requires_grad=True)
    n = nt.sparse_coo_tensor(IDX, V5, (3, 3), requires_grad=True)
    td, nd = torch.ones(3, 3), nt.ones(3, 3)
    if name == "values":
        t, n = t.coalesce().detach().requires_grad_(), n.coalesce().detach().requires_grad_()
    _out_grad(OPS[name](torch, t, td)).backward()
    _out_grad(OPS[name](nt, n, nd)).backward()
    assert t.grad.layout == torch.sparse_coo if n.grad.is_sparse else t.grad.layout == torch.strided
    tg, ng = t.grad.coalesce() if t.grad.is_sparse else t.grad, n.grad.coalesce() if n.grad.is_sparse else n.grad
    same(ng, tg, 1e-5)


def test_hybrid_sparse_sum_and_softmax():
    tv = torch.arange(10., requires_grad=True)
    nv = nt.arange(10., requires_grad=True)
    for dims in (2, [0, 2], [0, 1], 0):
        ts = torch.sparse_coo_tensor(IDX, tv.view(5, 2), (3, 3, 2))
        ns = nt.sparse_coo_tensor(IDX, nv.view(5, 2), (3, 3, 2))
        t, n = torch.sparse.sum(ts, dims), nt.sparse.sum(ns, dims)
        same(n, t)
        _out_grad(t).backward()
        _out_grad(n).backward()
    same(nv.grad, tv.grad)


def test_gradcheck_sparse_mm_float64():
    """Finite differences agree with sparse @ dense's gradients w.r.t. the dense operand and the values."""
    vals = nt.tensor(np.linspace(0.5, 1.5, 5), requires_grad=True)
    dense = nt.tensor(np.linspace(-1, 1, 6).reshape(3, 2), requires_grad=True)
    for mm in (nt.sparse.mm, nt.mm, lambda a, b: (a @ b).tanh()):
        assert nt.autograd.gradcheck(lambda v, d: mm(nt.sparse_coo_tensor(IDX, v, (3, 3)), d), (vals, dense))
    assert nt.autograd.gradcheck(lambda v: nt.sparse.softmax(nt.sparse_coo_tensor(IDX, v, (3, 3)), 1).to_dense(),
                                 (vals,))


def test_gradient_accumulates_sparse_then_dense():
    """A sparse leaf reached by a sparse and a dense gradient: the sum is dense, as torch's."""
    for L in (torch, nt):
        s = L.sparse_coo_tensor(IDX, V5, (3, 3), requires_grad=True)
        (L.sparse.mm(s, L.ones(3, 2)).sum() + L.mm(s, L.ones(3, 2)).sum()).backward()
        if L is torch:
            ref = s.grad
        else:
            same(s.grad if not s.grad.is_sparse else s.grad.to_dense(), ref if not ref.is_sparse else ref.to_dense())


# ---------------------------------------------------------------------------------------------- nn and optim
def _embedding_grads(L, padding_idx):
    L.manual_seed(0)
    emb = L.nn.Embedding(6, 3, sparse=True, padding_idx=padding_idx)
    idx = L.tensor([[1, 0, 3], [1, 5, 0]])
    emb(idx).pow(2).sum().backward()
    g = emb.weight.grad  # a snapshot: the next backward adds into it in place
    first = L.sparse_coo_tensor(g._indices().clone(), g._values().clone(), g.shape, is_coalesced=g.is_coalesced())
    emb(idx[:, :2]).sum().backward()
    assert emb.weight.grad is g
    return first, emb.weight.grad


@pytest.mark.parametrize("padding_idx", [None, 0])
def test_embedding_sparse_gradient_matches_torch(padding_idx):
    (t1, t2), (n1, n2) = _embedding_grads(torch, padding_idx), _embedding_grads(nt, padding_idx)
    same(n1, t1)
    # accumulated: PyTorch's in-place sparse add merges or concatenates depending on the values' memory
    # layout (a stride-0 gradient here); the sums agree
    same(n2.coalesce(), t2.coalesce())


def test_embedding_sparse_scale_grad_by_freq_raises():
    for L in (torch, nt):
        w = L.ones(4, 2, requires_grad=True)
        out = L.nn.functional.embedding(L.tensor([1, 1]), w, sparse=True, scale_grad_by_freq=True)
        with pytest.raises(RuntimeError, match="scale_grad_by_freq not supported with sparse gradients"):
            out.sum().backward()


def _sparse_adam_model(L, seed):
    L.manual_seed(seed)
    emb, lin = L.nn.Embedding(12, 4, sparse=True), L.nn.Linear(4, 1)
    return emb, lin


def _sd_to(sd, L):
    """An optimizer state dict with its tensors rebuilt in library ``L``."""
    conv = lambda v: L.tensor(np.asarray(v.numpy())) if hasattr(v, "numpy") else v  # noqa: E731
    return {"state": {k: {n: conv(v) for n, v in st.items()} for k, st in sd["state"].items()},
            "param_groups": [dict(g) for g in sd["param_groups"]]}


@pytest.mark.quick
@pytest.mark.parametrize("opts", [dict(lr=0.05), dict(lr=0.1, betas=(0.8, 0.9), eps=1e-6, maximize=True)])
def test_sparse_adam_matches_torch_step_by_step(opts):
    (te, tl), (ne, nl) = _sparse_adam_model(torch, 3), _sparse_adam_model(nt, 3)
    same(ne.weight, te.weight)
    topt, nopt = torch.optim.SparseAdam(te.parameters(), **opts), nt.optim.SparseAdam(ne.parameters(), **opts)
    tlin, nlin = torch.optim.SGD(tl.parameters(), lr=0.1), nt.optim.SGD(nl.parameters(), lr=0.1)
    rng = np.random.RandomState(0)
    for step in range(5):
        idx = rng.randint(0, 12, (4, 3))
        tloss = tl(te(torch.tensor(idx))).pow(2).mean()
        nloss = nl(ne(nt.tensor(idx))).pow(2).mean()
        for o in (topt, nopt, tlin, nlin):
            o.zero_grad()
        tloss.backward()
        nloss.backward()
        same(ne.weight.grad, te.weight.grad, 1e-6)
        for o in (topt, nopt, tlin, nlin):
            o.step()
        np.testing.assert_allclose(nloss.item(), tloss.item(), rtol=1e-6)
        same(ne.weight, te.weight, 1e-6)
        if step == 2:  # state dicts cross over both ways and the runs continue identically
            nsd, tsd = nopt.state_dict(), topt.state_dict()
            assert nsd["state"][0]["step"] == tsd["state"][0]["step"] == 3
            same(nsd["state"][0]["exp_avg_sq"], tsd["state"][0]["exp_avg_sq"], 1e-6)
            nopt2 = nt.optim.SparseAdam(ne.parameters(), **opts)
            nopt2.load_state_dict(_sd_to(tsd, nt))
            topt2 = torch.optim.SparseAdam(te.parameters(), **opts)
            topt2.load_state_dict(_sd_to(nsd, torch))
            nopt, topt = nopt2, topt2


def test_sparse_adam_errors_match_torch():
    for L in (torch, nt):
        p = L.nn.Parameter(L.ones(3))
        with pytest.raises(ValueError, match="Invalid learning rate"):
            L.optim.SparseAdam([p], lr=0)
        with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
            L.optim.SparseAdam([p], betas=(0.9, 1.0))
        with pytest.raises(ValueError, match="SparseAdam requires dense parameter tensors"):
            L.optim.SparseAdam([L.ones(2, 2).to_sparse()])
        with pytest.raises(ValueError, match="SparseAdam does not support complex parameters"):
            L.optim.SparseAdam([L.nn.Parameter(L.ones(2, dtype=L.complex64))])
        opt = L.optim.SparseAdam([p])
        p.sum().backward()
        with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients"):
            opt.step()


# ---------------------------------------------------------------------------------------------- odds and ends
MORE = {
    "clone": lambda L, s: s.clone(),
    "detach": lambda L, s: s.detach(),
    "zero_": lambda L, s: s.clone().zero_(),
    "mul_dense": lambda L, s: s * L.arange(9.).view(3, 3),
    "sparse_mask": lambda L, s: L.arange(9.).view(3, 3).sparse_mask(s),
    "sparse_mask_coalesced": lambda L, s: L.arange(9.).view(3, 3).sparse_mask(s.coalesce()),
    "to_sparse_coo": lambda L, s: L.arange(4.).view(2, 2).to_sparse_coo(),
    "float": lambda L, s: s.long().float(),
}


@pytest.mark.parametrize("name", list(MORE))
def test_more_ops_match_torch(name):
    t = MORE[name](torch, torch.sparse_coo_tensor(IDX, V5, (3, 3)))
    n = MORE[name](nt, nt.sparse_coo_tensor(IDX, V5, (3, 3)))
    same(n, t)
    assert n.is_contiguous() == t.is_contiguous()


def test_zero_grad_keeps_a_sparse_grad_empty():
    for L in (torch, nt):
        emb = L.nn.Embedding(4, 2, sparse=True)
        opt = L.optim.SGD(emb.parameters(), lr=0.1)
        emb(L.tensor([1, 2])).sum().backward()
        opt.zero_grad(set_to_none=False)
        assert emb.weight.grad.is_sparse and emb.weight.grad._nnz() == 0


def test_pickle_and_deepcopy_keep_sparse_tensors():
    import copy
    import pickle
    s = nt.sparse_coo_tensor(IDX, V5, (3, 3))
    for c in (pickle.loads(pickle.dumps(s)), copy.deepcopy(s)):
        assert c.is_sparse and c._values() is not s._values()
        np.testing.assert_array_equal(c.to_dense().numpy(), s.to_dense().numpy())


def test_save_load_both_ways(tmp_path):
    """torch.save of sparse COO tensors loads in numtorch and back (torch._utils._rebuild_sparse_tensor)."""
    ts = {"u": torch.sparse_coo_tensor(IDX, V5, (3, 3)), "c": torch.sparse_coo_tensor(IDX, V5, (3, 3)).coalesce(),
          "h": torch.sparse_coo_tensor(IDX, torch.ones(5, 2, dtype=torch.float64), (3, 3, 2))}
    torch.save(ts, tmp_path / "t.pt")
    loaded = nt.load(tmp_path / "t.pt")
    for k in ts:
        same(loaded[k], ts[k])
    nt.save(loaded, tmp_path / "n.pt")
    back = torch.load(tmp_path / "n.pt")
    for k in ts:
        assert back[k].is_coalesced() == ts[k].is_coalesced()
        assert torch.equal(back[k]._indices(), ts[k]._indices()) and torch.equal(back[k]._values(), ts[k]._values())


@pytest.mark.parametrize("bad,message", [
    (lambda: torch.sparse_coo_tensor([[0, 5]], [1., 2.], (3,)), "size is inconsistent with indices"),
    (lambda: torch.sparse_coo_tensor([[2, 0]], [1., 2.], (3,), is_coalesced=True), "indices are not sorted"),
])
def test_load_refuses_damaged_sparse_tensors(tmp_path, bad, message):
    torch.save(bad(), tmp_path / "bad.pt")
    import pickle
    with pytest.raises(pickle.UnpicklingError, match=message):
        nt.load(tmp_path / "bad.pt")


@pytest.mark.parametrize("name,opts", [
    ("SGD", dict(lr=0.1)), ("SGD", dict(lr=0.1, momentum=0.9)), ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.5, dampening=0.3, maximize=True)), ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1, initial_accumulator_value=0.2, maximize=True)),
])
def test_optimizers_with_sparse_gradients_match_torch(name, opts):
    torch.manual_seed(0)
    te = torch.nn.Embedding(8, 3, sparse=True)
    ne = nt.nn.Embedding(8, 3, sparse=True)
    ne.weight.data = nt.tensor(te.weight.detach().numpy().copy())
    topt, nopt = getattr(torch.optim, name)(te.parameters(), **opts), getattr(nt.optim, name)(ne.parameters(), **opts)
    for step in range(4):
        idx = np.random.RandomState(step).randint(0, 8, (5,))
        for L, emb, opt in ((torch, te, topt), (nt, ne, nopt)):
            opt.zero_grad()
            emb(L.tensor(idx)).pow(2).sum().backward()
            opt.step()
        same(ne.weight, te.weight, 1e-6)


@pytest.mark.parametrize("name,opts", [("Adam", {}), ("AdamW", {}), ("RMSprop", {}), ("NAdam", {}),
                                       ("SGD", dict(weight_decay=0.1)), ("Adagrad", dict(weight_decay=0.1))])
def test_optimizers_refuse_sparse_gradients_as_torch(name, opts):
    msgs = []
    for L in (torch, nt):
        emb = L.nn.Embedding(4, 2, sparse=True)
        opt = getattr(L.optim, name)(emb.parameters(), lr=0.1, **opts)
        emb(L.tensor([1])).sum().backward()
        with pytest.raises(RuntimeError) as info:
            opt.step()
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
