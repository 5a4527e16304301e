"""numtorch.distributions GeneralizedPareto, Wishart and LKJCholesky against torch.distributions: values,
shapes, dtypes, gradients, seeded samples, expand and validation errors."""
import numpy as np
import pytest
import torch as ref
import torch.distributions as RD

import numtorch as nt
import numtorch.distributions as ND

R = np.random.RandomState(1)


def _arr(x):
    return x.detach().numpy() if isinstance(x, ref.Tensor) else np.asarray(x.detach()._data)


def check(a, b, rtol=1e-9, exact=False):
    """numtorch ``a`` equals torch ``b`` in shape, dtype and value (nan where torch has nan)."""
    an, bn = _arr(a), _arr(b)
    assert an.shape == bn.shape and an.dtype == bn.dtype, (an.shape, bn.shape, an.dtype, bn.dtype)
    if exact:
        np.testing.assert_array_equal(an, bn)
    else:
        np.testing.assert_allclose(an, bn, rtol=rtol, atol=rtol)


def _tol(dt):
    return 5e-5 if dt == np.float32 else 1e-9


def _params(dt, grad=True, **params):
    tp = {k: ref.tensor(np.asarray(v, dt), requires_grad=grad) for k, v in params.items()}
    npar = {k: nt.tensor(np.asarray(v, dt), requires_grad=grad) for k, v in params.items()}
    return tp, npar


def _grads_equal(tp, npar, rtol):
    for k in tp:
        if tp[k].grad is None:
            assert npar[k].grad is None, k
        else:
            check(npar[k].grad, tp[k].grad, rtol=rtol)
            tp[k].grad, npar[k].grad = None, None


# ---- GeneralizedPareto -------------------------------------------------------------------------------
GPD = dict(loc=[0.0, 1.0, -0.5, 2.0], scale=[1.0, 2.0, 0.5, 1.5], concentration=[-0.3, 0.0, 0.4, 1.2])
GPD_VALUES = np.array([[0.2, 1.5, -0.4, 2.5], [3.0, 4.0, 1.0, 7.0]])


def _gpd(dt):
    tp, npar = _params(dt, **GPD)
    return RD.GeneralizedPareto(**tp), ND.GeneralizedPareto(**npar), tp, npar


@pytest.mark.quick
def test_gpd_moments_support_and_seeded_rsample(fdtype):
    td, nd, tp, npar = _gpd(fdtype)
    assert nd.batch_shape == td.batch_shape and nd.event_shape == td.event_shape and nd.has_rsample
    for attr in ("mean", "variance", "stddev", "mode"):
        check(getattr(nd, attr), getattr(td, attr), rtol=_tol(fdtype))
    check(nd.entropy(), td.entropy(), rtol=_tol(fdtype))
    check(nd.support.upper_bound, td.support.upper_bound, rtol=_tol(fdtype))
    assert type(nd.support).__name__ == type(td.support).__name__
    ref.manual_seed(5)
    nt.manual_seed(5)
    ts, ns = td.rsample((3,)), nd.rsample((3,))
    check(ns, ts, rtol=_tol(fdtype))
    w = R.rand(*ts.shape)
    (ts * ref.tensor(w, dtype=ts.dtype)).sum().backward()
    (ns * nt.tensor(w.astype(fdtype))).sum().backward()
    _grads_equal(tp, npar, rtol=2e-4 if fdtype == np.float32 else 1e-8)
    check(nd.sample((2,)), td.sample((2,)), rtol=_tol(fdtype))
    check(nt.rand(3, dtype=nt.float64), ref.rand(3, dtype=ref.float64), exact=True)
    q = np.array([[0.1, 0.5, 0.9, 0.3], [0.25, 0.75, 0.01, 0.99]], fdtype)
    check(nd.icdf(nt.tensor(q)), td.icdf(ref.tensor(q)), rtol=_tol(fdtype))


