"""``numtorch.fft`` (``fft.py``, ``_ops/spectral.py``) and the complex views it relies on
(``_ops/complex_ops.py``) against PyTorch: values, dtypes, gradients through real losses of complex
results, float64 gradchecks, frequencies/shifts, and errors."""
import numpy as np
import pytest
import torch as ref

import numtorch as nt
from numtorch.autograd import gradcheck

from conftest import to_nt, to_ref

rng = np.random.default_rng(0)
NORMS = [None, "backward", "ortho", "forward"]
TOL = {np.float32: dict(rtol=2e-5, atol=2e-5), np.float64: dict(rtol=1e-10, atol=1e-11)}


def _np(t):
    if isinstance(t, ref.Tensor):
        return t.detach().resolve_conj().numpy()
    return t.detach().numpy()


def _close(a, b, real_dtype):
    """numtorch tensor ``a`` vs PyTorch tensor ``b``: shape, dtype and values."""
    assert str(a.dtype) == str(b.dtype), f"dtype {a.dtype} != {b.dtype}"
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(_np(a), _np(b), **TOL[real_dtype])


def _signal(shape, real_dtype, complex_input):
    x = rng.standard_normal(shape)
    if complex_input:
        x = x + 1j * rng.standard_normal(shape)
        return x.astype(np.complex64 if real_dtype == np.float32 else np.complex128)
    return x.astype(real_dtype)


def _loss(lib, y, wr, wi):
    """A real loss that reaches every part of ``y``: weighted real and imaginary parts plus ``|y|``."""
    if y.is_complex():
        return ((y.real * lib.tensor(wr)).sum() + (y.imag * lib.tensor(wi)).sum()
                + lib.view_as_real(y.resolve_conj()).pow(2).sum() + y.abs().sum())
    return (y * lib.tensor(wr)).sum()


def check(name, x, real_dtype, **kw):
    """Run ``fft.<name>(x, **kw)`` in both libraries; compare the output and ``x``'s gradient."""
    a, b = to_nt(x, requires_grad=True), to_ref(x, requires_grad=True)
    yb = getattr(ref.fft, name)(b, **kw)
    ya = getattr(nt.fft, name)(a, **kw)
    _close(ya, yb, real_dtype)
    wr = rng.standard_normal(tuple(yb.shape)).astype(real_dtype)
    wi = rng.standard_normal(tuple(yb.shape)).astype(real_dtype)
    _loss(ref, yb, wr, wi).backward()
    _loss(nt, ya, wr, wi).backward()
    _close(a.grad, b.grad, real_dtype)


# ------------------------------------------------------------------------------------------------
# values and gradients against PyTorch
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft", "ifft", "irfft", "hfft"])
@pytest.mark.parametrize("complex_input", [False, True], ids=["real", "complex"])
def test_1d_complex_capable(name, norm, complex_input, fdtype):
    x = _signal((3, 6), fdtype, complex_input)
    for n in (None, 4, 9):
        check(name, x, fdtype, n=n, norm=norm)
    check(name, x, fdtype, n=5, dim=0, norm=norm)
    check(name, x[0], fdtype, norm=norm)  # 1-D input


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["rfft", "ihfft"])
def test_1d_real_input(name, norm, fdtype):
    x = _signal((3, 6), fdtype, False)
    for n in (None, 4, 7, 10):
        check(name, x, fdtype, n=n, norm=norm)
    check(name, x, fdtype, dim=0, norm=norm)
    check(name, _signal((2, 3, 5), fdtype, False), fdtype, n=3, dim=1, norm=norm)


ND_ARGS = [dict(), dict(s=(2, 4)), dict(s=(4, -1, 6)), dict(dim=(0, 2)), dict(s=(3, 7), dim=(2, 0)),
           dict(dim=1), dict(s=3, dim=-2)]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fftn", "ifftn", "irfftn", "hfftn"])
@pytest.mark.parametrize("complex_input", [False, True], ids=["real", "complex"])
def test_nd_complex_capable(name, norm, complex_input, fdtype):
    x = _signal((2, 3, 5), fdtype, complex_input)
    for kw in ND_ARGS:
        check(name, x, fdtype, norm=norm, **kw)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["rfftn", "ihfftn"])
