"""nn.functional: activations, softmax, linear, embedding, normalization, dropout, attention vs PyTorch."""
import warnings

import numpy as np
import pytest
import torch as ref
import torch.nn.functional as RF

import numtorch as nt
import numtorch.nn.functional as F
from numtorch.autograd import gradcheck

from conftest import assert_close

RNG = np.random.default_rng(1234)


def _tols(dtype, loose=False):
    if dtype == np.float32:
        return dict(rtol=1e-4, atol=1e-5) if loose else dict(rtol=1e-5, atol=1e-6)
    return dict(rtol=1e-10, atol=1e-12)


def check(fn_nt, fn_ref, arrays, dtype, grad=None, loose=False):
    """Run both functions on the same arrays; compare outputs and gradients of every float input.

    ``grad`` lists the input indices that require grad (default: all float arrays).
    """
    arrays = [a.astype(dtype) if a.dtype.kind == "f" else a for a in arrays]
    if grad is None:
        grad = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    xs = [nt.tensor(a.copy(), requires_grad=i in grad) for i, a in enumerate(arrays)]
    rs = [ref.tensor(a.copy(), requires_grad=i in grad) for i, a in enumerate(arrays)]
    out, expect = fn_nt(*xs), fn_ref(*rs)
    tol = _tols(dtype, loose)
    assert_close(out, expect, **tol)
    if grad:
        go = RNG.standard_normal(expect.shape).astype(dtype)
        out.backward(nt.tensor(go))
        expect.backward(ref.tensor(go))
        for i in grad:
            assert xs[i].grad is not None, f"no gradient for input {i}"
            assert_close(xs[i].grad, rs[i].grad, **tol)
    return out


def randn(*shape):
    return RNG.standard_normal(shape)


# ------------------------------------------------------------------------------------------------
# activations
# ------------------------------------------------------------------------------------------------
ACTIVATIONS = [
    ("relu", {}), ("relu6", {}), ("elu", {}), ("elu", {"alpha": 0.5}), ("selu", {}), ("celu", {"alpha": 1.5}),
    ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}), ("mish", {}), ("sigmoid", {}), ("tanh", {}),
    ("hardtanh", {}), ("hardtanh", {"min_val": -0.5, "max_val": 2.0}), ("hardsigmoid", {}), ("hardswish", {}),
    ("softplus", {}), ("softplus", {"beta": 2.0, "threshold": 3.0}), ("softsign", {}), ("logsigmoid", {}),
    ("tanhshrink", {}), ("softshrink", {}), ("softshrink", {"lambd": 1.0}), ("hardshrink", {}),
    ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}),
]


@pytest.mark.parametrize("name,kw", ACTIVATIONS, ids=[f"{n}{k}" for n, k in ACTIVATIONS])
@pytest.mark.parametrize("shape", [(7,), (3, 4, 5)])
def test_activation_matches_torch(name, kw, shape, fdtype):
    x = randn(*shape) * 3
    # float32: libm vs. PyTorch's vectorized transcendental functions differ in the last bits
    check(lambda t: getattr(F, name)(t, **kw), lambda t: getattr(RF, name)(t, **kw), [x], fdtype, loose=True)


@pytest.mark.parametrize("name,kw", ACTIVATIONS, ids=[f"{n}{k}" for n, k in ACTIVATIONS])
def test_activation_gradcheck(name, kw):
    # keep away from kinks, where finite differences are meaningless
    x = randn(2, 5) * 2
    x[np.abs(x) < 0.05] += 0.3
    for k in (1.0, 0.5, 3.0, 6.0):
        x[np.abs(np.abs(x) - k) < 0.02] += 0.1
    t = nt.tensor(x, requires_grad=True)
    assert gradcheck(lambda a: getattr(F, name)(a, **kw), (t,))


def test_activation_extremes_are_finite():
    x = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0], np.float32)
    for name in ("softplus", "logsigmoid", "silu", "mish", "gelu", "elu", "selu", "sigmoid"):
        out = check(lambda t: getattr(F, name)(t), lambda t: getattr(RF, name)(t), [x], np.float32)
        assert np.isfinite(out.detach().numpy()).all(), name


