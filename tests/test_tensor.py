"""The Tensor object against PyTorch: Python protocols, metadata, conversions, and every pointwise op
(values, gradients, gradcheck), comparisons and in-place forms."""
import math
import operator

import numpy as np
import pytest
import torch as ref

import numtorch as nt
from numtorch.autograd import gradcheck
from conftest import TOL, assert_close, to_nt, to_ref

RNG = np.random.default_rng(1)


def _both(fn):
    """``fn(module)`` in PyTorch and numtorch: equal results, or the same exception type and message."""
    res = []
    for m in (ref, nt):
        try:
            res.append(("ok", fn(m)))
        except Exception as e:  # noqa: BLE001
            res.append(("err", type(e), str(e)))
    assert res[0][0] == res[1][0], res
    if res[0][0] == "err":
        assert res[0][1:] == res[1][1:], res
        return None
    _match(res[0][1], res[1][1])
    return res[1][1]


def _match(r, n):
    if isinstance(r, ref.Tensor):
        assert_close(n, r)
    elif isinstance(r, (tuple, list)) and not isinstance(r, ref.Size):
        assert len(r) == len(n)
        for a, b in zip(r, n):
            _match(a, b)
    elif isinstance(r, ref.dtype):
        assert str(r) == str(n)
    else:
        assert r == n, (r, n)


# ---- Python protocols ---------------------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    lambda m: m.tensor(3.5).item(), lambda m: m.tensor([3]).item(), lambda m: m.tensor([[True]]).item(),
    lambda m: m.tensor([1, 2]).item(), lambda m: m.tensor([]).item(),
    lambda m: m.tensor([[1, 2], [3, 4]]).tolist(), lambda m: m.tensor(2.5).tolist(),
    lambda m: m.tensor([0.5, 1.5]).tolist(), lambda m: m.tensor([1.5], dtype=m.bfloat16).tolist(),
    lambda m: len(m.ones(4, 2)), lambda m: len(m.tensor(1)),
    lambda m: bool(m.tensor([0.0])), lambda m: bool(m.tensor(2)), lambda m: bool(m.tensor([1.0, 2.0])),
    lambda m: bool(m.tensor([])),
    lambda m: float(m.tensor([[2]])), lambda m: float(m.tensor([1, 2])), lambda m: int(m.tensor(2.7)),
    lambda m: int(m.tensor(-2.7)), lambda m: int(m.tensor([1, 2])),
    lambda m: [10, 20, 30][m.tensor(1)], lambda m: [10, 20, 30][m.tensor(1.0)],
    lambda m: [10, 20, 30][m.tensor([1, 2])], lambda m: operator.index(m.tensor(True)),
    lambda m: f"{m.tensor(3.14159):.2f}", lambda m: f"{m.tensor(3.14159):.4f}", lambda m: f"{m.tensor(7):>5}",
    lambda m: f"{m.tensor([1.0, 2.0])}", lambda m: f"{m.tensor(2.5)}", lambda m: "{:e}".format(m.tensor(1234.5)),
    lambda m: str(m.tensor([1, 2])), lambda m: m.ones(2) == None, lambda m: m.ones(2) != None,  # noqa: E711
    lambda m: m.ones(2) == "a", lambda m: {m.ones(2): 1} is not None,
])
def test_python_protocols(expr):
    _both(expr)


def test_hash_is_identity():
    a, b = nt.ones(2), nt.ones(2)
    assert hash(a) != hash(b) and hash(a) == hash(a)
    d = {a: 1, b: 2}
    assert d[a] == 1 and d[b] == 2
    assert a in {a} and b not in {a}


def test_scalar_conversions_keep_grad_semantics():
    x = nt.tensor([1.5], requires_grad=True)
    assert x.item() == 1.5 and float(x) == 1.5 and x.tolist() == [1.5]
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        x.numpy()
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        np.asarray(x)
    np.testing.assert_array_equal(x.detach().numpy(), [1.5])


