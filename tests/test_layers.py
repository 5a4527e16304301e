"""Layer modules against PyTorch: build both with the same arguments, copy the weights torch -> numtorch
through ``state_dict``, then compare outputs, input and parameter gradients (float32 and float64),
``repr`` strings and ``state_dict`` keys/shapes. Module-specific semantics follow the generic cases."""
import numpy as np
import pytest
import torch as ref
import torch.nn as rnn

import numtorch as nt
import numtorch.nn as nn
from conftest import assert_close, to_nt, to_ref
from numtorch.autograd import gradcheck

TOL = {np.float32: dict(rtol=2e-4, atol=2e-5), np.float64: dict(rtol=1e-9, atol=1e-10)}
NP2REF = {np.float32: ref.float32, np.float64: ref.float64}
NP2NT = {np.float32: nt.float32, np.float64: nt.float64}


# ---- harness ------------------------------------------------------------------------------------
def f(*shape):
    """A float input of ``shape`` (standard normal), differentiable."""
    return ("f", shape)


def pos(*shape):
    """A float input in (0.05, 0.95) (probabilities, variances), differentiable."""
    return ("p", shape)


def idx(high, *shape):
    """An int64 input in ``[0, high)``, not differentiable."""
    return ("i", shape, high)


def sign(*shape):
    """A float tensor of +-1 targets, not differentiable."""
    return ("s", shape)


def const(arr):
    """A fixed, non-differentiable float input."""
    return ("c", np.asarray(arr))


def make_arrays(specs, dtype, rng):
    out = []
    for s in specs:
        if s[0] == "f":
            out.append(rng.standard_normal(s[1]).astype(dtype))
        elif s[0] == "p":
            out.append(rng.uniform(0.05, 0.95, s[1]).astype(dtype))
        elif s[0] == "i":
            out.append(rng.integers(0, s[2], s[1]).astype(np.int64))
        elif s[0] == "s":
            out.append(np.where(rng.random(s[1]) < 0.5, -1.0, 1.0).astype(dtype))
        else:
            out.append(s[1].astype(dtype))
    return out


def copy_weights(m_ref, m_nt, rng):
    """Randomize constant-initialized float params of ``m_ref`` (norm weights, biases), then load its
    state_dict into ``m_nt`` (strict), converting through NumPy."""
    with ref.no_grad():
        for p in m_ref.parameters():
            if p.numel() and bool((p == p.reshape(-1)[0]).all()):
                p.copy_(ref.from_numpy(rng.uniform(0.5, 1.5, tuple(p.shape))))
    sd = {k: to_nt(v) for k, v in m_ref.state_dict().items()}
    m_nt.load_state_dict(sd, strict=True)


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def compare_module(ctor, specs, dtype, seed=0, train=True, tol=None, check_repr=True):
    """Build ``ctor(nn, tensor)`` in both libraries, run them on the same inputs and compare everything."""
    rng = np.random.default_rng(seed)
    m_ref = ctor(rnn, ref.tensor)
    m_nt = ctor(nn, nt.tensor)
    if check_repr:
        assert repr(m_nt) == repr(m_ref)
    sd_ref, sd_nt = m_ref.state_dict(), m_nt.state_dict()
    assert list(sd_nt) == list(sd_ref)
    assert [tuple(v.shape) for v in sd_nt.values()] == [tuple(v.shape) for v in sd_ref.values()]
    m_ref.to(NP2REF[dtype])
    m_nt.to(NP2NT[dtype])
    copy_weights(m_ref, m_nt, rng)
    m_ref.train(train)
    m_nt.train(train)
    arrays = make_arrays(specs, dtype, rng)
    diff = [s[0] in "fp" for s in specs]
    x_ref = [to_ref(a, d) for a, d in zip(arrays, diff)]
    x_nt = [to_nt(a, d) for a, d in zip(arrays, diff)]
    # clone the differentiable inputs so in-place modules act on non-leaves
    out_ref = m_ref(*[x.clone() if d else x for x, d in zip(x_ref, diff)])
    out_nt = m_nt(*[x.clone() if d else x for x, d in zip(x_nt, diff)])
    tol = tol or TOL[dtype]
    outs_ref = out_ref if isinstance(out_ref, tuple) else (out_ref,)
    outs_nt = out_nt if isinstance(out_nt, tuple) else (out_nt,)
    assert len(outs_nt) == len(outs_ref)
    for a, b in zip(outs_nt, outs_ref):
        assert_close(a, b, **tol)
    for (k, b_ref), (k2, b_nt) in zip(m_ref.named_buffers(), m_nt.named_buffers()):
        assert k == k2
        assert_close(b_nt, b_ref, **tol)
    y_ref, y_nt = _first(out_ref), _first(out_nt)
    if not y_ref.requires_grad:
        return m_nt, out_nt
    g = rng.standard_normal(tuple(y_ref.shape)).astype(dtype)
    y_ref.backward(to_ref(g))
    y_nt.backward(to_nt(g))
    for a_nt, a_ref, d in zip(x_nt, x_ref, diff):
        if d:
            assert_close(a_nt.grad, a_ref.grad, **tol)
    for (name, p_ref), (name2, p_nt) in zip(m_ref.named_parameters(), m_nt.named_parameters()):
        assert name == name2
        if p_ref.grad is None:
            assert p_nt.grad is None or not p_nt.grad.numpy().any(), name
        else:
            assert_close(p_nt.grad, p_ref.grad, **tol)
    return m_nt, out_nt


