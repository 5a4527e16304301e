"""numtorch.optim.lr_scheduler against torch.optim.lr_scheduler: the same lr (and momentum) sequences
over 40+ steps, state_dict structure and round trips, warnings and errors."""
import copy
import warnings

import numpy as np
import pytest
import torch as ref

import numtorch as nt

N_STEPS = 40


def _opt(lib, kind="SGD"):
    """Two param groups with different lrs; SGD with momentum (or Adam, whose betas[0] is cycled)."""
    ps = [lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)]
    groups = [{"params": ps[:1], "lr": 0.1}, {"params": ps[1:], "lr": 0.05}]
    if kind == "SGD":
        return lib.optim.SGD(groups, lr=0.1, momentum=0.9)
    return getattr(lib.optim, kind)(groups, lr=0.1)


def _lambda_half(epoch):
    return 0.5 ** (epoch // 3)


def _seq_parts(S, o):
    return [S.ConstantLR(o, factor=0.5, total_iters=3), S.ExponentialLR(o, gamma=0.9)]


def _seq_parts2(S, o):
    return [S.LinearLR(o, start_factor=0.2, total_iters=5), S.CosineAnnealingLR(o, T_max=12, eta_min=1e-3),
            S.StepLR(o, step_size=4, gamma=0.5)]


# name -> (optimizer kind, builder(S, optimizer) with S the lr_scheduler module)
SCHEDULERS = {
    "LambdaLR": ("SGD", lambda S, o: S.LambdaLR(o, lambda e: 0.95 ** e)),
    "LambdaLR-list": ("SGD", lambda S, o: S.LambdaLR(o, [_lambda_half, lambda e: 1.0 / (e + 1)])),
    "MultiplicativeLR": ("SGD", lambda S, o: S.MultiplicativeLR(o, lambda e: 0.9 if e % 2 else 0.97)),
    "StepLR": ("SGD", lambda S, o: S.StepLR(o, step_size=7, gamma=0.5)),
    "MultiStepLR": ("SGD", lambda S, o: S.MultiStepLR(o, milestones=[3, 10, 10, 20], gamma=0.3)),
    "ConstantLR": ("SGD", lambda S, o: S.ConstantLR(o, factor=0.5, total_iters=8)),
    "LinearLR": ("SGD", lambda S, o: S.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=12)),
    "ExponentialLR": ("SGD", lambda S, o: S.ExponentialLR(o, gamma=0.9)),
    "PolynomialLR": ("SGD", lambda S, o: S.PolynomialLR(o, total_iters=20, power=2.0)),
    "CosineAnnealingLR": ("SGD", lambda S, o: S.CosineAnnealingLR(o, T_max=10, eta_min=0.001)),
    "CosineAnnealingLR-7": ("Adam", lambda S, o: S.CosineAnnealingLR(o, T_max=7)),
    "CosineAnnealingWarmRestarts": ("SGD", lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2,
                                                                                       eta_min=1e-4)),
    "CosineAnnealingWarmRestarts-1": ("SGD", lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=6)),
    "CyclicLR": ("SGD", lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=4,
                                                 mode="triangular2")),
    "CyclicLR-exp": ("Adam", lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=5,
                                                      mode="exp_range", gamma=0.97)),
    "OneCycleLR": ("SGD", lambda S, o: S.OneCycleLR(o, max_lr=[0.1, 0.2], total_steps=N_STEPS + 5)),
    "OneCycleLR-3phase-linear": ("Adam", lambda S, o: S.OneCycleLR(o, max_lr=0.3, epochs=5, steps_per_epoch=9,
                                                                   pct_start=0.25, anneal_strategy="linear",
                                                                   three_phase=True, div_factor=10.0)),
    "OneCycleLR-nomomentum": ("Adagrad", lambda S, o: S.OneCycleLR(o, max_lr=0.1, total_steps=N_STEPS,
                                                                   cycle_momentum=False)),
    "SequentialLR": ("SGD", lambda S, o: S.SequentialLR(o, _seq_parts(S, o), milestones=[5])),
    "SequentialLR-3": ("SGD", lambda S, o: S.SequentialLR(o, _seq_parts2(S, o), milestones=[5, 20])),
    "ChainedScheduler": ("SGD", lambda S, o: S.ChainedScheduler([S.ConstantLR(o, factor=0.1, total_iters=4),
                                                                  S.ExponentialLR(o, gamma=0.9)])),
}


