"""Learning-rate schedulers (mirrors ``torch.optim.lr_scheduler``).

A scheduler owns nothing but bookkeeping: at each ``step()`` it computes new learning rates and writes
them into ``optimizer.param_groups[i]["lr"]``, where the optimizer reads them on its next step. Most
schedulers use PyTorch's *chainable* (recursive) form, each new lr derived from the group's current lr,
so several schedulers can act on one optimizer; formulas are evaluated in PyTorch's order so that the
floating-point sequences match PyTorch's exactly. ``step(epoch)`` (deprecated) uses the closed form.

The constructor performs an initial step (epoch 0). ``scheduler.step()`` belongs after
``optimizer.step()``; calling it first warns, as PyTorch does, detected by wrapping ``optimizer.step``.
"""
from __future__ import annotations

import math
import types
from bisect import bisect_right
from collections import Counter

from ._composite_schedulers import ChainedScheduler, SequentialLR
from ._cyclic_schedulers import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR
from ._plateau_scheduler import ReduceLROnPlateau
from ._scheduler_base import EPOCH_DEPRECATION_WARNING  # noqa: F401  (torch.optim.lr_scheduler has it too)
from ._scheduler_base import LRScheduler, _group_values, _warn_if_outside_step

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "PolynomialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR"]


_LRScheduler = LRScheduler  # the pre-2.0 name

# the classes defined in the private modules pickle under PyTorch's path, as the ones below do
for _cls in (LRScheduler, SequentialLR, ChainedScheduler, ReduceLROnPlateau, CyclicLR, CosineAnnealingWarmRestarts,
             OneCycleLR):
    _cls.__module__ = __name__
del _cls


class _LambdaBase(LRScheduler):
    """Shared by LambdaLR and MultiplicativeLR: one callable per group, saved by their ``__dict__``."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        """As the base, with ``lr_lambdas`` holding each callable object's ``__dict__`` (None for functions)."""
        return self._state_dict_with("lr_lambdas", [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                                                    for fn in self.lr_lambdas])

    def load_state_dict(self, state_dict):
        for fn, saved in zip(self.lr_lambdas, self._load_state_dict_but(state_dict, "lr_lambdas")):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaBase):
    """``lr = base_lr * lr_lambda(epoch)``; ``lr_lambda`` is one callable or a list, one per group."""

    def get_lr(self):
        _warn_if_outside_step(self)
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaBase):
    """``lr = lr * lr_lambda(epoch)`` at every step after the first."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        fns = lr_lambda if isinstance(lr_lambda, (list, tuple)) else [lr_lambda]
        for fn in fns:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, lr_lambda, last_epoch)

    def get_lr(self):
        _warn_if_outside_step(self)
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [g["lr"] * fn(self.last_epoch) for fn, g in zip(self.lr_lambdas, self.optimizer.param_groups)]


class _FactorSchedule(LRScheduler):
    """A schedule in PyTorch's chainable form ``lr = lr * factor``: ``_factor()`` gives the current
    epoch's factor, or None where the lr stays as it is."""

    def get_lr(self):
        _warn_if_outside_step(self)
        factor = self._factor()
        if factor is None:
            return _group_values(self.optimizer, "lr")
        return [g["lr"] * factor for g in self.optimizer.param_groups]


class StepLR(_FactorSchedule):
    """Multiply the lr by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _factor(self):
        return None if self.last_epoch == 0 or self.last_epoch % self.step_size != 0 else self.gamma

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(_FactorSchedule):
    """Multiply the lr by ``gamma`` at each epoch listed in ``milestones`` (repeats multiply again)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _factor(self):
        return self.gamma ** self.milestones[self.last_epoch] if self.last_epoch in self.milestones else None

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ConstantLR(_FactorSchedule):
    """Scale the lr by ``factor`` until epoch ``total_iters``, then restore it.

    Raises ValueError unless ``0 <= factor <= 1``.
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def _factor(self):
        if self.last_epoch == 0:
            return self.factor
        return 1.0 / self.factor if self.last_epoch == self.total_iters else None

    def _get_closed_form_lr(self):
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(_FactorSchedule):
    """Scale the lr linearly from ``start_factor`` to ``end_factor`` over ``total_iters`` epochs.

    Raises ValueError unless ``0 < start_factor <= 1`` and ``0 <= end_factor <= 1``.
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def _factor(self):
        if self.last_epoch == 0:
            return self.start_factor
        if self._is_initial or self.last_epoch > self.total_iters:
            return None
        span = self.end_factor - self.start_factor
        return 1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span)

    def _get_closed_form_lr(self):
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


class ExponentialLR(_FactorSchedule):
    """Multiply the lr by ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _factor(self):
        return None if self._is_initial else self.gamma

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(_FactorSchedule):
    """Decay the lr polynomially (``power``) to zero over ``total_iters`` epochs."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def _factor(self):
        if self._is_initial or self.last_epoch > self.total_iters:
            return None
        return ((1.0 - self.last_epoch / self.total_iters)
                / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power

    def _get_closed_form_lr(self):
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    r"""Cosine annealing from the base lr to ``eta_min`` over ``T_max`` epochs (then back up, periodically).

    Closed form :math:`\eta_t = \eta_{min} + (\eta_{base} - \eta_{min})(1 + \cos(\pi t / T_{max}))/2`;
    ``step()`` uses PyTorch's recursive form, whose values differ slightly in the last bits, and
    which respects lrs changed by other schedulers.
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_if_outside_step(self)
        groups, t, T, lo = self.optimizer.param_groups, self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        if self._step_count == 1 and t > 0:  # resumed: start from the closed form
            return [lo + (base_lr - lo) * (1 + math.cos(t * math.pi / T)) / 2 for base_lr in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:  # leaving the minimum of a period: the ratio below would be 0/0
            return [g["lr"] + (base_lr - lo) * (1 - math.cos(math.pi / T)) / 2
                    for base_lr, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T)) * (g["lr"] - lo) + lo
                for g in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]
