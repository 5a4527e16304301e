"""Finite-difference gradient checking (mirrors ``torch.autograd.gradcheck``)."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make
from .engine import grad as _grad
from .grad_mode import no_grad

__all__ = ["gradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytical and numerical gradients disagree."""


def _outputs(fn, inputs):
    out = fn(*inputs)
    return [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(o, Tensor)]


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, fast_mode=False, **_ignored) -> bool:
    """Compare autograd's gradients of ``func(*inputs)`` with central differences.

    Every input Tensor with ``requires_grad=True`` should be float64 (float32 differences are too
    noisy; a warning-free check needs double precision). For each output element the analytical
    row of the Jacobian (from ``autograd.grad``) is compared with ``(f(x+eps) - f(x-eps)) / (2 eps)``
    elementwise: ``|a - n| <= atol + rtol * |n|``.

    Returns True, or raises GradcheckError naming the input, output and the two Jacobians
    (returns False instead when ``raise_exception=False``).
    """
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the "
                         "them have requires_grad=True.")
    outs = _outputs(func, inputs)
    for oi, out in enumerate(outs):
        if not out.requires_grad:
            continue
        n_out = out.numel()
        for ii in diff:
            x = inputs[ii]
            analytical = np.zeros((x.numel(), n_out))
            for j in range(n_out):
                go = np.zeros(out._data.shape, out._data.dtype)
                go.reshape(-1)[j] = 1
                (g,) = _grad(_outputs(func, inputs)[oi], [x], _make(go), allow_unused=True)
                if g is not None:
                    analytical[:, j] = g._data.reshape(-1)
            numerical = np.zeros_like(analytical)
            flat = x._data.reshape(-1)
            for k in range(x.numel()):
                orig = flat[k].copy()
                with no_grad():
                    flat[k] = orig + eps
                    plus = _outputs(func, inputs)[oi]._data.astype(np.float64).reshape(-1)
                    flat[k] = orig - eps
                    minus = _outputs(func, inputs)[oi]._data.astype(np.float64).reshape(-1)
                    flat[k] = orig
                numerical[k] = (plus - minus) / (2 * eps)
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {oi} with respect to input {ii},\n"
                    f"numerical:{numerical}\nanalytical:{analytical}\n")
    return True
