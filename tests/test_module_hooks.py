"""Module hooks, each test body run on numtorch AND on PyTorch (fixture ``T``).

Forward pre-hooks and hooks (order, replacement of inputs/outputs, ``with_kwargs``, ``prepend``,
``always_call``), module-global hooks, handles (``remove``, context manager, removal while a call
is running), and full backward hooks / backward pre-hooks (what they see, replacing gradients,
the no-input-requires-grad case, and their errors).
"""
import warnings

import numpy as np
import pytest
import torch as ref

import numtorch
import numtorch.nn  # noqa: F401

BACKENDS = {"numtorch": numtorch, "torch": ref}


@pytest.fixture(params=list(BACKENDS))
def T(request):
    return BACKENDS[request.param]


def A(t):
    return t.detach().numpy()


def scale_module(T, value=2.0):
    """``forward(x, offset=0.0) = x * w + offset`` with a Parameter ``w`` filled with ``value``."""
    class Scale(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = T.nn.Parameter(T.full((3,), value))

        def forward(self, x, offset=0.0):
            return x * self.w + offset

    return Scale()


# ============================================================================ forward hooks
def test_forward_hooks_order_and_replacement(T):
    m = scale_module(T)
    log = []
    mm = T.nn.modules.module
    g1 = mm.register_module_forward_pre_hook(lambda mod, args: log.append("global pre"))
    g2 = mm.register_module_forward_hook(lambda mod, args, out: log.append("global hook"))
    try:
        m.register_forward_pre_hook(lambda mod, args: log.append("pre 1") or (args[0] + 1,))
        m.register_forward_pre_hook(lambda mod, args: log.append("pre 0"), prepend=True)
        m.register_forward_pre_hook(lambda mod, args: log.append("pre 2") or args[0] * 10)  # non-tuple: wrapped
        m.register_forward_hook(lambda mod, args, out: log.append("hook 1") or out + 100)
        m.register_forward_hook(lambda mod, args, out: log.append(("hook 0", A(args[0]).tolist())), prepend=True)
        out = m(T.zeros(3))
    finally:
        g1.remove()
        g2.remove()
    assert log == ["global pre", "pre 0", "pre 1", "pre 2", "global hook", ("hook 0", [10.0] * 3), "hook 1"]
    assert A(out).tolist() == [120.0] * 3  # (0 + 1) * 10 * 2 + 100
    log.clear()
    m(T.zeros(3))
    assert "global pre" not in log and "global hook" not in log  # removed


def test_with_kwargs_hooks(T):
    m = scale_module(T)
    seen = []

    def pre(mod, args, kwargs):
        seen.append(("pre", dict(kwargs)))
        return (args[0] + 1,), {"offset": kwargs.get("offset", 0.0) + 5}

    def hook(mod, args, kwargs, out):
        seen.append(("hook", A(args[0]).tolist(), dict(kwargs)))
        return out * 0 + 1

    m.register_forward_pre_hook(pre, with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: seen.append(("plain", A(out).tolist())))
    m.register_forward_hook(hook, with_kwargs=True)
    out = m(T.zeros(3), offset=1.0)
    assert seen[0] == ("pre", {"offset": 1.0})
    assert seen[1] == ("plain", [8.0] * 3)  # (0 + 1) * 2 + 6
    assert seen[2] == ("hook", [1.0] * 3, {"offset": 6.0})
    assert A(out).tolist() == [1.0] * 3
    bad = scale_module(T)
    bad.register_forward_pre_hook(lambda mod, args, kwargs: args[0], with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"^forward pre-hook must return None or a tuple of \(new_args, "
                                           r"new_kwargs\), but got"):
        bad(T.zeros(3))


def test_always_call_hooks_run_on_error(T):
    class Boom(T.nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    log = []
    m.register_forward_hook(lambda mod, args, out: log.append("normal"))
    m.register_forward_hook(lambda mod, args, out: log.append(("always", out)), always_call=True)

    def failing(mod, args, out):
        raise KeyError("inner")

    m.register_forward_hook(failing, always_call=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="boom"):
            m(T.ones(1))
    assert log == [("always", None)]
    assert any("always_call=True" in str(x.message) and "inner" in str(x.message) for x in w)


def test_always_call_hook_not_run_twice(T):
    m = scale_module(T)
    log = []
    m.register_forward_hook(lambda mod, args, out: log.append("always"), always_call=True)

    def raising(mod, args, out):
        raise RuntimeError("late")

    m.register_forward_hook(raising)
    with pytest.raises(RuntimeError, match="late"):
        m(T.ones(3))
    assert log == ["always"]


def test_handles_remove_and_context_manager(T):
    m = scale_module(T)
    log = []
    h = m.register_forward_hook(lambda mod, args, out: log.append(1))
    assert isinstance(h, T.utils.hooks.RemovableHandle)
    with m.register_forward_pre_hook(lambda mod, args: log.append(0)):
        m(T.ones(3))
    m(T.ones(3))
    h.remove()
    h.remove()  # idempotent
    m(T.ones(3))
    assert log == [0, 1, 1]
    assert len(m._forward_hooks) == 0 and len(m._forward_pre_hooks) == 0


def test_removal_during_a_call(T):
    """The hook list is fixed when its loop starts: removals inside a call take effect next call."""
    m = scale_module(T)
    log = []
    handles = {}

    def first(mod, args, out):
        log.append("first")
        handles["first"].remove()
        handles["second"].remove()

    handles["first"] = m.register_forward_hook(first)
    handles["second"] = m.register_forward_hook(lambda mod, args, out: log.append("second"))
    m(T.ones(3))
    assert log == ["first", "second"]
    m(T.ones(3))
    assert log == ["first", "second"]
    # a pre-hook removing a forward hook: the forward-hook loop has not started yet, so it is skipped
    log.clear()
    fh = m.register_forward_hook(lambda mod, args, out: log.append("hook"))
    m.register_forward_pre_hook(lambda mod, args: log.append("pre") or fh.remove())
    m(T.ones(3))
    assert log == ["pre"]


def test_global_forward_hook_with_kwargs_and_always_call(T):
    mm = T.nn.modules.module
    m = scale_module(T)
    log = []
    h = mm.register_module_forward_hook(lambda mod, args, kwargs, out: log.append(dict(kwargs)), with_kwargs=True)
    try:
        m(T.ones(3), offset=2.0)
    finally:
        h.remove()
    assert log == [{"offset": 2.0}]

    class Boom(T.nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    h = mm.register_module_forward_hook(lambda mod, args, out: log.append("always"), always_call=True)
    try:
        with pytest.raises(ValueError):
            Boom()(T.ones(1))
    finally:
        h.remove()
    assert log[-1] == "always"


# ============================================================================ backward hooks
def test_full_backward_hook_sees_grads(T):
    m = scale_module(T)
    seen = {}

    def hook(mod, grad_input, grad_output):
        seen["mod"] = mod
        seen["gi"] = [None if g is None else A(g).tolist() for g in grad_input]
        seen["go"] = [None if g is None else A(g).tolist() for g in grad_output]

    h = m.register_full_backward_hook(hook)
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = m(x, 1.5)
    assert y.grad_fn.name() == "BackwardHookFunctionBackward"
    y.backward(T.tensor([1.0, 10.0, 100.0]))
    assert seen["mod"] is m
    assert seen["gi"] == [[2.0, 20.0, 200.0], None]  # the float offset gets None
    assert seen["go"] == [[1.0, 10.0, 100.0]]
    assert A(x.grad).tolist() == [2.0, 20.0, 200.0] and A(m.w.grad).tolist() == [1.0, 20.0, 300.0]
    h.remove()
    assert m(x).grad_fn.name() != "BackwardHookFunctionBackward"


def test_backward_hook_replaces_grad_input_and_pre_hook_grad_output(T):
    m = scale_module(T)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 0 + 7,))
    x = T.ones(3, requires_grad=True)
    m(x).backward(T.ones(3))
    assert A(x.grad).tolist() == [7.0] * 3 and A(m.w.grad).tolist() == [1.0] * 3

    m2 = scale_module(T)
    log = []
    m2.register_full_backward_pre_hook(lambda mod, go: log.append("pre") or (go[0] * 3,))
    m2.register_full_backward_hook(lambda mod, gi, go: log.append(("hook", A(go[0]).tolist(), A(gi[0]).tolist())))
    x = T.ones(3, requires_grad=True)
    m2(x).backward(T.ones(3))
    assert log == ["pre", ("hook", [3.0] * 3, [6.0] * 3)]
    assert A(x.grad).tolist() == [6.0] * 3 and A(m2.w.grad).tolist() == [3.0] * 3


def test_backward_hooks_with_tuple_output_and_global_hooks(T):
    class Two(T.nn.Module):
        def forward(self, a, b):
            return a * 2, b * 3

    m = Two()
    mm = T.nn.modules.module
    log = []
    h1 = mm.register_module_full_backward_pre_hook(lambda mod, go: log.append("global pre"))
    h2 = mm.register_module_full_backward_hook(lambda mod, gi, go: log.append("global"))
    try:
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("own", len(gi), len(go))))
        a = T.ones(2, requires_grad=True)
        b = T.ones(2)  # does not require grad
        out_a, out_b = m(a, b)
        assert not out_b.requires_grad and out_a.requires_grad
        out_a.backward(T.ones(2))
    finally:
        h1.remove()
        h2.remove()
    assert log == ["global pre", "global", ("own", 2, 2)]
    assert A(a.grad).tolist() == [2.0, 2.0]


