"""Loss kernels: cross entropy, NLL, binary cross entropy, regression and pointwise losses.

Every loss is one ``Op`` that computes the elementwise (or per-sample) loss, applies the reduction
("none", "sum", "mean", "batchmean") and, in backward, scales the hand-derived gradient by the
reduction's factor. ``cross_entropy`` fuses log-softmax with NLL (stable for large logits; the
backward is ``softmax - onehot`` with weights, ignored targets and label smoothing folded in).
The public forms are in ``numtorch/nn/functional.py``; the margin and multi-label losses live in
``margin_losses.py``.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Op
from ._util import sum_lastdim, unbroadcast

__all__ = ["binary_cross_entropy_with_logits", "kl_div"]

REDUCTIONS = ("none", "mean", "sum")


def _reduction(size_average, reduce, reduction):
    """PyTorch's mapping of the legacy ``size_average``/``reduce`` flags, with its deprecation warning."""
    if size_average is not None or reduce is not None:
        sa = True if size_average is None else size_average
        red = True if reduce is None else reduce
        reduction = "none" if not red else ("mean" if sa else "sum")
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' "
                      f"instead.", stacklevel=3)
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss, reduction, batch=1):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "batchmean":
        return loss.sum() / batch
    return loss.mean()


def _reduce_grad(g, reduction, shape, batch=1):
    """The gradient of ``_reduce`` w.r.t. each loss element (an array, or a 0-d scale)."""
    if reduction == "none":
        return g
    n = batch if reduction == "batchmean" else (int(np.prod(shape)) if reduction == "mean" else 1)
    return g / n if n != 1 else g


def _fit(grad, shape, lshape):
    """Bring an elementwise gradient (maybe smaller, by broadcasting) to an input's ``shape``."""
    if grad.shape != lshape:
        grad = np.broadcast_to(grad, lshape)
    return unbroadcast(grad, shape)


class _PointLoss(Op):
    """A loss that is elementwise in its (broadcast) positional inputs, then reduced.

    Subclasses give ``_loss(*arrays, **opts)`` and ``_grads(gl, needs, *arrays, **opts)`` returning one
    elementwise gradient (or None) per input, where ``gl`` is the reduced gradient per loss element.
    The option ``weight`` (an array, not differentiated) multiplies the elementwise loss; with
    ``wsum`` the "mean" reduction divides by ``weight.sum()`` instead of the element count.
    """

    def forward(self, *arrays, reduction, batch=1, weight=None, wsum=False, **opts):
        self.saved = arrays
        self.red, self.batch, self.weight, self.opts = reduction, batch, weight, opts
        with np.errstate(divide="ignore", invalid="ignore"):  # also the mean of no elements: NaN, silently
            loss = self._loss(*arrays, **opts)
            if weight is not None:
                loss = loss * weight
                if wsum and reduction == "mean":
                    self.red, self.batch = "batchmean", weight.sum()
            self.lshape = loss.shape
            return _reduce(loss, self.red, self.batch)

    def backward(self, g):
        arrays = self.saved
        gl = _reduce_grad(g, self.red, self.lshape, self.batch)
        if self.weight is not None:
            gl = gl * self.weight
        needs = [e is not None for e in self._edges]
        with np.errstate(divide="ignore", invalid="ignore"):
            grads = self._grads(gl, needs, *arrays, **self.opts)
        return tuple(None if gr is None else _fit(gr.astype(a.dtype, copy=False), a.shape, self.lshape)
                     for gr, a in zip(grads, arrays))


class _DiffLoss(_PointLoss):
    """A loss of ``d = x - y`` alone: ``_f(d, **opts)`` and its derivative ``_df(d, **opts)``."""

    _saves = (0, 1)

    def _loss(self, x, y, **opts):
        return self._f(x - y, **opts)

    def _grads(self, gl, needs, x, y, **opts):
        d = self._df(x - y, **opts) * gl
        return d, (-d if needs[1] else None)


class MseLossBackward0(_DiffLoss):
    @staticmethod
    def _f(d):
        d *= d
        return d

    @staticmethod
    def _df(d):
        return d * 2


class L1LossBackward0(_DiffLoss):
    _f = staticmethod(np.abs)
    _df = staticmethod(np.sign)


