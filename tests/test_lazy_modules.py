"""Lazy modules (LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*) and the
Uninitialized placeholders against torch: shapes inferred from the first input, the same random
initialisation, the class they become, state_dicts before and after, errors."""
import copy

import numpy as np
import pytest
import torch as ref

import numtorch as nt

CASES = [
    ("LazyLinear", (5,), {}, (2, 7)), ("LazyLinear", (3,), dict(bias=False), (4, 2, 6)),
    ("LazyConv1d", (4, 3), dict(stride=2, padding=1), (2, 3, 9)), ("LazyConv1d", (4, 3), {}, (3, 9)),
    ("LazyConv2d", (6, 3), dict(groups=2, bias=False), (2, 4, 7, 7)),
    ("LazyConv3d", (2, 2), {}, (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", (4, 3), dict(stride=2), (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3), dict(output_padding=1, stride=2), (2, 2, 4, 4)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 3, 3, 3)),
    ("LazyBatchNorm1d", (), {}, (4, 3)), ("LazyBatchNorm2d", (), dict(affine=False), (4, 3, 2, 2)),
    ("LazyBatchNorm3d", (), dict(track_running_stats=False), (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)), ("LazyInstanceNorm2d", (), dict(affine=False), (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {}, (2, 3, 2, 2, 2)),
]


def _run(T, name, args, kw, shape):
    T.manual_seed(0)
    m = getattr(T.nn, name)(*args, **kw)
    before = (type(m).__name__, list(m.state_dict()), m.has_uninitialized_params())
    x = T.tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    y = m(x)
    return m, before, y


@pytest.mark.parametrize("name,args,kw,shape", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_lazy_module_matches_torch(name, args, kw, shape):
    (a, ba, ya), (b, bb, yb) = (_run(T, name, args, kw, shape) for T in (nt, ref))
    assert ba == bb and ba[2]
    assert type(a).__name__ == type(b).__name__ == name[4:] and not hasattr(a, "has_uninitialized_params")
    assert isinstance(a, getattr(nt.nn, name[4:]))
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for k in sa:
        assert tuple(sa[k].shape) == tuple(sb[k].shape) and str(sa[k].dtype) == str(sb[k].dtype), k
        np.testing.assert_allclose(sa[k].numpy(), sb[k].numpy(), rtol=1e-6, atol=1e-7, err_msg=k)
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-5, atol=1e-5)
    assert repr(a) == repr(b)
    assert not a._forward_pre_hooks and not hasattr(a, "_initialize_hook")


def test_load_state_dict_materializes_from_torch():
    src = ref.nn.Linear(4, 3)
    m = nt.nn.LazyLinear(3)
    m.load_state_dict({k: nt.tensor(v.numpy()) for k, v in src.state_dict().items()})
    assert type(m.weight).__name__ == "Parameter" and tuple(m.weight.shape) == (3, 4)
    np.testing.assert_array_equal(m.weight.detach().numpy(), src.weight.detach().numpy())
    y = m(nt.ones(2, 4))  # the first forward finishes the switch without re-initialising
    assert type(m) is nt.nn.Linear
    np.testing.assert_allclose(y.detach().numpy(), src(ref.ones(2, 4)).detach().numpy(), rtol=1e-6)


def test_uninitialized_placeholders_match_torch():
    for T in (nt, ref):
        p, b = T.nn.UninitializedParameter(), T.nn.UninitializedBuffer()
        assert repr(p) == "<UninitializedParameter>" and repr(b) == "<UninitializedBuffer>"
        assert isinstance(p, T.nn.Parameter) and p.requires_grad and not b.requires_grad
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
            p.shape
        p.materialize((2, 3))
        assert type(p) is T.nn.Parameter and tuple(p.shape) == (2, 3)
        m = T.nn.LazyLinear(2).double()  # a dtype set before the first forward is kept
        m(T.ones(1, 3, dtype=T.float64))
        assert m.weight.dtype == T.float64
        c = copy.deepcopy(T.nn.LazyConv2d(2, 1))
        assert c.has_uninitialized_params()
        assert len(T.nn.LazyLinear(1).state_dict()) == 2


def test_lazy_errors_match_torch():
    for T in (nt, ref):
        with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input to LazyConv2d"):
            T.nn.LazyConv2d(2, 1)(T.ones(2, 3, 4, 4, 4))
        with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
            T.nn.LazyConv1d(4, 1, groups=2)(T.ones(1, 3, 4))
