"""Batching rules of the neural-network ops: normalisation, losses, dropout, einsum, the add-matmul
family, attention (the generic kinds are in ``_batching_rules.py``; same conventions).

| kind | Ops |
|---|---|
| layer_norm | ``F.layer_norm`` (shared or per-sample weight/bias) |
| group_norm | ``F.group_norm``, ``F.instance_norm`` (batch folded into N; per-sample affine after) |
| batch_norm | ``F.batch_norm`` in evaluation (running stats shared: batch folded into N; per-sample stats or affine: batch folded into the channels); training: ``train_batch_norm`` (a hook of ``F.batch_norm``) |
| point_loss | the elementwise losses (mse, l1, smooth_l1, huber, bce, bce_with_logits, kl_div, soft_margin, margin_ranking, poisson_nll, hinge_embedding): the loss per element in one call, reduced per sample |
| dropout | the dropout node (``x * mask``, mask shared or per sample) |
| einsum | einsum, tensordot (one letter per batch dim) |
| addmm | addmm, addmv, baddbmm (the batched matmul plus the scaled input) |
| sdpa | ``F.scaled_dot_product_attention`` (the batch dims in front of the heads) |
| along | sort, topk, kthvalue (0-d samples: the loop) |
"""
from __future__ import annotations

import math
import string

import numpy as np

from .._ops import conv as _CV
from .._ops import indexing as _IX
from .._ops import losses as _L
from .._ops import einsum as _EI, matmul as _MM
from .._ops import margin_losses as _ML
from .._ops import nn_ops as _NN
from .._ops import norm_ops as _NO
from .._ops import rearrange as _RA
from .._ops.distance import CosineSimilarityBackward, PairwiseDistanceBackward
from .._tensor import Tensor, _make
from ..autograd.grad_mode import _State
from ._batched import RULES, BatchedTensor, align, batch_shape, fallback, levels_of, wrap, wrap_out
from ._batching_rules import _Call, _matmul_phys, axis

_BN_ERROR = ("Batch norm got a batched tensor as input while the running_mean or running_var, which will be updated "
             "in place, were not batched.\nIf you are using a module and do not need eval mode, please set "
             "`track_running_stats` to be False.If you are using a prebuilt module and do not need eval mode, please "
             "see the functorch website for resources on how to patch your module to work with vmap")


def _b(a):
    return type(a) is BatchedTensor


def _affine(out, w, b, levels, before, after):
    """``out * w + b`` on the physical ``out`` (batch dims first) for per-sample (or shared) parameters of
    logical shape P: each aligned as ``(B..., 1 * before, *P, 1 * after)``."""
    n = len(levels)

    def fit(p):
        if not _b(p):
            return p.reshape(p.shape + (1,) * after) if after else p
        pp = align(p, levels)
        return pp.reshape(pp.shape[:n] + (1,) * before + pp.shape[n:] + (1,) * after)
    if w is not None:
        out = out * fit(w)
    if b is not None:
        out = out + fit(b)
    return out


# ------------------------------------------------------------------------------------------------
# normalisation
# ------------------------------------------------------------------------------------------------
def layer_norm(cls, args, kwargs, levels):
    """Normalisation of the trailing dims treats the batch dims as leading dims; per-sample weight or
    bias are applied after, as a broadcast product and sum."""
    call = _Call(cls, args, kwargs)
    x, w = call.get("x"), call.get("w")
    b = call.get("b") if "b" in call.names else None  # rms_norm has no bias
    call.set("x", align(x, levels))
    if not _b(w) and not _b(b):
        return wrap(call.run(), levels)
    call.set("w", None)
    if b is not None:
        call.set("b", None)
    k = call.get("k")
    return wrap(_affine(call.run(), w, b, levels, x._data.ndim - k, 0), levels)


def _fold_n(x, levels):
    """Physical ``(B..., N, C, *S)`` of a logical ``(N, C, *S)`` as ``(B*N, C, *S)``."""
    px = align(x, levels)
    return px.reshape((-1,) + px.shape[len(levels) + 1:])


def _unfold_n(out, x, levels):
    return out.reshape(batch_shape(levels) + x._data.shape[:1] + out.shape[1:])


