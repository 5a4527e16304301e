"""``numtorch.compiler`` (mirrors ``torch.compiler``): numtorch has no compiler, so nothing is ever compiling."""
from __future__ import annotations

__all__ = ["is_compiling", "is_dynamo_compiling", "disable", "reset"]


def is_compiling() -> bool:
    return False


def is_dynamo_compiling() -> bool:
    return False


def disable(fn=None, recursive=True, *, reason=None):
    """Decorator that keeps ``fn`` out of compilation; with no compiler it returns ``fn``."""
    return fn if fn is not None else (lambda f: f)


def reset() -> None:
    pass
