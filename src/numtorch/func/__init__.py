"""``numtorch.func``: function transforms (mirrors ``torch.func``). This branch provides ``vmap``."""
from ._vmap import vmap

__all__ = ["vmap"]
