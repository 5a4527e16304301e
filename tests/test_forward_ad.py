"""Forward-mode AD (``numtorch.autograd.forward_ad``) against PyTorch's: the API and its errors, tangents
through composite programs, no_grad/detach/in-place/view semantics, reverse over forward, nested levels,
custom ``Function.jvp``, and ``gradcheck(check_forward_ad=True)``. Per-op values: test_forward_ad_ops.py."""
from __future__ import annotations

import threading

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfw

import numtorch
from numtorch.autograd import forward_ad as nfw

LIBS = ((torch, tfw), (numtorch, nfw))
DTYPES = ("float32", "float64")


def _nt(x):
    return numtorch.tensor(x.detach().numpy().copy())


def _close(a, b, dtype="float64"):
    tol = 1e-4 if dtype == "float32" else 1e-10
    assert a is not None and b is not None
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def _mlp(lib, x, w1, b1, w2):
    h = lib.nn.functional.gelu(lib.nn.functional.linear(x, w1, b1))
    z = lib.tanh(h) @ w2 + lib.sigmoid(h).sum(-1, keepdim=True) * 0.5
    return lib.log_softmax(z, -1) + lib.softmax(z * 2, 0) - lib.relu(z).mean()


def _mlp2(lib, x, w1, b1, w2):
    """``_mlp`` without (log_)softmax: PyTorch's own reverse-over-forward of them fails (an in-place bump)."""
    h = lib.nn.functional.gelu(lib.nn.functional.linear(x, w1, b1))
    z = lib.tanh(h) @ w2 + lib.sigmoid(h).sum(-1, keepdim=True) * 0.5
    return z * lib.exp(z / 4) - lib.relu(z).mean() + lib.nn.functional.silu(z)


def _inputs(dtype, rg=False):
    g = torch.Generator().manual_seed(0)
    d = getattr(torch, dtype)
    shapes = [(4, 3), (5, 3), (5,), (5, 6)]
    prim = [torch.randn(s, dtype=d, generator=g, requires_grad=rg) for s in shapes]
    tans = [torch.randn(s, dtype=d, generator=g, requires_grad=rg) for s in shapes]
    return prim, tans


@pytest.mark.parametrize("dtype", DTYPES)
def test_directional_derivative_of_a_network(dtype):
    prim, tans = _inputs(dtype)
    res = []
    for lib, fw in LIBS:
        p = prim if lib is torch else [_nt(x) for x in prim]
        t = tans if lib is torch else [_nt(x) for x in tans]
        with fw.dual_level():
            duals = [fw.make_dual(x, v) for x, v in zip(p, t)]
            out = fw.unpack_dual(_mlp(lib, *duals))
        res.append(out)
        assert fw.unpack_dual(out.primal).tangent is None  # after the level: no tangent
    _close(res[1].primal, res[0].primal, dtype)
    _close(res[1].tangent, res[0].tangent, dtype)
    assert res[1].tangent.grad_fn is None  # nothing required grad: the tangent has no graph


@pytest.mark.parametrize("dtype", DTYPES)
def test_conv_pool_tangent(dtype):
    g = torch.Generator().manual_seed(1)
    d = getattr(torch, dtype)
    vals = [torch.randn(s, dtype=d, generator=g) for s in [(2, 3, 8, 8), (4, 3, 3, 3), (4,)] * 2]
    res = []
    for lib, fw in LIBS:
        v = vals if lib is torch else [_nt(x) for x in vals]
        with fw.dual_level():
            x, w, b = (fw.make_dual(p, t) for p, t in zip(v[:3], v[3:]))
            y = lib.nn.functional.max_pool2d(lib.relu(lib.nn.functional.conv2d(x, w, b, padding=1)), 2)
            res.append(fw.unpack_dual(lib.nn.functional.cross_entropy(y.flatten(1), lib.tensor([1, 3]))))
    _close(res[1].tangent, res[0].tangent, dtype)


