"""Behaviour of the ops issue #16 added that PyTorch's OpInfo samples do not reach, against torch:
bit shifts (counts below 0 or past the bit width, operators, in-place forms), every window function's
options, stft/istft over their options (values and gradients of signal and window), node names and
memory of the ``*_copy``/``*_scatter`` ops, histogram result types, fully masked-out slices of
``torch.masked``, and the exception types of bad arguments.
"""
from __future__ import annotations

import itertools
import operator
import warnings

import numpy as np
import pytest
import torch

import numtorch
import numtorch.masked
import numtorch.signal.windows
import numtorch.special

from _gradgrad import _np, to_nt


def _same(a, b, what="", rtol=1e-7, atol=1e-9):
    assert tuple(a.shape) == tuple(b.shape), f"{what}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], f"{what}: dtype {a.dtype} vs {b.dtype}"
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def _nt_dtype(dt):
    return None if dt is None else getattr(numtorch, str(dt).split(".")[1])


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 (the exception type is the result compared)
        return type(e)


# ------------------------------------------------------------------------------------------------
# bit shifts
# ------------------------------------------------------------------------------------------------
VALUES = {torch.int8: [-128, -100, -1, 0, 1, 3, 127], torch.uint8: [0, 1, 3, 200, 255],
          torch.int16: [-5, 7, 32767], torch.int32: [-5, 7, 2 ** 30], torch.int64: [-5, 7, 2 ** 62, -2 ** 63]}
COUNTS = [-70, -9, -1, 0, 1, 3, 7, 8, 9, 15, 16, 31, 32, 33, 63, 64, 65, 200]


@pytest.mark.quick
@pytest.mark.parametrize("op", [operator.lshift, operator.rshift], ids=["lshift", "rshift"])
@pytest.mark.parametrize("dtype", list(VALUES), ids=str)
def test_shift_counts_outside_the_bit_width_match_torch(op, dtype):
    """Negative or oversized counts: PyTorch gives 0 (left, unsigned right) or the sign fill (signed right)."""
    ta = torch.tensor(VALUES[dtype], dtype=dtype)
    na = numtorch.tensor(VALUES[dtype], dtype=_nt_dtype(dtype))
    for count_dtype in (torch.int8, torch.uint8, torch.int64):
        info = torch.iinfo(count_dtype)
        tc = torch.tensor([c for c in COUNTS if info.min <= c <= info.max], dtype=count_dtype)[:, None]
        for x, y, nx, ny in ((ta, tc, na, to_nt(tc)), (tc, ta, to_nt(tc), na)):
            r, nr = op(x, y), op(nx, ny)
            assert str(nr.dtype) == str(r.dtype)
            np.testing.assert_array_equal(_np(nr), r.numpy())
    for c in COUNTS:  # a Python int count, and the reflected operator
        np.testing.assert_array_equal(_np(op(na, c)), op(ta, c).numpy())
        if 0 <= c < 8:
            np.testing.assert_array_equal(_np(op(c, na)), op(c, ta).numpy())


def test_shift_functions_inplace_and_exceptions():
    t, n = torch.tensor([1, 2, -3]), numtorch.tensor([1, 2, -3])
    t <<= 3
    n <<= 3
    t >>= 1
    n >>= 1
    np.testing.assert_array_equal(_np(n), t.numpy())
    np.testing.assert_array_equal(_np(numtorch.bitwise_left_shift(n, 2)), torch.bitwise_left_shift(t, 2).numpy())
    np.testing.assert_array_equal(_np(n.bitwise_right_shift_(1)), t.bitwise_right_shift_(1).numpy())
    np.testing.assert_array_equal(_np(numtorch.tensor([True]) << 1), (torch.tensor([True]) << 1).numpy())
    for a, b in [(torch.tensor([1.0]), 1), (torch.tensor([True]), torch.tensor([True])), (torch.tensor([1]), 1.5)]:
        for op in (operator.lshift, operator.rshift):
            want = _outcome(lambda: op(a, b))
            assert isinstance(want, type) and _outcome(lambda: op(to_nt(a), to_nt(b))) is want