# ---- generic differential cases -----------------------------------------------------------------
CASES = {
    # linear
    "Linear": (lambda n, T: n.Linear(5, 3), [f(4, 5)]),
    "Linear-nobias-3d": (lambda n, T: n.Linear(5, 3, bias=False), [f(2, 3, 5)]),
    "Identity": (lambda n, T: n.Identity(3, unused=True), [f(2, 3)]),
    "Bilinear": (lambda n, T: n.Bilinear(3, 4, 2), [f(5, 3), f(5, 4)]),
    "Bilinear-nobias": (lambda n, T: n.Bilinear(3, 4, 2, bias=False), [f(2, 5, 3), f(2, 5, 4)]),
    # convolution
    "Conv1d": (lambda n, T: n.Conv1d(4, 6, 3, stride=2, padding=1), [f(2, 4, 9)]),
    "Conv1d-circular-same": (lambda n, T: n.Conv1d(4, 4, 4, padding="same", padding_mode="circular", groups=2),
                             [f(2, 4, 7)]),
    "Conv1d-unbatched": (lambda n, T: n.Conv1d(3, 2, 2, dilation=2, bias=False), [f(3, 8)]),
    "Conv2d": (lambda n, T: n.Conv2d(3, 4, 3), [f(2, 3, 6, 5)]),
    "Conv2d-groups": (lambda n, T: n.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(2, 1), groups=2,
                                            bias=False), [f(2, 4, 8, 7)]),
    "Conv2d-reflect": (lambda n, T: n.Conv2d(3, 4, 3, padding=1, padding_mode="reflect"), [f(2, 3, 5, 6)]),
    "Conv2d-replicate-same": (lambda n, T: n.Conv2d(3, 4, (3, 4), padding="same", padding_mode="replicate",
                                                    dilation=2), [f(2, 3, 9, 8)]),
    "Conv2d-circular": (lambda n, T: n.Conv2d(2, 3, 3, stride=2, padding=(2, 1), padding_mode="circular"),
                        [f(2, 2, 6, 5)]),
    "Conv2d-valid": (lambda n, T: n.Conv2d(2, 3, 2, padding="valid", stride=3), [f(1, 2, 7, 7)]),
    "Conv2d-depthwise": (lambda n, T: n.Conv2d(4, 8, 3, padding=1, groups=4), [f(2, 4, 5, 5)]),
    "ConvTranspose1d": (lambda n, T: n.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1),
                        [f(2, 4, 5)]),
    "ConvTranspose2d": (lambda n, T: n.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
                        [f(2, 4, 4, 3)]),
    "ConvTranspose2d-dil": (lambda n, T: n.ConvTranspose2d(3, 2, (3, 2), stride=(2, 3), dilation=(1, 2),
                                                           bias=False), [f(2, 3, 3, 4)]),
    # pooling
    "MaxPool1d": (lambda n, T: n.MaxPool1d(3, 2, 1), [f(2, 3, 9)]),
    "MaxPool2d": (lambda n, T: n.MaxPool2d(2), [f(2, 3, 6, 6)]),
    "MaxPool2d-ceil": (lambda n, T: n.MaxPool2d(3, stride=2, padding=1, dilation=1, ceil_mode=True),
                       [f(2, 3, 8, 7)]),
    "MaxPool2d-indices": (lambda n, T: n.MaxPool2d((2, 3), stride=(1, 2), dilation=(2, 1), return_indices=True),
                          [f(2, 2, 7, 8)]),
    "AvgPool1d": (lambda n, T: n.AvgPool1d(3, 2, 1, count_include_pad=False), [f(2, 3, 8)]),
    "AvgPool2d": (lambda n, T: n.AvgPool2d(3, 2, 1), [f(2, 3, 7, 6)]),
    "AvgPool2d-divisor": (lambda n, T: n.AvgPool2d(2, ceil_mode=True, divisor_override=3), [f(2, 3, 5, 5)]),
    "AdaptiveAvgPool1d": (lambda n, T: n.AdaptiveAvgPool1d(3), [f(2, 3, 8)]),
    "AdaptiveAvgPool2d": (lambda n, T: n.AdaptiveAvgPool2d((None, 3)), [f(2, 3, 5, 7)]),
    "AdaptiveAvgPool2d-global": (lambda n, T: n.AdaptiveAvgPool2d(1), [f(2, 3, 5, 7)]),
    "AdaptiveMaxPool1d": (lambda n, T: n.AdaptiveMaxPool1d(4), [f(2, 3, 9)]),
    "AdaptiveMaxPool2d": (lambda n, T: n.AdaptiveMaxPool2d((2, 3), return_indices=True), [f(2, 3, 5, 7)]),
    # normalization
    "BatchNorm1d-2d": (lambda n, T: n.BatchNorm1d(4), [f(6, 4)]),
    "BatchNorm1d-3d": (lambda n, T: n.BatchNorm1d(4, momentum=0.3, eps=1e-3), [f(6, 4, 5)]),
    "BatchNorm2d-cumulative": (lambda n, T: n.BatchNorm2d(3, momentum=None), [f(4, 3, 3, 2)]),
    "BatchNorm2d-noaffine": (lambda n, T: n.BatchNorm2d(3, affine=False), [f(4, 3, 3, 2)]),
    "BatchNorm2d-nobias": (lambda n, T: n.BatchNorm2d(3, bias=False), [f(4, 3, 3, 2)]),
    "BatchNorm1d-nostats": (lambda n, T: n.BatchNorm1d(4, track_running_stats=False), [f(6, 4)]),
    "BatchNorm3d": (lambda n, T: n.BatchNorm3d(2), [f(3, 2, 2, 3, 4)]),
    "LayerNorm": (lambda n, T: n.LayerNorm(5), [f(3, 4, 5)]),
    "LayerNorm-noaffine": (lambda n, T: n.LayerNorm((3, 5), elementwise_affine=False), [f(2, 3, 5)]),
    "LayerNorm-nobias": (lambda n, T: n.LayerNorm([5], eps=1e-3, bias=False), [f(4, 5)]),
    "GroupNorm": (lambda n, T: n.GroupNorm(2, 4), [f(3, 4, 5)]),
    "GroupNorm-noaffine": (lambda n, T: n.GroupNorm(3, 6, affine=False), [f(2, 6, 2, 3)]),
    "RMSNorm": (lambda n, T: n.RMSNorm(5), [f(3, 5)]),
    "RMSNorm-eps": (lambda n, T: n.RMSNorm((3, 5), eps=1e-3), [f(2, 3, 5)]),
    # activations
    **{name: ((lambda name: lambda n, T: getattr(n, name)())(name), [f(3, 8)])
       for name in ["ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Sigmoid", "Tanh",
                    "Hardtanh", "Hardsigmoid", "Hardswish", "Softplus", "Softsign", "LogSigmoid", "Tanhshrink",
                    "Hardshrink", "Softshrink", "GLU"]},
    "ReLU-inplace": (lambda n, T: n.ReLU(inplace=True), [f(3, 4)]),
    "LeakyReLU-inplace": (lambda n, T: n.LeakyReLU(0.2, inplace=True), [f(3, 4)]),
    "ELU-alpha": (lambda n, T: n.ELU(alpha=0.5, inplace=True), [f(3, 4)]),
    "CELU-alpha": (lambda n, T: n.CELU(alpha=2.0), [f(3, 4)]),
    "GELU-tanh": (lambda n, T: n.GELU("tanh"), [f(3, 4)]),
    "SiLU-inplace": (lambda n, T: n.SiLU(inplace=True), [f(3, 4)]),
    "Hardtanh-range": (lambda n, T: n.Hardtanh(-0.5, 2.0), [f(3, 4)]),
    "ReLU6-inplace": (lambda n, T: n.ReLU6(inplace=True), [("c", np.array([[-1.0, 0.5, 3.0, 7.0]]))]),
    "Softplus-beta": (lambda n, T: n.Softplus(beta=2.0, threshold=1.0), [f(3, 4)]),
    "Threshold": (lambda n, T: n.Threshold(0.1, 20.0), [f(3, 4)]),
    "Softmax": (lambda n, T: n.Softmax(dim=1), [f(2, 5, 3)]),
    "LogSoftmax": (lambda n, T: n.LogSoftmax(dim=-1), [f(2, 5, 3)]),
    "Softmin": (lambda n, T: n.Softmin(0), [f(4, 3)]),
    "Softmax2d": (lambda n, T: n.Softmax2d(), [f(2, 3, 2, 2)]),
    "GLU-dim": (lambda n, T: n.GLU(dim=1), [f(3, 4, 2)]),
    "PReLU": (lambda n, T: n.PReLU(), [f(2, 3, 4)]),
    "PReLU-channels": (lambda n, T: n.PReLU(num_parameters=3, init=0.1), [f(2, 3, 4)]),
    # shape, padding, resampling
    "Flatten": (lambda n, T: n.Flatten(), [f(2, 3, 4)]),
    "Flatten-range": (lambda n, T: n.Flatten(0, -2), [f(2, 3, 4)]),
    "Unflatten": (lambda n, T: n.Unflatten(1, (2, 3)), [f(4, 6)]),
    "ZeroPad2d": (lambda n, T: n.ZeroPad2d((1, 2, 0, 1)), [f(2, 3, 3)]),
    "ConstantPad1d": (lambda n, T: n.ConstantPad1d(2, 3.5), [f(2, 3, 4)]),
    "ConstantPad2d": (lambda n, T: n.ConstantPad2d((1, 0, 2, 1), -1.0), [f(1, 2, 3, 3)]),
    "ReflectionPad1d": (lambda n, T: n.ReflectionPad1d((2, 1)), [f(2, 3, 4)]),
    "ReflectionPad2d": (lambda n, T: n.ReflectionPad2d(1), [f(2, 3, 4, 5)]),
    "ReplicationPad1d": (lambda n, T: n.ReplicationPad1d(3), [f(2, 3, 4)]),
    "ReplicationPad2d": (lambda n, T: n.ReplicationPad2d((1, 2, 2, 0)), [f(2, 3, 4, 5)]),
    "CircularPad1d": (lambda n, T: n.CircularPad1d(2), [f(2, 3, 4)]),
    "CircularPad2d": (lambda n, T: n.CircularPad2d((1, 0, 2, 1)), [f(2, 3, 4, 5)]),
    "PixelShuffle": (lambda n, T: n.PixelShuffle(2), [f(2, 8, 3, 2)]),
    "PixelUnshuffle": (lambda n, T: n.PixelUnshuffle(2), [f(2, 2, 4, 6)]),
    "Upsample-nearest": (lambda n, T: n.Upsample(scale_factor=2), [f(2, 3, 3, 2)]),
    "Upsample-bilinear": (lambda n, T: n.Upsample(size=(5, 7), mode="bilinear"), [f(2, 3, 3, 4)]),
    "UpsamplingBilinear2d": (lambda n, T: n.UpsamplingBilinear2d(scale_factor=2), [f(1, 2, 3, 3)]),
    # embedding
    "Embedding": (lambda n, T: n.Embedding(10, 4), [idx(10, 3, 5)]),
    "Embedding-padding": (lambda n, T: n.Embedding(10, 4, padding_idx=-2), [idx(10, 20)]),
    "Embedding-maxnorm": (lambda n, T: n.Embedding(6, 3, max_norm=1.0, norm_type=1.5), [idx(6, 2, 4)]),
    "Embedding-freq": (lambda n, T: n.Embedding(5, 3, scale_grad_by_freq=True), [idx(5, 12)]),
    # losses
    **{f"{name}-{red}": ((lambda name, red: lambda n, T: getattr(n, name)(reduction=red))(name, red),
                         [f(4, 3), f(4, 3)])
       for name in ["L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss"] for red in ["mean", "sum", "none"]},
    "SoftMarginLoss": (lambda n, T: n.SoftMarginLoss(reduction="sum"), [f(4, 3), sign(4, 3)]),
    "SmoothL1Loss-beta": (lambda n, T: n.SmoothL1Loss(beta=0.5), [f(4, 3), f(4, 3)]),
    "HuberLoss-delta": (lambda n, T: n.HuberLoss(delta=0.5), [f(4, 3), f(4, 3)]),
    "CrossEntropyLoss": (lambda n, T: n.CrossEntropyLoss(), [f(4, 5), idx(5, 4)]),
    "CrossEntropyLoss-weighted": (lambda n, T: n.CrossEntropyLoss(weight=T([1.0, 2.0, 0.5, 1.5, 3.0]),
                                                                  ignore_index=1, label_smoothing=0.1),
                                  [f(6, 5), idx(5, 6)]),
    "CrossEntropyLoss-spatial": (lambda n, T: n.CrossEntropyLoss(reduction="sum"), [f(2, 5, 3), idx(5, 2, 3)]),
    "CrossEntropyLoss-probs": (lambda n, T: n.CrossEntropyLoss(label_smoothing=0.2), [f(3, 4), pos(3, 4)]),
    "NLLLoss": (lambda n, T: n.NLLLoss(weight=T([1.0, 2.0, 0.5])), [f(5, 3), idx(3, 5)]),
    "NLLLoss-none": (lambda n, T: n.NLLLoss(reduction="none", ignore_index=0), [f(5, 3), idx(3, 5)]),
    "BCELoss": (lambda n, T: n.BCELoss(weight=T([1.0, 2.0, 0.5])), [pos(4, 3), pos(4, 3)]),
    "BCEWithLogitsLoss": (lambda n, T: n.BCEWithLogitsLoss(pos_weight=T([3.0, 1.0, 0.5])), [f(4, 3), pos(4, 3)]),
    "BCEWithLogitsLoss-weight": (lambda n, T: n.BCEWithLogitsLoss(weight=T([[2.0], [1.0], [0.5], [1.0]]),
                                                                  reduction="sum"), [f(4, 3), pos(4, 3)]),
    "KLDivLoss": (lambda n, T: n.KLDivLoss(reduction="batchmean"), [f(4, 3), pos(4, 3)]),
    "KLDivLoss-log": (lambda n, T: n.KLDivLoss(reduction="sum", log_target=True), [f(4, 3), f(4, 3)]),
    "PoissonNLLLoss": (lambda n, T: n.PoissonNLLLoss(), [f(4, 3), pos(4, 3)]),
    "GaussianNLLLoss": (lambda n, T: n.GaussianNLLLoss(), [f(4, 3), f(4, 3), pos(4, 3)]),
    "CosineEmbeddingLoss": (lambda n, T: n.CosineEmbeddingLoss(margin=0.2), [f(5, 4), f(5, 4), sign(5)]),
    "MarginRankingLoss": (lambda n, T: n.MarginRankingLoss(margin=0.1), [f(5), f(5), sign(5)]),
    "TripletMarginLoss": (lambda n, T: n.TripletMarginLoss(margin=0.5, swap=True), [f(4, 3), f(4, 3), f(4, 3)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_module_matches_torch(name, fdtype):
    ctor, specs = CASES[name]
    compare_module(ctor, specs, fdtype)


@pytest.mark.parametrize("name", ["BatchNorm1d-3d", "BatchNorm2d-cumulative", "BatchNorm2d-noaffine",
                                  "BatchNorm1d-nostats", "Embedding-padding", "Conv2d-groups", "LayerNorm"])
def test_module_eval_mode_matches_torch(name):
    ctor, specs = CASES[name]
    compare_module(ctor, specs, np.float64, train=False)


@pytest.mark.parametrize("ctor,shape", [
    (lambda: nn.Conv2d(2, 3, 3, stride=2, padding=1, groups=1), (2, 2, 5, 4)),
    (lambda: nn.ConvTranspose2d(2, 2, 3, stride=2, groups=2), (1, 2, 3, 3)),
    (lambda: nn.BatchNorm1d(3), (4, 3)),
    (lambda: nn.LayerNorm(4), (2, 4)),
    (lambda: nn.GroupNorm(2, 4), (2, 4, 3)),
    (lambda: nn.Bilinear(2, 3, 2), None),
    (lambda: nn.PReLU(3), (2, 3, 2)),
])
def test_module_gradcheck(ctor, shape):
    m = ctor().double()
    rng = np.random.default_rng(1)
    if shape is None:
        xs = (to_nt(rng.standard_normal((3, 2)), True), to_nt(rng.standard_normal((3, 3)), True))
    else:
        xs = (to_nt(rng.standard_normal(shape), True),)
    assert gradcheck(lambda *a: m(*a), xs)


# ---- construction: factory kwargs, init statistics, errors --------------------------------------
@pytest.mark.parametrize("ctor", [
    lambda **kw: nn.Linear(3, 4, **kw), lambda **kw: nn.Bilinear(2, 3, 4, **kw),
    lambda **kw: nn.Conv1d(2, 4, 3, **kw), lambda **kw: nn.Conv2d(2, 4, 3, **kw),
    lambda **kw: nn.ConvTranspose2d(2, 4, 3, **kw), lambda **kw: nn.BatchNorm2d(3, **kw),
    lambda **kw: nn.LayerNorm(3, **kw), lambda **kw: nn.GroupNorm(1, 3, **kw), lambda **kw: nn.RMSNorm(3, **kw),
    lambda **kw: nn.Embedding(5, 3, **kw), lambda **kw: nn.PReLU(**kw),
    lambda **kw: nn.MultiheadAttention(4, 2, **kw),
])
def test_factory_kwargs(ctor):
    m = ctor(dtype=nt.float64, device="cpu")
    floats = [t for t in list(m.parameters()) + list(m.buffers()) if t.is_floating_point()]
    assert floats and all(t.dtype == nt.float64 for t in floats)
    assert all(p.requires_grad and p.is_leaf for p in m.parameters())
    assert all(t.dtype == nt.float32 for t in ctor().parameters())


def test_linear_and_conv_init_bounds():
    nt.manual_seed(0)
    lin = nn.Linear(400, 300)
    bound = 1 / np.sqrt(400)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.98 * bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.01 * bound
    assert np.abs(b).max() <= bound and abs(b.mean()) < 0.1 * bound
    conv = nn.Conv2d(16, 64, 3, groups=2)
    fan_in = 8 * 9
    assert np.abs(conv.weight.detach().numpy()).max() <= 1 / np.sqrt(fan_in)
    assert np.abs(conv.bias.detach().numpy()).max() <= 1 / np.sqrt(fan_in)
    convt = nn.ConvTranspose2d(16, 8, 3)  # weight (16, 8, 3, 3): fan_in from dim 1 = 8 * 9
    assert convt.weight.shape == (16, 8, 3, 3)
    assert np.abs(convt.weight.detach().numpy()).max() <= 1 / np.sqrt(72)
    bil = nn.Bilinear(25, 3, 200)
    assert np.abs(bil.weight.detach().numpy()).max() <= 0.2 and np.abs(bil.weight.detach().numpy()).max() > 0.19
    emb = nn.Embedding(300, 100)
    assert abs(emb.weight.detach().numpy().std() - 1) < 0.02 and abs(emb.weight.detach().numpy().mean()) < 0.02
    mha = nn.MultiheadAttention(32, 4)
    a = np.sqrt(6 / (96 + 32))
    assert np.abs(mha.in_proj_weight.detach().numpy()).max() <= a
    assert not mha.in_proj_bias.detach().numpy().any() and not mha.out_proj.bias.detach().numpy().any()


def test_reset_parameters_redraws_in_place():
    m = nn.Linear(4, 3)
    w = m.weight
    before = w.detach().numpy().copy()
    m.reset_parameters()
    assert m.weight is w and not np.allclose(before, w.detach().numpy())


@pytest.mark.parametrize("fn,exc,msg", [
    (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError, "in_channels must be divisible by groups"),
    (lambda: nn.Conv2d(4, 3, 3, groups=2), ValueError, "out_channels must be divisible by groups"),
    (lambda: nn.Conv2d(4, 4, 3, groups=0), ValueError, "groups must be a positive integer"),
    (lambda: nn.Conv2d(3, 4, 3, padding="full"), ValueError, "Invalid padding string 'full'"),
    (lambda: nn.Conv2d(3, 4, 3, padding="same", stride=2), ValueError, "not supported for strided convolutions"),
    (lambda: nn.Conv2d(3, 4, 3, padding_mode="mirror"), ValueError, "padding_mode must be one of"),
    (lambda: nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect"), ValueError,
     'Only "zeros" padding mode is supported for ConvTranspose2d'),
    (lambda: nn.GroupNorm(3, 4), ValueError, "num_channels (4) must be divisible by num_groups (3)"),
    (lambda: nn.Dropout(1.5), ValueError, "dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda: nn.Embedding(5, 2, padding_idx=5), AssertionError, "Padding_idx must be within num_embeddings"),
    (lambda: nn.Embedding(5, 2, padding_idx=-6), AssertionError, "Padding_idx must be within num_embeddings"),
    (lambda: nn.Hardtanh(1.0, 1.0), AssertionError, "max_val (1.0) must be greater than min_val (1.0)"),
    (lambda: nn.MultiheadAttention(6, 4), AssertionError, "embed_dim must be divisible by num_heads"),
    (lambda: nn.MultiheadAttention(0, 1), ValueError, "embed_dim and num_heads must be greater than 0"),
    (lambda: nn.Unflatten(1, 6), TypeError, "unflattened_size must be a tuple of ints, but found type int"),
    (lambda: nn.Unflatten(1, (2, 3.0)), TypeError, "found element of type float at pos 1"),
    (lambda: nn.HuberLoss(delta="1"), TypeError, "delta must be a float or int"),
    (lambda: nn.TripletMarginLoss(margin=0), ValueError, "expected margin to be greater than 0"),
    (lambda: nn.BatchNorm1d(3)(nt.zeros(2, 3, 4, 5)), ValueError, "expected 2D or 3D input (got 4D input)"),
    (lambda: nn.BatchNorm2d(3)(nt.zeros(2, 3)), ValueError, "expected 4D input (got 2D input)"),
    (lambda: nn.BatchNorm3d(3)(nt.zeros(2, 3, 4, 4)), ValueError, "expected 5D input (got 4D input)"),
    (lambda: nn.CircularPad2d(1)(nt.zeros(3, 4)), ValueError, "expected 3D or 4D input (got 2D input)"),
    (lambda: nn.Softmax2d()(nt.zeros(3, 4)), ValueError, "Softmax2d: expected input to be 3D or 4D, got 2D"),
    (lambda: nn.Linear(3, 2)(nt.zeros(4, 5)), RuntimeError, "mat1 and mat2 shapes cannot be multiplied (4x5 and 3x2)"),
])
def test_errors_match_torch(fn, exc, msg):
    with pytest.raises(exc) as e:
        fn()
    assert msg in str(e.value)


def test_error_types_agree_with_torch():
    with pytest.raises(ValueError):
        rnn.BatchNorm1d(3)(ref.zeros(2, 3, 4, 5))
    with pytest.raises(ValueError):
        rnn.Conv2d(3, 4, 3, padding="same", stride=2)
    with pytest.raises(AssertionError):
        rnn.Embedding(5, 2, padding_idx=5)


# ---- module-specific semantics ------------------------------------------------------------------
@pytest.mark.parametrize("momentum", [0.1, 0.5, None])
@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (8, 3)), ("BatchNorm2d", (4, 3, 3, 2))])
def test_batchnorm_running_stats_over_steps(cls, shape, momentum, fdtype):
    m_ref = getattr(rnn, cls)(3, momentum=momentum).to(NP2REF[fdtype])
    m_nt = getattr(nn, cls)(3, momentum=momentum).to(NP2NT[fdtype])
    rng = np.random.default_rng(3)
    for step in range(4):
        x = (rng.standard_normal(shape) * (step + 1) + step).astype(fdtype)
        y_ref, y_nt = m_ref(to_ref(x)), m_nt(to_nt(x))
        assert_close(y_nt, y_ref, **TOL[fdtype])
    assert int(m_nt.num_batches_tracked) == 4 and m_nt.num_batches_tracked.dtype == nt.int64
    assert_close(m_nt.running_mean, m_ref.running_mean, **TOL[fdtype])
    assert_close(m_nt.running_var, m_ref.running_var, **TOL[fdtype])
    m_ref.eval()
    m_nt.eval()
    x = rng.standard_normal(shape).astype(fdtype)
    assert_close(m_nt(to_nt(x)), m_ref(to_ref(x)), **TOL[fdtype])
    assert int(m_nt.num_batches_tracked) == 4  # eval does not count


