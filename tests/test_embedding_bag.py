"""F.embedding_bag and nn.EmbeddingBag against PyTorch: forward values, weight and per_sample_weights
gradients (float32/float64) for every mode, 2-D input and offsets (empty bags, include_last_offset,
padding_idx, scale_grad_by_freq, max_norm), seeded construction, gradcheck, and PyTorch's errors."""
import warnings

import numpy as np
import pytest
import torch as ref
import torch.nn.functional as RF
from conftest import assert_close

import numtorch as nt
import numtorch.nn.functional as F
from numtorch.autograd import gradcheck

TOL = {np.float32: {"rtol": 1e-5, "atol": 1e-6}, np.float64: {"rtol": 1e-12, "atol": 1e-13}}
MODES = ["sum", "mean", "max"]


def _pair(arr, grad=False):
    """The same values as a numtorch and a PyTorch tensor (leaves that require grad if ``grad``)."""
    a = nt.tensor(np.array(arr, copy=True))
    b = ref.from_numpy(np.array(arr, copy=True))
    if grad:
        a.requires_grad_(True)
        b.requires_grad_(True)
    return a, b


def _check(idx, offsets=None, v=7, d=3, dtype=np.float64, mode="mean", psw=False, seed=0, **kw):
    """Run both libraries on the same inputs; compare output, weight grad and per_sample_weights grad."""
    rng = np.random.default_rng(seed)
    idx = np.asarray(idx, np.int64)
    w_nt, w_ref = _pair(rng.standard_normal((v, d)).astype(dtype), grad=True)
    i_nt, i_ref = _pair(idx)
    o_nt, o_ref = _pair(np.asarray(offsets, np.int64)) if offsets is not None else (None, None)
    p_nt = p_ref = None
    if psw:
        p_nt, p_ref = _pair(rng.standard_normal(idx.shape).astype(dtype), grad=True)
    out_nt = F.embedding_bag(i_nt, w_nt, o_nt, mode=mode, per_sample_weights=p_nt, **kw)
    out_ref = RF.embedding_bag(i_ref, w_ref, o_ref, mode=mode, per_sample_weights=p_ref, **kw)
    tol = TOL[dtype]
    assert_close(out_nt, out_ref, **tol)
    assert out_nt.grad_fn.name() == out_ref.grad_fn.name() == "EmbeddingBagBackward0"
    g = rng.standard_normal(tuple(out_ref.shape)).astype(dtype)
    out_nt.backward(nt.tensor(g))
    out_ref.backward(ref.from_numpy(g))
    assert_close(w_nt.grad, w_ref.grad, **tol)
    if psw:
        assert_close(p_nt.grad, p_ref.grad, **tol)
    return out_nt, w_nt


# ---- forward and gradients against PyTorch --------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_2d_input(fdtype, mode, padding_idx):
    idx = np.array([[0, 2, 4, 4], [6, 6, 2, 1], [2, 2, 2, 2], [3, 0, 5, 6]])  # one bag of padding only
    out, _ = _check(idx, dtype=fdtype, mode=mode, padding_idx=padding_idx)
    assert tuple(out.shape) == (4, 3) and out.dtype == (nt.float32 if fdtype == np.float32 else nt.float64)
    if padding_idx == 2:
        assert np.all(out.detach().numpy()[2] == 0)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("offsets", [[0, 2, 2, 5], [0, 0, 3, 8], [0, 4, 8, 8], [0]])
