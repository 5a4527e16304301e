"""Stochastic gradient descent with momentum (mirrors ``torch.optim.SGD``)."""
from __future__ import annotations

import numpy as np

from .. import _backend as B
from .._tensor import _make
from .optimizer import Optimizer, _real

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""SGD with optional momentum, dampening, Nesterov momentum and L2 weight decay.

    Per parameter :math:`\theta` with gradient :math:`g` (negated when ``maximize``)::

        g = g + weight_decay * theta
        b = g                                    on the first step (no dampening)
        b = momentum * b + (1 - dampening) * g   afterwards
        g = g + momentum * b if nesterov else b  (only when momentum != 0)
        theta = theta - lr * g

    State per parameter: ``momentum_buffer`` (only when ``momentum != 0``).

    Raises:
        ValueError: negative ``lr``, ``momentum`` or ``weight_decay``; ``nesterov`` without momentum or
            with dampening.

    Example::

        >>> opt = numtorch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        >>> opt.zero_grad(); loss_fn(model(x), y).backward(); opt.step()
    """

    _group_fallbacks = (("nesterov", False), ("maximize", False), ("foreach", None), ("differentiable", False),
                        ("fused", False))

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        self._check_no_differentiable(differentiable)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)

    def _keeps_state(self, group):
        return group["momentum"] != 0

    def _new_state(self, p, group):
        return {}  # the momentum buffer starts as a copy of the first gradient

    def _sparse_update(self, group, lr, p, state):
        """PyTorch's SGD on a sparse COO gradient: the rows it lists move; a momentum buffer is sparse too
        (``buf = momentum * buf + (1 - dampening) * g``, merged as PyTorch's sparse add). Weight decay adds a
        dense tensor to the sparse gradient, which PyTorch refuses (RuntimeError)."""
        g = p.grad._data
        if group["maximize"]:
            g = -g
        if group["weight_decay"] != 0:
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
        momentum = group["momentum"]
        if momentum != 0:
            buf_t = state.get("momentum_buffer")
            if buf_t is None:
                buf = g.copy()
            else:
                dampening = group["dampening"]
                buf = buf_t._data * momentum + (g if dampening == 0 else g * (1 - dampening))
            state["momentum_buffer"] = _make(buf)
            g = g + buf * momentum if group["nesterov"] else buf
        np.add.at(p._data, tuple(g.indices), g.values * p._data.dtype.type(-lr))

    def _update(self, group, lr, p, x, d, state, t):
        dt = x.dtype.type
        if state is not None:
            momentum, dampening = group["momentum"], group["dampening"]
            buf_t = state.get("momentum_buffer")
            if buf_t is None:
                buf_t = state["momentum_buffer"] = _make(B.empty(p._data.shape, p._data.dtype, p.device))
                buf = _real(buf_t._data)
                np.copyto(buf, d)
            else:
                buf = _real(buf_t._data)
                np.multiply(buf, dt(momentum), out=buf)
                if dampening == 0:
                    np.add(buf, d, out=buf)
                else:
                    w = self._work(x, 1)
                    np.multiply(d, dt(1 - dampening), out=w)
                    np.add(buf, w, out=buf)
            if group["nesterov"]:
                w = self._work(x, 1)
                np.multiply(buf, dt(momentum), out=w)
                np.add(d, w, out=w)
                d = w
            else:
                d = buf
        w = self._work(x, 1)
        np.multiply(d, dt(-lr), out=w)
        np.add(x, w, out=x)
