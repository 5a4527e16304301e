"""Double backward (``create_graph=True``) of the nn ops, differential against PyTorch.

For every op: ``gs = grad(f(x), x, v, create_graph=True)``, ``s = sum((g * w).sum())`` and
``grad(s, x + [v])`` must match torch's (values, dtypes, shapes; a None matches zeros) in float32 and
float64; float64 ``numtorch.autograd.gradgradcheck`` passes on the same small inputs. Ops PyTorch gives
no double backward must raise its error at the second backward. Self-contained (no shared helper).
"""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from torch.nn.attention import SDPBackend, sdpa_kernel

import numtorch as nt
import numtorch.nn.functional as NF

_K = np.random.default_rng(1234)
# constants shared by both libraries (targets, signs, masks), drawn once
SIGN34, SIGN5, SIGN3 = (np.sign(_K.standard_normal(s)) for s in ((3, 4), 5, 3))
BIN34 = (_K.random((3, 4)) > 0.5).astype(np.float64)
BOOL_MASK = _K.random((2, 3, 5)) > 0.3
BOOL_MASK[..., 0] = True


def _n(*s):
    return lambda r: r.standard_normal(s)


def _p(*s):  # positive
    return lambda r: r.random(s) + 0.1


def _prob(*s):  # in (0.1, 0.9)
    return lambda r: r.random(s) * 0.8 + 0.1


def _tgt(m, a):
    return m.tensor(np.asarray(a))


def _c(m, a, like):
    """A float constant in the dtype of tensor ``like``."""
    return m.tensor(np.asarray(a, np.float64)).to(like.dtype)


