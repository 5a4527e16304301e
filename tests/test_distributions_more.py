"""numtorch.distributions transforms, TransformedDistribution, constraint_registry and the distributions added
after the first batch, against torch.distributions: values, shapes, seeded samples, gradients, KL, errors."""
import math
import warnings

import numpy as np
import pytest
import torch as ref
import torch.distributions as RD
import torch.distributions.transforms as RT
from torch.distributions import constraints as RC

import numtorch as nt
import numtorch.distributions as ND
import numtorch.distributions.transforms as NTR
from numtorch.distributions import _special, constraints as NC

R = np.random.RandomState(0)


def _arr(x):
    if isinstance(x, ref.Tensor):
        return x.detach().numpy()
    return np.asarray(x.detach()._data)


def check(a, b, dt=np.float64, exact=False, rtol=None):
    """``a`` (numtorch) equals ``b`` (torch) in shape, dtype and value (exactly, or to float rounding:
    numtorch's transcendental functions are NumPy's, which may differ from PyTorch's in the last bit)."""
    an, bn = _arr(a), _arr(b)
    assert an.shape == bn.shape, (an.shape, bn.shape)
    assert an.dtype == bn.dtype, (an.dtype, bn.dtype)
    if exact:
        np.testing.assert_array_equal(an, bn)
    else:
        tol = rtol if rtol is not None else (2e-5 if dt == np.float32 else 1e-10)
        np.testing.assert_allclose(an, bn, rtol=tol, atol=tol)


def _unit(*shape):
    return R.rand(*shape) * 0.8 + 0.1


SIMPLEX3 = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])

# ---- name -> (factory(M, params), params, log_prob value (2,) + batch + event, options) ----------
# options: exact (seeded samples bit-equal), cdf (has cdf/icdf), int_params (not differentiable)
CASES = {
    "exponential": (lambda M, p: M.Exponential(p["rate"]), dict(rate=[0.5, 1.0, 3.0]), R.rand(2, 3) * 3,
                    dict(exact=True, cdf=True)),
    "laplace": (lambda M, p: M.Laplace(p["loc"], p["scale"]), dict(loc=[0.5, -1.0, 2.0], scale=[1.0, 0.5, 2.0]),
                R.randn(2, 3), dict(cdf=True)),
    "cauchy": (lambda M, p: M.Cauchy(p["loc"], p["scale"]), dict(loc=[0.5, -1.0, 2.0], scale=[1.0, 0.5, 2.0]),
               R.randn(2, 3), dict(cdf=True)),
    "lognormal": (lambda M, p: M.LogNormal(p["loc"], p["scale"]), dict(loc=[0.5, -1.0, 0.2], scale=[1.0, 0.5, 0.3]),
                  R.rand(2, 3) * 3 + 0.1, dict(cdf=True)),
    "halfnormal": (lambda M, p: M.HalfNormal(p["scale"]), dict(scale=[1.0, 0.5, 2.0]), R.rand(2, 3) * 2,
                   dict(exact=True, cdf=True)),
    "halfcauchy": (lambda M, p: M.HalfCauchy(p["scale"]), dict(scale=[1.0, 0.5, 2.0]), R.rand(2, 3) * 2,
                   dict(cdf=True)),
    "gumbel": (lambda M, p: M.Gumbel(p["loc"], p["scale"]), dict(loc=[0.5, -1.0, 2.0], scale=[1.0, 0.5, 2.0]),
               R.randn(2, 3), dict(cdf=True)),
    "geometric_probs": (lambda M, p: M.Geometric(probs=p["probs"]), dict(probs=[0.2, 0.5, 0.9]),
                        np.array([[0.0, 3.0, 1.0], [5.0, 0.0, 2.0]]), dict(exact=True)),
    "geometric_logits": (lambda M, p: M.Geometric(logits=p["logits"]), dict(logits=[-1.0, 0.3, 2.0]),
                         np.array([[0.0, 3.0, 1.0], [5.0, 0.0, 2.0]]), dict(exact=True)),
    "poisson": (lambda M, p: M.Poisson(p["rate"]), dict(rate=[0.5, 4.0, 30.0]),
                np.array([[0.0, 3.0, 25.0], [2.0, 7.0, 31.0]]), dict(exact=True)),
    "binomial_probs": (lambda M, p: M.Binomial(30, probs=p["probs"]), dict(probs=[0.2, 0.5, 0.9]),
                       np.array([[0.0, 13.0, 27.0], [6.0, 17.0, 30.0]]), dict(exact=True)),
    "binomial_logits": (lambda M, p: M.Binomial(25, logits=p["logits"]), dict(logits=[-1.0, 0.3, 2.0]),
                        np.array([[0.0, 13.0, 20.0], [6.0, 17.0, 25.0]]), dict(exact=True)),
    "multinomial": (lambda M, p: M.Multinomial(5, probs=p["probs"]), dict(probs=SIMPLEX3),
                    np.array([[[1.0, 2.0, 2.0], [5.0, 0.0, 0.0]], [[0.0, 0.0, 5.0], [3.0, 1.0, 1.0]]]),
                    dict(exact=True)),
    "chi2": (lambda M, p: M.Chi2(p["df"]), dict(df=[0.8, 3.0, 12.0]), R.rand(2, 3) * 4 + 0.1,
             dict(exact=True, cdf_only=True)),
    "studentt": (lambda M, p: M.StudentT(p["df"], p["loc"], p["scale"]),
                 dict(df=[0.8, 1.5, 5.0], loc=[0.5, -1.0, 2.0], scale=[1.0, 0.5, 2.0]), R.randn(2, 3), dict()),
    "relaxed_bernoulli": (lambda M, p: M.RelaxedBernoulli(p["temperature"], probs=p["probs"]),
                          dict(temperature=0.7, probs=[0.2, 0.5, 0.9]), _unit(2, 3), dict()),
    "relaxed_one_hot": (lambda M, p: M.RelaxedOneHotCategorical(p["temperature"], logits=p["logits"]),
                        dict(temperature=0.5, logits=[[0.2, -1.3, 0.5], [1.6, 0.1, -0.3]]),
                        np.stack([SIMPLEX3, SIMPLEX3[::-1]]), dict()),
    "logistic_normal": (lambda M, p: M.LogisticNormal(p["loc"], p["scale"]),
                        dict(loc=[[0.5, -1.0, 0.2], [0.0, 0.1, 0.3]], scale=[[1.0, 0.5, 0.3], [0.2, 0.8, 1.1]]),
                        np.array([[[0.1, 0.2, 0.3, 0.4]] * 2, [[0.25, 0.25, 0.4, 0.1]] * 2]), dict()),
    "pareto": (lambda M, p: M.Pareto(p["scale"], p["alpha"]), dict(scale=[0.5, 1.0, 2.0], alpha=[0.8, 2.5, 3.0]),
               R.rand(2, 3) * 2 + 2.0, dict(cdf=True)),
    "weibull": (lambda M, p: M.Weibull(p["scale"], p["concentration"]),
                dict(scale=[0.5, 1.0, 2.0], concentration=[0.8, 2.5, 3.0]), R.rand(2, 3) * 2 + 0.1, dict(cdf=True)),
    "kumaraswamy": (lambda M, p: M.Kumaraswamy(p["concentration1"], p["concentration0"]),
                    dict(concentration1=[0.8, 2.5, 3.0], concentration0=[1.5, 0.7, 4.0]), _unit(2, 3), dict()),
    "mixture": (lambda M, p: M.MixtureSameFamily(M.Categorical(logits=p["logits"]),
                                                 M.Normal(p["loc"], p["scale"])),
                dict(logits=[[0.2, -1.3, 0.5], [1.6, 0.1, -0.3]], loc=[[0.5, -1.0, 2.0], [0.0, 1.0, 3.0]],
                     scale=[[1.0, 0.5, 2.0], [0.3, 1.0, 1.5]]), R.randn(2, 2), dict(exact=True, cdf_only=True)),
    "lowrank_mvn": (lambda M, p: M.LowRankMultivariateNormal(p["loc"], p["cov_factor"], p["cov_diag"]),
                    dict(loc=[[0.5, -1.0, 2.0], [0.0, 0.1, 0.2]], cov_factor=R.randn(3, 2),
                         cov_diag=[1.0, 0.5, 2.0]), R.randn(2, 2, 3), dict()),
    "transformed_tanh": (lambda M, p: M.TransformedDistribution(M.Normal(p["loc"], p["scale"]),
                                                                [M.transforms.TanhTransform()]),
                         dict(loc=[0.5, -1.0, 2.0], scale=[1.0, 0.5, 2.0]), R.rand(2, 3) * 1.6 - 0.8, dict()),
    "negative_binomial_probs": (lambda M, p: M.NegativeBinomial(p["total_count"], probs=p["probs"]),
                                dict(total_count=[3.0, 0.5, 7.0], probs=[0.2, 0.5, 0.9]),
                                np.array([[0.0, 2.0, 5.0], [0.0, 0.0, 40.0]]), dict(exact=True)),
    "negative_binomial_logits": (lambda M, p: M.NegativeBinomial(p["total_count"], logits=p["logits"]),
                                 dict(total_count=[3.0, 0.0, 7.0], logits=[-1.0, 0.3, 2.0]),
                                 np.array([[0.0, 0.0, 5.0], [4.0, 0.0, 40.0]]), dict(exact=True)),
    "von_mises": (lambda M, p: M.VonMises(p["loc"], p["concentration"]),
                  dict(loc=[0.5, -1.0, 2.0], concentration=[0.3, 2.0, 8.0]), R.randn(2, 3) * 3, dict(exact=True)),
    "inverse_gamma": (lambda M, p: M.InverseGamma(p["concentration"], p["rate"]),
                      dict(concentration=[0.8, 2.5, 3.0], rate=[1.5, 0.7, 4.0]), R.rand(2, 3) * 3 + 0.1,
                      dict(cdf_only=True)),
    "continuous_bernoulli_probs": (lambda M, p: M.ContinuousBernoulli(probs=p["probs"]),
                                   dict(probs=[0.2, 0.5, 0.9]), _unit(2, 3), dict(cdf=True)),
    "continuous_bernoulli_logits": (lambda M, p: M.ContinuousBernoulli(logits=p["logits"]),
                                    dict(logits=[-1.0, 0.001, 2.0]), _unit(2, 3), dict(cdf=True)),
    "fisher_snedecor": (lambda M, p: M.FisherSnedecor(p["df1"], p["df2"]),
                        dict(df1=[0.8, 3.0, 12.0], df2=[1.5, 5.0, 3.0]), R.rand(2, 3) * 3 + 0.1, dict(exact=True)),
}
NUMBER_PARAMS = {"temperature"}  # given to torch/numtorch as 0-dim tensors


