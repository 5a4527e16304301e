"""Issue #16, items 3 (zero-dimensional tensors, result dtypes, semantics), 6 and 7: one differential check
against torch per bullet that was still open (values, dtypes, shapes, gradients, grad_fn names, exception
types)."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt

LIBS = (ref, nt)


def _np(t):
    return None if t is None else t.detach().numpy()


def _same(a, b, rtol=1e-7, atol=1e-9):
    """Values, dtype and shape of a numtorch result ``a`` and a torch result ``b``."""
    assert str(a.dtype) == str(b.dtype), (a.dtype, b.dtype)
    assert tuple(a.shape) == tuple(b.shape), (tuple(a.shape), tuple(b.shape))
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol, equal_nan=True)


def _both(fn, *arrays, grad=True):
    """``fn(T, *tensors)`` on torch and numtorch from the same float64 arrays; returns ((out, grads), ...)."""
    res = []
    for T in LIBS:
        xs = [T.tensor(a, requires_grad=grad and np.asarray(a).dtype.kind == "f") for a in arrays]
        out = fn(T, *xs)
        leaves = [x for x in xs if x.requires_grad]
        gs = T.autograd.grad(out.sum(), leaves, allow_unused=True) if leaves and out.requires_grad else []
        res.append((out, gs))
    return res


def _raises_alike(fn):
    """torch and numtorch raise the same exception type (or neither raises); returns it."""
    kinds = []
    for T in LIBS:
        try:
            fn(T)
            kinds.append(None)
        except Exception as e:  # noqa: BLE001
            kinds.append(type(e))
    assert kinds[0] == kinds[1], f"torch {kinds[0]}, numtorch {kinds[1]}"
    return kinds[0]


# ------------------------------------------------------------------------------------------------------
# cross_entropy / nll_loss: grad_fn names (item 6) and ignored rows when "mean" divides by zero
# ------------------------------------------------------------------------------------------------------
@pytest.mark.quick
@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 4), (2, 3, 4, 2), (2, 3, 2, 2, 2), (0, 3), (0, 3, 4), (2, 3, 0), (0, 0), (0, 0, 2), (2, 0, 0)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_and_nll_grad_fn_names_match_torch(shape, reduction):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    t = rng.integers(0, 3, shape[:1] + shape[2:] if len(shape) > 1 else ())
    p = rng.random(shape)
    names = []
    for T in LIBS:
        F, xt = T.nn.functional, T.tensor(x, requires_grad=True)
        outs = [F.cross_entropy(xt, T.tensor(t), reduction=reduction),
                F.cross_entropy(xt, T.tensor(t), reduction=reduction, label_smoothing=0.1),
                F.nll_loss(xt, T.tensor(t), reduction=reduction),
                F.cross_entropy(xt, T.tensor(p), reduction=reduction),
                T.nn.CrossEntropyLoss(reduction=reduction)(xt, T.tensor(t))]
        names.append([o.grad_fn.name() for o in outs] + [str(outs[0].grad_fn).split(" ")[0]])
    assert names[1] == names[0]


@pytest.mark.parametrize("kw", [dict(), dict(label_smoothing=0.2), dict(weight=[0.0, 1.0, 2.0]),
                                dict(weight=[0.0, 1.0, 2.0], label_smoothing=0.3), dict(reduction="sum")])
@pytest.mark.parametrize("target", [[1, 1, 1, 1], [1, 0, 1, 2], [0, 1, 0, 1]])
@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_ignore_index_rows_get_zero_gradient_even_when_mean_divides_by_zero(kw, target, fn):
    """All rows ignored (or only zero-weight rows left): torch's loss is NaN, the gradient of ignored rows 0
    (not NaN), first and second order."""
    x = np.random.default_rng(0).standard_normal((4, 3))
    res = []
    for T in LIBS:
        k = dict(kw, ignore_index=1)
        if "weight" in k:
            k["weight"] = T.tensor(k["weight"], dtype=T.float64)
        if fn == "nll_loss":
            k.pop("label_smoothing", None)
        xt = T.tensor(x, requires_grad=True)
        loss = getattr(T.nn.functional, fn)(xt, T.tensor(target), **k)
        g, = T.autograd.grad(loss, xt, create_graph=True)
        res.append((loss, g))
        if fn == "cross_entropy":  # (nll_loss's gradient is linear in the incoming gradient alone)
            res[-1] += T.autograd.grad((g * T.tensor(x)).sum(), xt)
    for a, b in zip(res[1], res[0]):
        _same(a, b)


# ------------------------------------------------------------------------------------------------------
# the bullets of items 3, 6 and 7, one case each: fn(T) runs on torch and on numtorch; values, dtypes and
# shapes (and gradients, through ``_g``) must match, or both must raise the same exception type
# ------------------------------------------------------------------------------------------------------
def _g(T, f, *arrays):
    """``[f(T, *leaves), *grads]`` on float64 leaves made from ``arrays`` (gradients of the output's sum)."""
    leaves = [T.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]
    out = f(T, *leaves)
    return [out, *T.autograd.grad(out.sum(), leaves, allow_unused=True, materialize_grads=True)]


def _flat(r):
    if isinstance(r, (list, tuple)):
        return [y for x in r for y in _flat(x)]
    return [r]


def _compare(fn):
    results = []
    for T in LIBS:
        try:
            results.append(_flat(fn(T)))
        except Exception as e:  # noqa: BLE001
            results.append(type(e))
    t, n = results
    if isinstance(t, type) or isinstance(n, type):
        assert t == n, f"torch: {t}, numtorch: {n}"
        return
    assert len(t) == len(n)
    for a, b in zip(n, t):
        if isinstance(b, ref.Tensor):
            _same(a, b, *((1e-6, 1e-7) if b.dtype in (ref.float32, ref.complex64) else ()))
        else:
            assert a == b, (a, b)


_INF, _NAN = float("inf"), float("nan")
_F = lambda T: T.nn.functional  # noqa: E731
_X4 = np.arange(2 * 3 * 5 * 6, dtype=np.float64).reshape(2, 3, 5, 6) / 7.0

ZERO_DIM = {
    "normalize": lambda T: _g(T, lambda T, x: _F(T).normalize(x, dim=0), 3.0),
    "normalize_p1_dim-1": lambda T: _g(T, lambda T, x: _F(T).normalize(x, dim=-1, p=1), -2.0),
    "normalize_zero": lambda T: _g(T, lambda T, x: _F(T).normalize(x, dim=0), 0.0),
    "normalize_dim1": lambda T: _F(T).normalize(T.tensor(3.0), dim=1),
    "normalize_out": lambda T: _F(T).normalize(T.tensor(-3.0), dim=0, out=T.tensor(0.0)),
    "normalize_gradgrad": lambda T: _g(T, lambda T, x: T.autograd.grad(_F(T).normalize(x * x, dim=0), x,
                                                                       create_graph=True)[0], -2.0),
    "cosine_similarity": lambda T: _g(T, lambda T, x, y: _F(T).cosine_similarity(x, y, dim=0), 3.0, -2.0),
    "cosine_similarity_dim-1": lambda T: _g(T, lambda T, x, y: _F(T).cosine_similarity(x, y, dim=-1), 3.0, 2.0),
    "cosine_similarity_zero": lambda T: _g(T, lambda T, x, y: _F(T).cosine_similarity(x, y, dim=0), 0.0, 2.0),
    "cosine_similarity_dim1": lambda T: _F(T).cosine_similarity(T.tensor(3.0), T.tensor(3.0), dim=1),
    "squeeze_dims": lambda T: T.zeros(1, 2, 1).squeeze((0, 2)),
    "squeeze_0d": lambda T: T.tensor(3.0).squeeze((0,)),
    "transpose": lambda T: T.tensor(3.0).transpose(0, -1),
    "gelu": lambda T: _g(T, lambda T, x: T.nn.GELU("tanh")(x), 0.7),
    "kl_div_batchmean": lambda T: _g(T, lambda T, x, y: _F(T).kl_div(x, y, reduction="batchmean"), -0.7, 0.3),
    "nanmedian": lambda T: T.tensor(_NAN).nanmedian(0, keepdim=True),
    "bernoulli": lambda T: (T.manual_seed(0), T.bernoulli(T.tensor(0.5)))[1],
    "quantile": lambda T: T.quantile(T.tensor(2.0), 0.3),
    "quantile_dim_keepdim": lambda T: T.quantile(T.tensor(2.0), 0.3, dim=0, keepdim=True),
    "quantile_q_vector_keepdim": lambda T: T.quantile(T.tensor(2.0), T.tensor([0.3, 0.5]), dim=0, keepdim=True),
    "nanquantile_dim_keepdim": lambda T: T.nanquantile(T.tensor(2.0), 0.3, dim=0, keepdim=True),
    "quantile_dim1": lambda T: T.quantile(T.tensor(2.0), 0.5, dim=1),
    "scatter_grad": lambda T: _g(T, lambda T, x, s: x.scatter(0, T.tensor(0), s), 2.0, 5.0),
    "meshgrid_grad": lambda T: _g(T, lambda T, x, y: T.stack(T.meshgrid(x, y, indexing="ij")), 2.0, 5.0),
}


def _mats(T, op, dt, kw):
    shapes = {"addmm": ((2, 2), (2, 3), (3, 2)), "addmv": ((2,), (2, 3), (3,)), "addr": ((2, 3), (2,), (3,)),
              "baddbmm": ((2, 2, 2), (2, 2, 3), (2, 3, 2)), "addbmm": ((2, 2), (2, 2, 3), (2, 3, 2))}[op]
    return getattr(T, op)(*[T.ones(s).to(getattr(T, dt)) for s in shapes], **kw)


DTYPES = {
    **{f"{op}_{dt}_{k}": (lambda T, op=op, dt=dt, kw=kw: _mats(T, op, dt, kw))
       for op in ("addmm", "addmv", "baddbmm", "addbmm", "addr")
       for dt in ("int64", "uint8", "int8", "float32", "bool")
       for k, kw in {"alpha0.5": dict(alpha=0.5), "beta2.9": dict(beta=2.9), "alpha-1.5": dict(alpha=-1.5),
                     "alpha127.9": dict(alpha=127.9), "alpha1e39": dict(alpha=1e39), "alphanan": dict(alpha=_NAN),
                     "alpha1j": dict(alpha=1j), "alpha-1": dict(alpha=-1), "alpha256": dict(alpha=256),
                     "alpha2**70": dict(alpha=2 ** 70), "alphaTrue": dict(alpha=True),
                     "betaFalse": dict(beta=False)}.items()
       if not (dt == "bool" and k == "alpha2**70")},  # (torch's parser refuses such an int first: OverflowError)
    "addmm_": lambda T: T.ones(2, 2).long().addmm_(T.ones(2, 3).long(), T.ones(3, 2).long(), alpha=1.7),
    **{f"{loss}_{a}_{b}": (lambda T, loss=loss, a=a, b=b: getattr(_F(T), loss)(
        T.tensor([[1, 0], [2, 1]]).to(getattr(T, a)), T.tensor([[1, 1], [0, 1]]).to(getattr(T, b))))
       for loss in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss", "kl_div",
                    "poisson_nll_loss", "binary_cross_entropy_with_logits")
       for a, b in (("int64", "int64"), ("int64", "float32"), ("float32", "int64"), ("bool", "bool"),
                    ("bool", "float32"), ("uint8", "uint8"))},
    "gaussian_nll_int_var": lambda T: _F(T).gaussian_nll_loss(T.ones(2), T.ones(2), T.ones(2, dtype=T.int64)),
    "gaussian_nll_int_input": lambda T: _F(T).gaussian_nll_loss(T.ones(2).long(), T.ones(2).long(), T.ones(2)),
    **{f"{fn}_{dt}": (lambda T, fn=fn, dt=dt: getattr(_F(T), fn)(T.tensor([-3, 0, 2, 7]).to(getattr(T, dt)),
                                                                *((0.5, 0.0) if fn == "threshold" else ())))
       for fn in ("hardtanh", "relu6", "threshold", "softsign", "tanhshrink", "relu")
       for dt in ("int64", "uint8", "int8", "bool")},
    "hardtanh_uint8_nonneg": lambda T: _F(T).hardtanh(T.tensor([0, 3, 9], dtype=T.uint8), 1.0, 4.0),
    "hardtanh_int_inplace": lambda T: _F(T).hardtanh(T.tensor([-3, 0, 2, 7]), inplace=True),
    **{f"scatter_reduce_{r}_{dt}": (lambda T, r=r, dt=dt: T.tensor([1, 0, 1]).to(getattr(T, dt)).scatter_reduce(
        0, T.tensor([0, 0, 2]), T.tensor([0, 1, 1]).to(getattr(T, dt)), r))
       for r in ("amax", "amin", "mean", "sum") for dt in ("bool", "int64")},
    **{f"{op}_{dt}": (lambda T, op=op, dt=dt: getattr(T, op)(T.tensor([1, 0, 1]).to(getattr(T, dt))))
       for op in ("square", "sign") for dt in ("bool", "int64", "uint8")},
    **{f"entr_{dt}": (lambda T, dt=dt: T.special.entr(T.tensor([-2, -1, 0, 1, 2]).to(getattr(T, dt))))
       for dt in ("int64", "int8", "bool")},
    **{f"rpow_{base}_{dt}": (lambda T, base=base, dt=dt: base ** T.tensor([0, 1, 2, 3]).to(getattr(T, dt)))
       for base in (2, -2, 2.5, True) for dt in ("int64", "uint8", "bool")},
}