# name -> (f(m, F, *inputs), input makers); m is numtorch or torch, F their nn.functional
CASES = {
    # activations
    "relu": (lambda m, F, a: F.relu(a), [_n(3, 4)]),
    "gelu": (lambda m, F, a: F.gelu(a), [_n(3, 4)]),
    "gelu_tanh": (lambda m, F, a: F.gelu(a, approximate="tanh"), [_n(3, 4)]),
    "silu": (lambda m, F, a: F.silu(a), [_n(3, 4)]),
    "elu": (lambda m, F, a: F.elu(a, 0.7), [_n(3, 4)]),
    "selu": (lambda m, F, a: F.selu(a), [_n(3, 4)]),
    "celu": (lambda m, F, a: F.celu(a, 2.0), [_n(3, 4)]),  # torch's backward rounds 1/alpha to float32
    "softplus": (lambda m, F, a: F.softplus(a, beta=2.0, threshold=3.0), [_n(3, 4)]),
    "leaky_relu": (lambda m, F, a: F.leaky_relu(a, 0.1), [_n(3, 4)]),
    "hardtanh": (lambda m, F, a: F.hardtanh(a, -0.5, 0.5), [_n(3, 4)]),
    "relu6": (lambda m, F, a: F.relu6(a * 4), [_n(3, 4)]),
    "sigmoid": (lambda m, F, a: F.sigmoid(a), [_n(3, 4)]),
    "tanh": (lambda m, F, a: F.tanh(a), [_n(3, 4)]),
    "logsigmoid": (lambda m, F, a: F.logsigmoid(a), [_n(3, 4)]),
    "hardswish": (lambda m, F, a: F.hardswish(a * 3), [_n(3, 4)]),
    "mish": (lambda m, F, a: F.mish(a), [_n(3, 4)]),
    "softsign": (lambda m, F, a: F.softsign(a), [_n(3, 4)]),
    "tanhshrink": (lambda m, F, a: F.tanhshrink(a), [_n(3, 4)]),
    "softshrink": (lambda m, F, a: F.softshrink(a, 0.3), [_n(3, 4)]),
    "hardshrink": (lambda m, F, a: F.hardshrink(a, 0.3), [_n(3, 4)]),
    "threshold": (lambda m, F, a: F.threshold(a, 0.1, 2.0), [_n(3, 4)]),
    "glu": (lambda m, F, a: F.glu(a, 1), [_n(3, 6)]),
    "glu_dim0": (lambda m, F, a: F.glu(a, 0), [_n(4, 3)]),
    "prelu": (lambda m, F, a, w: F.prelu(a, w), [_n(2, 3, 4), _n(3)]),
    "prelu_shared": (lambda m, F, a, w: F.prelu(a, w), [_n(2, 3), _n(1)]),
    "rrelu_eval": (lambda m, F, a: F.rrelu(a, training=False), [_n(3, 4)]),
    "softmax": (lambda m, F, a: F.softmax(a, -1), [_n(3, 4)]),
    "log_softmax": (lambda m, F, a: F.log_softmax(a, 0), [_n(3, 4)]),
    "softmin": (lambda m, F, a: F.softmin(a, 1), [_n(3, 4)]),
    # linear layers, attention, dropout (eval)
    "linear": (lambda m, F, a, w, b: F.linear(a, w, b), [_n(2, 3, 4), _n(5, 4), _n(5)]),
    "bilinear": (lambda m, F, a, b, w, c: F.bilinear(a, b, w, c), [_n(3, 4), _n(3, 2), _n(5, 4, 2), _n(5)]),
    "sdpa": (lambda m, F, q, k, v: F.scaled_dot_product_attention(q, k, v), [_n(2, 3, 4), _n(2, 5, 4), _n(2, 5, 4)]),
    "sdpa_causal": (lambda m, F, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.7),
                    [_n(2, 3, 4), _n(2, 3, 4), _n(2, 3, 4)]),
    "sdpa_bool_mask": (lambda m, F, q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=_tgt(m, BOOL_MASK)),
                       [_n(2, 3, 4), _n(2, 5, 4), _n(2, 5, 4)]),
    "sdpa_gqa": (lambda m, F, q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
                 [_n(1, 4, 3, 2), _n(1, 2, 3, 2), _n(1, 2, 3, 2)]),
    "dropout_eval": (lambda m, F, a: F.dropout(a, 0.5, training=False), [_n(3, 4)]),
    # normalization
    "layer_norm": (lambda m, F, a, w, b: F.layer_norm(a, (4,), w, b), [_n(3, 4), _n(4), _n(4)]),
    "layer_norm_2d": (lambda m, F, a: F.layer_norm(a, (2, 3)), [_n(2, 2, 3)]),
    "rms_norm": (lambda m, F, a, w: F.rms_norm(a, (4,), w), [_n(3, 4), _n(4)]),
    "batch_norm": (lambda m, F, a, w, b: F.batch_norm(a, None, None, w, b, training=True), [_n(4, 3, 2), _n(3), _n(3)]),
    "batch_norm_2d": (lambda m, F, a: F.batch_norm(a, None, None, training=True), [_n(5, 3)]),
    "batch_norm_eval": (lambda m, F, a, w: F.batch_norm(a, _c(m, [0.1, -0.2, 0.3], a),
                                                        _c(m, [1.5, 0.5, 2.0], a), w, None, training=False),
                        [_n(4, 3, 2), _n(3)]),
    "group_norm": (lambda m, F, a, w, b: F.group_norm(a, 2, w, b), [_n(2, 4, 3), _n(4), _n(4)]),
    "instance_norm": (lambda m, F, a: F.instance_norm(a), [_n(2, 3, 4)]),
    "normalize": (lambda m, F, a: F.normalize(a, dim=1), [_n(3, 4)]),
    "normalize_p1": (lambda m, F, a: F.normalize(a, p=1.0, dim=0), [_n(3, 4)]),
    "local_response_norm": (lambda m, F, a: F.local_response_norm(a, 2), [_n(2, 4, 5)]),
    # losses
    "cross_entropy": (lambda m, F, a: F.cross_entropy(a, _tgt(m, [0, 2, 1])), [_n(3, 4)]),
    "cross_entropy_full": (lambda m, F, a: F.cross_entropy(a, _tgt(m, [[0, 2], [1, 3]]), weight=_c(
        m, [0.5, 1.0, 2.0, 1.5], a), ignore_index=3, label_smoothing=0.2), [_n(2, 4, 2)]),
    "cross_entropy_none": (lambda m, F, a: F.cross_entropy(a, _tgt(m, [0, 2, 1]), reduction="none"), [_n(3, 4)]),
    "cross_entropy_probs": (lambda m, F, a, b: F.cross_entropy(a, b, label_smoothing=0.1), [_n(3, 4), _prob(3, 4)]),
    "nll_loss": (lambda m, F, a: F.nll_loss(a, _tgt(m, [0, 2, 1]), weight=_c(m, [1.0, 2.0, 0.5, 1.0], a)),
                 [_n(3, 4)]),
    "mse_loss": (lambda m, F, a, b: F.mse_loss(a, b), [_n(3, 4), _n(3, 4)]),
    "l1_loss": (lambda m, F, a, b: F.l1_loss(a, b, reduction="sum"), [_n(3, 4), _n(3, 4)]),
    "smooth_l1_loss": (lambda m, F, a, b: F.smooth_l1_loss(a, b, beta=0.5), [_n(3, 4), _n(3, 4)]),
    "huber_loss": (lambda m, F, a, b: F.huber_loss(a, b, delta=0.7), [_n(3, 4), _n(3, 4)]),
    "bce": (lambda m, F, a, b: F.binary_cross_entropy(a, b), [_prob(3, 4), _prob(3, 4)]),
    "bce_with_logits": (lambda m, F, a, b: F.binary_cross_entropy_with_logits(a, b), [_n(3, 4), _prob(3, 4)]),
    "kl_div": (lambda m, F, a, b: F.kl_div(a, b, reduction="batchmean"), [_n(3, 4), _prob(3, 4)]),
    "kl_div_log_target": (lambda m, F, a, b: F.kl_div(a, b, reduction="sum", log_target=True), [_n(3, 4), _n(3, 4)]),
    "poisson_nll_loss": (lambda m, F, a, b: F.poisson_nll_loss(a, b), [_n(3, 4), _p(3, 4)]),
    "gaussian_nll_loss": (lambda m, F, a, b, c: F.gaussian_nll_loss(a, b, c), [_n(3, 4), _n(3, 4), _p(3, 4)]),
    "soft_margin_loss": (lambda m, F, a: F.soft_margin_loss(a, _c(m, SIGN34, a)), [_n(3, 4)]),
    "multilabel_soft_margin_loss": (lambda m, F, a: F.multilabel_soft_margin_loss(a, _c(m, BIN34, a)), [_n(3, 4)]),
    "margin_ranking_loss": (lambda m, F, a, b: F.margin_ranking_loss(a, b, _c(m, SIGN5, a), 0.2), [_n(5), _n(5)]),
    "hinge_embedding_loss": (lambda m, F, a: F.hinge_embedding_loss(a, _c(m, SIGN34, a)), [_n(3, 4)]),
    "cosine_embedding_loss": (lambda m, F, a, b: F.cosine_embedding_loss(a, b, _c(m, SIGN3, a), 0.1),
                              [_n(3, 4), _n(3, 4)]),
    "triplet_margin_loss": (lambda m, F, a, b, c: F.triplet_margin_loss(a, b, c, margin=3.0), [_n(3, 4)] * 3),
    # convolution, padding, fold
    "conv1d": (lambda m, F, a, w, b: F.conv1d(a, w, b, padding=1), [_n(2, 3, 6), _n(4, 3, 3), _n(4)]),
    "conv2d": (lambda m, F, a, w, b: F.conv2d(a, w, b, stride=2, padding=1), [_n(2, 3, 5, 5), _n(4, 3, 3, 3), _n(4)]),
    "conv2d_groups_dilation": (lambda m, F, a, w: F.conv2d(a, w, groups=2, dilation=2, stride=(1, 2)),
                               [_n(2, 4, 6, 7), _n(4, 2, 2, 2)]),
    "conv2d_same": (lambda m, F, a, w: F.conv2d(a, w, padding="same"), [_n(1, 2, 4, 5), _n(3, 2, 2, 3)]),
    "conv2d_unbatched": (lambda m, F, a, w: F.conv2d(a, w, stride=2), [_n(2, 5, 5), _n(3, 2, 2, 2)]),
    "conv3d": (lambda m, F, a, w: F.conv3d(a, w, padding=1, stride=2), [_n(1, 2, 4, 4, 4), _n(3, 2, 2, 2, 2)]),
    "conv_transpose1d": (lambda m, F, a, w, b: F.conv_transpose1d(a, w, b, stride=2),
                         [_n(2, 3, 5), _n(3, 4, 3), _n(4)]),
    "conv_transpose2d": (lambda m, F, a, w, b: F.conv_transpose2d(a, w, b, stride=2, padding=1, output_padding=1,
                                                                  groups=1), [_n(2, 3, 4, 4), _n(3, 2, 3, 3), _n(2)]),
    "conv_transpose2d_groups": (lambda m, F, a, w: F.conv_transpose2d(a, w, groups=2, dilation=2),
                                [_n(1, 4, 3, 3), _n(4, 1, 2, 2)]),
    "conv_transpose3d": (lambda m, F, a, w: F.conv_transpose3d(a, w), [_n(1, 2, 3, 3, 3), _n(2, 2, 2, 2, 2)]),
    "pad_constant": (lambda m, F, a: F.pad(a, (1, 2), value=0.5), [_n(2, 3, 4)]),
    "pad_reflect": (lambda m, F, a: F.pad(a, (1, 2, 2, 1), mode="reflect"), [_n(1, 2, 4, 4)]),
    "pad_replicate": (lambda m, F, a: F.pad(a, (1, 2), mode="replicate"), [_n(2, 3, 4)]),
    "pad_circular": (lambda m, F, a: F.pad(a, (1, 2), mode="circular"), [_n(2, 3, 4)]),
    "unfold": (lambda m, F, a: F.unfold(a, 2, padding=1, stride=2), [_n(1, 2, 4, 4)]),
    "fold": (lambda m, F, a: F.fold(a, (3, 3), 2), [_n(1, 8, 4)]),
    # pooling
    "max_pool1d": (lambda m, F, a: F.max_pool1d(a, 2), [_n(2, 3, 6)]),
    "max_pool2d": (lambda m, F, a: F.max_pool2d(a, 2), [_n(2, 3, 4, 4)]),
    "max_pool2d_overlap_pad": (lambda m, F, a: F.max_pool2d(a, 3, stride=2, padding=1), [_n(1, 2, 5, 5)]),
    "max_pool3d": (lambda m, F, a: F.max_pool3d(a, 2), [_n(1, 2, 4, 4, 4)]),
    "avg_pool1d": (lambda m, F, a: F.avg_pool1d(a, 2), [_n(2, 3, 6)]),
    "avg_pool2d": (lambda m, F, a: F.avg_pool2d(a, 3, stride=2, padding=1, count_include_pad=False), [_n(2, 3, 5, 5)]),
    "avg_pool2d_ceil": (lambda m, F, a: F.avg_pool2d(a, 2, ceil_mode=True), [_n(1, 2, 5, 5)]),
    "avg_pool3d": (lambda m, F, a: F.avg_pool3d(a, 2), [_n(1, 2, 4, 4, 4)]),
    "adaptive_avg_pool1d": (lambda m, F, a: F.adaptive_avg_pool1d(a, 3), [_n(2, 3, 7)]),
    "adaptive_avg_pool2d": (lambda m, F, a: F.adaptive_avg_pool2d(a, 3), [_n(2, 3, 5, 5)]),
    "adaptive_avg_pool3d": (lambda m, F, a: F.adaptive_avg_pool3d(a, 2), [_n(1, 2, 3, 3, 3)]),
    "adaptive_max_pool1d": (lambda m, F, a: F.adaptive_max_pool1d(a, 3), [_n(2, 3, 7)]),
    "adaptive_max_pool2d": (lambda m, F, a: F.adaptive_max_pool2d(a, 3), [_n(2, 3, 5, 5)]),
    "lp_pool1d": (lambda m, F, a: F.lp_pool1d(a, 2, 2), [_p(2, 3, 6)]),
    "lp_pool2d": (lambda m, F, a: F.lp_pool2d(a, 3.0, 2), [_p(2, 3, 4, 4)]),
    "max_unpool2d": (lambda m, F, a: F.max_unpool2d(*F.max_pool2d(a, 2, return_indices=True), 2), [_n(1, 2, 4, 4)]),
    # resampling
    "interpolate_nearest": (lambda m, F, a: F.interpolate(a, scale_factor=2), [_n(1, 2, 3, 3)]),
    "interpolate_nearest_exact": (lambda m, F, a: F.interpolate(a, size=(5, 4), mode="nearest-exact"),
                                  [_n(1, 2, 3, 3)]),
    "interpolate_linear": (lambda m, F, a: F.interpolate(a, size=5, mode="linear"), [_n(1, 2, 3)]),
    "interpolate_bilinear": (lambda m, F, a: F.interpolate(a, size=(5, 4), mode="bilinear"), [_n(1, 2, 3, 3)]),
    "interpolate_bilinear_ac": (lambda m, F, a: F.interpolate(a, size=(5, 4), mode="bilinear", align_corners=True),
                                [_n(1, 2, 3, 3)]),
    "interpolate_trilinear": (lambda m, F, a: F.interpolate(a, size=(3, 4, 5), mode="trilinear"), [_n(1, 1, 2, 3, 3)]),
    "interpolate_area": (lambda m, F, a: F.interpolate(a, size=(2, 2), mode="area"), [_n(1, 2, 4, 4)]),
    "pixel_shuffle": (lambda m, F, a: F.pixel_shuffle(a, 2), [_n(1, 8, 2, 3)]),
    "pixel_unshuffle": (lambda m, F, a: F.pixel_unshuffle(a, 2), [_n(1, 2, 4, 6)]),
    "channel_shuffle": (lambda m, F, a: F.channel_shuffle(a, 2), [_n(1, 4, 2, 2)]),
    # distances, embedding
    "cosine_similarity": (lambda m, F, a, b: F.cosine_similarity(a, b), [_n(3, 4), _n(3, 4)]),
    "cosine_similarity_bcast": (lambda m, F, a, b: F.cosine_similarity(a, b, dim=0), [_n(4, 3), _n(4, 1)]),
    "pairwise_distance": (lambda m, F, a, b: F.pairwise_distance(a, b), [_n(3, 4), _n(3, 4)]),
    "pairwise_distance_p3": (lambda m, F, a, b: F.pairwise_distance(a, b, p=3.0, keepdim=True), [_n(3, 4), _n(3, 4)]),
    "pairwise_distance_p1": (lambda m, F, a, b: F.pairwise_distance(a, b, p=1.0), [_n(3, 4), _n(3, 4)]),
    "embedding": (lambda m, F, w: F.embedding(_tgt(m, [[0, 2], [1, 2]]), w), [_n(4, 3)]),
}

