"""Sampling kernels and random creation ops (the kernels behind ``numtorch.random``).

``rand``/``randn``/``randint``/``randperm``/``normal``/``bernoulli``/``multinomial``/``poisson``, their
``*_like`` forms and the in-place samplers bound as Tensor methods (``uniform_``, ``normal_``, ``bernoulli_``,
``random_``, ``exponential_``, ``geometric_``, ``log_normal_``, ``cauchy_``). Samples come from a
``Generator``'s engine (``_generator.py``), or from the default generator's when ``generator`` is None,
and are laid out in memory order as PyTorch's CPU kernels visit elements, so seeded runs give PyTorch's
values. Argument errors are PyTorch's, word for word.
"""
from __future__ import annotations

import contextlib
import math
import warnings

import numpy as np

from .. import _backend as B
from .. import _dtype
from .. import _generator as _G
from .._device import check as _check_device
from .._tensor import Tensor, _make
from ..autograd import function as _function
from ..autograd.function import Op
from ._inplace import copy_
from ._out import is_dense as _is_dense
from ._util import bump, check_inplace
from .creation import _is_sparse, _require_grad, _shape, _size
from .pointwise import _out

__all__ = []  # internal: numtorch.random and the Tensor methods are the public face


def _eng(generator) -> _G.Engine:
    """The engine to draw from: ``generator``'s, or the default generator's for None."""
    return _G.default_engine if generator is None else generator._engine


def _float_dtype(dtype):
    d = _dtype.get_default_dtype() if dtype is None else dtype
    return d


def _finish(arr, requires_grad):
    t = _make(arr)
    if requires_grad:
        _require_grad(t)
    return t


def _need_float(dt, kernel: str) -> None:
    """PyTorch's dispatch error for a floating-point-only kernel given another dtype."""
    if not (dt.kind == "f" or dt.name == "bfloat16"):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype.from_np(dt)._aten_name}\'')


def _fill_values(shape, dt, draw) -> np.ndarray:
    n = math.prod(shape)
    return draw(n).astype(dt, copy=False).reshape(shape)


# ---- under vmap (func/_vmap.py sets _G.vmap_random_levels): randomness="same" and "different" --------
_SAME_ERROR = ("Vmap does not currently support same randomness with a batched tensor input. Please file an issue "
               "with functorch")
_INPLACE_ERROR = ("vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will appear like "
                  "same randomness. If this is necessary for your usage, please file an issue with functorch.")


class _PerSample:
    """While drawing one value per sample for the levels with randomness="different" (the vmap random
    check lets these draws through)."""

    def __enter__(self):
        _G.batched_draws += 1

    def __exit__(self, *exc):
        _G.batched_draws -= 1


def _src(t):
    """(physical tensor, levels) of a tensor batched under vmap, or None."""
    return getattr(t._data, "_src", None) if isinstance(t, Tensor) else None


def _per_sample(shape, dt, draw, requires_grad=False):
    """A factory's samples of ``shape`` inside vmap: one draw per sample of the "different" levels (a batched
    tensor over them), or one shared draw."""
    levels, sizes = _G.vmap_random_levels()
    if not levels:
        return _finish(_fill_values(shape, dt, draw), requires_grad)
    with _PerSample():
        arr = _fill_values(sizes + tuple(shape), dt, draw)
    return _function.vmap_wrap(_finish(arr, requires_grad), levels)


def _physical(ts, levels, sizes):
    """The physical arrays of tensors ``ts`` (batched at no level outside ``levels``) over all of ``levels``
    (sizes ``sizes``), broadcast; RuntimeError (PyTorch's) for a tensor batched at a "same" level."""
    out = []
    for t in ts:
        src = _src(t)
        own = src[1] if src else ()
        if any(lid not in levels for lid in own):
            raise RuntimeError(_SAME_ERROR)
        a = src[0]._data if src else t._data
        it = iter(a.shape[:len(own)])
        lead = tuple(next(it) if lid in own else 1 for lid in levels)
        out.append(np.broadcast_to(a.reshape(lead + a.shape[len(own):]), sizes + a.shape[len(own):]))
    return out


