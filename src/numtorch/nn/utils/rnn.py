"""Variable-length sequence batches (mirrors ``torch.nn.utils.rnn``): padding and packing.

A *packed* batch stores the valid time steps of every sequence, time-major: ``data`` holds step 0
of every sequence, then step 1 of those at least 2 long, ...; ``batch_sizes[t]`` is how many
sequences are still running at step ``t``. Sequences are ordered longest first inside the pack;
``sorted_indices`` maps that order to the caller's batch order and ``unsorted_indices`` back
(both None when the caller already sorted them).

Every conversion here is one gather with a precomputed index array (no loop over sequences or
steps), so gradients flow through packing and unpacking.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ... import _dtype
from ..._ops.creation import full
from ..._ops.rearrange import cat
from ..._tensor import Tensor, _make

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence", "unpad_sequence",
           "pack_sequence", "unpack_sequence", "invert_permutation"]


def invert_permutation(permutation):
    """The inverse of an index permutation (None stays None)."""
    if permutation is None:
        return None
    p = permutation._data
    inv = np.empty_like(p)
    inv[p] = np.arange(p.size, dtype=p.dtype)
    return _make(inv)


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """A packed batch (``torch.nn.utils.rnn.PackedSequence``): ``data`` ``(sum(lengths), *)``,
    ``batch_sizes`` (int64, one per time step), ``sorted_indices``/``unsorted_indices`` (int64 or None).
    Build it with ``pack_padded_sequence`` or ``pack_sequence``, not directly."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence(*pack_output) form
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with_data(self, data):
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else self._with_data(data)

    def cpu(self, *args, **kwargs):
        return self

    def cuda(self, *args, **kwargs):
        return self._with_data(self.data.cuda(*args, **kwargs))

    def double(self):
        return self.to(_dtype.float64)

    def float(self):
        return self.to(_dtype.float32)

    def half(self):
        return self.to(_dtype.float16)

    def long(self):
        return self.to(_dtype.int64)

    def int(self):
        return self.to(_dtype.int32)

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def _lengths_array(lengths):
    arr = lengths._data if isinstance(lengths, Tensor) else np.asarray(lengths)
    return np.asarray(arr, np.int64).reshape(-1)


def _positions(lengths_sorted, total):
    """(time, batch) index pairs of the valid steps in packed order, for sorted lengths."""
    mask = np.arange(total)[:, None] < lengths_sorted[None, :]
    return np.nonzero(mask)  # row-major: time-major, then batch, which is the packed order


def pack_padded_sequence(input: Tensor, lengths, batch_first=False, enforce_sorted=True) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` if ``batch_first``) with per-sequence
    ``lengths`` (list or int64 tensor) (``torch.nn.utils.rnn.pack_padded_sequence``).

    With ``enforce_sorted`` the lengths must already be decreasing; otherwise the batch is sorted
    here and the permutation recorded. RuntimeError for unsorted (when enforced), non-positive or
    too many/too few lengths.
    """
    lens = _lengths_array(lengths)
    if batch_first:
        input = input.transpose(0, 1)
    T, B = input.shape[0], input.shape[1]
    if lens.size != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lens.size} (batch_size={B})")
    if lens.size and lens.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if lens.size and lens.max() > T:
        raise RuntimeError(f"numtorch: a length ({lens.max()}) exceeds the padded sequence length ({T})")
    if enforce_sorted:
        if np.any(np.diff(lens) > 0):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
        order, sorted_indices = np.arange(B), None
    else:
        order = np.argsort(-lens, kind="stable")
        sorted_indices = _make(order.astype(np.int64))
    t_idx, b_idx = _positions(lens[order], int(lens.max()) if lens.size else 0)
    data = input[_make(t_idx), _make(order[b_idx])]
    batch_sizes = np.bincount(t_idx, minlength=int(lens.max()) if lens.size else 0).astype(np.int64)
    return PackedSequence(data, _make(batch_sizes), sorted_indices, None)


def _lengths_from_batch_sizes(bs):
    """Sorted (decreasing) lengths from batch sizes: sequence b runs while batch_sizes[t] > b."""
    return np.sum(bs[:, None] > np.arange(bs[0] if bs.size else 0)[None, :], axis=0).astype(np.int64)


def pad_packed_sequence(sequence: PackedSequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo ``pack_padded_sequence``: ``(padded, lengths)`` with padded ``(T, B, *)`` (``(B, T, *)`` if
    ``batch_first``) in the caller's batch order and ``lengths`` int64
    (``torch.nn.utils.rnn.pad_packed_sequence``). ``total_length`` pads T further; ValueError if it is
    shorter than the longest sequence."""
    data, bs = sequence.data, sequence.batch_sizes._data
    lens = _lengths_from_batch_sizes(bs)
    T = bs.size
    if total_length is not None:
        if total_length < T:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {T}")
        T = total_length
    B = lens.size
    t_idx, b_idx = _positions(lens, T)
    # a gather from data plus one padding row: idx[t, b] = packed position, or the padding row
    idx = np.full((T, B), data.shape[0], np.int64)
    idx[t_idx, b_idx] = np.arange(t_idx.size)
    if sequence.unsorted_indices is not None:
        perm = sequence.unsorted_indices._data
        idx, lens = idx[:, perm], lens[perm]
    if batch_first:
        idx = idx.T
    pad = full((1,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    padded = cat([data, pad], 0)[_make(np.ascontiguousarray(idx))]
    return padded, _make(lens)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right") -> Tensor:
    """Stack tensors ``(L_i, *)`` into ``(L_max, B, *)`` (``(B, L_max, *)`` if ``batch_first``),
    filling with ``padding_value`` on the ``padding_side`` ('right' or 'left')
    (``torch.nn.utils.rnn.pad_sequence``). RuntimeError for an empty list, mismatched trailing
    shapes or another padding side."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    trailing = tuple(sequences[0].shape[1:])
    for s in sequences[1:]:
        if tuple(s.shape[1:]) != trailing:
            a, b = trailing, tuple(s.shape[1:])
            i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), 0)
            raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                               f"non-singleton dimension {i + 1}")
    lens = np.array([s.shape[0] for s in sequences], np.int64)
    T, B = int(lens.max()), lens.size
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
    t = np.arange(T)[:, None]
    offset = t - (T - lens)[None, :] if padding_side == "left" else np.broadcast_to(t, (T, B))
    valid = (offset >= 0) & (offset < lens[None, :])
    idx = np.where(valid, starts[None, :] + offset, int(lens.sum()))  # the last row is the padding row
    if batch_first:
        idx = idx.T
    pad = full((1,) + trailing, padding_value, dtype=sequences[0].dtype)
    return cat(sequences + [pad], 0)[_make(np.ascontiguousarray(idx))]


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first=False):
    """The list of unpadded sequences of a right-padded batch (``torch.nn.utils.rnn.unpad_sequence``)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, :int(n)] for i, n in enumerate(_lengths_array(lengths))]


def pack_sequence(sequences, enforce_sorted=True) -> PackedSequence:
    """Pack a list of tensors ``(L_i, *)`` (``torch.nn.utils.rnn.pack_sequence``); with
    ``enforce_sorted`` they must come longest first."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence):
    """The list of sequences of a packed batch, in the caller's order (``torch.nn.utils.rnn.unpack_sequence``)."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
