"""F.grid_sample against PyTorch: every mode (bilinear, nearest, bicubic) x padding x align_corners, values and
input/grid gradients, float32 and float64; argument errors by type. (5-D inputs: test_private_aten_ops.py.)"""
import numpy as np
import pytest
import torch as ref
import torch.nn.functional as RF

import numtorch as nt
import numtorch.nn.functional as F
from conftest import assert_close


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_pytorch(mode, padding, align_corners, fdtype):
    rng = np.random.RandomState(0)
    x = rng.rand(2, 3, 5, 7).astype(fdtype)
    grid = (rng.rand(2, 4, 6, 2) * 2.6 - 1.3).astype(fdtype)  # reaches past the edges
    g = rng.rand(2, 3, 4, 6).astype(fdtype)
    kw = dict(mode=mode, padding_mode=padding, align_corners=align_corners)
    xn, gn = nt.tensor(x, requires_grad=True), nt.tensor(grid, requires_grad=True)
    xr, gr = ref.tensor(x, requires_grad=True), ref.tensor(grid, requires_grad=True)
    yn, yr = F.grid_sample(xn, gn, **kw), RF.grid_sample(xr, gr, **kw)
    assert type(yn.grad_fn).__name__ == yr.grad_fn.name() == "GridSampler2DBackward0"
    assert_close(yn, yr)
    yn.backward(nt.tensor(g))
    yr.backward(ref.tensor(g))
    tol = dict(rtol=1e-5, atol=1e-5) if fdtype == np.float32 else {}
    assert_close(xn.grad, xr.grad, **tol)
    assert_close(gn.grad, gr.grad, **tol)


def test_grid_sample_gradcheck():
    rng = np.random.RandomState(1)
    x = nt.tensor(rng.rand(1, 2, 4, 3), requires_grad=True)
    grid = nt.tensor(rng.rand(1, 3, 2, 2) * 1.6 - 0.8, requires_grad=True)
    assert nt.autograd.gradcheck(lambda a, b: F.grid_sample(a, b, align_corners=False), (x, grid))


@pytest.mark.parametrize("kw, shapes", [(dict(mode="foo"), ((1, 1, 3, 3), (1, 2, 2, 2))),
                                        (dict(padding_mode="foo"), ((1, 1, 3, 3), (1, 2, 2, 2))),
                                        ({}, ((2, 1, 3, 3), (1, 2, 2, 2)))])
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
