"""The exceptions ``spawn`` raises for a failed worker (PyTorch's, from ``torch/multiprocessing/spawn.py``)."""
from __future__ import annotations

__all__ = ["ProcessException", "ProcessRaisedException", "ProcessExitedException"]


class ProcessException(Exception):
    """A spawned process failed (``torch.multiprocessing.ProcessException``): ``error_index`` is its
    index, ``error_pid`` its process id."""

    def __init__(self, msg: str, error_index: int, error_pid: int):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code or was killed by a signal."""

    def __init__(self, msg, error_index=None, error_pid=None, exit_code=None, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


for _cls in (ProcessException, ProcessRaisedException, ProcessExitedException):
    _cls.__module__ = "numtorch.multiprocessing"
