"""Core ops on bad and edge inputs, differential against PyTorch (issue #15 items 11/12): each call
in ``CASES`` runs on numtorch and torch; where torch raises, numtorch raises the same exception type;
where torch returns, numtorch returns the same values, dtype and shape. The table holds the exact
calls the bad-input fuzz (``fuzz_bad_input.py``) found disagreeing: PyTorch's arg-parser TypeErrors,
0-d and empty inputs, dtype rules and the order in which PyTorch checks things."""
from __future__ import annotations

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import numtorch as nt

torch = pytest.importorskip("torch")


def _z(L, *shape, dtype="float32"):
    return L.zeros(shape, dtype=getattr(L, dtype))


def _t(L, data, dtype="int64"):
    return L.tensor(data, dtype=getattr(L, dtype))


def _i(L, data, dtype="int64"):
    return L.tensor(data, dtype=getattr(L, dtype)) if data else L.zeros(0, dtype=getattr(L, dtype))


X = lambda L: L.arange(6.).reshape(2, 3)  # noqa: E731
S = lambda L: L.tensor(1.5)  # noqa: E731

CASES = {
    # reductions: PyTorch's overloads of sum/mean/prod have keepdim only with dim; prod takes one int dim
    "sum_keepdim_no_dim": lambda L: L.sum(X(L), keepdim=True),
    "sum_method_keepdim_no_dim": lambda L: X(L).sum(keepdim=False),
    "sum_dim_none_keepdim": lambda L: L.sum(X(L), dim=None, keepdim=True),
    "sum_positional_none_keepdim": lambda L: L.sum(X(L), None, True),
    "sum_float_dim": lambda L: L.sum(X(L), 1.5),
    "mean_keepdim_no_dim": lambda L: L.mean(X(L), keepdim=True),
    "mean_int_keepdim_no_dim": lambda L: L.mean(X(L).long(), keepdim=True),
    "mean_bool_float_dim": lambda L: L.mean(X(L).bool(), dim=1.5),
    "mean_dim_none_keepdim": lambda L: L.mean(X(L), dim=None, keepdim=True),
    "mean_str_dim": lambda L: L.mean(X(L), "a"),
    "prod_dim_none": lambda L: L.prod(X(L), dim=None),
    "prod_positional_none": lambda L: L.prod(X(L), None),
    "prod_keepdim_no_dim": lambda L: L.prod(X(L), keepdim=True),
    "prod_all": lambda L: L.prod(X(L) + 1),
    "prod_dim_keepdim": lambda L: L.prod(X(L), 1, True),
    "amax_keepdim_no_dim": lambda L: L.amax(X(L), keepdim=True),
    "amax_repeated_empty_dim": lambda L: L.amax(_z(L, 0), dim=(0, 0)),
    "amax_repeated_dim": lambda L: L.amax(X(L), dim=(0, 0)),
    "std_keepdim_no_dim": lambda L: L.std(X(L), keepdim=True),
    "std_int_float_dim": lambda L: L.std(X(L).long(), dim=1.5),
    "std_bool_str_dim": lambda L: L.std(X(L).bool(), dim="a"),
    "std_bool_repeated_dim": lambda L: L.std(X(L).bool(), dim=(0, 0)),
    "argmax_keepdim_no_dim": lambda L: L.argmax(X(L), keepdim=True),
    "argmax_bool_float_dim": lambda L: L.argmax(X(L).bool(), dim=1.5),
    "argmax_bool_tuple_dim": lambda L: L.argmax(X(L).bool(), dim=(0, 0)),
    # shape ops
    "squeeze_none": lambda L: L.squeeze(X(L), None),
    "squeeze_dim_none": lambda L: L.squeeze(X(L), dim=None),
    "squeeze_float": lambda L: L.squeeze(X(L), 1.5),
    "squeeze_all": lambda L: L.squeeze(_z(L, 1, 2, 1)),
    "squeeze_tuple": lambda L: L.squeeze(_z(L, 1, 2, 1), (0, 2)),
    "movedim_0d": lambda L: L.movedim(S(L), 0, -1),
    "movedim_0d_seq": lambda L: L.movedim(S(L), (0,), (-1,)),
    "movedim_0d_out_of_range": lambda L: L.movedim(S(L), 1, 0),
    "movedim_0d_repeated": lambda L: L.movedim(S(L), (0, 0), (0, -1)),
    "movedim_list_and_int": lambda L: L.movedim(X(L), [0, 1, 5], 3),
    "movedim_tuple_and_int": lambda L: L.movedim(X(L), (0, 0), 2),
    "movedim_float": lambda L: L.movedim(X(L), 1.5, 0),
    "movedim_none": lambda L: L.movedim(X(L), None, 0),
    "movedim_count_mismatch": lambda L: L.movedim(X(L), [0, 1], [0]),
    "movedim_lists": lambda L: L.movedim(X(L), [0, 1], [1, 0]),
    "permute_no_dims": lambda L: S(L).permute(),
    "permute_0d_empty": lambda L: S(L).permute(()),
    "permute_0d_one": lambda L: S(L).permute(0),
    "permute_kw": lambda L: X(L).permute(dims=(1, 0)),
    "expand_no_size": lambda L: X(L).expand(),
    "expand_0d_empty": lambda L: S(L).expand(()),
    "reshape_no_shape": lambda L: X(L).reshape(),
    "flip_no_dims": lambda L: X(L).flip(),
    "repeat_no_sizes": lambda L: X(L).repeat(),
    "flip_0d": lambda L: L.flip(S(L), (-1,)),
    "transpose_0d": lambda L: L.transpose(S(L), 0, -1),
    "transpose_tuple_after_bad_dim": lambda L: L.transpose(X(L), 5, (0, 0)),
    "transpose_float_dim0": lambda L: L.transpose(X(L), 1.5, 5),
    "transpose_str_dim1": lambda L: L.transpose(X(L), 5, "a"),
    "split_none_dim_0d": lambda L: L.split(S(L), 0, None),
    "split_float_dim": lambda L: L.split(X(L), 1, 1.5),
    "split_list_dim_0d": lambda L: L.split(S(L), 0, [0, 1, 5]),
    "split_float_size": lambda L: L.split(X(L), 1.5, 0),
    "chunk_tuple_dim": lambda L: L.chunk(X(L), 0, (0, 0)),
    "chunk_str_dim_0d": lambda L: L.chunk(S(L), 1, "a"),
    "chunk_float_chunks": lambda L: L.chunk(X(L), 1.5, 0),
    "chunk_zero_chunks": lambda L: L.chunk(X(L), 0, 5),
    "stack_float_dim": lambda L: L.stack([X(L), _z(L, 0)], 1.5),
    "stack_bad_dim_before_shapes": lambda L: L.stack([X(L), _z(L, 0)], 5),
    "stack_none_dim": lambda L: L.stack([X(L), X(L)], None),
    "cat_none_dim_0d": lambda L: L.cat([S(L), S(L)], None),
    "cat_str_dim_0d": lambda L: L.cat([S(L), S(L)], "a"),
    "cat_empty_1d_any_dim": lambda L: L.cat([_z(L, 0), _z(L, 0)], 2),
    "cat_empty_1d_negative_dim": lambda L: L.cat([_z(L, 0), _z(L, 0, dtype="int64")], -2),
    "cat_empty_1d_with_2d_bad_dim": lambda L: L.cat([_z(L, 0), _z(L, 0, 3)], 5),
    # pointwise
    "pow_int_negative_tensor": lambda L: L.pow(_t(L, [2, 3, 1, -1, 0, -2]), _t(L, [-1, -2, -3, -3, -1, -1])),
    "pow_int_negative_0d": lambda L: L.pow(_t(L, [2, 1, -1]), _t(L, -1)),
    "pow_scalar_base_negative": lambda L: L.pow(2, _t(L, [-1, -2])),
    "pow_int8_uint8": lambda L: L.pow(_t(L, [2, 3], "uint8"), _t(L, [-1, -2], "int8")),
    "pow_int_negative_scalar": lambda L: L.pow(_t(L, [2, 3]), -1),
    "pow_bool_bool": lambda L: L.pow(_t(L, [True], "bool"), _t(L, [True], "bool")),
    "pow_bool_bool_bad_shapes": lambda L: L.pow(_z(L, 2, 3, 0, dtype="bool"), _z(L, 1, 2, 1, dtype="bool")),
    "pow_pybool_bool": lambda L: L.pow(True, _t(L, [True], "bool")),
    "pow_bool_pybool": lambda L: L.pow(_t(L, [True, False], "bool"), False),
    "pow_bool_int": lambda L: L.pow(_t(L, [True], "bool"), 3),
    "pow_int_float_two": lambda L: L.pow(_t(L, [2, 3]), 2.0),
    "pow_bool_float_two": lambda L: L.pow(_t(L, [True, False], "bool"), 2.0),
    "where_uint8_condition": lambda L: L.where(_t(L, [0, 2], "uint8"), L.tensor([1., 2.]), L.tensor(0.)),
    "where_int64_condition": lambda L: L.where(_t(L, [0, 2]), 1., 0.),
    "add_bool_alpha_neg": lambda L: L.add(_t(L, [True, False], "bool"), _t(L, [True, True], "bool"), alpha=-1),
    "add_bool_alpha_two_0d": lambda L: L.add(_t(L, True, "bool"), _t(L, True, "bool"), alpha=2),
    "add_bool_alpha_zero": lambda L: L.add(_t(L, [True], "bool"), _t(L, [True], "bool"), alpha=0),
    "add_bool_pybool_alpha": lambda L: L.add(_t(L, [True], "bool"), True, alpha=-1),
    "add_bool_uint8_alpha_neg": lambda L: L.add(_t(L, [True], "bool"), _t(L, [1, 2], "uint8"), alpha=-1),
    "add_uint8_alpha_neg": lambda L: L.add(_t(L, [3, 4], "uint8"), _t(L, [1, 5], "uint8"), alpha=-1),
    "add_uint8_int32_0d_alpha_neg": lambda L: L.add(_t(L, [3, 4], "uint8"), _t(L, 1, "int32"), alpha=-1),
    "add_uint8_scalar_alpha_neg": lambda L: L.add(_t(L, [1, 2], "uint8"), 3, alpha=-1),
    "add_uint8_neg_scalar": lambda L: _t(L, [1, 2], "uint8") + (-3),
    "add_int8_wraps": lambda L: _t(L, [1, 2], "int8") + 300,
    "sub_uint8_alpha_neg": lambda L: L.sub(_t(L, [3], "uint8"), _t(L, [1], "uint8"), alpha=-1),
    "add_float_uint8_alpha_two": lambda L: L.add(L.tensor([1., 2.]), _t(L, [200, 250], "uint8"), alpha=2),
    "add_int_float_alpha": lambda L: L.add(_t(L, [1, 2]), _t(L, [3, 4]), alpha=0.5),
    "add_uint8_alpha_neg_bad_shapes": lambda L: L.add(_t(L, [3, 4], "uint8"), _t(L, [1, 2, 3], "uint8"), alpha=-1),
    "add_0d_float_uint8_alpha": lambda L: L.add(L.tensor(1.5), _t(L, [1, 2], "uint8"), alpha=-1),
    # matmul family on empty operands (PyTorch returns before its dtype checks or kernels)
    "bmm_empty_mixed": lambda L: L.bmm(_z(L, 0, 1, 1), _z(L, 0, 1, 1, dtype="int64")),
    "bmm_empty_inner_mixed": lambda L: L.bmm(_z(L, 2, 1, 0, dtype="int64"), _z(L, 2, 0, 3)),
    "bmm_empty_mismatched_sizes": lambda L: L.bmm(_z(L, 0, 2, 1), _z(L, 0, 3, 3, dtype="int64")),
    "bmm_mixed": lambda L: L.bmm(_z(L, 1, 1, 1), _z(L, 1, 1, 1, dtype="int64")),
    "bmm_bool_float": lambda L: L.bmm(_z(L, 1, 2, 2, dtype="bool"), _z(L, 1, 2, 2)),
    "bmm_float_bool": lambda L: L.bmm(_z(L, 1, 2, 2), _z(L, 1, 2, 2, dtype="bool")),
    "matmul_batched_bool_float": lambda L: L.matmul(_z(L, 3, 3, 3, dtype="bool"), _z(L, 3, 3, 3)),
    "matmul_vector_bool_batched_empty": lambda L: L.matmul(_z(L, 2, dtype="bool"), _z(L, 1, 2, 0)),
    "bmm_empty_bool": lambda L: L.bmm(_z(L, 2, 1, 0, dtype="bool"), _z(L, 2, 0, 3, dtype="bool")),
    "mm_empty_bool": lambda L: L.mm(_z(L, 0, 1, dtype="bool"), _z(L, 1, 1, dtype="bool")),
    "mm_inner_empty_bool": lambda L: L.mm(_z(L, 1, 0, dtype="bool"), _z(L, 0, 1, dtype="bool")),
    "mm_bool": lambda L: L.mm(_z(L, 1, 1, dtype="bool"), _z(L, 1, 1, dtype="bool")),
    "mm_empty_mixed": lambda L: L.mm(_z(L, 0, 1), _z(L, 1, 1, dtype="int64")),
    "mm_shape_before_dtype": lambda L: L.mm(_z(L, 2, 0), _z(L, 1, 3, dtype="int64")),
    "matmul_batched_empty_mixed": lambda L: L.matmul(_z(L, 2, 3, 0), _z(L, 1, 0, 0, dtype="int64")),
    "matmul_batched_empty_bool_float": lambda L: L.matmul(_z(L, 2, 0, 0, dtype="bool"), _z(L, 2, 0, 0)),
    "matmul_2d_batched_empty_mixed": lambda L: L.matmul(_z(L, 1, 3), _z(L, 1, 3, 0, dtype="int32")),
    "matmul_empty_bool_2d": lambda L: L.matmul(_z(L, 0, 3, dtype="bool"), _z(L, 3, 2, dtype="bool")),
    "matmul_empty_bool_mv": lambda L: L.matmul(_z(L, 2, 2, 0, dtype="bool"), _z(L, 0, dtype="bool")),
    "matmul_empty_bool_dot": lambda L: L.matmul(_z(L, 0, dtype="bool"), _z(L, 0, dtype="bool")),
    "matmul_empty_mixed_2d": lambda L: L.matmul(_z(L, 0, 3), _z(L, 3, 2, dtype="int64")),
    "matmul_vector_batched_mixed": lambda L: L.matmul(_z(L, 2), _z(L, 1, 2, 0, dtype="int64")),
    "matmul_empty_batch_float": lambda L: L.matmul(_z(L, 2, 2, 0), _z(L, 0)),
    # indexing
    "getitem_empty_result_out_of_range": lambda L: _z(L, 2, 1, 0)[_t(L, [2, 3])],
    "getitem_empty_trailing_out_of_range": lambda L: _z(L, 2, 3, 0)[:, _t(L, [5])],
    "getitem_empty_dim_out_of_range": lambda L: _z(L, 2, 0)[:, _t(L, [2, 3])],
    "getitem_out_of_range": lambda L: _z(L, 2, 3)[_t(L, [2, 3])],
    "index_select_empty_axis": lambda L: L.index_select(_z(L, 2, 0, 3), 1, _t(L, [0])),
    "index_select_empty_other_axis": lambda L: L.index_select(_z(L, 0, 3), 1, _t(L, [5])),
    "index_select_dim1_out_of_range": lambda L: L.index_select(_z(L, 2, 3), 1, _t(L, [3])),
    "index_select_dim0_out_of_range": lambda L: L.index_select(_z(L, 2, 3), 0, _t(L, [3])),
    "index_select_dim2_out_of_range": lambda L: L.index_select(_z(L, 2, 3, 4), 2, _t(L, [-1])),
    "index_select_1d_out_of_range": lambda L: L.index_select(_z(L, 3), 0, _t(L, [3])),
    "index_select_0d_two_indices": lambda L: L.index_select(_z(L), -1, _t(L, [0, 0])),
    "index_select_0d_no_index": lambda L: L.index_select(_z(L), 0, _i(L, [])),
    "index_select_0d": lambda L: L.index_select(_z(L) + 2, 0, _t(L, [0])),
    "index_select_uint8_index": lambda L: L.index_select(_z(L, 2, 3), 1, _t(L, [0], "uint8")),
    "index_select_float_dim": lambda L: L.index_select(_z(L, 2, 3), 1.5, _t(L, [0])),
    "index_add_dtype_first": lambda L: L.index_add(_z(L, 0, 1, 1, dtype="int64"), -2, _t(L, [1, -1, -1], "int32"),
                                                   _z(L, 3)),
    "index_add_0d_bool_source": lambda L: L.index_add(_z(L), 0, _t(L, [1]), _t(L, True, "bool")),
    "index_add_empty_source": lambda L: L.index_add(_z(L, 3, 0, 3), 2, _t(L, [0, -1, 0]), _z(L, 3, 0, 3)),
    "index_add_empty_self": lambda L: L.index_add(_z(L, 0, 3), 0, _t(L, [1]), _z(L, 1, 3)),
    "index_add_source_0d": lambda L: L.index_add(_z(L, 1), -1, _t(L, [1]), _z(L)),
    "index_add_self_0d_source_1d": lambda L: L.index_add(_z(L), -1, _t(L, [0]), _z(L, 1)),
    "index_add_count_before_shape": lambda L: L.index_add(_z(L, 2, 3), 0, _t(L, [0]), _z(L, 3)),
    "index_add_dim_past_source": lambda L: L.index_add(_z(L, 3, 2, 1), -2, _t(L, [-1]), _z(L, 1)),
    "index_add_dim0_out_of_range": lambda L: L.index_add(_z(L, 2, 3), 0, _t(L, [5]), _z(L, 1, 3)),
    "index_add_middle_dim_out_of_range": lambda L: L.index_add(_z(L, 2, 3, 4), 1, _t(L, [7]), _z(L, 2, 1, 4)),
    "index_add_int32_out_of_range": lambda L: L.index_add(_z(L, 2, 3), 0, _t(L, [-1, 2], "int32"), _z(L, 2, 3)),
    "index_add_1d_out_of_range": lambda L: L.index_add(_z(L, 3), 0, _t(L, [5]), _z(L, 1)),
    "index_add_1d_empty_out_of_range": lambda L: L.index_add(_z(L, 0), -1, _t(L, [0, -1, 2]), _z(L, 3)),
    "index_add_uint8_index": lambda L: L.index_add(_z(L, 2, 3), 1, _t(L, [0], "uint8"), _z(L, 2, 1)),
    "index_add_matrix_index": lambda L: L.index_add(_z(L, 2, 3), 1, _t(L, [[0]]), _z(L, 2, 1)),
    "index_add_float_into_uint8": lambda L: L.index_add(_z(L, 2, 3, dtype="uint8"), 0, _t(L, [0, 1]), _z(L, 2, 3)),
    "index_add_values": lambda L: L.index_add(X(L), 1, _t(L, [2, 0, 2]), L.ones(2, 3), alpha=2),
    "scatter_add_empty_index": lambda L: L.scatter_add(_z(L, 3, 2, 2), 1, _i(L, []), _z(L, 0)),
    "scatter_add_empty_index_2d": lambda L: L.scatter_add(_z(L, 3), 0, _z(L, 0, 1, 0, dtype="int64"), _z(L, 0, 1, 0)),
    "scatter_add_empty_index_dtype": lambda L: L.scatter_add(_z(L, 3, 2, 2), 1, _i(L, []), _z(L, 0, dtype="int64")),
    "scatter_add_empty_index_bad_dim": lambda L: L.scatter_add(_z(L, 3, 2, 2), 5, _i(L, []), _z(L, 0)),
    "scatter_add_rank_mismatch": lambda L: L.scatter_add(_z(L, 3, 2, 2), 1, _t(L, [0]), _z(L, 1)),
    # gather/scatter count a 0-d tensor as 1-d
    "scatter_add_0d_self": lambda L: L.scatter_add(S(L), 0, _t(L, [0, 0]), L.tensor([2., 3.])),
    "scatter_add_0d_index": lambda L: L.scatter_add(_z(L, 3), 0, _t(L, 1), L.tensor([2., 5.])),
    "scatter_add_0d_src": lambda L: L.scatter_add(_z(L, 3), -1, _t(L, [1]), L.tensor(2.)),
    "scatter_add_0d_out_of_range": lambda L: L.scatter_add(S(L), 0, _t(L, [1]), L.tensor([2.])),
    "scatter_0d_self": lambda L: L.scatter(S(L), 0, _t(L, [0, 0]), L.tensor([2., 3.])),
    "scatter_value_0d_index": lambda L: L.scatter(_z(L, 3), 0, _t(L, 1), 4.),
    "gather_0d_self": lambda L: L.gather(S(L), 0, _t(L, [0])),
    "gather_0d_self_dim_minus_1": lambda L: L.gather(S(L), -1, _t(L, [0, 0])),
    "scatter_add_0d_self_dim_minus_1": lambda L: L.scatter_add(S(L), -1, _t(L, [0, 0]), L.tensor([2., 3.])),
    "gather_0d_index": lambda L: L.gather(X(L)[0], 0, _t(L, 1)),
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
    return [(x.detach().numpy().copy(), str(x.dtype).replace("numtorch", "torch"), tuple(x.shape)) for x in rs]


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


# messages in PyTorch's words where users read them
@pytest.mark.parametrize("name", ["pow_int_negative_scalar", "sum_keepdim_no_dim", "prod_dim_none", "squeeze_none",
                                  "movedim_list_and_int", "index_select_0d_two_indices", "index_add_dtype_first",
                                  "transpose_tuple_after_bad_dim", "chunk_tuple_dim", "permute_no_dims",
                                  "index_select_empty_axis", "cat_none_dim_0d", "stack_float_dim"])
def test_message_starts_like_torch(name):
    want, got = _outcome(torch, CASES[name]), _outcome(nt, CASES[name])
    assert isinstance(want, Exception) and isinstance(got, Exception)
    n = min(len(str(want)), 60)
    assert str(got)[:n] == str(want)[:n]


def test_int_to_negative_int_power_message():
    for L in (torch, nt):
        with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
            L.tensor([2, 3]) ** -2


def test_add_integral_float_alpha_message():
    for L in (torch, nt):
        with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not be a floating"):
            L.add(L.tensor([1, 2]), L.tensor([3, 4]), alpha=0.5)


def test_where_uint8_condition_warns_once_like_torch():
    code = ("import warnings, {0} as L\nwarnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    for _ in range(2):\n"
            "        L.where(L.tensor([0, 2], dtype=L.uint8), L.tensor([1., 2.]), L.tensor(0.))\n"
            "print([(x.category.__name__, str(x.message)[:70]) for x in w])")
    out = [subprocess.run([sys.executable, "-c", code.format(m)], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONWARNINGS": ""}).stdout for m in ("torch", "numtorch")]
    assert out[0] == out[1] and "uint8 condition" in out[0]


def test_movedim_and_transpose_of_0d_keep_grad():
    for L in (torch, nt):
        x = L.tensor(1.5, requires_grad=True)
        (L.movedim(x, 0, -1) * 2 + L.transpose(x, 0, -1) * 3).backward()
        assert x.grad.item() == 5.0


def test_scatter_add_of_0d_source_gradients():
    grads = []
    for L in (torch, nt):
        x, v = L.zeros(3, requires_grad=True), L.tensor(4., requires_grad=True)
        (L.scatter_add(x, 0, L.tensor([1]), v) * L.tensor([1., 2., 3.])).sum().backward()
        grads.append((x.grad.tolist(), v.grad.item()))
    assert grads[0] == grads[1]
