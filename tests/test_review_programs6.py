"""Differential tests for discrepancies found by porting real programs to numtorch (review, session 6)."""
import warnings

import numpy as np
import pytest
import torch as ref

import numtorch as nt


def _bag_grad(T, mode, padding_idx, psw, two_d):
    T.manual_seed(0)
    e = T.nn.EmbeddingBag(10, 2, mode=mode, sparse=True, padding_idx=padding_idx)
    if two_d:
        w = T.arange(6.).view(2, 3) if psw else None
        out = e(T.tensor([[1, 2, 4], [5, 4, 3]]), per_sample_weights=w)
    else:
        w = T.arange(9.) if psw else None
        out = e(T.tensor([1, 2, 4, 5, 4, 3, 2, 9, 7]), T.tensor([0, 4, 8, 9]), per_sample_weights=w)
    (out * T.arange(float(out.numel())).view(out.shape)).sum().backward()
    g = e.weight.grad
    return g.is_sparse, g.is_coalesced(), g._indices().numpy(), g._values().numpy()


@pytest.mark.parametrize("mode,psw", [("sum", False), ("sum", True), ("mean", False)])
@pytest.mark.parametrize("padding_idx", [None, 2])
@pytest.mark.parametrize("two_d", [False, True])
def test_embedding_bag_sparse_gradient(mode, psw, padding_idx, two_d):
    a = _bag_grad(ref, mode, padding_idx, psw, two_d)
    b = _bag_grad(nt, mode, padding_idx, psw, two_d)
    assert a[:2] == b[:2]
    np.testing.assert_array_equal(a[2], b[2])
    np.testing.assert_allclose(a[3], b[3], rtol=1e-6)


