"""nn.utils against PyTorch: clip_grad_norm_ (all norm types, returned total norm, non-finite handling),
clip_grad_value_, get_total_norm/clip_grads_with_norm_, parameters_to_vector/vector_to_parameters."""
import numpy as np
import pytest
import torch as ref
import torch.nn.utils as rutils

import numtorch as nt
from numtorch import nn
from numtorch.nn import utils
from conftest import assert_close, to_nt, to_ref


def _params(dtype, scale=1.0, seed=0, shapes=((3, 4), (5,), (2, 3, 2))):
    rng = np.random.default_rng(seed)
    ps_nt, ps_ref = [], []
    for i, s in enumerate(shapes):
        data, grad = rng.standard_normal(s).astype(dtype), (rng.standard_normal(s) * scale).astype(dtype)
        p_nt, p_ref = nn.Parameter(to_nt(data)), ref.nn.Parameter(to_ref(data))
        if i != 1 or len(shapes) < 3:  # leave one parameter without a gradient
            p_nt.grad, p_ref.grad = to_nt(grad), to_ref(grad)
        ps_nt.append(p_nt)
        ps_ref.append(p_ref)
    return ps_nt, ps_ref


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, float("inf"), 0.5])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, fdtype):
    ps_nt, ps_ref = _params(fdtype)
    tot_nt = utils.clip_grad_norm_(ps_nt, max_norm, norm_type=norm_type)
    tot_ref = rutils.clip_grad_norm_(ps_ref, max_norm, norm_type=norm_type)
    assert isinstance(tot_nt, nt.Tensor) and tot_nt.dim() == 0
    assert_close(tot_nt, tot_ref, rtol=1e-5 if fdtype == np.float32 else 1e-12)
    for a, b in zip(ps_nt, ps_ref):
        assert (a.grad is None) == (b.grad is None)
        if b.grad is not None:
            assert_close(a.grad, b.grad, rtol=1e-5 if fdtype == np.float32 else 1e-12)
            assert a.grad.dtype == a.dtype


def test_clip_grad_norm_clips_to_max_norm():
    ps, _ = _params(np.float64, scale=10.0)
    before = utils.get_total_norm([p.grad for p in ps if p.grad is not None])
    total = utils.clip_grad_norm_(ps, 1.0)
    assert float(total) == pytest.approx(float(before))
    after = np.sqrt(sum((p.grad.numpy() ** 2).sum() for p in ps if p.grad is not None))
    assert after == pytest.approx(1.0, rel=1e-5)


def test_clip_grad_norm_single_tensor_generator_and_empty():
    p = nn.Parameter(nt.ones(4))
    p.grad = nt.full((4,), 2.0)
    assert float(utils.clip_grad_norm_(p, 1.0)) == pytest.approx(4.0)
    np.testing.assert_allclose(p.grad.numpy(), 0.5, rtol=1e-5)
    m = nn.Linear(3, 2)
    m(nt.randn(4, 3)).sum().backward()
    total = utils.clip_grad_norm_(m.parameters(), 1e-3)  # a generator works
    assert float(total) > 1e-3
    assert np.sqrt(sum((q.grad.numpy() ** 2).sum() for q in m.parameters())) == pytest.approx(1e-3, rel=1e-4)
    assert float(utils.clip_grad_norm_([], 1.0)) == 0.0
    with pytest.warns(UserWarning, match="`parameters` is an empty generator, no gradient clipping will occur."):
        utils.clip_grad_norm_((q for q in []), 1.0)
    no_grad = nn.Parameter(nt.ones(2))
    assert float(utils.clip_grad_norm_([no_grad], 1.0)) == 0.0 and no_grad.grad is None


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_clip_grad_norm_nonfinite(bad):
    ps_nt, ps_ref = _params(np.float32)
    ps_nt[0].grad.numpy()[0, 0] = bad
    ps_ref[0].grad[0, 0] = bad
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is "
                                           "non-finite, so it cannot be clipped"):
        utils.clip_grad_norm_(ps_nt, 1.0, error_if_nonfinite=True)
    tot_nt = utils.clip_grad_norm_(ps_nt, 1.0, error_if_nonfinite=False, foreach=True)
    tot_ref = rutils.clip_grad_norm_(ps_ref, 1.0, error_if_nonfinite=False)
    assert str(float(tot_nt)) == str(float(tot_ref))
    np.testing.assert_array_equal(np.isnan(ps_nt[2].grad.numpy()), np.isnan(ps_ref[2].grad.numpy()))


def test_clip_grad_norm_deprecated_alias():
    ps, _ = _params(np.float32)
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        utils.clip_grad_norm(ps, 1.0)


@pytest.mark.parametrize("clip", [0.3, 1])
def test_clip_grad_value_matches_torch(clip, fdtype):
    ps_nt, ps_ref = _params(fdtype, scale=2.0)
    assert utils.clip_grad_value_(ps_nt, clip) is None
    rutils.clip_grad_value_(ps_ref, clip)
    for a, b in zip(ps_nt, ps_ref):
        if b.grad is not None:
            assert_close(a.grad, b.grad)
            assert np.abs(a.grad.numpy()).max() <= clip
    p = nn.Parameter(nt.ones(3))
    p.grad = nt.tensor([-5.0, 0.1, 5.0])
    utils.clip_grad_value_(p, 1.0, foreach=False)
    assert p.grad.numpy().tolist() == pytest.approx([-1.0, 0.1, 1.0])


def test_get_total_norm_and_clip_grads_with_norm():
    ps_nt, ps_ref = _params(np.float64)
    grads_nt = [p.grad for p in ps_nt if p.grad is not None]
    grads_ref = [p.grad for p in ps_ref if p.grad is not None]
    t_nt = utils.get_total_norm(grads_nt, 3.0)
    t_ref = rutils.get_total_norm(grads_ref, 3.0)
    assert_close(t_nt, t_ref)
    utils.clip_grads_with_norm_(ps_nt, 0.1, t_nt)
    rutils.clip_grads_with_norm_(ps_ref, 0.1, t_ref)
    for a, b in zip(grads_nt, grads_ref):
        assert_close(a, b)


def test_parameters_to_vector_and_back(fdtype):
    ps_nt, ps_ref = _params(fdtype)
    v_nt, v_ref = utils.parameters_to_vector(ps_nt), rutils.parameters_to_vector(ps_ref)
    assert_close(v_nt, v_ref)
    assert v_nt.shape == (12 + 5 + 12,)
    # differentiable, like torch.cat
    (v_nt * nt.arange(v_nt.shape[0], dtype=v_nt.dtype)).sum().backward()
    assert ps_nt[1].grad is not None and ps_nt[1].grad.numpy().tolist() == list(range(12, 17))
    new = np.arange(29, dtype=fdtype)
    utils.vector_to_parameters(to_nt(new), ps_nt)
    rutils.vector_to_parameters(to_ref(new), ps_ref)
    for a, b in zip(ps_nt, ps_ref):
        assert_close(a, b)
        assert isinstance(a, nn.Parameter) and a.requires_grad
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        utils.vector_to_parameters([1.0, 2.0], ps_nt)


def test_vector_roundtrip_on_model():
    m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    v = utils.parameters_to_vector(m.parameters())
    assert v.shape == (sum(p.numel() for p in m.parameters()),)
    x = nt.randn(5, 3)
    before = m(x).detach().numpy()
    utils.vector_to_parameters(v.detach() * 0, m.parameters())
    assert not m(x).detach().numpy().any()
    utils.vector_to_parameters(v.detach(), m.parameters())
    np.testing.assert_allclose(m(x).detach().numpy(), before, rtol=1e-6)