# ------------------------------------------------------------------------------------------------
# windows
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["hann", "hamming", "blackman", "bartlett", "kaiser"])
def test_aten_windows_match_torch(name):
    tf, nf = getattr(torch, name + "_window"), getattr(numtorch, name + "_window")
    for length, periodic, dtype, rg in itertools.product([-1, 0, 1, 2, 5, 8], [True, False],
                                                          [None, torch.float64, torch.int64], [False, True]):
        want = _outcome(lambda: tf(length, periodic, dtype=dtype, requires_grad=rg))
        got = _outcome(lambda: nf(length, periodic, dtype=_nt_dtype(dtype), requires_grad=rg))
        if isinstance(want, type):
            assert got is want, (name, length, periodic, dtype)
            continue
        _same(got, want, f"{name} {length} {periodic} {dtype}", rtol=1e-5, atol=1e-6)
        assert got.requires_grad == want.requires_grad
    _same(numtorch.hamming_window(7, False, 0.6, 0.2), torch.hamming_window(7, False, 0.6, 0.2), rtol=1e-6)
    _same(numtorch.kaiser_window(7, False, 3.0), torch.kaiser_window(7, False, 3.0), rtol=1e-6)


SIGNAL_OPTIONS = {"gaussian": [{}, {"std": 2.0}, {"std": -1.0}],
                  "exponential": [{}, {"tau": 3.0}, {"center": 1.0}, {"tau": 0.0}],
                  "kaiser": [{}, {"beta": 3.0}, {"beta": -1.0}],
                  "general_cosine": [{"a": [0.5, 0.3, 0.2]}, {"a": []}, {"a": 3}],
                  "general_hamming": [{}, {"alpha": 0.6}]}


