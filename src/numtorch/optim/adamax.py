"""Adamax (mirrors ``torch.optim.Adamax``): Adam with the infinity norm in place of the second moment."""
from __future__ import annotations

import numpy as np

from ._adam_family import check_adam_args, lerp_
from .optimizer import Optimizer, _real, _to_scalar

__all__ = ["Adamax"]


class Adamax(Optimizer):
    r"""Adamax (Kingma & Ba, 2014, section 7), with optional maximization and L2 weight decay.

    Per parameter :math:`\theta` with gradient :math:`g` (negated when ``maximize``), at step ``t``::

        g = g + weight_decay * theta
        m = lerp(m, g, 1 - beta1)
        u = max(beta2 * u, |g| + eps)
        theta -= lr / (1 - beta1**t) * m / u

    State per parameter: ``step``, ``exp_avg``, ``exp_inf``.

    Raises:
        ValueError: a negative ``lr``, ``eps`` or ``weight_decay``, or a beta outside ``[0, 1)``.
    """

    _group_fallbacks = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))
    _state_buffers = ("exp_avg", "exp_inf")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        self._check_no_differentiable(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, group, lr, p, x, d, state, t):
        beta1, beta2 = map(_to_scalar, group["betas"])
        dt = x.dtype.type
        m, u = _real(state["exp_avg"]._data), _real(state["exp_inf"]._data)
        w = self._work(x, 1)
        lerp_(m, d, 1 - beta1, w)
        np.multiply(u, dt(beta2), out=u)
        np.abs(d, out=w)
        np.add(w, dt(group["eps"]), out=w)
        np.maximum(u, w, out=u)
        np.divide(m, u, out=w)
        np.multiply(w, dt(-lr / (1 - beta1 ** t)), out=w)
        np.add(x, w, out=x)
