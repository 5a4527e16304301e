"""``numtorch.profiler`` (mirrors ``torch.profiler``): ``profile``, ``record_function``, ``schedule``.

The recording itself is ``numtorch.autograd.profiler`` (the older API, which this one wraps): each op
with its self and total CPU time, its backward node, optional input shapes and bytes allocated.
This module adds PyTorch's newer interface: ``activities``, a ``schedule`` driven by ``prof.step()``
(wait / warmup / active steps, repeated), ``on_trace_ready`` called with the profiler after each
active window, and the ``ProfilerStep#N`` ranges PyTorch records for each step under a schedule::

    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2),
                 on_trace_ready=lambda p: print(p.key_averages().table(sort_by="cpu_time_total"))) as prof:
        for batch in data:
            train_step(batch)
            prof.step()
"""
from __future__ import annotations

import enum
import os
import warnings

from ..autograd.profiler import _Recorder, record_function
from ..autograd.profiler_util import EventList

__all__ = ["profile", "record_function", "schedule", "ProfilerActivity", "ProfilerAction", "supported_activities",
           "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    """What to record; numtorch records CPU work only (CUDA and the others are accepted and ignored)."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


def supported_activities():
    return {ProfilerActivity.CPU}


class ProfilerAction(enum.Enum):
    """What the profiler does during a step, as a ``schedule`` returns it."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """``step -> ProfilerAction`` (``torch.profiler.schedule``): after ``skip_first`` steps, cycles of
    ``wait`` idle steps, ``warmup`` steps (not kept) and ``active`` recorded steps, the last of which
    saves (``on_trace_ready``); ``repeat`` cycles (0: forever). ``skip_first_wait=1`` drops the first
    cycle's wait.

    Raises:
        AssertionError: a negative argument, or ``active`` < 1 (as PyTorch; ``warmup=0`` warns).
    """
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
                             f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
                             f"skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)

    def fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait and wait:
            step += wait  # the first cycle starts at its warmup
        n = wait + warmup + active
        if repeat > 0 and step // n >= repeat:
            return ProfilerAction.NONE
        mod = step % n
        if mod < wait:
            return ProfilerAction.NONE
        if mod < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod < n - 1 else ProfilerAction.RECORD_AND_SAVE
    return fn


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:
    """The profiler (``torch.profiler.profile``). Without ``schedule`` it records everything between
    ``start()`` and ``stop()`` (or the ``with`` block); with one, only the active steps of each cycle,
    ``prof.step()`` marking the end of each step. ``record_shapes``, ``profile_memory``, ``with_stack``
    as in ``torch.autograd.profiler.profile``; ``with_flops``, ``with_modules``,
    ``experimental_config``, ``execution_trace_observer``, ``acc_events`` are accepted and ignored.
    Results: ``events()``, ``key_averages()``, ``export_chrome_trace(path)``."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None):
        self.activities = set(activities) if activities is not None else supported_activities()
        self.schedule = schedule if schedule is not None else (lambda step: ProfilerAction.RECORD)
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.step_num = 0
        self.current_action = ProfilerAction.NONE
        self.profiler = None  # the finished recording: an object with function_events, like PyTorch's
        self._rec = None
        self._step_rf = None
        self._events = None

    # ------------------------------------------------------------------ control
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        self.current_action = self.schedule(self.step_num)
        self._begin_step()

    def stop(self):
        self._end_step()
        if self._rec is not None:
            self._save(call_handler=self.record_steps or self.on_trace_ready is not None)
        self.current_action = ProfilerAction.NONE

    def step(self):
        """End the current step: the schedule decides whether the next one is recorded, and a window that
        just ended with ``RECORD_AND_SAVE`` is handed to ``on_trace_ready``."""
        self._end_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if prev == ProfilerAction.RECORD_AND_SAVE or (prev in _RECORDING and self.current_action not in _RECORDING):
            self._save(call_handler=True)
        self._begin_step()

    def _begin_step(self):
        if self.current_action in _RECORDING:
            if self._rec is None:
                self._rec = _Recorder(self.record_shapes, self.profile_memory, self.with_stack)
                self._rec.start()
            if self.record_steps:
                self._step_rf = record_function(f"ProfilerStep#{self.step_num}")
                self._step_rf.__enter__()

    def _end_step(self):
        if self._step_rf is not None:
            self._step_rf.__exit__(None, None, None)
            self._step_rf = None

    def _save(self, call_handler):
        rec, self._rec = self._rec, None
        if rec is None:
            return
        self._events = rec.stop()
        if call_handler and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    # ------------------------------------------------------------------ results
    def events(self) -> EventList:
        """The events of the last saved window (everything recorded, without a schedule)."""
        if self._events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self._events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self.events().key_averages(group_by_input_shape)

    def export_chrome_trace(self, path):
        return self.events().export_chrome_trace(path)


def tensorboard_trace_handler(dir_name: str, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` that writes each window's Chrome trace into ``dir_name`` as
    ``{worker}.{step}.pt.trace.json`` (TensorBoard's profiler plugin reads that layout)."""
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{os.uname().nodename}_{os.getpid()}"
        prof.export_chrome_trace(os.path.join(dir_name, f"{name}.{prof.step_num}.pt.trace.json"))
    return handler
