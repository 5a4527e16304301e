"""Regressions found by the forward-AD audit, each against PyTorch: tangents of 0-dim binary ops, conj's tangent,
``special.entr``'s gradient, ``Tensor.cfloat``/``cdouble``, reflect/replicate pads with negative pads."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfw

import numtorch
from numtorch.autograd import forward_ad as nfw


def _jvp(lib, fw, fn, xs, ts):
    with fw.dual_level():
        out = fn(*(fw.make_dual(lib.tensor(x), lib.tensor(t)) for x, t in zip(xs, ts)))
        p, t = fw.unpack_dual(out)
        return p.detach().resolve_conj().numpy(), None if t is None else t.detach().resolve_conj().numpy()


@pytest.mark.quick
@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "clamp_max", "clamp_min", "atan2", "hypot"])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_binary_tangent_of_0dim(name, shape):
    xs = [np.full(shape, -4.8), np.full(shape, -7.5)]
    ts = [np.full(shape, 1.5), np.full(shape, -0.25)]
    t = _jvp(torch, tfw, getattr(torch, name), xs, ts)
    n = _jvp(numtorch, nfw, getattr(numtorch, name), xs, ts)
    np.testing.assert_allclose(n[0], t[0])
    np.testing.assert_allclose(n[1], t[1])


def test_conj_tangent_is_conjugated():
    xs, ts = [np.array([1 + 2j, 3 - 1j])], [np.array([0.5 + 1j, 1 - 2j])]
    for name in ("conj", "conj_physical"):
        t = _jvp(torch, tfw, getattr(torch, name), xs, ts)
        n = _jvp(numtorch, nfw, getattr(numtorch, name), xs, ts)
        np.testing.assert_allclose(n[1], t[1])


def test_entr_values_gradient_and_node():
    a = np.array([-1.0, 0.0, 0.5, 2.0, np.nan])
    res = []
    for lib in (torch, numtorch):
        x = lib.tensor(a, requires_grad=True)
        y = lib.special.entr(x)
        y.sum().backward()
        res.append((y.detach().numpy(), x.grad.numpy(), type(y.grad_fn).__name__,
                    lib.special.entr(lib.tensor([1, 2])).dtype))
    np.testing.assert_allclose(res[1][0], res[0][0])
    np.testing.assert_allclose(res[1][1], res[0][1])
    assert res[1][2] == res[0][2] and str(res[1][3]) == str(res[0][3])


def test_cfloat_cdouble():
    for name in ("cfloat", "cdouble"):
        t = getattr(torch.tensor([1.5, -2.0]), name)()
        n = getattr(numtorch.tensor([1.5, -2.0]), name)()
        assert str(n.dtype) == str(t.dtype)
        np.testing.assert_allclose(n.numpy(), t.numpy())


# (circular with [-4, 3] is left out: PyTorch returns uninitialized memory there, numtorch raises)
@pytest.mark.parametrize("mode,pad", [(m, p) for m in ("replicate", "reflect", "circular")
                                      for p in ([-4, 5], [-4, 3], [-5, 6], [5, -4], [-2, -2], [-3, -2], [-1, 2])
                                      if (m, p) != ("circular", [-4, 3])])
def test_negative_pads_as_torch(mode, pad):
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    try:
        want = torch.nn.functional.pad(torch.tensor(x), pad, mode).numpy()
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as ne:
            numtorch.nn.functional.pad(numtorch.tensor(x), pad, mode)
        assert str(ne.value)[:20] == str(e)[:20]
        return
    got = numtorch.nn.functional.pad(numtorch.tensor(x), pad, mode).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("mode,pad", [("reflect", [2, 1, 1, -1]), ("replicate", [-1, 3, 2, 0]), ("circular", [1, 2, 0, 1])])
def test_pad_double_backward_and_hvp(mode, pad):
    rng = np.random.default_rng(1)
    x, v = rng.standard_normal((1, 2, 4, 5)), rng.standard_normal((1, 2, 4, 5))
    res = []
    for lib in (torch, numtorch):
        xt = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.pad(xt, pad, mode)
        wt = lib.tensor(np.random.default_rng(2).standard_normal(tuple(y.shape)))
        f = lambda z: (lib.nn.functional.pad(z, pad, mode) ** 3 * wt).sum()  # noqa: E731
        g = lib.autograd.grad(f(xt), xt, create_graph=True)[0]
        gg = lib.autograd.grad((g * lib.tensor(v)).sum(), xt)[0]
        hv = lib.func.jvp(lib.func.grad(f), (lib.tensor(x),), (lib.tensor(v),))[1]
        res.append((gg.numpy(), hv.numpy()))
    np.testing.assert_allclose(res[1][0], res[0][0], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("write", ["mul_row", "fill_column_of_t", "copy_offdiagonal"])
def test_inplace_write_into_view_gives_the_base_a_tangent(write):
    """A view of a tensor without a tangent, written in place with a dual value: the base gets a zero
    tangent with the written part (PyTorch); before, the tangent was silently lost."""
    import torch

    def run(lib):
        fwad = lib.autograd.forward_ad
        x = lib.arange(9.0, dtype=lib.float64).reshape(3, 3)
        with fwad.dual_level():
            d = fwad.make_dual(lib.tensor(0.7, dtype=lib.float64), lib.tensor(1.5, dtype=lib.float64))
            y = x * x
            if write == "mul_row":
                y[1].mul_(d)
            elif write == "fill_column_of_t":
                y.t()[1].fill_(d)
            else:
                y[:, 1:].diagonal().copy_(d * lib.ones(2, dtype=lib.float64))
            return fwad.unpack_dual(y).tangent.tolist(), y.tolist()

    assert run(numtorch) == run(torch)
