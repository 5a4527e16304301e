"""Batch normalization (mirrors ``torch/nn/modules/batchnorm.py``): BatchNorm1d/2d/3d, SyncBatchNorm.

State: ``weight``/``bias`` (``affine``), and with ``track_running_stats`` the buffers
``running_mean`` (zeros), ``running_var`` (ones) and ``num_batches_tracked`` (int64 0-d). Training
normalizes with the batch statistics (biased variance) and updates the running ones in place
(unbiased variance): ``r = (1 - m) r + m batch`` with ``m = momentum``, or ``m = 1 / num_batches_tracked``
(a cumulative average) when ``momentum`` is None. Evaluation normalizes with the running statistics.
"""
from __future__ import annotations

from ..._ops.creation import empty, ones, tensor, zeros
from ..._dtype import int64
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "SyncBatchNorm"]

# Set by ``distributed/_sync_batch_norm.py`` (nn cannot import distributed): ``sync_world_size(group)``,
# the ranks to synchronize with (1 without a process group), and ``sync_batch_norm(input, weight, bias,
# running_mean, running_var, eps, momentum, group, world_size)``, the cross-rank batch norm.
sync_world_size = None
sync_batch_norm = None


class _NormBase(Module):
    """Parameters, buffers, reset and checkpoint upgrade shared by the batch norms."""

    _version = 2  # version 2 added num_batches_tracked
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = Parameter(empty(num_features, **factory_kwargs))
            if bias:
                self.bias = Parameter(empty(num_features, **factory_kwargs))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, **factory_kwargs))
            self.register_buffer("running_var", ones(num_features, **factory_kwargs))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        # checkpoints written before version 2 have no counter: keep ours (or start at 0) instead of
        # reporting a missing key
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                                   else tensor(0, dtype=int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        # batch statistics in training, and in eval too when there are no running statistics
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_running else None,
                            self.running_var if use_running else None, self.weight, self.bias, bn_training,
                            factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch norm over ``(N, C)`` or ``(N, C, L)`` per channel C (``torch.nn.BatchNorm1d``).

    Args: ``num_features`` (C), ``eps=1e-5``, ``momentum=0.1`` (None: cumulative average), ``affine=True``,
    ``track_running_stats=True``, ``device``, ``dtype``, keyword ``bias=True``. ValueError for other ranks.
    """

    def _check_input_dim(self, input) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch norm over ``(N, C, H, W)`` per channel (``torch.nn.BatchNorm2d``); arguments as BatchNorm1d."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch norm over ``(N, C, D, H, W)`` per channel (``torch.nn.BatchNorm3d``); arguments as BatchNorm1d."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """``num_features`` from the first input's dim 1; built with no tensors (affine and running stats off),
    then placeholders for the ones asked for."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None) -> None:
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """``BatchNorm1d`` whose ``num_features`` is read from the first input (``torch.nn.LazyBatchNorm1d``)."""
    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """``BatchNorm2d`` whose ``num_features`` is read from the first input (``torch.nn.LazyBatchNorm2d``)."""
    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """``BatchNorm3d`` whose ``num_features`` is read from the first input (``torch.nn.LazyBatchNorm3d``)."""
    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


class SyncBatchNorm(_BatchNorm):
    """Batch norm whose training statistics are those of the whole batch across all ranks of
    ``process_group`` (``torch.nn.SyncBatchNorm``); inputs ``(N, C, *)``. Arguments as BatchNorm1d plus
    ``process_group`` (default: the world). Without an initialized process group, in eval mode, or on
    one rank it is BatchNorm. PyTorch runs it on GPUs only (ValueError for CPU tensors); numtorch runs
    it on CPU (see docs/distributed.md). ValueError for inputs of fewer than 2 dims or 0 channels.
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype)
        self.process_group = process_group

    def _check_input_dim(self, input) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        world = sync_world_size(self.process_group) if bn_training and self.training and sync_world_size else 1
        if world <= 1:
            return super().forward(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        use_running = self.track_running_stats
        return sync_batch_norm(input, self.weight, self.bias, self.running_mean if use_running else None,
                               self.running_var if use_running else None, self.eps, factor, self.process_group,
                               world)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm*D replaced by a SyncBatchNorm sharing its parameters and buffers
        (returns a new module when ``module`` itself is a batch norm)."""
        out = module
        if isinstance(module, _BatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                      process_group)
            if module.affine:
                out.weight, out.bias = module.weight, module.bias
            out.running_mean, out.running_var = module.running_mean, module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
