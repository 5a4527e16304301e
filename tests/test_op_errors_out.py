"""Bad inputs from PyTorch's OpInfo ``error_inputs`` (issue #16), every one of them (the database test
runs only the first three per entry), differential against PyTorch: each call in ``CASES`` runs on
numtorch and torch; where torch raises, numtorch raises the same exception type; where torch returns,
numtorch returns the same values, dtype and shape. Most are about ``out=``: its dtype, and memory it
shares with itself (an expanded tensor) or with an input (the input itself, a view of it, or a view
that overlaps once ``out`` is resized); the rest are argument checks (tensor-only arguments, numbers
a dtype can't hold, bounds, nn argument rules)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as nt

torch = pytest.importorskip("torch")


def _t(L, data, dtype="int64"):
    return L.tensor(data, dtype=getattr(L, dtype))


def _e(L, *shape, dtype="float32"):
    return L.empty(shape, dtype=getattr(L, dtype))


def _x(L):
    return L.arange(6.)


def _kth_out_is_input(L):
    x = L.arange(10.)
    return L.kthvalue(x, 5, out=(x, _e(L, dtype="int64")))


def _gather_out_overlaps_index(L):
    ind = _t(L, [2, 1, 0])  # out = ind[:1] resized to index's 2 elements then covers ind[1]
    return L.gather(ind.clone(), 0, ind[1:], out=ind[:1])


def _take_out_overlaps_index(L):
    ind = _t(L, [2, 1, 0])
    return L.take(ind.clone(), ind[1:], out=ind[:2])


def _cat_out_is_input(L, empty):
    a, b = (_e(L, 0) if empty else _x(L).reshape(2, 3)), _x(L).reshape(2, 3) + 1
    return L.cat((a, b), out=a)


def _cat_out_view_of_input(L):
    y = _x(L).reshape(3, 2)
    return L.cat((_x(L).reshape(3, 2), y), out=y[:2])


def _masked_select(L, out_kind):
    x, m = _x(L), _x(L) > 2
    out = {"expanded": L.zeros(1).expand(3), "input": x, "mask": m, "double": _e(L, 3, dtype="float64")}[out_kind]
    return L.masked_select(m if out_kind == "mask" else x, m, out=out)


def _unbound(name):
    return lambda L: getattr(L.Tensor, name)(2, _t(L, [1, 2, 3]))


M = lambda L: L.tensor(True)  # noqa: E731
F = lambda L: L.nn.functional  # noqa: E731
FLOAT64 = lambda L: L.ones(2, 3, dtype=L.float64)  # noqa: E731

CASES = {
    # arange: an integer dtype (asked, or out's) truncates bounds and step first; a step truncated to 0
    "arange_int_out_truncated_step": lambda L: L.arange(0, 64, 0.5, out=_e(L, 0, dtype="int64")),
    "arange_int_dtype_truncated_step": lambda L: L.arange(0, 2, 0.3, dtype=L.int64),
    "arange_int_dtype_truncated_bounds": lambda L: L.arange(0.5, 2.7, 1, dtype=L.int64),
    "arange_out_dtype": lambda L: L.arange(0, 4, 1, out=_e(L, 0, dtype="int32")),
    "arange_float_out": lambda L: L.arange(0, 2, 0.5, out=_e(L, 0)),
    "arange_zero_step": lambda L: L.arange(0, 2, 0),
    # no Scalar overload: other must be a Tensor
    "atan2_scalar_other": lambda L: L.atan2(_t(L, [1, 2, 3]), 2),
    "atan2_method_scalar_other": lambda L: _t(L, [1, 2, 3]).atan2(2),
    "logical_and_scalar_other": lambda L: L.logical_and(_t(L, [1, 2, 3]), 2),
    "logical_or_scalar_other": lambda L: L.logical_or(_t(L, [1, 2, 3]), 2),
    "logical_xor_scalar_other": lambda L: L.logical_xor(_t(L, [1, 2, 3]), 2),
    "logical_xor_method_scalar_other": lambda L: _t(L, [1, 2, 3]).logical_xor(2),
    "isclose_negative_rtol": lambda L: L.isclose(L.tensor(1.), L.tensor(1.), rtol=-0.4),
    "isclose_negative_atol": lambda L: L.isclose(L.tensor(1.), L.tensor(1.), atol=-0.4),
    "isclose_scalar_other": lambda L: L.isclose(_t(L, [1, 2, 3]), 2),
    "isclose_scalar_input": lambda L: L.isclose(2, _t(L, [1, 2, 3])),
    "isclose_scalars": lambda L: L.isclose(2, 3),
    "isclose_dtype_mismatch": lambda L: L.isclose(L.tensor([1.]), _t(L, [1])),
    "allclose_dtype_mismatch": lambda L: L.allclose(L.tensor([1.]), L.tensor([1.], dtype=L.float64)),
    "allclose_negative_rtol": lambda L: L.allclose(L.tensor([1.]), L.tensor([1.]), rtol=-1.),
    "isclose_values": lambda L: L.isclose(L.tensor([1., 2.]), L.tensor([1., 2.1])),
    # reflected operators PyTorch implements in C refuse a non-Tensor self when called unbound
    "radd_unbound_on_int": _unbound("__radd__"),
    "rmul_unbound_on_int": _unbound("__rmul__"),
    "rand_unbound_on_int": _unbound("__rand__"),
    "ror_unbound_on_int": _unbound("__ror__"),
    "rxor_unbound_on_int": _unbound("__rxor__"),
    "radd_operator": lambda L: 2 + _t(L, [1, 2, 3]),
    "rxor_operator": lambda L: 2 ^ _t(L, [1, 2, 3]),
    # complex: out must be the complex dtype of the parts
    "complex_out_dtype": lambda L: L.complex(FLOAT64(L), FLOAT64(L), out=_e(L, 2, 3, dtype="complex64")),
    "complex_out": lambda L: L.complex(FLOAT64(L), FLOAT64(L), out=_e(L, 2, 3, dtype="complex128")),
    # kthvalue's out=(values, indices)
    "kthvalue_out_is_input": _kth_out_is_input,
    "kthvalue_out_values_dtype": lambda L: L.kthvalue(_x(L), 2, out=(_e(L, 0, dtype="float64"),
                                                                      _e(L, 0, dtype="int64"))),
    "kthvalue_out_indices_dtype": lambda L: L.kthvalue(_x(L), 2, out=(_e(L, 0), _e(L, 0))),
    "kthvalue_out": lambda L: L.kthvalue(_x(L), 2, out=(_e(L, 0), _e(L, 0, dtype="int64"))),
    # linspace/logspace bounds must be 0-d
    "logspace_1d_bounds": lambda L: L.logspace(_t(L, [1, 2]), _t(L, [1, 2]), 1),
    "logspace_0d_and_1d_bounds": lambda L: L.logspace(_t(L, 1), _t(L, [1, 2]), 4),
    "logspace_1d_start_negative_steps": lambda L: L.logspace(_t(L, [1]), 3, -1),
    "linspace_1d_start": lambda L: L.linspace(_t(L, [1, 2]), 3, 4),
    "linspace_0d_start": lambda L: L.linspace(L.tensor(1.), 3, 3),
    # masked_fill: numbers the dtype can't hold (c10's checked_convert)
    "masked_fill_complex_into_float": lambda L: L.zeros(2, 2).masked_fill(M(L), 1j),
    "masked_fill_complex_tensor_into_long": lambda L: _t(L, [1, 2]).masked_fill(M(L), L.tensor(1j)),
    "masked_fill_300_into_uint8": lambda L: _t(L, [1, 2], "uint8").masked_fill(M(L), 300),
    "masked_fill_1e300_into_float32": lambda L: L.zeros(2).masked_fill(M(L), 1e300),
    "masked_fill_70000_into_half": lambda L: L.zeros(2, dtype=L.float16).masked_fill(M(L), 70000),
    "masked_fill_nan_into_int": lambda L: _t(L, [1, 2], "int32").masked_fill(M(L), float("nan")),
    "masked_fill_minus_1_into_uint8": lambda L: _t(L, [1, 2], "uint8").masked_fill(M(L), -1),
    "masked_fill_real_complex_into_long": lambda L: _t(L, [1, 2]).masked_fill(M(L), 1 + 0j),
    "masked_fill_inf_into_float32": lambda L: L.zeros(2).masked_fill(M(L), float("inf")),
    "masked_fill_float_into_long": lambda L: _t(L, [1, 2]).masked_fill(M(L), 2.5),
    "masked_fill_float_tensor_into_long": lambda L: _t(L, [1, 2]).masked_fill(M(L), L.tensor(2.5)),
    "index_fill_complex_into_float": lambda L: L.zeros(2).index_fill(0, _t(L, [0]), 1j),
    # masked_select's out
    "masked_select_out_expanded": lambda L: _masked_select(L, "expanded"),
    "masked_select_out_is_input": lambda L: _masked_select(L, "input"),
    "masked_select_out_is_mask": lambda L: _masked_select(L, "mask"),
    "masked_select_out_dtype": lambda L: _masked_select(L, "double"),
    # aminmax's out=(min, max) of the input's dtype
    "aminmax_out_dtype": lambda L: L.aminmax(L.ones(4, 4), dim=0, out=(_e(L, 4), _e(L, 4, dtype="float64"))),
    "aminmax_out": lambda L: L.aminmax(_x(L).reshape(2, 3), dim=1, out=(_e(L, 2), _e(L, 2))),
    # nn: F's Python-level checks (ValueError) before ATen's (RuntimeError)
    "adaptive_avg_pool2d_2d_input_tuple": lambda L: F(L).adaptive_avg_pool2d(L.ones(2, 2), (2, 2)),
    "adaptive_max_pool2d_2d_input_tuple": lambda L: F(L).adaptive_max_pool2d(L.ones(2, 2), (2, 2)),
    "adaptive_avg_pool2d_2d_input_int": lambda L: F(L).adaptive_avg_pool2d(L.ones(2, 2), 2),
    "adaptive_avg_pool2d_none_size": lambda L: F(L).adaptive_avg_pool2d(L.ones(1, 4, 4), (2, None)),
    "prelu_2d_weight": lambda L: F(L).prelu(L.ones(2, 8, 3), L.ones(2, 4)),
    "prelu_count_before_ndim": lambda L: F(L).prelu(L.ones(2, 3, 4), L.ones(2, 4)),
    "rrelu_lower_above_upper": lambda L: F(L).rrelu(L.ones(5, 5), 0.3, 0.1),
    "rrelu_lower_above_upper_training": lambda L: F(L).rrelu(L.ones(5, 5), 0.3, 0.1, training=True),
    "rrelu_lower_above_upper_int": lambda L: F(L).rrelu(_t(L, [1, 2]), 0.3, 0.1),
    "triplet_margin_loss_negative_margin": lambda L: F(L).triplet_margin_loss(L.ones(3, 4), L.ones(3, 4),
                                                                              L.ones(3, 4), margin=-1.0),
    "triplet_margin_loss_zero_margin": lambda L: F(L).triplet_margin_loss(L.ones(3, 4), L.ones(3, 4),
                                                                          L.ones(3, 4), margin=0.0),
    # narrow's tensor start must be a 0-d integer tensor
    "narrow_1d_tensor_start": lambda L: L.narrow(L.ones(20, 10, 5), 1, _t(L, [1, 2], "int32"), 2),
    "narrow_bool_tensor_start": lambda L: L.narrow(L.ones(20, 10, 5), -3, L.tensor(False), 3),
    "narrow_float_tensor_start": lambda L: L.narrow(L.ones(4, 5), 1, L.tensor(1.), 2),
    "narrow_0d_int_tensor_start": lambda L: L.narrow(_x(L), 0, _t(L, 1), 2),
    # gather: out's dtype, then its memory (checked once resized to the index's shape)
    "gather_out_dtype": lambda L: L.gather(L.ones(2, 2), 1, _t(L, [[0, 0], [1, 0]]), out=_e(L, 2, 2, dtype="float64")),
    "gather_out_expanded": lambda L: L.gather(_x(L), 0, _t(L, [2, 1, 0]), out=L.zeros(1).expand(3)),
    "gather_out_is_input": lambda L: (lambda s: L.gather(s, 0, _t(L, [2, 1, 0]), out=s))(_x(L)),
    "gather_out_overlaps_index_once_resized": _gather_out_overlaps_index,
    "gather_out": lambda L: L.gather(_x(L), 0, _t(L, [2, 1, 0]), out=_e(L, 3)),
    # index_select / take
    "index_select_out_expanded": lambda L: L.index_select(L.ones(3, 6), 1, _t(L, [0, 1]),
                                                          out=L.zeros(1, 6).expand(2, 6)),
    "index_select_out_is_input": lambda L: (lambda s: L.index_select(s, 0, _t(L, [0, 1]), out=s))(_x(L)),
    "index_select_out_dtype": lambda L: L.index_select(_x(L), 0, _t(L, [0, 1]), out=_e(L, 2, dtype="float64")),
    "take_out_expanded": lambda L: L.take(_x(L), _t(L, [2, 1, 0]), out=L.zeros(1).expand(3)),
    "take_out_is_input": lambda L: (lambda s: L.take(s, _t(L, [2, 1, 0]), out=s))(_x(L)),
    "take_out_overlaps_index": _take_out_overlaps_index,
    "take_out_dtype": lambda L: L.take(_x(L), _t(L, [0, 1]), out=_e(L, 2, dtype="float64")),
    "take_out": lambda L: L.take(_x(L), _t(L, [4, 1]), out=_e(L, 2)),
    # sampling
    "multinomial_out_double": lambda L: L.multinomial(L.ones(1, 2, dtype=L.float64), 2,
                                                      out=_e(L, 1, 2, dtype="float64")),
    "multinomial_out_int32": lambda L: L.multinomial(L.ones(2), 1, out=_e(L, 1, dtype="int32")),
    "bernoulli_out_expanded": lambda L: L.bernoulli(L.zeros(6), out=L.zeros(1).expand(6)),
    # cat: out must not share memory with any input, even an empty one that is out itself
    "cat_out_expanded": lambda L: L.cat([L.ones(5, 5), L.ones(5, 5)], out=L.zeros(1, 5).expand(10, 5)),
    "cat_out_is_empty_input": lambda L: _cat_out_is_input(L, True),
    "cat_out_is_input": lambda L: _cat_out_is_input(L, False),
    "cat_out_view_of_input": _cat_out_view_of_input,
    "cat_out": lambda L: L.cat([_x(L), _x(L)], out=_e(L, 12)),
    # TensorIterator ops refuse an expanded out too
    "add_out_expanded": lambda L: L.add(_x(L)[:3], 1, out=L.zeros(1).expand(3)),
}


def _outcome(L, fn):
    """``fn(L)``'s result as comparable data, or the exception it raised."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(L)
    except Exception as e:  # noqa: BLE001 - the exception type is what is compared
        return e
    rs = r if isinstance(r, (tuple, list)) else (r,)
    return [(np.asarray(x.detach().numpy()).copy(), str(x.dtype).replace("numtorch", "torch"), tuple(x.shape))
            if hasattr(x, "detach") else (np.asarray(x), "", ()) for x in rs]


