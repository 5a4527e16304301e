"""Op-level reliability, differential against PyTorch: what ops save for backward, index tensors
version-checked, construction warnings, and exception types/values on edge and invalid inputs."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import numtorch as nt
from numtorch.autograd.function import Unsaved


def _outcome(lib, fn):
    """``fn(lib)``'s result as comparable data, or its exception type."""
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e)
    if isinstance(r, (tuple, list)):
        return tuple(_data(x) for x in r)
    return _data(r)


def _data(r):
    if r is None:
        return None
    if isinstance(r, (torch.Tensor, nt.Tensor)):
        return (r.detach().numpy().copy(), str(r.dtype).replace("numtorch", "torch"), tuple(r.shape))
    return r


def _same(lib_fn):
    a, b = _outcome(torch, lib_fn), _outcome(nt, lib_fn)
    if isinstance(a, type) or isinstance(b, type):
        assert a is b or (isinstance(a, type) and isinstance(b, type) and a.__name__ == b.__name__), (a, b)
        return a
    assert type(a) is type(b), (a, b)
    if isinstance(a, tuple) and a and isinstance(a[0], tuple):
        for x, y in zip(a, b):
            _same_data(x, y)
    else:
        _same_data(a, b)
    return a


def _same_data(x, y):
    if isinstance(x, tuple) and len(x) == 3 and isinstance(x[0], np.ndarray):
        assert x[1:] == y[1:], (x[1:], y[1:])
        np.testing.assert_allclose(y[0], x[0], rtol=1e-5, atol=1e-6)
    else:
        assert x == y or (x is None and y is None), (x, y)


# ------------------------------------------------------------------------------------------------
# 6. an op saves (and version-checks) an input only when a gradient that reads it is needed
# ------------------------------------------------------------------------------------------------
def test_mul_does_not_save_input_whose_grad_is_not_needed():
    def f(lib):
        x = lib.ones(3, requires_grad=True)
        a = x * 1.5
        z = a * 2
        a.add_(1)
        z.sum().backward()
        return x.grad
    assert _same(f)[0].tolist() == [3, 3, 3]


_F = {
    "mul": (lambda L, a, b: a * b, [(3, 4), (4,)]),
    "div": (lambda L, a, b: a / b, [(3, 4), (4,)]),
    "mm": (lambda L, a, b: a @ b, [(3, 4), (4, 2)]),
    "mv": (lambda L, a, b: L.mv(a, b), [(3, 4), (4,)]),
    "dot": (lambda L, a, b: L.dot(a, b), [(4,), (4,)]),
    "bmm": (lambda L, a, b: L.bmm(a, b), [(2, 3, 4), (2, 4, 2)]),
    "matmul_b": (lambda L, a, b: L.matmul(a, b), [(2, 3, 4), (4, 2)]),
    "addmm": (lambda L, c, a, b: L.addmm(c, a, b), [(3, 2), (3, 4), (4, 2)]),
    "addcmul": (lambda L, c, a, b: L.addcmul(c, a, b, value=0.5), [(3, 4), (3, 4), (4,)]),
    "addcdiv": (lambda L, c, a, b: L.addcdiv(c, a, b, value=0.5), [(3, 4), (3, 4), (4,)]),
    "linear": (lambda L, x, w, b: L.nn.functional.linear(x, w, b), [(3, 4), (2, 4), (2,)]),
    "linear3d": (lambda L, x, w: L.nn.functional.linear(x, w), [(2, 3, 4), (2, 4)]),
    "outer": (lambda L, a, b: L.outer(a, b), [(3,), (4,)]),
    "kron": (lambda L, a, b: L.kron(a, b), [(2, 2), (2, 3)]),
    "where": (lambda L, a, b: L.where(a > 1, a, b), [(3, 4), (3, 4)]),
    "conv2d": (lambda L, x, w: L.nn.functional.conv2d(x, w), [(1, 2, 5, 5), (3, 2, 3, 3)]),
    "conv_t2d": (lambda L, x, w: L.nn.functional.conv_transpose2d(x, w), [(1, 2, 4, 4), (2, 3, 3, 3)]),
}


