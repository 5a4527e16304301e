"""Stochastic weight averaging and EMA of weights (mirrors ``torch.optim.swa_utils``).

``AveragedModel`` keeps a deep copy of a model whose parameters are a running average of the
model's (equal weights, SWA; or exponential, EMA); ``SWALR`` anneals each group's lr to a constant
``swa_lr``; ``update_bn`` recomputes BatchNorm statistics for the averaged weights.
"""
from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy

from .._dtype import int64
from .._ops.creation import tensor
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ._scheduler_base import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn",
           "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """``fn(averaged_list, current_list, num_averaged)`` that moves each averaged tensor in place towards
    the current one: ``avg = lerp(avg, cur, 1 - decay)`` (integer tensors: ``avg*decay + cur*(1-decay)``).

    Raises ValueError for ``decay`` outside ``[0, 1]``.
    """
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with no_grad():
            for ema, cur in zip(ema_param_list, current_param_list, strict=True):
                if ema.is_floating_point() or ema.is_complex():
                    ema.lerp_(cur, 1 - decay)
                else:
                    ema.copy_(ema * decay + cur * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """``fn(averaged_list, current_list, num_averaged)``: the equal-weight running mean, in place:
    ``avg += (cur - avg) / (num_averaged + 1)``."""

    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with no_grad():
            for avg, cur in zip(averaged_param_list, current_param_list, strict=True):
                if avg.is_floating_point() or avg.is_complex():
                    avg.lerp_(cur, float(1 / (num_averaged + 1)))
                elif isinstance(num_averaged, Tensor):
                    avg.addcdiv_(cur - avg, num_averaged + 1)
                else:
                    avg.add_(cur - avg, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """``fn(averaged, current, num_averaged) -> decay * averaged + (1 - decay) * current``."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """``fn(averaged, current, num_averaged) -> averaged + (current - averaged) / (num_averaged + 1)``."""

    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """``AveragedModel(model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False)``: a deep
    copy of ``model`` (``.module``) whose parameters (and buffers with ``use_buffers=True``) are averaged
    by ``update_parameters(model)``; calling it runs the copy. ``n_averaged`` (an int64 buffer) counts
    the updates; the first copies. Without ``avg_fn``/``multi_avg_fn`` the average is SWA's equal-weight
    mean; ``multi_avg_fn=get_ema_multi_avg_fn(0.99)`` gives an EMA. Without ``use_buffers``, buffers are
    copied from ``model`` at each update. The state_dict has ``module.``-prefixed keys and ``n_averaged``.

    Raises AssertionError when both ``avg_fn`` and ``multi_avg_fn`` are given.
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _pairs(self, model):
        if self.use_buffers:
            return zip(itertools.chain(self.module.parameters(), self.module.buffers()),
                       itertools.chain(model.parameters(), model.buffers()))
        return zip(self.parameters(), model.parameters())

    def update_parameters(self, model) -> None:
        """Fold ``model``'s current parameters into the average (the first call copies them)."""
        with no_grad():
            averaged, current = [], []
            first = int(self.n_averaged.item()) == 0
            for p_avg, p_model in self._pairs(model):
                cur = p_model.detach().to(p_avg.device)
                averaged.append(p_avg.detach())
                current.append(cur)
                if first:
                    p_avg.detach().copy_(cur)
            if not first:
                if self.avg_fn is None:
                    (self.multi_avg_fn or get_swa_multi_avg_fn())(averaged, current, self.n_averaged)
                else:
                    for p_avg, cur in zip(averaged, current, strict=True):
                        p_avg.copy_(self.avg_fn(p_avg, cur, self.n_averaged))
            if not self.use_buffers:
                for b_avg, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                    b_avg.detach().copy_(b_model.detach().to(b_avg.device))
            self.n_averaged += 1


def update_bn(loader, model, device=None) -> None:
    """Recompute the running statistics of every BatchNorm in ``model`` with one pass over ``loader``
    (batches, or ``(input, ...)`` tuples whose first item is the input), as a cumulative average
    (``momentum=None``); the modules' momenta and the model's training mode are restored after."""
    with no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """``SWALR(optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1)``: anneal each
    group's lr from its value to ``swa_lr`` (one per group, or one for all) over ``anneal_epochs`` steps,
    along a cosine (``"cos"``) or a line (``"linear"``), then hold it.

    Raises ValueError for another ``anneal_strategy``, a negative or non-int ``anneal_epochs``, or a
    ``swa_lr`` list whose length differs from the number of groups.
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for lr, group in zip(_format_param("swa_lr", optimizer, swa_lr), optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        # the lr the schedule started from, recovered from the current one (so hand-set lrs are honoured)
        return swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
