"""First-order gradients of holomorphic ops on complex inputs follow PyTorch's convention
(``grad_input = grad_output * conj(f'(z))``, https://pytorch.org/docs/stable/notes/autograd.html#complex-autograd-doc):
numtorch's ``autograd.grad(f(z), z, v)`` must equal torch's for complex64/complex128 inputs and a complex
``v``; the same ops on float32 keep their values; a few are also checked under create_graph=True."""
import numpy as np
import pytest
import torch

import numtorch

S = (3, 4)

# name -> (f(lib, *xs), operand shapes); lib is torch or numtorch
CASES = {
    **{n: (lambda L, a, n=n: getattr(L, n)(a), [S]) for n in
       "exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh "
       "sigmoid sqrt rsqrt reciprocal square".split()},
    "special_expit": (lambda L, a: L.special.expit(a), [S]),
    "special_exp2": (lambda L, a: L.special.exp2(a), [S]),
    "special_expm1": (lambda L, a: L.special.expm1(a), [S]),
    "special_log1p": (lambda L, a: L.special.log1p(a), [S]),
    "F_tanh": (lambda L, a: L.nn.functional.tanh(a), [S]),
    "F_sigmoid": (lambda L, a: L.nn.functional.sigmoid(a), [S]),
    "pow_scalar": (lambda L, a: a ** 2.5, [S]),
    "pow_int": (lambda L, a: a ** 3, [S]),
    "pow_2": (lambda L, a: L.pow(a, 2), [S]),
    "pow_neg": (lambda L, a: a ** -1, [S]),
    "pow_complex_scalar": (lambda L, a: a ** (1 + 2j), [S]),
    "rpow": (lambda L, a: 2.0 ** a, [S]),
    "rpow_complex": (lambda L, a: (1 + 1j) ** a, [S]),
    "pow_tensor": (lambda L, a, b: a ** b, [S, S]),
    "pow_broadcast": (lambda L, a, b: L.pow(a, b), [S, (4,)]),
    "mul": (lambda L, a, b: a * b, [S, S]),
    "div": (lambda L, a, b: a / b, [S, S]),
    "prod": (lambda L, a: L.prod(a), [S]),
    "prod_dim": (lambda L, a: L.prod(a, 1), [S]),
    "cumprod": (lambda L, a: L.cumprod(a, 1), [S]),
    "sum": (lambda L, a: a.sum(), [S]),
    "mean": (lambda L, a: a.mean(1), [S]),
    "mm": (lambda L, a, b: L.mm(a, b), [(3, 4), (4, 5)]),
    "matmul_batched": (lambda L, a, b: L.matmul(a, b), [(2, 3, 4), (4, 5)]),
    "matmul_bcast": (lambda L, a, b: L.matmul(a, b), [(2, 3, 4), (2, 4, 5)]),
    "matmul_vec_mat": (lambda L, a, b: L.matmul(a, b), [(4,), (2, 4, 5)]),
    "mv": (lambda L, a, b: L.mv(a, b), [(3, 4), (4,)]),
    "dot": (lambda L, a, b: L.dot(a, b), [(4,), (4,)]),
    "bmm": (lambda L, a, b: L.bmm(a, b), [(2, 3, 4), (2, 4, 5)]),
    "addmm": (lambda L, c, a, b: L.addmm(c, a, b, beta=0.5, alpha=2.0), [(3, 5), (3, 4), (4, 5)]),
    "baddbmm": (lambda L, c, a, b: L.baddbmm(c, a, b), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    "addmv": (lambda L, c, a, b: L.addmv(c, a, b), [(3,), (3, 4), (4,)]),
    "addbmm": (lambda L, c, a, b: L.addbmm(c, a, b), [(3, 5), (2, 3, 4), (2, 4, 5)]),
    "outer": (lambda L, a, b: L.outer(a, b), [(3,), (4,)]),
    "einsum": (lambda L, a, b: L.einsum("ij,jk->ik", a, b), [(3, 4), (4, 5)]),
    "einsum3": (lambda L, a, b, c: L.einsum("ij,jk,k->i", a, b, c), [(3, 4), (4, 5), (5,)]),
    "tensordot": (lambda L, a, b: L.tensordot(a, b, 1), [(3, 4), (4, 5)]),
    "inner": (lambda L, a, b: L.inner(a, b), [(3, 4), (5, 4)]),
    "kron": (lambda L, a, b: L.kron(a, b), [(2, 2), (2, 3)]),
    "linear": (lambda L, a, w: L.nn.functional.linear(a, w), [(3, 4), (5, 4)]),
    "linear_bias_3d": (lambda L, a, w, b: L.nn.functional.linear(a, w, b), [(2, 3, 4), (5, 4), (5,)]),
    "multi_dot": (lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), [(3, 4), (4, 5), (5, 2)]),
    "chain": (lambda L, a, b: L.exp(L.sin(a) @ b).prod(1), [(3, 4), (4, 2)]),
    "logsumexp": (lambda L, a: L.logsumexp(a, 1), [S]),
    "tanhshrink": (lambda L, a: L.nn.functional.tanhshrink(a), [S]),
    "softsign": (lambda L, a: L.nn.functional.softsign(a), [S]),  # not holomorphic (|x|)
    "normalize": (lambda L, a: L.nn.functional.normalize(a), [S]),  # not holomorphic (the norm)
    "normalize_p3_dim0": (lambda L, a: L.nn.functional.normalize(a, p=3.0, dim=0), [S]),
    "normalize_p1": (lambda L, a: L.nn.functional.normalize(a, p=1.0), [S]),
    "float_power": (lambda L, a: L.float_power(a, 2.5), [S]),
    "float_power_tensor": (lambda L, a, b: L.float_power(a, b), [S, S]),
    "conv1d_groups": (lambda L, a, w: L.nn.functional.conv1d(a, w, groups=2), [(2, 4, 7), (4, 2, 3)]),
    "conv2d": (lambda L, a, w, b: L.nn.functional.conv2d(a, w, b, stride=2, padding=1), [(2, 2, 5, 5), (3, 2, 3, 3), (3,)]),
    "conv2d_unbatched": (lambda L, a, w: L.nn.functional.conv2d(a, w), [(2, 5, 5), (3, 2, 3, 3)]),
    "conv_transpose2d": (lambda L, a, w: L.nn.functional.conv_transpose2d(a, w, stride=2), [(1, 2, 4, 4), (2, 3, 3, 3)]),
    "inv": (lambda L, a: L.linalg.inv(a), [(2, 3, 3)]),
    "det": (lambda L, a: L.linalg.det(a), [(2, 4, 4)]),
    "logdet": (lambda L, a: L.logdet(a), [(3, 3)]),
    "solve": (lambda L, a, b: L.linalg.solve(a, b), [(3, 3), (3, 2)]),
    "solve_vec": (lambda L, a, b: L.linalg.solve(a, b), [(2, 3, 3), (2, 3)]),
    "matrix_exp": (lambda L, a: L.matrix_exp(a), [(3, 3)]),
    "matrix_power": (lambda L, a: L.linalg.matrix_power(a, 3), [(3, 3)]),
    "cross": (lambda L, a, b: L.linalg.cross(a, b), [(2, 3), (2, 3)]),
    "triangular_solve": (lambda L, a, b: L.triangular_solve(b, L.triu(a) + 3 * L.eye(3))[0], [(3, 3), (3, 2)]),
    "triangular_solve_t": (lambda L, a, b: L.triangular_solve(b, L.tril(a) + 3 * L.eye(3), upper=False,
                                                             transpose=True)[0], [(3, 3), (3, 2)]),
    "pinv": (lambda L, a: L.linalg.pinv(a), [(2, 3, 4)]),  # not holomorphic (conjugate transposes)
    "pinv_tall": (lambda L, a: L.linalg.pinv(a), [(4, 3)]),
    "pinv_hermitian": (lambda L, a: L.linalg.pinv(a + a.mT.conj() if a.is_complex() else a + a.mT, hermitian=True),
                       [(3, 3)]),
}

