"""Rprop (mirrors ``torch.optim.Rprop``): resilient backpropagation, steps sized by sign agreement."""
from __future__ import annotations

import numpy as np

from .. import _backend as B
from .._tensor import _make
from .optimizer import Optimizer, _check_lr, _real, _step_tensor

__all__ = ["Rprop"]


class Rprop(Optimizer):
    r"""Rprop: each element keeps its own step size, grown while the gradient keeps its sign and shrunk
    when the sign flips; only the gradient's sign moves the parameter.

    Per parameter :math:`\theta` with gradient :math:`g` (negated when ``maximize``) and the previous
    step's (masked) gradient ``prev``::

        s = sign(g * prev)                       # +1 agree, -1 flipped, 0 either is zero
        eta = etaplus where s > 0, etaminus where s < 0, 1 where s == 0
        step_size = clamp(step_size * eta, step_size_min, step_size_max)
        g = 0 where s < 0                        # after a flip, wait one step
        theta -= sign(g) * step_size
        prev = g

    State per parameter: ``step``, ``prev`` (zeros) and ``step_size`` (filled with ``lr``).

    Raises:
        ValueError: a negative ``lr``; ``etas`` not satisfying ``0 < etaminus < 1 < etaplus``.
    """

    _group_fallbacks = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        self._check_no_differentiable(differentiable)
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _new_state(self, p, group):
        data = p._data
        lr = float(group["lr"])
        return {"step": _step_tensor(), "prev": _make(B.zeros(data.shape, data.dtype)),
                "step_size": _make(B.full(data.shape, complex(lr, lr) if data.dtype.kind == "c" else lr,
                                          data.dtype))}

    def _update(self, group, lr, p, x, d, state, t):
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        prev, step_size = _real(state["prev"]._data), _real(state["step_size"]._data)
        sign = self._work(x, 1)
        np.multiply(d, prev, out=sign)
        np.sign(sign, out=sign)
        flipped = sign < 0
        sign[sign > 0] = etaplus
        sign[flipped] = etaminus
        sign[sign == 0] = 1
        np.multiply(step_size, sign, out=step_size)
        np.clip(step_size, lo, hi, out=step_size)
        np.copyto(prev, d)
        prev[flipped] = 0
        np.sign(prev, out=sign)
        np.multiply(sign, step_size, out=sign)
        np.subtract(x, sign, out=x)