def test_gpd_log_prob_cdf_and_gradients():
    td, nd, tp, npar = _gpd(np.float32)
    tv, nv = ref.tensor(GPD_VALUES, dtype=ref.float32), nt.tensor(GPD_VALUES.astype(np.float32))
    for method in ("log_prob", "cdf", "log_cdf", "log_survival_function"):
        tout, nout = getattr(td, method)(tv), getattr(nd, method)(nv)
        check(nout, tout, rtol=5e-5)
        tout.sum().backward()
        nout.sum().backward()
        _grads_equal(tp, npar, rtol=5e-4)
    te, ne = td.expand((3, 4)), nd.expand((3, 4))
    assert ne.batch_shape == te.batch_shape and ne._validate_args == nd._validate_args
    check(ne.log_prob(nv[:1]), te.log_prob(tv[:1]), rtol=5e-5)


def test_gpd_float64_and_validation_errors_match_torch():
    # PyTorch 2.13 compares the concentration with a float32 zero: float64 log_prob/cdf raise RuntimeError
    td, nd, _, _ = _gpd(np.float64)
    for method in ("log_prob", "cdf", "log_survival_function"):
        with pytest.raises(RuntimeError) as et:
            getattr(td, method)(ref.tensor(GPD_VALUES))
        with pytest.raises(RuntimeError) as en:
            getattr(nd, method)(nt.tensor(GPD_VALUES))
        assert str(en.value) == str(et.value)
    cases = [lambda D, T: D.GeneralizedPareto(T([0.0]), T([0.0]), T([0.1])),
             lambda D, T: D.GeneralizedPareto(T([0.0]), T([1.0]), T([-0.5])).log_prob(T([3.0])),
             lambda D, T: D.GeneralizedPareto(T([0.0]), T([1.0]), T([0.5])).log_prob(T([-1.0]))]
    for make in cases:
        with pytest.raises(ValueError) as et:
            make(RD, ref.tensor)
        with pytest.raises(ValueError) as en:
            make(ND, nt.tensor)
        assert str(en.value) == str(et.value)
    assert ND.GeneralizedPareto(0.0, 1.0, 0.2).batch_shape == RD.GeneralizedPareto(0.0, 1.0, 0.2).batch_shape


# ---- Wishart -------------------------------------------------------------------------------------------
COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.5]])
COV_B = np.stack([COV, np.array([[1.0, -0.2, 0.0], [-0.2, 0.8, 0.3], [0.0, 0.3, 2.0]])])


def _wishart(dt, form, df, cov):
    mat = {"covariance_matrix": cov, "precision_matrix": np.linalg.inv(cov),
           "scale_tril": np.linalg.cholesky(cov)}[form]
    tp, npar = _params(dt, df=df, mat=mat)
    tdf, ndf = (tp["df"], npar["df"]) if np.ndim(df) else (float(df), float(df))
    with pytest.warns(UserWarning) if np.any(np.asarray(df) < cov.shape[-1]) else _no_warning():
        td = RD.Wishart(tdf, **{form: tp["mat"]})
    with pytest.warns(UserWarning) if np.any(np.asarray(df) < cov.shape[-1]) else _no_warning():
        nd = ND.Wishart(ndf, **{form: npar["mat"]})
    return td, nd, tp, npar


class _no_warning:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


WISHART_CASES = [("covariance_matrix", 4.5, COV), ("precision_matrix", [3.5, 6.0], COV),
                 ("scale_tril", [[3.0, 5.0], [4.0, 9.0]], COV_B), ("covariance_matrix", [3.0, 7.0], COV_B)]


