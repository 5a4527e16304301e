"""End-to-end programs that differentiate gradients, run with PyTorch and numtorch on the same small
generated data and weights: a WGAN-GP critic step, MAML on sine regression, Hessian-vector products
and a full Hessian of an MLP's loss, and a PINN loss with du/dx and d2u/dx2."""
import numpy as np
import pytest
import torch

import numtorch as nt

TOL = {"float32": 2e-5, "float64": 1e-10}


def _cmp(a, b, tol):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _cmp(x, y, tol)
        return
    if isinstance(a, torch.Tensor):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        a, b = a.detach().numpy(), b.detach().numpy()
    np.testing.assert_allclose(np.asarray(b, np.float64), np.asarray(a, np.float64), rtol=tol, atol=tol)


def _both(fn, dtype):
    _cmp(fn(torch, dtype), fn(nt, dtype), TOL[dtype])


def _mlp_params(lib, dtype, sizes, seed=0):
    """Weights and biases of a tanh MLP as leaf tensors (same values in both libraries)."""
    rng = np.random.default_rng(seed)
    ps = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        ps.append(lib.tensor(rng.standard_normal((b, a)) / np.sqrt(a), dtype=getattr(lib, dtype), requires_grad=True))
        ps.append(lib.tensor(rng.standard_normal(b) * 0.1, dtype=getattr(lib, dtype), requires_grad=True))
    return ps


def _mlp(lib, params, x):
    F = lib.nn.functional
    n = len(params) // 2
    for i in range(n):
        x = F.linear(x, params[2 * i], params[2 * i + 1])
        if i < n - 1:
            x = lib.tanh(x)
    return x


