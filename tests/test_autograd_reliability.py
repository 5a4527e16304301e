"""Autograd reliability, compared with PyTorch where it can be: per-thread grad modes, grad-mode
decorators (import time, generators), backward from roots that reach one another, tensor hooks that
change a gradient's size or type, inference tensors saved for backward, and ``.grad`` of a non-leaf.
"""
import threading
import warnings

import numpy as np
import pytest
import torch as ref

import numtorch
import numtorch.nn  # noqa: F401
import numtorch.optim  # noqa: F401

BACKENDS = {"numtorch": numtorch, "torch": ref}


@pytest.fixture(params=list(BACKENDS))
def T(request):
    return BACKENDS[request.param]


def A(t):
    return t.detach().numpy()


# ---- grad mode is per thread --------------------------------------------------------------------
def _in_thread(fn):
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # surfaced in the calling thread
            out["error"] = e
    th = threading.Thread(target=run)
    th.start()
    th.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.mark.parametrize("ctx", ["no_grad", "inference_mode", "set_grad_enabled"])
def test_grad_mode_does_not_leak_into_another_thread(T, ctx):
    make = {"no_grad": T.no_grad, "inference_mode": T.inference_mode,
            "set_grad_enabled": lambda: T.set_grad_enabled(False)}[ctx]
    with make():
        seen = _in_thread(lambda: (T.is_grad_enabled(), T.is_inference_mode_enabled(),
                                   (T.ones(2, requires_grad=True) * 2).requires_grad))
        here = (T.is_grad_enabled(), T.is_inference_mode_enabled())
    assert seen == (True, False, True)
    assert here == (False, ctx == "inference_mode")
    assert T.is_grad_enabled()


def test_thread_switching_grad_off_leaves_caller_on(T):
    def off():
        T.set_grad_enabled(False)  # as a plain call: stays off in that thread only
        return T.is_grad_enabled()
    assert _in_thread(off) is False
    assert T.is_grad_enabled() and (T.ones(2, requires_grad=True) * 3).requires_grad


def test_anomaly_mode_is_global_as_in_pytorch(T):
    T.autograd.set_detect_anomaly(True)
    try:
        assert _in_thread(T.is_anomaly_enabled) is True
    finally:
        T.autograd.set_detect_anomaly(False)
    assert _in_thread(T.is_anomaly_enabled) is False