def _snapshot(opt, sched):
    """Everything a scheduler sets: get_last_lr and each group's lr/momentum/betas."""
    out = [list(sched.get_last_lr())]
    for g in opt.param_groups:
        out.append((g["lr"], g.get("momentum"), g.get("betas")))
    return out


def _run(opt, sched, n):
    seq = []
    for _ in range(n):
        opt.step()
        sched.step()
        seq.append(_snapshot(opt, sched))
    return seq


def _build(lib, name):
    kind, build = SCHEDULERS[name]
    opt = _opt(lib, kind)
    return opt, build(lib.optim.lr_scheduler, opt)


def _assert_seq_equal(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x == pytest.approx(y, rel=1e-12, abs=1e-15) if not isinstance(x, list) else _deep_approx(x, y)


def _deep_approx(x, y):
    if isinstance(x, (list, tuple)):
        assert type(x) is type(y) and len(x) == len(y), (x, y)
        for a, b in zip(x, y):
            _deep_approx(a, b)
    elif isinstance(x, float) or isinstance(y, float):
        assert x == pytest.approx(y, rel=1e-12, abs=1e-15), (x, y)
    else:
        assert x == y, (x, y)
    return True


# ---------------------------------------------------------------------------------------------- sequences
@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_lr_sequence_matches_torch(name):
    nopt, nsched = _build(nt, name)
    ropt, rsched = _build(ref, name)
    _deep_approx(_snapshot(nopt, nsched), _snapshot(ropt, rsched))  # after construction (epoch 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # right order: optimizer.step() then scheduler.step(), no warning
        _deep_approx(_run(nopt, nsched, N_STEPS), _run(ropt, rsched, N_STEPS))
    for attr in ("last_epoch", "base_lrs", "_step_count"):
        assert hasattr(nsched, attr) == hasattr(rsched, attr), attr
        assert getattr(nsched, attr, None) == getattr(rsched, attr, None), attr
    assert [g.get("initial_lr") for g in nopt.param_groups] == [g.get("initial_lr") for g in ropt.param_groups]


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_state_dict_structure_and_round_trip(name):
    nopt, nsched = _build(nt, name)
    ropt, rsched = _build(ref, name)
    _run(nopt, nsched, 15)
    _run(ropt, rsched, 15)
    nsd, rsd = nsched.state_dict(), rsched.state_dict()
    assert set(nsd) == set(rsd)
    if "_schedulers" in rsd:
        for a, b in zip(nsd["_schedulers"], rsd["_schedulers"]):
            assert set(a) == set(b)
    saved_sched, saved_opt = copy.deepcopy(nsd), copy.deepcopy(nopt.state_dict())
    expected = _run(nopt, nsched, 15)
    torch_expected = _run(ropt, rsched, 15)

    # numtorch -> numtorch: a fresh optimizer and scheduler resume where the saved ones were
    opt2, sched2 = _build(nt, name)
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(copy.deepcopy(saved_sched))
    _deep_approx(_run(opt2, sched2, 15), expected)

    # torch -> numtorch: the scheduler state holds plain Python values
    ropt3, rsched3 = _build(ref, name)
    _run(ropt3, rsched3, 15)
    opt3, sched3 = _build(nt, name)
    opt3.load_state_dict({"state": {}, "param_groups": copy.deepcopy(ropt3.state_dict()["param_groups"])})
    sched3.load_state_dict(copy.deepcopy(rsched3.state_dict()))
    _deep_approx(_run(opt3, sched3, 15), torch_expected)


# ---------------------------------------------------------------------------------------------- ReduceLROnPlateau
METRICS = [1.0, 0.9, 0.8, 0.8, 0.8, 0.79999, 0.7, 0.7, 0.71, 0.72, 0.73, 0.5, 0.5, 0.5, 0.5, 0.5, 0.49, 0.6,
           0.6, 0.6, 0.6, 0.6, 0.6, 0.3, 0.3, 0.3, 0.29, 0.31, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.2, 0.2, 0.2,
           0.2, 0.2, 0.2, 0.2, 0.2]
PLATEAU = [dict(patience=4), dict(patience=2, factor=0.5, cooldown=1, min_lr=[0.001, 0.002]),
           dict(mode="max", threshold=0.1, threshold_mode="abs", patience=0, factor=0.7, min_lr=0.01),
           dict(mode="min", threshold=0.05, threshold_mode="rel", patience=1, cooldown=3),
           dict(mode="max", patience=1, factor=0.9, eps=0.01),
           dict(mode="min", threshold_mode="abs", threshold=0.0, patience=3, factor=0.2)]


@pytest.mark.parametrize("case", range(len(PLATEAU)))
def test_reduce_on_plateau_matches_torch(case):
    seqs = []
    for lib in (nt, ref):
        opt = _opt(lib, "Adam")
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **PLATEAU[case])
        seq = []
        for k, m in enumerate(METRICS):
            opt.step()
            sched.step(lib.tensor(m) if k % 2 else m)  # tensors or numbers
            seq.append([sched.get_last_lr(), sched.best, sched.num_bad_epochs, sched.cooldown_counter,
                        sched.last_epoch])
        seqs.append((seq, set(sched.state_dict())))
    _deep_approx(seqs[0][0], seqs[1][0])
    assert seqs[0][1] == seqs[1][1]
    assert seqs[0][0][-1][0] != [0.1, 0.05] or case == 4  # the schedule did reduce


