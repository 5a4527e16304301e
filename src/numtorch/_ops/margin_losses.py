"""Margin and multi-label loss kernels (``multi_margin_loss``, ``multilabel_margin_loss``,
``hinge_embedding_loss``, ``multilabel_soft_margin_loss``) and their complete ``torch.nn.functional``
forms with PyTorch's checks, re-exported from ``numtorch/nn/functional.py``.

Shapes: ``multi_margin_loss``/``multilabel_margin_loss`` take scores ``(N, C)``, ``(C,)`` or ``()``;
``hinge_embedding_loss`` is elementwise (broadcasting); ``multilabel_soft_margin_loss`` sums over the
input's last dim. Each is one ``Op`` with a hand-derived backward scaled by the reduction's factor.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd.function import Op
from ..autograd.grad_mode import is_grad_enabled
from .losses import REDUCTIONS, _fit, _reduction
from .scatter import _bcast

def _frames(x):
    """``(N, C)`` of class scores ``(N, C)``, ``(C,)`` or ``()``; RuntimeError for other shapes."""
    nd = x.ndim
    if not (nd == 2 and x.shape[1] != 0 or nd == 1 and x.shape[0] != 0 or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(x.shape)}")
    return (x.shape[0] if nd == 2 else 1), (x.shape[-1] if nd else 1)


def _require(x, kernel):
    """Only float32/float64 have CPU kernels in PyTorch (NotImplementedError otherwise)."""
    if x.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype.from_np(x.dtype)._aten_name}\'')


def _require_long(t):
    if t.dtype != np.int64:
        raise RuntimeError(f"expected scalar type Long but found {_dtype.from_np(t.dtype)._aten_name}")


def _reduce_rows(loss, reduction, out_shape):
    """Reduce per-sample losses; "mean" divides in the loss's dtype (0/0 gives NaN, as in PyTorch)."""
    if reduction == "none":
        return loss.reshape(out_shape)
    if reduction == "sum":
        return loss.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        return loss.sum() / loss.dtype.type(loss.size)


def _row_scale(g, red, n):
    """The gradient reaching each of ``n`` per-sample losses, as an ``(n,)`` array."""
    if red == "none":
        return g.reshape(n)
    return np.broadcast_to(g / n if red == "mean" else g, (n,))


# ================================================================================================
# margin and multi-label losses
# ================================================================================================
class MultiMarginLossBackward0(Op):
    """``loss_n = sum_{i != y} w_y max(0, margin - x[y] + x[i])^p / C`` per row (``p`` in {1, 2}).

    The scores ``z = margin - x[y] + x`` (target column zeroed) are kept for backward, where each
    active term adds ``w_y p z^(p-1) / C`` to ``x[i]`` and subtracts it from ``x[y]``.
    """

    _graph_error = (RuntimeError, "derivative for aten::multi_margin_loss_backward is not implemented")
    _saves = (0,)

    def forward(self, x, target, weight, p, margin, reduction, out_shape):
        c = x.shape[-1] if x.ndim else 1
        x2 = x.reshape(-1, c)
        n = x2.shape[0]
        rows = np.arange(n)
        z = x2 - x2[rows, target][:, None]
        z += margin
        z[rows, target] = 0
        h = np.maximum(z, 0)
        if p == 2:
            h *= h
        loss = h.sum(1)
        wt = None
        if weight is not None:
            wt = weight[target]
            loss *= wt
        loss /= c
        self.saved = (z, target, wt)
        self.shape, self.red, self.p, self.n, self.c = x.shape, reduction, p, n, c
        return _reduce_rows(loss, reduction, out_shape)

    def backward(self, g):
        z, t, wt = self.saved
        n, c = self.n, self.c
        k = _row_scale(g, self.red, n) / c
        if wt is not None:
            k = k * wt
        gz = (z > 0) * k[:, None]
        if self.p == 2:
            gz *= 2 * z
        gz = gz.astype(z.dtype, copy=False)
        gz[np.arange(n), t] = -gz.sum(1)  # the target column of gz is 0 (z was zeroed there)
        return gz.reshape(self.shape)


