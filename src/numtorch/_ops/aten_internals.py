"""PyTorch's lower-level (ATen) operators that programs and PyTorch's own decompositions call directly:
``torch.constant_pad_nd``, ``torch.fill``, ``torch.unsafe_split``, ``torch._chunk_cat``,
``torch._unsafe_masked_index``, ``torch.nonzero_static``, ``torch.empty_permuted``, ``torch._softmax_backward_data``,
... Each is composed from numtorch's public ops, so values, dtypes and gradients are theirs.

``ATEN_ONLY`` lists the operators PyTorch reaches only as ``torch.ops.aten.<name>`` (no ``torch.<name>``):
``numtorch.ops.aten`` (``library.py``) looks names up there first, then in the ``numtorch`` namespace.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from .._tensor import Tensor, _make
from . import _inplace as _ip, creation as _C, grid_sample as _GS, indexing as _I, logic as _L, nn_ops as _N
from . import pointwise as _P, rearrange as _RA, reduction as _R, scatter as _SC, shape as _S, slicing as _SL
from . import strided as _ST, unary as _U
from ._util import wrap_dim
from .conv import pad as _pad
from .resample import _upsample_bilinear2d_aa
from .native_norms import _batch_norm_with_update

__all__ = ["resolve_neg", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes", "fill", "fill_", "zero_",
           "resize_as_", "constant_pad_nd", "empty_permuted", "nonzero_static", "_chunk_cat",
           "_unsafe_masked_index", "_unsafe_masked_index_put_accumulate", "_softmax_backward_data", "_safe_softmax",
           "grid_sampler_2d", "grid_sampler_3d"]


def resolve_neg(input: Tensor) -> Tensor:
    """``torch.resolve_neg``: ``input`` itself (numtorch has no lazy negation bit, so nothing to resolve)."""
    return input


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0):
    """``torch.unsafe_chunk``: ``torch.chunk`` (PyTorch's variant skips the view checks of in-place writes)."""
    return _SL.chunk(input, chunks, dim)


def unsafe_split(tensor: Tensor, split_size, dim: int = 0):
    """``torch.unsafe_split``: ``torch.split`` (PyTorch's variant skips the view checks of in-place writes)."""
    return _SL.split(tensor, split_size, dim)


def unsafe_split_with_sizes(input: Tensor, split_sizes, dim: int = 0):
    """``torch.unsafe_split_with_sizes``: ``torch.split_with_sizes``."""
    return _SL.split_with_sizes(input, split_sizes, dim)


def fill(input: Tensor, value) -> Tensor:
    """``torch.fill``: a new tensor of ``input``'s shape and dtype holding ``value`` (a number or a 0-d
    tensor, whose gradient is the sum of the incoming one). RuntimeError for a value with dims."""
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions.")
    return _S.clone(_S.expand(_ip._filled(input, value), input._data.shape))


fill_, zero_ = _ip.fill_, _ip.zero_


def resize_as_(input: Tensor, the_template: Tensor, *, memory_format=None) -> Tensor:
    """``torch.resize_as_``: ``input.resize_(the_template.shape)``."""
    return _ST.resize_(input, tuple(the_template._data.shape))


def constant_pad_nd(input: Tensor, pad, value=0) -> Tensor:
    """``torch.constant_pad_nd``: ``F.pad(input, pad, "constant", value)`` (negative pads crop)."""
    return _pad(input, list(pad), "constant", value)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False) -> Tensor:
    """``torch.empty_permuted``: an uninitialized tensor of shape ``size`` laid out in memory in the order
    ``physical_layout`` (outermost dim first). RuntimeError for a layout that is not a permutation."""
    size, order = tuple(int(s) for s in size), tuple(int(d) for d in physical_layout)
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; "
                           f"i.e. len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {d} "
                               f"at index {i}).  NB: negative dims not currently supported; file an issue if you "
                               f"want it.")
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    phys = _C.empty(tuple(size[d] for d in order), dtype=dtype, device=device)
    out = _S.permute(phys, tuple(np.argsort(order).tolist()))
    return out.requires_grad_(True) if requires_grad else out


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``torch.nonzero_static``: ``torch.nonzero``'s ``(n, ndim)`` int64 indices cut or padded with
    ``fill_value`` to exactly ``size`` rows."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got {size}")
    idx = np.argwhere(input._data)[:size]
    out = np.full((size, input._data.ndim), fill_value, np.int64)
    out[:len(idx)] = idx
    return _make(out)