def build(name, dt, requires_grad=False):
    """The torch and numtorch distributions of ``CASES[name]`` plus their parameter tensors."""
    factory, params, _, _ = CASES[name]
    tp = {k: ref.tensor(np.asarray(v, dt), requires_grad=requires_grad) for k, v in params.items()}
    npar = {k: nt.tensor(np.asarray(v, dt), requires_grad=requires_grad) for k, v in params.items()}
    return factory(RD, tp), factory(ND, npar), tp, npar


def value_pair(name, dt):
    v = np.asarray(CASES[name][2], dt)
    return ref.tensor(v), nt.tensor(v)


def compare_grads(tp, npar, dt, rtol=None):
    for k in tp:
        if tp[k].grad is None:
            assert npar[k].grad is None, k
        else:
            check(npar[k].grad, tp[k].grad, dt, rtol=rtol)


def _both(fn_t, fn_n):
    """Run ``fn_t`` (torch); if it raises, ``fn_n`` must raise the same type. Returns the pair or None."""
    try:
        out_t = fn_t()
    except Exception as e:  # noqa: BLE001  (whatever PyTorch raises, numtorch must too)
        with pytest.raises(type(e)):
            fn_n()
        return None
    return out_t, fn_n()


GRAD_RTOL = {np.float32: 2e-4, np.float64: 1e-8}


@pytest.mark.parametrize("name", sorted(CASES))
def test_shapes_moments_entropy(name, fdtype):
    td, nd, _, _ = build(name, fdtype)
    assert nd.batch_shape == td.batch_shape and nd.event_shape == td.event_shape
    assert isinstance(nd.batch_shape, nt.Size)
    assert nd.has_rsample == td.has_rsample and nd.has_enumerate_support == td.has_enumerate_support
    for attr in ("mean", "variance", "stddev", "mode"):
        pair = _both(lambda: getattr(td, attr), lambda: getattr(nd, attr))
        if pair is not None:
            check(pair[1], pair[0], fdtype, rtol=1e-4 if fdtype == np.float32 else 1e-9)
    pair = _both(td.entropy, nd.entropy)
    if pair is not None:
        check(pair[1], pair[0], fdtype, rtol=1e-4 if fdtype == np.float32 else 1e-9)
    assert repr(nd.support) == repr(td.support)
    assert nd._extended_shape((4, 1)) == td._extended_shape((4, 1))


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_and_gradients(name, fdtype):
    td, nd, tp, npar = build(name, fdtype, requires_grad=True)
    tv, nv = value_pair(name, fdtype)
    tl, nl = td.log_prob(tv), nd.log_prob(nv)
    check(nl, tl, fdtype, rtol=5e-5 if fdtype == np.float32 else 1e-9)
    pair = _both(td.entropy, nd.entropy)
    tot_t, tot_n = tl.sum(), nl.sum()
    if pair is not None and pair[0].requires_grad:
        tot_t, tot_n = tot_t + pair[0].sum(), tot_n + pair[1].sum()
    tot_t.backward()
    tot_n.backward()
    compare_grads(tp, npar, fdtype, rtol=GRAD_RTOL[fdtype])


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("shape", [(), (2, 3)], ids=str)
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
        check(nr, tr, fdtype, exact=exact, rtol=1e-4 if fdtype == np.float32 else 1e-9)
        w = R.rand(*tr.shape)
        (tr * ref.tensor(w, dtype=tr.dtype)).sum().backward()
        (nr * nt.tensor(w.astype(fdtype))).sum().backward()
        compare_grads(tp, npar, fdtype, rtol=GRAD_RTOL[fdtype])
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
    ref.manual_seed(3)
    nt.manual_seed(3)
    check(ne.sample((2,)), te.sample((2,)), exact=CASES[name][3].get("exact", False))


