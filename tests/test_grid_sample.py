"""F.grid_sample against PyTorch: every mode x padding x align_corners, 4-D and 5-D, values and
input/grid gradients, float32 and float64; argument errors by type."""
import numpy as np
import pytest
import torch as ref
import torch.nn.functional as RF

import numtorch as nt
import numtorch.nn.functional as F
from conftest import assert_close


_SHAPES = {4: ((2, 3, 5, 7), (2, 4, 6, 2), (2, 3, 4, 6)), 5: ((2, 2, 3, 4, 5), (2, 2, 3, 4, 3), (2, 2, 2, 3, 4))}


@pytest.mark.parametrize("mode, ndim", [("bilinear", 4), ("nearest", 4), ("bicubic", 4), ("bilinear", 5),
                                        ("nearest", 5)])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_pytorch(mode, ndim, padding, align_corners, fdtype):
    rng = np.random.RandomState(0)
    xs, gs, os_ = _SHAPES[ndim]
    x = rng.rand(*xs).astype(fdtype)
    grid = (rng.rand(*gs) * 2.6 - 1.3).astype(fdtype)  # reaches past the edges
    g = rng.rand(*os_).astype(fdtype)
    kw = dict(mode=mode, padding_mode=padding, align_corners=align_corners)
    xn, gn = nt.tensor(x, requires_grad=True), nt.tensor(grid, requires_grad=True)
    xr, gr = ref.tensor(x, requires_grad=True), ref.tensor(grid, requires_grad=True)
    yn, yr = F.grid_sample(xn, gn, **kw), RF.grid_sample(xr, gr, **kw)
    assert type(yn.grad_fn).__name__ == yr.grad_fn.name() == f"GridSampler{ndim - 2}DBackward0"
    assert_close(yn, yr)
    yn.backward(nt.tensor(g))
    yr.backward(ref.tensor(g))
    tol = dict(rtol=1e-5, atol=1e-5) if fdtype == np.float32 else {}
    assert_close(xn.grad, xr.grad, **tol)
    assert_close(gn.grad, gr.grad, **tol)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_grid_sample_gradcheck(mode):
    rng = np.random.RandomState(1)
    x = nt.tensor(rng.rand(1, 2, 4, 3), requires_grad=True)
    grid = nt.tensor(rng.rand(1, 3, 2, 2) * 1.6 - 0.8, requires_grad=True)
    assert nt.autograd.gradcheck(lambda a, b: F.grid_sample(a, b, mode=mode, align_corners=False), (x, grid))


def test_grid_sample_3d_gradcheck():
    rng = np.random.RandomState(2)
    x = nt.tensor(rng.rand(1, 2, 3, 4, 3), requires_grad=True)
    grid = nt.tensor(rng.rand(1, 2, 3, 2, 3) * 1.6 - 0.8, requires_grad=True)
    assert nt.autograd.gradcheck(lambda a, b: F.grid_sample(a, b, align_corners=True), (x, grid))


@pytest.mark.parametrize("kw, shapes", [(dict(mode="foo"), ((1, 1, 3, 3), (1, 2, 2, 2))),
                                        (dict(padding_mode="foo"), ((1, 1, 3, 3), (1, 2, 2, 2))),
                                        ({}, ((2, 1, 3, 3), (1, 2, 2, 2))),
                                        (dict(mode="bicubic"), ((1, 1, 3, 3, 3), (1, 2, 2, 2, 3))),
                                        ({}, ((1, 1, 3, 3, 3), (1, 2, 2, 2, 2))),
                                        ({}, ((1, 1, 3, 3, 3), (1, 2, 2, 3))),
                                        ({}, ((1, 1, 3), (1, 2, 2))),
                                        ({}, ((1, 1, 0, 3), (1, 2, 2, 2)))])
def test_grid_sample_errors_match_pytorch(kw, shapes):
    with pytest.raises(Exception) as e_ref:
        RF.grid_sample(ref.zeros(shapes[0]), ref.zeros(shapes[1]), **kw)
    with pytest.raises(type(e_ref.value)):
        F.grid_sample(nt.zeros(shapes[0]), nt.zeros(shapes[1]), **kw)


def test_grid_sample_bicubic_of_a_5d_input_raises_as_pytorch():
    with pytest.raises(RuntimeError, match="bicubic"):
        RF.grid_sample(ref.zeros(1, 1, 2, 3, 3), ref.zeros(1, 2, 2, 2, 3), mode="bicubic", align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic"):
        F.grid_sample(nt.zeros(1, 1, 2, 3, 3), nt.zeros(1, 2, 2, 2, 3), mode="bicubic", align_corners=False)


def test_grid_sample_empty_matches_pytorch():
    for xs, gs in (((0, 1, 3, 3), (0, 2, 2, 2)), ((1, 1, 3, 3, 3), (1, 0, 2, 2, 3))):
        yn = F.grid_sample(nt.ones(xs), nt.ones(gs), align_corners=False)
        yr = RF.grid_sample(ref.ones(xs), ref.ones(gs), align_corners=False)
        assert_close(yn, yr)


def test_grid_sample_dtype_mismatch_raises():
    with pytest.raises(RuntimeError):
        RF.grid_sample(ref.ones(1, 1, 3, 3), ref.ones(1, 2, 2, 2, dtype=ref.float64), align_corners=False)
    with pytest.raises(RuntimeError):
        F.grid_sample(nt.ones(1, 1, 3, 3), nt.ones(1, 2, 2, 2, dtype=nt.float64), align_corners=False)
