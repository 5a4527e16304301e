"""InstanceNorm1d/2d/3d, LocalResponseNorm, CosineSimilarity, PairwiseDistance, pdist, Fold/Unfold,
ChannelShuffle and LPPool1d/2d: differential tests against PyTorch (values, gradients, running
statistics, repr, state_dict), float64 gradcheck of the new functionals, and PyTorch's errors."""
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch as ref
import torch.nn.functional as RF

import numtorch as nt
import numtorch.nn.functional as F
from conftest import assert_close, to_nt, to_ref
from numtorch.autograd import gradcheck

rng = np.random.default_rng(7)
LOOSE = {np.float32: dict(rtol=2e-5, atol=2e-6), np.float64: dict(rtol=1e-10, atol=1e-12)}


def _arr(shape, dtype=np.float64, scale=1.0, shift=0.0):
    return (rng.standard_normal(shape) * scale + shift).astype(dtype)


def check(fn_nt, fn_ref, arrays, dtype, tol=None, grads=True):
    """Run both functions on the same float inputs; compare the output and every input gradient."""
    tol = tol if tol is not None else LOOSE[dtype]
    ins_nt = [to_nt(a, grads) for a in arrays]
    ins_ref = [to_ref(a, grads) for a in arrays]
    out_nt, out_ref = fn_nt(*ins_nt), fn_ref(*ins_ref)
    assert_close(out_nt, out_ref, **tol)
    if grads:
        g = _arr(tuple(out_ref.shape), dtype)
        out_nt.backward(to_nt(g))
        out_ref.backward(to_ref(g))
        for a, b in zip(ins_nt, ins_ref):
            assert (a.grad is None) == (b.grad is None)
            if b.grad is not None:
                assert_close(a.grad, b.grad, **tol)
    return out_nt, out_ref


def same_error(fn_nt, fn_ref, match_message=True):
    """Both raise the same exception type (and message, unless told otherwise)."""
    with pytest.raises(Exception) as e_ref:
        fn_ref()
    with pytest.raises(type(e_ref.value)) as e_nt:
        fn_nt()
    if match_message:
        assert str(e_nt.value) == str(e_ref.value)


def raises_like(fn, match_message=True):
    """``fn(torch_module, functional_module)`` raises alike for numtorch and PyTorch."""
    same_error(lambda: fn(nt, F), lambda: fn(ref, RF), match_message)


def sync(m_nt, m_ref):
    """Give the numtorch module the reference module's state (random affine values, not ones/zeros)."""
    for p in m_ref.parameters():
        with ref.no_grad():
            p.copy_(ref.from_numpy(_arr(tuple(p.shape), np.float64)).to(p.dtype))
    m_nt.load_state_dict(OrderedDict((k, to_nt(v)) for k, v in m_ref.state_dict().items()))


# ================================================================================================
# InstanceNorm
# ================================================================================================
IN_CASES = [("InstanceNorm1d", (2, 3, 6)), ("InstanceNorm2d", (2, 3, 4, 5)), ("InstanceNorm3d", (2, 3, 2, 3, 4))]


@pytest.mark.parametrize("name,shape", IN_CASES)
@pytest.mark.parametrize("affine,track", [(False, False), (True, False), (False, True), (True, True)])
def test_instance_norm_module_train_eval(name, shape, affine, track, fdtype):
    dt = {np.float32: ref.float32, np.float64: ref.float64}[fdtype]
    m_ref = getattr(ref.nn, name)(3, eps=1e-3, momentum=0.3, affine=affine, track_running_stats=track, dtype=dt)
    m_nt = getattr(nt.nn, name)(3, eps=1e-3, momentum=0.3, affine=affine, track_running_stats=track,
                                dtype={np.float32: nt.float32, np.float64: nt.float64}[fdtype])
    sync(m_nt, m_ref)
    for step in range(2):  # training: instance statistics; the running ones move when tracked
        x = _arr(shape, fdtype, scale=2.0, shift=1.5)
        x_nt, x_ref = to_nt(x, True), to_ref(x, True)
        out_nt, out_ref = m_nt(x_nt), m_ref(x_ref)
        assert_close(out_nt, out_ref, **LOOSE[fdtype])
        g = _arr(shape, fdtype)
        out_nt.backward(to_nt(g))
        out_ref.backward(to_ref(g))
        assert_close(x_nt.grad, x_ref.grad, **LOOSE[fdtype])
        for (k, p_nt), (_, p_ref) in zip(m_nt.named_parameters(), m_ref.named_parameters()):
            assert_close(p_nt.grad, p_ref.grad, **LOOSE[fdtype])
        for (k, b_nt), (k2, b_ref) in zip(m_nt.named_buffers(), m_ref.named_buffers()):
            assert k == k2
            assert_close(b_nt, b_ref, **LOOSE[fdtype])
    if track:
        assert int(m_nt.num_batches_tracked) == 0  # never advanced by instance norm, as in PyTorch
        assert not np.allclose(m_nt.running_mean.numpy(), 0)
    m_nt.eval()
    m_ref.eval()
    x = _arr(shape, fdtype, scale=2.0, shift=1.5)
    check(m_nt, m_ref, [x], fdtype)
    # unbatched input: normalized as a batch of one
    check(m_nt, m_ref, [x[0]], fdtype)