def test_batchnorm_cumulative_average_is_plain_mean():
    m = nn.BatchNorm1d(2, momentum=None)
    rng = np.random.default_rng(0)
    batches = [rng.standard_normal((5, 2)) + i for i in range(3)]
    for b in batches:
        m(to_nt(b.astype(np.float32)))
    expected = np.mean([b.mean(0) for b in batches], axis=0)
    np.testing.assert_allclose(m.running_mean.detach().numpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(m.running_var.detach().numpy(), np.mean([b.var(0, ddof=1) for b in batches], 0), rtol=1e-5)


def test_batchnorm_without_running_stats_uses_batch_stats_in_eval():
    m = nn.BatchNorm1d(3, track_running_stats=False).double().eval()  # the input's dtype, as PyTorch requires
    assert m.running_mean is None and m.num_batches_tracked is None
    x = np.random.default_rng(0).standard_normal((6, 3))
    y = m(to_nt(x)).detach().numpy()
    np.testing.assert_allclose(y, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-5, atol=1e-6)
    assert list(m.state_dict()) == ["weight", "bias"]


def test_batchnorm_reset_and_version():
    m = nn.BatchNorm1d(3)
    m(nt.randn(4, 3))
    m.reset_running_stats()
    assert not m.running_mean.detach().numpy().any() and (m.running_var.detach().numpy() == 1).all()
    assert int(m.num_batches_tracked) == 0
    assert m.state_dict()._metadata[""]["version"] == 2 == rnn.BatchNorm1d._version


def test_layer_norm_same_in_train_and_eval():
    m = nn.LayerNorm(4)
    x = nt.randn(3, 4)
    np.testing.assert_array_equal(m(x).detach().numpy(), m.eval()(x).detach().numpy())


def test_embedding_padding_idx_row():
    m = nn.Embedding(6, 3, padding_idx=2)
    assert not m.weight.detach().numpy()[2].any() and m.weight.detach().numpy()[[0, 1, 3]].any()
    out = m(nt.tensor([[2, 1, 2], [0, 2, 5]]))
    out.sum().backward()
    g = m.weight.grad.numpy()
    assert not g[2].any() and (g[1] == 1).all() and (g[0] == 1).all() and not g[3].any()
    m2 = nn.Embedding(6, 3, padding_idx=-1)
    assert m2.padding_idx == 5 and repr(m2) == repr(rnn.Embedding(6, 3, padding_idx=-1))


def test_embedding_max_norm_renormalizes_rows_in_place():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((5, 3)) * 3
    m_nt = nn.Embedding.from_pretrained(to_nt(w), freeze=False, max_norm=1.0)
    m_ref = rnn.Embedding.from_pretrained(to_ref(w), freeze=False, max_norm=1.0)
    i = np.array([[0, 2], [2, 4]])
    assert_close(m_nt(to_nt(i)), m_ref(to_ref(i)), rtol=1e-10, atol=1e-12)
    assert_close(m_nt.weight, m_ref.weight, rtol=1e-10, atol=1e-12)
    norms = np.linalg.norm(m_nt.weight.detach().numpy(), axis=1)
    assert (norms[[0, 2, 4]] <= 1 + 1e-6).all() and (norms[[1, 3]] > 1).all()


def test_embedding_from_pretrained():
    w = nt.randn(4, 3)
    m = nn.Embedding.from_pretrained(w)
    assert not m.weight.requires_grad and m.num_embeddings == 4 and m.embedding_dim == 3
    np.testing.assert_array_equal(m(nt.tensor([1, 3])).detach().numpy(), w.detach().numpy()[[1, 3]])
    assert nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dimensional"):
        nn.Embedding.from_pretrained(nt.randn(4))
    with pytest.raises(AssertionError, match="Shape of weight does not match"):
        nn.Embedding(3, 3, _weight=w)


@pytest.mark.parametrize("cls,shape", [("Dropout", (200, 50)), ("Dropout1d", (20, 30, 5)),
                                       ("Dropout2d", (20, 30, 2, 3)), ("Dropout3d", (10, 40, 2, 2, 2))])
def test_dropout_statistics_and_eval(cls, shape):
    p = 0.3
    m = getattr(nn, cls)(p)
    x = nt.ones(*shape)
    y = m(x).detach().numpy()
    assert np.isclose(y, 0).sum() + np.isclose(y, 1 / (1 - p)).sum() == y.size
    n = np.prod(shape[:2]) if cls != "Dropout" else np.prod(shape)
    frac = (y == 0).mean()
    assert abs(frac - p) < 4 * np.sqrt(p * (1 - p) / n)
    if cls != "Dropout":  # whole channels
        flat = y.reshape(shape[0], shape[1], -1)
        assert (flat.min(-1) == flat.max(-1)).all()
    m.eval()
    np.testing.assert_array_equal(m(x).detach().numpy(), x.detach().numpy())
    assert repr(m) == repr(getattr(rnn, cls)(p))


def test_dropout_gradient_uses_the_mask():
    nt.manual_seed(0)
    x = nt.ones(50, 40, requires_grad=True)
    y = nn.Dropout(0.5)(x)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())


