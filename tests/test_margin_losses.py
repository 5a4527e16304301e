"""Margin-family losses (multi_margin, multilabel_margin, hinge_embedding, multilabel_soft_margin) vs PyTorch."""
import warnings

import numpy as np
import pytest
import torch as ref
import torch.nn.functional as RF
from conftest import assert_close, to_nt, to_ref

import numtorch as nt
import numtorch.nn.functional as F
from numtorch.autograd import gradcheck

REDS = ["none", "mean", "sum"]


def _run(fn_nt, fn_ref, arrays, grads=(0,), kw_nt=None, kw_ref=None, rtol=None, atol=None):
    """Call both libraries on the same arrays; compare the loss and the gradients of ``arrays[grads]``.

    Non-scalar outputs are backpropagated with a fixed random upstream gradient."""
    tn = [to_nt(a, i in grads) if a is not None else None for i, a in enumerate(arrays)]
    tr = [to_ref(a, i in grads) if a is not None else None for i, a in enumerate(arrays)]
    out_n = fn_nt(*tn, **(kw_nt or {}))
    out_r = fn_ref(*tr, **(kw_ref or {}))
    assert_close(out_n, out_r, rtol=rtol, atol=atol)
    g = np.random.default_rng(7).standard_normal(tuple(out_r.shape)).astype(str(out_r.dtype).split(".")[1])
    out_n.backward(to_nt(g))
    out_r.backward(to_ref(g))
    for i in grads:
        assert tn[i].grad is not None, f"no gradient for argument {i}"
        assert_close(tn[i].grad, tr[i].grad, rtol=rtol, atol=atol)
    return out_n


# ================================================================================================
# multi_margin_loss
# ================================================================================================
@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", ["2d", "1d", "1d-scalar-target"])
def test_multi_margin_loss(fdtype, reduction, p, weighted, shape):
    rng = np.random.default_rng(0)
    c = 5
    if shape == "2d":
        x, t = rng.standard_normal((6, c)), rng.integers(0, c, 6)
    elif shape == "1d":
        x, t = rng.standard_normal(c), np.array([3])
    else:
        x, t = rng.standard_normal(c), np.array(2)
    w = rng.uniform(0.2, 2.0, c).astype(fdtype) if weighted else None
    for margin in (1.0, 0.4):
        kw = dict(p=p, margin=margin, reduction=reduction)
        out = _run(lambda a, b, ww: F.multi_margin_loss(a, b, weight=ww, **kw),
                   lambda a, b, ww: RF.multi_margin_loss(a, b, weight=ww, **kw), [x.astype(fdtype), t, w])
        assert out.grad_fn.name() == "MultiMarginLossBackward0"


def test_multi_margin_loss_edge_shapes():
    # 0-d input (one class: always zero loss) and an empty batch
    for t in (np.array(0), np.array([0])):
        _run(lambda a, b: F.multi_margin_loss(a, b, reduction="none"),
             lambda a, b: RF.multi_margin_loss(a, b, reduction="none"), [np.array(0.5, np.float32), t])
    args = [nt.zeros(0, 3), nt.zeros(0, dtype=nt.int64)]
    e = F.multi_margin_loss(*args, reduction="none")
    assert e.shape == (0,) and e.dtype == nt.float32
    assert F.multi_margin_loss(*args, reduction="sum").item() == 0
    assert np.isnan(F.multi_margin_loss(*args).item())


def test_multi_margin_loss_boundary_gradient():
    # a term with margin - x[y] + x[i] == 0 exactly is inactive (z > 0), as in PyTorch
    _run(lambda a, b: F.multi_margin_loss(a, b, reduction="sum"), lambda a, b: RF.multi_margin_loss(a, b, reduction="sum"),
         [np.array([[1.0, 0.0, 0.5]], np.float32), np.array([0])])


# ================================================================================================
# multilabel_margin_loss
# ================================================================================================
_MLM_T = np.array([[3, 0, -1, 1, 2],    # targets {3, 0}; entries after -1 are ignored
                   [0, 1, 2, 3, 4],     # every class a target: zero loss
                   [-1, 1, 0, 0, 0],    # no targets
                   [1, 1, -1, 4, 4],    # a repeated target counts twice
                   [4, 2, 1, -1, -1]])


