"""In-place ops on views under autograd (PyTorch's CopySlices): the same gradients as torch."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt


@pytest.fixture(params=["numtorch", "torch"])
def T(request):
    return nt if request.param == "numtorch" else ref


def grads(T, prog):
    a = T.arange(6.0, dtype=T.float64).requires_grad_()
    w = T.tensor([10.0, 20.0], dtype=T.float64, requires_grad=True)
    prog(T, a, w).backward()
    return a.grad.numpy().copy(), w.grad.numpy().copy()


PROGRAMS = {
    "mul_on_slice": lambda T, a, w: _mul_slice(T, a, w),
    "setitem_row": lambda T, a, w: _setitem(T, a, w),
    "iadd_on_basic_index": lambda T, a, w: _iadd(T, a, w),
    "view_of_reshape": lambda T, a, w: _reshaped(T, a, w),
}


def _mul_slice(T, a, w):
    b = a * 2
    v = b[1:3]
    v.mul_(w)
    return (b * T.arange(6.0, dtype=T.float64)).sum() + v.sum()


def _setitem(T, a, w):
    buf = T.zeros(2, 3, dtype=T.float64)
    buf[0] = a[:3] * w.sum()
    return (buf ** 2).sum()


def _iadd(T, a, w):
    b = a.view(2, 3) * 1.0
    b[1, 1:] += w
    return (b * b).sum()


def _reshaped(T, a, w):
    b = (a + 1).view(3, 2)
    b[:, 0].mul_(w.sum())
    return b.pow(3).sum()


@pytest.mark.parametrize("name", PROGRAMS)
def test_same_gradients_as_torch(name):
    ga, gw = grads(nt, PROGRAMS[name])
    ra, rw = grads(ref, PROGRAMS[name])
    np.testing.assert_allclose(ga, ra, rtol=1e-12)
    np.testing.assert_allclose(gw, rw, rtol=1e-12)


def test_view_of_leaf_in_place_raises(T):
    a = T.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        a[0].add_(1)
    with T.no_grad():
        a[0].add_(1)  # allowed outside autograd
    assert a[0].item() == 2.0
