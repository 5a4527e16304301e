"""nn.utils.parametrize and nn.utils.parametrizations against torch: registration, the swapped class,
state_dict keys, values and gradients through the parametrization, assignment through right_inverse,
caching, removal, chaining, errors; weight_norm, spectral_norm and orthogonal step by step."""
import copy
import pickle

import numpy as np
import pytest
import torch as ref

import numtorch as nt


def _np(t):
    return t.detach().numpy()


def _sym(T):
    class Symmetric(T.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()
    return Symmetric()


def _scale(T):
    class Scale(T.nn.Module):  # no right_inverse
        def forward(self, X):
            return 2 * X
    return Scale()


def _pair(make):
    out = []
    for T in (nt, ref):
        T.manual_seed(0)
        out.append(make(T))
    return out


def test_register_matches_torch():
    def make(T):
        m = T.nn.Linear(4, 4)
        T.nn.utils.parametrize.register_parametrization(m, "weight", _sym(T))
        return m
    a, b = _pair(make)
    assert type(a).__name__ == type(b).__name__ == "ParametrizedLinear"
    assert isinstance(a, nt.nn.Linear) and nt.nn.utils.parametrize.type_before_parametrizations(a) is nt.nn.Linear
    assert list(a.state_dict()) == list(b.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in a.named_parameters()] == [n for n, _ in b.named_parameters()]
    assert repr(a) == repr(b).replace("torch", "numtorch") or repr(a).splitlines()[0] == repr(b).splitlines()[0]
    np.testing.assert_allclose(_np(a.weight), _np(b.weight), rtol=1e-6)
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    ya, yb = a(nt.tensor(x)), b(ref.tensor(x))
    ya.square().sum().backward()
    yb.square().sum().backward()
    np.testing.assert_allclose(_np(ya), _np(yb), rtol=1e-5, atol=1e-6)
    ga, gb = a.parametrizations.weight.original.grad, b.parametrizations.weight.original.grad
    np.testing.assert_allclose(_np(ga), _np(gb), rtol=1e-5, atol=1e-6)
    assert nt.nn.utils.parametrize.is_parametrized(a) and nt.nn.utils.parametrize.is_parametrized(a, "weight")
    assert not nt.nn.utils.parametrize.is_parametrized(a, "bias")


def test_assignment_cached_and_removal_match_torch():
    def make(T):
        m = T.nn.Linear(3, 3)
        P = T.nn.utils.parametrize
        P.register_parametrization(m, "weight", _sym(T))
        orig = m.parametrizations.weight.original
        m.weight = T.arange(9.0).reshape(3, 3)  # runs right_inverse, writes into the same Parameter
        assert m.parametrizations.weight.original is orig
        with P.cached():
            w1, w2 = m.weight, m.weight
            assert w1 is w2
        assert m.weight is not m.weight
        before = m.weight.detach().clone()
        P.remove_parametrizations(m, "weight")
        assert type(m) is T.nn.Linear and not hasattr(m, "parametrizations")
        assert isinstance(m.weight, T.nn.Parameter)
        return m, before
    (a, wa), (b, wb) = _pair(make)
    np.testing.assert_array_equal(_np(wa), _np(wb))
    np.testing.assert_array_equal(_np(a.weight), _np(b.weight))
    assert list(a.state_dict()) == list(b.state_dict())


def test_remove_leave_parametrized_false_and_chain():
    def make(T):
        m = T.nn.Linear(3, 3)
        P = T.nn.utils.parametrize
        P.register_parametrization(m, "weight", _sym(T))
        P.register_parametrization(m, "weight", _scale(T))  # chained: scale(sym(original))
        w = m.weight.detach().clone()
        assert len(m.parametrizations.weight) == 2
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
        return w, m.weight.detach().clone()
    (wa, oa), (wb, ob) = _pair(make)
    np.testing.assert_allclose(_np(wa), _np(wb), rtol=1e-6)
    np.testing.assert_allclose(_np(oa), _np(ob), rtol=1e-6)


def test_buffer_and_state_dict_round_trip_with_torch():
    def make(T):
        m = T.nn.BatchNorm1d(3)
        T.nn.utils.parametrize.register_parametrization(m, "running_var", _scale(T))
        return m
    a, b = _pair(make)
    assert list(a.state_dict()) == list(b.state_dict())
    b.load_state_dict({k: ref.tensor(_np(v)) for k, v in a.state_dict().items()})
    a.load_state_dict({k: nt.tensor(_np(v)) for k, v in b.state_dict().items()})
    np.testing.assert_array_equal(_np(a.running_var), _np(b.running_var))


@pytest.mark.parametrize("case", ["no_tensor", "bad_dtype", "bad_shape", "missing", "no_right_inverse",
                                  "remove_missing", "pickle"])
def test_errors_match_torch(case):
    kinds = []
    for T in (nt, ref):
        P = T.nn.utils.parametrize
        m = T.nn.Linear(3, 3)

        class NoTensor(T.nn.Module):
            def forward(self, X):
                return 1.0

        class ToDouble(T.nn.Module):
            def forward(self, X):
                return X.double()

        class Flat(T.nn.Module):
            def forward(self, X):
                return X.flatten()
        try:
            if case == "no_tensor":
                P.register_parametrization(m, "weight", NoTensor())
            elif case == "bad_dtype":
                P.register_parametrization(m, "weight", ToDouble())
            elif case == "bad_shape":
                P.register_parametrization(m, "weight", Flat())
            elif case == "missing":
                P.register_parametrization(m, "nope", _scale(T))
            elif case == "no_right_inverse":
                P.register_parametrization(m, "weight", _scale(T))
                m.weight = T.zeros(3, 3)
            elif case == "remove_missing":
                P.remove_parametrizations(m, "weight")
            else:
                P.register_parametrization(m, "weight", _scale(T))
                pickle.dumps(m)
            kinds.append(None)
        except Exception as e:  # noqa: BLE001 - the exception type is what is compared
            kinds.append(type(e))
    assert kinds[0] is kinds[1] and kinds[0] is not None


def _shape_dtype_parametrizations(T):
    class Shrink(T.nn.Module):
        def forward(self, X):
            return X[0]

    class ToDouble(T.nn.Module):
        def forward(self, X):
            return X.double()

    class InvShrink(T.nn.Module):
        def forward(self, X):
            return X

        def right_inverse(self, X):
            return X[0]

    class InvDouble(InvShrink):
        def right_inverse(self, X):
            return X.double()
    return [Shrink, ToDouble, InvShrink, InvDouble]


@pytest.mark.parametrize("already", [False, True])
@pytest.mark.parametrize("which", range(4))
def test_dtype_and_shape_messages_match_torch(already, which):
    msgs = []
    for T in (nt, ref):
        m = T.nn.Linear(3, 3)
        if already:
            T.nn.utils.parametrize.register_parametrization(m, "weight", _scale(T))
        with pytest.raises(ValueError) as e:
            T.nn.utils.parametrize.register_parametrization(m, "weight", _shape_dtype_parametrizations(T)[which]())
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_assigning_checks_dtype_even_unsafe_and_takes_a_new_shape_as_torch():
    out = []
    for T in (nt, ref):
        ident = _shape_dtype_parametrizations(T)[2]  # any forward with a right_inverse; set its inverse to identity
        ident.right_inverse = lambda self, X: X
        m = T.nn.utils.parametrize.register_parametrization(T.nn.Linear(3, 3), "weight", ident(), unsafe=True)
        with pytest.raises(ValueError) as e, T.no_grad():
            m.weight = T.ones(3, 3, dtype=T.float64)
        with T.no_grad():
            m.weight = T.ones(4, 4)
        out.append((str(e.value), tuple(m.parametrizations.weight.original.shape)))
    assert out[0] == out[1]


def test_deepcopy_and_transfer():
    m = nt.nn.Linear(3, 3)
    nt.nn.utils.parametrize.register_parametrization(m, "weight", _sym(nt))
    c = copy.deepcopy(m)
    assert type(c).__name__ == "ParametrizedLinear"
    np.testing.assert_array_equal(_np(c.weight), _np(m.weight))
    c.parametrizations.weight.original.data.fill_(0)
    assert float(m.weight.abs().sum()) > 0  # independent copies
    other = nt.nn.Linear(3, 3)
    nt.nn.utils.parametrize.transfer_parametrizations_and_params(m, other)
    np.testing.assert_array_equal(_np(other.weight), _np(m.weight))


# ---------------------------------------------------------------------------------------------- parametrizations
def _train(T, model, steps=3):
    opt = T.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(1)
    for _ in range(steps):
        x = T.tensor(rng.standard_normal((5, model.in_features)).astype(np.float32))
        opt.zero_grad()
        loss = model(x).square().mean()
        loss.backward()
        opt.step()
    return model


@pytest.mark.parametrize("make", [
    lambda T: T.nn.utils.parametrizations.weight_norm(T.nn.Linear(4, 3)),
    lambda T: T.nn.utils.parametrizations.weight_norm(T.nn.Linear(4, 3), dim=None),
    lambda T: T.nn.utils.parametrizations.weight_norm(T.nn.Linear(4, 3), dim=1),
    lambda T: T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(4, 3)),
    lambda T: T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(4, 3), n_power_iterations=3, dim=1),
    lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(4, 4)),
    lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(4, 3)),
    lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 5), orthogonal_map="cayley"),
    lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(4, 4), orthogonal_map="householder"),
    lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(5, 3), use_trivialization=False),
    lambda T: T.nn.utils.weight_norm(T.nn.Linear(4, 3)),
    lambda T: T.nn.utils.spectral_norm(T.nn.Linear(4, 3)),
    lambda T: T.nn.utils.spectral_norm(T.nn.Linear(4, 3), n_power_iterations=2),
], ids=["wn", "wn_none", "wn_dim1", "sn", "sn_iters_dim1", "orth_exp", "orth_tall", "orth_cayley", "orth_house",
        "orth_notriv", "old_wn", "old_sn", "old_sn2"])
