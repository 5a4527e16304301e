"""Jacobians by ONE backward with a batched cotangent (``func/_batched_backward.py``), against torch.

``jacrev``, ``vmap`` of a ``vjp_fn``, ``autograd.grad(is_grads_batched=True)`` and
``autograd.functional.jacobian/hessian(vectorize=True)`` walk a graph made outside the vmap with
cotangents batched inside it. Compared with PyTorch: values, shapes, ``requires_grad`` and whether a
``grad_fn`` is attached; and that a function whose ops all have (backward) batching rules runs ONE
backward pass per chunk of rows (a tensor hook on an intermediate counts the passes).
"""
import warnings

import numpy as np
import pytest
import torch

import numtorch as nt
from numtorch.func import _batched_backward

LIBS = (torch, nt)


def _t(lib, a, rg=False):
    return lib.tensor(np.asarray(a, dtype=np.float64), requires_grad=rg)


def _leaves(x):
    if isinstance(x, dict):
        return [v for k in sorted(x) for v in _leaves(x[k])]
    if isinstance(x, (tuple, list)):
        return [v for y in x for v in _leaves(y)]
    return [x]


def _same(a, b, atol=1e-8):
    la, lb = _leaves(a), _leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        assert tuple(x.shape) == tuple(y.shape), (x.shape, y.shape)
        assert x.requires_grad == y.requires_grad, ("requires_grad", x.requires_grad, y.requires_grad)
        assert (x.grad_fn is None) == (y.grad_fn is None), ("grad_fn", x.grad_fn, y.grad_fn)
        np.testing.assert_allclose(y.detach().numpy(), x.detach().numpy(), rtol=1e-7, atol=atol)


def _both(fn, **kw):
    """``fn(lib)`` with torch then numtorch; no loop fallback warning from numtorch's batched backward."""
    a = fn(torch)
    _batched_backward.LOOPED.clear()
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="There is a performance drop.*its backward")
        b = fn(nt)
    assert not _batched_backward.LOOPED, _batched_backward.LOOPED
    _same(a, b, **kw)
    return a, b


RNG = np.random.default_rng(0)
W1, B1, W2 = RNG.standard_normal((6, 4)), RNG.standard_normal(6), RNG.standard_normal((3, 6))
WC, WL = RNG.standard_normal((3, 2, 3, 3)), RNG.standard_normal((4, 3 * 3 * 3))
X4, XS = RNG.standard_normal(4), RNG.standard_normal((5, 4))
B3 = RNG.standard_normal((2, 3, 4))
XC = RNG.standard_normal((2, 6, 6))


def mlp(lib, rg=False):
    w1, b1, w2 = _t(lib, W1, rg), _t(lib, B1), _t(lib, W2)
    return lambda x: lib.tanh(w2 @ lib.tanh(w1 @ x + b1)) * x.sum()


def cnn(lib):
    F = lib.nn.functional
    wc, wl = _t(lib, WC), _t(lib, WL)

    def f(x):  # (2, 6, 6) -> (4,)
        h = F.max_pool2d(F.relu(F.conv2d(x.unsqueeze(0), wc, padding=1)), 2)
        h = F.avg_pool2d(h, 1).flatten(1)
        return F.log_softmax(F.linear(h, wl), -1)[0]
    return f


def pieces(lib):
    return lambda x: lib.cat([x[1:] * x[:-1], x[0:1].expand(2), x.select(0, 2).reshape(1)]).cumsum(0).sin()


def two(lib):
    return lambda a, b: ((a.unsqueeze(1) * b).exp().sum(0), (a ** 2).mean())


def aux(lib):
    def f(p):
        y = lib.tanh(p["w"] @ p["x"])
        return y, {"n": y.norm()}
    return f


P = {"w": RNG.standard_normal((3, 4)), "x": RNG.standard_normal(4)}

