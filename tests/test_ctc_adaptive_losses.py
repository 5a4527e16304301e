"""F.ctc_loss/CTCLoss, AdaptiveLogSoftmaxWithLoss, TripletMarginWithDistanceLoss, linear_cross_entropy/
LinearCrossEntropyLoss and F.affine_grid against torch: values, gradients, errors."""
import warnings

import numpy as np
import pytest
import torch as ref

import numtorch as nt


def _grads(fn, arrays, weights=True):
    out = []
    for T in (nt, ref):
        ts = [T.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        y = fn(T, *ts)
        w = T.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)), dtype=y.dtype) if weights else 1
        (y * w).sum().backward()
        out.append((y.detach().numpy(), [t.grad.numpy() for t in ts if t.grad is not None]))
    return out


CTC = [
    dict(shape=(8, 3, 5), tg=[[1, 2, 2], [3, 1, 0], [4, 4, 4]], il=[8, 6, 7], tl=[3, 2, 1]),
    dict(shape=(6, 2, 4), tg=[1, 2, 3, 1], il=[6, 5], tl=[3, 1]),  # concatenated targets
    dict(shape=(5, 4), tg=[1, 2], il=[5], tl=[2]),  # unbatched
    dict(shape=(5, 2, 4), tg=[[1, 1, 1, 1], [2, 3, 0, 0]], il=[5, 5], tl=[4, 2], zero_infinity=True),
    dict(shape=(5, 2, 4), tg=[[1, 1, 1, 1], [2, 3, 0, 0]], il=[5, 5], tl=[4, 0], blank=3),
]


@pytest.mark.parametrize("case", CTC)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("lengths_as", [list, np.array])
def test_ctc_loss_matches_torch(case, reduction, lengths_as):
    x = np.random.default_rng(0).standard_normal(case["shape"])
    kw = dict(reduction=reduction, blank=case.get("blank", 0), zero_infinity=case.get("zero_infinity", False))

    def fn(T, xt):
        il = case["il"] if lengths_as is list else T.tensor(np.array(case["il"]))
        tl = case["tl"] if lengths_as is list else T.tensor(np.array(case["tl"]))
        return T.nn.functional.ctc_loss(xt.log_softmax(-1), T.tensor(case["tg"]), il, tl, **kw)
    (ya, ga), (yb, gb) = _grads(fn, [x])
    np.testing.assert_allclose(ya, yb, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ga[0], gb[0], rtol=1e-9, atol=1e-11)


def test_ctc_raw_gradient_and_module_float32():
    x = np.random.default_rng(1).standard_normal((7, 2, 6)).astype(np.float32)
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    res = []
    for T in (nt, ref):
        t = T.tensor(lp, requires_grad=True)
        loss = T.nn.CTCLoss(blank=5)(t, T.tensor([[0, 1, 2], [3, 3, 0]]), T.tensor([7, 6]), T.tensor([3, 2]))
        loss.backward()
        res.append((loss.item(), t.grad.numpy(), loss.dtype))
    assert res[0][2] == nt.float32
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-5)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), [5, 5], [2, 3]),
    lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), [5, 6], [2, 2]),
    lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), [5], [2, 2]),
    lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), [5, 5], [2]),
    lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), [5, 5], [2, -1]),
    lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([1, 2, 1, 1]), [5, 5], [2, 3]),
    lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), [5, -1], [2, 2]),  # negative input length
    lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2], blank=4),
    lambda T, lp: T.nn.functional.ctc_loss(lp, T.tensor([[1, 2], [1, 1]]), [5, 5], [2, 2], blank=-1),
    lambda T, lp: T.nn.functional.ctc_loss(lp[:, :0], T.zeros(0, 2, dtype=T.long), [], []),  # empty batch
])
def test_ctc_errors_match_torch(call):
    lp = np.log(np.full((5, 2, 4), 0.25))
    msgs = []
    for T in (nt, ref):
        with pytest.raises(RuntimeError) as e:
            call(T, T.tensor(lp))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        nt.nn.functional.ctc_loss(nt.tensor(lp), nt.tensor([[1], [1]]), [5, 5], [1, 1], reduction="bad")