# Ops PyTorch gives no double backward: the second backward raises this error type (and message)
NO_DOUBLE_BACKWARD = {
    "hardsigmoid": (lambda m, F, a: F.hardsigmoid(a), [_n(3, 4)], RuntimeError, "hardsigmoid_backward"),
    "multi_margin_loss": (lambda m, F, a: F.multi_margin_loss(a, _tgt(m, [0, 2, 1])), [_n(3, 4)], RuntimeError,
                          "multi_margin_loss_backward"),
    "multilabel_margin_loss": (lambda m, F, a: F.multilabel_margin_loss(a, _tgt(m, [[0, 2, -1, 0], [1, -1, 0, 0],
                                                                                    [3, 0, -1, 0]])),
                               [_n(3, 4)], RuntimeError, "multilabel_margin_loss_backward"),
    "cdist": (lambda m, F, a, b: m.cdist(a, b, p=1.5), [_n(3, 4), _n(5, 4)], NotImplementedError, "_cdist_backward"),
    "pdist": (lambda m, F, a: F.pdist(a), [_n(4, 3)], NotImplementedError, "_pdist_backward"),
    "embedding_bag": (lambda m, F, w: F.embedding_bag(_tgt(m, [0, 2, 1, 2]), w, _tgt(m, [0, 2])), [_n(4, 3)],
                      NotImplementedError, "_embedding_bag_backward"),
    "embedding_bag_max": (lambda m, F, w: F.embedding_bag(_tgt(m, [0, 2, 1, 2]), w, _tgt(m, [0, 2]), mode="max"),
                          [_n(4, 3)], NotImplementedError, "_embedding_bag_backward"),
    "embedding_bag_per_sample_weights": (
        lambda m, F, w, p: F.embedding_bag(_tgt(m, [0, 2, 1, 2]), w, _tgt(m, [0, 2]), per_sample_weights=p, mode="sum"),
        [_n(4, 3), _n(4)], RuntimeError, "_embedding_bag_per_sample_weights_backward"),
}