JACREV = {
    "mlp": lambda L, F: F.jacrev(mlp(L))(_t(L, X4)),
    "mlp_chunk": lambda L, F: F.jacrev(mlp(L), chunk_size=2)(_t(L, X4)),
    "mlp_chunk1": lambda L, F: F.jacrev(mlp(L), chunk_size=1)(_t(L, X4)),
    "mlp_weight_requires_grad": lambda L, F: F.jacrev(mlp(L, rg=True))(_t(L, X4)),
    "mlp_input_requires_grad": lambda L, F: F.jacrev(mlp(L))(_t(L, X4, rg=True)),
    "cnn": lambda L, F: F.jacrev(cnn(L))(_t(L, XC)),
    "index_cat_slice": lambda L, F: F.jacrev(pieces(L))(_t(L, X4)),
    "argnums_tuple": lambda L, F: F.jacrev(two(L), argnums=(0, 1))(_t(L, X4[:3]), _t(L, XS[:3])),
    "argnums_1_chunk": lambda L, F: F.jacrev(two(L), argnums=1, chunk_size=3)(_t(L, X4[:3]), _t(L, XS[:3])),
    "has_aux_dict": lambda L, F: F.jacrev(aux(L), has_aux=True)({k: _t(L, v) for k, v in P.items()}),
    "vmap_jacrev": lambda L, F: F.vmap(F.jacrev(mlp(L)))(_t(L, XS)),
    "vmap_jacrev_input_rg": lambda L, F: F.vmap(F.jacrev(mlp(L)))(_t(L, XS, rg=True)),
    "vmap_jacrev_cnn": lambda L, F: F.vmap(F.jacrev(cnn(L)))(_t(L, np.stack([XC, XC[::-1]]))),
    "vmap_jacrev_in_dims": lambda L, F: F.vmap(F.jacrev(two(L), argnums=1), in_dims=(None, 0))(
        _t(L, X4[:3]), _t(L, B3)),
    "jacrev_jacrev": lambda L, F: F.jacrev(F.jacrev(mlp(L)))(_t(L, X4)),
    "jacrev_jacrev_pieces": lambda L, F: F.jacrev(F.jacrev(pieces(L)))(_t(L, X4)),
    "hessian": lambda L, F: F.hessian(lambda x: mlp(L)(x).sum())(_t(L, X4)),
    "hessian_cnn": lambda L, F: F.hessian(lambda x: cnn(L)(x).sum())(_t(L, XC)),
    "vmap_hessian": lambda L, F: F.vmap(F.hessian(lambda x: mlp(L)(x).sum()))(_t(L, XS)),
    "vmap_vjp_fn": lambda L, F: F.vmap(F.vjp(mlp(L), _t(L, X4))[1])(_t(L, np.eye(3))),
    "grad_of_vmap_jacrev": lambda L, F: F.grad(lambda x: F.vmap(F.jacrev(mlp(L)))(x).sum())(_t(L, XS)),
    "vmap_grad_of_jacrev": lambda L, F: F.vmap(F.grad(lambda x: F.jacrev(mlp(L))(x).sum()))(_t(L, XS)),
    "vmap_jacrev_weight_rg": lambda L, F: F.vmap(F.jacrev(mlp(L, rg=True)))(_t(L, XS)),
    "vmap_jacrev_weight_rg_no_grad": lambda L, F: _no_grad(L, lambda: F.vmap(F.jacrev(mlp(L, rg=True)))(_t(L, XS))),
}


def _no_grad(lib, fn):
    with lib.no_grad():
        return fn()


@pytest.mark.parametrize("case", list(JACREV), ids=list(JACREV))
def test_jacrev_family_against_torch(case):
    _both(lambda L: JACREV[case](L, L.func), atol=1e-7)


@pytest.mark.quick
def test_jacrev_runs_one_backward_per_chunk():
    """A tensor hook on an intermediate runs once per backward pass: jacrev of a 3-output MLP is one
    pass (batched cotangent), two with chunk_size=2, three with chunk_size=1; values as torch's."""
    for chunk, passes in ((None, 1), (2, 2), (1, 3)):
        calls = []

        def f(x, lib):
            h = lib.tanh(_t(lib, W1) @ x)
            if lib is nt:
                h.register_hook(lambda g: calls.append(tuple(g.shape)))
            return lib.tanh(_t(lib, W2) @ h)
        _both(lambda L: L.func.jacrev(lambda x: f(x, L), chunk_size=chunk)(_t(L, X4)))
        assert len(calls) == passes, (chunk, calls)
        assert all(s == (6,) for s in calls)  # the hook sees a batched gradient of the logical shape


def test_is_grads_batched_one_backward_and_create_graph():
    calls = []

    def run(lib, create_graph):
        x = _t(lib, X4, rg=True)
        h = (_t(lib, W1) @ x).sin()
        if lib is nt:
            h.register_hook(lambda g: calls.append(1))
        y = lib.tanh(_t(lib, W2) @ h)
        (jac,) = lib.autograd.grad(y, x, _t(lib, np.eye(3)), is_grads_batched=True, create_graph=create_graph)
        if not create_graph:
            return jac
        (g2,) = lib.autograd.grad(jac.pow(2).sum(), x)  # differentiate the batched gradients again
        return jac, g2
    _both(lambda L: run(L, False))
    assert len(calls) == 1
    _both(lambda L: run(L, True))


def test_is_grads_batched_several_outputs_unused_and_materialized():
    def run(lib, **kw):
        x, z = _t(lib, X4, rg=True), _t(lib, X4[:2], rg=True)
        y1, y2 = x.sin() * 2, (x ** 2).sum()
        return lib.autograd.grad([y1, y2], [x, z], [_t(lib, np.eye(4)), _t(lib, np.arange(4.0))],
                                 is_grads_batched=True, **kw)
    a, b = _both(lambda L: run(L, allow_unused=True)[:1])
    assert run(nt, allow_unused=True)[1] is None
    _both(lambda L: run(L, materialize_grads=True))


