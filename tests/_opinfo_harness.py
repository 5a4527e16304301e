"""Runs one OpInfo entry of PyTorch's ``op_db`` through numtorch and torch and lists the differences.

``check_op(op, cap)`` returns ``(failures, counts)``: ``failures`` maps ``variant:dtype`` (variant one of
``function``, ``method``, ``inplace``, ``grad``; e.g. ``method:int64``), ``error`` (the error inputs) or
``missing`` to the first message of that kind, ``counts`` gives
``samples``/``samples_ok`` (each (sample, variant) run counts once) and ``errors``/``errors_ok`` (the
entry's ``error_inputs`` where numtorch raises torch's exception type).

What one sample checks, for each dtype of the entry among float32, float64, the integer dtypes and bool:
- the function variant (numtorch's function of the same name, see ``_opinfo_common.resolve``), the
  Tensor method and the in-place method (on a copy of the input; the returned tensor must be the
  input): outputs' values (float32 2e-4, float64 1e-7, relative to the largest magnitude), dtypes,
  shapes; non-tensor outputs (numbers, sizes, dtypes) equal; where torch raises, numtorch raises the
  same exception type;
- float64 with autograd: the gradients of ``sum(out * w)`` (``w`` random, the same in both) w.r.t.
  every input that requires grad;
- every ``error_inputs`` sample: numtorch raises the exception type torch raises.
Ops whose result is not determined (``empty``) are compared by shape and dtype only.
Run as a script (``python tests/_opinfo_harness.py``) it measures every entry with all samples.
"""
from __future__ import annotations

import functools
import itertools
import warnings

import numpy as np
import torch

import numtorch

from _opinfo_common import canonical, from_database, key, resolve, retarget, to_nt, to_nt_shared, wrapped

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from torch.testing._internal.common_methods_invocations import op_db  # noqa: F401 (re-exported)

_TOL = {"float32": 2e-4, "float64": 1e-7, "complex64": 2e-4, "complex128": 1e-7}
_INTS = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.bool)
# ops whose values are unspecified (uninitialised memory): shape and dtype only
UNDETERMINED = {"empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided", "empty_permuted",
                "torch.empty", "torch.empty_like"}


def dtypes(op):
    """The dtypes an entry is run in: float32/float64 and the integer/bool dtypes it supports on CPU."""
    sup = op.supported_dtypes("cpu")
    return [d for d in (torch.float32, torch.float64, *_INTS) if d in sup]


def _name(dt):
    return str(dt).split(".")[-1]


def _np(t):
    return np.asarray(t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else t.detach().numpy())


def compare(n, t, what, values=True):
    """Raise AssertionError when numtorch's output ``n`` differs from torch's ``t``."""
    if isinstance(t, torch.Tensor) and t.is_sparse:  # sparse COO: the layout, then indices and values as stored
        assert isinstance(n, numtorch.Tensor) and n.is_sparse, f"{what}: not a sparse tensor, torch's is"
        assert tuple(n.shape) == tuple(t.shape), f"{what}: shape {tuple(n.shape)} vs torch {tuple(t.shape)}"
        assert n.is_coalesced() == t.is_coalesced(), f"{what}: is_coalesced {n.is_coalesced()} vs torch's"
        compare(n._indices(), t._indices(), f"{what} indices", values)
        compare(n._values(), t._values(), f"{what} values", values)
        return
    if isinstance(t, torch.Tensor):
        assert isinstance(n, numtorch.Tensor), f"{what}: {type(n).__name__} instead of a Tensor"
        assert tuple(n.shape) == tuple(t.shape), f"{what}: shape {tuple(n.shape)} vs torch {tuple(t.shape)}"
        assert _name(n.dtype) == _name(t.dtype), f"{what}: dtype {_name(n.dtype)} vs torch {_name(t.dtype)}"
        if not values or t.numel() == 0 or t.dtype in (torch.bfloat16, torch.float16, torch.complex32):
            return
        a, b = _np(n), _np(t)
        tol = _TOL.get(_name(t.dtype))
        if tol is None:
            assert np.array_equal(a, b), f"{what}: values differ"
            return
        finite = np.isfinite(b)
        scale = max(1.0, float(np.abs(b[finite]).max())) if finite.any() else 1.0
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol * scale, equal_nan=True, err_msg=what)
    elif isinstance(t, (list, tuple)):
        assert isinstance(n, (list, tuple)) and len(n) == len(t), f"{what}: {n!r:.80} vs torch {t!r:.80}"
        for i, (a, b) in enumerate(zip(n, t)):
            compare(a, b, f"{what}[{i}]", values)
    elif isinstance(t, torch.dtype):
        assert _name(n) == _name(t), f"{what}: {n} vs torch {t}"
    elif isinstance(t, (bool, int, float, complex)) and not isinstance(n, numtorch.Tensor):
        if values:
            assert np.isclose(n, t, rtol=1e-6, atol=1e-6, equal_nan=True), f"{what}: {n!r} vs torch {t!r}"
    elif t is None:
        assert n is None, f"{what}: {type(n).__name__} vs torch None"
    else:
        assert type(n).__name__ == type(t).__name__, f"{what}: {type(n).__name__} vs torch {type(t).__name__}"


