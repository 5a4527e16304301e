"""The rest of torch.nn's public names (issue #16): CrossMapLRN2d (legacy window and gradient), NLLLoss2d and
Container (deprecated, warning as PyTorch), nn.factory_kwargs and LinearCrossEntropyOptions, against torch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import numtorch


@pytest.mark.parametrize("channels", [1, 3, 6])
@pytest.mark.parametrize("size", [2, 3, 4, 7])
def test_cross_map_lrn2d_values_and_gradients(channels, size):
    a = np.random.default_rng(channels * 10 + size).standard_normal((2, channels, 3, 3))
    w = np.random.default_rng(1).standard_normal(a.shape)
    res = []
    for lib in (numtorch, torch):
        x = lib.tensor(a, requires_grad=True)
        out = lib.nn.CrossMapLRN2d(size, 0.1, 0.75, 1.5)(x)
        (out * lib.tensor(w)).sum().backward()
        res.append((out.detach().numpy(), x.grad.numpy(), type(out.grad_fn).__name__))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-10, atol=1e-13)
    assert res[0][2] == res[1][2] == "CrossMapLRN2dBackward"


def test_cross_map_lrn2d_errors_and_repr():
    for lib in (numtorch, torch):
        with pytest.raises(ValueError, match="Expected input to be 4D"):
            lib.nn.CrossMapLRN2d(3)(lib.ones(2, 3, 4))
        x = lib.ones(1, 2, 2, 2, requires_grad=True)
        with pytest.raises(RuntimeError):  # size 1: the legacy backward's padded buffer is too short
            lib.nn.CrossMapLRN2d(1)(x).sum().backward()
    assert repr(numtorch.nn.CrossMapLRN2d(3)) == repr(torch.nn.CrossMapLRN2d(3))


def test_deprecated_modules_warn_and_work():
    for lib in (numtorch, torch):
        with pytest.warns(FutureWarning, match="NLLLoss2d"):
            loss = lib.nn.NLLLoss2d(ignore_index=1)
        assert isinstance(loss, lib.nn.NLLLoss)
        with pytest.warns(FutureWarning, match="Container"):
            c = lib.nn.Container(a=lib.nn.Linear(2, 3))
        assert [n for n, _ in c.named_parameters()] == ["a.weight", "a.bias"]
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype("float32")
    y = np.random.default_rng(1).integers(0, 3, (2, 4, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vn = numtorch.nn.NLLLoss2d()(numtorch.tensor(x).log_softmax(1), numtorch.tensor(y))
        vt = torch.nn.NLLLoss2d()(torch.tensor(x).log_softmax(1), torch.tensor(y))
    np.testing.assert_allclose(vn.item(), vt.item(), rtol=1e-6)


@pytest.mark.parametrize("kwargs", [None, {}, {"dtype": "float64"}, {"device": "cpu", "factory_kwargs": {"dtype": "int64"}},
                                    {"memory_format": "channels_last"}, {"bias": True}, {"dtype": "float32",
                                                                                         "factory_kwargs": {"dtype": "int64"}}])
def test_factory_kwargs(kwargs):
    def conv(lib, kw):
        if kw is None:
            return None
        out = {}
        for k, v in kw.items():
            out[k] = conv(lib, v) if isinstance(v, dict) else (getattr(lib, v) if k in ("dtype", "memory_format") else v)
        return out
    try:
        expected = torch.nn.factory_kwargs(conv(torch, kwargs))
    except TypeError:
        with pytest.raises(TypeError):
            numtorch.nn.factory_kwargs(conv(numtorch, kwargs))
        return
    got = numtorch.nn.factory_kwargs(conv(numtorch, kwargs))
    assert {k: str(v) for k, v in got.items()} == {k: str(v) for k, v in expected.items()}


@pytest.mark.parametrize("kw", [{}, {"batch_chunk_size": 64, "chunking_method": None}, {"chunking_method": "aspect_ratio:4"},
                                {"acc_policy": "compact", "acc_dtype": "float32"}, {"acc_policy": "fast"},
                                {"chunking_method": "ratio"}, {"batch_chunk_size": 0}, {"acc_dtype": "int32"},
                                {"chunking_method": "aspect_ratio:0"}])
def test_linear_cross_entropy_options(kw):
    def make(lib):
        return lib.nn.LinearCrossEntropyOptions(**{k: getattr(lib, v) if k == "acc_dtype" else v for k, v in kw.items()})
    try:
        t = make(torch)
    except ValueError:
        with pytest.raises(ValueError):
            make(numtorch)
        return
    n = make(numtorch)
    assert repr(n).replace("numtorch", "torch") == repr(t)
    with pytest.raises(dataclasses_frozen()):
        n.acc_policy = "accurate"
    a = np.random.default_rng(0).standard_normal((8, 4)).astype("float32")
    w = np.random.default_rng(1).standard_normal((5, 4)).astype("float32")
    y = np.arange(8) % 5
    vn = numtorch.nn.functional.linear_cross_entropy(numtorch.tensor(a), numtorch.tensor(w), numtorch.tensor(y), options=n)
    vt = torch.nn.functional.linear_cross_entropy(torch.tensor(a), torch.tensor(w), torch.tensor(y), options=t)
    np.testing.assert_allclose(vn.item(), vt.item(), rtol=1e-5)


def dataclasses_frozen():
    import dataclasses
    return dataclasses.FrozenInstanceError
