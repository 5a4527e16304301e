"""Autograd semantics against PyTorch: backward, grad, hooks, grad modes, in-place checks, custom Functions,
deep graphs and gradcheck."""
import sys

import numpy as np
import pytest
import torch as ref

import numtorch as nt
from conftest import assert_close


def _same(fn):
    """``fn(module)`` returns the same values (or raises the same error type) in numtorch and PyTorch."""
    out = []
    for m in (ref, nt):
        try:
            out.append(("ok", fn(m)))
        except Exception as e:  # noqa: BLE001
            out.append(("err", type(e), str(e)))
    (kr, *r), (kn, *n) = out
    assert kr == kn, (out[0], out[1])
    if kr == "err":
        assert r[0] is n[0], (r, n)
        return r[1], n[1]
    _eq(r[0], n[0])
    return None


def _eq(r, n):
    if isinstance(r, (tuple, list)):
        assert isinstance(n, (tuple, list)) and len(r) == len(n)
        for a, b in zip(r, n):
            _eq(a, b)
    elif isinstance(r, ref.Tensor):
        assert isinstance(n, nt.Tensor), n
        assert_close(n, r)
    else:
        assert r == n, (r, n)


def _err(fn, match=None):
    """Both libraries raise the same exception type; with ``match``, both messages contain it."""
    res = _same(fn)
    assert res is not None, "expected both libraries to raise"
    rmsg, nmsg = res
    if match is not None:
        assert match in rmsg and match in nmsg, (rmsg, nmsg)
    return rmsg, nmsg


# ---- backward basics -----------------------------------------------------------------------------
def test_backward_scalar_and_gradient_argument():
    def f(m):
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        (x * x * 3).sum().backward()
        y = m.tensor([[1.0, 2.0]], requires_grad=True)
        (y.exp() * 2).backward(m.tensor([[0.5, -1.0]]))
        return x.grad, y.grad
    _same(f)


def test_backward_errors():
    def nonscalar(m):
        x = m.ones(3, requires_grad=True)
        (x * x).backward()
    r, n = _err(nonscalar)
    assert r == n

    def no_grad(m):
        m.ones(3).exp().backward()
    r, n = _err(no_grad)
    assert r == n

    def bad_shape(m):
        x = m.ones(3, requires_grad=True)
        (x * 2).backward(m.ones(2))
    r, n = _err(bad_shape)
    assert r == n