def test_api_errors_as_torch():
    for lib, fw in LIBS:
        x = lib.randn(3)
        with pytest.raises(RuntimeError, match="no level exists"):
            fw.make_dual(x, lib.randn(3))
        with pytest.raises(RuntimeError, match="Dual level must be a positive number"):
            fw.exit_dual_level()
        assert fw.unpack_dual(x) == (x, None)
        with fw.dual_level() as level:
            assert level == 0
            with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
                fw.enter_dual_level()
            with pytest.raises(RuntimeError, match="different size than that of the original Tensor"):
                fw.make_dual(x, lib.randn(4))
            with pytest.raises(ValueError, match="Expected primal to be floating point or complex, but got"):
                fw.make_dual(lib.arange(3), lib.randn(3))
            with pytest.raises(ValueError, match="Expected tangent to be floating point or complex, but got"):
                fw.make_dual(x, lib.arange(3))
            d = fw.make_dual(x, lib.randn(3))
            with pytest.raises(RuntimeError, match="already has a forward gradient at the same level 0"):
                fw.make_dual(d, lib.randn(3))
            with pytest.raises(RuntimeError, match="Invalid level given to _make_dual"):
                fw.make_dual(x, lib.randn(3), level=5)
            with pytest.raises(RuntimeError, match="not the last one that was created"):
                fw.exit_dual_level(level=3)
            assert fw.unpack_dual(x, level=5).tangent is None
            with pytest.raises(RuntimeError, match="Invalid level given to _fw_primal"):
                fw.unpack_dual(d, level=5)
            u = fw.unpack_dual(d)
            assert isinstance(u, fw.UnpackedDualTensor) and u.tangent is u[1]
            assert fw.unpack_dual(u.primal).tangent is None
            # a float64 tangent on a float32 primal is kept as it is
            assert fw.unpack_dual(fw.make_dual(x, lib.randn(3, dtype=lib.float64))).tangent.dtype == lib.float64


def test_semantics_no_grad_detach_inplace_views():
    g = torch.Generator().manual_seed(2)
    vals = [torch.randn(6, generator=g) for _ in range(4)]
    res = []
    for lib, fw in LIBS:
        x, v, y0, w = vals if lib is torch else [_nt(t) for t in vals]
        out = {}
        with fw.dual_level():
            d = fw.make_dual(x, v)
            with lib.no_grad():  # no_grad does not stop forward AD
                out["no_grad"] = fw.unpack_dual(d * 2).tangent
            out["detach"] = fw.unpack_dual(d.detach()).tangent
            y = y0.clone()
            y.add_(d)  # a plain tensor written with a dual one gets its tangent
            out["add_"] = fw.unpack_dual(y).tangent.clone()  # a copy: PyTorch updates it in place below
            y.mul_(d)
            out["mul_"] = fw.unpack_dual(y).tangent
            out["slice"] = fw.unpack_dual(d[1:4]).tangent
            out["reshape"] = fw.unpack_dual(d.reshape(2, 3).t()).tangent
            e = fw.make_dual(w.clone(), v.clone())
            view = e[2:5]
            view.mul_(3)  # written through a view: the base's tangent sees it
            out["base_after_view_write"] = fw.unpack_dual(e).tangent
            out["view"] = fw.unpack_dual(view).tangent
        res.append(out)
    assert res[1]["detach"] is None and res[0]["detach"] is None
    for k in res[0]:
        if res[0][k] is not None:
            assert res[1][k] is not None, k
            np.testing.assert_allclose(res[1][k].numpy(), res[0][k].numpy(), rtol=1e-5, atol=1e-5, err_msg=k)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reverse_over_forward(dtype):
    """The tangent is differentiable: grad of sum(jvp * w) w.r.t. the primals and the tangents."""
    prim, tans = _inputs(dtype, rg=True)
    res = []
    for lib, fw in LIBS:
        p = prim if lib is torch else [_nt(x).requires_grad_() for x in prim]
        t = tans if lib is torch else [_nt(x).requires_grad_() for x in tans]
        with fw.dual_level():
            out = _mlp2(lib, *[fw.make_dual(x, v) for x, v in zip(p, t)])
            jvp = fw.unpack_dual(out).tangent
        s = (jvp * lib.cos(fw.unpack_dual(out).primal)).sum()
        res.append(lib.autograd.grad(s, p + t))
    for a, b in zip(res[1], res[0]):
        _close(a, b, dtype)


