"""dtypes and type promotion against PyTorch: promote_types, result_type, and the dtypes ops produce."""
import itertools
import pickle

import numpy as np
import pytest
import torch as ref

import numtorch as nt

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
         "complex64", "complex128"]
REAL = NAMES[:10]
SCALARS = [True, 2, -3, 2.5, 1 + 2j]


def _t(m, name, shape):
    return m.ones(shape, dtype=getattr(m, name))


def _name(d):
    return str(d).replace("torch.", "")


def test_dtype_objects():
    for n in NAMES:
        d, r = getattr(nt, n), getattr(ref, n)
        assert repr(d) == repr(r) == f"torch.{n}"
        assert d.is_floating_point == r.is_floating_point
        assert d.is_complex == r.is_complex
        assert d.itemsize == r.itemsize
        assert d.is_signed == r.is_signed
        assert pickle.loads(pickle.dumps(d)) is d
    for alias in ("float", "double", "half", "long", "int", "short", "cfloat", "cdouble"):
        assert repr(getattr(nt, alias)) == repr(getattr(ref, alias))
    assert nt.float32 == nt.float32 and nt.float32 != nt.float64


@pytest.mark.parametrize("a,b", list(itertools.product(NAMES, NAMES)))
def test_promote_types(a, b):
    assert _name(nt.promote_types(getattr(nt, a), getattr(nt, b))) == \
        _name(ref.promote_types(getattr(ref, a), getattr(ref, b)))


@pytest.mark.parametrize("a", NAMES)
def test_result_type_tensor_tensor(a):
    for b in NAMES:
        for sa, sb in [((2,), (2,)), ((2,), ()), ((), (2,)), ((), ())]:
            r = ref.result_type(_t(ref, a, sa), _t(ref, b, sb))
            if r is ref.complex32:  # numtorch has no complex32 (half + complex 0-d); complex64 instead
                continue
            assert _name(nt.result_type(_t(nt, a, sa), _t(nt, b, sb))) == _name(r), (a, b, sa, sb)


@pytest.mark.parametrize("a", NAMES)
def test_result_type_tensor_scalar_weak(a):
    for s in SCALARS:
        for shape in [(2,), ()]:
            r = ref.result_type(_t(ref, a, shape), s)
            if r is ref.complex32:
                continue
            assert _name(nt.result_type(_t(nt, a, shape), s)) == _name(r), (a, s, shape)


def test_result_type_examples():
    # the classic cases, spelled out
    assert nt.result_type(nt.tensor([1, 2]), 2.5) is nt.float32
    assert nt.result_type(nt.tensor([1, 2], dtype=nt.int8), 1000) is nt.int8
    assert nt.result_type(nt.tensor([1.0], dtype=nt.float16), 2.0) is nt.float16
    assert nt.result_type(nt.tensor([1.0], dtype=nt.float16), nt.tensor(2.0, dtype=nt.float64)) is nt.float16
    assert nt.result_type(nt.tensor([1], dtype=nt.int32), nt.tensor(2.0, dtype=nt.float64)) is nt.float64
    assert nt.result_type(nt.tensor(1, dtype=nt.int32), nt.tensor(2, dtype=nt.int64)) is nt.int64
    assert nt.result_type(nt.tensor([True]), 3) is nt.int64
    assert nt.result_type(nt.tensor([1], dtype=nt.uint8), nt.tensor([1], dtype=nt.int8)) is nt.int16
    assert nt.result_type(nt.tensor([1], dtype=nt.bfloat16), nt.tensor([1], dtype=nt.float16)) is nt.float32


OPS = {
    "add": lambda m, a, b: m.add(a, b), "sub": lambda m, a, b: m.sub(a, b), "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b, "maximum": lambda m, a, b: m.maximum(a, b), "atan2": lambda m, a, b: m.atan2(a, b),
    "remainder": lambda m, a, b: a % b, "floor_divide": lambda m, a, b: a // b, "eq": lambda m, a, b: a == b,
    "lt": lambda m, a, b: a < b, "where": lambda m, a, b: m.where(m.ones(2, dtype=m.bool), a, b),
    "pow": lambda m, a, b: m.pow(a, b),
}