@pytest.mark.parametrize("name", ["relu", "relu6", "elu", "selu", "celu", "leaky_relu", "hardtanh", "silu",
                                  "mish", "hardswish", "hardsigmoid", "threshold"])
def test_inplace_activations(name):
    args = (0.5, -2.0) if name == "threshold" else ()
    x = randn(3, 4).astype(np.float32)
    t = nt.tensor(x.copy())
    out = getattr(F, name)(t, *args, inplace=True)
    assert out is t
    assert t._version == 1
    expect = getattr(RF, name)(ref.tensor(x), *args)
    assert_close(t, expect)
    # in-place on a non-leaf inside a graph: gradients flow through the rewritten history
    leaf = nt.tensor(x.copy(), requires_grad=True)
    rleaf = ref.tensor(x.copy(), requires_grad=True)
    y = leaf * 2
    getattr(F, name)(y, *args, inplace=True)
    y.sum().backward()
    ry = rleaf * 2
    getattr(RF, name)(ry, *args, inplace=True)
    ry.sum().backward()
    assert_close(leaf.grad, rleaf.grad)


def test_threshold_glu_prelu_rrelu(fdtype):
    x = randn(4, 6)
    check(lambda t: F.threshold(t, 0.3, -1.0), lambda t: RF.threshold(t, 0.3, -1.0), [x], fdtype)
    check(lambda t: F.glu(t), lambda t: RF.glu(t), [x], fdtype)
    check(lambda t: F.glu(t, 0), lambda t: RF.glu(t, 0), [x], fdtype)
    check(F.prelu, RF.prelu, [randn(2, 3, 4), randn(3)], fdtype)
    check(F.prelu, RF.prelu, [randn(5, 3), randn(1)], fdtype)
    check(F.prelu, RF.prelu, [randn(5), randn(1)], fdtype)
    check(lambda t: F.rrelu(t), lambda t: RF.rrelu(t), [x], fdtype)


def test_rrelu_training_slopes_in_range():
    nt.manual_seed(0)
    x = -nt.ones(1000)
    y = F.rrelu(x, 0.1, 0.3, training=True).numpy()
    assert (y <= -0.1 + 1e-6).all() and (y >= -0.3 - 1e-6).all() and y.std() > 0.03


def test_prelu_gradcheck():
    x = nt.tensor(randn(2, 3, 4), requires_grad=True)
    w = nt.tensor(randn(3), requires_grad=True)
    assert gradcheck(F.prelu, (x, w))


