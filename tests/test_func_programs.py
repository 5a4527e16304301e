"""Programs with torch.func on numtorch, run with PyTorch's torch.func on the same small generated data
and weights: Jacobians and Hessians of a small MLP (jacrev, jacfwd, hessian, a row-by-row loop),
MAML on sine regression written with functional_call + grad, functional_call's tied weights, buffers
and strict mode, stack_module_state, replace_all_batch_norm_modules_, and ``import functorch``
under numtorch.alias."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.func

import numtorch as nt
import numtorch.func  # noqa: F401

from test_func import both, same, same_error


def _mlp(L, seed=0, sizes=(3, 8, 8, 2), dtype="float64"):
    """An nn.Sequential tanh MLP with the same weights in both libraries."""
    rng = np.random.default_rng(seed)
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        lin = L.nn.Linear(a, b, dtype=getattr(L, dtype))
        with L.no_grad():
            lin.weight.copy_(L.tensor(rng.standard_normal((b, a)) / np.sqrt(a), dtype=getattr(L, dtype)))
            lin.bias.copy_(L.tensor(rng.standard_normal(b) * 0.1, dtype=getattr(L, dtype)))
        layers += [lin, L.nn.Tanh()]
    return L.nn.Sequential(*layers[:-1])


def _x(L, n=3, seed=1, dtype="float64"):
    return L.tensor(np.random.default_rng(seed).standard_normal(n), dtype=getattr(L, dtype))


# ------------------------------------------------------------------------------------------------
# Jacobians and Hessians of a small MLP
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mlp_jacobians_agree_with_each_other_a_loop_and_torch(dtype):
    tol = 1e-5 if dtype == "float32" else 1e-10

    def prog(L, F):
        model = _mlp(L, dtype=dtype)
        params = {k: v.detach() for k, v in model.named_parameters()}
        x = _x(L, dtype=dtype)
        f = lambda p, x: F.functional_call(model, p, (x,))  # noqa: E731
        jr_x, jf_x = F.jacrev(f, argnums=1)(params, x), F.jacfwd(f, argnums=1)(params, x)
        jr_p = F.jacrev(f)(params, x)
        jf_p = F.jacfwd(f)(params, x)
        h = F.hessian(lambda x: model(x).pow(2).sum())(x)
        hh = F.jacrev(F.jacrev(lambda x: model(x).pow(2).sum()))(x)
        return jr_x, jf_x, jr_p, jf_p, h, hh

    both(prog, tol)
    jr_x, jf_x, jr_p, jf_p, h, hh = prog(nt, nt.func)
    # a row-by-row loop of autograd.grad gives the same Jacobian
    model = _mlp(nt, dtype=dtype)
    x = _x(nt, dtype=dtype).requires_grad_()
    out = model(x)
    rows = [nt.autograd.grad(out[i], x, retain_graph=True)[0] for i in range(out.shape[0])]
    np.testing.assert_allclose(jr_x.numpy(), nt.stack(rows).numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(jf_x.numpy(), jr_x.numpy(), rtol=tol, atol=tol)
    for k in jr_p:
        np.testing.assert_allclose(jf_p[k].numpy(), jr_p[k].numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(h.detach().numpy(), hh.detach().numpy(), rtol=tol * 10, atol=tol * 10)
    # h and hh read the model's own parameters (which require grad) and keep a graph to them, as in torch
    assert not any(t.requires_grad for t in (jr_x, jf_x, *jr_p.values(), *jf_p.values()))
    assert h.requires_grad and hh.requires_grad


def test_mlp_hessian_of_loss_wrt_parameters_matches_autograd_functional():
    def prog(L, F):
        model = _mlp(L, sizes=(3, 4, 1))
        params = {k: v.detach() for k, v in model.named_parameters()}
        x = L.tensor(np.random.default_rng(3).standard_normal((5, 3)))
        y = L.tensor(np.random.default_rng(4).standard_normal((5, 1)))

        def loss(p):
            return ((F.functional_call(model, p, (x,)) - y) ** 2).mean()
        h = F.hessian(loss)(params)
        w = params["0.weight"]
        ha = L.autograd.functional.hessian(lambda w_: loss({**params, "0.weight": w_}), w)
        return h, ha

    both(prog)
    h, ha = prog(nt, nt.func)
    np.testing.assert_allclose(h["0.weight"]["0.weight"].numpy(), ha.numpy(), rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------------------------------------
# MAML on sine regression with functional_call + grad
# ------------------------------------------------------------------------------------------------
def _maml(L, F, steps=4, inner_steps=2, tasks=3, alpha=0.1, beta=0.01):
    rng = np.random.default_rng(7)
    model = _mlp(L, seed=5, sizes=(1, 16, 16, 1))
    params = {k: v.detach().clone().requires_grad_() for k, v in model.named_parameters()}

    def loss_fn(p, x, y):
        return ((F.functional_call(model, p, (x,)) - y) ** 2).mean()

    def adapt_and_eval(p, xs, ys, xq, yq):
        for _ in range(inner_steps):
            g = F.grad(loss_fn)(p, xs, ys)
            p = {k: p[k] - alpha * g[k] for k in p}
        return loss_fn(p, xq, yq)

    def meta_loss(p, batch):
        return sum(adapt_and_eval(p, *task) for task in batch) / len(batch)

    history = []
    for _ in range(steps):
        batch = []
        for _ in range(tasks):
            amp, phase = rng.uniform(0.1, 5.0), rng.uniform(0, np.pi)
            xs, xq = rng.uniform(-5, 5, (10, 1)), rng.uniform(-5, 5, (10, 1))
            batch.append(tuple(L.tensor(a) for a in (xs, amp * np.sin(xs + phase), xq, amp * np.sin(xq + phase))))
        g, value = F.grad_and_value(meta_loss)(params, batch)
        history.append(value.detach())
        with L.no_grad():
            params = {k: (params[k] - beta * g[k]).requires_grad_() for k in params}
    return history, params


def test_maml_sine_regression_matches_torch_func():
    both(lambda L, F: _maml(L, F), tol=1e-9)


def test_maml_meta_gradient_is_second_order():
    # the meta-gradient differs from the first-order approximation (gradients detached in the inner loop)
    model = _mlp(nt, seed=5, sizes=(1, 8, 1))
    p0 = {k: v.detach() for k, v in model.named_parameters()}
    x, y = nt.linspace(-2, 2, 8, dtype=nt.float64).reshape(8, 1), nt.linspace(-1, 1, 8, dtype=nt.float64).reshape(8, 1)

    def loss(p):
        return ((nt.func.functional_call(model, p, (x,)) - y) ** 2).mean()

    def inner(p, detach):
        g = nt.func.grad(loss)(p)
        return loss({k: p[k] - 0.5 * (g[k].detach() if detach else g[k]) for k in p})

    full, first = nt.func.grad(lambda p: inner(p, False))(p0), nt.func.grad(lambda p: inner(p, True))(p0)
    assert max(float((full[k] - first[k]).abs().max()) for k in p0) > 1e-6


# ------------------------------------------------------------------------------------------------
# functional_call: tied weights, buffers, strict, restoring the module
# ------------------------------------------------------------------------------------------------
def _tied(L):
    class Tied(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = L.nn.Linear(3, 3, bias=False, dtype=L.float64)
            self.b = L.nn.Linear(3, 3, bias=False, dtype=L.float64)
            self.b.weight = self.a.weight
            self.register_buffer("shift", L.ones(3, dtype=L.float64))

        def forward(self, x):
            return self.b(self.a(x)) + self.shift

    m = Tied()
    with L.no_grad():
        m.a.weight.copy_(L.tensor(np.arange(9.0).reshape(3, 3) / 10))
    return m


FC_CASES = {
    "tied_one_given": lambda L, F: F.functional_call(_tied(L), {"a.weight": L.eye(3, dtype=L.float64)},
                                                     (L.ones(3, dtype=L.float64),)),
    "tied_other_name": lambda L, F: F.functional_call(_tied(L), {"b.weight": L.eye(3, dtype=L.float64) * 2},
                                                      L.ones(3, dtype=L.float64)),
    "untied": lambda L, F: F.functional_call(_tied(L), {"a.weight": L.eye(3, dtype=L.float64)},
                                             (L.ones(3, dtype=L.float64),), tie_weights=False),
    "same_value_for_both": lambda L, F: (lambda e: F.functional_call(_tied(L), {"a.weight": e, "b.weight": e},
                                                                     (L.ones(3, dtype=L.float64),)))(
        L.eye(3, dtype=L.float64)),
    "buffer": lambda L, F: F.functional_call(_tied(L), {"shift": L.zeros(3, dtype=L.float64)},
                                             (L.ones(3, dtype=L.float64),)),
    "two_dicts_and_kwargs": lambda L, F: F.functional_call(
        _tied(L), ({"a.weight": L.eye(3, dtype=L.float64)}, {"shift": L.zeros(3, dtype=L.float64)}), (),
        {"x": L.ones(3, dtype=L.float64)}),
    "strict_full": lambda L, F: (lambda e: F.functional_call(
        _tied(L), {"a.weight": e, "b.weight": e, "shift": L.zeros(3, dtype=L.float64)}, (L.ones(3, dtype=L.float64),),
        strict=True))(L.eye(3, dtype=L.float64)),
    "module_unchanged_after": lambda L, F: (lambda m: (F.functional_call(m, {"a.weight": L.eye(3, dtype=L.float64)},
                                                                        (L.ones(3, dtype=L.float64),)),
                                                      m(L.ones(3, dtype=L.float64)).detach(),
                                                      m.b.weight is m.a.weight))(_tied(L)),
}


@pytest.mark.parametrize("case", sorted(FC_CASES))
def test_functional_call(case):
    both(FC_CASES[case])


FC_ERRORS = {
    "tied_different_values": lambda L, F: F.functional_call(
        _tied(L), {"a.weight": L.eye(3, dtype=L.float64), "b.weight": L.zeros(3, 3, dtype=L.float64)},
        (L.ones(3, dtype=L.float64),)),
    "strict_missing_unexpected": lambda L, F: F.functional_call(_tied(L), {"zzz": L.ones(1)},
                                                                (L.ones(3, dtype=L.float64),), strict=True),
    "repeated_keys": lambda L, F: F.functional_call(_tied(L), ({"shift": L.ones(3)}, {"shift": L.ones(3)}),
                                                    (L.ones(3, dtype=L.float64),)),
    "not_dicts": lambda L, F: F.functional_call(_tied(L), ({"shift": L.ones(3)}, 3), (L.ones(3, dtype=L.float64),)),
    "not_a_dict": lambda L, F: F.functional_call(_tied(L), 3, (L.ones(3, dtype=L.float64),)),
}


@pytest.mark.parametrize("case", sorted(FC_ERRORS))
def test_functional_call_errors(case):
    same_error(FC_ERRORS[case])


def test_functional_call_restores_the_module_when_forward_raises():
    def prog(L, F):
        m = _tied(L)
        orig = (m.a.weight, m.shift)
        with pytest.raises(RuntimeError):
            F.functional_call(m, {"a.weight": L.eye(3, dtype=L.float64), "shift": L.zeros(3, dtype=L.float64)},
                              (L.ones(4, dtype=L.float64),))
        return m.a.weight is orig[0], m.b.weight is orig[0], m.shift is orig[1], "a.weight" in dict(
            m.named_parameters())
    both(prog)


def test_functional_call_buffer_updates_go_to_the_given_dict():
    def prog(L, F):
        bn = L.nn.BatchNorm1d(3, dtype=L.float64)
        given = {"running_mean": L.zeros(3, dtype=L.float64), "running_var": L.ones(3, dtype=L.float64)}
        x = L.tensor(np.random.default_rng(2).standard_normal((4, 3)))
        out = F.functional_call(bn, given, (x,))
        return out.detach(), given["running_mean"], bn.running_mean, bn.num_batches_tracked
    both(prog)


def test_grad_through_functional_call_with_buffers():
    def prog(L, F):
        bn = L.nn.Sequential(L.nn.Linear(3, 3, dtype=L.float64), L.nn.BatchNorm1d(3, dtype=L.float64)).eval()
        with L.no_grad():
            bn[0].weight.copy_(L.tensor(np.arange(9.0).reshape(3, 3) / 7))
            bn[0].bias.fill_(0.2)
            bn[1].running_mean.fill_(0.3)
        params = {k: v.detach() for k, v in bn.named_parameters()}
        buffers = {k: v.detach().clone() for k, v in bn.named_buffers()}
        x = L.tensor(np.random.default_rng(2).standard_normal((4, 3)))
        g = F.grad(lambda p: F.functional_call(bn, (p, buffers), (x,)).pow(3).sum())(params)
        return g, buffers
    both(prog)


# ------------------------------------------------------------------------------------------------
# stack_module_state, replace_all_batch_norm_modules_
# ------------------------------------------------------------------------------------------------
def test_stack_module_state_and_ensemble_loop():
    def prog(L, F):
        models = [_mlp(L, seed=s, sizes=(3, 4, 2)) for s in range(5)]
        params, buffers = F.stack_module_state(models)
        x = _x(L)
        # the ensemble evaluated model by model with functional_call on slices of the stacked state
        outs = L.stack([F.functional_call(models[0], ({k: v[i] for k, v in params.items()}, buffers), (x,))
                        for i in range(5)])
        return params, buffers, outs.detach(), [p.is_leaf for p in params.values()]
    both(prog)


STACK_ERRORS = {
    "empty": lambda L, F: F.stack_module_state([]),
    "mixed_mode": lambda L, F: F.stack_module_state([L.nn.Linear(2, 2), L.nn.Linear(2, 2).eval()]),
    "mixed_class": lambda L, F: F.stack_module_state([L.nn.Linear(2, 2), L.nn.Bilinear(2, 2, 2)]),
    "mixed_requires_grad": lambda L, F: F.stack_module_state([L.nn.Linear(2, 2), L.nn.Linear(2, 2).requires_grad_(
        False)]),
}


@pytest.mark.parametrize("case", sorted(STACK_ERRORS))
def test_stack_module_state_errors(case):
    same_error(STACK_ERRORS[case])


def test_replace_all_batch_norm_modules():
    def prog(L, F):
        m = L.nn.Sequential(L.nn.BatchNorm2d(2), L.nn.Sequential(L.nn.BatchNorm1d(3)), L.nn.InstanceNorm1d(3,
                            track_running_stats=True), L.nn.BatchNorm1d(4, track_running_stats=False))
        assert F.replace_all_batch_norm_modules_(m) is m
        return [(getattr(b, "running_mean", 0) is None, getattr(b, "running_var", 0) is None,
                 getattr(b, "num_batches_tracked", 0) is None, b.track_running_stats)
                for b in (m[0], m[1][0], m[2], m[3])]
    both(prog)


# ------------------------------------------------------------------------------------------------
# import functorch under numtorch.alias
# ------------------------------------------------------------------------------------------------
FUNCTORCH_PROG = """
import warnings
warnings.simplefilter("always")
import numpy as np
import torch, functorch, torch.func
from functorch import make_functional, make_functional_with_buffers, combine_state_for_ensemble
vals = []
x = torch.tensor(np.linspace(-1, 1, 3))
with warnings.catch_warnings(record=True) as w:
    vals += functorch.grad(lambda x: (x ** 3).sum())(x).tolist()
    vals += functorch.jacrev(lambda x: x.sin())(x).reshape(-1).tolist()
    vals += functorch.jacfwd(lambda x: x.exp())(x).reshape(-1).tolist()
    vals += functorch.hessian(lambda x: (x ** 4).sum())(x).reshape(-1).tolist()
    vals += torch.func.grad(lambda x: x.sin().sum())(x).tolist()
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 2, dtype=torch.float64)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor(np.arange(6.0).reshape(2, 3) / 5)); lin.bias.fill_(0.5)
    fmodel, params = make_functional(lin)
    vals += fmodel(params, x).tolist()
    vals += [p.requires_grad for p in params]
    g = torch.autograd.grad(fmodel(params, x).sum(), params)
    vals += g[0].reshape(-1).tolist() + g[1].tolist()
    bn = torch.nn.Sequential(torch.nn.Linear(3, 3, dtype=torch.float64), torch.nn.BatchNorm1d(3, dtype=torch.float64))
    fm, p, b = make_functional_with_buffers(bn, disable_autograd_tracking=True)
    vals += [len(p), len(b), p[0].requires_grad]
    fm2, p2, b2 = combine_state_for_ensemble([lin, lin])
    vals += [tuple(t.shape) for t in p2]
    try:
        make_functional(bn)
    except RuntimeError as e:
        vals.append(str(e))
