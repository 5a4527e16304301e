"""``numtorch.utils`` (mirrors ``torch.utils``): data loading, hooks, safetensors."""
from . import data, dlpack, hooks
