"""The ``torch.*`` namespace checks its arguments the same way for every op module: a non-Tensor
``input`` (an ndarray) raises PyTorch's TypeError before any work, whichever ``_ops`` file the
function lives in."""
import inspect

import numpy as np
import pytest
import torch as ref

import numtorch as nt


def _op_functions():
    """Names of the torch-namespace functions defined in numtorch's ``_ops`` whose first parameter is ``input``."""
    names = []
    for name in sorted(dir(nt)):
        fn = getattr(nt, name)
        if not inspect.isfunction(fn) or not (fn.__module__ or "").startswith("numtorch._ops."):
            continue
        params = list(inspect.signature(fn).parameters)
        if params and params[0] == "input":
            names.append(name)
    return names


OP_FUNCTIONS = _op_functions()


def test_op_functions_found():
    assert len(OP_FUNCTIONS) > 200 and {"exp", "lgamma", "atanh", "sum", "index_select"} <= set(OP_FUNCTIONS)


@pytest.mark.parametrize("name", OP_FUNCTIONS)
def test_ndarray_input_raises_type_error(name):
    with pytest.raises(TypeError, match=r"must be Tensor, not (numpy\.)?ndarray|missing 1 required"):
        getattr(nt, name)(np.ones(2))


@pytest.mark.parametrize("name", """exp lgamma atanh sigmoid sum mean flatten logaddexp signbit isnan digamma cumsum
    frexp angle isposinf hypot gcd deg2rad square round trunc logical_not isfinite index_select take argsort sort topk
    nonzero matmul det""".split())
def test_ndarray_input_error_matches_torch(name):
    with pytest.raises(TypeError) as want:
        getattr(ref, name)(np.ones(2))
    with pytest.raises(TypeError) as got:
        getattr(nt, name)(np.ones(2))
    assert str(got.value) == str(want.value)
