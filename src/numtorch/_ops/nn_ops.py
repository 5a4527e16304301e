"""Neural-network kernels: activations, softmax, linear, attention (dropout is in ``dropout.py``).

Each kernel is an ``Op`` with a hand-derived backward on ndarrays, fused so that a layer costs one
node in the graph and few temporaries (the makemore MLP and a GPT step run through these). The
public functional forms with PyTorch's argument checking live in ``numtorch/nn/functional.py`` (``linear``,
checks and all, is here; F re-exports it);
this module's ``__all__`` is what ``torch.*`` exposes (``torch.softmax``, ``torch.dropout``, ...).
Normalization kernels are in ``norm_ops.py``, loss kernels in ``losses.py`` and embeddings in ``embedding.py``.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .._backend import MetaArray, meta
from .._dtype import from_np
from .._tensor import Tensor, _make
from ..autograd.forward_ad import jvp_elementwise
from ..autograd.function import Op
from ._cast import cast
from ._util import erf_np, sum_lastdim, unbroadcast, wrap_dim
from .matmul import matmul
from .pointwise import add
from .dropout import _batched_option, _mask
from .sampling import _contiguous_empty, exponential_

__all__ = ["softmax", "log_softmax", "prelu", "selu", "celu", "threshold", "hardshrink", "bilinear"]

def require_float(t: Tensor, kernel: str):
    """PyTorch's NotImplementedError for a floating-only kernel called on an integer tensor."""
    if t._data.dtype.kind not in "fcV":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{from_np(t._data.dtype)._aten_name}\'')


# ================================================================================================
# elementwise activations
# ================================================================================================
class _Activation(Op):
    """An elementwise activation: ``_f(x, **opts)`` forward and ``_df(x, g, **opts)`` the input grad.

    Saves the input (checked for in-place modification); options are keyword arguments of ``apply``.
    """
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)

    _saves = (0,)
    jvp = jvp_elementwise  # forward AD (autograd/forward_ad.py): this backward on the tangent

    def forward(self, x, **opts):
        self.saved = x
        self.opts = opts
        return self._f(x, **opts)

    def backward(self, g):
        return self._df(self.saved, g, **self.opts)


class LeakyReluBackward0(_Activation):
    @staticmethod
    def _f(x, slope):
        return np.where(x > 0, x, x * slope)

    @staticmethod
    def _df(x, g, slope):
        return np.where(x > 0, g, g * slope)


class EluBackward0(_Activation):
    """elu/selu/celu: ``scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1))``."""

    @staticmethod
    def _f(x, alpha, scale, input_scale):
        neg = np.expm1(np.minimum(x, 0) * input_scale)
        neg *= alpha
        out = np.where(x > 0, x, neg)
        if scale != 1:
            out *= scale
        return out

    @staticmethod
    def _df(x, g, alpha, scale, input_scale):
        neg = np.exp(np.minimum(x, 0) * input_scale)
        neg *= alpha * input_scale
        return g * np.where(x > 0, scale, neg * scale)


_SQRT1_2 = math.sqrt(0.5)
_SQRT2_PI = math.sqrt(2 / math.pi)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


