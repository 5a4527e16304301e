"""PyTorch's CPU random-number generator, sample for sample (mirrors ``at::CPUGeneratorImpl``).

A ``Generator`` is a 32-bit Mersenne Twister (MT19937) seeded the way PyTorch seeds it, so
``manual_seed(s)`` followed by ``rand``/``randn``/``randint``/``randperm``/``normal_``/``uniform_``/
``multinomial``/``bernoulli``/``dropout`` and the ``nn.init`` functions gives the values PyTorch gives
on a CPU. NumPy's ``MT19937`` bit generator produces the raw 32-bit words; the functions below turn
words into samples the way ATen's CPU kernels do (``DistributionsHelper.h``,
``TransformationHelper.h``, ``cpu/DistributionTemplates.h``):

- a float32 uniform uses the low 24 bits of one word; a float64 uniform the low 53 bits of a 64-bit
  value made from two words (first word high);
- ``normal_`` on 16 or more contiguous float32 values draws all uniforms first, then applies
  Box-Muller to blocks of 16 (8 cosines, 8 sines) with the Cephes float32 log/sin/cos polynomials of
  ``avx_mathfun.h``; a ragged end is redone from 16 fresh uniforms. Shorter or float64 tensors use
  the scalar Box-Muller whose second value is cached in the generator;
- integers in ``[low, high)`` are ``word % (high - low) + low`` (two words when the range needs 64 bits);
- float16/bfloat16 samples are float32 samples rounded (``normal_`` draws uniforms per whole block);
- ``poisson`` is ATen's ``sample_poisson`` (Hoermann's transformed rejection for rates >= 10).

Known difference: on Intel CPUs PyTorch draws ``bernoulli_(p)`` with a float ``p`` (and so ``dropout``)
from MKL's MCG31 stream; numtorch always uses ATen's portable kernel, which PyTorch uses on other CPUs.
"""
from __future__ import annotations

import math

import numpy as np

_N = 624
_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF
DEFAULT_SEED = 67280421310721  # at::default_rng_seed_val
STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState)


def _init_genrand(seed32: int) -> np.ndarray:
    """MT19937's standard seeding of the 624-word state (``mt19937::init_with_uint32``)."""
    key = np.empty(_N, dtype=np.uint32)
    x = seed32 & _MASK32
    key[0] = x
    for i in range(1, _N):
        x = (1812433253 * (x ^ (x >> 30)) + i) & _MASK32
        key[i] = x
    return key


vmap_random_hook = None  # called before every draw while a vmap is active (func/_vmap.py)
vmap_random_levels = None  # inside vmap: () -> (ids, sizes) of the levels drawing per sample (func/_vmap.py)
batched_draws = 0  # > 0 while a sampler draws one value per sample of those levels (_ops/sampling.py)


