"""Higher-level autograd (mirrors ``torch.autograd.functional``): vjp, jvp, jacobian, hessian, vhp, hvp.

Everything is built on ``autograd.grad`` (reverse mode), as PyTorch does without vmap: a Jacobian is
one vector-Jacobian product per output element, a Hessian is the Jacobian of the gradient (computed
with ``create_graph=True``), and the forward-mode products (``jvp``, ``hvp``) use the double-backward
trick, as PyTorch's own ``autograd.functional.jvp``/``hvp`` do (their docs say so, and their
``strict=True`` errors name it): the vjp ``u -> J^T u`` is linear in ``u``, so differentiating it with
respect to ``u`` in the direction ``v`` gives ``J v``.

``vectorize=True`` computes the rows of a Jacobian as PyTorch does, by vmap over the vjp
(``func._seams._rows``): one backward pass with a batched cotangent (``func/_batched_backward.py``);
the values equal ``vectorize=False``'s. ``strategy="forward-mode"`` (which PyTorch allows only
with ``vectorize=True``) computes columns with ``func._seams._jvp_impl``: forward-mode AD (dual levels),
as PyTorch's ``_jacfwd``; ``hessian(outer_jacobian_strategy="forward-mode")`` is forward over reverse.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make
from .._ops.rearrange import stack
from .engine import grad as _grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from ..func import _seams

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ------------------------------------------------------------------------------------------------
# Argument handling, as in torch/autograd/functional.py
# ------------------------------------------------------------------------------------------------
def _as_tuple(inp, arg_name, fn_name):
    """``(was_a_tuple, tuple_of_tensors)``; TypeError in PyTorch's words for anything but Tensors."""
    is_tuple = isinstance(inp, tuple)
    inp = inp if is_tuple else (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"{where} has type {type(el)}.")
    return is_tuple, inp


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _zeros_like(t, requires_grad=False):
    return _make(np.zeros(t._data.shape, t._data.dtype), requires_grad)