def test_instance_norm_unbatched_train_updates_running_stats(fdtype):
    m_nt, m_ref = nt.nn.InstanceNorm2d(3, track_running_stats=True), ref.nn.InstanceNorm2d(3, track_running_stats=True)
    x = _arr((3, 4, 5), np.float32, shift=2.0)
    out_nt, out_ref = m_nt(to_nt(x)), m_ref(to_ref(x))
    assert out_nt.shape == (3, 4, 5)
    assert_close(out_nt, out_ref, **LOOSE[np.float32])
    assert_close(m_nt.running_mean, m_ref.running_mean, **LOOSE[np.float32])
    assert_close(m_nt.running_var, m_ref.running_var, **LOOSE[np.float32])


def test_instance_norm_default_is_same_in_eval():
    m = nt.nn.InstanceNorm1d(4)
    assert m.weight is None and m.bias is None and m.running_mean is None
    x = to_nt(_arr((2, 4, 7), np.float32))
    a = m(x)
    m.eval()
    assert np.array_equal(m(x).numpy(), a.numpy())
    assert_close(a, RF.instance_norm(to_ref(x)))


def test_instance_norm_momentum_none_keeps_running_stats():
    m_nt = nt.nn.InstanceNorm1d(3, momentum=None, track_running_stats=True)
    m_ref = ref.nn.InstanceNorm1d(3, momentum=None, track_running_stats=True)
    x = _arr((2, 3, 5), np.float32)
    assert_close(m_nt(to_nt(x)), m_ref(to_ref(x)))
    assert_close(m_nt.running_mean, m_ref.running_mean)
    assert np.array_equal(m_nt.running_var.numpy(), np.ones(3, np.float32))


@pytest.mark.parametrize("kw", [dict(), dict(affine=True), dict(affine=True, bias=False),
                                dict(track_running_stats=True, momentum=None, eps=1e-3)])
def test_instance_norm_repr(kw):
    for name in ("InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"):
        assert repr(getattr(nt.nn, name)(5, **kw)) == repr(getattr(ref.nn, name)(5, **kw))


@pytest.mark.parametrize("kw", [dict(), dict(affine=True), dict(track_running_stats=True),
                                dict(affine=True, track_running_stats=True), dict(affine=True, bias=False)])
def test_instance_norm_state_dict(kw):
    sd_nt, sd_ref = nt.nn.InstanceNorm2d(4, **kw).state_dict(), ref.nn.InstanceNorm2d(4, **kw).state_dict()
    assert list(sd_nt) == list(sd_ref)
    for k in sd_ref:
        assert str(sd_nt[k].dtype) == str(sd_ref[k].dtype) and tuple(sd_nt[k].shape) == tuple(sd_ref[k].shape)
        assert np.array_equal(sd_nt[k].numpy(), sd_ref[k].numpy())
    assert sd_nt._metadata[""]["version"] == sd_ref._metadata[""]["version"] == 2


