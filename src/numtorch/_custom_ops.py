"""``numtorch._custom_ops`` (mirrors the ``torch._custom_ops`` names libraries import): ``get_ctx``."""
from .library import get_ctx  # noqa: F401