@pytest.mark.parametrize("name", sorted(n for n in CASES if CASES[n][3].get("cdf") or CASES[n][3].get("cdf_only")))
def test_cdf_icdf(name, fdtype):
    td, nd, tp, npar = build(name, fdtype, requires_grad=True)
    tv, nv = value_pair(name, fdtype)
    tc, nc = td.cdf(tv), nd.cdf(nv)
    check(nc, tc, fdtype, rtol=1e-4 if fdtype == np.float32 else 1e-9)
    tot_t, tot_n = tc.sum(), nc.sum()
    if CASES[name][3].get("cdf"):
        q = np.array([[0.1, 0.5, 0.9], [0.25, 0.75, 0.01]], fdtype)
        ti, ni = td.icdf(ref.tensor(q)), nd.icdf(nt.tensor(q))
        check(ni, ti, fdtype, rtol=1e-4 if fdtype == np.float32 else 1e-9)
        tot_t, tot_n = tot_t + ti.sum(), tot_n + ni.sum()
    if name in ("chi2", "inverse_gamma"):
        return  # the igamma gradient w.r.t. the concentration is not implemented (in PyTorch either)
    tot_t.backward()
    tot_n.backward()
    compare_grads(tp, npar, fdtype, rtol=GRAD_RTOL[fdtype])


def test_sac_tanh_normal_policy(fdtype):
    """The SAC actor: rsample of tanh(Normal) and its log-prob via the cached pre-tanh value."""
    mu, sd = R.randn(4, 3).astype(fdtype), (R.rand(4, 3) + 0.2).astype(fdtype)
    tm, ts = ref.tensor(mu, requires_grad=True), ref.tensor(sd, requires_grad=True)
    nm, ns = nt.tensor(mu, requires_grad=True), nt.tensor(sd, requires_grad=True)
    td = RD.TransformedDistribution(RD.Normal(tm, ts), [RT.TanhTransform(cache_size=1)])
    nd = ND.TransformedDistribution(ND.Normal(nm, ns), [NTR.TanhTransform(cache_size=1)])
    ref.manual_seed(0)
    nt.manual_seed(0)
    ta, na = td.rsample(), nd.rsample()
    # pre-tanh draws are bit-equal; tanh itself may differ from PyTorch's SIMD tanh in the last bit
    check(nd.transforms[0]._cached_x_y[0], td.transforms[0]._cached_x_y[0], exact=True)
    check(na, ta, fdtype, rtol=1e-6 if fdtype == np.float32 else 1e-15)
    tl, nl = td.log_prob(ta).sum(-1), nd.log_prob(na).sum(-1)
    check(nl, tl, fdtype, rtol=1e-6 if fdtype == np.float32 else 1e-14)
    (tl.mean() + ta.pow(2).sum()).backward()
    (nl.mean() + na.pow(2).sum()).backward()
    check(nm.grad, tm.grad, fdtype, rtol=1e-5 if fdtype == np.float32 else 1e-13)
    check(ns.grad, ts.grad, fdtype, rtol=1e-5 if fdtype == np.float32 else 1e-13)
    check(nt.rand(2), ref.rand(2), np.float32, exact=True)
    with pytest.raises(ValueError, match="Expected value argument"):
        nd.log_prob(nt.tensor([[1.5, 0.0, 0.0]] * 4, dtype=nm.dtype))


# ---- transforms ------------------------------------------------------------------------------------
def _pos(*s):
    return R.rand(*s) + 0.2


TRANSFORMS = {  # name -> (factory(M), input x)
    "exp": (lambda M: M.ExpTransform(), R.randn(2, 3)),
    "affine_num": (lambda M: M.AffineTransform(0.5, -2.0), R.randn(2, 3)),
    "affine_tensor_ev1": (lambda M: M.AffineTransform(_T(M)([1.0, 2.0, 3.0]), _T(M)([0.5, -1.0, 2.0]), event_dim=1),
                          R.randn(2, 3)),
    "sigmoid": (lambda M: M.SigmoidTransform(), R.randn(2, 3)),
    "softplus": (lambda M: M.SoftplusTransform(), R.randn(2, 3)),
    "tanh": (lambda M: M.TanhTransform(), R.randn(2, 3)),
    "power": (lambda M: M.PowerTransform(_T(M)([0.5, 2.0, -1.5])), _pos(2, 3)),
    "abs": (lambda M: M.AbsTransform(), R.randn(2, 3)),
    "softmax": (lambda M: M.SoftmaxTransform(), R.randn(2, 3)),
    "stick": (lambda M: M.StickBreakingTransform(), R.randn(2, 3)),
    "lower_cholesky": (lambda M: M.LowerCholeskyTransform(), R.randn(2, 3, 3)),
    "positive_definite": (lambda M: M.PositiveDefiniteTransform(), R.randn(2, 3, 3)),
    "corr_cholesky": (lambda M: M.CorrCholeskyTransform(), R.randn(2, 6)),
    "reshape": (lambda M: M.ReshapeTransform((2, 3), (3, 2)), R.randn(4, 2, 3)),
    "compose": (lambda M: M.ComposeTransform([M.ExpTransform(), M.AffineTransform(1.0, 3.0),
                                              M.PowerTransform(_T(M)(2.0))]), R.randn(2, 3)),
    "compose_events": (lambda M: M.ComposeTransform([M.AffineTransform(0.0, 2.0), M.StickBreakingTransform()]),
                       R.randn(2, 3)),
    "independent": (lambda M: M.IndependentTransform(M.SigmoidTransform(), 1), R.randn(2, 3)),
    "inverse": (lambda M: M.ExpTransform().inv, _pos(2, 3)),
    "cat": (lambda M: M.CatTransform([M.ExpTransform(), M.AffineTransform(1.0, 2.0), M.SigmoidTransform()],
                                     dim=1, lengths=[1, 2, 1]), R.randn(2, 4)),
    "stack": (lambda M: M.StackTransform([M.ExpTransform(), M.TanhTransform()], dim=-1), R.randn(3, 2)),
    "cdf": (lambda M: M.CumulativeDistributionTransform(_D(M).Normal(_T(M)(0.5), _T(M)(2.0))), R.randn(2, 3)),
}