def test_prelu_inplace_and_extra_repr():
    assert repr(nn.PReLU(3, init=0.1)) == repr(rnn.PReLU(3, init=0.1))
    assert np.allclose(nn.PReLU(3, init=0.1).weight.detach().numpy(), 0.1)
    x = nt.tensor([-1.0, 2.0])
    y = x.clone()
    out = nn.ReLU(inplace=True)(y)
    assert out is y and y.detach().numpy().tolist() == [0.0, 2.0]


def test_conv_transpose_output_size():
    for out_size in ([7, 7], [8, 7], (2, 2, 8, 8)):
        m_ref = rnn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)
        m_nt = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1)
        copy_weights(m_ref, m_nt, np.random.default_rng(0))
        x = np.random.default_rng(1).standard_normal((2, 4, 4, 4)).astype(np.float32)
        assert_close(m_nt(to_nt(x), output_size=out_size), m_ref(to_ref(x), output_size=out_size), **TOL[np.float32])
    with pytest.raises(ValueError, match="requested an output size of"):
        m_nt(to_nt(x), output_size=[10, 10])
    with pytest.raises(ValueError, match="output_size must have 2 or 4 elements"):
        m_nt(to_nt(x), output_size=[10])


@pytest.mark.parametrize("m,expected", [
    (lambda n: n.Conv2d(3, 4, 3, padding="same", padding_mode="reflect"), None),
    (lambda n: n.Conv1d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False), None),
    (lambda n: n.ConvTranspose2d(2, 4, 3, stride=2, output_padding=1, dilation=(1, 2)), None),
    (lambda n: n.AvgPool1d(3), "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"),
    (lambda n: n.MaxUnpool2d(2), None),
    (lambda n: n.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True), None),
    (lambda n: n.Upsample(size=(4, 4), mode="bilinear"), None),
    (lambda n: n.Sequential(n.Conv2d(1, 2, 3), n.BatchNorm2d(2), n.ReLU(True), n.Flatten(), n.Linear(8, 3),
                            n.LogSoftmax(1)), None),
    (lambda n: n.CrossEntropyLoss(label_smoothing=0.1), "CrossEntropyLoss()"),
])
def test_repr_matches_torch(m, expected):
    assert repr(m(nn)) == repr(m(rnn))
    if expected:
        assert repr(m(nn)) == expected


