"""optim.swa_utils against torch.optim.swa_utils: SWA and EMA averages over a short training run,
SWALR's learning rates, update_bn's statistics, and AveragedModel state_dicts loaded both ways."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt


def _model(T):
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Linear(4, 8), T.nn.BatchNorm1d(8), T.nn.ReLU(), T.nn.Linear(8, 2))


def _data():
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((16, 4)).astype(np.float32), rng.standard_normal((16, 2)).astype(np.float32))
            for _ in range(6)]


def _train(T, make_avg, sched=None, steps=6):
    model = _model(T)
    avg = make_avg(T, model)
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    lrs = []
    s = sched(T, opt) if sched else None
    for k, (x, y) in enumerate(_data()[:steps]):
        opt.zero_grad()
        loss = ((model(T.tensor(x)) - T.tensor(y)) ** 2).mean()
        loss.backward()
        opt.step()
        if k >= 1:
            avg.update_parameters(model)
        if s is not None:
            s.step()
            lrs.append(s.get_last_lr())
    return model, avg, lrs


AVGS = {
    "swa": lambda T, m: T.optim.swa_utils.AveragedModel(m),
    "ema": lambda T, m: T.optim.swa_utils.AveragedModel(m, multi_avg_fn=T.optim.swa_utils.get_ema_multi_avg_fn(0.9)),
    "ema_buffers": lambda T, m: T.optim.swa_utils.AveragedModel(
        m, multi_avg_fn=T.optim.swa_utils.get_ema_multi_avg_fn(0.7), use_buffers=True),
    "avg_fn_swa": lambda T, m: T.optim.swa_utils.AveragedModel(m, avg_fn=T.optim.swa_utils.get_swa_avg_fn()),
    "avg_fn_ema": lambda T, m: T.optim.swa_utils.AveragedModel(m, avg_fn=T.optim.swa_utils.get_ema_avg_fn(0.8)),
}


@pytest.mark.parametrize("kind", list(AVGS))
def test_averaged_model_matches_torch(kind):
    (_, a, _), (_, b, _) = (_train(T, AVGS[kind]) for T in (nt, ref))
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for k in sa:
        assert str(sa[k].dtype) == str(sb[k].dtype), k
        np.testing.assert_allclose(sa[k].numpy(), sb[k].numpy(), rtol=1e-5, atol=1e-6, err_msg=k)
    x = _data()[0][0]
    a.eval(), b.eval()
    np.testing.assert_allclose(a(nt.tensor(x)).detach().numpy(), b(ref.tensor(x)).detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_state_dict_loads_both_ways():
    (_, a, _), (_, b, _) = (_train(T, AVGS["swa"]) for T in (nt, ref))
    a2, b2 = nt.optim.swa_utils.AveragedModel(_model(nt)), ref.optim.swa_utils.AveragedModel(_model(ref))
    a2.load_state_dict({k: nt.tensor(v.numpy()) for k, v in b.state_dict().items()})
    b2.load_state_dict({k: ref.tensor(v.numpy()) for k, v in a.state_dict().items()})
    assert int(a2.n_averaged) == int(b2.n_averaged) == 5
    for (k, v), w in zip(a2.state_dict().items(), b2.state_dict().values()):
        np.testing.assert_allclose(v.numpy(), w.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("opts", [dict(swa_lr=0.05), dict(swa_lr=0.05, anneal_epochs=3, anneal_strategy="linear"),
                                  dict(swa_lr=[0.01], anneal_epochs=0), dict(swa_lr=0.2, anneal_epochs=4)])
def test_swalr_matches_torch(opts):
    runs = [_train(T, AVGS["swa"], sched=lambda T, o: T.optim.swa_utils.SWALR(o, **opts))[2] for T in (nt, ref)]
    np.testing.assert_allclose(runs[0], runs[1], rtol=1e-12)


def test_swalr_state_dict_and_errors():
    for T in (nt, ref):
        opt = T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1)
        with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got x"):
            T.optim.swa_utils.SWALR(opt, 0.01, anneal_strategy="x")
        with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0, got -1"):
            T.optim.swa_utils.SWALR(opt, 0.01, anneal_epochs=-1)
        with pytest.raises(ValueError, match="Invalid decay value 1.5"):
            T.optim.swa_utils.get_ema_multi_avg_fn(1.5)
        with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
            T.optim.swa_utils.AveragedModel(T.nn.Linear(1, 1), avg_fn=T.optim.swa_utils.get_swa_avg_fn(),
                                            multi_avg_fn=T.optim.swa_utils.get_swa_multi_avg_fn())
    opt = nt.optim.SGD([nt.zeros(1, requires_grad=True)], lr=0.1)
    s = nt.optim.swa_utils.SWALR(opt, 0.01, anneal_epochs=3)
    s.step()
    sd = s.state_dict()
    assert "anneal_func" not in sd and "optimizer" not in sd
    s2 = nt.optim.swa_utils.SWALR(nt.optim.SGD([nt.zeros(1, requires_grad=True)], lr=0.1), 0.01)
    s2.load_state_dict(sd)
    assert s2.anneal_epochs == 3 and s2.anneal_func(1.0) == 1.0


def test_update_bn_matches_torch():
    loaders = []
    for T in (nt, ref):
        model, avg, _ = _train(T, AVGS["swa"])
        loader = [(T.tensor(x), T.tensor(y)) for x, y in _data()]
        momentum = avg.module[1].momentum
        avg.eval()
        T.optim.swa_utils.update_bn(loader, avg)
        assert not avg.training and avg.module[1].momentum == momentum
        loaders.append(avg.module[1])
    a, b = loaders
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_allclose(getattr(a, name).numpy(), getattr(b, name).numpy(), rtol=1e-5, atol=1e-6)
    nt.optim.swa_utils.update_bn([nt.zeros(2, 3)], nt.nn.Linear(3, 1))  # no BatchNorm: nothing to do