class GeluBackward0(Op):
    """``x * Phi(x)`` with the exact erf form, or the tanh approximation (``approximate="tanh"``).

    The forward keeps ``Phi(x)`` (or the tanh) so that the backward needs no second erf evaluation,
    the costly part of this op.
    """
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)

    _saves = (0,)
    jvp = jvp_elementwise  # forward AD (autograd/forward_ad.py): this backward on the tangent

    def forward(self, x, approximate):
        self.approximate = approximate
        if approximate == "tanh":
            t = np.tanh(_SQRT2_PI * (x + 0.044715 * x * x * x))
            self.saved = (x, t)
            out = t + 1
            out *= x
            out *= 0.5
            return out
        cdf = erf_np(x * _SQRT1_2)  # fast float32 erf (see _util.erf_np); exact scipy erf for float64
        cdf += 1
        cdf *= 0.5
        self.saved = (x, cdf)
        return x * cdf

    _graph_recompute = True  # Phi(x) / the tanh are rebuilt from the boxed input under create_graph

    def backward(self, g):
        x, t = self.saved
        if self._graph:
            x = self._graph_args[0]
            if self.approximate == "tanh":
                t = np.tanh(_SQRT2_PI * (x + 0.044715 * x * x * x))
                return g * (0.5 * (1 + t + x * (1 - t * t) * (_SQRT2_PI * (1 + 3 * 0.044715 * x * x))))
            from scipy.special import erf  # lazy: SciPy's start-up cost; a ufunc, so boxes map it to numtorch's erf
            cdf = 0.5 * (1 + erf(x * _SQRT1_2))
            return g * (cdf + x * np.exp(-0.5 * x * x) * _INV_SQRT_2PI)
        if self.approximate == "tanh":
            x2 = x * x
            d = (1 - t * t) * (_SQRT2_PI * (1 + 3 * 0.044715 * x2))
            d *= x
            d += 1 + t
            d *= 0.5
            return g * d
        d = np.asarray(x * x)  # a 0-d input's product is a NumPy scalar, which has no out=
        d *= -0.5
        np.exp(d, out=d)
        d *= x
        d *= _INV_SQRT_2PI
        d += t
        d *= g
        return d


def _sigmoid(x):
    # exp(-|x|) never overflows; both branches agree where they meet
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


class SiluBackward0(_Activation):
    @staticmethod
    def _f(x):
        return x * _sigmoid(x)

    @staticmethod
    def _df(x, g):
        s = _sigmoid(x)
        return g * s * (1 + x * (1 - s))


def _softplus(x):
    """``log(1 + exp(x))`` without overflow."""
    return np.logaddexp(x, 0).astype(x.dtype, copy=False)


class MishBackward0(_Activation):
    @staticmethod
    def _f(x):
        return x * np.tanh(_softplus(x))

    @staticmethod
    def _df(x, g):
        t = np.tanh(_softplus(x))
        return g * (t + x * _sigmoid(x) * (1 - t * t))


class HardtanhBackward0(_Activation):
    """hardtanh and relu6; the gradient is zero at and beyond the bounds, as in PyTorch."""

    @staticmethod
    def _f(x, lo, hi):
        return np.clip(x, lo, hi)

    @staticmethod
    def _df(x, g, lo, hi):
        return g * ((x > lo) & (x < hi))


class HardsigmoidBackward0(_Activation):
    _graph_error = (RuntimeError, "derivative for aten::hardsigmoid_backward is not implemented")  # as PyTorch

    @staticmethod
    def _f(x):
        out = np.clip(x + 3, 0, 6)
        out /= 6
        return out

    @staticmethod
    def _df(x, g):
        return g * ((x > -3) & (x < 3)) * _ONE_SIXTH


_ONE_SIXTH = float(np.float32(1 / 6))  # PyTorch's backward uses the float32 constant for every dtype


class HardswishBackward0(_Activation):
    @staticmethod
    def _f(x):
        out = np.clip(x + 3, 0, 6)
        out *= x
        out /= 6
        return out

    @staticmethod
    def _df(x, g):
        return g * np.where(x < -3, 0, np.where(x <= 3, x / 3 + 0.5, 1)).astype(x.dtype, copy=False)


class SoftplusBackward0(_Activation):
    """``log1p(exp(beta x)) / beta``, linear where ``beta x > threshold``."""

    @staticmethod
    def _f(x, beta, threshold):
        bx = x * beta if beta != 1 else x
        out = _softplus(bx)
        if beta != 1:
            out /= beta
        return np.where(bx > threshold, x, out)

    @staticmethod
    def _df(x, g, beta, threshold):
        bx = x * beta if beta != 1 else x
        return np.where(bx > threshold, g, g * _sigmoid(bx))


