"""Shared pieces of the tests that run PyTorch's own test databases (``op_db``, ``module_db``) through
numtorch: torch values converted to numtorch (``to_nt``), an OpInfo entry's name (``key``) and its
numtorch callable (``resolve``; the database's own lambdas re-run with ``torch`` meaning numtorch,
``retarget``), and the entry's gradcheck wrapper seeded the same way in both libraries (``wrapped``).

Used by test_opinfo_db.py, test_moduleinfo_db.py, test_gradgrad_opinfo.py and test_forward_ad_ops.py.
"""
from __future__ import annotations

import types

import torch

import numtorch
import numtorch.fft  # noqa: F401  (the facades the entries name)
import numtorch.linalg  # noqa: F401
import numtorch.special  # noqa: F401
import numtorch.nn.functional  # noqa: F401


def to_nt(x, views=True):
    """A numtorch copy of torch values (tensors keep requires_grad; dtypes, memory formats, devices and
    sizes become numtorch's), recursively through lists, tuples and dicts. ``views=False``: every tensor a
    fresh contiguous copy (a view does not keep its storage)."""
    if isinstance(x, torch.Tensor):
        t = _tensor_to_nt(x.detach()) if views else _values_to_nt(x.detach())
        return t.requires_grad_(True) if x.requires_grad else t
    if isinstance(x, torch.nn.Module) and type(x).__module__.startswith("torch.nn.modules"):
        return _module_to_nt(x)
    if isinstance(x, torch.dtype):
        return getattr(numtorch, str(x).split(".")[1])
    if isinstance(x, torch.memory_format):
        return getattr(numtorch, str(x).split(".")[1])
    if isinstance(x, torch.device):
        return numtorch.device(str(x))
    if isinstance(x, torch.Size):
        return numtorch.Size(tuple(x))
    if isinstance(x, (list, tuple)):
        return type(x)(to_nt(y, views) for y in x)
    if isinstance(x, dict):
        return {k: to_nt(v, views) for k, v in x.items()}
    return x


def _tensors(x, out):
    if isinstance(x, torch.Tensor):
        out.append(x)
    elif isinstance(x, (list, tuple)):
        for y in x:
            _tensors(y, out)
    elif isinstance(x, dict):
        for y in x.values():
            _tensors(y, out)
    return out


def to_nt_shared(x):
    """``to_nt`` keeping the memory sharing that error inputs test (an ``out=`` that is an input, a view of
    one, or an expanded tensor): a torch tensor given twice becomes one numtorch tensor, and tensors that
    share a storage, or have elements sharing memory, become numtorch views of one storage (``as_strided``
    with torch's sizes, strides and offset)."""
    ts = _tensors(x, [])
    ptrs = [t.untyped_storage().data_ptr() for t in ts]
    memo, storages = {}, {}

    def convert(t):
        if id(t) in memo:
            return memo[id(t)]
        p = t.untyped_storage().data_ptr()
        if not p or t.requires_grad or (ptrs.count(p) == 1 and 0 not in t.stride()):
            memo[id(t)] = r = to_nt(t)
            return r
        k = (p, t.dtype)
        if k not in storages:
            n = t.untyped_storage().nbytes() // t.element_size()
            flat = torch.empty(0, dtype=t.dtype).set_(t.untyped_storage(), 0, (n,), (1,))
            storages[k] = numtorch.tensor(flat.numpy().copy())
        memo[id(t)] = r = storages[k].as_strided(tuple(t.shape), t.stride(), t.storage_offset())
        return r

    def walk(y):
        if isinstance(y, torch.Tensor):
            return convert(y)
        if isinstance(y, (list, tuple)) and not isinstance(y, torch.Size):
            return type(y)(walk(z) for z in y)
        if isinstance(y, dict):
            return {k: walk(v) for k, v in y.items()}
        return to_nt(y)
    return walk(x)