def test_reduce_on_plateau_state_round_trip():
    opt = _opt(nt)
    sched = nt.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, mode="max")
    for m in METRICS[:10]:
        sched.step(-m)
    sd = copy.deepcopy(sched.state_dict())
    opt2 = _opt(nt)
    opt2.load_state_dict(copy.deepcopy(opt.state_dict()))
    sched2 = nt.optim.lr_scheduler.ReduceLROnPlateau(opt2)
    sched2.load_state_dict(sd)
    for m in METRICS[10:]:
        sched.step(-m)
        sched2.step(-m)
        assert sched.get_last_lr() == sched2.get_last_lr()
    assert sched2.mode == "max"


# ---------------------------------------------------------------------------------------------- epoch argument
@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "LinearLR",
                                  "CosineAnnealingWarmRestarts"])
def test_step_with_epoch_uses_closed_form(name):
    seqs = []
    for lib in (nt, ref):
        opt, sched = _build(lib, name)
        seq = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for e in [3, 7, 2.5 if "Warm" in name else 2, 15, 11, 30]:
                opt.step()
                sched.step(e)
                seq.append(list(sched.get_last_lr()))
        seqs.append(seq)
        assert ("Warm" in name) or any("epoch parameter in `scheduler.step()`" in str(x.message) for x in w)
    _deep_approx(seqs[0], seqs[1])


# ---------------------------------------------------------------------------------------------- warnings
def test_warns_when_scheduler_steps_before_optimizer():
    opt = _opt(nt)
    sched = nt.optim.lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        sched.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()


def test_warns_when_optimizer_step_is_replaced():
    opt = _opt(nt)
    sched = nt.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    opt.step = lambda closure=None: None
    with pytest.warns(UserWarning, match=r"Seems like `optimizer.step\(\)` has been overridden"):
        sched.step()


def test_get_lr_outside_step_warns():
    opt = _opt(nt)
    sched = nt.optim.lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match=r"please use `get_last_lr\(\)`"):
        sched.get_lr()


def test_scheduler_lr_reaches_the_update():
    """The optimizer reads the lr a scheduler wrote: SGD steps shrink as ExponentialLR decays."""
    p = nt.zeros(1, requires_grad=True)
    opt = nt.optim.SGD([p], lr=1.0)
    sched = nt.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    moves = []
    for _ in range(3):
        p.grad = nt.ones(1)
        before = p.item()
        opt.step()
        sched.step()
        moves.append(before - p.item())
    assert moves == [1.0, 0.5, 0.25]