def test_second_backward_needs_retain_graph():
    def f(m):
        x = m.ones(3, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()
    r, n = _err(f, "Trying to backward through the graph a second time")
    assert r == n

    def g(m):
        x = m.ones(3, requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    _same(g)


def test_grad_accumulates_across_backward_calls():
    def f(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        (x * 2).sum().backward()
        (x * x).sum().backward()
        g1 = x.grad.clone()
        x.grad.zero_()
        (x * 5).sum().backward()
        x.grad = None
        (x * 7).sum().backward()
        return g1, x.grad
    _same(f)


def test_broadcast_gradients_reduce_to_input_shapes():
    def f(m):
        a = m.tensor(np.arange(6.0).reshape(2, 3).astype(np.float32), requires_grad=True)
        b = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        c = m.tensor([[2.0], [3.0]], requires_grad=True)
        s = m.tensor(2.0, requires_grad=True)
        ((a * b + c) / s - b * c).sum().backward()
        return a.grad, b.grad, c.grad, s.grad
    _same(f)


def test_shared_subexpression_and_diamond():
    def f(m):
        x = m.tensor([0.5, 1.5], requires_grad=True)
        y = x.sin()
        z = y * y + y.exp() * x
        z.backward(m.tensor([1.0, 2.0]))
        return x.grad
    _same(f)


def test_leaf_and_requires_grad_flags():
    def f(m):
        x = m.ones(2, requires_grad=True)
        y = x * 2
        z = m.ones(2) * 2
        return x.is_leaf, y.is_leaf, z.is_leaf, y.requires_grad, z.requires_grad, y.grad_fn.name(), x.grad_fn
    _same(f)
    _err(lambda m: m.ones(2, dtype=m.int64).requires_grad_())

    def set_nonleaf(m):
        y = m.ones(2, requires_grad=True) * 2
        y.requires_grad = False
    r, n = _err(set_nonleaf)
    assert r == n


def test_next_functions_graph():
    x = nt.ones(2, requires_grad=True)
    y = (x * 2).exp()
    (nxt, nr), = y.grad_fn.next_functions
    assert nxt.name() == "MulBackward0" and nr == 0
    acc = nxt.next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad" and acc.variable is x
    assert nxt.next_functions[1] == (None, 0)


def test_detach():
    def f(m):
        x = m.ones(3, requires_grad=True)
        d = x.detach()
        d.add_(1)  # shares memory and version counter
        y = x * 2
        y.detach_()
        return x.detach(), x._version, d.requires_grad, y.requires_grad, y.grad_fn is None, y.is_leaf
    _same(f)


# ---- autograd.grad --------------------------------------------------------------------------------
def test_autograd_grad():
    def f(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        w = m.tensor([3.0, -1.0], requires_grad=True)
        y = (x * w).exp().sum()
        gx, gw = m.autograd.grad(y, [x, w])
        return gx, gw, x.grad, w.grad
    _same(f)

    def outputs(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        return m.autograd.grad(x * 3, x, grad_outputs=m.tensor([2.0, 1.0]))
    _same(outputs)

    def nonleaf(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        return m.autograd.grad((y * y).sum(), y)
    _same(nonleaf)


def test_autograd_grad_allow_unused_and_errors():
    def unused(m):
        x, z = m.ones(2, requires_grad=True), m.ones(2, requires_grad=True)
        return m.autograd.grad((x * 2).sum(), [x, z])
    r, n = _err(unused)
    assert r == n

    def allowed(m):
        x, z = m.ones(2, requires_grad=True), m.ones(2, requires_grad=True)
        return m.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)
    _same(allowed)

    def materialize(m):
        x, z = m.ones(2, requires_grad=True), m.ones(2, requires_grad=True)
        return m.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True)
    _same(materialize)

    def no_rg(m):
        x = m.ones(2, requires_grad=True)
        return m.autograd.grad((x * 2).sum(), [m.ones(2)])
    _err(no_rg)


def test_backward_inputs():
    def f(m):
        x, w = m.ones(3, requires_grad=True), m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (x * w).sum().backward(inputs=[x])
        gx1, gw1 = x.grad.clone(), w.grad
        (x * w * 2).sum().backward(inputs=w)
        return gx1, gw1, x.grad, w.grad
    _same(f)


# ---- hooks ----------------------------------------------------------------------------------------
def test_tensor_hooks_modify_grad():
    def f(m):
        seen = []
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.register_hook(lambda g: seen.append(("y", g.clone())) or g + 1)
        x.register_hook(lambda g: seen.append(("x", g.clone())) or g * 10)
        (y * y).sum().backward()
        return x.grad, seen
    _same(f)


def test_hook_handle_remove_and_context_manager():
    def f(m):
        x = m.ones(2, requires_grad=True)
        h = x.register_hook(lambda g: g * 10)
        (x * 2).sum().backward()
        g1 = x.grad.clone()
        h.remove()
        h.remove()  # removing twice is harmless
        (x * 2).sum().backward()
        with x.register_hook(lambda g: g * 0):
            (x * 2).sum().backward()
        (x * 1).sum().backward()
        return g1, x.grad
    _same(f)
    _err(lambda m: m.ones(2).register_hook(lambda g: g))


def test_retain_grad():
    def f(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y.exp()
        y.retain_grad()
        (z * 3).sum().backward()
        return y.grad, y.retains_grad, z.retains_grad, x.retains_grad, x.grad
    _same(f)
    _err(lambda m: m.ones(2).retain_grad())


def test_node_hooks():
    x = nt.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    calls = []
    y.grad_fn.register_prehook(lambda go: calls.append("pre") or (go[0] * 2,))
    y.grad_fn.register_hook(lambda gi, go: calls.append("post"))
    y.sum().backward()
    assert calls == ["pre", "post"]
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 6.0])


# ---- grad modes -----------------------------------------------------------------------------------
def test_grad_mode_context_managers():
    def f(m):
        x = m.ones(2, requires_grad=True)
        with m.no_grad():
            a = x * 2
            inside = m.is_grad_enabled()
            with m.enable_grad():
                b = x * 2
        with m.set_grad_enabled(False):
            c = x * 2
        with m.inference_mode():
            d = x * 2
            inf = m.is_inference_mode_enabled()
        with m.inference_mode(False):
            e = x * 2
        return (a.requires_grad, inside, b.requires_grad, c.requires_grad, d.requires_grad, inf, e.requires_grad,
                m.is_grad_enabled(), m.is_inference_mode_enabled())
    _same(f)


def test_grad_mode_decorators():
    def f(m):
        x = m.ones(2, requires_grad=True)

        @m.no_grad
        def bare(t):
            return t * 2

        @m.no_grad()
        def called(t):
            return t * 2

        @m.enable_grad()
        def enabled(t):
            return t * 2

        @m.inference_mode()
        def inf(t):
            return t * 2

        @m.no_grad()
        def gen(t):
            yield t * 2

        with m.no_grad():
            en = enabled(x).requires_grad
        return (bare(x).requires_grad, called(x).requires_grad, en, inf(x).requires_grad,
                next(gen(x)).requires_grad, bare.__name__, m.is_grad_enabled())
    _same(f)


def test_set_grad_enabled_as_function_and_exception_restores():
    def f(m):
        x = m.ones(2, requires_grad=True)
        m.set_grad_enabled(False)
        a = x * 2
        m.set_grad_enabled(True)
        b = x * 2
        try:
            with m.no_grad():
                raise ValueError
        except ValueError:
            pass
        return a.requires_grad, b.requires_grad, m.is_grad_enabled()
    _same(f)


# ---- in-place operations ---------------------------------------------------------------------------
def test_inplace_version_counter_and_views():
    def f(m):
        x = m.zeros(3)
        v0 = x._version
        x.add_(1)
        x.mul_(3)
        x += 1
        d = x.detach()
        d.sub_(1)
        return v0, x._version, d._version, x
    _same(f)


def test_inplace_on_leaf_requiring_grad():
    def f(m):
        x = m.ones(3, requires_grad=True)
        x.add_(1)
    r, n = _err(f)
    assert r == n

    def g(m):
        x = m.ones(3, requires_grad=True)
        with m.no_grad():
            x.mul_(2)
            x += 1
        return x.detach(), x._version, x.requires_grad, x.is_leaf
    _same(g)


@pytest.mark.parametrize("build", [
    lambda m, x: (lambda y: (y.add_(1), y))(x.exp())[1],         # exp saves its output
    lambda m, x: (lambda y: (y * y, y.mul_(2))[0])(x * 1),       # mul saves its inputs
    lambda m, x: (lambda y: (y.sin(), y.add_(1))[0])(x * 1),     # sin saves its input
    lambda m, x: (lambda z: (z.sub_(1), z.exp())[1])(x.tanh()),   # tanh saves its output
])
def test_inplace_on_saved_tensor_raises(build):
    def f(m):
        x = m.ones(3, requires_grad=True)
        build(m, x).sum().backward()
    r, n = _err(f, "one of the variables needed for gradient computation has been modified by an inplace operation")
    assert "is at version" in n and "expected version 0 instead" in n


def test_inplace_allowed_when_not_saved():
    def f(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        z = y + y          # add saves nothing
        y.mul_(2)
        w = x.sigmoid()    # sigmoid saves only its output
        y2 = x * 2
        s = y2.sigmoid()
        y2.add_(100)
        (z.sum() + w.sum() + s.sum()).backward()
        return x.grad
    _same(f)


def test_inplace_records_history():
    def f(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.mul_(y)
        y.add_(x)
        y.exp_()
        y.sum().backward()
        return x.grad, y.grad_fn.name()
    _same(f)


# ---- custom Function -------------------------------------------------------------------------------
def _exp_fn(m):
    class Exp(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y
    return Exp


def test_function_save_for_backward_and_composition():
    def f(m):
        Exp = _exp_fn(m)
        x = m.tensor([0.0, 1.0], requires_grad=True)
        y = Exp.apply(x * 2)
        ((y + 1) ** 2).sum().backward()
        return x.grad, type(y.grad_fn).__name__, y.requires_grad
    _same(f)

    def noreq(m):
        y = _exp_fn(m).apply(m.tensor([0.0, 1.0]))
        return y.requires_grad, y.grad_fn is None
    _same(noreq)


def test_function_needs_input_grad_and_non_tensor_args():
    def f(m):
        seen = {}

        class Scale(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, k, w):
                ctx.k = k
                ctx.save_for_backward(x, w)
                return x * w * k

            @staticmethod
            def backward(ctx, g):
                x, w = ctx.saved_tensors
                seen["needs"] = ctx.needs_input_grad
                return (g * w * ctx.k if ctx.needs_input_grad[0] else None, None,
                        g * x * ctx.k if ctx.needs_input_grad[2] else None)
        x, w = m.ones(2, requires_grad=True), m.tensor([2.0, 3.0])
        Scale.apply(x, 2.0, w).sum().backward()
        return x.grad, seen["needs"]
    _same(f)


def test_function_mark_non_differentiable_and_multiple_outputs():
    def f(m):
        class SortLike(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                mask = x > 1
                ctx.mark_non_differentiable(mask)
                return x * 2, mask

            @staticmethod
            def backward(ctx, g, gmask):
                return g * 2
        x = m.tensor([1.0, 3.0], requires_grad=True)
        y, mask = SortLike.apply(x)
        y.sum().backward()
        return mask.requires_grad, y.requires_grad, x.grad, mask
    _same(f)

    def two(m):
        class Two(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x + y, x * y

            @staticmethod
            def backward(ctx, ga, gb):
                return ga + gb * 2, ga
        x, y = m.ones(2, requires_grad=True), m.ones(2, requires_grad=True)
        a, _ = Two.apply(x, y)
        a.sum().backward()  # the unused output's grad arrives as zeros
        return x.grad, y.grad
    _same(two)


def _dirty_fn(m):
    class Double(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            x.mul_(2)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Double


def test_function_mark_dirty_non_leaf_input_becomes_the_output():
    # PyTorch: the same tensor object takes the node as grad_fn (version bumped), and the node's edge
    # for that input is its old history
    def backward(m):
        x = m.tensor([0.3, 0.7], requires_grad=True)
        h = x * 1
        old, v0 = h.grad_fn, h._version
        y = _dirty_fn(m).apply(h)
        assert y is h and h.grad_fn.next_functions[0][0] is old
        (y ** 2).sum().backward()
        return x.grad, h._version - v0

    def grad(m):
        x = m.tensor([0.3, 0.7], requires_grad=True)
        return m.autograd.grad((_dirty_fn(m).apply(x * 1) ** 3).sum(), x)

    def view(m):  # a modified view rebases its base's history
        x = m.tensor([0.3, 0.7, 1.0], requires_grad=True)
        b = x * 1
        r = _dirty_fn(m).apply(b[1:])
        (b ** 2).sum().backward()
        return x.grad, r.detach()

    def no_grad_version(m):
        a = m.ones(2)
        _dirty_fn(m).apply(a)
        return a._version, a

    for fn in (backward, grad, view, no_grad_version):
        assert _same(fn) is None
    got = _same(lambda m: _dirty_fn(m).apply(m.tensor([1.0], requires_grad=True)))
    assert got[0] == got[1] == "a leaf Variable that requires grad has been used in an in-place operation."


def test_function_setup_context_style():
    def f(m):
        class Mul(m.autograd.Function):
            @staticmethod
            def forward(x, w):
                return x * w

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(*inputs)

            @staticmethod
            def backward(ctx, g):
                x, w = ctx.saved_tensors
                return g * w, g * x
        x, w = m.ones(2, requires_grad=True), m.tensor([2.0, 3.0], requires_grad=True)
        Mul.apply(x, w).sum().backward()
        return x.grad, w.grad
    _same(f)


def test_function_errors():
    def too_many(m):
        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g, g
        F.apply(m.ones(2, requires_grad=True)).sum().backward()
    r, n = _err(too_many)
    assert r == n

    def too_few(m):
        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g
        x = m.ones(2, requires_grad=True)
        F.apply(x, x).sum().backward()
    r, n = _err(too_few)
    assert r == n

    def wrong_shape(m):
        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return m.ones(5)
        F.apply(m.ones(2, requires_grad=True)).sum().backward()
    r, n = _err(wrong_shape)
    assert r == n

    def modified(m):
        y = _exp_fn(m).apply(m.ones(2, requires_grad=True))
        y.add_(1)
        y.sum().backward()
    _err(modified, "modified by an inplace operation")

    def freed(m):
        y = _exp_fn(m).apply(m.ones(2, requires_grad=True))
        y.sum().backward()
        return y.grad_fn.saved_tensors
    r, n = _err(freed)
    assert r == n


# ---- deep graphs and gradcheck --------------------------------------------------------------------
def test_100k_op_chain_backward_without_recursion():
    limit = sys.getrecursionlimit()
    x = nt.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y = y + 0.0
    sys.setrecursionlimit(1000)  # a recursive engine would blow up
    try:
        y.backward()
    finally:
        sys.setrecursionlimit(limit)
    np.testing.assert_array_equal(x.grad.numpy(), [1.0])


def test_gradcheck_passes_and_catches_wrong_backward():
    x = nt.tensor([0.3, 1.2, -0.7], dtype=nt.float64, requires_grad=True)
    w = nt.tensor([1.5, -0.5, 2.0], dtype=nt.float64, requires_grad=True)
    assert nt.autograd.gradcheck(lambda a, b: (a * b).sin() + a.exp() / (b * b + 1), (x, w))

    class Wrong(nt.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return g * t  # should be 2 * t

    assert nt.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False) is False
    with pytest.raises(nt.autograd.GradcheckError):
        nt.autograd.gradcheck(Wrong.apply, (x,))
    with pytest.raises(RuntimeError):  # GradcheckError is a RuntimeError, as in PyTorch
        nt.autograd.gradcheck(Wrong.apply, (x,))
    with pytest.raises(ValueError):
        nt.autograd.gradcheck(lambda t: t * 2, (x.detach(),))
