"""numtorch.profiler and numtorch.autograd.profiler against torch.profiler: op names and counts of a small
model's forward and backward, the table's layout, chrome trace JSON, schedules (the same actions as
torch's schedule; steps honoured), memory, record_function, and the Op.apply hook being off afterwards."""
from __future__ import annotations

import json
import re
from collections import Counter
from contextlib import nullcontext

import numpy as np
import pytest
import torch as ref
import torch.profiler as ref_profiler

import numtorch
import numtorch.nn as nn
from numtorch import profiler
from numtorch.autograd import function as _function

BACKWARD = "autograd::engine::evaluate_function: "


def run_model(torch_mod, prof_mod, **kw):
    torch_mod.manual_seed(0)
    model = torch_mod.nn.Sequential(torch_mod.nn.Linear(4, 8), torch_mod.nn.Tanh(), torch_mod.nn.Linear(8, 1))
    x, y = torch_mod.randn(16, 4), torch_mod.randn(16, 1)
    with prof_mod.profile(activities=[prof_mod.ProfilerActivity.CPU], **kw) as prof:
        with prof_mod.record_function("model_forward"):
            loss = torch_mod.nn.functional.mse_loss(model(x), y)
        loss.backward()
    return prof


def counts(prof):
    return Counter(e.name for e in prof.events())


def test_op_counts_match_the_model_and_torch():
    ours = counts(run_model(numtorch, profiler))
    theirs = counts(run_model(ref, ref_profiler))
    # the ops this model runs, forward and backward (numtorch runs no separate aten::t/linear/expand)
    want = {"model_forward": 1, "aten::addmm": 2, "aten::tanh": 1, "aten::mse_loss": 1,
            BACKWARD + "MseLossBackward0": 1, "MseLossBackward0": 1, BACKWARD + "AddmmBackward0": 2,
            "AddmmBackward0": 2, BACKWARD + "TanhBackward0": 1, "TanhBackward0": 1}
    assert dict(ours) == want
    for name, n in want.items():  # torch records the same names, as often
        assert theirs[name] == n, name
    assert _function._apply_hook is None  # profiling is over: Op.apply is back to its plain path


def test_events_nest_and_times_add_up():
    prof = run_model(numtorch, profiler)
    events = prof.events()
    top = [e for e in events if e.name == "model_forward"][0]
    assert {c.name for c in top.cpu_children} == {"aten::addmm", "aten::tanh", "aten::mse_loss"}
    for e in events:
        assert e.cpu_time_total >= 0 and e.self_cpu_time_total >= -1e-6
        assert e.self_cpu_time_total == pytest.approx(e.cpu_time_total - sum(c.cpu_time_total for c in e.cpu_children))
        for c in e.cpu_children:
            assert e.start_us <= c.start_us and c.end_us <= e.end_us and c.cpu_parent is e
    outer = [e for e in events if e.name == BACKWARD + "TanhBackward0"][0]
    assert [c.name for c in outer.cpu_children] == ["TanhBackward0"]
    avg = {a.key: a for a in prof.key_averages()}
    assert avg["aten::addmm"].count == 2
    addmm = [e for e in events if e.name == "aten::addmm"]
    assert avg["aten::addmm"].cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in addmm))
    assert avg["aten::addmm"].cpu_time == pytest.approx(avg["aten::addmm"].cpu_time_total / 2)


def header(table):
    lines = table.splitlines()
    return lines[0], lines[1], lines[2]


def test_table_has_torchs_layout():
    for kw in ({}, {"profile_memory": True}):
        avgs = run_model(numtorch, profiler, **kw).key_averages()
        ours = avgs.table(sort_by="cpu_time_total", row_limit=5)
        theirs = run_model(ref, ref_profiler, **kw).key_averages().table(sort_by="cpu_time_total", row_limit=5)
        assert header(ours) == header(theirs)  # same columns, widths, separators
        rows = ours.splitlines()
        assert len(rows) == 3 + 5 + 2 and rows[-1].startswith("Self CPU time total: ")
        first = sorted(avgs, key=lambda a: a.cpu_time_total, reverse=True)[:5]  # sorted by total time
        for row, avg in zip(rows[3:8], first):
            name = avg.key if len(avg.key) < 52 else avg.key[:52] + "..."
            assert row.split("  ")[0].strip() == name or row.lstrip().startswith(name)
            assert row.rstrip().endswith(f"  {avg.count}")
    ours = run_model(numtorch, profiler, record_shapes=True).key_averages(group_by_input_shape=True)
    theirs = run_model(ref, ref_profiler, record_shapes=True).key_averages(group_by_input_shape=True)
    cols = lambda t: re.split(r"\s{2,}", header(t.table(row_limit=3))[1].strip())  # noqa: E731
    assert cols(ours) == cols(theirs) and cols(ours)[-1] == "Input Shapes"
    shapes = {str(a.input_shapes) for a in ours if a.key == "aten::addmm"}
    assert shapes == {"[[16, 4], [8, 4], [8]]", "[[16, 8], [1, 8], [1]]"}
    assert "[[16, 4], [8, 4], [8]]" in ours.table(sort_by="count")