def _chunk_cat(tensors, dim: int, num_chunks: int) -> Tensor:
    """``torch._chunk_cat``: each tensor padded with zeros along ``dim`` to a multiple of ``num_chunks``,
    viewed as ``(*lead, num_chunks, -1)`` and concatenated along ``dim + 1``. RuntimeError for what
    PyTorch refuses (empty or mixed-dtype tensors, differing leading sizes, a bad ``dim``/``num_chunks``)."""
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    if not tensors:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    for t in tensors:
        if t._data.size == 0:
            raise RuntimeError("_chunk_cat expects non-empty tensor")
        if t._data.dtype != tensors[0]._data.dtype:
            raise RuntimeError("_chunk_cat expects all input tensors with the same dtype")
    ndims = {t._data.ndim for t in tensors}
    if len(ndims) == 1:
        n = ndims.pop()
        if not -n <= dim < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        dim %= n
    elif dim < 0:
        raise RuntimeError("_chunk_cat expects non-negative dim when input tensors have different ndims")
    elif any(dim >= t._data.ndim for t in tensors):
        raise RuntimeError("_chunk_cat expects dim < ndim for all input tensors")
    lead = tensors[0]._data.shape[:dim]
    if any(t._data.shape[:dim] != lead for t in tensors):
        raise RuntimeError("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors")
    pieces = []
    for t in tensors:
        n = t._data.shape[dim]
        extra = -n % num_chunks
        if extra:
            t = constant_pad_nd(t, [0, 0] * (t._data.ndim - dim - 1) + [0, extra], 0)
        pieces.append(_S.reshape(t, (*lead, num_chunks, -1)))
    return _RA.cat(pieces, dim + 1)


def _checked_mask(indices, mask):
    """The mask as bool (PyTorch's CPU kernels read any nonzero as True); RuntimeError for a float index."""
    for i in indices:
        if i is not None and i._data.dtype not in (np.int64, np.int32):
            raise RuntimeError(f"_unsafe_masked_index found unexpected index type {i.dtype._aten_name}")
    return mask if mask._data.dtype == np.bool_ else _L.ne(mask, 0)


def _index_key(indices):
    """``aten.index``'s list (None: the whole dim) as a Python indexing key."""
    return tuple(builtins.slice(None) if i is None else i for i in indices)  # (this module defines aten.slice)


def _unsafe_masked_index(input: Tensor, mask: Tensor, indices, fill) -> Tensor:
    """``torch._unsafe_masked_index``: ``input[indices]`` where ``mask`` is True and ``fill`` elsewhere;
    indices under a False mask may be out of range (they are clamped, never read)."""
    mask = _checked_mask(indices, mask)
    shape = input._data.shape
    if input._data.size == 0:
        lead = np.broadcast_shapes(*(i._data.shape for i in indices if i is not None))
        rest = shape[len(indices):]
        return _C.full((*lead, *rest), fill, dtype=input.dtype)
    clamped = [None if i is None else _U.clamp(i, 0, shape[k] - 1) for k, i in enumerate(indices)]
    return _I.masked_fill(_I.getitem(input, _index_key(clamped)), _L.logical_not(mask), fill)


def _unsafe_masked_index_put_accumulate(input: Tensor, mask: Tensor, indices, values: Tensor) -> Tensor:
    """``torch._unsafe_masked_index_put_accumulate``: a copy of ``input`` with ``values`` added at
    ``indices`` where ``mask`` is True (out-of-range indices under a False mask are clamped and add 0)."""
    mask = _checked_mask(indices, mask)
    shape = input._data.shape
    if input._data.size == 0:
        return _S.clone(input)
    clamped = [None if i is None else _U.clamp(i, -shape[k], shape[k] - 1) for k, i in enumerate(indices)]
    return _I.index_put(input, clamped, _I.masked_fill(values, _L.logical_not(mask), 0), accumulate=True)


