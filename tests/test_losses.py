"""nn.functional losses vs PyTorch: values, gradients, reductions, weights, stability, errors and warnings."""
import warnings

import numpy as np
import pytest
import torch as ref
import torch.nn.functional as RF

import numtorch as nt
import numtorch.nn.functional as F
from numtorch.autograd import gradcheck

from conftest import assert_close

RNG = np.random.default_rng(99)
REDUCTIONS = ["mean", "sum", "none"]


def _tol(dtype):
    # reductions over a few dozen float32 terms: allow a few ulps of accumulated rounding
    return dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-12)


def check(fn_nt, fn_ref, arrays, dtype, grad=(0,), consts=()):
    """Compare values and gradients of ``grad`` inputs; arrays in ``consts`` keep their dtype (targets)."""
    arrays = [a.astype(dtype) if a.dtype.kind == "f" and i not in consts else a for i, a in enumerate(arrays)]
    xs = [nt.tensor(a.copy(), requires_grad=i in grad) for i, a in enumerate(arrays)]
    rs = [ref.tensor(a.copy(), requires_grad=i in grad) for i, a in enumerate(arrays)]
    out, expect = fn_nt(*xs), fn_ref(*rs)
    assert_close(out, expect, **_tol(dtype))
    go = RNG.standard_normal(expect.shape).astype(dtype)
    out.backward(nt.tensor(go))
    expect.backward(ref.tensor(go))
    for i in grad:
        assert_close(xs[i].grad, rs[i].grad, **_tol(dtype))
    return out


def randn(*shape):
    return RNG.standard_normal(shape)


# ------------------------------------------------------------------------------------------------
# cross entropy and nll
# ------------------------------------------------------------------------------------------------
CE_CASES = [
    dict(), dict(reduction="sum"), dict(reduction="none"), dict(label_smoothing=0.2), dict(ignore_index=1),
    dict(weight=True), dict(weight=True, reduction="sum"), dict(weight=True, ignore_index=2, label_smoothing=0.3),
    dict(weight=True, reduction="none", label_smoothing=0.1, ignore_index=0),
]


def _kw(case, lib, c, dtype):
    kw = dict(case)
    if kw.get("weight"):
        kw["weight"] = lib.tensor((np.arange(c) % 3 + 0.5).astype(dtype))
    return kw


@pytest.mark.parametrize("case", CE_CASES, ids=[str(c) for c in CE_CASES])
@pytest.mark.parametrize("shape", [(6, 5), (3, 4, 2, 3)])
def test_cross_entropy_class_indices(case, shape, fdtype):
    c = shape[1]
    target = RNG.integers(0, c, (shape[0],) + shape[2:])
    kn, kr = _kw(case, nt, c, fdtype), _kw(case, ref, c, fdtype)
    out = check(lambda x: F.cross_entropy(x, nt.tensor(target), **kn),
                lambda x: RF.cross_entropy(x, ref.tensor(target), **kr), [randn(*shape) * 3], fdtype)
    assert out.dtype == (nt.float32 if fdtype == np.float32 else nt.float64)


@pytest.mark.parametrize("case", CE_CASES, ids=[str(c) for c in CE_CASES])
@pytest.mark.parametrize("shape", [(6, 5), (3, 4, 2, 3)])
def test_nll_loss(case, shape, fdtype):
    c = shape[1]
    case = {k: v for k, v in case.items() if k != "label_smoothing"}
    target = RNG.integers(0, c, (shape[0],) + shape[2:])
    kn, kr = _kw(case, nt, c, fdtype), _kw(case, ref, c, fdtype)
    logp = RF.log_softmax(ref.tensor(randn(*shape)), 1).numpy()
    check(lambda x: F.nll_loss(x, nt.tensor(target), **kn), lambda x: RF.nll_loss(x, ref.tensor(target), **kr),
          [logp], fdtype)


def test_cross_entropy_unbatched_and_uint8_targets(fdtype):
    check(lambda x: F.cross_entropy(x, nt.tensor(3)), lambda x: RF.cross_entropy(x, ref.tensor(3)), [randn(5)], fdtype)
    check(lambda x: F.nll_loss(x, nt.tensor(1)), lambda x: RF.nll_loss(x, ref.tensor(1)), [randn(5)], fdtype)
    t = np.array([0, 1, 4], np.uint8)
    check(lambda x: F.cross_entropy(x, nt.tensor(t)), lambda x: RF.cross_entropy(x, ref.tensor(t)), [randn(3, 5)],
          fdtype)


