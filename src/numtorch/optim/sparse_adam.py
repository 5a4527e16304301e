"""SparseAdam (mirrors ``torch.optim.SparseAdam``): Adam for parameters whose gradients are sparse COO
tensors, such as ``nn.Embedding(sparse=True)``'s weight."""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from .._tensor_sparse import SparseCOO
from .optimizer import Optimizer, _no_grad_step, _to_scalar, _zeros_state

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    r"""Adam restricted to the rows a sparse gradient touches ("lazy" Adam).

    Per parameter, with the coalesced gradient's entries :math:`g` at positions :math:`I` (negated when
    ``maximize``), at step ``t``::

        m[I] += (1 - beta1) * (g - m[I])
        v[I] += (1 - beta2) * (g * g - v[I])
        theta[I] -= lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m[I] / (sqrt(v[I]) + eps)

    Entries outside :math:`I` keep their moments and values. State per parameter, created at its first
    step as in PyTorch: ``step`` (a Python int), ``exp_avg`` and ``exp_avg_sq`` (dense, like the parameter).

    Raises:
        ValueError: ``lr`` or ``eps`` not positive, a beta outside ``[0, 1)``, a sparse or complex parameter.
        RuntimeError: a dense gradient (at ``step``).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        sparse_params, complex_params = [], []
        for index, group in enumerate(self.param_groups):
            for d_index, p in enumerate(group["params"]):
                if p.is_sparse:
                    sparse_params.append([index, d_index])
                if p.is_complex():
                    complex_params.append([index, d_index])
        if sparse_params:
            raise ValueError(f"Sparse params at indices {sparse_params}: SparseAdam requires dense parameter tensors")
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not support complex "
                             f"parameters")

    @_no_grad_step
    def step(self, closure=None):
        """One update of every parameter that has a (sparse) gradient; returns ``closure()``'s loss."""
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad._data
                if type(g) is not SparseCOO:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                state = self.state[p]
                if len(state) == 0:
                    state.update(step=0, exp_avg=_zeros_state(p), exp_avg_sq=_zeros_state(p))
                state["step"] += 1
                self._update_rows(p, g, state, _to_scalar(group["lr"]), beta1, beta2, group["eps"],
                                  group.get("maximize", False))
        return loss

    @staticmethod
    def _update_rows(p, g, state, lr, beta1, beta2, eps, maximize):
        g = (-g if maximize else g).coalesce()  # the update is not linear: each position once
        if g.values.size == 0:
            return
        at = tuple(g.indices)
        vals, dt = g.values, g.values.dtype.type
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        old_m, old_v = m[at], v[at]
        dm = (vals - old_m) * dt(1 - beta1)
        dv = (vals * vals - old_v) * dt(1 - beta2)
        m[at] += dm
        v[at] += dv
        t = state["step"]
        step_size = lr * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        denom = np.sqrt(dv + old_v) + dt(eps)
        p._data[at] += dt(-step_size) * ((dm + old_m) / denom)
        for t_ in (p, state["exp_avg"], state["exp_avg_sq"]):
            t_._vc[0] += 1
