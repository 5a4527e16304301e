"""numtorch.func.vmap against torch.func.vmap: batching rules (values, dtypes, shapes), in_dims/out_dims,
nested vmap, pytrees, chunk_size, the loop fallback and its warning, randomness modes, PyTorch's errors,
and per-sample gradients (vmap of a grad) of a small CNN."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from torch.func import vmap as tvmap

import numtorch as nt
import numtorch.nn.functional as F
from numtorch import autograd
from numtorch.func import vmap
from numtorch.func._batched import is_batched, lift_inputs, physical_grad


def _pair(*shapes, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal(s).astype(dtype) for s in shapes]
    return [nt.tensor(a) for a in arrs], [torch.tensor(a) for a in arrs]


def _same(a, b, tol=1e-5):
    if isinstance(b, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, tol)
        return
    assert not is_batched(a)
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype) == str(b.dtype)
    np.testing.assert_allclose(a.detach().numpy().astype(np.float64), b.detach().numpy().astype(np.float64),
                               rtol=tol, atol=tol)


def _check(f_nt, f_t, shapes, in_dims=0, out_dims=0, **kw):
    ns, ts = _pair(*shapes)
    _same(vmap(f_nt, in_dims, out_dims, **kw)(*ns), tvmap(f_t, in_dims, out_dims, **kw)(*ts))


# ------------------------------------------------------------------------------------------------
# rules, each against torch
# ------------------------------------------------------------------------------------------------
UNARY = ["exp", "log1p", "sin", "tanh", "sigmoid", "relu", "neg", "abs", "sqrt", "floor", "square"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("in_dims", [0, 1, -1])
def test_unary(name, in_dims):
    fn = (lambda m: lambda x: getattr(m, name)(x.abs() if name == "sqrt" else x))
    _check(fn(nt), fn(torch), [(3, 4, 5)], in_dims)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "atan2", "pow"])
@pytest.mark.parametrize("in_dims,shapes", [((0, 0), [(4, 3), (4, 3)]), ((0, None), [(4, 2, 3), (3,)]),
                                            ((None, 1), [(2, 3), (3, 4)]), ((1, 0), [(2, 4, 3), (4, 1)]),
                                            ((0, 0), [(4,), (4, 2, 3)])])
def test_binary(op, in_dims, shapes):
    def fn(m):
        def f(a, b):
            if op == "pow":
                return getattr(m, op)(a.abs() + 0.5, b)
            return getattr(m, op)(a, b)
        return f
    _check(fn(nt), fn(torch), shapes, in_dims)


def test_scalar_ops_where_clamp_activations():
    for m_f in [lambda m, x: x * 3 - 1 / (x.abs() + 1), lambda m, x: m.where(x > 0, x, -x * 2),
                lambda m, x: m.clamp(x, -0.5, 0.5), lambda m, x: m.nn.functional.gelu(x),
                lambda m, x: m.nn.functional.leaky_relu(x, 0.1), lambda m, x: m.nn.functional.silu(x),
                lambda m, x: x.to(m.float64), lambda m, x: x.clone()]:
        _check(lambda x: m_f(nt, x), lambda x: m_f(torch, x), [(3, 4, 5)], 1)


@pytest.mark.parametrize("fn", [lambda m, x: x.sum(), lambda m, x: x.sum(0), lambda m, x: x.sum(-1, keepdim=True),
                                lambda m, x: x.mean((0, 1)), lambda m, x: x.var(1),
                                lambda m, x: x.amax(-1),
                                lambda m, x: x.max(0).values, lambda m, x: m.logsumexp(x, 1),
                                lambda m, x: x.prod(1), lambda m, x: m.softmax(x, 1),
                                lambda m, x: m.log_softmax(x, -1), lambda m, x: x.norm(dim=1)])
@pytest.mark.parametrize("in_dims", [0, 2])
def test_reductions_softmax(fn, in_dims):
    _check(lambda x: fn(nt, x), lambda x: fn(torch, x), [(3, 4, 5)], in_dims)


@pytest.mark.parametrize("fn", [lambda m, x: x.view(20), lambda m, x: x.reshape(2, 10), lambda m, x: x.flatten(),
                                lambda m, x: x.permute(1, 0), lambda m, x: x.transpose(0, 1), lambda m, x: x.t(),
                                lambda m, x: x.unsqueeze(0), lambda m, x: x.unsqueeze(-1).squeeze(-1),
                                lambda m, x: x[None].expand(3, 4, 5).unsqueeze(0).expand(2, 3, 4, 5),
                                lambda m, x: x.flip(1),
                                lambda m, x: x[1], lambda m, x: x[:, 1:3], lambda m, x: x.select(1, 2),
                                lambda m, x: m.cat([x, x * 2], 1), lambda m, x: m.stack([x, x], 0),
                                lambda m, x: x.split(2, 1), lambda m, x: x.unbind(0),
                                lambda m, x: x.movedim(0, 1), lambda m, x: x[None, ..., 1:],
                                lambda m, x: x[-1, None, ::2]])
def test_shape_ops(fn):
    _check(lambda x: fn(nt, x), lambda x: fn(torch, x), [(3, 4, 5)], 0)


@pytest.mark.parametrize("shapes,in_dims", [([(3, 4, 5), (3, 5, 2)], 0), ([(3, 5), (3, 5, 2)], 0),
                                            ([(3, 4, 5), (5,)], (0, None)), ([(4, 5), (3, 5)], (None, 0)),
                                            ([(3, 5), (3, 5)], 0), ([(2, 4, 5), (3, 5, 2)], (None, 0)),
                                            ([(3, 2, 4, 5), (5, 2)], (0, None))])
def test_matmul(shapes, in_dims):
    _check(lambda a, b: a @ b, lambda a, b: a @ b, shapes, in_dims)


@pytest.mark.parametrize("in_dims", [(0, None, None), (0, 0, 0), (None, 0, 0), (0, 0, None), (1, 0, None)])
def test_linear(in_dims):
    shapes = [(2, 3, 5) if in_dims[0] == 1 else (3, 5), (3, 4, 5) if in_dims[1] == 0 else (4, 5),
              (3, 4) if in_dims[2] == 0 else (4,)]
    if in_dims[0] is None:
        shapes[0] = (2, 5)
    _check(F.linear, TF.linear, shapes, in_dims)


@pytest.mark.parametrize("in_dims", [(0, None, None), (0, 0, 0), (None, 0, 0), (0, 0, None)])
@pytest.mark.parametrize("xrank", [3, 4])
def test_conv2d(in_dims, xrank):
    x = (3, 2, 6, 6) if xrank == 3 else (3, 2, 2, 6, 6)
    if in_dims[0] is None:
        x = x[1:]
    w = (3, 4, 2, 3, 3) if in_dims[1] == 0 else (4, 2, 3, 3)
    b = (3, 4) if in_dims[2] == 0 else (4,)
    _check(lambda x, w, b: F.conv2d(x, w, b, padding=1), lambda x, w, b: TF.conv2d(x, w, b, padding=1),
           [x, w, b], in_dims)


def test_conv2d_groups_stride():
    _check(lambda x, w: F.conv2d(x, w, stride=2, groups=2), lambda x, w: TF.conv2d(x, w, stride=2, groups=2),
           [(3, 1, 4, 7, 7), (3, 6, 2, 3, 3)], 0)


@pytest.mark.parametrize("fn", [lambda m, x: m.nn.functional.max_pool2d(x, 2),
                                lambda m, x: m.nn.functional.max_pool2d(x, 3, 1, 1),
                                lambda m, x: m.nn.functional.avg_pool2d(x, 2),
                                lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, 1),
                                lambda m, x: m.nn.functional.max_pool1d(x[0], 2)])
@pytest.mark.parametrize("shape", [(3, 2, 4, 6, 6), (3, 4, 6, 6)])
def test_pooling(fn, shape):
    _check(lambda x: fn(nt, x), lambda x: fn(torch, x), [shape], 0)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("in_dims", [(0, 0), (0, None), (None, 0)])
def test_cross_entropy(reduction, in_dims):
    xs = (4, 5, 3) if in_dims[0] == 0 else (5, 3)
    ts = (4, 5) if in_dims[1] == 0 else (5,)
    x = np.random.default_rng(1).standard_normal(xs).astype(np.float32)
    t = np.random.default_rng(2).integers(0, 3, ts)
    t.flat[0] = -100 if reduction == "mean" else 0
    r = vmap(lambda a, b: F.cross_entropy(a, b, reduction=reduction), in_dims)(nt.tensor(x), nt.tensor(t))
    e = tvmap(lambda a, b: TF.cross_entropy(a, b, reduction=reduction), in_dims)(torch.tensor(x), torch.tensor(t))
    _same(r, e)


@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_class_loss_bounds_and_nll(fn):
    x = np.random.default_rng(1).standard_normal((4, 5, 3)).astype(np.float32)
    t = np.random.default_rng(2).integers(0, 3, (4, 5))
    f = lambda m: lambda a, b: getattr(m.nn.functional, fn)(a, b)  # noqa: E731
    _same(vmap(f(nt))(nt.tensor(x), nt.tensor(t)), tvmap(f(torch))(torch.tensor(x), torch.tensor(t)))
    t[2, 1] = 3
    # PyTorch raises for a bad target under vmap too, but from its gather ("RuntimeError: index 3 is out of
    # bounds for dimension 2 with size 3"); numtorch raises its unbatched error ("Target 3 is out of bounds.")
    with pytest.raises(RuntimeError, match="out of bounds"):
        tvmap(f(torch))(torch.tensor(x), torch.tensor(t))
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        vmap(f(nt))(nt.tensor(x), nt.tensor(t))


def test_layer_norm_embedding():
    _check(lambda x, w, b: F.layer_norm(x, (5,), w, b), lambda x, w, b: TF.layer_norm(x, (5,), w, b),
           [(3, 4, 5), (5,), (5,)], (0, None, None))


def test_embedding():
    w = np.random.default_rng(0).standard_normal((7, 3)).astype(np.float32)
    idx = np.random.default_rng(0).integers(0, 7, (4, 2))
    _same(vmap(F.embedding, (0, None))(nt.tensor(idx), nt.tensor(w)),
          tvmap(TF.embedding, (0, None))(torch.tensor(idx), torch.tensor(w)))
    with pytest.raises(IndexError, match="index out of range in self"):
        vmap(F.embedding, (0, None))(nt.tensor(idx + 7), nt.tensor(w))


# ------------------------------------------------------------------------------------------------
# in_dims / out_dims / pytrees / nesting / chunks
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("out_dims", [0, 1, -1, 2])
def test_out_dims(out_dims):
    _check(lambda x: x.sin(), lambda x: x.sin(), [(3, 4, 5)], 1, out_dims)


def test_pytrees():
    (a, b), (ta, tb) = _pair((3, 4), (4, 3))

    def f(m):
        return lambda d, lst: {"s": d["x"] + lst[0], "p": (d["x"] * 2, lst[1].sum())}
    r = vmap(f(nt), in_dims=({"x": 0}, [0, 1]), out_dims={"s": 1, "p": (0, 0)})({"x": a}, [a, b])
    e = tvmap(f(torch), in_dims=({"x": 0}, [0, 1]), out_dims={"s": 1, "p": (0, 0)})({"x": ta}, [ta, tb])
    _same(r["s"], e["s"])
    _same(list(r["p"]), list(e["p"]))


def test_unbatched_output_and_non_tensor_passthrough():
    _check(lambda x, y: (x * 0 + y, y), lambda x, y: (x * 0 + y, y), [(3, 4), (4,)], (0, None))
    r = vmap(lambda x, n: x * n, in_dims=(0, None))(nt.ones(3, 2), 5)
    _same(r, torch.ones(3, 2) * 5)


@pytest.mark.parametrize("dims", [(0, 0), (1, 0), (0, 1)])
def test_nested(dims):
    def f(m):
        return lambda x, y: (x @ y).relu().sum(-1) + m.softmax(x, -1).mean()
    ns, ts = _pair((3, 4, 2, 5), (4, 5, 2))
    r = vmap(vmap(f(nt), in_dims=(dims[1], None)), in_dims=(dims[0], None))(ns[0], ns[1][0])
    e = tvmap(tvmap(f(torch), in_dims=(dims[1], None)), in_dims=(dims[0], None))(ts[0], ts[1][0])
    _same(r, e)
    r = vmap(vmap(lambda x, y: x * y, in_dims=(0, None)), in_dims=(None, 0))(ns[0][0, 0], ns[1][:, :, 0])
    e = tvmap(tvmap(lambda x, y: x * y, in_dims=(0, None)), in_dims=(None, 0))(ts[0][0, 0], ts[1][:, :, 0])
    _same(r, e)


@pytest.mark.parametrize("chunk", [1, 2, 5, None])
def test_chunk_size(chunk):
    _check(lambda x: x.exp().sum(0), lambda x: x.exp().sum(0), [(5, 3, 2)], 1, 1, chunk_size=chunk)


def test_inplace_on_batched():
    def f(x, y):
        z = x.clone()
        z.mul_(y)
        return z.add_(1)
    _check(f, f, [(3, 4), (4,)], (0, None))
    _check(f, f, [(3, 4), (3, 4)], 0)


# ------------------------------------------------------------------------------------------------
# fallback
# ------------------------------------------------------------------------------------------------
def test_fallback_values_and_warning():
    from numtorch.func import _batched
    f_nt = lambda x: nt.trace(x) * nt.kron(x, x).sum()  # noqa: E731  (no rules for trace/kron)
    f_t = lambda x: torch.trace(x) * torch.kron(x, x).sum()  # noqa: E731
    _batched._WARNED.clear()
    ns, ts = _pair((3, 4, 5))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = vmap(f_nt, 1)(ns[0])
        vmap(f_nt, 1)(ns[0])
    msgs = [str(i.message) for i in w if "performance drop" in str(i.message)]
    assert msgs and len(msgs) == len(set(msgs))  # once per op
    assert msgs[0].startswith("There is a performance drop because we have not yet implemented the batching rule")
    _same(r, tvmap(f_t, 1)(ts[0]))


# ------------------------------------------------------------------------------------------------
# randomness
# ------------------------------------------------------------------------------------------------
def test_randomness():
    x = nt.ones(3, 4)
    for fn in [lambda t: nt.rand(4) + t, lambda t: nt.rand_like(t), lambda t: F.dropout(t, 0.5)]:
        with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
            vmap(fn)(x)
        with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
            tvmap(lambda t: torch.rand(4) + t)(torch.ones(3, 4))
        r = vmap(fn, randomness="same")(x)
        assert tuple(r.shape) == (3, 4)
        assert (r.numpy() == r.numpy()[:1]).all()  # one draw shared by the batch
        r = vmap(fn, randomness="different")(x)  # one draw per sample (tests/test_vmap_rules_nn.py)
        assert tuple(r.shape) == (3, 4) and not (r.numpy() == r.numpy()[:1]).all()
    with pytest.raises(RuntimeError, match="Only allowed values for randomness are"):
        vmap(lambda t: t, randomness="foo")


# ------------------------------------------------------------------------------------------------
# errors, each with torch's type and message
# ------------------------------------------------------------------------------------------------
def _err(f_nt, f_t, args_nt, args_t):
    with pytest.raises(Exception) as et:
        f_t(*args_t)
    with pytest.raises(type(et.value)) as en:
        f_nt(*args_nt)
    return str(en.value), str(et.value)


ERRS = [
    lambda m, V: (V(lambda t: t.item()), [m.ones(3, 4)]),
    lambda m, V: (V(lambda t: bool(t.sum() > 0)), [m.ones(3, 4)]),
    lambda m, V: (V(lambda t, u: t + u), [m.ones(3, 4), m.ones(4, 4)]),
    lambda m, V: (V(lambda t: t), [1.0]),
    lambda m, V: (V(lambda t: t, in_dims=2), [m.ones(3, 4)]),
    lambda m, V: (V(lambda t: t, in_dims="a"), [m.ones(3, 4)]),
    lambda m, V: (V(lambda t: 1.0), [m.ones(3, 4)]),
    lambda m, V: (V(lambda t, u: u.mul_(t), in_dims=(0, None)), [m.ones(3, 4), m.ones(4)]),
    lambda m, V: (V(lambda t: t, in_dims=None), [m.ones(3, 4)]),
    lambda m, V: (V(lambda t, u: t, in_dims=(None, None)), [m.ones(3, 4), m.ones(3)]),
    lambda m, V: (lambda: V(lambda t: t)(), []),
]


@pytest.mark.parametrize("i", range(len(ERRS)))
def test_errors(i):
    fn, a = ERRS[i](nt, vmap)
    tfn, ta = ERRS[i](torch, tvmap)
    mn, mt = _err(fn, tfn, a, ta)
    if "structure" not in mt:
        assert mn == mt.replace("wrapped", "<lambda>") or mn.split(":")[0] == mt.split(":")[0]
    else:
        assert mn.split("`inputs`.")[0] == mt.split("`inputs`.")[0]


def test_chunk_size_error_and_escape():
    with pytest.raises(ValueError, match=r"vmap: chunk_size should be None or greater than 0. \(got 0\)"):
        vmap(lambda t: t, chunk_size=0)
    esc = []
    vmap(lambda t: esc.append(t) or t)(nt.ones(3, 4))
    with pytest.raises(RuntimeError):
        esc[0] + 1


# ------------------------------------------------------------------------------------------------
# vmap(grad(f)): per-sample gradients
# ------------------------------------------------------------------------------------------------
def local_grad(f, argnums=0):
    """A minimal func.grad for these tests, built the way func.grad is wired to vmap: ``lift_inputs``
    on the differentiated arguments (unbatched ones get a per-sample row), then ``physical_grad``
    around ``autograd.grad`` (physical tensors in, per-sample gradients wrapped out)."""
    def g(*args):
        nums = (argnums,) if isinstance(argnums, int) else argnums
        args = list(args)
        for i in nums:
            x = args[i]
            x = tuple(v if is_batched(v) else v.detach().requires_grad_(True) for v in x) \
                if isinstance(x, tuple) else (x if is_batched(x) else x.detach().requires_grad_(True))
            args[i] = lift_inputs((x,))[0]
        with nt.enable_grad():
            out = f(*args)
        ins = [t for i in nums for t in (args[i] if isinstance(args[i], tuple) else (args[i],))]
        grads = iter(physical_grad(autograd.grad, [out], ins))
        res = [tuple(next(grads) for _ in args[i]) if isinstance(args[i], tuple) else next(grads) for i in nums]
        return res[0] if isinstance(argnums, int) else tuple(res)
    return g


def _cnn(m, F_):
    def loss(params, x, y):
        w1, b1, w2, b2 = params
        h = F_.relu(F_.conv2d(x.unsqueeze(0), w1, b1, padding=1))
        h = F_.max_pool2d(h, 2).flatten(1)
        return F_.cross_entropy(F_.linear(h, w2, b2), y.unsqueeze(0))
    return loss


def test_per_sample_grads_cnn():
    rng = np.random.default_rng(0)
    shapes = [(4, 1, 3, 3), (4,), (3, 4 * 4 * 4), (3,)]
    params = [rng.standard_normal(s).astype(np.float32) * 0.3 for s in shapes]
    x = rng.standard_normal((6, 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 3, 6)
    r = vmap(local_grad(_cnn(nt, F)), in_dims=(None, 0, 0))(tuple(nt.tensor(p) for p in params), nt.tensor(x),
                                                            nt.tensor(y))
    e = tvmap(torch.func.grad(_cnn(torch, TF)), in_dims=(None, 0, 0))(tuple(torch.tensor(p) for p in params),
                                                                     torch.tensor(x), torch.tensor(y))
    _same(list(r), list(e), tol=1e-4)
    for p in params:  # the inputs are left alone
        assert p.dtype == np.float32


def test_grad_of_batched_input():
    ns, ts = _pair((4, 3), (3,))
    r = vmap(local_grad(lambda x, w: (x * w).sin().sum()), in_dims=(0, None))(ns[0], ns[1])
    e = tvmap(torch.func.grad(lambda x, w: (x * w).sin().sum()), in_dims=(0, None))(ts[0], ts[1])
    _same(r, e)


def test_batched_tensor_metadata():
    def f(x):
        assert tuple(x.shape) == (4, 5) and x.dim() == 2 and x.numel() == 20 and len(x) == 4 and x.size(-1) == 5
        d = x.detach()
        assert is_batched(d) and not d.requires_grad and tuple(d.shape) == (4, 5)
        return d * 2
    _same(vmap(f, in_dims=1)(nt.ones(4, 3, 5)), torch.ones(3, 4, 5) * 2)


def test_op_overhead_unchanged_outside_vmap():
    # outside vmap the only new work in Op.apply is one read of a thread-local flag
    from numtorch.autograd.grad_mode import _State
    assert _State.vmap == 0
    x = nt.ones(2, requires_grad=True)
    assert (x * 2).grad_fn.name() == "MulBackward0"


def test_nested_vmap_of_grad():
    ns, ts = _pair((2, 3, 4), (4,))
    f = lambda m: lambda x, w: (x * w).tanh().sum()  # noqa: E731
    r = vmap(vmap(local_grad(f(nt), argnums=1), in_dims=(0, None)), in_dims=(0, None))(ns[0], ns[1])
    e = tvmap(tvmap(torch.func.grad(f(torch), argnums=1), in_dims=(0, None)), in_dims=(0, None))(ts[0], ts[1])
    _same(r, e)


def test_vmap_of_jvp_and_jacfwd_are_per_sample():
    # regression: jvp's zero cotangent (zeros_like) was unbatched under vmap, so the gradient with
    # respect to it summed the samples' jvps (every row got the batch's sum)
    (xn, wn), (xt, wt) = _pair((4, 3), (3,), dtype=np.float64)
    for lib, x, w in ((torch, xt, wt), (nt, xn, wn)):
        f = lambda v: lib.sin(v) * w  # noqa: E731
        one = lib.ones(3, dtype=lib.float64)
        got = (lib.func.vmap(lambda v: lib.func.jvp(f, (v,), (one,))[1])(x),
               lib.func.vmap(lambda v: lib.func.jvp(f, (v,), (v,))[1])(x),
               lib.func.vmap(lib.func.jacfwd(f))(x),
               lib.func.vmap(lib.func.hessian(lambda v: f(v).sum()))(x))
        if lib is torch:
            want = got
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.detach().numpy(), b.numpy(), rtol=1e-12, atol=1e-12)


def test_setitem_on_batched_tensor():
    # regression: b[idx] = v wrote into a batched tensor's shape stand-in (RuntimeError "more than one
    # element ... refers to a single memory location") instead of its physical data
    def cases(lib):
        def put(a, c):
            b = a.clone()
            b[0] = 5.0
            b[1:] = c[:2]
            b[..., -1:] *= 2.0
            return b
        x = lib.arange(12.0).reshape(4, 3)
        return (lib.func.vmap(put)(x, x + 10), lib.func.vmap(put, in_dims=(1, None))(x.T.contiguous(), x[0]),
                lib.func.vmap(lib.func.grad(lambda a: (put(a, a * a) ** 2).sum()))(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numtorch: the loop fallback's performance warning
        got = cases(nt)
    for a, b in zip(got, cases(torch)):
        np.testing.assert_allclose(a.numpy(), b.numpy())


def test_vmap_of_transform_keeps_no_graph_of_its_own():
    # regression: vmap(grad(f))(x) and vmap(jacfwd(f))(x) returned tensors requiring grad (a graph to
    # the transform's own lifted leaves); as PyTorch, only a graph reaching the caller's tensors stays
    for lib in (torch, nt):
        x = lib.arange(6.0).reshape(2, 3)
        w = lib.ones(3, requires_grad=True)
        assert not lib.func.vmap(lib.func.grad(lambda a: (a ** 2).sum()))(x).requires_grad
        assert not lib.func.vmap(lib.func.jacfwd(lib.sin))(x).requires_grad
        r = lib.func.vmap(lib.func.grad(lambda a: (a ** 2 * w).sum()))(x)
        r.sum().backward()
        np.testing.assert_allclose(w.grad.numpy(), (2 * x).sum(0).numpy())


def test_custom_function_under_vmap():
    # regression: vmap over a custom Function ran without a check, and vmap(grad(...)) through it gave
    # zero gradients silently. Now: PyTorch's RuntimeError without vmap support; with
    # generate_vmap_rule the forward batches and gradients flow through it per sample (as torch)
    def square(lib, gen):
        class Sq(lib.autograd.Function):
            generate_vmap_rule = gen

            @staticmethod
            def forward(x):
                return x ** 2

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(inputs[0])

            @staticmethod
            def backward(ctx, g):
                return g * 2 * ctx.saved_tensors[0]
        return Sq
    x = [[1.0, 2.0], [3.0, 4.0]]
    for lib in (torch, nt):
        with pytest.raises(RuntimeError, match="does not have vmap support"):
            lib.func.vmap(square(lib, False).apply)(lib.tensor(x))
    np.testing.assert_allclose(vmap(square(nt, True).apply)(nt.tensor(x)).numpy(),
                               tvmap(square(torch, True).apply)(torch.tensor(x)).numpy())
    got = vmap(nt.func.grad(lambda v: square(nt, True).apply(v).sum()))(nt.tensor(x))
    want = tvmap(torch.func.grad(lambda v: square(torch, True).apply(v).sum()))(torch.tensor(x))
    np.testing.assert_allclose(got.numpy(), want.numpy())


@pytest.mark.parametrize("make", ["tensor", "new_tensor"])
def test_copy_constructing_a_batched_tensor_raises_as_torch(make):
    """torch.tensor(v) / v.new_tensor(v) inside vmap: torch raises RuntimeError; numtorch must not return
    the zeros of the memoryless stand-in."""
    for lib in (torch, nt):
        f = (lambda v: lib.tensor(v) * 2) if make == "tensor" else (lambda v: v.new_tensor(v) * 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError, match="Can't detach views in-place"):
                lib.func.vmap(f)(lib.arange(6.).reshape(2, 3))


def test_like_factories_and_fill_zero_are_batched_as_torch():
    """``*_like`` of a batched tensor gives one tensor per sample, and ``fill_``/``zero_`` write every
    sample, as under torch.func.vmap (values, dtypes, shapes; nested vmap too)."""
    def programs(lib):
        v = lib.func.vmap
        return [lambda x: v(lambda a: lib.zeros_like(a).add_(a))(x),
                lambda x: v(lambda a: lib.ones_like(a) * a)(x),
                lambda x: v(lambda a: lib.full_like(a, 3.0).sub_(a))(x),
                lambda x: v(lambda a: lib.empty_like(a).fill_(2.0) + a)(x),
                lambda x: v(lambda a: lib.zeros_like(a, dtype=lib.int64))(x),
                lambda x: v(v(lambda a: lib.ones_like(a).mul_(a)))(x),
                lambda x: v(lambda a: a.clone().zero_() + 1)(x),
                lambda x: v(lambda a: lib.zeros(3).fill_(1.0) + a)(x)]
    xs = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for ft, fn in zip(programs(torch), programs(nt)):
            a, b = ft(torch.tensor(xs)), fn(nt.tensor(xs))
            assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
            np.testing.assert_array_equal(a.numpy(), b.numpy())