# ---- metadata -------------------------------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    lambda m: m.ones(2, 3).size(), lambda m: m.ones(2, 3).size(1), lambda m: m.ones(2, 3).size(-1),
    lambda m: m.ones(2, 3).size(2), lambda m: m.ones(2, 3).shape, lambda m: tuple(m.ones(2, 3).shape),
    lambda m: m.ones(2, 3).shape[1:], lambda m: m.ones(2, 3).shape == (2, 3), lambda m: str(m.ones(2, 3).shape),
    lambda m: repr(m.Size([2, 3])), lambda m: m.Size([2, 3]).numel(), lambda m: m.ones(2, 3, 4).stride(),
    lambda m: m.ones(2, 3, 4).stride(0), lambda m: m.ones(2, 3, 4).stride(-1), lambda m: m.ones(2, 3).t().stride(),
    lambda m: m.ones(2, 3).t().is_contiguous(), lambda m: m.ones(2, 3).is_contiguous(),
    lambda m: m.ones(2, 3, dtype=m.float64).element_size(), lambda m: m.ones(2, dtype=m.bfloat16).element_size(),
    lambda m: m.ones(2, dtype=m.int16).element_size(), lambda m: m.ones(2, dtype=m.bool).element_size(),
    lambda m: m.ones(2, 3).numel(), lambda m: m.ones(2, 3).nelement(), lambda m: m.ones(2, 3).dim(),
    lambda m: m.ones(2, 3).ndim, lambda m: m.ones(2, 3).ndimension(), lambda m: m.tensor(1.0).dim(),
    lambda m: m.tensor(1.0).shape, lambda m: m.tensor(1.0).stride(), lambda m: m.ones(3, 4)[1].storage_offset(),
    lambda m: repr(m.ones(2).device), lambda m: str(m.ones(2).device), lambda m: m.ones(2).is_cuda,
    lambda m: m.ones(2).is_floating_point(), lambda m: m.ones(2, dtype=m.int32).is_floating_point(),
    lambda m: m.is_tensor(m.ones(2)), lambda m: m.is_tensor([1]), lambda m: m.numel(m.ones(2, 3)),
    lambda m: m.is_floating_point(m.ones(2)), lambda m: m.ones(2).is_complex(),
])
def test_metadata(expr):
    _both(expr)


# ---- NumPy interop --------------------------------------------------------------------------------
def test_numpy_shares_memory():
    t = nt.zeros(3)
    a = t.numpy()
    a[0] = 5
    assert t.tolist()[0] == 5.0
    t.add_(1)
    np.testing.assert_array_equal(a, [6.0, 1.0, 1.0])
    assert np.asarray(t).dtype == np.float32
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert np.array(t, copy=True) is not a


def test_from_numpy_and_as_tensor_share_memory():
    arr = np.arange(4.0)
    t = nt.from_numpy(arr)
    arr[0] = 10
    assert t.dtype is nt.float64 and t.tolist()[0] == 10.0
    t.mul_(2)
    assert arr[0] == 20.0
    a2 = np.ones(3, np.float32)
    s = nt.as_tensor(a2)
    a2[1] = 7
    assert s.tolist() == [1.0, 7.0, 1.0]
    c = nt.as_tensor(a2, dtype=nt.float64)  # a dtype change copies
    a2[1] = 0
    assert c.tolist() == [1.0, 7.0, 1.0] and c.dtype is nt.float64
    x = nt.ones(2)
    assert nt.as_tensor(x) is x
    assert nt.asarray(a2).dtype is nt.float32
    assert nt.as_tensor([1, 2]).dtype is nt.int64
    copy = nt.tensor(a2)  # tensor() always copies
    a2[0] = 99
    assert copy.tolist()[0] == 1.0
    with pytest.raises(TypeError):
        nt.from_numpy([1, 2])
    with pytest.raises(TypeError):
        nt.from_numpy(np.ones(2, np.uint32))


