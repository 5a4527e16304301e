"""Full backward hooks for modules (mirrors ``torch.utils.hooks.BackwardHook`` and
``torch.nn.modules._functions.BackwardHookFunction``).

``Module.__call__`` routes the tensors entering and leaving ``forward`` through an identity
autograd ``Function``. During backward the output-side node runs first and sees the gradients
w.r.t. the module's outputs (backward pre-hooks may replace them); the input-side node runs once
the gradients w.r.t. the inputs are known and calls ``hook(module, grad_input, grad_output)``.
"""
from __future__ import annotations

import warnings

from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled

__all__ = ["BackwardHook", "BackwardHookFunction"]


class BackwardHookFunction(Function):
    """Identity on its tensor arguments; hooks on its backward node see the gradients passing by."""

    @staticmethod
    def forward(ctx, *args):
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


class BackwardHook:
    """Wires one module call into the graph (mirrors ``torch.utils.hooks.BackwardHook``).

    The output-side identity node fires first during backward: it records ``grad_output`` (after
    the backward pre-hooks, which may replace it). The input-side node fires when the gradients
    w.r.t. the inputs are known and calls the full backward hooks with ``(module, grad_input,
    grad_output)``; a returned tuple replaces ``grad_input``. Non-tensor arguments get ``None``.
    """

    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_idx = self.output_idx = None

    @staticmethod
    def _pack(idx, values, size):
        res = [None] * size
        for i, v in zip(idx, values):
            res[i] = v
        return tuple(res)

    @staticmethod
    def _wrap(args, on_node):
        """Route the tensors in ``args`` that require grad through the identity Function.

        PyTorch routes every tensor and marks the others non-differentiable; routing only those that
        require grad gives the hooks the same view (``None`` for the rest) with a smaller graph.
        """
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if not idx or not is_grad_enabled():
            return args, None
        outs = BackwardHookFunction.apply(*[args[i] for i in idx])
        on_node(outs[0].grad_fn)
        new = list(args)
        for i, o in zip(idx, outs):
            new[i] = o
        return (tuple(new) if type(args) is tuple else type(args)(*new)), idx

    def setup_input_hook(self, args):
        res, self.input_idx = self._wrap(args, lambda node: node.register_hook(self._input_hook))
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, result):
        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, self.output_idx = self._wrap(args, lambda node: node.register_hook(self._output_hook))
        self.n_outputs = len(args)
        return res if is_tuple else res[0]

    def _input_hook(self, grad_input, _):
        if self.grad_outputs is None:  # the gradient reached the inputs without passing the outputs
            return None
        res = self._pack(self.input_idx, grad_input, self.n_inputs)
        for hook in self.hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(out)}, but "
                                   f"expected {len(res)}")
            res = out
        self.grad_outputs = None
        return tuple(res[i] for i in self.input_idx)

    def _output_hook(self, _, grad_output):
        self.grad_outputs = self._pack(self.output_idx, grad_output, self.n_outputs)
        for hook in self.pre_hooks:
            out = hook(self.module, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(self.grad_outputs):
                raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got {len(out)}, "
                                   f"but expected {len(self.grad_outputs)}")
            self.grad_outputs = out
        local = self.grad_outputs
        if self.input_idx is None:  # no input requires grad: the hooks fire here, with grad_input all None
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                          "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                          "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=5)
            grad_inputs = (None,) * self.n_inputs
            for hook in self.hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_idx)