def test_instance_norm_load_state_dict_versions():
    # a pre-0.4 checkpoint (no version) with running stats on a module without them: PyTorch's error
    m_nt, m_ref = nt.nn.InstanceNorm1d(3), ref.nn.InstanceNorm1d(3)
    sd_ref = OrderedDict(running_mean=ref.zeros(3), running_var=ref.ones(3))
    sd_ref._metadata = OrderedDict({"": {}})
    sd_nt = OrderedDict(running_mean=nt.zeros(3), running_var=nt.ones(3))
    sd_nt._metadata = OrderedDict({"": {}})
    same_error(lambda: m_nt.load_state_dict(sd_nt), lambda: m_ref.load_state_dict(sd_ref))
    assert "Unexpected running stats buffer(s)" in str(pytest.raises(RuntimeError, m_nt.load_state_dict, sd_nt).value)
    # a version-1 checkpoint of a tracking module has no num_batches_tracked: not a missing key
    m = nt.nn.InstanceNorm1d(3, track_running_stats=True)
    sd = OrderedDict(running_mean=nt.full((3,), 2.0), running_var=nt.full((3,), 3.0))
    sd._metadata = OrderedDict({"": {"version": 1}})
    m.load_state_dict(sd)
    assert m.running_mean.tolist() == [2.0] * 3 and int(m.num_batches_tracked) == 0
    # round trip with a PyTorch checkpoint
    r = ref.nn.InstanceNorm3d(2, affine=True, track_running_stats=True)
    r(ref.randn(2, 2, 3, 3, 3))
    m3 = nt.nn.InstanceNorm3d(2, affine=True, track_running_stats=True)
    m3.load_state_dict(OrderedDict((k, to_nt(v)) for k, v in r.state_dict().items()))
    assert_close(m3.running_var, r.running_var)