def test_numpy_scalars_and_arrays_defer_to_tensor():
    for left in (np.float64(2.0), np.float32(2.0), np.int64(2)):
        r = left * nt.ones(2)
        assert isinstance(r, nt.Tensor)
        assert_close(r, left * ref.ones(2))
    assert isinstance(nt.ones(2) * np.float64(2.0), nt.Tensor)
    assert (nt.ones(2) * np.float64(2.0)).dtype is nt.float32  # NumPy scalars are weak, like Python numbers


# ---- casts ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("expr", [
    lambda m: m.ones(2).to(m.float64), lambda m: m.ones(2).double(), lambda m: m.ones(2).half(),
    lambda m: m.ones(2).bfloat16().float(), lambda m: m.tensor([1.7, -1.7]).long(), lambda m: m.tensor([1.7, -1.7]).int(),
    lambda m: m.tensor([300.0, 2.5]).short(), lambda m: m.tensor([1.7, 0.0]).bool(), lambda m: m.tensor([3, 0]).float(),
    lambda m: m.tensor([5, -1]).char(), lambda m: m.tensor([5, 6]).byte(), lambda m: m.ones(2).type(),
    lambda m: m.ones(2, dtype=m.int64).type(), lambda m: m.ones(2).type(m.int64), lambda m: m.ones(2).type("torch.DoubleTensor"),
    lambda m: m.ones(2).to("cpu"), lambda m: m.ones(2).to("cpu", m.float64), lambda m: m.ones(2).to(device="cpu", dtype=m.int32),
    lambda m: m.ones(2).to(m.ones(1, dtype=m.int32)), lambda m: m.ones(2).type_as(m.ones(1, dtype=m.float64)),
    lambda m: (lambda t: t.to(m.float32) is t)(m.ones(2)), lambda m: (lambda t: t.float() is t)(m.ones(2)),
    lambda m: (lambda t: t.to(m.float32, copy=True) is t)(m.ones(2)), lambda m: (lambda t: t.cpu() is t)(m.ones(2)),
])
def test_casts(expr):
    _both(expr)


def test_cast_is_differentiable():
    def f(m):
        x = m.tensor([1.5, -2.0], requires_grad=True)
        y = x.double() * 3
        y.sum().backward()
        return y.dtype, x.grad, y.grad_fn.next_functions[0][0].name()
    _both(f)


# ---- unary pointwise ops --------------------------------------------------------------------------
def _domain(kind, shape, dtype):
    if kind == "pos":
        x = RNG.uniform(0.5, 2.0, shape)
    elif kind == "unit":
        x = RNG.uniform(-0.9, 0.9, shape)
    elif kind == "nonint":  # away from the jumps of floor/ceil/round
        x = np.floor(RNG.uniform(-3, 3, shape)) + RNG.uniform(0.1, 0.4, shape) + RNG.choice([0, 0.5], shape)
    elif kind == "nz":      # away from the kinks at 0
        x = RNG.uniform(0.3, 2.0, shape) * RNG.choice([-1, 1], shape)
    else:
        x = RNG.standard_normal(shape)
    return np.asarray(x).astype(dtype)


UNARY = {"neg": "any", "abs": "nz", "sign": "nz", "exp": "any", "exp2": "any", "expm1": "any", "log": "pos",
         "log2": "pos", "log10": "pos", "log1p": "pos", "sqrt": "pos", "rsqrt": "pos", "reciprocal": "nz",
         "square": "any", "sin": "any", "cos": "any", "tan": "unit", "asin": "unit", "acos": "unit", "atan": "any",
         "sinh": "any", "cosh": "any", "tanh": "any", "sigmoid": "any", "relu": "nz", "erf": "any", "erfinv": "unit",
         "floor": "nonint", "ceil": "nonint", "trunc": "nonint", "frac": "nonint", "round": "nonint",
         "negative": "any", "absolute": "nz", "arcsin": "unit", "arccos": "unit", "arctan": "any", "fix": "nonint"}


