"""Autograd semantics under ``create_graph=True``, each checked against PyTorch: custom Functions
(differentiable backwards, saved tensors, once_differentiable, mark_non_differentiable,
set_materialize_grads), retain_graph, ``.grad`` with a graph, version counters, hooks, no_grad,
allow_unused/materialize_grads; memory (graphs freed by reference counting alone); gradcheck and
gradgradcheck flags; torch.autograd.functional."""
import gc
import weakref

import numpy as np
import pytest
import torch

import numtorch as nt

LIBS = (torch, nt)


def _np(t):
    return None if t is None else t.detach().numpy()


def _same(a, b, tol=1e-10):
    """``a`` (torch) and ``b`` (numtorch) results agree: nested tuples, None-ness, values, dtypes."""
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, tol)
    elif a is None or b is None:
        assert a is None and b is None
    elif isinstance(a, torch.Tensor):
        assert str(a.dtype) == str(b.dtype).replace("numtorch", "torch"), (a.dtype, b.dtype)
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(_np(b), _np(a), rtol=tol, atol=tol)
    else:
        assert a == b, (a, b)


def _both(fn, tol=1e-10):
    """Run ``fn(lib)`` with torch and numtorch and compare what they return."""
    _same(fn(torch), fn(nt), tol)


def _x(lib, shape=(3,), seed=0):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=True)


def _raises(fn):
    """(exception type name, message) of ``fn(lib)`` for both libraries; they must raise the same type."""
    res = []
    for lib in LIBS:
        with pytest.raises(Exception) as e:
            fn(lib)
        res.append((type(e.value).__name__, str(e.value)))
    assert res[0][0] == res[1][0], res
    return res


