"""``torch.masked``: reductions and normalisations that see only the elements where ``mask`` is True.

Every function takes ``mask=`` (a bool tensor broadcastable to ``input``; None means all True) and works
in two steps, as PyTorch's strided implementation does:

1. the masked-out elements are replaced by the *identity* of the operation (0 for sums, 1 for
   products, -inf for maxima, +inf for minima...), with ``where``, so they cannot change the result
   and receive a zero gradient;
2. the ordinary numtorch op runs on that tensor.

Means, variances and medians have no identity: a fully masked-out slice gives ``nan`` there. All are
compositions of differentiable numtorch ops, so gradients (and double backward) come from those ops.
``MaskedTensor`` inputs are not supported.
"""
from __future__ import annotations

import builtins

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from .._ops import cumulative as _cum, nn_ops as _nn, pointwise as _pw, reduction as _red, statistics as _stats
from .._ops.broadcasting import broadcast_shapes
from ..linalg import vector_norm

__all__ = ["sum", "prod", "cumsum", "cumprod", "amax", "amin", "argmax", "argmin", "mean", "median", "logsumexp",
           "logaddexp", "norm", "var", "std", "softmax", "log_softmax", "softmin", "normalize"]

_SMALL_INTS = (_dtype.uint8, _dtype.bool, _dtype.int8, _dtype.int16, _dtype.int32)


def _canonical_dim(dim, ndim):
    """``dim`` as a sorted tuple of non-negative dims; None or ``()`` means every dim."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    n = builtins.max(ndim, 1)
    dims = []
    for d in ((dim,) if isinstance(dim, int) else dim):
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        dims.append(d % n)
    return tuple(sorted(dims))


def _input_mask(input, *args, mask=None, **kwargs):
    """``mask`` as a bool tensor of ``input``'s shape (broadcast); IndexError if it has more dims, ValueError
    without one. PyTorch's signature: an op's other arguments may come along and are ignored."""
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.shape != input.shape:
        if mask.dim() > input.dim():
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality higher than of the "
                             "input)")
        broadcast_shapes(tuple(mask.shape), tuple(input.shape))  # RuntimeError when they clash
        mask = mask.broadcast_to(tuple(input.shape))
    return mask if mask.dtype == _dtype.bool else mask.to(_dtype.bool)


def _identity(op, input, ord=None):
    """The value a masked-out element takes for ``op`` (None: the op has none)."""
    dt = input.dtype
    npd = _dtype.to_np(dt)
    floating = dt.is_floating_point or dt.is_complex
    if op in ("sum", "cumsum"):
        return 0
    if op in ("prod", "cumprod"):
        return 1
    if op in ("amax", "argmax", "logaddexp", "logsumexp"):
        return -np.inf if floating else (None if dt == _dtype.bool else np.iinfo(npd).min)
    if op in ("amin", "argmin"):
        return np.inf if floating else (None if dt == _dtype.bool else np.iinfo(npd).max)
    if op == "norm":
        return np.inf if ord == -np.inf else 0
    if op == "median":
        return np.nan
    raise NotImplementedError(f"identity of {op} on {dt} input")


def _filled(op, input, mask, ord=None):
    """``input`` with its masked-out elements replaced by ``op``'s identity."""
    if mask is None:
        return input
    m = _input_mask(input, mask=mask)
    fill = _identity(op, input, ord)
    fill_t = _make(np.asarray(fill, _dtype.to_np(input.dtype)))
    return _pw.where(m, input, fill_t)


def _int64_if_small(input, dtype):
    return dtype if dtype is not None else (_dtype.int64 if input.dtype in _SMALL_INTS else input.dtype)


