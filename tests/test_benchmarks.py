"""The benchmark suite (benchmarks/) runs and measures what it says; speed itself is never asserted.

Runs the suite in ``--quick`` mode on a few workloads, checks the JSON report's structure, and
checks that each training workload computes the same loss in numtorch and PyTorch once the weights
are synchronized, so that the two sides of every ratio do the same work.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest
import torch

import numtorch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import run as bench  # noqa: E402
import workloads as W  # noqa: E402


def _check_entry(r):
    assert r["numtorch"] > 0 and r["torch"] > 0
    assert r["ratio_min"] <= r["ratio_median"] <= r["ratio_max"]
    assert r["pairs"] >= 1


def test_quick_suite_writes_table_and_json(tmp_path, capsys):
    out = tmp_path / "bench.json"
    names = ["op_overhead", "makemore_mlp", "gpt_inference_b1", "matmul"]
    results = bench.main(["--quick", "--only", ",".join(names), "--json", str(out)])
    data = json.loads(out.read_text())
    assert [r["workload"] for r in data["results"]] == names
    assert [r["workload"] for r in results] == names
    for r in data["results"]:
        _check_entry(r)
    assert data["results"][0]["unit"] == "us/op"
    mm = data["results"][3]
    assert mm["unit"] == "GFLOP/s" and mm["numpy"] > 0 and mm["numtorch_vs_numpy"] > 0 and mm["time_ms_torch"] > 0
    env = data["environment"]
    assert env["numtorch"]["framework"] == "numtorch" and env["torch"]["framework"] == "torch"
    assert env["numtorch"]["pid"] != env["torch"]["pid"]  # each framework in its own process
    assert "threads" in env["torch"] and "numpy_blas" in env["numtorch"] and env["machine"]["cpus"] >= 1
    # numtorch's worker is pinned to PyTorch's default thread count, whatever the machine's load
    assert env["numtorch"]["threads"] == env["numtorch"]["numpy_blas_threads"] == env["torch"]["threads"]
    table = capsys.readouterr().out
    assert "threads: PyTorch" in table and "makemore_mlp" in table and "vs raw NumPy GEMM" in table


def test_worker_reports_errors_instead_of_hanging():
    w = bench.Worker("numtorch")
    try:
        with pytest.raises(RuntimeError, match="numtorch worker"):
            w.call(cmd="setup", workload="no_such_workload")
        assert w.call(cmd="env")["framework"] == "numtorch"
    finally:
        w.close()
    assert w.proc.returncode == 0


def test_startup_entry_measures_time_and_peak_rss():
    r = bench.bench_startup(1, modules=("json", "numpy"))
    _check_entry(r)
    assert r["rss_mib_numtorch"] > 0 and r["rss_mib_torch"] > 0
    assert r["rss_ratio"] == pytest.approx(r["rss_mib_numtorch"] / r["rss_mib_torch"])


def test_unknown_workload_is_an_error():
    with pytest.raises(SystemExit):
        bench.main(["--quick", "--only", "no_such_workload"])


@pytest.mark.parametrize("name", ["makemore_mlp", "mnist_mlp", "small_cnn", "gpt_tiny"])
def test_workloads_compute_the_same_losses(name):
    build, make = {"makemore_mlp": (W.build_makemore, W.make_makemore_mlp),
                   "mnist_mlp": (W.build_mnist_mlp, W.make_mnist_mlp),
                   "small_cnn": (W.build_small_cnn, W.make_small_cnn),
                   "gpt_tiny": (W.build_gpt, W.make_gpt_tiny)}[name]
    data = W.make_data()
    pm, nm = build(torch), build(numtorch)
    W.sync_weights(pm, nm, numtorch)
    ps, ns = make(torch, data, pm), make(numtorch, data, nm)
    for _ in range(2):  # the second loss also checks the backward pass and the optimizer step
        lp, ln = ps().item(), ns().item()
        assert ln == pytest.approx(lp, rel=1e-4, abs=1e-5)


def test_op_overhead_and_inference_agree():
    data = W.make_data()
    for fw in (torch, numtorch):
        W.make_op_overhead(fw, data)()  # runs forward and backward
    pm, nm = W.build_gpt(torch), W.build_gpt(numtorch)
    W.sync_weights(pm, nm, numtorch)
    a = W.make_gpt_inference(torch, data, pm, 1)()
    b = W.make_gpt_inference(numtorch, data, nm, 1)()
    np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-4, atol=1e-5)
