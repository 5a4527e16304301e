"""Grad-mode switches (mirrors ``torch.autograd.grad_mode``): ``no_grad``, ``enable_grad``,
``set_grad_enabled``, ``inference_mode``. Each works as a context manager and as a decorator.

As in PyTorch the modes are per thread: a thread starts with grad enabled and inference mode off,
and switching them in one thread never changes another's. Anomaly mode, by contrast, is global in
PyTorch and in numtorch (``anomaly_mode.py``).
"""
from __future__ import annotations

import functools
import inspect
import sys
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]


class _ThreadState(threading.local):
    """This thread's modes. Class attributes are every thread's starting values; ``Op.apply`` reads
    ``_State.enabled`` on every call, one attribute read of a C-level thread-local."""

    enabled = True
    inference = False
    vmap = 0  # vmap levels active in this thread; Op.apply routes to ``function.vmap_dispatch`` when set
    fw = False  # a forward AD level is entered (forward_ad.py); Op.apply then takes its slow path
    captured = None  # inside torch.func.grad/vjp/jvp: {id(version counter): ...} of the tensors the function
    #                  captured, which in-place ops must not write (func/_captures.py, _ops/_inplace.py)


_State = _ThreadState()


def is_grad_enabled() -> bool:
    return _State.enabled


def is_inference_mode_enabled() -> bool:
    return _State.inference


def _wrap_generator(ctx_factory, gen_fn):
    """Run each step of the generator inside a fresh context, so the caller's mode is back between
    ``next()`` calls (as ``torch.utils._contextlib._wrap_generator``)."""

    @functools.wraps(gen_fn)
    def generator_context(*args, **kwargs):
        gen = gen_fn(*args, **kwargs)
        try:
            with ctx_factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with ctx_factory():
                        gen.close()
                    raise
                except BaseException:
                    with ctx_factory():
                        response = gen.throw(*sys.exc_info())
                else:
                    with ctx_factory():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value

    return generator_context


class _GradModeContext:
    """Base: subclasses set ``self.mode`` (grad enabled inside); usable as ``with`` block or decorator.

    The previous mode is kept per ``__enter__`` (a stack), so one instance may be entered again,
    and, being thread-local state, from several threads at once.
    """

    mode = True

    def __enter__(self):
        self.__dict__.setdefault("_prev", []).append(_State.enabled)
        _State.enabled = self.mode
        return None

    def __exit__(self, *exc):
        _State.enabled = self._prev.pop()
        return False

    def clone(self):
        return type(self)()

    def __call__(self, fn):
        if inspect.isclass(fn):
            raise TypeError(f"{type(self).__name__} can't decorate a class")
        if inspect.isgeneratorfunction(fn):
            return _wrap_generator(self.clone, fn)

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
    """``torch.set_grad_enabled(mode)``: sets this thread's mode at once (so it works as a plain call);
    as a context it restores the previous mode on exit; as a decorator it restores it at once and
    sets ``mode`` only while the decorated function runs."""

    def __init__(self, mode: bool):
        self._prev = [_State.enabled]
        self.mode = bool(mode)
        _State.enabled = self.mode

    def __call__(self, fn):
        _State.enabled = self._prev[0]  # decorating must not change the mode at import time
        return super().__call__(fn)

    def __enter__(self):
        _State.enabled = self.mode
        return None

    def __exit__(self, *exc):
        _State.enabled = self._prev[0]
        return False

    def clone(self):
        return set_grad_enabled(self.mode)


class inference_mode(_GradModeContext):
    """``torch.inference_mode(mode=True)``: ``no_grad``, and results of ops made inside are inference
    tensors, which autograd refuses to save for backward later (RuntimeError, as in PyTorch).
    ``inference_mode(False)`` turns it off and grad on. Numtorch marks op results only (not factory
    results such as ``torch.ones``)."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # bare ``@torch.inference_mode`` decorates directly, as in PyTorch

    def __init__(self, mode: bool = True):
        self.mode = not mode
        self._inf = bool(mode)

    def __enter__(self):
        self.__dict__.setdefault("_prev_inf", []).append(_State.inference)
        _State.inference = self._inf
        return super().__enter__()

    def __exit__(self, *exc):
        _State.inference = self._prev_inf.pop()
        return super().__exit__(*exc)

    def clone(self):
        return inference_mode(self._inf)
