"""RMSprop (mirrors ``torch.optim.RMSprop``)."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .optimizer import Optimizer, _bump, _no_grad_step, _real, _step_tensor, _to_scalar, _zeros_state

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

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        for name, value in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        self._check_no_differentiable(differentiable)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=capturable, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (("momentum", 0), ("centered", False), ("foreach", None), ("maximize", False),
                         ("differentiable", False), ("capturable", False)):
                group.setdefault(k, v)

    @_no_grad_step
    def step(self, closure=None):
        """Update every parameter that has a ``.grad``; returns ``closure()``'s loss if given."""
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            alpha, eps, momentum, centered = group["alpha"], group["eps"], group["momentum"], group["centered"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["square_avg"] = _zeros_state(p)
                    if momentum > 0:
                        state["momentum_buffer"] = _zeros_state(p)
                    if centered:
                        state["grad_avg"] = _zeros_state(p)
                _bump(state["step"])
                x = _real(p._data)
                dt = x.dtype.type
                d = self._grad_with_decay(x, _real(p.grad._data), group["weight_decay"], group["maximize"])
                v = _real(state["square_avg"]._data)
                s = self._work(x, 1)
                np.multiply(v, dt(alpha), out=v)
                np.multiply(d, dt(1 - alpha), out=s)
                np.multiply(s, d, out=s)
                np.add(v, s, out=v)
                if centered:
                    a = _real(state["grad_avg"]._data)
                    weight = dt(1 - alpha)
                    np.subtract(d, a, out=s)
                    if abs(weight) < 0.5:
                        np.multiply(s, weight, out=s)
                        np.add(a, s, out=a)
                    else:
                        np.multiply(s, dt(1) - weight, out=s)
                        np.subtract(d, s, out=a)
                    np.multiply(a, a, out=s)
                    np.subtract(v, s, out=s)
                    np.sqrt(s, out=s)
                else:
                    np.sqrt(v, out=s)
                np.add(s, dt(eps), out=s)
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
                p._vc[0] += 1
        return loss
