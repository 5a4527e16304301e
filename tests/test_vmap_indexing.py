"""vmap batching rules for indexing, gather and scatter (func/_batching_rules_index.py), custom
autograd.Function under vmap (func/_custom_function.py), zero_/fill_ under vmap, and writes to captured
tensors inside grad/vjp/jvp (func/_captures.py): differential tests against torch.func."""
import warnings

import numpy as np
import pytest
import torch

import numtorch as nt

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 5))
I2 = np.array([[0, 1], [2, 3], [1, 1]])
I5 = np.array([[0, 4], [2, 3], [1, 1]])


def _conv(lib, a):
    return lib.tensor(a) if isinstance(a, np.ndarray) else a


def _run(lib, make, args, in_dims, transform):
    f = make(lib)
    if transform is not None:
        f = transform(lib, f)
    return lib.func.vmap(f, in_dims=in_dims)(*[_conv(lib, a) for a in args])


def _compare(make, args, in_dims=0, transform=None):
    """Values and shapes equal to torch's; numtorch emits no performance-drop warning (the rule ran)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _run(torch, make, args, in_dims, transform)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = _run(nt, make, args, in_dims, transform)
    drops = [str(w.message) for w in caught if "performance drop" in str(w.message)]
    assert not drops, drops
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-9)
    assert got.dtype == getattr(nt, str(want.dtype).split(".")[1])


def _raises_like_torch(make, args, in_dims=0, match=None):
    errs = []
    for lib in (torch, nt):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                _run(lib, make, args, in_dims, None)
        errs.append(info.value)
    assert type(errs[1]) is type(errs[0]), (errs[0], errs[1])
    if match:
        for e in errs:
            assert match in str(e)
    return errs


def _grad(lib, f):
    return lib.func.grad(lambda *a: (f(*a) ** 2).sum())


# ------------------------------------------------------------------------------------------------
# advanced indexing
# ------------------------------------------------------------------------------------------------
GETITEM = {
    "a[i]": (lambda lib: lambda a, i: a[i], (X, I2)),
    "a[:, i]": (lambda lib: lambda a, i: a[:, i], (X, I5)),
    "a[i, :, None]": (lambda lib: lambda a, i: a[i, :, None], (X, I2)),
    "a[..., i]": (lambda lib: lambda a, i: a[..., i], (X, I5)),
    "a[i, j] (both batched)": (lambda lib: lambda a, i, j: a[i, j], (X, I2, I5)),
    "a[i, 1:]": (lambda lib: lambda a, i: a[i, 1:], (X, I2)),
    "a[1, i]": (lambda lib: lambda a, i: a[1, i], (X, I5)),
    "a[i] 0-d index": (lambda lib: lambda a, i: a[i], (X, np.array([0, 3, 2]))),
    "a[i] 2-d index": (lambda lib: lambda a, i: a[i], (X, RNG.integers(0, 4, (3, 2, 2)))),
    "a[:, i] unbatched index": (lambda lib: lambda a: a[:, lib.tensor([4, 0, 4])], (X,)),
    "a[i, :, j] unbatched": (lambda lib: lambda a: a[lib.tensor([0, 2]), lib.tensor([1, 1])], (X,)),
    "a[mask] unbatched mask": (lambda lib: lambda a: a[lib.tensor([True, False, True, False])], (X,)),
    "a[:, mask] unbatched mask": (lambda lib: lambda a: a[:, lib.tensor([True, False, True, False, True])], (X,)),
}


@pytest.mark.parametrize("name", list(GETITEM))
def test_getitem_batched_index(name):
    make, args = GETITEM[name]
    _compare(make, args)


@pytest.mark.quick
def test_getitem_shared_tensor_batched_index_and_grad():
    w = RNG.standard_normal((4, 5))
    _compare(lambda lib: lambda a, i: a[i], (w, I2), in_dims=(None, 0))
    _compare(lambda lib: lambda a, i: a[i], (w, I2), in_dims=(None, 0), transform=_grad)
    _compare(lambda lib: lambda a, i: a[:, i], (X, I5), transform=_grad)


def test_getitem_in_dims_and_nested():
    _compare(lambda lib: lambda a, i: a[i], (X.transpose(1, 0, 2).copy(), I2.T.copy()), in_dims=(1, 1))
    xs = RNG.standard_normal((2, 3, 4, 5))
    idx = RNG.integers(0, 4, (2, 3, 2))
    for lib_in in ((0, 0), (0, None)):
        def make(lib, lib_in=lib_in):
            return lambda a, i: lib.func.vmap(lambda b, j: b[j], in_dims=lib_in)(a, i)
        _compare(make, (xs, idx if lib_in[1] is not None else idx[:, 0]))


@pytest.mark.parametrize("args, match", [((X, np.array([[0, 1], [2, 9], [1, 1]])), "out of bounds"),
                                         ((X, np.array([[0, 1], [2, -9], [1, 1]])), "out of bounds")])
def test_getitem_out_of_range_raises_as_torch(args, match):
    errs = _raises_like_torch(lambda lib: lambda a, i: a[i], args, match=match)
    assert str(errs[1]) == str(errs[0])


def test_getitem_bad_index_errors_as_torch():
    _raises_like_torch(lambda lib: lambda a, m: a[m], (X, X > 0), match="dynamic shape")
    _raises_like_torch(lambda lib: lambda a, i: a[i], (X, X[:, :2, 0]))  # float index: IndexError


# ------------------------------------------------------------------------------------------------
# setitem / index_put
# ------------------------------------------------------------------------------------------------
def _set(idx_fn, value_fn=None):
    def make(lib):
        def f(a, i, *v):
            a = a.clone() * 1.0
            a[idx_fn(i)] = v[0] if v else 0.5
            return a
        return f
    return make


@pytest.mark.parametrize("name, make, args", [
    ("a[i] = 0.5", _set(lambda i: i), (X, I2)),
    ("a[:, i] = 0.5", _set(lambda i: (slice(None), i)), (X, I5)),
    ("a[i] = v (batched v)", _set(lambda i: i), (X, I2, RNG.standard_normal((3, 5)))),
    ("a[i, 2] = v", _set(lambda i: (i, 2)), (X, I2, RNG.standard_normal(3))),
])
def test_setitem_batched(name, make, args):
    _compare(make, args)


def test_setitem_gradients_and_index_put():
    def make(lib):
        def f(v, i, a):
            a = a * 1.0
            a[i] = v
            return a
        return f
    _compare(make, (RNG.standard_normal((3, 5)), I2, X), transform=_grad)
    _compare(lambda lib: lambda a, i: lib.index_put(a, (i,), lib.tensor(1.0, dtype=lib.float64)), (X, I2))
    _compare(lambda lib: lambda a, i: lib.index_put(a, (i,), lib.tensor(1.0, dtype=lib.float64),
                                                    accumulate=True), (X, I2))


def test_setitem_on_unbatched_self_raises_as_torch():
    def make(lib):
        def f(i):
            y = lib.zeros(4, 5)
            y[i] = 1.0
            return y
        return f
    errs = _raises_like_torch(make, (I2,), match="index_put_(self, *extra_args) is not possible")
    assert str(errs[1]) == str(errs[0])


# ------------------------------------------------------------------------------------------------
# gather / scatter / index_* / take_along_dim
# ------------------------------------------------------------------------------------------------
G = RNG.integers(0, 5, (3, 4, 2))
PERM = np.stack([np.stack([RNG.permutation(5)[:2] for _ in range(4)]) for _ in range(3)])
S = RNG.standard_normal((3, 4, 2))
OPS = {
    "gather": (lambda lib: lambda a, i: lib.gather(a, 1, i), (X, G)),
    "gather unbatched index": (lambda lib: lambda a: lib.gather(a, 1, lib.tensor([[0, 4], [1, 1]])), (X,)),
    "gather negative dim": (lambda lib: lambda a, i: a.gather(-1, i), (X, G)),
    "index_select": (lambda lib: lambda a, i: lib.index_select(a, 1, i), (X, I5)),
    "index_select unbatched": (lambda lib: lambda a: lib.index_select(a, 0, lib.tensor([3, 0])), (X,)),
    "scatter value": (lambda lib: lambda a, i: lib.scatter(a, 1, i, 2.0), (X, PERM)),
    "scatter src": (lambda lib: lambda s, i, a: lib.scatter(a, 1, i, s), (S, PERM, X)),
    "scatter_add": (lambda lib: lambda s, i, a: lib.scatter_add(a, 1, i, s), (S, G, X)),
    "scatter_reduce sum": (lambda lib: lambda s, i, a: lib.scatter_reduce(a, 1, i, s, "sum"), (S, G, X)),
    "scatter_reduce amax": (lambda lib: lambda s, i, a: lib.scatter_reduce(a, 1, i, s, "amax",
                                                                           include_self=False), (S, G, X)),
    "scatter_ on batched self": (lambda lib: lambda a, i: (a * 1.0).scatter_(1, i, 2.0), (X, PERM)),
    "index_add": (lambda lib: lambda s, i, a: lib.index_add(a, 1, i, s, alpha=2.0), (S, I5, X)),
    "index_add unbatched index": (lambda lib: lambda s, a: lib.index_add(a, 1, lib.tensor([4, 4]), s), (S, X)),
    "index_copy": (lambda lib: lambda s, i, a: lib.index_copy(a, 1, i, s), (S, np.array([[0, 3], [1, 2], [4, 0]]), X)),
    "index_fill": (lambda lib: lambda a, i: lib.index_fill(a, 1, i, -1.0), (X, I5)),
    "index_fill batched int value": (lambda lib: lambda a, v: lib.index_fill(a, 1, lib.tensor([0, 2]), v),
                                     (X, np.array([1, 2, 3]))),
    "take_along_dim": (lambda lib: lambda a, i: lib.take_along_dim(a, i, 1), (X, G)),
    "take": (lambda lib: lambda a, i: lib.take(a, i), (X, RNG.integers(-20, 20, (3, 2, 3)))),
    "take unbatched index": (lambda lib: lambda a: lib.take(a, lib.tensor([[-1, 0], [19, 3]])), (X,)),
    "take_along_dim flat": (lambda lib: lambda a, i: lib.take_along_dim(a, i), (X, RNG.integers(0, 20, (3, 6)))),
    "masked_fill batched mask": (lambda lib: lambda a, m: a.masked_fill(m, 0.5), (X, X > 0)),
    "masked_fill unbatched mask": (lambda lib: lambda a: a.masked_fill(lib.tensor([True, False, True, False, True]),
                                                                       0.5), (X,)),
    "masked_fill batched value": (lambda lib: lambda a, v: a.masked_fill(a > 0, v), (X, np.array([1.0, 2.0, 3.0]))),
    "masked_select unbatched mask": (lambda lib: lambda a: a.masked_select(lib.tensor([True, False, True, False,
                                                                                       True])), (X,)),
    "embedding batched weight": (lambda lib: lambda w: lib.nn.functional.embedding(lib.tensor([0, 3, 3]), w), (X,)),
    "embedding both batched": (lambda lib: lambda w, i: lib.nn.functional.embedding(i, w, padding_idx=1), (X, I2)),
}


@pytest.mark.parametrize("name", list(OPS))
def test_gather_scatter_values(name):
    make, args = OPS[name]
    _compare(make, args)


GRADS = ["take", "gather", "gather unbatched index", "index_select", "scatter src", "scatter_add", "scatter_reduce sum",
         "index_add", "index_copy", "take_along_dim", "masked_fill batched mask", "masked_select unbatched mask",
         "embedding both batched", "embedding batched weight"]


@pytest.mark.parametrize("name", GRADS)
def test_gather_scatter_per_sample_gradients(name):
    make, args = OPS[name]
    _compare(make, args, transform=_grad)


@pytest.mark.quick
def test_shared_input_per_sample_gradients():
    w = RNG.standard_normal((4, 5))
    _compare(lambda lib: lambda a, i: lib.gather(a, 1, i), (w, G), in_dims=(None, 0), transform=_grad)
    _compare(lambda lib: lambda s, i, a: lib.scatter_add(a, 1, i, s), (S, G, w), in_dims=(0, 0, None),
             transform=_grad)


def test_nested_gather_and_scatter():
    xs = RNG.standard_normal((2, 3, 4, 5))
    idx = RNG.integers(0, 4, (2, 3, 2, 5))
    _compare(lambda lib: lambda a, i: lib.func.vmap(lambda b, j: lib.gather(b, 0, j))(a, i), (xs, idx))
    _compare(lambda lib: lambda a, i: lib.func.vmap(lambda b, j: lib.scatter_add(b, 0, j, lib.ones_like(j, dtype=lib.float64)))(a, i), (xs, idx))


@pytest.mark.parametrize("make, args, match", [
    (lambda lib: lambda a, i: lib.gather(a, 0, i), (X, np.full((3, 2, 5), 7)), "out of bounds"),
    (lambda lib: lambda a, i: lib.gather(a, 0, i), (X, np.zeros((3, 2, 6), np.int64)), "Size does not match"),
    (lambda lib: lambda a, i: lib.gather(a, 0, i), (X, np.zeros((3, 2), np.int64)), "same number of dimensions"),
    (lambda lib: lambda a, i: lib.index_select(a, 0, i), (X, np.full((3, 2), 7)), "out of bounds"),
    (lambda lib: lambda a, i: lib.scatter(a, 0, i, 1.0), (X, np.full((3, 2, 5), 7)), "out of bounds"),
    (lambda lib: lambda a, i: lib.scatter_add(a, 0, i, lib.ones(2, 5, dtype=lib.float64)), (X, np.full((3, 2, 5), 7)),
     "out of bounds"),
    (lambda lib: lambda a, i: lib.index_add(a, 0, i, lib.ones(2, 5, dtype=lib.float64)), (X, np.full((3, 2), 7)),
     "out of bounds"),
    (lambda lib: lambda a, i: lib.index_copy(a, 0, i, lib.ones(2, 5, dtype=lib.float64)), (X, np.full((3, 2), 7)),
     "out of bounds"),
    (lambda lib: lambda a, i: lib.index_fill(a, 0, i, 1.0), (X, np.full((3, 2), 7)), "out of bounds "),
    (lambda lib: lambda a, m: a.masked_select(m), (X, X > 0), "masked_select"),
])
def test_index_errors_as_torch(make, args, match):
    errs = _raises_like_torch(make, args, match=match.strip())
    if match == "out of bounds":  # the same words (index_fill's, "out of bounds ", names torch's flattened view)
        assert str(errs[1]) == str(errs[0])


def test_in_place_scatter_on_unbatched_self_raises():
    _raises_like_torch(lambda lib: lambda i: lib.zeros(4, 5, dtype=lib.float64).scatter_(0, i, 1.0),
                       (np.zeros((3, 2, 5), np.int64),), match="is not possible")


def test_outside_vmap_unchanged():
    for lib in (torch, nt):
        with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 0 with size 4"):
            lib.tensor(X[0])[lib.tensor([0, 9])]
        with pytest.raises(RuntimeError, match="index 7 is out of bounds for dimension 0 with size 4"):
            lib.gather(lib.tensor(X[0]), 0, lib.full((2, 5), 7))


# ------------------------------------------------------------------------------------------------
# custom autograd.Function
# ------------------------------------------------------------------------------------------------
def _functions(lib):
    class MulSin(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x, w):
            return (x * w).sin()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            c = (x * w).cos()
            return g * c * w, g * c * x

    class Cube(lib.autograd.Function):
        calls = []

        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            return 3 * g * ctx.saved_tensors[0] ** 2

        @staticmethod
        def vmap(info, in_dims, x):
            Cube.calls.append((info.batch_size, info.randomness, in_dims, tuple(x.shape)))
            return x ** 3 + 1 - 1, in_dims[0]

    class CtxStyle(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class BadRule(Cube):
        @staticmethod
        def vmap(info, in_dims, x):
            return x ** 3

    return MulSin, Cube, CtxStyle, BadRule


W3 = RNG.standard_normal(3)
X43 = RNG.standard_normal((4, 3))


@pytest.mark.quick
def test_generate_vmap_rule_forward_and_per_sample_gradients():
    _compare(lambda lib: _functions(lib)[0].apply, (X43, W3), in_dims=(0, None))
    for argnums in (0, 1, (0, 1)):
        def make(lib, argnums=argnums):
            f = _functions(lib)[0]
            return lib.func.grad(lambda x, w: f.apply(x, w).sum(), argnums=argnums)
        want = torch.func.vmap(make(torch), in_dims=(0, None))(torch.tensor(X43), torch.tensor(W3))
        got = nt.func.vmap(make(nt), in_dims=(0, None))(nt.tensor(X43), nt.tensor(W3))
        for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)


def test_generate_vmap_rule_backward_after_vmap():
    grads = []
    for lib in (torch, nt):
        x = lib.tensor(X43, requires_grad=True)
        lib.func.vmap(_functions(lib)[0].apply, in_dims=(0, None))(x, lib.tensor(W3)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)


def test_vmap_staticmethod_called_as_torch():
    calls = {}
    for lib in (torch, nt):
        cube = _functions(lib)[1]
        out = lib.func.vmap(cube.apply)(lib.tensor(X43))
        np.testing.assert_allclose(out.numpy(), X43 ** 3, rtol=1e-6)
        g = lib.func.vmap(lib.func.grad(lambda v: cube.apply(v).sum()))(lib.tensor(X43))
        np.testing.assert_allclose(g.numpy(), 3 * X43 ** 2, rtol=1e-6)
        nested = lib.func.vmap(lib.func.vmap(cube.apply))(lib.tensor(X43[None].repeat(2, 0)))
        assert tuple(nested.shape) == (2, 4, 3)
        calls[lib] = cube.calls
    assert calls[nt] == calls[torch]


def test_custom_function_vmap_errors_as_torch():
    for k, match in ((2, "must override the setup_context"), (3, "Expected the vmap staticmethod to have two returns")):
        _raises_like_torch(lambda lib: _functions(lib)[k].apply, (X43,), match=match)


# ------------------------------------------------------------------------------------------------
# zero_ / fill_ under vmap
# ------------------------------------------------------------------------------------------------
def test_zero_and_fill_under_vmap():
    _compare(lambda lib: lambda a: a.clone().zero_() + a, (X,))
    _compare(lambda lib: lambda a: a.clone().fill_(2.5), (X,))
    _compare(lambda lib: lambda a, v: a.clone().fill_(v), (X, np.array([1.0, 2.0, 3.0])))
    _compare(lambda lib: lambda a: lib.zeros(4, 5, dtype=lib.float64).fill_(3.0) * a, (X,))
    _raises_like_torch(lambda lib: lambda v: lib.zeros(4, dtype=lib.float64).fill_(v), (np.array([1.0, 2.0]),),
                       match="is not possible")


# ------------------------------------------------------------------------------------------------
# in-place writes to captured tensors inside grad / vjp / jvp
# ------------------------------------------------------------------------------------------------
def _capture_case(kind):
    def run(lib):
        y = lib.zeros(3)
        writes = {"add_": lambda x: y.add_(x), "add_ scalar": lambda x: y.add_(1.0), "copy_": lambda x: y.copy_(x),
                  "setitem": lambda x: y.__setitem__(0, x[0]), "zero_": lambda x: y.zero_(),
                  "fill_": lambda x: y.fill_(1.0), "sin_": lambda x: y.sin_(), "view mul_": lambda x: y[:2].mul_(2)}

        def f(x):
            writes[kind](x)
            return (y * x).sum()
        return lib.func.grad(f)(lib.ones(3))
    return run


@pytest.mark.parametrize("kind", ["add_", "add_ scalar", "copy_", "setitem", "zero_", "fill_", "sin_", "view mul_"])
def test_writing_a_captured_tensor_in_grad_raises_as_torch(kind):
    errs = []
    for lib in (torch, nt):
        with pytest.raises(RuntimeError, match="would mutate a captured Tensor") as info:
            _capture_case(kind)(lib)
        errs.append(str(info.value))
    assert errs[1] == errs[0]


def test_captured_writes_in_vjp_jvp_and_allowed_writes():
    for lib in (torch, nt):
        y = lib.zeros(3)

        def f(x):
            y.add_(x)
            return (y * x).sum()
        with pytest.raises(RuntimeError, match="would mutate a captured Tensor"):
            lib.func.vjp(f, lib.ones(3))
        with pytest.raises(RuntimeError, match="would mutate a captured Tensor"):
            lib.func.jvp(f, (lib.ones(3),), (lib.ones(3),))

        def g(x, buf):  # a tensor made inside, and one passed as an argument, may be written
            z = lib.zeros(3)
            z.add_(x)
            buf.add_(1.0)
            return (z * x).sum()
        buf = lib.zeros(3)
        np.testing.assert_allclose(lib.func.grad(g)(lib.ones(3), buf).numpy(), 2 * np.ones(3))
        y.add_(1.0)  # outside the transform: allowed


def test_amax_max_of_tensors_without_grad_under_vmap():
    _compare(lambda lib: lambda a: a.amax(0), (X,))
    _compare(lambda lib: lambda a: a.max(), (X,))
    _compare(lambda lib: lambda a: a.amin((0, 1)) + a.min(), (X,))
    _compare(lambda lib: lambda a: a.amax(), (np.arange(12).reshape(3, 4),))


def test_embedding_out_of_range_under_vmap_raises_index_error():
    # torch checks unbatched indices of a batched weight; numtorch checks batched indices too (torch 2.13
    # gives no error there)
    _raises_like_torch(lambda lib: lambda w: lib.nn.functional.embedding(lib.tensor([0, 9]), w), (X,),
                       match="index out of range in self")
    bad = nt.tensor([[0, 4], [1, 1], [2, 2]])
    with pytest.raises(IndexError, match="index out of range in self"):
        nt.func.vmap(lambda i: nt.nn.functional.embedding(i, nt.tensor(X[0])))(bad)
    with pytest.raises(IndexError, match="index out of range in self"):
        nt.func.vmap(lambda w, i: nt.nn.functional.embedding(i, w))(nt.tensor(X), bad)
    _compare(lambda lib: lambda i: lib.nn.functional.embedding(i, lib.tensor(X[0]), scale_grad_by_freq=True), (I2,))


def test_in_place_op_with_a_batched_argument_that_requires_grad():
    # regression: vmap's in-place hook saw a BatchedTensor argument as not requiring grad, so
    # ``y.add_(v)`` on a tensor without grad dropped v's gradient
    def make(lib):
        def f(v):
            y = lib.zeros(5, dtype=lib.float64) * v[0].detach()
            y.add_(v * 2)
            y[1] = v[0] * 3
            return (y ** 2).sum()
        return lib.func.grad(f)
    _compare(make, (X[:, 0],))


S2 = RNG.standard_normal((3, 2, 5))
INPLACE = {
    "index_add_": lambda lib: lambda a, j, s: (a * 1).index_add_(0, j, s),
    "index_copy_": lambda lib: lambda a, j, s: (a * 1).index_copy_(0, j, s),
    "index_put_": lambda lib: lambda a, j, s: (a * 1).index_put_((j,), s, accumulate=True),
    "masked_fill_": lambda lib: lambda a, j, s: (a * 1).masked_fill_(a > 0, 0.0) + s.sum(),
    "scatter_add_": lambda lib: lambda a, j, s: (a * 1).scatter_add_(0, j[:, None].expand(2, 5), s),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_in_place_forms_per_sample_gradients(name):
    def transform(lib, f):
        return lib.func.grad(lambda a, j, s: (f(a, j, s) ** 2).sum(), argnums=(0, 2))
    want = _run(torch, INPLACE[name], (X, np.array([[0, 2], [1, 1], [3, 0]]), S2), 0, transform)
    got = _run(nt, INPLACE[name], (X, np.array([[0, 2], [1, 1], [3, 0]]), S2), 0, transform)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6, atol=1e-9)
