"""Fractional max pooling (Graham, 2014; ``F.fractional_max_pool2d/3d``): max pooling whose window
starts advance by a non-integer stride ``alpha = (input - kernel) / (output - 1)``, shifted per plane
by a random ``u`` in [0, 1): window ``i`` starts at ``int((i + u) alpha) - int(u alpha)`` (the last at
``input - kernel``), exactly as ATen computes it, in the input's dtype. The ``u`` are drawn with
``torch.rand(N, C, nd)`` unless ``_random_samples`` is given, so seeded runs pool the same windows as
PyTorch. Ties go to the first maximum, NaN to the last NaN, as in ATen."""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Op
from ._window import _check_tensor
from .pooling import _graph_scatter_planes
from .sampling import rand

__all__: list = []  # reached through nn.functional, as in PyTorch

_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _starts(u: np.ndarray, size: int, out: int, k: int) -> np.ndarray:
    """Window starts ``(..., out)`` for samples ``u`` ``(...)`` along a dim of ``size`` (ATen's intervals)."""
    starts = np.empty(u.shape + (out,), np.int64)
    if out > 1:
        alpha = u.dtype.type(size - k) / u.dtype.type(out - 1)
        i = np.arange(out - 1, dtype=u.dtype)
        starts[..., :-1] = ((i + u[..., None]) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)[..., None]
    starts[..., -1] = size - k
    return starts


class _FractionalMaxPool(Op):

    def forward(self, x, *, samples, kernel, out_sp):
        nd = len(kernel)
        sp = x.shape[-nd:]
        n, c = x.shape[0], x.shape[1]
        planes = x.reshape(n, c, math.prod(sp))  # explicit sizes: n or c may be 0
        # flat input index of every (output position, window offset): sum over dims of (start + offset) * stride
        strides = [math.prod(sp[d + 1:]) for d in range(nd)]
        idx = np.zeros((n, c) + tuple(out_sp) + tuple(kernel), np.int64)
        # ATen reads a plane's samples as (w, h) in 2-d but (t, h, w) in 3-d
        which = (1, 0) if nd == 2 else (0, 1, 2)
        for d in range(nd):
            st = _starts(samples[..., which[d]], sp[d], out_sp[d], kernel[d])  # (n, c, out_d)
            st = st.reshape((n, c) + tuple(out_sp[d] if e == d else 1 for e in range(nd)) + (1,) * nd)
            off = np.arange(kernel[d]).reshape((1,) * (2 + nd) + tuple(kernel[d] if e == d else 1 for e in range(nd)))
            idx = idx + (st + off) * strides[d]
        flat = idx.reshape(n, c, math.prod(out_sp), math.prod(kernel))
        vals = np.take_along_axis(planes, flat.reshape(n, c, flat.shape[2] * flat.shape[3]), axis=2).reshape(flat.shape)
        pick = np.argmax(vals, axis=-1)  # the first maximum (NaN counts as the maximum, the first one)
        nan = np.isnan(vals)
        if nan.any():  # ATen keeps the last NaN of a window
            last_nan = vals.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
            pick = np.where(nan.any(-1), last_nan, pick)
        index = np.take_along_axis(flat, pick[..., None], axis=-1)[..., 0]
        out = np.take_along_axis(planes, index, axis=2)
        self.index, self.xshape = index, x.shape
        shape = (n, c) + tuple(out_sp)
        return out.reshape(shape), index.reshape(shape)

    _nondiff_outputs = (1,)

    def backward(self, g, _gi=None):
        n, c = self.xshape[:2]
        if self._graph:  # create_graph=True: a scatter of the gradient through the maxima, on Tensors
            return _graph_scatter_planes(g, self.index, self.xshape[2:])
        gx = np.zeros((n, c, math.prod(self.xshape[2:])), g.dtype)
        where = (np.arange(n)[:, None, None], np.arange(c)[None, :, None], self.index)
        np.add.at(gx, where, g.reshape(self.index.shape))
        return gx.reshape(self.xshape)