def _check(fn_nt, fn_ref, arrays, dtype, grad=True):
    xs = [to_nt(a, requires_grad=grad) for a in arrays]
    rs = [to_ref(a, requires_grad=grad) for a in arrays]
    y, r = fn_nt(*xs), fn_ref(*rs)
    assert_close(y, r, **TOL[dtype])
    if grad:
        assert y.requires_grad == r.requires_grad
        go = np.asarray(RNG.standard_normal(tuple(r.shape))).astype(dtype)
        y.backward(nt.tensor(go))
        r.backward(ref.tensor(go))
        for x, rr in zip(xs, rs):
            assert_close(x.grad, rr.grad, **TOL[dtype])
    return y, r


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_values_and_grads(name, fdtype):
    x = _domain(UNARY[name], (3, 4), fdtype)
    y, r = _check(getattr(nt, name), getattr(ref, name), [x], fdtype)
    assert y.grad_fn.name() == r.grad_fn.name()
    # the method form, and the in-place form where PyTorch has one
    assert_close(getattr(to_nt(x), name)(), r.detach(), **TOL[fdtype])
    if hasattr(nt.Tensor, name + "_") and name not in ("negative", "absolute", "fix", "arcsin", "arccos", "arctan"):
        t = to_nt(x)
        v = t._version
        assert getattr(t, name + "_")() is t and t._version > v
        assert_close(t, r.detach(), **TOL[fdtype])


@pytest.mark.parametrize("name", [n for n in UNARY if UNARY[n] != "nonint" and n != "sign"])
def test_unary_gradcheck(name):
    x = to_nt(_domain(UNARY[name], (2, 3), np.float64), requires_grad=True)
    assert gradcheck(getattr(nt, name), (x,))


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "sigmoid", "tanh", "erf", "abs", "neg", "floor", "sign",
                                  "square", "relu", "reciprocal"])
def test_unary_integer_and_reduced_inputs(name):
    x = np.array([1, 2, 3])
    assert_close(getattr(nt, name)(nt.tensor(x)), getattr(ref, name)(ref.tensor(x)), rtol=1e-6, atol=1e-6)
    for d in ("bfloat16", "float16"):
        y = getattr(nt, name)(nt.tensor(x, dtype=getattr(nt, d)))
        r = getattr(ref, name)(ref.tensor(x, dtype=getattr(ref, d)))
        assert str(y.dtype) == str(r.dtype)
        np.testing.assert_allclose(y.float().numpy(), r.float().numpy(), rtol=1e-2, atol=1e-2)


def test_unary_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 1e30, -1.0], np.float32)
    for name in ("exp", "log", "sqrt", "sigmoid", "tanh", "abs", "sign", "relu", "reciprocal", "floor", "erf", "atan"):
        with np.errstate(all="ignore"):
            y = getattr(nt, name)(nt.tensor(x))
        np.testing.assert_allclose(y.numpy(), getattr(ref, name)(ref.tensor(x)).numpy(), rtol=1e-6, equal_nan=True)
    s = nt.sigmoid(nt.tensor([-1000.0, 1000.0], requires_grad=True))
    assert np.isfinite(s.detach().numpy()).all()