@pytest.mark.parametrize("reduction", REDS)
def test_multilabel_margin_loss(fdtype, reduction):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((5, 5)) * 0.7).astype(fdtype)
    out = _run(lambda a, b: F.multilabel_margin_loss(a, b, reduction=reduction),
               lambda a, b: RF.multilabel_margin_loss(a, b, reduction=reduction), [x, _MLM_T])
    assert out.grad_fn.name() == "MultilabelMarginLossBackward0"
    for row in _MLM_T:  # unbatched input: a 0-d loss for every reduction
        _run(lambda a, b: F.multilabel_margin_loss(a, b, reduction=reduction),
             lambda a, b: RF.multilabel_margin_loss(a, b, reduction=reduction), [x[0], row])


def test_multilabel_margin_loss_edge_shapes():
    for t in (np.array(0), np.array([-1])):
        _run(lambda a, b: F.multilabel_margin_loss(a, b, reduction="none"),
             lambda a, b: RF.multilabel_margin_loss(a, b, reduction="none"), [np.array(0.3, np.float32), t])
    # an empty batch (PyTorch leaves the reduced output uninitialized here; numtorch gives 0 and nan)
    args = [nt.zeros(0, 4), nt.zeros(0, 4, dtype=nt.int64)]
    assert F.multilabel_margin_loss(*args, reduction="none").shape == (0,)
    assert F.multilabel_margin_loss(*args, reduction="sum").item() == 0
    assert np.isnan(F.multilabel_margin_loss(*args).item())
    _run(lambda a, b: F.multilabel_margin_loss(a, b, reduction="sum"),
         lambda a, b: RF.multilabel_margin_loss(a, b, reduction="sum"),
         [np.array([[1.0, 0.0, 0.5]], np.float32), np.array([[0, -1, 0]])])  # z == 0 is inactive


def test_multilabel_margin_loss_inplace_input_raises():
    x = nt.randn(2, 3, requires_grad=True)
    y = x * 1
    loss = F.multilabel_margin_loss(y, nt.tensor([[0, -1, 0], [1, 2, -1]]))
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


# ================================================================================================
# hinge_embedding_loss
# ================================================================================================
@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize("case", ["same", "target-bcast", "input-bcast", "float-target", "odd-targets"])
def test_hinge_embedding_loss(fdtype, reduction, case):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 4)) * 1.5
    t = rng.choice([-1, 1], (3, 4))
    if case == "target-bcast":
        t = t[0]
    elif case == "input-bcast":
        x = x[0]
    elif case == "float-target":
        t = t.astype(np.float64)
    elif case == "odd-targets":
        t = rng.choice([-1, 0, 1, 2], (3, 4))
    for margin in (1.0, 0.5, -0.3):
        kw = dict(margin=margin, reduction=reduction)
        _run(lambda a, b: F.hinge_embedding_loss(a, b, **kw), lambda a, b: RF.hinge_embedding_loss(a, b, **kw),
             [x.astype(fdtype), t])


def test_hinge_embedding_loss_boundary_and_target_grad():
    # at margin - x == 0 the clamp passes the gradient (PyTorch's clamp_min backward)
    _run(lambda a, b: F.hinge_embedding_loss(a, b, reduction="sum"),
         lambda a, b: RF.hinge_embedding_loss(a, b, reduction="sum"),
         [np.array([1.0, 0.5, 2.0], np.float32), np.array([-1, -1, 0])])
    out = F.hinge_embedding_loss(nt.randn(3), nt.tensor([1.0, -1.0, 1.0], requires_grad=True))
    assert not out.requires_grad  # the target is used only through comparisons


def test_hinge_embedding_loss_integer_input():
    x, t = np.array([0, 1, 2, 3]), np.array([-1, -1, -1, 1])
    for dt in (np.int64, np.int32):
        for red in ("none", "sum"):
            for margin in (2.7, -1.7):
                assert_close(F.hinge_embedding_loss(to_nt(x.astype(dt)), to_nt(t), margin=margin, reduction=red),
                             RF.hinge_embedding_loss(to_ref(x.astype(dt)), to_ref(t), margin=margin, reduction=red))