def _T(M):
    return (lambda v: ref.tensor(v, dtype=ref.float64)) if M is RT else (lambda v: nt.tensor(v, dtype=nt.float64))


def _D(M):
    return RD if M is RT else ND


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_against_torch(name):
    factory, x = TRANSFORMS[name]
    tt, tn = factory(RT), factory(NTR)
    xt, xn = ref.tensor(x, requires_grad=True), nt.tensor(x, requires_grad=True)
    yt, yn = tt(xt), tn(xn)
    check(yn, yt)
    for attr in ("bijective", "event_dim"):
        pair = _both(lambda: getattr(tt, attr), lambda: getattr(tn, attr))
        if pair is not None:
            assert pair[0] == pair[1], attr
    pair = _both(lambda: tt.sign, lambda: tn.sign)
    if pair is not None:
        assert np.array_equal(_arr(ref.as_tensor(pair[0])), np.asarray(_arr(nt.as_tensor(pair[1]))))
    assert repr(tn.domain) == repr(tt.domain) and repr(tn.codomain) == repr(tt.codomain)
    assert tn.domain.event_dim == tt.domain.event_dim and tn.codomain.event_dim == tt.codomain.event_dim
    assert tuple(tn.forward_shape(nt.Size(x.shape))) == tuple(tt.forward_shape(ref.Size(x.shape)))
    assert tuple(tn.inverse_shape(nt.Size(yt.shape))) == tuple(tt.inverse_shape(ref.Size(yt.shape)))
    if name == "abs":  # not invertible: the inverse returns y
        check(tn.inv(yn), tt.inv(yt))
        return
    check(tn.inv(yn), tt.inv(yt), rtol=1e-8)
    pair = _both(lambda: tt.log_abs_det_jacobian(xt, yt), lambda: tn.log_abs_det_jacobian(xn, yn))
    tot_t, tot_n = (yt * ref.tensor(np.cos(np.arange(yt.numel())).reshape(yt.shape))).sum(), \
        (yn * nt.tensor(np.cos(np.arange(yt.numel())).reshape(yt.shape))).sum()
    if pair is not None:
        check(pair[1], pair[0], rtol=1e-9)
        tot_t, tot_n = tot_t + pair[0].sum(), tot_n + pair[1].sum()
    tot_t.backward()
    tot_n.backward()
    check(xn.grad, xt.grad, rtol=1e-8)


def test_transform_inverse_log_det_and_gradcheck():
    x = nt.tensor(R.randn(2, 3), requires_grad=True)
    for t in (NTR.TanhTransform(), NTR.StickBreakingTransform(), NTR.SigmoidTransform(),
              NTR.AffineTransform(1.0, nt.tensor([0.5, -1.0, 2.0]))):
        y = t(x)
        check(t.inv.log_abs_det_jacobian(y, x), -t.log_abs_det_jacobian(x, y), exact=True)
        assert nt.autograd.gradcheck(lambda v: t.log_abs_det_jacobian(v, t(v)), (x,))
    y = nt.tensor(R.rand(2, 3) * 1.8 - 0.9, requires_grad=True)
    assert nt.autograd.gradcheck(lambda v: NTR.TanhTransform().inv(v), (y,))  # atanh
    check(NTR.TanhTransform().inv(y), RT.TanhTransform().inv(ref.tensor(_arr(y))), rtol=1e-12)


def test_transform_cache_and_identity():
    t = NTR.TanhTransform(cache_size=1)
    x = nt.randn(3)
    y = t(x)
    assert t(x) is y and t.inv(y) is x and t.inv.inv is t
    assert NTR.ExpTransform().inv(nt.ones(1)) is not None
    t0 = NTR.TanhTransform()
    assert t0(x) is not t0(x)  # no cache
    assert t0.with_cache(0) is t0 and t0.with_cache(1)._cache_size == 1
    assert t.inv.with_cache(0).inv._cache_size == 0
    c = NTR.ComposeTransform([NTR.ExpTransform(), NTR.AffineTransform(1.0, 2.0)], cache_size=1)
    assert all(p._cache_size == 1 for p in c.parts)
    y = c(x)
    assert c.inv(y) is x  # each part returns its cached input
    assert c.inv.inv is c and isinstance(c.inv, NTR.ComposeTransform)
    assert NTR.identity_transform(x) is x and NTR.identity_transform.bijective
    assert NTR.ExpTransform() == NTR.ExpTransform() and NTR.ExpTransform() != NTR.SigmoidTransform()
    assert NTR.ExpTransform().inv == NTR.ExpTransform().inv
    assert NTR.AffineTransform(1.0, 2.0) == NTR.AffineTransform(1.0, 2.0) != NTR.AffineTransform(1.0, 3.0)
    assert NTR.PowerTransform(nt.tensor(2.0)) == NTR.PowerTransform(nt.tensor(2.0))
    assert NTR.ComposeTransform([NTR.ExpTransform()]) == NTR.ComposeTransform([NTR.ExpTransform()])
    assert repr(c) == repr(RT.ComposeTransform([RT.ExpTransform(), RT.AffineTransform(1.0, 2.0)]))
    assert repr(NTR.ExpTransform().inv) == repr(RT.ExpTransform().inv) == "_InverseTransform(ExpTransform())"
    assert repr(NTR.IndependentTransform(NTR.ExpTransform(), 2)) == repr(RT.IndependentTransform(RT.ExpTransform(), 2))
    assert c.sign == 1 and NTR.AffineTransform(0.0, -2.0).sign == -1
    assert NTR.ComposeTransform([NTR.AffineTransform(0.0, -2.0), NTR.ExpTransform()]).sign == -1


def test_transform_errors():
    for M in (RT, NTR):
        with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
            M.ExpTransform(cache_size=2)
        with pytest.raises(ValueError, match="different numbers of elements"):
            M.ReshapeTransform((2, 3), (4,))
        with pytest.raises(ValueError, match="Please use either .domain.event_dim or .codomain.event_dim"):
            M.ComposeTransform([M.ExpTransform(), M.ReshapeTransform((6,), (2, 3))]).event_dim
        with pytest.raises(NotImplementedError):
            M.Transform().sign  # noqa: B018
        with pytest.raises(NotImplementedError):
            M.Transform()(1.0)
    for M, T in ((RT, ref), (NTR, nt)):
        with pytest.raises(ValueError) as e:
            M.ReshapeTransform((2, 3), (6,)).forward_shape(T.Size((3, 2)))
        msgs = str(e.value)
        assert msgs == "Shape mismatch: expected torch.Size([3, 2]) but got torch.Size([2, 3])"
        with pytest.raises(NotImplementedError, match="with_cache is not implemented"):
            _Custom(M).with_cache(1)
        with pytest.raises(AssertionError, match="must equal length 3"):
            M.CatTransform([M.ExpTransform(), M.ExpTransform(), M.ExpTransform()])(T.zeros(2, 2))
    for M, D in ((RT, RD), (NTR, ND)):
        with pytest.raises(ValueError, match="transforms must be a Transform or a list of Transforms"):
            D.TransformedDistribution(D.Normal(0.0, 1.0), [M.ExpTransform(), 3])
        with pytest.raises(ValueError, match="transforms must be a Transform or list, but was 3"):
            D.TransformedDistribution(D.Normal(0.0, 1.0), 3)
        with pytest.raises(ValueError, match="base_distribution needs to have shape with size at least 1"):
            D.TransformedDistribution(D.Normal(0.0, 1.0), [M.StickBreakingTransform()])


