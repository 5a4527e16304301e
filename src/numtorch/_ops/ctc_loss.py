"""Connectionist temporal classification loss (``F.ctc_loss``; Graves et al., 2006).

For each sample, ``-log p(target | log_probs)`` summed over every alignment of the target to the
input frames, where an alignment may repeat labels and insert ``blank``s. The forward pass is the
alpha recursion over the extended target ``l' = (blank, l1, blank, l2, ..., blank)`` in log space
(one NumPy step per frame for the whole batch); the backward pass runs the beta recursion and gives
PyTorch's gradient ``exp(lp) - exp(logsumexp_{s: l'_s = c}(alpha + beta) + nll - lp)``, which is the
gradient with respect to ``log_probs`` taken as the output of a ``log_softmax`` (as in ATen).
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make
from ..autograd.function import Op
from .reduction import mean

__all__: list = []  # reached through nn.functional, as in PyTorch

_NEG_INF = -np.inf


def _lse(*xs):
    """Elementwise log(sum(exp)) of arrays that may hold -inf."""
    m = np.maximum.reduce(xs)
    safe = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide="ignore"):
        return np.where(np.isfinite(m), safe + np.log(sum(np.exp(x - safe) for x in xs)), m)


class CtcLossBackward0(Op):
    """Per-sample negative log-likelihoods ``(N,)`` of ``log_probs`` ``(T, N, C)``."""

    def forward(self, lp, *, targets, in_lens, tgt_lens, blank, zero_infinity):
        T, N, C = lp.shape
        S = int(tgt_lens.max(initial=0))
        ext = np.full((N, 2 * S + 1), blank, np.int64)  # the extended targets l'
        ext[:, 1::2] = targets[:, :S]
        ext_len = 2 * tgt_lens + 1
        pos = np.arange(2 * S + 1)
        valid = pos[None, :] < ext_len[:, None]
        # a state may be entered from two back when it is a label different from the label two back
        skip = np.zeros_like(valid)
        skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
        emit = np.take_along_axis(lp.transpose(1, 0, 2), ext[:, None, :].repeat(T, 1), axis=2)  # (N, T, 2S+1)
        alpha = np.full((T, N, 2 * S + 1), _NEG_INF, lp.dtype)
        alpha[0, :, 0] = emit[:, 0, 0]
        alpha[0, :, 1] = np.where(ext_len > 1, emit[:, 0, 1], _NEG_INF)
        for t in range(1, T):
            prev = alpha[t - 1]
            one = np.concatenate([np.full((N, 1), _NEG_INF, lp.dtype), prev[:, :-1]], 1)
            two = np.where(skip, np.concatenate([np.full((N, 2), _NEG_INF, lp.dtype), prev[:, :-2]], 1), _NEG_INF)
            alpha[t] = np.where(valid, _lse(prev, one, two) + emit[:, t], _NEG_INF)
        last = alpha[in_lens - 1, np.arange(N)]  # (N, 2S+1) at each sample's last frame
        end = np.take_along_axis(last, (ext_len - 1)[:, None], 1)[:, 0]
        end2 = np.where(ext_len > 1, np.take_along_axis(last, np.maximum(ext_len - 2, 0)[:, None], 1)[:, 0], _NEG_INF)
        nll = -_lse(end, end2)
        self.saved = (lp, alpha, emit, ext, ext_len, valid, skip, in_lens, nll)
        self.zero_infinity = zero_infinity
        return np.where(zero_infinity & np.isinf(nll), 0, nll).astype(lp.dtype)

    def backward(self, g):
        lp, alpha, emit, ext, ext_len, valid, skip, in_lens, nll = self.saved
        T, N, C = lp.shape
        L = ext.shape[1]
        beta = np.full((T, N, L), _NEG_INF, lp.dtype)
        ar = np.arange(N)
        t_last = in_lens - 1
        beta[t_last, ar, ext_len - 1] = emit[ar, t_last, ext_len - 1]
        has2 = ext_len > 1
        beta[t_last[has2], ar[has2], ext_len[has2] - 2] = emit[ar[has2], t_last[has2], ext_len[has2] - 2]
        skip_next = np.zeros_like(skip)
        skip_next[:, :-2] = skip[:, 2:]  # state s may jump to s + 2
        for t in range(T - 2, -1, -1):
            nxt = beta[t + 1]
            one = np.concatenate([nxt[:, 1:], np.full((N, 1), _NEG_INF, lp.dtype)], 1)
            two = np.where(skip_next, np.concatenate([nxt[:, 2:], np.full((N, 2), _NEG_INF, lp.dtype)], 1), _NEG_INF)
            upd = np.where(valid, _lse(nxt, one, two) + emit[:, t], _NEG_INF)
            active = (t < t_last)[:, None]
            beta[t] = np.where(active, upd, beta[t])
        ab = alpha + beta  # (T, N, L), the log-probability of passing state s at frame t (emission counted twice)
        lcab = np.full((T, N, C), _NEG_INF, lp.dtype)
        for s in range(L):  # group the states by the class they emit
            idx = ext[:, s]
            cur = lcab[:, ar, idx]
            lcab[:, ar, idx] = _lse(cur, ab[:, :, s])
        with np.errstate(over="ignore", invalid="ignore"):
            grad = np.exp(lp) - np.exp(lcab + nll[None, :, None] - lp)
        frames = np.arange(T)[:, None] < in_lens[None, :]
        grad = np.where(frames[:, :, None], grad, 0)
        if self.zero_infinity:
            grad = np.where(np.isinf(nll)[None, :, None], 0, grad)
        return (grad * g[None, :, None]).astype(lp.dtype)


def _lengths(x, name, n):
    arr = np.asarray(x._data if isinstance(x, Tensor) else x, dtype=np.int64).reshape(-1)
    if arr.shape[0] != n:
        raise RuntimeError(f"{name} must be of size batch_size")
    return arr


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """``F.ctc_loss``: ``log_probs`` ``(T, N, C)`` (or ``(T, C)``) log-probabilities, ``targets`` ``(N, S)``
    padded or 1-D concatenated (``sum(target_lengths)``), lengths as tensors or sequences of ints.
    ``reduction``: ``'mean'`` (each loss divided by its target length, then the batch mean), ``'sum'`` or
    ``'none'`` (``(N,)``). Impossible alignments give inf (0 with ``zero_infinity``, and zero gradients).

    Raises ValueError for an unknown reduction; RuntimeError with PyTorch's messages for empty
    ``log_probs``, a ``blank`` outside ``[0, C)``, lengths of the wrong size or out of range, or targets
    too short.
    """
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.ndim == 2
    lp_t = log_probs.unsqueeze(1) if unbatched else log_probs
    T, N, C = lp_t.shape
    if lp_t._data.size == 0:
        raise RuntimeError("log_probs tensor must not be empty")
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    in_lens = _lengths(input_lengths, "input_lengths", N)
    tgt_lens = _lengths(target_lengths, "target_lengths", N)
    tg = targets._data.astype(np.int64)
    if unbatched and tg.ndim == 1:
        tg = tg[None]
    where = " (while checking arguments for ctc_loss_allocate_outputs)"
    if (tgt_lens < 0).any():
        raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {tgt_lens.min()}" + where)
    if (in_lens < 0).any():
        raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {in_lens.min()}" + where)
    if (in_lens > T).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {in_lens.max()}" + where)
    if tg.ndim == 1:  # concatenated targets
        if tg.shape[0] != tgt_lens.sum():
            raise RuntimeError(f"Expected tensor to have size {tgt_lens.sum()} at dimension 0, but got size "
                               f"{tg.shape[0]} for argument #2 'targets'" + where)
        starts = np.concatenate([[0], np.cumsum(tgt_lens)[:-1]])
        padded = np.zeros((N, int(tgt_lens.max(initial=0))), np.int64)
        for i, (s, n) in enumerate(zip(starts, tgt_lens)):
            padded[i, :n] = tg[s:s + n]
        tg = padded
    elif tg.shape[1] < tgt_lens.max(initial=0):
        raise RuntimeError(f"Expected tensor to have size at least {tgt_lens.max()} at dimension 1, but got size "
                           f"{tg.shape[1]} for argument #2 'targets'" + where)
    losses = CtcLossBackward0.apply(lp_t, targets=tg, in_lens=in_lens, tgt_lens=tgt_lens, blank=int(blank),
                                    zero_infinity=bool(zero_infinity))
    if unbatched:
        losses = losses.squeeze(0)
    if reduction == "mean":
        lens = _make(np.maximum(tgt_lens, 1).astype(losses._data.dtype).reshape(losses._data.shape))
        return mean(losses / lens)
    return losses.sum() if reduction == "sum" else losses