@pytest.mark.parametrize("kw", [dict(), dict(label_smoothing=0.25), dict(reduction="sum"), dict(reduction="none"),
                                dict(weight=True), dict(weight=True, label_smoothing=0.1, reduction="none")])
def test_cross_entropy_class_probabilities(kw, fdtype):
    kn, kr = _kw(kw, nt, 5, fdtype), _kw(kw, ref, 5, fdtype)
    probs = RF.softmax(ref.tensor(randn(4, 5)), 1).numpy()
    check(lambda x, y: F.cross_entropy(x, y, **kn), lambda x, y: RF.cross_entropy(x, y, **kr),
          [randn(4, 5), probs], fdtype, grad=(0, 1))
    probs4 = RF.softmax(ref.tensor(randn(2, 5, 3)), 1).numpy()
    check(lambda x, y: F.cross_entropy(x, y, **kn), lambda x, y: RF.cross_entropy(x, y, **kr),
          [randn(2, 5, 3), probs4], fdtype, grad=(0, 1))


def test_cross_entropy_weighted_mean_divides_by_weight_sum():
    x = nt.tensor(np.zeros((3, 2)))
    t = nt.tensor([0, 1, 1])
    w = nt.tensor([1.0, 3.0], dtype=nt.float64)  # the input's dtype: PyTorch refuses another one
    # each row has loss log(2) * w_t; the weighted mean is sum(w_t log 2) / sum(w_t) = log 2
    assert abs(F.cross_entropy(x, t, weight=w).item() - np.log(2)) < 1e-12
    assert abs(F.cross_entropy(x, t, weight=w, reduction="sum").item() - 7 * np.log(2)) < 1e-12


def test_cross_entropy_all_ignored_is_nan_like_torch():
    x = randn(3, 5).astype(np.float32)
    t = np.array([-100, -100, -100])
    out = F.cross_entropy(nt.tensor(x), nt.tensor(t))
    assert np.isnan(out.item()) and np.isnan(RF.cross_entropy(ref.tensor(x), ref.tensor(t)).item())
    assert F.cross_entropy(nt.tensor(x), nt.tensor(t), reduction="sum").item() == 0.0


def test_cross_entropy_large_logits_stable(fdtype):
    x = np.array([[1000.0, -1000.0, 0.0], [-1e4, 1e4, 5e3], [80.0, 80.0, 80.0]])
    t = np.array([1, 1, 2])
    out = check(lambda a: F.cross_entropy(a, nt.tensor(t)), lambda a: RF.cross_entropy(a, ref.tensor(t)), [x], fdtype)
    assert np.isfinite(out.item())


@pytest.mark.parametrize("case", [dict(), dict(weight=True, ignore_index=1, label_smoothing=0.2),
                                  dict(reduction="none", label_smoothing=0.4)])
def test_cross_entropy_gradcheck(case):
    x = nt.tensor(randn(4, 3), requires_grad=True)
    t = nt.tensor([0, 1, 2, 1])
    kn = _kw(case, nt, 3, np.float64)
    assert gradcheck(lambda a: F.cross_entropy(a, t, **kn), (x,))
    x4 = nt.tensor(randn(2, 3, 2), requires_grad=True)
    t4 = nt.tensor([[0, 2], [1, 1]])
    assert gradcheck(lambda a: F.cross_entropy(a, t4, **kn), (x4,))
    assert gradcheck(lambda a: F.nll_loss(a, t, weight=kn.get("weight")), (x,))
    y = nt.tensor(RF.softmax(ref.tensor(randn(4, 3)), 1).numpy(), requires_grad=True)
    assert gradcheck(lambda a, b: F.cross_entropy(a, b, label_smoothing=0.1), (x, y))


