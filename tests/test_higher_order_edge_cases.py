"""Higher-order gradients at the edges, against PyTorch 2.13: scatter_reduce(prod) with zeros,
cosine_similarity with a zero vector (eps clamp), SDPA w.r.t. a float attn_mask,
MultivariateNormal.log_prob, derivatives that are identically zero (third order of x*y, of a linear
layer, of relu: values, None-ness, requires_grad / grad_fn presence, PyTorch's errors), and the
grad_fn of a leaf's .grad after backward(create_graph=True)."""
import warnings

import numpy as np
import pytest
import torch

import numtorch
import numtorch.distributions as ND
import numtorch.nn.functional as NF
import torch.nn.functional as TF

from _gradgrad import check_gradgrad, check_gradgradcheck, to_nt

DTYPES = [torch.float32, torch.float64]
IDX = [[0, 0], [2, 0], [3, 1]]


# ------------------------------------------------------------------------------------------------
# scatter_reduce(reduce="prod")
# ------------------------------------------------------------------------------------------------
def _prod_inputs(case, dt):
    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(3, 4, dtype=dt, generator=g), torch.randn(3, 2, dtype=dt, generator=g)
    if case == "zero_src":
        y[0, 0] = 0
    if case == "two_zeros_src":  # both go to x[0, 0]
        y[0, 0] = y[0, 1] = 0
    if case == "zero_self":
        x[0, 0] = 0
    if case == "zeros_both":
        x[1, 2], y[1, 0] = 0, 0
    return x.requires_grad_(), y.requires_grad_()


def _prod_fns(include_self):
    def tf(a, b):
        return torch.scatter_reduce(a, 1, torch.tensor(IDX), b, "prod", include_self=include_self)

    def nf(a, b):
        return numtorch.scatter_reduce(a, 1, numtorch.tensor(IDX), b, "prod", include_self=include_self)
    return tf, nf


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("case", ["plain", "zero_src", "zero_self", "zeros_both"])
def test_scatter_reduce_prod_double_backward(case, include_self, dt):
    tf, nf = _prod_fns(include_self)
    x, y = _prod_inputs(case, dt)
    check_gradgrad(tf, nf, (x, y))
    if dt == torch.float64:
        assert check_gradgradcheck(nf, (x, y))


def test_scatter_reduce_prod_two_zeros_raises_as_torch():
    """Two zeros of src meeting in one position: the first gradients are PyTorch's; differentiating the
    src gradient again raises PyTorch's RuntimeError (its ``Error`` node); the input's gradient works."""
    tf, nf = _prod_fns(True)
    x, y = _prod_inputs("two_zeros_src", torch.float64)
    res = []
    for lib, fn, (a, b) in ((torch, tf, (x, y)), (numtorch, nf, to_nt((x, y)))):
        out = fn(a, b)
        ga, gb = lib.autograd.grad(out, (a, b), lib.ones_like(out), create_graph=True)
        assert gb.grad_fn.name() == "torch::autograd::Error"
        with pytest.raises(RuntimeError, match="more than one zero|>1 zeros in src"):
            lib.autograd.grad(gb.sum(), (a, b))
        res.append([ga, gb, lib.autograd.grad((ga * ga).sum(), (a, b))])
    for t, n in zip([res[0][0], res[0][1], *res[0][2]], [res[1][0], res[1][1], *res[1][2]]):
        np.testing.assert_allclose(n.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_scatter_reduce_prod_saves_for_version_check():
    """prod saves the input, src and result (PyTorch does): changing src in place then raises."""
    for lib in (torch, numtorch):
        x = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
        y = lib.tensor(np.full((3, 2), 2.0))
        y.requires_grad_()
        src = y * 1
        out = lib.scatter_reduce(x, 1, lib.tensor(IDX), src, "prod")
        with lib.no_grad():
            src.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


# ------------------------------------------------------------------------------------------------
# cosine_similarity with zero / tiny vectors (norms clamped to eps)
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("case", ["zero_x1", "zero_both", "tiny_x1", "broadcast_zero"])
def test_cosine_similarity_clamped_double_backward(case, dt):
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(3, 5, dtype=dt, generator=g), torch.randn(3, 5, dtype=dt, generator=g)
    if case in ("zero_x1", "zero_both"):
        a[1] = 0
    if case == "zero_both":
        b[1] = 0
        b[2] = 0
    if case == "tiny_x1":
        a[0] = 1e-10 if dt == torch.float64 else 1e-9  # a norm below eps = 1e-8, not zero
    if case == "broadcast_zero":
        b = torch.zeros(1, 5, dtype=dt)
    kw = dict(eps=1e-6) if case == "tiny_x1" and dt == torch.float32 else {}
    check_gradgrad(lambda x, y: TF.cosine_similarity(x, y, **kw), lambda x, y: NF.cosine_similarity(x, y, **kw),
                   (a.requires_grad_(), b.requires_grad_()))


def test_cosine_similarity_zero_vector_nan_as_torch():
    """PyTorch's second derivative w.r.t. a zero vector is NaN (the norm's square root at 0); numtorch's too."""
    a = torch.tensor([[1.0, 2.0, 2.0], [0.0, 0.0, 0.0]], dtype=torch.float64)
    b = torch.tensor([[0.5, -1.0, 3.0], [1.0, 2.0, -1.0]], dtype=torch.float64)
    res = []
    for lib in (torch, numtorch):
        x, y = lib.tensor(a.numpy(), requires_grad=True), lib.tensor(b.numpy(), requires_grad=True)
        gx, gy = lib.autograd.grad(lib.nn.functional.cosine_similarity(x, y).sum(), (x, y), create_graph=True)
        res.append([t.detach().numpy() for t in (gx, gy, *lib.autograd.grad(gx.sum() + gy.sum(), (x, y)))])
    for t, n in zip(*res):
        np.testing.assert_allclose(n, t, rtol=1e-10, atol=1e-15, equal_nan=True)
    assert np.isnan(res[1][2][1]).all() and np.isfinite(res[1][3]).all()


# ------------------------------------------------------------------------------------------------
# scaled_dot_product_attention with a float attn_mask that requires grad
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("mask_shape", [(2, 3, 5), (3, 5), (1, 5)])
def test_sdpa_float_mask_double_backward(mask_shape, dt):
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(*s, dtype=dt, generator=g).requires_grad_() for s in ((2, 3, 4), (2, 5, 4), (2, 5, 4)))
    m = torch.randn(*mask_shape, dtype=dt, generator=g).requires_grad_()
    check_gradgrad(TF.scaled_dot_product_attention, NF.scaled_dot_product_attention, (q, k, v, m))
    check_gradgrad(lambda a: TF.scaled_dot_product_attention(q.detach(), k.detach(), v.detach(), a),
                   lambda a: NF.scaled_dot_product_attention(*to_nt((q.detach(), k.detach(), v.detach())), a), (m,))
    if dt == torch.float64:
        assert check_gradgradcheck(NF.scaled_dot_product_attention, (q, k, v, m))


