"""nn.Transformer* against torch.nn: outputs, gradients, masks, state_dict keys and repr."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt
from numtorch.nn.modules.transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,
                                             TransformerEncoder, TransformerEncoderLayer)


def copy_weights(tm, nm):
    nm.load_state_dict({k: nt.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_matches_torch(norm_first, batch_first, activation):
    kw = dict(dim_feedforward=24, dropout=0.0, activation=activation, batch_first=batch_first, norm_first=norm_first)
    tm = ref.nn.TransformerEncoderLayer(12, 3, **kw).double()
    nm = TransformerEncoderLayer(12, 3, **kw).double()
    copy_weights(tm, nm)
    assert list(nm.state_dict()) == list(tm.state_dict())
    x = np.random.default_rng(0).standard_normal((2, 5, 12) if batch_first else (5, 2, 12))
    causal = ref.nn.Transformer.generate_square_subsequent_mask(5, dtype=ref.float64)
    xt, xn = ref.tensor(x, requires_grad=True), nt.tensor(x, requires_grad=True)
    to = tm(xt, src_mask=causal)
    no = nm(xn, src_mask=nt.tensor(causal.numpy()))
    np.testing.assert_allclose(no.detach().numpy(), to.detach().numpy(), rtol=1e-9, atol=1e-11)
    to.pow(2).sum().backward()
    no.pow(2).sum().backward()
    np.testing.assert_allclose(xn.grad.numpy(), xt.grad.numpy(), rtol=1e-8, atol=1e-10)
    for (name, p), q in zip(nm.named_parameters(), tm.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-8, atol=1e-10, err_msg=name)


def test_encoder_with_key_padding_mask():
    layer_t = ref.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    tm = ref.nn.TransformerEncoder(layer_t, 2, norm=ref.nn.LayerNorm(8), enable_nested_tensor=False).double().eval()
    nm = TransformerEncoder(TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 2,
                            norm=nt.nn.modules.normalization.LayerNorm(8)).double().eval()
    copy_weights(tm, nm)
    x = np.random.default_rng(1).standard_normal((2, 4, 8))
    pad = np.array([[False, False, False, True], [False, False, True, True]])
    to = tm(ref.tensor(x), src_key_padding_mask=ref.tensor(pad))
    no = nm(nt.tensor(x), src_key_padding_mask=nt.tensor(pad))
    keep = ~pad  # torch's fast path may zero padded rows; compare the real positions
    np.testing.assert_allclose(no.detach().numpy()[keep], to.detach().numpy()[keep], rtol=1e-9, atol=1e-11)


def test_full_transformer_matches_torch():
    tm = ref.nn.Transformer(16, 2, 2, 2, 32, dropout=0.0).double()
    nm = Transformer(16, 2, 2, 2, 32, dropout=0.0).double()
    copy_weights(tm, nm)
    rng = np.random.default_rng(2)
    src, tgt = rng.standard_normal((5, 2, 16)), rng.standard_normal((4, 2, 16))
    mask = Transformer.generate_square_subsequent_mask(4, dtype=nt.float64)
    np.testing.assert_array_equal(mask.numpy(), ref.nn.Transformer.generate_square_subsequent_mask(4).numpy())
    to = tm(ref.tensor(src), ref.tensor(tgt), tgt_mask=ref.tensor(mask.numpy()))
    no = nm(nt.tensor(src), nt.tensor(tgt), tgt_mask=mask)
    np.testing.assert_allclose(no.detach().numpy(), to.detach().numpy(), rtol=1e-9, atol=1e-11)
    assert repr(nm) == repr(tm)


def test_decoder_stack_matches_torch():
    tm = ref.nn.TransformerDecoder(ref.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True), 2).double()
    nm = TransformerDecoder(TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True), 2).double()
    copy_weights(tm, nm)
    rng = np.random.default_rng(3)
    tgt, mem = rng.standard_normal((3, 2, 8)), rng.standard_normal((5, 2, 8))
    np.testing.assert_allclose(nm(nt.tensor(tgt), nt.tensor(mem)).detach().numpy(),
                               tm(ref.tensor(tgt), ref.tensor(mem)).detach().numpy(), rtol=1e-9, atol=1e-11)


def test_xavier_init_and_errors():
    m = Transformer(8, 2, 1, 1, 16)
    w = m.encoder.layers[0].linear1.weight.detach().numpy()
    bound = np.sqrt(6 / (8 + 16))
    assert np.abs(w).max() <= bound and w.std() > bound / 3
    with pytest.raises(RuntimeError, match="d_model"):
        m(nt.randn(3, 2, 4), nt.randn(3, 2, 8))
    with pytest.raises(RuntimeError, match="activation"):
        TransformerEncoderLayer(8, 2, activation="swish")
