"""Random numbers (mirrors ``torch.random`` and the random creation functions).

A ``Generator`` wraps NumPy's PCG64 bit generator. ``manual_seed(s)`` reseeds the default generator,
so a numtorch program is reproducible with itself; the streams differ from PyTorch's (Mersenne
Twister / Philox), so values never match PyTorch's for the same seed.
"""
from __future__ import annotations

import numpy as np

from . import _dtype
from ._device import check as _check_device
from ._tensor import Tensor, _make

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "default_generator",
           "rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "rand_like", "randn_like",
           "randint_like", "poisson"]


class Generator:
    """A random-number generator (``torch.Generator``): ``manual_seed``, ``seed``, ``get_state``/``set_state``."""

    def __init__(self, device="cpu"):
        _check_device(device)
        self.device = "cpu"
        self._seed = 67280421310721  # PyTorch's default seed, for familiarity
        self._rng = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed) -> "Generator":
        seed = int(seed)
        self._seed = seed
        self._rng = np.random.Generator(np.random.PCG64(seed & 0xFFFFFFFFFFFFFFFF))
        return self

    def seed(self) -> int:
        s = int(np.random.SeedSequence().entropy) & 0xFFFFFFFFFFFFFFFF
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        st = self._rng.bit_generator.state
        raw = np.frombuffer(repr((st["state"]["state"], st["state"]["inc"], st["has_uint32"], st["uinteger"]))
                            .encode(), dtype=np.uint8)
        return _make(raw.copy())

    def set_state(self, new_state: Tensor) -> "Generator":
        import ast
        state, inc, has, uint = ast.literal_eval(bytes(new_state._data.astype(np.uint8)).decode())
        self._rng.bit_generator.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc},
                                         "has_uint32": has, "uinteger": uint}
        return self


default_generator = Generator()


def _rng(generator):
    return (generator or default_generator)._rng


def manual_seed(seed) -> Generator:
    """Seed the default generator (``torch.manual_seed``); returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
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


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False) -> Tensor:
    """Uniform samples in ``[0, 1)`` with shape ``size`` (``torch.rand``)."""
    _check_device(device)
    d = _float_dtype(dtype)
    arr = _rng(generator).random(_size(size), dtype=np.float64 if d is _dtype.float64 else np.float32)
    return _finish(arr.astype(d.np, copy=False), requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False) -> Tensor:
    """Standard normal samples with shape ``size`` (``torch.randn``)."""
    _check_device(device)
    d = _float_dtype(dtype)
    arr = _rng(generator).standard_normal(_size(size), dtype=np.float64 if d is _dtype.float64 else np.float32)
    return _finish(arr.astype(d.np, copy=False), requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False) -> Tensor:
    """Integers uniform in ``[low, high)`` (``torch.randint(low=0, high, size)``); int64 by default."""
    _check_device(device)
    if size is None:  # randint(high, size)
        if high is None:
            raise TypeError("randint() missing required argument 'size'")
        low, high, size = 0, low, high
    if high is None:
        raise TypeError("randint() missing required argument 'high'")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    arr = _rng(generator).integers(low, high, _size((size,)) if not isinstance(size, int) else (size,),
                                   dtype=np.int64)
    return _make(arr.astype(_dtype.to_np(dtype) if dtype is not None else np.int64, copy=False))


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """A random permutation of ``0..n-1`` (``torch.randperm``); int64."""
    _check_device(device)
    return _make(_rng(generator).permutation(int(n)).astype(_dtype.to_np(dtype) if dtype else np.int64))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
           requires_grad=False) -> Tensor:
    """Normal samples (``torch.normal``): tensor or float ``mean``/``std`` (broadcast), or floats and ``size``."""
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    if isinstance(s, np.ndarray) and (s < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not isinstance(s, np.ndarray) and s < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(s):g}")
    if size is None and not isinstance(m, np.ndarray) and not isinstance(s, np.ndarray):
        raise TypeError("normal() received an invalid combination of arguments - with float mean and std, "
                        "size is required")
    shape = _size((size,)) if size is not None and not isinstance(size, int) else (
        (size,) if size is not None else np.broadcast_shapes(np.shape(m), np.shape(s)))
    ref = mean if isinstance(mean, Tensor) else std if isinstance(std, Tensor) else None
    d = ref._data.dtype if ref is not None else _float_dtype(dtype).np
    arr = (m + s * _rng(generator).standard_normal(shape)).astype(d)
    return _finish(arr, requires_grad)


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """Samples 1 with probability ``input`` (or ``p``), else 0, in ``input``'s dtype (``torch.bernoulli``)."""
    prob = input._data if p is None else np.full(input._data.shape, p)
    if (prob < 0).any() or (prob > 1).any():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    return _make((_rng(generator).random(input._data.shape) < prob).astype(input._data.dtype))