class MultilabelMarginLossBackward0(Op):
    """``loss_n = sum_j sum_{i not a target} max(0, 1 - x[y_j] + x[i]) / C``, ``y_j`` the targets before
    the first negative entry of the row (duplicates count again).

    Only the longest target prefix ``K`` of the batch is expanded, so the work is ``N * K * C``; the
    mask of active ``(j, i)`` terms is kept for backward.
    """

    _graph_error = (RuntimeError, "derivative for aten::multilabel_margin_loss_backward is not implemented")
    _saves = (0,)

    def forward(self, x, target, reduction, out_shape):
        c = x.shape[-1] if x.ndim else 1
        x2, t2 = x.reshape(-1, c), target.reshape(-1, c)
        n = x2.shape[0]
        valid = np.logical_and.accumulate(t2 >= 0, axis=1)
        k = int(valid.sum(1).max()) if n else 0
        valid = valid[:, :k]
        ts = np.where(valid, t2[:, :k], 0)
        is_target = np.zeros((n, c), bool)
        r, j = np.nonzero(valid)
        is_target[r, ts[r, j]] = True
        z = x2[:, None, :] - np.take_along_axis(x2, ts, 1)[:, :, None]  # (n, k, c): x[i] - x[y_j]
        z += 1
        act = z > 0
        act &= valid[:, :, None]
        act &= ~is_target[:, None, :]
        loss = np.where(act, z, z.dtype.type(0)).sum((1, 2)) / c
        self.saved = (act, ts)
        self.shape, self.red, self.n, self.c = x.shape, reduction, n, c
        return _reduce_rows(loss, reduction, out_shape)

    def backward(self, g):
        act, ts = self.saved
        n, c = self.n, self.c
        gz = act * (_row_scale(g, self.red, n) / c)[:, None, None]
        gx = gz.sum(1)  # + d/dx[i]
        np.subtract.at(gx, (np.arange(n)[:, None], ts), gz.sum(2))  # - d/dx[y_j], repeated targets add up
        return gx.astype(g.dtype, copy=False).reshape(self.shape)


class HingeEmbeddingLossBackward(Op):
    """``x`` where ``y != -1`` plus ``max(0, margin - x)`` where ``y != 1`` (both for other values of ``y``),
    broadcasting ``x`` and ``y``; the gradient of the clamp passes at ``margin - x == 0`` as in PyTorch."""

    def forward(self, x, target, margin, reduction):
        self.lshape = _bcast(target.shape, x.shape)
        d = margin - x
        pos, neg = target != -1, target != 1
        zero = x.dtype.type(0)
        loss = np.where(neg, np.maximum(d, zero), zero)
        loss += np.where(pos, x, zero)
        self.saved = (d, pos, neg)
        self.red, self.xshape = reduction, x.shape
        return _reduce_rows(loss, reduction, loss.shape)  # the loss has the input's dtype

    _graph_constants = ("saved",)  # d only gives the mask of the clamp: the backward is linear in g

    def backward(self, g):
        d, pos, neg = self.saved
        dx = np.broadcast_to(pos, self.lshape).astype(d.dtype)
        dx -= neg & (d >= 0)
        s = g / d.dtype.type(dx.size) if self.red == "mean" else g
        dx = dx * s if self._graph else np.multiply(dx, s, out=dx)
        return _fit(dx, self.xshape, self.lshape)


