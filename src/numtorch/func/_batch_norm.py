"""``torch.func.replace_all_batch_norm_modules_``: batch norm without running statistics, so that a
model can run under vmap (each sample's statistics must not be written into shared buffers)."""
from __future__ import annotations

__all__ = ["replace_all_batch_norm_modules_"]


def _is_batch_norm(m):
    # PyTorch tests isinstance(m, nn.modules.batchnorm._BatchNorm) (BatchNorm1d/2d/3d, SyncBatchNorm,
    # not InstanceNorm); this package sits below nn, so it looks for that base class by name
    return any(c.__name__ == "_BatchNorm" and c.__module__.endswith("batchnorm") for c in type(m).__mro__)


def replace_all_batch_norm_modules_(root):
    """In place: every batch-norm module in ``root`` (``root`` included) that tracks running stats gets
    ``running_mean``, ``running_var`` and ``num_batches_tracked`` set to None and
    ``track_running_stats=False``. Returns ``root``."""
    for m in root.modules():
        if _is_batch_norm(m) and m.track_running_stats:
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root