def test_nd_real_input(name, norm, fdtype):
    x = _signal((2, 3, 5), fdtype, False)
    for kw in ND_ARGS:
        check(name, x, fdtype, norm=norm, **kw)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_2d(name, norm, fdtype):
    complex_input = name in ("fft2", "ifft2", "irfft2", "hfft2")
    x = _signal((2, 4, 5), fdtype, complex_input)
    for kw in (dict(), dict(s=(3, 6)), dict(dim=(0, 2)), dict(s=(5, -1), dim=(2, 1))):
        check(name, x, fdtype, norm=norm, **kw)


def test_output_dtypes_and_grad_fns():
    x32 = nt.tensor(rng.standard_normal(6).astype(np.float32), requires_grad=True)
    z64 = nt.tensor(rng.standard_normal(6) + 1j * rng.standard_normal(6), requires_grad=True)
    assert nt.fft.fft(x32).dtype == nt.complex64 and nt.fft.rfft(x32).dtype == nt.complex64
    assert nt.fft.irfft(nt.fft.rfft(x32)).dtype == nt.float32
    assert nt.fft.fft(z64).dtype == nt.complex128 and nt.fft.hfft(z64).dtype == nt.float64
    assert nt.fft.irfft(z64).dtype == nt.float64 and nt.fft.hfft(x32).dtype == nt.float32
    assert nt.fft.fft(nt.arange(4)).dtype == nt.complex64  # integers promote to the default float
    assert nt.fft.rfft(nt.tensor([True, False, True])).dtype == nt.complex64
    assert nt.fft.irfft(nt.arange(5)).dtype == nt.float32
    assert type(nt.fft.fft(x32).grad_fn).__name__ == "FftR2CBackward0"
    assert type(nt.fft.fft(z64).grad_fn).__name__ == "FftC2CBackward0"
    assert type(nt.fft.irfft(z64).grad_fn).__name__ == "FftC2RBackward0"
    assert type(nt.fft.ihfft(x32).grad_fn).__name__ == "ConjBackward0"
    prev = nt.get_default_dtype()
    try:
        nt.set_default_dtype(nt.float64)
        assert nt.fft.fft(nt.arange(4)).dtype == nt.complex128
    finally:
        nt.set_default_dtype(prev)