@pytest.mark.filterwarnings("ignore:`torch.nn.utils.weight_norm` is deprecated:FutureWarning")
def test_parametrizations_train_like_torch(make):
    a, b = _pair(lambda T: _train(T, make(T)))
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for k in sa:
        np.testing.assert_allclose(_np(sa[k]), _np(sb[k]), rtol=1e-4, atol=1e-5, err_msg=k)
    np.testing.assert_allclose(_np(a.weight), _np(b.weight), rtol=1e-4, atol=1e-5)
    a.eval(), b.eval()
    x = np.ones((2, a.in_features), np.float32)
    np.testing.assert_allclose(_np(a(nt.tensor(x))), _np(b(ref.tensor(x))), rtol=1e-4, atol=1e-5)


def test_orthogonal_stays_orthogonal_and_assignable():
    m = nt.nn.utils.parametrizations.orthogonal(nt.nn.Linear(5, 5))
    _train(nt, m, steps=5)
    w = m.weight
    np.testing.assert_allclose(_np(w.T @ w), np.eye(5), atol=1e-5)
    q = nt.linalg.qr(nt.randn(5, 5))[0]
    m.weight = q
    np.testing.assert_allclose(_np(m.weight), _np(q), atol=1e-5)


def test_old_weight_norm_warns_removes_and_loads_into_new():
    with pytest.warns(FutureWarning, match="`torch.nn.utils.weight_norm` is deprecated in favor of"):
        m = nt.nn.utils.weight_norm(nt.nn.Linear(3, 2))
    assert list(m.state_dict()) == ["bias", "weight_g", "weight_v"]
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"):
        nt.nn.utils.weight_norm(m)
    new = nt.nn.utils.parametrizations.weight_norm(nt.nn.Linear(3, 2))
    new.load_state_dict(m.state_dict())  # the old keys are renamed on load
    np.testing.assert_allclose(_np(new.weight), _np(m.weight), rtol=1e-6)
    w = m.weight.detach().clone()
    nt.nn.utils.remove_weight_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(_np(m.weight), _np(w), rtol=1e-6)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        nt.nn.utils.remove_weight_norm(m)


def test_old_spectral_norm_remove_and_errors():
    for T in (nt, ref):
        T.manual_seed(0)
        m = T.nn.utils.spectral_norm(T.nn.ConvTranspose2d(2, 3, 3))
        assert list(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
        assert tuple(m.weight_u.shape) == (3,)  # dim=1 for ConvTranspose
        with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
            T.nn.utils.spectral_norm(m)
        T.nn.utils.remove_spectral_norm(m)
        assert list(m.state_dict()) == ["weight", "bias"] or list(m.state_dict()) == ["bias", "weight"]
        with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
            T.nn.utils.remove_spectral_norm(m)
        with pytest.raises(ValueError, match="Expected n_power_iterations to be positive"):
            T.nn.utils.parametrizations.spectral_norm(T.nn.Linear(2, 2), n_power_iterations=0)
        with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
            T.nn.utils.parametrizations.orthogonal(T.nn.Linear(2, 2), orthogonal_map="qr")
        with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
            T.nn.utils.parametrizations.orthogonal(T.nn.Linear(2, 2), "bias")
