"""numtorch.optim optimizers against torch.optim: same weights, same gradient sequence, same results.

Each case runs several steps with two param groups (per-group overrides), a parameter whose grad is
missing on one step (skipped, as in PyTorch), and an lr changed by hand mid-way; parameters and the
whole ``state_dict`` (structure and tensors) must match. State dicts also round trip
numtorch->numtorch, numtorch->torch and torch->numtorch.
"""
import copy
import inspect
import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
import torch as ref

import numtorch as nt
from conftest import assert_close

SHAPES = [(3, 4), (5,), (2, 3, 2), ()]
TOL = {np.float32: dict(rtol=1e-5, atol=1e-6), np.float64: dict(rtol=1e-10, atol=1e-12)}

CASES = {
    "SGD": [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9, dampening=0.5),
            dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1),
            dict(lr=0.05, momentum=0.5, weight_decay=0.01, maximize=True), dict(lr=0.1, maximize=True)],
    "Adam": [dict(), dict(lr=0.01, amsgrad=True), dict(lr=0.01, weight_decay=0.1),
             dict(lr=0.01, betas=(0.3, 0.5), eps=1e-3, amsgrad=True, weight_decay=0.05, maximize=True)],
    "AdamW": [dict(), dict(lr=0.01, amsgrad=True, weight_decay=0.1), dict(lr=0.02, maximize=True)],
    "RMSprop": [dict(), dict(centered=True), dict(momentum=0.9), dict(alpha=0.3, eps=1e-3),
                dict(centered=True, momentum=0.5, weight_decay=0.1, maximize=True, alpha=0.9)],
    "Adagrad": [dict(), dict(lr=0.1, lr_decay=0.1, weight_decay=0.1),
                dict(initial_accumulator_value=0.5, maximize=True, eps=1e-3)],
    "Adadelta": [dict(), dict(rho=0.5, weight_decay=0.1), dict(lr=0.5, maximize=True, eps=1e-3)],
}
ALL = [(name, i) for name, cases in CASES.items() for i in range(len(cases))]


# ---------------------------------------------------------------------------------------------- helpers
def _data(dtype, nsteps, seed=0):
    rng = np.random.default_rng(seed)
    inits = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(nsteps)]
    return inits, grads


def _make_pair(name, opts, inits):
    """The same two-group optimizer in numtorch and torch (group 0 overrides lr)."""
    nps = [nt.tensor(a.copy(), requires_grad=True) for a in inits]
    rps = [ref.tensor(a.copy(), requires_grad=True) for a in inits]
    lr0 = opts.get("lr", 0.01) * 0.5

    def groups(ps):
        return [{"params": ps[:2], "lr": lr0}, {"params": ps[2:]}]

    return (nps, getattr(nt.optim, name)(groups(nps), **opts),
            rps, getattr(ref.optim, name)(groups(rps), **opts))


def _set_grads(ps, grads, lib, skip=None):
    for i, (p, g) in enumerate(zip(ps, grads)):
        p.grad = None if i == skip else lib.tensor(g.copy())


def _to_np(x):
    return x.detach().numpy()  # same spelling in both libraries


def _sd_convert(obj, lib):
    """Convert every tensor of a (nested) state dict to library ``lib`` through NumPy."""
    if isinstance(obj, (nt.Tensor, ref.Tensor)):
        return lib.tensor(np.array(_to_np(obj), copy=True))
    if isinstance(obj, dict):
        return {k: _sd_convert(v, lib) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_sd_convert(v, lib) for v in obj)
    return obj


def _assert_same_structure(a, b, tol):
    """Equal nested structure and non-tensor values; tensors equal in dtype, shape and (to tol) values."""
    if isinstance(a, (nt.Tensor, ref.Tensor)):
        assert isinstance(b, (nt.Tensor, ref.Tensor)), (a, b)
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape), (a, b)
        np.testing.assert_allclose(_to_np(a), _to_np(b), **tol)
    elif isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), (sorted(map(str, a)), sorted(map(str, b)))
        for k in a:
            _assert_same_structure(a[k], b[k], tol)
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _assert_same_structure(x, y, tol)
    else:
        assert a == b and type(a) is type(b), (a, b)


def _run(nps, nopt, rps, ropt, grads, start=0):
    for k, gs in enumerate(grads, start):
        skip = 1 if k == 2 else None  # a parameter without grad is left alone
        _set_grads(nps, gs, nt, skip)
        _set_grads(rps, gs, ref, skip)
        if k == 3:  # a hand-set lr takes effect on the next step
            nopt.param_groups[1]["lr"] *= 0.5
            ropt.param_groups[1]["lr"] *= 0.5
        nopt.step()
        ropt.step()


