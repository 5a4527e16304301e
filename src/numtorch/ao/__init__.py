"""``numtorch.ao`` (mirrors ``torch.ao``): only ``ao.quantization``'s eager stubs."""
from . import quantization  # noqa: F401