def test_loss_weights_are_buffers_and_legacy_flags():
    w = nt.tensor([1.0, 2.0])
    m = nn.CrossEntropyLoss(weight=w)
    assert "weight" in dict(m.named_buffers()) and list(m.state_dict()) == ["weight"]
    b = nn.BCEWithLogitsLoss(pos_weight=nt.tensor([2.0]))
    assert list(b.state_dict()) == ["pos_weight"] == list(rnn.BCEWithLogitsLoss(pos_weight=ref.tensor([2.0])).state_dict())
    assert b.double().pos_weight.dtype == nt.float64
    with pytest.warns(UserWarning, match="reduction='sum' instead"):
        assert nn.MSELoss(size_average=False).reduction == "sum"
    with pytest.warns(UserWarning, match="reduction='none' instead"):
        assert nn.L1Loss(reduce=False).reduction == "none"


def test_mse_loss_broadcast_warning():
    with pytest.warns(UserWarning, match="different to the input size"):
        nn.MSELoss()(nt.zeros(3, 1), nt.zeros(3))


def test_flatten_unflatten_roundtrip_and_identity():
    x = nt.randn(2, 3, 4)
    assert nn.Unflatten(1, (3, 4))(nn.Flatten()(x)).shape == x.shape
    assert nn.Identity()(x) is x


