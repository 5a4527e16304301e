"""Flatten parameters to one vector and back (mirrors ``torch/nn/utils/convert_parameters.py``)."""
from __future__ import annotations

from ..._ops.rearrange import cat
from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters) -> Tensor:
    """All ``parameters`` flattened and concatenated into one 1-D tensor (differentiable, a copy)."""
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copy consecutive slices of the 1-D ``vec`` into ``parameters`` (their ``.data`` is replaced by views of
    ``vec``). TypeError when ``vec`` is not a Tensor."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