def _values_to_nt(x):
    """A numtorch copy of the values of torch tensor ``x`` (bfloat16 by way of float32, which holds it exactly)."""
    if x.dtype == torch.bfloat16:
        return numtorch.tensor(x.float().numpy(force=True).copy()).to(numtorch.bfloat16)
    return numtorch.tensor(x.numpy(force=True).copy())


def _tensor_to_nt(x):
    """A numtorch copy of ``x``; a view whose layout a fresh tensor would not have (a storage offset, a
    storage larger than its elements, strides out of order: ``base[5:15]``, ``t.T``) keeps its whole
    storage and its strides, so ops that reach the storage (``as_strided``) see the same memory."""
    n = x.untyped_storage().nbytes() // x.element_size() if x.layout == torch.strided else x.numel()
    if x.is_contiguous() and x.storage_offset() == 0 and n == x.numel() or not x.numel() or x.is_conj() or x.is_neg():
        return _values_to_nt(x)
    flat = _values_to_nt(torch.as_strided(x, (n,), (1,), 0))
    return flat.as_strided(tuple(x.shape), x.stride(), x.storage_offset())


# torch.nn modules an entry may pass as an argument (the distance function of
# triplet_margin_with_distance_loss): rebuilt as numtorch's module of the same class and constructor arguments
_MODULE_ARGS = {"PairwiseDistance": ("norm", "eps", "keepdim"), "CosineSimilarity": ("dim", "eps")}


def _module_to_nt(m):
    name = type(m).__name__
    if name not in _MODULE_ARGS:
        raise TypeError(f"the harness cannot convert torch module {name} to numtorch")
    return getattr(numtorch.nn, name)(*(getattr(m, a) for a in _MODULE_ARGS[name]))


def key(op):
    """An OpInfo entry's id: ``name`` or ``name.variant_test_name``."""
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


_GLOBALS = {}


def retarget(fn):
    """A function of PyTorch's test database run on numtorch: the same code, with ``torch`` (and ``F``)
    in its module's globals meaning numtorch (the module's other functions retargeted alike)."""
    g = _GLOBALS.get(fn.__module__)
    if g is None:
        g = _GLOBALS[fn.__module__] = dict(fn.__globals__)
        g["torch"], g["F"] = numtorch, numtorch.nn.functional
        for name, v in list(g.items()):
            if isinstance(v, types.FunctionType) and v.__globals__ is fn.__globals__:
                g[name] = _rebuilt(v, g)
        seed = g.get("wrapper_set_seed")  # dropout & co. seed torch's generator: numtorch's, here
        if from_database(seed) and seed.__module__ != fn.__module__:
            g["wrapper_set_seed"] = retarget(seed)
    return _rebuilt(fn, g)


def _rebuilt(fn, g):
    new = types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    return new


def from_database(fn):
    """Whether ``fn`` is a plain function defined in PyTorch's test database (a lambda of an entry)."""
    return isinstance(fn, types.FunctionType) and fn.__module__.startswith("torch.testing")


def resolve(op):
    """numtorch's callable for an OpInfo entry (by name: ``nn.functional.relu`` ->
    ``numtorch.nn.functional.relu``, else the Tensor method of that name; an operator ``torch.ops.aten.X``
    -> ``numtorch.ops.aten.X``), or None."""
    fn = op.op
    if from_database(fn):
        return retarget(fn)
    if isinstance(fn, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):  # torch.ops.aten.X[.overload]
        return _aten_op(fn)
    obj = numtorch
    for part in op.name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            break
    if obj is not None and callable(obj):
        return obj
    meth = getattr(numtorch.Tensor, op.name, None)
    if meth is not None and callable(meth):
        # a non-Tensor first argument goes to the unbound method, as the entry's own op (torch.Tensor.__radd__) does
        return lambda x, *a, **k: getattr(x, op.name)(*a, **k) if isinstance(x, numtorch.Tensor) else meth(x, *a, **k)
    return None


def _aten_op(fn):
    """numtorch's ``torch.ops.<ns>.<name>[.<overload>]`` for torch's operator ``fn``, or None."""
    over = isinstance(fn, torch._ops.OpOverload)
    ns, name = (fn.namespace, fn._opname) if over else fn._qualified_op_name.split("::")
    try:
        packet = getattr(getattr(numtorch.ops, ns), name)
    except AttributeError:
        return None
    return getattr(packet, fn._overloadname) if over else packet


