"""``numtorch.utils.model_zoo`` (mirrors ``torch.utils.model_zoo``): ``load_url`` and ``tqdm``.

``load_url`` is ``torch.hub.load_state_dict_from_url`` (offline: it loads from the hub cache). hub
sits above utils in numtorch's layers, so it installs itself here when imported (``import numtorch``
always imports it). ``tqdm`` is the tqdm package's progress bar, or a silent stand-in without it.
"""
from __future__ import annotations

__all__ = ["load_url", "tqdm"]

try:
    from tqdm import tqdm
except ImportError:  # tqdm is optional
    class tqdm:  # noqa: N801 - the name PyTorch exports
        """Stand-in progress bar (tqdm is not installed): counts and prints nothing."""

        def __init__(self, total=None, disable=False, unit=None, *args, **kwargs):
            self.total, self.n = total, 0

        def update(self, n):
            self.n += n

        def close(self):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

_hub_loader = None  # set by numtorch.hub: its load_state_dict_from_url


def load_url(url, model_dir=None, map_location=None, progress=True, check_hash=False, file_name=None,
             weights_only=False):
    """``torch.hub.load_state_dict_from_url`` (see ``numtorch.hub``)."""
    return _hub_loader(url, model_dir, map_location, progress, check_hash, file_name, weights_only)
