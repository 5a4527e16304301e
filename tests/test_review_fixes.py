"""Regression tests for discrepancies found by a new-user review (each compared with torch)."""
import io

import numpy as np
import pytest
import torch as ref

import numtorch as nt


@pytest.fixture(params=["numtorch", "torch"])
def T(request):
    return nt if request.param == "numtorch" else ref


def test_cross_entropy_weight_requiring_grad_is_refused(T):
    w = T.rand(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        T.nn.functional.cross_entropy(T.randn(3, 4), T.tensor([1, 2, 3]), weight=w)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        T.nn.functional.nll_loss(T.randn(3, 4), T.tensor([1, 2, 3]), weight=w)


def test_bce_with_logits_integer_target_is_refused(T):
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        T.nn.functional.binary_cross_entropy_with_logits(T.randn(3, 4), T.ones(3, 4, dtype=T.long))


def test_load_torch_file_with_a_set():
    buf = io.BytesIO()
    ref.save({"ids": {1, 2}, "frozen": frozenset([3]), "w": ref.ones(2)}, buf)
    buf.seek(0)
    got = nt.load(buf)
    assert got["ids"] == {1, 2} and got["frozen"] == frozenset([3])


def test_map_location_cuda_is_refused(tmp_path):
    nt.save({"a": nt.ones(1)}, tmp_path / "a.pt")
    with pytest.raises(RuntimeError, match="cuda"):
        nt.load(tmp_path / "a.pt", map_location="cuda")
    assert nt.load(tmp_path / "a.pt", map_location="cpu")["a"].item() == 1.0
    assert nt.load(tmp_path / "a.pt", map_location=lambda s, loc: s)["a"].item() == 1.0


def test_collate_keeps_string_columns_as_tuples():
    from torch.utils.data import default_collate as t_collate

    from numtorch.utils.data import default_collate
    a = default_collate([(1, "a"), (2, "b")])
    b = t_collate([(1, "a"), (2, "b")])
    assert a[1] == b[1] == ("a", "b") and a[0].tolist() == b[0].tolist()


@pytest.mark.parametrize("fn", ["layer_norm", "rms_norm", "group_norm"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_16_bit_norms_compute_in_float32_like_torch(fn, dtype):
    x = np.random.default_rng(0).standard_normal((4, 8, 3)).astype(np.float32)
    args = {"layer_norm": ((3,),), "rms_norm": ((3,),), "group_norm": (2,)}[fn]
    w = np.random.default_rng(1).standard_normal((4, 8, 3)).astype(np.float32)
    outs = []
    for T in (nt, ref):
        xt = T.tensor(x).to(getattr(T, dtype)).requires_grad_()
        y = getattr(T.nn.functional, fn)(xt, *args)
        assert str(y.dtype) == f"torch.{dtype}"
        (y.float() * T.tensor(w)).sum().backward()
        outs.append((y.float().detach().numpy(), xt.grad.float().numpy()))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=5e-2, atol=5e-2)


def test_clamp_keeps_16_bit_dtype(T):
    for d in (T.bfloat16, T.float16):
        assert T.randn(3).to(d).clamp(-1, 1).dtype == d
        assert T.randn(3).to(d).clip(min=0.5).dtype == d


def test_small_int_scalars_wrap_like_torch():
    for op in (lambda t: t + 300, lambda t: t - 1, lambda t: t * 300, lambda t: 300 + t):
        for d in ("uint8", "int8", "int16"):
            a = op(nt.tensor([1, 0, 7], dtype=getattr(nt, d)))
            b = op(ref.tensor([1, 0, 7], dtype=getattr(ref, d)))
            assert str(a.dtype) == str(b.dtype) and a.tolist() == b.tolist()


def test_non_tensor_inputs_raise_type_error_like_torch(T):
    with pytest.raises(TypeError, match="must be Tensor"):
        T.exp(np.ones(2))
    with pytest.raises(TypeError, match="must be Tensor"):
        T.sum([1.0, 2.0])
    with pytest.raises(TypeError):
        T.ones(2) + [1.0, 2.0]
    assert str((T.ones(2) + np.ones(2)).dtype) == "torch.float64"  # NumPy arrays are converted
    assert T.add(2, T.ones(2)).tolist() == [3.0, 3.0]  # a number as input is wrapped, as PyTorch does


def test_error_types_match_torch(T):
    with pytest.raises(RuntimeError, match="single memory location"):
        T.ones(1, 3).expand(2, 3).add_(1)
    with pytest.raises(RuntimeError, match="negative integer powers"):
        T.tensor([2]) ** -1
    with pytest.raises(TypeError):
        ~T.tensor([1.0])
    with pytest.raises(ValueError, match="negative"):
        T.from_numpy(np.arange(4.0)[::-1])


def test_numpy_floating_point_warnings_stay_silent(recwarn):
    import warnings
    warnings.simplefilter("always")
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"numtorch(\.|$)")  # as numtorch installs it
    assert np.isnan(nt.tensor([-1.0]).sqrt().item()) and nt.tensor([0.0]).log().item() == float("-inf")
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_version_reads_as_a_modern_torch():
    from packaging.version import Version
    assert Version(nt.__version__) >= Version("2.0") and "numtorch" in nt.__version__
    assert nt.version.cuda is None


def test_nan_to_num_gradient_and_size_arithmetic_match_torch():
    import numpy as _np
    import torch as _torch
    import numtorch as _nt
    grads = []
    for L in (_nt, _torch):
        x = L.tensor([1.0, float("nan"), float("inf"), -float("inf"), 2.0], requires_grad=True)
        y = L.nan_to_num(x, nan=0.5, posinf=9.0)
        (y * L.tensor([1.0, 2, 3, 4, 5])).sum().backward()
        grads.append((y.detach().numpy(), x.grad.numpy(), type(y.grad_fn).__name__))
    _np.testing.assert_array_equal(grads[0][0], grads[1][0])
    _np.testing.assert_array_equal(grads[0][1], grads[1][1])
    assert grads[0][2] == grads[1][2]
    a, b = _nt.zeros(2, 3).shape, _torch.zeros(2, 3).shape
    for fa, fb in ((a + (4,), b + (4,)), ((1,) + a, (1,) + b), (a[1:], b[1:])):
        assert repr(fa) == repr(fb) and type(fa).__name__ == "Size"


def test_out_refuses_a_result_it_cannot_hold_like_torch():
    import pytest as _pytest
    import torch as _torch
    import numtorch as _nt
    for L in (_nt, _torch):
        with _pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
            L.exp(L.ones(2), out=L.empty(2, dtype=L.long))
        with _pytest.raises(RuntimeError, match="can't be cast to the desired output type Bool"):
            L.add(L.ones(2), 1, out=L.empty(2, dtype=L.bool))
        assert str(L.add(L.ones(2, dtype=L.long), 1, out=L.empty(2)).dtype).endswith("float32")
