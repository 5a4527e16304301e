"""Runs one ModuleInfo entry of PyTorch's ``module_db`` through numtorch and torch and lists the
differences.

For each dtype of the entry among float32/float64, in train and in eval mode, each of its module inputs:
the torch module is built from the entry's constructor arguments (seeded), the numtorch module of the
same name from the same arguments, and torch's ``state_dict`` is loaded into it (strict); then the
forward outputs (values, dtypes, shapes), the state after the forward (BatchNorm's running statistics),
and in float64 the gradients of ``sum(out * w)`` w.r.t. the inputs and every parameter (by name) must
match torch's; where torch raises, numtorch raises the same exception type.

``check_module(info, cap)`` returns ``(failures, counts)``: failures maps ``train:dtype`` /
``eval:dtype`` (or ``missing``) to the first message, counts gives ``samples``/``samples_ok``.
Run as a script it measures every entry with all inputs.
"""
from __future__ import annotations

import warnings

import torch

import numtorch
import numtorch.nn

from _opinfo_common import to_nt
from _opinfo_harness import _grad_outputs, _leaves, _short, compare, same_error

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from torch.testing._internal.common_modules import module_db  # noqa: F401 (re-exported)


def nt_class(info):
    """numtorch's class of an entry (``torch.nn.Linear`` -> ``numtorch.nn.Linear``), or None."""
    return getattr(numtorch.nn, info.module_cls.__name__, None)


def _nt_layer(m):
    """A numtorch Transformer{Encoder,Decoder}Layer built from a torch one (TransformerEncoder's constructor
    takes a layer instance): the same constructor arguments, read back from the torch layer, then its state
    copied in."""
    name = type(m).__name__
    if name not in ("TransformerEncoderLayer", "TransformerDecoderLayer"):
        raise TypeError(f"harness: cannot convert a torch {name} constructor argument to numtorch")
    nm = getattr(numtorch.nn, name)(
        m.self_attn.embed_dim, m.self_attn.num_heads, dim_feedforward=m.linear1.out_features,
        dropout=m.dropout.p, activation=_to_nt_arg(m.activation), layer_norm_eps=m.norm1.eps,
        batch_first=m.self_attn.batch_first, norm_first=m.norm_first, bias=m.linear1.bias is not None,
        dtype=_ndtype(m.linear1.weight.dtype))
    nm.load_state_dict({k: to_nt(v) for k, v in m.state_dict().items()})
    return nm.train(m.training)


def _to_nt_arg(x):
    """Constructor arguments: torch's functions (activations) become numtorch's of the same name, torch's
    Transformer layers numtorch's (``_nt_layer``)."""
    if isinstance(x, torch.nn.Module):
        return _nt_layer(x)
    if callable(x) and not isinstance(x, (torch.Tensor, type, torch.nn.Module)) and \
            (getattr(x, "__module__", None) or "").startswith(("torch.nn.functional", "torch._C")):
        return getattr(numtorch.nn.functional, x.__name__)
    if isinstance(x, (list, tuple)):
        return type(x)(_to_nt_arg(y) for y in x)
    if isinstance(x, dict):
        return {k: _to_nt_arg(v) for k, v in x.items()}
    return to_nt(x)


def _ndtype(dt):
    return getattr(numtorch, str(dt).split(".")[1])


def _to_nt_aliased(x, memo):
    """``to_nt`` keeping aliasing: a torch tensor passed twice (KLDivLoss's 0-d samples pass one tensor as
    input and target) becomes one numtorch tensor, so its gradient sums both uses as torch's does."""
    if isinstance(x, torch.Tensor):
        if id(x) not in memo:
            memo[id(x)] = to_nt(x)
        return memo[id(x)]
    if isinstance(x, (list, tuple)) and not isinstance(x, torch.Size):
        return type(x)(_to_nt_aliased(y, memo) for y in x)
    if isinstance(x, dict):
        return {k: _to_nt_aliased(v, memo) for k, v in x.items()}
    return to_nt(x)


def _materialize_lazy(tm, nm, targs, tkw, nargs, nkw, what):
    """A Lazy module is used as a user would: one forward on each side materializes its parameters from the
    input (numtorch's must take torch's shapes, class and initial values: same seed, same generator), then
    torch's state is copied in. Returns False where torch's first forward raises (numtorch raised alike)."""
    try:
        torch.manual_seed(0)
        with torch.no_grad():
            tm(*targs, **tkw)
    except Exception as e:  # noqa: BLE001
        try:
            numtorch.manual_seed(0)
            with numtorch.no_grad():
                nm(*nargs, **nkw)
        except Exception as ne:  # noqa: BLE001
            assert same_error(ne, type(e)), f"{what} first forward: raised {type(ne).__name__}, torch {type(e).__name__}"
            return False
        raise AssertionError(f"{what} first forward: torch raises {type(e).__name__}, numtorch does not") from None
    numtorch.manual_seed(0)
    with numtorch.no_grad():
        nm(*nargs, **nkw)
    assert type(nm).__name__ == type(tm).__name__, f"{what}: class {type(nm).__name__} vs torch {type(tm).__name__}"
    tsd, nsd = tm.state_dict(), nm.state_dict()
    assert list(nsd) == list(tsd), f"{what}: state_dict keys {list(nsd)} vs torch {list(tsd)}"
    for k in tsd:
        compare(nsd[k], tsd[k], f"{what} state_dict[{k!r}] after the first forward")
    return True