def group_norm(cls, args, kwargs, levels):
    """Statistics per (sample, group): the batch folds into N; per-sample affine after."""
    call = _Call(cls, args, kwargs)
    x, w, b = call.get("x"), call.get("w"), call.get("b")
    call.set("x", _fold_n(x, levels))
    if _b(w) or _b(b):
        call.set("w", None)
        call.set("b", None)
        out = _unfold_n(call.run(), x, levels)
        return wrap(_affine(out, w, b, levels, 1, x._data.ndim - 2), levels)
    return wrap(_unfold_n(call.run(), x, levels), levels)


def _to_channels(x, levels):
    """Physical ``(B..., N, C, *S)`` as ``(N, B*C, *S)``: each sample's channels become their own channels."""
    n = len(levels)
    px = align(x, levels)
    px = px.permute((n,) + tuple(range(n)) + tuple(range(n + 1, px.ndim)))
    return px.reshape((px.shape[0], -1) + px.shape[n + 2:])


def _from_channels(out, x, levels):
    n, shape = len(levels), batch_shape(levels)
    out = out.reshape(out.shape[:1] + shape + (x._data.shape[1],) + out.shape[2:])
    return out.permute(tuple(range(1, n + 1)) + (0,) + tuple(range(n + 1, out.ndim)))


def _channel_param(p, levels, c, arrays=False):
    """A per-channel parameter (C,) as ``(B*C,)``, per sample or repeated (an array for ``arrays``)."""
    if p is None:
        return None
    shape = batch_shape(levels)
    if arrays:
        a = align(p, levels)._data if _b(p) else np.broadcast_to(p, shape + (c,))
        return np.ascontiguousarray(a).reshape(-1)
    return align(p, levels).reshape(-1)


def batch_norm(cls, args, kwargs, levels):
    """Evaluation-mode batch norm (and the training node reached with an unbatched input and batched
    weight/bias). Shared statistics and parameters: the batch folds into N; otherwise into the channels,
    so each sample is normalised with its own statistics and parameters in one call."""
    call = _Call(cls, args, kwargs)
    x, w, b = call.get("x"), call.get("w"), call.get("b")
    mean, var = call.get("mean"), call.get("var")
    if call.get("training"):  # input unbatched (F.batch_norm's hook handles a batched one): affine after
        call.set("w", None)
        call.set("b", None)
        out = call.run()
        return wrap(_affine(out.expand(batch_shape(levels) + out.shape), w, b, levels, 1, x._data.ndim - 2), levels)
    if not any(_b(a) for a in (w, b, mean, var)):
        call.set("x", _fold_n(x, levels))
        return wrap(_unfold_n(call.run(), x, levels), levels)
    c = x._data.shape[1]
    call.set("x", _to_channels(x, levels))
    for name, p in (("w", w), ("b", b)):
        call.set(name, _channel_param(p, levels, c))
    for name, p in (("mean", mean), ("var", var)):
        call.set(name, _channel_param(p, levels, c, arrays=True))
    return wrap(_from_channels(call.run(), x, levels), levels)


def _stat_levels(input, running, params=()):
    """The levels of a training batch norm under vmap; RuntimeError (PyTorch's) when the input is batched
    at a level a running statistic is not (the per-sample statistics cannot be written into it)."""
    levels = levels_of((input,) + tuple(running) + tuple(params))
    for t in running:
        if set(t._levels if _b(t) else ()) != set(levels):
            raise RuntimeError(_BN_ERROR)
    return levels


def train_batch_norm(input, weight, bias, running_mean, running_var, momentum, eps):
    """``F.batch_norm(training=True)`` under vmap (``norm_ops.vmap_train_batch_norm``): statistics per
    sample and channel over (N, *S), as ``torch.func.vmap``; running statistics (batched) are updated per
    sample. The batch is folded into the channels and normalised by one batch-norm node."""
    running = [t for t in (running_mean, running_var) if t is not None]
    levels = _stat_levels(input, running, (weight, bias))
    depth, _State.vmap = _State.vmap, 0
    try:
        xf = _to_channels(input, levels)
        xv, axes, ps = _NO._channel_view(xf._data)
        m = xv.size // xv.shape[1]
        mean = xv.mean(axes)
        centered = xv - mean.reshape(ps)
        var = _NO._channel_dot(centered, centered) / m
        c = input._data.shape[1]
        bshape = batch_shape(levels)
        for t, new in ((running_mean, mean), (running_var, var * (m / (m - 1)) if m > 1 else var)):
            if t is not None:
                _NO._update_running(t._phys, new.reshape(bshape + (c,)), momentum)
        w = _channel_param(weight, levels, c)
        b = _channel_param(bias, levels, c)
        out = _NO.NativeBatchNormBackward0.apply(xf, w, b, centered=centered, mean=mean, var=var, training=True,
                                                 eps=eps)
        return wrap(_from_channels(out, input, levels), levels)
    finally:
        _State.vmap = depth


