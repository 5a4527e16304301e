"""Adafactor (mirrors ``torch.optim.Adafactor``, which lives in ``torch/optim/_adafactor.py``)."""
from __future__ import annotations

import numpy as np

from .. import _backend as B
from .._tensor import Tensor, _make
from .optimizer import Optimizer, _step_tensor

__all__ = ["Adafactor"]


def _lerp_(a: np.ndarray, end: np.ndarray, weight: float) -> None:
    """``a.lerp_(end, weight)``: ``a += weight * (end - a)`` in place."""
    a += a.dtype.type(weight) * (end - a)


class Adafactor(Optimizer):
    r"""Adafactor (Shazeer & Stern, 2018): Adam-like steps with a factored second moment, so a matrix
    parameter keeps one row and one column of statistics instead of a full copy.

    Per parameter :math:`\theta` (shape ``(..., R, C)`` or a vector/scalar) with gradient :math:`g`
    (negated when ``maximize``), at step ``t``::

        beta = t ** beta2_decay                        # weight of the new statistics
        rho = min(lr, 1 / sqrt(t))
        alpha = max(eps2, rms(theta)) * rho            # relative step size
        theta *= 1 - lr * weight_decay                 # decoupled weight decay
        matrices:  row = lerp(row, mean(g**2, -1), beta); col = lerp(col, mean(g**2, -2), beta)
                   v = (row @ col) / max(mean(row, -2), eps1)
        otherwise: v = lerp(v, g**2, beta)
        u = g / sqrt(max(v, eps1**2))
        theta -= alpha / max(1, rms(u) / d) * u

    ``eps1=None`` means the parameter dtype's machine epsilon. State per parameter: ``step`` and
    either ``row_var`` (shape ``(..., R, 1)``) and ``col_var`` (``(..., 1, C)``) or ``variance``.

    Raises:
        ValueError: a negative ``lr``, ``eps`` or ``weight_decay``; ``beta2_decay > 0``; ``d < 1``.
        RuntimeError: a complex parameter.
    """

    _group_fallbacks = (("foreach", None),)

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    def _new_state(self, p, group):
        data = p._data
        if data.dtype.kind == "c":
            raise RuntimeError("Adafactor does not support complex parameters")
        state = {"step": _step_tensor()}
        if data.ndim > 1:
            state["row_var"] = _make(B.zeros(data.shape[:-1] + (1,), data.dtype))
            state["col_var"] = _make(B.zeros(data.shape[:-2] + (1, data.shape[-1]), data.dtype))
        else:
            state["variance"] = _make(B.zeros(data.shape, data.dtype))
        return state

    def _grad_with_decay(self, p, g, weight_decay, maximize):
        # Adafactor's weight decay is decoupled and applied in _update, after alpha reads theta
        return super()._grad_with_decay(p, g, 0, maximize)

    def _update(self, group, lr, p, x, d, state, t):
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = float(np.finfo(x.dtype).eps)
        beta = t ** group["beta2_decay"]
        rho = min(lr, 1 / t ** 0.5)
        alpha = max(eps2, float(np.sqrt(np.sum(x * x))) / x.size ** 0.5) * rho
        if group["weight_decay"] != 0:
            np.multiply(x, x.dtype.type(1 - lr * group["weight_decay"]), out=x)
        sq = d * d
        if x.ndim > 1:
            row, col = state["row_var"]._data, state["col_var"]._data
            _lerp_(row, np.square(np.sqrt(sq.sum(-1, keepdims=True))) / x.dtype.type(x.shape[-1]), beta)
            _lerp_(col, np.square(np.sqrt(sq.sum(-2, keepdims=True))) / x.dtype.type(x.shape[-2]), beta)
            v = np.matmul(row, col)
            v /= np.maximum(row.mean(-2, keepdims=True), x.dtype.type(eps1))
        else:
            var = state["variance"]._data
            _lerp_(var, sq, beta)
            v = var.copy()
        np.maximum(v, x.dtype.type(eps1 * eps1), out=v)
        u = np.multiply(1 / np.sqrt(v), d)
        denom = max(1.0, float(np.sqrt(np.sum(u * u))) / (u.size ** 0.5 * group["d"]))
        x += x.dtype.type(-alpha / denom) * u
