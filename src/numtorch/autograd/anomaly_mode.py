"""Anomaly detection switches (mirrors ``torch.autograd.anomaly_mode``).

While it is on (with ``check_nan``), the engine checks every backward node's results and raises
PyTorch's RuntimeError naming the node that produced NaN. numtorch does not add the forward traceback
that PyTorch prints with it.
"""
from __future__ import annotations

import warnings

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
           "set_anomaly_enabled"]

_state = {"enabled": False, "check_nan": True}


def is_anomaly_enabled() -> bool:
    """True while anomaly detection is on (``torch.is_anomaly_enabled``)."""
    return _state["enabled"]


def is_anomaly_check_nan_enabled() -> bool:
    return _state["check_nan"]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off (``torch.set_anomaly_enabled``)."""
    _state["enabled"], _state["check_nan"] = bool(enabled), bool(check_nan)


class detect_anomaly:
    """Context manager that turns anomaly detection on inside it
    (``torch.autograd.detect_anomaly``); warns, as PyTorch does, that it is a debugging mode."""

    def __init__(self, check_nan=True) -> None:
        self.prev, self.prev_check_nan = _state["enabled"], _state["check_nan"]
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only "
                      "be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on or off (``torch.autograd.set_detect_anomaly(mode, check_nan=True)``):
    takes effect at the call, so it works as a plain function; as a context manager it restores the
    previous setting on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = _state["enabled"], _state["check_nan"]
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)