def test_instance_norm_errors():
    raises_like(lambda M, _: M.nn.InstanceNorm1d(3)(M.zeros(2, 3, 4, 5)))
    same_error(lambda: nt.nn.InstanceNorm2d(3)(nt.zeros(3, 4)), lambda: ref.nn.InstanceNorm2d(3)(ref.zeros(3, 4)))
    same_error(lambda: nt.nn.InstanceNorm3d(3)(nt.zeros(3, 4, 4)), lambda: ref.nn.InstanceNorm3d(3)(ref.zeros(3, 4, 4)))
    # wrong channel count: an error with affine parameters ...
    same_error(lambda: nt.nn.InstanceNorm1d(4, affine=True)(nt.zeros(2, 3, 5)),
               lambda: ref.nn.InstanceNorm1d(4, affine=True)(ref.zeros(2, 3, 5)))
    same_error(lambda: nt.nn.InstanceNorm2d(4, affine=True)(nt.zeros(3, 5, 5)),
               lambda: ref.nn.InstanceNorm2d(4, affine=True)(ref.zeros(3, 5, 5)))
    # ... a warning without (num_features is then unused) ...
    x = _arr((2, 3, 5), np.float32)
    with pytest.warns(UserWarning, match=r"input's size at dim=1 does not match num_features"):
        out = nt.nn.InstanceNorm1d(4)(to_nt(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(out, ref.nn.InstanceNorm1d(4)(to_ref(x)))
    # ... and an error from the running statistics' size when they are tracked
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda: nt.nn.InstanceNorm1d(4, track_running_stats=True)(to_nt(x)),
                   lambda: ref.nn.InstanceNorm1d(4, track_running_stats=True)(to_ref(x)))
    # one value per instance in training; fine in eval with running statistics
    raises_like(lambda M, _: M.nn.InstanceNorm2d(3)(M.zeros(2, 3, 1, 1)))
    m_nt = nt.nn.InstanceNorm1d(3, track_running_stats=True).eval()
    m_ref = ref.nn.InstanceNorm1d(3, track_running_stats=True).eval()
    x1 = _arr((2, 3, 1), np.float32)
    assert_close(m_nt(to_nt(x1)), m_ref(to_ref(x1)))


def test_instance_norm_functional_errors():
    raises_like(lambda M, FF: FF.instance_norm(M.zeros(2, 3, 4), use_input_stats=False))
    raises_like(lambda M, FF: FF.instance_norm(M.zeros(2, 3, 4), M.zeros(4), M.ones(4)))
    raises_like(lambda M, FF: FF.instance_norm(M.zeros(2, 3, 4), None, None, M.ones(5)))
    raises_like(lambda M, FF: FF.instance_norm(M.zeros(2, 3, 4), None, None, None, M.ones(2)))


def test_instance_norm_half_computes_in_float32():
    x = _arr((2, 3, 8), np.float16)
    out_nt, out_ref = F.instance_norm(to_nt(x)), RF.instance_norm(to_ref(x))
    assert out_nt.dtype == nt.float16
    np.testing.assert_allclose(out_nt.numpy().astype(np.float32), out_ref.numpy().astype(np.float32), atol=2e-3)


def test_instance_norm_gradcheck():
    m = nt.nn.InstanceNorm2d(2, affine=True, dtype=nt.float64)
    with nt.no_grad():
        m.weight.copy_(to_nt(_arr(2)))
        m.bias.copy_(to_nt(_arr(2)))
    x = to_nt(_arr((2, 2, 3, 3)), True)
    assert gradcheck(lambda x, w, b: F.instance_norm(x, None, None, w, b), (x, m.weight, m.bias))


# ================================================================================================
# LocalResponseNorm
# ================================================================================================
@pytest.mark.parametrize("shape", [(2, 5, 4), (2, 6, 3, 4), (1, 4, 2, 3, 2), (2, 3, 2, 2, 2, 2)])
@pytest.mark.parametrize("size,alpha,beta,k", [(1, 1e-4, 0.75, 1.0), (2, 1e-4, 0.75, 1.0), (3, 0.5, 0.6, 2.0),
                                               (5, 1.0, 1.5, 0.5), (8, 0.1, 0.75, 1.0)])
def test_local_response_norm_matches_torch(shape, size, alpha, beta, k, fdtype):
    x = _arr(shape, fdtype, scale=2.0)
    check(lambda t: F.local_response_norm(t, size, alpha, beta, k),
          lambda t: RF.local_response_norm(t, size, alpha, beta, k), [x], fdtype)
    m_nt, m_ref = nt.nn.LocalResponseNorm(size, alpha, beta, k), ref.nn.LocalResponseNorm(size, alpha, beta, k)
    check(m_nt, m_ref, [x], fdtype)


def test_local_response_norm_module_and_errors():
    assert repr(nt.nn.LocalResponseNorm(3)) == repr(ref.nn.LocalResponseNorm(3))
    assert repr(nt.nn.LocalResponseNorm(2, 0.5, 1, 3)) == repr(ref.nn.LocalResponseNorm(2, 0.5, 1, 3))
    assert list(nt.nn.LocalResponseNorm(3).state_dict()) == []
    same_error(lambda: F.local_response_norm(nt.zeros(2, 5), 2), lambda: RF.local_response_norm(ref.zeros(2, 5), 2))
    same_error(lambda: F.local_response_norm(nt.ones(2, 5, 3), 0), lambda: RF.local_response_norm(ref.ones(2, 5, 3), 0),
               match_message=False)
    with pytest.raises(TypeError):
        F.local_response_norm([[1.0]], 2)
    empty = nt.zeros(0, 5, 3)
    assert F.local_response_norm(empty, 2) is empty
    # integer input: computed as PyTorch's op chain does (truncating average pool, then float)
    xi = np.arange(24).reshape(2, 3, 4)
    assert_close(F.local_response_norm(to_nt(xi), 2), RF.local_response_norm(to_ref(xi), 2))


def test_local_response_norm_gradcheck():
    x = to_nt(_arr((2, 5, 3)), True)
    assert gradcheck(lambda t: F.local_response_norm(t, 3, 0.5, 0.75, 1.0), (x,))
    x4 = to_nt(_arr((1, 4, 2, 2)), True)
    assert gradcheck(lambda t: F.local_response_norm(t, 2, 1.0, 1.2, 2.0), (x4,))


# ================================================================================================
# CosineSimilarity / PairwiseDistance
# ================================================================================================
@pytest.mark.parametrize("sa,sb,dim", [((4, 5), (4, 5), 1), ((4, 5, 3), (1, 5, 3), 1), ((3, 6), (6,), -1),
                                       ((2, 3, 4), (2, 3, 4), 0), ((5,), (5,), 0)])
def test_cosine_similarity_module(sa, sb, dim, fdtype):
    a, b = _arr(sa, fdtype), _arr(sb, fdtype)
    check(nt.nn.CosineSimilarity(dim), ref.nn.CosineSimilarity(dim), [a, b], fdtype)
    check(nt.nn.CosineSimilarity(dim, eps=1e-2), ref.nn.CosineSimilarity(dim, eps=1e-2), [a * 1e-3, b], fdtype)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, float("inf"), -float("inf"), -1.0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance_module(p, keepdim, fdtype):
    a, b = _arr((4, 6), fdtype), _arr((4, 6), fdtype)
    check(nt.nn.PairwiseDistance(p, keepdim=keepdim), ref.nn.PairwiseDistance(p, keepdim=keepdim), [a, b], fdtype)
    check(nt.nn.PairwiseDistance(p, 1e-3, keepdim), ref.nn.PairwiseDistance(p, 1e-3, keepdim), [a[0], b[:2]], fdtype)


def test_distance_modules_repr_and_attributes():
    assert repr(nt.nn.CosineSimilarity()) == repr(ref.nn.CosineSimilarity()) == "CosineSimilarity()"
    assert repr(nt.nn.PairwiseDistance(3)) == repr(ref.nn.PairwiseDistance(3)) == "PairwiseDistance()"
    m = nt.nn.PairwiseDistance(3, 1e-4, True)
    assert (m.norm, m.eps, m.keepdim) == (3, 1e-4, True)
    c = nt.nn.CosineSimilarity(0, 1e-3)
    assert (c.dim, c.eps) == (0, 1e-3)


def test_pairwise_distance_edge_cases():
    # p = 0 counts nonzeros and, as in PyTorch, leaves no gradient
    a, b = _arr((3, 4), np.float32), _arr((3, 4), np.float32)
    check(lambda x, y: F.pairwise_distance(x, y, 0), lambda x, y: RF.pairwise_distance(x, y, 0), [a, b], np.float32)
    # integer inputs give the default float dtype; 0-d inputs a 0-d result
    ai, bi = np.arange(6).reshape(2, 3), np.ones((2, 3), np.int64)
    assert_close(F.pairwise_distance(to_nt(ai), to_nt(bi)), RF.pairwise_distance(to_ref(ai), to_ref(bi)))
    for kd in (False, True):
        assert_close(F.pairwise_distance(nt.tensor(1.0), nt.tensor(3.5), keepdim=kd),
                     RF.pairwise_distance(ref.tensor(1.0), ref.tensor(3.5), keepdim=kd))
    # identical inputs and eps=0: a zero distance with a finite (zero) gradient
    check(lambda x, y: F.pairwise_distance(x, y, eps=0.0), lambda x, y: RF.pairwise_distance(x, y, eps=0.0),
          [a, a.copy()], np.float32)
    raises_like(lambda M, FF: FF.pairwise_distance(M.zeros(3, 4), M.zeros(3, 5)))
    raises_like(lambda M, FF: FF.cosine_similarity(M.zeros(3, 4), M.zeros(2, 4)))
    same_error(lambda: F.cosine_similarity(nt.zeros(3, 4, dtype=nt.int64), nt.zeros(3, 4, dtype=nt.int64)),
               lambda: RF.cosine_similarity(ref.zeros(3, 4, dtype=ref.int64), ref.zeros(3, 4, dtype=ref.int64)))
    same_error(lambda: nt.nn.CosineSimilarity(2)(nt.zeros(3, 4), nt.zeros(3, 4)),
               lambda: ref.nn.CosineSimilarity(2)(ref.zeros(3, 4), ref.zeros(3, 4)))


def test_distance_gradcheck():
    a, b = to_nt(_arr((3, 5)), True), to_nt(_arr((3, 5)), True)
    assert gradcheck(lambda x, y: F.pairwise_distance(x, y, 3.0), (a, b))
    assert gradcheck(lambda x, y: nt.nn.PairwiseDistance()(x, y), (a, b))
    assert gradcheck(lambda x, y: nt.nn.CosineSimilarity(1)(x, y), (a, b))


# ================================================================================================
# pdist
# ================================================================================================
PDIST_P = [2.0, 1.0, 0.0, 0.5, 1.5, 3.0, float("inf")]


@pytest.mark.parametrize("p", PDIST_P)
@pytest.mark.parametrize("shape", [(5, 3), (2, 7), (1, 4)])
def test_pdist_matches_torch(p, shape, fdtype):
    x = _arr(shape, fdtype)
    out_nt, _ = check(lambda t: nt.pdist(t, p), lambda t: ref.pdist(t, p), [x], fdtype)
    assert out_nt.shape == (shape[0] * (shape[0] - 1) // 2,)
    # no rows: an empty result (PyTorch 2.13's backward crashes on it, so only numtorch's is checked)
    e = nt.zeros(0, 3, dtype=out_nt.dtype, requires_grad=True)
    out = nt.pdist(e, p)
    assert_close(out, ref.pdist(ref.zeros(0, 3, dtype=ref.float32 if fdtype == np.float32 else ref.float64), p))
    out.sum().backward()
    assert e.grad.shape == (0, 3)


@pytest.mark.parametrize("p", PDIST_P)
def test_pdist_ties_and_zero_distances(p, fdtype):
    # repeated rows (zero distances), equal coordinates (zero differences) and tied maxima (inf norm)
    x = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [0.0, 5.0, 3.0], [2.0, 3.0, 2.0]], fdtype)
    check(lambda t: F.pdist(t, p), lambda t: RF.pdist(t, p), [x], fdtype)
    check(lambda t: nt.pdist(t, p), lambda t: ref.pdist(t, p), [np.zeros((3, 0), fdtype)], fdtype)


