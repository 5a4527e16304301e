"""Adadelta (mirrors ``torch.optim.Adadelta``)."""
from __future__ import annotations

import numpy as np

from ._adam_family import square_avg_
from .optimizer import Optimizer, _check_lr, _real

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

    _group_fallbacks = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))
    _state_buffers = ("square_avg", "acc_delta")

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check_lr(lr)
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

    def _update(self, group, lr, p, x, d, state, t):
        rho, eps = group["rho"], x.dtype.type(group["eps"])
        v, u = _real(state["square_avg"]._data), _real(state["acc_delta"]._data)
        std, delta = self._work(x, 1), self._work(x, 2)
        square_avg_(v, d, rho, std)
        np.add(v, eps, out=std)
        np.sqrt(std, out=std)
        np.add(u, eps, out=delta)
        np.sqrt(delta, out=delta)
        np.divide(delta, std, out=delta)
        np.multiply(delta, d, out=delta)
        square_avg_(u, delta, rho, std)
        np.multiply(delta, x.dtype.type(-lr), out=delta)
        np.add(x, delta, out=x)
