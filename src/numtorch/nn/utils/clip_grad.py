"""Gradient clipping (mirrors ``torch/nn/utils/clip_grad.py``).

Typical use, between ``loss.backward()`` and ``optimizer.step()``::

    total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
"""
from __future__ import annotations

import types
import warnings

import numpy as np

from ..._tensor import Tensor, _make
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _vector_norm(arr: np.ndarray, p: float) -> np.ndarray:
    """``torch.linalg.vector_norm`` of a flattened array, kept in the array's dtype."""
    flat = arr.reshape(-1)
    if p == 2.0:
        return np.sqrt(np.dot(flat, flat)) if flat.size else np.zeros((), arr.dtype)
    return np.asarray(np.linalg.norm(flat, ord=p), dtype=arr.dtype)


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` together, as if concatenated (``torch.nn.utils.get_total_norm``).

    A 0-d tensor (``tensor(0.)`` for no tensors). ``norm_type`` may be ``inf``. RuntimeError when
    ``error_if_nonfinite`` and the norm is nan or inf. ``foreach`` is accepted and ignored.
    """
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _make(np.zeros((), np.float32))
    norms = np.stack([_vector_norm(t._data, norm_type) for t in tensors])
    total = _vector_norm(norms, norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           f"it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           f"norm anyway, set `error_if_nonfinite=False`")
    return _make(np.asarray(total))


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    """Scale every ``.grad`` in place by ``min(1, max_norm / (total_norm + 1e-6))``
    (``torch.nn.utils.clip_grads_with_norm_``)."""
    parameters = [parameters] if isinstance(parameters, Tensor) else parameters
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return
    coef = min(float(max_norm) / (total_norm._data + 1e-6), 1.0)
    with no_grad(), np.errstate(invalid="ignore"):  # inf * 0 -> nan, silently, as in PyTorch
        for g in grads:
            g.mul_(_make(np.asarray(coef, dtype=total_norm._data.dtype)))


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Rescale the gradients of ``parameters`` (a Tensor or an iterable) in place so that their joint
    ``norm_type``-norm is at most ``max_norm`` (``torch.nn.utils.clip_grad_norm_``).

    Returns the total norm before clipping (0-d tensor). Parameters without ``.grad`` are skipped;
    ``norm_type`` may be ``float("inf")``. RuntimeError for a non-finite norm when
    ``error_if_nonfinite``. Warns for an empty generator.
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=3)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """Deprecated alias of ``clip_grad_norm_`` (FutureWarning)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every ``.grad`` of ``parameters`` in place to ``[-clip_value, clip_value]``
    (``torch.nn.utils.clip_grad_value_``)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    with no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
