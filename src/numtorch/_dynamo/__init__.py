"""``numtorch._dynamo``: the few ``torch._dynamo`` names libraries query. numtorch has no compiler."""
from __future__ import annotations

from ..compiler import disable, is_compiling  # noqa: F401 - torch._dynamo.disable / is_compiling


def is_dynamo_supported() -> bool:
    return False


def reset() -> None:
    pass
