"""nn.utils.fusion, nn.utils.stateless, nn.utils.skip_init and Module.compile against torch."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt


def _trained_bn(T, bn):
    bn.train()
    rng = np.random.default_rng(0)
    shape = (6, bn.num_features) + ((5, 5) if isinstance(bn, T.nn.BatchNorm2d) else ())
    for _ in range(3):
        bn(T.tensor(rng.standard_normal(shape).astype(np.float32) * 2 + 1))
    with T.no_grad():
        bn.weight.mul_(1.5)
        bn.bias.add_(0.3)
    return bn.eval()


@pytest.mark.parametrize("kind", ["conv", "conv_nobias", "convT", "linear"])
def test_fusion_matches_torch_and_unfused(kind):
    outs = []
    for T in (nt, ref):
        T.manual_seed(0)
        if kind == "linear":
            layer, bn = T.nn.Linear(4, 3).eval(), _trained_bn(T, T.nn.BatchNorm1d(3))
            fused = T.nn.utils.fuse_linear_bn_eval(layer, bn)
            x = T.tensor(np.random.default_rng(1).standard_normal((2, 4)).astype(np.float32))
        else:
            transpose = kind == "convT"
            layer = (T.nn.ConvTranspose2d(2, 3, 3) if transpose else T.nn.Conv2d(2, 3, 3, bias=kind == "conv")).eval()
            bn = _trained_bn(T, T.nn.BatchNorm2d(3))
            fused = T.nn.utils.fuse_conv_bn_eval(layer, bn, transpose=transpose)
            x = T.tensor(np.random.default_rng(1).standard_normal((2, 2, 5, 5)).astype(np.float32))
        assert isinstance(fused.weight, T.nn.Parameter) and fused is not layer
        outs.append((fused(x).detach().numpy(), bn(layer(x)).detach().numpy()))
    (a, a_ref), (b, b_ref) = outs
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(a, a_ref, rtol=1e-4, atol=1e-5)


def test_fusion_errors():
    for T in (nt, ref):
        with pytest.raises(AssertionError, match="Fusion only for eval!"):
            T.nn.utils.fuse_conv_bn_eval(T.nn.Conv2d(1, 2, 1), T.nn.BatchNorm2d(2))
        with pytest.raises(AssertionError, match="To fuse, linear.out_features == bn.num_features"):
            T.nn.utils.fuse_linear_bn_eval(T.nn.Linear(2, 3).eval(), T.nn.BatchNorm1d(2).eval())


def test_stateless_functional_call_warns_and_forwards():
    m = nt.nn.Linear(2, 1)
    params = {"weight": nt.ones(1, 2), "bias": nt.zeros(1)}
    with pytest.warns(FutureWarning, match="torch.func.functional_call"):
        y = nt.nn.utils.stateless.functional_call(m, params, (nt.tensor([[1.0, 2.0]]),))
    assert y.item() == 3.0


def test_skip_init_draws_nothing_and_checks_class():
    for T in (nt, ref):
        T.manual_seed(0)
        m = T.nn.utils.skip_init(T.nn.Linear, 4, 3, bias=False)
        assert tuple(m.weight.shape) == (3, 4) and m.bias is None
        after = T.rand(3).numpy()
        T.manual_seed(0)
        np.testing.assert_array_equal(after, T.rand(3).numpy())
        with pytest.raises(RuntimeError, match="Expected a Module"):
            T.nn.utils.skip_init(int)
        with pytest.raises(TypeError, match="must be a class"):  # a factory function, not a class
            T.nn.utils.skip_init(lambda device=None: T.nn.Linear(2, 2, device=device))

        class NoDevice(T.nn.Module):
            def __init__(self, n):
                super().__init__()
        with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
            T.nn.utils.skip_init(NoDevice, 2)


def test_module_compile_keeps_module_working():
    m = nt.nn.Linear(2, 2)
    x = nt.ones(1, 2)
    before = m(x).detach().numpy()
    assert m.compile() is None and ref.nn.Linear(2, 2).compile() is None
    np.testing.assert_array_equal(m(x).detach().numpy(), before)
