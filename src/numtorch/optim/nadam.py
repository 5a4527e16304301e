"""NAdam (mirrors ``torch.optim.NAdam``): Adam with Nesterov momentum and a momentum schedule."""
from __future__ import annotations

import numpy as np

from ._adam_family import adam_moments_, check_adam_args
from .optimizer import Optimizer, _step_tensor, _zeros_state

__all__ = ["NAdam"]


class NAdam(Optimizer):
    r"""NAdam (Dozat, 2016), with optional decoupled weight decay (NAdamW) and maximization.

    Per parameter :math:`\theta` with gradient :math:`g` (negated when ``maximize``), at step ``t``::

        g = g + weight_decay * theta          (or theta *= 1 - lr * weight_decay if decoupled)
        mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay));  prod_t = prod_{i<=t} mu_i
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g * g
        denom = sqrt(v / (1 - beta2**t)) + eps
        theta -= lr * (1 - mu_t) / (1 - prod_t) * g / denom + lr * mu_{t+1} / (1 - prod_t * mu_{t+1}) * m / denom

    State per parameter: ``step`` and ``mu_product`` (float32 0-d tensors, as PyTorch keeps them),
    ``exp_avg``, ``exp_avg_sq``.

    Raises:
        ValueError: a negative ``lr``, ``eps``, ``weight_decay`` or ``momentum_decay``, or a beta
            outside ``[0, 1)``.
    """

    _group_fallbacks = (("maximize", False), ("foreach", None), ("capturable", False), ("differentiable", False),
                        ("decoupled_weight_decay", False))

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        self._check_no_differentiable(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _new_state(self, p, group):
        return {"step": _step_tensor(), "mu_product": _step_tensor(1.0), "exp_avg": _zeros_state(p),
                "exp_avg_sq": _zeros_state(p)}

    def _update(self, group, lr, p, x, d, state, t):
        beta1, beta2, m, v, w = adam_moments_(self, group, x, d, state)
        psi = group["momentum_decay"]
        dt = x.dtype.type
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (t * psi))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * psi))
        mp = state["mu_product"]._data
        np.multiply(mp, mu, out=mp)  # kept in its own (float32) precision, as in PyTorch
        mu_product = float(mp)
        denom = w
        np.divide(v, dt(1 - beta2 ** t), out=denom)
        np.sqrt(denom, out=denom)
        np.add(denom, dt(group["eps"]), out=denom)
        u = self._work(x, 2)
        np.divide(d, denom, out=u)
        np.multiply(u, dt(-lr * (1.0 - mu) / (1.0 - mu_product)), out=u)
        np.add(x, u, out=x)
        np.divide(m, denom, out=u)
        np.multiply(u, dt(-lr * mu_next / (1.0 - mu_product * mu_next)), out=u)
        np.add(x, u, out=x)
