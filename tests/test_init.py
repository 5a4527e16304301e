"""nn.init: fan and gain values equal PyTorch's; the initializers are tested by statistics (bounds, mean,
std within sampling error), in-place/no-grad behaviour, generator reproducibility and PyTorch's errors."""
import math
import warnings

import numpy as np
import pytest
import torch as ref
import torch.nn.init as rinit

import numtorch as nt
from numtorch import nn
from numtorch.nn import init


def A(t):
    return t.detach().numpy()


@pytest.mark.parametrize("nl,param", [("linear", None), ("conv1d", None), ("conv2d", None), ("conv3d", None),
                                      ("conv_transpose2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                                      ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 3),
                                      ("leaky_relu", math.sqrt(5)), ("selu", None)])
def test_calculate_gain_matches_torch(nl, param):
    assert init.calculate_gain(nl, param) == rinit.calculate_gain(nl, param)


def test_calculate_gain_errors():
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)
    with pytest.raises(ValueError, match="not a valid number"):
        init.calculate_gain("leaky_relu", "0.1")


@pytest.mark.parametrize("shape", [(3, 4), (7, 2), (6, 4, 3), (8, 2, 3, 5), (4, 2, 1, 2, 3), (0, 3)])
def test_fans_match_torch(shape):
    t_nt, t_ref = nt.empty(*shape), ref.empty(*shape)
    assert init._calculate_fan_in_and_fan_out(t_nt) == rinit._calculate_fan_in_and_fan_out(t_ref)
    for mode in ("fan_in", "fan_out", "FAN_OUT"):
        assert init._calculate_correct_fan(t_nt, mode) == rinit._calculate_correct_fan(t_ref, mode)


def test_fan_errors():
    msg = "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
    for t in (nt.empty(5), nt.tensor(1.0)):
        with pytest.raises(ValueError, match=msg):
            init._calculate_fan_in_and_fan_out(t)
        with pytest.raises(ValueError, match=msg):
            init.xavier_uniform_(t)
        with pytest.raises(ValueError, match=msg):
            init.kaiming_normal_(t)
    with pytest.raises(ValueError, match=r"Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]"):
        init.kaiming_uniform_(nt.empty(3, 4), mode="fan_avg")


def _check_uniform(x, lo, hi):
    n = x.size
    assert x.min() >= lo and x.max() <= hi
    width = hi - lo
    assert x.min() < lo + 0.01 * width and x.max() > hi - 0.01 * width
    assert abs(x.mean() - (lo + hi) / 2) < 5 * width / math.sqrt(12 * n)
    assert abs(x.std() - width / math.sqrt(12)) < 0.02 * width


def _check_normal(x, mean, std):
    n = x.size
    assert abs(x.mean() - mean) < 5 * std / math.sqrt(n)
    assert abs(x.std() - std) < 5 * std / math.sqrt(2 * n)


@pytest.mark.parametrize("dtype", [nt.float32, nt.float64])
def test_uniform_normal_constant(dtype):
    t = nt.empty(200, 100, dtype=dtype)
    assert init.uniform_(t, -2.0, 3.0) is t and t.dtype == dtype
    _check_uniform(A(t), -2.0, 3.0)
    assert init.normal_(t, 1.5, 0.5) is t and t.dtype == dtype
    _check_normal(A(t), 1.5, 0.5)
    assert (A(init.constant_(t, 0.25)) == 0.25).all()
    assert (A(init.ones_(t)) == 1).all() and not A(init.zeros_(t)).any()
    _check_uniform(A(init.uniform_(t)), 0.0, 1.0)


@pytest.mark.parametrize("shape", [(300, 200), (64, 32, 3, 3)])
def test_xavier(shape):
    t = nt.empty(*shape)
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(t)
    a = 2.0 * math.sqrt(6.0 / (fan_in + fan_out))
    _check_uniform(A(init.xavier_uniform_(t, gain=2.0)), -a, a)
    _check_normal(A(init.xavier_normal_(t, gain=0.5)), 0.0, 0.5 * math.sqrt(2.0 / (fan_in + fan_out)))


@pytest.mark.parametrize("a,mode,nl", [(0, "fan_in", "relu"), (math.sqrt(5), "fan_in", "leaky_relu"),
                                       (0.1, "fan_out", "leaky_relu"), (0, "fan_in", "tanh")])
def test_kaiming(a, mode, nl):
    t = nt.empty(128, 64, 3, 3)
    fan = init._calculate_correct_fan(t, mode)
    std = rinit.calculate_gain(nl, a) / math.sqrt(fan)
    _check_uniform(A(init.kaiming_uniform_(t, a=a, mode=mode, nonlinearity=nl)), -math.sqrt(3) * std,
                   math.sqrt(3) * std)
    _check_normal(A(init.kaiming_normal_(t, a=a, mode=mode, nonlinearity=nl)), 0.0, std)


