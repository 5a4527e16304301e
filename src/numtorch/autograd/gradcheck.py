"""Finite-difference gradient checking (mirrors ``torch.autograd.gradcheck``)."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make
from .engine import grad as _grad
from . import forward_ad
from .grad_mode import enable_grad, no_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytical and numerical gradients disagree."""


def _outputs(fn, inputs):
    out = fn(*inputs)
    return [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(o, Tensor)]


def _unsupported_flags(**flags):
    """A check numtorch cannot run raises rather than passing silently."""
    for name, (value, why) in flags.items():
        if value:
            raise NotImplementedError(f"gradcheck: {name}=True is not supported by numtorch: {why}")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None) -> bool:
    """Compare autograd's gradients of ``func(*inputs)`` with central differences
    (``torch.autograd.gradcheck``).

    Every input Tensor with ``requires_grad=True`` should be float64 (float32 differences are too
    noisy; a warning-free check needs double precision). For each output element the analytical
    row of the Jacobian (from ``autograd.grad``) is compared with ``(f(x+eps) - f(x-eps)) / (2 eps)``
    elementwise: ``|a - n| <= atol + rtol * |n|``.

    Returns True, or raises GradcheckError naming the input, output and the two Jacobians
    (returns False instead when ``raise_exception=False``). ``check_grad_dtypes`` also checks that each
    gradient has its input's dtype. ``fast_mode`` runs the full (stricter) check; ``check_undefined_grad``
    holds by construction (numtorch's built-in backwards receive zeros for outputs without a gradient).
    ``check_forward_ad`` also compares the forward-mode Jacobian (``autograd.forward_ad``) with the
    differences (``check_backward_ad=False``: only that one). ``check_batched_grad``,
    ``check_batched_forward_grad`` and ``masked`` raise NotImplementedError (no vmap, no masked tensors).
    """
    _unsupported_flags(check_batched_grad=(check_batched_grad, "it needs vmap"),
                       check_batched_forward_grad=(check_batched_forward_grad, "it needs vmap"),
                       masked=(masked, "masked tensors are not implemented"))
    assert check_forward_ad or check_backward_ad, ("Expected at least one of check_forward_ad or check_backward_ad "
                                                   "to be True")
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    if any(isinstance(x, Tensor) and x.is_complex() for x in inputs):
        # central differences on the real part alone would pass without checking the imaginary one
        raise NotImplementedError("gradcheck: complex inputs are not supported by numtorch yet (PyTorch checks "
                                  "Wirtinger derivatives); check real and imaginary parts as real inputs instead")
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the "
                         "them have requires_grad=True.")
    outs = _outputs(func, inputs)
    if check_forward_ad and not _check_forward(func, inputs, diff, outs, eps, atol, rtol, raise_exception):
        return False
    if not check_backward_ad:
        return True
    for oi, out in enumerate(outs):
        # an output that does not require grad has an analytical Jacobian of zeros: the numerical one must
        # be zero too (a detach() or .item() inside func is caught here, as in PyTorch)
        n_out = out.numel()
        for ii in diff:
            x = inputs[ii]
            analytical = np.zeros((x.numel(), n_out))
            for j in range(n_out):
                go = np.zeros(out._data.shape, out._data.dtype)
                go.reshape(-1)[j] = 1
                o = _outputs(func, inputs)[oi]
                (g,) = _grad(o, [x], _make(go), allow_unused=True) if o.requires_grad else (None,)
                if g is not None and check_grad_dtypes and g._data.dtype != x._data.dtype:
                    raise GradcheckError(f"Gradient has dtype mismatch for input {ii}: expected "
                                         f"{x.dtype}, got {g.dtype}")
                if g is not None:
                    analytical[:, j] = g._data.reshape(-1)
            numerical = np.zeros_like(analytical)
            for k in range(x.numel()):
                numerical[k] = _numerical_column(func, inputs, x, k, oi, eps)
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {oi} with respect to input {ii},\n"
                    f"numerical:{numerical}\nanalytical:{analytical}\n")
    return True


def _numerical_column(func, inputs, x, k, oi, eps):
    flat = x._data.reshape(-1)
    orig = flat[k].copy()
    with no_grad():
        flat[k] = orig + eps
        plus = _outputs(func, inputs)[oi]._data.astype(np.float64).reshape(-1)
        flat[k] = orig - eps
        minus = _outputs(func, inputs)[oi]._data.astype(np.float64).reshape(-1)
        flat[k] = orig
    return (plus - minus) / (2 * eps)


def _check_forward(func, inputs, diff, outs, eps, atol, rtol, raise_exception):
    """``check_forward_ad``: for each input element, the tangents of the outputs when that element's
    tangent is 1 (forward AD, one ``dual_level`` each) against central differences."""
    for ii in diff:
        x = inputs[ii]
        for oi, out in enumerate(outs):
            analytical = np.zeros((x.numel(), out.numel()))
            numerical = np.zeros_like(analytical)
            for k in range(x.numel()):
                v = np.zeros(x._data.shape, x._data.dtype)
                v.reshape(-1)[k] = 1
                with forward_ad.dual_level():
                    duals = list(inputs)
                    duals[ii] = forward_ad.make_dual(x, _make(v))
                    tan = forward_ad.unpack_dual(_outputs(func, duals)[oi]).tangent
                if tan is not None:
                    analytical[k] = tan._data.reshape(-1)
                numerical[k] = _numerical_column(func, inputs, x, k, oi, eps)
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(f"Jacobian computed with forward mode mismatch for output {oi} with respect "
                                     f"to input {ii},\nnumerical:{numerical}\nanalytical:{analytical}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False) -> bool:
    """Check second derivatives (``torch.autograd.gradgradcheck``): ``gradcheck`` of the function
    ``(inputs, grad_outputs) -> autograd.grad(func(*inputs), inputs, grad_outputs, create_graph=True)``.

    ``grad_outputs`` default to random float64 tensors that require grad (seeded, so the check is
    repeatable). Inputs should be float64. Returns True or raises GradcheckError (False with
    ``raise_exception=False``). ``check_fwd_over_rev`` checks forward-mode AD through the
    differentiable backward (``check_rev_over_rev=False``: only that); ``check_batched_grad`` raises
    NotImplementedError (no vmap yet).
    """
    _unsupported_flags(check_batched_grad=(check_batched_grad, "it needs vmap"),
                       masked=(masked, "masked tensors are not implemented"))
    assert check_fwd_over_rev or check_rev_over_rev, ("Expected at least one of check_fwd_over_rev or "
                                                      "check_rev_over_rev to be True")
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    diff = [x for x in inputs if isinstance(x, Tensor) and x.requires_grad]
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(_make(rng.standard_normal(o._data.shape).astype(o._data.dtype), True)
                             for o in outs if o.requires_grad)
    else:
        grad_outputs = tuple(grad_outputs) if isinstance(grad_outputs, (tuple, list)) else (grad_outputs,)
    n_in = len(inputs)

    def first_grads(*args):
        ins, gos = args[:n_in], args[n_in:]
        with enable_grad():  # gradcheck's finite differences run under no_grad; these gradients need a graph
            outs = [o for o in _outputs(func, ins) if o.requires_grad]
            d = [x for x in ins if isinstance(x, Tensor) and x.requires_grad]
            gs = _grad(outs, d, list(gos), create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    if not diff:
        raise ValueError("gradgradcheck expects at least one input tensor to require gradient")
    return gradcheck(first_grads, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev)
