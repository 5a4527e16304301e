"""Batching rules of the nn ops under numtorch.func.vmap against torch.func.vmap: normalisation (batch
norm in evaluation and training, with PyTorch's running-statistics behaviour and error), group/instance/
layer norm with per-sample parameters, nll_loss and the elementwise losses, dropout, einsum, the
add-matmul family, pad, cumulative ops, sort/topk, attention. Each rule: values, shapes and dtypes,
in_dims variants, no "performance drop" warning (the rule ran, not the loop), and per-sample gradients
(vmap of grad) against torch. Also randomness="same"/"different" for the samplers."""
import contextlib
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from torch.func import grad as tgrad
from torch.func import vmap as tvmap

import numtorch as nt
import numtorch.nn.functional as F
from numtorch.func import grad, vmap
from numtorch.func._batched import is_batched

RNG = np.random.default_rng(0)


def _arr(*shape, lo=None, hi=None, dtype=np.float32):
    if lo is not None:
        return RNG.uniform(lo, hi, shape).astype(dtype)
    return RNG.standard_normal(shape).astype(dtype)


def _same(a, b, tol=1e-4):
    if isinstance(b, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, tol)
        return
    assert not is_batched(a)
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_allclose(a.detach().numpy().astype(np.float64), b.detach().numpy().astype(np.float64),
                               rtol=tol, atol=tol)


@contextlib.contextmanager
def _rule_used():
    """Asserts that no op inside fell back to the loop over the batch (PyTorch's warning)."""
    from numtorch.func import _batched
    _batched._WARNED.clear()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        yield
    drops = [str(i.message) for i in w if "performance drop" in str(i.message)]
    assert not drops, drops


def _to(mod, a):
    if a is None or not isinstance(a, np.ndarray):
        return a
    return (nt if mod is F else torch).tensor(a)


def check(fn, arrays, in_dims=0, tol=1e-4, grads=True, **kw):
    """vmap(fn) with numtorch and torch on the same arrays; with ``grads``, vmap(grad) of its sum w.r.t.
    the first argument as well. ``fn(mod, *tensors)`` gets F or torch.nn.functional."""
    ns = [_to(F, a) for a in arrays]
    ts = [_to(TF, a) for a in arrays]
    with _rule_used():
        r = vmap(lambda *a: fn(F, *a), in_dims, **kw)(*ns)
    _same(r, tvmap(lambda *a: fn(TF, *a), in_dims, **kw)(*ts), tol)
    if grads:
        with _rule_used():
            g = vmap(grad(lambda *a: fn(F, *a).sum()), in_dims, **kw)(*ns)
        _same(g, tvmap(tgrad(lambda *a: fn(TF, *a).sum()), in_dims, **kw)(*ts), tol)


# ------------------------------------------------------------------------------------------------
# normalisation
# ------------------------------------------------------------------------------------------------
@pytest.mark.quick
@pytest.mark.parametrize("in_dims", [(0, None, None), (0, 0, 0), (None, 0, 0), (1, 0, None)])
def test_layer_norm(in_dims):
    x = {0: _arr(4, 3, 5, 6), 1: _arr(3, 4, 5, 6), None: _arr(3, 5, 6)}[in_dims[0]]
    w = _arr(4, 5, 6) if in_dims[1] is not None else _arr(5, 6)
    b = _arr(4, 5, 6) if in_dims[2] is not None else _arr(5, 6)
    check(lambda m, x, w, b: m.layer_norm(x, (5, 6), w, b), [x, w, b], in_dims)


@pytest.mark.parametrize("in_dims", [(0, None, None), (0, 0, 0), (2, 0, None), (None, 0, 0)])
def test_group_norm(in_dims):
    x = _arr(3, 2, 4, 5) if in_dims[0] is not None else _arr(2, 4, 5)
    if in_dims[0] == 2:
        x = _arr(2, 4, 3, 5)
    w = _arr(3, 4) if in_dims[1] is not None else _arr(4)
    b = _arr(3, 4) if in_dims[2] is not None else _arr(4)
    check(lambda m, x, w, b: m.group_norm(x, 2, w, b), [x, w, b], in_dims)


@pytest.mark.parametrize("in_dims", [(0, None, None, None, None), (0, 0, 0, 0, 0), (1, None, 0, None, 0),
                                     (None, 0, None, 0, None)])