SEMANTICS = {
    "Tensor.where": lambda T: _g(T, lambda T, x, y: x.where(x > 0, y), [1.0, -2, 3], [9.0, 8, 7]),
    **{f"clamp_tensor_bounds_{lo}_{hi}": (lambda T, lo=lo, hi=hi: _g(
        T, lambda T, x, a, b: x.clamp(a, b), [_NAN, 0.0, 1.0, 1.5, 2.0, 3.0], [lo] * 6, [hi] * 6))
       for lo, hi in ((2.0, 1.0), (1.0, 1.0), (0.5, 0.2), (_NAN, 1.0), (0.0, _NAN))},
    **{f"clamp_number_bounds_{lo}_{hi}": (lambda T, lo=lo, hi=hi: _g(
        T, lambda T, x: x.clamp(lo, hi), [_NAN, 0.0, 1.0, 1.5, 2.0, 3.0])) for lo, hi in ((2.0, 1.0), (1.0, 1.0))},
    "clamp_gradgrad_crossed": lambda T: _g(T, lambda T, x, a, b: T.autograd.grad(
        (x * x).clamp(a, b).sum(), x, create_graph=True)[0], [0.0, 1.0, 1.2, 2.0], [2.0] * 4, [1.0] * 4),
    "clamp_min_only_tensor": lambda T: _g(T, lambda T, x, a: x.clamp(min=a), [_NAN, 0.0, 2.0], [1.0] * 3),
    "clamp_int_by_float_tensors": lambda T: T.tensor([1, 2, 3]).clamp(T.tensor(1.5), T.tensor(2.5)),
    "clamp_f32_by_f64_1d": lambda T: T.tensor([1.0, 2, 3]).clamp(T.tensor([1.5], dtype=T.float64)),
    "clamp_f32_by_f64_0d": lambda T: T.tensor([1.0, 2, 3]).clamp(T.tensor(1.5, dtype=T.float64)),
    "clamp_0d_tensor_and_number": lambda T: _g(T, lambda T, x: x.clamp(T.tensor(1.5), 2.0), [1.0, 2, 3]),
    "clamp_tensor_requiring_grad_and_number": lambda T: _g(T, lambda T, x, a: x.clamp(a, 2.0), [1.0, 2, 3], 1.5),
    "clamp_1d_tensor_and_number": lambda T: T.tensor([1.0, 2, 3]).clamp(1.0, T.tensor([2.0, 2, 2])),
    "clamp_inplace_int_by_float_tensor": lambda T: T.tensor([1, 5, 3]).clamp_(T.tensor([2.5, 2, 2])),
    **{f"matmul_{sa}_{sb}": (lambda T, sa=sa, sb=sb: _g(T, lambda T, a, b: T.matmul(a, b), np.ones(sa), np.ones(sb)))
       for sa, sb in (((0, 3), (3, 2)), ((2, 0), (0, 3)), ((0,), (0,)), ((2, 0), (0,)), ((0,), (0, 2)),
                      ((3, 0, 2), (2, 4)), ((1, 0, 3), (5, 3, 2)), ((0,), (2, 0, 3)))},
    "mv_empty": lambda T: _g(T, lambda T, a, b: T.mv(a, b), np.ones((2, 0)), np.ones(0)),
    "matmul_int_empty": lambda T: T.matmul(T.ones(2, 0, dtype=T.int64), T.ones(0, 3, dtype=T.int64)),
    **{f"BatchNorm_{shape}_{train}": (lambda T, shape=shape, train=train: _batchnorm(T, shape, train))
       for shape in ((0, 3), (0, 3, 4), (0, 3, 2, 2), (2, 3, 0, 2)) for train in (True, False)},
    "instance_norm_empty": lambda T: _F(T).instance_norm(T.ones(0, 3, 4)),
    "instance_norm_one_element": lambda T: _F(T).instance_norm(T.ones(2, 3, 1)),
    "InstanceNorm1d_empty": lambda T: T.nn.InstanceNorm1d(3)(T.ones(0, 3, 4)),
    "group_norm_empty": lambda T: _g(T, lambda T, x, w, b: _F(T).group_norm(x, 3, w, b), np.ones((0, 3, 2)),
                                     np.ones(3), np.ones(3)),
    "group_norm_empty_spatial": lambda T: _F(T).group_norm(T.ones(2, 3, 0), 1),
    "take_along_dim_negative": lambda T: _g(T, lambda T, x: T.take_along_dim(x, T.tensor([[-1, 0], [-2, 1]]), dim=1),
                                            np.arange(6.0).reshape(2, 3)),
    "take_along_dim_negative_broadcast": lambda T: _g(
        T, lambda T, x: T.take_along_dim(x, T.tensor([[-1, 0, 1]]), dim=0), np.arange(6.0).reshape(2, 3)),
    "take_along_dim_flat_negative": lambda T: T.take_along_dim(T.arange(6.0).reshape(2, 3), T.tensor([-1, 2])),
    "take_along_dim_flat_out_of_range": lambda T: T.take_along_dim(T.arange(6.0).reshape(2, 3), T.tensor([6])),
    "take_along_dim_flat_int32": lambda T: T.take_along_dim(T.arange(6.0).reshape(2, 3), T.tensor([1], dtype=T.int32)),
    "take_along_dim_flat_uint8": lambda T: T.take_along_dim(T.arange(6.0).reshape(2, 3), T.tensor([1], dtype=T.uint8)),
    "take_along_dim_int32": lambda T: T.take_along_dim(T.ones(2, 3), T.tensor([[0]], dtype=T.int32), dim=1),
    "take_along_dim_float": lambda T: T.take_along_dim(T.ones(2, 3), T.tensor([[0.0]]), dim=1),
    "gather_negative": lambda T: T.gather(T.arange(6.0).reshape(2, 3), 1, T.tensor([[-1], [0]])),
    "gather_smaller_index": lambda T: _g(T, lambda T, x: T.gather(x, 0, T.tensor([[1]])), np.arange(6.0).reshape(2, 3)),
    "gather_bigger_index": lambda T: T.gather(T.arange(6.0).reshape(2, 3), 1, T.tensor([[0], [1], [0]])),
    "gather_0d": lambda T: _g(T, lambda T, x: T.gather(x, 0, T.tensor(0)), 3.0),
    "gather_repeated_index_grad": lambda T: _g(T, lambda T, x: T.gather(x, 1, T.tensor([[0, 0, 0], [2, 2, 1]])),
                                               np.arange(6.0).reshape(2, 3)),
    **{f"gather_empty_index_{shape}_{d}": (lambda T, shape=shape, d=d: _g(
        T, lambda T, x: T.gather(x, d, T.ones(shape, dtype=T.int64)), np.ones((2, 3))))
       for shape in ((0,), (0, 5), (5, 0), (0, 1, 1)) for d in (1, 5)},
    "gather_empty_float_index": lambda T: T.gather(T.ones(2, 3), 1, T.ones(0)),
    "tensordot_duplicate_dims": lambda T: T.tensordot(T.ones(3, 3), T.ones(3, 3), dims=([0, 0], [0, 1])),
    "tensordot_duplicate_dims_b": lambda T: T.tensordot(T.ones(3, 3), T.ones(3, 3), dims=([0, 1], [1, 1])),
    "tensordot_pair_of_ints": lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 4), dims=(1, 0)),
    "tensordot_size1_broadcast": lambda T: _g(T, lambda T, a, b: T.tensordot(a, b, dims=([1], [0])),
                                              np.ones((2, 1)), np.ones((3, 4))),
    "tensordot_size1_broadcast_b": lambda T: _g(T, lambda T, a, b: T.tensordot(a, b, dims=([1], [0])),
                                                np.ones((2, 3)), np.ones((1, 4))),
    "tensordot_mismatch": lambda T: T.tensordot(T.ones(2, 3), T.ones(4, 4), dims=1),
    "tensordot_0d": lambda T: _g(T, lambda T, a, b: T.tensordot(a, b, dims=0), 2.0, 3.0),
    "tensordot_empty": lambda T: _g(T, lambda T, a, b: T.tensordot(a, b, dims=1), np.ones((2, 0)), np.ones((0, 3))),
    "tensordot_tensor_dims": lambda T: T.tensordot(T.ones(2, 3), T.ones(3, 4), dims=T.tensor([[1], [0]])),
    **{f"pad_{mode}_{pad}": (lambda T, mode=mode, pad=pad: _g(T, lambda T, x: _F(T).pad(x, pad, mode=mode), _X4))
       for mode in ("replicate", "reflect", "circular")
       for pad in ((-1, 0), (1, -1, -1, 2), (-3, 1, 0, 0), (-6, 0), (-4, -3), (-1, -1, -1, -1))},
    **{f"bicubic_{size}_{ac}": (lambda T, size=size, ac=ac: _g(
        T, lambda T, x: _F(T).interpolate(x, size=size, mode="bicubic", align_corners=ac), _X4))
       for size in ((7, 9), (3, 4), (1, 1)) for ac in (False, True)},
    "logcumsumexp_empty": lambda T: _g(T, lambda T, x: T.logcumsumexp(x, 0), np.ones((0, 2))),
    "logcumsumexp_empty_gradgrad": lambda T: _g(T, lambda T, x: T.autograd.grad(
        T.logcumsumexp(x * x, 0).sum(), x, create_graph=True)[0], np.ones((0, 2))),
    "bicubic_antialias": lambda T: _g(T, lambda T, x: _F(T).interpolate(x, size=(3, 2), mode="bicubic",
                                                                        antialias=True), _X4),
    **{f"logcumsumexp_{i}": (lambda T, arr=arr: _g(T, lambda T, x: T.logcumsumexp(x, 0), arr))
       for i, arr in enumerate(([_INF, 1.0, 2.0], [-_INF, -_INF, 1.0], [1.0, _INF, -_INF], [1e308, 1e308, 1.0],
                                [-1e308, 0.0, 1e300], [_NAN, 1.0, 2.0], [-_INF, -_INF, -_INF], [_INF, _INF, 1.0],
                                [1000.0, -1000.0, 1000.0]))},
}