# ---- MultiheadAttention -------------------------------------------------------------------------
def _mask(kind, shape, rng, dtype):
    if kind == "bool":
        m = rng.random(shape) < 0.3
        m[..., 0] = False  # keep at least one key per row
        return m
    return (rng.standard_normal(shape) * 0.5).astype(dtype)


MHA_CASES = [  # ctor kwargs, (query, key, value) shapes, forward kwargs (masks as ("bool"/"float", shape))
    (dict(), [(5, 3, 8)] * 3, dict()),
    (dict(), "self", dict(need_weights=False)),
    (dict(batch_first=True), [(3, 5, 8), (3, 4, 8), (3, 4, 8)],
     dict(key_padding_mask=("bool", (3, 4)), average_attn_weights=False)),
    (dict(kdim=6, vdim=5), [(5, 3, 8), (4, 3, 6), (4, 3, 5)], dict(attn_mask=("float", (5, 4)))),
    (dict(kdim=6, vdim=5, batch_first=True), [(3, 5, 8), (3, 4, 6), (3, 4, 5)],
     dict(attn_mask=("float", (5, 4)), need_weights=False)),
    (dict(add_bias_kv=True, add_zero_attn=True), [(5, 2, 8), (4, 2, 8), (4, 2, 8)],
     dict(attn_mask=("bool", (5, 4)), key_padding_mask=("bool", (2, 4)))),
    (dict(bias=False, num_heads=4), [(5, 2, 8), (3, 2, 8), (3, 2, 8)], dict(attn_mask=("float", (8, 5, 3)))),
    (dict(), [(5, 8), (4, 8), (4, 8)], dict(attn_mask=("bool", (2, 5, 4)), key_padding_mask=("bool", (4,)))),
    (dict(batch_first=True), "self", dict(attn_mask=("causal", (5, 5)), is_causal=True, need_weights=False)),
    (dict(batch_first=True), "self", dict(attn_mask=("causal", (5, 5)), is_causal=True)),
]