class Engine:
    """The MT19937 engine plus the cached second Box-Muller values, as in ``CPUGeneratorImpl``."""

    __slots__ = ("seed", "bits", "fresh", "next_double_normal", "next_float_normal")

    def __init__(self, seed: int = DEFAULT_SEED):
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        self.seed = seed & _MASK64
        self.bits = np.random.MT19937(0)
        self.bits.state = {"bit_generator": "MT19937", "state": {"key": _init_genrand(self.seed), "pos": _N}}
        self.fresh = True  # no word drawn since seeding (only PyTorch's state bytes tell the difference)
        self.next_double_normal = None
        self.next_float_normal = None

    # ---- raw words ------------------------------------------------------------------------------
    def random(self, n: int) -> np.ndarray:
        """``n`` 32-bit words as uint64 (``CPUGeneratorImpl::random``)."""
        if vmap_random_hook is not None:  # set by numtorch/func/_vmap.py inside vmap (randomness modes)
            vmap_random_hook()
        if not n:
            return np.empty(0, np.uint64)
        self.fresh = False
        return self.bits.random_raw(n)

    def random64(self, n: int) -> np.ndarray:
        """``n`` 64-bit values, each from two words, the first one high (``CPUGeneratorImpl::random64``)."""
        w = self.random(2 * n).reshape(n, 2)
        return (w[:, 0] << np.uint64(32)) | w[:, 1]

    # ---- state as PyTorch's ByteTensor layout ----------------------------------------------------
    def get_state(self) -> np.ndarray:
        """The 5056-byte ``CPUGeneratorImplState`` that ``torch.get_rng_state()`` returns."""
        st = self.bits.state["state"]
        pos = int(st["pos"])
        buf = bytearray(STATE_SIZE)
        np.frombuffer(buf, np.uint64, 1, 0)[0] = self.seed
        # PyTorch counts ``left`` down to a regeneration at 0; NumPy counts ``pos`` up to 624
        left, nxt = (1, 0 if self.fresh else _N) if pos >= _N else (_N + 1 - pos, pos)
        np.frombuffer(buf, np.int32, 2, 8)[:] = (left, 1)
        np.frombuffer(buf, np.uint64, 1, 16)[0] = nxt
        np.frombuffer(buf, np.uint64, _N, 24)[:] = np.asarray(st["key"], np.uint64)
        off = 24 + 8 * _N  # normal_x, normal_y, normal_rho (only normal_y is used), normal_is_valid
        if self.next_double_normal is not None:
            np.frombuffer(buf, np.float64, 1, off + 8)[0] = self.next_double_normal
            np.frombuffer(buf, np.int32, 1, off + 24)[0] = 1
        if self.next_float_normal is not None:
            np.frombuffer(buf, np.float32, 1, off + 32)[0] = self.next_float_normal
            buf[off + 36] = 1
        return np.frombuffer(bytes(buf), np.uint8).copy()

    def set_state(self, data: np.ndarray) -> None:
        raw = np.ascontiguousarray(data, dtype=np.uint8).tobytes()
        if len(raw) != STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {STATE_SIZE} but found the input RNG "
                               f"state size to be {len(raw)}")
        seed = int(np.frombuffer(raw, np.uint64, 1, 0)[0])
        left = int(np.frombuffer(raw, np.int32, 1, 8)[0])
        nxt = int(np.frombuffer(raw, np.uint64, 1, 16)[0])
        key = np.frombuffer(raw, np.uint64, _N, 24).astype(np.uint32)
        off = 24 + 8 * _N
        self.seed = seed
        self.fresh = left == 1 and nxt == 0
        self.bits = np.random.MT19937(0)
        self.bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _N + 1 - left}}
        valid = int(np.frombuffer(raw, np.int32, 1, off + 24)[0])
        self.next_double_normal = float(np.frombuffer(raw, np.float64, 1, off + 8)[0]) if valid else None
        self.next_float_normal = (float(np.frombuffer(raw, np.float32, 1, off + 32)[0])
                                  if raw[off + 36] else None)


def os_seed() -> int:
    """A 64-bit seed from the operating system's entropy."""
    return int(np.random.SeedSequence().entropy) & _MASK64


# The engine of ``numtorch.random.default_generator``, which the samplers draw from when given no generator.
# PyTorch seeds its default generator from the OS at start-up; new Generators start at ``DEFAULT_SEED``.
default_engine = Engine(os_seed())


# ---- exact arithmetic helpers -------------------------------------------------------------------
# PyTorch's x86-64 wheels are compiled with FMA contraction, so ``a * b + c`` in these kernels rounds once.
def _fma32(a, b, c) -> np.ndarray:
    """float32 ``a * b + c`` rounded once (the float64 product of two float32 values is exact)."""
    return (np.asarray(a, np.float64) * np.float64(b) + np.asarray(c, np.float64)).astype(np.float32)


def _split(x):
    t = 134217729.0 * x  # Veltkamp split: 2**27 + 1
    hi = t - (t - x)
    return hi, x - hi


def _fma64(a, b, c) -> np.ndarray:
    """float64 ``a * b + c`` rounded once, from error-free transformations (Dekker product, Knuth sum)."""
    a, b, c = np.asarray(a, np.float64), np.float64(b) if np.isscalar(b) else b, np.asarray(c, np.float64)
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    return s + (t + err)


def _libm(fn, x: np.ndarray) -> np.ndarray:
    """Apply a C-library function (``math.log``...) elementwise: NumPy's SIMD versions differ in the last bit."""
    return np.fromiter(map(fn, x.ravel().tolist()), np.float64, x.size).reshape(x.shape)