# ================================================================================================
# multilabel_soft_margin_loss
# ================================================================================================
@pytest.mark.parametrize("reduction", REDS)
@pytest.mark.parametrize("weight", [None, "class", "row"])
@pytest.mark.parametrize("shape", [(4, 5), (5,), (2, 3, 5)])
def test_multilabel_soft_margin_loss(fdtype, reduction, weight, shape):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(shape) * 3).astype(fdtype)
    y = rng.uniform(0, 1, shape).astype(fdtype)
    w = None
    if weight == "class":
        w = rng.uniform(0.1, 2, shape[-1]).astype(fdtype)
    elif weight == "row":
        w = rng.uniform(0.1, 2, shape[:-1] + (1,)).astype(fdtype)
    grads = (0, 1) if w is None else (0, 1, 2)
    kw = dict(reduction=reduction)
    _run(lambda a, b, c: F.multilabel_soft_margin_loss(a, b, c, **kw),
         lambda a, b, c: RF.multilabel_soft_margin_loss(a, b, c, **kw), [x, y, w], grads=grads)


def test_multilabel_soft_margin_loss_dtypes_and_broadcast():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    # integer 0/1 targets keep the input's dtype
    _run(F.multilabel_soft_margin_loss, RF.multilabel_soft_margin_loss, [x, rng.integers(0, 2, (3, 4))])
    # a float64 target or weight promotes the result (logsigmoid still runs in float32)
    out = _run(F.multilabel_soft_margin_loss, RF.multilabel_soft_margin_loss, [x, rng.uniform(0, 1, (3, 4))],
               grads=(0, 1), rtol=1e-6, atol=1e-7)
    assert out.dtype == nt.float64
    out = _run(lambda a, b, c: F.multilabel_soft_margin_loss(a, b, weight=c),
               lambda a, b, c: RF.multilabel_soft_margin_loss(a, b, weight=c),
               [x, np.ones((3, 4), np.float32), rng.uniform(0, 1, 4)], grads=(0, 2), rtol=1e-6, atol=1e-7)
    assert out.dtype == nt.float64
    # a target with more dims than the input: the class dim is the input's last, counted from the front
    _run(lambda a, b: F.multilabel_soft_margin_loss(a, b, reduction="none"),
         lambda a, b: RF.multilabel_soft_margin_loss(a, b, reduction="none"), [x[0], np.ones((3, 4), np.float32)])
    # extreme logits stay finite
    _run(F.multilabel_soft_margin_loss, RF.multilabel_soft_margin_loss,
         [np.array([[-80.0, 80.0, 0.0]], np.float32), np.array([[1.0, 0.0, 1.0]], np.float32)])


# ================================================================================================
# gradcheck (float64)
# ================================================================================================
def test_gradcheck():
    rng = np.random.default_rng(5)
    x = nt.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    t = nt.tensor([0, 3, 1])
    w = nt.tensor(rng.uniform(0.5, 1.5, 4))
    for p in (1, 2):
        for red in REDS:
            assert gradcheck(lambda a: F.multi_margin_loss(a, t, p=p, margin=0.8, weight=w, reduction=red), (x,))
    tm = nt.tensor([[3, 0, -1, 1], [1, 1, 2, -1], [-1, 0, 0, 0]])
    for red in REDS:
        assert gradcheck(lambda a: F.multilabel_margin_loss(a, tm, reduction=red), (x,))
        assert gradcheck(lambda a: F.hinge_embedding_loss(a, nt.tensor([1, -1, -1, 0]), margin=0.7, reduction=red),
                         (x,))
    y = nt.tensor(rng.uniform(0, 1, (3, 4)), requires_grad=True)
    wc = nt.tensor(rng.uniform(0.5, 1.5, 4), requires_grad=True)
    for red in REDS:
        assert gradcheck(lambda a, b, c: F.multilabel_soft_margin_loss(a, b, c, reduction=red), (x, y, wc))


