"""Property tests: binary ops under arbitrary broadcasting agree with torch in values, shapes and gradients."""
import numpy as np
import torch as ref
from hypothesis import given, settings, strategies as st

import numtorch as nt

OPS = {
    "add": lambda T, a, b: a + b,
    "sub": lambda T, a, b: a - b,
    "mul": lambda T, a, b: a * b,
    "div": lambda T, a, b: a / (b.abs() + 1),
    "pow": lambda T, a, b: (a.abs() + 0.5) ** b,
    "maximum": lambda T, a, b: T.maximum(a, b),
    "where": lambda T, a, b: T.where(a > b, a, b * 2),
    "atan2": lambda T, a, b: T.atan2(a, b),
}


@st.composite
def broadcastable_pair(draw):
    """Two shapes that broadcast: start from one shape, drop leading dims and set some dims to 1."""
    ndim = draw(st.integers(0, 4))
    full = draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim))

    def derive():
        drop = draw(st.integers(0, len(full)))
        shape = full[drop:]
        return tuple(1 if draw(st.booleans()) else s for s in shape)
    return derive(), derive()


@settings(max_examples=60, deadline=None)
@given(shapes=broadcastable_pair(), op=st.sampled_from(sorted(OPS)), seed=st.integers(0, 2 ** 16))
def test_binary_broadcasting_matches_torch(shapes, op, seed):
    rng = np.random.default_rng(seed)
    a, b = (rng.standard_normal(s) for s in shapes)
    an, bn = nt.tensor(a, requires_grad=True), nt.tensor(b, requires_grad=True)
    at, bt = ref.tensor(a, requires_grad=True), ref.tensor(b, requires_grad=True)
    yn, yt = OPS[op](nt, an, bn), OPS[op](ref, at, bt)
    assert tuple(yn.shape) == tuple(yt.shape)
    np.testing.assert_allclose(yn.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(tuple(yt.shape))
    (yn * nt.tensor(g)).sum().backward()
    (yt * ref.tensor(g)).sum().backward()
    np.testing.assert_allclose(an.grad.numpy(), at.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(bn.grad.numpy(), bt.grad.numpy(), rtol=1e-9, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), extra=st.integers(1, 3))
def test_incompatible_shapes_raise_runtime_error(shape, extra):
    other = list(shape)
    other[-1] = shape[-1] + extra + (1 if shape[-1] == 1 else 0)  # neither equal nor 1
    if shape[-1] == 1:
        return  # a size-1 dim always broadcasts
    for T in (nt, ref):
        try:
            T.ones(*shape) + T.ones(*other)
        except RuntimeError as e:
            assert "must match the size of tensor b" in str(e)
        else:
            raise AssertionError("expected RuntimeError")
