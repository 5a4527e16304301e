"""APIs a new user reaches for, against PyTorch: legacy tensor types, finfo/iinfo, print options,
thread/determinism/precision flags, anomaly mode, pinning, Tensor.new_*, unfold/as_strided and the
in-place shape ops, resize_, and nn.utils.rnn padding/packing with packed RNN inputs."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch as ref

import numtorch as nt
from numtorch.autograd import gradcheck
from conftest import assert_close, to_nt, to_ref

RNG = np.random.default_rng(0)
TYPES = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor", "ShortTensor",
         "CharTensor", "ByteTensor", "BoolTensor"]
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def _rand(shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def _same_error(fn, exc=RuntimeError):
    with pytest.raises(exc) as er:
        fn(ref)
    with pytest.raises(exc) as en:
        fn(nt)
    assert str(en.value) == str(er.value)


# ================================================================================================
# 1. legacy tensor types
# ================================================================================================
@pytest.mark.parametrize("name", TYPES)
def test_legacy_type_constructors(name):
    N, R = getattr(nt, name), getattr(ref, name)
    for args in ([[1, 0, 2]], [[1.7, 2.2]], [((2, 3),)], [np.array([1, 2])]):
        a, b = N(*args), R(*args)
        assert str(a.dtype) == str(b.dtype) and type(a) is nt.Tensor
        np.testing.assert_array_equal(a.float().numpy(), b.float().numpy())
    for sizes in ((2, 3), (nt.Size([4]),), ()):
        a = N(*sizes)
        b = R(*(ref.Size(s) if isinstance(s, nt.Size) else s for s in sizes))
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
    assert N.dtype is getattr(nt, N.dtype.name) and str(N.dtype) == str(R.dtype)
    assert repr(N) == repr(R) == f"<class 'torch.{name}'>"
    assert N(2, device="cpu").shape == (2,)


def test_legacy_type_shares_memory_and_errors():
    t = nt.tensor([1.0, 2.0])
    u = nt.FloatTensor(t)
    assert u.data_ptr() == t.data_ptr()
    with pytest.raises(TypeError, match="expected torch.float32"):  # no conversion, as in PyTorch
        nt.FloatTensor(nt.tensor([1, 2]))
    _same_error(lambda M: M.FloatTensor(2.0), TypeError)
    _same_error(lambda M: M.FloatTensor("a"), TypeError)
    _same_error(lambda M: M.FloatTensor(2, device="cuda"), RuntimeError)
    with pytest.raises(TypeError):
        nt.FloatTensor([1], [2])


@pytest.mark.parametrize("dtype", DTYPES)
def test_legacy_type_isinstance(dtype):
    a, b = nt.zeros(2, dtype=getattr(nt, dtype)), ref.zeros(2, dtype=getattr(ref, dtype))
    for name in TYPES:
        assert isinstance(a, getattr(nt, name)) == isinstance(b, getattr(ref, name)), name
    assert isinstance(nt.nn.Parameter(nt.zeros(2)), nt.FloatTensor)
    assert not isinstance(np.zeros(2, np.float32), nt.FloatTensor) and not isinstance(3.0, nt.FloatTensor)


def test_type_method_accepts_legacy_types():
    x = nt.tensor([1.5, -2.5])
    for name in ("LongTensor", "DoubleTensor", "ByteTensor"):
        y, r = x.type(getattr(nt, name)), ref.tensor([1.5, -2.5]).type(getattr(ref, name))
        assert str(y.dtype) == str(r.dtype) and y.tolist() == r.tolist()
    assert x.type() == "torch.FloatTensor" and x.type("torch.IntTensor").dtype == nt.int32


# ================================================================================================
# 3. module-level utilities
# ================================================================================================
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64", "complex128"])
def test_finfo(dtype):
    a, b = nt.finfo(getattr(nt, dtype)), ref.finfo(getattr(ref, dtype))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(a, attr) == getattr(b, attr) and type(getattr(a, attr)) is type(getattr(b, attr)), attr
    assert repr(a) == repr(b)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_iinfo(dtype):
    a, b = nt.iinfo(getattr(nt, dtype)), ref.iinfo(getattr(ref, dtype))
    for attr in ("bits", "max", "min", "dtype"):
        assert getattr(a, attr) == getattr(b, attr) and type(getattr(a, attr)) is type(getattr(b, attr)), attr
    assert repr(a) == repr(b)


def test_finfo_iinfo_defaults_and_errors():
    assert nt.finfo().dtype == "float32"
    nt.set_default_dtype(nt.float64)
    try:
        assert nt.finfo().eps == ref.finfo(ref.float64).eps
    finally:
        nt.set_default_dtype(nt.float32)
    _same_error(lambda M: M.finfo(M.int32), TypeError)
    _same_error(lambda M: M.iinfo(M.float32), TypeError)
    _same_error(lambda M: M.iinfo(M.bool), TypeError)
    assert nt.finfo(nt.float32).min == -nt.finfo(nt.float32).max
    x = nt.zeros(2).masked_fill(nt.tensor([True, False]), nt.finfo(nt.float32).min)
    assert np.isfinite(x.numpy()).all()


@pytest.fixture
def printoptions():
    yield
    nt.set_printoptions(profile="default")
    ref.set_printoptions(profile="default")


@pytest.mark.parametrize("opts", [dict(precision=2), dict(precision=6), dict(sci_mode=True), dict(sci_mode=False),
                                  dict(threshold=5), dict(threshold=5, edgeitems=1), dict(linewidth=30),
                                  dict(profile="short"), dict(profile="full"), dict(profile="short", precision=3)])
@pytest.mark.parametrize("data", [[1.123456, -2.5, 3.0], [1e-6, 1.0, 123456.0], list(range(12)),
                                  np.linspace(-1, 1, 24).reshape(4, 6).tolist()])
def test_set_printoptions(printoptions, opts, data):
    nt.set_printoptions(**opts)
    ref.set_printoptions(**opts)
    assert repr(nt.tensor(data)) == repr(ref.tensor(data))
    assert repr(nt.tensor(data, dtype=nt.float64)) == repr(ref.tensor(data, dtype=ref.float64))


def test_printoptions_threshold_full_and_get(printoptions):
    big = np.arange(2000.0)
    nt.set_printoptions(profile="full")
    assert "..." not in repr(nt.tensor(big))
    nt.set_printoptions(precision=2, sci_mode=False)
    opts = nt.get_printoptions()
    assert opts == dict(precision=2, threshold=float("inf"), edgeitems=3, linewidth=80, sci_mode=False)
    nt.set_printoptions(precision=3)  # a call without sci_mode returns it to automatic, as in PyTorch
    assert nt.get_printoptions()["sci_mode"] is None
    nt.set_printoptions(profile="default")
    assert "..." in repr(nt.tensor(big)) and repr(nt.tensor([1.5])) == "tensor([1.5000])"


def test_num_threads():
    before = nt.get_num_threads()
    try:
        nt.set_num_threads(1)
        assert nt.get_num_threads() == 1
        from threadpoolctl import threadpool_info
        blas = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
        assert blas and max(blas) == 1  # the BLAS pool itself was limited
    finally:
        nt.set_num_threads(before)
    assert nt.get_num_threads() == before
    for fn in ("set_num_threads", "set_num_interop_threads"):
        _same_error(lambda M: getattr(M, fn)(0))
        _same_error(lambda M: getattr(M, fn)(-2))
    _same_error(lambda M: M.set_num_threads(2.5))
    nt.set_num_interop_threads(3)
    assert nt.get_num_interop_threads() == 3


def _threads_at_import(load, env=None, also_torch=False):
    """numtorch's thread count and NumPy's BLAS pool size right after import in a fresh interpreter
    whose load average reads ``load`` (and, with ``also_torch``, PyTorch's default thread count)."""
    code = (f"import os; os.getloadavg = lambda: ({load}, {load}, {load})\n"
            "import numtorch, threadpoolctl\n"
            "blas = max(p['num_threads'] for p in threadpoolctl.threadpool_info() if p['user_api'] == 'blas')\n"
            "print(numtorch.get_num_threads(), blas)\n")
    if also_torch:
        code += "import torch; print(torch.get_num_threads())\n"
    clean = {k: v for k, v in os.environ.items() if k not in nt._utils_api._THREAD_ENV}
    out = subprocess.run([sys.executable, "-c", code], env={**clean, **(env or {})}, capture_output=True,
                         text=True, timeout=300, check=True).stdout.split()
    return [int(v) for v in out]


def test_default_threads_are_pytorchs_on_an_idle_machine():
    """Idle: as many threads as PyTorch's default intra-op pool (the physical cores), BLAS pool too."""
    n, blas, torch_default = _threads_at_import(0.0, also_torch=True)
    assert n == blas == torch_default


def test_default_threads_shrink_on_a_busy_machine(monkeypatch):
    """A load average above the CPU count: one BLAS thread (OpenBLAS's threads would fight the load)."""
    u = nt._utils_api
    assert _threads_at_import(4.0 * (len(u._usable_cpus()) + 1)) == [1, 1]
    cpus, cores, ncpu = u._usable_cpus(), u._physical_cores(u._usable_cpus()), os.cpu_count()
    for load in (0.0, 0.3, 1.0, 1.7, 100.0):  # the CPUs the load leaves free, within [1, cores]
        monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
        assert u._default_num_threads(cpus) == max(1, min(cores, int(ncpu - load + 0.5)))


def test_thread_environment_variables_win():
    """OPENBLAS_NUM_THREADS / OMP_NUM_THREADS set by the user: numtorch leaves the pool alone."""
    assert _threads_at_import(0.0, env={"OPENBLAS_NUM_THREADS": "1"}) == [1, 1]
    assert _threads_at_import(0.0, env={"OMP_NUM_THREADS": "1"}) == [1, 1]


def test_deterministic_and_matmul_precision():
    try:
        assert nt.are_deterministic_algorithms_enabled() is False
        nt.use_deterministic_algorithms(True, warn_only=True)
        assert nt.are_deterministic_algorithms_enabled() and nt.is_deterministic_algorithms_warn_only_enabled()
    finally:
        nt.use_deterministic_algorithms(False)
    assert not nt.are_deterministic_algorithms_enabled()
    _same_error(lambda M: M.use_deterministic_algorithms(1), TypeError)
    _same_error(lambda M: M.use_deterministic_algorithms(True, warn_only=1), TypeError)
    assert nt.get_float32_matmul_precision() == ref.get_float32_matmul_precision() == "highest"
    try:
        nt.set_float32_matmul_precision("high")
        assert nt.get_float32_matmul_precision() == "high"
        with pytest.warns(UserWarning, match="no effect"):
            nt.set_float32_matmul_precision("x")
        assert nt.get_float32_matmul_precision() == "high"
    finally:
        nt.set_float32_matmul_precision("highest")


def test_anomaly_mode():
    assert nt.is_anomaly_enabled() is False and nt.is_anomaly_check_nan_enabled() is True
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with nt.autograd.detect_anomaly(check_nan=False):
            assert nt.is_anomaly_enabled() and not nt.is_anomaly_check_nan_enabled()
    assert not nt.is_anomaly_enabled() and nt.is_anomaly_check_nan_enabled()
    nt.autograd.set_detect_anomaly(True)  # a plain call takes effect
    assert nt.is_anomaly_enabled()
    with nt.autograd.set_detect_anomaly(False):
        assert not nt.is_anomaly_enabled()
    assert nt.is_anomaly_enabled()  # restored on exit
    nt.autograd.set_detect_anomaly(False)
    assert not nt.is_anomaly_enabled()


def test_pin_memory():
    x = nt.ones(2)
    assert x.pin_memory() is x and x.is_pinned() is False
    assert ref.ones(2).is_pinned() is False


# ================================================================================================
# 4. Tensor.new_*, unfold, as_strided, in-place shape ops, resize_
# ================================================================================================
@pytest.mark.parametrize("src", ["int32", "float64", "bool"])
@pytest.mark.parametrize("call", [
    lambda x: x.new_zeros(2, 3), lambda x: x.new_zeros((2, 3)), lambda x: x.new_zeros([4]), lambda x: x.new_zeros(()),
    lambda x: x.new_ones(2), lambda x: x.new_ones((1, 2)),
    lambda x: x.new_full((2,), 1.7), lambda x: x.new_full([2, 1], 3),
    lambda x: x.new_tensor([1.5, 2.0, 0.0]), lambda x: x.new_tensor([[1, 0]]),
    lambda x: x.new_empty(2, 3).zero_(), lambda x: x.new_empty((0, 2)),
])
def test_new_methods(src, call):
    a, b = call(nt.zeros(2, dtype=getattr(nt, src))), call(ref.zeros(2, dtype=getattr(ref, src)))
    assert str(a.dtype) == str(b.dtype) and tuple(a.shape) == tuple(b.shape) and not a.requires_grad
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_new_methods_options_and_errors():
    x = nt.zeros(2, dtype=nt.int32, requires_grad=False)
    for name in ("new_zeros", "new_ones", "new_empty"):
        y = getattr(x, name)(2, dtype=nt.float64, requires_grad=True)
        assert y.dtype == nt.float64 and y.requires_grad and y.is_leaf
    assert x.new_full((2,), 3, dtype=nt.float64).tolist() == [3.0, 3.0]
    assert nt.zeros(2, requires_grad=True).new_tensor([1.0]).requires_grad is False
    _same_error(lambda M: M.zeros(2, dtype=M.int32).new_zeros(2, requires_grad=True))
    _same_error(lambda M: M.zeros(2).new_full(2, 1), TypeError)
    _same_error(lambda M: M.zeros(2).new_zeros(-1))
    _same_error(lambda M: M.zeros(2).new_zeros(2.0), TypeError)
    with pytest.warns(UserWarning, match="new_tensor"):
        assert nt.zeros(1, dtype=nt.int32).new_tensor(nt.tensor([1.5])).dtype == nt.int32


@pytest.mark.parametrize("shape,dim,size,step", [((10,), 0, 3, 2), ((2, 5), 1, 2, 2), ((2, 5), 1, 3, 1),
                                                 ((4, 3, 6), 0, 2, 1), ((4, 3, 6), -1, 6, 1), ((3, 7), 1, 2, 5),
                                                 ((3, 4), 0, 0, 1), ((), 0, 1, 1), ((), -1, 0, 3)])
def test_unfold(fdtype, shape, dim, size, step):
    a = _rand(shape, fdtype)
    x, r = to_nt(a, requires_grad=True), to_ref(a, requires_grad=True)
    y, yr = x.unfold(dim, size, step), r.unfold(dim, size, step)
    assert_close(y, yr)
    assert y.stride() == yr.stride() and type(y.grad_fn).__name__ == "UnfoldBackward0"
    w = _rand(tuple(yr.shape), fdtype)
    (y * nt.tensor(w)).sum().backward()
    (yr * ref.tensor(w)).sum().backward()
    assert_close(x.grad, r.grad)


def test_unfold_is_a_view_and_gradcheck():
    x = nt.arange(8.0)
    u = x.unfold(0, 3, 2)
    x[2] = 100.0
    assert u[0, 2].item() == 100.0 and u[1, 0].item() == 100.0 and u._base is x
    assert gradcheck(lambda t: t.unfold(1, 3, 1).pow(2), (nt.tensor(_rand((2, 5)), requires_grad=True),))
    _same_error(lambda M: M.zeros(2, 5).unfold(1, 6, 1))
    _same_error(lambda M: M.zeros(2, 5).unfold(1, 2, 0))
    _same_error(lambda M: M.zeros(2, 5).unfold(1, -1, 1))
    _same_error(lambda M: M.zeros(2, 5).unfold(3, 2, 1), IndexError)
    _same_error(lambda M: M.tensor(3.0).unfold(0, 2, 1))


@pytest.mark.parametrize("size,stride,offset", [((2, 2), (1, 2), 1), ((3, 2), (1, 1), 0), ((2, 3), (3, 1), None),
                                                ((4,), (0,), 2)])
def test_as_strided(fdtype, size, stride, offset):
    a = _rand((6,), fdtype)
    x, r = to_nt(a, requires_grad=True), to_ref(a, requires_grad=True)
    kw = {} if offset is None else dict(storage_offset=offset)
    y, yr = x.as_strided(size, stride, **kw), r.as_strided(size, stride, **kw)
    assert_close(y, yr)
    assert_close(nt.as_strided(x.detach(), size, stride, **kw), yr)
    w = _rand(size, fdtype)
    (y * nt.tensor(w)).sum().backward()
    (yr * ref.tensor(w)).sum().backward()
    assert_close(x.grad, r.grad)
    assert gradcheck(lambda t: t.as_strided((3, 2), (1, 1)), (nt.tensor(_rand((6,)), requires_grad=True),))
    with pytest.raises(RuntimeError):
        nt.zeros(4).as_strided((3,), (2,))


@pytest.mark.parametrize("call,node", [("squeeze_()", "SqueezeBackward3"), ("squeeze_(1)", "SqueezeBackward4"),
                                       ("squeeze_((1, 3))", "SqueezeBackward5"), ("unsqueeze_(0)", "UnsqueezeBackward1"),
                                       ("unsqueeze_(-1)", "UnsqueezeBackward1"), ("transpose_(0, 2)", "TransposeBackward1"),
                                       ("swapdims_(1, 3)", "TransposeBackward1"),
                                       ("swapaxes_(0, -1)", "TransposeBackward1")])
def test_inplace_shape_ops(fdtype, call, node):
    a = _rand((3, 1, 2, 1), fdtype)
    x, r = to_nt(a, requires_grad=True), to_ref(a, requires_grad=True)
    y, yr = x * 2, r * 2
    v = y._version
    out, outr = eval("y." + call), eval("yr." + call)
    assert out is y and outr is yr and tuple(y.shape) == tuple(yr.shape) and y.stride() == yr.stride()
    assert type(y.grad_fn).__name__ == type(yr.grad_fn).__name__ == node and y._version == v + 1
    assert_close(y, yr)
    w = _rand(tuple(yr.shape), fdtype)
    (y * nt.tensor(w)).sum().backward()
    (yr * ref.tensor(w)).sum().backward()
    assert_close(x.grad, r.grad)


def test_t_and_inplace_shape_errors():
    x = nt.zeros(2, 3)
    assert x.t_() is x and x.shape == (3, 2) and x.stride() == ref.zeros(2, 3).t_().stride()
    _same_error(lambda M: M.zeros(2, 3, 4).t_())
    _same_error(lambda M: M.zeros(2, 1, requires_grad=True).squeeze_())
    _same_error(lambda M: M.zeros(2, 1, requires_grad=True).transpose_(0, 1))
    with nt.no_grad():
        leaf = nt.zeros(2, 1, requires_grad=True)
        leaf.squeeze_()
    assert leaf.shape == (2,) and leaf.is_leaf
    _same_error(lambda M: M.zeros(2).unsqueeze_(3), IndexError)


@pytest.mark.parametrize("sizes", [(2, 3), (3, 2), (2,), (2, 2, 2)])
def test_resize_(sizes):
    x, r = nt.arange(6.0), ref.arange(6.0)
    assert x.resize_(*sizes) is x
    r.resize_(*sizes)
    assert tuple(x.shape) == tuple(r.shape)
    n = min(6, int(np.prod(sizes)))
    np.testing.assert_array_equal(x.numpy().reshape(-1)[:n], r.numpy().reshape(-1)[:n])
    _same_error(lambda M: M.zeros(2, requires_grad=True).resize_(3))


# ================================================================================================
# 5. nn.utils.rnn
# ================================================================================================
from numtorch.nn.utils import rnn as NR  # noqa: E402
from torch.nn.utils import rnn as TR  # noqa: E402


def _seqs(lengths, feat=(2,), dtype=np.float64):
    return [_rand((n,) + feat, dtype) for n in lengths]


@pytest.mark.parametrize("lengths", [(3, 1, 2), (4, 4, 1, 2)])
@pytest.mark.parametrize("kw", [{}, dict(batch_first=True), dict(padding_value=-1.0, padding_side="left"),
                                dict(batch_first=True, padding_side="left")])
def test_pad_sequence(fdtype, lengths, kw):
    arrs = _seqs(lengths, dtype=fdtype)
    xs, rs = [to_nt(a, requires_grad=True) for a in arrs], [to_ref(a, requires_grad=True) for a in arrs]
    y, r = NR.pad_sequence(xs, **kw), TR.pad_sequence(rs, **kw)
    assert_close(y, r)
    w = _rand(tuple(r.shape), fdtype)
    (y * nt.tensor(w)).sum().backward()
    (r * ref.tensor(w)).sum().backward()
    for a, b in zip(xs, rs):
        assert_close(a.grad, b.grad)


def _check_packed(p, q):
    assert_close(p.data, q.data)
    assert p.batch_sizes.tolist() == q.batch_sizes.tolist() and p.batch_sizes.dtype == nt.int64
    for f in ("sorted_indices", "unsorted_indices"):
        a, b = getattr(p, f), getattr(q, f)
        assert (a is None and b is None) or a.tolist() == b.tolist()


@pytest.mark.parametrize("lengths,sorted_", [((4, 3, 1), True), ((2, 5, 3), False), ((3,), True)])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_and_pad_packed(fdtype, lengths, sorted_, batch_first):
    T = max(lengths) + 1
    a = _rand((len(lengths), T, 3) if batch_first else (T, len(lengths), 3), fdtype)
    x, r = to_nt(a, requires_grad=True), to_ref(a, requires_grad=True)
    p = NR.pack_padded_sequence(x, list(lengths), batch_first=batch_first, enforce_sorted=sorted_)
    q = TR.pack_padded_sequence(r, list(lengths), batch_first=batch_first, enforce_sorted=sorted_)
    _check_packed(p, q)
    assert isinstance(p, tuple) and p._fields == q._fields and type(p).__name__ == "PackedSequence"
    for kw in ({}, dict(total_length=T + 1, padding_value=7.0)):
        y, ly = NR.pad_packed_sequence(p, batch_first=batch_first, **kw)
        yr, lr = TR.pad_packed_sequence(q, batch_first=batch_first, **kw)
        assert_close(y, yr)
        assert ly.tolist() == lr.tolist() and ly.dtype == nt.int64
    w = _rand(tuple(yr.shape), fdtype)
    (y * nt.tensor(w)).sum().backward()
    (yr * ref.tensor(w)).sum().backward()
    assert_close(x.grad, r.grad)


def test_pack_sequence_unpack_and_errors():
    arrs = _seqs((2, 4, 3))
    p = NR.pack_sequence([nt.tensor(a) for a in arrs], enforce_sorted=False)
    q = TR.pack_sequence([ref.tensor(a) for a in arrs], enforce_sorted=False)
    _check_packed(p, q)
    for a, b in zip(NR.unpack_sequence(p), arrs):
        np.testing.assert_array_equal(a.numpy(), b)
    padded = NR.pad_sequence([nt.tensor(a) for a in arrs], batch_first=True)
    for a, b in zip(NR.unpad_sequence(padded, nt.tensor([2, 4, 3]), batch_first=True), arrs):
        np.testing.assert_array_equal(a.numpy(), b)
    assert p.to(nt.float32).data.dtype == nt.float32 and p.double() is p and p.float().data.dtype == nt.float32
    _same_error(lambda M: M.nn.utils.rnn.pack_sequence([M.ones(1, 2), M.ones(3, 2)]))
    _same_error(lambda M: M.nn.utils.rnn.pack_padded_sequence(M.ones(3, 2, 2), [3, 0]))
    _same_error(lambda M: M.nn.utils.rnn.pack_padded_sequence(M.ones(3, 2, 2), [3]))
    _same_error(lambda M: M.nn.utils.rnn.pad_sequence([M.ones(1, 2)], padding_side="x"))
    _same_error(lambda M: M.nn.utils.rnn.pad_sequence([]))
    _same_error(lambda M: M.nn.utils.rnn.pad_sequence([M.ones(3, 2), M.ones(2, 3)]))
    _same_error(lambda M: M.nn.utils.rnn.pad_packed_sequence(
        M.nn.utils.rnn.pack_sequence([M.ones(3, 2)]), total_length=2), ValueError)


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("bidirectional,sorted_,with_hx", [(False, True, False), (True, False, False),
                                                           (True, False, True), (False, False, True)])
def test_rnn_packed_input(fdtype, mode, bidirectional, sorted_, with_hx):
    torch_dtype = ref.float32 if fdtype == np.float32 else ref.float64
    tm = getattr(ref.nn, mode)(3, 4, num_layers=2, bidirectional=bidirectional).to(torch_dtype)
    nm = getattr(nt.nn, mode)(3, 4, num_layers=2, bidirectional=bidirectional).to(getattr(nt, str(torch_dtype)[6:]))
    nm.load_state_dict({k: nt.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    lengths = (5, 3, 2) if sorted_ else (2, 5, 1, 3)
    arrs = _seqs(lengths, (3,), fdtype)
    xs, rs = [to_nt(a, requires_grad=True) for a in arrs], [to_ref(a, requires_grad=True) for a in arrs]
    p, q = NR.pack_sequence(xs, enforce_sorted=sorted_), TR.pack_sequence(rs, enforce_sorted=sorted_)
    hx = hr = None
    if with_hx:
        h = _rand(((2 if bidirectional else 1) * 2, len(lengths), 4), fdtype)
        hx, hr = to_nt(h), to_ref(h)
        if mode == "LSTM":
            hx, hr = (hx, nt.tensor(h * 0.5)), (hr, ref.tensor(h * 0.5))
    out, hn = nm(p, hx)
    outr, hnr = tm(q, hr)
    tol = dict(rtol=1e-4, atol=1e-5) if fdtype == np.float32 else dict(rtol=1e-9, atol=1e-11)
    assert_close(out.data, outr.data, **tol)
    assert out.batch_sizes.tolist() == outr.batch_sizes.tolist()
    assert (out.sorted_indices is None) == (outr.sorted_indices is None)
    hs, hsr = (hn if mode == "LSTM" else (hn,)), (hnr if mode == "LSTM" else (hnr,))
    for a, b in zip(hs, hsr):
        assert_close(a, b, **tol)
    loss = (out.data ** 2).sum() + sum((h * h).sum() for h in hs)
    lossr = (outr.data ** 2).sum() + sum((h * h).sum() for h in hsr)
    loss.backward()
    lossr.backward()
    for a, b in zip(xs, rs):
        assert_close(a.grad, b.grad, **tol)
    grads = dict(tm.named_parameters())
    for name, param in nm.named_parameters():
        assert_close(param.grad, grads[name].grad, **tol)
