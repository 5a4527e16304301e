"""RAdam (mirrors ``torch.optim.RAdam``): Adam with a rectified adaptive learning rate."""
from __future__ import annotations

import numpy as np

from ._adam_family import adam_moments_, check_adam_args
from .optimizer import Optimizer

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

    _group_fallbacks = (("foreach", None), ("maximize", False), ("differentiable", False),
                        ("decoupled_weight_decay", False), ("capturable", False))
    _state_buffers = ("exp_avg", "exp_avg_sq")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        self._check_no_differentiable(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, group, lr, p, x, d, state, t):
        beta1, beta2, m, v, w = adam_moments_(self, group, x, d, state)
        dt = x.dtype.type
        bias_correction1, bias_correction2 = 1 - beta1 ** t, 1 - beta2 ** t
        u = self._work(x, 2)
        np.divide(m, dt(bias_correction1), out=u)  # the bias-corrected first moment
        np.multiply(u, dt(lr), out=u)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * t * (beta2 ** t) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            np.sqrt(v, out=w)
            np.add(w, dt(group["eps"]), out=w)
            np.divide(dt(bias_correction2 ** 0.5), w, out=w)  # the adaptive learning rate
            np.multiply(u, w, out=u)
            np.multiply(u, dt(rect), out=u)
        np.subtract(x, u, out=x)