# ------------------------------------------------------------------------------------------------
# MultivariateNormal.log_prob
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("param", ["covariance_matrix", "scale_tril", "precision_matrix"])
def test_multivariate_normal_log_prob_double_backward(param, dt):
    g = torch.Generator().manual_seed(3)
    loc = torch.randn(3, dtype=dt, generator=g).requires_grad_()
    a = torch.randn(3, 3, dtype=dt, generator=g)
    cov = (a @ a.T + 3 * torch.eye(3, dtype=dt)).requires_grad_()
    x = torch.randn(2, 3, dtype=dt, generator=g).requires_grad_()

    def make(lib, dist):
        def f(loc, cov, x):
            m = lib.linalg.cholesky(cov) if param == "scale_tril" else cov
            return dist.MultivariateNormal(loc, **{param: m}).log_prob(x)
        return f
    check_gradgrad(make(torch, torch.distributions), make(numtorch, ND), (loc, cov, x))
    if dt == torch.float64:  # through a factor b (cov = b b^T + 3 I): gradcheck's perturbations stay symmetric
        f = make(numtorch, ND)
        assert check_gradgradcheck(lambda loc, b, x: f(loc, b @ b.mT + 3 * numtorch.eye(3, dtype=b.dtype), x),
                                   (loc, a.requires_grad_(), x))


# ------------------------------------------------------------------------------------------------
# derivatives that are identically zero: values, None, requires_grad, grad_fn presence, errors
# ------------------------------------------------------------------------------------------------
def _desc(t):
    if t is None:
        return None
    a = t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else t.detach().numpy()  # a ZeroTensor too
    return (np.round(a.astype(np.float64), 5).tolist(), t.requires_grad, t.grad_fn is None)


