"""Adagrad (mirrors ``torch.optim.Adagrad``)."""
from __future__ import annotations

import numpy as np

from .. import _backend as B
from .._tensor import _make
from .optimizer import Optimizer, _bump, _check_lr, _real, _step_tensor

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

    _group_fallbacks = (("foreach", None), ("maximize", False), ("differentiable", False), ("fused", None))

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        for name, value in (("lr_decay value", lr_decay), ("weight_decay value", weight_decay),
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
                self.state[p].update(self._new_state(p, group))

    def _new_state(self, p, group):
        value = self.defaults["initial_accumulator_value"]
        state = {"step": _step_tensor(), "sum": _make(B.full(p._data.shape, value, p._data.dtype))}
        if p._data.dtype.kind == "c":  # PyTorch fills complex sums with value + value*1j
            _real(state["sum"]._data)[...] = value
        return state

    def _sparse_update(self, group, lr, p, state):
        """PyTorch's Adagrad on a sparse COO gradient: only the (coalesced) rows it lists update their sums
        and values. RuntimeError with weight decay, as in PyTorch."""
        t = _bump(state["step"])
        g = -p.grad._data if group["maximize"] else p.grad._data
        if group["weight_decay"] != 0:
            raise RuntimeError("weight_decay option is not compatible with sparse gradients")
        g = g.coalesce()  # the update is not linear: each position once
        at, v, dt = tuple(g.indices), g.values, p._data.dtype.type
        s = state["sum"]._data
        s[at] += v * v
        p._data[at] += dt(-lr / (1 + (t - 1) * group["lr_decay"])) * (v / (np.sqrt(s[at]) + dt(group["eps"])))
        state["sum"]._vc[0] += 1

    def _update(self, group, lr, p, x, d, state, t):
        dt = x.dtype.type
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