def test_activation_errors():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(nt.randn(3), approximate="foo")
    with pytest.raises(NotImplementedError, match="GeluKernelImpl"):
        F.gelu(nt.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 5"):
        F.glu(nt.randn(4, 5))
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size"):
        F.prelu(nt.randn(3, 5), nt.randn(4))
    assert F.relu(nt.tensor([1, -2])).tolist() == [1, 0]


# ------------------------------------------------------------------------------------------------
# softmax family
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("shape,dim", [((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1), ((2, 3, 4), 1)])
def test_softmax_matches_torch(name, shape, dim, fdtype):
    x = randn(*shape) * 4
    check(lambda t: getattr(F, name)(t, dim), lambda t: getattr(RF, name)(t, dim), [x], fdtype)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_gradcheck(name):
    t = nt.tensor(randn(3, 4), requires_grad=True)
    assert gradcheck(lambda a: getattr(F, name)(a, -1), (t,))
    assert gradcheck(lambda a: getattr(F, name)(a, 0), (t,))


def test_softmax_large_logits_stable():
    x = np.array([[1000.0, 0.0, -1000.0], [1e4, 1e4, 1e4]], np.float32)
    s = check(lambda t: F.softmax(t, 1), lambda t: RF.softmax(t, 1), [x], np.float32)
    ls = check(lambda t: F.log_softmax(t, 1), lambda t: RF.log_softmax(t, 1), [x], np.float32)
    assert np.isfinite(s.detach().numpy()).all() and np.isfinite(ls.detach().numpy()).all()


def test_softmax_dtype_and_scalar_and_methods():
    x = nt.randn(3, 4)
    out = F.softmax(x, 1, dtype=nt.float64)
    assert out.dtype == nt.float64
    assert_close(out, RF.softmax(ref.tensor(x.numpy()), 1, dtype=ref.float64))
    s = nt.tensor(2.5, requires_grad=True)
    y = F.softmax(s, 0)
    assert y.shape == () and y.item() == 1.0
    y.backward()
    assert s.grad.item() == 0.0
    assert F.log_softmax(nt.tensor(1.0), -1).item() == 0.0


def test_softmax_implicit_dim_warning():
    for ndim, expect_dim in ((1, 0), (2, 1), (3, 0), (4, 1)):
        x = randn(*([2] * ndim)).astype(np.float32)
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
            out = F.softmax(nt.tensor(x))
        assert_close(out, RF.softmax(ref.tensor(x), expect_dim))
    with pytest.warns(UserWarning, match="Implicit dimension choice for log_softmax"):
        F.log_softmax(nt.randn(2, 3))


def test_softmax_errors():
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.softmax(nt.randn(2, 3), 2)
    with pytest.raises(NotImplementedError, match="softmax_lastdim_kernel_impl"):
        F.softmax(nt.tensor([1, 2]), 0)


# ------------------------------------------------------------------------------------------------
# linear, bilinear
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("xshape", [(4,), (5, 4), (2, 3, 4), (2, 1, 3, 4)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_matches_torch(xshape, bias, fdtype):
    arrays = [randn(*xshape), randn(6, 4)] + ([randn(6)] if bias else [])
    out = check(F.linear, RF.linear, arrays, fdtype)
    assert out.grad_fn.name() == "AddmmBackward0"


def test_linear_noncontiguous_input_and_grad_subset(fdtype):
    x = randn(4, 5).T  # non-contiguous
    check(F.linear, RF.linear, [x, randn(3, 4), randn(3)], fdtype, grad=[1])
    check(F.linear, RF.linear, [x, randn(3, 4), randn(3)], fdtype, grad=[0])


def test_linear_gradcheck():
    x = nt.tensor(randn(2, 3, 4), requires_grad=True)
    w = nt.tensor(randn(5, 4), requires_grad=True)
    b = nt.tensor(randn(5), requires_grad=True)
    assert gradcheck(F.linear, (x, w, b))


def test_linear_errors():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(4x3 and 5x2\)"):
        F.linear(nt.randn(4, 3), nt.randn(2, 5))
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: double != float"):
        F.linear(nt.randn(4, 3).double(), nt.randn(2, 3))
    with pytest.raises(RuntimeError, match="The expanded size of the tensor"):
        F.linear(nt.randn(4, 3), nt.randn(2, 3), nt.randn(3))


def test_bilinear_matches_torch(fdtype):
    check(F.bilinear, RF.bilinear, [randn(3, 4), randn(3, 2), randn(5, 4, 2), randn(5)], fdtype)
    check(F.bilinear, RF.bilinear, [randn(2, 3, 4), randn(2, 3, 2), randn(5, 4, 2)], fdtype)
    ts = [nt.tensor(randn(*s), requires_grad=True) for s in ((2, 3), (2, 2), (4, 3, 2), (4,))]
    assert gradcheck(F.bilinear, ts)


# ------------------------------------------------------------------------------------------------
# embedding, one_hot
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("idx_shape,vocab,dim", [((32, 3), 27, 10), ((12, 64), 65, 16), ((5,), 3000, 4)])
def test_embedding_matches_torch(idx_shape, vocab, dim, fdtype):
    idx = RNG.integers(0, vocab, idx_shape)
    out = check(lambda w: F.embedding(nt.tensor(idx), w), lambda w: RF.embedding(ref.tensor(idx), w),
                [randn(vocab, dim)], fdtype)
    assert out.shape == idx_shape + (dim,)


def test_embedding_large_vocab_sort_path(fdtype):
    idx = RNG.integers(0, 50, (300, 20)) * 97  # many repeats, vocab above the one-hot threshold
    check(lambda w: F.embedding(nt.tensor(idx), w), lambda w: RF.embedding(ref.tensor(idx), w),
          [randn(5000, 3)], fdtype, loose=True)  # ~120 rows summed per index: float32 order differs


@pytest.mark.parametrize("kw", [dict(padding_idx=2), dict(padding_idx=-1), dict(scale_grad_by_freq=True),
                                dict(padding_idx=0, scale_grad_by_freq=True)])
def test_embedding_options(kw, fdtype):
    idx = np.array([[0, 2, 2], [4, 1, 2]])
    check(lambda w: F.embedding(nt.tensor(idx), w, **kw), lambda w: RF.embedding(ref.tensor(idx), w, **kw),
          [randn(5, 3)], fdtype)


def test_embedding_max_norm_renormalizes_in_place():
    w = randn(6, 4) * 3
    idx = np.array([0, 1, 1, 5])
    tw, rw = nt.tensor(w.copy()), ref.tensor(w.copy())
    out = F.embedding(nt.tensor(idx), tw, max_norm=1.0)
    expect = RF.embedding(ref.tensor(idx), rw, max_norm=1.0)
    assert_close(out, expect)
    assert_close(tw, rw)  # rows 0, 1, 5 rescaled in place, others untouched
    assert np.allclose(tw.numpy()[2], w[2])


def test_embedding_gradcheck_and_int32_indices():
    w = nt.tensor(randn(5, 3), requires_grad=True)
    idx = nt.tensor(np.array([[1, 1], [4, 0]], np.int32))
    assert gradcheck(lambda a: F.embedding(idx, a), (w,))


def test_embedding_errors():
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(nt.tensor([0, 9]), nt.randn(5, 3))
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices'"):
        F.embedding(nt.tensor([0.0, 1.0]), nt.randn(5, 3))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(nt.tensor([0, 1]), nt.randn(5, 3), padding_idx=7)


def test_one_hot():
    t = np.array([[0, 2], [1, 3]])
    assert_close(F.one_hot(nt.tensor(t)), RF.one_hot(ref.tensor(t)))
    assert_close(F.one_hot(nt.tensor(t), 6), RF.one_hot(ref.tensor(t), 6))
    assert F.one_hot(nt.tensor(t)).dtype == nt.int64
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(nt.tensor([0, 3]), 2)
    with pytest.raises(RuntimeError, match="Class values must be non-negative."):
        F.one_hot(nt.tensor([0, -1]))
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor"):
        F.one_hot(nt.tensor([0.0, 1.0]))


# ------------------------------------------------------------------------------------------------
# normalization
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,ns", [((4, 6), (6,)), ((2, 3, 4), (4,)), ((2, 3, 4), (3, 4))])
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
def test_layer_norm_matches_torch(shape, ns, affine, fdtype):
    arrays = [randn(*shape) * 2 + 1]
    if affine != "none":
        arrays.append(randn(*ns))
    if affine == "both":
        arrays.append(randn(*ns))
    fn = lambda x, *p: F.layer_norm(x, ns, *p, eps=1e-5)  # noqa: E731
    rf = lambda x, *p: RF.layer_norm(x, ns, *p, eps=1e-5)  # noqa: E731
    out = check(fn, rf, arrays, fdtype, loose=True)
    assert out.grad_fn.name() == "NativeLayerNormBackward0"


def test_layer_norm_gradcheck_and_errors():
    x = nt.tensor(randn(3, 4), requires_grad=True)
    w = nt.tensor(randn(4), requires_grad=True)
    b = nt.tensor(randn(4), requires_grad=True)
    assert gradcheck(lambda *a: F.layer_norm(a[0], (4,), a[1], a[2]), (x, w, b))
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[10\], expected input with shape \[\*, 10\], "
                                           r"but got input of size\[2, 5\]"):
        F.layer_norm(nt.randn(2, 5), (10,))
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape as normalized_shape"):
        F.layer_norm(nt.randn(2, 5), (5,), nt.randn(4))


@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5), (2, 3, 4, 4)])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_training_matches_torch(shape, affine, fdtype):
    c = shape[1]
    rm, rv = randn(c), RNG.random(c) + 0.5
    t_rm, t_rv = nt.tensor(rm.astype(fdtype)), nt.tensor(rv.astype(fdtype))
    r_rm, r_rv = ref.tensor(rm.astype(fdtype)), ref.tensor(rv.astype(fdtype))
    arrays = [randn(*shape) * 2 + 1] + ([randn(c), randn(c)] if affine else [])
    out = check(lambda x, *p: F.batch_norm(x, t_rm, t_rv, *p, training=True, momentum=0.3),
                lambda x, *p: RF.batch_norm(x, r_rm, r_rv, *p, training=True, momentum=0.3), arrays, fdtype,
                loose=True)
    assert out.grad_fn.name() == "NativeBatchNormBackward0"
    # running statistics updated in place: biased var normalizes, unbiased var is tracked
    assert_close(t_rm, r_rm, **_tols(fdtype, True))
    assert_close(t_rv, r_rv, **_tols(fdtype, True))
    assert t_rm._version == 1 and t_rv._version == 1


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5)])
def test_batch_norm_eval_matches_torch(shape, fdtype):
    c = shape[1]
    rm, rv = randn(c).astype(fdtype), (RNG.random(c) + 0.5).astype(fdtype)
    check(lambda x, w, b: F.batch_norm(x, nt.tensor(rm), nt.tensor(rv), w, b, training=False),
          lambda x, w, b: RF.batch_norm(x, ref.tensor(rm), ref.tensor(rv), w, b, training=False),
          [randn(*shape), randn(c), randn(c)], fdtype, loose=True)
    check(lambda x: F.batch_norm(x, nt.tensor(rm), nt.tensor(rv)),
          lambda x: RF.batch_norm(x, ref.tensor(rm), ref.tensor(rv)), [randn(*shape)], fdtype, loose=True)