class SmoothL1LossBackward0(_DiffLoss):
    @staticmethod
    def _f(d, beta):
        a = np.abs(d)
        if beta == 0:
            return a
        return np.where(a < beta, (0.5 / beta) * a * a, a - 0.5 * beta)

    @staticmethod
    def _df(d, beta):
        return np.sign(d) if beta == 0 else np.where(np.abs(d) < beta, d / beta, np.sign(d))  # as huber


class HuberLossBackward0(_DiffLoss):
    @staticmethod
    def _f(d, delta):
        a = np.abs(d)
        return np.where(a < delta, 0.5 * a * a, delta * (a - 0.5 * delta))

    @staticmethod
    def _df(d, delta):
        return np.where(np.abs(d) < delta, d, delta * np.sign(d))  # not clip: d2/dd2 is 0 at |d| == delta


class SoftMarginLossBackward0(_PointLoss):
    """``log(1 + exp(-y x))``."""

    _saves = (0, 1)

    @staticmethod
    def _loss(x, y):
        return np.logaddexp(0, -y * x).astype(x.dtype, copy=False)

    @staticmethod
    def _grads(gl, needs, x, y):
        s = -gl / (1 + np.exp(y * x))  # d/dz log(1+exp(-z)) = -sigmoid(-z)
        return s * y, (s * x if needs[1] else None)


class BinaryCrossEntropyBackward0(_PointLoss):
    """``-w (y log x + (1 - y) log(1 - x))`` with both logs clamped to ``>= -100`` as in PyTorch."""

    _saves = (0, 1, 2)

    @staticmethod
    def _loss(x, y, w):
        lx = np.maximum(np.log(x), -100)
        l1x = np.maximum(np.log1p(-x), -100)
        loss = -(y * (lx - l1x) + l1x)
        return loss * w if w is not None else loss

    @staticmethod
    def _grads(gl, needs, x, y, w):
        gw = gl * w if w is not None else gl
        gx = gw * (x - y) / np.maximum((1 - x) * x, 1e-12)
        gy = -gw * (np.log(x) - np.log1p(-x)) if needs[1] else None
        return gx, gy, None


class BinaryCrossEntropyWithLogitsBackward0(_PointLoss):
    """``w ((1 - y) x + (1 + (pw - 1) y) softplus(-x))``: stable for any logit."""

    _saves = (0, 1, 2, 3)

    @staticmethod
    def _loss(x, y, w, pw):
        sp = np.logaddexp(0, -x).astype(x.dtype, copy=False)  # softplus(-x) = -log(sigmoid(x))
        loss = (1 - y) * x
        loss += sp if pw is None else (1 + (pw - 1) * y) * sp
        return loss * w if w is not None else loss

    @staticmethod
    def _grads(gl, needs, x, y, w, pw):
        sp = np.logaddexp(0, -x).astype(x.dtype, copy=False)
        gw = gl * w if w is not None else gl
        sig = np.exp(-sp)  # sigmoid(x)
        if pw is None:
            gx = gw * (sig - y)
            gy = -gw * x if needs[1] else None
        else:
            lw = 1 + (pw - 1) * y
            gx = gw * (lw * sig - pw * y)
            gy = gw * ((pw - 1) * sp - x) if needs[1] else None
        gwt = gpw = None
        if len(needs) > 2 and needs[2]:
            gwt = gl * ((1 - y) * x + (sp if pw is None else (1 + (pw - 1) * y) * sp))
        if len(needs) > 3 and needs[3]:
            gpw = gw * y * sp
        return gx, gy, gwt, gpw


class KlDivBackward0(_PointLoss):
    """``y (log y - x)`` (0 where ``y == 0``), or ``exp(y) (y - x)`` for ``log_target``."""

    _saves = (0, 1)

    @staticmethod
    def _loss(x, y, log_target):
        if log_target:
            return np.exp(y) * (y - x)
        ylogy = np.asarray(y * np.log(np.where(y > 0, y, 1)))  # xlogy: 0 where y == 0 (0-d: still an array)
        if (y < 0).any():
            ylogy[y < 0] = np.nan
        return ylogy - y * x

    @staticmethod
    def _grads(gl, needs, x, y, log_target):
        if log_target:
            ey = np.exp(y)
            return -ey * gl, (ey * (y - x + 1) * gl if needs[1] else None)
        return -y * gl, ((np.log(y) + 1 - x) * gl if needs[1] else None)


