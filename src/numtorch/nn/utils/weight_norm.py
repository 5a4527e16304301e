"""Weight normalisation with a forward pre-hook (mirrors ``torch.nn.utils.weight_norm``, deprecated in
PyTorch in favour of ``torch.nn.utils.parametrizations.weight_norm``).

``w = g * v / ||v||``, the norm taken over every dim except ``dim`` (``norm_except_dim``): the
module's ``weight`` is replaced by parameters ``weight_g`` (the magnitudes) and ``weight_v`` (the
direction), and recomputed from them before each forward.
"""
from __future__ import annotations

import warnings

from ..._tensor import Tensor
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim"]


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """``torch.norm_except_dim``: the ``pow``-norm of ``v`` over every dim except ``dim``, shaped to
    broadcast against ``v`` (size 1 except along ``dim``); ``dim=-1`` takes the norm of the whole tensor
    (a 0-d result)."""
    if dim == -1:
        return v.norm(pow)
    dims = tuple(d for d in range(v.dim()) if d != dim)
    return v.norm(pow, dim=dims, keepdim=True) if dims else v.abs() if pow != 0 else v.norm(pow)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``torch._weight_norm``: ``v * (g / norm_except_dim(v, 2, dim))``."""
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes ``<name>`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module) -> Tensor:
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name: str, dim: int) -> "WeightNorm":
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name: str = "weight", dim: int = 0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (parameters ``<name>_g``, ``<name>_v``;
    ``dim=None`` normalises the whole tensor). Returns ``module``. Warns FutureWarning, as PyTorch.

    Raises RuntimeError when ``<name>`` already has weight norm.
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name: str = "weight"):
    """Fold ``<name>_g`` and ``<name>_v`` back into one parameter ``<name>``. Returns ``module``.

    Raises ValueError when ``module`` has no weight norm on ``<name>``.
    """
    return _remove_hook(module, WeightNorm, name, "weight_norm")


def _remove_hook(module, hook_cls, name: str, what: str):
    """Undo the ``hook_cls`` forward pre-hook on ``<name>`` (weight norm, spectral norm) and drop it.

    Raises ValueError when ``module`` has no such hook on ``<name>``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, hook_cls) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")