class MultilabelSoftMarginLossBackward(Op):
    """``w (y softplus(-x) + (1 - y) softplus(x))`` summed over the input's last dim and divided by ``C``.

    The softplus terms are computed in the input's dtype (as PyTorch's ``logsigmoid``) and then
    promoted to ``rt``, the result type of input, target and weight, all three differentiable.
    """

    _saves = (0, 1, 2)
    _graph_recompute = True

    def forward(self, x, y, w, rt, reduction):
        a = np.log1p(np.exp(-np.abs(x)))
        spn = np.maximum(-x, 0) + a  # -logsigmoid(x)
        spp = np.maximum(x, 0) + a  # -logsigmoid(-x)
        spn, spp = spn.astype(rt, copy=False), spp.astype(rt, copy=False)
        yr = y.astype(rt, copy=False)
        elem = yr * spn + (1 - yr) * spp
        wr = None if w is None else w.astype(rt, copy=False)
        loss = elem if wr is None else elem * wr
        cd = x.ndim - 1
        c = x.shape[cd]
        per = loss.sum(cd) / rt.type(c)
        self.saved = (x, spn, elem, yr, wr)
        self.meta = [None if a is None else (a.shape, a.dtype) for a in (x, y, w)]
        self.red, self.cd, self.c, self.lshape = reduction, cd, c, loss.shape
        self.count = per.size
        return _reduce_rows(per, reduction, per.shape)  # of dtype rt

    def backward(self, g):
        x, spn, elem, yr, wr = self.saved
        dt = spn.dtype
        if self._graph:  # the softplus terms again, from the boxed inputs
            x, y, w = self._graph_args
            spn, yr, wr = np.logaddexp(0, -x).astype(dt), y.astype(dt), None if w is None else w.astype(dt)
            elem = yr * spn + (1 - yr) * np.logaddexp(0, x).astype(dt)
        if self.red == "none":
            ge = np.expand_dims(g, self.cd) / dt.type(self.c)
        else:
            ge = g / dt.type(self.c * (self.count if self.red == "mean" else 1))
        gwe = ge if wr is None else ge * wr
        grads = [None, None, None]
        if self._edges[0] is not None:  # d/dx = w (sigmoid(x) - y)
            grads[0] = (np.exp(-spn) - yr) * gwe
        if self._edges[1] is not None:  # d/dy = w (softplus(-x) - softplus(x)) = -w x
            grads[1] = x.astype(dt, copy=False) * -gwe
        if len(self._edges) > 2 and self._edges[2] is not None:
            grads[2] = elem * ge
        return tuple(None if gr is None else _fit(gr.astype(m[1], copy=False), m[0], self.lshape)
                     for gr, m in zip(grads, self.meta))