# ---------------------------------------------------------------------------------------------- errors
def test_errors():
    S = nt.optim.lr_scheduler
    opt = _opt(nt)
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        S.StepLR([], step_size=1)
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        S.LambdaLR(opt, [lambda e: 1.0])
    with pytest.raises(TypeError, match="lr_lambda should be a function, but got int"):
        S.MultiplicativeLR(opt, 3)
    with pytest.raises(ValueError, match="Constant multiplicative factor expected to be between 0 and 1"):
        S.ConstantLR(opt, factor=2.0)
    with pytest.raises(ValueError, match="Starting multiplicative factor expected to be greater than 0"):
        S.LinearLR(opt, start_factor=0)
    with pytest.raises(ValueError, match="Sequential Schedulers expects number of schedulers provided to be one more"):
        S.SequentialLR(opt, [S.StepLR(opt, 2), S.StepLR(opt, 3)], milestones=[])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        S.ChainedScheduler([S.ReduceLROnPlateau(opt)])
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        S.OneCycleLR(opt, max_lr=0.1)
    with pytest.raises(ValueError, match="Expected float between 0 and 1 pct_start"):
        S.OneCycleLR(opt, max_lr=0.1, total_steps=10, pct_start=1)
    with pytest.raises(ValueError, match="max_lr must have the same length as optimizer.param_groups"):
        S.OneCycleLR(opt, max_lr=[0.1], total_steps=10)
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        S.OneCycleLR(_opt(nt, "Adagrad"), max_lr=0.1, total_steps=10)
    one = S.OneCycleLR(_opt(nt), max_lr=0.1, total_steps=2)
    one.optimizer.step()
    one.step()
    one.step()
    with pytest.raises(ValueError, match="Tried to step 3 times. The specified number of total steps is 2"):
        one.step()
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        S.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode avg is unknown!"):
        S.ReduceLROnPlateau(opt, mode="avg")
    with pytest.raises(ValueError, match="expected 2 min_lrs, got 3"):
        S.ReduceLROnPlateau(opt, min_lr=[0, 0, 0])
    with pytest.raises(ValueError, match="Expected positive integer T_0, but got 0"):
        S.CosineAnnealingWarmRestarts(opt, T_0=0)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        S.StepLR(_opt(nt), step_size=2, last_epoch=3)


def test_exports():
    S = nt.optim.lr_scheduler
    for name in ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
                 "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau",
                 "CosineAnnealingWarmRestarts", "OneCycleLR", "CyclicLR", "PolynomialLR"]:
        assert issubclass(getattr(S, name), S.LRScheduler), name
    assert np.isclose(S.OneCycleLR._annealing_cos(1.0, 0.0, 0.5), 0.5)


@pytest.mark.parametrize("name", ["StepLR", "SequentialLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
                                  "CosineAnnealingWarmRestarts", "OneCycleLR"])
def test_schedulers_pickle_under_pytorchs_module_path(name):
    import pickle

    S = nt.optim.lr_scheduler
    o = _opt(nt)
    build = {"StepLR": lambda: S.StepLR(o, step_size=2),
             "SequentialLR": lambda: S.SequentialLR(o, _seq_parts(S, o), milestones=[3]),
             "ChainedScheduler": lambda: S.ChainedScheduler([S.StepLR(o, step_size=2), S.ExponentialLR(o, 0.9)]),
             "ReduceLROnPlateau": lambda: S.ReduceLROnPlateau(o),
             "CyclicLR": lambda: S.CyclicLR(o, base_lr=0.01, max_lr=0.1),
             "CosineAnnealingWarmRestarts": lambda: S.CosineAnnealingWarmRestarts(o, T_0=3),
             "OneCycleLR": lambda: S.OneCycleLR(o, max_lr=0.1, total_steps=10)}
    sched = build[name]()
    cls = type(sched)
    assert cls.__module__ == "numtorch.optim.lr_scheduler" == S.LRScheduler.__module__
    blob = pickle.dumps(sched)
    assert b"numtorch.optim._" not in blob  # no private module named
    back = pickle.loads(blob)
    assert type(back) is cls and back.state_dict().keys() == sched.state_dict().keys()