def _Custom(M):
    class Custom(M.Transform):
        def __init__(self, cache_size=0, k=1):
            super().__init__(cache_size=cache_size)
    return Custom()


def test_transformed_distribution_shapes_and_event_dims():
    loc = R.randn(4, 3)
    for M, D, T in ((RT, RD, ref.tensor), (NTR, ND, nt.tensor)):
        base = D.Normal(T(loc), T(np.ones((4, 3))))
        d1 = D.TransformedDistribution(base, [M.StickBreakingTransform()])
        d2 = D.TransformedDistribution(base, [M.ReshapeTransform((4, 3), (12,))])
        d3 = D.TransformedDistribution(D.Normal(T(0.0), T(1.0)), [M.AffineTransform(T(loc), 2.0)])
        d4 = D.TransformedDistribution(base, [])
        facts = (d1.batch_shape, d1.event_shape, d2.batch_shape, d2.event_shape, d3.batch_shape,
                  type(d1.base_dist).__name__, repr(d1.support), repr(d4.support), repr(d2.support))
        if M is RT:
            expected = facts
        else:
            assert tuple(map(str, facts)) == tuple(map(str, expected))
    v = R.randn(2, 4, 3)
    ld = ND.TransformedDistribution(ND.Normal(nt.tensor(loc), nt.tensor(np.ones((4, 3)))), [NTR.ExpTransform()])
    lr = RD.TransformedDistribution(RD.Normal(ref.tensor(loc), ref.tensor(np.ones((4, 3)))), [RT.ExpTransform()])
    check(ld.cdf(nt.tensor(np.exp(v))), lr.cdf(ref.tensor(np.exp(v))), rtol=1e-12)
    dec_n = ND.TransformedDistribution(ND.Normal(nt.tensor(loc), nt.tensor(np.ones((4, 3)))),
                                       [NTR.AffineTransform(0.0, -1.0)])
    dec_t = RD.TransformedDistribution(RD.Normal(ref.tensor(loc), ref.tensor(np.ones((4, 3)))),
                                       [RT.AffineTransform(0.0, -1.0)])
    check(dec_n.cdf(nt.tensor(v)), dec_t.cdf(ref.tensor(v)), rtol=1e-12)  # monotone decreasing: 1 - F
    q = R.rand(2, 4, 3)
    check(dec_n.icdf(nt.tensor(q)), dec_t.icdf(ref.tensor(q)), rtol=1e-12)


# ---- constraint registry ----------------------------------------------------------------------------
REGISTRY_CASES = ["real", "positive", "nonnegative", "greater_than", "greater_than_eq", "less_than", "interval01",
                  "interval", "half_open", "simplex", "lower_cholesky", "positive_definite", "corr_cholesky",
                  "independent", "real_vector", "cat", "stack"]


def _constraint(C, name):
    return {"real": C.real, "positive": C.positive, "nonnegative": C.nonnegative, "greater_than": C.greater_than(1.5),
            "greater_than_eq": C.greater_than_eq(-2.0), "less_than": C.less_than(3.0),
            "interval01": C.interval(0.0, 1.0), "interval": C.interval(-1.0, 3.0),
            "half_open": C.half_open_interval(2.0, 5.0), "simplex": C.simplex, "lower_cholesky": C.lower_cholesky,
            "positive_definite": C.positive_definite, "corr_cholesky": C.corr_cholesky,
            "independent": C.independent(C.positive, 1), "real_vector": C.real_vector,
            "cat": C.cat([C.positive, C.interval(0.0, 2.0)], dim=1, lengths=[2, 1]),
            "stack": C.stack([C.positive, C.real], dim=-1)}[name]


@pytest.mark.parametrize("name", REGISTRY_CASES)
def test_biject_to_transform_to(name):
    x = R.randn(2, 3, 3) if name in ("lower_cholesky", "positive_definite") else \
        R.randn(2, 6) if name == "corr_cholesky" else R.randn(3, 2) if name == "stack" else R.randn(2, 3)
    for reg in ("biject_to", "transform_to"):
        pair = _both(lambda: getattr(RD, reg)(_constraint(RC, name)), lambda: getattr(ND, reg)(_constraint(NC, name)))
        if pair is None:
            continue
        tt, tn = pair
        assert type(tn).__name__ == type(tt).__name__ and repr(tn) == repr(tt)
        yt, yn = tt(ref.tensor(x)), tn(nt.tensor(x))
        check(yn, yt, rtol=1e-12)
        assert bool(_constraint(NC, name).check(yn).all())
        if tt.bijective:
            check(tn.log_abs_det_jacobian(nt.tensor(x), yn), tt.log_abs_det_jacobian(ref.tensor(x), yt), rtol=1e-12)


def test_constraint_registry_errors():
    for D, C in ((RD, RC), (ND, NC)):
        with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
            D.biject_to(C.boolean)
        with pytest.raises(TypeError, match="Expected constraint to be either a Constraint subclass or instance"):
            D.biject_to.register(3, lambda c: None)
    from numtorch.distributions.constraint_registry import ConstraintRegistry
    reg = ConstraintRegistry()
    reg.register(NC.boolean)(lambda c: NTR.SigmoidTransform())
    assert isinstance(reg(NC.boolean), NTR.SigmoidTransform)


# ---- KL divergence ----------------------------------------------------------------------------------
W_LR = np.array([[1.0, 0.2], [0.3, -0.5], [0.1, 0.7]])


def _lr(M, T, s):
    return M.LowRankMultivariateNormal(T([[0.5, -1.0, 2.0], [0.0, 0.1, 0.2]]), T(s * W_LR), T([1.0, 0.5, 2.0]))


