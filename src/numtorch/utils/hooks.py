"""``torch.utils.hooks``: PyTorch's public path for ``RemovableHandle``, which lives in
``numtorch/autograd/hooks.py`` (the autograd core and nn import it from there)."""
from ..autograd.hooks import RemovableHandle

__all__ = ["RemovableHandle"]
