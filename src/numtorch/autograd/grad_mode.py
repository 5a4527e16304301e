"""Grad-mode switches (mirrors ``torch.autograd.grad_mode``): ``no_grad``, ``enable_grad``,
``set_grad_enabled``, ``inference_mode``. Each works as a context manager and as a decorator.
"""
from __future__ import annotations

import functools
import inspect

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]


class _State:
    enabled = True  # read on every op; a class attribute is the cheapest global to read
    inference = False


def is_grad_enabled() -> bool:
    return _State.enabled


def is_inference_mode_enabled() -> bool:
    return _State.inference


class _GradModeContext:
    """Base: subclasses set ``self.mode``; usable as ``with`` block or as a decorator."""

    mode = True

    def __enter__(self):
        self._prev = _State.enabled
        _State.enabled = self.mode
        return None

    def __exit__(self, *exc):
        _State.enabled = self._prev
        return False

    def clone(self):
        return type(self)()

    def __call__(self, fn):
        if inspect.isclass(fn):
            raise TypeError(f"{type(self).__name__} can't decorate a class")
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def gen_wrapper(*args, **kwargs):
                with self.clone():
                    yield from fn(*args, **kwargs)
            return gen_wrapper

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradModeContext):
    """Disable gradient recording (``torch.no_grad``): results of ops have ``requires_grad=False``."""

    mode = False

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)  # bare ``@torch.no_grad`` decorates directly, as in PyTorch


class enable_grad(_GradModeContext):
    """Re-enable gradient recording inside a ``no_grad`` block (``torch.enable_grad``)."""

    mode = True

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class set_grad_enabled(_GradModeContext):
    """``torch.set_grad_enabled(mode)``: sets the mode at once; as a context it restores on exit."""

    def __init__(self, mode: bool):
        self._prev = _State.enabled
        self.mode = bool(mode)
        _State.enabled = self.mode

    def __enter__(self):
        return None

    def clone(self):
        return set_grad_enabled(self.mode)


class inference_mode(_GradModeContext):
    """``torch.inference_mode(mode=True)``: like ``no_grad`` on this backend."""

    def __init__(self, mode: bool = True):
        self.mode = not mode
        self._inf = bool(mode)

    def __enter__(self):
        self._prev_inf = _State.inference
        _State.inference = self._inf
        return super().__enter__()

    def __exit__(self, *exc):
        _State.inference = self._prev_inf
        return super().__exit__(*exc)

    def clone(self):
        return inference_mode(self._inf)