# ------------------------------------------------------------------------------------------------
# custom autograd.Function
# ------------------------------------------------------------------------------------------------
def _cube(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a ** 3

        @staticmethod
        def backward(ctx, go):
            (a,) = ctx.saved_tensors
            return 3 * a * a * go
    return Cube


def _exp(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            y = a.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, go):
            (y,) = ctx.saved_tensors
            return go * y
    return Exp


def test_custom_function_backward_is_differentiable():
    def f(lib):
        x = _x(lib)
        v = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(_cube(lib).apply(x), x, v, create_graph=True)
        assert g.requires_grad
        gg = lib.autograd.grad((g * g).sum(), [x, v])
        return g, gg
    _both(f)


def test_custom_function_saved_output_is_differentiable_and_keeps_grad_fn():
    def f(lib):
        x = _x(lib)
        seen = []

        class Exp(_exp(lib)):
            @staticmethod
            def backward(ctx, go):
                (y,) = ctx.saved_tensors
                seen.append((y.requires_grad, y.grad_fn is not None))
                return go * y
        y = Exp.apply(x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = lib.autograd.grad((g ** 2).sum(), x)
        return g, h, tuple(seen)
    _both(f)


def test_custom_function_saved_tensors_keep_graph_under_create_graph():
    def f(lib):
        x = _x(lib)
        w = x * 2  # a non-leaf saved input: its graph reaches x
        flags = []

        class Mul(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a * b

            @staticmethod
            def backward(ctx, go):
                a, b = ctx.saved_tensors
                flags.append((a.requires_grad, b.requires_grad, lib.is_grad_enabled()))
                return go * b, go * a
        out = Mul.apply(w, x)
        gw, gx = lib.autograd.grad(out.sum(), [w, x], create_graph=True)
        return gw, gx, lib.autograd.grad((gw * gx).sum(), x), tuple(flags)
    _both(f)


def test_custom_function_first_order_backward_runs_without_grad_mode():
    def f(lib):
        x = _x(lib)
        flags = []

        class Id(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a.clone()

            @staticmethod
            def backward(ctx, go):
                flags.append(lib.is_grad_enabled())
                return go
        (g,) = lib.autograd.grad(Id.apply(x).sum(), x)
        return g, g.requires_grad, tuple(flags)
    _both(f)


def _once(lib):
    class Once(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, go):
            (a,) = ctx.saved_tensors
            return 2 * a * go
    return Once


def test_once_differentiable_raises_when_differentiated_twice():
    def f(lib, wrt_x=False):
        x = _x(lib)
        v = lib.ones(3, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(_once(lib).apply(x), x, v, create_graph=True)
        assert g.requires_grad
        if wrt_x:
            lib.autograd.grad(g.sum(), x)
        g.sum().backward()
    (tn, tm), (nn_, nm) = _raises(f)
    assert tn == "RuntimeError" and tm == nm == ("trying to differentiate twice a function that was marked with "
                                                 "@once_differentiable")
    # the error node's input is a detached copy: autograd.grad does not reach x at all
    (tn, tm), (nn_, nm) = _raises(lambda lib: f(lib, wrt_x=True))
    assert tm == nm and "appears to not have been used" in tm


def test_once_differentiable_without_graph_inputs_gives_plain_results():
    def f(lib):
        x = _x(lib)
        (g,) = lib.autograd.grad(_once(lib).apply(x).sum(), x, create_graph=True)
        return g, g.requires_grad, g.grad_fn is None
    _both(f)


def test_once_differentiable_first_order_matches():
    def f(lib):
        x = _x(lib)
        _once(lib).apply(x).sum().backward()
        return x.grad
    _both(f)


def _split(lib, materialize):
    class Split(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(materialize)
            idx = a.argmax()
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(a)
            return a * 2, a.sin(), idx

        @staticmethod
        def backward(ctx, g1, g2, gi):
            (a,) = ctx.saved_tensors
            seen.append((g1 is None, g2 is None, gi is None if gi is None else float(gi.abs().sum())))
            out = 0
            if g1 is not None:
                out = out + 2 * g1
            if g2 is not None:
                out = out + g2 * a.cos()
            return out
    seen = []
    return Split, seen


@pytest.mark.parametrize("materialize", [True, False])
def test_mark_non_differentiable_and_materialize_grads(materialize):
    def f(lib):
        x = _x(lib)
        Split, seen = _split(lib, materialize)
        y1, y2, idx = Split.apply(x)
        (g,) = lib.autograd.grad((y2 ** 2).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        return idx.requires_grad, y1.requires_grad, y2.requires_grad, g, h, tuple(seen)
    _both(f)


def test_custom_function_saving_output_does_not_keep_graph_alive_without_gc():
    gc.disable()
    try:
        for lib in LIBS:
            x = _x(lib)
            y = _exp(lib).apply(x)
            r_out = weakref.ref(y)
            (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
            r_g = weakref.ref(g)
            if lib is nt:  # PyTorch's nodes take no weak references
                r_node, r_gnode = weakref.ref(y.grad_fn), weakref.ref(g.grad_fn)
            del y, g
            assert r_out() is None and r_g() is None, lib.__name__
        assert r_node() is None and r_gnode() is None
    finally:
        gc.enable()


def test_custom_function_saved_output_modified_in_place_raises():
    def f(lib):
        x = _x(lib)
        y = _exp(lib).apply(x)
        y.mul_(2)
        y.sum().backward()
    (tn, tm), (nn_, nm) = _raises(f)
    assert "modified by an inplace operation" in tm and "modified by an inplace operation" in nm


# ------------------------------------------------------------------------------------------------
# graph semantics
# ------------------------------------------------------------------------------------------------
def test_retain_graph_defaults_to_create_graph():
    def ok(lib):
        x = _x(lib)
        y = (x.tanh() ** 2).sum()
        (g1,) = lib.autograd.grad(y, x, create_graph=True)
        (g2,) = lib.autograd.grad(y, x)  # the graph was retained
        return g1, g2
    _both(ok)

    def freed(lib):
        x = _x(lib)
        y = (x.tanh() ** 2).sum()
        lib.autograd.grad(y, x)
        lib.autograd.grad(y, x)
    (tn, tm), (nn_, nm) = _raises(freed)
    assert "second time" in tm and "second time" in nm


def test_grad_accumulated_with_create_graph_has_grad_fn_and_adds_out_of_place():
    def f(lib):
        x = _x(lib)
        (x ** 3).sum().backward(create_graph=True)
        g1 = x.grad
        first = g1.detach().clone()
        (x ** 2).sum().backward(create_graph=True)
        g2 = x.grad
        (h,) = lib.autograd.grad(g2.sum(), x)
        res = (g1.requires_grad, g1.grad_fn is not None, g2 is not g1, g1, first, g2, h)
        x.grad = None  # break the x <-> x.grad cycle, as PyTorch's warning advises
        return res
    _both(f)


def test_in_place_change_of_tensor_saved_by_double_backward_graph_raises():
    def f(lib):
        x = _x(lib)
        w = x * 1
        (g,) = lib.autograd.grad((w ** 3).sum(), w, create_graph=True)  # 3 w^2 saves w
        with lib.no_grad():
            w.mul_(2)
        lib.autograd.grad(g.sum(), x)
    (tn, tm), (nn_, nm) = _raises(f)
    assert tn == "RuntimeError"
    assert "modified by an inplace operation" in tm and "modified by an inplace operation" in nm


def test_tensor_hooks_see_graph_gradients():
    def f(lib):
        x = _x(lib)
        w = x.tanh()
        seen = []

        def hook(g):
            seen.append((g.requires_grad, g.detach().clone()))
            return g * 2
        w.register_hook(hook)
        x.register_hook(lambda g: seen.append((g.requires_grad, g.detach().clone())))
        (g,) = lib.autograd.grad((w ** 2).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        return g, h, tuple(seen)
    _both(f)


def test_module_full_backward_hook_under_create_graph():
    def f(lib):
        lib.manual_seed(0)
        lin = lib.nn.Linear(3, 2).double()
        with lib.no_grad():
            lin.weight.copy_(lib.tensor(np.arange(6.0).reshape(2, 3) / 10))
            lin.bias.copy_(lib.tensor([0.1, -0.2]))
        seen = []

        def hook(mod, gin, gout):
            seen.append(tuple(None if g is None else (g.requires_grad, g.detach().clone()) for g in gin + gout))
        lin.register_full_backward_hook(hook)
        x = _x(lib, (4, 3))
        y = lin(x).tanh()
        (g,) = lib.autograd.grad((y ** 2).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.pow(2).sum(), x)
        return g, h, tuple(seen)
    _both(f)


def test_no_grad_inside_outer_computation_cuts_the_graph():
    def f(lib):
        x = _x(lib)
        y = x * x
        with lib.no_grad():
            c = x * 2  # a constant for autograd
        z = (y * c).sum()
        (g,) = lib.autograd.grad(z, x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        return c.requires_grad, g, h
    _both(f)


def test_create_graph_records_even_under_no_grad():
    def f(lib):
        x = _x(lib)
        y = (x ** 3).sum()
        with lib.no_grad():
            (g,) = lib.autograd.grad(y, x, create_graph=True)
        return g.requires_grad, g
    _both(f)


def test_allow_unused_and_materialize_grads_with_create_graph():
    def f(lib):
        x, u = _x(lib), _x(lib, seed=1)
        y = (x ** 2).sum()
        gx, gu = lib.autograd.grad(y, [x, u], create_graph=True, allow_unused=True)
        mx, mu = lib.autograd.grad(y, [x, u], create_graph=True, materialize_grads=True)
        return gx, gu, mx, mu, gx.requires_grad, mu.requires_grad
    _both(f)

    def unused(lib):
        x, u = _x(lib), _x(lib, seed=1)
        lib.autograd.grad((x ** 2).sum(), [x, u], create_graph=True)
    (tn, tm), (nn_, nm) = _raises(unused)
    assert tm == nm

    def unused_not_allowed(lib):
        x = _x(lib)
        lib.autograd.grad((x ** 2).sum(), x, allow_unused=False, materialize_grads=True)
    (tn, tm), (nn_, nm) = _raises(unused_not_allowed)
    assert tn == "ValueError" and tm == nm


def test_grad_outputs_with_graph_are_differentiated():
    def f(lib):
        x = _x(lib)
        v = _x(lib, seed=3)
        (g,) = lib.autograd.grad(x.sin(), x, v, create_graph=True)
        return g, lib.autograd.grad((g * g).sum(), [x, v])
    _both(f)


def test_third_order():
    def f(lib):
        x = _x(lib)
        y = (x.tanh() * x.exp()).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x, create_graph=True)
        (t,) = lib.autograd.grad(h.sum(), x)
        return g, h, t
    _both(f)


def test_is_grads_batched_values_and_second_order():
    def f(lib):
        x, z = _x(lib), _x(lib, seed=1)
        y = x.tanh() * x.exp()
        eye = lib.eye(3, dtype=lib.float64)
        (jac,) = lib.autograd.grad(y, x, eye, is_grads_batched=True, retain_graph=True)  # rows of the Jacobian
        (j2, zu) = lib.autograd.grad(y.sum(), [x, z], lib.ones(2, dtype=lib.float64), is_grads_batched=True,
                                     allow_unused=True, retain_graph=True)
        (jm, zm) = lib.autograd.grad(y.sum(), [x, z], lib.ones(2, dtype=lib.float64), is_grads_batched=True,
                                     materialize_grads=True, retain_graph=True)
        (jg,) = lib.autograd.grad(y, x, eye, is_grads_batched=True, create_graph=True)
        (h,) = lib.autograd.grad(jg.sum(), x)  # the Jacobian keeps a graph under create_graph
        return jac, j2, zu, jm, zm, h
    _both(f)


def test_is_grads_batched_errors():
    def unbatched(lib):
        x = _x(lib)
        lib.autograd.grad(x * 2, x, lib.ones(2, 4, dtype=lib.float64), is_grads_batched=True)
    assert "first dimension of each grad_output as the batch" in _raises(unbatched)[1][1]

    def missing(lib):
        x = _x(lib)
        lib.autograd.grad(x * 2, x, None, is_grads_batched=True)
    _raises(missing)


# ------------------------------------------------------------------------------------------------
# memory
# ------------------------------------------------------------------------------------------------
def test_first_order_backward_frees_saved_tensors():
    x = _x(nt)
    y = x.tanh()
    z = (y * y).sum()
    z.backward()
    assert y.grad_fn.saved is None or y.grad_fn._freed
    with pytest.raises(RuntimeError, match="second time"):
        z.backward()


@pytest.mark.parametrize("collect", [False, True])
def test_create_graph_graph_is_freed_with_its_last_reference(collect):
    """No reference cycles: with the garbage collector off, dropping the outputs frees every node of
    the forward graph and of the gradient's graph."""
    gc.disable()
    try:
        W = nt.tensor(np.random.default_rng(0).standard_normal((4, 4)), requires_grad=True)
        x = _x(nt, (3, 4))
        h = nt.tanh(x @ W)
        y = (h * h.exp()).sum()
        (g,) = nt.autograd.grad(y, x, create_graph=True)
        pen = (g ** 2).sum()
        pen.backward()
        refs = [weakref.ref(n) for n in (h.grad_fn, y.grad_fn, g.grad_fn, pen.grad_fn)]
        arr = weakref.ref(h._data) if hasattr(h._data, "__weakref__") else None
        del h, y, g, pen
        if collect:
            gc.collect()
        assert [r() for r in refs] == [None] * 4
        if arr is not None:
            assert arr() is None
    finally:
        gc.enable()


def test_backward_create_graph_into_grad_frees_after_grad_reset():
    gc.disable()
    try:
        x = _x(nt, (3, 4))
        y = (nt.tanh(x) ** 2).sum()
        r = weakref.ref(y.grad_fn)
        y.backward(create_graph=True)
        rg = weakref.ref(x.grad.grad_fn)
        del y
        x.grad = None
        assert r() is None and rg() is None
    finally:
        gc.enable()


# ------------------------------------------------------------------------------------------------
# gradcheck / gradgradcheck
# ------------------------------------------------------------------------------------------------
def test_gradcheck_and_gradgradcheck_pass_on_smooth_functions():
    for lib in LIBS:
        x = _x(lib, (2, 3))
        w = _x(lib, (3, 2), seed=1)
        f = lambda a, b: (a @ b).tanh() * a.sum()  # noqa: E731
        assert lib.autograd.gradcheck(f, (x, w))
        assert lib.autograd.gradgradcheck(f, (x, w))


def test_gradcheck_detects_a_wrong_backward():
    for lib in LIBS:
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a ** 2

            @staticmethod
            def backward(ctx, go):
                (a,) = ctx.saved_tensors
                return go * a  # should be 2 a
        x = _x(lib)
        assert lib.autograd.gradcheck(Bad.apply, (x,), raise_exception=False) is False
        with pytest.raises(RuntimeError):
            lib.autograd.gradcheck(Bad.apply, (x,))
    assert issubclass(nt.autograd.GradcheckError, RuntimeError)
    assert nt.autograd.GradcheckError.__name__ == torch.autograd.gradcheck.__globals__["GradcheckError"].__name__


def test_gradgradcheck_detects_a_wrong_double_backward():
    for lib in LIBS:
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a ** 3

            @staticmethod
            def backward(ctx, go):
                (a,) = ctx.saved_tensors
                return go * 3 * a.detach() ** 2  # right values, wrong (missing) second derivative
        x = _x(lib)
        assert lib.autograd.gradcheck(Bad.apply, (x,))
        assert lib.autograd.gradgradcheck(Bad.apply, (x,), raise_exception=False) is False


def test_gradcheck_check_grad_dtypes():
    # the engine casts every gradient to its input's dtype (in both libraries), so this passes
    for lib in LIBS:
        class WrongDtype(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, go):
                return (go * 2).float()
        x = _x(lib)
        assert lib.autograd.gradcheck(WrongDtype.apply, (x,), atol=1e-4, check_grad_dtypes=False)
        assert lib.autograd.gradcheck(WrongDtype.apply, (x,), atol=1e-4, check_grad_dtypes=True)


@pytest.mark.parametrize("flag", ["check_batched_grad", "check_batched_forward_grad"])
def test_gradcheck_flags_numtorch_cannot_check_raise(flag):
    x = _x(nt)
    with pytest.raises(NotImplementedError, match=flag):
        nt.autograd.gradcheck(lambda a: a * 2, (x,), **{flag: True})


@pytest.mark.parametrize("flag", ["check_batched_grad"])
def test_gradgradcheck_flags_numtorch_cannot_check_raise(flag):
    x = _x(nt)
    with pytest.raises(NotImplementedError, match=flag):
        nt.autograd.gradgradcheck(lambda a: a ** 2, (x,), **{flag: True})


# ------------------------------------------------------------------------------------------------
# torch.autograd.functional
# ------------------------------------------------------------------------------------------------
_A = np.random.default_rng(5).standard_normal((3, 3))


def _scalar_fn(lib):
    A = lib.tensor(_A)
    return lambda x: (lib.tanh(x @ A) ** 2).sum()


def _vec_fn(lib):
    A = lib.tensor(_A)
    return lambda x: lib.tanh(x @ A)


def _pt(lib, seed):
    return lib.tensor(np.random.default_rng(seed).standard_normal((2, 3)))


@pytest.mark.parametrize("create_graph", [False, True])
def test_functional_jacobian_hessian_vjp_jvp_hvp_vhp(create_graph):
    def f(lib):
        F = lib.autograd.functional
        x, v, u = _pt(lib, 1), _pt(lib, 2), _pt(lib, 3)
        if create_graph:
            x.requires_grad_()
        s, g = _scalar_fn(lib), _vec_fn(lib)
        res = [F.jacobian(g, x, create_graph=create_graph), F.hessian(s, x, create_graph=create_graph),
               F.vjp(g, x, u, create_graph=create_graph), F.jvp(g, x, v, create_graph=create_graph),
               F.hvp(s, x, v, create_graph=create_graph), F.vhp(s, x, v, create_graph=create_graph)]
        flags = tuple(t.requires_grad for t in (res[0], res[1], res[2][1], res[3][1], res[4][1], res[5][1]))
        if create_graph:  # the results are differentiable
            res.append(lib.autograd.grad(res[1].sum() + res[4][1].sum() + res[3][1].sum(), x))
        return tuple(res), flags
    _both(f)


def test_functional_tuples_and_strict():
    def f(lib):
        F = lib.autograd.functional
        a, b = _pt(lib, 1), _pt(lib, 2)
        J = F.jacobian(lambda x, y: (x * y, x.sin()), (a, b))
        H = F.hessian(lambda x, y: (x * y.exp()).sum(), (a, b))
        return J, H
    _both(f)

    def strict(lib):
        a, b = _pt(lib, 1), _pt(lib, 2)
        lib.autograd.functional.jacobian(lambda x, y: x * 2, (a, b), strict=True)
    (tn, tm), (nn_, nm) = _raises(strict)
    assert tm == nm

    def linear_hessian(lib):
        lib.autograd.functional.hessian(lambda x: (x * 2).sum(), _pt(lib, 1), strict=True)
    (tn, tm), (nn_, nm) = _raises(linear_hessian)
    assert tm == nm


def test_functional_argument_errors():
    for fn in (lambda lib: lib.autograd.functional.vjp(_vec_fn(lib), _pt(lib, 1)),
               lambda lib: lib.autograd.functional.hvp(_scalar_fn(lib), _pt(lib, 1), lib.zeros(4, dtype=lib.float64)),
               lambda lib: lib.autograd.functional.hessian(_vec_fn(lib), _pt(lib, 1)),
               lambda lib: lib.autograd.functional.jacobian(_vec_fn(lib), [1.0])):
        (tn, tm), (nn_, nm) = _raises(fn)
        assert tm == nm.replace("numtorch", "torch")


def test_functional_forward_mode_needs_vectorize():
    # as in PyTorch: forward-mode Jacobians exist only with vectorize=True (tests/test_func.py checks
    # vectorize and forward-mode values against torch)
    F = nt.autograd.functional
    x = _pt(nt, 1)
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        F.jacobian(_vec_fn(nt), x, strategy="forward-mode")
    with pytest.raises(NotImplementedError):
        F.hessian(_scalar_fn(nt), x, outer_jacobian_strategy="forward-mode")