def test_integer_input_values():
    x = np.arange(7)
    np.testing.assert_allclose(_np(nt.fft.rfft(nt.tensor(x))), _np(ref.fft.rfft(ref.tensor(x))), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(_np(nt.fft.fftn(nt.tensor(x.reshape(1, 7)), s=(2, 5))),
                               _np(ref.fft.fftn(ref.tensor(x.reshape(1, 7)), s=(2, 5))), rtol=1e-5, atol=1e-5)


def test_empty_dims_and_scalars():
    x = np.float32(3.5)
    for kw in (dict(), dict(dim=())):
        _close(nt.fft.fftn(nt.tensor(x), **kw), ref.fft.fftn(ref.tensor(x), **kw), np.float32)
    x = rng.standard_normal((2, 3))
    a, b = to_nt(x, True), to_ref(x, True)
    ya, yb = nt.fft.fftn(a, dim=()), ref.fft.fftn(b, dim=())
    _close(ya, yb, np.float64)
    nt.view_as_real(ya).sum().backward()
    ref.view_as_real(yb).sum().backward()
    _close(a.grad, b.grad, np.float64)


def test_round_trips(fdtype):
    x = _signal((4, 7), fdtype, False)
    t = to_nt(x)
    for norm in NORMS:
        np.testing.assert_allclose(_np(nt.fft.irfft(nt.fft.rfft(t, norm=norm), n=7, norm=norm)), x, **TOL[fdtype])
        np.testing.assert_allclose(_np(nt.fft.ifftn(nt.fft.fftn(t, norm=norm), norm=norm).real), x, **TOL[fdtype])
        np.testing.assert_allclose(_np(nt.fft.hfft(nt.fft.ihfft(t, norm=norm), n=7, norm=norm)), x, **TOL[fdtype])


def test_fft_convolution_and_complex_weights():
    # the common use: convolution through rfft products, plus a complex filter that requires grad
    a, b = rng.standard_normal(8), rng.standard_normal(8)
    w = rng.standard_normal(5) + 1j * rng.standard_normal(5)
    res = []
    for lib in (ref, nt):
        x, y, W = (lib.tensor(v, requires_grad=True) for v in (a, b, w))
        z = lib.fft.irfft(lib.fft.rfft(x) * lib.fft.rfft(y) * W / (W + 2), n=8)
        (z * lib.arange(8.0)).sum().backward()
        res.append([z, x.grad, y.grad, W.grad])
    for u, v in zip(res[1], res[0]):
        _close(u, v, np.float64)


# ------------------------------------------------------------------------------------------------
# float64 gradcheck (complex inputs and outputs seen through view_as_real / view_as_complex)
# ------------------------------------------------------------------------------------------------
def _cplx(re, im):
    return nt.view_as_complex(nt.stack([re, im], -1))


GRADCHECK = [
    ("fft", dict(n=5, norm="ortho")), ("ifft", dict(n=3)), ("fft2", dict(s=(3, 2), norm="forward")),
    ("ifftn", dict(dim=(0,), norm="ortho")), ("irfft", dict(n=5)), ("irfft", dict(n=4, norm="forward")),
    ("hfft", dict(n=5)), ("irfftn", dict(s=(2, 6), norm="ortho")), ("hfft2", dict(s=(3, 3)))]


@pytest.mark.parametrize("name,kw", GRADCHECK)
def test_gradcheck_complex_input(name, kw):
    fn = getattr(nt.fft, name)

    def f(re, im):
        y = fn(_cplx(re, im), **kw)
        return nt.view_as_real(y) if y.is_complex() else y

    re = nt.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    im = nt.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    assert gradcheck(f, (re, im))


@pytest.mark.parametrize("name,kw", [("fft", dict(n=4)), ("ifft", dict(norm="forward")), ("rfft", dict()),
                                     ("rfft", dict(n=5, norm="ortho")), ("ihfft", dict(n=4)),
                                     ("rfft2", dict(s=(3, 4))), ("rfftn", dict(dim=(1, 0))),
                                     ("ihfftn", dict(norm="forward")), ("irfft", dict()), ("hfftn", dict())])
def test_gradcheck_real_input(name, kw):
    fn = getattr(nt.fft, name)

    def f(x):
        y = fn(x, **kw)
        return nt.view_as_real(y) if y.is_complex() else y

    assert gradcheck(f, (nt.tensor(rng.standard_normal((2, 3)), requires_grad=True),))


def test_gradcheck_abs_loss():
    # |fft(x)| is differentiable away from zero bins; check the whole real-loss chain numerically
    x = nt.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(lambda t: nt.fft.rfft2(t, norm="ortho").abs(), (x,))
    assert gradcheck(lambda t: nt.fft.fft(t, n=6).imag * nt.fft.ifft(t, dim=0).real.sum(), (x,))


# ------------------------------------------------------------------------------------------------
# frequencies and shifts
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,d", [(0, 1.0), (1, 1.0), (7, 0.3), (10, 1.7), (33, 0.1), (8, 3)])
def test_fftfreq_rfftfreq(n, d):
    for name in ("fftfreq", "rfftfreq"):
        for dtype in (None, "float64"):
            kw = {} if dtype is None else dict(dtype=getattr(nt, dtype))
            rkw = {} if dtype is None else dict(dtype=getattr(ref, dtype))
            a, b = getattr(nt.fft, name)(n, d, **kw), getattr(ref.fft, name)(n, d, **rkw)
            assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape)
            np.testing.assert_array_equal(_np(a), _np(b))  # bit-exact, nan (rfftfreq(0)) included


def test_freq_options():
    f = nt.fft.fftfreq(4, requires_grad=True)
    assert f.requires_grad and f.is_leaf
    o = nt.empty(0, dtype=nt.float64)
    r = nt.fft.rfftfreq(6, 0.5, out=o)
    assert r is o and o.dtype == nt.float64
    np.testing.assert_array_equal(_np(o), _np(ref.fft.rfftfreq(6, 0.5, dtype=ref.float64)))
    np.testing.assert_array_equal(_np(nt.fft.fftfreq(5, d=nt.tensor(2.0))), _np(ref.fft.fftfreq(5, d=2.0)))