print(repr(vals))
print(sum(issubclass(i.category, FutureWarning) and "functorch" in str(i.message) for i in w))
print(functorch.__version__ == torch.__version__)
"""


def test_import_functorch_under_the_alias(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(FUNCTORCH_PROG)
    env = dict(os.environ)
    real = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True, timeout=300, env=env)
    ours = subprocess.run([sys.executable, "-m", "numtorch.alias", str(prog)], capture_output=True, text=True,
                          timeout=300, env=env)
    assert real.returncode == 0, real.stderr[-3000:]
    assert ours.returncode == 0, ours.stderr[-3000:]
    r_vals, o_vals = eval(real.stdout.splitlines()[0]), eval(ours.stdout.splitlines()[0])
    assert len(r_vals) == len(o_vals)
    for a, b in zip(r_vals, o_vals):
        if isinstance(a, float):
            assert abs(a - b) < 1e-10, (a, b)
        else:
            assert a == b
    assert real.stdout.splitlines()[1:] == ours.stdout.splitlines()[1:]


def test_same_helper_sees_a_difference():
    # the comparison helper itself can fail
    with pytest.raises(AssertionError):
        same(torch.ones(2), nt.zeros(2))
    with pytest.raises(AssertionError):
        same(torch.ones(2, requires_grad=True), nt.ones(2))


def test_docs_func_examples_run():
    # every example of docs/func.md runs on numtorch; the vmap ones need numtorch's vmap (func/_vmap.py):
    # until it is in the build they must fail with its NotImplementedError placeholder
    import re
    path = os.path.join(os.path.dirname(__file__), "..", "docs", "func.md")
    with open(path, encoding="utf-8") as fh:
        blocks = re.findall(r"```python\n(.*?)```", fh.read(), re.S)
    assert len(blocks) >= 6
    have_vmap = nt.func.vmap.__module__ != "numtorch.func"
    for i, src in enumerate(blocks):
        code = compile(src, f"docs/func.md block {i}", "exec")
        if "vmap(" in src and not have_vmap:
            with pytest.raises(NotImplementedError, match="vmap"):
                exec(code, {})
        else:
            exec(code, {})