@pytest.mark.parametrize("name", sorted(_F))
def test_saved_inputs_follow_needed_gradients(name):
    """Each input alone requires grad; each input is then changed in place: PyTorch raises exactly when
    the changed input is read by the needed gradient; numtorch must agree, with the same gradient."""
    fn, shapes = _F[name]
    # (k, j) where PyTorch and numtorch differ by design, no wrong gradient either way:
    # torch's fused addcdiv keeps tensor2 even when only input needs grad (numtorch's composite doesn't);
    # torch's kron multiplies copies, numtorch's keeps views of its inputs and so version-checks them
    skip = {"addcdiv": {(0, 2)}, "kron": {(0, 1), (1, 0)}}.get(name, ())
    vals = [np.random.default_rng(i).uniform(0.5, 2, s).astype(np.float32) for i, s in enumerate(shapes)]
    for k in range(len(shapes)):
        for j in range(len(shapes)):
            if (k, j) in skip:
                continue

            def f(lib, k=k, j=j):
                leaves = [lib.tensor(v, requires_grad=i == k) for i, v in enumerate(vals)]
                ins = [t * 1 for t in leaves]
                out = fn(lib, *ins)
                with lib.no_grad():
                    ins[j].add_(1)
                out.sum().backward()
                return leaves[k].grad
            _same(f)