# ---- uniform ------------------------------------------------------------------------------------
def mantissa_digits(dt: np.dtype) -> int:
    if dt.name == "bfloat16":
        return 8
    return {2: 11, 4: 24, 8: 53}[dt.itemsize]


def uniform01(eng: Engine, n: int, dt) -> np.ndarray:
    """``n`` uniforms in [0, 1): float64 (53 bits) for float64, else float32 (24 bits); PyTorch samples
    float16/bfloat16 in float32 and rounds the result."""
    digits = 53 if np.dtype(dt) == np.float64 else 24
    if digits == 53:
        return (eng.random64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * (1.0 / (1 << 53))
    return (eng.random(n) & np.uint64((1 << digits) - 1)).astype(np.float32) * np.float32(1.0 / (1 << digits))


def uniform(eng: Engine, n: int, dt, low: float = 0.0, high: float = 1.0, fused: bool = True) -> np.ndarray:
    """``uniform_(low, high)``: ``x * (high - low) + low``, with ``low``/``high`` cast to the dtype first.
    ``fused=False`` rounds the product before the sum (kernels compiled without FMA, e.g. rrelu's)."""
    dt = np.dtype(dt)
    x = uniform01(eng, n, dt)
    acc = x.dtype.type
    lo, hi = acc(dt.type(low)), acc(dt.type(high))
    if not fused:
        out = (x * (hi - lo) + lo).astype(dt, copy=False)
    else:
        out = (_fma64(x, hi - lo, lo) if acc is np.float64 else _fma32(x, hi - lo, lo)).astype(dt, copy=False)
    out[out == dt.type(high)] = dt.type(low)  # a value rounded up to ``high`` becomes ``low``, as in PyTorch
    return out


# ---- normal -------------------------------------------------------------------------------------
_F = np.float32


def _log_ps(x: np.ndarray) -> np.ndarray:
    """``log256_ps`` of avx_mathfun.h (Cephes logf) in float32, FMA-contracted as compiled."""
    x = np.maximum(x, np.array(0x00800000, np.int32).view(_F))
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_F) + _F(1)
    x = ((bits & ~0x7F800000) | np.array(0.5, _F).view(np.int32)).view(_F)
    small = x < _F(0.707106781186547524)
    x = (x - _F(1)) + np.where(small, x, _F(0))
    e = e - small.astype(_F)
    z = x * x
    y = np.full_like(x, _F(7.0376836292e-2))
    for c in (-1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
              2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1):
        y = _fma32(y, x, _F(c))
    y = _fma32(y * x, z, e * _F(-2.12194440e-4))
    y = _fma32(z, _F(-0.5), y)
    return _fma32(e, _F(0.693359375), x + y)


def _sincos_ps(x: np.ndarray):
    """``sincos256_ps`` of avx_mathfun.h (Cephes sinf/cosf) in float32 for ``x >= 0``."""
    j = ((x * _F(1.27323954473516)).astype(np.int32) + 1) & ~1
    y = j.astype(_F)
    for c in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8):  # x - y * pi/4, extended
        x = _fma32(y, _F(c), x)
    z = x * x
    cos_p = _fma32(_fma32(np.full_like(x, _F(2.443315711809948e-5)), z, _F(-1.388731625493765e-3)), z,
                   _F(4.166664568298827e-2)) * z
    cos_p = _fma32(cos_p, z, -(z * _F(0.5))) + _F(1)
    sin_p = _fma32(_fma32(np.full_like(x, _F(-1.9515295891e-4)), z, _F(8.3321608736e-3)), z,
                   _F(-1.6666654611e-1)) * z
    sin_p = _fma32(sin_p, x, x)
    first = (j & 2) == 0
    sin = np.where(first, sin_p, cos_p)
    cos = np.where(first, cos_p, sin_p)
    sin = np.where((j & 4) != 0, -sin, sin)
    cos = np.where((~(j - 2) & 4) != 0, -cos, cos)
    return sin, cos


