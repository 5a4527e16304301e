"""Adagrad (mirrors ``torch.optim.Adagrad``)."""
from __future__ import annotations

import numpy as np

from .. import _backend as B
from .._tensor import Tensor, _make
from .optimizer import Optimizer, _bump, _no_grad_step, _real, _step_tensor, _to_scalar

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad: per-coordinate step sizes from the running sum of squared gradients.

    Per parameter :math:`\theta` with gradient :math:`g` (negated when ``maximize``), at step ``t``::

        g = g + weight_decay * theta
        lr_t = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g
        theta -= lr_t * g / (sqrt(s) + eps)

    State per parameter, created for every parameter at construction as in PyTorch: ``step``
    (float32 0-d tensor) and ``sum`` (filled with ``initial_accumulator_value``).

    Raises:
        ValueError: a negative ``lr``, ``lr_decay``, ``weight_decay``, ``initial_accumulator_value``
            or ``eps``.
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        for name, value in (("learning rate", lr), ("lr_decay value", lr_decay), ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value),
                            ("epsilon value", eps)):
            if not 0.0 <= value:
                raise ValueError(f"Invalid {name}: {value}")
        self._check_no_differentiable(differentiable)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p):
        state = self.state[p]
        state["step"] = _step_tensor()
        state["sum"] = _make(B.full(p._data.shape, self.defaults["initial_accumulator_value"], p._data.dtype))
        if p._data.dtype.kind == "c":  # PyTorch fills complex sums with value + value*1j
            _real(state["sum"]._data)[...] = self.defaults["initial_accumulator_value"]

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (("foreach", None), ("maximize", False), ("differentiable", False), ("fused", None)):
                group.setdefault(k, v)

    @_no_grad_step
    def step(self, closure=None):
        """Update every parameter that has a ``.grad``; returns ``closure()``'s loss if given."""
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr = _to_scalar(group["lr"])
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    self._init_state(p)
                t = _bump(state["step"])
                x = _real(p._data)
                dt = x.dtype.type
                d = self._grad_with_decay(x, _real(p.grad._data), group["weight_decay"], group["maximize"])
                clr = lr / (1 + (t - 1) * group["lr_decay"])
                s = _real(state["sum"]._data)
                w = self._work(x, 1)
                np.multiply(d, d, out=w)
                np.add(s, w, out=s)
                np.sqrt(s, out=w)
                np.add(w, dt(group["eps"]), out=w)
                u = self._work(x, 0)
                np.multiply(d, dt(-clr), out=u)
                np.divide(u, w, out=u)
                np.add(x, u, out=x)
                p._vc[0] += 1
        return loss
