"""optim.LBFGS against torch.optim.LBFGS: same parameters and losses after several closure steps."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt


def make(T, dtype):
    rng = np.random.default_rng(0)
    model = T.nn.Sequential(T.nn.Linear(3, 8), T.nn.Tanh(), T.nn.Linear(8, 1)).to(getattr(T, dtype))
    w = [rng.standard_normal(tuple(p.shape)) * 0.5 for p in model.parameters()]
    with T.no_grad():
        for p, a in zip(model.parameters(), w):
            p.copy_(T.tensor(a, dtype=getattr(T, dtype)))
    x = T.tensor(rng.standard_normal((32, 3)), dtype=getattr(T, dtype))
    y = T.tensor(np.sin(rng.standard_normal((32, 1))), dtype=getattr(T, dtype))
    return model, x, y


@pytest.mark.parametrize("kw", [dict(lr=1.0), dict(lr=0.8, max_iter=5, history_size=3), dict(lr=0.5, max_iter=30),
                                dict(line_search_fn="strong_wolfe"), dict(lr=0.3, max_iter=7, line_search_fn="strong_wolfe"),
                                dict(lr=2.0, max_iter=12, max_eval=14, history_size=3, line_search_fn="strong_wolfe")])
def test_lbfgs_matches_torch(kw):
    runs = []
    for T in (nt, ref):
        model, x, y = make(T, "float64")
        opt = T.optim.LBFGS(model.parameters(), **kw)

        def closure():
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            return loss
        losses = [float(opt.step(closure)) for _ in range(4)]
        runs.append((losses, [p.detach().numpy().copy() for p in model.parameters()],
                     opt.state[next(iter(model.parameters()))]["func_evals"]))
    (la, pa, fa), (lb, pb, fb) = runs
    np.testing.assert_allclose(la, lb, rtol=1e-9, atol=1e-12)
    for a, b in zip(pa, pb):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)  # ~80 quasi-Newton iterations amplify rounding
    assert fa == fb
    assert la[-1] < la[0]


def test_lbfgs_errors_and_state_roundtrip():
    p = nt.nn.Parameter(nt.ones(2))
    with pytest.raises(ValueError, match="parameter groups"):
        nt.optim.LBFGS([{"params": [p]}, {"params": [nt.nn.Parameter(nt.ones(1))]}])
    for T, q in ((nt, p), (ref, ref.nn.Parameter(ref.ones(2)))):
        bad = T.optim.LBFGS([q], line_search_fn="wolfe")

        def closure():
            bad.zero_grad()
            loss = (q ** 2).sum()
            loss.backward()
            return loss
        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            bad.step(closure)
    opt = nt.optim.LBFGS([p])
    with pytest.raises(RuntimeError, match="closure"):
        opt.step()

    def closure():
        opt.zero_grad()
        loss = ((p - 3) ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    np.testing.assert_allclose(p.detach().numpy(), [3.0, 3.0], atol=1e-4)
    import io
    buf = io.BytesIO()
    nt.save(opt.state_dict(), buf)
    buf.seek(0)
    sd = nt.load(buf)
    opt2 = nt.optim.LBFGS([p])
    opt2.load_state_dict(sd)
    assert opt2.state[p]["n_iter"] == opt.state[p]["n_iter"]


def test_lstmcell_sequence_model_with_strong_wolfe_float64():
    """Issue #16's program: an LSTMCell sequence model (predict the next sine value) trained with
    LBFGS(line_search_fn="strong_wolfe") in float64 gives torch's losses and weights."""
    rng = np.random.default_rng(1)
    phase = rng.uniform(0, 2 * np.pi, (4, 1))
    seq = np.sin(np.arange(12)[None, :] * 0.5 + phase)
    runs = []
    for T in (nt, ref):
        T.manual_seed(0)
        cell = T.nn.LSTMCell(1, 6).double()
        head = T.nn.Linear(6, 1).double()
        params = list(cell.parameters()) + list(head.parameters())
        opt = T.optim.LBFGS(params, lr=0.8, max_iter=10, line_search_fn="strong_wolfe")
        data = T.tensor(seq)

        def closure():
            opt.zero_grad()
            h = c = T.zeros(4, 6, dtype=T.float64)
            outs = []
            for k in range(11):
                h, c = cell(data[:, k:k + 1], (h, c))
                outs.append(head(h))
            loss = ((T.cat(outs, 1) - data[:, 1:]) ** 2).mean()
            loss.backward()
            return loss
        losses = [float(opt.step(closure)) for _ in range(3)]
        runs.append((losses, [q.detach().numpy().copy() for q in params]))
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-8)
    for a, b in zip(runs[0][1], runs[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    assert runs[0][0][-1] < runs[0][0][0]


def test_lbfgs_state_keys_and_two_loop_coefficients_match_torch():
    states = []
    for T in (nt, ref):
        p = T.tensor([1.5, -2.0, 3.0], dtype=T.float64, requires_grad=True)
        opt = T.optim.LBFGS([p], history_size=3, max_iter=4)

        def closure():
            opt.zero_grad()
            loss = ((p - 1) ** 4).sum() + (p ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)
        opt.step(closure)
        states.append(opt.state_dict()["state"][0])
    assert list(states[0]) == list(states[1])
    al = [[None if a is None else float(a) for a in s["al"]] for s in states]
    assert [a is None for a in al[0]] == [a is None for a in al[1]]
    np.testing.assert_allclose([a for a in al[0] if a is not None], [a for a in al[1] if a is not None], rtol=1e-9,
                               atol=1e-12)