def same_error(n_exc, t_type):
    """numtorch's exception is torch's type (builtin types by isinstance, torch's own by class name)."""
    if t_type.__module__ == "builtins":
        return isinstance(n_exc, t_type)
    return t_type.__name__ in {c.__name__ for c in type(n_exc).__mro__}


def _leaves(x, lib, out):
    if isinstance(x, lib.Tensor):
        if x.requires_grad:
            out.append(x)
    elif isinstance(x, (list, tuple)):
        for y in x:
            _leaves(y, lib, out)
    elif isinstance(x, dict):
        for y in x.values():
            _leaves(y, lib, out)
    return out


def _grad_outputs(out, lib):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if isinstance(o, lib.Tensor) and o.requires_grad and (o.dtype.is_floating_point
                                                                                   or o.is_complex())]


def _grads(lib, out, leaves, ws):
    outs = _grad_outputs(out, lib)
    if not outs or not leaves:
        return None
    return lib.autograd.grad(outs, leaves, ws[:len(outs)], allow_unused=True)


class Missing(Exception):
    """numtorch has no function the entry calls (a database lambda reaching a name numtorch lacks)."""


def _missing(e):
    if isinstance(e, AttributeError) and str(e).startswith(("module 'numtorch", "type object 'Tensor'", "'_OpNamespace'")):
        raise Missing(str(e)) from None


def _run_pair(tcall, ncall, what, values=True):
    """Call both; same exception type, or outputs compared. Returns (torch out, numtorch out) or None."""
    try:
        torch.manual_seed(0)  # random ops (bernoulli_, uniform_ ...): numtorch draws torch's numbers
        tout = tcall()
    except Exception as e:  # noqa: BLE001 (torch refuses: numtorch must refuse alike)
        try:
            numtorch.manual_seed(0)
            ncall()
        except Exception as ne:  # noqa: BLE001
            _missing(ne)
            assert same_error(ne, type(e)), f"{what}: raised {type(ne).__name__}, torch {type(e).__name__}: {ne}"
            return None
        raise AssertionError(f"{what}: torch raises {type(e).__name__} ({str(e)[:80]}), numtorch does not")
    try:
        numtorch.manual_seed(0)
        nout = ncall()
    except Exception as ne:  # noqa: BLE001
        _missing(ne)
        raise AssertionError(f"{what}: numtorch raised {type(ne).__name__}: {str(ne)[:160]}") from None
    compare(nout, tout, what, values)
    return tout, nout


def _short(e):
    return " ".join(str(e).split())[:300]


def _method_name(fn):
    return getattr(fn, "__name__", None) if not from_database(fn) else None


def _variant(op, fn, name):
    """numtorch's callable for a method / in-place variant of an entry."""
    if from_database(fn):
        return retarget(fn)
    if isinstance(fn, functools.partial):  # F.relu with inplace=True and the like
        nfn = resolve(op)
        return None if nfn is None else functools.partial(nfn, *fn.args, **fn.keywords)
    if name is None or not hasattr(numtorch.Tensor, name):
        return None
    return lambda x, *a, **k: getattr(x, name)(*a, **k)


class _GradFailed(Exception):
    pass