@pytest.mark.parametrize("ctor_kw,shapes,fwd_kw", MHA_CASES)
def test_multihead_attention_matches_torch(ctor_kw, shapes, fwd_kw, fdtype):
    rng = np.random.default_rng(0)
    kw = dict(dict(embed_dim=8, num_heads=2), **ctor_kw)
    m_ref, m_nt = rnn.MultiheadAttention(**kw), nn.MultiheadAttention(**kw)
    assert repr(m_nt) == repr(m_ref)
    assert [(k, tuple(v.shape)) for k, v in m_nt.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in m_ref.state_dict().items()]
    m_ref.to(NP2REF[fdtype])
    m_nt.to(NP2NT[fdtype])
    copy_weights(m_ref, m_nt, rng)
    with ref.no_grad():  # the biases start at zero: make them count
        for p in m_ref.parameters():
            p.add_(ref.from_numpy(rng.uniform(-0.2, 0.2, tuple(p.shape)).astype(fdtype)))
    m_nt.load_state_dict({k: to_nt(v) for k, v in m_ref.state_dict().items()})
    self_attn = shapes == "self"
    shapes = [(3, 5, 8)] if self_attn else shapes
    xs = [rng.standard_normal(s).astype(fdtype) for s in shapes]
    x_ref = [to_ref(x, True) for x in xs]
    x_nt = [to_nt(x, True) for x in xs]
    fk_ref, fk_nt = {}, {}
    for k, v in fwd_kw.items():
        if isinstance(v, tuple):
            arr = np.triu(np.ones(v[1], bool), 1) if v[0] == "causal" else _mask(v[0], v[1], rng, fdtype)
            fk_ref[k], fk_nt[k] = to_ref(arr), to_nt(arr)
        else:
            fk_ref[k] = fk_nt[k] = v
    args_ref = x_ref * 3 if self_attn else x_ref
    args_nt = x_nt * 3 if self_attn else x_nt
    out_ref, w_ref = m_ref(*args_ref, **fk_ref)
    out_nt, w_nt = m_nt(*args_nt, **fk_nt)
    tol = TOL[fdtype]
    assert_close(out_nt, out_ref, **tol)
    assert (w_nt is None) == (w_ref is None)
    if w_ref is not None:
        assert_close(w_nt, w_ref, **tol)
    g = rng.standard_normal(tuple(out_ref.shape)).astype(fdtype)
    loss_ref = (out_ref * to_ref(g)).sum() + (0 if w_ref is None else w_ref.sum() * 0.5)
    loss_nt = (out_nt * to_nt(g)).sum() + (0 if w_nt is None else w_nt.sum() * 0.5)
    loss_ref.backward()
    loss_nt.backward()
    for a, b in zip(x_nt, x_ref):
        assert_close(a.grad, b.grad, **tol)
    for (k, p_nt), (_, p_ref) in zip(m_nt.named_parameters(), m_ref.named_parameters()):
        assert_close(p_nt.grad, p_ref.grad, **tol)


