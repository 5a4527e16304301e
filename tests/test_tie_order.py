"""Indices of tied values match PyTorch 2.13 on CPU (issue #15: no silently different result):
``sort``/``argsort`` (stable and not), ``msort``, ``topk`` (largest/smallest, sorted or not, the
partial-sort and nth-element paths), ``kthvalue``, ``median``, ``nanmedian``, ``mode``,
``max``/``min``/``argmax``/``argmin`` along a dim, ``cummax``/``cummin``, on inputs full of ties
(few distinct values, NaNs, -0.0 next to 0.0) in several dtypes and sizes around libstdc++'s
insertion-sort threshold (16) and topk's partial-sort switch (64 k <= n)."""
import numpy as np
import pytest
import torch

import numtorch

LIBS = (torch, numtorch)
SIZES = [1, 2, 5, 16, 17, 33, 100, 300]


def _inputs(dtype, n, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, [2, 3, 7][seed % 3], size=(3, n)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[a == 0] = -0.0 if seed % 2 else 0.0
        if seed % 4 == 3:
            a[:, ::5] = np.nan
    return a


OPS = {
    "sort_unstable": lambda L, x: L.sort(x, dim=1),
    "sort_unstable_desc": lambda L, x: L.sort(x, dim=1, descending=True),
    "sort_stable": lambda L, x: L.sort(x, dim=1, stable=True),
    "sort_stable_desc": lambda L, x: L.sort(x, dim=1, descending=True, stable=True),
    "argsort": lambda L, x: L.argsort(x, dim=1),
    "argsort_desc_dim0": lambda L, x: L.argsort(x, dim=0, descending=True),
    "msort": lambda L, x: L.msort(x.T.contiguous()),
    "kthvalue_mid": lambda L, x: L.kthvalue(x, (x.shape[1] + 1) // 2, dim=1),
    "kthvalue_1": lambda L, x: L.kthvalue(x, 1, dim=1),
    "median": lambda L, x: L.median(x, dim=1),
    "nanmedian": lambda L, x: L.nanmedian(x, dim=1),
    "max": lambda L, x: L.max(x, dim=1),
    "min": lambda L, x: L.min(x, dim=0),
    "argmax": lambda L, x: L.argmax(x, dim=1),
    "argmin": lambda L, x: L.argmin(x),
    "cummax": lambda L, x: L.cummax(x, dim=1),
    "cummin": lambda L, x: L.cummin(x, dim=1),
}
def _k_of(k, n):
    return {"half": n // 2 or 1, "all": n}[k] if isinstance(k, str) else min(k, n)


for _k in (1, 3, "half", "all"):
    for _largest in (True, False):
        for _sorted in (True, False):
            OPS[f"topk_k{_k}_{'largest' if _largest else 'smallest'}_{'sorted' if _sorted else 'unsorted'}"] = (
                lambda L, x, k=_k, lg=_largest, st=_sorted: L.topk(x, _k_of(k, x.shape[1]), dim=1, largest=lg,
                                                                  sorted=st))


def _as_np(r):
    r = r if isinstance(r, tuple) else (r,)
    return [t.numpy() for t in r]


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_tie_indices_equal_torchs(op, dtype):
    for n in SIZES:
        for seed in range(4):
            a = _inputs(dtype, n, seed)
            ref, got = (_as_np(OPS[op](lib, lib.tensor(a))) for lib in LIBS)
            for x, y in zip(ref, got):
                assert x.dtype == y.dtype and x.shape == y.shape
                assert np.array_equal(x, y, equal_nan=True), (op, n, seed, x, y)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_mode_indices_equal_torchs(dtype):
    for n in SIZES:
        for seed in range(3):  # no NaN: see mode's docstring
            a = _inputs(dtype, n, seed)
            a = np.where(np.isnan(a), 1, a) if np.dtype(dtype).kind == "f" else a
            ref, got = (_as_np(lib.mode(lib.tensor(a), dim=1)) for lib in LIBS)
            for x, y in zip(ref, got):
                assert np.array_equal(x, y), (n, seed, x, y)


def test_topk_partial_sort_path_and_gradients():
    a = _inputs(np.float64, 400, 1)  # k * 64 <= n: std::partial_sort
    res = []
    for lib in LIBS:
        t = lib.tensor(a, requires_grad=True)
        v, i = lib.topk(t, 5, dim=1, sorted=False)
        (v * lib.arange(1.0, 6.0, dtype=lib.float64)).sum().backward()
        res.append((i.numpy(), t.grad.numpy()))
    assert np.array_equal(res[0][0], res[1][0])
    assert np.array_equal(res[0][1], res[1][1])


def test_large_inputs_still_sort_correctly():
    # past the replay limit numtorch keeps ties in index order: still a valid sort of the same values
    a = np.random.default_rng(0).integers(0, 3, size=(1, 1 << 15))
    v, i = numtorch.sort(numtorch.tensor(a), dim=1)
    assert np.array_equal(v.numpy(), np.sort(a, axis=1))
    assert np.array_equal(np.take_along_axis(a, i.numpy(), 1), v.numpy())
