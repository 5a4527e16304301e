"""Hook handles (mirrors ``torch.utils.hooks.RemovableHandle``), shared by every ``register_*hook``.

Hooks live in ordered dicts keyed by the handle's id: on tensors and graph nodes (autograd), on
modules (nn) and optimizers (optim). ``add_hook`` files a hook and returns its handle; the handle
holds its dicts weakly. ``numtorch.utils.hooks`` re-exports ``RemovableHandle`` under PyTorch's
public path.
"""
from __future__ import annotations

import weakref

__all__ = ["RemovableHandle", "add_hook"]


class RemovableHandle:
    """Handle returned by every ``register_*_hook``: ``.remove()`` or use as a context manager.

    Holds the hooks dict(s) weakly so that a handle never keeps a module or tensor alive.
    """

    _next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1
        extras = extra_dict if isinstance(extra_dict, (list, tuple)) else ([extra_dict] if extra_dict is not None else [])
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(r() for r in self.extra_dict_ref))

    def __setstate__(self, state):
        d, self.id, extras = state
        self.hooks_dict_ref = weakref.ref(d if d is not None else {})
        self.extra_dict_ref = tuple(weakref.ref(e) for e in extras if e is not None)


def add_hook(hooks, hook, extra=None) -> RemovableHandle:
    """File ``hook`` in the ordered dict ``hooks`` and return its handle; ``extra``: dict(s) of per-hook
    flags (``with_kwargs``, ``always_call``...) that ``remove()`` also clears."""
    handle = RemovableHandle(hooks, extra_dict=extra)
    hooks[handle.id] = hook
    return handle