def test_multihead_attention_dropout_and_errors():
    m = nn.MultiheadAttention(8, 2, dropout=0.5)
    x = nt.randn(4, 2, 8)
    out_train, w_train = m(x, x, x)
    assert out_train.shape == (4, 2, 8) and w_train.shape == (2, 4, 4)
    m.eval()
    out1, _ = m(x, x, x)
    out2, _ = m(x, x, x)
    np.testing.assert_array_equal(out1.detach().numpy(), out2.detach().numpy())
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8, but got 6"):
        m(nt.randn(4, 2, 6), x, x)
    with pytest.raises(AssertionError, match="expected `key` and `value` to be 3-D"):
        m(x, nt.randn(4, 8), x)
    with pytest.raises(AssertionError, match="only bool and floating types of attn_mask are supported"):
        m(x, x, x, attn_mask=nt.zeros(4, 4, dtype=nt.int64))
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is .*, but should be \(4, 4\)"):
        m(x, x, x, attn_mask=nt.zeros(3, 4))
    with pytest.raises(AssertionError, match="Expected key_padded_mask.shape\\[1\\] to be 4, but got 3"):
        m(x, x, x, key_padding_mask=nt.zeros(2, 3, dtype=nt.bool))
    m2 = nn.MultiheadAttention(8, 2, kdim=4, vdim=4)
    assert m2.in_proj_weight is None and m2.q_proj_weight.shape == (8, 8) and m2.k_proj_weight.shape == (8, 4)
    assert list(m2.state_dict()) == list(rnn.MultiheadAttention(8, 2, kdim=4, vdim=4).state_dict())
