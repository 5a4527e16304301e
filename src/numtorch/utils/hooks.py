"""``RemovableHandle`` (mirrors ``torch.utils.hooks.RemovableHandle``)."""
from __future__ import annotations

import weakref

__all__ = ["RemovableHandle"]


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