def test_batch_norm_eval(in_dims):
    shapes = {0: (3, 2, 4, 5), 1: (2, 3, 4, 5), None: (2, 4, 5)}
    x = _arr(*shapes[in_dims[0]])
    ps = [_arr(3, 4, lo=0.5, hi=1.5) if d is not None else _arr(4, lo=0.5, hi=1.5) for d in in_dims[1:]]

    def f(m, x, rm, rv, w, b):
        return m.batch_norm(x, rm, rv, w, b, training=False, eps=1e-3)
    check(f, [x] + ps, in_dims)


@pytest.mark.quick
@pytest.mark.parametrize("affine", [None, 0])
def test_batch_norm_train_no_running_stats(affine):
    x, w, b = _arr(3, 2, 4, 5), _arr(3, 4), _arr(3, 4)
    ind = (0, affine, affine)
    if affine is None:
        w, b = w[0], b[0]
    check(lambda m, x, w, b: m.batch_norm(x, None, None, w, b, training=True), [x, w, b], ind)
    check(lambda m, x: m.batch_norm(x, None, None, training=True), [_arr(3, 5, 4)], 0)  # (N, C) samples
    check(lambda m, x, w, b: m.batch_norm(x, None, None, w, b, training=True), [_arr(2, 4, 5), _arr(3, 4), _arr(3, 4)],
          (None, 0, 0))  # a shared input, per-sample affine


def test_batch_norm_train_running_stats():
    """Batched running statistics are updated per sample, as torch.func.vmap; unbatched ones raise
    PyTorch's RuntimeError (they would be written with batched values)."""
    x = _arr(3, 4, 2, 5)
    rm, rv = _arr(3, 2), _arr(3, 2, lo=0.5, hi=1.5)
    res = []
    for mod, lib in ((F, nt), (TF, torch)):
        m_, v_ = lib.tensor(rm), lib.tensor(rv)
        vm = vmap if lib is nt else tvmap
        out = vm(lambda x, a, c: mod.batch_norm(x, a, c, training=True, momentum=0.3), (0, 0, 0))(lib.tensor(x), m_, v_)
        res.append((out, m_, v_))
    _same(res[0][0], res[1][0])
    _same(res[0][1], res[1][1])
    _same(res[0][2], res[1][2])
    # unbatched input, batched statistics: each sample's statistics get the same update
    m_n, m_t, v_n, v_t = nt.tensor(rm), torch.tensor(rm), nt.tensor(rv), torch.tensor(rv)
    vmap(lambda x, a, c: F.batch_norm(x, a, c, training=True), (None, 0, 0))(nt.tensor(x[0]), m_n, v_n)
    tvmap(lambda x, a, c: TF.batch_norm(x, a, c, training=True), (None, 0, 0))(torch.tensor(x[0]), m_t, v_t)
    _same((m_n, v_n), (m_t, v_t))
    for f, tf in ((lambda x: F.batch_norm(x, nt.zeros(2), nt.ones(2), training=True),
                   lambda x: TF.batch_norm(x, torch.zeros(2), torch.ones(2), training=True)),
                  (lambda x: F.instance_norm(x, nt.zeros(2), None),
                   lambda x: TF.instance_norm(x, torch.zeros(2), None))):
        with pytest.raises(RuntimeError, match="Batch norm got a batched tensor as input while the running_mean"):
            tvmap(tf)(torch.tensor(x))
        with pytest.raises(RuntimeError, match="Batch norm got a batched tensor as input while the running_mean"):
            vmap(f)(nt.tensor(x))


def test_instance_norm():
    x = _arr(3, 2, 4, 5)
    check(lambda m, x, w, b: m.instance_norm(x, weight=w, bias=b), [x, _arr(4), _arr(3, 4)], (0, None, 0))
    rm, rv = _arr(3, 4), _arr(3, 4, lo=0.5, hi=1.5)
    outs = []
    for mod, lib, vm in ((F, nt, vmap), (TF, torch, tvmap)):
        a, c = lib.tensor(rm), lib.tensor(rv)
        o = vm(lambda x, a, c: mod.instance_norm(x, a, c, momentum=0.2), (0, 0, 0))(lib.tensor(x), a, c)
        outs.append((o, a, c))
    _same(outs[0], outs[1])