def _check_grads(s, res, tleaves, nleaves, tag):
    """The gradients of ``sum(out * w)`` in both libraries: None when they agree, else what differs."""
    tout, nout = res
    proc = s.output_process_fn_grad
    nproc = retarget(proc) if from_database(proc) else proc
    tout, nout = proc(tout), nproc(nout)
    gen = torch.Generator().manual_seed(1)
    tws = [torch.randn(o.shape, dtype=o.dtype, generator=gen) for o in _grad_outputs(tout, torch)]
    nws = [to_nt(w) for w in tws]
    try:
        tg = _grads(torch, tout, tleaves, tws)
    except Exception as e:  # noqa: BLE001 (torch refuses: numtorch must refuse alike)
        try:
            _grads(numtorch, nout, nleaves, nws)
        except Exception as ne:  # noqa: BLE001
            return None if same_error(ne, type(e)) else f"{tag} grad: raised {type(ne).__name__}, torch {type(e).__name__}"
        return f"{tag} grad: torch raises {type(e).__name__}, numtorch does not"
    if tg is None:
        return None
    try:
        ng = _grads(numtorch, nout, nleaves, nws)
        if ng is None:  # numtorch's output has no graph: right where torch's gradients are all zero
            assert all(b is None or not np.any(_np(b)) for b in tg), f"{tag} grad: numtorch's output has no graph"
            return None
        for j, (a, b) in enumerate(zip(ng, tg)):
            if a is None or b is None:  # unused input: None and zeros are the same gradient
                other = b if a is None else a
                assert other is None or not np.any(_np(other)), f"{tag} grad {j}: None vs non-zero"
            else:
                compare(a, b, f"{tag} grad {j}")
    except AssertionError as e:
        return _short(e)
    except Exception as e:  # noqa: BLE001
        return f"{tag} grad: numtorch raised {type(e).__name__}: {str(e)[:160]}"
    return None


def _check_sample(op, nfn, s, dt, i, fails):
    """Run one sample through the function, method and in-place variants; returns (runs, runs passing)."""
    values = key(op) not in UNDETERMINED
    dn = _name(dt)
    tag = f"{dn} sample {i}"
    runs = ok = 0
    # function variant (values and, in float64 with autograd, gradients)
    runs += 1
    try:
        args, kwargs = (s.input, *s.args), dict(s.kwargs)
        nargs, nkw = to_nt(args), to_nt(kwargs)
        tfn, nwrap = canonical(op, wrapped(op, op.op, torch)), canonical(op, wrapped(op, nfn, numtorch))
        res = _run_pair(lambda: tfn(*args, **kwargs), lambda: nwrap(*nargs, **nkw), f"{tag} function", values)
        tleaves = _leaves((args, kwargs), torch, [])
        if res is not None and tleaves and dt == torch.float64:
            bad = _check_grads(s, res, tleaves, _leaves((nargs, nkw), numtorch, []), tag)
            if bad:
                fails.setdefault(f"grad:{dn}", bad)
                raise _GradFailed
        ok += 1
    except AssertionError as e:
        fails.setdefault(f"function:{dn}", _short(e))
    except _GradFailed:
        pass
    single = isinstance(s.input, torch.Tensor)
    # method variant
    if op.method_variant is not None and single:
        runs += 1
        nm = _variant(op, op.method_variant, _method_name(op.method_variant))
        if nm is None:
            fails.setdefault(f"method:{dn}", f"no numtorch Tensor.{_method_name(op.method_variant)}")
        else:
            try:
                x = s.input.detach()
                args, kwargs = to_nt(s.args), to_nt(dict(s.kwargs))
                tm, nm = canonical(op, op.method_variant), canonical(op, nm)
                _run_pair(lambda: tm(x, *s.args, **s.kwargs), lambda: nm(to_nt(x), *args, **kwargs),
                          f"{tag} method", values)
                ok += 1
            except AssertionError as e:
                fails.setdefault(f"method:{dn}", _short(e))
    # in-place variant, on a copy of the input
    if op.inplace_variant is not None and single:
        runs += 1
        ni = _variant(op, op.inplace_variant, _method_name(op.inplace_variant))
        if ni is None:
            fails.setdefault(f"inplace:{dn}", f"no numtorch Tensor.{_method_name(op.inplace_variant)}")
        else:
            try:
                tx = s.input.detach().clone()
                nx = to_nt(tx.clone())  # the same fresh storage torch writes into (to_nt keeps a view's storage)
                targs, tkw = [a.detach() if isinstance(a, torch.Tensor) else a for a in s.args], dict(s.kwargs)
                args, kwargs = to_nt(targs), to_nt(tkw)
                res = _run_pair(lambda: op.inplace_variant(tx, *targs, **tkw),
                                lambda: ni(nx, *args, **kwargs), f"{tag} inplace", values)
                if res is not None:
                    compare(nx, tx, f"{tag} inplace: the input after", values)
                    if res[0] is tx:
                        assert res[1] is nx, f"{tag} inplace: does not return its input"
                ok += 1
            except AssertionError as e:
                fails.setdefault(f"inplace:{dn}", _short(e))
    return runs, ok


