"""``numtorch.nn.parallel`` (mirrors ``torch.nn.parallel``): DataParallel and DistributedDataParallel.

``DataParallel`` is PyTorch's no-GPU behaviour (it wraps the module as child ``module`` and calls it
unchanged, so state_dict keys gain a ``module.`` prefix). ``DistributedDataParallel`` is implemented in
``numtorch/distributed/_ddp.py`` (it needs the collectives, a higher layer), which replaces the
placeholder below with itself when ``numtorch`` is imported.
"""
from __future__ import annotations

from ..modules.module import Module

__all__ = ["DataParallel", "DistributedDataParallel"]


class DataParallel(Module):
    """``torch.nn.DataParallel(module, device_ids=None, output_device=None, dim=0)`` with no GPUs:
    ``forward`` calls ``module`` with the same arguments; ``device_ids`` is ``[]``."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []
        self.output_device = None
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    """Placeholder until ``numtorch.distributed`` installs the real class (``import numtorch`` does): raises
    ValueError, as PyTorch does without an initialized default process group."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True, *args,
                 **kwargs):
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