KL_MAKERS = {
    "Normal": lambda M, T: M.Normal(T([0.5, -2.0, 3.0]), T([1.5, 0.7, 3.0])),
    "Uniform": lambda M, T: M.Uniform(T([0.1, 0.2, 1.0]), T([0.5, 0.7, 3.0])),
    "Uniform2": lambda M, T: M.Uniform(T([0.0, 0.3, -2.0]), T([0.6, 0.9, 4.0])),
    "Gamma": lambda M, T: M.Gamma(T([0.5, 2.0, 3.0]), T([1.5, 0.7, 3.0])),
    "Beta": lambda M, T: M.Beta(T([0.5, 2.0, 3.0]), T([1.5, 0.7, 3.0])),
    "Bernoulli": lambda M, T: M.Bernoulli(T([0.2, 0.5, 0.9])),
    "Exponential": lambda M, T: M.Exponential(T([0.5, 1.0, 3.0])),
    "Exponential2": lambda M, T: M.Exponential(T([1.5, 0.2, 1.0])),
    "Laplace": lambda M, T: M.Laplace(T([0.5, -2.0, 3.0]), T([1.5, 0.7, 3.0])),
    "Laplace2": lambda M, T: M.Laplace(T([0.1, 0.0, 1.0]), T([0.5, 1.0, 2.0])),
    "Cauchy": lambda M, T: M.Cauchy(T([0.5, -2.0, 3.0]), T([1.5, 0.7, 3.0])),
    "Cauchy2": lambda M, T: M.Cauchy(T([0.1, 0.0, 1.0]), T([0.5, 1.0, 2.0])),
    "Gumbel": lambda M, T: M.Gumbel(T([0.5, -2.0, 3.0]), T([1.5, 0.7, 3.0])),
    "Gumbel2": lambda M, T: M.Gumbel(T([0.1, 0.0, 1.0]), T([0.5, 1.0, 2.0])),
    "Geometric": lambda M, T: M.Geometric(T([0.2, 0.5, 0.9])),
    "Geometric2": lambda M, T: M.Geometric(T([0.7, 0.1, 0.4])),
    "HalfNormal": lambda M, T: M.HalfNormal(T([1.5, 0.7, 3.0])),
    "HalfNormal2": lambda M, T: M.HalfNormal(T([0.5, 1.0, 2.0])),
    "Pareto": lambda M, T: M.Pareto(T([0.5, 1.0, 2.0]), T([0.8, 2.5, 3.0])),
    "Pareto2": lambda M, T: M.Pareto(T([0.3, 1.5, 1.0]), T([1.5, 1.0, 2.0])),
    "Poisson": lambda M, T: M.Poisson(T([0.5, 4.0, 30.0])),
    "Poisson2": lambda M, T: M.Poisson(T([1.5, 2.0, 20.0])),
    "Binomial": lambda M, T: M.Binomial(T([10.0, 12.0, 10.0]), T([0.2, 0.5, 0.9])),
    "Binomial2": lambda M, T: M.Binomial(T([10.0, 10.0, 10.0]), T([0.7, 0.1, 0.4])),
    "LogNormal": lambda M, T: M.LogNormal(T([0.5, -2.0, 3.0]), T([1.5, 0.7, 3.0])),
    "LogNormal2": lambda M, T: M.LogNormal(T([0.1, 0.0, 1.0]), T([0.5, 1.0, 2.0])),
    "LowRank": lambda M, T: _lr(M, T, 1.0),
    "LowRank2": lambda M, T: _lr(M, T, -0.5),
    "CB": lambda M, T: M.ContinuousBernoulli(T([0.2, 0.5, 0.9])),
    "CB2": lambda M, T: M.ContinuousBernoulli(logits=T([0.3, -2.0, 0.0005])),
    "MVN": lambda M, T: M.MultivariateNormal(T([0.1, 0.2, -0.3]), scale_tril=T([[1.2, 0.0, 0.0], [0.4, 0.8, 0.0],
                                                                                   [-0.5, 0.3, 1.5]])),
}
KL_PAIRS = [("Exponential", "Exponential2"), ("Laplace", "Laplace2"), ("Cauchy", "Cauchy2"), ("Gumbel", "Gumbel2"),
            ("Geometric", "Geometric2"), ("HalfNormal", "HalfNormal2"), ("Pareto", "Pareto2"), ("Pareto2", "Pareto"),
            ("Poisson", "Poisson2"), ("Binomial", "Binomial2"), ("LogNormal", "LogNormal2"), ("LowRank", "LowRank2"),
            ("MVN", "LowRank"), ("LowRank", "MVN"), ("Bernoulli", "Poisson"), ("Beta", "Exponential"),
            ("Beta", "Pareto"), ("Exponential", "Beta"), ("Exponential", "Pareto"), ("Exponential", "Uniform"),
            ("Exponential", "Gamma"), ("Exponential", "Gumbel"), ("Exponential", "Normal"), ("Gamma", "Pareto"),
            ("Gamma", "Exponential"), ("Gamma", "Gumbel"), ("Gumbel", "Beta"), ("Gumbel", "Exponential"),
            ("Gumbel", "Gamma"), ("Gumbel", "Pareto"), ("Gumbel", "Uniform"), ("Gumbel", "Normal"),
            ("Laplace", "Beta"), ("Laplace", "Exponential"), ("Laplace", "Gamma"), ("Laplace", "Pareto"),
            ("Laplace", "Uniform"), ("Laplace", "Normal"), ("Normal", "Exponential"), ("Normal", "Pareto"),
            ("Normal", "Gumbel"), ("Normal", "Laplace"), ("Pareto", "Beta"), ("Pareto", "Uniform"),
            ("Pareto", "Exponential"), ("Pareto", "Gamma"), ("Pareto2", "Exponential"), ("Pareto2", "Gamma"),
            ("Pareto", "Normal"), ("Poisson", "Bernoulli"), ("Poisson", "Binomial"), ("Uniform", "Exponential"),
            ("Uniform2", "Exponential"), ("Uniform", "Gumbel"), ("Uniform", "Pareto"), ("Uniform2", "Pareto"),
            ("CB", "CB2"), ("CB2", "CB"), ("Beta", "CB"), ("Uniform", "CB"), ("Uniform2", "CB2"), ("CB", "Exponential"),
            ("CB", "Normal"), ("CB2", "Uniform"), ("CB", "Uniform2"), ("CB", "Pareto"), ("Exponential", "CB"),
            ("Gamma", "CB"), ("Gumbel", "CB"), ("Laplace", "CB"), ("Normal", "CB"), ("Pareto", "CB")]


@pytest.mark.parametrize("pq", KL_PAIRS, ids=lambda pq: f"{pq[0]}-{pq[1]}")
def test_kl_divergence(pq):
    tparams, nparams = [], []

    def T_ref(v):
        t = ref.tensor(np.asarray(v, np.float64), requires_grad=True)
        tparams.append(t)
        return t

    def T_nt(v):
        t = nt.tensor(np.asarray(v, np.float64), requires_grad=True)
        nparams.append(t)
        return t

    tp, tq = KL_MAKERS[pq[0]](RD, T_ref), KL_MAKERS[pq[1]](RD, T_ref)
    np_, nq = KL_MAKERS[pq[0]](ND, T_nt), KL_MAKERS[pq[1]](ND, T_nt)
    tk, nk = RD.kl_divergence(tp, tq), ND.kl_divergence(np_, nq)
    check(nk, tk, rtol=1e-9)
    if not tk.requires_grad:
        assert not nk.requires_grad
        return
    w = np.arange(1, tk.numel() + 1, dtype=np.float64).reshape(tk.shape)
    finite = np.isfinite(_arr(tk))
    (tk * ref.tensor(w))[ref.tensor(finite)].sum().backward()
    (nk * nt.tensor(w))[nt.tensor(finite)].sum().backward()
    for a, b in zip(nparams, tparams):
        if b.grad is None:
            assert a.grad is None or not np.any(_arr(a.grad))
        else:
            check(a.grad, b.grad, rtol=1e-8)


