"""``numtorch.fx``: importable, without symbolic tracing.

Libraries mark functions as leaves of an FX trace with ``torch.fx.wrap`` at import time (torchvision
does); that returns its argument. ``Tracer``, ``Graph`` and ``GraphModule`` exist as classes so
subclasses can be declared, and raise NotImplementedError when made: numtorch has no FX tracer.
"""
from __future__ import annotations

__all__ = ["wrap", "Tracer", "Graph", "GraphModule", "Proxy", "Node"]


def wrap(fn_or_name):
    """Declare a function an FX leaf; returns it unchanged (numtorch never traces)."""
    return fn_or_name


class _NoFX:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"torch.fx.{type(self).__name__}: numtorch has no FX symbolic tracing")


class Tracer(_NoFX):
    pass


class Graph(_NoFX):
    pass


class GraphModule(_NoFX):
    pass


class Proxy(_NoFX):
    pass


class Node(_NoFX):
    pass
