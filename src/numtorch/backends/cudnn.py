"""``numtorch.backends.cudnn`` (mirrors ``torch.backends.cudnn``): settable flags ``enabled`` (True),
``benchmark`` (False), ``deterministic`` (False), ``allow_tf32`` (True), ``benchmark_limit`` (10);
``is_available()`` is False and ``version()`` None, as in a CPU build of PyTorch."""
from __future__ import annotations

import contextlib

__all__ = ["is_available", "version", "flags", "enabled", "benchmark", "deterministic", "allow_tf32",
           "benchmark_limit"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = 10


def is_available() -> bool:
    return False


def version():
    return None


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Set the flags for the ``with`` block and restore them after (``torch.backends.cudnn.flags``)."""
    g = globals()
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    saved = {n: g[n] for n in names}
    g.update(enabled=enabled, benchmark=benchmark, benchmark_limit=benchmark_limit, deterministic=deterministic,
             allow_tf32=allow_tf32)
    try:
        yield
    finally:
        g.update(saved)
