"""The op profiler (mirrors ``torch.autograd.profiler``: ``profile``, ``record_function``).

How it sees every op without costing anything when off: ``Op.apply`` (``autograd/function.py``),
through which every built-in op runs, reads one module global, ``_apply_hook``; it is ``None`` unless
a profile is running, when it is ``_profiled_apply`` below. That function times the op (named as
ATen names it: ``aten::mm`` for ``MmBackward0``, see ``aten_name``) and, for an op that records a
backward node, registers a pre-hook and a hook on the node so its backward is timed too, under
PyTorch's names (``autograd::engine::evaluate_function: MmBackward0`` around ``MmBackward0``).
``record_function`` adds user-named ranges. Events nest per thread; a parent's self time is its
time minus its children's.

Not recorded: tensor factories that are not ops (``torch.randn``...), leaves' gradient accumulation
(PyTorch's ``AccumulateGrad``), the backward of nodes made before the profile started, and memory
freed (``profile_memory=True`` records the bytes of each op's new result arrays; views count 0).
"""
from __future__ import annotations

import functools
import re
import threading
import time
import traceback

from .._tensor import Tensor
from . import function as _function
from .profiler_util import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["profile", "record_function", "aten_name", "EventList", "FunctionEvent"]

# ------------------------------------------------------------------------------------------------
# op names: the node name PyTorch gives the backward, turned into ATen's name of the forward op
# ------------------------------------------------------------------------------------------------
# node names are ATen names in CamelCase: each "_"-separated word capitalised, and a letter after a digit too
# (max_pool2d_with_indices -> MaxPool2DWithIndices, log1p -> Log1P); these few are not their stem
_ATEN_EXCEPTIONS = {"UnsafeView": "_unsafe_view", "Copy": "copy_", "L1Loss": "l1_loss", "SmoothL1Loss": "smooth_l1_loss"}
# a word starts at a capital after a small letter, or after a capital that followed a digit ("2D|With")
_WORD = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[0-9][A-Z])(?=[A-Z])")
_NAMES = {}  # Op class -> its ATen name (filled lazily: one dict lookup per profiled op)


def aten_name(cls) -> str:
    """ATen's name of the op an ``Op`` class computes: the class attribute ``_aten_name`` if set, else
    derived from its node name (``MmBackward0`` -> ``aten::mm``, ``NllLossBackward0`` ->
    ``aten::nll_loss``); a node not named ``...BackwardN`` keeps its own name (``CopySlices``)."""
    name = _NAMES.get(cls)
    if name is None:
        name = getattr(cls, "_aten_name", None)
        if name is None:
            node = cls._node_name or cls.__name__
            m = re.fullmatch(r"(\w+?)Backward\d*", node)
            if m is None:
                name = node
            else:
                stem = m.group(1)
                name = "aten::" + _ATEN_EXCEPTIONS.get(stem, _WORD.sub("_", stem).lower())
        _NAMES[cls] = name
    return name


# ------------------------------------------------------------------------------------------------
# the recorder: one at a time, events nested per thread
# ------------------------------------------------------------------------------------------------
_active = None  # the running _Recorder, or None
_tls = threading.local()  # .stack: this thread's open events


def _now_us():
    return time.perf_counter_ns() / 1e3


def _user_stack():
    """``file(line): function`` of the caller's frames outside numtorch, innermost first."""
    return [f"{f.filename}({f.lineno}): {f.name}" for f in reversed(traceback.extract_stack()[:-3])
            if "/numtorch/" not in f.filename][:5]


class _Recorder:
    def __init__(self, record_shapes=False, profile_memory=False, with_stack=False):
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.events = []
        self._next_id = 0

    def begin(self, name, shapes=(), user=False):
        stack = getattr(_tls, "stack", None)
        if stack is None:
            stack = _tls.stack = []
        evt = FunctionEvent(self._next_id, name, threading.get_ident(), _now_us(), input_shapes=shapes,
                            is_user_annotation=user, stack=_user_stack() if self.with_stack else None)
        self._next_id += 1
        if stack:
            evt.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(evt)
        stack.append(evt)
        self.events.append(evt)
        return evt

    def end(self, evt):
        evt.end_us = _now_us()
        if self.profile_memory and evt.cpu_children:  # a range's allocations include its children's
            evt.cpu_memory_usage += sum(c.cpu_memory_usage for c in evt.cpu_children)
        stack = _tls.stack
        while stack:  # close evt (and anything left open inside it by an exception)
            if stack.pop() is evt:
                break

    def start(self):
        global _active
        if _active is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        _active = self
        _function._apply_hook = _profiled_apply

    def stop(self):
        global _active
        if _active is self:
            _active = None
            _function._apply_hook = None
        now = _now_us()
        for e in self.events:  # ranges still open (an exception mid-backward) end here
            if e.end_us == e.start_us and e.cpu_children:
                e.end_us = max(now, e.end_us)
        _tls.stack = []
        return EventList(self.events, profile_memory=self.profile_memory, with_shapes=False)


