"""Differential tests (against torch) of the edge inputs the uncapped OpInfo runs found (issue #16):
0-d and empty tensors, integer inputs, gradients with respect to every tensor argument."""
from __future__ import annotations

import warnings

import pytest
import torch

import numtorch

from _opinfo_harness import compare, same_error


def _both(fn):
    """``fn(lib)`` in torch and numtorch: the same values, dtypes, shapes (or the same exception type)."""
    try:
        t = fn(torch)
    except Exception as e:  # noqa: BLE001 (torch raises: numtorch must raise the same type)
        with pytest.raises(Exception) as info:
            fn(numtorch)
        assert same_error(info.value, type(e)), (type(info.value), type(e))
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        n = fn(numtorch)
    compare(n, t, "result")


def _grads(f, *xs):
    """``lib -> (f(lib, *inputs), grads of sum(out * w) w.r.t. each float64 input)``."""
    def run(lib):
        ins = [lib.tensor(x, dtype=lib.float64, requires_grad=True) for x in xs]
        out = f(lib, *ins)
        w = lib.arange(out.numel(), dtype=lib.float64).reshape(out.shape) + 1
        return (out.detach(), *lib.autograd.grad((out * w).sum(), ins, allow_unused=True))
    return run


def _empty(lib, *shape):
    return lib.zeros(*shape, dtype=lib.float64, requires_grad=True)


def _empty_mm(lib, rhs):
    """``b @ a`` with empty operands and the gradients of both (``__rmatmul__`` sample 7)."""
    a, b = _empty(lib, 0, 5), _empty(lib, 5, 5, 0)
    out = (b @ a) if rhs else lib.matmul(b, a)
    return (out.detach(), *lib.autograd.grad((out * 2).sum(), (a, b)))


def _quantile_q(lib, name, interpolation, x):
    x = lib.tensor(x, dtype=lib.float64, requires_grad=True)
    q = lib.tensor([0.3, 0.7], dtype=lib.float64, requires_grad=True)
    out = getattr(lib, name)(x, q, interpolation=interpolation)
    return (out.detach(), *lib.autograd.grad(out.sum(), (x, q), allow_unused=True))


_NAN = float("nan")