def test_create_graph_through_pruned_saves():
    def f(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        y = lib.tensor([3., 4.], requires_grad=True)
        g, = lib.autograd.grad((x * y * x).sum(), x, create_graph=True)
        return (g,) + lib.autograd.grad((g * g).sum(), (x, y))
    _same(f)

    def h(lib):  # only x requires grad: y's array is not kept, x's is
        x = lib.tensor([1., 2.], requires_grad=True)
        y = lib.tensor([3., 4.])
        g, = lib.autograd.grad((x * y * x).sum(), x, create_graph=True)
        return lib.autograd.grad(g.sum(), x)
    _same(h)


def test_pruned_mul_drops_array():
    x = nt.ones(3, requires_grad=True)
    y = nt.ones(3)
    z = x * y
    a, b = z.grad_fn.saved
    assert type(a) is Unsaved and a.shape == (3,) and a.strides == (0,) and b is y._data
    assert len(z.grad_fn._versions) == 1
    z = x * 2  # tensor * number keeps only the number
    assert z.grad_fn.saved == 2 and not z.grad_fn._versions and z.grad_fn.name() == "MulBackward0"


# ------------------------------------------------------------------------------------------------
# 8. an index Tensor an op keeps for backward is version-checked
# ------------------------------------------------------------------------------------------------
_IDX = {
    "gather": lambda L, x, i: L.gather(x, 1, i),
    "take_along_dim": lambda L, x, i: L.take_along_dim(x, i, 1),  # torch copies: no error, same grad
    "index_select": lambda L, x, i: L.index_select(x, 0, i[0]),
    "take": lambda L, x, i: L.take(x, i),
    "scatter": lambda L, x, i: L.scatter(x, 1, i, x[:, :2] * 1),
    "scatter_add": lambda L, x, i: L.scatter_add(x, 1, i, x[:, :2] * 1),
    "scatter_reduce": lambda L, x, i: L.scatter_reduce(x, 1, i, x[:, :2] * 1, "sum"),
    "index_add": lambda L, x, i: L.index_add(x, 0, i[0], x[:2] * 1),
    "index_copy": lambda L, x, i: L.index_copy(x, 0, i[0], x[:2] * 1),
    "index_fill": lambda L, x, i: x.index_fill(0, i[0], 1.0),
    "embedding": lambda L, x, i: L.nn.functional.embedding(i, x),
    "advanced_index": lambda L, x, i: x[i[0]],
    "index_put": lambda L, x, i: L.index_put(x, (i[0],), x[:2] * 1),
}


@pytest.mark.parametrize("name", sorted(_IDX))
def test_index_changed_in_place_raises(name):
    def f(lib):
        x = lib.tensor(np.arange(12.).reshape(3, 4), requires_grad=True)
        i = lib.tensor([[1, 0], [0, 1], [1, 1]])
        out = _IDX[name](lib, x, i)
        i.add_(1)
        out.sum().backward()
        return x.grad
    _same(f)


# ------------------------------------------------------------------------------------------------
# 9. construction warnings; writes into a read-only NumPy array's memory
# ------------------------------------------------------------------------------------------------
def _warnings(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [(x.category, str(x.message)[:60]) for x in w]


def test_tensor_of_tensor_warns_like_torch():
    want = _warnings(lambda: torch.tensor(torch.ones(2)))
    assert want and _warnings(lambda: nt.tensor(nt.ones(2))) == want
    assert _warnings(lambda: nt.tensor(np.ones(2))) == []


@pytest.mark.parametrize("make", ["from_numpy", "as_tensor", "asarray"])
def test_read_only_numpy_array(make):
    a = np.arange(4.)
    a.flags.writeable = False
    want = _warnings(lambda: torch.from_numpy(a))  # empty after torch's first warning in the process
    got = _warnings(lambda: getattr(nt, make)(a))
    assert got == [(UserWarning, "The given NumPy array is not writable, and PyTorch does not ")]
    assert not want or want == got
    t = getattr(nt, make)(a)
    writes = [lambda: t.add_(1), lambda: t.mul_(2), lambda: t.__setitem__(0, 5), lambda: t.zero_(),
              lambda: t.fill_(2), lambda: t.copy_(nt.zeros(4, dtype=t.dtype)), lambda: nt.add(t, 1, out=t),
              lambda: t.index_put_((nt.tensor([0]),), nt.tensor(1.0, dtype=t.dtype))]
    for w in writes:
        with pytest.raises(RuntimeError, match="read-only NumPy array"):
            w()
    assert a.tolist() == [0, 1, 2, 3]
    t2 = nt.tensor(a)  # a copy: writable
    t2.add_(1)
    assert t2.tolist() == [1, 2, 3, 4]


def test_expanded_tensor_write_keeps_torch_message():
    for lib in (torch, nt):
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            lib.ones(1).expand(3).add_(1)


# ------------------------------------------------------------------------------------------------
# 11. no silently wrong results; PyTorch's exception types; valid calls accepted
# ------------------------------------------------------------------------------------------------
_CASES = {
    "add_alpha2_uint8": lambda L: L.add(L.tensor([2., 0.]), L.tensor([253, 200], dtype=L.uint8), alpha=2),
    "add_alpha-1_uint8": lambda L: L.add(L.tensor([2., 0.]), L.tensor([253, 200], dtype=L.uint8), alpha=-1),
    "add_int_float_alpha": lambda L: L.add(L.ones(2, dtype=L.int64), 2, alpha=0.5),
    "add_scalar_alpha": lambda L: L.add(L.ones(2), 2, alpha=3),
    "sub_int_scalar_alpha": lambda L: L.sub(L.ones(2, dtype=L.int64), 2, alpha=3),
    "flatten_0d_bad_dim": lambda L: L.flatten(L.ones(()), -2),
    "sub_alpha2_uint8": lambda L: L.sub(L.tensor([2., 0.]), L.tensor([253, 200], dtype=L.uint8), alpha=2),
    "index_add_float_into_int": lambda L: L.index_add(L.zeros(3, dtype=L.int64), 0, L.tensor([0, 1]),
                                                      L.tensor([1.5, 2.5])),
    "index_copy_float_into_uint8": lambda L: L.index_copy(L.zeros(3, dtype=L.uint8), 0, L.tensor([0, 1]),
                                                          L.tensor([1.5, 2.5])),
    "scatter_add_float_into_uint8": lambda L: L.scatter_add(L.zeros(3, dtype=L.uint8), 0, L.tensor([0, 1]),
                                                            L.tensor([1.5, 2.5])),
    "scatter_float_into_int": lambda L: L.scatter(L.zeros(3, dtype=L.int64), 0, L.tensor([0, 1]),
                                                  L.tensor([1.5, 2.5])),
    "pad_negative_past_size": lambda L: L.nn.functional.pad(L.ones(2, 3), (-2, -2)),
    "logsumexp_dim_None": lambda L: L.logsumexp(L.ones(2, 3), dim=None),
    "norm_inf_empty": lambda L: L.norm(L.ones(0), float("inf")),
    "vector_norm_-inf_empty_dim": lambda L: L.linalg.vector_norm(L.ones(2, 0), float("-inf"), dim=1),
    "vector_norm_inf_nonempty_dim": lambda L: L.linalg.vector_norm(L.ones(0, 2), float("inf"), dim=1),
    "mse_loss_int": lambda L: L.nn.functional.mse_loss(L.ones(3, dtype=L.int64), L.ones(3, dtype=L.int64)),
    "batch_norm_int": lambda L: L.nn.functional.batch_norm(L.ones(2, 3, dtype=L.int64), L.zeros(3), L.ones(3)),
    "flatten_float_dim": lambda L: L.flatten(L.ones(2, 3), 1.5),
    "interpolate_size_0": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 4), size=0),
    "interpolate_size_0_2d": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 4, 4), size=(0, 2)),
    "transpose_float_dim": lambda L: L.ones(2, 3).transpose(0, 1.5),
    "squeeze_float_dim": lambda L: L.ones(2, 1).squeeze(1.5),
    "split_float_dim": lambda L: L.split(L.ones(2, 3), 1, 1.5),
    "transpose_str_dim": lambda L: L.ones(2, 3).transpose(0, "a"),
    "movedim": lambda L: L.movedim(L.ones(2, 3, 4), (0, 1), (2, 0)),
    "transpose_0d": lambda L: L.ones(()).transpose(0, -1),
    "flip_0d": lambda L: L.flip(L.ones(()), (-1,)),
    "flip_0d_bad_dim": lambda L: L.flip(L.ones(()), (1,)),
    "linear_empty": lambda L: L.nn.functional.linear(L.ones(0, 3), L.ones(4, 3)),
    "gather_empty": lambda L: L.gather(L.ones(0, 3), 1, L.ones(0, 3, dtype=L.int64)),
    "softmax_uint8_dtype": lambda L: L.softmax(L.tensor([1, 2], dtype=L.uint8), 0, dtype=L.float32),
}


