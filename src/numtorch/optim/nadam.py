"""NAdam (mirrors ``torch.optim.NAdam``): Adam with Nesterov momentum and a momentum schedule."""
from __future__ import annotations

import numpy as np

from .. import _backend as B
from .._tensor import _make
from ._adam_family import check_adam_args, lerp_, square_avg_
from .optimizer import Optimizer, _bump, _no_grad_step, _real, _step_tensor, _to_scalar, _zeros_state

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

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (("maximize", False), ("foreach", None), ("capturable", False), ("differentiable", False),
                         ("decoupled_weight_decay", False)):
                group.setdefault(k, v)

    @_no_grad_step
    def step(self, closure=None):
        """Update every parameter that has a ``.grad``; returns ``closure()``'s loss if given."""
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            beta1, beta2 = (_to_scalar(b) for b in group["betas"])
            wd, eps, psi = group["weight_decay"], group["eps"], group["momentum_decay"]
            decoupled = group["decoupled_weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["mu_product"] = _make(B.full((), 1.0, np.float32))
                    state["exp_avg"] = _zeros_state(p)
                    state["exp_avg_sq"] = _zeros_state(p)
                t = _bump(state["step"])
                x = _real(p._data)
                dt = x.dtype.type
                if wd != 0 and decoupled:
                    np.multiply(x, dt(1 - lr * wd), out=x)
                d = self._grad_with_decay(x, _real(p.grad._data), 0 if decoupled else wd, group["maximize"])
                mu = beta1 * (1.0 - 0.5 * 0.96 ** (t * psi))
                mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * psi))
                mp = state["mu_product"]._data
                np.multiply(mp, mu, out=mp)  # kept in its own (float32) precision, as in PyTorch
                mu_product = float(mp)
                m, v = _real(state["exp_avg"]._data), _real(state["exp_avg_sq"]._data)
                w = self._work(x, 1)
                lerp_(m, d, 1 - beta1, w)
                square_avg_(v, d, beta2, w)
                denom = w
                np.divide(v, dt(1 - beta2 ** t), out=denom)
                np.sqrt(denom, out=denom)
                np.add(denom, dt(eps), out=denom)
                u = self._work(x, 2)
                np.divide(d, denom, out=u)
                np.multiply(u, dt(-lr * (1.0 - mu) / (1.0 - mu_product)), out=u)
                np.add(x, u, out=x)
                np.divide(m, denom, out=u)
                np.multiply(u, dt(-lr * mu_next / (1.0 - mu_product * mu_next)), out=u)
                np.add(x, u, out=x)
                p._vc[0] += 1
        return loss
