"""The Gaussian negative log-likelihood loss (``F.gaussian_nll_loss``): a composite of differentiable ops, so
its gradients (w.r.t. the input, the target and the variance) and higher derivatives come from theirs."""
from __future__ import annotations

import math
import numbers

import numpy as np

from .._tensor import Tensor, _make
from . import pointwise as P, unary as U
from ._loss_args import clamped_var
from .losses import REDUCTIONS
from .reduction import mean, sum as sum_

__all__: list = []  # reached through nn.functional, as in PyTorch


def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """Gaussian negative log-likelihood ``0.5 (log var + (x - y)^2 / var)`` (``F.gaussian_nll_loss``).

    ``var`` may be a float, the input's shape, or one dim short / singleton in one dim (homoscedastic).
    ValueError for negative or badly shaped ``var`` and for an unknown reduction.
    """
    if isinstance(var, numbers.Number):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _make(np.full(input.shape, float(var), input._data.dtype))
    elif (var._data < 0).any():
        raise ValueError("var has negative entry/entries")
    if var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim() and sum(b for a, b in zip(input.shape, var.shape) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    var = clamped_var(var, eps)
    loss = P.mul(P.add(U.log(var), P.div(U.square(P.sub(input, target)), var)), 0.5)
    if full:
        loss = P.add(loss, 0.5 * math.log(2 * math.pi))
    return mean(loss) if reduction == "mean" else sum_(loss) if reduction == "sum" else loss
