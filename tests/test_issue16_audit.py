"""Issue #16, items 3 (zero-dimensional tensors, result dtypes, semantics), 6 and 7: one differential check
against torch per bullet that was still open (values, dtypes, shapes, gradients, grad_fn names, exception
types)."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt

LIBS = (ref, nt)


def _np(t):
    return None if t is None else t.detach().numpy()


def _same(a, b, rtol=1e-7, atol=1e-9):
    """Values, dtype and shape of a numtorch result ``a`` and a torch result ``b``."""
    assert str(a.dtype) == str(b.dtype), (a.dtype, b.dtype)
    assert tuple(a.shape) == tuple(b.shape), (tuple(a.shape), tuple(b.shape))
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol, equal_nan=True)


def _both(fn, *arrays, grad=True):
    """``fn(T, *tensors)`` on torch and numtorch from the same float64 arrays; returns ((out, grads), ...)."""
    res = []
    for T in LIBS:
        xs = [T.tensor(a, requires_grad=grad and np.asarray(a).dtype.kind == "f") for a in arrays]
        out = fn(T, *xs)
        leaves = [x for x in xs if x.requires_grad]
        gs = T.autograd.grad(out.sum(), leaves, allow_unused=True) if leaves and out.requires_grad else []
        res.append((out, gs))
    return res


def _raises_alike(fn):
    """torch and numtorch raise the same exception type (or neither raises); returns it."""
    kinds = []
    for T in LIBS:
        try:
            fn(T)
            kinds.append(None)
        except Exception as e:  # noqa: BLE001
            kinds.append(type(e))
    assert kinds[0] == kinds[1], f"torch {kinds[0]}, numtorch {kinds[1]}"
    return kinds[0]


# ------------------------------------------------------------------------------------------------------
# cross_entropy / nll_loss: grad_fn names (item 6) and ignored rows when "mean" divides by zero
# ------------------------------------------------------------------------------------------------------
@pytest.mark.quick
@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 4), (2, 3, 4, 2), (2, 3, 2, 2, 2), (0, 3), (0, 3, 4), (2, 3, 0), (0, 0), (0, 0, 2), (2, 0, 0)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_and_nll_grad_fn_names_match_torch(shape, reduction):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    t = rng.integers(0, 3, shape[:1] + shape[2:] if len(shape) > 1 else ())
    p = rng.random(shape)
    names = []
    for T in LIBS:
        F, xt = T.nn.functional, T.tensor(x, requires_grad=True)
        outs = [F.cross_entropy(xt, T.tensor(t), reduction=reduction),
                F.cross_entropy(xt, T.tensor(t), reduction=reduction, label_smoothing=0.1),
                F.nll_loss(xt, T.tensor(t), reduction=reduction),
                F.cross_entropy(xt, T.tensor(p), reduction=reduction),
                T.nn.CrossEntropyLoss(reduction=reduction)(xt, T.tensor(t))]
        names.append([o.grad_fn.name() for o in outs] + [str(outs[0].grad_fn).split(" ")[0]])
    assert names[1] == names[0]


@pytest.mark.parametrize("kw", [dict(), dict(label_smoothing=0.2), dict(weight=[0.0, 1.0, 2.0]),
                                dict(weight=[0.0, 1.0, 2.0], label_smoothing=0.3), dict(reduction="sum")])
@pytest.mark.parametrize("target", [[1, 1, 1, 1], [1, 0, 1, 2], [0, 1, 0, 1]])
@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_ignore_index_rows_get_zero_gradient_even_when_mean_divides_by_zero(kw, target, fn):
    """All rows ignored (or only zero-weight rows left): torch's loss is NaN, the gradient of ignored rows 0
    (not NaN), first and second order."""
    x = np.random.default_rng(0).standard_normal((4, 3))
    res = []
    for T in LIBS:
        k = dict(kw, ignore_index=1)
        if "weight" in k:
            k["weight"] = T.tensor(k["weight"], dtype=T.float64)
        if fn == "nll_loss":
            k.pop("label_smoothing", None)
        xt = T.tensor(x, requires_grad=True)
        loss = getattr(T.nn.functional, fn)(xt, T.tensor(target), **k)
        g, = T.autograd.grad(loss, xt, create_graph=True)
        res.append((loss, g))
        if fn == "cross_entropy":  # (nll_loss's gradient is linear in the incoming gradient alone)
            res[-1] += T.autograd.grad((g * T.tensor(x)).sum(), xt)
    for a, b in zip(res[1], res[0]):
        _same(a, b)