def test_modules_per_sample_grads():
    """vmap(grad) of a small CNN with BatchNorm (running stats removed), GroupNorm, Dropout in eval, LayerNorm
    and a transformer block against torch, parameters copied."""
    nt.manual_seed(0)
    torch.manual_seed(0)

    def build(lib):
        nn = lib.nn
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.GroupNorm(2, 4),
                             nn.MaxPool2d(2), nn.Flatten(), nn.LayerNorm(16), nn.Linear(16, 3))
    mn, mt = build(nt), build(torch)
    for (k, p), (_, q) in zip(mn.named_parameters(), mt.named_parameters()):
        p.data = nt.tensor(q.detach().numpy().copy())
    from numtorch.func import functional_call, replace_all_batch_norm_modules_
    from torch.func import functional_call as tfc, replace_all_batch_norm_modules_ as trepl
    replace_all_batch_norm_modules_(mn)
    trepl(mt)
    xs, ys = _arr(5, 1, 4, 4), RNG.integers(0, 3, 5)

    def loss(fc, mod, lossf):
        def f(p, x, y):
            return lossf(fc(mod, p, (x.unsqueeze(0),)), y.unsqueeze(0))
        return f
    pn = {k: v.detach() for k, v in mn.named_parameters()}
    pt = {k: v.detach() for k, v in mt.named_parameters()}
    for lossf_n, lossf_t in ((F.cross_entropy, TF.cross_entropy),
                             (lambda o, y: F.nll_loss(F.log_softmax(o, -1), y),
                              lambda o, y: TF.nll_loss(TF.log_softmax(o, -1), y))):
        with _rule_used():
            gn = vmap(grad(loss(functional_call, mn, lossf_n)), (None, 0, 0))(pn, nt.tensor(xs), nt.tensor(ys))
        gt = tvmap(tgrad(loss(tfc, mt, lossf_t)), (None, 0, 0))(pt, torch.tensor(xs), torch.tensor(ys))
        for k in pt:
            _same(gn[k], gt[k], 2e-4)


def test_transformer_block_per_sample_grads():
    lay_n = nt.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    lay_t = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    for p, q in zip(lay_n.parameters(), lay_t.parameters()):
        p.data = nt.tensor(q.detach().numpy().copy())
    from numtorch.func import functional_call
    from torch.func import functional_call as tfc
    x, y = _arr(3, 5, 8), _arr(3, 5, 8)
    pn = {k: v.detach() for k, v in lay_n.named_parameters()}
    pt = {k: v.detach() for k, v in lay_t.named_parameters()}
    with _rule_used():
        gn = vmap(grad(lambda p, x, y: F.mse_loss(functional_call(lay_n, p, (x.unsqueeze(0),)), y.unsqueeze(0))),
                  (None, 0, 0))(pn, nt.tensor(x), nt.tensor(y))
    gt = tvmap(tgrad(lambda p, x, y: TF.mse_loss(tfc(lay_t, p, (x.unsqueeze(0),)), y.unsqueeze(0))),
               (None, 0, 0))(pt, torch.tensor(x), torch.tensor(y))
    for k in pt:
        _same(gn[k], gt[k], 2e-4)


# ------------------------------------------------------------------------------------------------
# losses
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("in_dims", [(0, 0), (0, None), (1, 0)])
def test_nll_loss(reduction, in_dims):
    x = _arr(4, 6, 5) if in_dims[0] == 0 else _arr(6, 4, 5)
    t = RNG.integers(0, 5, (4, 6)) if in_dims[1] is not None else RNG.integers(0, 5, (6,))
    t[..., 0] = -100  # ignored
    w = _arr(5, lo=0.5, hi=2)

    def f(m, x, t):
        return m.nll_loss(x, t, weight=_to(m, w), reduction=reduction)
    check(f, [x, t], in_dims)
    check(lambda m, x, t: m.nll_loss(x, t[0]), [_arr(4, 5), RNG.integers(0, 5, (4, 1))], 0)  # (C,) samples


def test_nll_loss_bounds_under_vmap():
    t = RNG.integers(0, 5, (4, 6))
    t[2, 3] = 7
    with pytest.raises(IndexError, match="Target 7 is out of bounds"):
        vmap(F.nll_loss)(nt.tensor(_arr(4, 6, 5)), nt.tensor(t))