def _grad_preprocess(inputs, create_graph, need_graph):
    # with create_graph an input that requires grad stays connected to the caller's graph (a view);
    # otherwise a detached copy of the value becomes a fresh leaf
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in inputs)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(t.detach() for t in inputs)
    return tuple(_grad_postprocess(t, create_graph) for t in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_INDEPENDENT = {
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the input. "
               "This is not allowed in strict mode. You should ensure that your function is thrice differentiable "
               "and that the hessian depends on the inputs.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect "
                "to input {i} is independent of the input. This is not allowed in strict mode. You should ensure "
                "that your function is twice differentiable and that the jacobian depends on the inputs (this "
                "would be violated by a linear function for example).",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided "
                   "function. This is not allowed in strict mode.",
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be computed "
               "in a differentiable manner from the input when running in strict mode.",
}


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode.")
        if not inp.requires_grad:
            raise RuntimeError(_INDEPENDENT[input_type].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad (None for every input if none does)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad([o for o, _ in pairs], inputs, [g for _, g in pairs], allow_unused=True,
                 create_graph=create_graph, retain_graph=retain_graph)


_FILL_ERRORS = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                  "using the double backward trick to compute forward mode gradients. This is not allowed in strict "
                  "mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = ()
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_FILL_ERRORS[stage].format(i=i))
            g = _zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        res += (g,)
    return res


def _prepare(func, inputs, v, create_graph, strict, fn_name, v_like_outputs=False):
    """Shared start of vjp/jvp/vhp/hvp (under enable_grad): inputs, v checked and outputs of ``func``."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    if not v_like_outputs:
        v = _check_v(v, inputs, is_inputs_tuple, create_graph, fn_name, "input to")
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if v_like_outputs:
        v = _check_v(v, outputs, is_outputs_tuple, create_graph, fn_name, "user-provided function returns")
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs


def _check_v(v, like, like_is_tuple, create_graph, fn_name, what):
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, like, like_is_tuple)
    elif len(like) != 1 or like[0].nelement() != 1:
        if what == "input to":
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                               "Tensor with a single element.")
        raise RuntimeError("The vector v can only be None if the user-provided function returns a single Tensor "
                           "with a single element.")
    return v


def _single_scalar(outputs, is_outputs_tuple, fn_name):
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")


# ------------------------------------------------------------------------------------------------
# Public functions
# ------------------------------------------------------------------------------------------------
def _pair(outputs, is_out_t, res, is_in_t, create_graph):
    """``(outputs, res)`` detached unless ``create_graph``, each a Tensor or a tuple like its argument."""
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_out_t),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_in_t))


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), v^T J)`` (``torch.autograd.functional.vjp``).

    ``inputs``: a Tensor or a tuple of Tensors; ``v``: like ``func``'s output (may be None when that
    output is a single element). The results are detached unless ``create_graph``; with ``strict`` an
    output that does not depend on an input raises RuntimeError instead of giving zeros.
    """
    with enable_grad():
        is_in_t, inputs, v, is_out_t, outputs = _prepare(func, inputs, v, create_graph, strict, "vjp", True)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _fill_in_zeros(_autograd_grad(outputs, inputs, v, create_graph=create_graph), inputs, strict,
                             create_graph, "back")
    return _pair(outputs, is_out_t, res, is_in_t, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), J v)`` (``torch.autograd.functional.jvp``), by the double-backward trick:
    ``J v = d/du (u^T J) . v`` with ``u`` a zero vector that requires grad. ``v`` is like ``inputs``."""
    with enable_grad():
        is_in_t, inputs, v, is_out_t, outputs = _prepare(func, inputs, v, create_graph, strict, "jvp")
        grad_outputs = tuple(_zeros_like(out, True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _fill_in_zeros(_autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph), outputs,
                             strict, create_graph, "back_trick")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_out_t),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_out_t))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs`` (``torch.autograd.functional.jacobian``).

    For one input and one output: a Tensor of shape ``output.shape + input.shape``; for tuples, a
    (tuple of) tuple(s) ``[output i][input j]``. Reverse mode: one ``autograd.grad`` per output element
    (``vectorize=True``: through ``_seams._batched``). ``strategy="forward-mode"``: one jvp per input
    element; PyTorch's errors: NotImplementedError without ``vectorize`` or with ``create_graph``,
    RuntimeError with ``strict`` (also for ``strict`` with ``vectorize``).
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either '
                                      'set `create_graph=False` or `strategy="reverse-mode"`.')
        return _jacfwd(func, inputs, strict, vectorize)
    with enable_grad():
        is_in_t, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_out_t, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize:
            if strict:
                raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                                   "supported together. Please either set `strict=False` or `vectorize=False`.")
            return _jacrev_vectorized(outputs, is_out_t, inputs, is_in_t, create_graph)
        jac = ()
        for i, out in enumerate(outputs):
            rows = tuple([] for _ in inputs)
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                vj = _autograd_grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (row, g, inp) in enumerate(zip(rows, vj, inputs)):
                    if g is not None:
                        if strict and create_graph and not g.requires_grad:
                            raise RuntimeError(f"The jacobian of the user-provided function is independent of input "
                                               f"{i}. This is not allowed in strict mode when create_graph=True.")
                        row.append(g)
                    else:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{k}. This is not allowed in strict mode.")
                        row.append(_zeros_like(inp))
            jac += (tuple((stack(row, 0) if row else _make(np.zeros((0,) + inputs[k]._data.shape,
                                                                    inputs[k]._data.dtype)))
                          .view(tuple(out.size()) + tuple(inputs[k].size())) for k, row in enumerate(rows)),)
        return _tuple_postprocess(_grad_postprocess(jac, create_graph), (is_out_t, is_in_t))


def _jacrev_vectorized(outputs, is_out_t, inputs, is_in_t, create_graph):
    """``vectorize=True``: all the vjps of the output basis at once, ``vmap`` over the basis rows
    (``func._seams._rows``): one backward pass with a batched cotangent; the values are the loop's."""
    def vjp_row(*cot):
        vj = _autograd_grad(outputs, inputs, cot, retain_graph=True, create_graph=create_graph)
        return tuple(_zeros_like(inp) if g is None else g for g, inp in zip(vj, inputs))

    numels = [out.nelement() for out in outputs]
    per_input = _seams._rows(vjp_row, _seams._basis(outputs), inputs)
    jac = tuple(tuple(part.view(tuple(out.size()) + tuple(inp.size()))
                      for part, out in zip(rows.split(numels, 0), outputs))
                for rows, inp in zip(per_input, inputs))
    jac = tuple(zip(*jac))  # [output][input]
    return _tuple_postprocess(_grad_postprocess(jac, create_graph), (is_out_t, is_in_t))


