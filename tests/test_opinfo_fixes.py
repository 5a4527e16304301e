"""Differential tests (against torch) of the fixes the OpInfo/ModuleInfo runs found (issue #16, item 3):
memory formats, zero-dim inputs, result dtypes on integer/bool inputs, ``Tensor.where``, exception types."""
from __future__ import annotations

import warnings

import numpy as np
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


def _grad(lib, f, x):
    x = lib.tensor(x, dtype=lib.float64, requires_grad=True)
    return lib.autograd.grad(f(lib, x).sum(), x)[0]


def _cl(lib):
    return lib.arange(24.).reshape(1, 2, 3, 4).contiguous(memory_format=lib.channels_last)


CASES = {
    # memory formats: strides and contiguity as PyTorch reports them
    "clone_channels_last": lambda lib: lib.ones(1, 2, 3, 4).clone(memory_format=lib.channels_last).stride(),
    "clone_channels_last_3d": lambda lib: lib.ones(1, 2, 3, 4, 5).clone(memory_format=lib.channels_last_3d).stride(),
    "clone_wrong_rank": lambda lib: lib.ones(2, 3, 4).clone(memory_format=lib.channels_last),
    "contiguous_channels_last": lambda lib: (_cl(lib).stride(), _cl(lib).is_contiguous(),
                                             _cl(lib).is_contiguous(memory_format=lib.channels_last)),
    "contiguous_back": lambda lib: _cl(lib).contiguous().stride(),
    "contiguous_values": lambda lib: _cl(lib) * 2,
    "contiguous_preserve": lambda lib: lib.ones(1, 2, 3, 4).contiguous(memory_format=lib.preserve_format).stride(),
    "contiguous_preserve_raises": lambda lib: _cl(lib).contiguous(memory_format=lib.preserve_format),
    "clone_preserves": lambda lib: _cl(lib).clone().stride(),
    "zeros_like_preserves": lambda lib: lib.zeros_like(_cl(lib)).stride(),
    "empty_like_format": lambda lib: lib.empty_like(lib.ones(1, 2, 3, 4), memory_format=lib.channels_last).stride(),
    "to_format": lambda lib: lib.ones(1, 2, 3, 4).to(lib.float64, memory_format=lib.channels_last).stride(),
    "double_format": lambda lib: lib.ones(1, 2, 3, 4).double(memory_format=lib.channels_last).stride(),
    "pointwise_keeps_format": lambda lib: (_cl(lib) + 1).stride(),
    "is_contiguous_contiguous_format": lambda lib: lib.ones(2, 3).is_contiguous(memory_format=lib.contiguous_format),
    "contiguous_grad": lambda lib: _grad(lib, lambda L, x: x.reshape(1, 2, 1, 2).contiguous(
        memory_format=L.channels_last) * L.arange(4.).reshape(1, 2, 1, 2), [1., 2., 3., 4.]),
    # zero-dim inputs
    "squeeze_dims_0d": lambda lib: lib.tensor(2.).squeeze((0,)),
    "bernoulli_0d": lambda lib: lib.bernoulli(lib.tensor(0.5)).shape,
    "gelu_0d_grad": lambda lib: _grad(lib, lambda L, x: L.nn.functional.gelu(x), 0.5),
    "take_along_dim_negative": lambda lib: lib.take_along_dim(lib.arange(6.).reshape(2, 3), lib.tensor([[-1], [0]]), 1),
    # dtypes on integer / bool inputs
    "sign_bool": lambda lib: lib.sign(lib.tensor([True, False])),
    "square_bool": lambda lib: lib.square(lib.tensor([True, False])),
    "square_bool_inplace": lambda lib: lib.tensor([True, False]).square_(),
    "hardtanh_int": lambda lib: lib.nn.functional.hardtanh(lib.tensor([-3, 0, 4], dtype=lib.int8)),
    "relu6_int": lambda lib: lib.nn.functional.relu6(lib.tensor([-3, 2, 9], dtype=lib.int16)),
    "softsign_int": lambda lib: lib.nn.functional.softsign(lib.tensor([-3, 0, 4])),
    "tanhshrink_int": lambda lib: lib.nn.functional.tanhshrink(lib.tensor([-3, 0, 4])),
    "entr_negative_int": lambda lib: lib.special.entr(lib.tensor([-1, 0, 2])),
    "margin_ranking_int": lambda lib: lib.nn.functional.margin_ranking_loss(
        lib.tensor([1, 5, 3], dtype=lib.uint8), lib.tensor([2, 1, 0], dtype=lib.uint8), lib.tensor([1, 1, 1], dtype=lib.uint8)),
    "cosine_embedding_int": lambda lib: lib.nn.functional.cosine_embedding_loss(
        lib.tensor([[1, -2, 3]], dtype=lib.int8), lib.tensor([[2, 1, 0]], dtype=lib.int8), lib.tensor([1])),
    "poisson_nll_int": lambda lib: lib.nn.functional.poisson_nll_loss(lib.tensor([1, 2]), lib.tensor([2, 0])),
    "scatter_reduce_amax_bool": lambda lib: lib.zeros(3, dtype=lib.bool).scatter_reduce(
        0, lib.tensor([0, 0, 2]), lib.tensor([True, False, True]), "amax", include_self=False),
    "scatter_reduce_amin_bool": lambda lib: lib.ones(3, dtype=lib.bool).scatter_reduce(
        0, lib.tensor([0, 0, 2]), lib.tensor([True, False, True]), "amin", include_self=False),
    # semantics and in-place methods
    "tensor_where": lambda lib: lib.tensor([1., 2., 3.]).where(lib.tensor([True, False, True]), lib.tensor(0.)),
    "bitwise_and_": lambda lib: lib.tensor([6, 3]).bitwise_and_(lib.tensor([3, 1])),
    "logical_xor_": lambda lib: lib.tensor([1., 0.]).logical_xor_(lib.tensor([1., 1.])),
    "tril_": lambda lib: lib.ones(3, 3).tril_(),
    "float_power_": lambda lib: lib.tensor([2.], dtype=lib.float64).float_power_(2),
    # exception types
    "eq_number_first": lambda lib: lib.eq(2, lib.ones(2)),
    "maximum_number_first": lambda lib: lib.maximum(2, lib.ones(2)),
    "maximum_number_other": lambda lib: lib.maximum(lib.ones(2), 2),
    "clamp_max_number_first": lambda lib: lib.clamp_max(2, lib.ones(2)),
    "add_number_first": lambda lib: lib.add(2, lib.ones(2)),
    "hstack_empty": lambda lib: lib.hstack([]),
    "logspace_negative_steps": lambda lib: lib.logspace(0, 1, -1),
}


@pytest.mark.parametrize("name", list(CASES))
def test_fix_matches_torch(name):
    _both(CASES[name])


@pytest.mark.quick
def test_channels_last_stride_quick():
    a = numtorch.ones(2, 3, 4, 5).contiguous(memory_format=numtorch.channels_last)
    assert a.stride() == torch.ones(2, 3, 4, 5).contiguous(memory_format=torch.channels_last).stride()
    np.testing.assert_array_equal(a.numpy(), np.ones((2, 3, 4, 5), np.float32))