LOSSES = {
    "mse": (lambda m, a, b: m.mse_loss(a, b), None),
    "l1": (lambda m, a, b: m.l1_loss(a, b, reduction="sum"), None),
    "smooth_l1": (lambda m, a, b: m.smooth_l1_loss(a, b, beta=0.5, reduction="none"), None),
    "huber": (lambda m, a, b: m.huber_loss(a, b, delta=0.7), None),
    "bce": (lambda m, a, b: m.binary_cross_entropy(a, b), "prob"),
    "bce_logits": (lambda m, a, b: m.binary_cross_entropy_with_logits(a, b, pos_weight=_to(m, np.ones(5, np.float32) * 2)),
                   "prob"),
    "kl_div": (lambda m, a, b: m.kl_div(a, b, reduction="batchmean"), "prob"),
    "soft_margin": (lambda m, a, b: m.soft_margin_loss(a, b), "sign"),
    "poisson_nll": (lambda m, a, b: m.poisson_nll_loss(a, b), "prob"),
    "gaussian_nll": (lambda m, a, b: m.gaussian_nll_loss(a, b, 0.7), None),
    "cosine_embedding": (lambda m, a, b: m.cosine_embedding_loss(a, b, b[:, 0].sign()), None),
    "margin_ranking": (lambda m, a, b: m.margin_ranking_loss(a, b, b.sign()), None),
    "hinge_embedding": (lambda m, a, b: m.hinge_embedding_loss(a, b.sign()), None),
    "triplet_margin": (lambda m, a, b: m.triplet_margin_loss(a, b, a * 2), None),
}


@pytest.mark.parametrize("name", list(LOSSES))
@pytest.mark.parametrize("in_dims", [(0, 0), (0, None), (1, 1)])
def test_pointwise_losses(name, in_dims):
    fn, kind = LOSSES[name]
    a = _arr(4, 3, 5, lo=0.1, hi=0.9) if name == "bce" else _arr(4, 3, 5)
    b = {"prob": _arr(4, 3, 5, lo=0.1, hi=0.9), "sign": np.sign(_arr(4, 3, 5)), None: _arr(4, 3, 5)}[kind]
    if in_dims[1] is None:
        b = b[0]
    check(fn, [a, b], in_dims)


def test_weighted_losses_mean():
    w = _arr(4, 3, 5, lo=0.5, hi=1.5)
    check(lambda m, a, b, w: m.mse_loss(a, b, weight=w) if m is F else (w * (a - b) ** 2).sum() / w.sum(),
          [_arr(4, 3, 5), _arr(4, 3, 5), w], (0, 0, 0))
    check(lambda m, a, b: m.binary_cross_entropy(a, b, weight=_to(m, w[0])), [_arr(4, 3, 5, lo=.1, hi=.9),
                                                                                _arr(4, 3, 5, lo=.1, hi=.9)], 0)


# ------------------------------------------------------------------------------------------------
# einsum, add-matmul, pad, cumulative, sort, attention
# ------------------------------------------------------------------------------------------------
@pytest.mark.quick
@pytest.mark.parametrize("eq,shapes,in_dims", [("ij,jk->ik", [(4, 2, 3), (4, 3, 5)], (0, 0)),
                                               ("ij,jk", [(4, 2, 3), (3, 5)], (0, None)),
                                               ("bij,bjk->bik", [(2, 3, 4), (4, 2, 4, 5)], (None, 0)),
                                               ("ii->i", [(3, 4, 4)], 0), ("i,i->", [(5, 4), (5, 4)], (1, 1)),
                                               ("...ij->...ji", [(4, 2, 3, 5)], 0)])
def test_einsum(eq, shapes, in_dims):
    check(lambda m, *a: (nt if m is F else torch).einsum(eq, *a), [_arr(*s) for s in shapes], in_dims)


def test_einsum_nested():
    a, b = _arr(3, 4, 2, 5), _arr(4, 5, 6)
    r = vmap(vmap(lambda x, y: nt.einsum("ij,jk->ik", x, y), (0, 0)), (0, None))(nt.tensor(a), nt.tensor(b))
    t = tvmap(tvmap(lambda x, y: torch.einsum("ij,jk->ik", x, y), (0, 0)), (0, None))(torch.tensor(a), torch.tensor(b))
    _same(r, t)