def test_kl_transformed_and_errors():
    a = ND.TransformedDistribution(ND.Normal(nt.zeros(2), nt.ones(2)), [NTR.ExpTransform()])
    b = ND.TransformedDistribution(ND.Normal(nt.ones(2), nt.ones(2)), [NTR.ExpTransform()])
    c = ND.TransformedDistribution(ND.Normal(nt.ones(2), nt.ones(2)), [NTR.SigmoidTransform()])
    check(ND.kl_divergence(a, b), RD.kl_divergence(
        RD.TransformedDistribution(RD.Normal(ref.zeros(2), ref.ones(2)), [RT.ExpTransform()]),
        RD.TransformedDistribution(RD.Normal(ref.ones(2), ref.ones(2)), [RT.ExpTransform()])), np.float32)
    with pytest.raises(NotImplementedError):
        ND.kl_divergence(a, c)
    for D, T in ((RD, ref.tensor), (ND, nt.tensor)):
        with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
            D.kl_divergence(D.Binomial(T([3.0]), T([0.5])), D.Binomial(T([5.0]), T([0.5])))
        with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented"):
            D.kl_divergence(D.Laplace(0.0, 1.0), D.Cauchy(0.0, 1.0))


# ---- samplers, validation and the rest ---------------------------------------------------------------
def test_binomial_sampler_matches_torch(fdtype):
    counts = np.tile(np.array([0, 1, 5, 20, 100, 1000, 37, 50, 3000, 12], fdtype), 12)
    probs = np.tile(np.array([0.3, 0.0, 0.2, 0.7, 0.05, 0.5, 0.9, 0.99, 0.001, 1.0], fdtype), 12)
    ref.manual_seed(11)
    nt.manual_seed(11)
    check(_special.binomial(nt.tensor(counts), nt.tensor(probs)), ref.binomial(ref.tensor(counts),
                                                                               ref.tensor(probs)), exact=True)
    check(nt.rand(2, dtype=nt.float64), ref.rand(2, dtype=ref.float64), exact=True)


def test_binomial_enumerate_support_and_inhomogeneous():
    td = RD.Binomial(ref.tensor([3.0, 3.0]), ref.tensor([0.2, 0.6]))
    nd = ND.Binomial(nt.tensor([3.0, 3.0]), nt.tensor([0.2, 0.6]))
    for expand in (True, False):
        check(nd.enumerate_support(expand), td.enumerate_support(expand), exact=True)
    for D, T in ((RD, ref.tensor), (ND, nt.tensor)):
        d = D.Binomial(T([3.0, 4.0]), T([0.2, 0.6]))
        with pytest.raises(NotImplementedError, match="Inhomogeneous total count not supported by `entropy`"):
            d.entropy()
        with pytest.raises(NotImplementedError, match="by `enumerate_support`"):
            d.enumerate_support()


def test_mixture_of_mvn_and_pad_dims():
    logits = R.randn(2, 4)
    locs, tril = R.randn(2, 4, 3), np.tril(R.rand(4, 3, 3)) + np.eye(3)
    td = RD.MixtureSameFamily(RD.Categorical(logits=ref.tensor(logits)),
                              RD.MultivariateNormal(ref.tensor(locs), scale_tril=ref.tensor(tril)))
    nd = ND.MixtureSameFamily(ND.Categorical(logits=nt.tensor(logits)),
                              ND.MultivariateNormal(nt.tensor(locs), scale_tril=nt.tensor(tril)))
    assert nd.batch_shape == td.batch_shape == (2,) and nd.event_shape == td.event_shape == (3,)
    v = R.randn(5, 2, 3)
    check(nd.log_prob(nt.tensor(v)), td.log_prob(ref.tensor(v)))
    check(nd.mean, td.mean)
    check(nd.variance, td.variance)
    ref.manual_seed(5)
    nt.manual_seed(5)
    check(nd.sample((3,)), td.sample((3,)))  # the MVN's matmul may round differently in the last bit
    assert repr(nd) == repr(td)
    # a mixture batch that broadcasts: moments and log_prob work, sample fails in gather (as in PyTorch)
    td = RD.MixtureSameFamily(RD.Categorical(logits=ref.tensor(logits[0])),
                              RD.MultivariateNormal(ref.tensor(locs), scale_tril=ref.tensor(tril)))
    nd = ND.MixtureSameFamily(ND.Categorical(logits=nt.tensor(logits[0])),
                              ND.MultivariateNormal(nt.tensor(locs), scale_tril=nt.tensor(tril)))
    check(nd.log_prob(nt.tensor(v)), td.log_prob(ref.tensor(v)))
    check(nd.variance, td.variance)
    for d in (td, nd):
        with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions"):
            d.sample((3,))


def test_lowrank_matrices_and_gradcheck(fdtype):
    W, D = R.randn(3, 2).astype(fdtype), (R.rand(3) + 0.5).astype(fdtype)
    tw, td_ = ref.tensor(W, requires_grad=True), ref.tensor(D, requires_grad=True)
    nw, nd_ = nt.tensor(W, requires_grad=True), nt.tensor(D, requires_grad=True)
    td = RD.LowRankMultivariateNormal(ref.zeros(2, 3, dtype=tw.dtype), tw, td_)
    nd = ND.LowRankMultivariateNormal(nt.zeros(2, 3, dtype=nw.dtype), nw, nd_)
    tot_t, tot_n = 0, 0
    for attr in ("scale_tril", "covariance_matrix", "precision_matrix", "variance"):
        check(getattr(nd, attr), getattr(td, attr), fdtype, rtol=1e-4 if fdtype == np.float32 else 1e-9)
        tot_t, tot_n = tot_t + getattr(td, attr).sum(), tot_n + getattr(nd, attr).sum()
    tot_t.backward()
    tot_n.backward()
    check(nw.grad, tw.grad, fdtype, rtol=1e-3 if fdtype == np.float32 else 1e-8)
    check(nd_.grad, td_.grad, fdtype, rtol=1e-3 if fdtype == np.float32 else 1e-8)
    if fdtype == np.float64:
        v = nt.tensor(R.randn(4, 3))
        assert nt.autograd.gradcheck(
            lambda w, d: ND.LowRankMultivariateNormal(nt.zeros(3, dtype=nt.float64), w, d).log_prob(v),
            (nt.tensor(W, requires_grad=True), nt.tensor(D, requires_grad=True)))


