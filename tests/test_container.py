"""Containers (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict), each test body
run on numtorch AND on PyTorch (fixture ``T``): indexing and its errors, slicing, mutation and
renumbering, state_dict keys, repr (ModuleList's collapsing of repeated children), copies."""
import copy
import pickle
from collections import OrderedDict

import pytest
import torch as ref

import numtorch
import numtorch.nn  # noqa: F401

BACKENDS = {"numtorch": numtorch, "torch": ref}
KINDS = {}


def _define(T, tag):
    class Mul(T.nn.Module):
        """``x * k`` with a learnable ``k`` of the given shape."""

        def __init__(self, k=2.0, n=1):
            super().__init__()
            self.k = T.nn.Parameter(T.full((n,), float(k)))

        def forward(self, x):
            return x * self.k

        def extra_repr(self):
            return f"n={self.k.shape[0]}"

    Mul.__qualname__ = f"Mul_{tag}"
    globals()[Mul.__qualname__] = Mul
    return Mul


for _tag, _T in BACKENDS.items():
    KINDS[_tag] = _define(_T, _tag)


@pytest.fixture(params=list(BACKENDS))
def backend(request):
    return request.param


@pytest.fixture
def T(backend):
    return BACKENDS[backend]


@pytest.fixture
def Mul(backend):
    return KINDS[backend]


def A(t):
    return t.detach().numpy()


def ks(container):
    return [A(m.k).tolist()[0] for m in container]


# ============================================================================ Sequential
def test_sequential_forward_and_keys(T, Mul):
    seq = T.nn.Sequential(Mul(2), Mul(3), Mul(5))
    assert A(seq(T.ones(1))).tolist() == [30.0]
    assert list(seq.state_dict()) == ["0.k", "1.k", "2.k"] and len(seq) == 3
    named = T.nn.Sequential(OrderedDict([("first", Mul(2)), ("second", Mul(7))]))
    assert list(named.state_dict()) == ["first.k", "second.k"] and named.second is named[1]
    assert A(named(T.ones(1))).tolist() == [14.0]
    assert A(T.nn.Sequential()(T.ones(1))).tolist() == [1.0]  # empty: identity


def test_sequential_indexing(T, Mul):
    a, b, c = Mul(1), Mul(2), Mul(3)
    seq = T.nn.Sequential(a, b, c)
    assert seq[0] is a and seq[-1] is c and seq[-3] is a
    for bad in (3, -4, 5):
        with pytest.raises(IndexError) as ei:
            seq[bad]
        assert str(ei.value) == f"index {bad} is out of range"
    sl = seq[1:]
    assert type(sl) is T.nn.Sequential and list(sl) == [b, c] and list(sl._modules) == ["1", "2"]
    assert list(seq[::-1]) == [c, b, a]
    d = Mul(4)
    seq[-1] = d
    assert seq[2] is d and list(seq._modules) == ["0", "1", "2"]
    with pytest.raises(IndexError):
        seq[7] = d
    with pytest.raises(TypeError):
        seq["0"]


def test_sequential_mutation_and_renumbering(T, Mul):
    m = [Mul(i) for i in range(6)]
    seq = T.nn.Sequential(*m[:3])
    del seq[0]
    assert list(seq._modules) == ["0", "1"] and list(seq) == [m[1], m[2]]
    assert seq.append(m[3]) is seq and list(seq._modules) == ["0", "1", "2"]
    seq.insert(0, m[0])
    seq.insert(-1, m[4])
    assert list(seq) == [m[0], m[1], m[2], m[4], m[3]]
    with pytest.raises(IndexError, match="^Index out of range: 9$"):
        seq.insert(9, m[5])
    assert seq.pop(1) is m[1] and list(seq) == [m[0], m[2], m[4], m[3]]
    del seq[1:3]
    assert list(seq) == [m[0], m[3]] and list(seq._modules) == ["0", "1"]
    seq.extend([m[5]])
    assert list(seq) == [m[0], m[3], m[5]]
    assert list(seq.state_dict()) == ["0.k", "1.k", "2.k"]


def test_sequential_operators(T, Mul):
    a, b = Mul(2), Mul(3)
    s1, s2 = T.nn.Sequential(a), T.nn.Sequential(b)
    s3 = s1 + s2
    assert list(s3) == [a, b] and list(s1) == [a]
    with pytest.raises(ValueError) as ei:
        s1 + 3
    assert str(ei.value) == "add operator supports only objects of Sequential class, but <class 'int'> is given."
    s1 += s2
    assert list(s1) == [a, b]
    rep = s2 * 3
    assert list(rep) == [b, b, b] and list(rep._modules) == ["0", "1", "2"]
    assert list(2 * s2) == [b, b]
    with pytest.raises(ValueError, match="^Non-positive multiplication factor 0 for"):
        s2 * 0
    with pytest.raises(TypeError, match="^unsupported operand type"):
        s2 * 1.5
    s2 *= 2
    assert list(s2) == [b, b]
    assert [n for n, _ in s2.named_parameters()] == ["0.k"]  # the same module twice: one parameter


