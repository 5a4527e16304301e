"""Review of the session's OpInfo work: differential tests (numtorch vs torch) for what a user can reach
beyond the databases' samples."""
import pytest
import torch

import numtorch


def _nt(t):
    return numtorch.tensor(t.numpy())


def _same_result_or_error(tf, nf, targs, nargs):
    try:
        want = tf(*targs)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            nf(*nargs)
        return
    got = nf(*nargs)
    assert str(got.dtype) == str(want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    assert torch.allclose(torch.from_numpy(got.numpy().copy()), want)


@pytest.mark.quick
@pytest.mark.parametrize("subs", [
    ([0, 1], [1, 2], [0, 2]), ([0, 1], [1, 2]), ([Ellipsis, 1], [1, 2], [Ellipsis, 2]), ([30, 51], [51, 2], [2])])
def test_einsum_sublist_format(subs):
    a, b = torch.randn(5, 2, 3, dtype=torch.float64)[0], torch.randn(3, 4, dtype=torch.float64)
    if Ellipsis in subs[0]:
        a = torch.randn(5, 2, 3, dtype=torch.float64)
    args = [a, subs[0], b, subs[1]] + list(subs[2:])
    nargs = [_nt(x) if isinstance(x, torch.Tensor) else x for x in args]
    _same_result_or_error(lambda *x: torch.einsum(*x), lambda *x: numtorch.einsum(*x), args, nargs)


def test_einsum_sublist_gradient():
    a = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    na = _nt(a.detach()).requires_grad_(True)
    torch.einsum(a, [0, 1], [1]).pow(2).sum().backward()
    numtorch.einsum(na, [0, 1], [1]).pow(2).sum().backward()
    assert torch.allclose(torch.from_numpy(na.grad.numpy()), a.grad)


@pytest.mark.parametrize("args", [(), ("ij",)], ids=["nothing", "equation-only"])
def test_einsum_too_few_arguments(args):
    with pytest.raises(ValueError):
        torch.einsum(*args)
    with pytest.raises(ValueError):
        numtorch.einsum(*args)


@pytest.mark.parametrize("sub", [52, -1])
def test_einsum_sublist_out_of_range(sub):
    with pytest.raises(ValueError):
        torch.einsum(torch.ones(2, 2), [sub, 1])
    with pytest.raises(ValueError):
        numtorch.einsum(numtorch.ones(2, 2), [sub, 1])


_B6, _B62 = torch.ones(6, dtype=torch.bool), torch.ones(6, 2, dtype=torch.bool)


@pytest.mark.parametrize("a,b,dims", [
    (_B6, _B62, 1), (_B62.T, _B6, 1), (_B6, _B6, 1), (_B62, _B62.T, 0), (_B62, _B62, 2), (_B6[:0], _B62[:0], 1)])
def test_tensordot_bool(a, b, dims):
    """PyTorch's mm/dot have no bool kernel: NotImplementedError unless an operand is empty."""
    _same_result_or_error(lambda x, y: torch.tensordot(x, y, dims), lambda x, y: numtorch.tensordot(x, y, dims),
                          (a, b), (_nt(a), _nt(b)))


def test_inner_bool():
    _same_result_or_error(torch.inner, numtorch.inner, (_B62, _B62), (_nt(_B62), _nt(_B62)))


@pytest.mark.parametrize("kind", ["lengths", "offsets"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int16, torch.int32, torch.int64])
def test_segment_reduce_lengths_dtype(kind, dtype):
    """PyTorch's segment_reduce kernels take int32/int64 lengths or offsets (NotImplementedError otherwise)."""
    d = torch.randn(6, 3, dtype=torch.float64)
    seg = torch.tensor([2, 4] if kind == "lengths" else [0, 2, 6]).to(dtype)
    _same_result_or_error(lambda x, s: torch.segment_reduce(x, "sum", **{kind: s}),
                          lambda x, s: numtorch.segment_reduce(x, "sum", **{kind: s}), (d, seg), (_nt(d), _nt(seg)))


def _grads_both(fn, x, create_graph=True):
    """First and second-order gradients of ``sin(fn(x)).sum()`` in both libraries (the second: of the
    first gradient's squared sum)."""
    out = []
    for lib, xx in ((torch, x.clone()), (numtorch, _nt(x))):
        xx.requires_grad_(True)
        g, = lib.autograd.grad(fn(lib, xx).sin().sum(), xx, create_graph=create_graph)
        gg, = lib.autograd.grad((g * g).sum(), xx)
        out.append((g.detach().numpy(), gg.numpy()))
    return out


@pytest.mark.parametrize("pads", [[-1, 2, 1, -1], [1, 2], [-1, -1, -1, 0], [2, 1, 1, 3]])
@pytest.mark.parametrize("value", [0, 2.5])
def test_constant_pad_double_backward_and_forward_ad(pads, value):
    """constant padding (negative pads crop) has a double backward and a forward-mode tangent (zeros in the pad)."""
    x = torch.randn(2, 3, 4, dtype=torch.float64)
    (tg, tgg), (ng, ngg) = _grads_both(lambda lib, t: lib.nn.functional.pad(t, pads, value=value), x)
    assert torch.allclose(torch.from_numpy(ng), torch.from_numpy(tg))
    assert torch.allclose(torch.from_numpy(ngg), torch.from_numpy(tgg))
    import numtorch.autograd.forward_ad as nfwd  # the forward-mode API, for this test only
    import torch.autograd.forward_ad as tfwd  # torch's, for this test only
    tangents = []
    for lib, fwd, xx in ((torch, tfwd, x), (numtorch, nfwd, _nt(x))):
        with fwd.dual_level():
            out = lib.constant_pad_nd(fwd.make_dual(xx, lib.ones_like(xx)), pads, value)
            tangents.append(fwd.unpack_dual(out).tangent.numpy())
    assert torch.equal(torch.from_numpy(tangents[1]), torch.from_numpy(tangents[0]))


@pytest.mark.quick
def test_implicit_grad_of_complex_scalar_raises():
    """grad / backward of a complex scalar with no grad_output: RuntimeError, as PyTorch's (no silent result)."""
    for lib in (torch, numtorch):
        x = lib.ones(3, dtype=lib.complex128, requires_grad=True)
        with pytest.raises(RuntimeError, match="real scalar outputs"):
            lib.autograd.grad((x * x).sum(), x)
        with pytest.raises(RuntimeError, match="real scalar outputs"):
            (x * x).sum().backward()


def test_forward_ad_fallback_of_complex_op_runs():
    """Forward AD through an op without its own rule (the backward fallback) on complex inputs: the fallback's
    inner grad passes its grad_output explicitly (an implicit one of a complex scalar raises)."""
    import numtorch.autograd.forward_ad as nfwd  # the forward-mode API, for this test only
    a = numtorch.randn(3, 3, dtype=numtorch.complex128)
    with nfwd.dual_level():
        out = numtorch.linalg.svdvals(nfwd.make_dual(a, numtorch.ones_like(a)))
        assert nfwd.unpack_dual(out).tangent.shape == (3,)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 3)])
