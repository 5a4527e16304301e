"""Loss kernels: cross entropy, NLL, binary cross entropy, regression, margin and multi-label losses.

Every loss is one ``Op`` that computes the elementwise (or per-sample) loss, applies the reduction
("none", "sum", "mean", "batchmean") and, in backward, scales the hand-derived gradient by the
reduction's factor. ``cross_entropy`` fuses log-softmax with NLL (stable for large logits; the
backward is ``softmax - onehot`` with weights, ignored targets and label smoothing folded in).
The margin losses (``multi_margin_loss``, ``multilabel_margin_loss``, ``hinge_embedding_loss``,
``multilabel_soft_margin_loss``) are complete ``torch.nn.functional`` forms with PyTorch's checks,
re-exported from ``numtorch/nn/functional.py``; the other losses' public forms are there. Shapes of
the margin losses: ``multi_margin_loss``/``multilabel_margin_loss`` take scores ``(N, C)``, ``(C,)``
or ``()``; ``hinge_embedding_loss`` is elementwise (broadcasting); ``multilabel_soft_margin_loss``
sums over the input's last dim.
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd.function import Op
from ..autograd.grad_mode import is_grad_enabled
from ._util import sum_lastdim, unbroadcast
from .scatter import _bcast

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

    def forward(self, x, target, weight, ignore_index, smoothing, reduction):
        self.shape, self.red, self.eps = x.shape, reduction, smoothing
        x2, t = _rows(x, target)
        m, c = x2.shape
        valid = t != ignore_index
        all_valid = bool(valid.all())
        ts = t if all_valid else np.where(valid, t, 0)
        sh = x2 - np.maximum.reduce(x2, axis=1, keepdims=True)
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
        return _class_reduce(loss, reduction, target.shape, self.denom, x.dtype)

    def backward(self, g):
        p, ts, wt, valid, weight = self.saved
        if self._graph:  # the softmax again, from the boxed logits
            sh, _ = _rows(self._graph_args[0], ts)
            ex = np.exp(sh - sh.max(axis=1, keepdims=True))
            p = ex / ex.sum(axis=1, keepdims=True)
        m, c = p.shape
        e = self.eps
        scale = g.reshape(m) if self.red == "none" else (g / self.denom if self.red == "mean" else g)
        with np.errstate(divide="ignore", invalid="ignore"):
            k = np.broadcast_to(scale * wt if wt is not None else scale, (m,))
        if e:
            k = k * (1 - e)
            sv = np.broadcast_to(scale * valid if valid is not None else scale, (m,))
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
        x2, t = _rows(x, target)
        m = x2.shape[0]
        valid = t != ignore_index
        ts = t if valid.all() else np.where(valid, t, 0)
        wt = weight[ts] * valid if weight is not None else valid.astype(x.dtype)
        loss = -x2[np.arange(m), ts] * wt
        self.saved = (ts, wt)
        self.denom = wt.sum()
        self.c = x2.shape[1]
        return _class_reduce(loss, reduction, target.shape, self.denom, x.dtype)

    def backward(self, g):
        ts, wt = self.saved
        m = ts.shape[0]
        scale = g.reshape(m) if self.red == "none" else (g / self.denom if self.red == "mean" else g)
        if self._graph:  # a box cannot be written into an array: a one-hot product instead
            return _unrows((np.arange(self.c) == ts[:, None]) * (-(scale * wt)).reshape(m, 1), self.shape)
        gx = np.zeros((m, self.c), wt.dtype)
        gx[np.arange(m), ts] = -(scale * wt)
        return _unrows(gx, self.shape)


class CrossEntropyProbsBackward0(Op):
    """Cross entropy with class-probability targets ``y`` (same shape as the logits).

    ``loss_i = -sum_c w_c y'_ic logp_ic`` with ``y' = (1-e) y + e/C``; "mean" divides by the row count.
    """

    _saves = (0, 1)
    _graph_recompute = True  # logp and wy are rebuilt from the boxed logits and targets under create_graph

    def forward(self, x, y, weight, smoothing, reduction):
        self.shape, self.red, self.eps = x.shape, reduction, smoothing
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