def _vmap_empty(input, dt, shape=None):
    """``torch.empty_like(input)`` (or of logical ``shape``) inside vmap: batched at ``input``'s levels and the
    "different" levels, so an in-place sampler fills it per sample."""
    levels, sizes = _G.vmap_random_levels()
    src = _src(input)
    own = dict(zip(src[1], src[0]._data.shape)) if src else {}
    own.update(zip(levels, sizes))
    lv = tuple(sorted(own))
    shape = input._data.shape if shape is None else tuple(shape)
    t = _make(np.empty(tuple(own[lid] for lid in lv) + shape, dt))
    return _function.vmap_wrap(t, lv) if lv else t


def _contiguous_empty(input) -> Tensor:
    """``torch.empty_like(input, memory_format=contiguous)`` for an in-place sampler (batched inside vmap)."""
    if _G.vmap_random_levels is not None:
        return _vmap_empty(input, input._data.dtype)
    return _make(np.empty(input._data.shape, input._data.dtype))


def _fill_batched(self, draw):
    """``_fill`` inside vmap: a batched ``self`` gets one draw per sample of the "different" levels, shared
    over its other levels; RuntimeError (PyTorch's) for "different" randomness into an unbatched tensor."""
    levels, _ = _G.vmap_random_levels()
    src = _src(self)
    own = src[1] if src else ()
    if any(lid not in own for lid in levels):
        raise RuntimeError(_INPLACE_ERROR)
    phys = src[0]
    check_inplace(phys)
    d = phys._data
    shape = tuple(n if lid in levels else 1 for lid, n in zip(own, d.shape)) + d.shape[len(own):]
    with _PerSample():
        d[...] = draw(math.prod(shape)).reshape(shape)
    bump(phys)
    return self


def _float_samples(draw, size, generator, out, dtype, device, requires_grad) -> Tensor:
    """``rand``/``randn``: ``draw(engine, n, dt)`` samples of shape ``size`` in ``dtype``, ``out``'s dtype or
    the default float dtype."""
    dev = _check_device(device)
    dtype = dtype if dtype is not None or out is None else out.dtype
    dt = _float_dtype(dtype).np
    if dev.type == "meta":  # no data: no draw from the generator either, as in PyTorch
        return _out(_finish(B.empty(_size(size), dt, dev), requires_grad), out)
    if _G.vmap_random_levels is not None:
        return _out(_per_sample(_size(size), dt, lambda n: draw(_eng(generator), n, dt), requires_grad), out)
    return _out(_finish(_fill_values(_size(size), dt, lambda n: draw(_eng(generator), n, dt)), requires_grad), out)


def rand(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False) -> Tensor:
    """Uniform samples in ``[0, 1)`` with shape ``size`` (``torch.rand``); the default float dtype."""
    _is_sparse(layout, "aten::uniform_")
    return _float_samples(_G.uniform, _shape("rand", sizes, size), generator, out, dtype, device, requires_grad)


def randn(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False) -> Tensor:
    """Standard normal samples with shape ``size`` (``torch.randn``); the default float dtype."""
    _is_sparse(layout, "aten::normal_")
    return _float_samples(_G.normal, _shape("randn", sizes, size), generator, out, dtype, device, requires_grad)


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


_INT_BOUNDS: dict = {}


def _is_float(dt) -> bool:
    return dt.kind == "f" or (dt.kind == "V" and dt.name == "bfloat16")  # kind first: .name is slow


def _cast_int(dt, value: int) -> int:
    """``int64(dtype(value))``; values the dtype can't hold are returned as they are (the range check follows)."""
    if abs(value) >= 2 ** 62:
        return value
    with np.errstate(over="ignore"):
        cast = float(np.asarray(float(value)).astype(dt).astype(np.float64))
    return int(cast) if np.isfinite(cast) else value


