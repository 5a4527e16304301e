"""LSTM with projections (``proj_size > 0``) against torch.nn.LSTM: parameter names and shapes, outputs,
h_n of size proj_size, c_n of size hidden_size, gradients, packed input, errors (issue #16)."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt
from numtorch.nn.utils.rnn import pack_padded_sequence as nt_pack


def _pair(cfg, dtype=ref.float64):
    ref.manual_seed(0)
    tm = ref.nn.LSTM(4, 6, proj_size=3, **cfg).to(dtype)
    nm = nt.nn.LSTM(4, 6, proj_size=3, **cfg).to(getattr(nt, str(dtype).split(".")[1]))
    nm.load_state_dict({k: nt.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, nm


def _close(a, b, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


@pytest.mark.quick
def test_state_dict_keys_shapes_and_initialization_match_torch():
    ref.manual_seed(0)
    tm = ref.nn.LSTM(4, 6, num_layers=2, bidirectional=True, proj_size=3)
    nt.manual_seed(0)
    nm = nt.nn.LSTM(4, 6, num_layers=2, bidirectional=True, proj_size=3)
    tsd, nsd = tm.state_dict(), nm.state_dict()
    assert list(nsd) == list(tsd)
    for k in tsd:
        assert tuple(nsd[k].shape) == tuple(tsd[k].shape), k
        np.testing.assert_array_equal(nsd[k].numpy(), tsd[k].numpy(), err_msg=k)  # same generator draws
    assert [list(w) for w in nm._all_weights] == [list(w) for w in tm._all_weights]
    assert repr(nm) == repr(tm)


@pytest.mark.parametrize("cfg", [dict(), dict(num_layers=2), dict(bidirectional=True), dict(batch_first=True),
                                 dict(num_layers=2, bidirectional=True, batch_first=True), dict(bias=False)])
@pytest.mark.parametrize("with_h0", [False, True])
def test_lstm_proj_forward_and_gradients_match_torch(cfg, with_h0):
    tm, nm = _pair(cfg)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5, 4))
    dirs = 2 if cfg.get("bidirectional") else 1
    n = 3 if cfg.get("batch_first") else 5
    layers = cfg.get("num_layers", 1) * dirs
    xt, xn = ref.tensor(x, requires_grad=True), nt.tensor(x, requires_grad=True)
    targs, nargs = (xt,), (xn,)
    if with_h0:
        h, c = rng.standard_normal((layers, n, 3)), rng.standard_normal((layers, n, 6))
        ht, ct = ref.tensor(h, requires_grad=True), ref.tensor(c, requires_grad=True)
        hn_, cn_ = nt.tensor(h, requires_grad=True), nt.tensor(c, requires_grad=True)
        targs, nargs = targs + ((ht, ct),), nargs + ((hn_, cn_),)
    to, (th, tc) = tm(*targs)
    no, (nh, nc) = nm(*nargs)
    assert tuple(no.shape) == tuple(to.shape) and to.shape[-1] == 3 * dirs
    assert tuple(nh.shape) == tuple(th.shape) == (layers, n, 3)
    assert tuple(nc.shape) == tuple(tc.shape) == (layers, n, 6)
    for a, b in ((no, to), (nh, th), (nc, tc)):
        _close(a, b)
    w = rng.standard_normal(to.shape)
    ((to * ref.tensor(w)).sum() + (th * 2).sum() + tc.sum()).backward()
    ((no * nt.tensor(w)).sum() + (nh * 2).sum() + nc.sum()).backward()
    _close(xn.grad, xt.grad, 1e-9, 1e-11)
    if with_h0:
        _close(hn_.grad, ht.grad, 1e-9, 1e-11)
        _close(cn_.grad, ct.grad, 1e-9, 1e-11)
    tparams = dict(tm.named_parameters())
    for name, p in nm.named_parameters():
        _close(p.grad, tparams[name].grad, 1e-9, 1e-11)


def test_lstm_proj_unbatched_float32_matches_torch():
    tm, nm = _pair(dict(num_layers=2), ref.float32)
    x = np.random.default_rng(1).standard_normal((7, 4)).astype(np.float32)
    to, (th, tc) = tm(ref.tensor(x))
    no, (nh, nc) = nm(nt.tensor(x))
    assert no.dtype == nt.float32 and tuple(nh.shape) == (2, 3) and tuple(nc.shape) == (2, 6)
    for a, b in ((no, to), (nh, th), (nc, tc)):
        _close(a, b, 1e-5, 1e-6)


def test_lstm_proj_packed_sequence_matches_torch():
    tm, nm = _pair(dict(bidirectional=True))
    x = np.random.default_rng(2).standard_normal((5, 3, 4))
    lengths = [5, 2, 4]
    tp = ref.nn.utils.rnn.pack_padded_sequence(ref.tensor(x), lengths, enforce_sorted=False)
    np_ = nt_pack(nt.tensor(x), lengths, enforce_sorted=False)
    to, (th, tc) = tm(tp)
    no, (nh, nc) = nm(np_)
    for a, b in ((no.data, to.data), (nh, th), (nc, tc)):
        _close(a, b)


def test_lstm_proj_errors_match_torch():
    for kwargs in (dict(proj_size=6), dict(proj_size=7), dict(proj_size=-1)):
        with pytest.raises(ValueError) as te:
            ref.nn.LSTM(4, 6, **kwargs)
        with pytest.raises(ValueError) as ne:
            nt.nn.LSTM(4, 6, **kwargs)
        assert str(ne.value) == str(te.value)
    for t_cls, n_cls in ((ref.nn.RNN, nt.nn.RNN), (ref.nn.GRU, nt.nn.GRU)):
        with pytest.raises(ValueError) as te:
            t_cls(4, 6, proj_size=2)
        with pytest.raises(ValueError) as ne:
            n_cls(4, 6, proj_size=2)
        assert str(ne.value) == str(te.value)
    tm, nm = _pair({})
    x = np.zeros((3, 2, 4))
    for h_size, c_size in ((6, 6), (3, 3)):  # h must have proj_size features, c hidden_size
        hx = np.zeros((1, 2, h_size)), np.zeros((1, 2, c_size))
        with pytest.raises(RuntimeError) as te:
            tm(ref.tensor(x), tuple(ref.tensor(a) for a in hx))
        with pytest.raises(RuntimeError) as ne:
            nm(nt.tensor(x), tuple(nt.tensor(a) for a in hx))
        assert str(ne.value) == str(te.value)