@pytest.mark.parametrize("op,shapes", [("addmm", [(2, 5), (2, 3), (3, 5)]), ("addmv", [(2,), (2, 3), (3,)]),
                                       ("baddbmm", [(6, 2, 5), (6, 2, 3), (6, 3, 5)]),
                                       ("addbmm", [(2, 5), (6, 2, 3), (6, 3, 5)])])
@pytest.mark.parametrize("which", [(0, 0, 0), (None, 0, None), (0, None, 0)])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0), (0, 1)])
def test_addmm_family(op, shapes, which, beta, alpha):
    arrays = [_arr(4, *s) if d is not None else _arr(*s) for s, d in zip(shapes, which)]
    check(lambda m, c, a, b: getattr(nt if m is F else torch, op)(c, a, b, beta=beta, alpha=alpha), arrays, which)


@pytest.mark.parametrize("mode,pad", [("constant", (1, 2)), ("constant", (1, 1, -1, 2)), ("reflect", (2, 1)),
                                      ("replicate", (1, 2, 2, 0)), ("circular", (1, 2))])
@pytest.mark.parametrize("in_dims", [0, 2])
def test_pad(mode, pad, in_dims):
    x = _arr(3, 2, 4, 5) if in_dims == 0 else _arr(2, 4, 3, 5)
    check(lambda m, x: m.pad(x, pad, mode=mode), [x], in_dims)


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp"])
@pytest.mark.parametrize("dim,in_dims", [(0, 0), (-1, 1), (1, 2)])
def test_cumulative(op, dim, in_dims):
    check(lambda m, x: getattr(nt if m is F else torch, op)(x, dim), [_arr(3, 4, 5)], in_dims)


def test_cummax_sort_topk():
    x = _arr(3, 4, 5)
    L = lambda m: nt if m is F else torch  # noqa: E731
    check(lambda m, x: L(m).cummax(x, 1), [x], 0, grads=False)
    check(lambda m, x: L(m).cummax(x, 1).values, [x], 0)
    for dim, ind in ((0, 0), (-1, 1), (1, 2)):
        check(lambda m, x: L(m).sort(x, dim, descending=True), [x], ind, grads=False)
        check(lambda m, x: L(m).sort(x, dim).values, [x], ind)
        check(lambda m, x: L(m).argsort(x, dim), [x], ind, grads=False)
        check(lambda m, x: L(m).topk(x, 2, dim).values, [x], ind)
        check(lambda m, x: L(m).topk(x, 2, dim, largest=False), [x], ind, grads=False)
        check(lambda m, x: L(m).kthvalue(x, 2, dim).values, [x], ind)


@pytest.mark.parametrize("in_dims", [(0, 0, 0), (0, None, None), (None, 1, 1)])
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa(in_dims, causal):
    shp = {0: (3, 2, 4, 6), None: (2, 4, 6), 1: (2, 3, 4, 6)}
    arrays = [_arr(*shp[d]) for d in in_dims]
    check(lambda m, q, k, v: m.scaled_dot_product_attention(q, k, v, is_causal=causal), arrays, in_dims)


def test_sdpa_batched_mask():
    arrays = [_arr(3, 2, 4, 6) for _ in range(3)] + [_arr(3, 4, 4)]
    check(lambda m, q, k, v, a: m.scaled_dot_product_attention(q, k, v, attn_mask=a), arrays, 0)


# ------------------------------------------------------------------------------------------------
# randomness
# ------------------------------------------------------------------------------------------------
SAMPLERS = {
    "rand": lambda x: nt.rand(3, 4) + x,
    "randn": lambda x: nt.randn(3, 4) + x,
    "randint": lambda x: nt.randint(0, 1000, (3, 4)) + x,
    "normal_size": lambda x: nt.normal(0.0, 1.0, (3, 4)) + x,
    "rand_like": lambda x: nt.rand_like(x),
    "randn_like": lambda x: nt.randn_like(x),
    "randint_like": lambda x: nt.randint_like(x, 1000),
    "randperm": lambda x: nt.randperm(12).reshape(3, 4) + x,
    "normal_shared_tensor": lambda x: nt.normal(nt.zeros(3, 4), 2.0) + x,
    "uniform_": lambda x: x.clone().uniform_(),
    "normal_": lambda x: x.clone().normal_(),
    "bernoulli_": lambda x: x.clone().bernoulli_(0.5),
    "exponential_": lambda x: x.clone().exponential_(),
    "bernoulli_p": lambda x: nt.bernoulli(x, 0.5),
    "dropout": lambda x: F.dropout(x + 1, 0.5),
    "feature_dropout": lambda x: F.dropout1d(x.reshape(12, 1) + 1, 0.5).reshape(3, 4),
    "alpha_dropout": lambda x: F.alpha_dropout(x + 1, 0.5, training=True),
    "gumbel_softmax": lambda x: F.gumbel_softmax(x + 1, tau=0.5),
}
BATCHED_PARAM = {  # random ops reading batched parameters: 'same' raises as in PyTorch
    "bernoulli": (lambda x: nt.bernoulli(x), lambda x: torch.bernoulli(x)),
    "multinomial": (lambda x: nt.multinomial(x.reshape(3, 4), 2), lambda x: torch.multinomial(x.reshape(3, 4), 2)),
    "poisson": (lambda x: nt.poisson(x * 5), lambda x: torch.poisson(x * 5)),
    "normal_tensor": (lambda x: nt.normal(x, 0.5), lambda x: torch.normal(x, 0.5)),
}


