"""Batching rules: how an Op runs a whole vmap batch in one call (functorch's batching rules).

An Op class names its rule with the class attribute ``_vmap`` (a kind, or a tuple ``(kind, *params)``);
the kinds live here, in ``RULES``, because many Ops share one (every elementwise op is "elementwise").
A rule gets the Op class, the call's arguments (batched tensors among them) and the sorted vmap levels
of the call; the Op's options were computed by the public function from LOGICAL shapes, and the rule
maps them to the PHYSICAL tensors (batch dims in front): axes shifted by the number of batch dims,
operands padded to a common logical rank, the batch folded into N (pooling, conv with a shared
weight) or into groups (conv with per-sample weights), a batched matmul for the matmul family.
Rules run with vmap switched off, so the ops they call work on the plain physical tensors and are
recorded by autograd as usual.

| kind | params | Ops |
|---|---|---|
| elementwise | - | unary, binary, activations, where, clamp, casts, clone |
| axis | option names | reductions (sum, mean, var, amax, logsumexp, ...), softmax, log_softmax, cumsum |
| basic_index | - | x[ints, slices, None, ...] |
| dims | option names | transpose, squeeze, unsqueeze, flip, roll, select, slice, split, unbind, diagonal, cat, stack |
| permute, t, view, expand | - | permute, t, view/reshape, expand |
| free | index of the batched arg, indices that must be unbatched | layer norm |
| embedding | - | F.embedding (shared weight, batched indices) |
| matmul, linear, conv, fold, cross_entropy | - | the matmul family, F.linear, convolution, pooling, F.cross_entropy |
"""
from __future__ import annotations

import inspect
import math

import numpy as np

from .._ops.losses import CrossEntropyLossBackward0
from .._ops.shape import UnsafeViewBackward0, ViewBackward0
from .._tensor import Tensor, _make
from ._batched import RULES, BatchedTensor, align, batch_shape, fallback, wrap, wrap_out

_PARAMS = {}


def _params(cls):
    """Names of ``cls.forward``'s parameters after ``self`` (cached per class)."""
    names = _PARAMS.get(cls)
    if names is None:
        names = _PARAMS[cls] = [p.name for p in list(inspect.signature(cls.forward).parameters.values())[1:]]
    return names


class _Call:
    """An Op call whose options can be read and replaced by name, positional or keyword."""

    def __init__(self, cls, args, kwargs):
        self.cls, self.args, self.kwargs = cls, list(args), dict(kwargs)
        self.names = _params(cls)

    def _where(self, name):
        if name in self.kwargs:
            return None
        i = self.names.index(name)
        return i if i < len(self.args) else None

    def get(self, name, default=None):
        i = self._where(name)
        return self.kwargs.get(name, default) if i is None else self.args[i]

    def set(self, name, value):
        i = self._where(name)
        if i is None:
            self.kwargs[name] = value
        else:
            self.args[i] = value

    def run(self):
        return self.cls.apply(*self.args, **self.kwargs)


def _shift(v, nd, n):
    """A logical dim (or tuple of them; None: all ``nd`` dims) as physical, ``n`` batch dims in front."""
    if v is None:
        return tuple(range(n, n + nd))
    if isinstance(v, (tuple, list)):
        return type(v)(_shift(d, nd, n) for d in v)
    v = int(v)
    return v + n if v >= 0 else v


def _tensor_args(args):
    return [a for a in args if isinstance(a, Tensor)]


# ------------------------------------------------------------------------------------------------
# generic kinds
# ------------------------------------------------------------------------------------------------
def elementwise(cls, args, kwargs, levels):
    """Operands padded to a common logical rank after their batch dims; unbatched ones broadcast."""
    rank = max(a._data.ndim for a in _tensor_args(args))
    phys = [align(a, levels, rank, expand=False) if type(a) is BatchedTensor else a for a in args]
    return wrap_out(cls.apply(*phys, **kwargs), levels)


def axis(cls, args, kwargs, levels, *names):
    """Input 0 batched; the options ``names`` are logical dims (int, tuple or None for all)."""
    call = _Call(cls, args, kwargs)
    nd = args[0]._data.ndim
    if any(type(a) is BatchedTensor for a in args[1:]):
        return fallback(cls, args, kwargs, levels)
    call.args[0] = align(args[0], levels)
    for name in names:
        call.set(name, _shift(call.get(name), nd, len(levels)))
    return wrap_out(call.run(), levels)