def _jacfwd(func, inputs, strict, vectorize):
    """``strategy="forward-mode"``: one ``func._seams._jvp_impl`` per input basis vector, through
    ``_batched`` (PyTorch allows it only with ``vectorize=True``, and not with ``strict``)."""
    if strict:
        raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not '
                           'supported together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.')
    is_in_t, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                  "only implemented for `vectorize=True`.")
    info = {}

    def flat_func(*xs):
        info["is_out_t"], outs = _as_tuple(func(*xs), "outputs", "jacobian")
        return outs

    def jvp_column(*tangents):
        outs, jv = _seams._jvp_impl(flat_func, inputs, tangents)
        info["outs"] = outs
        return tuple(_zeros_like(o) if j is None else j for o, j in zip(outs, jv))

    numels = [inp.nelement() for inp in inputs]
    basis = _seams._basis(inputs)
    if basis[0].shape[0] == 0:  # no input elements: run once for the outputs' shapes
        jvp_column(*(_zeros_like(inp) for inp in inputs))
        cols = tuple(_make(np.zeros((0,) + tuple(o.shape), o._data.dtype)) for o in info["outs"])
    else:
        cols = _seams._batched(jvp_column, basis)
    jac = []
    for col, out in zip(cols, info["outs"]):
        row = []
        for part, inp in zip(col.split(numels, 0), inputs):
            row.append(part.permute(*range(1, part.dim()), 0).reshape(tuple(out.shape) + tuple(inp.shape)))
        jac.append(row)
    return _tuple_postprocess(jac, (info["is_out_t"], is_in_t))  # lists of lists, as PyTorch's forward mode


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of the scalar function ``func`` at ``inputs`` (``torch.autograd.functional.hessian``):
    the Jacobian of its gradient (taken with ``create_graph=True``). One input: a Tensor of shape
    ``input.shape + input.shape``; a tuple of inputs: a tuple of tuples ``[i][j]``."""
    is_in_t, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_in_t, is_in_t))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), v^T H)`` for a scalar ``func`` (``torch.autograd.functional.vhp``); ``v`` is like
    ``inputs``. Two reverse passes: the gradient with ``create_graph=True``, then its vjp with ``v``."""
    with enable_grad():
        is_in_t, inputs, v, is_out_t, outputs = _prepare(func, inputs, v, create_graph, strict, "vhp")
        _single_scalar(outputs, is_out_t, "vhp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _fill_in_zeros(_autograd_grad(jac, inputs, v, create_graph=create_graph), inputs, strict,
                             create_graph, "double_back")
    return _pair(outputs, is_out_t, res, is_in_t, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), H v)`` for a scalar ``func`` (``torch.autograd.functional.hvp``), by the
    double-backward trick on ``vhp`` (three reverse passes; equal to ``vhp`` as H is symmetric)."""
    with enable_grad():
        is_in_t, inputs, v, is_out_t, outputs = _prepare(func, inputs, v, create_graph, strict, "hvp")
        _single_scalar(outputs, is_out_t, "hvp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        grad_jac = tuple(_zeros_like(inp, True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _fill_in_zeros(_autograd_grad(double_back, grad_jac, v, create_graph=create_graph), inputs, strict,
                             create_graph, "double_back_trick")
    return _pair(outputs, is_out_t, res, is_in_t, create_graph)
