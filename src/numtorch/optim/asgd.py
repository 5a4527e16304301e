"""ASGD (mirrors ``torch.optim.ASGD``): SGD with a decaying step and a running average of the iterates."""
from __future__ import annotations

import numpy as np

from .. import _backend as B
from .._tensor import _make
from .optimizer import Optimizer, _check_lr, _real, _step_tensor

__all__ = ["ASGD"]


class ASGD(Optimizer):
    r"""Averaged SGD (Polyak & Juditsky).

    Per parameter :math:`\theta` with gradient :math:`g` (negated when ``maximize``), at step ``t``::

        g = g + weight_decay * theta
        theta = theta * (1 - lambd * eta) - eta * g
        ax = theta if mu == 1 else ax + mu * (theta - ax)      # the averaged iterate
        eta = lr / (1 + lambd * lr * t) ** alpha
        mu = 1 / max(1, t - t0)                                  # averaging starts after t0 steps

    State per parameter: ``step``, ``eta`` and ``mu`` (0-d float32 tensors, PyTorch's scalar dtype, so
    ``eta`` is rounded to float32 before it is used) and ``ax`` (the average; read it to evaluate).

    Raises:
        ValueError: a negative ``lr`` or ``weight_decay``.
    """

    _group_fallbacks = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
                 differentiable=False, capturable=False):
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        self._check_no_differentiable(differentiable)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _new_state(self, p, group):
        return {"step": _step_tensor(), "eta": _step_tensor(float(group["lr"])), "mu": _step_tensor(1.0),
                "ax": _make(B.zeros(p._data.shape, p._data.dtype))}

    def _update(self, group, lr, p, x, d, state, t):
        lambd = group["lambd"]
        eta_a, mu_a = state["eta"]._data, state["mu"]._data
        eta, mu = float(eta_a), float(mu_a)
        np.multiply(x, x.dtype.type(1 - lambd * eta), out=x)
        w = self._work(x, 1)
        np.multiply(d, x.dtype.type(eta), out=w)
        np.subtract(x, w, out=x)
        ax = _real(state["ax"]._data)
        if mu != 1:
            np.subtract(x, ax, out=w)
            np.multiply(w, x.dtype.type(mu), out=w)
            np.add(ax, w, out=ax)
        else:
            np.copyto(ax, x)
        # the new values are stored as float32 scalars, as PyTorch's copy_ into its 0-d state tensors
        eta_a[...] = lr / ((1 + lambd * lr * t) ** group["alpha"])
        mu_a[...] = 1 / max(1, t - group["t0"])
