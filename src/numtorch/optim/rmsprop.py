"""RMSprop (mirrors ``torch.optim.RMSprop``)."""
from __future__ import annotations

import numpy as np

from ._adam_family import lerp_, square_avg_
from .optimizer import Optimizer, _check_lr, _fresh_state, _real

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""RMSprop, optionally centered and with momentum.

    Per parameter :math:`\theta` with gradient :math:`g` (negated when ``maximize``)::

        g = g + weight_decay * theta
        v = alpha * v + (1 - alpha) * g * g
        a = lerp(a, g, 1 - alpha);  s = sqrt(v - a * a) + eps     (centered)
        s = sqrt(v) + eps                                         (otherwise)
        b = momentum * b + g / s;  theta -= lr * b                (momentum > 0)
        theta -= lr * g / s                                       (otherwise)

    State per parameter: ``step``, ``square_avg``, and ``momentum_buffer`` (momentum > 0) and
    ``grad_avg`` (centered).

    Raises:
        ValueError: a negative ``lr``, ``eps``, ``momentum``, ``weight_decay`` or ``alpha``.
    """

    _group_fallbacks = (("momentum", 0), ("centered", False), ("foreach", None), ("maximize", False),
                        ("differentiable", False), ("capturable", False))

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_lr(lr)
        for name, value in (("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        self._check_no_differentiable(differentiable)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _new_state(self, p, group):
        return _fresh_state(p, "square_avg", *(("momentum_buffer",) if group["momentum"] > 0 else ()),
                            *(("grad_avg",) if group["centered"] else ()))

    def _update(self, group, lr, p, x, d, state, t):
        alpha, momentum = group["alpha"], group["momentum"]
        dt = x.dtype.type
        v = _real(state["square_avg"]._data)
        s = self._work(x, 1)
        square_avg_(v, d, alpha, s)
        if group["centered"]:
            a = _real(state["grad_avg"]._data)
            lerp_(a, d, 1 - alpha, s)
            np.multiply(a, a, out=s)
            np.subtract(v, s, out=s)
            np.sqrt(s, out=s)
        else:
            np.sqrt(v, out=s)
        np.add(s, dt(group["eps"]), out=s)
        if momentum > 0:
            buf = _real(state["momentum_buffer"]._data)
            np.multiply(buf, dt(momentum), out=buf)
            np.divide(d, s, out=s)
            np.add(buf, s, out=buf)
            np.multiply(buf, dt(-lr), out=s)
            np.add(x, s, out=x)
        else:
            u = self._work(x, 0)
            np.multiply(d, dt(-lr), out=u)
            np.divide(u, s, out=u)
            np.add(x, u, out=x)
