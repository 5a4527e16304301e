"""The functional forms of views: the ``*_copy`` ops and the ``*_scatter`` ops (mirrors PyTorch's
"functionalization" ops: ``torch.view_copy``, ``torch.slice_scatter``, ...).

* ``view_copy(x, shape)`` and friends return what the view would show, in new memory. Each is the view
  op followed by one copy node named as PyTorch names it (``ViewBackward0_copy``): the copy's backward
  passes the gradient through, and the view's own backward does the rest, so no formula is repeated.
* ``slice_scatter(x, src, ...)`` and friends are the inverse: a copy of ``x`` with the region the view
  would show replaced by ``src`` (``src`` cast to ``x``'s dtype). The gradient of ``x`` is the incoming
  gradient with that region zeroed; the gradient of ``src`` is the region.
"""
from __future__ import annotations

import operator

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Op, linear_backward
from ._out import _out
from ._util import wrap_dim
from . import complex_ops as _complex, rearrange as _rearrange, shape as _shape, slicing as _slicing
from . import strided as _strided
from .strided import _positions

__all__ = """view_copy permute_copy transpose_copy t_copy unsqueeze_copy squeeze_copy expand_copy diagonal_copy
select_copy slice_copy split_copy split_with_sizes_copy unbind_copy detach_copy alias_copy as_strided_copy
narrow_copy unfold_copy view_as_real_copy view_as_complex_copy
slice_scatter select_scatter diagonal_scatter as_strided_scatter""".split()


# ------------------------------------------------------------------------------------------------
# *_copy: the view, then a copy node named after it
# ------------------------------------------------------------------------------------------------
class _CopyOfView(Op):
    """A contiguous copy of a view's result; the gradient passes through unchanged."""
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)

    def forward(self, a):
        return np.array(a, order="C", copy=True)

    def backward(self, g):
        return g


_COPY_NODES: dict = {}


def _copy_node(view_node) -> type:
    """The copy Op class named ``<view node>_copy`` (PyTorch's name for the node of ``view_copy`` & co.)."""
    name = (view_node if isinstance(view_node, str) else type(view_node).__name__) + "_copy"
    cls = _COPY_NODES.get(name)
    if cls is None:
        cls = _COPY_NODES[name] = type(name, (_CopyOfView,), {"__module__": __name__})
    return cls


def _copied(result, node=None):
    if isinstance(result, tuple):
        return tuple(_copied(r) for r in result)
    return _copy_node(result.grad_fn if node is None else node).apply(result)


def _copy_of(view_fn, name):
    def op(input, *args, **kwargs):
        out = kwargs.pop("out", None)
        res = _copied(view_fn(input, *args, **kwargs))
        return res if out is None else _out(res, out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"``torch.{name}``: what ``{view_fn.__name__}`` would return, as a new tensor (no memory "
                  f"shared with ``input``); differentiable as the view is.")
    return op


view_copy = _copy_of(_shape.view, "view_copy")
permute_copy = _copy_of(_shape.permute, "permute_copy")
transpose_copy = _copy_of(_shape.transpose, "transpose_copy")
t_copy = _copy_of(_shape.t, "t_copy")
unsqueeze_copy = _copy_of(_shape.unsqueeze, "unsqueeze_copy")
squeeze_copy = _copy_of(_shape.squeeze, "squeeze_copy")
expand_copy = _copy_of(_shape.expand, "expand_copy")


def diagonal_copy(input: Tensor, offset=0, dim1=0, dim2=1, *, out=None) -> Tensor:
    """``torch.diagonal_copy``: ``diagonal``'s result in new memory (node ``DiagonalBackward0_copy``, the one
    ``torch.diag`` of a matrix records)."""
    nd = input.dim()
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _out(_rearrange.DiagonalBackward0_copy.apply(input, offset=offset, d1=d1, d2=d2), out)


select_copy = _copy_of(_slicing.select, "select_copy")
split_copy = _copy_of(_slicing.split, "split_copy")
split_with_sizes_copy = _copy_of(lambda x, split_sizes, dim=0: _slicing.split(x, list(split_sizes), dim),
                                 "split_with_sizes_copy")
unbind_copy = _copy_of(_slicing.unbind, "unbind_copy")
as_strided_copy = _copy_of(_strided.as_strided, "as_strided_copy")
unfold_copy = _copy_of(_strided.unfold, "unfold_copy")
view_as_real_copy = _copy_of(_complex.view_as_real, "view_as_real_copy")
view_as_complex_copy = _copy_of(_complex.view_as_complex, "view_as_complex_copy")


def alias_copy(input: Tensor, *, out=None) -> Tensor:
    """``torch.alias_copy``: a copy of ``input`` (the copy of its alias), node ``AliasBackward0_copy``."""
    return _out(_copied(input, "AliasBackward0"), out)


def detach_copy(input: Tensor, *, out=None) -> Tensor:
    """``torch.detach_copy``: a copy of ``input`` outside the graph (never requires grad)."""
    res = _shape.clone(input.detach(), memory_format=None)
    return res if out is None else _out(res, out)


def _slice_bounds(n, start, end, step):
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    start = 0 if start is None else operator.index(start)
    end = n if end is None else operator.index(end)
    start, end = (start + n if start < 0 else start), (end + n if end < 0 else end)
    start = min(max(start, 0), n)
    return start, min(max(end, start), n)


