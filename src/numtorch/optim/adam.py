"""Adam (mirrors ``torch.optim.Adam``); ``AdamW`` reuses it with decoupled weight decay."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._adam_family import adam_moments_, check_adam_args
from .optimizer import Optimizer, _fresh_state, _real, _to_scalar

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

    _sparse_refusal = "Adam does not support sparse gradients, please consider SparseAdam instead"

    _group_fallbacks = (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
                        ("differentiable", False), ("decoupled_weight_decay", False), ("fused", None))

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

    def _new_state(self, p, group):
        return _fresh_state(p, "exp_avg", "exp_avg_sq", *(("max_exp_avg_sq",) if group["amsgrad"] else ()))

    def _update(self, group, lr, p, x, d, state, t):
        beta1, beta2, m, v, w = adam_moments_(self, group, x, d, state)
        dt = x.dtype.type
        if group["amsgrad"]:
            vmax = _real(state["max_exp_avg_sq"]._data)
            np.maximum(vmax, v, out=vmax)
            v = vmax
        step_size = lr / (1 - beta1 ** t)
        bias_correction2_sqrt = (1 - beta2 ** t) ** 0.5
        denom = w
        np.sqrt(v, out=denom)
        np.divide(denom, dt(bias_correction2_sqrt), out=denom)
        np.add(denom, dt(group["eps"]), out=denom)
        u = self._work(x, 0)  # free now: d (if it lived here) was last used above
        np.multiply(m, dt(-step_size), out=u)
        np.divide(u, denom, out=u)
        np.add(x, u, out=x)