def _check_input(info, ncls, mi, dt, training, what):
    c = mi.constructor_input
    torch.manual_seed(0)
    try:
        tm = info.module_cls(*c.args, **c.kwargs).to(dt)
    except Exception as e:  # noqa: BLE001 (torch refuses the arguments: numtorch must refuse alike)
        try:
            ncls(*_to_nt_arg(c.args), **_to_nt_arg(c.kwargs))
        except Exception as ne:  # noqa: BLE001
            assert same_error(ne, type(e)), f"{what} construct: raised {type(ne).__name__}, torch {type(e).__name__}"
            return
        raise AssertionError(f"{what} construct: torch raises {type(e).__name__}, numtorch does not") from None
    f = mi.forward_input
    targs, tkw = f.args, dict(f.kwargs)
    nargs, nkw = _to_nt_aliased((targs, tkw), {})
    try:
        numtorch.manual_seed(0)
        nm = ncls(*_to_nt_arg(c.args), **_to_nt_arg(c.kwargs)).to(_ndtype(dt))
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"{what} construct: {type(e).__name__}: {str(e)[:160]}") from None
    tm.train(training)
    nm.train(training)
    if isinstance(tm, torch.nn.modules.lazy.LazyModuleMixin) and \
            not _materialize_lazy(tm, nm, targs, tkw, nargs, nkw, what):
        return
    try:
        nm.load_state_dict({k: to_nt(v) for k, v in tm.state_dict().items()})
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"{what} load_state_dict: {type(e).__name__}: {str(e)[:160]}") from None
    try:
        torch.manual_seed(0)
        tout = tm(*targs, **tkw)
    except Exception as e:  # noqa: BLE001
        try:
            numtorch.manual_seed(0)
            nm(*nargs, **nkw)
        except Exception as ne:  # noqa: BLE001
            assert same_error(ne, type(e)), f"{what} forward: raised {type(ne).__name__}, torch {type(e).__name__}"
            return
        raise AssertionError(f"{what} forward: torch raises {type(e).__name__}, numtorch does not") from None
    try:
        numtorch.manual_seed(0)
        nout = nm(*nargs, **nkw)
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"{what} forward: numtorch raised {type(e).__name__}: {str(e)[:160]}") from None
    compare(nout, tout, f"{what} output")
    tsd, nsd = tm.state_dict(), nm.state_dict()
    assert sorted(tsd) == sorted(nsd), f"{what}: state_dict keys {sorted(nsd)} vs torch {sorted(tsd)}"
    for k in tsd:
        compare(nsd[k], tsd[k], f"{what} state_dict[{k!r}] after forward")
    if dt != torch.float64:
        return
    touts = _grad_outputs(tout, torch)
    if not touts:
        return
    tnames = [n for n, p in tm.named_parameters() if p.requires_grad]
    tparams = dict(tm.named_parameters())
    nparams = dict(nm.named_parameters())
    assert sorted(tparams) == sorted(nparams), f"{what}: parameters {sorted(nparams)} vs torch {sorted(tparams)}"
    tleaves = _leaves((targs, tkw), torch, []) + [tparams[n] for n in tnames]
    nleaves = _leaves((nargs, nkw), numtorch, []) + [nparams[n] for n in tnames]
    gen = torch.Generator().manual_seed(1)
    tws = [torch.randn(o.shape, dtype=o.dtype, generator=gen) for o in touts]
    tg = torch.autograd.grad(touts, tleaves, tws, allow_unused=True)
    try:
        ng = numtorch.autograd.grad(_grad_outputs(nout, numtorch), nleaves, [to_nt(w) for w in tws],
                                    allow_unused=True)
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"{what} backward: numtorch raised {type(e).__name__}: {str(e)[:160]}") from None
    labels = [f"input {i}" for i in range(len(tleaves) - len(tnames))] + tnames
    for label, a, b in zip(labels, ng, tg):
        if a is None or b is None:
            other = b if a is None else a
            assert other is None or not other.detach().abs().sum().item(), f"{what} grad of {label}: None vs non-zero"
        else:
            compare(a, b, f"{what} grad of {label}")


def check_module(info, cap=None):
    fails, counts = {}, dict(samples=0, samples_ok=0)
    ncls = nt_class(info)
    if ncls is None:
        return {"missing": "not in numtorch"}, counts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for dt in (torch.float32, torch.float64):
            if dt not in info.supported_dtypes("cpu"):
                continue
            for training in (True, False):
                mode = f"{'train' if training else 'eval'}:{str(dt).split('.')[1]}"
                torch.manual_seed(0)
                inputs = info.module_inputs_func(info, device="cpu", dtype=dt, requires_grad=dt == torch.float64,
                                                 training=training)
                for i, mi in enumerate(inputs[:cap] if cap else inputs):
                    if mi.forward_input is None:
                        continue
                    counts["samples"] += 1
                    try:
                        _check_input(info, ncls, mi, dt, training, f"{mode} input {i} ({mi.desc})")
                        counts["samples_ok"] += 1
                    except AssertionError as e:
                        fails.setdefault(mode, _short(e))
                    except Exception as e:  # noqa: BLE001 (the harness cannot carry a value across)
                        fails.setdefault(mode, f"harness: {type(e).__name__}: {str(e)[:160]}")
    return fails, counts


if __name__ == "__main__":  # the measurement quoted in issue #16: every entry, every input
    import sys
    full, c = 0, dict(samples=0, samples_ok=0)
    for info in module_db:
        f, k = check_module(info)
        for name, v in k.items():
            c[name] += v
        full += not f
        if f and "-v" in sys.argv:
            print(info.name, f, flush=True)
    print(f"modules fully passing {full}/{len(module_db)}; samples {c['samples_ok']}/{c['samples']}")
