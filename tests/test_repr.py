"""Tensor printing compared character for character with PyTorch's repr."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt

CASES = [
    'm.tensor([1.,2.,3.])',
    'm.tensor([1.5,2.25,-3.125])',
    'm.tensor(3.)',
    'm.tensor(3.5)',
    'm.tensor(-0.)',
    'm.tensor(1)',
    'm.tensor(True)',
    'm.tensor([1,2,3])',
    'm.tensor([-10,200,3])',
    'm.tensor([True,False])',
    'm.tensor([True,True])',
    'm.tensor([1e-5,1.])',
    'm.tensor([1e10,1.])',
    'm.tensor([1e8, 2.])',
    'm.tensor([1e9, 2.])',
    'm.tensor([123456789.,1.])',
    'm.tensor([0.0001, 1.])',
    'm.tensor([0.00001])',
    'm.tensor([1e-10, 1e-12])',
    'm.tensor([1e20])',
    'm.tensor([1000.5, 1.5])',
    'm.tensor([1001., 1.])',
    'm.tensor([1e5+0.5, 1.5])',
    "m.tensor([float('nan'), 1.])",
    "m.tensor([float('inf'), -float('inf'), 1.5])",
    "m.tensor([float('nan')])",
    "m.tensor([float('inf')])",
    "m.tensor([float('nan'), 1e10, 1.5])",
    'm.tensor([[1.,2.],[3.,4.]])',
    'm.tensor([[1.5,-2.],[3.,4.]])',
    'm.arange(24.).reshape(2,3,4)',
    'm.arange(24).reshape(2,3,4)-12',
    'm.zeros(2,3,dtype=m.int32)',
    'm.zeros(2,dtype=m.float64)',
    'm.zeros(2,dtype=m.float16)',
    'm.tensor([1.5,2.5],dtype=m.bfloat16)',
    'm.zeros(2,dtype=m.uint8)',
    'm.zeros(2,dtype=m.int8)',
    'm.zeros(2,dtype=m.int16)',
    'm.tensor([1.123456789], dtype=m.float64)',
    'm.tensor([0.1,0.2],dtype=m.float64)',
    'm.ones(2,requires_grad=True)',
    'm.ones(2,requires_grad=True)*2',
    'm.ones(2,dtype=m.float64,requires_grad=True)',
    '(m.ones(2,dtype=m.float64,requires_grad=True)*2).sum()',
    'm.ones(2,requires_grad=True).exp()',
    'm.zeros(0)',
    'm.zeros(2,0)',
    'm.zeros(0,dtype=m.int64)',
    'm.zeros(0,dtype=m.float64)',
    'm.zeros(0,3,dtype=m.bool)',
    'm.arange(2000.)',
    'm.arange(1001)',
    'm.arange(1000)',
    'm.arange(3000.).reshape(30,100)',
    'm.arange(3000).reshape(3,10,100)',
    'm.arange(1500.).reshape(1500,1)',
    'm.arange(100.)',
    'm.arange(30.)/7',
    'm.arange(40)*1000',
    'm.linspace(-1,1,50)',
    'm.arange(40.)*1e6',
    'm.tensor([[1e-5, 1.],[1e3, 2.]])',
    'm.tensor([-1., -2.])',
    'm.tensor([-1.5, 2.])',
    'm.tensor([12345.678])',
    'm.tensor([0.])',
    'm.tensor([-0.5])',
    'm.tensor(1e-8)',
    'm.tensor(1e12)',
    "m.tensor(float('nan'))",
    'm.tensor(-5)',
    'm.tensor(2.5, dtype=m.float64)',
    'm.tensor(2, dtype=m.int32)',
    'm.arange(12.).reshape(3,4).t()',
    'm.tensor([[[1]]])',
    'm.tensor([[]])',
    'm.ones(1,1,1,1)',
    'm.tensor([1.,2.]).double().requires_grad_()',
    'm.tensor([0.1234567, 100.5])',
    'm.tensor([99999.5])',
    'm.tensor([1e-4])',
    'm.tensor([1.0001e-4, 0.5])',
    'm.ones(3,4,5,6)',
    'm.arange(5000.).reshape(5,10,100)',
    'm.tensor([1,2,3],dtype=m.int32)*100000',
    'm.tensor([[True,False],[False,True]])',
    'm.arange(80.)',
    'm.arange(20.)*123.456',
    'm.arange(10)-5',
    'm.tensor([1+2j, -3.5-1j])',
    'm.tensor(1+2j)',
    'm.tensor([1j, 2])',
    'm.tensor([1e-6+1j])',
    'm.tensor([0j])',
    'm.arange(12., dtype=m.float64)*0.123',
    'm.arange(30., dtype=m.float64)/3',
    'm.arange(14.)/3',
    '(m.arange(14.)/3).requires_grad_()',
    '(m.arange(13.)/3).requires_grad_()*2',
    'm.arange(10., dtype=m.float64)*1e5',
    'm.tensor([-1e-5, 2.])',
    'm.tensor([[-1e10, 2.],[3., 4.]])',
    "m.tensor([float('nan'), float('inf')])",
    'm.tensor([0., 0.])',
    "m.tensor([-float('inf'), 1.])",
    'm.tensor([-0., 0.])',
    'm.arange(2000) > 1000',
    'm.arange(2000, dtype=m.int32) - 1000',
    'm.tensor([[0.1, 0.25]], dtype=m.float16)',
    'm.tensor([1e5, 3.], dtype=m.float16)',
    'm.arange(10, dtype=m.int8)',
    'm.ones(1001)',
    'm.zeros(7, 200)',
    'm.rand(0, 3, dtype=m.float64)',
    'm.arange(1200.).reshape(2, 600) / 7',
    '(m.arange(6.).reshape(2,3)*1.5).requires_grad_()',
    '(m.arange(6., dtype=m.float64).reshape(2,3)*1.5).requires_grad_().exp()',
    'm.tensor([123456.7])',
    'm.tensor([0.5, 1234.5])',
    'm.tensor([0.5, 100.5])',
    'm.tensor(0.0001)',
    'm.tensor(99999999.)',
    'm.tensor(100000000.)',
    'm.tensor(123456789.)',
    'm.arange(9.).reshape(3,3)[:, :2]',
    'm.tensor([[1, -1], [10, -100]])',
    'm.tensor([2**40, -5])',
    'm.full((3,), 1/3, dtype=m.float64)',
    'm.tensor([1.00001, 2.])',
    'm.tensor([0.99999, 1.])',
]


def _repr(m, expr):
    with np.errstate(over="ignore"):
        return repr(eval(expr, {"m": m}))


@pytest.mark.parametrize("expr", CASES)
def test_repr_matches_pytorch(expr):
    assert _repr(nt, expr) == _repr(ref, expr)


def test_str_and_format_match_repr():
    for expr in ("m.tensor([1.5, 2.0])", "m.arange(6).reshape(2, 3)", "m.ones(2, requires_grad=True)"):
        t, r = eval(expr, {"m": nt}), eval(expr, {"m": ref})
        assert str(t) == str(r) and f"{t}" == f"{r}"


def test_repr_under_float64_default():
    out = []
    for m in (ref, nt):
        m.set_default_dtype(m.float64)
        try:
            out.append([repr(m.tensor([1.5, 2.0])), repr(m.tensor([1.5], dtype=m.float32)), repr(m.tensor([1 + 1j])),
                        repr(m.zeros(0)), repr(m.zeros(0, dtype=m.float32)), repr(m.ones(2, requires_grad=True))])
        finally:
            m.set_default_dtype(m.float32)
    assert out[0] == out[1]


def test_repr_of_custom_function_and_grad_fn_suffix():
    def run(m):
        class Twice(m.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        return repr(Twice.apply(m.ones(2, requires_grad=True)))
    assert run(nt) == run(ref)
