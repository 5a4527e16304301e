"""What a profile holds and how it is shown (mirrors ``torch.autograd.profiler_util``).

``FunctionEvent``: one recorded call (an op, a backward node, a ``record_function`` range) with its
start, end, children, input shapes and bytes allocated. ``EventList``: the events of a profile, with
``key_averages()`` (``FunctionEventAvg`` per name, optionally per input shapes), ``table()`` in
PyTorch's layout and ``export_chrome_trace()`` (the JSON ``traceEvents`` format that
``chrome://tracing`` and Perfetto open). Times are in microseconds, as in PyTorch.
"""
from __future__ import annotations

import json
import os

__all__ = ["FunctionEvent", "FunctionEventAvg", "EventList"]


class FunctionEvent:
    """One recorded call. ``cpu_time_total``: its wall time (us); ``self_cpu_time_total``: minus its
    children's; ``cpu_memory_usage``: bytes of the arrays it returned (``profile_memory=True``),
    ``self_cpu_memory_usage`` the same minus its children's."""

    def __init__(self, id, name, thread, start_us, end_us=None, input_shapes=(), is_user_annotation=False,
                 stack=None):
        self.id = id
        # PyTorch names every step range "ProfilerStep*" so that key_averages() groups them; the
        # Chrome trace keeps each step's own "ProfilerStep#N" (trace_name).
        self.trace_name = name
        self.name = self.key = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        self.thread = thread
        self.start_us = start_us
        self.end_us = start_us if end_us is None else end_us
        self.input_shapes = list(input_shapes)
        self.cpu_children = []
        self.cpu_parent = None
        self.cpu_memory_usage = 0
        self.is_user_annotation = is_user_annotation
        self.stack = stack or []
        self.count = 1
        self.node_id = -1
        self.device_type = "CPU"
        self.is_legacy = False
        self.is_async = False
        self.is_remote = False

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={_format_time(self.cpu_time_total)} "
                f"start_us={self.start_us:.3f} end_us={self.end_us:.3f} "
                f"cpu_children={[c.id for c in self.cpu_children]} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class FunctionEventAvg:
    """The events of one key (name, and input shapes when grouped by them), added up."""

    def __init__(self, key, input_shapes=None):
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.is_user_annotation = False
        self.stack = []
        self.node_id = -1
        self.device_type = "CPU"
        self.is_legacy = False
        self.device_time_total = self.self_device_time_total = 0

    def add(self, evt):
        self.count += evt.count
        self.cpu_time_total += evt.cpu_time_total
        self.self_cpu_time_total += evt.self_cpu_time_total
        self.cpu_memory_usage += evt.cpu_memory_usage
        self.self_cpu_memory_usage += evt.self_cpu_memory_usage
        self.is_user_annotation = evt.is_user_annotation
        return self

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time)} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of ``FunctionEvent`` (or, after ``key_averages``, of ``FunctionEventAvg``)."""

    def __init__(self, *args, profile_memory=False, with_shapes=False, **kwargs):
        super().__init__(*args)
        self._profile_memory = profile_memory
        self._with_shapes = with_shapes

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        """One ``FunctionEventAvg`` per event name (and per input shapes with ``group_by_input_shapes``),
        in order of first appearance."""
        groups = {}
        for e in self:
            key = (e.key, str(e.input_shapes)) if group_by_input_shapes else e.key
            avg = groups.get(key)
            if avg is None:
                avg = groups[key] = FunctionEventAvg(e.key, e.input_shapes if group_by_input_shapes else None)
            avg.add(e)
        return EventList(groups.values(), profile_memory=self._profile_memory, with_shapes=group_by_input_shapes)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """PyTorch's text table: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg,
        (CPU Mem, Self CPU Mem with ``profile_memory``), # of Calls, (Input Shapes when grouped by them).
        ``sort_by``: an attribute, e.g. ``"cpu_time_total"``, ``"self_cpu_time_total"``, ``"count"``,
        ``"cpu_memory_usage"`` (descending)."""
        return _build_table(self, sort_by, row_limit, max_name_column_width, max_shapes_column_width, header,
                            top_level_events_only, time_unit)

    def export_chrome_trace(self, path):
        """Write the events as Chrome trace JSON (``{"traceEvents": [...]}``, complete events ``"ph": "X"``,
        times in us) to ``path``; open it in ``chrome://tracing`` or https://ui.perfetto.dev."""
        pid = os.getpid()
        events = []
        for tid in sorted({e.thread for e in self}):
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                           "args": {"name": f"thread {tid} (python)"}})
        for e in self:
            args = {"External id": e.id}
            if e.input_shapes:
                args["Input Dims"] = e.input_shapes
            if self._profile_memory:
                args["Bytes"] = e.cpu_memory_usage
            events.append({"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                           "name": e.trace_name, "pid": pid, "tid": e.thread, "ts": round(e.start_us, 3),
                           "dur": round(e.cpu_time_total, 3), "args": args})
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": events}, f, indent=1)


def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_share(time_us, total_us):
    return "NaN" if total_us == 0 else f"{time_us * 100.0 / total_us:.2f}%"


def _format_memory(nbytes):
    for unit, size in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("KB", 1024)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


def _build_table(events, sort_by, row_limit, max_name_width, max_shapes_width, header, top_level_only, time_unit):
    if not events:
        return ""
    rows = list(events)
    if top_level_only:
        rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
    if sort_by is not None:
        rows.sort(key=lambda e: getattr(e, sort_by.replace("cuda", "device")), reverse=True)
    if row_limit is not None and row_limit > 0:
        rows = rows[:row_limit]
    name_width = min(max(len(e.key) for e in events) + 4, max_name_width or 10 ** 9)
    show_mem = getattr(events, "_profile_memory", False)
    show_shapes = getattr(events, "_with_shapes", False)
    widths = [name_width] + [12] * 5 + ([12, 12] if show_mem else []) + [12]
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    headers += ["CPU Mem", "Self CPU Mem"] if show_mem else []
    headers.append("# of Calls")
    if show_shapes:
        widths.append(min(max(len(str(e.input_shapes)) for e in events) + 4, max_shapes_width or 10 ** 9))
        headers.append("Input Shapes")
    row_format = "".join("{: >" + str(w) + "}  " for w in widths)
    sep = "".join("-" * w + "  " for w in widths)
    total = sum(e.self_cpu_time_total for e in events)
    fmt = _format_time if time_unit is None else (lambda t: _unit(t, time_unit))
    out = []
    if header is not None:
        out += ["=" * (sum(widths) + 2 * len(widths) - 2), header]
    out += [sep, row_format.format(*headers), sep]
    for e in rows:
        name = e.key
        if max_name_width is not None and len(name) >= max_name_width - 3:
            name = name[:max_name_width - 3] + "..."
        row = [name, _format_share(e.self_cpu_time_total, total), fmt(e.self_cpu_time_total),
               _format_share(e.cpu_time_total, total), fmt(e.cpu_time_total), fmt(e.cpu_time)]
        if show_mem:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
        row.append(str(e.count))
        if show_shapes:
            shapes = str(e.input_shapes)
            row.append(shapes if len(shapes) <= widths[-1] else shapes[:widths[-1] - 3] + "...")
        out.append(row_format.format(*row))
    out += [sep, f"Self CPU time total: {fmt(total)}"]
    return "\n".join(out) + "\n"


def _unit(time_us, unit):
    scale = {"s": 1e6, "ms": 1e3, "us": 1.0}[unit]
    return f"{time_us / scale:.3f}{unit}"
