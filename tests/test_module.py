"""nn.Parameter / nn.Buffer / nn.Module semantics, each test body run on numtorch AND on PyTorch.

The fixture ``T`` is the torch-like package under test (``numtorch`` or the real ``torch``) and
``C`` holds small modules defined against it; every assertion must hold on both, which proves the
tests encode PyTorch's behaviour: registration, ``__setattr__`` routing and its errors, traversal
and dedup, state_dict keys/metadata/hooks, load_state_dict (strict, non-strict, assign, every
message, what a failed load leaves behind), apply order, dtype conversion, modes, repr,
deepcopy and pickle.
"""
import copy
import pickle
import types
from collections import OrderedDict

import numpy as np
import pytest
import torch as ref

import numtorch
import numtorch.nn  # noqa: F401  (makes numtorch.nn available)

BACKENDS = {"numtorch": numtorch, "torch": ref}
CLASSES = {}


def _define(T, tag):
    """Small modules written against backend ``T``; registered at module level so pickle finds them."""
    nn = T.nn

    class Lin(nn.Module):  # elementwise "linear" layer: forward needs only * and +
        def __init__(self, i=3, o=2, bias=True):
            super().__init__()
            self.weight = nn.Parameter(T.randn(o, i))
            if bias:
                self.bias = nn.Parameter(T.randn(o, 1))
            else:
                self.register_parameter("bias", None)

        def forward(self, x):
            return x * self.weight + (self.bias if self.bias is not None else 0)

        def extra_repr(self):
            return f"in={self.weight.shape[1]}, out={self.weight.shape[0]}"

    class Act(nn.Module):
        def forward(self, x):
            return x * 2

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = Lin(4, 3)
            self.act = Act()
            self.fc2 = Lin(3, 2, bias=False)
            self.register_buffer("steps", T.zeros((), dtype=T.int64))
            self.register_buffer("scratch", T.ones(2), persistent=False)
            self.register_buffer("running", T.zeros(3))

        def forward(self, x):
            return self.act(self.fc1(x))

    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Lin(2, 2)
            self.b = Lin(2, 2)
            self.b.weight = self.a.weight
            self.shared = self.a  # the same submodule under two names

    class Empty(nn.Module):
        pass

    ns = types.SimpleNamespace(Lin=Lin, Act=Act, Net=Net, Tied=Tied, Empty=Empty)
    for name, cls in vars(ns).items():
        cls.__qualname__ = f"{name}_{tag}"
        globals()[cls.__qualname__] = cls
    return ns


for _tag, _T in BACKENDS.items():
    CLASSES[_tag] = _define(_T, _tag)


@pytest.fixture(params=list(BACKENDS))
def backend(request):
    return request.param


@pytest.fixture
def T(backend):
    return BACKENDS[backend]


@pytest.fixture
def C(backend):
    return CLASSES[backend]


def A(t):
    return t.detach().numpy()


def err(excinfo):
    """The exception's message as PyTorch formats it (KeyError's str() adds quotes)."""
    e = excinfo.value
    return e.args[0] if isinstance(e, KeyError) else str(e)


def fresh(T, C, seed=0):
    T.manual_seed(seed)
    return C.Net()