# real-input domains for the float32 check (inverse functions need |x| < 1 or x > 1)
_REAL_SHIFT = {"acosh": 1.5}
_REAL_POSITIVE = {"log", "log2", "log10", "sqrt", "rsqrt", "pow_scalar", "pow_tensor", "pow_broadcast", "float_power",
                  "float_power_tensor", "asin", "acos", "atanh"}


def _rand(rng, shape, np_dtype, name):
    if np.dtype(np_dtype).kind == "c":
        # a complex offset keeps values off the real-axis branch cuts of log/sqrt/asin/...
        return (0.5 * rng.standard_normal(shape) + 0.5j * rng.standard_normal(shape) + (0.3 + 0.2j)).astype(np_dtype)
    if name in _REAL_POSITIVE:
        return rng.uniform(0.1, 0.9, shape).astype(np_dtype)
    return (rng.uniform(-0.9, 0.9, shape) + _REAL_SHIFT.get(name, 0.0)).astype(np_dtype)


def _tol(np_dtype):
    return dict(rtol=2e-4, atol=2e-5) if np.dtype(np_dtype) in (np.complex64, np.float32) else dict(rtol=1e-9,
                                                                                                     atol=1e-11)


def _check(name, np_dtype, seed=0):
    f, shapes = CASES[name]
    rng = np.random.default_rng(seed)
    xs = [_rand(rng, s, np_dtype, name) for s in shapes]
    tx = [torch.tensor(x, requires_grad=True) for x in xs]
    ty = f(torch, *tx)
    v = _rand(rng, tuple(ty.shape), np_dtype, "v")
    tg = torch.autograd.grad(ty, tx, torch.tensor(v))
    nx = [numtorch.tensor(x, requires_grad=True) for x in xs]
    ny = f(numtorch, *nx)
    np.testing.assert_allclose(ny.detach().numpy(), ty.detach().numpy(), **_tol(np_dtype))
    ng = numtorch.autograd.grad(ny, nx, numtorch.tensor(v))
    for i, (a, b) in enumerate(zip(ng, tg)):
        b = b.resolve_conj().numpy()
        assert a.numpy().dtype == b.dtype, (name, i)
        np.testing.assert_allclose(a.numpy(), b, err_msg=f"{name} grad {i}", **_tol(np_dtype))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=["c64", "c128"])