def test_kaiming_zero_element_warns():
    t = nt.empty(0, 3)
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        assert init.kaiming_uniform_(t) is t
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_normal_(t)


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (0.0, 0.02, -0.04, 0.04), (1.0, 1.0, 2.0, 3.0),
                                          (0.0, 1.0, -0.1, 0.1)])
def test_trunc_normal_statistics(mean, std, a, b):
    t = nt.empty(20000, dtype=nt.float64)
    assert init.trunc_normal_(t, mean, std, a, b) is t
    x = A(t)
    assert x.min() >= a and x.max() <= b
    # the moments of the truncated normal, from scipy as an independent reference
    from scipy.stats import truncnorm
    dist = truncnorm((a - mean) / std, (b - mean) / std, loc=mean, scale=std)
    assert abs(x.mean() - dist.mean()) < 5 * dist.std() / math.sqrt(x.size)
    assert abs(x.std() - dist.std()) < 0.03 * dist.std()


def test_trunc_normal_warns_for_far_mean():
    with pytest.warns(UserWarning, match="mean is more than 2 std from \\[a, b\\]"):
        init.trunc_normal_(nt.empty(10), mean=10.0, std=1.0, a=-2.0, b=2.0)


def test_eye_and_dirac_match_torch():
    for shape in [(3, 5), (4, 2)]:
        np.testing.assert_array_equal(A(init.eye_(nt.empty(*shape))), rinit.eye_(ref.empty(*shape)).numpy())
    for shape, groups in [((4, 2, 3), 1), ((6, 3, 3, 3), 2), ((4, 4, 2, 3, 3), 2), ((2, 5, 3, 3), 1)]:
        np.testing.assert_array_equal(A(init.dirac_(nt.empty(*shape), groups)),
                                      rinit.dirac_(ref.empty(*shape), groups).numpy())
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(nt.empty(2, 2, 2))
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        init.dirac_(nt.empty(2, 2))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(nt.empty(3, 2, 3), groups=2)


def test_dirac_conv_is_identity():
    conv = nn.Conv2d(3, 3, 3, padding=1, bias=False)
    init.dirac_(conv.weight)
    x = nt.randn(2, 3, 5, 5)
    np.testing.assert_allclose(A(conv(x)), A(x), atol=1e-6)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 2, 3)])
def test_orthogonal(shape):
    t = nt.empty(*shape, dtype=nt.float64)
    init.orthogonal_(t, gain=2.0)
    m = A(t).reshape(shape[0], -1)
    small = min(m.shape)
    gram = m @ m.T if m.shape[0] == small else m.T @ m
    np.testing.assert_allclose(gram, 4.0 * np.eye(small), atol=1e-10)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(nt.empty(3))


def test_sparse():
    t = nt.empty(10, 300)
    init.sparse_(t, sparsity=0.3, std=0.5)
    x = A(t)
    assert ((x == 0).sum(0) == 3).all()
    _check_normal(x[x != 0], 0.0, 0.5)
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.sparse_(nt.empty(3, 3, 3), 0.1)


def test_in_place_on_parameters_without_graph():
    p = nn.Parameter(nt.empty(4, 3))
    for fn in (init.uniform_, init.normal_, init.xavier_uniform_, init.kaiming_normal_, init.orthogonal_,
               init.trunc_normal_, init.ones_, init.zeros_, init.eye_, lambda t: init.constant_(t, 2.0),
               lambda t: init.sparse_(t, 0.5)):
        out = fn(p)
        assert out is p and p.is_leaf and p.grad_fn is None and p.requires_grad


def test_generator_reproducible():
    g1, g2 = nt.Generator().manual_seed(7), nt.Generator().manual_seed(7)
    for fn in (init.uniform_, init.normal_, init.xavier_normal_, init.kaiming_uniform_, init.trunc_normal_,
               init.orthogonal_):
        a, b = fn(nt.empty(5, 4), generator=g1), fn(nt.empty(5, 4), generator=g2)
        np.testing.assert_array_equal(A(a), A(b))
    nt.manual_seed(3)
    a = A(init.normal_(nt.empty(6)))
    nt.manual_seed(3)
    np.testing.assert_array_equal(a, A(init.normal_(nt.empty(6))))


def test_deprecated_aliases_warn():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        init.xavier_uniform(nt.empty(3, 3))
    assert any(issubclass(x.category, FutureWarning) and "nn.init.xavier_uniform_" in str(x.message) for x in w)