class SoftsignBackward0(_Activation):
    @staticmethod
    def _f(x):
        return x / (1 + np.abs(x))

    @staticmethod
    def _df(x, g):
        m = np.abs(x)
        d = 1 + m
        if x.dtype.kind == "c":  # not holomorphic: through |x| only Re(g conj(x)) flows back, along sgn(x)
            return g / d - np.real(g * np.conj(x)) * np.where(m == 0, 0, x / np.where(m == 0, 1, m)) / (d * d)
        return g / (d * d)


class LogSigmoidBackward0(_Activation):
    @staticmethod
    def _f(x):
        return -_softplus(-x)

    @staticmethod
    def _df(x, g):
        return g * _sigmoid(-x)


class ThresholdBackward0(_Activation):
    @staticmethod
    def _f(x, threshold, value):
        return np.where(x > threshold, x, np.asarray(value, x.dtype))

    @staticmethod
    def _df(x, g, threshold, value):
        return g * (x > threshold)


class TanhshrinkBackward0(_Activation):
    @staticmethod
    def _f(x):
        return x - np.tanh(x)

    @staticmethod
    def _df(x, g):
        t = np.tanh(x.conj() if x.dtype.kind == "c" else x)  # complex: g * conj(f'(x))
        return g * t * t


class SoftshrinkBackward0(_Activation):
    @staticmethod
    def _f(x, lambd):
        return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0)).astype(x.dtype, copy=False)

    @staticmethod
    def _df(x, g, lambd):
        return g * (np.abs(x) > lambd)


class HardshrinkBackward0(_Activation):
    @staticmethod
    def _f(x, lambd):
        return np.where(np.abs(x) > lambd, x, 0).astype(x.dtype, copy=False)

    @staticmethod
    def _df(x, g, lambd):
        return g * (np.abs(x) > lambd)


class PreluKernelBackward0(Op):
    """``x if x > 0 else w * x`` with one weight per channel (dim 1) or a single shared weight."""

    _saves = (0, 1)

    def forward(self, x, w):
        wb = w.reshape((1, -1) + (1,) * (x.ndim - 2)) if x.ndim >= 2 and w.size > 1 else w.reshape(())
        self.saved = (x, wb)
        self.wshape = w.shape
        return np.where(x > 0, x, wb * x)

    _graph_recompute = True  # the broadcast weight is rebuilt from the boxed weight under create_graph

    def backward(self, g):
        x, wb = self.saved
        if self._graph:
            x, wb = self._graph_args[0], self._graph_args[1].reshape(wb.shape)
        pos = x > 0
        gx = np.where(pos, g, g * wb) if self._edges[0] is not None else None
        gw = None
        if self._edges[1] is not None:
            gw = unbroadcast(np.where(pos, 0, g * x), wb.shape).reshape(self.wshape)
        return gx, gw


