"""RAdam (mirrors ``torch.optim.RAdam``): Adam with a rectified adaptive learning rate."""
from __future__ import annotations

import numpy as np

from ._adam_family import check_adam_args, lerp_, square_avg_
from .optimizer import Optimizer, _bump, _no_grad_step, _real, _step_tensor, _to_scalar, _zeros_state

__all__ = ["RAdam"]


class RAdam(Optimizer):
    r"""RAdam (Liu et al., 2019), with optional decoupled weight decay and maximization.

    Per parameter :math:`\theta` with gradient :math:`g` (negated when ``maximize``), at step ``t``::

        g = g + weight_decay * theta          (or theta *= 1 - lr * weight_decay if decoupled)
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
        m_hat = m / (1 - beta1**t)
        rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)
        if rho_t > 5:  r = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
                       theta -= lr * m_hat * sqrt(1 - beta2**t) / (sqrt(v) + eps) * r
        else:          theta -= lr * m_hat

    State per parameter: ``step``, ``exp_avg``, ``exp_avg_sq``.

    Raises:
        ValueError: a negative ``lr``, ``eps`` or ``weight_decay``, or a beta outside ``[0, 1)``.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        self._check_no_differentiable(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (("foreach", None), ("maximize", False), ("differentiable", False),
                         ("decoupled_weight_decay", False), ("capturable", False)):
                group.setdefault(k, v)

    @_no_grad_step
    def step(self, closure=None):
        """Update every parameter that has a ``.grad``; returns ``closure()``'s loss if given."""
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            beta1, beta2 = (_to_scalar(b) for b in group["betas"])
            wd, eps, decoupled = group["weight_decay"], group["eps"], group["decoupled_weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["exp_avg"] = _zeros_state(p)
                    state["exp_avg_sq"] = _zeros_state(p)
                t = _bump(state["step"])
                x = _real(p._data)
                dt = x.dtype.type
                if wd != 0 and decoupled:
                    np.multiply(x, dt(1 - lr * wd), out=x)
                d = self._grad_with_decay(x, _real(p.grad._data), 0 if decoupled else wd, group["maximize"])
                m, v = _real(state["exp_avg"]._data), _real(state["exp_avg_sq"]._data)
                w = self._work(x, 1)
                lerp_(m, d, 1 - beta1, w)
                square_avg_(v, d, beta2, w)
                bias_correction1, bias_correction2 = 1 - beta1 ** t, 1 - beta2 ** t
                u = self._work(x, 2)
                np.divide(m, dt(bias_correction1), out=u)  # the bias-corrected first moment
                np.multiply(u, dt(lr), out=u)
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * t * (beta2 ** t) / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    np.sqrt(v, out=w)
                    np.add(w, dt(eps), out=w)
                    np.divide(dt(bias_correction2 ** 0.5), w, out=w)  # the adaptive learning rate
                    np.multiply(u, w, out=u)
                    np.multiply(u, dt(rect), out=u)
                np.subtract(x, u, out=x)
                p._vc[0] += 1
        return loss
