"""``torch.func``'s eager transforms on numtorch: grad, grad_and_value, vjp, jvp, linearize, jacrev,
jacfwd, hessian (mirrors ``torch._functorch.eager_transforms`` / ``apis``).

PyTorch's functorch wraps tensors in per-level wrappers. numtorch keeps one autograd graph instead:
a transform makes its inputs differentiable (``_seams._differentiable``: a fresh leaf, or a view when
the input already requires grad so an outer transform still reaches it), runs ``func`` under grad
mode, differentiates with ``autograd.grad`` (``create_graph=True`` only when the result can be
differentiated again from outside) and detaches every result whose graph would only lead back to
its own inputs (``_seams._release``). That gives PyTorch's observable rules: ``grad`` works under
``no_grad``, nests (``grad(grad(f))``, ``jacrev(jacfwd(f))``), and its results carry a graph only when
an outer transform or a caller's tensor that requires grad can use it.

Inputs and outputs are pytrees of tuples, lists and dicts (``_pytree``). Jacobians are built from the
seams in ``_seams.py`` (``_rows``: vmap over vjps for rows; ``_batched`` for columns; ``_jvp_impl`` for
forward products, which runs forward-mode AD: ``autograd/forward_ad.py``'s dual tensors at a nested level).
"""
from __future__ import annotations

import functools

import numpy as np

from .._tensor import Tensor, _make
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from . import _seams
from ._captures import no_captured_writes
from ._pytree import spec_str, tree_flatten, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian"]

_JVP = "jvp(f, primals, tangents)"


# ------------------------------------------------------------------------------------------------
# argnums, as torch._functorch.eager_transforms checks them
# ------------------------------------------------------------------------------------------------
def _wrap_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _norm_argnums(argnums, num_args):
    """``argnums`` wrapped to non-negative positions (an int or a tuple, as given)."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        return _wrap_argnum(argnums, num_args)
    argnums = tuple(_wrap_argnum(a, num_args) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return argnums


def _slice_argnums(args, argnums, as_tuple=True):
    argnums = _norm_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return (args[argnums],) if as_tuple else args[argnums]
    return tuple(args[i] for i in argnums)


def _replace_args(args, new, argnums):
    """``args`` with the positions in ``argnums`` replaced by ``new`` (one value, or a tuple for a tuple)."""
    argnums = _norm_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))


# ------------------------------------------------------------------------------------------------
# Shared pieces
# ------------------------------------------------------------------------------------------------
def _make_differentiable(tree):
    """``(new_tree, flat_new_leaves)``: every leaf of ``tree`` made differentiable (it must be a Tensor)."""
    flat, spec = tree_flatten(tree)
    for x in flat:
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    fresh = [_seams._differentiable(x) for x in flat]
    return tree_unflatten(fresh, spec), fresh


def _split_aux(out, has_aux, api):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return out


def _release_tree(tree, mine, entry_grad, tensors_only=False):
    """Every Tensor of ``tree`` released (``_seams._release``); with ``tensors_only`` (an aux output) a
    leaf that is not a Tensor raises PyTorch's RuntimeError."""
    flat, spec = tree_flatten(tree)
    if tensors_only:
        for x in flat:
            if not isinstance(x, Tensor):
                raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
    return tree_unflatten(_seams._release(flat, mine, entry_grad), spec)


def _check_outputs(flat, api, what="f(*primals)"):
    if len(flat) == 0:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = ())")
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected {what} to return only tensors, got unsupported type {type(o)}")


def _error_if_complex(name, flat, is_input):
    for i, t in enumerate(flat):
        if isinstance(t, Tensor) and t.is_complex():
            kind = "inputs" if is_input else "outputs"
            raise RuntimeError(f"{name}: Expected all {kind} to be real but received complex tensor at flattened "
                               f"input idx: {i}")