def test_embedding_bag_sparse_with_sparse_adam():
    def run(T):
        T.manual_seed(0)
        e = T.nn.EmbeddingBag(10, 4, mode="sum", sparse=True)
        opt = T.optim.SparseAdam(list(e.parameters()), lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            e(T.randint(0, 10, (8,)), T.tensor([0, 4])).pow(2).sum().backward()
            opt.step()
        return e.weight.detach().numpy()
    np.testing.assert_allclose(run(nt), run(ref), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("T", [nt, ref], ids=["numtorch", "torch"])
def test_embedding_bag_sparse_scale_grad_by_freq_refused(T):
    e = T.nn.EmbeddingBag(10, 2, mode="mean", sparse=True, scale_grad_by_freq=True)
    out = e(T.tensor([1, 2, 4, 4]), T.tensor([0, 2]))
    with pytest.raises(RuntimeError, match="scale_grad_by_freq not supported with sparse gradients"):
        out.sum().backward()


def test_copyslices_node_name():
    names = []
    for T in (ref, nt):
        x = T.randn(3, 4, requires_grad=True)
        y = x * 2
        y[1].fill_(0.5)
        names.append((y.grad_fn.name(), type(y.grad_fn).__name__, repr(y.grad_fn).split(" object")[0]))
    assert names[0] == names[1]


@pytest.mark.parametrize("fn", ["is_floating_point", "is_complex", "numel", "is_storage"])
def test_tensor_predicates(fn):
    def run(T):
        out = []
        args = (3, [1.0], T.ones(2, dtype=T.complex64), T.ones(2))
        for a in args + ((T.ones(2).untyped_storage(),) if fn == "is_storage" else ()):
            try:
                out.append(getattr(T, fn)(a))
            except Exception as e:  # noqa: BLE001 - the type and message are what is compared
                out.append((type(e).__name__, str(e)))
        return out
    assert run(nt) == run(ref)


def test_set_default_tensor_type():
    warned = {}

    def run(T):
        out = []
        warned[T] = 0
        for a in (T.DoubleTensor, "torch.FloatTensor", T.LongTensor, "torch.cuda.FloatTensor", T.float64,
                  T.BFloat16Tensor, "torch.DoubleTensor"):
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                try:
                    T.set_default_tensor_type(a)
                    out.append((str(T.get_default_dtype()), str(T.tensor([1.0]).dtype), str(T.randn(2).dtype)))
                except TypeError as e:
                    out.append(str(e))
            warned[T] += sum("set_default_tensor_type() is deprecated" in str(w.message) for w in seen)
        T.set_default_dtype(T.float32)
        return out
    assert run(nt) == run(ref)
    assert warned[nt] <= 1 and warned[ref] <= 1  # PyTorch warns once per process


def _lazy_on_meta(T, in_context):
    T.manual_seed(0)
    if in_context:
        with T.device("meta"):
            mods = [T.nn.LazyLinear(5), T.nn.LazyConv2d(4, 3), T.nn.LazyBatchNorm2d()]
    else:
        mods = [T.nn.LazyLinear(5, device="meta"), T.nn.LazyConv2d(4, 3, device="meta"),
                T.nn.LazyBatchNorm2d(device="meta")]
    mods[0](T.randn(2, 7, device="meta"))
    mods[1](T.randn(2, 3, 6, 6, device="meta"))
    mods[2](T.randn(2, 3, 6, 6, device="meta"))
    out = [(type(m).__name__, n, tuple(t.shape), t.device.type) for m in mods
           for n, t in list(m.named_parameters()) + list(m.named_buffers())]
    return out, T.randn(3).tolist()  # materializing on meta draws nothing from the CPU stream


@pytest.mark.parametrize("in_context", [True, False])
def test_lazy_modules_materialize_on_their_device(in_context):
    assert _lazy_on_meta(nt, in_context) == _lazy_on_meta(ref, in_context)


@pytest.mark.parametrize("args", [(0, -1), (0, 0), (0, 1, 0), (1, 0, -1), (0, float("inf")), (float("-inf"), 1.5),
                                  (0, float("nan")), (0, 1, -1), (0, 2.5, 1), (0.5, float("inf"), 0)])
def test_range_checks(args):
    def run(T):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = T.range(*args)
                return r.tolist(), str(r.dtype)
            except RuntimeError as e:
                return str(e)
    assert run(nt) == run(ref)


def _dim_order_cases(T):
    out = []
    x4 = T.randn(2, 3, 4, 5)
    cases = [(T.randn(2, 3), True), (T.randn(2, 1, 3), True), (T.randn(2, 1, 3), False), (x4, True),
             (x4.permute(0, 2, 3, 1), True), (T.randn(1, 3, 4, 5), True),
             (T.randn(1, 3, 4, 5), [T.contiguous_format, T.channels_last]),
             (T.randn(1, 3, 4, 5), [T.contiguous_format]), (T.randn(2, 3), "ILLEGAL"), (T.randn(2, 3), [1])]
    for t, check in cases:
        try:
            out.append(t.dim_order(ambiguity_check=check))
        except (RuntimeError, TypeError) as e:
            out.append((type(e).__name__, str(e)))
    return out


def test_dim_order_ambiguity_check():
    assert _dim_order_cases(nt) == _dim_order_cases(ref)


@pytest.mark.parametrize("size_of", [tuple, lambda s: s])
def test_affine_grid_message_prints_the_size_as_passed(size_of):
    msgs = []
    for T in (nt, ref):
        with pytest.raises(ValueError) as info:
            T.nn.functional.affine_grid(T.zeros(1, 2, 3), size_of(T.Size([1, 1, 4, 4, 4])), align_corners=False)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("xs,gs", [((1, 1, 3, 3), (1, 2, 2, 3)), ((2, 1, 3, 3), (1, 2, 2, 2)), ((1, 1, 3, 3), (1, 2, 2)),
                                   ((1, 1, 3, 3, 3), (1, 2, 2, 2, 2)), ((2, 1, 3, 3, 3), (1, 2, 2, 2, 3)),
                                   ((1, 1, 3), (1, 2, 1)), ((1, 1, 3, 3), (1, 2, 2, 2, 2)), ((2, 1, 3, 3), (1, 2, 2, 3)),
                                   ((1, 1, 3, 3, 3, 3), (1, 2, 2, 2, 2, 2)), ((1, 1, 3, 3, 3), (1, 2, 2, 2))])
def test_grid_sample_shape_errors(xs, gs):
    msgs = []
    for T in (nt, ref):
        with pytest.raises(RuntimeError) as info:
            T.nn.functional.grid_sample(T.randn(*xs), T.zeros(*gs), align_corners=False)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