CASES = {
    # in-place shape changes of a 0-d tensor
    "transpose_0d_inplace": lambda lib: lib.tensor(3.).transpose_(0, -1),
    "transpose_0d_inplace_grad": _grads(lambda L, x: (x * 1).transpose_(0, 0) * 2, 1.5),
    "transpose_0d_bad_dim": lambda lib: lib.tensor(3.).transpose_(0, 1),
    "squeeze_dims_0d_inplace": lambda lib: lib.tensor(3.).squeeze_((0,)),
    "squeeze_dims_0d_inplace_neg": lambda lib: lib.tensor(3.).squeeze_((-1,)),
    # empty inputs
    "searchsorted_empty_nd": lambda lib: lib.searchsorted(lib.zeros(0, 0), lib.zeros(0, 0)),
    "searchsorted_empty_rows": lambda lib: lib.searchsorted(lib.zeros(3, 0), lib.ones(3, 2), right=True),
    "searchsorted_empty_values": lambda lib: lib.searchsorted(lib.arange(6.).reshape(2, 3), lib.zeros(2, 0)),
    "unique_consecutive_empty_dim": lambda lib: lib.unique_consecutive(
        lib.zeros(5, 0, 5), return_inverse=True, return_counts=True, dim=1),
    "unique_consecutive_empty_rows": lambda lib: lib.unique_consecutive(
        lib.zeros(0, 3), return_inverse=True, return_counts=True, dim=0),
    "unique_consecutive_other_dim_empty": lambda lib: lib.unique_consecutive(lib.zeros(5, 0, 5), dim=0),
    "unique_consecutive_empty_flat": lambda lib: lib.unique_consecutive(
        lib.zeros(3, 0), return_inverse=True, return_counts=True),
    "unique_dim_other_empty": lambda lib: lib.unique(lib.zeros(5, 0, 5), dim=2, return_counts=True),
    "unique_dim_empty": lambda lib: lib.unique(lib.zeros(5, 0, 5), dim=1, return_inverse=True, return_counts=True),
    "instance_norm_empty_batch": lambda lib: lib.nn.functional.instance_norm(lib.zeros(0, 3, 4)),
    "instance_norm_empty_spatial": lambda lib: lib.nn.functional.instance_norm(lib.zeros(2, 3, 0)),
    "instance_norm_one_spatial": lambda lib: lib.nn.functional.instance_norm(lib.zeros(2, 3, 1)),
    "instance_norm_empty_running_stats": lambda lib: (lambda rm, rv: (
        lib.nn.functional.instance_norm(lib.zeros(0, 3, 4), running_mean=rm, running_var=rv), rm, rv))(
        lib.ones(3), lib.ones(3)),
    "group_norm_empty_batch": lambda lib: lib.nn.functional.group_norm(
        lib.zeros(0, 2), 1, lib.ones(2), lib.zeros(2)),
    "group_norm_empty_batch_spatial": lambda lib: lib.nn.functional.group_norm(lib.zeros(0, 4, 3), 2),
    "group_norm_grad": _grads(lambda L, x: L.nn.functional.group_norm(x, 2), [[[1., 4.], [2., 0.], [3., 5.], [7., 1.]]]),
    "matmul_empty_grad": lambda lib: _empty_mm(lib, False),
    "rmatmul_empty_grad": lambda lib: _empty_mm(lib, True),
    # 0-d inputs
    "nanmedian_int_0d_dim": lambda lib: tuple(lib.nanmedian(lib.tensor(-8, dtype=lib.int8), -1)),
    "nanmedian_int_dim_neg": lambda lib: tuple(lib.nanmedian(lib.tensor([[3, 1, 2], [5, 4, 4]]), -1)),
    "nanmedian_0d_float_grad": _grads(lambda L, x: L.nanmedian(x, -1)[0], 2.5),
    "quantile_0d_keepdim": lambda lib: lib.quantile(lib.tensor(-4.3), 0.5, dim=0, keepdim=True),
    "nanquantile_0d_keepdim_qvec": lambda lib: lib.nanquantile(
        lib.tensor(2.), lib.tensor([0.1, 0.9]), dim=-1, keepdim=True),
    "normalize_0d": lambda lib: lib.nn.functional.normalize(lib.tensor(-0.9), p=1.2, dim=0),
    "normalize_0d_grad": _grads(lambda L, x: L.nn.functional.normalize(x, dim=-1), -0.9),
    "normalize_0d_bad_dim": lambda lib: lib.nn.functional.normalize(lib.tensor(-0.9)),
    "cosine_similarity_0d": lambda lib: lib.nn.functional.cosine_similarity(lib.tensor(-8.5), lib.tensor(-1.7), dim=0),
    "cosine_similarity_0d_grad": _grads(lambda L, x, y: L.nn.functional.cosine_similarity(x, y, dim=0), -8.5, 2.),
    # gradients with respect to q
    "quantile_q_grad_linear": lambda lib: _quantile_q(lib, "quantile", "linear", [-4.8, -7.6, 1.0]),
    "quantile_q_grad_nan": lambda lib: _quantile_q(lib, "quantile", "linear", [1., _NAN, 3.]),
    "nanquantile_q_grad_nan": lambda lib: _quantile_q(lib, "nanquantile", "linear", [1., _NAN, 3.]),
    "quantile_q_grad_lower": lambda lib: _quantile_q(lib, "quantile", "lower", [-4.8, -7.6, 1.0]),
    # interpolate(mode="area") of a 5-d input: adaptive 3-d average pooling
    "interpolate_area_5d": lambda lib: lib.nn.functional.interpolate(
        lib.arange(2 * 3 * 64, dtype=lib.float32).reshape(2, 3, 4, 4, 4), (3, 3, 3), mode="area"),
    "interpolate_area_5d_scale_grad": _grads(lambda L, x: L.nn.functional.interpolate(
        x, scale_factor=0.5, mode="area"), [[[[[1., 2.], [3., 4.]], [[5., 6.], [7., 9.]]]]]),
    # integer inputs
    "softmin_uint8_dtype": lambda lib: lib.nn.functional.softmin(
        lib.tensor([[5, 1, 0], [4, 0, 9]], dtype=lib.uint8), 0, dtype=lib.float64),
    "softmin_bool_dtype": lambda lib: lib.nn.functional.softmin(lib.tensor([True, False]), 0, dtype=lib.float64),
}


@pytest.mark.parametrize("name", list(CASES))
def test_edge_matches_torch(name):
    _both(CASES[name])


@pytest.mark.quick
def test_quantile_q_gradient_quick():
    _both(lambda lib: _quantile_q(lib, "nanquantile", "linear", [2., 0., 5., 1.]))