class GluBackward0(Op):
    """``a * sigmoid(b)`` where ``a, b`` are the two halves of ``input`` along ``dim``."""

    _saves = (0,)

    def forward(self, x, dim):
        a, b = np.split(x, 2, axis=dim)
        s = _sigmoid(b)
        self.saved, self.dim = (x, s), dim
        return a * s

    _graph_recompute = True  # sigmoid(b) is rebuilt from the boxed input under create_graph

    def backward(self, g):
        x, s = self.saved
        if self._graph:
            x, dim = self._graph_args[0], self.dim % x.ndim
            h = x.shape[dim] // 2
            a = x[(slice(None),) * dim + (slice(0, h),)]
            s = _sigmoid(x[(slice(None),) * dim + (slice(h, None),)])
            return np.concatenate([g * s, g * a * s * (1 - s)], axis=self.dim)
        a, _ = np.split(x, 2, axis=self.dim)
        return np.concatenate([g * s, g * a * s * (1 - s)], axis=self.dim)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``torch.prelu``: leaky ReLU with learnable slopes; ``weight`` has 1 or ``input.size(1)`` elements.

    RuntimeError when the number of slopes does not match the channel count.
    """
    require_float(input, "prelu_cpu")
    channels = input._data.shape[1] if input._data.ndim >= 2 else 1
    if weight._data.size != 1 and weight._data.size != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight._data.size} and channel size = {channels}.")
    if weight._data.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight._data.ndim}")
    return PreluKernelBackward0.apply(input, weight)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor) -> Tensor:
    """``torch.selu``: ``scale * elu(x, alpha)`` with the self-normalizing constants."""
    require_float(input, "elu")
    return EluBackward0.apply(input, alpha=_SELU_ALPHA, scale=_SELU_SCALE, input_scale=1.0)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """``torch.celu``: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    require_float(input, "elu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return EluBackward0.apply(input, alpha=float(alpha), scale=1.0, input_scale=1.0 / alpha)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """``torch.threshold``: ``x if x > threshold else value``."""
    return ThresholdBackward0.apply(input, threshold=threshold, value=value)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``torch.hardshrink``: ``x if |x| > lambd else 0``."""
    require_float(input, "hardshrink_cpu")
    return HardshrinkBackward0.apply(input, lambd=lambd)


# ================================================================================================
# softmax family
# ================================================================================================
def _sum(x, axis):
    return sum_lastdim(x) if axis == x.ndim - 1 else np.add.reduce(x, axis=axis, keepdims=True)


def _softmax_np(x, axis):
    out = x - np.maximum.reduce(x, axis=axis, keepdims=True)
    np.exp(out, out=out)
    out /= _sum(out, axis)
    return out


def _log_softmax_np(x, axis):
    out = x - np.maximum.reduce(x, axis=axis, keepdims=True)
    out -= np.log(_sum(np.exp(out), axis))
    return out


class SoftmaxBackward0(Op):
    """``exp(x - max) / sum``; backward ``y * (g - sum(g * y))`` along ``dim``."""
    _vmap = ("axis", "dim")  # batching rule kind (func/_batching_rules.py)

    _saves = ("out",)
    _kernel = staticmethod(_softmax_np)

    def forward(self, x, dim):
        self.dim = dim
        if x.ndim == 0 or not x.size:  # a 0-d tensor is softmaxed as a 1-element vector
            out = x.copy() if not x.size else self._kernel(x.reshape(1), 0).reshape(())
        else:
            out = self._kernel(x, dim)
        self.saved = out
        return out

    def jvp(self, t):  # forward AD (autograd/forward_ad.py): y * (t - sum(y * t))
        y = self.fw_out
        if y.ndim == 0:
            return t * 0
        return y * (t - (y * t).sum(self.fw_kwargs["dim"], keepdim=True))

    def backward(self, g):
        y = self.saved
        if y.ndim == 0:
            return g * 0
        gy = g * y
        gy -= y * (gy.sum(axis=self.dim, keepdims=True) if self._graph else _sum(gy, self.dim))
        return gy


class LogSoftmaxBackward0(SoftmaxBackward0):
    """``x - max - log(sum(exp(x - max)))``; backward ``g - exp(y) * sum(g)`` along ``dim``."""

    _kernel = staticmethod(_log_softmax_np)

    def jvp(self, t):  # t - sum(softmax * t)
        y = self.fw_out
        if y.ndim == 0:
            return t * 0
        return t - (y.exp() * t).sum(self.fw_kwargs["dim"], keepdim=True)

    def backward(self, g):
        y = self.saved
        if y.ndim == 0:
            return g - np.exp(y) * g
        return g - np.exp(y) * (g.sum(axis=self.dim, keepdims=True) if self._graph else _sum(g, self.dim))


def _softmax_prep(input, dim, dtype):
    if dtype is not None:
        input = cast(input, dtype)
    return input, wrap_dim(dim, input._data.ndim)  # first, as PyTorch: TypeError for a float/str dim, IndexError


def _softmax_of_integers(input, d, name):
    """PyTorch has no integer softmax kernel but returns an empty integer input unchanged (as a copy)."""
    x = input._data
    if x.size == 0:
        return _make(x.copy())
    kernel = f"{name}_lastdim_kernel_impl" if d >= x.ndim - 1 else f"{name}_kernel_impl"
    raise NotImplementedError(f'"{kernel}" not implemented for \'{from_np(x.dtype)._aten_name}\'')


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """``torch.softmax``: ``exp(x) / sum(exp(x))`` along ``dim``, computed stably (max subtracted).

    ``dtype`` casts the input first. IndexError for a bad ``dim``; NotImplementedError for non-empty
    integer or bool input (an empty one is returned as it is, as PyTorch).
    """
    input, d = _softmax_prep(input, dim, dtype)
    if input._data.dtype.kind not in "fV":
        return _softmax_of_integers(input, d, "softmax")
    return SoftmaxBackward0.apply(input, dim=d)


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """``torch.log_softmax``: ``x - logsumexp(x)`` along ``dim``, stable for large logits."""
    input, d = _softmax_prep(input, dim, dtype)
    if input._data.dtype.kind not in "fV":
        return _softmax_of_integers(input, d, "log_softmax")
    return LogSoftmaxBackward0.apply(input, dim=d)


# ================================================================================================
# linear layers
# ================================================================================================
class LinearAddmm(Op):
    """``x @ W.T + b`` as one GEMM on ``x`` flattened to ``(M, in)``; any number of leading dims."""
    _vmap = "linear"  # batching rule kind (func/_batching_rules.py)

    _saves = (0, 1)
    _node_name = "AddmmBackward0"  # PyTorch's F.linear node, shared with torch.addmm's
    _saves_for = {0: (1,), 1: (0,)}

    def forward(self, x, w, b=None):
        if x.ndim == 2:
            x2 = x
        else:  # -1 cannot be inferred from an empty trailing dim, so that case names the row count
            x2 = x.reshape(-1, x.shape[-1]) if x.shape[-1] else x.reshape(math.prod(x.shape[:-1]), 0)
        out = x2 @ w.T
        if b is not None:
            out += b
        self.saved = (x2, w)
        self.xshape = x.shape
        self.bshape = None if b is None else b.shape
        return out if x.ndim == 2 else out.reshape(x.shape[:-1] + (w.shape[0],))

    _graph_recompute = True  # the flattened input is rebuilt from the boxed input under create_graph

    def jvp(self, tx, tw, tb=None):  # forward AD (autograd/forward_ad.py): tx W^T + x tW^T + tb
        x, w = self.fw_inputs[:2]
        cls = type(self)
        out = cls.apply(tx, w) if tx is not None else None
        if tw is not None:
            out = cls.apply(x, tw) if out is None else out + cls.apply(x, tw)
        if tb is not None:
            out = tb.expand(*self.fw_out._data.shape) if out is None else out + tb
        return out

    def backward(self, g):
        x2, w = self.saved
        if self._graph:  # an input that was not saved (no gradient needs it) stays the plain array
            a0, a1 = self._graph_args
            x2, w = (x2 if a0 is None else a0.reshape(x2.shape)), (w if a1 is None else a1)
        if g.dtype.kind == "c":  # complex: dX = G @ conj(W), dW = G^T @ conj(X)
            x2, w = x2.conj(), w.conj()
        g2 = g if g.ndim == 2 else g.reshape(x2.shape[0], g.shape[-1])
        e = self._edges
        gx = (g2 @ w).reshape(self.xshape) if e[0] is not None else None
        gw = g2.T @ x2 if e[1] is not None else None
        gb = None
        if len(e) > 2 and e[2] is not None:
            gb = unbroadcast(g2.sum(0), self.bshape)
        return gx, gw, gb


class TrilinearBackward0(Op):
    """Bilinear form ``y[..., o] = x1 @ W[o] @ x2 + b[o]`` over flattened leading dims."""

    _saves = (0, 1, 2)

    def forward(self, x1, x2, w, b=None):
        lead = x1.shape[:-1]
        a = x1.reshape(-1, x1.shape[-1])
        c = x2.reshape(-1, x2.shape[-1])
        t = np.einsum("ni,oij->noj", a, w, optimize=True)
        out = np.einsum("noj,nj->no", t, c)
        if b is not None:
            out += b
        self.saved = (a, c, w)
        self.shapes = (x1.shape, x2.shape, None if b is None else b.shape)
        return out.reshape(lead + (w.shape[0],))

    _graph_recompute = True  # the flattened inputs are rebuilt from the boxes under create_graph

    def backward(self, g):
        a, c, w = self.saved
        if self._graph:
            a, c, w = (self._graph_args[0].reshape(a.shape), self._graph_args[1].reshape(c.shape),
                       self._graph_args[2])
        g2 = g.reshape(-1, g.shape[-1])
        e = self._edges
        s1, s2, sb = self.shapes
        g1 = np.einsum("no,oij,nj->ni", g2, w, c, optimize=True).reshape(s1) if e[0] is not None else None
        gc = np.einsum("no,oij,ni->nj", g2, w, a, optimize=True).reshape(s2) if e[1] is not None else None
        gw = np.einsum("no,ni,nj->oij", g2, a, c, optimize=True) if e[2] is not None else None
        gb = unbroadcast(g2.sum(0), sb) if len(e) > 3 and e[3] is not None else None
        return g1, gc, gw, gb


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias=None) -> Tensor:
    """``torch.bilinear``: ``y = x1^T A x2 + b``; ``weight`` is ``(out, in1, in2)``, inputs ``(*, in1)``/``(*, in2)``.

    RuntimeError when the sizes disagree.
    """
    w = weight._data
    if (w.ndim != 3 or input1._data.shape[-1] != w.shape[1] or input2._data.shape[-1] != w.shape[2]
            or input1._data.shape[:-1] != input2._data.shape[:-1]):
        raise RuntimeError(f"bilinear: shapes do not match: input1 {list(input1.shape)}, input2 "
                           f"{list(input2.shape)}, weight {list(weight.shape)} (expected input1 (*, in1), "
                           f"input2 (*, in2) with equal leading dims and weight (out, in1, in2))")
    if bias is None:
        return TrilinearBackward0.apply(input1, input2, weight)
    return TrilinearBackward0.apply(input1, input2, weight, bias)