def _batchnorm(T, shape, train):
    T.manual_seed(0)
    m = T.nn.BatchNorm1d(3) if len(shape) < 4 else T.nn.BatchNorm2d(3)
    m = m.double().train(train)
    x = T.ones(shape, dtype=T.float64, requires_grad=True)
    y = m(x)
    grads = T.autograd.grad(y.sum(), [x, m.weight, m.bias], allow_unused=True, materialize_grads=True)
    return [y, *grads, m.running_mean, m.running_var, m.num_batches_tracked]


SURFACE = {  # items 6 and 7
    "tensor_flags": lambda T: [T.ones(2).is_xpu, T.ones(2).is_meta, T.ones(2).is_sparse, T.ones(2).is_inference(),
                               T.ones(2).nbytes, T.ones(2, dtype=T.float64).itemsize,
                               T.ones(3).untyped_storage().nbytes(), len(T.ones(3).storage())],
    **{f"{fn}_size_keyword": (lambda T, fn=fn: list(getattr(T, fn)(size=(2, 3)).shape))
       for fn in ("empty", "zeros", "ones", "rand", "randn")},
    "full_size_keyword": lambda T: T.full(size=(2, 3), fill_value=2.0),
    "randint_high_size": lambda T: (T.manual_seed(0), T.randint(5, size=(2, 3)))[1],
    "randint_high_keyword": lambda T: (T.manual_seed(0), T.randint(high=5, size=(3,)))[1],
    "Variable_isinstance": lambda T: [isinstance(T.ones(2), T.autograd.Variable),
                                      isinstance(T.nn.Parameter(T.ones(2)), T.autograd.Variable)],
    "is_view": lambda T: [T.ones(2, 3)._is_view(), T.ones(2, 3)[0]._is_view(), T.ones(2, 3).t()._is_view(),
                          T.ones(2, 3).clone()._is_view()],
    "ModuleDict_update_module": lambda T: T.nn.ModuleDict().update(T.nn.Linear(2, 2)),
    "ModuleDict_update_bad_pairs": lambda T: T.nn.ModuleDict().update([("a", T.nn.Linear(2, 2), 3)]),
    "cross_entropy_probabilities_ignore_index": lambda T: _F(T).cross_entropy(T.ones(2, 3), T.ones(2, 3) / 3,
                                                                              ignore_index=1),
    "CrossEntropyLoss_probabilities_ignore_index": lambda T: T.nn.CrossEntropyLoss(ignore_index=0)(
        T.ones(2, 3), T.ones(2, 3) / 3),
}