@pytest.mark.parametrize("dim", [None, 0, 1, -1, (0, 1), [1], (1, 0)])
def test_shifts(dim):
    x = rng.standard_normal((3, 4))
    for name in ("fftshift", "ifftshift"):
        a, b = to_nt(x, True), to_ref(x, True)
        ya, yb = getattr(nt.fft, name)(a, dim=dim), getattr(ref.fft, name)(b, dim=dim)
        _close(ya, yb, np.float64)
        w = rng.standard_normal(x.shape)
        (ya * nt.tensor(w)).sum().backward()
        (yb * ref.tensor(w)).sum().backward()
        _close(a.grad, b.grad, np.float64)
    z = _signal((5,), np.float32, True)
    _close(nt.fft.fftshift(to_nt(z)), ref.fft.fftshift(to_ref(z)), np.float32)
    idx = nt.fft.ifftshift(nt.fft.fftshift(nt.arange(7), dim=dim if dim in (None, 0, -1) else None))
    np.testing.assert_array_equal(_np(idx), np.arange(7))


# ------------------------------------------------------------------------------------------------
# out=
# ------------------------------------------------------------------------------------------------
def test_out():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    o = nt.empty(0, dtype=nt.complex64)
    r = nt.fft.fft(to_nt(x), out=o)
    assert r is o and tuple(o.shape) == (3, 4)
    _close(o, ref.fft.fft(to_ref(x)), np.float32)
    o = nt.empty(0, dtype=nt.float64)
    nt.fft.irfft(nt.fft.rfft(to_nt(x)), n=4, out=o)
    np.testing.assert_allclose(_np(o), x, rtol=1e-5, atol=1e-5)
    for name, bad in (("fft", nt.float32), ("rfft", nt.float32), ("fftn", nt.float32), ("irfft", nt.complex64)):
        with pytest.raises(RuntimeError) as e1:
            getattr(ref.fft, name)(to_ref(x), out=ref.empty(0, dtype=getattr(ref, str(bad).split(".")[1])))
        with pytest.raises(RuntimeError) as e2:
            getattr(nt.fft, name)(to_nt(x), out=nt.empty(0, dtype=bad))
        assert str(e2.value) == str(e1.value)


# ------------------------------------------------------------------------------------------------
# errors: same type and message as PyTorch
# ------------------------------------------------------------------------------------------------
X2 = rng.standard_normal((3, 4))
Z2 = X2 + 1j * rng.standard_normal((3, 4))
ERRORS = [
    ("fft", X2, dict(dim=2)), ("fft", X2, dict(dim=-3)), ("fft", X2, dict(n=0)), ("fft", X2, dict(n=-2)),
    ("fft", X2, dict(norm="bad")), ("fft", X2, dict(norm="ORTHO")), ("fft", X2, dict(norm=3)),
    ("fft", X2, dict(n=2.0)), ("fft", X2, dict(n=True)), ("fft", X2, dict(dim=(0,))), ("fft", X2, dict(dim=1.0)),
    ("fft", np.float64(1.0), dict()), ("fft", np.zeros(0), dict()), ("ifft", X2, dict(dim=5)),
    ("fftn", X2, dict(dim=(0, 0))), ("fftn", X2, dict(dim=(0, -2))), ("fftn", X2, dict(s=(2, 2), dim=(0,))),
    ("fftn", X2, dict(s=(2, 2, 2))), ("fftn", X2, dict(s=(0, 2))), ("fftn", X2, dict(s=(2.0, 3))),
    ("fftn", X2, dict(dim=(0, 3))), ("fftn", np.float64(1.0), dict(dim=0)), ("fft2", X2[0], dict()),
    ("rfft2", X2, dict(dim=None)), ("rfft", Z2, dict()),
    ("ihfft", Z2, dict()), ("rfftn", Z2, dict()), ("rfft2", Z2, dict()),
    ("ihfftn", Z2, dict()), ("rfftn", np.float64(1.0), dict()), ("rfftn", X2, dict(dim=())),
    ("irfftn", Z2, dict(dim=())), ("hfftn", X2, dict(dim=())), ("ihfftn", X2, dict(dim=())),
    ("irfft", Z2[:, :1], dict()), ("irfft", Z2, dict(n=0)), ("irfftn", Z2[:, :1], dict()),
    ("irfftn", Z2, dict(s=(0, 2))), ("hfft", Z2[:, :1], dict()), ("irfft", Z2, dict(dim=2)),
    ("fftshift", X2, dict(dim=3)), ("ifftshift", X2, dict(dim=1.0)), ("fftshift", np.float64(2.0), dict()),
]