def slice(input: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:  # noqa: A001 (aten's name)
    """``torch.ops.aten.slice.Tensor``: the view ``input[start:end:step]`` along ``dim`` (bounds clamped, as
    Python's). RuntimeError for a step below 1, IndexError for a bad ``dim``."""
    if step < 1:
        raise RuntimeError("slice step must be positive")
    d = wrap_dim(dim, max(input._data.ndim, 1))
    return _I.getitem(input, (builtins.slice(None),) * d + (builtins.slice(start, end, step),))


def native_dropout_backward(grad_output: Tensor, mask: Tensor, scale: float) -> Tensor:
    """``torch.ops.aten.native_dropout_backward``: ``grad_output * mask * scale`` (integer and bool
    gradients become floating point through the float ``scale``)."""
    return _P.mul(_P.mul(grad_output, mask), scale)


def _softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype) -> Tensor:
    """``torch._softmax_backward_data``: the gradient of softmax's input from its output ``output`` and the
    gradient ``grad_output``: ``output * (grad_output - sum(grad_output * output, dim))``. RuntimeError
    when the two have different dtypes."""
    if grad_output._data.dtype != output._data.dtype:
        raise RuntimeError(f"expected scalar type {output.dtype._aten_name} but found {grad_output.dtype._aten_name}")
    dot = _R.sum(_P.mul(grad_output, output), dim, keepdim=True)
    return _P.mul(output, _P.sub(grad_output, dot))


def _safe_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """``torch._safe_softmax``: ``softmax``, with 0 (instead of NaN) along slices that are all ``-inf``
    (fully masked attention rows)."""
    masked = _L.eq(input, -math.inf).all(dim, keepdim=True)
    zero = _C.zeros((), dtype=input.dtype)
    out = _N.softmax(_P.where(masked, zero, input), dim, dtype)  # no NaN row, so no NaN gradient either
    return _P.where(masked, _C.zeros((), dtype=out.dtype), out)


def max_pool2d_with_indices_backward(grad_output: Tensor, input: Tensor, kernel_size, stride, padding, dilation,
                                     ceil_mode: bool, indices: Tensor) -> Tensor:
    """``torch.ops.aten.max_pool2d_with_indices_backward``: ``grad_output`` added into zeros of ``input``'s
    shape at the flat per-plane ``indices`` ``max_pool2d_with_indices`` returned."""
    shape = input._data.shape
    planes = math.prod(shape[:-2])
    g = _S.reshape(grad_output, (planes, -1))
    idx = _S.reshape(indices, (planes, -1))
    zeros = _C.zeros((planes, shape[-2] * shape[-1]), dtype=grad_output.dtype)
    return _S.reshape(_SC.scatter_add(zeros, 1, idx, g), shape)


_INTERPOLATION = ("bilinear", "nearest", "bicubic")
_PADDING = ("zeros", "border", "reflection")


def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """``torch.grid_sampler_2d``: ``F.grid_sample`` with the modes as ATen's enums (interpolation 0 bilinear,
    1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection)."""
    return _GS.grid_sample(input, grid, _INTERPOLATION[interpolation_mode], _PADDING[padding_mode], align_corners)


grid_sampler_3d = grid_sampler_2d  # grid_sample tells a 5-D (volumetric) input from a 4-D one





# operators PyTorch has only under torch.ops.aten (numtorch.ops.aten looks here first)
ATEN_ONLY = {
    "_batch_norm_with_update": _batch_norm_with_update,
    "slice": slice,
    "native_dropout_backward": native_dropout_backward,
    "max_pool2d_with_indices_backward": max_pool2d_with_indices_backward,
    "_upsample_bilinear2d_aa": _upsample_bilinear2d_aa,
}
