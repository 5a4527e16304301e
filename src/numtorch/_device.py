"""Device objects (mirrors ``torch.device``). Only ``"cpu"`` holds tensors for now.

``device("cuda")`` can be *named* (programs build it before checking availability), but placing a
tensor there raises RuntimeError until a GPU backend (CuPy) exists.
"""
from __future__ import annotations

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

    def __enter__(self):  # `with torch.device("cpu"):` is accepted and changes nothing on CPU
        check(self)
        return self

    def __exit__(self, *exc):
        return False


CPU = device("cpu")


def check(d) -> device:
    """Normalize a device spec and make sure numtorch can hold tensors there."""
    if d is None:
        return CPU
    if not isinstance(d, device):
        d = device(d)
    if d.type != "cpu":
        raise RuntimeError(
            f"numtorch has no {d.type} backend yet: tensors live on the CPU only. "
            f"Use device='cpu' (torch.cuda.is_available() returns False).")
    return CPU