def _steps(lib, case):
    """The chain of gradients of ``case``; an exception ends it as ``(type, message)``."""
    x = lib.tensor([1.5, -2.0], requires_grad=True)
    y = lib.tensor([0.5, 3.0], requires_grad=True)
    grad = lib.autograd.grad
    out = []
    try:
        if case == "xy_x_allow_unused":  # d2(xy)/dx2 is "unused": None, then grad of None fails in the caller
            g1, = grad((x * y).sum(), x, create_graph=True)
            out += [g1, *grad(g1.sum(), x, create_graph=True, allow_unused=True)]
        elif case == "xy_x":  # the same without allow_unused: PyTorch's "not been used in the graph"
            g1, = grad((x * y).sum(), x, create_graph=True)
            out += [g1, *grad(g1.sum(), x, create_graph=True)]
        elif case == "xy_y_third":  # d2/dxdy = 1 (a constant, no grad_fn): a third grad raises
            g1, = grad((x * y).sum(), x, create_graph=True)
            g2, = grad(g1.sum(), y, create_graph=True)
            out += [g1, g2, *grad(g2.sum(), y)]
        elif case == "cube_fourth":  # d4(x^3) = 0: the third derivative 6 is a constant
            g1, = grad((x * x * x).sum(), x, create_graph=True)
            g2, = grad(g1.sum(), x, create_graph=True)
            g3, = grad(g2.sum(), x, create_graph=True)
            out += [g1, g2, g3, *grad(g3.sum(), x, allow_unused=True)]
        elif case == "linear":
            lin = lib.nn.Linear(2, 1)
            g1, = grad(lin(x).sum(), x, create_graph=True)
            out += [g1, *grad(g1.sum(), x, allow_unused=True)]
            g2, = grad(g1.sum(), lin.weight, create_graph=True)
            out += [g2, *grad(g2.sum(), lin.weight)]
        elif case == "relu":  # relu's gradient reads its output: zeros that require grad, to any order
            g1, = grad(lib.relu(x).sum(), x, create_graph=True)
            g2, = grad(g1.sum(), x, create_graph=True)
            g3, = grad(g2.sum(), x, create_graph=True)
            out += [g1, g2, g3, *grad(g3.sum(), x)]
        elif case == "relu_squared":
            g1, = grad((lib.relu(x) ** 2).sum(), x, create_graph=True)
            g2, = grad(g1.sum(), x, create_graph=True)
            g3, = grad(g2.sum(), x, create_graph=True)
            out += [g1, g2, g3, *grad(g3.sum(), x)]
        elif case == "abs":  # abs reads its input: sign(x) * g has a graph, its derivative is zero
            g1, = grad(x.abs().sum(), x, create_graph=True)
            out += [g1, *grad(g1.sum(), x)]
        elif case == "add":  # the gradient of a sum is a constant: differentiating it raises
            g1, = grad((x + y).sum(), x, create_graph=True)
            out += [g1, *grad(g1.sum(), x)]
        elif case == "mul_number":
            g1, = grad((x * 3).sum(), x, create_graph=True, allow_unused=True)
            out += [g1, *grad(g1.sum(), x, allow_unused=True)]
        elif case == "materialize":  # materialized zeros require grad; their grad is "unused"
            g1, = grad((x * y).sum(), x, create_graph=True)
            g2, = grad(g1.sum(), x, create_graph=True, allow_unused=True, materialize_grads=True)
            out += [g1, g2, *grad(g2.sum(), x, allow_unused=True)]
    except Exception as e:  # noqa: BLE001 (the type and message are compared with PyTorch's)
        out.append((type(e).__name__, str(e)))
    return out


ZERO_CASES = ["xy_x_allow_unused", "xy_x", "xy_y_third", "cube_fourth", "linear", "relu", "relu_squared", "abs",
              "add", "mul_number", "materialize"]


@pytest.mark.parametrize("case", ZERO_CASES)
def test_identically_zero_derivatives_as_torch(case):
    torch.manual_seed(0)
    numtorch.manual_seed(0)
    t = _steps(torch, case)
    n = _steps(numtorch, case)
    assert len(t) == len(n), (t, n)
    for a, b in zip(t, n):
        if isinstance(a, tuple):
            assert b == a  # same exception type and message
        else:
            assert _desc(b) == _desc(a)


# ------------------------------------------------------------------------------------------------
# .grad after backward(create_graph=True)
# ------------------------------------------------------------------------------------------------
def _grad_fns(lib):
    x = lib.tensor([1.5, -2.0], requires_grad=True)
    names = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's reference-cycle warning
        (x ** 3).sum().backward(create_graph=True)
        first = x.grad
        names.append((first.grad_fn.name(), [None if n is None else n.name() for n, _ in first.grad_fn.next_functions]))
        (x ** 3).sum().backward(create_graph=True)
        names.append((x.grad.grad_fn.name(), x.grad is first))
        x.grad = None
        (x * 2).sum().backward(create_graph=True)  # a constant gradient: .grad has no grad_fn
        names.append((x.grad.grad_fn, x.grad.requires_grad))
        v = lib.tensor([1.0, 1.0])
        x.grad = None
        x.backward(v, create_graph=True)  # .grad is a copy, not the given tensor
        names.append(x.grad is v)
    return names


def test_leaf_grad_grad_fn_names_as_torch():
    assert _grad_fns(numtorch) == _grad_fns(torch)
