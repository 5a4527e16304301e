"""torch.func transforms (grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd, hessian) against
PyTorch's torch.func: every case is one program run with (torch, torch.func) and with (numtorch,
numtorch.func) on the same generated inputs; results must agree in structure (containers, dict keys),
shapes, dtypes, values and in whether a graph is attached (``requires_grad``). Error cases must raise
the same exception type (and, where the message is not a pytree print-out, the same message)."""
import numpy as np
import pytest
import torch
import torch.func

import numtorch as nt
import numtorch.func  # noqa: F401

RNG = np.random.default_rng(0)
X3 = RNG.standard_normal(3)
Y3 = RNG.standard_normal(3)
M23 = RNG.standard_normal((2, 3))


def _t(lib, a, dtype="float64", rg=False):
    return lib.tensor(np.array(a), dtype=getattr(lib, dtype), requires_grad=rg)


def same(a, b, tol=1e-10):
    """``a`` (torch) and ``b`` (numtorch) agree in structure, shapes, dtypes, values, requires_grad."""
    if isinstance(a, (tuple, list, dict)):
        assert type(a).__name__ == type(b).__name__, (type(a), type(b))
        assert len(a) == len(b)
        if isinstance(a, dict):
            assert list(a) == list(b)
            a, b = list(a.values()), list(b.values())
        for x, y in zip(a, b):
            same(x, y, tol)
        return
    if isinstance(a, torch.Tensor):
        assert isinstance(b, nt.Tensor), type(b)
        assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
        assert str(a.dtype) == str(b.dtype), (a.dtype, b.dtype)
        assert a.requires_grad == b.requires_grad, ("requires_grad", a.requires_grad, b.requires_grad)
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=tol, atol=tol)
        return
    assert a == b


def both(prog, tol=1e-10):
    same(prog(torch, torch.func), prog(nt, nt.func), tol)


def same_error(prog, match_message=True):
    errs = []
    for lib in (torch, nt):
        with pytest.raises(Exception) as ei:
            prog(lib, lib.func)
        errs.append(ei.value)
    assert type(errs[1]) is type(errs[0]), (errs[0], errs[1])
    if match_message:
        assert str(errs[1]) == str(errs[0])


def cube(x):
    return (x ** 3).sum()