def test_svd_forward_ad_of_singular_vectors(shape):
    """Forward AD of linalg.svd's U Vh (sign-invariant): the fallback's zero cotangents must not take the
    singular-values-only shortcut (it gave a zero tangent)."""
    import numtorch.autograd.forward_ad as nfwd  # the forward-mode API, for this test only
    import torch.autograd.forward_ad as tfwd  # torch's, for this test only
    a, da = torch.randn(*shape, dtype=torch.float64), torch.randn(*shape, dtype=torch.float64)
    tangents = []
    for lib, fwd, x, dx in ((torch, tfwd, a, da), (numtorch, nfwd, _nt(a), _nt(da))):
        with fwd.dual_level():
            u, s, vh = lib.linalg.svd(fwd.make_dual(x, dx), full_matrices=False)
            tangents.append([fwd.unpack_dual(t).tangent.numpy() for t in (u @ vh, s)])
    for n, t in zip(tangents[1], tangents[0]):
        assert torch.allclose(torch.from_numpy(n), torch.from_numpy(t))


@pytest.mark.parametrize("upper", [False, True])
def test_complex_cholesky_values_and_gradients(upper):
    """Complex Cholesky: ``upper`` returns ``L^H`` (not ``L^T``); the gradient uses conjugate transposes."""
    x = torch.randn(2, 3, 3, dtype=torch.complex128)
    res = []
    for lib, xx in ((torch, x.clone()), (numtorch, _nt(x))):
        xx.requires_grad_(True)
        c = lib.linalg.cholesky(xx @ xx.mH + lib.eye(3), upper=upper)
        g, = lib.autograd.grad(c.abs().sin().sum(), xx)
        res.append((c.detach().numpy(), g.numpy()))
    for n, t in zip(res[1], res[0]):
        assert torch.allclose(torch.from_numpy(n), torch.from_numpy(t))


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("name", ["cholesky_inverse", "cholesky_solve"])
def test_complex_cholesky_inverse_and_solve(name, upper):
    """Complex Cholesky factors mean ``A = L L^H`` (``U^H U``): values and gradients as PyTorch's."""
    x = torch.randn(3, 3, dtype=torch.complex128)
    low = torch.linalg.cholesky(x @ x.mH + torch.eye(3))
    f, b = (low.mH if upper else low).resolve_conj(), torch.randn(3, 2, dtype=torch.complex128)
    res = []
    for lib, ff, bb in ((torch, f.clone(), b.clone()), (numtorch, _nt(f), _nt(b))):
        ff.requires_grad_(True)
        y = lib.cholesky_inverse(ff, upper=upper) if name == "cholesky_inverse" else lib.cholesky_solve(bb, ff, upper=upper)
        g, = lib.autograd.grad(y.abs().sin().sum(), ff)
        res.append((y.detach().numpy(), g.numpy()))
    for n, t in zip(res[1], res[0]):
        assert torch.allclose(torch.from_numpy(n), torch.from_numpy(t))


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_complex_eigh_gradient(uplo):
    """Complex Hermitian eigh: the gradient uses conjugate transposes (``A = V diag(w) V^H``)."""
    x = torch.randn(2, 3, 3, dtype=torch.complex128)
    res = []
    for lib, xx in ((torch, x.clone()), (numtorch, _nt(x))):
        xx.requires_grad_(True)
        w, v = lib.linalg.eigh(xx @ xx.mH, UPLO=uplo)
        g, = lib.autograd.grad(w.sin().sum() + v.abs().sum(), xx)
        res.append(g.numpy())
    assert torch.allclose(torch.from_numpy(res[1]), torch.from_numpy(res[0]))