def test_batch_norm_no_running_stats_and_gradcheck():
    check(lambda x: F.batch_norm(x, None, None, training=True), lambda x: RF.batch_norm(x, None, None, training=True),
          [randn(5, 4)], np.float64)
    x = nt.tensor(randn(4, 3, 2), requires_grad=True)
    w = nt.tensor(randn(3), requires_grad=True)
    b = nt.tensor(randn(3), requires_grad=True)
    assert gradcheck(lambda *a: F.batch_norm(a[0], None, None, a[1], a[2], training=True), (x, w, b))
    rm, rv = nt.tensor(randn(3)), nt.tensor(RNG.random(3) + 0.5)
    assert gradcheck(lambda *a: F.batch_norm(a[0], rm, rv, a[1], a[2], training=False), (x, w, b))


def test_batch_norm_errors():
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when training, got input size "
                                         r"torch.Size\(\[1, 5\]\)"):
        F.batch_norm(nt.randn(1, 5), nt.zeros(5), nt.ones(5), training=True)
    with pytest.raises(RuntimeError, match="running_mean should contain 5 elements not 4"):
        F.batch_norm(nt.randn(4, 5), nt.zeros(4), nt.ones(5), training=True)
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        F.batch_norm(nt.randn(4, 5), None, None, training=False)