def _rows_differ(r):
    a = r.detach().numpy().reshape(r.shape[0], -1)
    return all(not np.array_equal(a[0], a[i]) for i in range(1, a.shape[0]))


@pytest.mark.quick
@pytest.mark.parametrize("name", list(SAMPLERS))
def test_randomness_modes(name):
    fn = SAMPLERS[name]
    x = nt.zeros(5, 3, 4)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(fn)(x)
    same = vmap(fn, randomness="same")(x)
    assert tuple(same.shape[:1]) == (5,) and not is_batched(same)
    a = same.detach().numpy()
    assert (a == a[:1]).all()  # one draw shared by the batch
    nt.manual_seed(3)
    diff = vmap(fn, randomness="different")(x)
    assert tuple(diff.shape) == tuple(same.shape) and diff.dtype == same.dtype
    assert _rows_differ(diff)  # one draw per sample
    nt.manual_seed(3)
    again = vmap(fn, randomness="different")(x)
    np.testing.assert_array_equal(again.detach().numpy(), diff.detach().numpy())  # a seed reproduces the run


@pytest.mark.parametrize("name", list(BATCHED_PARAM))
def test_randomness_batched_parameters(name):
    fn, tfn = BATCHED_PARAM[name]
    p = _arr(5, 3, 4, lo=0.2, hi=0.8)
    with pytest.raises(RuntimeError, match="same randomness with a batched tensor input"):
        tvmap(tfn, randomness="same")(torch.tensor(p))
    with pytest.raises(RuntimeError, match="same randomness with a batched tensor input"):
        vmap(fn, randomness="same")(nt.tensor(p))
    r = vmap(fn, randomness="different")(nt.tensor(p))
    t = tvmap(tfn, randomness="different")(torch.tensor(p))
    assert tuple(r.shape) == tuple(t.shape) and str(r.dtype) == str(t.dtype)
    assert _rows_differ(r)
    shared = vmap(fn, in_dims=None, randomness="different")  # an unbatched parameter, still one draw per sample
    assert tuple(vmap(lambda x, q: fn(q) + 0 * x[:1, :1].sum(), (0, None), randomness="different")(
        nt.zeros(5, 3, 4), nt.tensor(p[0])).shape)[0] == 5
    del shared


def test_randomness_inplace_unbatched_and_nesting():
    with pytest.raises(RuntimeError, match="Cannot ask for different inplace randomness on an unbatched tensor"):
        tvmap(lambda x: torch.zeros(4).normal_() + x, randomness="different")(torch.zeros(3, 4))
    with pytest.raises(RuntimeError, match="Cannot ask for different inplace randomness on an unbatched tensor"):
        vmap(lambda x: nt.zeros(4).normal_() + x, randomness="different")(nt.zeros(3, 4))
    with pytest.raises(RuntimeError, match="randomness error mode"):  # an outer "error" level also refuses
        vmap(vmap(lambda x: nt.randn(2) + x, randomness="same"))(nt.zeros(2, 3, 2))
    x = nt.zeros(2, 3, 2)
    o = vmap(vmap(lambda x: nt.randn(2) + x, randomness="different"), randomness="same")(x).numpy()
    assert (o[0] == o[1]).all() and not (o[:, 0] == o[:, 1]).all()
    o = vmap(vmap(lambda x: nt.randn(2) + x, randomness="same"), randomness="different")(x).numpy()
    assert not (o[0] == o[1]).all() and (o[:, 0] == o[:, 1]).all()