# ---- binary pointwise ops -------------------------------------------------------------------------
BINARY = {
    "add": (nt.add, ref.add), "sub": (nt.sub, ref.sub), "mul": (nt.mul, ref.mul), "div": (nt.div, ref.div),
    "pow": (nt.pow, ref.pow), "maximum": (nt.maximum, ref.maximum), "minimum": (nt.minimum, ref.minimum),
    "atan2": (nt.atan2, ref.atan2), "remainder": (nt.remainder, ref.remainder), "fmod": (nt.fmod, ref.fmod),
    "float_power": (nt.float_power, ref.float_power),
    "add_alpha": (lambda a, b: nt.add(a, b, alpha=2.5), lambda a, b: ref.add(a, b, alpha=2.5)),
    "sub_alpha": (lambda a, b: nt.sub(a, b, alpha=-0.5), lambda a, b: ref.sub(a, b, alpha=-0.5)),
    "div_trunc": (lambda a, b: nt.div(a, b, rounding_mode="trunc"), lambda a, b: ref.div(a, b, rounding_mode="trunc")),
    "lerp": (lambda a, b: nt.lerp(a, b, 0.3), lambda a, b: ref.lerp(a, b, 0.3)),
    "clamp_tensor": (lambda a, b: nt.clamp(a, b, b + 1), lambda a, b: ref.clamp(a, b, b + 1)),
    "where": (lambda a, b: nt.where(a > 1, a, b), lambda a, b: ref.where(a > 1, a, b)),
    "addcmul": (lambda a, b: nt.addcmul(a, a, b, value=0.5), lambda a, b: ref.addcmul(a, a, b, value=0.5)),
    "addcdiv": (lambda a, b: nt.addcdiv(a, a, b, value=2), lambda a, b: ref.addcdiv(a, a, b, value=2)),
    "op_add": (operator.add, operator.add), "op_rsub": (lambda a, b: 2.0 - a * b, lambda a, b: 2.0 - a * b),
    "op_rdiv": (lambda a, b: 1.5 / (a + b * b + 3), lambda a, b: 1.5 / (a + b * b + 3)),
    "op_pow_scalar": (lambda a, b: a ** 3 + a ** 0.5 + b ** 2, lambda a, b: a ** 3 + a ** 0.5 + b ** 2),
    "op_rpow": (lambda a, b: 2.0 ** (a + b), lambda a, b: 2.0 ** (a + b)),
    "op_mod": (lambda a, b: a % 0.7 + a % b, lambda a, b: a % 0.7 + a % b),
    "op_neg_abs": (lambda a, b: abs(-a) * +b, lambda a, b: abs(-a) * +b),
}
SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((3, 4), ()), ((), (2, 2))]


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("sa,sb", SHAPES, ids=str)
def test_binary_values_and_grads(name, sa, sb, fdtype):
    a = RNG.uniform(0.5, 2.0, sa).astype(fdtype)
    b = (RNG.uniform(0.5, 2.0, sb) * (1 if "pow" in name else RNG.choice([-1, 1], sb))).astype(fdtype)
    fn_nt, fn_ref = BINARY[name]
    _check(fn_nt, fn_ref, [np.asarray(a), np.asarray(b)], fdtype)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "lerp", "where",
                                  "clamp_tensor", "addcdiv", "op_rdiv", "op_rpow"])
def test_binary_gradcheck(name):
    a = to_nt(RNG.uniform(0.5, 2.0, (2, 3)), requires_grad=True)
    b = to_nt(RNG.uniform(0.6, 1.9, (3,)), requires_grad=True)
    assert gradcheck(BINARY[name][0], (a, b))


def test_binary_grad_fn_names():
    for name in ("add", "sub", "mul", "div", "maximum", "minimum", "atan2", "where"):
        a, b = nt.ones(2, requires_grad=True), nt.ones(2, requires_grad=True) * 2
        ra, rb = ref.ones(2, requires_grad=True), ref.ones(2, requires_grad=True) * 2
        assert BINARY[name][0](a, b).grad_fn.name() == BINARY[name][1](ra, rb).grad_fn.name()


def test_ties_split_gradient_in_max_min():
    def f(m):
        a, b = m.tensor([1.0, 2.0, 3.0], requires_grad=True), m.tensor([1.0, 0.0, 5.0], requires_grad=True)
        (m.maximum(a, b) + m.minimum(a, b) * 2).sum().backward()
        return a.grad, b.grad
    _both(lambda m: f(m)[0])
    _both(lambda m: f(m)[1])


def test_broadcast_error_message():
    _both(lambda m: m.ones(2, 3) + m.ones(4))
    _both(lambda m: m.ones(2, 3) * m.ones(3, 2))


def test_clamp_scalar_and_errors(fdtype):
    x = RNG.standard_normal((3, 4)).astype(fdtype)
    for lo, hi in ((-0.5, 0.5), (None, 0.2), (-0.1, None)):
        _check(lambda t: nt.clamp(t, lo, hi), lambda t: ref.clamp(t, lo, hi), [x], fdtype)
        _check(lambda t: t.clip(lo, hi), lambda t: t.clip(lo, hi), [x], fdtype)
    _check(lambda t: t.clamp_min(0.1), lambda t: t.clamp_min(0.1), [x], fdtype)
    _check(lambda t: t.clamp_max(0.1), lambda t: t.clamp_max(0.1), [x], fdtype)
    _both(lambda m: m.clamp(m.ones(2)))
    _both(lambda m: m.clamp(m.tensor([1, 5, 9]), 2, 6))
    _both(lambda m: m.clamp(m.tensor([1, 5, 9]), 2.5, 6))


