"""``torch.func.jvp`` / ``jacfwd`` / ``linearize`` / ``hessian`` on numtorch's forward-mode AD (dual levels),
against ``torch.func``: values, tangent dtypes and shapes, ``requires_grad`` of the results, compositions
(jvp of jvp, jvp of grad = Hessian-vector product, grad of jvp, jvp of vmap, vmap of jvp, jacfwd of
jacfwd) and PyTorch's exceptions for bad tangents."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import numtorch

RNG = np.random.default_rng(7)
X = RNG.standard_normal(4)
V = RNG.standard_normal(4)
U = RNG.standard_normal(4)
M = RNG.standard_normal((3, 4))


def _t(lib, a, dtype="float64", rg=False):
    return lib.tensor(np.array(a), dtype=getattr(lib, dtype), requires_grad=rg)


def _np(t):
    return t.detach().numpy()


def _close(a, b, tol=1e-10):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        a, b = list(a.values()), list(b.values())
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, tol)
        return
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


def _f(lib):
    return lambda x: (x.sin() * x.prod() + x.exp()).sum()


def _g(lib):
    m = _t(lib, M)
    return lambda x: (m @ x).tanh() * x[:3] ** 2


CASES = {
    "jvp": lambda L: L.func.jvp(_g(L), (_t(L, X),), (_t(L, V),)),
    "jvp_two_args": lambda L: L.func.jvp(lambda a, b: (a * b.cos()).cumsum(0), (_t(L, X), _t(L, U)),
                                         (_t(L, V), _t(L, X))),
    "jvp_pytree": lambda L: L.func.jvp(lambda d: {"y": d["a"].exp() @ d["b"]}, ({"a": _t(L, M), "b": _t(L, X)},),
                                       ({"a": _t(L, M) * 0.5, "b": _t(L, V)},)),
    "jvp_has_aux": lambda L: L.func.jvp(lambda x: (x.sin(), x.cos()), (_t(L, X),), (_t(L, V),), has_aux=True),
    "hvp": lambda L: L.func.jvp(L.func.grad(_f(L)), (_t(L, X),), (_t(L, V),)),
    "jvp_of_jvp": lambda L: L.func.jvp(lambda y: L.func.jvp(_g(L), (y,), (_t(L, V),))[1], (_t(L, X),), (_t(L, U),)),
    "grad_of_jvp": lambda L: L.func.grad(lambda y: L.func.jvp(_g(L), (y,), (_t(L, V),))[1].sum())(_t(L, X)),
    "jvp_of_vmap": lambda L: L.func.jvp(L.func.vmap(lambda r: (r.sin() * r).sum()), (_t(L, M),), (_t(L, M) * 2,)),
    "vmap_of_jvp": lambda L: L.func.vmap(lambda r: L.func.jvp(lambda y: y.exp() * y, (r,), (r.cos(),))[1])(_t(L, M)),
    "jacfwd": lambda L: L.func.jacfwd(_g(L))(_t(L, X)),
    "jacfwd_jacfwd": lambda L: L.func.jacfwd(L.func.jacfwd(_f(L)))(_t(L, X)),
    "hessian": lambda L: L.func.hessian(_f(L))(_t(L, X)),
    "jacfwd_argnums": lambda L: L.func.jacfwd(lambda a, b: a.outer(b).sum(0), argnums=(0, 1))(_t(L, X), _t(L, U)),
    "linearize": lambda L: L.func.linearize(_g(L), _t(L, X))[1](_t(L, V)),
    "jvp_float32": lambda L: L.func.jvp(lambda x: x.softmax(-1) * x, (_t(L, X, "float32"),), (_t(L, V, "float32"),)),
    "jvp_f64_tangent": lambda L: L.func.jvp(lambda x: x.sin(), (_t(L, X, "float32"),), (_t(L, V),)),
    "jvp_int_output": lambda L: L.func.jvp(lambda x: (x > 0).long() + 0 * x.long(), (_t(L, X),), (_t(L, V),)),
    "jvp_constant_output": lambda L: L.func.jvp(lambda x: L.ones(2), (_t(L, X),), (_t(L, V),)),
    "autograd_functional_forward_jacobian": lambda L: L.autograd.functional.jacobian(
        _g(L), _t(L, X), vectorize=True, strategy="forward-mode"),
    "autograd_functional_hessian_fwd_over_rev": lambda L: L.autograd.functional.hessian(
        _f(L), _t(L, X), vectorize=True, outer_jacobian_strategy="forward-mode"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch_func(name):
    _close(CASES[name](numtorch), CASES[name](torch), tol=1e-5 if "32" in name or "f64_tangent" in name else 1e-10)


@pytest.mark.quick
def test_mlp_jvp_matches_torch():
    res = []
    for lib in (torch, numtorch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 2))
        params = {k: v.detach() for k, v in model.named_parameters()}
        x = _t(lib, RNG.standard_normal((5, 4)), "float32") if not res else _t(lib, res[0][2], "float32")
        tang = {k: lib.ones_like(v) * 0.1 for k, v in params.items()}
        out, jv = lib.func.jvp(lambda p: lib.func.functional_call(model, p, (x,)), (params,), (tang,))
        res.append((out, jv, x.numpy()))
    _close(res[0][:2], res[1][:2], 1e-5)


@pytest.mark.parametrize("rg_primal,rg_tangent,no_grad", [(False, False, False), (True, False, False),
                                                          (False, True, False), (True, False, True)])
def test_requires_grad_of_results(rg_primal, rg_tangent, no_grad):
    flags = []
    for lib in (torch, numtorch):
        x, v = _t(lib, X, rg=rg_primal), _t(lib, V, rg=rg_tangent)
        ctx = lib.no_grad() if no_grad else lib.enable_grad()
        with ctx:
            o, j = lib.func.jvp(lambda y: y.sin() * y, (x,), (v,))
            ho, hj = lib.func.jvp(lib.func.grad(_f(lib)), (x,), (v,))
        flags.append((o.requires_grad, j.requires_grad, ho.requires_grad, hj.requires_grad))
    assert flags[0] == flags[1]


@pytest.mark.quick
def test_hvp_is_differentiable_when_primal_requires_grad():
    grads = []
    for lib in (torch, numtorch):
        x = _t(lib, X, rg=True)
        hv = lib.func.jvp(lib.func.grad(_f(lib)), (x,), (_t(lib, V),))[1]
        grads.append(lib.autograd.grad(hv.sum(), x)[0])
    _close(grads[1], grads[0])


BAD = {
    "shape": lambda L: L.func.jvp(L.sin, (_t(L, X),), (_t(L, M),)),
    "int_primal": lambda L: L.func.jvp(lambda x: x * 2, (L.arange(3),), (L.arange(3),)),
    "int_tangent": lambda L: L.func.jvp(L.sin, (_t(L, X),), (L.arange(4),)),
    "primals_not_tuple": lambda L: L.func.jvp(L.sin, _t(L, X), (_t(L, V),)),
    "structure": lambda L: L.func.jvp(L.sin, (_t(L, X),), [_t(L, V)]),
    "strict_independent": lambda L: L.func.jvp(lambda x: L.ones(2), (_t(L, X),), (_t(L, V),), strict=True),
    "has_aux_not_pair": lambda L: L.func.jvp(L.sin, (_t(L, X),), (_t(L, V),), has_aux=True),
    "linearize_dtype": lambda L: L.func.linearize(L.sin, _t(L, X))[1](_t(L, V, "float32")),
    "public_level_inside_jvp": lambda L: L.func.jvp(lambda x: _enter(L, x), (_t(L, X),), (_t(L, V),)),
}


def _enter(lib, x):
    with lib.autograd.forward_ad.dual_level():
        return x * 2


@pytest.mark.parametrize("name", list(BAD))
def test_errors_match_torch(name):
    with pytest.raises(Exception) as te:
        BAD[name](torch)
    with pytest.raises(type(te.value)) as ne:
        BAD[name](numtorch)
    assert type(ne.value) is type(te.value)
    assert str(ne.value).split(".")[0][:60] == str(te.value).split(".")[0][:60]


def test_no_level_left_after_jvp_and_errors():
    from numtorch.autograd import forward_ad
    numtorch.func.jvp(numtorch.sin, (_t(numtorch, X),), (_t(numtorch, V),))
    with pytest.raises(RuntimeError):
        numtorch.func.jvp(lambda x: (_ for _ in ()).throw(RuntimeError("boom")), (_t(numtorch, X),),
                          (_t(numtorch, V),))
    with forward_ad.dual_level():  # a public level can be entered again: jvp exited its own
        pass