def test_gradcheck_log_probs():
    gc = nt.autograd.gradcheck
    f64 = nt.float64
    df, loc, scale = (nt.tensor(v, dtype=f64, requires_grad=True) for v in ([0.8, 3.0], [0.2, -1.0], [1.5, 0.4]))
    v = nt.tensor(R.randn(3, 2))
    assert gc(lambda a, b, c: ND.StudentT(a, b, c).log_prob(v) + ND.StudentT(a, b, c).entropy(), (df, loc, scale))
    c1, c0 = nt.tensor([0.8, 2.0], dtype=f64, requires_grad=True), nt.tensor([1.5, 3.0], dtype=f64, requires_grad=True)
    u = nt.tensor(R.rand(3, 2) * 0.8 + 0.1)
    assert gc(lambda a, b: ND.Kumaraswamy(a, b).log_prob(u) + ND.Kumaraswamy(a, b).entropy(), (c1, c0))
    assert gc(lambda a, b: ND.Weibull(a, b).log_prob(u + 1), (c1, c0))
    logits = nt.tensor(R.randn(2, 3), requires_grad=True)
    temp = nt.tensor(0.6, dtype=f64, requires_grad=True)
    s = nt.tensor(np.stack([SIMPLEX3, SIMPLEX3[::-1]]))
    assert gc(lambda lg, t: ND.RelaxedOneHotCategorical(t, logits=lg).log_prob(s), (logits, temp))
    p = nt.tensor([0.3, 0.6], dtype=f64, requires_grad=True)
    assert gc(lambda q: ND.Binomial(7, q).log_prob(nt.tensor([2.0, 5.0], dtype=f64)) + ND.Geometric(q).entropy(), (p,))


def test_validation_errors_match_torch():
    cases = [
        lambda D, T: D.Exponential(T([-1.0, 2.0])),
        lambda D, T: D.Laplace(T([0.0]), T([0.0])),
        lambda D, T: D.Geometric(probs=T([0.0, 0.5])),
        lambda D, T: D.Geometric(probs=T([0.5]), logits=T([0.1])),
        lambda D, T: D.Binomial(5),
        lambda D, T: D.Binomial(T([-1.0]), probs=T([0.5])),
        lambda D, T: D.Multinomial(2.5, probs=T([0.5, 0.5])),
        lambda D, T: D.Poisson(T([-0.5])),
        lambda D, T: D.StudentT(T([0.0])),
        lambda D, T: D.Pareto(T([1.0]), T([-1.0])),
        lambda D, T: D.MixtureSameFamily(D.Normal(T([0.0]), T([1.0])), D.Normal(T([0.0]), T([1.0]))),
        lambda D, T: D.MixtureSameFamily(D.Categorical(logits=T([0.0, 1.0])), 3),
        lambda D, T: D.MixtureSameFamily(D.Categorical(logits=T([0.0, 1.0])), D.Normal(T([0.0] * 3), T([1.0] * 3))),
        lambda D, T: D.LowRankMultivariateNormal(T([0.0, 1.0]), T([[1.0], [2.0], [3.0]]), T([1.0, 1.0])),
        lambda D, T: D.LowRankMultivariateNormal(T([0.0, 1.0]), T([[1.0], [2.0]]), T([1.0, 1.0, 1.0])),
        lambda D, T: D.LowRankMultivariateNormal(T(0.0), T([[1.0], [2.0]]), T([1.0, 1.0])),
        lambda D, T: D.Exponential(T([1.0])).log_prob(T([-1.0])),
        lambda D, T: D.Binomial(T([3.0]), T([0.5])).log_prob(T([4.0])),
        lambda D, T: D.Pareto(T([2.0]), T([1.0])).log_prob(T([1.0])),
        lambda D, T: D.LogNormal(T([0.0]), T([1.0])).log_prob(T([-1.0])),
        lambda D, T: D.RelaxedOneHotCategorical(T(0.5), probs=T([0.3, 0.7]), logits=T([0.3, 0.3])),
        lambda D, T: D.RelaxedBernoulli(T(0.5), probs=T([1.3])),
        lambda D, T: D.Kumaraswamy(T([1.0]), T([-1.0])),
        lambda D, T: D.Weibull(T([1.0]), T([0.0])),
        lambda D, T: D.NegativeBinomial(T([2.0]), probs=T([1.0])),
        lambda D, T: D.NegativeBinomial(T([-1.0]), logits=T([0.0])),
        lambda D, T: D.NegativeBinomial(T([2.0]), probs=T([0.5]), logits=T([0.0])),
        lambda D, T: D.NegativeBinomial(T([2.0]), probs=T([0.5])).log_prob(T([1.5])),
        lambda D, T: D.VonMises(T([0.0]), T([0.0])),
        lambda D, T: D.InverseGamma(T([1.0]), T([-1.0])),
        lambda D, T: D.InverseGamma(T([1.0]), T([1.0])).log_prob(T([-1.0])),
        lambda D, T: D.ContinuousBernoulli(probs=T([1.5]), validate_args=True),
        lambda D, T: D.ContinuousBernoulli(probs=T([0.5])).log_prob(T([1.5])),
        lambda D, T: D.ContinuousBernoulli(logits=T([float("nan")])),
    ]
    for make in cases:
        with pytest.raises(Exception) as et:
            make(RD, ref.tensor)
        with pytest.raises(type(et.value)) as en:
            make(ND, nt.tensor)
        assert str(en.value) == str(et.value)


def test_repr_and_misc():
    for D, T in ((RD, ref.tensor), (ND, nt.tensor)):
        d = D.Gumbel(T([0.0, 1.0]), T([1.0, 2.0]))
        assert repr(d) == "Gumbel(loc: torch.Size([2]), scale: torch.Size([2]))"
        assert repr(D.Exponential(2.0)) == "Exponential(rate: 2.0)"
        assert D.Chi2(T([3.0])).df.item() == 3.0
        assert D.Poisson(2.0).batch_shape == ()
        assert D.Multinomial(3, T([0.2, 0.8])).support.upper_bound == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # scalar parameters: no warnings on construction
        ND.Laplace(0.0, 1.0)
        ND.Cauchy(0.0, 1.0)
        ND.Gumbel(0.0, 1.0)
    nt.manual_seed(4)
    ref.manual_seed(4)
    check(ND.Gumbel(0.0, 1.0).sample((5,)), RD.Gumbel(0.0, 1.0).sample((5,)), np.float32)
    check(ND.StudentT(3.0).rsample((4,)), RD.StudentT(3.0).rsample((4,)), np.float32)
    check(ND.Laplace(0.0, 2.0).rsample((4,)), RD.Laplace(0.0, 2.0).rsample((4,)), np.float32)
    hn = ND.HalfNormal(nt.tensor([1.0]), validate_args=False)
    assert _arr(hn.log_prob(nt.tensor([-1.0])))[0] == -math.inf