@pytest.mark.parametrize("name", list(CASES))
def test_complex_grad_matches_torch(name, dtype):
    _check(name, dtype)


# complex constants make the result complex; logdet of a random real matrix may be of a negative determinant
# (nan), where torch's gradient is 0 and numtorch's A^-T (a separate, real-dtype question)
_NOT_REAL = {"pow_complex_scalar", "rpow_complex", "logdet"}


@pytest.mark.parametrize("name", [n for n in CASES if n not in _NOT_REAL])
def test_float32_grad_unchanged(name):
    _check(name, np.float32, seed=1)


def test_sigmoid_complex_forward():
    z = np.array([0.3 + 0.5j, -0.7 + 0.2j, 1 + 1j, -2 - 3j])
    np.testing.assert_allclose(numtorch.sigmoid(numtorch.tensor(z)).numpy(), torch.sigmoid(torch.tensor(z)).numpy(),
                               rtol=1e-12)


# create_graph: the gradient's own gradient (in z and in v) matches torch's
GG = ["exp", "log", "sin", "tanh", "sigmoid", "sqrt", "reciprocal", "square", "pow_scalar", "pow_tensor",
      "prod_dim", "cumprod", "mm", "matmul_batched", "linear_bias_3d", "einsum", "outer", "kron", "logsumexp",
      "conv2d", "inv", "det", "solve", "cross", "softsign", "normalize", "pinv",
      "triangular_solve"]


@pytest.mark.parametrize("name", GG)
def test_complex_double_backward_matches_torch(name):
    f, shapes = CASES[name]
    rng = np.random.default_rng(2)
    xs = [_rand(rng, s, np.complex128, name) for s in shapes]
    res = []
    for L in (torch, numtorch):
        x = [L.tensor(a, requires_grad=True) for a in xs]
        y = f(L, *x)
        r2 = np.random.default_rng(3)
        v = L.tensor(_rand(r2, tuple(y.shape), np.complex128, "v"), requires_grad=True)
        gs = L.autograd.grad(y, x, v, create_graph=True)
        s = sum((g * L.tensor(_rand(r2, tuple(g.shape), np.complex128, "w"))).sum() for g in gs)
        s = s.real + 0.5 * s.imag  # a real scalar to differentiate
        res.append([None if t is None else t.detach().resolve_conj().numpy() if L is torch else t.detach().numpy()
                    for t in L.autograd.grad(s, x + [v], allow_unused=True)])
    for a, b in zip(res[1], res[0]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)