def _slice_view(input, dim=0, start=None, end=None, step=1):
    if input.dim() == 0:
        raise RuntimeError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input.dim())
    lo, hi = _slice_bounds(input.shape[d], start, end, step)
    return input[(slice(None),) * d + (slice(lo, hi, step),)]


slice_copy = _copy_of(_slice_view, "slice_copy")


def narrow_copy(input: Tensor, dim, start, length) -> Tensor:
    """``torch.narrow_copy``: ``narrow``'s result in new memory (node ``NarrowCopyBackward0``)."""
    nd = input.dim()
    if nd and isinstance(dim, int) and dim >= nd:  # PyTorch's narrow_copy checks this bound itself (a negative dim: IndexError)
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.")
    if nd and isinstance(length, int) and length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({input.shape[wrap_dim(dim, nd)]}).")
    return NarrowCopyBackward0.apply(_slicing.narrow(input, dim, start, length))


class NarrowCopyBackward0(_CopyOfView):
    pass


# ------------------------------------------------------------------------------------------------
# *_scatter: the input with a view's region replaced by src
# ------------------------------------------------------------------------------------------------
class _ViewScatter(Op):
    """``out = input`` with ``out[key] = src``; ``key`` picks the region (an index tuple, or flat storage
    positions when ``flat``)."""

    def forward(self, a, src, key, flat=False):
        self.key, self.flat, self.shape = key, flat, a.shape
        out = np.array(a, order="C", copy=True)
        (out.reshape(-1) if flat else out)[key] = src
        return out

    def backward(self, g):
        if self._graph:
            return linear_backward(self, (g,), lambda ga, gs: self.forward(ga, gs, self.key, self.flat))
        ga = np.array(g, order="C", copy=True)
        view = ga.reshape(-1) if self.flat else ga
        gs = view[self.key].copy()
        view[self.key] = 0
        return ga, gs


class SliceScatterBackward0(_ViewScatter):
    pass


class SelectScatterBackward0(_ViewScatter):
    pass


class DiagonalScatterBackward0(_ViewScatter):
    pass


class AsStridedScatterBackward0(_ViewScatter):
    pass


def _check_src(input, src, region_shape, name):
    for arg, t in (("input", input), ("src", src)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' must be Tensor, not {type(t).__name__}")
    if tuple(src.shape) != tuple(region_shape):
        what = "slice" if name == "slice_scatter" else "embedding"
        raise RuntimeError(f"expected src to have a size equal to the {what} of self. src size = {list(src.shape)}, "
                           f"{what} size = {list(region_shape)}")
    return src if src.dtype == input.dtype else src.to(input.dtype)


def slice_scatter(input: Tensor, src: Tensor, dim=0, start=None, end=None, step=1) -> Tensor:
    """``input`` with ``input[..., start:end:step, ...]`` (along ``dim``) replaced by ``src``
    (``torch.slice_scatter``). RuntimeError when ``src``'s shape is not the slice's."""
    d = wrap_dim(dim, max(input.dim(), 1))
    if input.dim() == 0:
        raise RuntimeError("slice() cannot be applied to a 0-dim tensor.")
    lo, hi = _slice_bounds(input.shape[d], start, end, step)
    key = (slice(None),) * d + (slice(lo, hi, step),)
    region = input._data[key].shape
    src = _check_src(input, src, region, "slice_scatter")
    return SliceScatterBackward0.apply(input, src, key=key)


def select_scatter(input: Tensor, src: Tensor, dim, index) -> Tensor:
    """``input`` with ``input.select(dim, index)`` replaced by ``src`` (``torch.select_scatter``)."""
    region = _slicing.select(input.detach(), dim, index)  # IndexError / RuntimeError as select
    d, n = wrap_dim(dim, input.dim()), input.shape[wrap_dim(dim, input.dim())]
    key = (slice(None),) * d + (operator.index(index) % n, Ellipsis)
    src = _check_src(input, src, region.shape, "select_scatter")
    return SelectScatterBackward0.apply(input, src, key=key)


def diagonal_scatter(input: Tensor, src: Tensor, offset=0, dim1=0, dim2=1) -> Tensor:
    """``input`` with ``input.diagonal(offset, dim1, dim2)`` replaced by ``src`` (``torch.diagonal_scatter``)."""
    region = _rearrange.diagonal(input.detach(), offset, dim1, dim2)
    nd = input.dim()
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    # the diagonal's elements as flat positions of the (contiguous) result
    idx = np.arange(input._data.size, dtype=np.int64).reshape(input._data.shape)
    key = np.diagonal(idx, offset, d1, d2)
    src = _check_src(input, src, region.shape, "diagonal_scatter")
    return DiagonalScatterBackward0.apply(input, src, key=key, flat=True)


def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset=None) -> Tensor:
    """``input`` (as a contiguous storage) with ``as_strided(size, stride, storage_offset)`` replaced by
    ``src`` (``torch.as_strided_scatter``)."""
    size, stride = _shape._ints((size,), "as_strided_scatter"), _shape._ints((stride,), "as_strided_scatter", "stride")
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    offset = 0 if storage_offset is None else operator.index(storage_offset)
    n = input._data.size
    need = offset + sum((k - 1) * st for k, st in zip(size, stride)) + 1 if all(size) else 0
    if min(size + stride + (offset,)) < 0 or need > n:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset} are out "
                           f"of bounds for storage of {n} elements")
    key = _positions(n, size, stride, offset)
    src = _check_src(input, src, size, "as_strided_scatter")
    return AsStridedScatterBackward0.apply(input, src, key=np.array(key), flat=True)
