"""Recurrent layers (mirrors ``torch/nn/modules/rnn.py``): RNN, LSTM, GRU and their cells.

Parameter names, shapes and gate order are PyTorch's, so checkpoints load unchanged:
``weight_ih_l{k}[_reverse]`` ``(G*hidden_size, input_size)``, ``weight_hh_l{k}[_reverse]``
``(G*hidden_size, hidden_size)``, ``bias_ih_l{k}``, ``bias_hh_l{k}`` with G = 1 (RNN), 3 (GRU:
reset, update, new) or 4 (LSTM: input, forget, cell, output). All are initialized
U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).

The input projection of a whole sequence is one matrix multiply per layer and direction; only the
recurrence ``h @ W_hh.T`` steps through time, since each step needs the previous one.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _ops  # noqa: F401  (ensures ops are bound)
from ..._ops.creation import empty, zeros
from ..._ops.dropout import _keep_mask
from ..._ops.pointwise import where
from ..._ops.rearrange import cat, stack
from ..._tensor import _make
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, pad_packed_sequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _cell_step(mode, gi, h, c, w_hh, b_hh, w_hr=None):
    """One time step given the precomputed input projection ``gi`` ``(N, G*H)``; returns (h, c).

    An LSTM with projections (``w_hr`` ``(P, H)``) carries ``h = (o * tanh(c)) @ w_hr.T`` of size P.
    """
    gh = h.matmul(w_hh.t())
    if b_hh is not None:
        gh = gh + b_hh
    if mode == "LSTM":
        i, f, g, o = (gi + gh).chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return (h if w_hr is None else h.matmul(w_hr.t())), c
    if mode == "GRU":
        ir, iz, inn = gi.chunk(3, 1)
        hr, hz, hn = gh.chunk(3, 1)
        r = (ir + hr).sigmoid()
        z = (iz + hz).sigmoid()
        n = (inn + r * hn).tanh()
        return n + z * (h - n), None  # == (1 - z) * n + z * h
    pre = gi + gh
    return (pre.tanh() if mode == "RNN_TANH" else pre.relu()), None


class RNNBase(Module):
    """Shared machinery of RNN, LSTM and GRU (``torch.nn.RNNBase``)."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be an integer greater than zero" if isinstance(hidden_size, int)
                             else f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than or equal to 1")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}")
        gate = _GATES[mode] * hidden_size
        dirs = 2 if bidirectional else 1
        real_hidden = proj_size or hidden_size  # the size of h (LSTM projections shrink it to proj_size)
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for d in range(dirs):
                in_size = input_size if layer == 0 else real_hidden * dirs
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                params = [("weight_ih" + sfx, (gate, in_size)), ("weight_hh" + sfx, (gate, real_hidden))]
                if bias:
                    params += [("bias_ih" + sfx, (gate,)), ("bias_hh" + sfx, (gate,))]
                if proj_size:
                    params.append(("weight_hr" + sfx, (proj_size, hidden_size)))
                for name, shape in params:
                    setattr(self, name, Parameter(empty(*shape, **factory)))
                names = [n for n, _ in params]
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """No-op (cuDNN weight packing does not apply to numtorch)."""

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def __setstate__(self, d):
        super().__setstate__(d)
        if "proj_size" not in d:  # modules pickled before LSTM projections existed (as PyTorch does)
            self.proj_size = 0

    def _run(self, input, hx, cx, lengths=None, order=None):
        """The stacked, optionally bidirectional recurrence over ``input`` ``(L, N, H_in)``.

        With ``lengths`` (an int array, one per batch item) a sequence's state stops changing after its
        last step (and, in the reverse direction, stays at h0 until its last step is reached), so
        ``h_n`` holds each sequence's own final state, as for a PackedSequence in PyTorch.
        """
        dirs = 2 if self.bidirectional else 1
        L = input.shape[0]
        layer_in = input
        h_out, c_out = [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                names = self._all_weights[layer * dirs + d]
                w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
                b_ih = getattr(self, names[2]) if self.bias else None
                b_hh = getattr(self, names[3]) if self.bias else None
                w_hr = getattr(self, names[-1]) if self.proj_size else None
                gi_all = layer_in.matmul(w_ih.t())  # (L, N, G*H): the whole input projection at once
                if b_ih is not None:
                    gi_all = gi_all + b_ih
                idx = layer * dirs + d
                h = hx[idx]
                c = cx[idx] if cx is not None else None
                steps = range(L - 1, -1, -1) if d else range(L)
                ys = [None] * L
                for t in steps:
                    h_new, c_new = _cell_step(self.mode, gi_all[t], h, c, w_hh, b_hh, w_hr)
                    if lengths is not None:
                        running = _make((t < lengths)[:, None])  # (N, 1) bool
                        h_new = where(running, h_new, h)
                        c_new = where(running, c_new, c) if c is not None else None
                    h, c = h_new, c_new
                    ys[t] = h
                outs.append(stack(ys, 0))
                h_out.append(h)
                c_out.append(c)
            layer_in = outs[0] if dirs == 1 else cat(outs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                if lengths is None:
                    layer_in = F.dropout(layer_in, self.dropout, True)
                else:
                    layer_in = layer_in * _make(self._packed_dropout_mask(layer_in, lengths, order))
        return layer_in, stack(h_out, 0), (stack(c_out, 0) if cx is not None else None)

    def _packed_dropout_mask(self, layer_in, lengths, order):
        """Dropout noise drawn over the packed rows (time-major, sorted batch order), as PyTorch draws it for
        a PackedSequence, and scattered back to the padded ``(L, N, H)`` layout."""
        L, N, H = layer_in.shape
        perm = np.arange(N) if order is None else order
        t_idx, b_sorted = np.nonzero(np.arange(L)[:, None] < lengths[perm][None, :])
        mask = np.zeros((L, N, H), layer_in._data.dtype)
        mask[t_idx, perm[b_sorted]] = _keep_mask((t_idx.size, H), self.dropout, layer_in._data.dtype)
        return mask

    def _prepare(self, input, hx, batch_first=None):
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D tensor instead")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first if batch_first is None else batch_first:
            input = input.transpose(0, 1)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")
        n = input.shape[1]
        dirs = 2 if self.bidirectional else 1
        expected = (self.num_layers * dirs, n, self.proj_size or self.hidden_size)
        expected_c = (self.num_layers * dirs, n, self.hidden_size)
        is_lstm = self.mode == "LSTM"
        if hx is None:
            h0 = zeros(*expected, dtype=input.dtype, device=input.device)
            c0 = zeros(*expected_c, dtype=input.dtype, device=input.device) if is_lstm else None
        else:
            h0, c0 = (hx if is_lstm else (hx, None))
            if not batched:
                if h0.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {h0.dim()}-D tensor")
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            elif h0.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {h0.dim()}-D tensor")
            for label, t, want in (("Expected hidden[0] size" if is_lstm else "Expected hidden size", h0, expected),
                                   ("Expected hidden[1] size", c0, expected_c)):
                if t is not None and tuple(t.shape) != want:
                    raise RuntimeError(f"{label} {want}, got {list(t.shape)}")
        return input, h0, c0, batched

    def forward(self, input, hx=None):
        """``input`` ``(L, N, H_in)`` (``(N, L, H_in)`` if batch_first, or unbatched ``(L, H_in)``).

        Returns ``(output, h_n)`` (LSTM: ``(output, (h_n, c_n))``); output ``(L, N, D*H_out)``,
        h_n/c_n ``(D*num_layers, N, H_out)``. RuntimeError for a wrong feature or hidden size.
        """
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        x, h0, c0, batched = self._prepare(input, hx)
        out, hn, cn = self._run(x, h0, c0)
        if not batched:
            out, hn = out.squeeze(1), hn.squeeze(1)
            cn = cn.squeeze(1) if cn is not None else None
        elif self.batch_first:
            out = out.transpose(0, 1)
        return (out, (hn, cn)) if self.mode == "LSTM" else (out, hn)


    def _forward_packed(self, packed, hx):
        """A PackedSequence input: unpack to padded (caller's batch order) + lengths, run the masked
        recurrence, re-pack the output with the input's permutation. hx and h_n are in the caller's
        batch order, as in PyTorch."""
        padded, lengths = pad_packed_sequence(packed)
        x, h0, c0, _ = self._prepare(padded, hx, batch_first=False)
        order = packed.sorted_indices
        out, hn, cn = self._run(x, h0, c0, lengths._data, None if order is None else order._data)
        if order is not None:
            out = out.index_select(1, order)
        lens = lengths._data if order is None else lengths._data[order._data]
        t_idx, b_idx = np.nonzero(np.arange(out.shape[0])[:, None] < lens[None, :])  # packed (time, batch) order
        data = out[_make(t_idx), _make(b_idx)]
        result = PackedSequence(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
        return (result, (hn, cn)) if self.mode == "LSTM" else (result, hn)


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (``torch.nn.RNN``).

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False,
    dropout=0.0, bidirectional=False)``; ``nonlinearity`` 'tanh' or 'relu' (ValueError otherwise).
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)

    def extra_repr(self) -> str:
        s = super().extra_repr()
        return s if self.nonlinearity == "tanh" else s + f", nonlinearity={self.nonlinearity}"


class LSTM(RNNBase):
    """Long short-term memory (``torch.nn.LSTM``); gates in PyTorch's order input, forget, cell, output."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit (``torch.nn.GRU``); gates in PyTorch's order reset, update, new."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    """Shared machinery of the single-step cells (``torch.nn.RNNCellBase``)."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(empty(num_chunks * hidden_size, input_size, **factory))
        self.weight_hh = Parameter(empty(num_chunks * hidden_size, hidden_size, **factory))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **factory))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **factory))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def _step(self, mode, input, h, c):
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        shape = (input.shape[0], self.hidden_size)
        h = zeros(*shape, dtype=input.dtype) if h is None else (h if batched else h.unsqueeze(0))
        if mode == "LSTM":
            c = zeros(*shape, dtype=input.dtype) if c is None else (c if batched else c.unsqueeze(0))
        gi = input.matmul(self.weight_ih.t())
        if self.bias_ih is not None:
            gi = gi + self.bias_ih
        h, c = _cell_step(mode, gi, h, c, self.weight_hh, self.bias_hh)
        if not batched:
            h = h.squeeze(0)
            c = c.squeeze(0) if c is not None else None
        return h, c


class RNNCell(RNNCellBase):
    """One Elman RNN step (``torch.nn.RNNCell``): input ``(N, H_in)`` or ``(H_in)`` -> h' ``(N, H)``."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input, hx=None):
        return self._step("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", input, hx, None)[0]


class LSTMCell(RNNCellBase):
    """One LSTM step (``torch.nn.LSTMCell``): returns ``(h', c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        h, c = (None, None) if hx is None else hx
        return self._step("LSTM", input, h, c)


class GRUCell(RNNCellBase):
    """One GRU step (``torch.nn.GRUCell``): returns h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        return self._step("GRU", input, hx, None)[0]
