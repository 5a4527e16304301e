"""``numtorch.utils._pytree`` (mirrors ``torch.utils._pytree``): flatten nested containers to leaves and
a ``TreeSpec``, rebuild them, map over them. The implementation lives in ``numtorch.func._pytree``
(torch.func's transforms use it, and they sit below ``utils`` in the import layers)."""
from __future__ import annotations

from ..func._pytree import *  # noqa: F401,F403
from ..func._pytree import SUPPORTED_NODES, __all__  # noqa: F401
