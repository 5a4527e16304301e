"""``numtorch.utils.tensorboard`` (mirrors ``torch.utils.tensorboard``): ``SummaryWriter``.

As in PyTorch this needs the ``tensorboard`` package (its event-file writer and protobufs);
importing this module without it raises ImportError. Supported: ``add_scalar``, ``add_scalars``,
``add_histogram``, ``add_text``, ``flush``, ``close``, use as a context manager. Values may be
numtorch tensors, NumPy arrays or Python numbers.
"""
from __future__ import annotations

import os
import socket
import time
from datetime import datetime

import numpy as np

try:
    from tensorboard.compat.proto.event_pb2 import Event, SessionLog
    from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
    from tensorboard.compat.proto.tensor_pb2 import TensorProto
    from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
except ImportError as e:  # same condition (and message) as torch.utils.tensorboard
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above") from e

__all__ = ["SummaryWriter"]


def _np(value) -> np.ndarray:
    """A tensor/array/number as an ndarray (detached, on the CPU)."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def _scalar(value) -> float:
    arr = _np(value).squeeze()
    if arr.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: {arr.size} and "
                             f"{arr.ndim} dimensions.")
    return float(arr)


def _default_bins():
    # TensorBoard's exponential buckets (what PyTorch's bins="tensorflow" uses)
    pos = 1e-12 * 1.1 ** np.arange(int(np.ceil(np.log(1e32) / np.log(1.1))))
    pos = pos[pos < 1e20]
    return np.concatenate([-pos[::-1], [0.0], pos])


class SummaryWriter:
    """``torch.utils.tensorboard.SummaryWriter(log_dir=None, comment="", purge_step=None, max_queue=10,
    flush_secs=120, filename_suffix="")``: writes TensorBoard event files under ``log_dir``
    (default ``runs/<date>_<host><comment>``)."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=""):
        if not log_dir:
            log_dir = os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_" + socket.gethostname()
                                   + comment)
        self.log_dir, self.purge_step = log_dir, purge_step
        self.max_queue, self.flush_secs, self.filename_suffix = max_queue, flush_secs, filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()

    def _new_writer(self, logdir):
        return EventFileWriter(logdir, self.max_queue, self.flush_secs, self.filename_suffix)

    def _get_file_writer(self):
        if self.all_writers is None:
            self.file_writer = self._new_writer(self.log_dir)
            self.all_writers = {self.log_dir: self.file_writer}
            if self.purge_step is not None:
                # a START session log at purge_step hides events logged at later steps by a crashed run
                self.file_writer.add_event(Event(step=self.purge_step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=self.purge_step,
                                                 session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        return self.log_dir

    @staticmethod
    def _event(writer, summary, global_step, walltime):
        ev = Event(summary=summary, wall_time=time.time() if walltime is None else walltime)
        if global_step is not None:
            ev.step = int(global_step)
        writer.add_event(ev)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """Log one number (a Python number, 1-element tensor or array) under ``tag``."""
        value = _scalar(scalar_value)
        if new_style:
            tp = (TensorProto(double_val=[value], dtype="DT_DOUBLE") if double_precision
                  else TensorProto(float_val=[value], dtype="DT_FLOAT"))
            meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
            summary = Summary(value=[Summary.Value(tag=tag, tensor=tp, metadata=meta)])
        else:
            summary = Summary(value=[Summary.Value(tag=tag, simple_value=value)])
        self._event(self._get_file_writer(), summary, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Log several numbers on one chart: each goes to its own run ``<log_dir>/<main_tag>_<tag>``."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            key = base + "/" + main_tag.replace("/", "_") + "_" + tag
            if key not in self.all_writers:
                self.all_writers[key] = self._new_writer(key)
            summary = Summary(value=[Summary.Value(tag=main_tag, simple_value=_scalar(value))])
            self._event(self.all_writers[key], summary, global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        """Log a histogram of ``values``; ``bins`` is "tensorflow" (TensorBoard's exponential buckets), or
        anything ``numpy.histogram`` accepts."""
        arr = _np(values).astype(np.float64).ravel()
        if arr.size == 0:
            raise ValueError("The input has no element.")
        edges = _default_bins() if isinstance(bins, str) and bins == "tensorflow" else bins
        counts, limits = np.histogram(arr, bins=edges)
        nz = np.flatnonzero(counts)
        lo, hi = (nz[0], nz[-1] + 1) if nz.size else (0, 0)
        hist = HistogramProto(min=float(arr.min()), max=float(arr.max()), num=int(arr.size), sum=float(arr.sum()),
                              sum_squares=float(arr @ arr), bucket_limit=limits[1:][lo:hi].tolist(),
                              bucket=counts[lo:hi].astype(np.float64).tolist())
        self._event(self._get_file_writer(), Summary(value=[Summary.Value(tag=tag, histo=hist)]), global_step,
                    walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Log a string (rendered as Markdown by TensorBoard's text plugin)."""
        meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="text"))
        tp = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf-8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
        summary = Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=tp)])
        self._event(self._get_file_writer(), summary, global_step, walltime)

    def flush(self) -> None:
        for w in (self.all_writers or {}).values():
            w.flush()

    def close(self) -> None:
        for w in (self.all_writers or {}).values():
            w.flush()
            w.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
