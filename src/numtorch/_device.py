"""Device objects (mirrors ``torch.device``). ``"cpu"`` holds tensors; ``"meta"`` holds tensors with a
shape and a dtype but no data (docs/meta.md).

``device("cuda")`` can be *named* (programs build it before checking availability), but placing a
tensor there raises RuntimeError until a GPU backend (CuPy) exists.

The default device of factory functions (``torch.set_default_device``, ``with torch.device(...)``)
is kept per thread, as PyTorch's device context is.
"""
from __future__ import annotations

import threading

_KNOWN = ("cpu", "cuda", "mps", "meta", "xpu")


class device:
    """``torch.device(type, index=None)`` or ``torch.device("cuda:0")``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int):
            type, index = "cuda", type
        elif ":" in type:
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in _KNOWN:
            raise RuntimeError(f"Expected one of {', '.join(_KNOWN)} device type at start of device string: {type}")
        self.type, self.index = type, index

    def __repr__(self):
        return f"device(type='{self.type}'" + (f", index={self.index})" if self.index is not None else ")")

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):  # `with torch.device("meta"):` makes it the factories' default device until exit
        d = check(self)
        _DEFAULT.stack = [*_stack(), d]
        return self

    def __exit__(self, *exc):
        _stack().pop()
        return False


CPU = device("cpu")
META = device("meta")
_DEFAULT = threading.local()  # .stack: the devices of the `with device(...)` blocks entered (innermost last)
_GLOBAL = [CPU]  # set_default_device's device, under any `with` block


def _stack():
    s = getattr(_DEFAULT, "stack", None)
    if s is None:
        s = _DEFAULT.stack = []
    return s


def get_default_device() -> device:
    """The device factory functions use when given none (``torch.get_default_device``)."""
    s = getattr(_DEFAULT, "stack", None)
    return s[-1] if s else _GLOBAL[0]


def set_default_device(d) -> None:
    """Make ``d`` the default device of factory functions (``torch.set_default_device``); ``None``: cpu.
    ``with torch.device(...)`` blocks still take precedence while entered."""
    _GLOBAL[0] = CPU if d is None else check(d)


def check(d) -> device:
    """Normalize a device spec and make sure numtorch can hold tensors there: CPU or META; ``None`` is
    the default device (``get_default_device``). RuntimeError for a device without a backend."""
    if d is None:
        return get_default_device()
    if not isinstance(d, device):
        d = device(d)
    if d.type == "meta":
        return META
    if d.type != "cpu":
        raise RuntimeError(
            f"numtorch has no {d.type} backend yet: tensors live on the CPU only. "
            f"Use device='cpu' (torch.cuda.is_available() returns False).")
    return CPU