@pytest.mark.parametrize("name", sorted(CASES))
def test_agrees_with_torch(name):
    want, got = _outcome(torch, CASES[name]), _outcome(nt, CASES[name])
    if isinstance(want, Exception) or isinstance(got, Exception):
        assert type(got).__name__ == type(want).__name__, f"torch: {want!r}; numtorch: {got!r}"
        return
    assert len(got) == len(want)
    for (a, da, sa), (b, db, sb) in zip(want, got):
        assert (db, sb) == (da, sa)
        np.testing.assert_array_equal(b, a)


# messages in PyTorch's words where users read them (what was expected and what came)
@pytest.mark.quick
@pytest.mark.parametrize("name", ["arange_int_out_truncated_step", "atan2_scalar_other", "isclose_negative_rtol",
                                  "isclose_dtype_mismatch", "complex_out_dtype", "kthvalue_out_is_input",
                                  "logspace_1d_bounds", "logspace_0d_and_1d_bounds", "linspace_1d_start",
                                  "masked_fill_complex_into_float", "masked_fill_300_into_uint8",
                                  "masked_fill_70000_into_half", "masked_select_out_expanded",
                                  "masked_select_out_dtype", "aminmax_out_dtype",
                                  "adaptive_avg_pool2d_2d_input_tuple",
                                  "prelu_2d_weight", "rrelu_lower_above_upper", "triplet_margin_loss_negative_margin",
                                  "narrow_1d_tensor_start", "gather_out_dtype",
                                  "gather_out_overlaps_index_once_resized",
                                  "index_select_out_dtype", "take_out_dtype", "multinomial_out_double",
                                  "cat_out_is_empty_input"])
def test_message_like_torch(name):
    want, got = _outcome(torch, CASES[name]), _outcome(nt, CASES[name])
    assert isinstance(want, Exception) and isinstance(got, Exception)
    assert str(got) == str(want)


def test_unbound_reflected_operator_message():
    with pytest.raises(TypeError, match="descriptor '__radd__' for 'Tensor' objects doesn't apply to a 'int' object"):
        nt.Tensor.__radd__(2, nt.tensor([1, 2]))