# ============================================================================ Parameter and Buffer
def test_parameter_is_a_tensor_sharing_data(T):
    data = T.zeros(3)
    p = T.nn.Parameter(data)
    assert isinstance(p, T.Tensor) and isinstance(p, T.nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    with T.no_grad():
        data.add_(1)  # shares storage with data
    assert A(p).tolist() == [1.0, 1.0, 1.0]
    assert type(p * 2) is T.Tensor  # ops on a Parameter give plain tensors
    assert not T.nn.Parameter(T.ones(2), requires_grad=False).requires_grad


def test_parameter_defaults_and_errors(T):
    p = T.nn.Parameter()
    assert tuple(p.shape) == (0,) and p.dtype == T.float32 and p.requires_grad
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        T.nn.Parameter(T.arange(3))
    assert T.nn.Parameter(T.arange(3), requires_grad=False).dtype == T.int64
    with pytest.raises(AttributeError, match="'list' object has no attribute 'detach'"):
        T.nn.Parameter([1.0])
    x = T.ones(2, requires_grad=True)
    q = T.nn.Parameter(x * 2)  # built from a non-leaf: still a leaf
    assert q.is_leaf and q.grad_fn is None


def test_parameter_repr(T):
    p = T.nn.Parameter(T.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    q = T.nn.Parameter(T.tensor([1, 2]), requires_grad=False)
    assert repr(q) == "Parameter containing:\ntensor([1, 2])"


def test_parameter_deepcopy_and_pickle(T):
    p = T.nn.Parameter(T.tensor([1.0, 2.0]))
    p.grad = T.ones(2)
    p.tag = "w"
    q = copy.deepcopy(p)
    assert type(q) is T.nn.Parameter and q.requires_grad and A(q).tolist() == [1.0, 2.0]
    assert q.grad is None and not hasattr(q, "tag")  # PyTorch copies data and requires_grad only
    with T.no_grad():
        q.mul_(3)
    assert A(p).tolist() == [1.0, 2.0]
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is T.nn.Parameter and r.requires_grad and r.grad is None and r.tag == "w"
    assert A(r).tolist() == [1.0, 2.0]
    frozen = pickle.loads(pickle.dumps(T.nn.Parameter(T.ones(1), requires_grad=False)))
    assert type(frozen) is T.nn.Parameter and not frozen.requires_grad


def test_buffer_marker(T):
    b = T.nn.Buffer(T.ones(2), persistent=False)
    assert isinstance(b, T.nn.Buffer) and type(b) is T.Tensor and b.persistent is False
    assert not isinstance(T.ones(2), T.nn.Buffer)
    m = T.nn.Module()
    m.stat = T.nn.Buffer(T.zeros(2))
    m.tmp = b
    assert list(m._buffers) == ["stat", "tmp"] and m._non_persistent_buffers_set == {"tmp"}
    assert list(m.state_dict()) == ["stat"]


# ============================================================================ __init__ and registration
def test_init_state(T, C):
    m = C.Net()
    for name in ("_parameters", "_buffers", "_modules", "_forward_hooks", "_forward_pre_hooks",
                 "_backward_hooks", "_backward_pre_hooks", "_state_dict_hooks", "_state_dict_pre_hooks",
                 "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks", "_forward_hooks_with_kwargs",
                 "_forward_hooks_always_called", "_forward_pre_hooks_with_kwargs"):
        assert name in m.__dict__
    assert m.training is True and m._version == 1 and T.nn.Module._version == 1
    assert list(m._modules) == ["fc1", "act", "fc2"]
    assert list(m._buffers) == ["steps", "scratch", "running"]
    assert m._non_persistent_buffers_set == {"scratch"}
    assert list(m.fc1._parameters) == ["weight", "bias"]


def test_init_rejects_arguments(T):
    with pytest.raises(TypeError, match=r"^Module.__init__\(\) takes 1 positional argument but 2 were given$"):
        T.nn.Module(3)
    with pytest.raises(TypeError, match=r"^Module.__init__\(\) got an unexpected keyword argument 'a'$"):
        T.nn.Module(a=1)


@pytest.mark.parametrize("what,msg", [
    ("module", "cannot assign module before Module.__init__() call"),
    ("param", "cannot assign parameters before Module.__init__() call"),
    ("buffer", "cannot assign buffer before Module.__init__() call"),
    ("register_param", "cannot assign parameter before Module.__init__() call"),
])
def test_assign_before_init(T, what, msg):
    class Bad(T.nn.Module):
        def __init__(self):
            if what == "module":
                self.sub = T.nn.Module()
            elif what == "param":
                self.w = T.nn.Parameter(T.ones(1))
            elif what == "buffer":
                self.register_buffer("b", None)
            else:
                self.register_parameter("p", None)

    with pytest.raises(AttributeError) as ei:
        Bad()
    assert str(ei.value) == msg


@pytest.mark.parametrize("call,etype,msg", [
    (lambda m, T: m.register_parameter(3, None), TypeError, "parameter name should be a string. Got int"),
    (lambda m, T: m.register_parameter("a.b", None), KeyError, 'parameter name can\'t contain "."'),
    (lambda m, T: m.register_parameter("", None), KeyError, 'parameter name can\'t be empty string ""'),
    (lambda m, T: m.register_parameter("training", None), KeyError, "attribute 'training' already exists"),
    (lambda m, T: m.register_parameter("fc1", None), KeyError, "attribute 'fc1' already exists"),
    (lambda m, T: m.register_parameter("w", T.ones(1)), TypeError,
     "cannot assign 'torch.FloatTensor' object to parameter 'w' (torch.nn.Parameter or None required)"),
    (lambda m, T: m.register_buffer(3, None), TypeError, "buffer name should be a string. Got int"),
    (lambda m, T: m.register_buffer("a.b", None), KeyError, 'buffer name can\'t contain "."'),
    (lambda m, T: m.register_buffer("", None), KeyError, 'buffer name can\'t be empty string ""'),
    (lambda m, T: m.register_buffer("eval", None), KeyError, "attribute 'eval' already exists"),
    (lambda m, T: m.register_buffer("b", 5), TypeError,
     "cannot assign 'int' object to buffer 'b' (torch Tensor or None required)"),
    (lambda m, T: m.register_buffer("b", [1.0]), TypeError,
     "cannot assign 'list' object to buffer 'b' (torch Tensor or None required)"),
    (lambda m, T: m.add_module("x", 3), TypeError, "int is not a Module subclass"),
    (lambda m, T: m.add_module(3, None), TypeError, "module name should be a string. Got int"),
    (lambda m, T: m.add_module("a.b", None), KeyError, 'module name can\'t contain ".", got: a.b'),
    (lambda m, T: m.add_module("", None), KeyError, 'module name can\'t be empty string ""'),
    (lambda m, T: m.register_module("steps", None), KeyError, "attribute 'steps' already exists"),
])
def test_registration_errors(T, C, call, etype, msg):
    m = C.Net()
    with pytest.raises(etype) as ei:
        call(m, T)
    assert err(ei) == msg


def test_non_leaf_parameter_rejected(T):
    p = T.nn.Parameter(T.zeros(2), requires_grad=False)
    x = T.ones(2, requires_grad=True)
    p.add_(x)  # p now has a grad_fn
    assert p.grad_fn is not None
    m = T.nn.Module()
    with pytest.raises(ValueError) as ei:
        m.register_parameter("w", p)
    assert str(ei.value) == ("Cannot assign non-leaf Tensor to parameter 'w'. Model parameters must be created "
                             "explicitly. To express 'w' as a function of another Tensor, compute the value in the "
                             "forward() method.")


def test_register_overwrites_same_kind_and_persistence(T):
    m = T.nn.Module()
    m.register_buffer("b", T.ones(1), persistent=False)
    m.register_buffer("b", T.zeros(1))  # re-registering flips persistence back
    assert m._non_persistent_buffers_set == set() and list(m.state_dict()) == ["b"]
    m.register_parameter("p", None)
    m.register_parameter("p", T.nn.Parameter(T.ones(1)))
    assert list(m._parameters) == ["p"] and A(m.p).tolist() == [1.0]
    m.add_module("c", None)
    m.register_module("c", T.nn.Module())
    assert isinstance(m.c, T.nn.Module)


# ============================================================================ __setattr__ / __getattr__ routing
def test_setattr_routes_by_type(T, C):
    m = C.Net()
    m.extra = T.nn.Parameter(T.ones(1))
    m.sub = C.Act()
    m.plain = T.ones(1)  # a tensor under a new name is a plain attribute, not a buffer
    m.running = T.ones(3)  # a tensor over a buffer name replaces the buffer
    assert "extra" in m._parameters and "sub" in m._modules and "plain" in m.__dict__
    assert "plain" not in m._buffers and A(m._buffers["running"]).tolist() == [1.0, 1.0, 1.0]
    m.scratch = T.zeros(2)  # keeps its non-persistence
    assert "scratch" in m._non_persistent_buffers_set
    assert "extra" not in m.__dict__ and "sub" not in m.__dict__


def test_setattr_none_keeps_slot(T, C):
    m = C.Net()
    m.fc1.bias = None
    m.running = None
    m.act = None
    assert "bias" in m.fc1._parameters and m.fc1.bias is None
    assert "running" in m._buffers and m.running is None
    assert "act" in m._modules and m.act is None
    assert [n for n, _ in m.named_parameters()] == ["fc1.weight", "fc2.weight"]
    assert [n for n, _ in m.named_buffers()] == ["steps", "scratch"]
    assert list(m.state_dict()) == ["steps", "fc1.weight", "fc2.weight"]
    assert [n for n, _ in m.named_children()] == ["fc1", "fc2"]


def test_setattr_type_errors(T, C):
    m = C.Net()
    with pytest.raises(TypeError) as ei:
        m.fc1.weight = T.ones(2, 4)
    assert str(ei.value) == ("cannot assign 'torch.FloatTensor' as parameter 'weight' "
                             "(torch.nn.Parameter or None expected)")
    with pytest.raises(TypeError) as ei:
        m.fc1.weight = T.ones(2, 4, dtype=T.float64)
    assert str(ei.value).startswith("cannot assign 'torch.DoubleTensor' as parameter 'weight'")
    with pytest.raises(TypeError) as ei:
        m.fc1.weight = C.Act()  # a Module over a parameter name is refused, not moved
    assert str(ei.value).startswith("cannot assign '") and str(ei.value).endswith(
        "Act_" + T.__name__ + "' as parameter 'weight' (torch.nn.Parameter or None expected)")
    with pytest.raises(TypeError) as ei:
        m.act = 3
    assert str(ei.value) == "cannot assign 'int' as child module 'act' (torch.nn.Module or None expected)"
    with pytest.raises(TypeError) as ei:
        m.running = "x"
    assert str(ei.value) == "cannot assign 'str' as buffer 'running' (torch.nn.Buffer, torch.Tensor or None expected)"


def test_setattr_moves_between_kinds(T, C):
    m = C.Net()
    m.scratch = T.nn.Parameter(T.ones(2))  # buffer -> parameter
    assert "scratch" in m._parameters and "scratch" not in m._buffers
    assert "scratch" not in m._non_persistent_buffers_set
    m.running = C.Act()  # buffer -> module
    assert "running" in m._modules and "running" not in m._buffers
    m.act = T.nn.Parameter(T.ones(1))  # module -> parameter
    assert "act" in m._parameters and "act" not in m._modules
    m.note = 5
    m.note = T.nn.Parameter(T.ones(1))  # plain attribute -> parameter
    assert "note" not in m.__dict__ and "note" in m._parameters


def test_getattr_and_delattr(T, C):
    m = C.Net()
    assert m.fc1 is m._modules["fc1"] and m.steps is m._buffers["steps"]
    assert m.fc1.weight is m.fc1._parameters["weight"]
    with pytest.raises(AttributeError) as ei:
        m.foo
    assert str(ei.value) == "'Net' object has no attribute 'foo'"
    assert not hasattr(m, "foo") and getattr(m, "foo", 7) == 7
    del m.fc1.weight
    del m.scratch
    del m.act
    m.note = 1
    del m.note
    assert "weight" not in m.fc1._parameters and "scratch" not in m._buffers
    assert "scratch" not in m._non_persistent_buffers_set and "act" not in m._modules and "note" not in m.__dict__
    with pytest.raises(AttributeError) as ei:
        del m.nothing
    assert "nothing" in str(ei.value)


def test_dir(T):
    seq = T.nn.Sequential(T.nn.Module())
    m = T.nn.Module()
    m.w = T.nn.Parameter(T.ones(1))
    m.register_buffer("b", T.ones(1))
    m.sub = seq
    d = dir(m)
    assert {"w", "b", "sub", "training", "forward", "state_dict"} <= set(d) and d == sorted(d)
    assert "0" not in dir(seq)


def test_missing_forward(T, C):
    with pytest.raises(NotImplementedError) as ei:
        C.Empty()(T.ones(1))
    assert str(ei.value) == 'Module [Empty] is missing the required "forward" function'


# ============================================================================ traversal
def test_named_parameters_buffers_modules(T, C):
    m = C.Net()
    assert [n for n, _ in m.named_parameters()] == ["fc1.weight", "fc1.bias", "fc2.weight"]
    assert [n for n, _ in m.named_parameters(prefix="net")] == ["net.fc1.weight", "net.fc1.bias", "net.fc2.weight"]
    assert list(m.named_parameters(recurse=False)) == []
    assert [n for n, _ in m.fc1.named_parameters(recurse=False)] == ["weight", "bias"]
    assert [n for n, _ in m.named_buffers()] == ["steps", "scratch", "running"]
    assert [n for n, _ in m.named_modules()] == ["", "fc1", "act", "fc2"]
    assert [n for n, _ in m.named_modules(prefix="root")] == ["root", "root.fc1", "root.act", "root.fc2"]
    assert [type(c).__name__ for c in m.children()] == ["Lin", "Act", "Lin"]
    assert list(m.modules())[0] is m
    gen = m.parameters()
    assert isinstance(gen, types.GeneratorType)
    assert [p is q for p, q in zip(gen, [m.fc1.weight, m.fc1.bias, m.fc2.weight])] == [True] * 3
    assert len(list(m.buffers())) == 3 and len(list(m.buffers(recurse=False))) == 3


def test_dedup_of_tied_parameters_and_shared_modules(T, C):
    m = C.Tied()
    assert [n for n, _ in m.named_parameters()] == ["a.weight", "a.bias", "b.bias"]
    assert [n for n, _ in m.named_parameters(remove_duplicate=False)] == [
        "a.weight", "a.bias", "b.weight", "b.bias", "shared.weight", "shared.bias"]
    assert len(list(m.parameters())) == 3
    assert [n for n, _ in m.named_modules()] == ["", "a", "b"]
    assert [n for n, _ in m.named_modules(remove_duplicate=False)] == ["", "a", "b", "shared"]
    assert [n for n, _ in m.named_children()] == ["a", "b"]
    assert list(m.state_dict()) == ["a.weight", "a.bias", "b.weight", "b.bias", "shared.weight", "shared.bias"]


def test_get_submodule_parameter_buffer(T, C):
    outer = T.nn.Module()
    outer.net = C.Net()
    assert outer.get_submodule("") is outer and outer.get_submodule("net.fc1") is outer.net.fc1
    assert outer.get_parameter("net.fc1.weight") is outer.net.fc1.weight
    assert outer.get_buffer("net.steps") is outer.net.steps
    cases = [
        (lambda: outer.get_submodule("net.nope"), "Net has no attribute `nope`"),
        (lambda: outer.get_submodule("net.fc1.weight"), "`weight` is not an nn.Module"),
        (lambda: outer.get_parameter("net.fc1.nope"), "Lin has no attribute `nope`"),
        (lambda: outer.get_parameter("net.steps"), "`steps` is not an nn.Parameter"),
        (lambda: outer.get_buffer("net.fc1.weight"), "`weight` is not a buffer"),
        (lambda: outer.get_buffer("missing.steps"), "Module has no attribute `missing`"),
    ]
    for fn, msg in cases:
        with pytest.raises(AttributeError) as ei:
            fn()
        assert str(ei.value) == msg
    new = C.Act()
    outer.set_submodule("net.fc2", new)
    assert outer.net.fc2 is new
    with pytest.raises(AttributeError, match="Net has no attribute `zzz`"):
        outer.set_submodule("net.zzz", C.Act(), strict=True)


# ============================================================================ state_dict
def test_state_dict_keys_values_metadata(T, C):
    m = fresh(T, C)
    sd = m.state_dict()
    assert type(sd) is OrderedDict
    assert list(sd) == ["steps", "running", "fc1.weight", "fc1.bias", "fc2.weight"]
    assert dict(sd._metadata) == {"": {"version": 1}, "fc1": {"version": 1}, "act": {"version": 1},
                                  "fc2": {"version": 1}}
    w = sd["fc1.weight"]
    assert type(w) is T.Tensor and not w.requires_grad
    with T.no_grad():
        w.zero_()  # detached but sharing memory with the parameter
    assert not A(m.fc1.weight).any()
    kv = m.state_dict(keep_vars=True)
    assert kv["fc1.weight"] is m.fc1.weight and kv["steps"] is m.steps
    pre = m.fc1.state_dict(prefix="enc.")
    assert list(pre) == ["enc.weight", "enc.bias"] and list(pre._metadata) == ["enc"]
    dest = {}
    assert m.fc1.state_dict(destination=dest) is dest and list(dest) == ["weight", "bias"]


def test_state_dict_version_and_extra_state(T):
    class V2(T.nn.Module):
        _version = 2

        def __init__(self):
            super().__init__()
            self.w = T.nn.Parameter(T.ones(1))
            self.calls = 0

        def get_extra_state(self):
            return {"calls": self.calls}

        def set_extra_state(self, state):
            self.calls = state["calls"]

    outer = T.nn.Module()
    outer.v = V2()
    outer.v.calls = 5
    sd = outer.state_dict()
    assert list(sd) == ["v.w", "v._extra_state"] and sd["v._extra_state"] == {"calls": 5}
    assert sd._metadata["v"] == {"version": 2} and sd._metadata[""] == {"version": 1}
    other = T.nn.Module()
    other.v = V2()
    other.load_state_dict(sd)
    assert other.v.calls == 5


def test_state_dict_hooks(T, C):
    m = C.Lin(2, 2)
    log = []
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre", prefix, keep_vars)))

    def post(mod, sd, prefix, local_metadata):
        log.append(("post", prefix, dict(local_metadata)))
        sd[prefix + "added"] = 1

    h = m.register_state_dict_post_hook(post)
    outer = T.nn.Module()
    outer.m = m
    sd = outer.state_dict()
    assert log == [("pre", "m.", False), ("post", "m.", {"version": 1})] and sd["m.added"] == 1
    h.remove()
    assert "added" not in m.state_dict()
    m.register_state_dict_post_hook(lambda *a: {"x": 1})
    with pytest.raises(RuntimeError, match="^state_dict post-hook must return None$"):
        m.state_dict()
    m2 = C.Lin(2, 2)
    m2._register_state_dict_hook(lambda mod, sd, prefix, md: OrderedDict(only=1))  # private API may replace
    assert m2.state_dict() == OrderedDict(only=1)


def test_save_to_state_dict_override(T):
    class Custom(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = T.nn.Parameter(T.ones(2))

        def _save_to_state_dict(self, destination, prefix, keep_vars):
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "w_doubled"] = self.w.detach() * 2

    outer = T.nn.Sequential(Custom())
    sd = outer.state_dict()
    assert list(sd) == ["0.w", "0.w_doubled"] and A(sd["0.w_doubled"]).tolist() == [2.0, 2.0]


# ============================================================================ load_state_dict
def test_load_state_dict_copies_in_place(T, C):
    src, dst = fresh(T, C, 1), fresh(T, C, 2)
    with T.no_grad():
        src.steps.fill_(7)
    params_before = list(dst.parameters())
    w_before = dst.fc1.weight
    res = dst.load_state_dict(src.state_dict())
    assert list(dst.parameters())[0] is params_before[0] and dst.fc1.weight is w_before
    np.testing.assert_array_equal(A(dst.fc1.weight), A(src.fc1.weight))
    assert int(dst.steps) == 7 and dst.steps.dtype == T.int64
    assert dst.fc1.weight.requires_grad and type(dst.fc1.weight) is T.nn.Parameter
    assert res.missing_keys == [] and res.unexpected_keys == [] and tuple(res) == ([], [])
    assert repr(res) == "<All keys matched successfully>" and str(res) == repr(res)
    assert type(res).__name__ == "_IncompatibleKeys" and res._fields == ("missing_keys", "unexpected_keys")
    with T.no_grad():  # the loaded values are copies, not views of the checkpoint
        src.fc1.weight.zero_()
    assert A(dst.fc1.weight).any()


def test_load_state_dict_casts_to_module_dtype(T, C):
    m = C.Lin(2, 2)
    sd = {k: v.double() * 0 + 1.5 for k, v in m.state_dict().items()}
    m.load_state_dict(sd)
    assert m.weight.dtype == T.float32 and A(m.weight).tolist() == [[1.5, 1.5], [1.5, 1.5]]


def test_load_state_dict_strict_errors_exact(T, C):
    m = fresh(T, C)
    sd = m.state_dict()
    del sd["fc1.bias"], sd["steps"]
    sd["fc2.bias"] = T.zeros(2, 1)  # fc2 has bias=None: unexpected
    sd["extra"] = T.zeros(1)
    sd["nowhere.weight"] = T.zeros(1)
    with pytest.raises(RuntimeError) as ei:
        m.load_state_dict(sd)
    assert str(ei.value) == (
        'Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "steps", "fc1.bias". \n\t'
        'Unexpected key(s) in state_dict: "extra", "nowhere.weight", "fc2.bias". ')
    res = m.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["steps", "fc1.bias"]
    assert res.unexpected_keys == ["extra", "nowhere.weight", "fc2.bias"]
    assert repr(res) == ("_IncompatibleKeys(missing_keys=['steps', 'fc1.bias'], "
                         "unexpected_keys=['extra', 'nowhere.weight', 'fc2.bias'])")


def test_load_state_dict_size_mismatch_and_failed_load_leftovers(T, C):
    m = fresh(T, C)
    old_w2 = A(m.fc2.weight).copy()
    sd = {k: T.zeros(v.shape, dtype=v.dtype) + 3 for k, v in m.state_dict().items()}
    sd["fc2.weight"] = T.zeros(5, 3)
    sd["extra"] = T.zeros(1)
    with pytest.raises(RuntimeError) as ei:
        m.load_state_dict(sd)
    assert str(ei.value) == (
        'Error(s) in loading state_dict for Net:\n\tUnexpected key(s) in state_dict: "extra". \n\t'
        "size mismatch for fc2.weight: copying a param with shape torch.Size([5, 3]) from checkpoint, "
        "the shape in current model is torch.Size([2, 3]).")
    # what a failed load leaves behind: every other entry (before AND after the bad one) was copied
    assert (A(m.fc1.weight) == 3).all() and (A(m.running) == 3).all() and int(m.steps) == 3
    np.testing.assert_array_equal(A(m.fc2.weight), old_w2)
    with pytest.raises(RuntimeError) as ei:  # a size mismatch raises even with strict=False
        m.load_state_dict({"fc2.weight": T.zeros(5, 3)}, strict=False)
    assert str(ei.value) == (
        "Error(s) in loading state_dict for Net:\n\tsize mismatch for fc2.weight: copying a param with shape "
        "torch.Size([5, 3]) from checkpoint, the shape in current model is torch.Size([2, 3]).")


def test_load_state_dict_bad_inputs(T, C):
    m = C.Lin(2, 2)
    with pytest.raises(TypeError) as ei:
        m.load_state_dict([("weight", T.zeros(2, 2))])
    assert str(ei.value) == "Expected state_dict to be dict-like, got <class 'list'>."
    with pytest.raises(RuntimeError) as ei:
        m.load_state_dict({"weight": 3, "bias": T.zeros(2, 1)})
    assert str(ei.value) == (
        'Error(s) in loading state_dict for Lin:\n\tWhile copying the parameter named "weight", expected '
        "torch.Tensor or Tensor-like object from checkpoint but received <class 'int'>")


def test_load_state_dict_scalar_from_one_element(T):
    m = T.nn.Module()
    m.register_buffer("count", T.tensor(0))
    m.load_state_dict({"count": T.tensor([5])})
    assert tuple(m.count.shape) == () and int(m.count) == 5


def test_load_state_dict_assign(T, C):
    m = fresh(T, C)
    m.fc1.weight.requires_grad_(False)
    new_w = T.full((3, 4), 2.0)
    new_running = T.ones(3, dtype=T.float64)
    sd = m.state_dict()
    sd["fc1.weight"], sd["running"] = new_w, new_running
    m.load_state_dict(sd, assign=True)
    w = m.fc1.weight
    assert type(w) is T.nn.Parameter and not w.requires_grad  # requires_grad comes from the module
    assert m.fc1.bias.requires_grad and type(m.fc1.bias) is T.nn.Parameter
    with T.no_grad():
        new_w.add_(1)  # the Parameter shares the given tensor's memory
    assert (A(w) == 3).all()
    assert m.running is new_running and m.running.dtype == T.float64  # buffers are taken as they are


def test_load_from_state_dict_override_and_hooks(T, C):
    class Renamed(C.Lin):
        _version = 2

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                                  unexpected_keys, error_msgs):
            if local_metadata.get("version", 1) < 2 and prefix + "w" in state_dict:  # old name -> new name
                state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                          unexpected_keys, error_msgs)

    outer = T.nn.Module()
    outer.lin = Renamed(2, 2)
    old = OrderedDict([("lin.w", T.ones(2, 2)), ("lin.bias", T.ones(2, 1))])
    old._metadata = {"lin": {"version": 1}}
    log = []
    outer.lin.register_load_state_dict_pre_hook(
        lambda mod, sd, prefix, md, strict, missing, unexpected, errs: log.append(("pre", prefix, sorted(sd))))
    outer.register_load_state_dict_post_hook(
        lambda mod, keys: log.append(("post", list(keys.missing_keys), list(keys.unexpected_keys))))
    outer.load_state_dict(old)
    assert (A(outer.lin.weight) == 1).all()
    assert log == [("pre", "lin.", ["lin.bias", "lin.weight"]), ("post", [], [])]  # pre-hook runs in super()
    assert list(old) == ["lin.w", "lin.bias"]  # the caller's dict is not modified