def test_sequential_dir_and_repr(T, Mul):
    seq = T.nn.Sequential(Mul(1), Mul(1), Mul(1, n=2))
    assert "0" not in dir(seq) and "append" in dir(seq)
    # Sequential does not collapse repeated children (only ModuleList does)
    assert repr(seq) == "Sequential(\n  (0): Mul(n=1)\n  (1): Mul(n=1)\n  (2): Mul(n=2)\n)"


# ============================================================================ ModuleList
def test_module_list(T, Mul):
    m = [Mul(i) for i in range(5)]
    ml = T.nn.ModuleList(m[:3])
    assert len(ml) == 3 and list(ml) == m[:3] and ml[-1] is m[2]
    with pytest.raises(IndexError) as ei:
        ml[3]
    assert str(ei.value) == "index 3 is out of range"
    assert type(ml[1:]) is T.nn.ModuleList and list(ml[1:]) == m[1:3]
    ml.append(m[3])
    ml.extend([m[4]])
    ml.insert(1, Mul(9))
    assert ks(ml) == [0.0, 9.0, 1.0, 2.0, 3.0, 4.0]
    del ml[1]
    assert list(ml._modules) == [str(i) for i in range(5)] and list(ml) == m
    ml[0] = Mul(8)
    assert ks(ml)[0] == 8.0
    assert ml.pop(-1) is m[4] and len(ml) == 4
    del ml[::2]
    assert list(ml) == [m[1], m[3]]
    ml += [m[0]]
    both = ml + T.nn.ModuleList([m[2]])
    assert type(both) is T.nn.ModuleList and list(both) == [m[1], m[3], m[0], m[2]]
    with pytest.raises(TypeError) as ei:
        ml.extend(3)
    assert str(ei.value) == "ModuleList.extend should be called with an iterable, but got int"
    assert "0" not in dir(ml)
    with pytest.raises(NotImplementedError, match='Module \\[ModuleList\\] is missing the required "forward"'):
        ml(T.ones(1))