class MarginRankingLossBackward(_PointLoss):
    """``max(0, -y (x1 - x2) + margin)``."""

    _saves = (0, 1, 2)

    @staticmethod
    def _loss(x1, x2, y, margin):
        return np.maximum(-y * (x1 - x2) + margin, 0)

    @staticmethod
    def _grads(gl, needs, x1, x2, y, margin):
        act = (-y * (x1 - x2) + margin) > 0
        g = -y * act * gl
        return g, (-g if needs[1] else None), (-(x1 - x2) * act * gl if needs[2] else None)


class PoissonNllLossBackward(_PointLoss):
    """``exp(x) - y x`` (log input) or ``x - y log(x + eps)``, plus Stirling's term if ``full``."""

    _saves = (0, 1)

    @staticmethod
    def _loss(x, y, log_input, full, eps):
        loss = np.exp(x) - y * x if log_input else x - y * np.log(x + eps)
        if full:
            ys = np.where(y > 1, y, 2)
            loss = loss + np.where(y > 1, y * np.log(ys) - y + 0.5 * np.log(2 * np.pi * ys), 0)
        return loss.astype(x.dtype, copy=False)

    @staticmethod
    def _grads(gl, needs, x, y, log_input, full, eps):
        gx = (np.exp(x) - y) * gl if log_input else (1 - y / (x + eps)) * gl
        gy = None
        if needs[1]:
            gy = -x if log_input else -np.log(x + eps)
            if full:
                gy = gy + np.where(y > 1, np.log(np.where(y > 1, y, 2)) + 0.5 / np.where(y > 1, y, 2), 0)
            gy = gy * gl
        return gx, gy


# ================================================================================================
# classification with class-index targets: cross entropy (fused) and NLL
# ================================================================================================
def _rows(x, t):
    """``(N, C, *d)`` logits and ``(N, *d)`` targets as ``(M, C)`` rows and ``(M,)`` targets."""
    if x.ndim == 1:
        return x[None], t.reshape(1)
    if x.ndim == 2:
        return x, t
    n, c, s = x.shape[0], x.shape[1], x.size // (x.shape[0] * x.shape[1]) if x.size else int(np.prod(x.shape[2:]))
    return np.moveaxis(x.reshape(n, c, s), 1, 2).reshape(n * s, c), t.reshape(-1)


def _unrows(g2, shape):
    """Inverse of ``_rows`` for a gradient."""
    if len(shape) <= 2:
        return g2.reshape(shape)
    n, c = shape[:2]
    return np.moveaxis(g2.reshape(n, int(np.prod(shape[2:])), c), 2, 1).reshape(shape)


def _nll_name(ndim, reduction):
    """PyTorch's name of the last node of ``nll_loss`` (and so of ``cross_entropy``) for an ``ndim``-d input:
    inputs with spatial dims go through ``nll_loss2d`` (viewed as 4-d, then back for "none")."""
    if ndim <= 2:
        return "NllLossBackward0"
    return "ViewBackward0" if ndim != 4 and reduction == "none" else "NllLoss2DBackward0"


def _class_reduce(loss, reduction, shape, denom, dtype):
    """Per-row losses reduced; "mean" divides by ``denom``, the summed weights (0/0 gives NaN, as in PyTorch)."""
    if reduction == "none":
        return loss.reshape(shape)
    if reduction == "sum":
        return loss.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        return (loss.sum() / denom).astype(dtype)