def test_load_state_dict_post_hook_can_clear_errors(T, C):
    m = C.Lin(2, 2)

    def forgive(mod, keys):
        keys.missing_keys.clear()
        keys.unexpected_keys.clear()

    m.register_load_state_dict_post_hook(forgive)
    assert repr(m.load_state_dict({"junk": T.zeros(1)})) == "<All keys matched successfully>"
    m2 = C.Lin(2, 2)
    m2.register_load_state_dict_post_hook(lambda mod, keys: 1)
    with pytest.raises(AssertionError, match="register_load_state_dict_post_hook"):
        m2.load_state_dict(m2.state_dict())


# ============================================================================ apply, to, dtypes
def test_apply_visits_children_first(T, C):
    m = C.Net()
    seen = []
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
    assert seen == ["Lin", "Act", "Lin", "Net"]


def test_float_conversions_keep_identity_and_int_buffers(T, C):
    m = fresh(T, C)
    w = m.fc1.weight
    out = m.fc1(T.ones(3, 4))
    out.backward(T.ones_like(out))
    g = w.grad
    assert m.double() is m
    assert m.fc1.weight is w and w.dtype == T.float64 and type(w) is T.nn.Parameter and w.requires_grad
    assert w.grad is g and g.dtype == T.float64
    assert m.steps.dtype == T.int64 and m.running.dtype == T.float64 and m.scratch.dtype == T.float64
    m.half()
    assert w.dtype == T.float16 and m.steps.dtype == T.int64
    m.bfloat16()
    assert w.dtype == T.bfloat16
    m.float()
    assert w.dtype == T.float32 and g.dtype == T.float32 and m.fc1.weight is w