# ------------------------------------------------------------------------------------------------
# reductions with an identity
# ------------------------------------------------------------------------------------------------
def sum(input: Tensor, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:  # noqa: A001
    """Sum of the unmasked elements over ``dim`` (``torch.masked.sum``); small integer types sum to int64."""
    dims = _canonical_dim(dim, input.dim())
    return _red.sum(_filled("sum", input, mask), dims, bool(keepdim), dtype=_int64_if_small(input, dtype))


def prod(input: Tensor, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Product of the unmasked elements over ``dim`` (``torch.masked.prod``)."""
    out = _filled("prod", input, mask).to(_int64_if_small(input, dtype))
    for d in reversed(_canonical_dim(dim, input.dim())):
        out = _red.prod(out, d, keepdim=bool(keepdim))
    return out


def cumsum(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """Running sum along ``dim`` with masked-out elements counted as 0 (``torch.masked.cumsum``)."""
    d = _canonical_dim(dim, input.dim())[0]
    dtype = input.dtype if dtype is None else dtype
    return _cum.cumsum(_filled("sum", input, mask), d, dtype=dtype).to(dtype)


def cumprod(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """Running product along ``dim`` with masked-out elements counted as 1 (``torch.masked.cumprod``)."""
    d = _canonical_dim(dim, input.dim())[0]
    dtype = input.dtype if dtype is None else dtype
    return _cum.cumprod(_filled("prod", input, mask), d, dtype=dtype).to(dtype)


def amax(input: Tensor, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Maximum of the unmasked elements (``torch.masked.amax``; -inf where all are masked out)."""
    x = _filled("amax", input, mask)
    return _red.amax(x, _canonical_dim(dim, x.dim()), bool(keepdim)).to(input.dtype if dtype is None else dtype)


def amin(input: Tensor, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Minimum of the unmasked elements (``torch.masked.amin``; +inf where all are masked out)."""
    x = _filled("amin", input, mask)
    return _red.amin(x, _canonical_dim(dim, x.dim()), bool(keepdim)).to(input.dtype if dtype is None else dtype)


def argmax(input: Tensor, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Index of the largest unmasked element along ``dim`` (``torch.masked.argmax``), cast to ``dtype``
    (default: the input's, as PyTorch)."""
    out = _red.argmax(_filled("argmax", input, mask), dim, bool(keepdim))
    return out.to(input.dtype if dtype is None else dtype)


def argmin(input: Tensor, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Index of the smallest unmasked element along ``dim`` (``torch.masked.argmin``)."""
    out = _red.argmin(_filled("argmin", input, mask), dim, bool(keepdim))
    return out.to(input.dtype if dtype is None else dtype)


def logsumexp(input: Tensor, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """``log(sum(exp(x)))`` over the unmasked elements (``torch.masked.logsumexp``)."""
    x = _filled("logsumexp", input, mask)
    return _red.logsumexp(x, _canonical_dim(dim, input.dim()), keepdim=bool(keepdim)).to(
        input.dtype if dtype is None else dtype)


def logaddexp(input: Tensor, other: Tensor, *, dtype=None, input_mask=None, other_mask=None) -> Tensor:
    """``log(exp(input) + exp(other))`` with each side's masked-out elements as -inf (``torch.masked.logaddexp``)."""
    a, b = _filled("logaddexp", input, input_mask), _filled("logaddexp", other, other_mask)
    return _pw.logaddexp(a, b).to(input.dtype if dtype is None else dtype)


def norm(input: Tensor, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Vector ``ord``-norm of the unmasked elements over ``dim`` (``torch.masked.norm``)."""
    x = _filled("norm", input, mask, ord)
    return vector_norm(x, ord, _canonical_dim(dim, input.dim()), bool(keepdim), dtype=input.dtype if dtype is None
                       else dtype)


# ------------------------------------------------------------------------------------------------
# mean, var, std, median: no identity, nan where everything is masked out
# ------------------------------------------------------------------------------------------------
def _count(input, dim, keepdim, mask):
    if mask is None:
        return sum(_make(np.ones(tuple(input.shape), np.int64)), dim, keepdim=keepdim)
    return _red.sum(_input_mask(input, mask=mask), _canonical_dim(dim, input.dim()), bool(keepdim))


def mean(input: Tensor, dim=None, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Mean of the unmasked elements (``torch.masked.mean``); ValueError for a non-float dtype."""
    given = dtype is not None
    dtype = input.dtype if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {'Optional' if given else 'Input'} dtype must be "
                         f"either a floating point or complex dtype. Got: {dtype}")
    total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=mask)
    return _pw.div(total, _count(input, dim, keepdim, mask))


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    corr = float(correction) if correction is not None else (1.0 if unbiased is None or unbiased else 0.0)
    if dtype is None:
        dtype = input.dtype if input.dtype.is_floating_point or input.dtype.is_complex else _dtype.float32
    compute = dtype if dtype.is_floating_point or dtype.is_complex else _dtype.float32
    count = _count(input, dim, True, mask)
    centred = _pw.sub(input, _pw.div(sum(input, dim, keepdim=True, dtype=dtype, mask=mask), count))
    total = sum(centred * centred.conj(), dim, keepdim=keepdim, dtype=compute, mask=mask)
    if not keepdim:
        count = count.reshape(tuple(total.shape))
    if corr != 0:
        real = _dtype.float64 if compute == _dtype.complex128 else _dtype.float32 if compute.is_complex else compute
        count = _pw.maximum(_pw.sub(count.to(real), corr), _make(np.zeros((), _dtype.to_np(real))))
    out = _pw.div(total, count).to(dtype)
    return out.sqrt() if take_sqrt else out


def var(input: Tensor, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Variance of the unmasked elements (``torch.masked.var``; Bessel's ``correction`` 1 by default)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input: Tensor, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Standard deviation of the unmasked elements (``torch.masked.std``)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def median(input: Tensor, dim=-1, *, keepdim=False, dtype=None, mask=None) -> Tensor:
    """Median of the unmasked elements along ``dim`` (``torch.masked.median``; the lower middle value, nan
    where all are masked out). ValueError for an integer input with a fully masked-out slice."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.dim())[0]
    is_float = input.dtype.is_floating_point
    x = input if is_float else input.to(_dtype.float32)
    out = _stats.nanmedian(_filled("median", x, mask), d, keepdim).values
    if is_float:
        return out
    if bool(out.isnan().any()):
        raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")
    return out.to(dtype)


# ------------------------------------------------------------------------------------------------
# normalisations: the masked-out elements take no part (softmax gives them 0)
# ------------------------------------------------------------------------------------------------
def softmax(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """Softmax along ``dim`` over the unmasked elements (``torch.masked.softmax``)."""
    d = _canonical_dim(dim, input.dim())[0]
    return _nn.softmax(_filled("amax", input, mask), d, dtype=input.dtype if dtype is None else dtype)


def log_softmax(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """Log-softmax along ``dim`` over the unmasked elements (``torch.masked.log_softmax``)."""
    d = _canonical_dim(dim, input.dim())[0]
    return _nn.log_softmax(_filled("amax", input, mask), d, dtype=input.dtype if dtype is None else dtype)


def softmin(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """Softmin along ``dim`` over the unmasked elements (``torch.masked.softmin``)."""
    d = _canonical_dim(dim, input.dim())[0]
    return _nn.softmax(-_filled("amin", input, mask), d, dtype=input.dtype if dtype is None else dtype)


def normalize(input: Tensor, ord, dim: int, *, eps=1e-12, dtype=None, mask=None) -> Tensor:
    """``input / max(norm(input, ord, dim), eps)`` with the norm over the unmasked elements and masked-out
    elements set to 0 (``torch.masked.normalize``)."""
    dtype = input.dtype if dtype is None else dtype
    x = _filled("sum", input, mask)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return _pw.div(x, _pw.maximum(nrm, _make(np.asarray(eps, _dtype.to_np(nrm.dtype)))))


_REDUCTIONS = {"sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median", "norm", "var", "std", "logsumexp"}
_NORMALIZATIONS = {"softmax", "log_softmax", "softmin", "normalize", "cumsum", "cumprod"}


def _output_mask(op, input: Tensor, *args, **kwargs) -> Tensor:
    """Where ``op(input, *args, mask=...)``'s result is defined (some unmasked element reached it), as
    PyTorch's ``torch.masked._output_mask`` (test helpers use it to compare only defined elements)."""
    name = getattr(op, "__name__", None)
    if name in _REDUCTIONS:
        if name == "norm" and args:
            args = args[1:]  # drop ord
        dim = args[0] if args else kwargs.get("dim")
        m = _input_mask(input, mask=kwargs["mask"]) if kwargs.get("mask") is not None else \
            _make(np.ones(tuple(input.shape), bool))
        keep = bool(kwargs.get("keepdim", False))
        for d in reversed(_canonical_dim(dim, input.dim())):
            m = m.any(d, keepdim=keep)
        return m
    if name in _NORMALIZATIONS:
        return _input_mask(input, mask=kwargs["mask"]) if kwargs.get("mask") is not None else \
            _make(np.ones(tuple(input.shape), bool))
    raise ValueError(f"_output_mask expected masked operation (got {op!r})")
