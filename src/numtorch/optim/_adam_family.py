"""Pieces shared by the Adam-family optimizers (``Adam``/``AdamW``, ``NAdam``, ``RAdam``, ``Adamax``):
option checks and in-place moment updates with PyTorch's arithmetic, so the numbers agree step by step.
``RMSprop`` and ``Adadelta`` keep the same running averages and use the updates too."""
from __future__ import annotations

import numpy as np

from .optimizer import _check_lr, _real, _to_scalar


def lerp_(m: np.ndarray, d: np.ndarray, weight: float, w: np.ndarray) -> None:
    """``m = lerp(m, d, weight)`` in PyTorch's two-sided form (accurate for weights near 1);
    ``w`` is a scratch buffer shaped like ``m``."""
    dt = m.dtype.type
    weight = dt(weight)
    np.subtract(d, m, out=w)
    if abs(weight) < 0.5:
        np.multiply(w, weight, out=w)
        np.add(m, w, out=m)
    else:
        np.multiply(w, dt(1) - weight, out=w)
        np.subtract(d, w, out=m)


def square_avg_(v: np.ndarray, d: np.ndarray, beta2: float, w: np.ndarray) -> None:
    """``v = beta2 * v + (1 - beta2) * d * d`` (PyTorch's ``mul_(beta2).addcmul_(d, d, 1 - beta2)``)."""
    dt = v.dtype.type
    np.multiply(v, dt(beta2), out=v)
    np.multiply(d, dt(1 - beta2), out=w)
    np.multiply(w, d, out=w)
    np.add(v, w, out=v)


def adam_moments_(opt, group: dict, x: np.ndarray, d: np.ndarray, state: dict):
    """The moment updates Adam, NAdam and RAdam share, in place: ``exp_avg = lerp(exp_avg, d, 1 - beta1)``
    and ``exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * d * d``.

    Returns ``(beta1, beta2, exp_avg, exp_avg_sq, w)``, the moments as (real) ndarrays and ``w`` the
    optimizer's scratch buffer 1, free again.
    """
    beta1, beta2 = map(_to_scalar, group["betas"])
    m, v = _real(state["exp_avg"]._data), _real(state["exp_avg_sq"]._data)
    w = opt._work(x, 1)
    lerp_(m, d, 1 - beta1, w)
    square_avg_(v, d, beta2, w)
    return beta1, beta2, m, v, w


def check_adam_args(lr, betas, eps, weight_decay) -> None:
    """PyTorch's ValueErrors for the options every Adam variant shares."""
    _check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