def test_nested_levels_forward_over_forward():
    """Internal nested levels (for function transforms): a tangent of a tangent is the second derivative."""
    x = numtorch.randn(5, dtype=numtorch.float64)
    t1, t2 = numtorch.randn(5, dtype=numtorch.float64), numtorch.randn(5, dtype=numtorch.float64)
    outer = nfw._enter_level()
    inner = nfw._enter_level()
    try:
        xd = nfw.make_dual(nfw.make_dual(x, t1, level=outer), t2, level=inner)
        y = numtorch.sin(xd) * xd
        dy = nfw.unpack_dual(y, level=inner).tangent          # (cos x * x + sin x) t2, carrying level outer
        d2y = nfw.unpack_dual(dy, level=outer).tangent        # (2 cos x - x sin x) t1 t2
        d1y = nfw.unpack_dual(y, level=outer).tangent
    finally:
        nfw.exit_dual_level(level=inner)
        nfw.exit_dual_level(level=outer)
    xs, ts1, ts2 = (torch.from_numpy(a.numpy()) for a in (x, t1, t2))
    _close(dy.detach(), _nt((torch.cos(xs) * xs + torch.sin(xs)) * ts2))
    _close(d1y, _nt((torch.cos(xs) * xs + torch.sin(xs)) * ts1))
    _close(d2y, _nt((2 * torch.cos(xs) - xs * torch.sin(xs)) * ts1 * ts2))


def test_levels_are_per_thread():
    seen = []
    with nfw.dual_level():
        th = threading.Thread(target=lambda: seen.append(nfw.enter_dual_level() == 0 and nfw.exit_dual_level() is None))
        th.start()
        th.join()
    assert seen == [True]