# ================================================================================================
# torch.nn.functional forms of the margin losses
# ================================================================================================
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight=None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss (``F.multi_margin_loss``).

    Per sample with scores ``x`` ``(C,)`` and class ``y``: ``sum_{i != y} w[y] max(0, margin - x[y] + x[i])^p / C``.
    input ``(N, C)``, ``(C,)`` or ``()`` (float32/float64); target int64 ``(N,)`` (``()`` or ``(1,)`` for
    unbatched input); weight ``(C,)`` of the input's dtype, not differentiable. ``reduction="none"``
    gives ``(N,)`` (``()`` for a 0-d target). Raises ValueError for ``p`` not 1 or 2, a weight that is not
    1-D or a bad reduction; RuntimeError for bad shapes, a non-int64 target, a weight of another dtype or
    a target outside ``[0, C)``; NotImplementedError for non-float input.
    """
    reduction = _reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None:
        if weight.dim() != 1:
            raise ValueError("weight must be one-dimensional")
        if weight.requires_grad and is_grad_enabled():
            raise RuntimeError("The function 'multi_margin_loss' is not differentiable with respect to argument "
                               "'weight'. This input cannot have requires_grad True.")
    x, t = input._data, target._data
    n, c = _frames(x)
    if t.ndim > 1 or t.size != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n}], but got {list(t.shape)}. Input has "
                           f"shape {list(x.shape)}.")
    if weight is not None and weight._data.size != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    _require(x, "multi_margin_loss_cpu_kernel")
    _require_long(t)
    w = None
    if weight is not None:
        w = weight._data
        if w.dtype != x.dtype:
            raise RuntimeError(f"expected scalar type {_dtype.from_np(x.dtype)._aten_name} but found "
                               f"{_dtype.from_np(w.dtype)._aten_name}")
    t = t.reshape(n)
    if n and ((t < 0) | (t >= c)).any():
        raise RuntimeError("target out of range")
    return MultiMarginLossBackward0.apply(input, target=t, weight=w, p=int(p), margin=float(margin),
                                          reduction=reduction, out_shape=(n,) if target.ndim else ())


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """Multi-label hinge loss (``F.multilabel_margin_loss``).

    Per sample: ``sum_j sum_{i not in targets} max(0, 1 - x[y_j] + x[i]) / C`` over the target indices ``y_j``
    that come before the first ``-1`` of the row. input ``(N, C)``, ``(C,)`` or ``()`` (float32/float64);
    target int64 of the input's shape (``C`` elements for unbatched input). ``reduction="none"`` gives
    ``(N,)``, ``()`` for unbatched input. RuntimeError for bad shapes, a non-int64 target or a target
    entry outside ``[-1, C)``; NotImplementedError for non-float input; ValueError for a bad reduction.
    """
    reduction = _reduction(size_average, reduce, reduction)
    x, t = input._data, target._data
    n, c = _frames(x)
    if x.ndim <= 1 and (t.ndim > 1 or t.size != c) or x.ndim == 2 and t.shape != x.shape:
        raise RuntimeError(f"inconsistent target size: {list(t.shape)} for input of size: {list(x.shape)}")
    _require(x, "multilabel_margin_loss_forward_out_frame")
    _require_long(t)
    if t.size and ((t < -1) | (t >= c)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    return MultilabelMarginLossBackward0.apply(input, target=t, reduction=reduction,
                                               out_shape=(n,) if x.ndim == 2 else ())


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """Hinge embedding loss (``F.hinge_embedding_loss``, ``torch.hinge_embedding_loss``).

    Elementwise ``x`` where ``y == 1`` and ``max(0, margin - x)`` where ``y == -1`` (other values of ``y``
    get both terms); input and target (any dtype, usually +-1) broadcast, the result has the input's
    dtype. Integer input works with ``margin`` truncated to an integer, except for the mean. RuntimeError
    for shapes that do not broadcast, bool input, or ``reduction="mean"`` of integer input; ValueError for
    a bad reduction. The target gets no gradient.
    """
    reduction = _reduction(size_average, reduce, reduction)
    x = input._data
    if x.dtype == np.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    if x.dtype.kind in "iu":
        margin = int(margin)  # PyTorch computes ``margin - x`` in the input's integer type
        if reduction == "mean":
            raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point "
                               f"or complex dtype. Got: {_dtype.from_np(x.dtype)._aten_name}")
    else:
        margin = float(margin)
    return HingeEmbeddingLossBackward.apply(input, target=target._data, margin=margin, reduction=reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight=None, size_average=None, reduce=None,
                                reduction: str = "mean") -> Tensor:
    """Multi-label one-versus-all logistic loss (``F.multilabel_soft_margin_loss``).

    ``-w (y logsigmoid(x) + (1 - y) logsigmoid(-x))`` summed over the input's last dim (``C``) and divided
    by ``C``, then reduced over the remaining dims. target (``{0, 1}`` values, any non-bool dtype) and
    weight (e.g. ``(C,)``) broadcast against the input; all three get gradients; the result dtype is
    their promoted type. NotImplementedError for integer input; RuntimeError for shapes that do not
    broadcast or a bool target; IndexError for 0-d input; ValueError for a bad reduction.
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, "mean")
    x, y = input._data, target._data
    if x.dtype.kind not in "fV":
        raise NotImplementedError(f'"log_sigmoid_cpu" not implemented for \'{_dtype.from_np(x.dtype)._aten_name}\'')
    shape = _bcast(y.shape, x.shape)
    if y.dtype == np.bool_:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    if weight is not None:
        _bcast(shape, weight.shape)
    if x.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not valid")
    rt = _dtype.result_type(*(a for a in (input, target, weight) if a is not None)).np
    return MultilabelSoftMarginLossBackward.apply(input, target, weight, rt=rt, reduction=reduction)