# ---------------------------------------------------------------------------------------------- differential
@pytest.mark.parametrize("name,case", ALL)
def test_matches_torch(name, case, fdtype):
    opts = CASES[name][case]
    inits, grads = _data(fdtype, 6, seed=case)
    nps, nopt, rps, ropt = _make_pair(name, opts, inits)
    arrays = [p._data for p in nps]
    _run(nps, nopt, rps, ropt, grads)
    for p, r, arr in zip(nps, rps, arrays):
        assert_close(p, r, **TOL[fdtype])
        assert p._data is arr  # updated in place: same ndarray
    _assert_same_structure(nopt.state_dict(), ropt.state_dict(), TOL[fdtype])


@pytest.mark.parametrize("name", list(CASES))
def test_step_state_is_float32_scalar(name):
    inits, grads = _data(np.float64, 1)
    nps, nopt, rps, ropt = _make_pair(name, CASES[name][-1], inits)
    _run(nps, nopt, rps, ropt, grads)
    for st in nopt.state.values():
        if "step" in st:
            assert st["step"].dtype == nt.float32 and st["step"].shape == () and st["step"].item() == 1.0
        for k, v in st.items():
            if k != "step":
                assert v.dtype == nt.float64


def test_add_param_group_matches_torch():
    inits, grads = _data(np.float32, 4)
    nps = [nt.tensor(a.copy(), requires_grad=True) for a in inits]
    rps = [ref.tensor(a.copy(), requires_grad=True) for a in inits]
    nopt, ropt = nt.optim.Adam(nps[:2], lr=0.01), ref.optim.Adam(rps[:2], lr=0.01)
    for k, gs in enumerate(grads):
        if k == 2:
            nopt.add_param_group({"params": nps[2:], "lr": 0.1, "amsgrad": True})
            ropt.add_param_group({"params": rps[2:], "lr": 0.1, "amsgrad": True})
        _set_grads(nps, gs, nt)
        _set_grads(rps, gs, ref)
        nopt.step()
        ropt.step()
    for p, r in zip(nps, rps):
        assert_close(p, r)
    _assert_same_structure(nopt.state_dict(), ropt.state_dict(), TOL[np.float32])