def dims(cls, args, kwargs, levels, *names):
    """Every tensor argument aligned (expanded) to the levels; options ``names`` are dims to shift
    (None stays None)."""
    call = _Call(cls, args, kwargs)
    nd = _tensor_args(args)[0]._data.ndim
    call.args = [align(a, levels) if isinstance(a, Tensor) else a for a in args]
    for name in names:
        v = call.get(name)
        if v is not None:
            call.set(name, _shift(v, nd, len(levels)))
    return wrap_out(call.run(), levels)


def permute(cls, args, kwargs, levels):
    call = _Call(cls, args, kwargs)
    n, nd = len(levels), args[0]._data.ndim
    call.args[0] = align(args[0], levels)
    call.set("dims", tuple(range(n)) + tuple(d % nd + n for d in call.get("dims")) if nd else tuple(range(n)))
    return wrap(call.run(), levels)


def t(cls, args, kwargs, levels):
    p = align(args[0], levels)
    n = len(levels)
    return wrap(p.transpose(n, n + 1) if args[0]._data.ndim == 2 else p.view(p.shape), levels)


def view(cls, args, kwargs, levels):
    """view/reshape/expand: the target shape gets the batch shape in front."""
    call = _Call(cls, args, kwargs)
    shape = tuple(call.get("shape"))
    rank = len(shape) if cls.__name__ == "ExpandBackward0" else None
    call.args[0] = align(args[0], levels, rank)
    call.set("shape", batch_shape(levels) + shape)
    if cls is ViewBackward0 and not _viewable(call.args[0]._data, call.get("shape")):
        call.cls = UnsafeViewBackward0  # a sample's view whose batch is not: a copy (reshape's fallback)
    return wrap(call.run(), levels)


def _viewable(a, shape):
    if a.flags.c_contiguous:
        return True
    try:
        np.reshape(a, shape, copy=False)
    except ValueError:
        return False
    return True


def basic_index(cls, args, kwargs, levels):
    """``x[key]`` with ints, slices, None and Ellipsis: the key gets one full slice per batch dim in front."""
    call = _Call(cls, args, kwargs)
    key = call.get("key")
    call.args[0] = align(args[0], levels)
    call.set("key", (slice(None),) * len(levels) + (key if type(key) is tuple else (key,)))
    return wrap(call.run(), levels)


def free(cls, args, kwargs, levels, index, *plain):
    """Ops that treat any leading dims of argument ``index`` as batch dims; the arguments ``plain`` must
    be unbatched (otherwise the loop fallback runs)."""
    if any(type(args[i]) is BatchedTensor for i in plain if i < len(args)):
        return fallback(cls, args, kwargs, levels)
    phys = list(args)
    phys[index] = align(args[index], levels)
    return wrap_out(cls.apply(*phys, **kwargs), levels)


# ------------------------------------------------------------------------------------------------
# matmul family, linear, convolution, pooling, cross-entropy
# ------------------------------------------------------------------------------------------------
def _matmul_phys(a, b, levels):
    """Physical ``a @ b`` for logical operands (any ranks >= 1); returns the physical result."""
    from .._ops.matmul import BatchedMatmulBackward  # func (layer 5) reaches the matmul kernels of layer 4
    la, lb = a._data.ndim, b._data.ndim
    n = len(levels)
    batched_a, batched_b = type(a) is BatchedTensor, type(b) is BatchedTensor
    pa = align(a, levels) if batched_a else a
    pb = align(b, levels) if batched_b else b
    if la == 1:
        pa = pa.unsqueeze(-2)
    if lb == 1:
        pb = pb.unsqueeze(-1)
    ra, rb = max(la, 2), max(lb, 2)  # logical ranks as matrices
    r = max(ra, rb)
    if batched_a and ra < r:
        pa = pa.reshape(pa.shape[:n] + (1,) * (r - ra) + pa.shape[n:])
    if batched_b and rb < r:
        pb = pb.reshape(pb.shape[:n] + (1,) * (r - rb) + pb.shape[n:])
    out = BatchedMatmulBackward.apply(pa, pb)
    if la == 1:
        out = out.squeeze(-2)
    if lb == 1:
        out = out.squeeze(-1)
    return out


