"""Adam (mirrors ``torch.optim.Adam``); ``AdamW`` reuses it with decoupled weight decay."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .optimizer import Optimizer, _bump, _no_grad_step, _real, _step_tensor, _to_scalar, _zeros_state
from ._adam_family import check_adam_args

__all__ = ["Adam"]


class Adam(Optimizer):
    r"""Adam, with optional AMSGrad, maximization and weight decay.

    Per parameter :math:`\theta` with gradient :math:`g` (negated when ``maximize``), at step ``t``::

        g = g + weight_decay * theta              (L2; or theta *= 1 - lr * weight_decay if decoupled)
        m = lerp(m, g, 1 - beta1)
        v = beta2 * v + (1 - beta2) * g * g
        v_max = max(v_max, v)                      (amsgrad; then used in place of v)
        theta -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

    State per parameter: ``step`` (float32 0-d tensor), ``exp_avg``, ``exp_avg_sq`` and, with
    ``amsgrad``, ``max_exp_avg_sq``. ``foreach``/``fused``/``capturable`` are accepted for PyTorch
    compatibility and do not change the math.

    Raises:
        ValueError: negative ``lr``, ``eps`` or ``weight_decay``; a beta outside ``[0, 1)``; betas not
            both floats (or both Tensors).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        check_adam_args(lr, betas, eps, weight_decay)
        if not (all(isinstance(b, float) for b in betas) or all(isinstance(b, Tensor) for b in betas)):
            raise ValueError("betas must be either both floats or both Tensors")
        self._check_no_differentiable(differentiable)
        betas = tuple(_to_scalar(b) for b in betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
                         ("differentiable", False), ("decoupled_weight_decay", False), ("fused", None)):
                group.setdefault(k, v)

    @_no_grad_step
    def step(self, closure=None):
        """Update every parameter that has a ``.grad``; returns ``closure()``'s loss if given."""
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            beta1, beta2 = (_to_scalar(b) for b in group["betas"])
            wd, eps, amsgrad = group["weight_decay"], group["eps"], group["amsgrad"]
            decoupled = group["decoupled_weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["exp_avg"] = _zeros_state(p)
                    state["exp_avg_sq"] = _zeros_state(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = _zeros_state(p)
                t = _bump(state["step"])
                x = _real(p._data)
                dt = x.dtype.type
                if wd != 0 and decoupled:
                    np.multiply(x, dt(1 - lr * wd), out=x)
                d = self._grad_with_decay(x, _real(p.grad._data), 0 if decoupled else wd, group["maximize"])
                m, v = _real(state["exp_avg"]._data), _real(state["exp_avg_sq"]._data)
                w = self._work(x, 1)
                # m = lerp(m, d, 1 - beta1), in PyTorch's two-sided form for accuracy
                weight = dt(1 - beta1)
                np.subtract(d, m, out=w)
                if abs(weight) < 0.5:
                    np.multiply(w, weight, out=w)
                    np.add(m, w, out=m)
                else:
                    np.multiply(w, dt(1) - weight, out=w)
                    np.subtract(d, w, out=m)
                # v = beta2 * v + (1 - beta2) * d * d
                np.multiply(v, dt(beta2), out=v)
                np.multiply(d, dt(1 - beta2), out=w)
                np.multiply(w, d, out=w)
                np.add(v, w, out=v)
                if amsgrad:
                    vmax = _real(state["max_exp_avg_sq"]._data)
                    np.maximum(vmax, v, out=vmax)
                    v = vmax
                step_size = lr / (1 - beta1 ** t)
                bias_correction2_sqrt = (1 - beta2 ** t) ** 0.5
                denom = w
                np.sqrt(v, out=denom)
                np.divide(denom, dt(bias_correction2_sqrt), out=denom)
                np.add(denom, dt(eps), out=denom)
                u = self._work(x, 0)  # free now: d (if it lived here) was last used above
                np.multiply(m, dt(-step_size), out=u)
                np.divide(u, denom, out=u)
                np.add(x, u, out=x)
                p._vc[0] += 1
        return loss
