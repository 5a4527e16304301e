"""Tensor printing in PyTorch's format (mirrors ``torch/_tensor_str.py``).

One formatter per tensor decides how every element prints (integer-valued floats as ``1.``,
fixed ``1.2346`` with 4 decimals, or scientific ``1.2346e+05`` when magnitudes span more than
1000x); elements are right-aligned to a common width; rows wrap at 80 columns; tensors with more
than 1000 elements show the first and last 3 items of each dimension around ``...``.
"""
from __future__ import annotations

import numpy as np

PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 4, 1000, 3, 80


class _Formatter:
    def __init__(self, arr: np.ndarray):
        self.kind = arr.dtype.kind
        self.int_mode = True
        self.sci_mode = False
        if self.kind == "b":
            self.width = 5 if arr.size and not arr.all() else 4
            return
        if self.kind in "iu":
            self.width = max((len(str(v)) for v in arr.reshape(-1).tolist()), default=1)
            return
        vals = arr.astype(np.float64).reshape(-1)
        finite = vals[np.isfinite(vals)]
        nz = np.abs(finite[finite != 0])
        self.int_mode = bool((finite == np.ceil(finite)).all()) if finite.size else True
        if nz.size:
            mx, mn = nz.max(), nz.min()
            if self.int_mode:
                self.sci_mode = mx > 1e8
            else:
                self.sci_mode = mx / mn > 1000.0 or mx > 1e8 or mn < 1e-4
        self.width = max((len(self._fmt(v)) for v in vals), default=1)

    def _fmt(self, v) -> str:
        if self.kind == "b":
            return str(bool(v))
        if self.kind in "iu":
            return str(int(v))
        v = float(v)
        if not np.isfinite(v):
            return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
        if self.sci_mode:
            return f"{v:.{PRECISION}e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.{PRECISION}f}"

    def __call__(self, v) -> str:
        return self._fmt(v).rjust(self.width)


def _summarized(arr):
    """The elements that will be printed (for the formatter's width), with the middle cut out."""
    if arr.ndim == 0:
        return arr
    if arr.shape[0] > 2 * EDGEITEMS:
        arr = np.concatenate([arr[:EDGEITEMS], arr[-EDGEITEMS:]])
    return np.stack([_summarized(a) for a in arr]) if arr.ndim > 1 else arr


def _fmt_array(arr, fmt, indent, summarize):
    if arr.ndim == 0:
        return fmt(arr.item() if arr.dtype.kind != "V" else float(arr))
    if arr.ndim == 1:
        items = [fmt(v) for v in (arr.tolist() if arr.dtype.kind != "V" else arr.astype(np.float32).tolist())]
        if summarize and len(items) > 2 * EDGEITEMS:
            items = items[:EDGEITEMS] + ["..."] + items[-EDGEITEMS:]
        per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    n = arr.shape[0]
    idx = list(range(n))
    if summarize and n > 2 * EDGEITEMS:
        idx = idx[:EDGEITEMS] + [None] + idx[-EDGEITEMS:]
    parts = [("..." if i is None else _fmt_array(arr[i], fmt, indent + 1, summarize)) for i in idx]
    sep = "," + "\n" * (arr.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def format_data(arr: np.ndarray, indent: int) -> str:
    summarize = arr.size > THRESHOLD
    fmt = _Formatter(_summarized(arr) if summarize else arr)
    return _fmt_array(arr, fmt, indent, summarize)


def tensor_repr(t, prefix="tensor(") -> str:
    from . import _dtype
    arr = t._data
    if arr.dtype.kind == "V":
        arr = arr.astype(np.float32)
    suffixes = []
    if t._data.size == 0:
        body = "[]"
        if t._data.ndim != 1:
            suffixes.append(f"size={tuple(t._data.shape)}")
    else:
        body = format_data(arr, len(prefix))
    d = t.dtype
    if d not in (_dtype.get_default_dtype(), _dtype.int64, _dtype.bool):
        suffixes.append(f"dtype={d!r}")
    if t.grad_fn is not None and t._rg:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._rg:
        suffixes.append("requires_grad=True")
    return prefix + body + "".join(", " + s for s in suffixes) + ")"