class FractionalMaxPool2DBackward0(_FractionalMaxPool):
    pass


class FractionalMaxPool3DBackward0(_FractionalMaxPool):
    pass


def _tuple(v, nd):
    return tuple(int(e) for e in v) if isinstance(v, (list, tuple)) else (int(v),) * nd


def fractional_max_pool(input: Tensor, nd: int, kernel_size, output_size=None, output_ratio=None,
                        return_indices=False, _random_samples=None):
    """``F.fractional_max_pool{nd}d`` (``nd`` 2 or 3): ``(N, C, *spatial)`` or ``(C, *spatial)`` ->
    ``(.., *output_size)`` maxima [, int64 flat indices into each plane]; ``output_ratio`` (each in (0, 1))
    gives ``output_size = int(size * ratio)``.

    Raises ValueError without ``output_size`` or ``output_ratio`` (or a ratio/size of the wrong length);
    RuntimeError for the wrong rank, an empty non-batch dim, ``_random_samples`` of another dtype or the
    wrong shape (at least ``N`` rows; only the first ``N`` are read), or a window larger than the input allows.
    """
    fn = f"fractional_max_pool{nd}d"
    _check_tensor(input, fn)
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fn} requires specifying either an output_size or an output_ratio")
    x = input._data
    if output_size is None:
        if isinstance(output_ratio, (list, tuple)) and len(output_ratio) > nd:
            raise ValueError(f"{fn} requires output_ratio to either be a single Int or tuple of Ints.")
        ratio = tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) else (output_ratio,) * nd
        output_size = [int(s * r) for s, r in zip(x.shape[-nd:], ratio)]
    if isinstance(output_size, (list, tuple)) and len(output_size) not in (1, nd):
        raise RuntimeError(f"{fn}: output_size must either be a single Int or tuple of Ints")
    out_sp = _tuple(output_size[0] if isinstance(output_size, (list, tuple)) and len(output_size) == 1 else output_size,
                    nd)
    kernel = _tuple(kernel_size, nd)
    if x.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{fn}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(x.shape)}")
    batched = x.ndim == nd + 2
    if _random_samples is None:
        _random_samples = rand(x.shape[0] if batched else 1, x.shape[-nd - 1], nd, dtype=input.dtype)
    samples = _random_samples._data
    if samples.dtype != x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    if samples.shape[0] < (x.shape[0] if batched else 1):
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != x.shape[-nd - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {samples.shape[2]}.")
    samples = samples[:x.shape[0] if batched else 1]  # ATen reads only the first N rows
    where = f"{fn}()" if nd == 2 else f"{fn}_out()"
    for d in range(1, x.ndim):  # dim 0 may be empty (ATen treats it as the batch even unbatched)
        if x.shape[d] == 0:
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch dimensions, but got"
                               f"{list(x.shape)} with dimension {d} being empty.")
    for name, size, o, k in zip(_NAMES[nd], x.shape[-nd:], out_sp, kernel):
        if o + k - 1 > size if nd == 2 else o + k - 1 >= size:  # ATen's 3-d check is strict
            raise RuntimeError(f"{where}: pool {name} {k} too large relative to input {name} {size}")
    xin = input if batched else input.unsqueeze(0)
    op = FractionalMaxPool2DBackward0 if nd == 2 else FractionalMaxPool3DBackward0
    out, idx = op.apply(xin, samples=samples.astype(x.dtype, copy=False), kernel=kernel, out_sp=out_sp)
    if not batched:
        out, idx = out.squeeze(0), idx.squeeze(0)
    return (out, idx) if return_indices else out




def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """2-d fractional max pooling (``F.fractional_max_pool2d``); see ``fractional_max_pool``."""
    return fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """3-d fractional max pooling (``F.fractional_max_pool3d``); see ``fractional_max_pool``."""
    return fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """``fractional_max_pool2d`` returning ``(values, indices)``."""
    return fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    """``fractional_max_pool3d`` returning ``(values, indices)``."""
    return fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, True, _random_samples)
