"""numtorch.distributions against torch.distributions: values, shapes, seeded samples, gradients, KL, errors."""
import warnings

import numpy as np
import pytest
import torch as ref
import torch.distributions as RD

import numtorch as nt
import numtorch.distributions as ND
from numtorch.distributions import _special, constraints as NC
from numtorch.distributions.utils import (broadcast_all, clamp_probs, logits_to_probs, probs_to_logits,
                                          tril_matrix_to_vec, vec_to_tril_matrix)
from torch.distributions import constraints as RC

R = np.random.RandomState(0)
TRIL = np.array([[1.2, 0.0, 0.0], [0.4, 0.8, 0.0], [-0.5, 0.3, 1.5]])
COV = TRIL @ TRIL.T


def _arr(x):
    if isinstance(x, ref.Tensor):
        return x.detach().numpy()
    return np.asarray(x.detach()._data)


def check(a, b, dt=np.float64, exact=False, rtol=None):
    """``a`` (numtorch) equals ``b`` (torch) in shape, dtype and value (exactly, or to float rounding)."""
    an, bn = _arr(a), _arr(b)
    assert an.shape == bn.shape, (an.shape, bn.shape)
    assert an.dtype == bn.dtype, (an.dtype, bn.dtype)
    if exact:
        np.testing.assert_array_equal(an, bn)
    else:
        tol = rtol if rtol is not None else (2e-5 if dt == np.float32 else 1e-10)
        np.testing.assert_allclose(an, bn, rtol=tol, atol=tol)