def test_pdist_api_and_errors():
    assert nt.pdist is F.pdist
    out = nt.pdist(nt.randn(4, 3, requires_grad=True))
    assert type(out.grad_fn).__name__ == "PdistBackward0"
    assert nt.pdist(nt.randn(3, 2), p=1).shape == (3,)
    for bad in [lambda M, _: M.pdist(M.zeros(3)), lambda M, _: M.pdist(M.zeros(2, 3, 4)),
                lambda M, _: M.pdist(M.zeros(3, 4), -1), lambda M, _: M.pdist(M.zeros(3, 4), float("nan")),
                lambda M, _: M.pdist(M.ones(3, 4, dtype=M.int64)), lambda M, _: M.pdist(M.zeros(3, 4, dtype=M.float16)),
                lambda M, _: M.pdist([[1.0, 2.0]])]:
        raises_like(bad)


def test_pdist_saved_input_modified_in_place():
    def run(M):
        x = M.ones(4, 3, requires_grad=True)
        y = x * 1.0
        out = M.pdist(y)
        y.add_(1.0)
        out.sum().backward()
    same_error(lambda: run(nt), lambda: run(ref), match_message=False)


def test_pdist_gradcheck():
    x = to_nt(_arr((5, 3)), True)
    for p in (1.5, 2.0, 3.0, 0.7):
        assert gradcheck(lambda t, p=p: nt.pdist(t, p), (x,))