def test_chrome_trace(tmp_path):
    prof = run_model(numtorch, profiler, record_shapes=True)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert Counter(e["name"] for e in spans) == counts(prof)
    for e in spans:
        assert isinstance(e["ts"], (int, float)) and e["dur"] >= 0 and {"pid", "tid", "name", "cat"} <= set(e)
    assert any(e["cat"] == "user_annotation" and e["name"] == "model_forward" for e in spans)
    assert any(e["ph"] == "M" and e["name"] == "thread_name" for e in trace["traceEvents"])


@pytest.mark.parametrize("kw", [dict(wait=1, warmup=1, active=2), dict(wait=0, warmup=0, active=1, repeat=3),
                                dict(wait=2, warmup=1, active=3, repeat=2, skip_first=3),
                                dict(wait=1, warmup=0, active=1, skip_first_wait=1)])
def test_schedule_actions_equal_torchs(kw):
    with pytest.warns(UserWarning, match="warmup") if kw["warmup"] == 0 else nullcontext():
        ours = profiler.schedule(**kw)
    with pytest.warns(UserWarning, match="warmup") if kw["warmup"] == 0 else nullcontext():
        theirs = ref_profiler.schedule(**kw)
    assert [ours(s).name for s in range(25)] == [theirs(s).name for s in range(25)]


def test_schedule_errors_as_torchs():
    for kw in (dict(wait=-1, warmup=1, active=1), dict(wait=0, warmup=1, active=0)):
        with pytest.raises(AssertionError) as ours:
            profiler.schedule(**kw)
        with pytest.raises(AssertionError) as theirs:
            ref_profiler.schedule(**kw)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(AssertionError, match="non-negative"):
        profiler.schedule(wait=0, warmup=1, active=1)(-1)


def test_schedule_steps_honoured():
    numtorch.manual_seed(0)
    model = nn.Linear(3, 2)
    x = numtorch.randn(4, 3)
    ready = []
    sched = profiler.schedule(wait=1, warmup=1, active=2, repeat=2)

    def on_ready(p):
        ready.append((p.step_num, Counter(e.name for e in p.events())))
    traces = []
    with profiler.profile(schedule=sched, on_trace_ready=on_ready) as prof:
        for _ in range(10):
            model(x).sum().backward()
            prof.step()
            traces.append([e.trace_name for e in prof.events()] if prof.step_num in (4, 8) else None)
    assert [s for s, _ in ready] == [4, 8]  # after the active steps 2-3 and 6-7
    first, second = ready[0][1], ready[1][1]
    # as torch's events and key_averages(): one "ProfilerStep*" name, each step's number in trace_name
    assert first["ProfilerStep*"] == second["ProfilerStep*"] == 2
    assert not [n for n in first if n.startswith("ProfilerStep#")]
    assert [n for n in traces[3] if n.startswith("ProfilerStep")] == ["ProfilerStep#2", "ProfilerStep#3"]
    assert [n for n in traces[7] if n.startswith("ProfilerStep")] == ["ProfilerStep#6", "ProfilerStep#7"]
    assert first["aten::addmm"] == 2 and first[BACKWARD + "AddmmBackward0"] == 2  # two recorded steps' worth
    assert _function._apply_hook is None


def test_profile_memory():
    prof = run_model(numtorch, profiler, profile_memory=True)
    ev = {e.name: e for e in prof.events()}
    addmm = [e for e in prof.events() if e.name == "aten::addmm"]
    assert sorted(e.cpu_memory_usage for e in addmm) == [16 * 1 * 4, 16 * 8 * 4]
    assert ev["aten::tanh"].cpu_memory_usage == 16 * 8 * 4
    top = ev["model_forward"]
    assert top.cpu_memory_usage == sum(c.cpu_memory_usage for c in top.cpu_children) and top.self_cpu_memory_usage == 0
    tanh_bw = ev["TanhBackward0"]
    assert tanh_bw.cpu_memory_usage == 16 * 8 * 4  # the gradient it returned
    table = prof.key_averages().table()
    assert "CPU Mem" in table and "512 B" in table
    no_mem = run_model(numtorch, profiler)
    assert all(e.cpu_memory_usage == 0 for e in no_mem.events())


