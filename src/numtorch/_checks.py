"""``torch._assert`` and the ``torch._check*`` family, which library code uses for argument checks.

``_check(cond, message=None)`` raises RuntimeError when ``cond`` is false; ``message`` is a callable
returning the text (so building it costs nothing when the check passes). ``_check_value``,
``_check_type``, ``_check_index`` and ``_check_not_implemented`` raise ValueError, TypeError,
IndexError and NotImplementedError. ``_assert(cond, message)`` is ``assert cond, message``.
"""
from __future__ import annotations

__all__ = ["_assert", "_check", "_check_value", "_check_type", "_check_index", "_check_not_implemented",
           "_check_with"]


def _assert(condition, message):
    """``assert condition, message`` (kept as a function so traced programs can record it in PyTorch)."""
    assert condition, message


def _check_with(error_type, cond, message=None):
    if not isinstance(cond, bool) and not hasattr(cond, "__bool__"):
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if bool(cond):
        return
    if message is None:
        text = ("Expected cond to be True, but got False. (Could this error message be improved? If so, "
                "please report an enhancement request to PyTorch.)")
    else:
        if not callable(message):
            raise TypeError("message must be a callable")
        text = str(message())
    raise error_type(text)


def _check(cond, message=None):
    _check_with(RuntimeError, cond, message)


def _check_value(cond, message=None):
    _check_with(ValueError, cond, message)


def _check_type(cond, message=None):
    _check_with(TypeError, cond, message)


def _check_index(cond, message=None):
    _check_with(IndexError, cond, message)


def _check_not_implemented(cond, message=None):
    _check_with(NotImplementedError, cond, message)