# ================================================================================================
# Fold / Unfold modules
# ================================================================================================
@pytest.mark.parametrize("kw", [{"kernel_size": 2},
                                {"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1, "stride": (2, 1)},
                                {"kernel_size": 3, "padding": 1, "stride": 2}])
def test_fold_unfold_modules(kw, fdtype):
    x = _arr((2, 3, 6, 7), fdtype)
    _, out_ref = check(nt.nn.Unfold(**kw), ref.nn.Unfold(**kw), [x], fdtype)
    check(nt.nn.Unfold(**kw), ref.nn.Unfold(**kw), [x[0]], fdtype)  # unbatched
    cols = out_ref.detach().numpy()
    check(nt.nn.Fold((6, 7), **kw), ref.nn.Fold((6, 7), **kw), [cols], fdtype)
    check(nt.nn.Fold([6, 7], **kw), ref.nn.Fold([6, 7], **kw), [cols[0]], fdtype)
    assert repr(nt.nn.Unfold(**kw)) == repr(ref.nn.Unfold(**kw))
    assert repr(nt.nn.Fold((6, 7), **kw)) == repr(ref.nn.Fold((6, 7), **kw))


def test_fold_unfold_errors():
    same_error(lambda: nt.nn.Unfold(2)(nt.zeros(1, 2, 3, 4, 5)), lambda: ref.nn.Unfold(2)(ref.zeros(1, 2, 3, 4, 5)),
               match_message=False)
    same_error(lambda: nt.nn.Fold(4, 2)(nt.zeros(1, 5, 9)), lambda: ref.nn.Fold(4, 2)(ref.zeros(1, 5, 9)))
    same_error(lambda: nt.nn.Fold(4, 2)(nt.zeros(1, 4, 8)), lambda: ref.nn.Fold(4, 2)(ref.zeros(1, 4, 8)))
    assert list(nt.nn.Fold(4, 2).state_dict()) == []


# ================================================================================================
# ChannelShuffle
# ================================================================================================
@pytest.mark.parametrize("shape,groups", [((2, 6, 3), 3), ((2, 6, 3), 2), ((1, 8, 2, 3), 4), ((2, 6, 2, 2, 2), 6),
                                          ((2, 4, 3), 1), ((0, 6, 3), 3)])
def test_channel_shuffle_matches_torch(shape, groups, fdtype):
    x = _arr(shape, fdtype)
    # no channels: forward only (PyTorch 2.13's backward then calls channel_shuffle with 0 groups and fails)
    check(lambda t: F.channel_shuffle(t, groups), lambda t: RF.channel_shuffle(t, groups), [_arr((2, 0, 3), fdtype)],
          fdtype, grads=False)
    check(lambda t: F.channel_shuffle(t, groups), lambda t: RF.channel_shuffle(t, groups), [x], fdtype)
    check(nt.nn.ChannelShuffle(groups), ref.nn.ChannelShuffle(groups), [x], fdtype)
    check(lambda t: nt.channel_shuffle(t, groups), lambda t: ref.channel_shuffle(t, groups), [x], fdtype)


def test_channel_shuffle_api_and_errors():
    xi = np.arange(24).reshape(2, 6, 2)
    out = nt.channel_shuffle(to_nt(xi), 3)
    assert out.dtype == nt.int64
    assert np.array_equal(out.numpy(), ref.channel_shuffle(to_ref(xi), 3).numpy())
    for groups in (1, 2, 4):
        x = to_nt(_arr((1, 4, 3), np.float32))
        y = nt.channel_shuffle(x, groups)
        x.add_(1.0)  # the result is a copy, not a view
        assert not np.allclose(y.numpy(), nt.channel_shuffle(x, groups).numpy())
    out = nt.channel_shuffle(nt.zeros(1, 4, 2, requires_grad=True), 2)
    assert type(out.grad_fn).__name__ == "ChannelShuffleBackward0"
    assert repr(nt.nn.ChannelShuffle(3)) == repr(ref.nn.ChannelShuffle(3))
    for shape, groups in [((2, 5, 3), 2), ((2, 6, 3), 0), ((2, 6, 3), -2), ((6, 3), 2), ((6, 3), 0), ((2, 6, 3), 2.0),
                          ((2, 6, 3), True)]:
        raises_like(lambda M, _: M.channel_shuffle(M.zeros(*shape), groups))  # noqa: B023  (called at once)
    raises_like(lambda M, _: M.nn.ChannelShuffle(4)(M.zeros(2, 6, 3)))


def test_channel_shuffle_gradcheck():
    assert gradcheck(lambda t: F.channel_shuffle(t, 2), (to_nt(_arr((2, 4, 3)), True),))


# ================================================================================================
# LPPool1d / LPPool2d
# ================================================================================================
LP1 = [dict(kernel_size=2), dict(kernel_size=3, stride=2), dict(kernel_size=3, stride=2, ceil_mode=True),
       dict(kernel_size=1)]
LP2 = [dict(kernel_size=2), dict(kernel_size=(2, 3), stride=(1, 2)), dict(kernel_size=3, stride=2, ceil_mode=True),
       dict(kernel_size=(3, 1), stride=1)]


@pytest.mark.parametrize("p", [1, 2, 1.5, 3, float("inf"), -float("inf")])
@pytest.mark.parametrize("kw", LP1)
def test_lp_pool1d_matches_torch(p, kw, fdtype):
    # positive inputs for fractional/odd p (negative window sums are NaN in PyTorch too)
    x = np.abs(_arr((2, 3, 9), fdtype)) + 0.1 if p in (1.5, 3) else _arr((2, 3, 9), fdtype)
    check(lambda t: F.lp_pool1d(t, p, **kw), lambda t: RF.lp_pool1d(t, p, **kw), [x], fdtype)
    check(nt.nn.LPPool1d(p, **kw), ref.nn.LPPool1d(p, **kw), [x[0]], fdtype)  # unbatched


@pytest.mark.parametrize("p", [1, 2, 1.5, 3, float("inf"), -float("inf")])
@pytest.mark.parametrize("kw", LP2)
def test_lp_pool2d_matches_torch(p, kw, fdtype):
    x = np.abs(_arr((2, 3, 6, 7), fdtype)) + 0.1 if p in (1.5, 3) else _arr((2, 3, 6, 7), fdtype)
    check(lambda t: F.lp_pool2d(t, p, **kw), lambda t: RF.lp_pool2d(t, p, **kw), [x], fdtype)
    check(nt.nn.LPPool2d(p, **kw), ref.nn.LPPool2d(p, **kw), [x[0]], fdtype)


def test_lp_pool_zero_and_negative_windows():
    # a window of zeros: zero output and a zero (not NaN) gradient, as PyTorch's relu masks it
    z = np.zeros((1, 2, 4), np.float32)
    check(lambda t: F.lp_pool1d(t, 2, 2), lambda t: RF.lp_pool1d(t, 2, 2), [z], np.float32)
    z2 = np.zeros((1, 1, 4, 4), np.float64)
    check(lambda t: F.lp_pool2d(t, 1.5, 2), lambda t: RF.lp_pool2d(t, 1.5, 2), [z2], np.float64)
    # odd p over a negative window sum: NaN in values and gradients, in both
    x = np.array([[[1.0, -2.0, 3.0, -4.0]]], np.float32)
    x_nt, x_ref = to_nt(x, True), to_ref(x, True)
    o_nt, o_ref = F.lp_pool1d(x_nt, 3, 2), RF.lp_pool1d(x_ref, 3, 2)
    assert np.array_equal(np.isnan(o_nt.detach().numpy()), np.isnan(o_ref.detach().numpy()))
    o_nt.sum().backward()
    o_ref.sum().backward()
    assert np.array_equal(np.isnan(x_nt.grad.numpy()), np.isnan(x_ref.grad.numpy()))
    # integer input: PyTorch's op chain (truncating average pool), float result
    xi = np.arange(12).reshape(1, 2, 6)
    assert_close(F.lp_pool1d(to_nt(xi), 2, 2, ceil_mode=True), RF.lp_pool1d(to_ref(xi), 2, 2, ceil_mode=True))


def test_lp_pool_graph_and_empty_channel_backward():
    x = nt.rand(1, 2, 6, requires_grad=True)
    x_ref = ref.rand(1, 2, 6, requires_grad=True)
    assert type(F.lp_pool1d(x, 2, 2).grad_fn).__name__ == type(RF.lp_pool1d(x_ref, 2, 2).grad_fn).__name__
    e = nt.zeros(2, 0, 3, requires_grad=True)
    nt.channel_shuffle(e, 3).sum().backward()
    assert e.grad.shape == (2, 0, 3)


def test_lp_pool_repr_and_errors():
    for args, kw in [((2, 3), {}), ((1.5, (2, 3)), {"stride": 1, "ceil_mode": True}),
                     ((float("inf"), 2), {"stride": (1, 2)})]:
        assert repr(nt.nn.LPPool2d(*args, **kw)) == repr(ref.nn.LPPool2d(*args, **kw))
        assert repr(nt.nn.LPPool1d(*args, **kw)) == repr(ref.nn.LPPool1d(*args, **kw))
    assert nt.nn.LPPool1d(2, 3).stride is None
    raises_like(lambda M, FF: FF.lp_pool1d(M.zeros(1, 2, 6), 2, (3,)))
    raises_like(lambda M, FF: FF.lp_pool2d(M.zeros(1, 2, 6, 6), 2, (3, 2, 1)))
    raises_like(lambda M, FF: FF.lp_pool1d(M.zeros(6), 2, 2), match_message=False)
    raises_like(lambda M, FF: FF.lp_pool1d(M.zeros(1, 2, 2), 2, 3), match_message=False)
    with pytest.raises(TypeError):
        F.lp_pool2d(np.zeros((1, 2, 4, 4)), 2, 2)


def test_lp_pool_gradcheck():
    x1 = to_nt(np.abs(_arr((2, 2, 7))) + 0.2, True)
    assert gradcheck(lambda t: F.lp_pool1d(t, 2.5, 3, 2), (x1,))
    x2 = to_nt(_arr((1, 2, 4, 5)), True)
    assert gradcheck(lambda t: F.lp_pool2d(t, 2, (2, 2), 1), (x2,))
    assert gradcheck(lambda t: nt.nn.LPPool2d(1, 2)(t), (x2,))