# ================================================================================================
# attention
# ================================================================================================
class ScaledDotProductAttentionBackward0(Op):
    """``softmax(q k^T * scale + mask) @ v`` with optional dropout on the attention weights.

    ``mask`` is additive (``-inf`` blocks); rows blocked everywhere give zeros, as PyTorch does.
    ``rep > 1`` shares each key/value head among ``rep`` query heads (grouped-query attention).
    """

    _saves = (0, 1, 2)

    def forward(self, q, k, v, mask, scale, drop, rep):
        self.shapes = (q.shape, k.shape, v.shape, None if mask is None else mask.shape)
        self.rep = rep
        if rep > 1:
            k, v = np.repeat(k, rep, axis=-3), np.repeat(v, rep, axis=-3)
        s = np.matmul(q, np.swapaxes(k, -1, -2))
        s *= scale
        self.mask = mask
        if mask is not None:
            s = s + mask
        m = s.max(-1, keepdims=True)
        if mask is not None:
            m[~np.isfinite(m)] = 0  # fully blocked rows: exp(-inf - 0) = 0 everywhere
        s -= m
        np.exp(s, out=s)
        tot = s.sum(-1, keepdims=True)
        if mask is not None:
            tot[tot == 0] = 1
        s /= tot
        pd = s * drop if drop is not None else s
        self.saved = (q, k, v, s, pd)
        self.scale, self.drop = scale, drop
        return np.matmul(pd, v)

    _graph_recompute = True  # the attention weights are rebuilt from the boxed q, k under create_graph
    _graph_constants = ("drop", "mask")
    _graph_tensors = ("mask_t",)  # a float attn_mask that requires grad (set by scaled_dot_product_attention)

    def backward(self, g):
        q, k, v, p, pd = self.saved
        if self._graph:
            q, k, v, p, pd = self._graph_weights()
        sq, sk, sv, sm = self.shapes
        e = self._edges
        gv = np.matmul(np.swapaxes(pd, -1, -2), g) if e[2] is not None else None
        dp = np.matmul(g, np.swapaxes(v, -1, -2))
        if self.drop is not None:
            dp *= self.drop
        ds = dp
        ds -= np.einsum("...ij,...ij->...i", dp, p)[..., None]
        ds *= p
        gm = unbroadcast(ds.copy(), sm) if len(e) > 3 and e[3] is not None else None
        ds *= self.scale
        gq = unbroadcast(np.matmul(ds, k), sq) if e[0] is not None else None
        gk = np.matmul(np.swapaxes(ds, -1, -2), q) if e[1] is not None else None
        out = []
        for gr, shape in ((gk, sk), (gv, sv)):
            if gr is not None and self.rep > 1:
                gr = gr.reshape(gr.shape[:-3] + (shape[-3], self.rep) + gr.shape[-2:]).sum(-3)
            out.append(None if gr is None else unbroadcast(gr, shape))
        return gq, out[0], out[1], gm

    def _graph_weights(self):
        """``(q, k, v, p, pd)`` of ``saved`` computed on the boxed inputs (create_graph=True)."""
        q, k, v = self._graph_args[:3]
        mask = getattr(self, "mask_t", self.mask)  # a float mask that requires grad: its box
        if self.rep > 1:  # each key/value head serves `rep` query heads
            k, v = (np.broadcast_to(np.expand_dims(t, -3), t.shape[:-2] + (self.rep,) + t.shape[-2:]).reshape(
                t.shape[:-3] + (t.shape[-3] * self.rep,) + t.shape[-2:]) for t in (k, v))
        s = (q @ k.swapaxes(-1, -2)) * self.scale
        if mask is not None:
            s = s + mask
        m = s.max(axis=-1, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)  # fully blocked rows: exp(-inf - 0) = 0 everywhere
        ex = np.exp(s - m)
        tot = ex.sum(axis=-1, keepdims=True)
        p = ex / np.where(tot == 0, 1, tot)
        return q, k, v, p, p * self.drop if self.drop is not None else p


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask=None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale=None, enable_gqa: bool = False) -> Tensor:
    """``F.scaled_dot_product_attention``: ``softmax(Q K^T / sqrt(E) + mask) V``.

    Shapes: query ``(..., L, E)``, key ``(..., S, E)``, value ``(..., S, Ev)`` -> ``(..., L, Ev)``. A bool
    ``attn_mask`` keeps positions where True; a float mask is added to the scores. ``is_causal`` uses a
    lower-triangular (top-left aligned) mask and cannot be combined with ``attn_mask`` (RuntimeError).
    ``enable_gqa`` lets key/value have fewer heads (dim -3) than query, dividing it.
    """
    q, k = query._data, key._data
    dt = q.dtype
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if q.shape[-1] != k.shape[-1] or key._data.shape[-2] != value._data.shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention: query, key and value shapes do not match: query "
                           f"{list(q.shape)}, key {list(k.shape)}, value {list(value.shape)}")
    rep = 1
    if q.ndim >= 3 and k.ndim >= 3 and q.shape[-3] != k.shape[-3]:
        if not enable_gqa or q.shape[-3] % k.shape[-3]:
            raise RuntimeError(f"The size of tensor a ({q.shape[-3]}) must match the size of tensor b "
                               f"({k.shape[-3]}) at non-singleton dimension {q.ndim - 3}")
        rep = q.shape[-3] // k.shape[-3]
    l_, s_ = q.shape[-2], k.shape[-2]
    mask = attn_mask
    if is_causal and type(q) is MetaArray:  # meta tensors: a meta mask (no (L, S) array)
        mask = meta((l_, s_), dt)
    elif is_causal:
        mask = np.where(np.tri(l_, s_, dtype=bool), 0, -np.inf).astype(dt)
    elif isinstance(attn_mask, Tensor) and attn_mask._data.dtype == np.bool_:
        mask = np.where(attn_mask._data, 0, -np.inf).astype(dt)
    elif isinstance(attn_mask, Tensor) and attn_mask._data.dtype != dt:
        mask = cast(attn_mask, query.dtype)
    sc = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    drop = None
    if dropout_p > 0:
        shape = np.broadcast_shapes(q.shape[:-2], k.shape[:-2] if rep == 1 else q.shape[:-2]) + (l_, s_)
        drop = _batched_option(*_mask(query, shape, dropout_p))  # (per sample under vmap)
    out = ScaledDotProductAttentionBackward0.apply(query, key, value, mask, scale=sc, drop=drop, rep=rep)
    if isinstance(mask, Tensor) and mask._rg and out.grad_fn is not None:
        out.grad_fn.mask_t = mask  # not saved (PyTorch does not version-check it): kept for create_graph
    return out


