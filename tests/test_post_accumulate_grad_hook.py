"""``Tensor.register_post_accumulate_grad_hook`` and the engine's final callbacks
(``Variable._execution_engine.queue_callback``): the same programs on numtorch and PyTorch."""
import numpy as np
import pytest
import torch

import numtorch as nt


def _events(lib):
    """Order and arguments of the hooks in one backward: a tensor hook, a post-accumulate hook, a
    queued final callback; two backwards, the second accumulating."""
    log = []
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = lib.tensor([0.5], requires_grad=True)

    def post(t):
        log.append(("post", t.grad.tolist()))
        lib.autograd.Variable._execution_engine.queue_callback(lambda: log.append(("final", w.grad.tolist())))

    w.register_hook(lambda g: log.append(("pre", g.tolist())))
    h = w.register_post_accumulate_grad_hook(post)
    b.register_post_accumulate_grad_hook(lambda t: log.append(("post_b", t.grad.tolist())))
    ((w * w).sum() + b.sum() * 2).backward()
    ((w * 3).sum()).backward()
    h.remove()
    (w.sum()).backward()
    return log


@pytest.mark.quick
def test_order_and_values_match_torch():
    assert _events(nt) == _events(torch)


@pytest.mark.parametrize("lib", [nt, torch], ids=["numtorch", "torch"])
def test_autograd_grad_does_not_run_it_but_backward_inputs_does(lib):
    calls = []
    q = lib.ones(3, requires_grad=True)
    q.register_post_accumulate_grad_hook(lambda t: calls.append(t.grad.sum().item()))
    lib.autograd.grad((q * 2).sum(), q)
    assert calls == []
    (q * 2).sum().backward(inputs=[q])
    assert calls == [6.0]


def test_errors_match_torch():
    for lib in (nt, torch):
        with pytest.raises(RuntimeError, match="doesn't require gradient"):
            lib.ones(2).register_post_accumulate_grad_hook(print)
        with pytest.raises(RuntimeError, match="non-leaf tensors"):
            (lib.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(print)
        with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass"):
            lib.autograd.Variable._execution_engine.queue_callback(print)


def test_parameter_hook_sees_accumulated_grad_and_is_removable():
    out = {}
    for lib in (nt, torch):
        lin = lib.nn.Linear(3, 2)
        with lib.no_grad():
            lin.weight.copy_(lib.arange(6.0).reshape(2, 3))
            lin.bias.copy_(lib.tensor([0.5, -0.5]))
        seen = []
        hs = [p.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.clone())) for p in lin.parameters()]
        x = lib.tensor([[1.0, -1.0, 2.0]])
        lin(x).pow(2).sum().backward()
        lin(x).sum().backward()
        for h in hs:
            h.remove()
        lin(x).sum().backward()
        out[lib] = [s.detach().numpy() for s in seen]
    assert len(out[nt]) == len(out[torch]) == 4
    for a, b in zip(out[nt], out[torch]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_callback_error_propagates_and_state_is_clean():
    w = nt.ones(2, requires_grad=True)

    def post(t):
        nt.autograd.Variable._execution_engine.queue_callback(lambda: 1 / 0)

    w.register_post_accumulate_grad_hook(post)
    with pytest.raises(ZeroDivisionError):
        w.sum().backward()
    with pytest.raises(RuntimeError, match="Final callbacks"):  # no frame left behind
        nt.autograd.Variable._execution_engine.queue_callback(print)


def test_hooks_are_not_pickled_or_deepcopied():
    """A model whose parameters carry hooks (as under DistributedDataParallel) still pickles, and copies
    come without the hooks, as in PyTorch."""
    import copy
    import pickle
    for lib in (nt, torch):
        lin = lib.nn.Linear(2, 2)
        lin.weight.extra = "kept"
        for p in lin.parameters():
            p.register_post_accumulate_grad_hook(lambda p: None)
        back = pickle.loads(pickle.dumps(lin))
        t = lib.ones(2, requires_grad=True)
        t.register_post_accumulate_grad_hook(lambda t: None)
        t.note = 1
        c = copy.deepcopy(t)
        assert back.weight._post_accumulate_grad_hooks is None and back.weight.extra == "kept"
        assert c._post_accumulate_grad_hooks is None and c.note == 1
