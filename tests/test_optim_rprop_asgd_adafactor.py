"""Rprop, ASGD and Adafactor against torch.optim: several steps over two param groups with option combos,
a skipped grad and a hand-changed lr (the harness of test_optim_extras.py); parameters and state dicts
must match, and state dicts round trip numtorch <-> torch."""
import copy

import numpy as np
import pytest
import torch as ref

import numtorch as nt
from test_optim_extras import TOL, _convert, _data, _np, _pair, _same, _steps

CASES = {
    "Rprop": [dict(), dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-3, 0.2)), dict(maximize=True)],
    "ASGD": [dict(), dict(lr=0.05, lambd=0.01, alpha=0.5, t0=2), dict(lr=0.02, weight_decay=0.1, t0=3, maximize=True)],
    "Adafactor": [dict(), dict(lr=0.05, beta2_decay=-0.5, eps=(1e-6, 1e-2), d=1.5),
                  dict(lr=0.02, weight_decay=0.1, maximize=True)],
}
ALL = [(name, i) for name, cases in CASES.items() for i in range(len(cases))]
SCALAR_STATE = {"step", "eta", "mu"}  # 0-d float32 tensors in torch (its default scalar dtype)


@pytest.mark.parametrize("name,case", ALL)
def test_matches_torch(name, case, fdtype):
    inits, grads = _data(fdtype, 8, seed=case)
    # Rprop's sign tests need gradients that keep and flip signs: repeat one step's gradients
    grads[4] = [g.copy() for g in grads[3]]
    nps, nopt, rps, ropt = _pair(name, CASES[name][case], inits)
    arrays = [p._data for p in nps]
    _steps(nps, nopt, rps, ropt, grads)
    for p, r, arr in zip(nps, rps, arrays):
        np.testing.assert_allclose(_np(p), _np(r), **TOL[fdtype])
        assert p._data is arr  # updated in place
    _same(nopt.state_dict(), ropt.state_dict(), TOL[fdtype])


def test_state_dtypes_and_shapes():
    inits, grads = _data(np.float64, 2, seed=0)
    for name in CASES:
        nps, nopt, rps, ropt = _pair(name, {}, inits)
        _steps(nps, nopt, rps, ropt, grads)
        for (p, st), rst in zip(nopt.state.items(), ropt.state.values()):
            assert set(st) == set(rst)
            for k, v in st.items():
                assert tuple(v.shape) == tuple(rst[k].shape) and str(v.dtype) == str(rst[k].dtype), (name, k)
                assert v.dtype == (nt.float32 if k in SCALAR_STATE else nt.float64)


@pytest.mark.parametrize("name,case", ALL)
def test_state_dict_round_trips(name, case):
    opts = CASES[name][case]
    inits, grads = _data(np.float32, 6, seed=20 + case)
    nps, nopt, rps, ropt = _pair(name, opts, inits)
    _steps(nps, nopt, rps, ropt, grads[:3])
    sd_nt, sd_ref = nopt.state_dict(), ropt.state_dict()
    _same(sd_nt, sd_ref, TOL[np.float32])
    now = [_np(p).copy() for p in nps]
    n2, o2, _, _ = _pair(name, opts, now)
    o2.load_state_dict(copy.deepcopy(sd_nt))
    _, _, r3, o3 = _pair(name, opts, now)
    o3.load_state_dict(_convert(sd_nt, ref))
    n4, o4, _, _ = _pair(name, opts, now)
    o4.load_state_dict(_convert(sd_ref, nt))
    _steps(nps, nopt, rps, ropt, grads[3:], start=3)
    _steps(n2, o2, r3, o3, grads[3:], start=3)
    _steps(n4, o4, [], None, grads[3:], start=3)
    for a, b, c, d, r in zip(nps, n2, r3, n4, rps):
        for x in (a, b, c, d):
            np.testing.assert_allclose(_np(x), _np(r), **TOL[np.float32])


def test_defaults_signature_and_closure():
    import inspect
    for name in CASES:
        sigs = [[(q.name, q.default, q.kind) for q in inspect.signature(getattr(lib.optim, name)).parameters.values()]
                for lib in (nt, ref)]
        assert sigs[0] == sigs[1], name
        p, r = nt.zeros(2, requires_grad=True), ref.zeros(2, requires_grad=True)
        o, ro = getattr(nt.optim, name)([p]), getattr(ref.optim, name)([r])
        assert {k: v for k, v in o.param_groups[0].items() if k != "params"} == \
            {k: v for k, v in ro.param_groups[0].items() if k != "params"}
        x = nt.tensor([1.0, -2.0])

        def closure():
            o.zero_grad()
            loss = ((p - x) ** 2).sum()
            loss.backward()
            return loss
        assert o.step(closure).item() == 5.0 and p.grad is not None


@pytest.mark.parametrize("name,bad", [
    ("Rprop", dict(lr=-1.0)), ("Rprop", dict(etas=(1.0, 1.2))), ("Rprop", dict(etas=(0.5, 0.9))),
    ("ASGD", dict(lr=-1.0)), ("ASGD", dict(weight_decay=-1.0)),
    ("Adafactor", dict(lr=-1.0)), ("Adafactor", dict(beta2_decay=0.5)), ("Adafactor", dict(eps=(-1.0, 1e-3))),
    ("Adafactor", dict(eps=(None, -1.0))), ("Adafactor", dict(d=0.5)), ("Adafactor", dict(weight_decay=-1.0))])
def test_invalid_options(name, bad):
    msgs = []
    for lib in (ref, nt):
        with pytest.raises(ValueError) as e:
            getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], **bad)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_adafactor_refuses_complex():
    p = nt.zeros(2, dtype=nt.complex64, requires_grad=True)
    p.grad = nt.ones(2, dtype=nt.complex64)
    with pytest.raises(RuntimeError, match="Adafactor does not support complex parameters"):
        nt.optim.Adafactor([p]).step()


def test_rprop_asgd_complex_match_torch():
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex128)
    gs = [(rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex128) for _ in range(4)]
    for name in ("Rprop", "ASGD"):
        p, r = nt.tensor(a.copy(), requires_grad=True), ref.tensor(a.copy(), requires_grad=True)
        nopt, ropt = getattr(nt.optim, name)([p], t0=1) if name == "ASGD" else nt.optim.Rprop([p]), \
            (ref.optim.ASGD([r], t0=1) if name == "ASGD" else ref.optim.Rprop([r]))
        for g in gs:
            p.grad, r.grad = nt.tensor(g.copy()), ref.tensor(g.copy())
            nopt.step()
            ropt.step()
        np.testing.assert_allclose(_np(p), _np(r), rtol=1e-12, atol=1e-12)
        _same(nopt.state_dict(), ropt.state_dict(), dict(rtol=1e-12, atol=1e-12))