@pytest.mark.parametrize("shape,groups", [((4, 6), 3), ((2, 6, 5), 2), ((2, 4, 3, 3), 4), ((2, 4, 3), 1)])
def test_group_norm_matches_torch(shape, groups, fdtype):
    c = shape[1]
    check(lambda x, w, b: F.group_norm(x, groups, w, b), lambda x, w, b: RF.group_norm(x, groups, w, b),
          [randn(*shape), randn(c), randn(c)], fdtype, loose=True)
    check(lambda x: F.group_norm(x, groups), lambda x: RF.group_norm(x, groups), [randn(*shape)], fdtype, loose=True)


def test_group_norm_gradcheck_and_errors():
    ts = [nt.tensor(randn(*s), requires_grad=True) for s in ((2, 4, 3), (4,), (4,))]
    assert gradcheck(lambda *a: F.group_norm(a[0], 2, a[1], a[2]), ts)
    with pytest.raises(RuntimeError, match="Expected number of channels in input to be divisible by num_groups"):
        F.group_norm(nt.randn(4, 6), 4)


@pytest.mark.parametrize("shape,ns", [((4, 6), (6,)), ((2, 3, 4), (3, 4))])
def test_rms_norm_matches_torch(shape, ns, fdtype):
    check(lambda x, w: F.rms_norm(x, ns, w), lambda x, w: RF.rms_norm(x, ns, w), [randn(*shape), randn(*ns)],
          fdtype, loose=True)
    check(lambda x: F.rms_norm(x, ns, eps=1e-3), lambda x: RF.rms_norm(x, ns, eps=1e-3), [randn(*shape)], fdtype,
          loose=True)
    ts = [nt.tensor(randn(3, 4), requires_grad=True), nt.tensor(randn(4), requires_grad=True)]
    assert gradcheck(lambda x, w: F.rms_norm(x, (4,), w), ts)


