"""``default_collate`` / ``default_convert`` (mirrors ``torch.utils.data._utils.collate``)."""
from __future__ import annotations

import collections.abc
import numbers

import numpy as np

from ..._ops.rearrange import stack
from ..._tensor import Tensor, _make

__all__ = ["default_collate", "default_convert"]

_ERR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_collate(batch):
    """Stack a list of samples into a batch as PyTorch does.

    Tensors and NumPy arrays stack along a new dim 0; Python floats become a float64 tensor, ints an
    int64 tensor, bools a bool tensor; strings stay a list; dicts, namedtuples, tuples and lists are
    collated field by field (tuples come back as lists, as in PyTorch). RuntimeError when sequences
    in the batch differ in length; TypeError for unsupported element types.
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OSU":
            raise TypeError(_ERR.format(elem.dtype))
        return _make(np.stack(batch))
    if isinstance(elem, np.generic):
        return _make(np.asarray(batch))
    if isinstance(elem, bool):
        return _make(np.asarray(batch, dtype=np.bool_))
    if isinstance(elem, numbers.Integral):
        return _make(np.asarray(batch, dtype=np.int64))
    if isinstance(elem, float):
        return _make(np.asarray(batch, dtype=np.float64))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        out = {k: default_collate([d[k] for d in batch]) for k in elem}
        try:
            return type(elem)(out)
        except TypeError:
            return out
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        n = len(elem)
        if not all(len(e) == n for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        cols = [default_collate(s) for s in zip(*batch)]  # each column stays a tuple, as in PyTorch
        if isinstance(elem, tuple):
            return cols
        try:
            return type(elem)(cols)
        except TypeError:
            return cols
    raise TypeError(_ERR.format(type(elem)))


def default_convert(data):
    """Convert NumPy arrays in a sample to tensors, leaving everything else (used when batch_size is None)."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OSU":
        return _make(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as PyTorch returns
    if isinstance(data, list):
        return [default_convert(d) for d in data]
    return data