def _data(lib, dtype, shape, seed):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=getattr(lib, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_wgan_gp_critic_step(dtype):
    """One critic update of WGAN-GP (Gulrajani et al.): Wasserstein loss plus
    lambda * (||grad_x critic(x_hat)|| - 1)^2 on random interpolates, then an SGD step."""
    def run(lib, dtype):
        critic = lib.nn.Sequential(lib.nn.Linear(4, 16), lib.nn.Tanh(), lib.nn.Linear(16, 16), lib.nn.Tanh(),
                                   lib.nn.Linear(16, 1)).to(getattr(lib, dtype))
        with lib.no_grad():
            for p, v in zip(critic.parameters(), _mlp_params(lib, dtype, [4, 16, 16, 1], seed=1)):
                p.copy_(v)
        opt = lib.optim.SGD(critic.parameters(), lr=0.05)
        real, fake = _data(lib, dtype, (8, 4), 2), _data(lib, dtype, (8, 4), 3) * 0.5 + 1
        eps = lib.tensor(np.random.default_rng(4).random((8, 1)), dtype=getattr(lib, dtype))
        losses = []
        for _ in range(3):
            opt.zero_grad()
            x_hat = (eps * real + (1 - eps) * fake).requires_grad_(True)
            (g,) = lib.autograd.grad(critic(x_hat).sum(), x_hat, create_graph=True)
            gp = ((g.norm(2, dim=1) - 1) ** 2).mean()
            loss = critic(fake).mean() - critic(real).mean() + 10 * gp
            loss.backward()
            losses.append(loss.detach())
            grads = [p.grad.clone() for p in critic.parameters()]
            opt.step()
        return losses, grads, [p.detach() for p in critic.parameters()]
    _both(run, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_maml_sine_regression(dtype):
    """MAML (Finn et al.) with one differentiable inner SGD step per task (functional weights,
    ``autograd.grad(..., create_graph=True)``) and an Adam meta-update of the initial weights."""
    def run(lib, dtype):
        params = _mlp_params(lib, dtype, [1, 20, 20, 1], seed=5)
        meta_opt = lib.optim.Adam(params, lr=1e-3)
        rng = np.random.default_rng(6)
        out = []
        for step in range(2):
            meta_opt.zero_grad()
            meta_loss = 0
            for task in range(3):
                amp, phase = rng.uniform(0.1, 5.0), rng.uniform(0, np.pi)
                xs = rng.uniform(-5, 5, (10, 1))
                xq = rng.uniform(-5, 5, (10, 1))
                xs_t, xq_t = (lib.tensor(a, dtype=getattr(lib, dtype)) for a in (xs, xq))
                ys_t, yq_t = (lib.tensor(amp * np.sin(a + phase), dtype=getattr(lib, dtype)) for a in (xs, xq))
                inner = lib.nn.functional.mse_loss(_mlp(lib, params, xs_t), ys_t)
                grads = lib.autograd.grad(inner, params, create_graph=True)
                fast = [p - 0.01 * g for p, g in zip(params, grads)]
                meta_loss = meta_loss + lib.nn.functional.mse_loss(_mlp(lib, fast, xq_t), yq_t)
            meta_loss = meta_loss / 3
            meta_loss.backward()
            out.append((meta_loss.detach(), [p.grad.clone() for p in params]))
            meta_opt.step()
        return out, [p.detach() for p in params]
    _both(run, dtype)


def _mlp_loss_fn(lib, dtype):
    """The MSE loss of a 3-4-2 tanh MLP as a function of its four parameter tensors."""
    x, y = _data(lib, dtype, (6, 3), 7), _data(lib, dtype, (6, 2), 8)

    def loss(*ps):
        return lib.nn.functional.mse_loss(_mlp(lib, ps, x), y)
    return loss, tuple(p.detach() for p in _mlp_params(lib, dtype, [3, 4, 2], seed=9))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mlp_loss_hessian_vector_product_and_full_hessian(dtype):
    def run(lib, dtype):
        loss, ps = _mlp_loss_fn(lib, dtype)
        vs = tuple(_data(lib, dtype, p.shape, 10 + i) for i, p in enumerate(ps))
        # Pearlmutter's trick by hand: grad of (grad . v)
        ws = [p.clone().requires_grad_(True) for p in ps]
        gs = lib.autograd.grad(loss(*ws), ws, create_graph=True)
        hv = lib.autograd.grad(sum((g * v).sum() for g, v in zip(gs, vs)), ws)
        F = lib.autograd.functional
        H = F.hessian(loss, ps)  # H[i][j]: shape ps[i].shape + ps[j].shape
        _, hvp = F.hvp(loss, ps, vs)
        _, vhp = F.vhp(loss, ps, vs)
        return hv, H, hvp, vhp
    _both(run, dtype)
    loss, ps = _mlp_loss_fn(nt, "float64")
    H = nt.autograd.functional.hessian(loss, ps)
    n = [p.numel() for p in ps]
    full = np.block([[H[i][j].numpy().reshape(n[i], n[j]) for j in range(4)] for i in range(4)])
    np.testing.assert_allclose(full, full.T, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pinn_loss_with_first_and_second_derivatives(dtype):
    """A physics-informed loss for u'' + pi^2 sin(pi x) = 0 on [-1, 1] with u(+-1) = 0: derivatives of
    a tanh MLP's output u(x) with respect to its input, then a gradient step on the weights."""
    def run(lib, dtype):
        params = _mlp_params(lib, dtype, [1, 16, 16, 1], seed=11)
        opt = lib.optim.Adam(params, lr=1e-2)
        x = lib.tensor(np.linspace(-1, 1, 12)[:, None], dtype=getattr(lib, dtype))
        bc = lib.tensor([[-1.0], [1.0]], dtype=getattr(lib, dtype))
        out = []
        for _ in range(3):
            opt.zero_grad()
            xr = x.clone().requires_grad_(True)
            u = _mlp(lib, params, xr)
            (du,) = lib.autograd.grad(u.sum(), xr, create_graph=True)
            (d2u,) = lib.autograd.grad(du.sum(), xr, create_graph=True)
            residual = d2u + np.pi ** 2 * lib.sin(np.pi * xr)
            loss = (residual ** 2).mean() + (_mlp(lib, params, bc) ** 2).mean()
            loss.backward()
            out.append((loss.detach(), du.detach(), d2u.detach(), [p.grad.clone() for p in params]))
            opt.step()
        return out
    _both(run, dtype)


def test_docs_higher_order_examples_run():
    """The Python blocks of docs/higher_order.md run, in order, and give the values they print."""
    import os
    import re
    path = os.path.join(os.path.dirname(__file__), "..", "docs", "higher_order.md")
    with open(path, encoding="utf-8") as fh:
        blocks = re.findall(r"```python\n(.*?)```", fh.read(), re.S)
    ns = {}
    exec("\n".join(blocks), ns)  # noqa: S102
    np.testing.assert_allclose(ns["H"].numpy(), [[1.2731, 1.0], [1.0, 3.6397]], atol=1e-4)
    np.testing.assert_allclose(ns["Hv"].numpy(), [1.2731, 1.0], atol=1e-4)
    np.testing.assert_allclose(ns["d2"].numpy(), [0.0, -0.6397], atol=1e-4)