def test_complex_params_match_torch():
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex64)
    gs = [(rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex64) for _ in range(3)]
    for name, opts in [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.1, amsgrad=True)),
                       ("RMSprop", dict(centered=True)), ("Adagrad", {}), ("Adadelta", {})]:
        p, r = nt.tensor(a.copy(), requires_grad=True), ref.tensor(a.copy(), requires_grad=True)
        nopt, ropt = getattr(nt.optim, name)([p], **opts), getattr(ref.optim, name)([r], **opts)
        for g in gs:
            p.grad, r.grad = nt.tensor(g.copy()), ref.tensor(g.copy())
            nopt.step()
            ropt.step()
        np.testing.assert_allclose(p.detach().numpy(), r.detach().numpy(), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------------- state dicts
@pytest.mark.parametrize("name,case", ALL)
def test_state_dict_round_trips(name, case):
    opts = CASES[name][case]
    inits, grads = _data(np.float32, 6, seed=10 + case)
    # torch runs all 6 steps: the reference
    nps, nopt, rps, ropt = _make_pair(name, opts, inits)
    _run(nps, nopt, rps, ropt, grads[:3])
    sd_nt, sd_ref = nopt.state_dict(), ropt.state_dict()
    _assert_same_structure(sd_nt, sd_ref, TOL[np.float32])
    now = [p.detach().numpy().copy() for p in nps]

    # numtorch -> numtorch (through a deep copy, as a checkpoint would be) and numtorch -> torch
    nps2, nopt2, _, _ = _make_pair(name, opts, now)
    nopt2.load_state_dict(copy.deepcopy(sd_nt))
    _, _, rps3, ropt3 = _make_pair(name, opts, now)
    ropt3.load_state_dict(_sd_convert(sd_nt, ref))
    # torch -> numtorch
    nps4, nopt4, _, _ = _make_pair(name, opts, now)
    nopt4.load_state_dict(_sd_convert(sd_ref, nt))
    _assert_same_structure(nopt4.state_dict(), sd_ref, TOL[np.float32])

    _run(nps, nopt, rps, ropt, grads[3:], start=3)
    _run(nps2, nopt2, rps3, ropt3, grads[3:], start=3)
    for k, gs in enumerate(grads[3:], 3):
        _set_grads(nps4, gs, nt, 1 if k == 2 else None)
        if k == 3:
            nopt4.param_groups[1]["lr"] *= 0.5
        nopt4.step()
    for a, b, c, d, r in zip(nps, nps2, rps3, nps4, rps):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
        for x in (a, c, d):
            np.testing.assert_allclose(_to_np(x), r.detach().numpy(), rtol=1e-5, atol=1e-6)
    _assert_same_structure(nopt2.state_dict(), ropt.state_dict(), TOL[np.float32])


def test_load_state_dict_casts_and_copies():
    p = nt.tensor(np.ones(3), requires_grad=True)  # float64 parameter
    opt = nt.optim.Adam([p])
    sd = {"state": {0: {"step": nt.tensor(2.0), "exp_avg": nt.tensor(np.ones(3, np.float32)),
                        "exp_avg_sq": nt.tensor(np.ones(3, np.float32))}},
          "param_groups": [dict(opt.state_dict()["param_groups"][0], lr=0.5)]}
    opt.load_state_dict(sd)
    st = opt.state[p]
    assert st["exp_avg"].dtype == nt.float64 and st["step"].dtype == nt.float32
    assert st["step"] is not sd["state"][0]["step"] and st["exp_avg"]._data is not sd["state"][0]["exp_avg"]._data
    assert opt.param_groups[0]["lr"] == 0.5 and opt.param_groups[0]["params"][0] is p


def test_load_state_dict_errors():
    a, b = nt.zeros(2, requires_grad=True), nt.zeros(3, requires_grad=True)
    opt = nt.optim.SGD([a, b], lr=0.1)
    other = nt.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict(other.state_dict())
    small = nt.optim.SGD([a], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(small.state_dict())


def test_adagrad_state_exists_before_first_step():
    inits, _ = _data(np.float32, 0)
    _, nopt, _, ropt = _make_pair("Adagrad", dict(initial_accumulator_value=0.25), inits)
    _assert_same_structure(nopt.state_dict(), ropt.state_dict(), TOL[np.float32])


def test_pickle_and_deepcopy():
    inits, grads = _data(np.float32, 2)
    nps, nopt, rps, ropt = _make_pair("Adam", {}, inits)
    _run(nps, nopt, rps, ropt, grads[:1])
    for clone in (pickle.loads(pickle.dumps(nopt)), copy.deepcopy(nopt)):
        ps = [p for g in clone.param_groups for p in g["params"]]
        assert all(p in clone.state for p in ps)
        _set_grads(ps, grads[1], nt)
        clone.step()
        assert clone.state[ps[0]]["step"].item() == 2.0


# ---------------------------------------------------------------------------------------------- API
@pytest.mark.parametrize("name", list(CASES))
def test_signature_matches_torch(name):
    mine, theirs = (inspect.signature(getattr(lib.optim, name)).parameters for lib in (nt, ref))
    assert list(mine) == list(theirs)
    for k in mine:
        assert mine[k].default == theirs[k].default and mine[k].kind == theirs[k].kind, k
    p = nt.zeros(2, requires_grad=True)
    defaults = getattr(nt.optim, name)([p]).defaults
    assert defaults == getattr(ref.optim, name)([ref.zeros(2, requires_grad=True)]).defaults


def test_repr_matches_torch():
    assert repr(nt.optim.Adam([nt.zeros(2, requires_grad=True)], lr=0.1)) == \
        repr(ref.optim.Adam([ref.zeros(2, requires_grad=True)], lr=0.1))


def test_params_from_generator_and_named():
    ps = [nt.zeros(2, requires_grad=True), nt.zeros(3, requires_grad=True)]
    opt = nt.optim.SGD((p for p in ps), lr=0.1)
    got = opt.param_groups[0]["params"]
    assert len(got) == 2 and all(a is b for a, b in zip(got, ps))
    named = nt.optim.SGD([("w", ps[0]), ("b", ps[1])], lr=0.1)
    assert named.param_groups[0]["param_names"] == ["w", "b"]
    assert named.state_dict()["param_groups"][0]["param_names"] == ["w", "b"]


def test_construction_errors():
    p = nt.zeros(2, requires_grad=True)
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts, but got set"):
        nt.optim.SGD({p}, lr=0.1)
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts, but got torch.FloatTensor"):
        nt.optim.SGD(p, lr=0.1)
    with pytest.raises(TypeError, match="ordering of tensors in sets"):
        nt.optim.SGD([{"params": {p}}], lr=0.1)
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        nt.optim.Adam([])
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        nt.optim.SGD([{"params": [p]}, {"params": [p]}])
    with pytest.warns(UserWarning, match="duplicate parameters"):
        nt.optim.SGD([p, p])
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors"):
        nt.optim.SGD([p, 3.0])
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        nt.optim.SGD([p * 2])
    with pytest.raises(TypeError, match="param_group must be a dict"):
        nt.optim.SGD([p]).add_param_group([p])
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        nt.optim.SGD([p], lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        nt.optim.SGD([p], nesterov=True)
    with pytest.raises(ValueError, match="Nesterov momentum requires"):
        nt.optim.SGD([p], momentum=0.9, dampening=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1.0"):
        nt.optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="betas must be either both floats or both Tensors"):
        nt.optim.AdamW([p], betas=(0.9, 0))
    with pytest.raises(ValueError, match="Invalid alpha value"):
        nt.optim.RMSprop([p], alpha=-0.1)
    with pytest.raises(ValueError, match="Invalid lr_decay value"):
        nt.optim.Adagrad([p], lr_decay=-0.1)
    with pytest.raises(ValueError, match="Invalid rho value: 1.5"):
        nt.optim.Adadelta([p], rho=1.5)


def test_zero_grad():
    p = nt.zeros(3, requires_grad=True)
    opt = nt.optim.SGD([p], lr=0.1)
    p.grad = nt.ones(3)
    g = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is g and np.all(g.numpy() == 0)
    opt.zero_grad()
    assert p.grad is None


def test_step_with_closure_runs_under_enable_grad():
    p = nt.tensor([1.0, -2.0], requires_grad=True)
    r = ref.tensor([1.0, -2.0], requires_grad=True)
    nopt, ropt = nt.optim.SGD([p], lr=0.1, momentum=0.9), ref.optim.SGD([r], lr=0.1, momentum=0.9)
    modes = []

    def make(x, opt, lib):
        def closure():
            modes.append(lib.is_grad_enabled())
            opt.zero_grad()
            loss = (x * x * x).sum()
            loss.backward()
            return loss
        return closure

    with nt.no_grad():
        for _ in range(3):
            loss_n = nopt.step(make(p, nopt, nt))
            loss_r = ropt.step(make(r, ropt, ref))
            assert abs(float(loss_n) - float(loss_r.detach())) < 1e-5
    assert modes == [True] * 6
    assert_close(p, r)
    assert p._version > 0


def test_step_hooks():
    p = nt.zeros(2, requires_grad=True)
    p.grad = nt.ones(2)
    opt = nt.optim.SGD([p], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append(("pre", o is opt)))
    opt.register_step_post_hook(lambda o, a, k: calls.append(("post", o is opt)))
    opt.step()
    h1.remove()
    opt.step()
    assert calls == [("pre", True), ("post", True), ("post", True)]


def test_no_large_temporaries_per_step():
    """After the first step (state and work buffers allocated), a step allocates nothing param-sized."""
    n = 1 << 18
    rng = np.random.default_rng(0)
    for name, opts in [("SGD", dict(momentum=0.9, nesterov=True, weight_decay=0.1)),
                       ("Adam", dict(amsgrad=True, weight_decay=0.1)), ("AdamW", {}),
                       ("RMSprop", dict(centered=True, momentum=0.9)), ("Adagrad", dict(weight_decay=0.1)),
                       ("Adadelta", dict(maximize=True))]:
        p = nt.tensor(rng.standard_normal(n).astype(np.float32), requires_grad=True)
        p.grad = nt.tensor(rng.standard_normal(n).astype(np.float32))
        opt = getattr(nt.optim, name)([p], **opts)
        opt.step()
        tracemalloc.start()
        opt.step()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < n * 4 // 8, (name, peak)
        assert p._data.dtype == np.float32


def test_lr_as_tensor():
    p, r = nt.tensor([1.0, 2.0], requires_grad=True), ref.tensor([1.0, 2.0], requires_grad=True)
    nopt, ropt = nt.optim.Adam([p], lr=nt.tensor(0.1)), ref.optim.Adam([r], lr=ref.tensor(0.1))
    for _ in range(2):
        p.grad, r.grad = nt.tensor([0.5, -1.0]), ref.tensor([0.5, -1.0])
        nopt.step()
        ropt.step()
    assert_close(p, r)


def test_import_layout():
    import numtorch.optim.lr_scheduler as m
    assert nt.optim.lr_scheduler is m and issubclass(nt.optim.AdamW, nt.optim.Optimizer)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nt.optim.AdamW([nt.zeros(1, requires_grad=True)])