# ------------------------------------------------------------------------------------------------
# grad, grad_and_value, vjp
# ------------------------------------------------------------------------------------------------
def grad_and_value(func, argnums=0, has_aux=False):
    """``torch.func.grad_and_value``: a function returning ``(grad, value)`` (``(grad, (value, aux))``
    with ``has_aux``). ``func`` must return a 0-dim Tensor; ``grad`` has the structure of the
    arguments in ``argnums`` (an int: that argument; a tuple: a tuple of them). Works under ``no_grad``.
    Errors (RuntimeError unless noted) as PyTorch's: non-Tensor or non-scalar output, argnums out of
    range or repeated, a differentiated argument that is not a Tensor (ValueError)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value(func, argnums, has_aux, args, kwargs)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """``torch.func.grad``: the gradient of the scalar ``func`` with respect to ``args[argnums]``
    (``(grad, aux)`` with ``has_aux``). See ``grad_and_value`` for the rules and errors."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = _grad_and_value(func, argnums, has_aux, args, kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def _grad_and_value(func, argnums, has_aux, args, kwargs):
    api = "grad_and_value(f)(*args)"
    entry_grad = is_grad_enabled()
    args = _seams._vmap_lift_inputs(args)
    lifted = _seams._lifted_leaf_ids(tree_flatten(args)[0])  # under vmap
    with enable_grad():
        diff, fresh = _make_differentiable(_slice_argnums(args, argnums, as_tuple=False))
        args = _replace_args(args, diff, argnums)
        with no_captured_writes(func, tree_flatten(args)[0]):
            output, aux = _split_aux(func(*args, **kwargs), has_aux, api)
        if not isinstance(output, Tensor):
            raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with "
                               f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
        mine = _seams._leaves_of(fresh) | lifted
        # a graph for the gradient only when something outside this call could differentiate it
        keep = entry_grad and _seams._reaches_outside(output, mine) or _seams._forward_over_reverse()
        grads = _seams._autograd_grad((output,), fresh, create_graph=keep)
    _, spec = tree_flatten(diff)
    g = tree_unflatten(_seams._release(grads, mine, entry_grad), spec)
    value = _seams._release((output,), mine, entry_grad)[0]
    if has_aux:
        return g, (value, _release_tree(aux, mine, entry_grad, tensors_only=True))
    return g, value


def vjp(func, *primals, has_aux=False):
    """``torch.func.vjp``: ``(func(*primals), vjp_fn)`` (``+ (aux,)`` with ``has_aux``).

    ``vjp_fn(cotangents, retain_graph=True, create_graph=None)`` takes cotangents with the structure of
    the output and returns a tuple with the structure of ``primals``; it may be called several times.
    Outputs must be floating or complex Tensors (RuntimeError otherwise)."""
    return _vjp(func, primals, None, has_aux)


def _vjp(func, primals, argnums, has_aux):
    api = "vjp(f, *primals)"
    entry_grad = is_grad_enabled()
    primals = _seams._vmap_lift_inputs(primals)
    lifted = _seams._lifted_leaf_ids(tree_flatten(primals)[0])  # under vmap
    with enable_grad():
        if argnums is None:
            diff, fresh = _make_differentiable(primals)
            args = diff
        else:
            diff, fresh = _make_differentiable(_slice_argnums(primals, argnums, as_tuple=False))
            args = _replace_args(primals, diff, argnums)
        with no_captured_writes(func, tree_flatten(args)[0]):
            out, aux = _split_aux(func(*args), has_aux, "vjp(f, *primals)")
        flat_out, out_spec = tree_flatten(out)
        _check_outputs(flat_out, api)
        for o in flat_out:
            if not (o.is_floating_point() or o.is_complex()):
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                                   f"Tensor with dtype {o.dtype}")
    mine = _seams._leaves_of(fresh) | lifted
    _, diff_spec = tree_flatten(diff)
    outside = entry_grad and _seams._any_reaches_outside(flat_out, mine)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {spec_str(cot_spec)}, primal output: "
                               f"{spec_str(out_spec)}")
        now = is_grad_enabled()
        if create_graph is None:
            create_graph = now
        keep = (create_graph and (outside or any(isinstance(c, Tensor) and c.requires_grad for c in flat_cot))
                or _seams._forward_over_reverse())
        with enable_grad():
            res = _seams._autograd_grad(flat_out, fresh, flat_cot, create_graph=keep, retain_graph=retain_graph)
        return tree_unflatten(_seams._release(res, mine, now), diff_spec)

    results = _release_tree(out, mine, entry_grad)
    if has_aux:
        return results, vjp_fn, _release_tree(aux, mine, entry_grad, tensors_only=True)
    return results, vjp_fn


