"""``AdaptiveLogSoftmaxWithLoss`` (mirrors ``torch/nn/modules/adaptive.py``; Grave et al., "Efficient
softmax approximation for GPUs").

Classes are split by ``cutoffs`` into a frequent shortlist and rarer clusters. The head is a linear
layer over the shortlist plus one logit per cluster; each cluster has its own small two-layer
projection (its hidden size shrinks by ``div_value`` per cluster). ``log p(class)`` is the head's
log-probability for a shortlist class, else the head's log-probability of the class's cluster plus
the class's log-probability within that cluster.
"""
from __future__ import annotations

import collections
from itertools import pairwise

from ..._ops.reduction import argmax
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = collections.namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """``AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, div_value=4.0, head_bias=False)``.

    ``forward(input, target)`` with input ``(N, in_features)`` and int64 target ``(N,)`` (or ``(in_features,)``
    and ``()``) returns ``(output, loss)``: each target's log-probability ``(N,)`` and the mean negative
    log-likelihood. ``log_prob(input)`` gives all ``(N, n_classes)`` log-probabilities; ``predict(input)`` the
    most likely class.

    Raises ValueError for empty cutoffs or cutoffs that are not unique increasing integers in
    ``[1, n_classes - 1]``; RuntimeError (as PyTorch) for mismatched shapes or targets out of range.
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs, div_value: float = 4.0, head_bias: bool = False,
                 device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing order, "
                             "where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory_kwargs)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **factory_kwargs),
                                        Linear(hidden, size, bias=False, **factory_kwargs)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        if target_.dim() == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        output = input.new_zeros(target.size(0))
        head_index = target.new_empty(target.size(0))  # which head logit each row reads
        used = 0
        bounds = [0] + self.cutoffs
        for i, (low, high) in enumerate(pairwise(bounds)):
            mask = (target >= low) & (target < high)
            rows = mask.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if i == 0:  # shortlist: the head's own logit
                head_index.index_copy_(0, rows, target[mask])
            else:  # cluster i: the head's cluster logit, plus the class within the cluster
                cluster_logprob = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
                head_index.index_fill_(0, rows, self.shortlist_size + i - 1)
                within = cluster_logprob.gather(1, (target[mask] - low).unsqueeze(1))
                output.index_copy_(0, rows, within.squeeze(1))
            used += rows.numel()
        if used != target.size(0):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output += head_logprob.gather(1, head_index.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _get_full_log_prob(self, input, head_output):
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for i, (start, stop) in enumerate(pairwise(self.cutoffs)):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input):
        """Log-probabilities of every class: ``(N, in_features)`` -> ``(N, n_classes)``."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each row, ``(N,)``; the clusters are only evaluated for rows whose
        best head logit is a cluster."""
        head_output = self.head(input)
        output = argmax(head_output, dim=1)
        outside = output >= self.shortlist_size
        if not outside.any():
            return output
        if outside.all():
            return argmax(self._get_full_log_prob(input, head_output), dim=1)
        output[outside] = argmax(self._get_full_log_prob(input[outside], head_output[outside]), dim=1)
        return output