def test_instance_norm_matches_torch(fdtype):
    rm, rv = np.zeros(3, fdtype), np.ones(3, fdtype)
    t_rm, t_rv, r_rm, r_rv = nt.tensor(rm), nt.tensor(rv), ref.tensor(rm), ref.tensor(rv)
    check(lambda x, w, b: F.instance_norm(x, t_rm, t_rv, w, b), lambda x, w, b: RF.instance_norm(x, r_rm, r_rv, w, b),
          [randn(2, 3, 5), randn(3), randn(3)], fdtype, loose=True)
    assert_close(t_rm, r_rm, **_tols(fdtype, True))
    assert_close(t_rv, r_rv, **_tols(fdtype, True))
    check(lambda x: F.instance_norm(x, t_rm, t_rv, use_input_stats=False),
          lambda x: RF.instance_norm(x, r_rm, r_rv, use_input_stats=False), [randn(2, 3, 5)], fdtype, loose=True)


@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, 0), (3.0, -1), (float("inf"), 1)])
def test_normalize_matches_torch(p, dim, fdtype):
    check(lambda x: F.normalize(x, p, dim), lambda x: RF.normalize(x, p, dim), [randn(3, 4)], fdtype)
    if p != float("inf"):
        assert gradcheck(lambda a: F.normalize(a, p, dim), (nt.tensor(randn(3, 4), requires_grad=True),))


def test_normalize_zero_vector_uses_eps():
    x = np.zeros((2, 3))
    x[1] = [1.0, 2.0, 2.0]
    check(lambda t: F.normalize(t), lambda t: RF.normalize(t), [x], np.float64)


def test_cosine_similarity_and_pairwise_distance(fdtype):
    check(F.cosine_similarity, RF.cosine_similarity, [randn(4, 5), randn(4, 5)], fdtype)
    check(lambda a, b: F.cosine_similarity(a, b, 0), lambda a, b: RF.cosine_similarity(a, b, 0),
          [randn(4, 5), randn(4, 1)], fdtype)
    check(F.pairwise_distance, RF.pairwise_distance, [randn(4, 5), randn(4, 5)], fdtype)
    check(lambda a, b: F.pairwise_distance(a, b, 1.0, keepdim=True),
          lambda a, b: RF.pairwise_distance(a, b, 1.0, keepdim=True), [randn(4, 5), randn(5)], fdtype)
    check(F.pairwise_distance, RF.pairwise_distance, [randn(5), randn(5)], fdtype)
    ts = [nt.tensor(randn(3, 4), requires_grad=True), nt.tensor(randn(3, 4), requires_grad=True)]
    assert gradcheck(F.cosine_similarity, ts)
    assert gradcheck(lambda a, b: F.pairwise_distance(a, b, 3.0), ts)


