"""Shared test helpers: the reference (real PyTorch) and comparison utilities."""
import numpy as np
import pytest
import torch as ref  # the test-only oracle

import numtorch as nt

TOL = {np.float32: dict(rtol=1e-5, atol=1e-6), np.float64: dict(rtol=1e-10, atol=1e-12)}


def to_ref(x, requires_grad=False):
    """A PyTorch tensor with the same values as numtorch tensor / ndarray ``x``."""
    arr = x.detach().numpy() if isinstance(x, nt.Tensor) else np.asarray(x)
    t = ref.from_numpy(np.array(arr, copy=True))
    return t.requires_grad_(requires_grad) if requires_grad else t


def to_nt(x, requires_grad=False):
    arr = x.detach().numpy() if isinstance(x, ref.Tensor) else np.asarray(x)
    t = nt.tensor(np.array(arr, copy=True))
    return t.requires_grad_(requires_grad) if requires_grad else t


def assert_close(a, b, rtol=None, atol=None):
    """Compare a numtorch tensor with a PyTorch tensor (or arrays) in values, shape and dtype."""
    an = a.detach().numpy() if isinstance(a, nt.Tensor) else np.asarray(a)
    bn = b.detach().numpy() if isinstance(b, ref.Tensor) else np.asarray(b)
    assert an.shape == bn.shape, f"shape {an.shape} != {bn.shape}"
    if isinstance(a, nt.Tensor) and isinstance(b, ref.Tensor):
        assert str(a.dtype) == str(b.dtype), f"dtype {a.dtype} != {b.dtype}"
    tol = TOL.get(an.dtype.type, dict(rtol=1e-5, atol=1e-6))
    np.testing.assert_allclose(an.astype(np.float64) if an.dtype.kind == "V" else an,
                               bn, rtol=rtol if rtol is not None else tol["rtol"],
                               atol=atol if atol is not None else tol["atol"])


# `pytest -m quick`: a representative minute-long subset (tensors, autograd, layers, losses, conv,
# modules, optimizers, data, serialization, the digits example), for a first check after installing.
QUICK_FILES = {"test_tensor.py", "test_autograd.py", "test_layers.py", "test_losses.py", "test_conv.py",
               "test_module.py", "test_optim.py", "test_data.py", "test_serialization.py",
               "test_examples_digits.py"}


def pytest_ignore_collect(collection_path, config):
    """Under ``-m quick`` the other files are not even imported (collecting all of them takes longer
    than running the subset)."""
    if config.option.markexpr == "quick" and collection_path.suffix == ".py":
        return collection_path.name not in QUICK_FILES or None
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in QUICK_FILES:
            item.add_marker(pytest.mark.quick)


@pytest.fixture(params=[np.float32, np.float64], ids=["float32", "float64"])
def fdtype(request):
    return request.param
