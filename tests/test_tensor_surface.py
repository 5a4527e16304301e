"""Tensor surface programs reach for, against torch: ``size=`` in the factories, ``randint(high, size=...)``,
storages, ``nbytes``/``itemsize``/``_is_view``, ``isinstance(t, autograd.Variable)``, DLPack exchange with
torch and NumPy (memory shared both ways), and ``torch.utils.benchmark``."""
import warnings

import numpy as np
import pytest
import torch as ref

import numtorch as nt


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty", "rand", "randn"])
def test_size_keyword_matches_torch(fn):
    for T in (nt, ref):
        T.manual_seed(0)
        a = getattr(T, fn)(size=(2, 3))
        assert tuple(a.shape) == (2, 3)
        with pytest.raises(TypeError):
            getattr(T, fn)((2, 3), size=(2, 3))
    if fn in ("rand", "randn"):
        nt.manual_seed(1)
        ref.manual_seed(1)
        np.testing.assert_array_equal(getattr(nt, fn)(size=[4]).numpy(), getattr(ref, fn)(size=[4]).numpy())
    with pytest.raises(TypeError, match="must be tuple of ints, not int"):
        nt.empty(size=3)


def test_randint_high_size_keyword():
    nt.manual_seed(0)
    ref.manual_seed(0)
    np.testing.assert_array_equal(nt.randint(5, size=(6,)).numpy(), ref.randint(5, size=(6,)).numpy())
    np.testing.assert_array_equal(nt.randint(2, 9, size=(3,)).numpy(), ref.randint(2, 9, size=(3,)).numpy())


def test_storage_nbytes_itemsize_is_view_match_torch():
    for T in (nt, ref):
        t = T.arange(6.0)
        m = t.reshape(2, 3)
        v = m[1]
        s = m.untyped_storage()
        assert (s.nbytes(), s.size(), len(s), s.element_size()) == (24, 24, 24, 1)
        assert s.data_ptr() == v.untyped_storage().data_ptr() == t.data_ptr()
        assert (m.nbytes, m.itemsize, v.nbytes) == (24, 4, 12)
        assert v._is_view() and m._is_view() and not t._is_view()
        assert str(s.device) == "cpu" and s.tolist()[4:8] == [0, 0, 128, 63]
        if T is nt:
            with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
                ts = m.storage()
        else:  # torch warns once per process: an earlier test may have had it
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ts = m.storage()
        assert (ts.size(), len(ts), ts.dtype, ts.tolist()[:3]) == (6, 6, T.float32, [0.0, 1.0, 2.0])
        assert repr(ts).endswith("[torch.storage.TypedStorage(dtype=torch.float32, device=cpu) of size 6]")
        assert isinstance(t, T.autograd.Variable)
    assert not isinstance(3, nt.autograd.Variable)


def test_storage_repr_and_constructors_match_torch():
    outs = []
    for T in (nt, ref):
        with warnings.catch_warnings():  # torch warns about TypedStorage once per process
            warnings.simplefilter("ignore", UserWarning)
            typed = [T.arange(3.0).storage(), T.arange(0.0).storage()]
        made = [T.TypedStorage([1, 2], dtype=T.int32), T.UntypedStorage([1, 2]), T.UntypedStorage(0),
                T.arange(2, dtype=T.int8).untyped_storage()]
        sized = [T.TypedStorage(3, dtype=T.float64), T.TypedStorage(2)]  # torch's memory is uninitialized
        outs.append([repr(s) for s in typed + made] + [(s.size(), s.nbytes(), str(s.dtype)) for s in sized])
    assert outs[0] == outs[1]


def test_dlpack_requires_grad_and_bfloat16_match_torch():
    for T in (nt, ref):
        with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
            T.from_dlpack(T.ones(2, requires_grad=True))
        cap = T.utils.dlpack.to_dlpack(T.ones(2, requires_grad=True))  # to_dlpack itself does not refuse
        assert T.from_dlpack(cap).tolist() == [1.0, 1.0]
        b = T.from_dlpack(T.ones(2, dtype=T.bfloat16))
        assert b.dtype == T.bfloat16 and b.tolist() == [1.0, 1.0]
    with pytest.raises(BufferError):
        nt.from_dlpack(ref.ones(2, requires_grad=True))


def test_dlpack_shares_memory_with_torch_and_numpy():
    t = nt.arange(4.0)
    u = nt.utils.dlpack.from_dlpack(nt.utils.dlpack.to_dlpack(t))
    u[0] = 9
    assert t[0].item() == 9
    a = np.arange(3.0)
    nt.from_dlpack(a)[0] = 5
    assert a[0] == 5
    r = ref.arange(3.0)
    nt.from_dlpack(r)[1] = 7
    assert r[1].item() == 7
    r2 = ref.arange(3.0)
    nt.utils.dlpack.from_dlpack(ref.utils.dlpack.to_dlpack(r2))[2] = 8  # a legacy capsule from torch
    assert r2[2].item() == 8
    z = nt.arange(3.0)
    ref.from_dlpack(z)[0] = 4
    assert z[0].item() == 4
    assert ref.utils.dlpack.from_dlpack(nt.utils.dlpack.to_dlpack(nt.ones(2))).tolist() == [1.0, 1.0]
    assert nt.ones(2).__dlpack_device__() == ref.ones(2).__dlpack_device__()
    for T in (nt, ref):
        with pytest.raises(BufferError, match="Can't export tensors that require gradient"):
            T.ones(2, requires_grad=True).__dlpack__()
        with pytest.raises(RuntimeError, match="from_dlpack received an invalid capsule"):
            T.from_dlpack(3)


def test_benchmark_timer_and_compare():
    import torch.utils.benchmark  # noqa: F401  (a submodule torch does not import by itself)

    from numtorch.utils import benchmark
    t = benchmark.Timer(stmt="x + y", setup="x = torch.ones(8); y = torch.ones(8)", globals={"torch": nt},
                        label="add", sub_label="8", description="numtorch")
    m = t.timeit(50)
    assert m.number_per_run == 50 and len(m.times) == 1 and m.mean == m.median > 0 and m.iqr == 0
    text = repr(m)
    assert "add: 8" in text and "1 measurement, 50 runs , 1 thread" in text
    b = t.blocked_autorange(min_run_time=0.02)
    assert len(b.times) >= 1 and b.raw_times[0] / b.number_per_run == b.times[0]
    a = t.adaptive_autorange(threshold=10.0, min_run_time=0.01, max_run_time=0.5)
    assert len(a.times) >= 1
    table = str(benchmark.Compare([m, b]))
    assert "[---- add ----]" in table and "numtorch" in table and "Times are in" in table
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ref_m = ref.utils.benchmark.Timer("x + y", "x = torch.ones(8); y = torch.ones(8)", globals={"torch": ref},
                                          label="add", sub_label="8").timeit(50)
    assert repr(ref_m).splitlines()[-1] == text.splitlines()[-1]