@pytest.mark.parametrize("head_bias", [False, True])
def test_adaptive_log_softmax_matches_torch(head_bias):
    x = np.random.default_rng(0).standard_normal((9, 16)).astype(np.float32)
    target = np.array([0, 3, 5, 9, 14, 19, 2, 11, 18])
    res = []
    for T in (nt, ref):
        T.manual_seed(0)
        m = T.nn.AdaptiveLogSoftmaxWithLoss(16, 20, cutoffs=[4, 10, 15], div_value=2.0, head_bias=head_bias)
        xt = T.tensor(x, requires_grad=True)
        out, loss = m(xt, T.tensor(target))
        loss.backward()
        res.append([out.detach().numpy(), loss.item(), xt.grad.numpy(), m.tail[1][0].weight.grad.numpy(),
                    m.log_prob(T.tensor(x)).detach().numpy(), m.predict(T.tensor(x)).numpy(),
                    m(T.tensor(x[0]), T.tensor(target[0])).output.detach().numpy(), list(m.state_dict())])
    for a, b in zip(*res):
        if isinstance(a, list):
            assert a == b
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_adaptive_log_softmax_errors_match_torch():
    for T in (nt, ref):
        with pytest.raises(ValueError, match="cutoffs should be a sequence of length larger than 0"):
            T.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [])
        with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive integers"):
            T.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5, 3])
        m = T.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5])
        with pytest.raises(RuntimeError, match="Target values should be in \\[0, 9\\]"):
            m(T.zeros(2, 4), T.tensor([1, 10]))
        with pytest.raises(RuntimeError, match="Input and target should have the same size"):
            m(T.zeros(2, 4), T.tensor([1, 2, 3]))


@pytest.mark.parametrize("kw", [dict(), dict(swap=True, margin=0.5, reduction="none"),
                                dict(distance_function="cos", reduction="sum")])
def test_triplet_margin_with_distance_matches_torch(kw):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((5, 4)) for _ in range(3)]

    def fn(T, a, p, n):
        k = dict(kw)
        if k.get("distance_function") == "cos":
            k["distance_function"] = lambda x, y: 1.0 - T.nn.functional.cosine_similarity(x, y)
        y = T.nn.TripletMarginWithDistanceLoss(**k)(a, p, n)
        return y.reshape(-1)
    (ya, ga), (yb, gb) = _grads(fn, arrays)
    np.testing.assert_allclose(ya, yb, rtol=1e-10)
    for x, y in zip(ga, gb):
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-12)
    for T in (nt, ref):
        with pytest.raises(ValueError, match="expected margin to be greater than 0"):
            T.nn.TripletMarginWithDistanceLoss(margin=0)
        with pytest.raises(RuntimeError, match="the same number of dimensions"):
            T.nn.functional.triplet_margin_with_distance_loss(T.ones(2, 3), T.ones(2, 3), T.ones(3))


@pytest.mark.parametrize("kw,tshape", [(dict(), (6,)), (dict(bias=True, label_smoothing=0.1), (6,)),
                                       (dict(out_features=(2,), bias=True), (6, 2)), (dict(reduction="none"), (6,)),
                                       (dict(ignore_index=1, reduction="sum"), (6,))])
def test_linear_cross_entropy_matches_torch(kw, tshape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 5)).astype(np.float32)
    t = rng.integers(0, 3, tshape)
    res = []
    for T in (nt, ref):
        T.manual_seed(0)
        m = T.nn.LinearCrossEntropyLoss(5, 3, **kw)
        xt = T.tensor(x, requires_grad=True)
        y = m(xt, T.tensor(t))
        y.sum().backward()
        res.append((y.detach().numpy(), xt.grad.numpy(), m.linear.weight.grad.numpy(), repr(m)))
    for a, b in zip(*res):
        if isinstance(a, str):
            assert a == b
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for T in (nt, ref):
        with pytest.raises(RuntimeError, match="expected equal input and linear_weight last dimensions"):
            T.nn.functional.linear_cross_entropy(T.ones(2, 3), T.ones(4, 5), T.tensor([0, 1]))
        with pytest.raises(RuntimeError, match="ignore_index cannot be specified when target contains"):
            T.nn.functional.linear_cross_entropy(T.ones(2, 3), T.ones(4, 3), T.ones(2, 4), ignore_index=0)


@pytest.mark.parametrize("size,align", [((2, 3, 4, 5), False), ((2, 3, 4, 5), True), ((1, 1, 3, 2, 4), False),
                                        ((1, 1, 1, 3), True)])
def test_affine_grid_matches_torch(size, align):
    nd = len(size) - 2
    theta = np.random.default_rng(0).standard_normal((size[0], nd, nd + 1)).astype(np.float32)
    res = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for T in (nt, ref):
            th = T.tensor(theta, requires_grad=True)
            g = T.nn.functional.affine_grid(th, size, align_corners=align)
            (g * T.arange(g.numel(), dtype=g.dtype).reshape(g.shape)).sum().backward()
            res.append((g.detach().numpy(), th.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    for T in (nt, ref):
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            T.nn.functional.affine_grid(T.zeros(1, 2, 3), (1, 1, 2, 2))
        with pytest.raises(ValueError, match="Expected a batch of 2D affine matrices"):
            T.nn.functional.affine_grid(T.zeros(1, 3, 3), (1, 1, 2, 2), align_corners=False)
        with pytest.raises(NotImplementedError):
            T.nn.functional.affine_grid(T.zeros(1, 2, 3), (1, 1, 2), align_corners=False)