# ================================================================================================
# Gumbel-softmax
# ================================================================================================
def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """Samples from the Gumbel-softmax distribution (``F.gumbel_softmax``), shape and dtype of ``logits``.

    ``softmax((logits + g) / tau)`` with ``g = -log(Exp(1))`` noise drawn as PyTorch draws it (so seeded
    runs give PyTorch's samples). ``hard=True`` returns one-hot vectors whose gradient is the soft
    sample's (straight-through). ``eps`` is deprecated and ignored, with a warning, as in PyTorch.
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    noise = exponential_(_contiguous_empty(logits))  # (per sample under vmap)
    gumbels = -noise.log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _make(np.zeros(logits.shape, logits._data.dtype)).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ================================================================================================
# linear layer (F.linear): argument checks, then LinearAddmm above
# ================================================================================================
def linear(input: Tensor, weight: Tensor, bias=None) -> Tensor:
    """``input @ weight.T + bias`` (``F.linear``): input ``(*, in)``, weight ``(out, in)``, bias ``(out,)``.

    One GEMM on the flattened input (``AddmmBackward0``). RuntimeError for mismatched shapes or dtypes.
    """
    x, w = input._data, weight._data
    if w.ndim not in (1, 2) or x.ndim == 0:
        raise RuntimeError(f"linear: expected a 2-D weight and an input with at least 1 dim, got input "
                           f"{list(x.shape)} and weight {list(w.shape)}")
    if x.dtype != w.dtype or (bias is not None and bias._data.dtype != x.dtype):
        other = w.dtype if x.dtype != w.dtype else bias._data.dtype
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {from_np(x.dtype)._cpp_name} != "
                           f"{from_np(other)._cpp_name}")
    bool_work = x.dtype.kind == "b" and x.size and w.size  # no bool GEMM in PyTorch, reached when there is work
    if w.ndim == 1:  # a vector weight gives one output per row, without the trailing dim
        if bool_work:
            raise NotImplementedError("\"addmv_impl_cpu\" not implemented for 'Bool'")
        out = matmul(input, weight)
        return out if bias is None else add(out, bias)
    if x.shape[-1] != w.shape[1]:
        m = x.size // x.shape[-1] if x.shape[-1] else 0
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m}x{x.shape[-1]} and "
                           f"{w.shape[1]}x{w.shape[0]})")
    if bool_work:
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    if bias is None:
        return LinearAddmm.apply(input, weight)
    b = bias._data
    if b.ndim > 1 or (b.ndim == 1 and b.shape[0] not in (1, w.shape[0])):
        raise RuntimeError(f"The expanded size of the tensor ({w.shape[0]}) must match the existing size "
                           f"({b.shape[-1]}) at non-singleton dimension 1.  Target sizes: "
                           f"[{x.size // max(x.shape[-1], 1)}, {w.shape[0]}].  Tensor sizes: {list(b.shape)}")
    return LinearAddmm.apply(input, weight, bias)