# ------------------------------------------------------------------------------------------------
# jvp, linearize
# ------------------------------------------------------------------------------------------------
def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``torch.func.jvp``: ``(func(*primals), J @ tangents)`` (``+ (aux,)`` with ``has_aux``).

    ``primals`` must be a tuple; ``tangents`` has its structure and shapes. Outputs with the structure
    of ``func``'s output. Computed by ``_seams._jvp_impl``: one forward pass of ``func`` over dual tensors
    (forward-mode AD), in the caller's grad mode. Errors as PyTorch's: RuntimeError for primals that are
    not a tuple, a structure or shape mismatch, an output independent of the inputs with ``strict``;
    ValueError for integer primals or tangents."""
    return _jvp(func, primals, tangents, None, strict, has_aux)


def _jvp(func, primals, tangents, argnums, strict, has_aux):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    diff = primals if argnums is None else _slice_argnums(primals, argnums)
    flat_p, p_spec = tree_flatten(diff)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python structure. For example, "
                           f"if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{spec_str(p_spec)} and tangents with structure {spec_str(t_spec)}")
    for name, flat in (("primals", flat_p), ("tangents", flat_t)):
        if not flat:
            raise RuntimeError(f"{_JVP}: Expected {name} to contain at least one Tensor.")
        for x in flat:
            if not isinstance(x, Tensor):
                raise RuntimeError(f"{_JVP}: Expected {name} to only contain Tensors, got {type(x)}")
    for p, t in zip(flat_p, flat_t):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the "
                               f"original Tensor, this is not supported. Tensor is of size {list(p.shape)} while "
                               f"the given forward gradient is of size {list(t.shape)}.")
    box = {}

    def flat_fn(*xs):
        new = tree_unflatten(list(xs), p_spec)
        args = new if argnums is None else _replace_args(primals, new if isinstance(argnums, tuple) else new[0],
                                                         argnums)
        with no_captured_writes(func, tree_flatten(args)[0]):
            out, aux = _split_aux(func(*args), has_aux, _JVP)
        flat_out, box["spec"] = tree_flatten(out)
        _check_outputs(flat_out, _JVP)
        box["aux"] = aux
        return tuple(flat_out)

    outs, jvps = _seams._jvp_impl(flat_fn, tuple(flat_p), tuple(flat_t))
    if strict and any(j is None for j in jvps):
        raise RuntimeError(f"{_JVP[:-1]}, strict=True): The output of f is independent of the inputs. This is not "
                           "allowed with strict=True.")
    jvps = [_seams._zeros(o) if j is None else j for o, j in zip(outs, jvps)]
    spec = box["spec"]
    res = (tree_unflatten(list(outs), spec), tree_unflatten(list(jvps), spec))
    if has_aux:
        return res + (_release_tree(box["aux"], set(), False, tensors_only=True),)
    return res


def linearize(func, *primals):
    """``torch.func.linearize``: ``(func(*primals), jvp_fn)`` where ``jvp_fn(*tangents)`` gives
    ``J @ tangents`` at ``primals``. PyTorch traces the jvp once with make_fx; numtorch re-runs
    ``_seams._jvp_impl`` (a forward-AD pass) on each call (same values). Tangents must match the primals' structure,
    shapes and dtypes (RuntimeError otherwise)."""
    output = func(*primals)
    flat_p, p_spec = tree_flatten(primals)
    _, out_spec = tree_flatten(output)

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {spec_str(t_spec)} to have the same argspec as the primals "
                               f"{spec_str(p_spec)}")
        for i, (p, t) in enumerate(zip(flat_p, flat_t)):
            for what, a, b in (("shape", t.shape, p.shape), ("device", t.device, p.device),
                               ("dtype", t.dtype, p.dtype)):
                if a != b:
                    raise RuntimeError(f"tangent:{i} with {what} {a} in flattened pytree doesn't match the {what} "
                                       f"{b} of the corresponding primal.")
        return _jvp(func, primals, tangents, None, False, False)[1]

    return output, jvp_fn


# ------------------------------------------------------------------------------------------------
# jacrev, jacfwd, hessian
# ------------------------------------------------------------------------------------------------
def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """``torch.func.jacrev``: the Jacobian of ``func`` with respect to ``args[argnums]`` by reverse mode:
    ``vmap(vjp_fn, chunk_size=chunk_size)`` over the output basis (``_seams._rows``), so each chunk of
    rows is one backward pass with a batched cotangent (all rows at once by default). Result: for each output leaf (output structure), the input structure of ``argnums`` whose
    leaves have shape ``out.shape + in.shape``. ``(jac, aux)`` with ``has_aux``."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        _error_if_complex("jacrev", tree_flatten(args)[0], True)
        res = _vjp(func, args, argnums, has_aux)
        output, vjp_fn = res[0], res[1]
        flat_out, out_spec = tree_flatten(output)
        _error_if_complex("jacrev", flat_out, False)
        flat_p, p_spec = tree_flatten(_slice_argnums(args, argnums))

        def row(*cot):
            return tuple(tree_flatten(vjp_fn(tree_unflatten(list(cot), out_spec)))[0])

        stacked = _seams._rows(row, _seams._basis(flat_out), flat_p, chunk_size)
        numels = [o.numel() for o in flat_out]
        per_in = [r.split(numels, 0) if len(numels) > 1 else (r,) for r in stacked]
        per_out = [tree_unflatten([per_in[k][i].view(tuple(o.shape) + tuple(p.shape)) for k, p in enumerate(flat_p)],
                                  p_spec) for i, o in enumerate(flat_out)]
        if isinstance(argnums, int):
            per_out = [x[0] for x in per_out]
        jac = tree_unflatten(per_out, out_spec)
        return (jac, res[2]) if has_aux else jac

    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """``torch.func.jacfwd``: the Jacobian by forward products, one ``_seams._jvp_impl`` per input
    element through ``_seams._batched``. Same result structure as ``jacrev``. ``randomness`` is vmap's
    ('error', 'different', 'same'; RuntimeError otherwise)."""
    @functools.wraps(func)
    def wrapper(*args):
        if randomness not in ("error", "different", "same"):  # vmap's check, made when the call runs
            raise RuntimeError("Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                               f"{randomness}")
        _error_if_complex("jacfwd", tree_flatten(args)[0], True)
        primals = _slice_argnums(args, argnums)
        flat_p, p_spec = tree_flatten(primals)
        box = {}

        def column(*flat_t):
            tangents = tree_unflatten(list(flat_t), p_spec)
            out = _jvp(func, args, tangents, argnums, False, has_aux)
            flat_o, box["spec"] = tree_flatten(out[1])
            _error_if_complex("jacfwd", tree_flatten(out[0])[0], False)
            if has_aux and "aux" not in box:
                box["aux"] = out[2]
            box["out"] = tree_flatten(out[0])[0]
            return tuple(flat_o)

        basis = _seams._basis(flat_p)
        if basis[0].shape[0] == 0:  # no input elements: run once for the output shapes
            column(*(b.new_zeros(tuple(p.shape)) for b, p in zip(basis, flat_p)))
            cols = tuple(_make(np.zeros((0,) + tuple(o.shape), o._data.dtype)) for o in box["out"])
        else:
            cols = _seams._batched(column, basis)
        numels = [p.numel() for p in flat_p]
        per_out = []
        for c in cols:
            moved = c.movedim(0, -1)
            parts = moved.split(numels, -1) if len(numels) > 1 else (moved,)
            per_out.append(tree_unflatten([_unflatten_last(x, tuple(p.shape)) for x, p in zip(parts, flat_p)],
                                          p_spec))
        if isinstance(argnums, int):
            per_out = [x[0] for x in per_out]
        jac = tree_unflatten(per_out, box["spec"])
        return (jac, box["aux"]) if has_aux else jac

    return wrapper


def _unflatten_last(t, shape):
    if len(shape) == 0:
        return t.squeeze(-1)
    return t.unflatten(-1, shape)


def hessian(func, argnums=0):
    """``torch.func.hessian``: ``jacfwd(jacrev(func, argnums), argnums)`` (forward-over-reverse, as
    PyTorch). For one input of shape ``S`` and a scalar output: shape ``S + S``."""
    return jacfwd(jacrev(func, argnums), argnums)
