"""Instance normalization (mirrors ``torch/nn/modules/instancenorm.py``): InstanceNorm1d/2d/3d.

Each ``(sample, channel)`` slice is normalized over its own spatial dims (biased variance). The
state is BatchNorm's (``_NormBase``) with other defaults: ``affine=False`` and
``track_running_stats=False``, so by default there are no parameters, no buffers and train and eval
behave the same. With ``track_running_stats`` the buffers ``running_mean``/``running_var`` are
updated in training with the batch average of the per-instance statistics (unbiased variance) and
used in evaluation; ``num_batches_tracked`` exists (for checkpoints) but is never advanced, as in
PyTorch. Unbatched inputs (one dim fewer) are normalized as a batch of one.
"""
from __future__ import annotations

import warnings

from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    _no_batch_dim = 0  # the rank of an unbatched input: (C, *spatial)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype,
                         bias=bias)

    def _check_input_dim(self, input) -> None:
        nd = self._no_batch_dim
        if input.dim() not in (nd, nd + 1):
            raise ValueError(f"expected {nd}D or {nd + 1}D input (got {input.dim()}D input)")

    def _apply_instance_norm(self, input):
        # instance statistics in training, and always when no running statistics are kept
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        # checkpoints without a version (before PyTorch 0.4) may carry running statistics that a
        # module with track_running_stats=False no longer has: report them and drop them
        version = local_metadata.get("version", None)
        if version is None and not self.track_running_stats:
            keys = [prefix + name for name in ("running_mean", "running_var") if prefix + name in state_dict]
            if keys:
                klass = type(self).__name__
                names = " and ".join(f'"{k}"' for k in keys)
                error_msgs.append(
                    f"Unexpected running stats buffer(s) {names} for {klass} with track_running_stats=False. If "
                    f"state_dict is a checkpoint saved before 0.4.0, this may be expected because {klass} does "
                    f"not track running stats by default since 0.4.0. Please remove these keys from state_dict. "
                    f"If the running stats are actually needed, instead set track_running_stats=True in {klass} "
                    f"to enable them. See the documentation of {klass} for details.")
                for k in keys:
                    state_dict.pop(k)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          f"warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance norm over ``(N, C, L)`` or unbatched ``(C, L)`` (``torch.nn.InstanceNorm1d``).

    Args: ``num_features`` (C), ``eps=1e-5``, ``momentum=0.1`` (None: 0, the running statistics stay put),
    ``affine=False`` (learnable per-channel ``weight`` of ones and ``bias`` of zeros), ``track_running_stats=False``,
    ``device``, ``dtype``, keyword ``bias=True``. ValueError for other ranks, for a channel count other than
    ``num_features`` when ``affine`` (a UserWarning otherwise), and for one value per instance in training.
    """

    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance norm over ``(N, C, H, W)`` or unbatched ``(C, H, W)`` (``torch.nn.InstanceNorm2d``); arguments
    and errors as InstanceNorm1d."""

    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance norm over ``(N, C, D, H, W)`` or unbatched ``(C, D, H, W)`` (``torch.nn.InstanceNorm3d``);
    arguments and errors as InstanceNorm1d."""

    _no_batch_dim = 4


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """``InstanceNorm1d`` whose ``num_features`` is read from the first input (``torch.nn.LazyInstanceNorm1d``;
    ``affine`` and ``track_running_stats`` default to True, as there)."""
    cls_to_become = InstanceNorm1d
    _no_batch_dim = 2


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """``InstanceNorm2d`` whose ``num_features`` is read from the first input (``torch.nn.LazyInstanceNorm2d``)."""
    cls_to_become = InstanceNorm2d
    _no_batch_dim = 3


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """``InstanceNorm3d`` whose ``num_features`` is read from the first input (``torch.nn.LazyInstanceNorm3d``)."""
    cls_to_become = InstanceNorm3d
    _no_batch_dim = 4