def _finfo(dt):
    import ml_dtypes  # bfloat16's finfo; ml_dtypes loads on first use (start-up cost)
    return ml_dtypes.finfo(dt) if dt.name == "bfloat16" else np.finfo(dt)


def _update_from(dt, frm: int) -> int:
    """Move ``from`` right until its cast to the float dtype stays >= from (PyTorch's ``update_from``)."""
    plus1 = _cast_int(dt, frm + 1)
    if plus1 < frm:
        return plus1 + (1 << (abs(frm + 1).bit_length() - 1 - _G.mantissa_digits(dt) + 1))
    return frm


def _update_to(dt, to: int) -> int:
    """Move ``to`` left until its cast to the float dtype stays < to (PyTorch's ``update_to``)."""
    minus1 = _cast_int(dt, to - 1)
    if minus1 >= to:
        return minus1 - (1 << (abs(to - 1).bit_length() - 1 - _G.mantissa_digits(dt) + 1))
    return to


def _check_from_to(dt, frm: int, to_inc: int) -> None:
    """PyTorch's ``check_from_to_in_range``: RuntimeError outside the dtype, UserWarning past a float's exact
    integers."""
    if dt.kind in "iu":  # the common case (randint), with the bounds cached per dtype
        bounds = _INT_BOUNDS.get(dt)
        if bounds is None:
            bounds = _INT_BOUNDS[dt] = (int(np.iinfo(dt).min), int(np.iinfo(dt).max))
        lo, hi = bounds
    elif dt == np.bool_:
        lo, hi = 0, 1
    else:
        lo, hi = float(_finfo(dt).min), float(_finfo(dt).max)
    for value, what in ((frm, "from"), (to_inc, "to - 1")):
        if not lo <= value <= hi:
            raise RuntimeError(f"{what} is out of bounds for {_dtype.from_np(dt)._cpp_name}")
    if _is_float(dt):
        name = _dtype.from_np(dt)._cpp_name
        digits = _G.mantissa_digits(dt)
        for value, what in ((frm, "from"), (to_inc, "to - 1")):
            if value < -(1 << digits) or value > (1 << digits):
                warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                              f"{name} can support discrete uniform distribution only within this range. This "
                              f"warning will become an error in version 1.7 release, please fix the code in "
                              f"advance", UserWarning, stacklevel=4)