@pytest.mark.parametrize("name,x,kw", ERRORS, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(ERRORS)])
def test_errors_match_torch(name, x, kw):
    with pytest.raises(Exception) as e1:
        getattr(ref.fft, name)(ref.tensor(x), **kw)
    with pytest.raises(type(e1.value)) as e2:
        getattr(nt.fft, name)(nt.tensor(x), **kw)
    if type(e1.value) is not TypeError:  # TypeError texts name PyTorch's binding internals; type is what matters
        assert str(e2.value) == str(e1.value)


def test_other_errors():
    for dt in (nt.float16, nt.bfloat16):
        with pytest.raises(RuntimeError, match="Unsupported dtype"):
            nt.fft.fft(nt.ones(4, dtype=dt))
    with pytest.raises(TypeError):
        nt.fft.fft([1.0, 2.0])
    with pytest.raises(TypeError):
        nt.fft.fftfreq(4.0)
    with pytest.raises(TypeError):
        nt.fft.fftfreq(4, d="a")
    with pytest.raises(RuntimeError, match="negative dimension"):
        nt.fft.fftfreq(-1)
    with pytest.raises(RuntimeError, match="floating point"):
        nt.fft.rfftfreq(4, dtype=nt.int64)


# ------------------------------------------------------------------------------------------------
# complex support used by the transforms: views, conj, complex mul/div gradients
# ------------------------------------------------------------------------------------------------
def test_complex_views_and_conj(fdtype):
    z = _signal((2, 3), fdtype, True)
    for fn in (lambda L, t: t.real, lambda L, t: t.imag, lambda L, t: L.view_as_real(t), lambda L, t: L.real(t),
               lambda L, t: t.conj(), lambda L, t: L.conj_physical(t), lambda L, t: L.imag(t) * 2):
        a, b = to_nt(z, True), to_ref(z, True)
        ya, yb = fn(nt, a), fn(ref, b)
        _close(ya, yb, fdtype)
        w = rng.standard_normal(tuple(yb.shape)).astype(fdtype)
        _loss(ref, yb, w, w).backward()
        _loss(nt, ya, w, w).backward()
        _close(a.grad, b.grad, fdtype)
    x = rng.standard_normal((2, 3, 2)).astype(fdtype)
    a, b = to_nt(x, True), to_ref(x, True)
    ya, yb = nt.view_as_complex(a), ref.view_as_complex(b)
    _close(ya, yb, fdtype)
    (ya.abs().sum() + ya.imag.sum()).backward()
    (yb.abs().sum() + yb.imag.sum()).backward()
    _close(a.grad, b.grad, fdtype)
    t = to_nt(z)
    assert t.real._base is t and nt.view_as_real(t)._base is t  # views share memory, as in PyTorch
    t.real.mul_(0)
    np.testing.assert_allclose(_np(t), 1j * z.imag)
    r = to_nt(x)
    assert r.real is r and nt.conj(r) is r


def test_complex_view_errors():
    cases = [(lambda L: L.tensor([1.0, 2.0]).imag), (lambda L: L.view_as_real(L.ones(3))),
             (lambda L: L.view_as_complex(L.ones(3, 2, dtype=L.int64))), (lambda L: L.view_as_complex(L.ones(3, 3))),
             (lambda L: L.view_as_complex(L.ones(2, 3).t())), (lambda L: L.view_as_complex(L.ones(()))),
             (lambda L: L.view_as_complex(L.ones(3, 3)[:, :2]))]
    for case in cases:
        with pytest.raises(RuntimeError) as e1:
            case(ref)
        with pytest.raises(RuntimeError) as e2:
            case(nt)
        assert str(e2.value) == str(e1.value)