def _shapes(args):
    return [list(a._data.shape) if isinstance(a, Tensor) else [] for a in args]


def _profiled_apply(cls, args, kwargs):
    """``Op.apply`` while profiling: the op, timed as one event, and its backward node hooked."""
    rec = _active
    evt = rec.begin(aten_name(cls), _shapes(args) if rec.record_shapes else ())
    _function._apply_hook = None  # the op itself runs unhooked (an op calling ops is one event)
    try:
        out = cls.apply(*args, **kwargs)
    finally:
        _function._apply_hook = _profiled_apply if _active is rec else None
        rec.end(evt)
    outs = out if type(out) is tuple else (out,)
    if rec.profile_memory and not cls._view:
        evt.cpu_memory_usage = sum(o._data.nbytes for o in outs if isinstance(o, Tensor))
    for o in outs:
        if isinstance(o, Tensor) and o.grad_fn is not None and type(o.grad_fn) is cls:
            _hook_node(o.grad_fn)
            break
    return out


def _hook_node(node):
    """Time ``node``'s backward as PyTorch's engine names it, if a profile is running then."""
    if "_prof_hooked" in node.__dict__:
        return
    node._prof_hooked = True
    name = node.name()

    def pre(grad_outputs):
        rec = _active
        if rec is not None:
            node._prof_events = (rec, rec.begin("autograd::engine::evaluate_function: " + name), rec.begin(name))

    def post(grad_inputs, grad_outputs):
        evts = node.__dict__.pop("_prof_events", None)
        if evts is not None:
            rec, outer, inner = evts
            rec.end(inner)
            if rec.profile_memory:  # the gradients it returned (its children's results are already in)
                inner.cpu_memory_usage += sum(g._data.nbytes for g in grad_inputs if isinstance(g, Tensor))
            rec.end(outer)

    node.register_prehook(pre)
    node.register_hook(post)


# ------------------------------------------------------------------------------------------------
# public API
# ------------------------------------------------------------------------------------------------
class record_function:
    """A named range in the profile (``torch.autograd.profiler.record_function``): a context manager or
    a decorator; does nothing when no profile is running. ``args`` is accepted and ignored."""

    def __init__(self, name: str, args=None):
        self.name = name
        self.args = args
        self._evt = None

    def __enter__(self):
        rec = _active
        if rec is not None:
            self._evt = (rec, rec.begin(self.name, user=True))
        return self

    def __exit__(self, *exc):
        if self._evt is not None:
            rec, evt = self._evt
            self._evt = None
            rec.end(evt)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapper


class profile:
    """Record the ops run inside ``with profile() as prof:`` (``torch.autograd.profiler.profile``).

    Args: ``enabled`` (False: record nothing), ``record_shapes`` (input shapes per event, for
    ``key_averages(group_by_input_shape=True)``), ``profile_memory`` (bytes of each op's results),
    ``with_stack`` (the caller's frames per event); ``use_cuda``/``use_device``/``with_flops``/
    ``with_modules``/``use_kineto``/``use_cpu``/... are accepted (CPU only). After the block:
    ``function_events`` (an ``EventList``), ``key_averages()``, ``table()``, ``export_chrome_trace()``.

    Raises:
        RuntimeError: another profile is already running.
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        self.enabled = enabled
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.function_events = None
        self._rec = None

    def __enter__(self):
        if self.enabled:
            self._rec = _Recorder(self.record_shapes, self.profile_memory, self.with_stack)
            self._rec.start()
        return self

    def __exit__(self, *exc):
        if self._rec is not None:
            self.function_events = self._rec.stop()
            self._rec = None
        return False

    def _events(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self._events().key_averages(group_by_input_shape)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False):
        return self._events().table(sort_by=sort_by, row_limit=row_limit, max_name_column_width=max_name_column_width,
                                    max_shapes_column_width=max_shapes_column_width, header=header,
                                    top_level_events_only=top_level_events_only)

    def export_chrome_trace(self, path):
        return self._events().export_chrome_trace(path)

    def total_average(self):
        total = FunctionEventAvg("Total")
        for avg in self.key_averages():
            total.add(avg)
        return total

    @property
    def self_cpu_time_total(self):
        return self._events().self_cpu_time_total

    def __str__(self):
        return self.table()