@pytest.mark.parametrize("vec", [True, False])
def test_autograd_functional_vectorize(vec):
    F = {"jac": lambda L: L.autograd.functional.jacobian(cnn(L), _t(L, XC), vectorize=vec),
         "jac_tuple": lambda L: L.autograd.functional.jacobian(two(L), (_t(L, X4[:3]), _t(L, XS[:3])), vectorize=vec),
         "jac_cg": lambda L: L.autograd.functional.jacobian(mlp(L), _t(L, X4), vectorize=vec, create_graph=True),
         "hess": lambda L: L.autograd.functional.hessian(lambda x: pieces(L)(x).sum(), _t(L, X4), vectorize=vec),
         "hess_cg": lambda L: L.autograd.functional.hessian(lambda x: mlp(L)(x).sum(), _t(L, X4), vectorize=vec,
                                                             create_graph=True)}
    for fn in F.values():
        _both(fn, atol=1e-7)


# ops whose backward under a batched cotangent runs through the boxed formula, the create_graph
# formula or a backward rule; the last group falls back to a per-sample loop for that node only
OPS = {
    "cumsum": lambda L, x: x.cumsum(0), "cumprod": lambda L, x: x.cumprod(0), "norm": lambda L, x: x.norm().reshape(1),
    "softmax_sigmoid": lambda L, x: L.sigmoid(x) * x.softmax(0), "max": lambda L, x: x.max().reshape(1),
    "where": lambda L, x: L.where(x > 0, x, x ** 2), "clamp": lambda L, x: x.clamp(-0.5, 0.5),
    "prod": lambda L, x: x.prod().reshape(1), "einsum": lambda L, x: L.einsum("i,i->", x, x).reshape(1),
    "flip": lambda L, x: x.flip(0), "var": lambda L, x: x.var().reshape(1),
    "logsumexp": lambda L, x: x.logsumexp(0).reshape(1), "outer": lambda L, x: L.outer(x, x).sum(0),
    "stack": lambda L, x: L.stack([x, x * 2]).sum(0), "split": lambda L, x: x.split(2)[1],
    "unbind": lambda L, x: L.stack(x.unbind()[1:3]), "repeat": lambda L, x: x.repeat(2),
    "pad": lambda L, x: L.nn.functional.pad(x, (1, 2)),
    "mse": lambda L, x: L.nn.functional.mse_loss(x, x.flip(0)).reshape(1),
    "layer_norm": lambda L, x: L.nn.functional.layer_norm(x, (4,)), "gelu": lambda L, x: L.nn.functional.gelu(x),
    "abs": lambda L, x: x.abs(), "atan2": lambda L, x: L.atan2(x, x + 2), "expand": lambda L, x: x[:2].expand(3, 2).sum(0),
}
LOOPED_OPS = {
    "sort": lambda L, x: x.sort()[0], "gather": lambda L, x: x.gather(0, L.tensor([2, 0, 1])),
    "advanced_index": lambda L, x: x[L.tensor([1, 1, 3])], "topk": lambda L, x: x.topk(2)[0],
    "roll": lambda L, x: x.roll(1), "diag": lambda L, x: L.diag(x).sum(0),
}


@pytest.mark.parametrize("op", list(OPS), ids=list(OPS))
def test_ops_batched_backward(op):
    x = np.array([0.3, -1.2, 0.8, 2.0])
    _both(lambda L: L.func.jacrev(lambda t: OPS[op](L, t))(_t(L, x)))
    _both(lambda L: L.func.jacrev(L.func.jacrev(lambda t: OPS[op](L, t).sin()))(_t(L, x)))


@pytest.mark.parametrize("op", list(LOOPED_OPS), ids=list(LOOPED_OPS))
def test_node_without_batched_backward_loops_that_node_only(op):
    x = np.array([0.3, -1.2, 0.8, 2.0])
    a = torch.func.jacrev(lambda t: LOOPED_OPS[op](torch, t).sin())(_t(torch, x))
    _batched_backward.LOOPED.clear()
    with pytest.warns(UserWarning, match="There is a performance drop") if op not in _SEEN else warnings.catch_warnings():
        b = nt.func.jacrev(lambda t: LOOPED_OPS[op](nt, t).sin())(_t(nt, x))
    _SEEN.add(op)
    assert list(_batched_backward.LOOPED.values()) == [1]  # that one node, once; the rest was batched
    _same(a, b)


_SEEN = set()


def test_saved_tensor_modified_in_place_still_raises():
    """The batched backward keeps the version checks: exp saved its output, which is then changed."""
    for lib in LIBS:
        a = _t(lib, X4, rg=True)
        y = a.exp()
        y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            lib.func.vmap(lambda v: lib.autograd.grad(y, a, v, retain_graph=True))(lib.eye(4, dtype=lib.float64))


def test_vmap_over_autograd_grad_with_batched_grad_outputs():
    """PyTorch's own spelling of is_grads_batched: vmap over autograd.grad with the cotangent mapped."""
    def run(lib):
        x = _t(lib, X4, rg=True)
        y = lib.tanh(_t(lib, W1) @ x)
        return lib.func.vmap(lambda v: lib.autograd.grad(y, x, v, retain_graph=True)[0])(_t(lib, np.eye(6)))
    _both(run)