def _random_from_to(eng, n: int, dt, frm, to) -> np.ndarray:
    """PyTorch's ``random_from_to_impl`` as ``n`` values of dtype ``dt``: ``[from, to)``, or ``[from, top of
    the dtype]`` when ``to`` is None (all 64-bit values when ``from`` is ``-2**63``)."""
    frm = int(frm)
    if to is not None:
        to = int(to)
        if frm >= to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={frm} >= to={to}")
        if _is_float(dt):
            frm, to = _update_from(dt, frm), _update_to(dt, to)
            if frm >= to:
                raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                                   f"but got from={frm} >= to={to}")
        _check_from_to(dt, frm, to - 1)
        span = to - frm
    elif frm != _INT64_MIN:
        if _is_float(dt):
            to_inc = min(1 << _G.mantissa_digits(dt), _INT64_MAX)
            frm = _update_from(dt, frm)
            if frm >= to_inc:
                raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                                   f"casted to dtype, but got from={frm} > to_inc={to_inc}")
        else:
            to_inc = 1 if dt == np.bool_ else int(np.iinfo(dt).max)
        _check_from_to(dt, frm, to_inc)
        span = to_inc - frm + 1
    else:
        if dt == np.float16:
            raise NotImplementedError('"random_full_64_bits_range_kernel_cpu" not implemented for \'Half\'')
        if not (dt in (np.int64, np.float64, np.float32) or dt.name == "bfloat16"):
            raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16")
        span = 1 << 64
    return _G.random_from_to(eng, n, frm, span).astype(dt)


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False) -> Tensor:
    """Integers uniform in ``[low, high)`` (``torch.randint(low=0, high, size)``); int64 by default.

    Each sample is ``word % (high - low) + low`` from PyTorch's stream. RuntimeError when ``low >= high``.
    """
    dev = _check_device(device)
    if size is None:  # randint(high, size)
        if high is None:
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    elif high is None:  # randint(high, size=...)
        low, high = 0, low
    dtype = dtype if dtype is not None or out is None else out.dtype
    dt = np.dtype(_dtype.to_np(dtype)) if dtype is not None else np.dtype(np.int64)
    if requires_grad and not _is_float(dt):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    shape = _size((size,)) if not isinstance(size, int) else (size,)
    if dev.type == "meta":
        return _out(_make(B.empty(shape, dt, dev)), out)
    if _G.vmap_random_levels is not None:
        return _out(_per_sample(shape, dt, lambda n: _random_from_to(_eng(generator), n, dt, low, high)), out)
    return _out(_make(_fill_values(shape, dt, lambda n: _random_from_to(_eng(generator), n, dt, low, high))), out)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """A random permutation of ``0..n-1`` (``torch.randperm``); int64 by default."""
    dev = _check_device(device)
    dtype = dtype if dtype is not None or out is None else out.dtype
    n = int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = np.dtype(_dtype.to_np(dtype)) if dtype else np.dtype(np.int64)
    if dt == np.bool_:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    if dt == np.float16 and n > 2049:
        raise RuntimeError("n cannot be greater than 2049 for Half type.")
    if dt.kind in "iu" and n > 0 and n - 1 > np.iinfo(dt).max:
        ctype = "int" if dt == np.int32 else dt.name + "_t"  # c10's checked_convert names the <cstdint> type
        raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
    dt = _dtype.to_np(dtype) if dtype else np.int64
    if _G.vmap_random_levels is not None and _G.vmap_random_levels()[0]:  # one permutation per sample
        levels, sizes = _G.vmap_random_levels()
        with _PerSample():
            perms = [_G.randperm(_eng(generator), n) for _ in range(math.prod(sizes))]
        return _function.vmap_wrap(_make(np.stack(perms).astype(dt).reshape(sizes + (n,))), levels)
    if dev.type == "meta":
        return _out(_make(B.empty((n,), dt, dev)), out)
    return _out(_make(_G.randperm(_eng(generator), n).astype(dt)), out)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False) -> Tensor:
    """Normal samples (``torch.normal``): tensor or float ``mean``/``std`` (broadcast), or floats and ``size``.

    As PyTorch: standard normals scaled by a tensor ``std`` and shifted by ``mean``; with a float
    ``std``, ``N(0, std)`` samples shifted by ``mean``. RuntimeError for a negative ``std``.
    """
    if _G.vmap_random_levels is not None and size is None and (isinstance(mean, Tensor) or isinstance(std, Tensor)):
        return _vmap_normal(mean, std, generator)  # tensor parameters inside vmap
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    if isinstance(s, np.ndarray) and (s < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not isinstance(s, np.ndarray) and s < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(s):g}")
    if size is None and not isinstance(m, np.ndarray) and not isinstance(s, np.ndarray):
        raise TypeError("normal() received an invalid combination of arguments - with float mean and std, "
                        "size is required")
    eng = _eng(generator)
    if size is not None:
        shape = _size((size,)) if not isinstance(size, int) else (size,)
        dt = _float_dtype(dtype).np
        if _G.vmap_random_levels is not None:
            return _out(_per_sample(shape, dt, lambda n: _G.normal(eng, n, dt, float(m), float(s)), requires_grad), out)
        return _out(_finish(_fill_values(shape, dt, lambda n: _G.normal(eng, n, dt, float(m), float(s))),
                            requires_grad), out)
    try:
        shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({np.shape(m)[-1]}) must match the size of tensor b "
                           f"({np.shape(s)[-1]}) at non-singleton dimension 0") from None
    ref = mean if isinstance(mean, Tensor) else std
    dt = ref._data.dtype
    _need_float(dt, "normal_kernel_cpu")
    if isinstance(s, np.ndarray):
        arr = _fill_values(shape, dt, lambda n: _G.normal(eng, n, dt))
        arr = arr * s.astype(dt, copy=False) + np.asarray(m, dtype=dt)
    else:
        arr = _fill_values(shape, dt, lambda n: _G.normal(eng, n, dt, 0.0, float(s))) + m.astype(dt, copy=False)
    return _out(_normal_graph(mean, std, arr.astype(dt, copy=False)), out)