class CrossEntropyLossBackward0(Op):
    """Fused ``nll_loss(log_softmax(x, 1), target)`` with class weights, ignore_index and label smoothing.

    Per row ``i`` with target ``t``: ``loss_i = (1-e) w_t (-logp_it) + (e/C) sum_c w_c (-logp_ic)``,
    zero for ignored rows; "mean" divides by the summed weights of non-ignored rows. The gradient
    w.r.t. the logits is ``p * K_i - G_ic`` with ``p = softmax(x)``.
    """

    _saves = (0,)  # the logits: create_graph rebuilds the softmax from them
    _graph_recompute = True
    _node_name = "NllLossBackward0"  # PyTorch's graph is log_softmax -> nll_loss (+ the smoothing term: Add)

    def forward(self, x, target, weight, ignore_index, smoothing, reduction):
        self.shape, self.red, self.eps = x.shape, reduction, smoothing
        self._node_name = "AddBackward0" if smoothing else _nll_name(x.ndim, reduction)
        x2, t = _rows(x, target)
        m, c = x2.shape
        if not m:  # no rows: nothing to smooth (and no classes to divide by)
            smoothing = self.eps = 0.0
        valid = t != ignore_index
        all_valid = bool(valid.all())
        ts = t if all_valid else np.where(valid, t, 0)
        sh = x2 - (np.maximum.reduce(x2, axis=1, keepdims=True) if x2.size else x2[:, :1])  # (0, 0): no classes
        p = np.exp(sh)
        s = sum_lastdim(p)
        lse = np.log(s)
        rows = np.arange(m)
        loss = lse[:, 0] - sh[rows, ts]
        wt = None
        if weight is not None:
            wt = weight[ts]
            if not all_valid:
                wt = wt * valid
        elif not all_valid:
            wt = valid.astype(x.dtype)
        if wt is not None:
            loss *= wt
        if smoothing:
            sh -= lse  # now log-probabilities
            smooth = -(sh @ weight) if weight is not None else -sh.sum(1)
            if not all_valid:
                smooth *= valid
            loss *= 1 - smoothing
            loss += (smoothing / c) * smooth
        p /= s
        self.saved = (p, ts, wt, None if all_valid else valid, weight)
        self.denom = wt.sum() if wt is not None else m
        if smoothing and reduction == "mean" and not self.denom:  # PyTorch adds the NLL's 0/0: NaN, not inf
            loss[:] = np.nan
        return _class_reduce(loss, reduction, target.shape, self.denom, x.dtype)

    def backward(self, g):
        with np.errstate(divide="ignore", invalid="ignore"):  # "mean" over a zero weight sum: inf/NaN as PyTorch
            return self._logit_grad(g)

    def _logit_grad(self, g):
        p, ts, wt, valid, weight = self.saved
        if self._graph:  # the softmax again, from the boxed logits
            sh, _ = _rows(self._graph_args[0], ts)
            ex = np.exp(sh - sh.max(axis=1, keepdims=True))
            p = ex / ex.sum(axis=1, keepdims=True)
        m, c = p.shape
        e = self.eps
        scale = g.reshape(m) if self.red == "none" else (g / self.denom if self.red == "mean" else g)
        k = np.broadcast_to(scale * wt if wt is not None else scale, (m,))
        if valid is not None:  # ignored rows get exactly 0, even where "mean" divides by a zero weight sum
            k = np.where(valid, k, 0)
        if e:
            k = k * (1 - e)
            sv = np.where(valid, scale, 0) if valid is not None else np.broadcast_to(scale, (m,))
            ktot = k + sv * ((e / c) * (weight.sum() if weight is not None else c))
        else:
            ktot = k
        gx = p * ktot[:, None]
        gx[np.arange(m), ts] -= k
        if e:
            gx -= (sv * (e / c))[:, None] * (weight if weight is not None else 1)
        return _unrows(gx.astype(p.dtype, copy=False), self.shape)


