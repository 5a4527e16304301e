"""RNN / LSTM / GRU and their cells against torch.nn: outputs, hidden states, gradients, repr, errors."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt
from numtorch.autograd import gradcheck
from numtorch.nn.modules.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell

KINDS = {"RNN": (RNN, ref.nn.RNN), "LSTM": (LSTM, ref.nn.LSTM), "GRU": (GRU, ref.nn.GRU)}
CELLS = {"RNNCell": (RNNCell, ref.nn.RNNCell), "LSTMCell": (LSTMCell, ref.nn.LSTMCell),
         "GRUCell": (GRUCell, ref.nn.GRUCell)}


def copy_weights(tm, nm, dtype=np.float32):
    nm.load_state_dict({k: nt.tensor(v.detach().numpy().astype(dtype)) for k, v in tm.state_dict().items()})


def flat(x):
    return x if isinstance(x, tuple) else (x,)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("cfg", [dict(), dict(num_layers=2), dict(bidirectional=True), dict(batch_first=True),
                                 dict(num_layers=2, bidirectional=True, batch_first=True), dict(bias=False)])
@pytest.mark.parametrize("with_h0", [False, True])
def test_recurrent_layers_match_torch(kind, cfg, with_h0):
    nk, tk = KINDS[kind]
    tm, nm = tk(4, 6, **cfg).double(), nk(4, 6, **cfg).double()
    copy_weights(tm, nm, np.float64)
    assert list(nm.state_dict()) == list(tm.state_dict())
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5, 4))
    dirs = 2 if cfg.get("bidirectional") else 1
    hshape = (cfg.get("num_layers", 1) * dirs, 3 if cfg.get("batch_first") else 5, 6)
    xt, xn = ref.tensor(x, requires_grad=True), nt.tensor(x, requires_grad=True)
    args_t, args_n = (xt,), (xn,)
    if with_h0:
        h = rng.standard_normal(hshape)
        if kind == "LSTM":
            c = rng.standard_normal(hshape)
            args_t += ((ref.tensor(h), ref.tensor(c)),)
            args_n += ((nt.tensor(h), nt.tensor(c)),)
        else:
            args_t += (ref.tensor(h),)
            args_n += (nt.tensor(h),)
    to, th = tm(*args_t)
    no, nh = nm(*args_n)
    np.testing.assert_allclose(no.detach().numpy(), to.detach().numpy(), rtol=1e-10, atol=1e-12)
    for a, b in zip(flat(nh), flat(th)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = rng.standard_normal(to.shape)
    ((to * ref.tensor(w)).sum() + sum(t.sum() for t in flat(th))).backward()
    ((no * nt.tensor(w)).sum() + sum(t.sum() for t in flat(nh))).backward()
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-11)
    for (name, p), q in zip(nm.named_parameters(), tm.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-11, err_msg=name)


@pytest.mark.parametrize("kind", KINDS)
def test_unbatched_input_and_float32(kind):
    nk, tk = KINDS[kind]
    tm, nm = tk(3, 4), nk(3, 4)
    copy_weights(tm, nm)
    x = np.random.default_rng(1).standard_normal((6, 3)).astype(np.float32)
    to, th = tm(ref.tensor(x))
    no, nh = nm(nt.tensor(x))
    assert tuple(no.shape) == tuple(to.shape) == (6, 4)
    np.testing.assert_allclose(no.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(flat(nh), flat(th)):
        assert tuple(a.shape) == tuple(b.shape)


@pytest.mark.parametrize("name", CELLS)
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_torch(name, batched):
    nk, tk = CELLS[name]
    tm, nm = tk(3, 5).double(), nk(3, 5).double()
    copy_weights(tm, nm, np.float64)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3) if batched else (3,))
    xt, xn = ref.tensor(x, requires_grad=True), nt.tensor(x, requires_grad=True)
    to, no = tm(xt), nm(xn)
    for a, b in zip(flat(no), flat(to)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    sum(t.sum() for t in flat(to)).backward()
    sum(t.sum() for t in flat(no)).backward()
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(nm.weight_hh.grad.numpy(), tm.weight_hh.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_gradcheck(kind):
    nk, _ = KINDS[kind]
    m = nk(2, 3).double()
    x = nt.randn(3, 1, 2, dtype=nt.float64, requires_grad=True)
    assert gradcheck(lambda inp: m(inp)[0], (x,))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("cfg", [dict(), dict(num_layers=2, dropout=0.5, bidirectional=True), dict(bias=False)])
def test_repr_matches_torch(kind, cfg):
    nk, tk = KINDS[kind]
    assert repr(nk(4, 6, **cfg)) == repr(tk(4, 6, **cfg))


def test_init_bounds():
    m = LSTM(3, 16)
    bound = 1 / 4
    for p in m.parameters():
        a = p.detach().numpy()
        assert a.min() >= -bound and a.max() <= bound and a.std() > 0.1


def test_errors():
    m = GRU(4, 6)
    with pytest.raises(RuntimeError, match="input_size"):
        m(nt.randn(3, 2, 5))
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        m(nt.randn(3, 2, 4), nt.randn(1, 3, 6))
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        RNN(2, 3, nonlinearity="gelu")
    with pytest.raises(ValueError):
        LSTM(2, 3, dropout=1.5)