def test_to_variants(T, C):
    m = fresh(T, C)
    w = m.fc1.weight
    assert m.to(T.float64) is m and w.dtype == T.float64 and m.fc1.weight is w
    m.to(T.zeros(1, dtype=T.float32))
    assert w.dtype == T.float32
    m.to("cpu", T.float64)
    assert w.dtype == T.float64
    m.to(device="cpu", dtype=T.float32, non_blocking=True)
    m.to(T.device("cpu"))
    assert w.dtype == T.float32 and m.steps.dtype == T.int64
    with pytest.raises(TypeError) as ei:
        m.to(T.int64)
    assert str(ei.value) == ("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                             "dtype=torch.int64")
    assert m.cpu() is m
    m.type(T.float64)  # type() casts integer tensors too
    assert m.steps.dtype == T.float64 and w.dtype == T.float64


# ============================================================================ modes and gradients
def test_train_eval(T, C):
    m = C.Net()
    assert m.eval() is m and not m.training and not m.fc1.training and not m.act.training
    assert m.train() is m and all(mod.training for mod in m.modules())
    m.fc1.train(False)
    assert m.training and not m.fc1.training
    with pytest.raises(ValueError, match="^training mode is expected to be boolean$"):
        m.train("yes")


def test_requires_grad_and_zero_grad(T, C):
    m = fresh(T, C)
    assert m.requires_grad_(False) is m and not any(p.requires_grad for p in m.parameters())
    m.requires_grad_()
    out = m(T.ones(3, 4))
    out.backward(T.ones_like(out))
    g = m.fc1.weight.grad
    assert g is not None and m.fc2.weight.grad is None  # fc2 is not used in forward
    m.zero_grad(set_to_none=False)
    assert m.fc1.weight.grad is g and not A(g).any()
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


# ============================================================================ repr
def test_repr_nested(T, C):
    m = C.Net()
    expected = ("Net(\n"
                "  (fc1): Lin(in=4, out=3)\n"
                "  (act): Act()\n"
                "  (fc2): Lin(in=3, out=2)\n"
                ")")
    assert repr(m) == expected
    outer = T.nn.Sequential(m, T.nn.Module())
    assert repr(outer) == ("Sequential(\n"
                           "  (0): Net(\n"
                           "    (fc1): Lin(in=4, out=3)\n"
                           "    (act): Act()\n"
                           "    (fc2): Lin(in=3, out=2)\n"
                           "  )\n"
                           "  (1): Module()\n"
                           ")")


def test_repr_multiline_extra_and_none_child(T):
    class Multi(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.child = T.nn.Module()
            self.gone = None
            self.add_module("empty", None)

        def extra_repr(self):
            return "a=1\n\nb=2"

    assert repr(Multi()) == "Multi(\n  a=1\n  \n  b=2\n  (child): Module()\n  (empty): None\n)"

    class OneLine(T.nn.Module):
        def extra_repr(self):
            return "x=1"

    assert repr(OneLine()) == "OneLine(x=1)" and str(T.nn.Module()) == "Module()"


# ============================================================================ copy and pickle
def test_deepcopy(T, C):
    m = C.Tied()
    m.eval()
    calls = []
    m.a.register_forward_hook(lambda mod, args, out: calls.append(mod))
    c = copy.deepcopy(m)
    assert c is not m and not c.training and not c.a.training
    assert c.b.weight is c.a.weight and c.shared is c.a  # ties survive the copy
    assert type(c.a.weight) is T.nn.Parameter and c.a.weight is not m.a.weight
    np.testing.assert_array_equal(A(c.a.weight), A(m.a.weight))
    with T.no_grad():
        c.a.weight.zero_()
    assert A(m.a.weight).any()
    c.a(T.ones(2, 2))
    assert calls == [c.a]  # hooks are copied with the module, as in PyTorch


def _hook_counter(module, args, output):
    module.hits = getattr(module, "hits", 0) + 1


def test_pickle_round_trip(T, C):
    m = fresh(T, C)
    m.eval()
    m.fc1.register_forward_hook(_hook_counter)
    r = pickle.loads(pickle.dumps(m))
    assert type(r) is type(m) and not r.training
    assert list(r.state_dict()) == list(m.state_dict())
    for (k, v), (k2, v2) in zip(m.state_dict().items(), r.state_dict().items()):
        assert k == k2 and v.dtype == v2.dtype
        np.testing.assert_array_equal(A(v), A(v2))
    assert type(r.fc1.weight) is T.nn.Parameter and r.fc1.weight.requires_grad
    assert r._non_persistent_buffers_set == {"scratch"}
    r.fc1(T.ones(3, 4))
    assert r.fc1.hits == 1
    t = pickle.loads(pickle.dumps(C.Tied()))
    assert t.b.weight is t.a.weight and t.shared is t.a


def test_getstate_setstate_fill_missing_tables(T, C):
    m = C.Lin(2, 2)
    state = m.__getstate__()
    assert state is not m.__dict__ and state["_parameters"] is m._parameters
    del state["_forward_hooks_always_called"], state["_load_state_dict_post_hooks"]
    n = C.Lin.__new__(C.Lin)
    n.__setstate__(state)
    assert n._forward_hooks_always_called == OrderedDict() and n._load_state_dict_post_hooks == OrderedDict()
    n(T.ones(2, 2))


def test_cuda_without_backend_is_a_clear_error():
    """numtorch only (the reference build may or may not have CUDA): a RuntimeError naming the device."""
    m = CLASSES["numtorch"].Net()
    for move in (lambda: m.cuda(), lambda: m.to("cuda"), lambda: m.to(numtorch.device("cuda", 0))):
        with pytest.raises(RuntimeError, match="no cuda backend"):
            move()
    assert m.fc1.weight.dtype == numtorch.float32
    empty = numtorch.nn.Module()
    assert empty.cuda() is empty  # nothing to move: fine, as in PyTorch


def test_real_layers_match_pytorch_through_state_dict():
    """Differential check with real layers: same repr, same keys, same outputs after loading torch's weights."""
    nt_model = numtorch.nn.Sequential(numtorch.nn.Linear(4, 3), numtorch.nn.ReLU(), numtorch.nn.Linear(3, 2))
    ref_model = ref.nn.Sequential(ref.nn.Linear(4, 3), ref.nn.ReLU(), ref.nn.Linear(3, 2))
    assert repr(nt_model) == repr(ref_model)
    assert list(nt_model.state_dict()) == list(ref_model.state_dict())
    weights = [nt_model[0].weight, nt_model[2].bias]
    nt_model.load_state_dict({k: numtorch.tensor(v.numpy()) for k, v in ref_model.state_dict().items()})
    assert nt_model[0].weight is weights[0] and nt_model[2].bias is weights[1]  # loaded in place
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(A(nt_model(numtorch.tensor(x))), A(ref_model(ref.tensor(x))), rtol=1e-5, atol=1e-6)
    back = ref.nn.Sequential(ref.nn.Linear(4, 3), ref.nn.ReLU(), ref.nn.Linear(3, 2))
    back.load_state_dict({k: ref.tensor(v.numpy()) for k, v in nt_model.state_dict().items()})
    np.testing.assert_allclose(A(back(ref.tensor(x))), A(ref_model(ref.tensor(x))), rtol=0, atol=0)