# ------------------------------------------------------------------------------------------------
# dropout
# ------------------------------------------------------------------------------------------------
def test_dropout_statistics_and_gradient():
    nt.manual_seed(0)
    x = nt.ones(200, 100, requires_grad=True)
    y = F.dropout(x, 0.3)
    vals = np.unique(y.detach().numpy())
    assert np.allclose(vals, [0.0, 1 / 0.7])
    kept = (y.detach().numpy() != 0).mean()
    assert abs(kept - 0.7) < 0.01
    y.sum().backward()
    assert np.array_equal(x.grad.numpy(), y.detach().numpy())  # the gradient uses the same mask
    assert y.dtype == nt.float32


def test_dropout_reproducible_with_manual_seed():
    nt.manual_seed(7)
    a = F.dropout(nt.ones(50)).numpy()
    nt.manual_seed(7)
    b = F.dropout(nt.ones(50)).numpy()
    assert np.array_equal(a, b)


def test_dropout_identity_cases():
    x = nt.randn(4, 5)
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    assert (F.dropout(x, 1.0).numpy() == 0).all()
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(x, 1.5)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        F.dropout2d(x, -0.1)


def test_dropout_inplace():
    nt.manual_seed(1)
    x = nt.ones(10, 10)
    out = F.dropout(x, 0.5, inplace=True)
    assert out is x and x._version == 1 and set(np.unique(x.numpy())) <= {0.0, 2.0}
    leaf = nt.ones(10, 10, requires_grad=True)
    y = leaf * 1
    F.dropout(y, 0.5, inplace=True)
    y.sum().backward()
    assert np.array_equal(leaf.grad.numpy(), y.detach().numpy())


@pytest.mark.parametrize("fn,shape", [(F.dropout1d, (4, 6, 8)), (F.dropout1d, (6, 8)), (F.dropout2d, (4, 6, 3, 3)),
                                      (F.dropout3d, (2, 6, 2, 2, 2)), (F.dropout3d, (6, 2, 2, 2))])
def test_channel_dropout_zeroes_whole_channels(fn, shape):
    nt.manual_seed(3)
    y = fn(nt.ones(*shape), 0.5).numpy()
    batched = len(shape) in (3, 4, 5) and not (fn is F.dropout3d and len(shape) == 4)
    per_channel = y.reshape(shape[:2] + (-1,) if batched else shape[:1] + (-1,))
    assert (per_channel.min(-1) == per_channel.max(-1)).all()  # each channel all-0 or all-2
    assert set(np.unique(y)) <= {0.0, 2.0} and len(np.unique(y)) == 2


