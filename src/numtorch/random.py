"""Random numbers (mirrors ``torch.random`` and the random creation functions).

A ``Generator`` is PyTorch's CPU generator: a Mersenne Twister seeded as PyTorch seeds it, whose
words become samples the way ATen's CPU kernels make them (``_generator.py``). So after
``manual_seed(s)``, ``rand``/``randn``/``randint``/``randperm``/``normal``/``bernoulli``/``multinomial``,
the in-place samplers, ``nn.init``, dropout and a shuffling ``DataLoader`` give the same values as
PyTorch on a CPU, and ``get_rng_state()`` is PyTorch's 5056-byte state. Exception: on Intel CPUs
PyTorch draws ``bernoulli_(p)`` with a float ``p`` from MKL.
"""
from __future__ import annotations

import numpy as np

from . import _dtype
from . import _generator as _G
from ._device import check as _check_device
from ._tensor import Tensor, _make

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "default_generator",
           "rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "rand_like", "randn_like",
           "randint_like", "poisson"]


class Generator:
    """A random-number generator (``torch.Generator``): ``manual_seed``, ``seed``, ``initial_seed``,
    ``get_state``/``set_state`` (a uint8 tensor of 5056 bytes, PyTorch's layout)."""

    def __init__(self, device="cpu"):
        _check_device(device)
        self.device = "cpu"
        self._engine = _G.Engine(_G.DEFAULT_SEED)

    def manual_seed(self, seed) -> "Generator":
        """Reseed with ``seed`` (an int in ``[-2**63, 2**64)``; negatives wrap modulo 2**64)."""
        seed = int(seed)
        if not -(1 << 63) <= seed < (1 << 64):
            raise RuntimeError(f"Overflow when unpacking long: seed {seed} is outside [-2**63, 2**64)")
        self._engine.reseed(seed)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        s = int(np.random.SeedSequence().entropy) & 0xFFFFFFFFFFFFFFFF
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._engine.seed

    def get_state(self) -> Tensor:
        return _make(self._engine.get_state())

    def set_state(self, new_state: Tensor) -> "Generator":
        """Restore a state from ``get_state`` (numtorch's or PyTorch's). RuntimeError for a wrong size
        and TypeError for a non-uint8 tensor."""
        if not isinstance(new_state, Tensor) or new_state._data.dtype != np.uint8:
            raise TypeError(f"expected a torch.ByteTensor, but got "
                            f"{type(new_state).__name__ if not isinstance(new_state, Tensor) else new_state.type()}")
        self._engine.set_state(new_state._data.reshape(-1))
        return self


default_generator = Generator()


def _eng(generator) -> "_G.Engine":
    return (generator or default_generator)._engine


def manual_seed(seed) -> Generator:
    """Seed the default generator (``torch.manual_seed``); returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state (``torch.get_rng_state``): uint8 tensor of 5056 bytes."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)


def _size(size):
    from ._ops.creation import _size as s
    return s(size)


def _float_dtype(dtype):
    d = _dtype.get_default_dtype() if dtype is None else dtype
    return d


def _finish(arr, requires_grad):
    t = _make(arr)
    if requires_grad:
        from ._ops.creation import _require_grad
        _require_grad(t)
    return t


def _fill_values(shape, dt, draw) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    return draw(n).astype(dt, copy=False).reshape(shape)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False) -> Tensor:
    """Uniform samples in ``[0, 1)`` with shape ``size`` (``torch.rand``); the default float dtype."""
    _check_device(device)
    dt = _float_dtype(dtype).np
    return _finish(_fill_values(_size(size), dt, lambda n: _G.uniform(_eng(generator), n, dt)), requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False) -> Tensor:
    """Standard normal samples with shape ``size`` (``torch.randn``); the default float dtype."""
    _check_device(device)
    dt = _float_dtype(dtype).np
    return _finish(_fill_values(_size(size), dt, lambda n: _G.normal(_eng(generator), n, dt)), requires_grad)


_TYPE_NAMES = {"uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
               "int64": "long int", "bool": "bool", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
               "float32": "float", "float64": "double"}
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _is_float(dt) -> bool:
    return dt.kind == "f" or dt.name == "bfloat16"


def _float_digits(dt) -> int:
    return {"bfloat16": 8, "float16": 11, "float32": 24, "float64": 53}[dt.name]


def _cast_int(dt, value: int) -> int:
    """``int64(dtype(value))``; values the dtype can't hold are returned as they are (the range check follows)."""
    if abs(value) >= 2 ** 62:
        return value
    with np.errstate(over="ignore"):
        cast = float(np.asarray(float(value)).astype(dt).astype(np.float64))
    return int(cast) if np.isfinite(cast) else value