@pytest.mark.parametrize("name", sorted(_CASES))
def test_edge_and_invalid_calls_match_torch(name):
    _same(_CASES[name])


def test_add_alpha_scales_in_result_dtype():
    r = nt.add(nt.tensor([2., 0.]), nt.tensor([253, 200], dtype=nt.uint8), alpha=2)
    assert r.tolist() == [508, 400] and r.dtype is nt.float32


INT_DIV_BY_ZERO = {
    "floor_divide": lambda L, a, b: L.floor_divide(a, b),
    "floordiv_operator": lambda L, a, b: a // b,
    "div_floor": lambda L, a, b: a.div(b, rounding_mode="floor"),
    "div_trunc": lambda L, a, b: a.div(b, rounding_mode="trunc"),
    "remainder": lambda L, a, b: L.remainder(a, b),
    "mod_operator": lambda L, a, b: a % b,
    "fmod": lambda L, a, b: L.fmod(a, b),
    "fmod_scalar": lambda L, a, b: L.fmod(a, 0),
    "remainder_": lambda L, a, b: a.clone().remainder_(b),
}


@pytest.mark.parametrize("dtype", ["int64", "uint8"])
@pytest.mark.parametrize("name", sorted(INT_DIV_BY_ZERO))
def test_integer_division_by_zero_raises_as_torch(name, dtype):
    # NumPy gives 0 (a silently wrong result); PyTorch raises RuntimeError("ZeroDivisionError")
    for L in (torch, nt):
        a, b = L.tensor([7, 3], dtype=getattr(L, dtype)), L.tensor([2, 0], dtype=getattr(L, dtype))
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            INT_DIV_BY_ZERO[name](L, a, b)
        a, b = L.tensor([7, 3], dtype=getattr(L, dtype)), L.tensor([2, 2], dtype=getattr(L, dtype))
        if name != "fmod_scalar":  # no zero: torch's values
            want = INT_DIV_BY_ZERO[name](torch, torch.tensor([7, 3]), torch.tensor([2, 2])).tolist()
            assert INT_DIV_BY_ZERO[name](L, a, b).tolist() == want


@pytest.mark.parametrize("args", [(0, float("nan")), (0, float("inf")), (float("-inf"), 0), (0, 5, float("nan"))])
def test_arange_of_a_non_finite_range_raises_runtime_error(args):
    # was NumPy's ValueError/OverflowError
    with pytest.raises(RuntimeError) as theirs:
        torch.arange(*args)
    with pytest.raises(RuntimeError, match=str(theirs.value).split(":")[0]):
        nt.arange(*args)


@pytest.mark.parametrize("op", ["lt", "le", "gt", "ge"])
@pytest.mark.parametrize("other", ["tensor", "complex_scalar", "int_scalar"])
def test_ordered_comparison_of_complex_raises_not_implemented(op, other):
    # NumPy orders complex numbers by their real part: a silently made-up answer where PyTorch raises
    for L in (torch, nt):
        a = L.tensor([1j, 2 + 0j]) if other != "complex_scalar" else L.ones(2)
        b = {"tensor": L.tensor([1j, 1 + 0j]), "complex_scalar": 1j, "int_scalar": 0}[other]
        with pytest.raises(NotImplementedError, match=f'"{op}_cpu" not implemented for \'ComplexFloat\''):
            getattr(L, op)(a, b)
    assert nt.eq(nt.tensor([1j]), 1j).tolist() == [True]
    assert nt.lt(nt.tensor([1, 2], dtype=nt.bfloat16), 2).tolist() == torch.lt(torch.tensor([1, 2],
                                                                                            dtype=torch.bfloat16), 2).tolist()


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool"])
def test_round_with_decimals_of_integers_raises_as_torch(dtype):
    # was: a float result (round(decimals=-1) of int64 [15] gave float32 [20.])
    for L in (torch, nt):
        t = L.tensor([1, 0], dtype=getattr(L, dtype))
        with pytest.raises(NotImplementedError, match='"round_cpu" not implemented'):
            t.round(decimals=-1)
        if dtype == "bool":
            with pytest.raises(NotImplementedError, match="Bool"):
                t.round()
        else:
            assert t.round().dtype == t.dtype