def test_offsets_with_empty_bags(fdtype, mode, offsets):
    _check([1, 5, 3, 3, 0, 6, 2, 4], offsets, dtype=fdtype, mode=mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("padding_idx", [None, 3])
def test_include_last_offset(fdtype, mode, padding_idx):
    out, _ = _check([1, 3, 3, 0, 6, 2, 4], [0, 2, 2, 5, 7], dtype=fdtype, mode=mode, include_last_offset=True,
                    padding_idx=padding_idx)
    assert tuple(out.shape) == (4, 3)


def test_include_last_offset_leaves_trailing_indices_out(fdtype):
    # bags are [offsets[b], offsets[b+1]): indices after offsets[-1] are in no bag, as documented and as
    # PyTorch's float32 sum forward does (its gradient rows for them are left uninitialized, and other
    # dtypes/modes fold them into the last bag: pytorch/pytorch#190062); the oracle drops them first
    for mode in MODES:
        w = np.random.default_rng(10).standard_normal((7, 3)).astype(fdtype)
        w_nt, w_ref = _pair(w, grad=True)
        o_nt = F.embedding_bag(nt.tensor([1, 3, 5, 0, 6, 2]), w_nt, nt.tensor([0, 2, 4]), mode=mode,
                               include_last_offset=True)
        o_ref = RF.embedding_bag(ref.tensor([1, 3, 5, 0]), w_ref, ref.tensor([0, 2, 4]), mode=mode,
                                 include_last_offset=True)
        assert_close(o_nt, o_ref, **TOL[fdtype])
        o_nt.sum().backward()
        o_ref.sum().backward()
        assert_close(w_nt.grad, w_ref.grad, **TOL[fdtype])
        assert np.all(w_nt.grad.numpy()[[6, 2]] == 0)
    o32 = RF.embedding_bag(ref.tensor([1, 3, 5, 0, 6, 2]), ref.from_numpy(w.astype(np.float32)), ref.tensor([0, 2, 4]),
                           mode="sum", include_last_offset=True)
    assert_close(F.embedding_bag(nt.tensor([1, 3, 5, 0, 6, 2]), nt.tensor(w.astype(np.float32)), nt.tensor([0, 2, 4]),
                                 mode="sum", include_last_offset=True), o32)


@pytest.mark.parametrize("padding_idx", [None, 0, -2])
def test_per_sample_weights(fdtype, padding_idx):
    _check([0, 5, 3, 3, 0, 6, 5], [0, 3, 3, 6], dtype=fdtype, mode="sum", psw=True, padding_idx=padding_idx)
    _check([[0, 5, 3], [3, 0, 6]], dtype=fdtype, mode="sum", psw=True, padding_idx=padding_idx)


def test_per_sample_weights_only_input_needing_grad():
    w_nt, w_ref = _pair(np.random.default_rng(1).standard_normal((5, 2)))
    p_nt, p_ref = _pair(np.array([0.5, -2.0, 3.0]), grad=True)
    o_nt = F.embedding_bag(nt.tensor([1, 2, 4]), w_nt, nt.tensor([0, 1]), mode="sum", per_sample_weights=p_nt)
    o_ref = RF.embedding_bag(ref.tensor([1, 2, 4]), w_ref, ref.tensor([0, 1]), mode="sum", per_sample_weights=p_ref)
    assert_close(o_nt, o_ref)
    o_nt.pow(2).sum().backward()
    o_ref.pow(2).sum().backward()
    assert_close(p_nt.grad, p_ref.grad)
    assert o_nt.grad_fn.next_functions[0] == (None, 0)


@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("padding_idx", [None, 1])
def test_scale_grad_by_freq(fdtype, mode, padding_idx):
    # every index occurs equally often here: PyTorch 2.13's CPU kernel is right on such input (see below)
    _check([3, 1, 3, 1, 5, 5], [0, 3, 5], dtype=fdtype, mode=mode, scale_grad_by_freq=True,
           padding_idx=padding_idx)
    _check([[1, 1, 4], [4, 6, 6]], dtype=fdtype, mode=mode, scale_grad_by_freq=True, padding_idx=padding_idx)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_scale_grad_by_freq_divides_by_each_index_count(mode):
    # PyTorch 2.13's CPU embedding_bag divides some rows by another index's count (pytorch/pytorch#190063,
    # fixed upstream); numtorch divides by the documented frequency, as F.embedding and PyTorch's CUDA do.
    # Oracle: PyTorch's F.embedding with scale_grad_by_freq, reduced per bag with plain ops.
    idx, offs = [1, 1, 4, 1, 4, 0, 6], [0, 3, 5]
    bag = ref.tensor([0, 0, 0, 1, 1, 2, 2])
    rng = np.random.default_rng(9)
    w = rng.standard_normal((7, 3))
    g = rng.standard_normal((3, 3))
    w_nt, w_ref = _pair(w, grad=True)
    F.embedding_bag(nt.tensor(idx), w_nt, nt.tensor(offs), mode=mode, scale_grad_by_freq=True).backward(nt.tensor(g))
    rows = RF.embedding(ref.tensor(idx), w_ref, scale_grad_by_freq=True)
    if mode == "mean":
        rows = rows / ref.bincount(bag).double()[bag, None]
    ref.zeros(3, 3, dtype=ref.float64).index_add(0, bag, rows).backward(ref.from_numpy(g))
    assert_close(w_nt.grad, w_ref.grad, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("mode", MODES)
def test_int32_indices_and_mixed_offsets(mode):
    w_nt, w_ref = _pair(np.random.default_rng(2).standard_normal((6, 4)))
    for it, ot in [(np.int32, np.int32), (np.int32, np.int64), (np.int64, np.int32)]:
        i = np.array([0, 5, 2, 2, 3], it)
        o = np.array([0, 2, 2], ot)
        assert_close(F.embedding_bag(nt.tensor(i), w_nt, nt.tensor(o), mode=mode),
                     RF.embedding_bag(ref.from_numpy(i), w_ref, ref.from_numpy(o), mode=mode))


def test_unsorted_offsets_sum_as_pytorch():
    _check([1, 2, 3, 4, 5, 6], [0, 4, 2], mode="sum")


def test_empty_input_and_zero_bags(fdtype):
    for mode in MODES:
        out, w = _check(np.zeros(0, np.int64), [0, 0], dtype=fdtype, mode=mode)
        assert np.all(out.detach().numpy() == 0) and np.all(w.grad.numpy() == 0)
        w_nt = nt.zeros(4, 3, dtype=nt.float64)
        assert tuple(F.embedding_bag(nt.zeros(0, 3, dtype=nt.int64), w_nt, mode=mode).shape) == (0, 3)
        assert tuple(F.embedding_bag(nt.tensor([1, 2]), w_nt, nt.zeros(0, dtype=nt.int64), mode=mode).shape) == (0, 3)


@pytest.mark.parametrize("rows", [5, 40])  # a small table is transposed whole, a large one per lookup
@pytest.mark.parametrize("grad", [True, False])
def test_max_ties_and_nan(rows, grad):
    w = np.zeros((rows, 2), np.float32)
    w[:5] = [[0.0, 1.0], [0.0, 3.0], [np.nan, 3.0], [2.0, np.nan], [-0.0, 0.0]]
    for idx, offs in [([4, 0, 1, 4], [0]), ([2, 1, 3, 0, 3, 2], [0, 2, 4]), ([0, 3, 2], [0]), ([0, 4], [0])]:
        w_nt, w_ref = _pair(w, grad=grad)
        o_nt = F.embedding_bag(nt.tensor(idx), w_nt, nt.tensor(offs), mode="max")
        o_ref = RF.embedding_bag(ref.tensor(idx), w_ref, ref.tensor(offs), mode="max")
        np.testing.assert_array_equal(o_nt.detach().numpy(), o_ref.detach().numpy())
        if grad:
            assert np.array_equal(np.signbit(o_nt.detach().numpy()), np.signbit(o_ref.detach().numpy()))
            o_nt.sum().backward()
            o_ref.sum().backward()
            np.testing.assert_array_equal(w_nt.grad.numpy(), w_ref.grad.numpy())


@pytest.mark.parametrize("mode", MODES)
def test_max_norm_renormalizes_in_place(fdtype, mode):
    rng = np.random.default_rng(3)
    w = (rng.standard_normal((8, 4)) * 2).astype(fdtype)
    idx, offs = np.array([1, 3, 3, 7, 0, 2]), np.array([0, 2, 5])
    w_nt, w_ref = _pair(w, grad=True)
    o_nt = F.embedding_bag(nt.tensor(idx), w_nt, nt.tensor(offs), max_norm=1.5, norm_type=3.0, mode=mode)
    o_ref = RF.embedding_bag(ref.from_numpy(idx), w_ref, ref.from_numpy(offs), max_norm=1.5, norm_type=3.0, mode=mode)
    tol = TOL[fdtype]
    assert_close(w_nt, w_ref, **tol)  # the used rows were rescaled in place, the others untouched
    assert not np.allclose(w_nt.detach().numpy(), w)
    np.testing.assert_array_equal(w_nt.detach().numpy()[[4, 5, 6]], w[[4, 5, 6]])
    assert_close(o_nt, o_ref, **tol)
    o_nt.sum().backward()
    o_ref.sum().backward()
    assert_close(w_nt.grad, w_ref.grad, **tol)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("mode", MODES)
def test_half_precision_weights(dt, mode):
    w = np.random.default_rng(4).standard_normal((6, 5)).astype(np.float32)
    w_ref = ref.from_numpy(w).to(getattr(ref, dt)).requires_grad_(True)
    w_nt = nt.tensor(w).to(getattr(nt, dt)).requires_grad_(True)
    idx, offs = [0, 5, 2, 2, 3, 1, 1], [0, 3, 3, 5]
    o_nt = F.embedding_bag(nt.tensor(idx), w_nt, nt.tensor(offs), mode=mode)
    o_ref = RF.embedding_bag(ref.tensor(idx), w_ref, ref.tensor(offs), mode=mode)
    assert str(o_nt.dtype) == str(o_ref.dtype)
    np.testing.assert_allclose(o_nt.detach().float().numpy(), o_ref.detach().float().numpy(), rtol=1e-2, atol=1e-2)
    g = np.random.default_rng(5).standard_normal(tuple(o_ref.shape)).astype(np.float32)
    o_nt.backward(nt.tensor(g).to(o_nt.dtype))
    o_ref.backward(ref.from_numpy(g).to(o_ref.dtype))
    assert str(w_nt.grad.dtype) == str(w_ref.grad.dtype)
    np.testing.assert_allclose(w_nt.grad.float().numpy(), w_ref.grad.float().numpy(), rtol=1e-2, atol=1e-2)


def test_gradcheck_float64():
    rng = np.random.default_rng(5)
    w = nt.tensor(rng.standard_normal((6, 3)), requires_grad=True)
    p = nt.tensor(rng.standard_normal(7), requires_grad=True)
    idx, offs = nt.tensor([0, 5, 2, 2, 3, 1, 1]), nt.tensor([0, 3, 3, 5])
    assert gradcheck(lambda w, p: F.embedding_bag(idx, w, offs, mode="sum", per_sample_weights=p,
                                                  padding_idx=2), (w, p))
    for mode in MODES:
        assert gradcheck(lambda w, m=mode: F.embedding_bag(idx, w, offs, mode=m, padding_idx=1), (w,))
        assert gradcheck(lambda w, m=mode: F.embedding_bag(idx.view(-1, 7), w, mode=m), (w,))


def test_saved_tensor_versions_as_pytorch():
    def run(lib, fn, psw_grad):
        w0 = lib.ones(5, 2, dtype=lib.float64, requires_grad=True)
        p0 = lib.ones(3, dtype=lib.float64, requires_grad=psw_grad)
        w, p = w0 * 1, p0 * 1
        out = fn(lib.tensor([1, 2, 3]), w, lib.tensor([0]), mode="sum", per_sample_weights=p)
        with lib.no_grad():
            w.mul_(2)  # weight is saved only for per_sample_weights' gradient
        try:
            out.sum().backward()
            return None
        except RuntimeError:
            return RuntimeError
    for psw_grad in (False, True):
        assert run(nt, F.embedding_bag, psw_grad) is run(ref, RF.embedding_bag, psw_grad)
    assert run(nt, F.embedding_bag, True) is RuntimeError


def test_old_argument_order_warns():
    w_nt, w_ref = _pair(np.random.default_rng(6).standard_normal((5, 2)))
    with pytest.warns(UserWarning, match="Argument order of nn.functional.embedding_bag was changed"):
        o_nt = F.embedding_bag(w_nt, nt.tensor([[1, 2], [0, 4]]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o_ref = RF.embedding_bag(w_ref, ref.tensor([[1, 2], [0, 4]]))
    assert_close(o_nt, o_ref)


# ---- errors as PyTorch --------------------------------------------------------------------------
def _error(lib, fn, kind):
    """Call ``fn(lib, F)`` and return (exception type, first line of its message)."""
    try:
        fn(lib, F if lib is nt else RF)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e), str(e).splitlines()[0] if str(e) else ""
    return None, kind


W = np.random.default_rng(7).standard_normal((10, 3))
ERRORS = {
    "offsets_not_from_0": lambda L, f: f.embedding_bag(L.tensor([1, 2, 3]), L.tensor(W), L.tensor([1, 2])),
    "offsets_past_end": lambda L, f: f.embedding_bag(L.tensor([1, 2, 3]), L.tensor(W), L.tensor([0, 4])),
    "offsets_past_end_last": lambda L, f: f.embedding_bag(L.tensor([1, 2, 3]), L.tensor(W), L.tensor([0, 5]),
                                                          include_last_offset=True),
    "offsets_negative": lambda L, f: f.embedding_bag(L.tensor([1, 2, 3]), L.tensor(W), L.tensor([0, -1])),
    "offsets_middle_out": lambda L, f: f.embedding_bag(L.tensor([1, 2, 3]), L.tensor(W), L.tensor([0, 9, 1])),
    "index_too_big": lambda L, f: f.embedding_bag(L.tensor([1, 20, 3]), L.tensor(W), L.tensor([0, 1])),
    "index_negative": lambda L, f: f.embedding_bag(L.tensor([[1, -1]]), L.tensor(W), mode="max"),
    "index_too_big_max_norm": lambda L, f: f.embedding_bag(L.tensor([1, 10, 3]), L.tensor(W), L.tensor([0]),
                                                           max_norm=1.0),
    "psw_with_mean": lambda L, f: f.embedding_bag(L.tensor([1, 2]), L.tensor(W), L.tensor([0]),
                                                  per_sample_weights=L.ones(2, dtype=L.float64)),
    "psw_with_max": lambda L, f: f.embedding_bag(L.tensor([[1, 2]]), L.tensor(W), mode="max",
                                                 per_sample_weights=L.ones(1, 2, dtype=L.float64)),
    "psw_wrong_shape": lambda L, f: f.embedding_bag(L.tensor([[1, 2]]), L.tensor(W), mode="sum",
                                                    per_sample_weights=L.ones(2, dtype=L.float64)),
    "psw_wrong_dtype": lambda L, f: f.embedding_bag(L.tensor([1, 2]), L.tensor(W), L.tensor([0]), mode="sum",
                                                    per_sample_weights=L.ones(2)),
    "input_3d": lambda L, f: f.embedding_bag(L.zeros(1, 2, 2, dtype=L.int64), L.tensor(W)),
    "input_0d": lambda L, f: f.embedding_bag(L.tensor(1), L.tensor(W), L.tensor([0])),
    "weight_1d": lambda L, f: f.embedding_bag(L.tensor([[1, 2]]), L.tensor(W[0])),
    "offsets_with_2d": lambda L, f: f.embedding_bag(L.tensor([[1, 2]]), L.tensor(W), L.tensor([0])),
    "offsets_missing": lambda L, f: f.embedding_bag(L.tensor([1, 2]), L.tensor(W)),
    "offsets_2d": lambda L, f: f.embedding_bag(L.tensor([1, 2]), L.tensor(W), L.tensor([[0]])),
    "bad_mode": lambda L, f: f.embedding_bag(L.tensor([[1, 2]]), L.tensor(W), mode="min"),
    "max_with_freq": lambda L, f: f.embedding_bag(L.tensor([[1, 2]]), L.tensor(W), mode="max",
                                                  scale_grad_by_freq=True),
    "max_sparse": lambda L, f: f.embedding_bag(L.tensor([[1, 2]]), L.tensor(W), mode="max", sparse=True),
    "padding_out_of_range": lambda L, f: f.embedding_bag(L.tensor([[1, 2]]), L.tensor(W), padding_idx=10),
    "padding_too_negative": lambda L, f: f.embedding_bag(L.tensor([[1, 2]]), L.tensor(W), padding_idx=-11),
    "float_indices": lambda L, f: f.embedding_bag(L.tensor([1.0, 2.0]), L.tensor(W), L.tensor([0])),
    "short_indices": lambda L, f: f.embedding_bag(L.tensor([1, 2], dtype=L.int16), L.tensor(W),
                                                  L.tensor([0], dtype=L.int16)),
    "int_weight": lambda L, f: f.embedding_bag(L.tensor([1, 2]), L.ones(10, 3, dtype=L.int32), L.tensor([0])),
    "zero_width_2d": lambda L, f: f.embedding_bag(L.zeros(3, 0, dtype=L.int64), L.tensor(W)),
    "last_offset_none": lambda L, f: f.embedding_bag(L.tensor([1, 2]), L.tensor(W), L.zeros(0, dtype=L.int64),
                                                     include_last_offset=True),
}
# messages PyTorch words from its Python objects (torch.Size, type names) are compared by type only
TYPE_ONLY = {"offsets_with_2d"}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_as_pytorch(case):
    t_nt, m_nt = _error(nt, ERRORS[case], case)
    t_ref, m_ref = _error(ref, ERRORS[case], case)
    assert t_ref is not None and t_nt is t_ref, (case, m_nt, m_ref)
    if case not in TYPE_ONLY and case != "index_too_big":  # float weights: PyTorch's message comes from fbgemm
        assert m_nt == m_ref


def test_index_error_message_names_value():
    with pytest.raises(RuntimeError, match="but found idx to be 20"):
        F.embedding_bag(nt.tensor([1, 20, 3]), nt.tensor(W), nt.tensor([0, 1]))


# ---- nn.EmbeddingBag ----------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [{}, {"padding_idx": 3, "mode": "sum"}, {"padding_idx": -2, "mode": "max"},
                                {"dtype": "float64", "max_norm": 1.0, "norm_type": 1.5, "scale_grad_by_freq": True}])
def test_module_seeded_construction_and_forward(kw):
    kw_nt = dict(kw, **({"dtype": nt.float64} if "dtype" in kw else {}))
    kw_ref = dict(kw, **({"dtype": ref.float64} if "dtype" in kw else {}))
    for seed in (0, 11):
        nt.manual_seed(seed)
        m_nt = nt.nn.EmbeddingBag(9, 5, **kw_nt)
        ref.manual_seed(seed)
        m_ref = ref.nn.EmbeddingBag(9, 5, **kw_ref)
        np.testing.assert_array_equal(m_nt.weight.detach().numpy(), m_ref.weight.detach().numpy())
    assert repr(m_nt) == repr(m_ref)
    assert m_nt.padding_idx == m_ref.padding_idx
    idx, offs = [1, 7, 8, 8, 0, 5, 2], [0, 3, 3, 5]  # the repeated index sorts last (pytorch/pytorch#190063)
    o_nt, o_ref = m_nt(nt.tensor(idx), nt.tensor(offs)), m_ref(ref.tensor(idx), ref.tensor(offs))
    tol = TOL[np.float64 if "dtype" in kw else np.float32]
    assert_close(o_nt, o_ref, **tol)
    o_nt.sum().backward()
    o_ref.sum().backward()
    assert_close(m_nt.weight.grad, m_ref.weight.grad, **tol)
    assert [k for k, _ in m_nt.named_parameters()] == ["weight"]


def test_module_include_last_offset_and_per_sample_weights():
    m_nt = nt.nn.EmbeddingBag(6, 2, mode="sum", include_last_offset=True)
    m_ref = ref.nn.EmbeddingBag(6, 2, mode="sum", include_last_offset=True)
    m_nt.load_state_dict({"weight": nt.tensor(m_ref.weight.detach().numpy())})
    p = np.array([0.5, 1.0, -1.0, 2.0], np.float32)
    o_nt = m_nt(nt.tensor([1, 2, 4, 5]), nt.tensor([0, 1, 4]), per_sample_weights=nt.tensor(p))
    o_ref = m_ref(ref.tensor([1, 2, 4, 5]), ref.tensor([0, 1, 4]), per_sample_weights=ref.from_numpy(p))
    assert_close(o_nt, o_ref)
    assert repr(m_nt) == repr(m_ref) == "EmbeddingBag(6, 2, mode='sum')"


def test_module_from_pretrained():
    w = np.random.default_rng(8).standard_normal((4, 3)).astype(np.float32)
    e = nt.tensor(w)
    m = nt.nn.EmbeddingBag.from_pretrained(e, mode="max", padding_idx=1)
    m_ref = ref.nn.EmbeddingBag.from_pretrained(ref.from_numpy(w), mode="max", padding_idx=1)
    assert not m.weight.requires_grad and m.mode == "max" and m.padding_idx == 1
    assert repr(m) == repr(m_ref)
    np.testing.assert_array_equal(m.weight.detach().numpy(), w)  # padding row kept: no reset
    assert_close(m(nt.tensor([[0, 1], [2, 3]])), m_ref(ref.tensor([[0, 1], [2, 3]])))
    assert nt.nn.EmbeddingBag.from_pretrained(e, freeze=False).weight.requires_grad
    with pytest.raises(AssertionError, match="2-dimensional"):
        nt.nn.EmbeddingBag.from_pretrained(nt.zeros(3))


def test_module_construction_errors():
    with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
        nt.nn.EmbeddingBag(4, 2, padding_idx=4)
    with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
        nt.nn.EmbeddingBag(4, 2, padding_idx=-5)
    with pytest.raises(AssertionError, match="Shape of weight does not match"):
        nt.nn.EmbeddingBag(4, 2, _weight=nt.zeros(4, 3))
    m = nt.nn.EmbeddingBag(4, 2, _weight=nt.ones(4, 2), padding_idx=-1)
    assert m.padding_idx == 3 and np.all(m.weight.detach().numpy() == 1)  # a given weight is not reset
    m.reset_parameters()
    assert np.all(m.weight.detach().numpy()[3] == 0) and np.all(m.weight.detach().numpy()[:3] != 1)