def test_dropout_per_sample_grads():
    """Training-mode dropout under vmap(grad(...), randomness='different'): each sample's gradient is zero
    exactly where its own mask dropped, and the rule (not the loop) ran."""
    x = nt.tensor(_arr(6, 20)) + 3
    with _rule_used():
        g = vmap(grad(lambda v: F.dropout(v, 0.5).sum()), randomness="different")(x)
    a = g.numpy()
    assert set(np.unique(a)) <= {0.0, 2.0} and _rows_differ(g)


@pytest.mark.parametrize("name", ["layer_norm", "group_norm", "batch_norm_train", "batch_norm_eval", "mse", "nll",
                                  "addmm", "pad", "cumsum", "sort"])
def test_nested(name):
    """Two vmap levels (outer over dim 0, inner over dim 1), against torch."""
    L = lambda m: nt if m is F else torch  # noqa: E731
    fns = {
        "layer_norm": (lambda m, x, w: m.layer_norm(x, (5,), w), [_arr(2, 3, 4, 5), _arr(4, 5)], (0, None), (1, 0)),
        "group_norm": (lambda m, x, w: m.group_norm(x, 2, w), [_arr(2, 3, 4, 6), _arr(2, 6)], (0, 0), (1, None)),
        "batch_norm_train": (lambda m, x, w: m.batch_norm(x, None, None, w, training=True), [_arr(2, 3, 4, 5, 2),
                                                                                           _arr(2, 5)], (0, 0), (1, None)),
        "batch_norm_eval": (lambda m, x, v: m.batch_norm(x, v * 0, v.abs() + 1), [_arr(2, 3, 4, 5), _arr(4, 5)],
                            (0, None), (1, 0)),
        "mse": (lambda m, a, b: m.mse_loss(a, b), [_arr(2, 3, 4), _arr(2, 3, 4)], (0, 0), (1, 1)),
        "nll": (lambda m, a, t: m.nll_loss(a, t), [_arr(2, 3, 4, 5), RNG.integers(0, 5, (2, 3, 4))], (0, 0), (1, 1)),
        "addmm": (lambda m, a, b: L(m).addmm(a[:, :1], a, b, beta=0.5), [_arr(2, 3, 4, 5), _arr(5, 4, 5)], (0, None), (1, 1)),
        "pad": (lambda m, x, y: m.pad(x + y, (1, 2), mode="reflect"), [_arr(2, 3, 4, 5), _arr(4, 5)], (0, None),
                (1, 0)),
        "cumsum": (lambda m, x, y: L(m).cumsum(x * y, -1), [_arr(2, 3, 4, 5), _arr(4, 5)], (0, None), (1, 0)),
        "sort": (lambda m, x, y: L(m).sort(x * y, 0).values, [_arr(2, 3, 4, 5), _arr(4, 5)], (0, None), (1, 0)),
    }
    fn, arrays, outer, inner = fns[name]
    ns, ts = [_to(F, a) for a in arrays], [_to(TF, a) for a in arrays]
    with _rule_used():
        r = vmap(vmap(lambda *a: fn(F, *a), inner), outer)(*ns)
    _same(r, tvmap(tvmap(lambda *a: fn(TF, *a), inner), outer)(*ts))
    if arrays[0].dtype.kind == "f":
        with _rule_used():
            g = vmap(vmap(grad(lambda *a: fn(F, *a).sum()), inner), outer)(*ns)
        _same(g, tvmap(tvmap(tgrad(lambda *a: fn(TF, *a).sum()), inner), outer)(*ts))


@pytest.mark.parametrize("in_dims", [(0, 0), (0, None), (1, 0)])
@pytest.mark.parametrize("padding_idx", [None, 1])
def test_embedding_per_sample_weight(in_dims, padding_idx):
    """Per-sample embedding tables (what a per-sample grad lifts the shared table to)."""
    w = _arr(4, 10, 3) if in_dims[0] == 0 else _arr(10, 4, 3)
    idx = RNG.integers(0, 10, (4, 5) if in_dims[1] is not None else (5,))
    idx[..., 0] = 1
    check(lambda m, w, i: m.embedding(i, w, padding_idx=padding_idx), [w, idx], in_dims)


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_interpolate(mode):
    check(lambda m, x: m.interpolate(x, scale_factor=2, mode=mode), [_arr(3, 1, 2, 4, 5)], 0)
    check(lambda m, x: m.interpolate(x, size=(3, 7), mode=mode), [_arr(2, 4, 3, 5, 6)], 2)