def _box_muller16(u: np.ndarray, mean, std) -> np.ndarray:
    """Blocks of 16 uniforms -> 16 normals: ``u[:8]`` give radii, ``u[8:]`` angles (``normal_fill_16``)."""
    u = u.reshape(-1, 16)
    if u.dtype == np.float32:  # normal_fill_16_AVX2
        radius = np.sqrt(_F(-2) * _log_ps(_F(1) - u[:, :8]))
        sin, cos = _sincos_ps(_F(2.0 * math.pi) * u[:, 8:])
        return _fma32(np.concatenate([radius * cos, radius * sin], 1), _F(std), _F(mean)).ravel()
    radius = np.sqrt(-2 * _libm(math.log, 1 - u[:, :8]))
    theta = 2.0 * math.pi * u[:, 8:]
    return _fma64(np.concatenate([radius * np.cos(theta), radius * np.sin(theta)], 1), std, mean).ravel()


def normal(eng: Engine, n: int, dt, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
    """``normal_(mean, std)`` on ``n`` contiguous elements of dtype ``dt`` (``normal_kernel``)."""
    dt = np.dtype(dt)
    if n < 16:
        return _normal_scalar(eng, n, mean, std).astype(dt)
    work = np.float64 if dt == np.float64 else np.float32
    full = n - n % 16
    # float16/bfloat16 draw uniforms only for the whole blocks; the others draw all n up front
    u = uniform01(eng, full if dt.itemsize == 2 else n, work)
    out = np.empty(n, work)
    out[:full] = _box_muller16(u[:full], mean, std)
    if n % 16:  # the ragged end: the last 16 values are redone from 16 fresh uniforms
        out[n - 16:] = _box_muller16(uniform01(eng, 16, work), mean, std)
    return out.astype(dt, copy=False)


def _normal_scalar(eng: Engine, n: int, mean: float, std: float) -> np.ndarray:
    """``at::normal_distribution<double>``: Box-Muller pairs, the sine half cached in the generator."""
    out = np.empty(n, np.float64)
    k = 0
    if n and eng.next_double_normal is not None:
        out[0] = eng.next_double_normal
        eng.next_double_normal = None
        k = 1
    pairs = (n - k + 1) // 2
    if pairs:
        u = uniform01(eng, 2 * pairs, np.float64).reshape(pairs, 2)
        r = np.sqrt(-2.0 * _libm(math.log1p, -u[:, 1]))
        theta = 2.0 * math.pi * u[:, 0]
        both = np.stack([r * np.cos(theta), r * np.sin(theta)], 1).ravel()
        out[k:] = both[: n - k]
        if (n - k) % 2:
            eng.next_double_normal = float(both[-1])
    return _fma64(out, std, mean)


# ---- integers -----------------------------------------------------------------------------------
def random_from_to(eng: Engine, n: int, base: int, span: int) -> np.ndarray:
    """``n`` integers ``(word % span + base)`` as int64 (``uniform_int_from_to_distribution``): one 32-bit
    word per sample, or a 64-bit value when ``span >= 2**28``; ``span == 2**64`` takes the raw 64-bit value."""
    if span >= 1 << 64:
        return eng.random64(n).view(np.int64)
    words = eng.random64(n) if span >= 1 << 28 else eng.random(n)
    return ((words % np.uint64(span)) + np.uint64(base & _MASK64)).view(np.int64)


def random_default(eng: Engine, n: int, dt) -> np.ndarray:
    """``random_()`` without bounds: ``[0, 2**mantissa]`` for floats, ``[0, max]`` for integers."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return (eng.random(n) & np.uint64(1)).astype(np.bool_)
    if dt.kind == "f" or dt.name == "bfloat16":
        words = eng.random64(n) if dt.itemsize == 8 else eng.random(n)
        return (words % np.uint64((1 << mantissa_digits(dt)) + 1)).astype(dt)
    words = eng.random64(n) if dt.itemsize == 8 else eng.random(n)
    return (words % np.uint64(int(np.iinfo(dt).max) + 1)).astype(dt)


def randperm(eng: Engine, n: int) -> np.ndarray:
    """A permutation of ``0..n-1`` by PyTorch's in-place swaps: ``swap(r[i], r[i + word % (n - i)])``."""
    r = np.arange(n, dtype=np.int64)
    if n > 1:
        z = (eng.random(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64)
        z += np.arange(n - 1)
        rl = r.tolist()
        for i, j in enumerate(z.tolist()):  # sequential by nature; a Python loop over ints is fastest
            rl[i], rl[j] = rl[j], rl[i]
        r = np.array(rl, dtype=np.int64)
    return r


# ---- other distributions ------------------------------------------------------------------------
def exponential(eng: Engine, n: int, lambd: float) -> np.ndarray:
    """``exponential_(lambd)``: ``-1/lambd * log1p(-u)`` with a float64 uniform (float64 result)."""
    return (-1.0 / lambd) * _libm(math.log1p, -uniform01(eng, n, np.float64))


def bernoulli_scalar(eng: Engine, n: int, p: float) -> np.ndarray:
    """``bernoulli_(p)`` with a float ``p``: ``u < p`` with a float64 uniform (ATen's portable kernel)."""
    return uniform01(eng, n, np.float64) < p


def bernoulli_tensor(eng: Engine, p: np.ndarray) -> np.ndarray:
    """``bernoulli(p)`` elementwise: a float64 uniform for float64 ``p``, else a float32 one."""
    wide = p.dtype == np.float64
    u = uniform01(eng, p.size, np.float64 if wide else np.float32).reshape(p.shape)
    return u < (p if wide else p.astype(np.float32))


def cauchy(eng: Engine, n: int, median: float, sigma: float) -> np.ndarray:
    u = uniform01(eng, n, np.float64)
    return median + sigma * _libm(math.tan, math.pi * (u - 0.5))


def geometric(eng: Engine, n: int, p: float) -> np.ndarray:
    u = uniform01(eng, n, np.float64)
    return np.ceil(_libm(math.log, u) / math.log1p(-p))


def log_normal(eng: Engine, n: int, mean: float, std: float) -> np.ndarray:
    return _libm(math.exp, _normal_scalar(eng, n, mean, std))


def multinomial_with_replacement(eng: Engine, rows: np.ndarray, num_samples: int) -> np.ndarray:
    """Inverse-CDF sampling per row: running sums in the input's dtype, normalised, last bucket set to 1,
    then the first bucket whose cumulative value is ``>= u`` (a float64 uniform)."""
    if rows.dtype.itemsize == 2:  # float16/bfloat16 accumulate in float32
        rows = rows.astype(np.float32)
    cdf = np.cumsum(rows, axis=1, dtype=rows.dtype)
    cdf = cdf / cdf[:, -1:]
    cdf[:, -1] = 1
    out = np.empty((rows.shape[0], num_samples), np.int64)
    for i in range(rows.shape[0]):  # uniforms are drawn row after row
        u = uniform01(eng, num_samples, np.float64)
        out[i] = np.searchsorted(cdf[i].astype(np.float64), u, side="left")
    return out


def poisson(eng: Engine, lam: np.ndarray) -> np.ndarray:
    """Poisson samples for the rates ``lam`` in order (ATen's ``sample_poisson``): Hoermann's transformed
    rejection for rates >= 10, multiplication of uniforms below; float64 uniforms drawn one at a time."""
    def u() -> float:
        return float(eng.random64(1)[0] & np.uint64((1 << 53) - 1)) * (1.0 / (1 << 53))

    out = np.empty(lam.size, np.float64)
    for i, rate in enumerate(lam.ravel().tolist()):
        if rate >= 10:
            slam, loglam = math.sqrt(rate), math.log(rate)
            b = 0.931 + 2.53 * slam
            a = -0.059 + 0.02483 * b
            invalpha = 1.1239 + 1.1328 / (b - 3.4)
            vr = 0.9277 - 3.6224 / (b - 2)
            while True:
                uu = u() - 0.5
                v = u()
                us = 0.5 - abs(uu)
                k = math.floor((2 * a / us + b) * uu + rate + 0.43)
                if us >= 0.07 and v <= vr:
                    break
                if k < 0 or (us < 0.013 and v > us):
                    continue
                if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                        <= -rate + k * loglam - math.lgamma(k + 1.0)):
                    break
        elif rate == 0:
            k = 0
        else:
            enlam, k, prod = math.exp(-rate), 0, 1.0
            while True:
                prod *= u()
                if prod > enlam:
                    k += 1
                else:
                    break
        out[i] = k
    return out.reshape(lam.shape)
