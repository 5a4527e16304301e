"""Tensor printing in PyTorch's format (mirrors ``torch/_tensor_str.py``).

One formatter per tensor decides how every element prints (integer-valued floats as ``1.``,
fixed ``1.2346`` with 4 decimals, or scientific ``1.2346e+05`` when the nonzero finite magnitudes
span more than 1000x, exceed 1e8 or, for non-integers, go below 1e-4); elements are right-aligned
to a common width measured on the nonzero finite values only; rows wrap at 80 columns; tensors with
more than 1000 elements show the first and last 3 items of each dimension around ``...``; the
``dtype=``/``grad_fn=`` suffixes move to a new line when they would pass 80 columns.
"""
from __future__ import annotations

import numpy as np

from . import _dtype
from ._tensor_sparse import SparseCOO

# Print options; ``numtorch.set_printoptions`` assigns them. SCI_MODE None: chosen per tensor (below).
PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH, SCI_MODE = 4, 1000, 3, 80, None


class _Formatter:
    """How every element of one (real) array prints; ``width`` is the common field width."""

    def __init__(self, arr: np.ndarray):
        self.floating = arr.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = arr.reshape(-1)
        if not self.floating:
            self.width = max((len(str(v)) for v in flat.tolist()), default=1)
            return
        vals = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if not vals.size:
            return
        mag = np.abs(vals)
        mx, mn = mag.max(), mag.min()
        self.int_mode = bool((vals == np.ceil(vals)).all())
        if self.int_mode:
            self.sci_mode = mx / mn > 1000.0 or mx > 1.0e8
        else:
            self.sci_mode = mx / mn > 1000.0 or mx > 1.0e8 or mn < 1.0e-4
        if SCI_MODE is not None:
            self.sci_mode = bool(SCI_MODE)
        self.width = max(len(self._fmt(v)) for v in vals.tolist())

    def _fmt(self, v) -> str:
        if not self.floating:
            return str(v)
        if self.sci_mode:
            return f"{v:.{PRECISION}e}"
        if self.int_mode:
            s = f"{v:.0f}"
            return s if v != v or v in (float("inf"), float("-inf")) else s + "."
        return f"{v:.{PRECISION}f}"

    def __call__(self, v) -> str:
        return self._fmt(v).rjust(self.width)


class _ComplexFormatter:
    """Complex elements: real and imaginary parts each get their own formatter, as in PyTorch."""

    def __init__(self, arr: np.ndarray):
        self.re, self.im = _Formatter(arr.real), _Formatter(arr.imag)
        self.width = self.re.width + self.im.width + 1  # element_length adds the "j" and the sign

    def __call__(self, v) -> str:
        im = (self.im(v.imag) + "j").lstrip()
        return self.re(v.real) + (im if im[0] in "+-" else "+" + im)


def _summarized(arr):
    """The elements that will be printed (for the formatter's width), with the middle cut out."""
    if arr.ndim == 0:
        return arr
    if arr.shape[0] > 2 * EDGEITEMS:
        arr = np.concatenate([arr[:EDGEITEMS], arr[-EDGEITEMS:]])
    return np.stack([_summarized(a) for a in arr]) if arr.ndim > 1 else arr


def _fmt_array(arr, fmt, indent, summarize):
    if arr.ndim == 0:
        return fmt(arr.item())
    if arr.ndim == 1:
        if summarize and len(arr) > 2 * EDGEITEMS:
            items = [fmt(v) for v in arr[:EDGEITEMS].tolist()] + [" ..."] + [fmt(v) for v in arr[-EDGEITEMS:].tolist()]
        else:
            items = [fmt(v) for v in arr.tolist()]
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
    shown = _summarized(arr) if summarize else arr
    fmt = _ComplexFormatter(shown) if arr.dtype.kind == "c" else _Formatter(shown)
    return _fmt_array(arr, fmt, indent, summarize)


def _add_suffixes(text, suffixes, indent, force_newline=False):
    """Append ``, suffix`` items, starting a new line for any that would pass the line width (and for the
    first one with ``force_newline``, as sparse tensors print)."""
    out = [text]
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if force_newline or last + len(s) + 2 > LINEWIDTH:
            out.append(",\n" + " " * indent + s)
            last = indent + len(s)
            force_newline = False
        else:
            out.append(", " + s)
            last += len(s) + 2
    return "".join(out) + ")"


def _half_as_float(arr):
    """PyTorch prints half types through float32."""
    return arr.astype(np.float32) if arr.dtype.kind == "V" or arr.dtype == np.float16 else arr


def _part(name, arr, indent):
    """``name=tensor(...)`` of a sparse tensor's indices or values (data only; an empty one says its size)."""
    prefix = f"{name}=tensor("
    body = format_data(_half_as_float(arr), indent + len(prefix)) if arr.size else "[]"
    return prefix + body + ("" if arr.size else f", size={tuple(arr.shape)}") + ")"


def _grad_suffix(t) -> list:
    """``grad_fn=<...>`` or ``requires_grad=True`` (or nothing), the last suffix PyTorch prints."""
    if t.grad_fn is not None and t._rg:
        return [f"grad_fn=<{t.grad_fn.name()}>"]
    return ["requires_grad=True"] if t._rg else []


def _sparse_repr(t, prefix) -> str:
    """PyTorch's print of a sparse COO tensor: indices, values, then size/nnz/dtype/layout on new lines."""
    p, indent = t._data, len(prefix)
    body = _part("indices", p.indices, indent) + ",\n" + " " * indent + _part("values", p.values, indent)
    suffixes = [f"size={tuple(p.shape)}", f"nnz={p.nnz}"]
    d, default = t.dtype, _dtype.get_default_dtype()
    if d not in (default, _dtype.complex128 if default is _dtype.float64 else _dtype.complex64, _dtype.int64,
                 _dtype.bool):
        suffixes.append(f"dtype={d!r}")
    suffixes.append("layout=torch.sparse_coo")
    suffixes += _grad_suffix(t)
    return _add_suffixes(prefix + body, suffixes, indent, force_newline=True)


def _meta_repr(t, prefix) -> str:
    suffixes = ["device='meta'", f"size={tuple(t._data.shape)}"]
    if t.dtype is not _dtype.get_default_dtype():
        suffixes.append(f"dtype={t.dtype!r}")
    suffixes += _grad_suffix(t)
    return prefix + "..., " + ", ".join(suffixes) + ")"


def tensor_repr(t, prefix="tensor(") -> str:
    arr = t._data
    if type(arr) is SparseCOO:
        return _sparse_repr(t, prefix)
    if t.is_meta:  # no data: PyTorch prints "..." and the size
        return _meta_repr(t, prefix)
    if arr.dtype.kind == "V" or arr.dtype == np.float16:  # PyTorch prints half types through float32
        arr = arr.astype(np.float32)
    suffixes = []
    d = t.dtype
    default = _dtype.get_default_dtype()
    default_complex = _dtype.complex128 if default is _dtype.float64 else _dtype.complex64
    if t._data.size == 0:
        body = "[]"
        if t._data.ndim != 1:
            suffixes.append(f"size={tuple(t._data.shape)}")
        if d is not default:  # no elements to tell int64/bool apart: always say so
            suffixes.append(f"dtype={d!r}")
    else:
        body = format_data(arr, len(prefix))
        if d not in (default, default_complex, _dtype.int64, _dtype.bool):
            suffixes.append(f"dtype={d!r}")
    suffixes += _grad_suffix(t)
    return _add_suffixes(prefix + body, suffixes, len(prefix))