@pytest.mark.parametrize("name", torch.signal.windows.__all__)
def test_signal_windows_match_torch(name):
    tf, nf = getattr(torch.signal.windows, name), getattr(numtorch.signal.windows, name)
    for m, sym, dtype in itertools.product([-1, 0, 1, 2, 5, 8], [True, False], [None, torch.float64, torch.int64]):
        for kw in SIGNAL_OPTIONS.get(name, [{}]):
            want = _outcome(lambda: tf(m, sym=sym, dtype=dtype, **kw))
            got = _outcome(lambda: nf(m, sym=sym, dtype=_nt_dtype(dtype), **kw))
            if isinstance(want, type):
                assert got is want, (name, m, sym, dtype, kw)
                continue
            _same(got, want, f"{name} {m} {sym} {dtype} {kw}", rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------------
# stft / istft
# ------------------------------------------------------------------------------------------------
STFT_CASES = [  # (batched, n_fft, hop, win_length, center, pad_mode, onesided, normalized, window)
    (False, 8, None, None, True, "reflect", None, False, "hann"),
    (True, 8, 3, 6, True, "constant", None, True, "hann"),
    (False, 7, 3, None, False, "reflect", False, False, "none"),
    (True, 7, 2, 6, True, "reflect", False, True, "complex"),
    (False, 8, 2, None, True, "replicate", None, False, "hann"),
]


@pytest.mark.parametrize("case", STFT_CASES, ids=lambda c: "-".join(map(str, c)))
def test_stft_istft_values_and_grads_match_torch(case):
    batched, n_fft, hop, win, center, mode, onesided, normalized, wkind = case
    gen = torch.Generator().manual_seed(0)
    x = torch.randn((2, 21) if batched else (21,), dtype=torch.float64, generator=gen, requires_grad=True)
    wl = win or n_fft
    w = None if wkind == "none" else torch.hann_window(wl, dtype=torch.float64) * (1 + 0.5j if wkind == "complex"
                                                                                   else 1)
    if w is not None:
        w.requires_grad_(True)
    kw = dict(n_fft=n_fft, hop_length=hop, win_length=win, window=w, center=center, normalized=normalized,
              onesided=onesided)
    nx, nkw = to_nt(x), to_nt(kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ty = torch.stft(x, pad_mode=mode, return_complex=True, **kw)
        ny = numtorch.stft(nx, pad_mode=mode, return_complex=True, **nkw)
        _same(ny, ty, "stft")
        leaves, nleaves = [x] + ([w] if w is not None else []), [nx] + ([nkw["window"]] if w is not None else [])
        v = torch.randn(ty.shape, dtype=ty.dtype, generator=gen)
        for a, b in zip(numtorch.autograd.grad(ny, nleaves, to_nt(v)), torch.autograd.grad(ty, leaves, v)):
            _same(a, b, "stft grad")
        # the inverse, on a spectrogram that requires grad; a complex window needs a complex result
        spec = ty.detach().requires_grad_(True)
        nspec = to_nt(spec)
        rc = wkind == "complex"
        tr = torch.istft(spec, length=21, return_complex=rc, **kw)
        nr = numtorch.istft(nspec, length=21, return_complex=rc, **nkw)
        _same(nr, tr, "istft")
        v = torch.randn(tr.shape, dtype=tr.dtype, generator=gen)
        tg = torch.autograd.grad(tr, [spec] + leaves[1:], v)
        ng = numtorch.autograd.grad(nr, [nspec] + nleaves[1:], to_nt(v))
        for a, b in zip(ng, tg):
            _same(a, b, "istft grad")
    if wkind != "complex" and center:  # frames cover the whole signal: a perfect reconstruction
        np.testing.assert_allclose(_np(nr), x.detach().numpy(), atol=1e-10)


def test_stft_return_complex_false_and_defaults():
    x = torch.randn(2, 30, dtype=torch.float64)
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        got = numtorch.stft(to_nt(x), 8, window=numtorch.hann_window(8, dtype=numtorch.float64), return_complex=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = torch.stft(x, 8, window=torch.hann_window(8, dtype=torch.float64), return_complex=False)
        _same(got, want)
        _same(to_nt(x).stft(8, return_complex=True), x.stft(8, return_complex=True))  # the rectangular default
    with pytest.warns(UserWarning, match="A window was not provided"):
        numtorch.stft(to_nt(x), 8, return_complex=True)


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.stft(x, 8),  # return_complex missing for a real input
    lambda lib, x: lib.stft(x, 30, center=False, return_complex=True),
    lambda lib, x: lib.stft(x, 8, hop_length=0, return_complex=True),
    lambda lib, x: lib.stft(x, 8, win_length=9, return_complex=True),
    lambda lib, x: lib.stft(x, 8, window=lib.ones(6), return_complex=True),
    lambda lib, x: lib.stft(x[None, None], 8, return_complex=True),
    lambda lib, x: lib.stft(x.to(lib.complex64), 8, return_complex=True, onesided=True),
    lambda lib, x: lib.stft(x, 8, return_complex=True, pad_mode="foo"),
    lambda lib, x: lib.istft(lib.view_as_real(lib.stft(x, 8, return_complex=True)), 8),
    lambda lib, x: lib.istft(lib.stft(x, 8, return_complex=True), 8, center=False, window=lib.hann_window(8)),
    lambda lib, x: lib.istft(lib.stft(x, 8, return_complex=True), 10),
])
def test_stft_istft_errors_match_torch(call):
    x = torch.randn(20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _outcome(lambda: call(torch, x))
        assert isinstance(want, type), "torch accepted the call"
        assert _outcome(lambda: call(numtorch, to_nt(x))) is want


# ------------------------------------------------------------------------------------------------
# *_copy and *_scatter: node names, memory, gradients by finite differences
# ------------------------------------------------------------------------------------------------
def test_copy_ops_node_names_and_memory():
    for name, args in [("view_copy", ((16,),)), ("t_copy", ()), ("transpose_copy", (0, 1)), ("permute_copy", ((1, 0),)),
                       ("diagonal_copy", ()), ("expand_copy", ((2, 4, 4),)), ("alias_copy", ()),
                       ("narrow_copy", (0, 1, 2)), ("select_copy", (0, 1)), ("unsqueeze_copy", (0,))]:
        t = torch.randn(4, 4, requires_grad=True)
        n = to_nt(t)
        tr, nr = getattr(torch, name)(t, *args), getattr(numtorch, name)(n, *args)
        _same(nr, tr, name)
        assert type(nr.grad_fn).__name__ == type(tr.grad_fn).__name__, name
        nr.detach().zero_() if nr.dim() else None
        assert np.all(_np(n) == t.detach().numpy()), f"{name} shares memory with its input"
    for name in ("split_copy", "unbind_copy"):
        t = torch.randn(4, 4, requires_grad=True)
        tr, nr = getattr(torch, name)(t, 2) if name == "split_copy" else torch.unbind_copy(t), \
            getattr(numtorch, name)(to_nt(t), 2) if name == "split_copy" else numtorch.unbind_copy(to_nt(t))
        assert [type(r.grad_fn).__name__ for r in nr] == [type(r.grad_fn).__name__ for r in tr]
    d = numtorch.detach_copy(numtorch.ones(2, requires_grad=True))
    assert not d.requires_grad and d.grad_fn is None


def test_scatter_ops_node_names_and_gradcheck():
    x = numtorch.randn(5, 4, dtype=numtorch.float64, requires_grad=True)
    cases = [("slice_scatter", numtorch.randn(2, 4, dtype=numtorch.float64), (0, 1, 5, 2)),
             ("select_scatter", numtorch.randn(4, dtype=numtorch.float64), (0, -1)),
             ("diagonal_scatter", numtorch.randn(3, dtype=numtorch.float64), (1,)),
             ("as_strided_scatter", numtorch.randn(2, 2, dtype=numtorch.float64), ((2, 2), (1, 3), 2))]
    for name, src, args in cases:
        src.requires_grad_(True)
        out = getattr(numtorch, name)(x, src, *args)
        assert type(out.grad_fn).__name__ == {"slice_scatter": "SliceScatterBackward0",
                                              "select_scatter": "SelectScatterBackward0",
                                              "diagonal_scatter": "DiagonalScatterBackward0",
                                              "as_strided_scatter": "AsStridedScatterBackward0"}[name]
        assert numtorch.autograd.gradcheck(lambda a, b: getattr(numtorch, name)(a, b, *args), (x, src))
        assert numtorch.autograd.gradgradcheck(lambda a, b: getattr(numtorch, name)(a, b, *args), (x, src))


def test_gradcheck_of_compositions():
    f64 = dict(dtype=numtorch.float64)
    x = numtorch.randn(3, 6, **f64, requires_grad=True)
    coords = numtorch.tensor([0.0, 0.5, 1.5, 2.0, 3.5, 4.0], **f64)
    w = numtorch.rand(6, **f64) + 0.5
    mask = numtorch.tensor([[True, False, True, True, False, True]] * 2 + [[False, True, True, False, True, True]])
    checks = [
        lambda a: numtorch.cov(a, correction=0, aweights=w),
        lambda a: numtorch.corrcoef(a),
        lambda a: numtorch.gradient(a, spacing=[coords], dim=1, edge_order=2)[0],
        lambda a: numtorch.stft(a, 4, hop_length=1, window=numtorch.hann_window(4, **f64), return_complex=True).abs(),
        lambda a: a.put(numtorch.tensor([0, 7, 0]), numtorch.ones(3, **f64) * a[0, 0], accumulate=True),
        lambda a: numtorch.masked.std(a, 1, mask=mask),
        lambda a: numtorch.masked.softmax(a, 0, mask=mask),
        lambda a: numtorch.addr(a[:, :2].sum(1)[:, None].expand(3, 4), a[:, 0], a[0, :4], beta=0.5, alpha=2),
    ]
    for i, f in enumerate(checks):
        assert numtorch.autograd.gradcheck(f, (x,)), i


# ------------------------------------------------------------------------------------------------
# results with PyTorch's types; fully masked-out slices; bad arguments
# ------------------------------------------------------------------------------------------------
def test_histogram_result_types():
    x = torch.tensor([1.0, 2.0, 2.0, 5.0, 7.5])
    got, want = to_nt(x).histogram(4, range=(0.0, 8.0)), x.histogram(4, range=(0.0, 8.0))
    assert type(got).__name__ == "histogram" and got._fields == ("hist", "bin_edges")
    _same(got.hist, want.hist)
    _same(got.bin_edges, want.bin_edges)
    assert repr(got).startswith("torch.return_types.histogram(")
    pts = torch.rand(10, 3)
    got, want = numtorch.histogramdd(to_nt(pts), [2, 3, 4], density=True), torch.histogramdd(pts, [2, 3, 4], density=True)
    assert isinstance(got.bin_edges, tuple) and len(got.bin_edges) == 3
    _same(got.hist, want.hist, rtol=1e-5)


def test_masked_fully_masked_out_slices_match_torch():
    x = torch.randn(3, 4, dtype=torch.float64)
    mask = torch.tensor([[True, False, True, False], [False] * 4, [True] * 4])
    for name, kw in [("mean", {}), ("amax", {}), ("amin", {}), ("sum", {}), ("var", {}), ("logsumexp", {}),
                     ("norm", {"ord": 2.0}), ("softmax", {}), ("log_softmax", {}), ("normalize", {"ord": 2.0})]:
        tf, nf = getattr(torch.masked, name), getattr(numtorch.masked, name)
        if name in ("norm", "normalize"):
            want, got = tf(x, kw["ord"], 1, mask=mask), nf(to_nt(x), kw["ord"], 1, mask=to_nt(mask))
        else:
            want, got = tf(x, 1, mask=mask), nf(to_nt(x), 1, mask=to_nt(mask))
        _same(got, want, name)
    with pytest.raises(ValueError):
        numtorch.masked.mean(numtorch.tensor([1, 2]), mask=numtorch.tensor([True, False]))
    with pytest.raises(ValueError):
        numtorch.masked.median(numtorch.tensor([[1, 2]]), 1, mask=numtorch.tensor([[False, False]]))


@pytest.mark.parametrize("call", [
    lambda lib: lib.isin(1, 2),
    lambda lib: lib.unravel_index(lib.tensor([1.0]), (2, 4)),
    lambda lib: lib.unravel_index(lib.tensor([9]), (2, -4)),
    lambda lib: lib.broadcast_shapes((2, 1), (3, 2)),
    lambda lib: lib.cov(lib.ones(3, 4), fweights=lib.ones(4)),
    lambda lib: lib.cov(lib.ones(2, 3, 4)),
    lambda lib: lib.ones(3, 1).sum_to_size(2, 1),
    lambda lib: lib.polar(lib.ones(2, dtype=lib.float64), lib.zeros(2)),
    lambda lib: lib.zeros(2, 3).put(lib.tensor([0.0]), lib.tensor([1.0])),
    lambda lib: lib.zeros(2, 3).put(lib.tensor([6]), lib.tensor([1.0])),
    lambda lib: lib.rsub(lib.tensor([True]), True),
    lambda lib: lib.column_stack([]),
    lambda lib: lib.hsplit(lib.ones(3, 5), 2),
    lambda lib: lib.dsplit(lib.ones(3, 5), [1]),
    lambda lib: lib.addr(lib.zeros(3, 2, dtype=lib.int64), lib.tensor([1, 2, 3]), lib.tensor([1, 2]), alpha=1.5),
    lambda lib: lib.dist(lib.ones(3, dtype=lib.int64), lib.zeros(3, dtype=lib.int64)),
    lambda lib: lib.gradient(lib.ones(2), edge_order=2),
    lambda lib: lib.histogram(lib.tensor([1.0, float("inf")]), 3),
    lambda lib: lib.histogram(lib.tensor([1, 2]), 3),
    lambda lib: lib.special.chebyshev_polynomial_t(lib.tensor([1j]), 2),
    lambda lib: lib.slice_scatter(lib.zeros(4, 4), lib.ones(3, 4), 0, 0, 2),
    lambda lib: lib.select_scatter(lib.zeros(4, 4), lib.ones(4), 0, 5),
    lambda lib: lib.index_reduce(lib.zeros(3), 0, lib.tensor([0]), lib.ones(1), "sum"),
])
def test_bad_arguments_raise_torch_type(call):
    want = _outcome(lambda: call(torch))
    assert isinstance(want, type), "torch accepted the call"
    assert _outcome(lambda: call(numtorch)) is want


def test_polynomials_degrees_and_promotion_match_torch():
    x = torch.tensor([-2.0, -1.0, -0.5, 0.0, 0.3, 1.0, 1.5], dtype=torch.float64)
    for name in [n for n in dir(torch.special) if "polynomial" in n]:
        tf, nf = getattr(torch.special, name), getattr(numtorch.special, name)
        for n in (-2, 0, 1, 2.7, 9, torch.tensor([3]), torch.tensor([[0], [4]])):
            _same(nf(to_nt(x), to_nt(n)), tf(x, n), f"{name} n={n}", rtol=1e-9)
        _same(nf(0.5, numtorch.tensor([3, 4])), tf(0.5, torch.tensor([3, 4])), name, rtol=1e-6)
        _same(nf(numtorch.tensor([1, 2]), 3), tf(torch.tensor([1, 2]), 3), name, rtol=1e-6)


@pytest.mark.parametrize("fn", [lambda lib, a: a << 1, lambda lib, a: 1 >> a, lambda lib, a: lib.isin(a, a[:1]),
                                lambda lib, a: lib.special.chebyshev_polynomial_t(a.double(), 2),
                                lambda lib, a: lib.special.legendre_polynomial_p(2.0, a),
                                lambda lib, a: lib.unravel_index(a, (2, 3))[1]])
def test_under_vmap_never_silently_wrong(fn):
    """Kernels that compute on arrays outside an Op either give torch.func.vmap's values or raise (the
    batched stand-in refuses to be read); they never read it as zeros."""
    x = torch.arange(6).reshape(2, 3)
    want = torch.func.vmap(lambda a: fn(torch, a))(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _outcome(lambda: numtorch.func.vmap(lambda a: fn(numtorch, a))(to_nt(x)))
    if not (isinstance(got, type) and issubclass(got, RuntimeError)):  # vmap's StandInRead is a RuntimeError
        _same(got, want)
