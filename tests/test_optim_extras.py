"""NAdam, RAdam and Adamax against torch.optim: several steps over two param groups with option combos,
a skipped grad and a hand-changed lr; parameters and state dicts must match, and state dicts round
trip numtorch <-> torch."""
import copy

import numpy as np
import pytest
import torch as ref

import numtorch as nt

SHAPES = [(3, 4), (5,), (2, 3, 2), ()]
TOL = {np.float32: dict(rtol=2e-5, atol=2e-6), np.float64: dict(rtol=1e-10, atol=1e-12)}

CASES = {
    "NAdam": [dict(), dict(lr=0.01, weight_decay=0.1), dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
              dict(lr=0.02, betas=(0.5, 0.9), eps=1e-3, momentum_decay=0.1, maximize=True)],
    "RAdam": [dict(), dict(lr=0.01, weight_decay=0.1), dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True),
              dict(lr=0.02, betas=(0.5, 0.9), eps=1e-3, maximize=True)],  # rho_t > 5 (rectified) from step 6 of 8
    "Adamax": [dict(), dict(lr=0.01, weight_decay=0.1), dict(lr=0.05, betas=(0.3, 0.5), eps=1e-3, maximize=True)],
}
ALL = [(name, i) for name, cases in CASES.items() for i in range(len(cases))]


def _data(dtype, nsteps, seed):
    rng = np.random.default_rng(seed)
    inits = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(nsteps)]
    return inits, grads


def _pair(name, opts, inits):
    nps = [nt.tensor(a.copy(), requires_grad=True) for a in inits]
    rps = [ref.tensor(a.copy(), requires_grad=True) for a in inits]

    def groups(ps):
        return [{"params": ps[:2], "lr": opts.get("lr", 0.01) * 0.5}, {"params": ps[2:]}]
    return nps, getattr(nt.optim, name)(groups(nps), **opts), rps, getattr(ref.optim, name)(groups(rps), **opts)


def _steps(nps, nopt, rps, ropt, grads, start=0):
    for k, gs in enumerate(grads, start):
        for ps, lib in ((nps, nt), (rps, ref)):
            for i, (p, g) in enumerate(zip(ps, gs)):
                p.grad = None if (k == 2 and i == 1) else lib.tensor(g.copy())  # one grad missing at step 2
        if k == 3:
            for o in (nopt, ropt):
                if o is not None:
                    o.param_groups[1]["lr"] *= 0.5
        if nopt is not None:
            nopt.step()
        if ropt is not None:
            ropt.step()


def _np(x):
    return x.detach().numpy()


def _same(a, b, tol):
    """Equal nested structure; tensors equal in dtype, shape and values (to tol)."""
    if isinstance(a, (nt.Tensor, ref.Tensor)):
        assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape), (a, b)
        np.testing.assert_allclose(_np(a), _np(b), **tol)
    elif isinstance(a, dict):
        assert set(a) == set(b), (sorted(map(str, a)), sorted(map(str, b)))
        for k in a:
            _same(a[k], b[k], tol)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, tol)
    else:
        assert a == b, (a, b)


def _convert(obj, lib):
    if isinstance(obj, (nt.Tensor, ref.Tensor)):
        return lib.tensor(np.array(_np(obj), copy=True))
    if isinstance(obj, dict):
        return {k: _convert(v, lib) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_convert(v, lib) for v in obj)
    return obj


@pytest.mark.parametrize("name,case", ALL)
def test_matches_torch(name, case, fdtype):
    inits, grads = _data(fdtype, 8, seed=case)
    nps, nopt, rps, ropt = _pair(name, CASES[name][case], inits)
    arrays = [p._data for p in nps]
    _steps(nps, nopt, rps, ropt, grads)
    for p, r, arr in zip(nps, rps, arrays):
        np.testing.assert_allclose(_np(p), _np(r), **TOL[fdtype])
        assert p._data is arr and p.dtype == nt.tensor(arr).dtype  # updated in place
    _same(nopt.state_dict(), ropt.state_dict(), TOL[fdtype])


def test_state_dtypes():
    inits, grads = _data(np.float64, 2, seed=0)
    for name in CASES:
        nps, nopt, rps, ropt = _pair(name, {}, inits)
        _steps(nps, nopt, rps, ropt, grads)
        for st in nopt.state.values():
            assert st["step"].dtype == nt.float32 and st["step"].shape == ()
            if "mu_product" in st:
                assert st["mu_product"].dtype == nt.float32 and st["mu_product"].shape == ()
            for k in set(st) - {"step", "mu_product"}:
                assert st[k].dtype == nt.float64


@pytest.mark.parametrize("name,case", ALL)
def test_state_dict_round_trips(name, case):
    opts = CASES[name][case]
    inits, grads = _data(np.float32, 6, seed=20 + case)
    nps, nopt, rps, ropt = _pair(name, opts, inits)
    _steps(nps, nopt, rps, ropt, grads[:3])
    sd_nt, sd_ref = nopt.state_dict(), ropt.state_dict()
    _same(sd_nt, sd_ref, TOL[np.float32])
    now = [_np(p).copy() for p in nps]
    # numtorch -> numtorch (deep-copied, as a checkpoint), numtorch -> torch, torch -> numtorch
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
    _same(o2.state_dict(), ropt.state_dict(), TOL[np.float32])


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("bad,msg", [(dict(lr=-1.0), "Invalid learning rate: -1.0"),
                                     (dict(eps=-1.0), "Invalid epsilon value: -1.0"),
                                     (dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
                                     (dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
                                     (dict(weight_decay=-0.5), "Invalid weight_decay value: -0.5")])
def test_invalid_options(name, bad, msg):
    for lib in (ref, nt):
        with pytest.raises(ValueError) as e:
            getattr(lib.optim, name)([lib.zeros(2, requires_grad=True)], **bad)
        assert str(e.value) == msg
    with pytest.raises(ValueError, match="Invalid momentum_decay value: -1"):
        nt.optim.NAdam([nt.zeros(2, requires_grad=True)], momentum_decay=-1)


def test_defaults_and_closure():
    for name in CASES:
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