# float64 gradgradcheck is skipped where finite differences cross a kink of the op on random inputs
NO_GRADGRADCHECK = {"max_unpool2d"}


def _inputs(name, makers):
    r = np.random.default_rng(abs(hash(name)) % (2 ** 32))
    return [mk(r) for mk in makers]


def _gradgrad(m, F, f, arrays, dtype, seed):
    """(first-order grads, second-order grads w.r.t. inputs + [v]) for library ``m``."""
    r = np.random.default_rng(seed)
    xs = [m.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    out = f(m, F, *xs)
    v = m.tensor(r.standard_normal(tuple(out.shape)).astype(dtype), requires_grad=True)
    gs = m.autograd.grad(out, xs, v, create_graph=True, allow_unused=True)
    ws = [r.standard_normal(a.shape).astype(dtype) for a in arrays]
    terms = [(g * m.tensor(w)).sum() for g, w in zip(gs, ws) if g is not None and g.requires_grad]
    if not terms:
        return gs, [None] * (len(xs) + 1)
    s = terms[0]
    for t in terms[1:]:
        s = s + t
    return gs, m.autograd.grad(s, xs + [v], allow_unused=True)


def _np(t):
    return t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else t.detach().numpy()


def _compare(ours, theirs, shapes, dtype, what):
    tol = 1e-9 if dtype == np.float64 else 2e-4
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a is None and b is None:
            continue
        if a is not None and b is not None:
            assert _np(a).dtype == _np(b).dtype, (what, i)
        ref = np.zeros(shapes[i], dtype) if b is None else _np(b)
        got = np.zeros(shapes[i], dtype) if a is None else _np(a)
        assert got.shape == ref.shape, (what, i, got.shape, ref.shape)
        scale = max(1.0, float(np.abs(ref).max(initial=0)))
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * scale, err_msg=f"{what} #{i}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_double_backward_matches_torch(name, dtype):
    f, makers = CASES[name]
    arrays = _inputs(name, makers)
    with sdpa_kernel(SDPBackend.MATH):  # torch's flash attention kernel has no double backward
        tg, tgg = _gradgrad(torch, TF, f, arrays, dtype, 7)
    ng, ngg = _gradgrad(nt, NF, f, arrays, dtype, 7)
    shapes = [a.shape for a in arrays]
    _compare(ng, tg, shapes, dtype, "first-order gradient")
    vshape = tuple(f(torch, TF, *[torch.tensor(a) for a in arrays]).shape)
    _compare(ngg, tgg, shapes + [vshape], dtype, "second-order gradient")


@pytest.mark.parametrize("name", sorted(set(CASES) - NO_GRADGRADCHECK))
def test_gradgradcheck(name):
    f, makers = CASES[name]
    xs = [nt.tensor(a, requires_grad=True) for a in _inputs(name, makers)]
    assert nt.autograd.gradgradcheck(lambda *a: f(nt, NF, *a), xs, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("name", sorted(NO_DOUBLE_BACKWARD))
def test_no_double_backward_raises_like_torch(name):
    f, makers, err, needle = NO_DOUBLE_BACKWARD[name]
    arrays = _inputs(name, makers)
    for m, F in ((torch, TF), (nt, NF)):
        with pytest.raises(err, match=needle):
            _gradgrad(m, F, f, arrays, np.float64, 3)


def test_dropout_training_double_backward_is_the_mask():
    x = nt.randn(4, 5, requires_grad=True, dtype=nt.float64)
    out = NF.dropout(x, 0.4, training=True)
    mask = (out / x).detach()
    v = nt.randn(4, 5, dtype=nt.float64, requires_grad=True)
    (g,) = nt.autograd.grad(out, x, v, create_graph=True)
    w = nt.randn(4, 5, dtype=nt.float64)
    gx, gv = nt.autograd.grad((g * w).sum(), [x, v], allow_unused=True)
    assert gx is None
    np.testing.assert_allclose(gv.numpy(), (mask * w).numpy(), rtol=1e-12)


# ------------------------------------------------------------------------------------------------
# composites built from the ops: modules and distributions, end to end against torch
# ------------------------------------------------------------------------------------------------
def _module_pair(ntcls, tcls, *args, **kw):
    torch.manual_seed(0)
    tm = tcls(*args, **kw).double()
    nm = ntcls(*args, **kw).double()
    nm.load_state_dict({k: nt.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return nm, tm


def _module_gradgrad(nm, tm, x, call=lambda mod, x: mod(x)):
    res = []
    for m, mod in ((nt, nm), (torch, tm)):
        xt = m.tensor(x, requires_grad=True)
        with sdpa_kernel(SDPBackend.MATH):  # torch's flash attention kernel has no double backward
            out = call(mod, xt)
        params = [p for p in mod.parameters()]
        (gx,) = m.autograd.grad(out.sum() + (out * out).sum(), [xt], create_graph=True)
        s = (gx * gx).sum()
        res.append([g.detach().numpy() for g in m.autograd.grad(s, [xt] + params)])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_recurrent_modules(kind):
    nm, tm = _module_pair(getattr(nt.nn, kind), getattr(torch.nn, kind), 3, 4, batch_first=True)
    x = np.random.default_rng(2).standard_normal((2, 3, 3))
    _module_gradgrad(nm, tm, x, lambda mod, x: mod(x)[0])


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
def test_recurrent_cells(kind):
    nm, tm = _module_pair(getattr(nt.nn, kind), getattr(torch.nn, kind), 3, 4)
    x = np.random.default_rng(3).standard_normal((2, 3))
    _module_gradgrad(nm, tm, x, lambda mod, x: mod(x)[0] if kind == "LSTMCell" else mod(x))


def test_multihead_attention():
    nm, tm = _module_pair(nt.nn.MultiheadAttention, torch.nn.MultiheadAttention, 4, 2, batch_first=True)
    x = np.random.default_rng(4).standard_normal((2, 3, 4))
    _module_gradgrad(nm, tm, x, lambda mod, x: mod(x, x, x)[0])


def test_transformer_encoder_layer():
    nm, tm = _module_pair(nt.nn.TransformerEncoderLayer, torch.nn.TransformerEncoderLayer, 4, 2,
                          dim_feedforward=8, dropout=0.0, batch_first=True)
    nm.eval(), tm.eval()
    x = np.random.default_rng(5).standard_normal((2, 3, 4))
    _module_gradgrad(nm, tm, x)


def test_conv_net_step():
    """conv2d + layer_norm + cross_entropy: a gradient penalty (the use case of create_graph)."""
    r = np.random.default_rng(6)
    x, w, lw = r.standard_normal((2, 3, 5, 5)), r.standard_normal((4, 3, 3, 3)), r.standard_normal(9)
    res = []
    for m, F in ((nt, NF), (torch, TF)):
        xt, wt, lwt = (m.tensor(a, requires_grad=True) for a in (x, w, lw))
        h = F.layer_norm(F.relu(F.conv2d(xt, wt, padding=0, stride=1)).reshape(2, 4, 9), (9,), lwt)
        loss = F.cross_entropy(h.mean(2), m.tensor(np.array([1, 3])))
        (gx,) = m.autograd.grad(loss, [xt], create_graph=True)
        res.append([g.detach().numpy() for g in m.autograd.grad((gx * gx).sum(), [xt, wt, lwt])])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("dist", ["Normal", "Categorical", "Bernoulli", "Gamma", "Beta", "Dirichlet"])
def test_distribution_log_prob(dist):
    r = np.random.default_rng(8)
    params = {"Normal": [r.standard_normal(3), r.random(3) + 0.5], "Categorical": [r.standard_normal((2, 4))],
              "Bernoulli": [r.standard_normal(3)], "Gamma": [r.random(3) + 1, r.random(3) + 0.5],
              "Beta": [r.random(3) + 1, r.random(3) + 1], "Dirichlet": [r.random((2, 3)) + 1]}[dist]
    values = {"Normal": r.standard_normal(3), "Categorical": np.array([1, 3]), "Bernoulli": np.array([0.0, 1.0, 1.0]),
              "Gamma": r.random(3) + 0.5, "Beta": r.random(3) * 0.8 + 0.1,
              "Dirichlet": np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])}[dist]
    kw = {"Categorical": "logits", "Bernoulli": "logits"}
    res = []
    for m in (nt, torch):
        ps = [m.tensor(p, requires_grad=True) for p in params]
        cls = getattr(m.distributions, dist)
        d = cls(**{kw[dist]: ps[0]}) if dist in kw else cls(*ps)
        lp = d.log_prob(m.tensor(values)).sum()
        gs = m.autograd.grad(lp, ps, create_graph=True)
        s = sum((g * g).sum() for g in gs)
        res.append([g.detach().numpy() for g in m.autograd.grad(s, ps)])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", ["huber_loss", "smooth_l1_loss"])
def test_second_derivative_at_the_kink_is_pytorchs(name):
    # |x - y| == delta (beta): PyTorch's double backward takes the flat branch there (0), not the quadratic one
    res = []
    for m in (nt, torch):
        x = m.tensor([1.0, -1.0, 0.5, 2.0], dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(getattr(m.nn.functional, name)(x, m.zeros_like(x), reduction="none").sum(), x,
                               create_graph=True)
        (h,) = m.autograd.grad((g * m.tensor([1.0, 2.0, 3.0, 4.0], dtype=m.float64)).sum(), x)
        res.append((g.detach().numpy(), h.numpy()))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])