def test_cross_entropy_errors():
    x = nt.randn(3, 5)
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        F.cross_entropy(x, nt.tensor([0, 5, 1]))
    with pytest.raises(IndexError, match="Target -2 is out of bounds."):
        F.cross_entropy(x, nt.tensor([0, -2, 1]))
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        F.nll_loss(x, nt.tensor([0, 7, 1]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target batch_size \(2\)."):
        F.cross_entropy(x, nt.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Float"):
        F.cross_entropy(x, nt.tensor([0.0, 1.0, 1.0]))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Int"):
        F.cross_entropy(x, nt.tensor(np.array([0, 1, 1], np.int32)))
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.cross_entropy(x, nt.tensor([0, 1, 1]), reduction="foo")
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 5 classes or no classes"):
        F.cross_entropy(x, nt.tensor([0, 1, 1]), weight=nt.ones(4))
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        F.cross_entropy(x, nt.tensor([0, 1, 1]), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match=r"Expected target size \[2, 4\], got \[2, 5\]"):
        F.cross_entropy(nt.randn(2, 3, 4), nt.zeros(2, 5, dtype=nt.int64))
    with pytest.raises(RuntimeError, match="only batches of spatial targets supported"):
        F.nll_loss(nt.randn(2, 3, 4, 5), nt.zeros(2, 4, dtype=nt.int64))


def test_legacy_size_average_reduce():
    x, t = randn(4, 3), np.array([0, 2, 1, 1])
    for sa, rd, red in ((False, None, "sum"), (None, False, "none"), (True, True, "mean")):
        with pytest.warns(UserWarning, match=f"please use reduction='{red}' instead"):
            out = F.cross_entropy(nt.tensor(x), nt.tensor(t), size_average=sa, reduce=rd)
        assert_close(out, RF.cross_entropy(ref.tensor(x), ref.tensor(t), reduction=red))
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        F.mse_loss(nt.tensor(x), nt.tensor(x), size_average=False)


# ------------------------------------------------------------------------------------------------
# binary cross entropy
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy(reduction, weighted, fdtype):
    p = RNG.random((4, 3)) * 0.98 + 0.01
    y = RNG.random((4, 3))
    w = RNG.random(3)
    kn = dict(weight=nt.tensor(w.astype(fdtype))) if weighted else {}
    kr = dict(weight=ref.tensor(w.astype(fdtype))) if weighted else {}
    check(lambda a, b: F.binary_cross_entropy(a, b, reduction=reduction, **kn),
          lambda a, b: RF.binary_cross_entropy(a, b, reduction=reduction, **kr), [p, y], fdtype, grad=(0, 1))


def test_binary_cross_entropy_clamps_log_at_minus_100():
    p = np.array([0.0, 1.0, 0.5, 1e-50])
    y = np.array([1.0, 0.0, 1.0, 1.0])
    out = F.binary_cross_entropy(nt.tensor(p), nt.tensor(y), reduction="none")
    assert_close(out, RF.binary_cross_entropy(ref.tensor(p), ref.tensor(y), reduction="none"))
    assert out.numpy()[0] == 100.0 and np.isfinite(out.numpy()).all()


def test_binary_cross_entropy_errors():
    with pytest.raises(ValueError, match=r"Using a target size \(torch.Size\(\[3\]\)\) that is different to the "
                                         r"input size \(torch.Size\(\[3, 1\]\)\) is deprecated"):
        F.binary_cross_entropy(nt.rand(3, 1), nt.rand(3))
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(nt.rand(3) + 1, nt.rand(3))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("opts", ["plain", "weight", "pos_weight", "both"])
def test_bce_with_logits(reduction, opts, fdtype):
    x, y = randn(5, 3) * 4, RNG.random((5, 3))
    w, pw = RNG.random((5, 3)), RNG.random(3) * 3
    kn, kr = {}, {}
    if opts in ("weight", "both"):
        kn["weight"], kr["weight"] = nt.tensor(w.astype(fdtype)), ref.tensor(w.astype(fdtype))
    if opts in ("pos_weight", "both"):
        kn["pos_weight"], kr["pos_weight"] = nt.tensor(pw.astype(fdtype)), ref.tensor(pw.astype(fdtype))
    out = check(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction, **kn),
                lambda a, b: RF.binary_cross_entropy_with_logits(a, b, reduction=reduction, **kr), [x, y], fdtype,
                grad=(0, 1))
    assert out.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"


def test_bce_with_logits_stable_for_huge_logits(fdtype):
    x = np.array([1000.0, -1000.0, 1000.0, -1000.0, 0.0])
    y = np.array([1.0, 0.0, 0.0, 1.0, 0.5])
    out = check(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction="none"),
                lambda a, b: RF.binary_cross_entropy_with_logits(a, b, reduction="none"), [x, y], fdtype, grad=(0, 1))
    assert np.isfinite(out.detach().numpy()).all() and out.detach().numpy()[2] == 1000.0


def test_bce_gradcheck_and_errors():
    x = nt.tensor(randn(3, 2), requires_grad=True)
    y = nt.tensor(RNG.random((3, 2)), requires_grad=True)
    pw = nt.tensor(RNG.random(2) + 0.5)
    assert gradcheck(lambda a, b: F.binary_cross_entropy_with_logits(a, b, pos_weight=pw), (x, y))
    p = nt.tensor(RNG.random((3, 2)) * 0.8 + 0.1, requires_grad=True)
    assert gradcheck(lambda a, b: F.binary_cross_entropy(a, b), (p, y))
    with pytest.raises(ValueError, match=r"Target size \(torch.Size\(\[3\]\)\) must be the same as input size"):
        F.binary_cross_entropy_with_logits(nt.rand(3, 1), nt.rand(3))


# ------------------------------------------------------------------------------------------------
# regression losses
# ------------------------------------------------------------------------------------------------
REGRESSION = [("mse_loss", {}), ("l1_loss", {}), ("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}),
              ("smooth_l1_loss", {"beta": 0.0}), ("huber_loss", {}), ("huber_loss", {"delta": 0.3})]


@pytest.mark.parametrize("name,kw", REGRESSION, ids=[f"{n}{k}" for n, k in REGRESSION])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses(name, kw, reduction, fdtype):
    x, y = randn(4, 5), randn(4, 5)
    check(lambda a, b: getattr(F, name)(a, b, reduction=reduction, **kw),
          lambda a, b: getattr(RF, name)(a, b, reduction=reduction, **kw), [x, y], fdtype, grad=(0, 1))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
def test_regression_losses_with_weight(name, fdtype):
    x, y, w = randn(4, 5), randn(4, 5), RNG.random((4, 5))
    for reduction in REDUCTIONS:
        check(lambda a, b: getattr(F, name)(a, b, reduction=reduction, weight=nt.tensor(w.astype(fdtype))),
              lambda a, b: getattr(RF, name)(a, b, reduction=reduction, weight=ref.tensor(w.astype(fdtype))),
              [x, y], fdtype, grad=(0, 1))
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        getattr(F, name)(nt.randn(3), nt.randn(3), weight=nt.ones(2))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_regression_broadcast_warning(name):
    x, y = randn(3, 1), randn(3)
    msg = (r"Using a target size \(torch.Size\(\[3\]\)\) that is different to the input size "
           r"\(torch.Size\(\[3, 1\]\)\). This will likely lead to incorrect results due to broadcasting. "
           r"Please ensure they have the same size.")
    with pytest.warns(UserWarning, match=msg):
        out = getattr(F, name)(nt.tensor(x), nt.tensor(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(out, getattr(RF, name)(ref.tensor(x), ref.tensor(y)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(F, name)(nt.tensor(y), nt.tensor(y))


@pytest.mark.parametrize("name,kw", REGRESSION[:6], ids=[f"{n}{k}" for n, k in REGRESSION[:6]])
def test_regression_gradcheck(name, kw):
    x = nt.tensor(randn(3, 4), requires_grad=True)
    y = nt.tensor(randn(3, 4) + 0.5, requires_grad=True)
    assert gradcheck(lambda a, b: getattr(F, name)(a, b, **kw), (x, y))


def test_regression_errors():
    with pytest.raises(RuntimeError, match="smooth_l1_loss does not support negative values for beta."):
        F.smooth_l1_loss(nt.randn(3), nt.randn(3), beta=-1)
    with pytest.raises(RuntimeError, match="huber_loss does not support non-positive values for delta."):
        F.huber_loss(nt.randn(3), nt.randn(3), delta=0)
    with pytest.raises(ValueError, match="bar is not a valid value for reduction"):
        F.l1_loss(nt.randn(3), nt.randn(3), reduction="bar")


def test_mse_mixed_dtypes_promote():
    x, y = randn(3), randn(3).astype(np.float32)
    assert_close(F.mse_loss(nt.tensor(x), nt.tensor(y)), RF.mse_loss(ref.tensor(x), ref.tensor(y)))


# ------------------------------------------------------------------------------------------------
# kl_div and the optional losses
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["batchmean", "sum", "none", "mean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target, fdtype):
    x = RF.log_softmax(ref.tensor(randn(4, 5)), 1).numpy()
    y = RF.softmax(ref.tensor(randn(4, 5)), 1).numpy()
    if log_target:
        y = np.log(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda a, b: F.kl_div(a, b, reduction=reduction, log_target=log_target),
              lambda a, b: RF.kl_div(a, b, reduction=reduction, log_target=log_target), [x, y], fdtype, grad=(0, 1))


def test_kl_div_zero_target_and_warning():
    x, y = np.log(np.full((2, 3), 1 / 3)), np.array([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])
    check(lambda a, b: F.kl_div(a, b, reduction="sum"), lambda a, b: RF.kl_div(a, b, reduction="sum"), [x, y],
          np.float64)
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both the batch size"):
        F.kl_div(nt.tensor(x), nt.tensor(y))
    t, tgt = nt.tensor(randn(3, 4), requires_grad=True), nt.tensor(RNG.random((3, 4)))
    assert gradcheck(lambda a: F.kl_div(a, tgt, reduction="batchmean"), (t,))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_optional_losses(reduction, fdtype):
    a, b, c = randn(4, 5), randn(4, 5), randn(4, 5)
    y = np.array([1.0, -1.0, 1.0, -1.0])
    check(lambda p, q: F.cosine_embedding_loss(p, q, nt.tensor(y.astype(fdtype)), 0.2, reduction=reduction),
          lambda p, q: RF.cosine_embedding_loss(p, q, ref.tensor(y.astype(fdtype)), 0.2, reduction=reduction),
          [a, b], fdtype, grad=(0, 1))
    check(lambda p, q, s: F.margin_ranking_loss(p, q, s, 0.3, reduction=reduction),
          lambda p, q, s: RF.margin_ranking_loss(p, q, s, 0.3, reduction=reduction),
          [a[0], b[0], np.sign(c[0])], fdtype, grad=(0, 1))
    check(lambda p: F.soft_margin_loss(p, nt.tensor(np.sign(c).astype(fdtype)), reduction=reduction),
          lambda p: RF.soft_margin_loss(p, ref.tensor(np.sign(c).astype(fdtype)), reduction=reduction), [a], fdtype)
    check(lambda p, q: F.poisson_nll_loss(p, q, reduction=reduction),
          lambda p, q: RF.poisson_nll_loss(p, q, reduction=reduction), [a, np.abs(b) * 3], fdtype, grad=(0, 1))
    check(lambda p, q: F.poisson_nll_loss(p, q, log_input=False, full=True, reduction=reduction),
          lambda p, q: RF.poisson_nll_loss(p, q, log_input=False, full=True, reduction=reduction),
          [np.abs(a) + 0.1, np.abs(b) * 3], fdtype, grad=(0,))
    check(lambda p, q, v: F.gaussian_nll_loss(p, q, v, full=True, reduction=reduction),
          lambda p, q, v: RF.gaussian_nll_loss(p, q, v, full=True, reduction=reduction),
          [a, b, RNG.random((4, 1)) + 0.1], fdtype, grad=(0, 1, 2))
    check(lambda p, q, r: F.triplet_margin_loss(p, q, r, reduction=reduction),
          lambda p, q, r: RF.triplet_margin_loss(p, q, r, reduction=reduction), [a, b, c], fdtype, grad=(0, 1, 2))
    check(lambda p, q, r: F.triplet_margin_loss(p, q, r, margin=2.0, p=1, swap=True, reduction=reduction),
          lambda p, q, r: RF.triplet_margin_loss(p, q, r, margin=2.0, p=1, swap=True, reduction=reduction),
          [a, b, c], fdtype, grad=(0, 1, 2))


def test_optional_losses_gradcheck_and_errors():
    a, b = nt.tensor(randn(3, 4), requires_grad=True), nt.tensor(randn(3, 4), requires_grad=True)
    sign = nt.tensor(np.sign(randn(3, 4)))
    assert gradcheck(lambda p: F.soft_margin_loss(p, sign), (a,))
    assert gradcheck(lambda p, q: F.poisson_nll_loss(p, q), (a, b))
    var = nt.tensor(RNG.random((3, 4)) + 0.5)
    assert gradcheck(lambda p, q: F.gaussian_nll_loss(p, q, var), (a, b))
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(nt.randn(3, 4), nt.randn(3, 4), nt.rand(3, 2))
    with pytest.raises(ValueError, match="var has negative entry/entries"):
        F.gaussian_nll_loss(nt.randn(3, 4), nt.randn(3, 4), -nt.rand(3, 4) - 0.1)