def wrapped(op, fn, lib):
    """``fn`` through the entry's gradcheck wrapper (e.g. symmetrising eigh's input), seeded."""
    w = op.gradcheck_wrapper
    if lib is numtorch and from_database(w):
        w = retarget(w)

    def run(*a, **k):
        lib.manual_seed(0)
        return w(fn, *a, **k)
    return run


def _eigenvector_signs(out):
    """Eigenvectors are defined up to sign, and LAPACK's drivers choose differently: each column is turned
    so that its largest entry is positive (a constant sign), in both libraries, before comparing."""
    vals, vecs = out
    if vecs.numel() == 0:
        return out
    sign = vecs.gather(-2, vecs.abs().argmax(dim=-2, keepdim=True)).sign().detach()
    return vals, vecs * sign


def _eigenvector_phases(out):
    """``linalg.eig``'s eigenvectors are unit columns defined up to a complex phase, which LAPACK builds choose
    differently (NumPy's OpenBLAS, PyTorch's MKL: whole columns differ by a sign or phase). PyTorch's OpInfo
    promises no more: it has no reference, and its gradient tests see ``(L, |V|)``. Each column is turned so
    that its largest entry is real positive, in both libraries, before comparing. The turn is differentiated
    too (not a constant): the result no longer depends on the phase, so its gradients are defined."""
    vals, vecs = out
    if vecs.numel() == 0:
        return out
    top = vecs.gather(-2, vecs.abs().argmax(dim=-2, keepdim=True))
    return vals, vecs * (top.abs() / top)


def _singular_vector_signs(out, vh=True):
    """Singular vectors are defined up to a sign (complex: a phase) shared by ``U``'s column and ``Vh``'s row,
    and the extra columns of ``full_matrices`` are any orthonormal basis of the complement; LAPACK builds
    choose differently (PyTorch's MKL turns some singular vectors of a wide matrix that NumPy's OpenBLAS does
    not). PyTorch's OpInfo promises no more: its gradient tests see ``|U|``, ``S``, ``|Vh|`` and ``U Vh`` of
    the first ``k = min(m, n)`` vectors. Compared here, in both libraries: each pair turned so that the largest
    entry of ``U``'s column is real positive, and the projectors onto the complements (``vh=False``:
    ``torch.svd``'s ``V``, whose columns turn as ``U``'s)."""
    u, s, v = out
    k = s.shape[-1]
    if u.numel() == 0 or k == 0:  # nothing to turn
        return out
    vk = v[..., :k, :] if vh else v[..., :, :k]
    top = u[..., :k].gather(-2, u[..., :k].abs().argmax(dim=-2, keepdim=True))
    turn = top.abs() / top  # (*, 1, k)
    res = [u[..., :k] * turn, s, vk * turn.conj().mT if vh else vk * turn]
    if u.shape[-1] > k:
        res.append(u[..., k:] @ u[..., k:].mH)
    rest = v[..., k:, :].mH if vh else v[..., :, k:]
    if rest.shape[-1]:
        res.append(rest @ rest.mH)
    return tuple(res)


# outputs made comparable across libraries (a choice the op leaves to the implementation)
CANONICAL = {"linalg.eigh": _eigenvector_signs, "linalg.eig": _eigenvector_phases,
             "linalg.svd": _singular_vector_signs, "svd": lambda out: _singular_vector_signs(out, vh=False),
             "svd_lowrank": lambda out: _singular_vector_signs(out, vh=False),
             "pca_lowrank": lambda out: _singular_vector_signs(out, vh=False)}


def canonical(op, fn):
    """``fn`` with its outputs made comparable (``CANONICAL``) where the entry needs it."""
    canon = CANONICAL.get(key(op))
    return fn if canon is None else (lambda *a, **k: canon(fn(*a, **k)))