@pytest.mark.parametrize("form,df,cov", WISHART_CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_wishart_against_torch(fdtype, form, df, cov):
    td, nd, tp, npar = _wishart(fdtype, form, df, cov)
    assert nd.batch_shape == td.batch_shape and nd.event_shape == td.event_shape and nd.has_rsample
    tol = 2e-4 if fdtype == np.float32 else 1e-9
    for attr in ("mean", "mode", "variance", "covariance_matrix", "precision_matrix", "scale_tril"):
        check(getattr(nd, attr), getattr(td, attr), rtol=tol)
    check(nd.entropy(), td.entropy(), rtol=tol)
    ref.manual_seed(11)
    nt.manual_seed(11)
    with pytest.warns(UserWarning, match="Singular sample detected"):
        ts = td.rsample((2,))
    with pytest.warns(UserWarning, match="Singular sample detected"):
        ns = nd.rsample((2,))
    check(ns, ts, rtol=tol)
    check(nt.rand(3, dtype=nt.float64), ref.rand(3, dtype=ref.float64), exact=True)
    if np.all(np.asarray(df) >= cov.shape[-1]):  # singular samples (df < p) have an ill-defined log_prob
        tl, nl = td.log_prob(ts.detach()), nd.log_prob(ns.detach())
        check(nl, tl, rtol=tol * 10)
        (tl.sum() + td.entropy().sum()).backward()
        (nl.sum() + nd.entropy().sum()).backward()
        _grads_equal(tp, npar, rtol=tol * 10)
    # PyTorch 2.13's correction loop updates its mask in place after indexing with it: backward raises
    w = R.rand(*ts.shape)
    with pytest.raises(RuntimeError) as et:
        (ts * ref.tensor(w, dtype=ts.dtype)).sum().backward()
    with pytest.raises(RuntimeError) as en:
        (ns * nt.tensor(w.astype(fdtype))).sum().backward()
    assert "modified by an inplace operation" in str(et.value) and "modified by an inplace operation" in str(en.value)
    new = (2,) + tuple(td.batch_shape)
    te, ne = td.expand(new), nd.expand(new)
    assert ne.batch_shape == te.batch_shape and ne._validate_args == nd._validate_args
    with pytest.warns(UserWarning):
        ref.manual_seed(2)
        nt.manual_seed(2)
        check(ne.sample(), te.sample(), rtol=tol)
    check(ne.mean, te.mean, rtol=tol)


def test_wishart_errors_match_torch():
    cases = [lambda D, T: D.Wishart(T(4.0)),
             lambda D, T: D.Wishart(T(4.0), covariance_matrix=T(COV), scale_tril=T(np.linalg.cholesky(COV))),
             lambda D, T: D.Wishart(T(4.0), covariance_matrix=T([1.0, 2.0])),
             lambda D, T: D.Wishart(T(1.5), covariance_matrix=T(COV)),
             lambda D, T: D.Wishart(T([4.0, 5.0, 6.0]), covariance_matrix=T(COV_B)),
             lambda D, T: D.Wishart(T(4.0), covariance_matrix=T(-COV)),
             lambda D, T: D.Wishart(T(4.0), scale_tril=T(COV)),
             lambda D, T: D.Wishart(T(4.0), covariance_matrix=T(COV)).log_prob(T(-COV))]
    with pytest.warns(UserWarning, match="Low df values detected"):
        RD.Wishart(2.5, covariance_matrix=ref.tensor(COV))
    with pytest.warns(UserWarning, match="Low df values detected"):
        ND.Wishart(2.5, covariance_matrix=nt.tensor(COV))
    for make in cases:
        with pytest.raises(Exception) as et:
            make(RD, lambda v: ref.tensor(np.asarray(v)))
        with pytest.raises(type(et.value)) as en:
            make(ND, lambda v: nt.tensor(np.asarray(v)))
        if type(et.value) is not RuntimeError:  # the broadcast message names shapes differently
            assert str(en.value) == str(et.value)


# ---- LKJCholesky ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("dim,conc", [(2, 0.5), (3, [0.5, 1.0, 4.0]), (4, [[1.5], [0.8]])], ids=str)
def test_lkj_cholesky_against_torch(fdtype, dim, conc):
    tp, npar = _params(fdtype, concentration=conc)
    td, nd = RD.LKJCholesky(dim, tp["concentration"]), ND.LKJCholesky(dim, npar["concentration"])
    assert nd.batch_shape == td.batch_shape and nd.event_shape == td.event_shape
    assert not nd.has_rsample and repr(nd.support) == repr(td.support)
    ref.manual_seed(4)
    nt.manual_seed(4)
    ts, ns = td.sample((2,)), nd.sample((2,))
    tol = 5e-5 if fdtype == np.float32 else 1e-9
    check(ns, ts, rtol=tol)
    assert not ns.requires_grad
    check(nt.rand(3, dtype=nt.float64), ref.rand(3, dtype=ref.float64), exact=True)
    tl, nl = td.log_prob(ts), nd.log_prob(nt.tensor(_arr(ts)))
    check(nl, tl, rtol=tol)
    tl.sum().backward()
    nl.sum().backward()
    _grads_equal(tp, npar, rtol=tol * 10)
    new = (2,) + tuple(td.batch_shape)
    te, ne = td.expand(new), nd.expand(new)
    assert ne.batch_shape == te.batch_shape and ne._validate_args == nd._validate_args
    ref.manual_seed(9)
    nt.manual_seed(9)
    check(ne.sample(), te.sample(), rtol=tol)


def test_lkj_cholesky_errors_match_torch():
    bad = np.array([[1.0, 0.0], [0.5, 0.5]])
    cases = [lambda D, T: D.LKJCholesky(1, T(1.0)),
             lambda D, T: D.LKJCholesky(3, T([1.0, -1.0])),
             lambda D, T: D.LKJCholesky(2, T(1.0), validate_args=True).log_prob(T(bad)),
             lambda D, T: D.LKJCholesky(2, T(1.0)).mean,
             lambda D, T: D.LKJCholesky(2, T(1.0)).rsample()]
    for make in cases:
        with pytest.raises(Exception) as et:
            make(RD, lambda v: ref.tensor(np.asarray(v, np.float32)))
        with pytest.raises(type(et.value)) as en:
            make(ND, lambda v: nt.tensor(np.asarray(v, np.float32)))
        assert str(en.value) == str(et.value)


def test_kl_through_generic_rules_matches_torch():
    # Wishart-Wishart uses the exponential-family rule (autograd of the log normalizer), InverseGamma the
    # transformed-distribution rule (same transforms, Gamma bases); values and gradients equal PyTorch's
    def pairs(D, T):
        return [(D.Wishart(T([4.5, 6.0]), covariance_matrix=T(COV)),
                 D.Wishart(T([5.0, 3.5]), scale_tril=T(np.linalg.cholesky(COV_B * 1.5)))),
                (D.InverseGamma(T([2.0, 3.0]), T([1.0, 2.0])), D.InverseGamma(T([1.5, 3.0]), T([2.0, 2.5])))]
    tparams, nparams = [], []

    def T_ref(v):
        tparams.append(ref.tensor(np.asarray(v), requires_grad=True))
        return tparams[-1]

    def T_nt(v):
        nparams.append(nt.tensor(np.asarray(v), requires_grad=True))
        return nparams[-1]

    for (tp, tq), (np_, nq) in zip(pairs(RD, T_ref), pairs(ND, T_nt)):
        tk, nk = RD.kl_divergence(tp, tq), ND.kl_divergence(np_, nq)
        check(nk, tk, rtol=1e-9)
        tk.sum().backward()
        nk.sum().backward()
    for a, b in zip(nparams, tparams):  # the exponential-family rule detaches p's parameters, in both
        assert (a.grad is None) == (b.grad is None)
        if b.grad is not None:
            check(a.grad, b.grad, rtol=1e-8)
    assert sum(b.grad is not None for b in tparams) == 6


@pytest.mark.quick
def test_new_distributions_repr_number_params_and_dtypes():
    def build(M):
        D, T = M.distributions, M.tensor
        return [D.NegativeBinomial(3, probs=T([0.2, 0.4])), D.NegativeBinomial(T([3.0, 1.0]), logits=0.3),
                D.VonMises(0.0, T([1.0, 2.0])), D.InverseGamma(2.0, 3.0), D.ContinuousBernoulli(0.3),
                D.ContinuousBernoulli(logits=T([0.3, 0.2])), D.FisherSnedecor(2.0, T([3.0, 4.0])),
                D.GeneralizedPareto(0.0, 1.0, 0.2), D.Wishart(3.0, covariance_matrix=T(COV[:2, :2])),
                D.LKJCholesky(3, 2.0)]
    for td, nd in zip(build(ref), build(nt)):
        assert repr(nd) == repr(td)
        assert nd.batch_shape == td.batch_shape and nd.event_shape == td.event_shape
        with pytest.warns(UserWarning) if isinstance(td, RD.Wishart) else _no_warning():
            ts = td.sample((2,))
        with pytest.warns(UserWarning) if isinstance(td, RD.Wishart) else _no_warning():
            ns = nd.sample((2,))
        assert ns.shape == ts.shape and str(ns.dtype) == str(ts.dtype)
        try:
            t_bij = repr(RD.biject_to(td.support))
        except NotImplementedError:  # integers, positive definite matrices: no bijection, in either
            with pytest.raises(NotImplementedError):
                ND.biject_to(nd.support)
        else:
            assert repr(ND.biject_to(nd.support)) == t_bij