def test_integer_arithmetic_and_division():
    a, b = np.array([7, -7, 5, 0]), np.array([2, 2, -3, 4])
    for f in (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
              lambda x, y: x ** 2, lambda x, y: x // 2, lambda x, y: x % 3, lambda x, y: x * 2.5,
              lambda x, y: x.div(y, rounding_mode="floor"), lambda x, y: x.div(y, rounding_mode="trunc"),
              lambda x, y: x.fmod(y), lambda x, y: x.remainder(y), lambda x, y: -x, lambda x, y: abs(x)):
        _both(lambda m: f(m.tensor(a), m.tensor(b)))
    _both(lambda m: m.tensor([1.0]).div(2, rounding_mode="bad"))


def test_bitwise_and_logical():
    a, b = np.array([6, 3, -1]), np.array([3, 5, 2])
    for f in (operator.and_, operator.or_, operator.xor, lambda x, y: ~x, lambda x, y: x.bitwise_not(),
              lambda x, y: x.logical_not(), lambda x, y: x.logical_and(y), lambda x, y: x.logical_or(y),
              lambda x, y: x.logical_xor(y), lambda x, y: (x > 0) & (y > 2), lambda x, y: ~(x > 0),
              lambda x, y: (x > 0) | True, lambda x, y: (x > 0) ^ (y > 3)):
        _both(lambda m: f(m.tensor(a), m.tensor(b)))
    _both(lambda m: m.ones(2) & m.ones(2))
    _both(lambda m: m.bitwise_not(m.ones(2, dtype=m.float64)))


# ---- comparisons ----------------------------------------------------------------------------------
CMP = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal"]


@pytest.mark.parametrize("name", CMP)
def test_comparisons(name):
    a = np.array([[1.0, 2.0, np.nan], [3.0, -1.0, 2.0]], np.float32)
    b = np.array([2.0, 2.0, np.nan], np.float32)
    _both(lambda m: getattr(m, name)(m.tensor(a), m.tensor(b)))
    _both(lambda m: getattr(m, name)(m.tensor(a), 2))
    _both(lambda m: getattr(m.tensor(a), name)(2.0))
    _both(lambda m: getattr(m, name)(m.tensor([1, 2, 3]), 2.5))
    y = getattr(nt, name)(nt.tensor(a, requires_grad=True), 2.0)
    assert y.dtype is nt.bool and not y.requires_grad


def test_comparison_operators_and_predicates():
    a = np.array([1.0, np.inf, -np.inf, np.nan, 0.0], np.float32)
    for f in (lambda t: t == 1, lambda t: t != 1, lambda t: t < 1, lambda t: t <= 1, lambda t: t > 0, lambda t: t >= 0,
              lambda t: 1 < t, lambda t: t.isnan(), lambda t: t.isinf(), lambda t: t.isfinite(),
              lambda t: t.nan_to_num(), lambda t: t.nan_to_num(nan=1.0, posinf=2.0, neginf=-2.0)):
        _both(lambda m: f(m.tensor(a)))
    _both(lambda m: m.isclose(m.tensor([1.0, 2.0]), m.tensor([1.0 + 1e-9, 2.1])))
    _both(lambda m: m.allclose(m.tensor([1.0, 2.0]), m.tensor([1.0 + 1e-9, 2.0])))
    _both(lambda m: m.allclose(m.tensor([1.0, 2.0]), m.tensor([1.0, 2.1])))
    _both(lambda m: m.equal(m.tensor([1, 2]), m.tensor([1, 2])))
    _both(lambda m: m.equal(m.tensor([1, 2]), m.tensor([1, 3])))
    _both(lambda m: m.equal(m.tensor([1, 2]), m.tensor([[1, 2]])))