def instance_norm_stats(input, running_mean, running_var, momentum):
    """``F.instance_norm``'s running-statistics update under vmap (``norm_ops.vmap_instance_stats``): each
    sample's batch average of the per-instance mean and unbiased variance, into its own statistics."""
    running = [t for t in (running_mean, running_var) if t is not None]
    levels = _stat_levels(input, running)
    depth, _State.vmap = _State.vmap, 0
    try:
        n = len(levels)
        x = align(input, levels)._data
        x3 = x.reshape(x.shape[:n + 2] + (-1,))
        if running_mean is not None:
            _NO._update_running(running_mean._phys, x3.mean(-1).mean(n), momentum)
        if running_var is not None:
            _NO._update_running(running_var._phys, x3.var(-1, ddof=1 if x3.shape[-1] > 1 else 0).mean(n), momentum)
    finally:
        _State.vmap = depth


# ------------------------------------------------------------------------------------------------
# losses
# ------------------------------------------------------------------------------------------------
def point_loss(cls, args, kwargs, levels):
    """Elementwise losses: the unreduced loss of every element of every sample in one call (operands
    padded to a common logical rank), then reduced over each sample's dims."""
    kw = dict(kwargs)
    red = kw.pop("reduction")
    tensors = [a for a in args if isinstance(a, Tensor)] + [v for v in kw.values() if isinstance(v, Tensor)]
    rank = max(a._data.ndim for a in tensors)
    phys = [align(a, levels, rank, expand=False) if _b(a) else a for a in args]
    for k, v in kw.items():  # an array option given as a batched tensor's _data (weight, target)
        if _b(v):
            kw[k] = np.ascontiguousarray(align(v, levels, rank, expand=False)._data)
    n, shape = len(levels), batch_shape(levels)
    loss = cls.apply(*phys, reduction="none", **kw)
    if loss.shape[:n] != shape:  # no operand batched at some level (a batched option only)
        loss = loss.expand(shape + loss.shape[n:])
    dims = tuple(range(n, loss.ndim))
    if red == "none":
        return wrap(loss, levels)
    total = loss.sum(dims) if dims else loss
    if red == "sum":
        return wrap(total, levels)
    if red == "batchmean":
        return wrap(total / kw.get("batch", 1), levels)
    weight = kw.get("weight")
    if weight is not None and kw.get("wsum"):  # "mean" of a weighted loss divides by the summed weights
        wsum = np.broadcast_to(weight, loss.shape).sum(dims) if dims else np.broadcast_to(weight, loss.shape)
        return wrap(total / _make(np.asarray(wsum, loss._data.dtype)), levels)
    return wrap(loss.mean(dims) if dims else loss, levels)


def cross_entropy_probs(cls, args, kwargs, levels):
    """Cross entropy with class-probability targets: the batch folds into N (a ``(C,)`` sample is one row),
    the per-row losses come back per sample and are reduced over each sample's rows."""
    call = _Call(cls, args, kwargs)
    x, y, red = call.get("x"), call.get("y"), call.get("reduction")
    n, shape, lshape = len(levels), batch_shape(levels), x._data.shape
    for name, t in (("x", x), ("y", y)):
        p = align(t, levels)
        call.set(name, p.reshape((-1,) + p.shape[n + (len(lshape) > 1):]))
    call.set("reduction", "none")
    loss = call.run().reshape(shape + (lshape[:1] + lshape[2:] if len(lshape) > 1 else ()))
    dims = tuple(range(n, loss.ndim))
    if red == "none" or not dims:
        return wrap(loss, levels)
    return wrap(loss.sum(dims) if red == "sum" else loss.mean(dims), levels)


