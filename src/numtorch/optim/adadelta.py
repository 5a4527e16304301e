"""Adadelta (mirrors ``torch.optim.Adadelta``)."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .optimizer import Optimizer, _bump, _no_grad_step, _real, _step_tensor, _to_scalar, _zeros_state

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Adadelta: steps scaled by the ratio of running RMS of updates to running RMS of gradients.

    Per parameter :math:`\theta` with gradient :math:`g` (negated when ``maximize``)::

        g = g + weight_decay * theta
        v = rho * v + (1 - rho) * g * g
        delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta
        theta -= lr * delta

    State per parameter: ``step``, ``square_avg`` (v) and ``acc_delta`` (u).

    Raises:
        ValueError: a negative ``lr``, ``eps`` or ``weight_decay``; ``rho`` outside ``[0, 1]``.
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        self._check_no_differentiable(differentiable)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False)):
                group.setdefault(k, v)

    @_no_grad_step
    def step(self, closure=None):
        """Update every parameter that has a ``.grad``; returns ``closure()``'s loss if given."""
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            rho, eps = group["rho"], group["eps"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["square_avg"] = _zeros_state(p)
                    state["acc_delta"] = _zeros_state(p)
                _bump(state["step"])
                x = _real(p._data)
                dt = x.dtype.type
                d = self._grad_with_decay(x, _real(p.grad._data), group["weight_decay"], group["maximize"])
                v, u = _real(state["square_avg"]._data), _real(state["acc_delta"]._data)
                std, delta = self._work(x, 1), self._work(x, 2)
                np.multiply(v, dt(rho), out=v)
                np.multiply(d, dt(1 - rho), out=std)
                np.multiply(std, d, out=std)
                np.add(v, std, out=v)
                np.add(v, dt(eps), out=std)
                np.sqrt(std, out=std)
                np.add(u, dt(eps), out=delta)
                np.sqrt(delta, out=delta)
                np.divide(delta, std, out=delta)
                np.multiply(delta, d, out=delta)
                np.multiply(u, dt(rho), out=u)
                np.multiply(delta, dt(1 - rho), out=std)
                np.multiply(std, delta, out=std)
                np.add(u, std, out=u)
                np.multiply(delta, dt(-lr), out=delta)
                np.add(x, delta, out=x)
                p._vc[0] += 1
        return loss
