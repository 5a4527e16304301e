"""Differential tests of _ops/math_extra.py against PyTorch: values, dtypes, gradients, out=, errors."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt
from numtorch.autograd import gradcheck
from conftest import assert_close, to_nt, to_ref

INF, NAN = float("inf"), float("nan")
rng = np.random.default_rng(0)

UNARY = {  # name: sample domain
    "atanh": (-0.9, 0.9), "asinh": (-3, 3), "acosh": (1.1, 4), "deg2rad": (-400, 400), "rad2deg": (-7, 7),
    "sgn": (-3, 3), "angle": (-3, 3),
}
BINARY = {"logaddexp": (-5, 5), "logaddexp2": (-5, 5), "hypot": (-3, 3), "copysign": (-3, 3),
          "nextafter": (-3, 3), "ldexp": (-3, 3)}


def _rgrad(t):
    """``t.grad`` as an ordinary tensor (PyTorch may return a ZeroTensor that .numpy() refuses)."""
    return ref.zeros_like(t) + t.grad


def _pair(shape_a, shape_b, lo, hi, dt):
    return rng.uniform(lo, hi, shape_a).astype(dt), rng.uniform(lo, hi, shape_b).astype(dt)


@pytest.mark.parametrize("name", list(UNARY))
@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_unary_values_and_grads(name, shape, fdtype):
    lo, hi = UNARY[name]
    x = rng.uniform(lo, hi, shape).astype(fdtype)
    a, b = to_nt(x, True), to_ref(x, True)
    ra, rb = getattr(nt, name)(a), getattr(ref, name)(b)
    assert_close(ra, rb)
    assert ra.grad_fn.name() == rb.grad_fn.name()
    g = rng.standard_normal(shape).astype(fdtype)
    ra.backward(to_nt(g)), rb.backward(to_ref(g))
    assert_close(a.grad, _rgrad(b))
    assert_close(getattr(to_nt(x), name)(), getattr(to_ref(x), name)())  # Tensor method


@pytest.mark.parametrize("name", list(UNARY) + ["arctanh", "arcsinh", "arccosh"])
def test_unary_int_bool_and_edges(name):
    for arr in (np.array([-2, 0, 1, 3]), np.array([True, False])):
        assert_close(getattr(nt, name)(to_nt(arr)), getattr(ref, name)(to_ref(arr)))
    e = np.array([0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 0.5], np.float32)
    ra, rb = getattr(nt, name)(to_nt(e)), getattr(ref, name)(to_ref(e))
    assert_close(ra, rb)
    ok = ~np.isnan(rb.numpy())  # a NaN's sign bit is unspecified
    assert np.array_equal(np.signbit(ra.numpy())[ok], np.signbit(rb.numpy())[ok])  # signed zeros match


@pytest.mark.parametrize("name", ["atanh", "asinh", "acosh", "sgn", "angle"])
def test_complex_values_and_grads(name):
    z = np.array([3 + 4j, -1 + 2j, 0.5 - 0.25j, 1 - 1j], np.complex128)
    a, b = to_nt(z, True), to_ref(z, True)
    ra, rb = getattr(nt, name)(a), getattr(ref, name)(b)
    assert_close(ra, rb)
    g = np.array([1 + 2j, 0.5 - 1j, 1j, 2.0]) if rb.is_complex() else np.array([1.0, 2, 3, 4])
    ra.backward(to_nt(g)), rb.backward(to_ref(g))
    assert_close(a.grad, _rgrad(b))


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("shapes", [((4,), (4,)), ((2, 3), (3,)), ((3, 1), (1, 4)), ((), (2,))])
def test_binary_values_and_grads(name, shapes, fdtype):
    x, y = _pair(*shapes, *BINARY[name], fdtype)
    a, b, c, d = to_nt(x, True), to_nt(y, True), to_ref(x, True), to_ref(y, True)
    ra, rb = getattr(nt, name)(a, b), getattr(ref, name)(c, d)
    assert_close(ra, rb)
    assert ra.grad_fn.name() == rb.grad_fn.name()
    g = rng.standard_normal(tuple(rb.shape)).astype(fdtype)
    ra.backward(to_nt(g)), rb.backward(to_ref(g))
    assert_close(a.grad, _rgrad(c))
    assert_close(b.grad, _rgrad(d))
    assert_close(getattr(to_nt(x), name)(to_nt(y)), getattr(to_ref(x), name)(to_ref(y)))


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_promotion_and_edges(name):
    i, f, f64 = np.array([1, -2, 0]), np.array([0.5, -1.5, 2.0], np.float32), np.array([1.0, 2.0, -0.0])
    for x, y in ((i, f), (f, i), (f, f64)):
        assert_close(getattr(nt, name)(to_nt(x), to_nt(y)), getattr(ref, name)(to_ref(x), to_ref(y)))
    e = np.array([0.0, -0.0, INF, -INF, NAN, 1.0, INF, -INF], np.float64)
    e2 = np.array([-0.0, 0.0, INF, -INF, 1.0, NAN, -INF, 2.0], np.float64)
    ra, rb = getattr(nt, name)(to_nt(e), to_nt(e2)), getattr(ref, name)(to_ref(e), to_ref(e2))
    assert_close(ra, rb)
    ok = ~np.isnan(rb.numpy())  # a NaN's sign bit is unspecified
    assert np.array_equal(np.signbit(ra.numpy())[ok], np.signbit(rb.numpy())[ok])


def test_int_int_binaries():
    i, j = np.array([3, -4, 0]), np.array([2, 1, -1])
    for name in ("copysign", "ldexp"):
        assert_close(getattr(nt, name)(to_nt(i), to_nt(j)), getattr(ref, name)(to_ref(i), to_ref(j)))
        b = np.array([True, False, True])
        assert_close(getattr(nt, name)(to_nt(b), to_nt(b)), getattr(ref, name)(to_ref(b), to_ref(b)))
    for s in (-2.0, 3, -0.0):
        assert_close(nt.copysign(to_nt(i), s), ref.copysign(to_ref(i), s))
    x = nt.tensor([0.5, -1.5, 0.0], requires_grad=True)
    xr = ref.tensor([0.5, -1.5, 0.0], requires_grad=True)
    nt.copysign(x, -2.0).sum().backward(), ref.copysign(xr, -2.0).sum().backward()
    assert_close(x.grad, _rgrad(xr))
    assert_close(nt.ldexp(nt.tensor([1.0], dtype=nt.float16), nt.tensor([2])),
                 ref.ldexp(ref.tensor([1.0], dtype=ref.float16), ref.tensor([2])))


@pytest.mark.parametrize("name", ["atanh", "asinh", "acosh", "deg2rad", "rad2deg", "sgn", "angle"])
def test_gradcheck_unary(name):
    lo, hi = UNARY[name]
    if name in ("sgn", "angle"):
        x = nt.tensor(rng.uniform(0.5, 2, (3,)) * np.array([1, -1, 1]), requires_grad=True)
    else:
        x = nt.tensor(rng.uniform(lo, hi, (2, 3)), requires_grad=True)
    assert gradcheck(getattr(nt, name), (x,))


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2", "hypot", "ldexp"])
def test_gradcheck_binary(name):
    x = nt.tensor(rng.uniform(0.5, 2, (2, 3)), requires_grad=True)
    y = nt.tensor(rng.uniform(0.5, 2, (3,)), requires_grad=True)
    assert gradcheck(getattr(nt, name), (x, y))


def test_gradcheck_copysign_frexp():
    x = nt.tensor(rng.uniform(0.5, 2, (4,)) * np.array([1, -1, 1, -1]), requires_grad=True)
    y = nt.tensor([1.0, 2.0, -3.0, -1.0], requires_grad=True)
    assert gradcheck(nt.copysign, (x, y))
    assert gradcheck(lambda t: nt.frexp(t).mantissa, (x,))


def test_logaddexp_complex():
    x = np.array([1 + 1j, -2 + 0.5j]), np.array([0.5 - 1j, 3 + 2j])
    a, b = to_nt(x[0], True), to_ref(x[0], True)
    ra, rb = nt.logaddexp(a, to_nt(x[1])), ref.logaddexp(b, to_ref(x[1]))
    assert_close(ra, rb)
    g = np.array([1 + 1j, 2 - 1j])
    ra.backward(to_nt(g)), rb.backward(to_ref(g))
    assert_close(a.grad, _rgrad(b))


def test_nextafter_and_grads():
    x, y = np.array([0.0, 1.0, -1.0, 0.0], np.float32), np.array([1.0, 0.0, -2.0, -1.0], np.float32)
    assert_close(nt.nextafter(to_nt(x), to_nt(y)), ref.nextafter(to_ref(x), to_ref(y)), rtol=0, atol=0)
    for dt in (nt.float16, nt.bfloat16):
        rd = getattr(ref, str(dt).split(".")[1])
        ra = nt.nextafter(nt.tensor([1.0, -1.0, 0.0, 2.0], dtype=dt), nt.tensor([2.0, 0.0, -1.0, 2.0], dtype=dt))
        rb = ref.nextafter(ref.tensor([1.0, -1.0, 0.0, 2.0], dtype=rd), ref.tensor([2.0, 0.0, -1.0, 2.0], dtype=rd))
        np.testing.assert_array_equal(ra.float().numpy(), rb.float().numpy())


def test_frexp():
    for dt in (np.float32, np.float64):
        x = np.array([3.0, -0.3, 0.0, -0.0, 1024.0, INF, NAN, 1e-40], dt)
        m, e = nt.frexp(to_nt(x))
        mr, er = ref.frexp(to_ref(x))
        assert_close(m, mr)
        np.testing.assert_array_equal(e.numpy(), er.numpy())
        assert e.dtype == nt.int32 and not e.requires_grad
    x, xr = nt.tensor([3.0, -0.3, 8.0], requires_grad=True), ref.tensor([3.0, -0.3, 8.0], requires_grad=True)
    m, e = x.frexp()
    mr, er = xr.frexp()
    assert m.grad_fn.name() == mr.grad_fn.name() == "FrexpBackward0"
    (m * nt.tensor([1.0, 2.0, 3.0])).sum().backward(), (mr * ref.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert_close(x.grad, _rgrad(xr))
    om, oe = nt.empty(3), nt.empty(3, dtype=nt.int32)
    r = nt.frexp(nt.tensor([3.0, 4.0, 0.5]), out=(om, oe))
    assert r.mantissa is om and r.exponent is oe
    np.testing.assert_array_equal(oe.numpy(), [2, 3, 0])
    with pytest.raises(RuntimeError, match="only supports floating-point dtypes"):
        nt.frexp(nt.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="exponent to have int dtype but got long int"):
        nt.frexp(nt.tensor([3.0]), out=(nt.empty(1), nt.empty(1, dtype=nt.int64)))
    with pytest.raises(RuntimeError, match="mantissa to have dtype float but got double"):
        nt.frexp(nt.tensor([3.0]), out=(nt.empty(1, dtype=nt.float64), nt.empty(1, dtype=nt.int32)))


def test_heaviside():
    x = np.array([-1.0, 0.0, -0.0, NAN, 2.0, INF])
    v = np.array([5.0])
    assert_close(nt.heaviside(to_nt(x), to_nt(v)), ref.heaviside(to_ref(x), to_ref(v)))
    i = np.array([-3, 0, 4])
    assert_close(nt.heaviside(to_nt(i), to_nt(np.array([7, 8, 9]))), ref.heaviside(to_ref(i), to_ref(np.array([7, 8, 9]))))
    b = np.array([True, False])
    assert_close(nt.heaviside(to_nt(b), to_nt(b)), ref.heaviside(to_ref(b), to_ref(b)))
    a = nt.tensor([1.0, 0.0], requires_grad=True)
    r = nt.heaviside(a, nt.tensor([0.5]))
    assert r.requires_grad and r.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::heaviside is not implemented"):
        r.sum().backward()
    with pytest.raises(RuntimeError, match="tensors with different dtypes"):
        nt.heaviside(nt.tensor([1.0]), nt.tensor([1]))
    with pytest.raises(RuntimeError, match="complex tensors"):
        nt.heaviside(nt.tensor([1j]), nt.tensor([1j]))
    with pytest.raises(TypeError, match=r"argument 'values' \(position 2\) must be Tensor, not float"):
        nt.heaviside(nt.tensor([1.0]), 1.0)


def test_gcd_lcm():
    a, b = np.array([0, -4, 6, 0, 12, 7]), np.array([0, 6, -9, -5, 18, 1])
    for name in ("gcd", "lcm"):
        assert_close(getattr(nt, name)(to_nt(a), to_nt(b)), getattr(ref, name)(to_ref(a), to_ref(b)))
        assert_close(getattr(nt, name)(to_nt(a[:, None]), to_nt(b)), getattr(ref, name)(to_ref(a[:, None]), to_ref(b)))
        u, s = np.array([4, 6], np.uint8), np.array([6, -9], np.int8)
        assert_close(getattr(nt, name)(to_nt(u), to_nt(s)), getattr(ref, name)(to_ref(u), to_ref(s)))
        with pytest.raises(NotImplementedError, match=f"\"{name}_cpu\" not implemented for 'Float'"):
            getattr(nt, name)(nt.tensor([1.0]), nt.tensor([1]))
        with pytest.raises(NotImplementedError, match="'Bool'"):
            getattr(nt, name)(nt.tensor([True]), nt.tensor([True]))
        with pytest.raises(TypeError, match=r"argument 'other' \(position 2\) must be Tensor, not int"):
            getattr(nt, name)(nt.tensor([4]), 2)
    t = nt.tensor([3, 4])
    assert t.gcd_(nt.tensor([6, 6])) is t and t.tolist() == [3, 2]
    t8 = nt.tensor([3, 4], dtype=nt.int8)
    t8.lcm_(nt.tensor([6, 6]))
    assert t8.dtype == nt.int8 and t8.tolist() == [6, 12]
    assert nt.gcd_(nt.tensor([8]), nt.tensor([12])).tolist() == [4]


def test_predicates():
    x = np.array([-0.0, 0.0, NAN, -NAN, -1.0, INF, -INF, 2.0], np.float32)
    for name in ("signbit", "isneginf", "isposinf", "isreal"):
        for arr in (x, x.astype(np.float64), np.array([-1, 0, 3]), np.array([True, False]), np.array([0, 255], np.uint8)):
            ra, rb = getattr(nt, name)(to_nt(arr)), getattr(ref, name)(to_ref(arr))
            assert_close(ra, rb)
            assert not ra.requires_grad
        a = nt.tensor(x, requires_grad=True)
        assert not getattr(nt, name)(a).requires_grad
    z = np.array([1 + 0j, 1 + 1j, NAN + 0j, 0 - 0j])
    assert_close(nt.isreal(to_nt(z)), ref.isreal(to_ref(z)))
    o = nt.empty(8, dtype=nt.bool)
    assert nt.isposinf(to_nt(x), out=o) is o and o.tolist() == ref.isposinf(to_ref(x)).tolist()
    with pytest.raises(RuntimeError, match="isposinf does not support non-boolean outputs"):
        nt.isposinf(to_nt(x), out=nt.empty(8))
    with pytest.raises(RuntimeError, match="isneginf does not support complex inputs"):
        nt.isneginf(nt.tensor([1j]))
    with pytest.raises(NotImplementedError, match="signbit is not implemented for complex tensors"):
        nt.signbit(nt.tensor([1j]))


def test_positive_sgn_angle_dtypes():
    x = nt.tensor([1.0, -2.0])
    assert nt.positive(x) is x and x.positive() is x
    assert nt.positive(nt.tensor([1, 2])).dtype == nt.int64
    with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not supported"):
        nt.positive(nt.tensor([True]))
    for arr in (np.array([-3, 0, 2]), np.array([1, 0], np.uint8), np.array([True, False])):
        assert_close(nt.sgn(to_nt(arr)), ref.sgn(to_ref(arr)))
    assert_close(nt.angle(to_nt(np.array([True, False]))), ref.angle(to_ref(np.array([True, False]))))


def test_out_and_inplace():
    x, y = np.array([0.3, -0.5, 0.1]), np.array([1.0, 2.0, -3.0])
    for name in ("atanh", "asinh", "deg2rad", "rad2deg", "sgn"):
        o = nt.empty(3, dtype=nt.float64)
        assert getattr(nt, name)(to_nt(x), out=o) is o
        assert_close(o, getattr(ref, name)(to_ref(x)))
        t = to_nt(x)
        assert getattr(t, name + "_")() is t
        assert_close(t, getattr(ref, name)(to_ref(x)))
    for name in ("hypot", "copysign", "nextafter", "ldexp", "logaddexp"):
        o = nt.empty(3, dtype=nt.float64)
        getattr(nt, name)(to_nt(x), to_nt(y), out=o)
        assert_close(o, getattr(ref, name)(to_ref(x), to_ref(y)))
    for name in ("hypot", "copysign", "nextafter", "ldexp"):
        t = to_nt(x)
        getattr(t, name + "_")(to_nt(y))
        assert_close(t, getattr(ref.Tensor, name + "_")(to_ref(x), to_ref(y)))
    t = to_nt(x.astype(np.float32))
    t.heaviside_(nt.tensor([0.5], dtype=nt.float32))
    assert_close(t, ref.heaviside(to_ref(x.astype(np.float32)), ref.tensor([0.5])))
    assert_close(nt.acosh_(nt.tensor([2.0, 3.0])), ref.acosh(ref.tensor([2.0, 3.0])))
    assert nt.arctanh is nt.atanh and nt.arcsinh_ is nt.asinh_
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        nt.tensor([3, 4]).atanh_()
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        nt.hypot(nt.tensor([1.0]), nt.tensor([1.0, 2.0]), out=nt.empty(2, dtype=nt.int64))
    # in-place under autograd records the op's backward node
    a = nt.tensor([0.2, 0.4], requires_grad=True)
    b = a * 1
    b.atanh_()
    assert b.grad_fn.name() == "AtanhBackward0"
    b.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 1 / (1 - np.array([0.2, 0.4]) ** 2))


def test_errors():
    with pytest.raises(TypeError, match=r"atanh\(\): argument 'input' \(position 1\) must be Tensor, not list"):
        nt.atanh([1.0])
    for name in ("logaddexp", "logaddexp2", "hypot", "nextafter", "ldexp"):
        with pytest.raises(TypeError, match=rf"{name}\(\): argument 'other' \(position 2\) must be Tensor, not float"):
            getattr(nt, name)(nt.tensor([1.0]), 2.0)
    for name in ("logaddexp", "logaddexp2", "hypot", "nextafter"):
        with pytest.raises(NotImplementedError, match=f"\"{name}_cpu\" not implemented for 'Long'"):
            getattr(nt, name)(nt.tensor([1]), nt.tensor([2]))
        with pytest.raises(NotImplementedError, match="'Bool'"):
            getattr(nt, name)(nt.tensor([True]), nt.tensor([False]))
    for name in ("logaddexp2", "hypot"):
        with pytest.raises(NotImplementedError, match="'ComplexFloat'"):
            getattr(nt, name)(nt.tensor([1j]), nt.tensor([1j]))
    with pytest.raises(NotImplementedError, match="\"copysign_cpu\" not implemented for 'ComplexFloat'"):
        nt.copysign(nt.tensor([1j]), nt.tensor([1.0]))
    for name in ("deg2rad", "rad2deg"):
        with pytest.raises(RuntimeError, match=f"{name} is not supported for complex tensors"):
            getattr(nt, name)(nt.tensor([1j]))
    with pytest.raises(RuntimeError, match=r"size of tensor a \(2\) must match the size of tensor b \(3\) at "
                                           "non-singleton dimension 0"):
        nt.hypot(nt.tensor([1.0, 2.0]), nt.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match=r"size of tensor a \(2\)"):
        nt.gcd(nt.tensor([1, 2]), nt.tensor([1, 2, 3]))