# ------------------------------------------------------------------------------------------------
# dropout, einsum, add-matmul, attention, sort
# ------------------------------------------------------------------------------------------------
def dropout(cls, args, kwargs, levels):
    """``x * mask``: the mask is a plain array (shared by the batch: randomness="same") or a batched
    tensor's stand-in (one mask per sample: randomness="different")."""
    x, mask = args[0], kwargs["mask"]
    rank = max(x._data.ndim, np.ndim(mask) if not _b(mask) else mask._data.ndim)
    px = align(x, levels, rank)
    if _b(mask):
        mask = align(mask, levels, rank, expand=False)._data
    return wrap(cls.apply(px, mask=mask), levels)


_LETTERS = string.ascii_letters


def einsum(cls, args, kwargs, levels):
    """One fresh subscript per batch dim, in front of every batched operand's and the output's."""
    terms, out, sizes = kwargs["spec"]
    used = set("".join(terms) + out)
    fresh = "".join([c for c in _LETTERS if c not in used][:len(levels)])
    if len(fresh) < len(levels):
        return fallback(cls, args, kwargs, levels)
    sizes = dict(sizes)
    sizes.update(zip(fresh, batch_shape(levels)))
    phys, new_terms = [], []
    for a, term in zip(args, terms):
        phys.append(align(a, levels) if _b(a) else a)
        new_terms.append(fresh + term if _b(a) else term)
    return wrap(cls.apply(*phys, spec=(new_terms, fresh + out, sizes)), levels)


def addmm(cls, args, kwargs, levels):
    """``beta * c + alpha * (a @ b)`` (addmm, addmv, baddbmm): the batched matmul, then the scaled input
    (``beta == 0`` ignores ``c``, as PyTorch)."""
    call = _Call(cls, args, kwargs)
    c, a, b = call.get("c"), call.get("a"), call.get("b")
    beta, alpha = call.get("beta", 1), call.get("alpha", 1)
    out = _matmul_phys(a, b, levels)
    if alpha != 1:
        out = out * alpha
    if beta != 0:
        pc = align(c, levels, max(a._data.ndim, b._data.ndim) - (b._data.ndim == 1), expand=False) if _b(c) else c
        out = out + (pc if beta == 1 else pc * beta)
    return wrap(out, levels)


def sdpa(cls, args, kwargs, levels):
    """Attention over ``(..., L, E)``: the batch dims become leading dims of query, key and value (and of a
    batched mask)."""
    call = _Call(cls, args, kwargs)
    q, k, v, mask = call.get("q"), call.get("k"), call.get("v"), call.get("mask")
    rank = max(t._data.ndim for t in (q, k, v))
    for name, t in (("q", q), ("k", k), ("v", v)):
        call.set(name, align(t, levels, rank))
    if _b(mask):
        call.set("mask", align(mask, levels, rank, expand=False))
    drop = call.get("drop")
    if _b(drop):  # one dropout mask per sample (randomness="different")
        call.set("drop", np.ascontiguousarray(align(drop, levels, rank, expand=False)._data))
    return wrap(call.run(), levels)


def embedding_weight(cls, args, kwargs, levels):
    """``F.embedding`` with per-sample weights ``(B..., V, D)`` (the lifted weight of a per-sample grad): the
    weights stacked as one ``(B*V, D)`` table and each sample's indices offset into its own block, one
    gather for all. A ``padding_idx`` row still gets no gradient (its rows are taken from the detached
    table)."""
    w, kw = args[0], dict(kwargs)
    idx, pad = kw["indices"], kw.get("padding_idx")
    shape = batch_shape(levels)
    nb = math.prod(shape)
    pw = align(w, levels)
    v = pw.shape[-2]
    table = pw.reshape((nb * v, pw.shape[-1]))
    ia = align(idx, levels)._data if _b(idx) else np.broadcast_to(idx, shape + np.shape(idx))
    ia = ia.reshape((nb,) + ia.shape[len(levels):])
    kw["indices"] = ia + (np.arange(nb) * v).reshape((nb,) + (1,) * (ia.ndim - 1))
    kw["padding_idx"] = None
    out = cls.apply(table, **kw)
    if pad is not None:
        keep = _make((ia != pad)[..., None].astype(out._data.dtype))
        out = out * keep + out.detach() * (1 - keep)
    return wrap(out.reshape(shape + out.shape[1:]), levels)


