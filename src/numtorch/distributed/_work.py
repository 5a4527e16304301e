"""``Work``: the handle an ``async_op=True`` collective returns (mirrors ``torch.distributed.Work``).

It holds the MPI requests of the transfer, the collective's header exchange when it is still in
flight (``_mpi.HeaderCheck``: an async collective starts its transfer at once and checks that the
ranks agree when waited on), and a ``finish`` step (copy a result back into the user's
tensor, divide for ``ReduceOp.AVG``, ...) that runs once, when the requests are done. ``wait()``
waits with the group's timeout (see ``_mpi.wait_all``); ``is_completed()`` only tests.
"""
from __future__ import annotations

from . import _mpi

__all__ = ["Work"]


class Work:
    """A pending collective or point-to-point transfer. ``wait()`` blocks until it is done and returns
    True (raising DistBackendError on timeout or peer failure); ``is_completed()`` tells without
    blocking; ``result()`` is the list of output tensors; ``source_rank()`` the sender of a ``recv``
    from any source."""

    def __init__(self, requests, what, timeout, finish=None, outputs=(), source=None, header=None):
        self._requests, self._what, self._timeout, self._header = list(requests), what, timeout, header
        self._finish, self._outputs, self._source, self._done, self._error = finish, list(outputs), source, False, None

    def _complete(self):
        if not self._done:
            self._done = True
            if self._header is not None:
                self._header.verify()
            if self._finish is not None:
                src = self._finish()
                if src is not None:
                    self._source = src

    def wait(self, timeout=None) -> bool:
        """Block until the transfer is done (``timeout``: a ``timedelta`` overriding the group's)."""
        if not self._done:
            limit = self._timeout if timeout is None else _seconds(timeout)
            try:
                if self._header is not None:
                    _mpi.wait_all(self._header.requests, self._what, limit, self._header.pending)
                    self._header.verify()
                _mpi.wait_all(self._requests, self._what, limit)
            except Exception as e:
                self._error = e
                raise
            self._complete()
        return True

    def is_completed(self) -> bool:
        if not self._done and _mpi.mpi().Request.Testall(self._requests + (self._header.requests if self._header
                                                                            else [])):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self.is_completed() and self._error is None

    def exception(self):
        return self._error

    def result(self):
        self.wait()
        return self._outputs

    def source_rank(self) -> int:
        if self._source is None:
            raise RuntimeError("source_rank() may only be called on a recv with an unspecified source (src=None)")
        return self._source

    def synchronize(self) -> None:
        self.wait()

    def get_future(self):
        """A completed ``torch.futures.Future``-like object holding ``result()`` (waits first)."""
        self.wait()
        return _DoneFuture(self._outputs)

    def __repr__(self):
        return f"<Work {self._what} {'completed' if self._done else 'pending'}>"


class _DoneFuture:
    """The already-finished future ``Work.get_future()`` gives: ``wait()``/``value()``/``done()``/``then``."""

    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value

    value = wait

    def done(self) -> bool:
        return True

    def then(self, callback):
        return _DoneFuture(callback(self))


def _seconds(timeout) -> float:
    return timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)