def _train(T, seed, barrier, steps=30):
    """Fit a small MLP; each optimizer step under ``no_grad`` (the threads interleave at the barrier)."""
    rng = np.random.default_rng(seed)
    X = T.tensor(rng.standard_normal((32, 5)).astype(np.float32))
    y = T.tensor(rng.standard_normal((32, 1)).astype(np.float32))
    w1 = T.tensor(rng.standard_normal((5, 8)).astype(np.float32) * 0.5, requires_grad=True)
    w2 = T.tensor(rng.standard_normal((8, 1)).astype(np.float32) * 0.5, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((X @ w1).tanh() @ w2 - y).pow(2).mean()
        if barrier is not None:
            barrier.wait()  # the other thread is now inside its no_grad block, or about to enter it
        loss.backward()
        with T.no_grad():
            if barrier is not None:
                barrier.wait()
            for w in (w1, w2):
                w -= 0.1 * w.grad
                w.grad = None
        losses.append(loss.item())
    return losses


def test_two_threads_train_two_models_at_once():
    expected = [_train(ref, seed, None) for seed in (0, 1)]
    barrier = threading.Barrier(2)
    results, errors = {}, []

    def worker(seed):
        try:
            results[seed] = _train(numtorch, seed, barrier)
        except BaseException as e:
            errors.append(e)
            barrier.abort()
    threads = [threading.Thread(target=worker, args=(s,)) for s in (0, 1)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    for seed in (0, 1):
        np.testing.assert_allclose(results[seed], expected[seed], rtol=1e-4, atol=1e-6)
    assert numtorch.is_grad_enabled()


def test_module_and_optimizer_train_in_two_threads():
    def run(T, seed):
        T.manual_seed(seed)
        rng = np.random.default_rng(seed)
        X = T.tensor(rng.standard_normal((16, 4)).astype(np.float32))
        y = T.tensor(rng.standard_normal((16, 2)).astype(np.float32))
        model = T.nn.Linear(4, 2)
        with T.no_grad():
            model.weight.copy_(T.tensor(rng.standard_normal((2, 4)).astype(np.float32)))
            model.bias.zero_()
        opt = T.optim.SGD(model.parameters(), lr=0.05)
        losses = []
        for _ in range(20):
            opt.zero_grad()
            loss = T.nn.functional.mse_loss(model(X), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses
    expected = {s: run(ref, s) for s in (3, 4)}
    got = {}
    threads = [threading.Thread(target=lambda s=s: got.__setitem__(s, run(numtorch, s))) for s in (3, 4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for s in (3, 4):
        np.testing.assert_allclose(got[s], expected[s], rtol=1e-4, atol=1e-6)


# ---- grad-mode decorators -----------------------------------------------------------------------
def test_set_grad_enabled_decorator_does_not_switch_at_definition(T):
    @T.set_grad_enabled(False)
    def f():
        return T.is_grad_enabled()
    after_definition = T.is_grad_enabled()
    assert (after_definition, f(), T.is_grad_enabled()) == (True, False, True)


@pytest.mark.parametrize("deco", ["no_grad", "enable_grad", "inference_mode", "set_grad_enabled"])
def test_decorated_generator_restores_callers_mode_between_steps(T, deco):
    make = {"no_grad": T.no_grad, "enable_grad": T.enable_grad, "inference_mode": T.inference_mode,
            "set_grad_enabled": lambda: T.set_grad_enabled(False)}[deco]
    caller = deco != "enable_grad"  # enable_grad is tested from inside no_grad

    @make()
    def gen():
        sent = yield (T.is_grad_enabled(), T.is_inference_mode_enabled())
        yield (T.is_grad_enabled(), T.is_inference_mode_enabled(), sent)

    def drive():
        g = gen()
        first = next(g)
        between = (T.is_grad_enabled(), T.is_inference_mode_enabled())
        second = g.send("hello")
        return first, between, second

    if caller:
        got = drive()
    else:
        with T.no_grad():
            got = drive()
    inside_grad = deco == "enable_grad"
    inside_inf = deco == "inference_mode"
    assert got == ((inside_grad, inside_inf), (not inside_grad, False), (inside_grad, inside_inf, "hello"))


def test_decorated_generator_throw_and_close(T):
    log = []

    @T.no_grad()
    def gen():
        try:
            yield 1
        except ValueError:
            log.append(("caught", T.is_grad_enabled()))
            yield 2
        finally:
            log.append(("closed", T.is_grad_enabled()))
    g = gen()
    next(g)
    assert g.throw(ValueError("x")) == 2 and T.is_grad_enabled()
    g.close()
    assert log == [("caught", False), ("closed", False)] and T.is_grad_enabled()


def test_bare_inference_mode_decorator(T):
    @T.inference_mode
    def f(x):
        return (x * 2).requires_grad, T.is_inference_mode_enabled()
    assert f(T.ones(2, requires_grad=True)) == (False, True)


# ---- backward from roots that reach one another -------------------------------------------------
def test_backward_root_reachable_from_another_root(T):
    a = T.tensor([1.0, 2.0], requires_grad=True)
    c = a * 3
    T.autograd.backward([c, c.exp()], [T.ones(2), T.full((2,), 2.0)])
    return_value = A(a.grad)
    expected = 3 + 2 * np.exp(3 * np.array([1.0, 2.0])) * 3
    np.testing.assert_allclose(return_value, expected, rtol=1e-5)


def test_grad_root_reachable_from_another_root(T):
    a = T.tensor([0.5, -1.0], requires_grad=True)
    c = a * a
    (g,) = T.autograd.grad([c.sin(), c], [a], [T.ones(2), T.full((2,), 0.5)])
    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(A(g), np.cos(x * x) * 2 * x + 0.5 * 2 * x, rtol=1e-5)


def test_backward_roots_in_any_order_and_shared_leaf(T):
    a = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
    b = a.tanh()
    c = b * a
    d = c.sum()
    T.autograd.backward([b, d, c], [T.ones(3), None, T.full((3,), 2.0)])
    x = np.array([1.0, -2.0, 3.0])
    th, dth = np.tanh(x), 1 - np.tanh(x) ** 2
    np.testing.assert_allclose(A(a.grad), dth + 3 * (dth * x + th), rtol=1e-5)


# ---- tensor hooks must keep size and type -------------------------------------------------------
@pytest.mark.parametrize("leaf", [False, True])
def test_hook_changing_size_raises(T, leaf):
    x = T.ones(3, requires_grad=True)
    z = x if leaf else x * 2

    def hook(g):
        return T.ones(4)
    z.register_hook(hook)
    with pytest.raises(RuntimeError) as got:
        (z * 2).sum().backward()
    assert str(got.value) == "hook 'hook' has changed the size of value"


def test_hook_changing_type_raises(T):
    x = T.ones(3, requires_grad=True)
    z = x * 2

    def double_it(g):
        return g.double()
    z.register_hook(double_it)
    with pytest.raises(RuntimeError) as got:
        z.sum().backward()
    assert str(got.value) == ("hook 'double_it' has changed the type of value "
                              "(was torch.FloatTensor got torch.DoubleTensor)")


def test_hook_of_same_size_and_type_may_replace_gradient(T):
    x = T.ones(3, requires_grad=True)
    z = x * 2
    z.register_hook(lambda g: g * 10)
    z.sum().backward()
    np.testing.assert_allclose(A(x.grad), [20.0, 20.0, 20.0])


# ---- inference tensors --------------------------------------------------------------------------
INFERENCE_MSG = ("Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
                 "mode in computation tracked by autograd. To work around this, you can make a clone to get a "
                 "normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
                 "`torch.inference_mode()`.")


def test_inference_tensor_cannot_be_saved_for_backward(T):
    x = T.ones(3, requires_grad=True)
    with T.inference_mode():
        t = T.ones(3) * 2
    assert t.is_inference() and not x.is_inference() and not t.clone().is_inference()
    with pytest.raises(RuntimeError) as got:
        x * t
    assert str(got.value) == INFERENCE_MSG
    assert (x + t).requires_grad  # add saves nothing: allowed, as in PyTorch
    y = x * t.clone()  # a clone made outside inference mode is a normal tensor
    y.sum().backward()
    np.testing.assert_allclose(A(x.grad), [2.0, 2.0, 2.0])


def test_inference_tensor_from_a_module_cannot_be_saved(T):
    lin = T.nn.Linear(3, 2)
    with T.inference_mode():
        h = lin(T.ones(1, 3))
    w = T.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        h @ w
    with T.no_grad():
        h2 = lin(T.ones(1, 3))
    assert (h2 @ w).requires_grad  # no_grad results are normal tensors


# ---- .grad of a non-leaf ------------------------------------------------------------------------
NONLEAF_MSG = ("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
               "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
               "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
               "Tensor by mistake, make sure you access the leaf Tensor instead. See "
               "github.com/pytorch/pytorch/pull/30531 for more information.")


def test_grad_of_non_leaf_warns(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert y.grad is None
    assert len(w) == 1 and w[0].category is UserWarning and str(w[0].message).startswith(NONLEAF_MSG)


def test_grad_of_leaf_or_retained_non_leaf_does_not_warn(T):
    x = T.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is None and y.grad is None
        y.sum().backward()
        np.testing.assert_allclose(A(y.grad), [1.0, 1.0])
        assert T.ones(2).grad is None


# ---- an index or mask saved for backward, changed in place, is version-checked ------------------
def _bool_mask(L):
    return L.tensor([[True, False, True], [False, True, False]])


def _setitem(y, key, value):
    y[key] = value
    return y


# name -> (builds an index/mask, op(L, x, idx) returning the output); x is (2, 3) and requires grad
SAVED_INDEX = {
    "setitem_index_value_grad": (lambda L: L.tensor([0, 2]), lambda L, x, i: _setitem(x * 1, (0, i), x[1, :2] * 2)),
    "setitem_index_self_grad": (lambda L: L.tensor([0, 2]), lambda L, x, i: _setitem(x * 1, (0, i), 5.0)),
    "setitem_index_list": (lambda L: L.tensor([0, 1]), lambda L, x, i: _setitem(x * 1, (slice(None), i), 5.0)),
    "setitem_mask": (_bool_mask, lambda L, x, i: _setitem(x * 1, i, x[0, :3] * 3)),
    "setitem_into_view": (lambda L: L.tensor([0, 2]), lambda L, x, i: _setitem((x * 1)[0], i, 5.0)._base),
    "index_put_": (lambda L: L.tensor([0, 1]), lambda L, x, i: (x * 1).index_put_((i,), x[0] * 3, accumulate=True)),
    "index_put": (lambda L: L.tensor([0, 1]), lambda L, x, i: x.index_put((i,), x[1] * 2)),
    "where": (_bool_mask, lambda L, x, i: L.where(i, x, x * x)),
    "where_scalar": (_bool_mask, lambda L, x, i: L.where(i, x, 0.0)),
    "masked_fill": (_bool_mask, lambda L, x, i: x.masked_fill(i, 0.0)),
    "masked_fill_tensor_value": (_bool_mask, lambda L, x, i: x.masked_fill(i, x.sum())),
    "masked_fill_": (lambda L: L.tensor([True, False, True]), lambda L, x, i: (x * 1).masked_fill_(i, 0.0)),
    "masked_scatter": (_bool_mask, lambda L, x, i: x.masked_scatter(i, x * 2)),
    "masked_scatter_": (lambda L: L.tensor([True, False, True]), lambda L, x, i: (x * 1).masked_scatter_(i, x * 2)),
    "masked_select": (_bool_mask, lambda L, x, i: x.masked_select(i)),
    "masked_select_broadcast": (lambda L: L.tensor([True, False, True]), lambda L, x, i: x.masked_select(i)),
    "take": (lambda L: L.tensor([0, 4]), lambda L, x, i: L.take(x, i)),
    "take_along_dim_flat": (lambda L: L.tensor([5, 1]), lambda L, x, i: L.take_along_dim(x, i)),
    "take_along_dim": (lambda L: L.tensor([[2, 1], [1, 2]]), lambda L, x, i: L.take_along_dim(x, i, dim=1)),
    "take_along_dim_broadcast": (lambda L: L.tensor([[2, 1]]), lambda L, x, i: L.take_along_dim(x, i, dim=1)),
    "index_add": (lambda L: L.tensor([0, 2]), lambda L, x, i: x.index_add(1, i, x[:, :2] * 2)),
    "index_copy": (lambda L: L.tensor([0, 2]), lambda L, x, i: x.index_copy(1, i, x[:, :2] * 2)),
    "index_fill": (lambda L: L.tensor([0, 2]), lambda L, x, i: x.index_fill(1, i, 0.0)),
    "getitem_index": (lambda L: L.tensor([0, 2]), lambda L, x, i: x[:, i]),
    "getitem_0d_index": (lambda L: L.tensor(1), lambda L, x, i: x[i]),
}


def _change(L, i):
    if i.dtype == L.bool:
        i.logical_not_()
    else:
        i.copy_(L.zeros_like(i))


def _saved_index_outcome(L, name):
    make, op = SAVED_INDEX[name]
    x = L.arange(1.0, 7.0).reshape(2, 3).requires_grad_()
    i = make(L)
    y = op(L, x, i)
    _change(L, i)
    try:
        (y * L.arange(1.0, 1.0 + y.numel()).reshape(y.shape)).sum().backward()
    except RuntimeError as e:
        return str(e)[:90]
    return A(x.grad).tolist()


@pytest.mark.parametrize("name", sorted(SAVED_INDEX))
def test_index_or_mask_changed_before_backward(name):
    """Raises PyTorch's version-counter error exactly where PyTorch does, else the same gradient."""
    assert _saved_index_outcome(numtorch, name) == _saved_index_outcome(ref, name)


def test_index_unchanged_gives_torch_gradients():
    for name, (make, op) in SAVED_INDEX.items():
        grads = []
        for L in (numtorch, ref):
            x = L.arange(1.0, 7.0).reshape(2, 3).requires_grad_()
            y = op(L, x, make(L))
            (y * L.arange(1.0, 1.0 + y.numel()).reshape(y.shape)).sum().backward()
            grads.append(A(x.grad).tolist())
        assert grads[0] == grads[1], name


# ---- indices an op returns, and loss targets, are saved as PyTorch saves them -------------------
# name -> op(L, x) returning (differentiable output, index tensor the backward reads); x is (2, 4)
RETURNED_INDEX = {
    "sort": lambda L, x: x.sort(1),
    "topk": lambda L, x: x.topk(2),
    "kthvalue": lambda L, x: x.kthvalue(2, 1),
    "max_dim": lambda L, x: x.max(1),
    "min_dim": lambda L, x: x.min(1),
    "median_dim": lambda L, x: x.median(1),
    "cummax": lambda L, x: x.cummax(1),
    "frexp": lambda L, x: L.frexp(x),
    "max_pool1d": lambda L, x: L.nn.functional.max_pool1d(x[None], 2, return_indices=True),
    "adaptive_max_pool1d": lambda L, x: L.nn.functional.adaptive_max_pool1d(x[None], 2, return_indices=True),
    "cross_entropy_target": lambda L, x: (L.nn.functional.cross_entropy(x, t := L.tensor([0, 1])), t),
    "nll_loss_target": lambda L, x: (L.nn.functional.nll_loss(x, t := L.tensor([3, 1])), t),
}


def _returned_index_outcome(L, name, change):
    x = L.tensor([[3.0, 1.0, 2.0, 5.0], [0.0, 4.0, 1.0, 2.0]], requires_grad=True)
    y, i = RETURNED_INDEX[name](L, x)
    if change:
        i.fill_(2)
    try:
        y.sum().backward()
    except RuntimeError as e:
        return str(e)[:90]
    return A(x.grad).tolist()


@pytest.mark.parametrize("change", [True, False])
@pytest.mark.parametrize("name", sorted(RETURNED_INDEX))
def test_returned_indices_and_targets_changed_before_backward(name, change):
    """sort's/max's/max_pool's returned indices and a loss's target changed in place before backward:
    PyTorch's version-counter error (was: the gradient silently went to the wrong elements)."""
    got, want = _returned_index_outcome(numtorch, name, change), _returned_index_outcome(ref, name, change)
    assert isinstance(got, str) == isinstance(want, str) == change
    if change:
        assert got == want
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("op", ["einsum", "tensordot"])
def test_einsum_keeps_only_operands_a_needed_gradient_reads(T, op):
    # PyTorch's einsum/tensordot (mm underneath) save an operand only for the other's gradient:
    # changing ``a`` in place is fine when ``w`` needs no gradient (was: a false in-place error)
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a, w = x * 1.5, T.tensor([2.0, 3.0, 4.0])
    z = T.einsum("i,i->", a, w) if op == "einsum" else T.tensordot(a, w, 1)
    a.add_(1)
    z.backward()
    assert A(x.grad).tolist() == [3.0, 4.5, 6.0]
    w.requires_grad_()
    b = x * 2
    y = T.einsum("i,i->", b, w) if op == "einsum" else T.tensordot(b, w, 1)
    b.add_(1)  # now w's gradient reads b
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