class NllLossBackward0(Op):
    """``-w_t x[i, t]`` per row (input holds log-probabilities); "mean" divides by the summed weights."""

    _graph_constants = ("saved",)  # targets and their weights: the backward is linear in g alone

    def forward(self, x, target, weight, ignore_index, reduction):
        self.shape, self.red = x.shape, reduction
        if x.ndim > 2:
            self._node_name = _nll_name(x.ndim, reduction)
        x2, t = _rows(x, target)
        m = x2.shape[0]
        valid = t != ignore_index
        ts = t if valid.all() else np.where(valid, t, 0)
        wt = weight[ts] * valid if weight is not None else valid.astype(x.dtype)
        loss = -x2[np.arange(m), ts] * wt
        self.saved = (ts, wt, valid)
        self.denom = wt.sum()
        self.c = x2.shape[1]
        return _class_reduce(loss, reduction, target.shape, self.denom, x.dtype)

    def backward(self, g):
        ts, wt, valid = self.saved
        m = ts.shape[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = g.reshape(m) if self.red == "none" else (g / self.denom if self.red == "mean" else g)
            k = -(scale * wt)
        k = np.where(valid, k, 0)  # ignored rows get exactly 0, even where "mean" divides by a zero weight sum
        if self._graph:  # a box cannot be written into an array: a one-hot product instead
            return _unrows(np.where(np.arange(self.c) == ts[:, None], k.reshape(m, 1), 0), self.shape)
        gx = np.zeros((m, self.c), wt.dtype)
        gx[np.arange(m), ts] = k
        return _unrows(gx, self.shape)


class CrossEntropyProbsBackward0(Op):
    """Cross entropy with class-probability targets ``y`` (same shape as the logits).

    ``loss_i = -sum_c w_c y'_ic logp_ic`` with ``y' = (1-e) y + e/C``; "mean" divides by the row count.
    """

    _saves = (0, 1)
    _graph_recompute = True  # logp and wy are rebuilt from the boxed logits and targets under create_graph
    _node_name = "NegBackward0"  # PyTorch's last step: -sum(w y logp) ("mean" then divides: DivBackward1)

    def forward(self, x, y, weight, smoothing, reduction):
        self.shape, self.red, self.eps = x.shape, reduction, smoothing
        if reduction == "mean":
            self._node_name = "DivBackward1"
        x2, _ = _rows(x, np.zeros(()))
        y2, _ = _rows(y, np.zeros(()))
        m, c = x2.shape
        logp = x2 - x2.max(1, keepdims=True)
        logp -= np.log(np.exp(logp).sum(1, keepdims=True))
        yy = y2 * (1 - smoothing) + smoothing / c if smoothing else y2
        wy = yy * weight if weight is not None else yy
        loss = -np.einsum("ij,ij->i", wy, logp)
        self.saved = (logp, wy, weight)
        self.m = m
        out_shape = x.shape[:1] + x.shape[2:] if x.ndim > 1 else ()
        if reduction == "none":
            return loss.reshape(out_shape)
        return loss.sum() if reduction == "sum" else (loss.sum() / m).astype(x.dtype)

    def backward(self, g):
        logp, wy, weight = self.saved
        m = self.m
        if self._graph:
            (x2, _), (y2, _) = (_rows(a, np.zeros(())) for a in self._graph_args[:2])
            sh = x2 - x2.max(axis=1, keepdims=True)
            logp = sh - np.log(np.exp(sh).sum(axis=1, keepdims=True))
            wy = (y2 * (1 - self.eps) + self.eps / x2.shape[1]) * (1 if weight is None else weight)
        scale = np.broadcast_to(g.reshape(m) if self.red == "none" else (g / m if self.red == "mean" else g), (m,))
        gx = gy = None
        if self._edges[0] is not None:
            gx = np.exp(logp) * (scale * wy.sum(1))[:, None]
            gx -= wy * scale[:, None]
            gx = _unrows(gx.astype(logp.dtype, copy=False), self.shape)
        if self._edges[1] is not None:
            gy = -logp * scale[:, None] * (1 - self.eps)
            if weight is not None:
                gy *= weight
            gy = _unrows(gy.astype(logp.dtype, copy=False), self.shape)
        return gx, gy


# ================================================================================================
# torch.* forms
# ================================================================================================
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight=None, pos_weight=None,
                                     reduction: str = "mean") -> Tensor:
    """``torch.binary_cross_entropy_with_logits`` (``reduction`` as a string here)."""
    return BinaryCrossEntropyWithLogitsBackward0.apply(input, target, weight, pos_weight, reduction=reduction)


def kl_div(input: Tensor, target: Tensor, reduction: str = "mean", log_target: bool = False) -> Tensor:
    """``torch.kl_div``: pointwise ``target * (log(target) - input)`` reduced."""
    return KlDivBackward0.apply(input, target, reduction=reduction, log_target=bool(log_target))