# ---- the distributions under test: name -> (factory(M, params), params, value, options) ----------
# factory gets M = torch.distributions or numtorch.distributions and a dict of parameter tensors.
# ``value`` is a point of the support with shape (2,) + batch_shape + event_shape for log_prob.
CASES = {
    "normal": (lambda M, p: M.Normal(p["loc"], p["scale"]),
               dict(loc=[0.5, -1.0, 2.0], scale=[1.0, 0.5, 2.0]), R.randn(2, 3), dict(exact=True, cdf=True)),
    "uniform": (lambda M, p: M.Uniform(p["low"], p["high"]),
                dict(low=[0.0, -1.0, 2.0], high=[1.0, 0.5, 4.0]), np.array([[0.5, 0.0, 3.0], [0.1, -0.5, 2.5]]),
                dict(exact=True, cdf=True, no_mode=True)),
    "bernoulli_probs": (lambda M, p: M.Bernoulli(probs=p["probs"]),
                        dict(probs=[0.2, 0.5, 0.9]), np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]), dict(exact=True)),
    "bernoulli_logits": (lambda M, p: M.Bernoulli(logits=p["logits"]),
                         dict(logits=[-1.0, 0.3, 2.0]), np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]), dict(exact=True)),
    "categorical_probs": (lambda M, p: M.Categorical(probs=p["probs"]),
                          dict(probs=[[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]), np.array([[0, 2], [1, 1]]),
                          dict(exact=True, int_value=True, nan_moments=True)),
    "categorical_logits": (lambda M, p: M.Categorical(logits=p["logits"]),
                           dict(logits=[[0.2, -1.3, 0.5], [1.6, 0.1, -0.3]]), np.array([[0, 2], [1, 1]]),
                           dict(exact=True, int_value=True, nan_moments=True)),
    "one_hot": (lambda M, p: M.OneHotCategorical(logits=p["logits"]),
                dict(logits=[[0.2, -1.3, 0.5], [1.6, 0.1, -0.3]]), np.eye(3)[[[0, 2], [1, 1]]], dict(exact=True)),
    "one_hot_st": (lambda M, p: M.OneHotCategoricalStraightThrough(probs=p["probs"]),
                   dict(probs=[[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]), np.eye(3)[[[0, 2], [1, 1]]], dict(exact=True)),
    "mvn_tril": (lambda M, p: M.MultivariateNormal(p["loc"], scale_tril=p["scale_tril"]),
                 dict(loc=[[0.5, -1.0, 2.0], [0.0, 0.1, 0.2]], scale_tril=TRIL), R.randn(2, 2, 3), dict()),
    "mvn_cov": (lambda M, p: M.MultivariateNormal(p["loc"], covariance_matrix=p["covariance_matrix"]),
                dict(loc=[0.5, -1.0, 2.0], covariance_matrix=COV), R.randn(2, 3), dict()),
    "mvn_prec": (lambda M, p: M.MultivariateNormal(p["loc"], precision_matrix=p["precision_matrix"]),
                 dict(loc=[0.5, -1.0, 2.0], precision_matrix=np.linalg.inv(COV)), R.randn(2, 3), dict()),
    "independent": (lambda M, p: M.Independent(M.Normal(p["loc"], p["scale"]), 1),
                    dict(loc=[[0.5, -1.0, 2.0], [0.0, 1.0, 3.0]], scale=[[1.0, 0.5, 2.0], [0.3, 1.0, 1.5]]),
                    R.randn(2, 2, 3), dict(exact=True)),
    "gamma": (lambda M, p: M.Gamma(p["concentration"], p["rate"]),
              dict(concentration=[0.4, 1.0, 3.0, 12.0], rate=[1.0, 2.0, 0.5, 3.0]), R.rand(2, 4) * 3 + 0.1,
              dict(exact=True, cdf=True)),
    "beta": (lambda M, p: M.Beta(p["concentration1"], p["concentration0"]),
             dict(concentration1=[0.5, 2.0, 9.0, 1.5], concentration0=[1.5, 0.7, 8.0, 4.0]),
             R.rand(2, 4) * 0.9 + 0.05, dict(exact=True)),
    "dirichlet": (lambda M, p: M.Dirichlet(p["concentration"]),
                  dict(concentration=[[0.5, 1.0, 3.0], [2.0, 2.0, 9.0]]),
                  np.array([[[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], [[0.6, 0.3, 0.1], [0.3, 0.3, 0.4]]]),
                  dict(exact=True)),
}


def build(name, dt, requires_grad=False):
    """The torch and numtorch distributions of ``CASES[name]`` plus their parameter tensors."""
    factory, params, _, _ = CASES[name]
    tp = {k: ref.tensor(np.asarray(v, dt), requires_grad=requires_grad) for k, v in params.items()}
    npar = {k: nt.tensor(np.asarray(v, dt), requires_grad=requires_grad) for k, v in params.items()}
    return factory(RD, tp), factory(ND, npar), tp, npar


def value_pair(name, dt):
    v = CASES[name][2]
    if CASES[name][3].get("int_value"):
        return ref.tensor(v), nt.tensor(v)
    return ref.tensor(np.asarray(v, dt)), nt.tensor(np.asarray(v, dt))


def compare_grads(tp, npar, dt, rtol=None):
    for k in tp:
        if tp[k].grad is None:
            assert npar[k].grad is None, k
        else:
            check(npar[k].grad, tp[k].grad, dt, rtol=rtol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_shapes_moments_entropy(name, fdtype):
    td, nd, _, _ = build(name, fdtype)
    assert nd.batch_shape == td.batch_shape and nd.event_shape == td.event_shape
    assert isinstance(nd.batch_shape, nt.Size)
    assert nd.has_rsample == td.has_rsample and nd.has_enumerate_support == td.has_enumerate_support
    opts = CASES[name][3]
    for attr in ("mean", "variance", "stddev", "mode"):
        if attr == "mode" and opts.get("no_mode"):
            assert np.isnan(_arr(nd.mode)).all() and np.isnan(_arr(td.mode)).all()
            continue
        if attr in ("mean", "variance", "stddev") and opts.get("nan_moments"):
            assert np.isnan(_arr(getattr(nd, attr))).all() and getattr(nd, attr).shape == getattr(td, attr).shape
            continue
        check(getattr(nd, attr), getattr(td, attr), fdtype)
    check(nd.entropy(), td.entropy(), fdtype)
    check(nd.perplexity(), td.perplexity(), fdtype)
    assert nd._extended_shape((4, 1)) == td._extended_shape((4, 1))


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_and_gradients(name, fdtype):
    td, nd, tp, npar = build(name, fdtype, requires_grad=True)
    tv, nv = value_pair(name, fdtype)
    tl, nl = td.log_prob(tv), nd.log_prob(nv)
    check(nl, tl, fdtype, rtol=5e-5 if fdtype == np.float32 else None)
    (tl.sum() + td.entropy().sum()).backward()
    (nl.sum() + nd.entropy().sum()).backward()
    compare_grads(tp, npar, fdtype, rtol=1e-4 if fdtype == np.float32 else 1e-9)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("shape", [(), (3,), (2, 5)], ids=str)
def test_seeded_samples_equal_torch(name, fdtype, shape):
    td, nd, tp, npar = build(name, fdtype, requires_grad=True)
    exact = CASES[name][3].get("exact", False)
    ref.manual_seed(7)
    nt.manual_seed(7)
    ts, ns = td.sample(shape), nd.sample(shape)
    check(ns, ts, fdtype, exact=exact)
    assert not ns.requires_grad
    if td.has_rsample:
        tr, nr = td.rsample(shape), nd.rsample(shape)
        check(nr, tr, fdtype, exact=exact)
        w = R.rand(*tr.shape)
        (tr * ref.tensor(w, dtype=tr.dtype)).sum().backward()
        (nr * nt.tensor(w.astype(fdtype))).sum().backward()
        compare_grads(tp, npar, fdtype, rtol=1e-4 if fdtype == np.float32 else 1e-9)
    # the streams stay in step afterwards
    check(nt.rand(3, dtype=nt.float64), ref.rand(3, dtype=ref.float64), exact=True)


@pytest.mark.parametrize("name", sorted(CASES))
def test_expand(name):
    td, nd, _, _ = build(name, np.float64)
    new = (4,) + tuple(td.batch_shape)
    te, ne = td.expand(new), nd.expand(nt.Size(new))
    assert type(ne) is type(nd) and ne.batch_shape == te.batch_shape and ne.event_shape == te.event_shape
    assert ne._validate_args == nd._validate_args
    tv, nv = value_pair(name, np.float64)
    tv, nv = tv.unsqueeze(1), nv.unsqueeze(1)  # (2, 1) + batch_shape + event_shape
    check(ne.log_prob(nv), te.log_prob(tv))
    check(ne.entropy(), te.entropy())
    ref.manual_seed(3)
    nt.manual_seed(3)
    check(ne.sample((2,)), te.sample((2,)), exact=CASES[name][3].get("exact", False))


@pytest.mark.parametrize("name", ["normal", "uniform", "gamma"])
def test_cdf_icdf(name, fdtype):
    td, nd, tp, npar = build(name, fdtype, requires_grad=True)
    tv, nv = value_pair(name, fdtype)
    if name == "gamma":
        tv, nv = tv.abs(), nv.abs()
    check(nd.cdf(nv), td.cdf(tv), fdtype)
    if name != "gamma":
        q = np.array([[0.1, 0.5, 0.9], [0.25, 0.75, 0.01]], fdtype)
        ti, ni = td.icdf(ref.tensor(q)), nd.icdf(nt.tensor(q))
        check(ni, ti, fdtype)
        check(nd.cdf(ni), td.cdf(ti), fdtype)
        (ti.sum() + td.cdf(tv).sum()).backward()
        (ni.sum() + nd.cdf(nv).sum()).backward()
        compare_grads(tp, npar, fdtype, rtol=1e-4 if fdtype == np.float32 else 1e-9)


def test_gamma_cdf_concentration_grad_not_implemented():
    a = nt.tensor([2.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="igamma: input"):
        ND.Gamma(a, nt.tensor([1.0])).cdf(nt.tensor([0.5])).sum().backward()


def test_scalar_parameters():
    for M in (RD, ND):
        assert M.Normal(0.0, 1.0).batch_shape == ()
    check(ND.Normal(0.5, 2.0).log_prob(nt.tensor([0.1, 3.0])), RD.Normal(0.5, 2.0).log_prob(ref.tensor([0.1, 3.0])),
          np.float32)
    assert repr(ND.Normal(0.0, 1.0)) == repr(RD.Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(ND.Normal(nt.zeros(2), nt.ones(2))) == repr(RD.Normal(ref.zeros(2), ref.ones(2)))
    assert repr(ND.Independent(ND.Normal(nt.zeros(2), nt.ones(2)), 1)) == \
        repr(RD.Independent(RD.Normal(ref.zeros(2), ref.ones(2)), 1))
    nt.manual_seed(0)
    ref.manual_seed(0)
    check(ND.Gamma(2.0, 3.0).sample((4,)), RD.Gamma(2.0, 3.0).sample((4,)), np.float32, exact=True)
    check(ND.Beta(2.0, 3.0).sample((4,)), RD.Beta(2.0, 3.0).sample((4,)), np.float32, exact=True)
    check(ND.Bernoulli(0.3).sample((6,)), RD.Bernoulli(0.3).sample((6,)), np.float32, exact=True)


def test_enumerate_support():
    for name in ("bernoulli_probs", "categorical_logits", "one_hot", "independent"):
        td, nd, _, _ = build(name, np.float32)
        if not td.has_enumerate_support:
            with pytest.raises(NotImplementedError):
                nd.enumerate_support()
            continue
        for expand in (True, False):
            check(nd.enumerate_support(expand), td.enumerate_support(expand), exact=True)


def test_sample_n_warns():
    nt.manual_seed(1)
    ref.manual_seed(1)
    with pytest.warns(FutureWarning):
        ns = ND.Normal(nt.zeros(2), nt.ones(2)).sample_n(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ts = RD.Normal(ref.zeros(2), ref.ones(2)).sample_n(3)
    check(ns, ts, exact=True)


def test_straight_through_gradient():
    p = nt.tensor([[0.2, 0.3, 0.5]], requires_grad=True)
    tp = ref.tensor([[0.2, 0.3, 0.5]], requires_grad=True)
    nt.manual_seed(2)
    ref.manual_seed(2)
    ns = ND.OneHotCategoricalStraightThrough(p).rsample((4,))
    ts = RD.OneHotCategoricalStraightThrough(tp).rsample((4,))
    check(ns, ts, np.float32)
    w = R.rand(4, 1, 3).astype(np.float32)
    (ns * nt.tensor(w)).sum().backward()
    (ts * ref.tensor(w)).sum().backward()
    check(p.grad, tp.grad, np.float32)


def test_bernoulli_mode_and_logits_probs():
    td = RD.Bernoulli(probs=ref.tensor([0.2, 0.5, 0.7]))
    nd = ND.Bernoulli(probs=nt.tensor([0.2, 0.5, 0.7]))
    check(nd.mode, td.mode, exact=True)
    check(nd.logits, td.logits, np.float32)
    check(ND.Bernoulli(logits=nt.tensor([0.3])).probs, RD.Bernoulli(logits=ref.tensor([0.3])).probs, np.float32)
    check(ND.Categorical(probs=nt.tensor([1.0, 3.0])).logits, RD.Categorical(probs=ref.tensor([1.0, 3.0])).logits,
          np.float32)


def test_mvn_matrices(fdtype):
    for kw in ("scale_tril", "covariance_matrix", "precision_matrix"):
        mat = {"scale_tril": TRIL, "covariance_matrix": COV, "precision_matrix": np.linalg.inv(COV)}[kw]
        tm = ref.tensor(mat.astype(fdtype), requires_grad=True)
        nm = nt.tensor(mat.astype(fdtype), requires_grad=True)
        loc = np.zeros((2, 3), fdtype)
        td = RD.MultivariateNormal(ref.tensor(loc), **{kw: tm})
        nd = ND.MultivariateNormal(nt.tensor(loc), **{kw: nm})
        tot_t, tot_n = 0, 0
        for attr in ("scale_tril", "covariance_matrix", "precision_matrix"):
            check(getattr(nd, attr), getattr(td, attr), fdtype, rtol=1e-4 if fdtype == np.float32 else 1e-9)
            tot_t = tot_t + getattr(td, attr).sum()
            tot_n = tot_n + getattr(nd, attr).sum()
        tot_t.backward()
        tot_n.backward()
        check(nm.grad, tm.grad, fdtype, rtol=1e-3 if fdtype == np.float32 else 1e-8)


def test_mvn_batched_mahalanobis():
    # loc and scale_tril with different batch shapes: log_prob reshapes samples around the factor's batch
    L = np.stack([TRIL, 2 * TRIL])[:, None]  # (2, 1, 3, 3)
    loc = R.randn(4, 3)
    td = RD.MultivariateNormal(ref.tensor(loc), scale_tril=ref.tensor(L))
    nd = ND.MultivariateNormal(nt.tensor(loc), scale_tril=nt.tensor(L))
    assert nd.batch_shape == td.batch_shape == (2, 4)
    v = R.randn(5, 2, 4, 3)
    check(nd.log_prob(nt.tensor(v)), td.log_prob(ref.tensor(v)))
    check(nd.entropy(), td.entropy())
    check(nd.variance, td.variance)


# ---- KL divergence ---------------------------------------------------------------------------------
KL_MAKERS = {
    "Normal": lambda M, T: M.Normal(T([0.5, -2.0, 3.0]), T([1.5, 0.7, 3.0])),
    "Normal2": lambda M, T: M.Normal(T([0.1, 0.0, 1.0]), T([0.5, 1.0, 2.0])),
    "Uniform": lambda M, T: M.Uniform(T([0.1, 0.2, -1.0]), T([0.5, 0.7, 3.0])),
    "Uniform2": lambda M, T: M.Uniform(T([0.0, 0.3, -2.0]), T([0.6, 0.9, 4.0])),
    "Gamma": lambda M, T: M.Gamma(T([0.5, 2.0, 3.0]), T([1.5, 0.7, 3.0])),
    "Gamma2": lambda M, T: M.Gamma(T([1.5, 1.0, 2.0]), T([1.0, 2.0, 0.5])),
    "Beta": lambda M, T: M.Beta(T([0.5, 2.0, 3.0]), T([1.5, 0.7, 3.0])),
    "Beta2": lambda M, T: M.Beta(T([2.5, 1.0, 1.0]), T([1.0, 3.0, 0.5])),
    "Bernoulli": lambda M, T: M.Bernoulli(T([0.0, 0.3, 1.0])),
    "Bernoulli2": lambda M, T: M.Bernoulli(T([0.5, 0.0, 0.9])),
    "Categorical": lambda M, T: M.Categorical(T([[0.2, 0.8, 0.0], [0.3, 0.3, 0.4], [0.5, 0.25, 0.25]])),
    "Categorical2": lambda M, T: M.Categorical(T([[0.1, 0.0, 0.9], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4]])),
    "OneHotCategorical": lambda M, T: M.OneHotCategorical(logits=T([[0.2, 0.8, 0.0], [0.3, -0.3, 0.4]])),
    "OneHotCategorical2": lambda M, T: M.OneHotCategorical(logits=T([[1.2, 0.1, 0.0], [0.0, 0.3, -0.4]])),
    "MVN": lambda M, T: M.MultivariateNormal(T([[0.5, -1.0, 2.0]]), scale_tril=T(TRIL)),
    "MVN2": lambda M, T: M.MultivariateNormal(T([0.0, 1.0, 0.0]), covariance_matrix=T(np.diag([1.0, 2.0, 0.5]))),
    "Independent": lambda M, T: M.Independent(M.Normal(T([[0.5, -2.0, 3.0]]), T([[1.5, 0.7, 3.0]])), 1),
    "Independent2": lambda M, T: M.Independent(M.Normal(T([[0.1, 0.0, 1.0]]), T([[0.5, 1.0, 2.0]])), 1),
    "Dirichlet": lambda M, T: M.Dirichlet(T([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])),
    "Dirichlet2": lambda M, T: M.Dirichlet(T([[2.0, 1.0, 1.0], [1.0, 3.0, 0.2]])),
}
KL_PAIRS = [("Normal", "Normal2"), ("Uniform", "Uniform2"), ("Uniform2", "Uniform"), ("Gamma", "Gamma2"),
            ("Beta", "Beta2"), ("Bernoulli", "Bernoulli2"), ("Categorical", "Categorical2"),
            ("OneHotCategorical", "OneHotCategorical2"), ("MVN", "MVN2"), ("Independent", "Independent2"),
            ("Dirichlet", "Dirichlet2"), ("Beta", "Gamma"), ("Beta", "Normal"), ("Beta", "Uniform2"),
            ("Gamma", "Normal"), ("Gamma", "Beta"), ("Gamma", "Uniform"), ("Normal", "Beta"), ("Normal", "Gamma"),
            ("Normal", "Uniform"), ("Uniform", "Beta"), ("Uniform", "Gamma"), ("Uniform", "Normal")]


@pytest.mark.parametrize("pq", KL_PAIRS, ids=lambda pq: "-".join(pq))
def test_kl_divergence(pq, fdtype):
    tparams, nparams = [], []

    def T(x):
        t = ref.tensor(np.asarray(x, fdtype), requires_grad=True)
        tparams.append(t)
        return t

    def N(x):
        t = nt.tensor(np.asarray(x, fdtype), requires_grad=True)
        nparams.append(t)
        return t

    p, q = pq
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Bernoulli(probs=0) etc. are at the support's edge
        tk = RD.kl_divergence(KL_MAKERS[p](RD, T), KL_MAKERS[q](RD, T))
        nk = ND.kl_divergence(KL_MAKERS[p](ND, N), KL_MAKERS[q](ND, N))
    check(nk, tk, fdtype, rtol=5e-5 if fdtype == np.float32 else None)
    finite = np.isfinite(_arr(tk))
    if finite.any() and tk.requires_grad:
        ref.where(ref.tensor(finite), tk, 0.0).sum().backward()
        nt.where(nt.tensor(finite), nk, 0.0).sum().backward()
        for a, b in zip(nparams, tparams):
            if b.grad is not None:
                check(a.grad, b.grad, fdtype, rtol=1e-4 if fdtype == np.float32 else 1e-9)


def test_kl_not_implemented_and_register():
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Categorical "
                                                  "and q type Normal"):
        ND.kl_divergence(ND.Categorical(nt.tensor([0.5, 0.5])), ND.Normal(0.0, 1.0))
    with pytest.raises(NotImplementedError, match="cross KL-divergence between different exponential families"):
        ND.kl_divergence(ND.Bernoulli(nt.tensor([0.5])), ND.Normal(nt.zeros(1), nt.ones(1)))

    class MyNormal(ND.Normal):
        pass

    # a subclass uses its parent's KL until it registers its own
    k = ND.kl_divergence(MyNormal(nt.zeros(1), nt.ones(1)), ND.Normal(nt.ones(1), nt.ones(1)))
    check(k, ref.tensor([0.5]), exact=True)

    @ND.register_kl(MyNormal, ND.Normal)
    def _mine(p, q):
        return nt.full(p.batch_shape, 42.0)

    k = ND.kl_divergence(MyNormal(nt.zeros(1), nt.ones(1)), ND.Normal(nt.ones(1), nt.ones(1)))
    check(k, ref.tensor([42.0]), exact=True)


# ---- validation ------------------------------------------------------------------------------------
def _message(fn):
    try:
        fn()
    except ValueError as e:
        return str(e)
    raise AssertionError("no ValueError")


BAD_PARAMS = [
    lambda M, T: M.Normal(T([0.0, 1.0]), T([1.0, -1.0])),
    lambda M, T: M.Normal(T([0.0, float("nan")]), T([1.0, 1.0])),
    lambda M, T: M.Uniform(T([0.0, 2.0]), T([1.0, 1.0])),
    lambda M, T: M.Bernoulli(probs=T([0.5, 1.5])),
    lambda M, T: M.Categorical(probs=T([[0.5, -0.1], [0.2, 0.8]])),
    lambda M, T: M.OneHotCategorical(probs=T([0.5, -0.1])),
    lambda M, T: M.MultivariateNormal(T([0.0, 0.0]), covariance_matrix=T([[1.0, 2.0], [2.0, 1.0]])),
    lambda M, T: M.MultivariateNormal(T([0.0, 0.0]), scale_tril=T([[1.0, 0.0], [2.0, -1.0]])),
    lambda M, T: M.Gamma(T([1.0, 0.0]), T([1.0, 1.0])),
    lambda M, T: M.Beta(T([1.0, -2.0]), T([1.0, 1.0])),
    lambda M, T: M.Dirichlet(T([[1.0, -2.0]])),
]


@pytest.mark.parametrize("i", range(len(BAD_PARAMS)))
def test_invalid_parameters_raise(i):
    make = BAD_PARAMS[i]
    tmsg = _message(lambda: make(RD, lambda x: ref.tensor(x)))
    nmsg = _message(lambda: make(ND, lambda x: nt.tensor(x)))
    assert nmsg == tmsg


class _NoValidation:
    """A stand-in for a distributions module whose classes are built with ``validate_args=False``."""

    def __init__(self, module):
        self.module = module

    def __getattr__(self, name):
        cls = getattr(self.module, name)
        return lambda *args, **kwargs: cls(*args, validate_args=False, **kwargs)


@pytest.mark.parametrize("i", range(len(BAD_PARAMS)))
def test_validate_args_false_skips_checks(i):
    def outcome(M, T):
        try:
            BAD_PARAMS[i](_NoValidation(M), T)
        except Exception as e:  # noqa: BLE001  (compare whatever PyTorch raises)
            return "RuntimeError" if isinstance(e, RuntimeError) else type(e).__name__  # LinAlgError too
        return None

    # OneHotCategorical validates its inner Categorical, and a non-PD covariance fails its Cholesky, in both
    assert outcome(ND, nt.tensor) == outcome(RD, ref.tensor)


OUT_OF_SUPPORT = [
    ("normal", [float("nan"), 0.0, 0.0]),
    ("uniform", [0.5, 0.9, 3.0]),
    ("bernoulli_probs", [0.5, 1.0, 0.0]),
    ("categorical_probs", [3, 0]),
    ("one_hot", [[1.0, 1.0, 0.0], [0.0, 1.0, 0.0]]),
    ("gamma", [-1.0, 1.0, 1.0, 1.0]),
    ("beta", [0.5, 1.5, 0.2, 0.2]),
    ("dirichlet", [[0.5, 0.6, 0.1], [0.2, 0.2, 0.6]]),
    ("mvn_tril", [[0.0, float("nan"), 0.0], [0.0, 0.0, 0.0]]),
]


@pytest.mark.parametrize("name,value", OUT_OF_SUPPORT, ids=[c[0] for c in OUT_OF_SUPPORT])
def test_out_of_support_value_raises(name, value):
    td, nd, _, _ = build(name, np.float32)
    v = np.asarray(value, np.int64 if name.startswith("categorical") else np.float32)
    tmsg = _message(lambda: td.log_prob(ref.tensor(v)))
    nmsg = _message(lambda: nd.log_prob(nt.tensor(v)))
    assert nmsg == tmsg
    # without validation the value is scored (or fails later, e.g. an index out of range) as in PyTorch
    params = CASES[name][1]
    td_off = CASES[name][0](_NoValidation(RD), {k: ref.tensor(np.asarray(p, np.float32)) for k, p in params.items()})
    nd_off = CASES[name][0](_NoValidation(ND), {k: nt.tensor(np.asarray(p, np.float32)) for k, p in params.items()})
    try:
        expected = td_off.log_prob(ref.tensor(v))
    except RuntimeError:
        with pytest.raises(RuntimeError):
            nd_off.log_prob(nt.tensor(v))
    else:
        with np.errstate(all="ignore"):
            check(nd_off.log_prob(nt.tensor(v)), expected, np.float32)


def test_value_shape_and_type_errors():
    td, nd, _, _ = build("mvn_tril", np.float32)
    for v in (np.zeros((2, 4), np.float32), np.zeros((3, 3), np.float32)):
        assert _message(lambda v=v: nd.log_prob(nt.tensor(v))) == _message(lambda v=v: td.log_prob(ref.tensor(v)))
    assert _message(lambda: nd.log_prob([0.0, 0.0, 0.0])) == "The value argument to log_prob must be a Tensor"


def test_construction_errors():
    cases = [
        lambda M, T: M.Bernoulli(),
        lambda M, T: M.Bernoulli(probs=T([0.5]), logits=T([0.0])),
        lambda M, T: M.Categorical(probs=T(0.5)),
        lambda M, T: M.Categorical(logits=T(0.5)),
        lambda M, T: M.MultivariateNormal(T(0.0), scale_tril=T([[1.0]])),
        lambda M, T: M.MultivariateNormal(T([0.0])),
        lambda M, T: M.MultivariateNormal(T([0.0]), scale_tril=T([1.0])),
        lambda M, T: M.Independent(M.Normal(T([0.0]), T([1.0])), 2),
        lambda M, T: M.Dirichlet(T(1.0)),
        lambda M, T: M.Normal("a", 1.0),
    ]
    for make in cases:
        assert _message(lambda m=make: m(ND, nt.tensor)) == _message(lambda m=make: m(RD, ref.tensor))


def test_set_default_validate_args():
    assert ND.Distribution._validate_args is True
    try:
        ND.Distribution.set_default_validate_args(False)
        d = ND.Normal(nt.tensor([0.0]), nt.tensor([-1.0]))  # accepted
        assert d._validate_args is False
        ND.Distribution.set_default_validate_args(True)
        with pytest.raises(ValueError):
            ND.Normal(nt.tensor([0.0]), nt.tensor([-1.0]))
        with pytest.raises(ValueError):
            ND.Distribution.set_default_validate_args("yes")
    finally:
        ND.Distribution.set_default_validate_args(True)


# ---- constraints and utils -------------------------------------------------------------------------
CONSTRAINT_CASES = [
    ("real", None, [1.0, float("nan"), float("inf")]),
    ("positive", None, [1.0, 0.0, -1.0]),
    ("nonnegative", None, [1.0, 0.0, -1.0]),
    ("unit_interval", None, [0.0, 1.0, 1.5]),
    ("boolean", None, [0.0, 1.0, 0.5]),
    ("nonnegative_integer", None, [0.0, 2.0, 1.5, -1.0]),
    ("positive_integer", None, [0.0, 2.0, 1.5]),
    ("simplex", None, [[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]]),
    ("one_hot", None, [[0.0, 1.0], [1.0, 1.0]]),
    ("real_vector", None, [[0.0, float("nan")], [1.0, 2.0]]),
    ("lower_triangular", None, [[[1.0, 0.0], [2.0, -1.0]], [[1.0, 1.0], [0.0, 1.0]]]),
    ("lower_cholesky", None, [[[1.0, 0.0], [2.0, -1.0]], [[1.0, 0.0], [2.0, 3.0]]]),
    ("corr_cholesky", None, [[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.5, 0.5]]]),
    ("square", None, [[1.0, 0.0], [2.0, -1.0]]),
    ("symmetric", None, [[[1.0, 2.0], [2.0, 1.0]], [[1.0, 0.0], [2.0, 1.0]]]),
    ("positive_semidefinite", None, [[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]]),
    ("positive_definite", None, [[[2.0, 1.0], [1.0, 2.0]], [[1.0, 1.0], [1.0, 1.0]]]),
    ("interval", (0.0, 2.0), [0.0, 2.0, 2.5]),
    ("half_open_interval", (0.0, 2.0), [0.0, 2.0, 1.0]),
    ("integer_interval", (0, 3), [0.0, 3.0, 1.5, 4.0]),
    ("greater_than", (1.0,), [1.0, 2.0]),
    ("greater_than_eq", (1.0,), [1.0, 0.0]),
    ("less_than", (1.0,), [1.0, 0.0]),
    ("multinomial", (3,), [[1.0, 2.0], [2.0, 2.0]]),
]


@pytest.mark.parametrize("name,args,value", CONSTRAINT_CASES, ids=[c[0] for c in CONSTRAINT_CASES])
def test_constraints(name, args, value):
    rc, nc = getattr(RC, name), getattr(NC, name)
    if args is not None:
        rc, nc = rc(*args), nc(*args)
    v = np.asarray(value, np.float32)
    check(nc.check(nt.tensor(v)), rc.check(ref.tensor(v)), exact=True)
    assert nc.event_dim == rc.event_dim and nc.is_discrete == rc.is_discrete
    if name != "multinomial":  # PyTorch's Multinomial constraint has the default repr
        assert repr(nc) == repr(rc)


def test_constraint_combinators():
    v = np.array([[1.0, -1.0, 0.5], [2.0, 3.0, 0.2]], np.float32)
    ind_r, ind_n = RC.independent(RC.positive, 1), NC.independent(NC.positive, 1)
    check(ind_n.check(nt.tensor(v)), ind_r.check(ref.tensor(v)), exact=True)
    assert repr(ind_n) == repr(ind_r) and ind_n.event_dim == 1
    cat_r = RC.cat([RC.positive, RC.real], dim=1, lengths=[2, 1])
    cat_n = NC.cat([NC.positive, NC.real], dim=1, lengths=[2, 1])
    check(cat_n.check(nt.tensor(v)), cat_r.check(ref.tensor(v)), exact=True)
    st_r = RC.stack([RC.positive, RC.real, RC.unit_interval], dim=1)
    st_n = NC.stack([NC.positive, NC.real, NC.unit_interval], dim=1)
    check(st_n.check(nt.tensor(v)), st_r.check(ref.tensor(v)), exact=True)
    assert NC.is_dependent(NC.dependent) and not NC.is_dependent(NC.real)
    assert NC.is_dependent(ND.Uniform.support) and ND.Uniform.support.event_dim == 0
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        NC.dependent.check(nt.zeros(1))
    with pytest.raises(NotImplementedError):
        NC.dependent.event_dim  # noqa: B018
    assert NC.dependent(event_dim=1).event_dim == 1


def test_utils():
    a, b = broadcast_all(nt.tensor([1.0, 2.0], dtype=nt.float64), 3.0)
    ra, rb = RD.utils.broadcast_all(ref.tensor([1.0, 2.0], dtype=ref.float64), 3.0)
    check(a, ra, exact=True)
    check(b, rb, exact=True)
    (s,) = broadcast_all(2)
    assert s.dtype == nt.float32 and s.shape == ()
    with pytest.raises(ValueError, match="Input arguments must all be instances of Number"):
        broadcast_all(nt.zeros(1), "x")
    p = np.array([[0.0, 0.3, 0.7], [1.0, 0.5, 0.5]], np.float32)
    for binary in (False, True):
        check(probs_to_logits(nt.tensor(p), binary), RD.utils.probs_to_logits(ref.tensor(p), binary), np.float32)
        check(logits_to_probs(nt.tensor(p), binary), RD.utils.logits_to_probs(ref.tensor(p), binary), np.float32)
    check(clamp_probs(nt.tensor(p)), RD.utils.clamp_probs(ref.tensor(p)), exact=True)
    m = R.randn(2, 4, 4)
    for diag in (0, -1, 1):
        vec = tril_matrix_to_vec(nt.tensor(m), diag)
        check(vec, RD.utils.tril_matrix_to_vec(ref.tensor(m), diag), exact=True)
        check(vec_to_tril_matrix(vec, diag), RD.utils.vec_to_tril_matrix(ref.tensor(_arr(vec)), diag), exact=True)
    with pytest.raises(ValueError, match="cannot be expressed as the lower triangular part"):
        vec_to_tril_matrix(nt.zeros(5))
    with pytest.raises(ValueError, match=r"diag \(4\) provided is outside \[-4, 3\]"):
        tril_matrix_to_vec(nt.tensor(m), 4)


# ---- the private special functions ---------------------------------------------------------------
def test_special_ops_gradcheck():
    gc = nt.autograd.gradcheck
    x = nt.tensor([0.3, 1.5, 4.0], dtype=nt.float64, requires_grad=True)
    y = nt.tensor([0.7, 2.0, 0.5], dtype=nt.float64, requires_grad=True)
    assert gc(_special.lgamma, (x,))
    assert gc(_special.digamma, (x,))
    assert gc(_special.xlogy, (x, y))
    assert gc(lambda b: _special.gammainc(x.detach(), b), (y,))
    A = nt.tensor(TRIL[None].repeat(2, 0), requires_grad=True)
    B = nt.tensor(R.randn(1, 3, 2), requires_grad=True)
    assert gc(lambda a, b: _special.solve_triangular(a, b, upper=False), (A, B))
    assert gc(lambda a, b: _special.solve_triangular(a.mT, b, upper=True), (A, B))
    d = ND.MultivariateNormal(nt.zeros(3, dtype=nt.float64), scale_tril=A[0])
    assert gc(lambda v: d.log_prob(v), (nt.tensor(R.randn(2, 3), requires_grad=True),))


def test_special_ops_values(fdtype):
    x = np.array([0.0, 0.3, 1.5, 4.0], fdtype)
    y = np.array([0.7, 0.0, float("nan"), 0.5], fdtype)
    check(_special.lgamma(nt.tensor(x[1:])), ref.lgamma(ref.tensor(x[1:])), fdtype)
    check(_special.digamma(nt.tensor(x[1:])), ref.digamma(ref.tensor(x[1:])), fdtype)
    check(_special.xlogy(nt.tensor(x), nt.tensor(y)), ref.xlogy(ref.tensor(x), ref.tensor(y)), fdtype)
    # the reparameterized gamma gradient over all of ATen's branches (small x, saddle point, rational)
    alpha = np.array([0.5, 3.0, 10.0, 10.0, 10.0, 2.0, 50.0], fdtype)
    sample = np.array([0.3, 0.5, 9.8, 5.0, 15.0, 3.0, 80.0], fdtype)
    check(nt.tensor(_special.standard_gamma_grad(alpha, sample)),
          ref._standard_gamma_grad(ref.tensor(alpha), ref.tensor(sample)), fdtype)
    # the Dirichlet gradient over its branches (x near 0, near 1, both concentrations large, rational)
    xs = np.array([0.05, 0.97, 0.45, 0.4, 0.3], fdtype)
    al = np.array([0.5, 2.0, 9.0, 2.0, 1.0], fdtype)
    tot = np.array([3.0, 2.5, 20.0, 5.0, 4.0], fdtype)
    check(nt.tensor(_special.dirichlet_grad(xs, al, tot)),
          ref._dirichlet_grad(ref.tensor(xs), ref.tensor(al), ref.tensor(tot)), fdtype,
          rtol=1e-4 if fdtype == np.float32 else 1e-9)