def _custom(lib):
    class MulSin(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_forward(x, y)
            ctx.save_for_backward(x, y)
            return x.sin() * y

        @staticmethod
        def jvp(ctx, tx, ty):
            x, y = ctx.saved_tensors
            return tx * x.cos() * y + ty * x.sin()

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * x.cos() * y, g * x.sin()

    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return MulSin, NoJvp


def test_custom_function_jvp():
    g = torch.Generator().manual_seed(3)
    vals = [torch.randn(4, dtype=torch.float64, generator=g) for _ in range(3)]
    res = []
    for lib, fw in LIBS:
        MulSin, NoJvp = _custom(lib)
        x, y, v = vals if lib is torch else [_nt(t) for t in vals]
        with fw.dual_level():
            out = fw.unpack_dual(MulSin.apply(fw.make_dual(x, v), y))  # y has no tangent: jvp gets zeros
            with pytest.raises(NotImplementedError, match="You must implement the jvp function for custom "
                                                          "autograd.Function to use it with forward mode AD"):
                NoJvp.apply(fw.make_dual(x, v))
            assert fw.unpack_dual(NoJvp.apply(x)).tangent is None  # no tangent in: no jvp needed
        res.append(out)
    _close(res[1].primal, res[0].primal)
    _close(res[1].tangent, res[0].tangent)
    MulSin, _ = _custom(numtorch)
    x, y = (_nt(t).requires_grad_() for t in vals[:2])
    assert numtorch.autograd.gradcheck(MulSin.apply, (x, y), check_forward_ad=True)


def test_ops_without_forward_formula_raise_as_torch():
    for lib, fw in LIBS:
        with fw.dual_level():
            x = fw.make_dual(lib.randn(4, 3), lib.randn(4, 3))
            with pytest.raises(NotImplementedError, match="Trying to use forward AD with _cdist_forward that does "
                                                          "not support it"):
                lib.cdist(x, x)
            with pytest.raises(NotImplementedError, match="Trying to use forward AD with _pdist_forward"):
                lib.nn.functional.pdist(x)


def test_gradcheck_check_forward_ad():
    g = torch.Generator().manual_seed(4)
    x = _nt(torch.randn(3, 4, dtype=torch.float64, generator=g)).requires_grad_()
    w = _nt(torch.randn(4, 2, dtype=torch.float64, generator=g)).requires_grad_()
    fns = [lambda x, w: numtorch.softmax(x @ w, 1), lambda x, w: (x.exp() @ w).tanh().sum(0),
           lambda x, w: numtorch.nn.functional.gelu(x).max(1).values * w[:3, 0]]
    for f in fns:
        assert numtorch.autograd.gradcheck(f, (x, w), check_forward_ad=True)
        assert numtorch.autograd.gradcheck(f, (x, w), check_forward_ad=True, check_backward_ad=False)

    class WrongJvp(numtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def jvp(ctx, t):
            return t  # should be 2 x t

        @staticmethod
        def backward(ctx, g):
            return g
    with pytest.raises(numtorch.autograd.GradcheckError, match="forward mode mismatch"):
        numtorch.autograd.gradcheck(WrongJvp.apply, (x,), check_forward_ad=True, check_backward_ad=False)
    assert not numtorch.autograd.gradcheck(WrongJvp.apply, (x,), check_forward_ad=True, check_backward_ad=False,
                                           raise_exception=False)
    with pytest.raises(NotImplementedError, match="vmap"):
        numtorch.autograd.gradcheck(fns[0], (x, w), check_forward_ad=True, check_batched_forward_grad=True)


def test_forward_over_reverse_gradgradcheck():
    """Tangents through a create_graph backward (saved outputs of the boxed backward keep their tangents)."""
    g = torch.Generator().manual_seed(5)
    x = _nt(torch.randn(3, 4, dtype=torch.float64, generator=g)).requires_grad_()
    fns = [lambda x: numtorch.nn.functional.gelu(x).softmax(1), lambda x: (x @ x.T).tanh(),
           lambda x: numtorch.log_softmax(x.exp(), 0) * x.sigmoid(),
           lambda x: numtorch.nn.functional.cross_entropy(x, numtorch.tensor([0, 2, 1]))]
    for f in fns:
        assert numtorch.autograd.gradgradcheck(f, (x,), check_fwd_over_rev=True)
    MulSin, _ = _custom(numtorch)
    y = _nt(torch.randn(3, 4, dtype=torch.float64, generator=g)).requires_grad_()
    assert numtorch.autograd.gradgradcheck(MulSin.apply, (x, y), check_fwd_over_rev=True, check_rev_over_rev=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_forward_over_reverse_against_torch(dtype):
    """jvp of a gradient (a Hessian-vector product) against PyTorch's."""
    g = torch.Generator().manual_seed(6)
    d = getattr(torch, dtype)
    x0, v0, w0 = (torch.randn(s, dtype=d, generator=g) for s in [(4, 3), (4, 3), (3, 5)])
    res = []
    for lib, fw in LIBS:
        x, v, w = (x0, v0, w0) if lib is torch else (_nt(a) for a in (x0, v0, w0))
        with fw.dual_level():
            xd = fw.make_dual(x, v).requires_grad_() if lib is numtorch else fw.make_dual(x.requires_grad_(), v)
            y = lib.nn.functional.softplus(xd @ w).softmax(1).pow(2).sum()
            (gx,) = lib.autograd.grad(y, xd, create_graph=True)
            res.append(fw.unpack_dual(gx).tangent)
    _close(res[1], res[0], dtype)


def test_xlogy_tangent_of_first_input():
    # regression: XlogyBackward0's grad-of-x formula branched on grad == 0 (np.where), so the fallback
    # (and autograd.functional.jvp's double-vjp) differentiated it at grad = 0 and lost t_x * log(y)
    x, y, tx, ty = ([0.5, 2.0, 0.0], [1.5, 3.0, 2.0], [1.0, -2.0, 1.0], [0.5, 1.0, -1.0])
    res = []
    for lib, fw in ((torch, tfw), (numtorch, nfw)):
        with fw.dual_level():
            a = fw.make_dual(lib.tensor(x, dtype=lib.float64), lib.tensor(tx, dtype=lib.float64))
            b = fw.make_dual(lib.tensor(y, dtype=lib.float64), lib.tensor(ty, dtype=lib.float64))
            res.append(fw.unpack_dual(lib.xlogy(a, b)).tangent.numpy())
        args = (lib.tensor(x, dtype=lib.float64), lib.tensor(y, dtype=lib.float64))
        res.append(lib.autograd.functional.jvp(lib.xlogy, args, (lib.tensor(tx, dtype=lib.float64),
                                                                lib.tensor(ty, dtype=lib.float64)))[1].numpy())
    np.testing.assert_allclose(res[2], res[0], rtol=1e-12)
    np.testing.assert_allclose(res[3], res[1], rtol=1e-12)
