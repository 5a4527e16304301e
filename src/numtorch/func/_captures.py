"""The tensors a function under ``grad``/``vjp``/``jvp`` captured, which it must not write in place.

PyTorch's grad transforms wrap the tensors made inside the transform; an in-place op on a tensor that
is not wrapped at the current level (one the function captured from outside) raises "During a grad
(vjp, jvp, grad, etc) transform, the function provided attempted to call in-place operation ... that
would mutate a captured Tensor" (functorch's ``checkForInvalidMutationOnCaptures``).

numtorch has no per-level wrappers, so it finds the captured tensors when the transform starts: the
tensors the function reaches through its closure cells, the global names its code uses, its
defaults, a bound method's object and a ``functools.partial``'s arguments, walking into nested
functions, lists/tuples/dicts and module-like objects (``_parameters``/``_buffers``/``_modules``/
attributes). Their version counters (shared by views and ``detach()``) are kept in
``_State.captured`` while the function runs; ``_ops/_inplace.check_captured`` raises for a write to
one. Tensors passed to the transform as arguments are not captured. A tensor reached some other way
(through an object the function gets from a call) is not found; that write goes through silently.
"""
from __future__ import annotations

import contextlib
import functools
import types

from .._tensor import Tensor
from ..autograd.grad_mode import _State
from . import _batched as _B

__all__ = ["no_captured_writes"]

_DEPTH = 4  # how deep containers and objects are walked


def _walk(x, found, seen, depth):
    if isinstance(x, Tensor):
        t = _B.unwrap_physical(x)
        found[id(t._vc)] = t._vc
        return
    if depth <= 0 or id(x) in seen or isinstance(x, (str, bytes, int, float, complex, bool, type(None), type,
                                                          types.ModuleType)):
        return
    seen.add(id(x))
    if isinstance(x, functools.partial):
        for v in (x.func, *x.args, *x.keywords.values()):
            _walk(v, found, seen, depth)
    elif isinstance(x, types.MethodType):
        _walk(x.__self__, found, seen, depth - 1)
        _walk(x.__func__, found, seen, depth)
    elif isinstance(x, types.FunctionType):
        for c in x.__closure__ or ():
            try:
                _walk(c.cell_contents, found, seen, depth - 1)
            except ValueError:  # an empty cell
                pass
        g = x.__globals__
        for name in _names(x.__code__):
            if name in g:
                _walk(g[name], found, seen, depth - 1)
        for v in x.__defaults__ or ():
            _walk(v, found, seen, depth - 1)
    elif type(x) in (list, tuple, set, frozenset):
        for v in x:
            _walk(v, found, seen, depth - 1)
    elif type(x) is dict:
        for v in x.values():
            _walk(v, found, seen, depth - 1)
    else:
        d = getattr(x, "__dict__", None)
        if type(d) is dict:  # an object (an nn.Module: its _parameters, _buffers, _modules dicts)
            for v in d.values():
                _walk(v, found, seen, depth - 1)


def _names(code):
    """The global names ``code`` and the code objects nested in it use."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _names(c)
    return names


@contextlib.contextmanager
def no_captured_writes(func, args):
    """While the block runs, an in-place write to a tensor ``func`` captured raises PyTorch's RuntimeError.
    ``args``: the transform's inputs (a pytree's flat leaves), never counted as captured."""
    found = {}
    _walk(func, found, set(), _DEPTH)
    for a in args:
        if isinstance(a, Tensor):
            found.pop(id(_B.unwrap_physical(a)._vc), None)
    prev = _State.captured
    _State.captured = {**prev, **found} if prev else found
    try:
        yield
    finally:
        _State.captured = prev
