"""Parameter initializers (mirrors ``torch.nn.init``).

Every initializer fills its tensor in place under ``no_grad`` (so it works on a Parameter that
requires grad), accepts ``generator=`` (a ``numtorch.Generator``; default the global one) and
returns the tensor. Each one calls the same in-place samplers in the same order as PyTorch's, so after
``manual_seed`` the values are PyTorch's (up to the last bit of ``erfinv``/QR for ``trunc_normal_``/
``orthogonal_``).

Fans of a weight ``(out, in, *kernel)``: ``fan_in = in * prod(kernel)``, ``fan_out = out * prod(kernel)``
(a Linear weight ``(out, in)`` has ``fan_in = in``).
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .._tensor import Tensor, _make
from ..autograd.grad_mode import no_grad
from .._ops import sampling as _random

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_", "eye_",
           "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_",
           "sparse_", "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def _assign(tensor: Tensor, arr: np.ndarray) -> Tensor:
    """Write ``arr`` into ``tensor`` in place (dtype cast, version bump), without recording autograd."""
    with no_grad():
        tensor.copy_(_make(np.asarray(arr)))
    return tensor


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for ``nonlinearity`` (``torch.nn.init.calculate_gain``).

    1 for linear/conv/sigmoid, 5/3 for tanh, sqrt(2) for relu, ``sqrt(2 / (1 + slope^2))`` for
    leaky_relu (``param`` = negative slope, default 0.01), 3/4 for selu. ValueError for an unknown
    nonlinearity or a non-numeric slope.
    """
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif (isinstance(param, int) and not isinstance(param, bool)) or isinstance(param, float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor):
    """``(fan_in, fan_out)`` of a weight ``(out, in, *kernel)``; ValueError for fewer than 2 dims."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with samples from ``U(a, b)``."""
    with no_grad():
        return _random.uniform_(tensor, a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with samples from ``N(mean, std^2)``."""
    with no_grad():
        return _random.normal_(tensor, mean, std, generator=generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """Fill with ``N(mean, std^2)`` samples conditioned on ``[a, b]`` (``torch.nn.init.trunc_normal_``).

    Rejection sampling with PyTorch's draws: when most of the normal's mass lies in ``[a, b]``, redraw
    the whole tensor's normals and keep them where the current value is out of range; otherwise draw
    uniformly in ``[a, b]`` and accept with the normal's relative density. Warns when ``mean`` is more
    than 2 std outside ``[a, b]``.
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)

    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    dt = tensor._data.dtype
    buf = _make(np.empty(tensor.shape, dt))

    def draw(sampler, *args):
        return sampler(buf, *args, generator=generator)._data.copy()

    with no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            lo, hi = dt.type(a), dt.type(b)
            result = draw(_random.normal_, mean, std)
            while True:
                bad = (result < lo) | (result > hi)
                if not bad.any():
                    break
                result = np.where(bad, draw(_random.normal_, mean, std), result)
        else:
            mode = max(a, min(mean, b))
            log_peak = dt.type(-0.5 * ((mode - mean) / std) ** 2)

            def log_density(x):  # -0.5 ((x - mean) / std)^2 - log_peak, in the tensor's dtype
                return ((x - dt.type(mean)) / dt.type(std)) ** 2 * dt.type(-0.5) - log_peak

            result = draw(_random.uniform_, a, b)
            pending = np.log(draw(_random.uniform_, 0.0, 1.0)) > log_density(result)
            while pending.any():
                cand = draw(_random.uniform_, a, b)
                result = np.where(pending, cand, result)
                pending = pending & (np.log(draw(_random.uniform_, 0.0, 1.0)) > log_density(cand))
    return _assign(tensor, result)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with the value ``val``."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity (ones on the main diagonal); ValueError for other ranks."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _assign(tensor, np.eye(*tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3/4/5-d conv weight with the Dirac delta, so the conv is the identity on as many channels as
    possible (per group). ValueError for other ranks or ``dim 0`` not divisible by ``groups``."""
    nd = tensor.dim()
    if nd not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    d = np.arange(min(per_group, sizes[1]))
    out_idx = (np.arange(groups)[:, None] * per_group + d).reshape(-1)
    in_idx = np.tile(d, groups)
    arr = np.zeros(sizes)
    arr[(out_idx, in_idx) + tuple(s // 2 for s in sizes[2:])] = 1
    return _assign(tensor, arr)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot uniform: ``U(-a, a)`` with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """Glorot normal: ``N(0, std^2)`` with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    """He uniform: ``U(-bound, bound)``, ``bound = gain * sqrt(3 / fan)`` with ``gain = calculate_gain(
    nonlinearity, a)`` and ``fan`` chosen by ``mode`` ("fan_in"/"fan_out"). A zero-element tensor is left
    as is with a warning."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    """He normal: ``N(0, std^2)``, ``std = gain / sqrt(fan)`` (arguments as ``kaiming_uniform_``)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix times ``gain``, from the QR decomposition of a Gaussian matrix with the
    signs of R's diagonal folded in (uniform over the orthogonal group). Dims after the first are
    flattened; ValueError for fewer than 2 dims."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _random.normal_(_make(np.empty((rows, cols), tensor._data.dtype)), 0.0, 1.0, generator=generator)._data
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q *= np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _assign(tensor, (q * gain).reshape(tensor.shape))


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """2-D tensor with ``N(0, std^2)`` entries and ``ceil(sparsity * rows)`` zeros per column at random
    rows (one ``randperm`` per column, as PyTorch). ValueError for other ranks."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        _random.normal_(tensor, 0.0, std, generator=generator)
        for col in range(cols):
            zero_rows = _random.randperm(rows, generator=generator)._data[:num_zeros]
            tensor._data[zero_rows, col] = 0
    return tensor


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
                      FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)
    deprecated_init.__name__ = old_name
    deprecated_init.__doc__ = f"Deprecated alias of ``{new_name}`` (FutureWarning)."
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