def test_module_list_state_dict_keys(T, Mul):
    class Net(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = T.nn.ModuleList([Mul(1), T.nn.ModuleList([Mul(2)]), Mul(3)])

    assert list(Net().state_dict()) == ["layers.0.k", "layers.1.0.k", "layers.2.k"]


def test_module_list_repr_collapses_repeats(T, Mul):
    ml = T.nn.ModuleList([Mul(1), Mul(5), Mul(1), Mul(1, n=3), T.nn.Sequential(Mul(1)), T.nn.Sequential(Mul(2))])
    assert repr(ml) == ("ModuleList(\n"
                        "  (0-2): 3 x Mul(n=1)\n"
                        "  (3): Mul(n=3)\n"
                        "  (4-5): 2 x Sequential(\n"
                        "    (0): Mul(n=1)\n"
                        "  )\n"
                        ")")
    assert repr(T.nn.ModuleList()) == "ModuleList()"
    assert repr(T.nn.ModuleList([Mul(1)])) == "ModuleList(\n  (0): Mul(n=1)\n)"


# ============================================================================ ModuleDict
def test_module_dict(T, Mul):
    a, b, c = Mul(1), Mul(2), Mul(3)
    md = T.nn.ModuleDict({"b": b, "a": a})
    assert list(md) == ["b", "a"] and list(md.keys()) == ["b", "a"]  # insertion order, not sorted
    assert md["a"] is a and "a" in md and "z" not in md and len(md) == 2
    with pytest.raises(KeyError):
        md["z"]
    md["c"] = c
    md.update([("d", Mul(4)), ("a", Mul(5))])
    md.update(OrderedDict(e=Mul(6)))
    assert list(md) == ["b", "a", "c", "d", "e"] and ks(md.values()) == [2.0, 5.0, 3.0, 4.0, 6.0]
    assert [k for k, _ in md.items()] == list(md)
    assert md.pop("c") is c and "c" not in md
    del md["b"]
    assert list(md.state_dict()) == ["a.k", "d.k", "e.k"]
    md.clear()
    assert len(md) == 0 and list(md.parameters()) == []
    with pytest.raises(TypeError, match="^ModuleDict.update should be called with an iterable of key/value pairs, "
                                        "but got int$"):
        md.update(3)
    with pytest.raises(ValueError, match="^ModuleDict update sequence element #0 has length 1; 2 is required$"):
        md.update([("a",)])
    with pytest.raises(TypeError, match="^ModuleDict update sequence element #0 should be Iterable; isint$"):
        md.update([3])
    with pytest.raises(KeyError):
        md["bad.key"] = Mul(1)


# ============================================================================ ParameterList / ParameterDict
def test_parameter_list(T):
    p0 = T.nn.Parameter(T.ones(2))
    pl = T.nn.ParameterList([p0, T.zeros(3), "note"])
    assert len(pl) == 3 and pl[0] is p0 and type(pl[1]) is T.nn.Parameter and pl[1].requires_grad
    assert pl[2] == "note" and pl[-3] is p0
    with pytest.raises(IndexError, match="^index 3 is out of range$"):
        pl[3]
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"] and list(pl.state_dict()) == ["0", "1"]
    pl.append(T.ones(1, 2))
    pl[2] = T.ones(4)
    assert type(pl[2]) is T.nn.Parameter and len(list(pl.parameters())) == 4
    sl = pl[1:3]
    assert type(sl) is T.nn.ParameterList and sl[0] is pl[1] and len(sl) == 2
    pl += [T.ones(1)]
    assert len(pl) == 5 and len(list(iter(pl))) == 5
    with pytest.raises(TypeError, match="^ParameterList.extend should be called with an iterable, but got Tensor$"):
        pl.extend(T.ones(2))
    with pytest.raises(RuntimeError, match="^ParameterList should not be called.$"):
        pl(T.ones(1))
    assert repr(T.nn.ParameterList([T.ones(2, 3), T.nn.Parameter(T.ones(1, dtype=T.float64)), 3])) == (
        "ParameterList(\n"
        "    (0): Parameter containing: [torch.float32 of size 2x3]\n"
        "    (1): Parameter containing: [torch.float64 of size 1]\n"
        "    (2): Object of type: int\n"
        ")")


def test_parameter_dict(T):
    pd = T.nn.ParameterDict({"z": T.ones(1), "c": T.nn.Parameter(T.ones(2, 3, dtype=T.float64))})
    assert list(pd) == ["c", "z"]  # a plain dict is inserted in sorted key order, as PyTorch does
    assert type(pd["z"]) is T.nn.Parameter and "c" in pd and len(pd) == 2
    pd.update(OrderedDict([("y", T.ones(1)), ("b", T.ones(1))]))
    pd.update([("a", T.ones(1))])
    assert list(pd.keys()) == ["c", "z", "y", "b", "a"]
    assert list(pd.state_dict()) == ["c", "z", "y", "b", "a"]
    assert pd.get("missing") is None and pd.get("missing", 5) == 5
    with pytest.raises(AttributeError):  # PyTorch looks keys up as attributes
        pd["missing"]
    with pytest.raises(TypeError, match="^Index given to ParameterDict cannot be used as a key as it is not a string "
                                        r"\(type is 'int'\)"):
        pd[3]
    assert pd.pop("y") is not None and "y" not in pd
    k, v = pd.popitem()
    assert k == "a" and type(v) is T.nn.Parameter
    assert pd.setdefault("n", T.ones(1)) is pd["n"]
    cp = pd.copy()
    assert list(cp) == list(pd) and cp["z"] is pd["z"]
    merged = pd | T.nn.ParameterDict(OrderedDict(extra=T.ones(1)))
    assert list(merged)[-1] == "extra" and "extra" not in pd
    pd["note"] = "text"
    assert pd["note"] == "text" and [n for n, _ in pd.named_parameters()] == ["c", "z", "b", "n"]
    assert list(pd.values())[-1] == "text" and [k for k, _ in pd.items()] == list(pd)
    assert list(reversed(pd))[0] == "note"
    with pytest.raises(RuntimeError, match="^ParameterDict should not be called.$"):
        pd(T.ones(1))
    small = T.nn.ParameterDict(OrderedDict([("w", T.ones(2, 3)), ("d", T.ones(1, dtype=T.float64)), ("s", 1)]))
    assert repr(small) == ("ParameterDict(\n"
                           "    (w): Parameter containing: [torch.FloatTensor of size 2x3]\n"
                           "    (d): Parameter containing: [torch.DoubleTensor of size 1]\n"
                           "    (s): Object of type: int\n"
                           ")")
    pd.clear()
    assert len(pd) == 0 and list(pd.parameters()) == []
    assert list(T.nn.ParameterDict().fromkeys(["a", "b"])) == ["a", "b"]


# ============================================================================ nesting, copies
def test_nested_containers_state_dict_and_load(T, Mul):
    def build():
        return T.nn.Sequential(OrderedDict([
            ("features", T.nn.Sequential(Mul(1), Mul(2))),
            ("heads", T.nn.ModuleDict({"a": Mul(3)})),
            ("extras", T.nn.ParameterList([T.ones(2)])),
        ]))

    src, dst = build(), build()
    assert list(src.state_dict()) == ["features.0.k", "features.1.k", "heads.a.k", "extras.0"]
    with T.no_grad():
        src.features[1].k.fill_(42)
    dst.load_state_dict(src.state_dict())
    assert A(dst.features[1].k).tolist() == [42.0]


def test_container_copies(T, Mul):
    seq = T.nn.Sequential(Mul(2), T.nn.ModuleList([Mul(3)]), T.nn.ParameterList([T.ones(1)]))
    for clone in (copy.deepcopy(seq), pickle.loads(pickle.dumps(seq))):
        assert type(clone[1]) is T.nn.ModuleList and type(clone[2]) is T.nn.ParameterList
        assert list(clone.state_dict()) == ["0.k", "1.0.k", "2.0"]
        assert clone[0].k is not seq[0].k and A(clone[1][0].k).tolist() == [3.0]
        assert len(clone[2]) == 1 and type(clone[2][0]) is T.nn.Parameter
