"""Shared helper for double-backward tests: run an op in torch and numtorch on the same values and
compare the gradient of ``sum(grad(f(x), x, v, create_graph=True) * w)`` w.r.t. the inputs and v.

``check_gradgrad(torch_fn, nt_fn, inputs, ...)`` takes torch tensors (and any other arguments) as
``args``/``kwargs``; float tensors with ``requires_grad`` are the differentiated inputs. The numtorch
side gets numtorch copies of the same values.
"""
from __future__ import annotations

import numpy as np
import torch

import numtorch

from _opinfo_common import to_nt

_TOL = {torch.float32: (2e-4, 2e-4), torch.float64: (1e-7, 1e-7),
        torch.complex64: (2e-4, 2e-4), torch.complex128: (1e-7, 1e-7)}


def _np(t):
    if t is None:
        return None
    return np.asarray(t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else t.detach().numpy())


def _leaves(args, kwargs, lib):
    out = []

    def walk(x):
        if isinstance(x, lib.Tensor):
            if x.requires_grad:
                out.append(x)
        elif isinstance(x, (list, tuple)):
            for y in x:
                walk(y)
        elif isinstance(x, dict):
            for y in x.values():
                walk(y)
    walk(args)
    walk(kwargs)
    return out


def _diff_outputs(out, lib):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if isinstance(o, lib.Tensor) and o.requires_grad and o.dtype.is_floating_point
            or isinstance(o, lib.Tensor) and o.requires_grad and o.is_complex()]


def _realsum(lib, g, w):
    p = g * w
    if p.is_complex():
        return lib.view_as_real(p).sum()
    return p.sum()


def _run(lib, fn, args, kwargs, vs, ws):
    leaves = _leaves(args, kwargs, lib)
    outs = _diff_outputs(fn(*args, **kwargs), lib)
    gs = lib.autograd.grad(outs, leaves, vs, create_graph=True, allow_unused=True)
    terms = [_realsum(lib, g, w) for g, w in zip(gs, ws) if g is not None and g.requires_grad]
    if not terms:
        return gs, None
    s = terms[0]
    for t in terms[1:]:
        s = s + t
    gg = lib.autograd.grad(s, leaves + list(vs), allow_unused=True)
    return gs, gg


def _same(a, b, what, dtype):
    if a is None or b is None:
        # an unused input: torch may give None where numtorch gives zeros (or the reverse)
        other = b if a is None else a
        if other is not None:
            assert np.all(_np(other) == 0), f"{what}: None vs non-zero"
        return
    assert tuple(a.shape) == tuple(b.shape), f"{what}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], f"{what}: dtype {a.dtype} vs {b.dtype}"
    rtol, atol = _TOL.get(dtype, (1e-7, 1e-7))
    scale = max(1.0, float(np.nanmax(np.abs(_np(b)))) if b.numel() else 1.0)
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol * scale, equal_nan=True, err_msg=what)


def check_gradgrad(torch_fn, nt_fn, args, kwargs=None, seed=0):
    """Compare first grads (create_graph=True) and the grads of their weighted sum w.r.t. inputs and v."""
    kwargs = kwargs or {}
    targs, tkw = args, kwargs
    nargs, nkw = to_nt(args), to_nt(kwargs)
    touts = _diff_outputs(torch_fn(*targs, **tkw), torch)
    gen = torch.Generator().manual_seed(seed)
    tvs = [torch.randn(o.shape, dtype=o.dtype, generator=gen).requires_grad_(True) for o in touts]
    leaves = _leaves(targs, tkw, torch)
    tws = [torch.randn(x.shape, dtype=x.dtype, generator=gen) for x in leaves]
    nvs = [to_nt(v) for v in tvs]
    nws = [to_nt(w) for w in tws]
    tgs, tgg = _run(torch, torch_fn, targs, tkw, tvs, tws)
    ngs, ngg = _run(numtorch, nt_fn, nargs, nkw, nvs, nws)
    dtype = leaves[0].dtype if leaves else torch.float64
    for i, (a, b) in enumerate(zip(ngs, tgs)):
        _same(a, b, f"first grad {i}", dtype)
    if tgg is None:
        return
    assert ngg is not None, "numtorch's first grads have no graph"
    for i, (a, b) in enumerate(zip(ngg, tgg)):
        _same(a, b, f"grad of grad w.r.t. {'input' if i < len(leaves) else 'v'} {i}", dtype)


def check_gradgradcheck(nt_fn, args, kwargs=None, **kw):
    """numtorch.autograd.gradgradcheck over the differentiable (float64) inputs of args."""
    kwargs = kwargs or {}
    nargs, nkw = to_nt(args), to_nt(kwargs)
    leaves = _leaves(nargs, nkw, numtorch)
    ids = {id(x) for x in leaves}

    def rebuild(x, it):
        if isinstance(x, numtorch.Tensor) and id(x) in ids:
            return next(it)
        if isinstance(x, (list, tuple)):
            return type(x)(rebuild(y, it) for y in x)
        if isinstance(x, dict):
            return {k: rebuild(v, it) for k, v in x.items()}
        return x

    def f(*xs):
        it = iter(xs)
        a = rebuild(nargs, it)
        k = rebuild(nkw, it)
        outs = nt_fn(*a, **k)
        outs = outs if isinstance(outs, (tuple, list)) else (outs,)
        return tuple(o for o in outs if isinstance(o, numtorch.Tensor) and (o.dtype.is_floating_point or o.is_complex()))

    return numtorch.autograd.gradgradcheck(f, tuple(leaves), **kw)


def third_order(torch_fn, nt_fn, x):
    """grad of grad of grad of sum(f(x)) (each with create_graph) in both libraries."""
    res = []
    for lib, fn, xx in ((torch, torch_fn, x), (numtorch, nt_fn, to_nt(x))):
        y = fn(xx).sum()
        g1, = lib.autograd.grad(y, xx, create_graph=True)
        g2, = lib.autograd.grad(g1.sum(), xx, create_graph=True)
        g3, = lib.autograd.grad(g2.sum(), xx)
        res.append(g3)
    _same(res[1], res[0], "third-order grad", x.dtype)