def _finfo(dt):
    import ml_dtypes
    return ml_dtypes.finfo(dt) if dt.name == "bfloat16" else np.finfo(dt)


def _update_from(dt, frm: int) -> int:
    """Move ``from`` right until its cast to the float dtype stays >= from (PyTorch's ``update_from``)."""
    plus1 = _cast_int(dt, frm + 1)
    if plus1 < frm:
        return plus1 + (1 << (abs(frm + 1).bit_length() - 1 - _float_digits(dt) + 1))
    return frm


def _update_to(dt, to: int) -> int:
    """Move ``to`` left until its cast to the float dtype stays < to (PyTorch's ``update_to``)."""
    minus1 = _cast_int(dt, to - 1)
    if minus1 >= to:
        return minus1 - (1 << (abs(to - 1).bit_length() - 1 - _float_digits(dt) + 1))
    return to


def _check_from_to(dt, frm: int, to_inc: int) -> None:
    """PyTorch's ``check_from_to_in_range``: RuntimeError outside the dtype, UserWarning past a float's exact
    integers."""
    name = _TYPE_NAMES.get(dt.name, dt.name)
    if _is_float(dt):
        lo, hi = float(_finfo(dt).min), float(_finfo(dt).max)
    elif dt == np.bool_:
        lo, hi = 0, 1
    else:
        lo, hi = int(np.iinfo(dt).min), int(np.iinfo(dt).max)
    for value, what in ((frm, "from"), (to_inc, "to - 1")):
        if not lo <= value <= hi:
            raise RuntimeError(f"{what} is out of bounds for {name}")
    if _is_float(dt):
        import warnings
        digits = _float_digits(dt)
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
            to_inc = min(1 << _float_digits(dt), _INT64_MAX)
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
    _check_device(device)
    if size is None:  # randint(high, size)
        if high is None:
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    dt = np.dtype(_dtype.to_np(dtype)) if dtype is not None else np.dtype(np.int64)
    shape = _size((size,)) if not isinstance(size, int) else (size,)
    return _make(_fill_values(shape, dt, lambda n: _random_from_to(_eng(generator), n, dt, low, high)))


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """A random permutation of ``0..n-1`` (``torch.randperm``); int64 by default."""
    _check_device(device)
    n = int(n)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    return _make(_G.randperm(_eng(generator), n).astype(_dtype.to_np(dtype) if dtype else np.int64))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
           requires_grad=False) -> Tensor:
    """Normal samples (``torch.normal``): tensor or float ``mean``/``std`` (broadcast), or floats and ``size``.

    As PyTorch: standard normals scaled by a tensor ``std`` and shifted by ``mean``; with a float
    ``std``, ``N(0, std)`` samples shifted by ``mean``. RuntimeError for a negative ``std``.
    """
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
        return _finish(_fill_values(shape, dt, lambda n: _G.normal(eng, n, dt, float(m), float(s))), requires_grad)
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    ref = mean if isinstance(mean, Tensor) else std
    dt = ref._data.dtype
    if isinstance(s, np.ndarray):
        arr = _fill_values(shape, dt, lambda n: _G.normal(eng, n, dt))
        arr = arr * s.astype(dt, copy=False) + np.asarray(m, dtype=dt)
    else:
        arr = _fill_values(shape, dt, lambda n: _G.normal(eng, n, dt, 0.0, float(s))) + m.astype(dt, copy=False)
    return _finish(arr.astype(dt, copy=False), requires_grad)


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """Samples 1 with probability ``input`` (or the float ``p``), else 0, in ``input``'s dtype
    (``torch.bernoulli``). RuntimeError for probabilities outside ``[0, 1]``."""
    if p is not None:
        return bernoulli_(_make(np.empty_like(input._data)), p, generator=generator)
    prob = input._data
    if (prob < 0).any() or (prob > 1).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    out = np.empty_like(prob)
    perm = _memory_perm(out)
    out.transpose(perm)[...] = _G.bernoulli_tensor(_eng(generator), np.ascontiguousarray(prob.transpose(perm)))
    return _make(out)


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
    rows = w.reshape(-1, w.shape[-1])
    if not np.isfinite(rows).all() or (rows < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (rows.sum(-1, dtype=np.float64) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if num_samples <= 0:
        raise RuntimeError(f"cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    eng = _eng(generator)
    if replacement and num_samples > 1:
        out = _G.multinomial_with_replacement(eng, np.ascontiguousarray(rows), num_samples)
    else:
        q = rows / _G.exponential(eng, rows.size, 1.0).astype(rows.dtype).reshape(rows.shape)
        if num_samples == 1:
            out = np.argmax(q, axis=-1)[:, None]
        else:
            out = np.argsort(-q, axis=-1, kind="stable")[:, :num_samples]
    out = out.astype(np.int64)
    return _make(out[0] if w.ndim == 1 else out)


def poisson(input: Tensor, generator=None) -> Tensor:
    """Poisson samples with rates ``input`` (``torch.poisson``), in ``input``'s dtype; PyTorch's sampler.
    RuntimeError for negative rates."""
    lam = input._data
    if (lam < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _make(_G.poisson(_eng(generator), np.ascontiguousarray(lam, dtype=np.float64)).astype(lam.dtype))


def rand_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """``rand`` with ``input``'s shape and (by default) dtype."""
    return rand(*input._data.shape, generator=generator, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randn_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    """``randn`` with ``input``'s shape and (by default) dtype."""
    return randn(*input._data.shape, generator=generator, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None):
    """``randint`` with ``input``'s shape and (by default) dtype; ``randint_like(x, high)`` or ``(x, low, high)``."""
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, generator=generator, dtype=dtype or input.dtype)


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
    from ._ops._util import bump, check_inplace
    check_inplace(self)
    view = _memory_order(self._data)
    view[...] = draw(view.size).reshape(view.shape)
    bump(self)
    return self


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    """Fill with samples uniform in ``[a, b)`` (``torch.Tensor.uniform_``)."""
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
    dt = self._data.dtype
    return _fill(self, lambda n: _G.uniform(_eng(generator), n, dt, a, b))


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with normal samples (``torch.Tensor.normal_``). RuntimeError for a negative ``std``."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")
    dt = self._data.dtype
    if not self._data.flags.c_contiguous:  # PyTorch's scalar path for non-contiguous tensors
        return _fill(self, lambda n: _G._normal_scalar(_eng(generator), n, mean, std).astype(dt))
    return _fill(self, lambda n: _G.normal(_eng(generator), n, dt, mean, std))


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 1 (probability ``p``, a float or a tensor broadcast to ``self``) or 0."""
    eng = _eng(generator)
    if isinstance(p, Tensor):
        prob = np.broadcast_to(p._data, self._data.shape).transpose(_memory_perm(self._data))
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


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with ``Exp(lambd)`` samples."""
    return _fill(self, lambda n: _G.exponential(_eng(generator), n, lambd))


def geometric_(self, p, *, generator=None):
    """Fill with the number of Bernoulli(``p``) trials up to the first success."""
    return _fill(self, lambda n: _G.geometric(_eng(generator), n, p))


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with ``exp(N(mean, std))`` samples."""
    return _fill(self, lambda n: _G.log_normal(_eng(generator), n, mean, std))


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with Cauchy(``median``, ``sigma``) samples."""
    return _fill(self, lambda n: _G.cauchy(_eng(generator), n, median, sigma))


def multinomial_method(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)


def bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)