def _res(m, fn, a, b):
    try:
        return _name(fn(m, a, b).dtype)
    except Exception as e:  # noqa: BLE001 - the exception type is what we compare
        return type(e).__name__


# bool-bool arithmetic corner cases where numtorch is laxer than PyTorch (documented gaps)
_LAX = {("pow", "bool", "bool"), ("floor_divide", "bool", "bool"), ("remainder", "bool", "bool")}


@pytest.mark.parametrize("op", list(OPS))
def test_op_result_dtypes_tensor_tensor(op):
    fn = OPS[op]
    for a, b in itertools.product(REAL, REAL):
        if (op, a, b) in _LAX:
            continue
        for sa, sb in [((2,), (2,)), ((2,), ()), ((), (2,))]:
            r = _res(ref, fn, _t(ref, a, sa), _t(ref, b, sb))
            assert _res(nt, fn, _t(nt, a, sa), _t(nt, b, sb)) == r, (op, a, b, sa, sb)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "remainder", "floor_divide", "eq", "lt", "pow"])
def test_op_result_dtypes_tensor_scalar(op):
    fn = OPS[op]
    for a in REAL:
        for s in (True, 2, 2.5):
            if a == "bool" and (op == "pow" or (op in ("remainder", "floor_divide") and s is True)):
                continue  # bool-bool arithmetic: see _LAX
            for rev in (False, True):
                f = (lambda m, x, y: fn(m, y, x)) if rev else fn
                r = _res(ref, f, _t(ref, a, (2,)), s)
                assert _res(nt, f, _t(nt, a, (2,)), s) == r, (op, a, s, rev)


def test_reduced_precision_values_keep_dtype():
    x = np.array([0.1, 1.5, -2.25, 3.0], np.float32)
    for d in ("bfloat16", "float16"):
        a, r = nt.tensor(x, dtype=getattr(nt, d)), ref.tensor(x, dtype=getattr(ref, d))
        for f in (lambda t: t * 2.5, lambda t: t + 1, lambda t: t / 3.0, lambda t: t.exp(), lambda t: -t,
                  lambda t: t * t):
            y, yr = f(a), f(r)
            assert _name(y.dtype) == _name(yr.dtype)
            np.testing.assert_allclose(y.float().numpy(), yr.float().numpy(), rtol=1e-2)


def test_default_dtype_switch():
    assert nt.get_default_dtype() is nt.float32
    try:
        nt.set_default_dtype(nt.float64)
        assert nt.tensor([1.5]).dtype is nt.float64
        assert nt.zeros(2).dtype is nt.float64
        assert (nt.tensor([1, 2]) * 0.5).dtype is nt.float64
        assert nt.result_type(nt.tensor([1]), 1.0) is nt.float64
    finally:
        nt.set_default_dtype(nt.float32)
    assert nt.tensor([1.5]).dtype is nt.float32
    with pytest.raises(TypeError):
        nt.set_default_dtype(nt.int64)


def test_int_float_ops_promote_to_default_float():
    i = nt.tensor([1, 2, 3])
    assert (i / 2).dtype is nt.float32
    assert (i / i).dtype is nt.float32
    assert i.exp().dtype is nt.float32 and i.sqrt().dtype is nt.float32
    assert (i * 1.5).dtype is nt.float32
    assert (i + True).dtype is nt.int64
    assert (nt.tensor([True]) + nt.tensor([True])).dtype is nt.bool
    np.testing.assert_array_equal((i / 2).numpy(), np.array([0.5, 1, 1.5], np.float32))


def test_subtraction_of_bool_errors():
    for a, b in [(lambda m: m.ones(2, dtype=m.bool), lambda m: m.ones(2, dtype=m.bool)),
                 (lambda m: m.ones(2, dtype=m.bool), lambda m: 1),
                 (lambda m: m.ones(2), lambda m: m.ones(2, dtype=m.bool))]:
        with pytest.raises(RuntimeError) as er:
            a(ref) - b(ref)
        with pytest.raises(RuntimeError) as en:
            a(nt) - b(nt)
        assert str(en.value) == str(er.value)
