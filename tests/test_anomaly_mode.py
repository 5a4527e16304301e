"""detect_anomaly / set_detect_anomaly: a backward node producing NaN fails there, as in PyTorch."""
import warnings

import pytest
import torch as ref

import numtorch as nt


def _run(L, check_nan=True, create_graph=False):
    x = L.tensor([0.5, -1.2], dtype=L.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with L.autograd.detect_anomaly(check_nan=check_nan):
            (g,) = L.autograd.grad(L.sqrt(x).sum(), x, create_graph=create_graph)
    return g


@pytest.mark.parametrize("create_graph", [False, True])
def test_nan_in_backward_raises_naming_the_node(create_graph):
    msgs = []
    for L in (nt, ref):
        with pytest.raises(RuntimeError) as e:
            _run(L, create_graph=create_graph)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1] == "Function 'SqrtBackward0' returned nan values in its 0th output."


def test_check_nan_false_and_anomaly_off_return_the_nan():
    for L in (nt, ref):
        assert L.isnan(_run(L, check_nan=False)).tolist() == [False, True]
        x = L.tensor([0.5, -1.2], dtype=L.float64, requires_grad=True)
        L.sqrt(x).sum().backward()
        assert L.isnan(x.grad).tolist() == [False, True]


def test_set_detect_anomaly_as_a_function():
    x = nt.tensor([-1.0], requires_grad=True)
    nt.autograd.set_detect_anomaly(True)
    try:
        with pytest.raises(RuntimeError, match="SqrtBackward0"):
            nt.sqrt(x).sum().backward()
    finally:
        nt.autograd.set_detect_anomaly(False)
    nt.sqrt(x).sum().backward()  # off again: no error