def test_backward_hook_when_no_input_requires_grad(T):
    m = scale_module(T)
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, A(go[0]).tolist())))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m(T.ones(3)).backward(T.ones(3))
    assert seen == [((None, ), [1.0] * 3)]
    assert any("no inputs require gradients" in str(x.message) for x in w)
    assert A(m.w.grad).tolist() == [1.0] * 3
    bad = scale_module(T)
    bad.register_full_backward_hook(lambda mod, gi, go: (T.ones(3),))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="^Backward hook for Modules where no input requires gradient should "
                                               "always return None or None for all gradients.$"):
            bad(T.ones(3)).backward(T.ones(3))


def test_backward_hook_errors(T):
    m = scale_module(T)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    x = T.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^Backward hook returned an invalid number of grad_input, got 2, but "
                                           "expected 1$"):
        m(x).backward(T.ones(3))
    m2 = scale_module(T)
    m2.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match="^Backward pre hook returned an invalid number of grad_output, got 2, "
                                           "but expected 1$"):
        m2(x).backward(T.ones(3))
    m3 = scale_module(T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m3.register_backward_hook(lambda mod, gi, go: None)
    with pytest.raises(RuntimeError, match="^Cannot use both regular backward hooks and full backward hooks on a "
                                           "single Module. Please use only one of them.$"):
        m3.register_full_backward_hook(lambda mod, gi, go: None)


def test_backward_hooks_skipped_under_no_grad(T):
    m = scale_module(T)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    with T.no_grad():
        y = m(T.ones(3, requires_grad=True))
    assert y.grad_fn is None and not y.requires_grad


def test_fast_path_calls_forward(T):
    m = scale_module(T, 3.0)
    assert A(m(T.ones(3), offset=1.0)).tolist() == [4.0] * 3
    np.testing.assert_array_equal(A(m.forward(T.ones(3))), A(m(T.ones(3))))


def test_legacy_backward_hook_fires_on_output_grad_fn(T):
    m = scale_module(T)
    calls = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.register_backward_hook(lambda mod, gi, go: calls.append((mod, type(gi), type(go))))
        x = T.ones(3, requires_grad=True)
        m(x, 1.0).backward(T.ones(3))
    assert calls == [(m, tuple, tuple)]


def test_full_backward_hook_on_linear_matches_pytorch():
    """Differential: the grads a full backward hook sees on a real Linear equal PyTorch's."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    g = rng.standard_normal((5, 3)).astype(np.float32)
    seen = {}
    for name, T in BACKENDS.items():
        T.manual_seed(0)
        lin = T.nn.Linear(4, 3)
        with T.no_grad():
            lin.weight.copy_(T.tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 10))
            lin.bias.fill_(0.5)
        lin.register_full_backward_hook(lambda mod, gi, go, n=name: seen.update({n: (A(gi[0]), A(go[0]))}))
        xt = T.tensor(x, requires_grad=True)
        lin(xt).backward(T.tensor(g))
    np.testing.assert_allclose(seen["numtorch"][0], seen["torch"][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(seen["numtorch"][1], seen["torch"][1], rtol=0, atol=0)