def _vmap_normal(mean, std, generator):
    """``normal(mean, std)`` with tensor parameters inside vmap: standard normals per sample (physical
    arrays) scaled and shifted; PyTorch's RuntimeError for a batched parameter under randomness="same"."""
    levels, sizes = _G.vmap_random_levels()
    ts = [t for t in (mean, std) if isinstance(t, Tensor)]
    arrs = _physical(ts, levels, sizes)
    it = iter(arrs)
    m = next(it) if isinstance(mean, Tensor) else mean
    s = next(it) if isinstance(std, Tensor) else std
    dt = ts[0]._data.dtype
    _need_float(dt, "normal_kernel_cpu")
    if isinstance(s, np.ndarray) and (s < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not isinstance(s, np.ndarray) and s < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(s):g}")
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    with _PerSample():
        z = _fill_values(shape, dt, lambda n: _G.normal(_eng(generator), n, dt))
    res = _make((z * s + m).astype(dt, copy=False))
    return _function.vmap_wrap(res, levels) if levels else res


class _NormalBackward(Op):
    """Samples as a function of ``mean``/``std``: PyTorch defines their gradients as zero."""
    _saves = ()

    def forward(self, *params, result):
        self.shapes = [p.shape for p in params]
        return result

    def backward(self, g):
        return tuple(np.zeros(shape, g.dtype) for shape in self.shapes)


class NormalBackward1(_NormalBackward):  # tensor mean, float std
    pass


class NormalBackward2(_NormalBackward):  # float mean, tensor std
    pass


class NormalBackward3(_NormalBackward):  # tensor mean and std
    pass


def _normal_graph(mean, std, arr) -> Tensor:
    """Attach PyTorch's zero-gradient NormalBackward node when ``mean``/``std`` require grad."""
    params = [t for t in (mean, std) if isinstance(t, Tensor)]
    if not any(t.requires_grad for t in params):
        return _make(arr)
    node = NormalBackward3 if len(params) == 2 else (NormalBackward1 if isinstance(mean, Tensor) else NormalBackward2)
    return node.apply(*params, result=arr)


def _check_probabilities(prob: np.ndarray) -> None:
    """``bernoulli``'s checks of a probability tensor: a floating dtype, values in ``[0, 1]``."""
    _need_float(prob.dtype, "bernoulli_tensor_cpu_p_")
    if prob.size and not ((prob >= 0) & (prob <= 1)).all():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """Samples 1 with probability ``input`` (or the float ``p``), else 0, in ``input``'s dtype
    (``torch.bernoulli``). RuntimeError for probabilities outside ``[0, 1]``."""
    if _G.vmap_random_levels is not None:  # inside vmap: one draw per sample under randomness="different"
        if p is not None:
            return bernoulli_(_vmap_empty(input, input._data.dtype), p, generator=generator)
        levels, sizes = _G.vmap_random_levels()
        prob = _physical([input], levels, sizes)[0]
        _check_probabilities(prob)
        with _PerSample():
            res = _G.bernoulli_tensor(_eng(generator), np.ascontiguousarray(prob)).astype(prob.dtype)
        return _function.vmap_wrap(_make(res), levels) if levels else _make(res)
    if p is not None:  # the result is contiguous whatever the input's layout, as in PyTorch
        return _out(bernoulli_(_make(B.empty(input._data.shape, input._data.dtype)), p, generator=generator), out)
    prob = input._data
    _check_probabilities(prob)
    prob = np.array(prob, order="C")  # not ascontiguousarray, which makes a 0-d input 1-d
    return _out(_make(_G.bernoulli_tensor(_eng(generator), prob).astype(prob.dtype)), out)