def test_record_function_forms_and_legacy_api():
    @profiler.record_function("decorated")
    def f(t):
        return (t * 2).sum()

    t = numtorch.ones(3, requires_grad=True)
    f(t)  # no profile running: nothing recorded, nothing raised
    with numtorch.autograd.profiler.profile(record_shapes=True) as prof:
        f(t)
        with numtorch.autograd.profiler.record_function("block"):
            numtorch.exp(t)
    names = [e.name for e in prof.function_events]
    assert names == ["decorated", "aten::mul", "aten::sum", "block", "aten::exp"]
    assert prof.function_events[1].cpu_parent.name == "decorated"
    assert "aten::exp" in prof.key_averages().table(sort_by="self_cpu_time_total")
    assert prof.total_average().count == 5
    with numtorch.autograd.profiler.profile(enabled=False) as off:
        f(t)
    with pytest.raises(RuntimeError):
        off.key_averages()


def test_nested_profile_and_errors_restore_the_hook():
    with profiler.profile():
        with pytest.raises(RuntimeError, match="already enabled"):
            with numtorch.autograd.profiler.profile():
                pass
    assert _function._apply_hook is None
    with pytest.raises(ValueError):
        with profiler.profile():
            numtorch.ones(2).exp()
            raise ValueError("user code fails")
    assert _function._apply_hook is None
    with pytest.raises(RuntimeError):  # the op's own error comes through, the hook stays consistent
        with profiler.profile():
            numtorch.ones(2, 3) @ numtorch.ones(2, 3)
    assert _function._apply_hook is None


def test_op_names_are_torchs():
    a = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)

    def work(torch_mod, prof_mod):
        x = torch_mod.tensor(a, requires_grad=True)
        y = torch_mod.tensor(b)
        with prof_mod.profile() as prof:
            z = x @ y
            z = (z * 2 + 1).exp().log().relu().sigmoid()
            torch_mod.nn.functional.log_softmax(z, dim=1).mean().backward()
            x.t().sum()
            (x - 1).pow(2).div(3).neg().sum()
        return {e.name for e in prof.events()}
    ours, theirs = work(numtorch, profiler), work(ref, ref_profiler)
    aten = {n for n in ours if n.startswith("aten::")}
    assert len(aten) >= 12
    assert aten <= theirs, aten - theirs
    assert {n for n in ours if n.startswith(BACKWARD)} <= theirs


def test_create_graph_backward_is_profiled():
    def work(torch_mod, prof_mod):
        x = torch_mod.randn(5, requires_grad=True)
        with prof_mod.profile() as prof:
            (g,) = torch_mod.autograd.grad(x.tanh().sum(), x, create_graph=True)
            g.sum().backward()
        return prof
    prof = work(numtorch, profiler)
    names, theirs = counts(prof), counts(work(ref, ref_profiler))
    # the second backward runs tanh's node again (the gradient depends on tanh's output), as in torch
    for name in (BACKWARD + "TanhBackward0", BACKWARD + "SumBackward0", "aten::tanh"):
        assert names[name] == theirs[name], name
    # the ops the differentiable backward ran are children of its backward event
    tanh_bw = [e for e in prof.events() if e.name == "TanhBackward0"][0]
    assert tanh_bw.cpu_children and all(c.name.startswith("aten::") for c in tanh_bw.cpu_children)


def test_tensorboard_trace_handler_writes_each_window(tmp_path):
    x = numtorch.randn(4, requires_grad=True)
    handler = profiler.tensorboard_trace_handler(str(tmp_path), worker_name="w")
    with profiler.profile(schedule=profiler.schedule(wait=0, warmup=1, active=1, repeat=2),
                          on_trace_ready=handler) as prof:
        for _ in range(5):
            x.exp().sum().backward()
            prof.step()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["w.2.pt.trace.json", "w.4.pt.trace.json"]
    trace = json.loads((tmp_path / files[0]).read_text())
    assert {e["name"] for e in trace["traceEvents"] if e["ph"] == "X"} >= {"ProfilerStep#1", "aten::exp"}


@pytest.mark.parametrize("node, aten", [("MmBackward0", "aten::mm"), ("NllLossBackward0", "aten::nll_loss"),
                                        ("MaxPool2DWithIndicesBackward0", "aten::max_pool2d_with_indices"),
                                        ("Log1PBackward0", "aten::log1p"), ("SpecialI0EBackward0", "aten::special_i0e"),
                                        ("UpsampleBilinear2DBackward0", "aten::upsample_bilinear2d"),
                                        ("SmoothL1LossBackward0", "aten::smooth_l1_loss"), ("CopySlices", "CopySlices")])
def test_aten_name_from_node_name(node, aten):
    from numtorch.autograd.profiler import aten_name  # noqa: PLC0415  (the profiler loads on first use)
    cls = type("Probe", (_function.Op,), {"_node_name": node})
    assert aten_name(cls) == aten
    assert aten_name(type("Named", (_function.Op,), {"_aten_name": "aten::special"})) == "aten::special"