def test_channel_dropout_warnings_and_errors():
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(nt.randn(2, 3, 4, 5))
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input to dropout2d"):
        F.dropout2d(nt.randn(2, 3, 4))
    with pytest.warns(UserWarning, match="dropout2d: Received a 2-D input to dropout2d"):
        F.dropout2d(nt.randn(2, 3))
    with pytest.warns(UserWarning, match="dropout3d: Received a 3-D input to dropout3d"):
        F.dropout3d(nt.randn(2, 3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.dropout2d(nt.randn(2, 3, 4, 4))


def test_alpha_dropout_keeps_mean_and_std():
    nt.manual_seed(0)
    x = nt.randn(400, 500)
    y = F.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    assert F.alpha_dropout(x, 0.2) is x  # training defaults to False
    y = F.feature_alpha_dropout(nt.randn(50, 40, 30), 0.3, training=True).numpy()
    a = 1 / np.sqrt((1.7580993408473766 ** 2 * 0.3 + 1) * 0.7)
    dropped = np.isclose(y, -1.7580993408473766 * a * 0.7).all(-1)  # whole channels at the saturation value
    assert abs(dropped.mean() - 0.3) < 0.04 and abs(y.std() - 1) < 0.05


# ------------------------------------------------------------------------------------------------
# scaled dot-product attention
# ------------------------------------------------------------------------------------------------
def _sdpa_check(fdtype, q, k, v, mask=None, mask_grad=False, **kw):
    arrays = [q, k, v] + ([mask] if mask is not None else [])
    grad = [0, 1, 2] + ([3] if mask_grad else [])

    def wrap(lib, fn):
        def run(a, b, c, *m):
            mm = m[0] if m else None
            return fn(a, b, c, attn_mask=mm, **kw)
        return run
    return check(wrap(nt, F.scaled_dot_product_attention), wrap(ref, RF.scaled_dot_product_attention), arrays, fdtype,
                 grad=grad, loose=True)


def test_sdpa_matches_torch(fdtype):
    q, k, v = randn(2, 3, 4, 8), randn(2, 3, 6, 8), randn(2, 3, 6, 5)
    _sdpa_check(fdtype, q, k, v)
    _sdpa_check(fdtype, q, k, v, scale=0.3)
    _sdpa_check(fdtype, randn(2, 5, 8), randn(2, 5, 8), randn(2, 5, 8), is_causal=True)
    _sdpa_check(fdtype, q, randn(2, 3, 4, 8), randn(2, 3, 4, 5), is_causal=True)


def test_sdpa_masks(fdtype):
    q, k, v = randn(2, 3, 4, 8), randn(2, 3, 6, 8), randn(2, 3, 6, 5)
    bmask = RNG.random((4, 6)) > 0.4
    bmask[:, 0] = True
    _sdpa_check(fdtype, q, k, v, mask=bmask)
    _sdpa_check(fdtype, q, k, v, mask=randn(2, 1, 4, 6), mask_grad=True)
    fully = bmask.copy()
    fully[2] = False  # a fully masked row gives zeros, as in PyTorch
    out = _sdpa_check(fdtype, q, k, v, mask=fully)
    assert (out.detach().numpy()[:, :, 2] == 0).all()


def test_sdpa_gqa_dropout_and_gradcheck():
    _sdpa_check(np.float64, randn(2, 6, 4, 8), randn(2, 2, 5, 8), randn(2, 2, 5, 3), enable_gqa=True)
    nt.manual_seed(0)
    q = nt.randn(1, 2, 64, 8)
    out_drop = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    out = F.scaled_dot_product_attention(q, q, q)
    assert out_drop.shape == out.shape and not np.allclose(out_drop.numpy(), out.numpy())
    ts = [nt.tensor(randn(1, 2, 3, 4), requires_grad=True) for _ in range(3)]
    assert gradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True), ts)
    m = nt.tensor(randn(3, 3), requires_grad=True)
    assert gradcheck(lambda a, mm: F.scaled_dot_product_attention(a, ts[1], ts[2], attn_mask=mm), (ts[0], m))
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=nt.ones(64, 64, dtype=nt.bool), is_causal=True)


# ------------------------------------------------------------------------------------------------
# dtypes and namespace
# ------------------------------------------------------------------------------------------------
def test_float32_stays_float32():
    x = nt.randn(4, 6)
    for fn in (F.gelu, F.silu, F.mish, F.elu, F.softplus, F.logsigmoid, F.hardswish, lambda t: F.softmax(t, 1),
               lambda t: F.log_softmax(t, 1), lambda t: F.layer_norm(t, (6,)), lambda t: F.normalize(t),
               lambda t: F.batch_norm(t, None, None, training=True), lambda t: F.group_norm(t, 2),
               lambda t: F.gelu(t, approximate="tanh"), lambda t: F.rms_norm(t, (6,))):
        assert fn(x).dtype == nt.float32


def test_torch_namespace_forms():
    x = nt.randn(3, 4)
    assert_close(nt.softmax(x, 1), ref.softmax(ref.tensor(x.numpy()), 1))
    assert_close(nt.log_softmax(x, 0), ref.log_softmax(ref.tensor(x.numpy()), 0))
    assert nt.dropout(x, 0.5, False) is x