def multinomial(input: Tensor, num_samples: int, replacement=False, *, generator=None, out=None) -> Tensor:
    """Indices sampled from the rows of ``input`` (non-negative weights, need not sum to 1).

    Mirrors ``torch.multinomial``: input ``(C)`` or ``(N, C)``; returns int64 ``(num_samples)`` or
    ``(N, num_samples)``. RuntimeError for negative, non-finite or all-zero weights, or for more
    samples than categories without replacement (zero-weight categories are drawn last).
    """
    if input._data.dtype.kind not in "fc" and input.dtype.name != "bfloat16":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{input.type().split('.')[-1][:-len('Tensor')]}")
    w = input._data.astype(np.float64)
    if w.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    rows = w.reshape(-1, w.shape[-1])
    if not np.isfinite(rows).all() or (rows < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    sums = rows.sum(-1, keepdims=True)
    if (sums <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if num_samples <= 0:
        raise RuntimeError(f"cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > rows.shape[1]:  # zero-weight categories come last, as in PyTorch
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    rng = _rng(generator)
    p = rows / sums
    if replacement:
        cdf = np.cumsum(p, -1)
        cdf[:, -1] = 1.0
        u = rng.random((rows.shape[0], num_samples))
        # one searchsorted for all rows: row i's cdf is shifted by i, so rows never overlap
        n, c = cdf.shape
        shift = np.arange(n, dtype=np.float64)[:, None]
        out = np.searchsorted((cdf + shift).ravel(), (u + shift).ravel(), side="right").reshape(n, -1)
        out = np.minimum(out - shift.astype(np.int64) * c, c - 1)
    else:
        # Gumbel top-k: exact sampling without replacement, vectorized over rows
        with np.errstate(divide="ignore"):
            keys = np.log(p) - np.log(-np.log(rng.random(p.shape)))
        out = np.argsort(-keys, axis=-1, kind="stable")[:, :num_samples]
    out = out.astype(np.int64)
    return _make(out[0] if w.ndim == 1 else out)


def poisson(input: Tensor, generator=None) -> Tensor:
    return _make(_rng(generator).poisson(input._data).astype(input._data.dtype))


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return rand(*input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    return randn(*input._data.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None):
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, dtype=dtype or input.dtype)


# ---- in-place samplers (bound as Tensor methods) ------------------------------------------------
def _fill(self, arr):
    from ._ops._util import bump, check_inplace
    check_inplace(self)
    self._data[...] = arr
    bump(self)
    return self


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    """Fill with samples uniform in ``[a, b)`` (``torch.Tensor.uniform_``)."""
    return _fill(self, _rng(generator).uniform(a, b, self._data.shape))


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with normal samples (``torch.Tensor.normal_``)."""
    return _fill(self, mean + std * _rng(generator).standard_normal(self._data.shape))


def bernoulli_(self, p=0.5, *, generator=None):
    prob = p._data if isinstance(p, Tensor) else p
    return _fill(self, _rng(generator).random(self._data.shape) < prob)


def random_(self, from_=0, to=None, *, generator=None):
    if to is None:
        from_, to = 0, from_ if from_ else 2 ** 24
    return _fill(self, _rng(generator).integers(from_, to, self._data.shape))


def exponential_(self, lambd=1.0, *, generator=None):
    return _fill(self, _rng(generator).exponential(1.0 / lambd, self._data.shape))


def geometric_(self, p, *, generator=None):
    return _fill(self, _rng(generator).geometric(p, self._data.shape))


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    return _fill(self, _rng(generator).lognormal(mean, std, self._data.shape))


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    return _fill(self, median + sigma * _rng(generator).standard_cauchy(self._data.shape))


def multinomial_method(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)


def bernoulli_method(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)