def masked_fill(cls, args, kwargs, levels):
    """``where(mask, value, a)``: ``a`` and a batched mask aligned to a common rank; a batched value (one
    per sample) runs the loop."""
    a, v, mask = args[0], args[1], kwargs["mask"]
    if _b(v):
        return fallback(cls, args, kwargs, levels)
    rank = max(a._data.ndim, mask._data.ndim if _b(mask) else np.ndim(mask))
    if _b(mask):
        mask = np.ascontiguousarray(align(mask, levels, rank, expand=False)._data)
    return wrap(cls.apply(align(a, levels, rank), v, mask=mask), levels)


def repeat(cls, args, kwargs, levels):
    """``Tensor.repeat``: the repeats get a 1 per batch dim in front."""
    reps = tuple(kwargs["reps"]) if "reps" in kwargs else tuple(args[1])
    pa = align(args[0], levels, len(reps))
    return wrap(cls.apply(pa, reps=(1,) * len(levels) + reps), levels)


def outer(cls, args, kwargs, levels):
    """``outer(a, b)`` as the broadcast product ``a[..., :, None] * b[..., None, :]``."""
    pa, pb = (align(t, levels) if _b(t) else t for t in args[:2])
    if not _b(args[0]):
        pa = pa.reshape((1,) * len(levels) + pa.shape)
    return wrap(pa.unsqueeze(-1) * pb.unsqueeze(-2), levels)


def roll(cls, args, kwargs, levels):
    """``roll`` along given dims (the ``dims`` rule); ``dims=None`` rolls each flattened sample (the loop)."""
    call = _Call(cls, args, kwargs)
    if call.get("dims") is None:
        return fallback(cls, args, kwargs, levels)
    return RULES["dims"](cls, args, kwargs, levels, "dims")


def along(cls, args, kwargs, levels, *names):
    """sort/topk/kthvalue along a dim: the ``axis`` rule; a 0-d sample has no dim to shift (the loop)."""
    if args[0]._data.ndim == 0:
        return fallback(cls, args, kwargs, levels)
    return axis(cls, args, kwargs, levels, *names)


RULES.update(layer_norm=layer_norm, group_norm=group_norm, batch_norm=batch_norm, point_loss=point_loss,
             dropout=dropout, einsum=einsum, addmm=addmm, sdpa=sdpa, along=along,
             embedding_weight=embedding_weight, cross_entropy_probs=cross_entropy_probs, masked_fill=masked_fill,
             repeat=repeat, outer=outer, roll=roll)

# the classes of files at (or near) the 800-line limit get their rule names here
for _cls in (_L.MseLossBackward0, _L.L1LossBackward0, _L.SmoothL1LossBackward0, _L.HuberLossBackward0,
             _L.SoftMarginLossBackward0, _L.BinaryCrossEntropyBackward0, _L.BinaryCrossEntropyWithLogitsBackward0,
             _L.KlDivBackward0, _L.MarginRankingLossBackward, _L.PoissonNllLossBackward,
             _ML.HingeEmbeddingLossBackward):
    _cls._vmap = "point_loss"
_L.CrossEntropyProbsBackward0._vmap = "cross_entropy_probs"
_L.NllLossBackward0._vmap = "cross_entropy"  # the same per-row kernel and per-sample reduction
_EI._Einsum._vmap = "einsum"
_MM._AddMatmul._vmap = "addmm"
_NN.ScaledDotProductAttentionBackward0._vmap = "sdpa"
CosineSimilarityBackward._vmap = ("dims", "dim")
PairwiseDistanceBackward._vmap = "elementwise"  # along the last dim, operands broadcast
_NO.RmsNormBackward0._vmap = "layer_norm"
_NO.NormalizeBackward._vmap = ("axis", "dim")
_NN.GluBackward0._vmap = ("axis", "dim")
_MM.OuterProduct._vmap = "outer"
_IX.MaskedFillBackward0._vmap = "masked_fill"
_RA._Triangle._vmap = ("free", 0)  # the last two dims
_RA.RepeatBackward0._vmap = "repeat"
_RA.RollBackward0._vmap = "roll"
_CV.Im2ColBackward0._vmap = "fold"  # F.unfold: (N, C, *S) with the batch folded into N
_NO.vmap_train_batch_norm = train_batch_norm
_NO.vmap_instance_stats = instance_norm_stats
del _cls