def matmul(cls, args, kwargs, levels):
    return wrap(_matmul_phys(args[0], args[1], levels), levels)


def linear(cls, args, kwargs, levels):
    """``x @ W.T + b``: a shared (unbatched) weight runs as one GEMM over every batch row; a batched
    weight as a batched matmul."""
    x, w = args[0], args[1]
    b = args[2] if len(args) > 2 else kwargs.get("b")
    if type(w) is not BatchedTensor and type(b) is not BatchedTensor:
        return wrap(cls.apply(align(x, levels), w, b), levels)
    n, lx = len(levels), x._data.ndim
    px = align(x, levels)
    pw = align(w, levels)  # (B..., out, in)
    flat = px.reshape(px.shape[:n] + (-1, px.shape[-1]))  # (B..., M, in)
    if flat.shape[-2] == 1:  # one row per sample: a broadcast product is ~10x faster than K=1 GEMMs backward
        y = (flat.unsqueeze(-2) * pw.unsqueeze(-3)).sum(-1)  # (B..., 1, out)
    else:
        y = _bmm(flat, pw.transpose(-1, -2))  # (B..., M, out)
    y = y.reshape(px.shape[:-1] + (pw.shape[-2],))
    if b is not None:
        pb = align(b, levels) if type(b) is BatchedTensor else b
        if type(b) is BatchedTensor:
            pb = pb.reshape(pb.shape[:n] + (1,) * (lx - 1) + pb.shape[n:])
        y = y + pb
    return wrap(y, levels)


def _bmm(a, b):
    from .._ops.matmul import BatchedMatmulBackward  # func (layer 5) reaches the matmul kernels of layer 4
    return BatchedMatmulBackward.apply(a, b)


def conv(cls, args, kwargs, levels):
    """``convolution``: with a shared weight the batch is folded into N; with per-sample weights it is
    folded into the channels and run as ONE grouped convolution (groups * batch)."""
    x, w, b = args[0], args[1], args[2] if len(args) > 2 else kwargs.get("b")
    call = _Call(cls, args, kwargs)
    n = len(levels)
    shape = batch_shape(levels)
    nb = math.prod(shape)
    nsp = w._data.ndim - 2
    unbatched_x = x._data.ndim == nsp + 1
    px = align(x, levels)
    if unbatched_x:  # logical (C, *S): the batch is N
        px = px.reshape((nb, 1) + px.shape[n:]) if type(w) is BatchedTensor else px.reshape((nb,) + px.shape[n:])
    if type(w) is not BatchedTensor and type(b) is not BatchedTensor:
        if not unbatched_x:
            px = px.reshape((nb * px.shape[n],) + px.shape[n + 1:])
        call.args[0] = px
        out = call.run()
        lead = shape if unbatched_x else shape + (x._data.shape[0],)
        return wrap(out.reshape(lead + out.shape[1:]), levels)
    # per-sample weights: x (B, N, C, *S) -> (N, B*C, *S); w (B, O, ...) -> (B*O, ...); groups * B
    px = px.reshape((nb,) + px.shape[-(nsp + 2):])
    nn_ = px.shape[1]
    px = px.transpose(0, 1).reshape((nn_, nb * px.shape[2]) + px.shape[3:])
    pw = align(w, levels)
    pw = pw.reshape((nb * pw.shape[n],) + pw.shape[n + 1:])
    pb = None
    if b is not None:
        pb = align(b, levels).reshape(-1)
    call.args[0], call.args[1] = px, pw
    if len(call.args) > 2:
        call.args[2] = pb
    else:
        call.kwargs["b"] = pb
    call.set("groups", call.get("groups") * nb)
    out = call.run()  # (N, B*O, *S')
    out = out.reshape((nn_, nb, -1) + out.shape[2:]).transpose(0, 1)
    out = out.reshape(shape + ((out.shape[2:]) if unbatched_x else (nn_,) + out.shape[2:]))
    return wrap(out, levels)