# ================================================================================================
# modules
# ================================================================================================
def test_modules_match_torch():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, 5).astype(np.float32)
    t = rng.integers(0, 5, 4)
    tm = np.array([[1, 2, -1, 0, 0]] * 4)
    th = rng.choice([-1, 1], (4, 5))
    ty = rng.integers(0, 2, (4, 5)).astype(np.float32)
    cases = [
        ("MultiMarginLoss", dict(p=2, margin=0.5, weight=w), t),
        ("MultiMarginLoss", dict(), t),
        ("MultiLabelMarginLoss", dict(reduction="sum"), tm),
        ("HingeEmbeddingLoss", dict(margin=0.3, reduction="none"), th),
        ("MultiLabelSoftMarginLoss", dict(weight=w), ty),
        ("MultiLabelSoftMarginLoss", dict(reduction="none"), ty),
    ]
    for name, kw, tgt in cases:
        kn = {k: (to_nt(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        kr = {k: (to_ref(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        mn, mr = getattr(nt.nn, name)(**kn), getattr(ref.nn, name)(**kr)
        assert mn.reduction == mr.reduction
        assert list(mn.state_dict()) == list(mr.state_dict())
        _run(mn, mr, [x, tgt])


@pytest.mark.parametrize("name", ["MultiMarginLoss", "MultiLabelMarginLoss", "HingeEmbeddingLoss",
                                  "MultiLabelSoftMarginLoss"])
def test_modules_legacy_reduction_args(name):
    for sa, rd, expect in ((False, None, "sum"), (None, False, "none"), (True, True, "mean")):
        with pytest.warns(UserWarning, match=f"please use reduction='{expect}' instead"):
            m = getattr(nt.nn, name)(size_average=sa, reduce=rd)
        assert m.reduction == expect
    assert getattr(nt.nn, name)(reduction="sum").reduction == "sum"


def test_functional_legacy_reduction_args():
    x, t = nt.randn(3, 4), nt.tensor([0, 1, 2])
    with pytest.warns(UserWarning, match="please use reduction='none' instead"):
        assert F.multi_margin_loss(x, t, reduce=False).shape == (3,)
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        assert F.multilabel_soft_margin_loss(x, nt.ones(3, 4), size_average=False, reduction="none").shape == ()
    with pytest.warns(UserWarning, match="please use reduction='none' instead"):
        assert F.hinge_embedding_loss(x, nt.ones(3, 4), reduce=False).shape == (3, 4)
    with pytest.warns(UserWarning, match="please use reduction='sum' instead"):
        assert F.multilabel_margin_loss(x, nt.zeros(3, 4, dtype=nt.int64), size_average=False).shape == ()


def test_multi_margin_module_errors():
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        nt.nn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match="expected weight to be None or 1D tensor, got 2D instead"):
        nt.nn.MultiMarginLoss(weight=nt.ones(2, 2))
    m = nt.nn.MultiMarginLoss(weight=nt.ones(3))
    assert "weight" in dict(m.named_buffers())


# ================================================================================================
# errors: same type and message as PyTorch
# ================================================================================================
def _args(lib, **arrays):
    return {k: lib.tensor(v) if isinstance(v, np.ndarray) else v for k, v in arrays.items()}


X = np.zeros((3, 4), np.float32)
T3 = np.array([0, 1, 2])
TM = np.zeros((3, 4), np.int64)
ERROR_CASES = [
    ("multi_margin_loss", dict(input=X, target=T3, p=3)),
    ("multi_margin_loss", dict(input=X, target=T3, weight=np.ones((4, 1), np.float32))),
    ("multi_margin_loss", dict(input=X, target=T3, weight=np.array(2.0, np.float32))),
    ("multi_margin_loss", dict(input=X, target=T3, reduction="bad")),
    ("multi_margin_loss", dict(input=np.zeros((3, 0), np.float32), target=T3)),
    ("multi_margin_loss", dict(input=np.zeros((2, 3, 4), np.float32), target=T3[:2])),
    ("multi_margin_loss", dict(input=X, target=T3[:2])),
    ("multi_margin_loss", dict(input=X, target=T3[None])),
    ("multi_margin_loss", dict(input=X[0], target=T3[:2])),
    ("multi_margin_loss", dict(input=X, target=T3, weight=np.ones(3, np.float32))),
    ("multi_margin_loss", dict(input=X.astype(np.int64), target=T3)),
    ("multi_margin_loss", dict(input=X.astype(np.float16), target=T3)),
    ("multi_margin_loss", dict(input=X, target=T3.astype(np.int32))),
    ("multi_margin_loss", dict(input=X, target=T3.astype(np.float32))),
    ("multi_margin_loss", dict(input=X, target=T3, weight=np.ones(4, np.float64))),
    ("multi_margin_loss", dict(input=X, target=np.array([0, 1, 4]))),
    ("multi_margin_loss", dict(input=X, target=np.array([0, -1, 2]))),
    ("multilabel_margin_loss", dict(input=X, target=TM[:2])),
    ("multilabel_margin_loss", dict(input=X, target=TM[:, :3])),
    ("multilabel_margin_loss", dict(input=X[0], target=TM[0, :3])),
    ("multilabel_margin_loss", dict(input=X[0], target=TM[:1])),
    ("multilabel_margin_loss", dict(input=X[0, :2], target=np.array(0))),
    ("multilabel_margin_loss", dict(input=np.zeros((2, 3, 4), np.float32), target=np.zeros((2, 3, 4), np.int64))),
    ("multilabel_margin_loss", dict(input=X, target=TM.astype(np.int32))),
    ("multilabel_margin_loss", dict(input=X.astype(np.int64), target=TM)),
    ("multilabel_margin_loss", dict(input=X, target=np.array([[4, 0, -1, 1]] * 3))),
    ("multilabel_margin_loss", dict(input=X, target=np.array([[1, 0, -2, 1]] * 3))),
    ("multilabel_margin_loss", dict(input=X, target=np.array([[1, 0, -1, 7]] * 3))),
    ("multilabel_margin_loss", dict(input=X, target=TM, reduction="bad")),
    ("hinge_embedding_loss", dict(input=X, target=np.ones((2, 4)))),
    ("hinge_embedding_loss", dict(input=X, target=np.ones((3, 4)), reduction="bad")),
    ("hinge_embedding_loss", dict(input=X.astype(np.int64), target=np.ones((3, 4)))),
    ("hinge_embedding_loss", dict(input=X.astype(bool), target=np.ones((3, 4)))),
    ("multilabel_soft_margin_loss", dict(input=X, target=np.ones((2, 4), np.float32))),
    ("multilabel_soft_margin_loss", dict(input=X, target=np.ones((3, 4), np.float32), weight=np.ones(3))),
    ("multilabel_soft_margin_loss", dict(input=X, target=np.ones((3, 4), bool))),
    ("multilabel_soft_margin_loss", dict(input=X, target=np.ones((3, 4), np.float32), reduction="bad")),
    ("multilabel_soft_margin_loss", dict(input=np.array(1.0, np.float32), target=np.ones(()))),
    ("multilabel_soft_margin_loss", dict(input=X.astype(np.int64), target=TM)),
]


@pytest.mark.parametrize("fn,kw", ERROR_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(ERROR_CASES)])
def test_errors_match_torch(fn, kw):
    with pytest.raises(Exception) as er:
        getattr(RF, fn)(**_args(ref, **kw))
    with pytest.raises(er.type) as en:
        getattr(F, fn)(**_args(nt, **kw))
    assert str(en.value) == str(er.value)


def test_multi_margin_weight_requires_grad_error():
    w = nt.ones(4, requires_grad=True)
    msg = "not differentiable with respect to argument 'weight'"
    with pytest.raises(RuntimeError, match=msg):
        F.multi_margin_loss(nt.randn(3, 4), nt.tensor([0, 1, 2]), weight=w)
    with pytest.raises(RuntimeError, match=msg):
        RF.multi_margin_loss(ref.randn(3, 4), ref.tensor([0, 1, 2]), weight=ref.ones(4, requires_grad=True))
    with nt.no_grad():
        assert F.multi_margin_loss(nt.randn(3, 4), nt.tensor([0, 1, 2]), weight=w).shape == ()


def test_no_float32_upcast_and_no_warnings():
    x = nt.randn(8, 6, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        outs = [F.multi_margin_loss(x, nt.randint(0, 6, (8,)), p=2, weight=nt.ones(6)),
                F.multilabel_margin_loss(x, nt.randint(-1, 6, (8, 6))),
                F.hinge_embedding_loss(x, nt.ones(8, 6)),
                F.multilabel_soft_margin_loss(x, nt.rand(8, 6), nt.ones(6))]
        for o in outs:
            assert o.dtype == nt.float32
            o.backward()
            assert x.grad.dtype == nt.float32