# ---- in-place ops ---------------------------------------------------------------------------------
INPLACE = [
    ("add_", (1.5,)), ("sub_", (0.5,)), ("mul_", (3,)), ("div_", (4,)), ("pow_", (2,)), ("neg_", ()), ("abs_", ()),
    ("exp_", ()), ("clamp_", (-0.2, 0.3)), ("clamp_min_", (0.0,)), ("clamp_max_", (0.1,)), ("floor_", ()),
    ("round_", ()), ("sigmoid_", ()), ("tanh_", ()), ("fill_", (2.5,)), ("zero_", ()), ("lerp_", ("T", 0.5)),
    ("addcmul_", ("T", "T")), ("addcdiv_", ("T", "T")), ("remainder_", (0.3,)),
    ("copy_", ("T",)), ("sub_", ("T",)), ("mul_", ("T",)), ("relu_", ()), ("reciprocal_", ()), ("sqrt_", ()),
]


@pytest.mark.parametrize("name,args", INPLACE, ids=[f"{n}{i}" for i, (n, _) in enumerate(INPLACE)])
def test_inplace_values_and_version(name, args, fdtype):
    x = RNG.uniform(0.2, 2.0, (2, 3)).astype(fdtype)
    o = RNG.uniform(0.5, 1.5, (3,)).astype(fdtype)
    t, r = to_nt(x), to_ref(x)
    ta = [to_nt(o) if a == "T" else a for a in args]
    ra = [to_ref(o) if a == "T" else a for a in args]
    v = t._version
    assert getattr(t, name)(*ta) is t
    getattr(r, name)(*ra)
    assert t._version == v + 1
    assert_close(t, r, **TOL[fdtype])


def test_inplace_keeps_views_in_sync_and_dtype_errors():
    base = nt.zeros(2, 3)
    row = base[0] if hasattr(nt.Tensor, "__getitem__") else None
    if row is not None:
        row.add_(1)
        assert base.tolist()[0] == [1.0, 1.0, 1.0] and base._version == row._version == 1
    _both(lambda m: m.zeros(2, dtype=m.int64).add_(1.5))
    _both(lambda m: m.zeros(2, dtype=m.int64).mul_(m.ones(2)))
    _both(lambda m: m.zeros(2, 3).add_(m.ones(4, 3)))
    _both(lambda m: m.zeros(3).add_(m.ones(2, 3)))
    _both(lambda m: m.zeros(2, dtype=m.float64).add_(m.ones(2)))
    _both(lambda m: m.zeros(2, dtype=m.int32).add_(2))
    _both(lambda m: m.zeros(3).fill_(m.tensor(2.0)))
    _both(lambda m: m.zeros(3).fill_(m.tensor([2.0, 3.0])))


def test_inplace_operators_rebind_same_object():
    def f(m):
        t = m.ones(3)
        ident = id(t)
        t += 2
        t *= m.tensor([1.0, 2.0, 3.0])
        t -= 1
        t /= 2
        t **= 2
        t //= 1
        t %= 3
        return t, id(t) == ident
    _both(lambda m: f(m)[0])
    assert f(nt)[1]
    i = nt.ones(3, dtype=nt.int64)
    with pytest.raises(RuntimeError):
        i /= 2  # true division gives float, which cannot be written into an int tensor


def test_out_argument():
    out = nt.empty(3)
    res = nt.add(nt.ones(3), nt.ones(3), out=out)
    assert res is out and out.tolist() == [2.0, 2.0, 2.0]
    out = nt.empty(0)
    nt.mul(nt.ones(2, 2), 3.0, out=out)
    assert out.shape == (2, 2)


def test_math_constants_keep_float32():
    x = nt.tensor([0.1, 0.2], requires_grad=True)
    y = (x * math.pi).exp2().log2() / math.e
    assert y.dtype is nt.float32
    y.sum().backward()
    assert x.grad.dtype is nt.float32
