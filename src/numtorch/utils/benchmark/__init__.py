"""``torch.utils.benchmark`` (its common core): ``Timer`` measures a statement, ``Measurement`` holds the
times and prints them as PyTorch does, ``Compare`` prints a table of several measurements.

Timing is Python's ``timeit`` with ``time.perf_counter``; ``num_threads`` sets numtorch's BLAS threads
while the statement runs. ``blocked_autorange`` runs blocks of a size chosen so one block takes at least
0.1 ms until ``min_run_time`` has passed; ``adaptive_autorange`` stops once the IQR/median ratio is under
``threshold``. Callgrind and the fuzzers of PyTorch's module are not provided.
"""
from __future__ import annotations

import statistics
import time
import timeit as _timeit
from collections import defaultdict

from ..._utils_api import get_num_threads, set_num_threads

__all__ = ["Timer", "Measurement", "Compare", "select_unit"]


def select_unit(t: float):
    """``(unit name, scale)`` to print ``t`` seconds: ns, us, ms or s."""
    for unit, scale in (("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3)):
        if t < scale * 1000:
            return unit, scale
    return "s", 1.0


class Measurement:
    """Times of a statement: ``times`` (seconds per run, one per block), ``number_per_run`` runs per block;
    ``mean``, ``median``, ``iqr`` over the blocks, and the task's ``stmt``, ``setup``, ``label``,
    ``sub_label``, ``description``, ``num_threads``."""

    def __init__(self, number_per_run: int, raw_times, task: dict) -> None:
        self.number_per_run = number_per_run
        self.raw_times = list(raw_times)
        self.times = [t / number_per_run for t in self.raw_times]
        for k, v in task.items():
            setattr(self, k, v)

    @property
    def mean(self) -> float:
        return statistics.mean(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    def _quantiles(self):
        if len(self.times) < 2:
            return self.times[0], self.times[0]
        q = statistics.quantiles(self.times, n=4, method="inclusive")
        return q[0], q[2]

    @property
    def iqr(self) -> float:
        lo, hi = self._quantiles()
        return hi - lo

    @property
    def title(self) -> str:
        return ": ".join(x for x in (self.label, self.sub_label) if x) or self.stmt

    def __repr__(self) -> str:
        unit, scale = select_unit(self.median)
        head = [f"<torch.utils.benchmark.utils.common.Measurement object at {hex(id(self))}>", self.title]
        if self.description:
            head.append(self.description)
        if self.setup and self.setup != "pass":
            head.append(f"setup: {self.setup}")
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        if len(self.times) == 1:
            body = [f"  {self.median / scale:.2f} {unit}",
                    f"  1 measurement, {self.number_per_run} runs , {threads}"]
        else:
            lo, hi = self._quantiles()
            body = [f"  Median: {self.median / scale:.2f} {unit}",
                    f"  IQR:    {self.iqr / scale:.2f} {unit} ({lo / scale:.2f} to {hi / scale:.2f})",
                    f"  {len(self.times)} measurements, {self.number_per_run} runs per measurement, {threads}"]
        return "\n".join(head + body)


class Timer:
    """``Timer(stmt="pass", setup="pass", global_setup="", timer=time.perf_counter, globals=None, label=None,
    sub_label=None, description=None, env=None, num_threads=1, language="python")``."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=time.perf_counter, globals=None,
                 label=None, sub_label=None, description=None, env=None, num_threads=1, language="python") -> None:
        if str(language).lower().endswith(("cpp", "c++")):
            raise ValueError("numtorch's Timer runs Python statements only")
        self._task = dict(stmt=stmt, setup=setup, label=label, sub_label=sub_label, description=description,
                          env=env, num_threads=num_threads)
        self._timer = _timeit.Timer(stmt=stmt, setup=f"{global_setup}\n{setup}", timer=timer,
                                    globals=dict(globals or {}))
        self._num_threads = num_threads

    def _run(self, number: int) -> float:
        before = get_num_threads()
        set_num_threads(self._num_threads)
        try:
            return self._timer.timeit(number)
        finally:
            set_num_threads(before)

    def timeit(self, number: int = 1000000) -> Measurement:
        """One block of ``number`` runs (after one warm-up run)."""
        self._run(1)
        return Measurement(number, [self._run(number)], self._task)

    def _block_size(self) -> int:
        number = 1
        while self._run(number) < 1e-4:  # a block should take at least 0.1 ms
            number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time: float = 0.2) -> Measurement:
        """Blocks of a fixed number of runs until ``min_run_time`` seconds have been spent timing."""
        number = self._block_size()
        times, total = [], 0.0
        while total < min_run_time or not times:
            t = self._run(number)
            total += t
            times.append(t)
            if callback is not None:
                callback(number, t)
        return Measurement(number, times, self._task)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01, max_run_time: float = 10.0,
                           callback=None) -> Measurement:
        """Blocks until the IQR is under ``threshold`` times the median (after ``min_run_time``) or
        ``max_run_time`` seconds have passed."""
        number = self._block_size()
        times, total = [], 0.0
        while True:
            t = self._run(number)
            total += t
            times.append(t)
            if callback is not None:
                callback(number, t)
            m = Measurement(number, times, self._task)
            if total >= max_run_time or (total >= min_run_time and len(times) > 3 and m.iqr / m.median < threshold):
                return m


class Compare:
    """A table of measurements (rows: ``sub_label``, columns: ``description``, grouped by ``label``);
    ``print()`` writes it, ``str()`` returns it."""

    def __init__(self, results) -> None:
        self._results = list(results)

    def __str__(self) -> str:
        groups = defaultdict(list)
        for m in self._results:
            groups[m.label].append(m)
        out = []
        for label, ms in groups.items():
            unit, scale = select_unit(min(m.median for m in ms))
            cols = list(dict.fromkeys(m.description or "" for m in ms))
            rows = list(dict.fromkeys(m.sub_label or m.stmt for m in ms))
            cell = {(m.sub_label or m.stmt, m.description or ""): f"{m.median / scale:.1f}" for m in ms}
            width = max(len(r) for r in rows) + 2
            out.append(f"[---- {label} ----]")
            out.append(" " * width + "|" + "|".join(f" {c:>8} " for c in cols))
            for r in rows:
                out.append(f"{r:>{width}}|" + "|".join(f" {cell.get((r, c), ''):>8} " for c in cols))
            out.append(f"\nTimes are in {dict(ns='nanoseconds', us='microseconds', ms='milliseconds', s='seconds')[unit]}"
                       f" ({unit}).\n")
        return "\n".join(out)

    def print(self) -> None:
        print(str(self))