# ------------------------------------------------------------------------------------------------
# grad / grad_and_value
# ------------------------------------------------------------------------------------------------
GRAD_CASES = {
    "scalar": lambda L, F: F.grad(cube)(_t(L, X3)),
    "float32": lambda L, F: F.grad(lambda x: x.sin().sum())(_t(L, X3, "float32")),
    "argnums_tuple": lambda L, F: F.grad(lambda x, y: (x * y.exp()).sum(), argnums=(0, 1))(_t(L, X3), _t(L, Y3)),
    "argnums_second": lambda L, F: F.grad(lambda x, y: (x * y.exp()).sum(), argnums=1)(_t(L, X3), _t(L, Y3)),
    "argnums_negative": lambda L, F: F.grad(lambda x, y: (x * y ** 2).sum(), argnums=-1)(_t(L, X3), _t(L, Y3)),
    "has_aux": lambda L, F: F.grad(lambda x: (cube(x), {"s": x.sin(), "t": (x * 2,)}), has_aux=True)(_t(L, X3)),
    "dict_input": lambda L, F: F.grad(lambda p, x: (p["w"] @ x + p["b"]).tanh().sum())(
        {"w": _t(L, M23), "b": _t(L, X3[:2])}, _t(L, X3)),
    "list_input": lambda L, F: F.grad(lambda p: (p[0] * p[1]).sum())([_t(L, X3), _t(L, Y3)]),
    "kwargs": lambda L, F: F.grad(lambda x, scale=1.0: (x * scale).pow(2).sum())(_t(L, X3), scale=3.0),
    "independent": lambda L, F: F.grad(lambda x: L.tensor(2.0, dtype=L.float64))(_t(L, X3)),
    "unused_arg": lambda L, F: F.grad(lambda x, y: (y ** 2).sum(), argnums=(0, 1))(_t(L, X3), _t(L, Y3)),
    "input_requires_grad": lambda L, F: F.grad(cube)(_t(L, X3, rg=True)),
    "closure_requires_grad": lambda L, F: (lambda w: F.grad(lambda x: (x * w).sum())(_t(L, X3)))(_t(L, Y3, rg=True)),
    "closure_second_order": lambda L, F: (lambda w: F.grad(lambda x: (x ** 2 * w).sum())(_t(L, X3)))(
        _t(L, Y3, rg=True)),
    "grad_and_value": lambda L, F: F.grad_and_value(cube)(_t(L, X3)),
    "grad_and_value_aux": lambda L, F: F.grad_and_value(lambda x: (cube(x), x.cos()), has_aux=True)(_t(L, X3)),
    "grad_grad": lambda L, F: F.grad(F.grad(lambda x: x.sin() * x ** 3))(_t(L, 0.7)),
    "grad_grad_grad": lambda L, F: F.grad(F.grad(F.grad(lambda x: x.exp() * x.cos())))(_t(L, 0.3)),
    "grad_of_grad_sum": lambda L, F: F.grad(lambda x: F.grad(cube)(x).sin().sum())(_t(L, X3)),
    "grad_grad_argnums": lambda L, F: F.grad(lambda y: F.grad(lambda x, y: (x * y ** 2).sum())(_t(L, X3), y).sum())(
        _t(L, Y3)),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_grad(case):
    both(GRAD_CASES[case], tol=1e-5 if "float32" in case else 1e-10)


def test_grad_under_no_grad():
    def prog(L, F):
        w = _t(L, Y3, rg=True)
        with L.no_grad():
            return F.grad(lambda x: (x ** 2 * w).sum())(_t(L, X3)), F.grad(cube)(_t(L, X3, rg=True))
    both(prog)


def test_grad_result_backpropagates_to_caller_tensor():
    def prog(L, F):
        x = _t(L, X3, rg=True)
        g = F.grad(cube)(x)
        g.sum().backward()
        return x.grad
    both(prog)


ERROR_CASES = {
    "non_scalar_output": lambda L, F: F.grad(lambda x: x * 2)(_t(L, X3)),
    "non_tensor_output": lambda L, F: F.grad(lambda x: 1.0)(_t(L, X3)),
    "argnum_out_of_range": lambda L, F: F.grad(cube, argnums=2)(_t(L, X3)),
    "argnum_not_int": lambda L, F: F.grad(cube, argnums=(0.5,))(_t(L, X3)),
    "argnums_list": lambda L, F: F.grad(cube, argnums=[0])(_t(L, X3)),
    "argnums_empty": lambda L, F: F.grad(cube, argnums=())(_t(L, X3)),
    "argnums_repeated": lambda L, F: F.grad(lambda x, y: cube(x), argnums=(0, 0))(_t(L, X3), _t(L, Y3)),
    "non_tensor_input": lambda L, F: F.grad(cube)(1.0),
    "has_aux_not_tuple": lambda L, F: F.grad(cube, has_aux=True)(_t(L, X3)),
    "has_aux_triple": lambda L, F: F.grad(lambda x: (cube(x), x, x), has_aux=True)(_t(L, X3)),
    "aux_not_tensor": lambda L, F: F.grad(lambda x: (cube(x), 1.0), has_aux=True)(_t(L, X3)),
    "int_input": lambda L, F: F.grad(lambda x: x.sum())(L.tensor([1, 2])),
    "vjp_non_tensor_output": lambda L, F: F.vjp(lambda x: 1.0, _t(L, X3)),
    "vjp_int_output": lambda L, F: F.vjp(lambda x: x.long(), _t(L, X3)),
    "vjp_has_aux_not_tuple": lambda L, F: F.vjp(lambda x: x, _t(L, X3), has_aux=True),
    "jvp_primals_not_tuple": lambda L, F: F.jvp(lambda x: x, _t(L, X3), _t(L, X3)),
    "jvp_empty": lambda L, F: F.jvp(lambda: L.ones(2), (), ()),
    "jvp_non_tensor_output": lambda L, F: F.jvp(lambda x: 1.0, (_t(L, X3),), (_t(L, X3),)),
    "jvp_size_mismatch": lambda L, F: F.jvp(lambda x: x, (_t(L, X3),), (_t(L, np.ones(4)),)),
    "jvp_has_aux_not_tuple": lambda L, F: F.jvp(lambda x: x, (_t(L, X3),), (_t(L, X3),), has_aux=True),
    "jvp_strict_independent": lambda L, F: F.jvp(lambda x: L.ones(2, dtype=L.float64), (_t(L, X3),), (_t(L, X3),),
                                                 strict=True),
    "jacrev_chunk_zero": lambda L, F: F.jacrev(cube, chunk_size=0),
    "jacrev_complex": lambda L, F: F.jacrev(lambda x: x)(L.ones(2, dtype=L.complex64)),
    "jacfwd_randomness": lambda L, F: F.jacfwd(cube, randomness="sometimes")(_t(L, X3)),
    "jacfwd_complex": lambda L, F: F.jacfwd(lambda x: x)(L.ones(2, dtype=L.complex64)),
    "jacrev_argnum_range": lambda L, F: F.jacrev(cube, argnums=1)(_t(L, X3)),
    "hessian_argnum_range": lambda L, F: F.hessian(cube, argnums=(0, 3))(_t(L, X3)),
    "linearize_shape": lambda L, F: F.linearize(lambda x: x.sin(), _t(L, X3))[1](_t(L, np.ones(4))),
    "linearize_dtype": lambda L, F: F.linearize(lambda x: x.sin(), _t(L, X3))[1](_t(L, X3, "float32")),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_errors(case):
    same_error(ERROR_CASES[case], match_message=case not in ("int_input", "linearize_shape", "linearize_dtype"))


@pytest.mark.parametrize("case", ["jvp_struct", "vjp_struct", "linearize_struct"])
def test_structure_mismatch_errors(case):
    progs = {
        "jvp_struct": lambda L, F: F.jvp(lambda x: x, (_t(L, X3),), [_t(L, X3)]),
        "vjp_struct": lambda L, F: F.vjp(lambda x: (x, {"a": x * 2}), _t(L, X3))[1](_t(L, X3)),
        "linearize_struct": lambda L, F: F.linearize(lambda x, y: x * y, _t(L, X3), _t(L, Y3))[1](_t(L, X3)),
    }
    same_error(progs[case], match_message=False)


# ------------------------------------------------------------------------------------------------
# vjp, jvp, linearize
# ------------------------------------------------------------------------------------------------
def _vjp_twice(L, F):
    out, fn = F.vjp(lambda x, y: (x.sin() * y, {"p": x @ y}), _t(L, X3), _t(L, Y3))
    ct = (_t(L, Y3), {"p": _t(L, 2.0)})
    return out, fn(ct), fn(ct)


VJP_CASES = {
    "single": lambda L, F: (lambda r: (r[0], r[1](_t(L, Y3))))(F.vjp(lambda x: x.exp(), _t(L, X3))),
    "two_primals_pytree_out": _vjp_twice,
    "has_aux": lambda L, F: (lambda r: (r[0], r[1](_t(L, Y3)), r[2]))(F.vjp(lambda x: (x.exp(), x.sum()), _t(L, X3),
                                                                            has_aux=True)),
    "dict_primal": lambda L, F: (lambda r: r[1](_t(L, 1.0)))(F.vjp(lambda p: (p["a"] * p["b"]).sum(),
                                                                  {"a": _t(L, X3), "b": _t(L, Y3)})),
    "requires_grad_primal": lambda L, F: (lambda r: (r[0], r[1](_t(L, Y3))))(F.vjp(lambda x: x ** 2,
                                                                                  _t(L, X3, rg=True))),
    "cotangent_requires_grad": lambda L, F: (lambda r: r[1](_t(L, Y3, rg=True)))(F.vjp(lambda x: x ** 2, _t(L, X3))),
    "no_grad_call": lambda L, F: (lambda r: _nograd(L, lambda: r[1](_t(L, Y3, rg=True))))(
        F.vjp(lambda x: x ** 2, _t(L, X3))),
    "float32": lambda L, F: (lambda r: r[1](_t(L, Y3, "float32")))(F.vjp(lambda x: x.tanh(), _t(L, X3, "float32"))),
    "jvp": lambda L, F: F.jvp(lambda x: x.sin() * 2, (_t(L, X3),), (_t(L, Y3),)),
    "jvp_two": lambda L, F: F.jvp(lambda x, y: (x * y, (x / y.exp()).sum()), (_t(L, X3), _t(L, Y3)),
                                  (_t(L, Y3), _t(L, X3))),
    "jvp_dict": lambda L, F: F.jvp(lambda p: {"o": p["a"].sin() + p["b"]}, ({"a": _t(L, X3), "b": _t(L, Y3)},),
                                   ({"a": _t(L, Y3), "b": _t(L, X3)},)),
    "jvp_aux": lambda L, F: F.jvp(lambda x: (x.exp(), x.cos()), (_t(L, X3),), (_t(L, Y3),), has_aux=True),
    "jvp_independent_output": lambda L, F: F.jvp(lambda x: (x * 2, L.ones(2, dtype=L.float64)), (_t(L, X3),),
                                                 (_t(L, Y3),)),
    "jvp_int_output": lambda L, F: F.jvp(lambda x: (x * 2, (x * 10).long()), (_t(L, X3),), (_t(L, Y3),)),
    "jvp_float32": lambda L, F: F.jvp(lambda x: x.tanh(), (_t(L, X3, "float32"),), (_t(L, Y3, "float32"),)),
    "linearize": lambda L, F: (lambda r: (r[0], r[1](_t(L, Y3)), r[1](_t(L, X3))))(
        F.linearize(lambda x: x.sin() * x, _t(L, X3))),
    "linearize_two": lambda L, F: (lambda r: (r[0], r[1](_t(L, Y3), _t(L, X3))))(
        F.linearize(lambda x, y: (x * y).exp(), _t(L, X3), _t(L, Y3))),
}


def _nograd(L, fn):
    with L.no_grad():
        return fn()


@pytest.mark.parametrize("case", sorted(VJP_CASES))
def test_vjp_jvp_linearize(case):
    both(VJP_CASES[case], tol=1e-5 if "float32" in case else 1e-10)


# ------------------------------------------------------------------------------------------------
# jacrev, jacfwd, hessian
# ------------------------------------------------------------------------------------------------
def _f2(x, y):
    return (x.sin() * y).cumsum(0), (x @ y).exp()


JAC_CASES = {
    "vector": lambda J: lambda L: J(lambda x: x.sin() * x.sum())(_t(L, X3)),
    "matrix_in": lambda J: lambda L: J(lambda m: (m @ m.t()).tanh())(_t(L, M23)),
    "scalar_in_out": lambda J: lambda L: J(lambda x: x.exp() * 3)(_t(L, 0.4)),
    "scalar_out": lambda J: lambda L: J(cube)(_t(L, X3)),
    "argnums_1": lambda J: lambda L: J(_f2, argnums=1)(_t(L, X3), _t(L, Y3)),
    "argnums_tuple": lambda J: lambda L: J(_f2, argnums=(0, 1))(_t(L, X3), _t(L, Y3)),
    "has_aux": lambda J: lambda L: J(lambda x: (x.exp(), {"a": x.sum()}), has_aux=True)(_t(L, X3)),
    "dict_in_out": lambda J: lambda L: J(lambda p: {"u": p["a"] * p["b"], "v": p["a"].sum()})(
        {"a": _t(L, X3), "b": _t(L, Y3)}),
    "list_out": lambda J: lambda L: J(lambda x: [x.sin(), x.cos().sum()])(_t(L, X3)),
    "float32": lambda J: lambda L: J(lambda x: x.sigmoid() * x)(_t(L, X3, "float32")),
    "requires_grad_input": lambda J: lambda L: J(lambda x: x ** 3)(_t(L, X3, rg=True)),
}


@pytest.mark.parametrize("which", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("case", sorted(JAC_CASES))
def test_jacobians(which, case):
    both(lambda L, F: JAC_CASES[case](getattr(F, which))(L), tol=1e-5 if "float32" in case else 1e-10)


@pytest.mark.parametrize("chunk_size", [None, 1, 2, 5, 100])
def test_jacrev_chunk_size(chunk_size):
    both(lambda L, F: F.jacrev(_f2, argnums=(0, 1), chunk_size=chunk_size)(_t(L, X3), _t(L, Y3)))


@pytest.mark.parametrize("randomness", ["error", "different", "same"])
def test_jacfwd_randomness_values(randomness):
    both(lambda L, F: F.jacfwd(_f2, randomness=randomness)(_t(L, X3), _t(L, Y3)))


HESS_CASES = {
    "vector": lambda L, F: F.hessian(lambda x: (x.sin() * x ** 2).sum())(_t(L, X3)),
    "matrix": lambda L, F: F.hessian(lambda m: (m @ m.t()).tanh().sum())(_t(L, M23)),
    "argnums_tuple": lambda L, F: F.hessian(lambda x, y: (x.exp() * y ** 3).sum(), argnums=(0, 1))(_t(L, X3),
                                                                                                   _t(L, Y3)),
    "argnums_1": lambda L, F: F.hessian(lambda x, y: (x.exp() * y ** 3).sum(), argnums=1)(_t(L, X3), _t(L, Y3)),
    "vector_output": lambda L, F: F.hessian(lambda x: x ** 3)(_t(L, X3)),
    "float32": lambda L, F: F.hessian(lambda x: (x.tanh() * x).sum())(_t(L, X3, "float32")),
}


@pytest.mark.parametrize("case", sorted(HESS_CASES))
def test_hessian(case):
    both(HESS_CASES[case], tol=1e-5 if "float32" in case else 1e-10)


COMPOSE = {
    "jacrev_jacrev": lambda L, F: F.jacrev(F.jacrev(lambda x: x.sin() * x.prod()))(_t(L, X3)),
    "jacrev_jacfwd": lambda L, F: F.jacrev(F.jacfwd(lambda x: x.sin() * x.prod()))(_t(L, X3)),
    "jacfwd_jacrev": lambda L, F: F.jacfwd(F.jacrev(lambda x: x.sin() * x.prod()))(_t(L, X3)),
    "jacfwd_jacfwd": lambda L, F: F.jacfwd(F.jacfwd(lambda x: x.exp() * x.sum()))(_t(L, X3)),
    "grad_jacrev": lambda L, F: F.grad(lambda x: F.jacrev(lambda y: y ** 3)(x).sum())(_t(L, X3)),
    "jacrev_grad": lambda L, F: F.jacrev(F.grad(lambda x: (x.sin() * x ** 2).sum()))(_t(L, X3)),
    "jvp_of_grad": lambda L, F: F.jvp(F.grad(lambda x: (x.exp() * x).sum()), (_t(L, X3),), (_t(L, Y3),)),
    "vjp_of_jvp": lambda L, F: F.vjp(lambda x: F.jvp(lambda y: y.sin() ** 2, (x,), (_t(L, Y3),))[1], _t(L, X3))[1](
        _t(L, X3)),
    "hessian_of_hessian_diag": lambda L, F: F.jacrev(lambda x: F.hessian(lambda y: (y ** 4).sum())(x).diagonal())(
        _t(L, X3)),
}


@pytest.mark.parametrize("case", sorted(COMPOSE))
def test_composition(case):
    both(COMPOSE[case])


def test_hessian_equals_jacrev_jacrev_and_jacfwd_jacfwd():
    f = lambda x: (x.sin() * x.prod() + x.exp()).sum()  # noqa: E731
    x = _t(nt, X3)
    h = nt.func.hessian(f)(x)
    for other in (nt.func.jacrev(nt.func.jacrev(f))(x), nt.func.jacfwd(nt.func.jacfwd(f))(x),
                  nt.func.jacfwd(nt.func.jacrev(f))(x)):
        np.testing.assert_allclose(other.numpy(), h.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fn", ["exp", "tanh", "sigmoid", "sqrt", "reciprocal"])
def test_second_derivative_of_a_0d_op_that_saves_its_output(fn):
    # the transforms differentiate 0-d outputs twice; a 0-d op's saved output was a NumPy scalar that
    # create_graph did not recognise, so its gradient came back as a constant
    def prog(L, F):
        x = _t(L, 0.3, rg=True)
        g1, = L.autograd.grad(getattr(x, fn)(), x, create_graph=True)
        return g1, L.autograd.grad(g1, x)[0], F.grad(F.grad(lambda y: getattr(y, fn)()))(_t(L, 0.3))
    both(prog)


def test_transforms_keep_the_function_name():
    def my_loss(x):
        return x.sum()
    for t in (nt.func.grad, nt.func.grad_and_value, nt.func.jacrev, nt.func.jacfwd):
        assert t(my_loss).__name__ == "my_loss"


# ------------------------------------------------------------------------------------------------
# torch.autograd.functional: vectorize=True and strategy="forward-mode" (through the same seams)
# ------------------------------------------------------------------------------------------------
def _g_single(x):
    return (x.sin() * x.sum()).cumsum(0)


def _g_tuple(x, y):
    return x.exp() * y, (x @ y).tanh()


AF_CASES = {
    "single": (_g_single, lambda L: _t(L, X3)),
    "tuple": (_g_tuple, lambda L: (_t(L, X3), _t(L, Y3))),
    "matrix": (lambda m: (m @ m.t()).exp(), lambda L: _t(L, M23)),
    "float32": (_g_single, lambda L: _t(L, X3, "float32")),
}


@pytest.mark.parametrize("mode", ["vectorize", "forward", "vectorize_create_graph"])
@pytest.mark.parametrize("case", sorted(AF_CASES))
def test_autograd_functional_jacobian_vectorized_and_forward(case, mode):
    fn, inp = AF_CASES[case]
    kw = {"vectorize": dict(vectorize=True), "forward": dict(vectorize=True, strategy="forward-mode"),
          "vectorize_create_graph": dict(vectorize=True, create_graph=True)}[mode]
    tol = 1e-5 if case == "float32" else 1e-10

    def prog(L, F):
        return L.autograd.functional.jacobian(fn, inp(L), **kw)
    both(prog, tol)
    plain = nt.autograd.functional.jacobian(fn, inp(nt))
    got = nt.autograd.functional.jacobian(fn, inp(nt), **kw)
    flat = (lambda j: [j] if isinstance(j, nt.Tensor) else [t for r in j for t in (r if isinstance(r, (tuple, list))
                                                                                 else (r,))])
    for p, g in zip(flat(plain), flat(got)):
        np.testing.assert_array_equal(g.detach().numpy(), p.numpy())


@pytest.mark.parametrize("kw", [dict(vectorize=True), dict(vectorize=True, outer_jacobian_strategy="forward-mode"),
                                dict(vectorize=True, create_graph=True)], ids=["vectorize", "forward", "create_graph"])
def test_autograd_functional_hessian_vectorized(kw):
    def prog(L, F):
        h1 = L.autograd.functional.hessian(lambda x: (x.sin() * x.prod()).sum(), _t(L, X3), **kw)
        h2 = L.autograd.functional.hessian(lambda x, y: (x.exp() * y ** 3).sum(), (_t(L, X3), _t(L, Y3)), **kw)
        return h1.detach(), tuple(tuple(t.detach() for t in r) for r in h2)
    both(prog)


AF_ERRORS = {
    "strict_vectorize": lambda L, F: L.autograd.functional.jacobian(_g_single, _t(L, X3), strict=True, vectorize=True),
    "forward_strict": lambda L, F: L.autograd.functional.jacobian(_g_single, _t(L, X3), strict=True, vectorize=True,
                                                                  strategy="forward-mode"),
    "forward_create_graph": lambda L, F: L.autograd.functional.jacobian(_g_single, _t(L, X3), create_graph=True,
                                                                        vectorize=True, strategy="forward-mode"),
    "forward_no_vectorize": lambda L, F: L.autograd.functional.jacobian(_g_single, _t(L, X3),
                                                                        strategy="forward-mode"),
    "hessian_forward_no_vectorize": lambda L, F: L.autograd.functional.hessian(cube, _t(L, X3),
                                                                               outer_jacobian_strategy="forward-mode"),
    "hessian_forward_create_graph": lambda L, F: L.autograd.functional.hessian(
        cube, _t(L, X3), vectorize=True, create_graph=True, outer_jacobian_strategy="forward-mode"),
    "bad_strategy": lambda L, F: L.autograd.functional.jacobian(_g_single, _t(L, X3), strategy="sideways"),
}


@pytest.mark.parametrize("case", sorted(AF_ERRORS))
def test_autograd_functional_errors(case):
    same_error(AF_ERRORS[case])


@pytest.mark.parametrize("which", ["input", "weight"])
def test_linear_double_backward_when_only_one_operand_requires_grad(which):
    # F.linear's node saves only the operand a gradient needs; its graph backward used to assume both
    def prog(L, F):
        x = _t(L, M23, rg=which == "input")
        w = _t(L, np.arange(9.0).reshape(3, 3) / 5, rg=which == "weight")
        leaf = x if which == "input" else w
        g, = L.autograd.grad(L.nn.functional.linear(x, w).tanh().sum(), leaf, create_graph=True)
        return g, L.autograd.grad(g.pow(2).sum(), leaf)[0]
    both(prog)


EDGE_CASES = {
    "jac_of_constant": lambda L, F: (F.jacrev(lambda x: L.ones(2, dtype=L.float64))(_t(L, X3)),
                                     F.jacfwd(lambda x: L.ones(2, dtype=L.float64))(_t(L, X3))),
    "jacrev_unused_arg": lambda L, F: F.jacrev(lambda x, y: x * 2, argnums=(0, 1))(_t(L, X3), _t(L, Y3)),
    "jacfwd_unused_arg": lambda L, F: F.jacfwd(lambda x, y: x * 2, argnums=(0, 1))(_t(L, X3), _t(L, Y3)),
    "hessian_of_linear": lambda L, F: F.hessian(lambda x: x.sum() * 2)(_t(L, X3)),
    "grad_through_indexing": lambda L, F: F.grad(lambda x: x[0] ** 2 + x[1:].sum())(_t(L, X3)),
    "jacrev_outer_product": lambda L, F: F.jacrev(lambda x: x.unsqueeze(0) * x.unsqueeze(1))(_t(L, X3)),
    "jacrev_scalar_chunk_1": lambda L, F: F.jacrev(lambda x: x.sum(), chunk_size=1)(_t(L, 2.0)),
}


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_edge_cases(case):
    both(EDGE_CASES[case])


def test_edge_errors():
    same_error(lambda L, F: F.grad(lambda x, y: x.sum(), argnums=(0, 1))(_t(L, X3), 2.0))

    def vjp_fn_after_graph_freed(L, F):
        _, fn = F.vjp(lambda x: x.exp(), _t(L, X3))
        fn(_t(L, Y3), retain_graph=False)
        fn(_t(L, Y3))
    same_error(vjp_fn_after_graph_freed, match_message=False)