def _samples(op, dt, cap):
    torch.manual_seed(0)
    grad = dt == torch.float64 and op.supports_autograd
    it = op.sample_inputs("cpu", dt, requires_grad=grad)
    return list(itertools.islice(it, cap)) if cap else list(it)


def _check_errors(op, nfn, fails, cap):
    """error_inputs: numtorch raises torch's exception type. Returns (count, count passing)."""
    if op.error_inputs_func is None:
        return 0, 0
    torch.manual_seed(0)  # the same error inputs whatever ran before (the run order must not matter)
    errs = list(itertools.islice(op.error_inputs("cpu"), cap)) if cap else list(op.error_inputs("cpu"))
    n = ok = 0
    for i, e in enumerate(errs):
        s = e.sample_input
        args, kwargs = (s.input, *s.args), dict(s.kwargs)
        try:
            op.op(*args, **kwargs)
            continue  # torch itself does not raise here (the case is for another device)
        except Exception as te:  # noqa: BLE001
            ttype = type(te)
        n += 1
        try:
            nargs, nkwargs = to_nt_shared((args, kwargs))  # one conversion: an out= may be an input
            nfn(*nargs, **nkwargs)
            fails.setdefault("error", f"error input {i}: numtorch does not raise (torch {ttype.__name__})")
        except Exception as ne:  # noqa: BLE001
            if same_error(ne, ttype):
                ok += 1
            else:
                fails.setdefault("error", f"error input {i}: raised {type(ne).__name__}, torch {ttype.__name__}: "
                                          f"{str(ne)[:120]}")
    return n, ok


def check_op(op, cap=None, dtype_cap=None):
    """(failures by category, counts) for one entry; ``cap`` samples per dtype (None: all), and at most
    ``dtype_cap`` samples for each integer/bool dtype."""
    fails, counts = {}, dict(samples=0, samples_ok=0, errors=0, errors_ok=0)
    nfn = resolve(op)
    if nfn is None:
        fails["missing"] = "not in numtorch"
        return fails, counts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for dt in dtypes(op):
            c = cap if dt in (torch.float32, torch.float64) else (dtype_cap or cap)
            for i, s in enumerate(_samples(op, dt, c)):
                try:
                    runs, ok = _check_sample(op, nfn, s, dt, i, fails)
                except Missing as e:
                    return {"missing": f"not in numtorch ({e})"}, counts
                except Exception as e:  # noqa: BLE001 (a value the harness cannot carry across, e.g. bfloat16)
                    runs, ok = 1, 0
                    fails.setdefault(f"function:{_name(dt)}", f"harness: {type(e).__name__}: {str(e)[:160]}")
                counts["samples"] += runs
                counts["samples_ok"] += ok
        n, ok = _check_errors(op, nfn, fails, cap)
        counts["errors"] += n
        counts["errors_ok"] += ok
    return fails, counts


if __name__ == "__main__":  # the measurement quoted in issue #16: every entry, every sample
    import sys
    total, full, missing = 0, 0, []
    c = dict(samples=0, samples_ok=0, errors=0, errors_ok=0)
    for op in op_db:
        if not dtypes(op):
            continue
        total += 1
        try:
            f, k = check_op(op)
        except Exception as e:  # noqa: BLE001 (a harness crash counts as a failure)
            f, k = {"crash": repr(e)[:200]}, {}
        for name, v in k.items():
            c[name] += v
        full += not f
        if "missing" in f:
            missing.append(key(op))
        if f and "-v" in sys.argv:
            print(key(op), f, flush=True)
    print(f"entries fully passing {full}/{total}; missing {len(missing)}; samples {c['samples_ok']}/{c['samples']}; "
          f"error inputs {c['errors_ok']}/{c['errors']}")