def fold(cls, args, kwargs, levels):
    """Pooling-like ops on (N, C, *S) or (C, *S): the batch dims are folded into N and unfolded after."""
    x = args[0]
    if any(type(a) is BatchedTensor for a in args[1:]) or any(type(v) is BatchedTensor for v in kwargs.values()):
        return fallback(cls, args, kwargs, levels)
    k = kwargs.get("kernel_size", kwargs.get("out_sp"))
    nsp = len(k)
    shape = batch_shape(levels)
    px = align(x, levels)
    lshape = x._data.shape
    inner = lshape[-(nsp + 1):]
    px = px.reshape((-1,) + inner)
    out = cls.apply(px, *args[1:], **kwargs)
    lead = shape + lshape[:len(lshape) - nsp - 1]

    def back(o):
        return wrap(o.reshape(lead + o.shape[1:]), levels)
    return tuple(back(o) for o in out) if type(out) is tuple else back(out)


def cross_entropy(cls, args, kwargs, levels):
    """Fused cross-entropy with class-index targets: the per-row losses of the folded batch (reduction
    "none") in one call, then reduced per sample. A batched target arrives as ``target=`` (see
    ``dispatch``)."""
    x, kw = args[0], dict(kwargs)
    target, weight, ii, reduction = kw["target"], kw.get("weight"), kw.get("ignore_index"), kw["reduction"]
    shape, n, lx = batch_shape(levels), len(levels), x._data.ndim
    if type(target) is BatchedTensor:  # F.cross_entropy checked every sample's target values
        pt = align(target, levels)._data
        tshape = target._data.shape
    else:
        tshape = np.shape(target)
        pt = np.broadcast_to(target, shape + tshape)
    px = align(x, levels)
    px = px.reshape((-1,) + px.shape[n + (lx > 1):])
    kw["target"] = np.ascontiguousarray(pt, dtype=np.int64).reshape((-1,) + tuple(tshape[1:]))
    kw["reduction"] = "none"
    loss = cls.apply(px, **kw).reshape(shape + tuple(tshape))
    if reduction == "none":
        return wrap(loss, levels)
    total = loss.sum(tuple(range(n, loss.ndim))) if loss.ndim > n else loss
    if reduction == "sum":
        return wrap(total, levels)
    keep = pt != ii if ii is not None else np.ones(pt.shape, bool)
    wts = np.where(keep, weight[np.where(keep, pt, 0)], 0) if weight is not None else keep
    denom = wts.reshape(shape + (-1,)).sum(-1).astype(x._data.dtype)
    return wrap(total / _make(denom), levels)


def embedding(cls, args, kwargs, levels):
    """Rows of a shared weight at batched indices (``indices=``, see ``dispatch``; ``F.embedding`` checked
    every sample's indices): one gather for all."""
    w, kw = args[0], dict(kwargs)
    idx = kw["indices"]
    if type(w) is BatchedTensor:  # per-sample weights (vmap of grad): _batching_rules_nn.py
        return RULES["embedding_weight"](cls, args, kwargs, levels)
    if type(idx) is not BatchedTensor:
        return fallback(cls, args, kwargs, levels)
    kw["indices"] = align(idx, levels)._data
    return wrap(cls.apply(w, **kw), levels)


def searchsorted(cls, args, kwargs, levels):
    """``searchsorted(seq, values)``: a per-sample 1-D ``seq`` becomes one row per sample (the values of
    each sample flattened into its row); an N-D ``seq`` already searches row by row."""
    seq, v = args
    n, shape = len(levels), batch_shape(levels)
    kw = dict(kwargs)
    sp = align(seq, levels)
    if kw.get("sorter") is not None:
        kw["sorter"] = align(kw["sorter"], levels)
    if not isinstance(v, Tensor):
        v = seq.new_tensor(v)
    vp = align(v, levels)
    if seq._data.ndim <= 1:
        vlog = vp.shape[n:]
        r = cls.apply(sp, vp.reshape(shape + (-1,)), **kw)
        return wrap(r.reshape(shape + tuple(vlog)), levels)
    return wrap(cls.apply(sp, vp, **kw), levels)


# losses.py is at the 800-line limit, so its class gets its rule name here
CrossEntropyLossBackward0._vmap = "cross_entropy"
RULES.update(cross_entropy=cross_entropy, embedding=embedding, basic_index=basic_index, elementwise=elementwise,
             axis=axis, dims=dims, permute=permute, t=t, view=view, free=free,
             matmul=matmul, linear=linear, conv=conv, fold=fold, searchsorted=searchsorted)