def multinomial(input: Tensor, num_samples: int, replacement=False, *, generator=None, out=None) -> Tensor:
    """Indices sampled from the rows of ``input`` (non-negative weights, need not sum to 1).

    Mirrors ``torch.multinomial``: input ``(C)`` or ``(N, C)``; returns int64 ``(num_samples)`` or
    ``(N, num_samples)``. Without replacement, or for one sample, the ``argmax``/``topk`` of
    ``weights / Exp(1)`` (PyTorch's method); with replacement, inverse-CDF sampling. RuntimeError for
    negative, non-finite or all-zero weights, or for more samples than categories without replacement.
    """
    if input._data.dtype.kind not in "fc" and input.dtype.name != "bfloat16":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{input.type().split('.')[-1][:-len('Tensor')]}")
    w = input._data
    if w.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if out is not None and out.dtype != _dtype.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {out.dtype._aten_name}")
    levels = ()
    if _G.vmap_random_levels is not None:  # inside vmap: every sample's rows at once
        levels, sizes = _G.vmap_random_levels()
        w = _physical([input], levels, sizes)[0]
    rows = w.reshape(-1, w.shape[-1])
    if not np.isfinite(rows).all() or (rows < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (rows.sum(-1, dtype=np.float64) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    eng = _eng(generator)
    with _PerSample() if levels else contextlib.nullcontext():  # per sample inside vmap
        if replacement and num_samples > 1:
            res = _G.multinomial_with_replacement(eng, np.ascontiguousarray(rows), num_samples)
        else:
            # Exp(1) noise drawn into torch.empty_like(input): in the input's memory order
            noise = np.empty_like(w) if _is_dense(w) else np.empty(w.shape, w.dtype)
            perm = _memory_perm(noise)
            noise.transpose(perm)[...] = _G.exponential(eng, w.size, 1.0).astype(w.dtype).reshape(
                noise.transpose(perm).shape)
            q = rows / noise.reshape(rows.shape)
            if num_samples == 1:
                res = np.argmax(q, axis=-1)[:, None]
            else:
                res = np.argsort(-q, axis=-1, kind="stable")[:, :num_samples]
    res = res.astype(np.int64)
    if levels:
        return _function.vmap_wrap(_make(res.reshape(w.shape[:-1] + (num_samples,))), levels)
    return _out(_make(res[0] if w.ndim == 1 else res), out)


def poisson(input: Tensor, generator=None) -> Tensor:
    """Poisson samples with rates ``input`` (``torch.poisson``), in ``input``'s dtype; PyTorch's sampler.
    RuntimeError for negative rates."""
    lam, levels = input._data, ()
    if _G.vmap_random_levels is not None:  # inside vmap: every sample's rates at once
        levels, sizes = _G.vmap_random_levels()
        lam = _physical([input], levels, sizes)[0]
    _need_float(lam.dtype, "poisson_cpu")
    if lam.size and not (lam >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    with _PerSample():
        res = _make(_G.poisson(_eng(generator), np.ascontiguousarray(lam, dtype=np.float64)).astype(lam.dtype))
    return _function.vmap_wrap(res, levels) if levels else res


def _finish_like(out, requires_grad):
    if _src(out):  # batched inside vmap: its physical tensor is the result
        return out.requires_grad_() if requires_grad else out
    return _finish(out._data, requires_grad)


def _empty_like(input, dtype) -> Tensor:
    """``torch.empty_like`` with the default ``preserve_format``: the input's strides when it is dense and
    non-overlapping (a transposed tensor stays transposed), else contiguous."""
    x = input._data
    dt = _dtype.to_np(dtype) if dtype is not None else x.dtype
    if _G.vmap_random_levels is not None:  # inside vmap: batched, so the sampler fills it per sample
        return _vmap_empty(input, dt)
    if type(x) is B.MetaArray:
        return _make(B.meta(x.shape, dt))
    return _make(np.empty_like(x, dtype=dt) if _is_dense(x) else np.empty(x.shape, dt))


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """``rand`` with ``input``'s shape, layout and (by default) dtype."""
    out = uniform_(_empty_like(input, dtype), generator=generator)
    return _finish_like(out, requires_grad)


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """``randn`` with ``input``'s shape, layout and (by default) dtype."""
    out = normal_(_empty_like(input, dtype), generator=generator)
    return _finish_like(out, requires_grad)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    """``randint`` with ``input``'s shape, layout and (by default) dtype; ``randint_like(x, high)`` or
    ``(x, low, high)``."""
    if high is None:
        low, high = 0, low
    return random_(_empty_like(input, dtype), low, high, generator=generator)


# ---- in-place samplers (bound as Tensor methods) ------------------------------------------------
def _memory_perm(arr: np.ndarray) -> tuple:
    """Axes in memory order (outermost first): the order PyTorch's kernels visit elements in."""
    if arr.flags.c_contiguous or arr.ndim < 2:
        return tuple(range(arr.ndim))
    return tuple(sorted(range(arr.ndim), key=lambda d: -abs(arr.strides[d])))


def _memory_order(arr: np.ndarray) -> np.ndarray:
    """A view of ``arr`` whose C order is its memory order."""
    return arr.transpose(_memory_perm(arr))


def _fill(self, draw):
    """Fill ``self`` in place with ``draw(n)`` (a flat array), element by element in memory order."""
    if _G.vmap_random_levels is not None and (_src(self) or _G.vmap_random_levels()[0]):
        return _fill_batched(self, draw)
    check_inplace(self)
    if type(self._data) is B.MetaArray:  # no data to fill, no draw (docs/meta.md)
        return self
    view = _memory_order(self._data)
    view[...] = draw(view.size).reshape(view.shape)
    bump(self)
    return self


def _fill_complex(self, fill_real):
    """ATen fills a complex tensor through ``view_as_real(self)``: its real and imaginary parts drawn as one
    real tensor of shape ``(*self.shape, 2)`` (so seeded draws match PyTorch for contiguous tensors)."""
    check_inplace(self)
    if type(self._data) is B.MetaArray:
        return self
    parts = _make(np.empty(self._data.shape + (2,), self._data.real.dtype))
    fill_real(parts)
    self._data[...] = parts._data[..., 0] + 1j * parts._data[..., 1]
    bump(self)
    return self


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    """Fill with samples uniform in ``[a, b)`` (``torch.Tensor.uniform_``; complex: real and imaginary parts
    each uniform). NotImplementedError for an integer tensor; RuntimeError for ``a > b`` or bounds the dtype
    can't hold."""
    dt = self._data.dtype
    if dt.kind == "c":
        return _fill_complex(self, lambda parts: uniform_(parts, a, b, generator=generator))
    _need_float(dt, "check_uniform_bounds")
    info = _finfo(dt)
    for value, what in ((a, "from"), (b, "to")):
        if not float(info.min) <= value <= float(info.max):
            raise RuntimeError(f"{what} is out of bounds for {_dtype.from_np(dt)._cpp_name.replace('c10::', '')}")
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}")
    if b - a > float(info.max):
        tname = _dtype.from_np(dt)._aten_name
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{tname}>::max(), but found to={b:g} "
                           f"and from={a:g} which result in to-from to exceed the limit")
    return _fill(self, lambda n: _G.uniform(_eng(generator), n, dt, a, b))


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with normal samples (``torch.Tensor.normal_``; complex: real and imaginary parts each with
    standard deviation ``std / sqrt(2)``). RuntimeError for a negative ``std``."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")
    dt = self._data.dtype
    if dt.kind == "c":
        return _fill_complex(self, lambda parts: normal_(parts, mean, std / math.sqrt(2), generator=generator))
    _need_float(dt, "normal_kernel_cpu")
    if not self._data.flags.c_contiguous:  # PyTorch's scalar path for non-contiguous tensors
        return _fill(self, lambda n: _G._normal_scalar(_eng(generator), n, mean, std).astype(dt))
    return _fill(self, lambda n: _G.normal(_eng(generator), n, dt, mean, std))


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 1 (probability ``p``, a float or a tensor broadcast to ``self``) or 0."""
    eng = _eng(generator)
    if isinstance(p, Tensor) and _G.vmap_random_levels is not None:  # inside vmap: drawn as bernoulli(p), copied
        return copy_(self, bernoulli(p.expand(self._data.shape), generator=generator))
    if isinstance(p, Tensor):
        _check_probabilities(p._data)
        try:
            prob = np.broadcast_to(p._data, self._data.shape)
        except ValueError:
            raise RuntimeError(f"The expanded size of the tensor ({self._data.shape[-1]}) must match the existing "
                               f"size ({p._data.shape[-1]}) at non-singleton dimension {self._data.ndim - 1}.  "
                               f"Target sizes: {list(self._data.shape)}.  Tensor sizes: {list(p._data.shape)}") from None
        prob = prob.transpose(_memory_perm(self._data))
        return _fill(self, lambda n: _G.bernoulli_tensor(eng, np.ascontiguousarray(prob)).ravel())
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return _fill(self, lambda n: _G.bernoulli_scalar(eng, n, p))


_NO_TO = object()


def random_(self, from_=0, to=_NO_TO, *, generator=None):
    """Fill with integers: ``random_()`` in ``[0, 2**mantissa]`` (floats) or ``[0, max]`` (integers),
    ``random_(to)`` in ``[0, to)``, ``random_(from, to)`` in ``[from, to)``, ``random_(from, None)`` from
    ``from`` to that top value (``random_(-2**63, None)``: all 64-bit values)."""
    dt = self._data.dtype
    eng = _eng(generator)
    if to is _NO_TO:
        if from_ == 0:
            return _fill(self, lambda n: _G.random_default(eng, n, dt))
        from_, to = 0, from_
    return _fill(self, lambda n: _random_from_to(eng, n, dt, from_, to))


def _need_continuous(dt, distribution: str, type_name: str) -> None:
    """PyTorch's error for a continuous distribution's sampler on a non-float tensor; ``type_name`` is the dtype
    attribute its message shows (``_aten_name`` or ``_cpp_name``)."""
    if not _is_float(dt):
        raise RuntimeError(f"{distribution} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {getattr(_dtype.from_np(dt), type_name)}")


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with ``Exp(lambd)`` samples. RuntimeError for ``lambd <= 0`` or a non-float tensor."""
    _need_continuous(self._data.dtype, "Exponential", "_aten_name")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    return _fill(self, lambda n: _G.exponential(_eng(generator), n, lambd))


def geometric_(self, p, *, generator=None):
    """Fill with the number of Bernoulli(``p``) trials up to the first success. RuntimeError unless
    ``0 < p < 1``."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return _fill(self, lambda n: _G.geometric(_eng(generator), n, p))


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with ``exp(N(mean, std))`` samples. RuntimeError for ``std <= 0``."""
    _need_float(self._data.dtype, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    return _fill(self, lambda n: _G.log_normal(_eng(generator), n, mean, std))


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with Cauchy(``median``, ``sigma``) samples. RuntimeError for ``sigma <= 0``."""
    _need_continuous(self._data.dtype, "Cauchy", "_cpp_name")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    return _fill(self, lambda n: _G.cauchy(_eng(generator), n, median, sigma))


def multinomial_method(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)


def bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)