def test_sdpa_dropout_randomness():
    q = nt.tensor(_arr(5, 2, 4, 6))
    f = lambda q: F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)  # noqa: E731
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(f)(q)
    with _rule_used():
        r = vmap(f, randomness="different")(q)
    assert tuple(r.shape) == (5, 2, 4, 6)
    same = vmap(lambda q: F.scaled_dot_product_attention(q * 0 + 1, q * 0 + 1, q * 0 + 1, dropout_p=0.5),
                randomness="same")(q).numpy()
    assert (same == same[:1]).all()


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("shape,in_dims,caxis", [((4, 3, 5), (0, 0), -1), ((4, 5), (0, None), -1),
                                                 ((3, 4, 5, 2), (1, 1), 2)])
def test_cross_entropy_probabilities(reduction, shape, in_dims, caxis):
    x, y = _arr(*shape), np.exp(_arr(*shape))
    y = (y / y.sum(caxis, keepdims=True)).astype(np.float32)
    if in_dims[1] is None:
        y = y[0]
    w = _arr(shape[caxis], lo=0.5, hi=1.5)
    check(lambda m, x, y: m.cross_entropy(x, y, weight=_to(m, w), label_smoothing=0.1, reduction=reduction),
          [x, y], in_dims)


def test_bernoulli_tensor_p_inplace():
    x = nt.zeros(5, 8)
    p = nt.full((8,), 0.5)
    r = vmap(lambda x: x.clone().bernoulli_(p), randomness="different")(x)
    assert tuple(r.shape) == (5, 8) and _rows_differ(r)
    a = vmap(lambda x: x.clone().bernoulli_(p), randomness="same")(x).numpy()
    assert (a == a[:1]).all()


MORE = {  # ops of transformer/CNN steps: fn(mod, x, y) with x (4, 3, 6, 6) mapped at 0, y (4, 6) at 0 or None
    "normalize": lambda m, x, y: m.normalize(x, dim=1),
    "masked_fill": lambda m, x, y: x.masked_fill(y > 0, -1.5),
    "tril_triu": lambda m, x, y: x.tril() + x.triu(1) * 2,
    "glu": lambda m, x, y: m.glu(x, 1 if x.shape[1] % 2 == 0 else -1),
    "rms_norm": lambda m, x, y: m.rms_norm(x, (6,), y),
    "repeat_tile": lambda m, x, y: x.repeat(2, 1, 1, 2).sum(0)[..., 3:9] + x.tile(2)[..., :6],
    "roll": lambda m, x, y: x.roll((1, -2), (1, 2)),
    "outer": lambda m, x, y: (nt if m is F else torch).outer(y, x[0, 0]),
    "unfold": lambda m, x, y: m.unfold(x, 2, stride=2),
    "pixel_shuffle": lambda m, x, y: m.pixel_shuffle(x[:2].repeat(2, 1, 1), 2),
    "causal_attention_mask": lambda m, x, y: x.masked_fill((nt if m is F else torch).ones(6, 6, dtype=(
        nt if m is F else torch).bool).triu(1), float("-inf")).softmax(-1),
}


@pytest.mark.parametrize("name", list(MORE))
@pytest.mark.parametrize("in_dims", [(0, 0), (0, None)])
def test_more_rules(name, in_dims):
    y = _arr(4, 6) if in_dims[1] is not None else _arr(6)
    check(MORE[name], [_arr(4, 3, 6, 6), y], in_dims)


def test_batch_norm_train_weights_outer_level():
    """Per-sample statistics with the weight batched at an outer level and the input at the inner one."""
    x, w = _arr(3, 4, 2, 5), _arr(2, 2)
    f = lambda m: lambda w, x: m.batch_norm(x, None, None, w, training=True)  # noqa: E731
    r = vmap(vmap(f(F), (None, 0)), (0, None))(nt.tensor(w), nt.tensor(x))
    _same(r, tvmap(tvmap(f(TF), (None, 0)), (0, None))(torch.tensor(w), torch.tensor(x)))
