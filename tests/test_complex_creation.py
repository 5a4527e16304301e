"""torch.complex(real, imag) against PyTorch: values, dtype, gradients to both parts, errors."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_complex_is_differentiable_in_both_parts(dtype):
    r = np.random.default_rng(0)
    a, b, w = r.standard_normal((2, 3)), r.standard_normal(3), r.standard_normal((2, 3))
    res = []
    for L in (nt, ref):
        x = L.tensor(a, dtype=getattr(L, dtype), requires_grad=True)
        y = L.tensor(b, dtype=getattr(L, dtype), requires_grad=True)
        z = L.complex(x, y)
        loss = (z.real * L.tensor(w, dtype=getattr(L, dtype))).sum() + (z.imag ** 2).sum() + z.abs().sum()
        loss.backward()
        res.append((z.detach().numpy(), str(z.dtype), z.grad_fn.name(), x.grad.numpy(), y.grad.numpy()))
    (zn, dn, nn_, gxn, gyn), (zt, dt, nt_, gxt, gyt) = res
    np.testing.assert_allclose(zn, zt)
    assert (dn, nn_) == (dt, nt_)
    np.testing.assert_allclose(gxn, gxt, rtol=1e-5)
    np.testing.assert_allclose(gyn, gyt, rtol=1e-5)


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("int64", "int64")])
def test_complex_rejects_what_pytorch_rejects(dtypes):
    msgs = []
    for L in (nt, ref):
        with pytest.raises(RuntimeError) as e:
            L.complex(L.ones(2, dtype=getattr(L, dtypes[0])), L.ones(2, dtype=getattr(L, dtypes[1])))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