@pytest.mark.parametrize("case", ZERO_DIM)
def test_zero_dimensional_tensors_match_torch(case):
    _compare(ZERO_DIM[case])


@pytest.mark.parametrize("case", DTYPES)
def test_result_dtypes_and_refusals_match_torch(case):
    _compare(DTYPES[case])


@pytest.mark.parametrize("case", SEMANTICS)
def test_semantics_match_torch(case):
    _compare(SEMANTICS[case])


@pytest.mark.parametrize("case", SURFACE)
def test_tensor_surface_and_held_out_behaviour_match_torch(case):
    _compare(SURFACE[case])


@pytest.mark.quick
def test_addmm_alpha_truncates_toward_zero_for_integer_tensors():
    """c10's checked_convert: 1.7 -> 1, -1.5 -> -1; a negative int wraps into uint8, a float does not."""
    for T in LIBS:
        r = T.addmm(T.ones(1, 1).long(), T.ones(1, 1).long(), T.ones(1, 1).long(), alpha=1.7, beta=-1.5)
        assert r.item() == 0 and r.dtype == T.int64
        assert T.addmm(*(T.ones(1, 1, dtype=T.uint8),) * 3, alpha=-1).item() == 0
        with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
            T.addmm(*(T.ones(1, 1, dtype=T.uint8),) * 3, alpha=-0.5)
