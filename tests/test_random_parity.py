"""numtorch's generator against PyTorch's: the same seed gives the same samples, bit for bit.

PyTorch's x86-64 CPU kernels are the reference (AVX2 Box-Muller, FMA-contracted arithmetic). On
Intel CPUs PyTorch draws ``bernoulli_(float p)`` (and so dropout) from MKL instead; those cases are
skipped there with that reason.
"""
import platform

import numpy as np
import pytest

import numtorch
import numtorch.nn as nn
import numtorch.nn.functional as F

torch = pytest.importorskip("torch")

X86 = platform.machine().lower() in ("x86_64", "amd64")


def _intel():
    try:
        with open("/proc/cpuinfo") as f:
            return "GenuineIntel" in f.read(4096)
    except OSError:
        return False


needs_x86 = pytest.mark.skipif(not X86, reason="the reference values are PyTorch's x86-64 kernels")
not_mkl_bernoulli = pytest.mark.skipif(_intel(), reason="PyTorch uses MKL's bernoulli on Intel CPUs")


def same(a, b):
    a = a.numpy() if hasattr(a, "numpy") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_array_equal(a, b)


def both(seed, fn):
    """Run ``fn(lib)`` after seeding numtorch and torch alike; return the pair of results."""
    numtorch.manual_seed(seed)
    torch.manual_seed(seed)
    return fn(numtorch), fn(torch)


@needs_x86
@pytest.mark.parametrize("seed", [0, 1, 1337, 2147483647, 2 ** 40 + 7])
@pytest.mark.parametrize("n", [1, 2, 3, 15, 16, 17, 100, 1000, 4099])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rand_randn_match(seed, n, dtype):
    for fn in (lambda t: t.rand(n, dtype=getattr(t, dtype)), lambda t: t.randn(n, dtype=getattr(t, dtype)),
               lambda t: t.randn(n, 2, dtype=getattr(t, dtype))):
        a, b = both(seed, fn)
        same(a, b)


@needs_x86
def test_streams_stay_in_step_across_calls():
    def fn(t):
        out = [t.randn(3), t.rand(5), t.randn(7, dtype=t.float64), t.randn(40), t.randint(0, 10, (9,)),
               t.randperm(50), t.randn(1, dtype=t.float64), t.rand(2, 3, dtype=t.float64), t.randn(33)]
        return [o.numpy() if hasattr(o, "numpy") else o for o in out]
    a, b = both(5, fn)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


_RANGES = [(0, 10), (-5, 5), (3, 1000), (0, 2 ** 20), (0, 2 ** 25), (0, 2 ** 28), (-2 ** 31, 2 ** 31 - 1),
           (0, 2 ** 32), (-7, 2 ** 40), (0, 2 ** 62)]
_DTYPES = ["int64", "int32", "int16", "uint8", "float32", "float64", "float16", "bfloat16"]


@pytest.mark.filterwarnings("ignore:.*out of bounds")  # PyTorch's imprecise-float-range warning, on both
@pytest.mark.parametrize("low,high", _RANGES)
@pytest.mark.parametrize("dtype", _DTYPES)
def test_randint_matches(low, high, dtype):
    """Including PyTorch's bound adjustment for floats and its 64-bit draws from a range of 2**28 on."""
    def fn(t):
        try:
            return t.randint(low, high, (4, 25), dtype=getattr(t, dtype))
        except RuntimeError as e:  # a range outside the dtype: both refuse it alike
            return str(e)
    a, b = both(3, fn)
    if isinstance(b, str):
        assert a == b
    else:
        same(a.double(), b.double())


@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000])
def test_randperm_matches(n):
    a, b = both(11, lambda t: t.randperm(n))
    same(a, b)


def test_generator_objects_and_state_bytes():
    g1, g2 = numtorch.Generator().manual_seed(2147483647), torch.Generator().manual_seed(2147483647)
    same(numtorch.rand(27, generator=g1), torch.rand(27, generator=g2))
    same(g1.get_state(), g2.get_state())
    assert g1.initial_seed() == g2.initial_seed() == 2147483647
    # a state saved by PyTorch restores numtorch's generator to the same point, and back
    torch.randn(3, generator=g2)  # leaves a cached Box-Muller value in the state
    g1.set_state(numtorch.tensor(g2.get_state().numpy()))
    same(numtorch.randn(5, generator=g1, dtype=numtorch.float64), torch.randn(5, generator=g2, dtype=torch.float64))
    same(g1.get_state(), g2.get_state())
    numtorch.manual_seed(9)
    torch.manual_seed(9)
    same(numtorch.get_rng_state(), torch.get_rng_state())
    numtorch.rand(700)  # past a 624-word block
    torch.rand(700)
    same(numtorch.get_rng_state(), torch.get_rng_state())


def test_default_generator_unseeded_matches_pytorch_default_seed():
    g1, g2 = numtorch.Generator(), torch.Generator()
    assert g1.initial_seed() == g2.initial_seed()
    same(numtorch.rand(10, generator=g1), torch.rand(10, generator=g2))


def test_state_errors():
    with pytest.raises(RuntimeError, match="5056"):
        numtorch.set_rng_state(numtorch.zeros(10, dtype=numtorch.uint8))
    with pytest.raises(TypeError, match="ByteTensor"):
        numtorch.set_rng_state(numtorch.zeros(5056))
    with pytest.raises(ValueError, match="Overflow"):
        numtorch.manual_seed(2 ** 64)


_BAD_CALLS = {
    "uniform_ on int64": lambda t: t.empty(3, dtype=t.int64).uniform_(),
    "normal_ on int64": lambda t: t.empty(3, dtype=t.int64).normal_(),
    "log_normal_ on int64": lambda t: t.empty(3, dtype=t.int64).log_normal_(),
    "cauchy_ on int64": lambda t: t.empty(3, dtype=t.int64).cauchy_(),
    "exponential_ on int64": lambda t: t.empty(3, dtype=t.int64).exponential_(),
    "exponential_(-1)": lambda t: t.empty(3).exponential_(-1),
    "exponential_(0)": lambda t: t.empty(3).exponential_(0),
    "geometric_(0)": lambda t: t.empty(3).geometric_(0),
    "geometric_(1)": lambda t: t.empty(3).geometric_(1),
    "log_normal_(0, -1)": lambda t: t.empty(3).log_normal_(0, -1),
    "cauchy_(0, -1)": lambda t: t.empty(3).cauchy_(0, -1),
    "uniform_(0, inf)": lambda t: t.empty(3).uniform_(0, float("inf")),
    "uniform_(-3e38, 3e38)": lambda t: t.empty(3).uniform_(-3e38, 3e38),
    "uniform_(2, 1)": lambda t: t.empty(3).uniform_(2, 1),
    "bernoulli_ p > 1": lambda t: t.empty(3).bernoulli_(t.tensor([0.5, 1.5, 0.2])),
    "bernoulli nan": lambda t: t.bernoulli(t.tensor([float("nan")])),
    "bernoulli int": lambda t: t.bernoulli(t.tensor([1, 0])),
    "poisson nan": lambda t: t.poisson(t.tensor([float("nan")])),
    "poisson int": lambda t: t.poisson(t.tensor([1, 2])),
    "randperm uint8 1000": lambda t: t.randperm(1000, dtype=t.uint8),
    "randperm bool": lambda t: t.randperm(3, dtype=t.bool),
    "randperm -1": lambda t: t.randperm(-1),
    "randperm float16 3000": lambda t: t.randperm(3000, dtype=t.float16),
    "randint requires_grad": lambda t: t.randint(0, 5, (3,), requires_grad=True),
    "rand_like int": lambda t: t.rand_like(t.tensor([1, 2])),
    "randn_like int": lambda t: t.randn_like(t.tensor([1, 2])),
    "normal int mean": lambda t: t.normal(t.tensor([1, 2]), 1.0),
    "normal shapes": lambda t: t.normal(t.zeros(3), t.ones(4)),
    "bernoulli_ shapes": lambda t: t.empty(3).bernoulli_(t.ones(4) * 0.5),
    "set_rng_state size": lambda t: t.set_rng_state(t.zeros(10, dtype=t.uint8)),
    "set_rng_state dtype": lambda t: t.set_rng_state(t.zeros(5056)),
    "WeightedRandomSampler 0": lambda t: t.utils.data.WeightedRandomSampler([1, 2], 0),
    "WeightedRandomSampler 2-D": lambda t: t.utils.data.WeightedRandomSampler([[1, 2]], 3),
}


@pytest.mark.parametrize("name", list(_BAD_CALLS))
def test_bad_random_calls_raise_like_pytorch(name):
    def outcome(lib):
        try:
            _BAD_CALLS[name](lib)
        except Exception as e:  # noqa: BLE001 - the point is to compare whatever is raised
            return type(e).__name__, str(e)
        return None
    got, want = outcome(numtorch), outcome(torch)
    assert want is not None
    assert got == want


@needs_x86
@pytest.mark.parametrize("shape", [(5,), (40,), (7, 9), (3, 50)])
def test_inplace_samplers_match(shape):
    cases = {
        "uniform_": lambda t, x: x.uniform_(-0.3, 2.7),
        "normal_": lambda t, x: x.normal_(1.5, 0.02),
        "exponential_": lambda t, x: x.exponential_(2.5),
        "geometric_": lambda t, x: x.geometric_(0.3),
        "log_normal_": lambda t, x: x.log_normal_(0.5, 0.4),
        "cauchy_": lambda t, x: x.cauchy_(0.0, 2.0),
        "random_": lambda t, x: x.random_(),
        "random_to": lambda t, x: x.random_(17),
        "random_from_to": lambda t, x: x.random_(-4, 17),
    }
    for name, fn in cases.items():
        for dtype in ("float32", "float64"):
            a, b = both(21, lambda t: fn(t, t.empty(*shape, dtype=getattr(t, dtype))))
            same(a, b)
    # non-contiguous: filled in memory order; normal_ takes the scalar path
    for fn in (lambda t, x: x.normal_(), lambda t, x: x.uniform_()):
        a, b = both(4, lambda t: fn(t, t.empty(shape[::-1]).t()) if len(shape) == 2 else fn(t, t.empty(shape)))
        same(a, b)


@needs_x86
@pytest.mark.parametrize("shape", [(5,), (40,), (3, 50)])
def test_complex_uniform_normal_and_linear_init_match(shape):
    # ATen fills view_as_real(self); normal_ draws each part with std / sqrt(2)
    for dtype in ("complex64", "complex128"):
        for fn in (lambda t, x: x.uniform_(-1.0, 2.0), lambda t, x: x.normal_(1.0, 3.0)):
            a, b = both(5, lambda t: fn(t, t.empty(*shape, dtype=getattr(t, dtype))))
            same(a, b)
    a, b = both(6, lambda t: t.nn.Linear(3, shape[0], dtype=t.complex64).weight.detach())  # kaiming_uniform_ on complex
    same(a, b)


@needs_x86
def test_normal_function_forms_match():
    m = np.linspace(-1, 1, 20).astype(np.float32)
    s = np.linspace(0.1, 2, 20).astype(np.float32)

    def fn(t):
        return [t.normal(t.tensor(m), t.tensor(s)), t.normal(t.tensor(m), 0.5), t.normal(0.3, t.tensor(s)),
                t.normal(2.0, 3.0, size=(4, 5)), t.normal(t.tensor(m.astype(np.float64)), 1.0)]
    a, b = both(8, fn)
    for x, y in zip(a, b):
        same(x, y)


@not_mkl_bernoulli
def test_bernoulli_matches():
    p32 = np.random.default_rng(0).random((6, 7)).astype(np.float32)

    def fn(t):
        return [t.bernoulli(t.tensor(p32)), t.bernoulli(t.tensor(p32.astype(np.float64))),
                t.empty(30).bernoulli_(0.3), t.bernoulli(t.tensor(p32), 0.7), t.empty(4, 7).bernoulli_(t.tensor(p32[0]))]
    a, b = both(2, fn)
    for x, y in zip(a, b):
        same(x, y)


@pytest.mark.parametrize("replacement", [False, True])
@pytest.mark.parametrize("k", [1, 5, 20])
def test_multinomial_matches(replacement, k):
    w = np.random.default_rng(1).random((3, 27)).astype(np.float32)
    a, b = both(2147483647, lambda t: t.multinomial(t.tensor(w), k, replacement=replacement))
    same(a, b)
    a, b = both(7, lambda t: t.multinomial(t.tensor(w[0].astype(np.float64)), k, replacement=replacement))
    same(a, b)


@needs_x86
def test_module_initialization_matches():
    def build(t):
        tnn = t.nn
        return tnn.Sequential(tnn.Embedding(27, 10), tnn.Linear(10, 200), tnn.BatchNorm1d(200), tnn.Tanh(),
                              tnn.Linear(200, 27, bias=False), tnn.Conv2d(3, 8, 3), tnn.LSTM(8, 16, 2),
                              tnn.LayerNorm(8), tnn.MultiheadAttention(16, 4))
    a, b = both(42, build)
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for k in sa:
        same(sa[k], sb[k])


@needs_x86
def test_init_functions_match():
    names = ["uniform_", "normal_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]
    for name in names:
        a, b = both(1, lambda t: getattr(t.nn.init, name)(t.empty(30, 20)))
        same(a, b)
    a, b = both(1, lambda t: t.nn.init.sparse_(t.empty(30, 20), 0.3))
    same(a, b)
    for kw in ({"std": 0.02}, {"mean": 0.5, "std": 1.0, "a": -2.0, "b": 2.0}, {"a": 1.0, "b": 3.0}):
        a, b = both(1, lambda t: t.nn.init.trunc_normal_(t.empty(30, 20), **kw))
        same(a, b)
    a, b = both(1, lambda t: t.nn.init.orthogonal_(t.empty(30, 20)))
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=0, atol=1e-5)  # QR's last bits


@not_mkl_bernoulli
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout_family_matches(p):
    x = np.random.default_rng(3).standard_normal((4, 6, 5)).astype(np.float32)

    def fn(t):
        xt = t.tensor(x)
        return [t.nn.functional.dropout(xt, p), t.nn.Dropout(p)(xt), t.nn.functional.dropout1d(xt, p),
                t.nn.functional.alpha_dropout(xt, p, training=True), t.nn.functional.dropout(xt.transpose(0, 2), p)]
    a, b = both(5, fn)
    for x1, y1 in zip(a, b):
        np.testing.assert_allclose(x1.numpy(), y1.detach().numpy(), rtol=1e-6, atol=1e-7)
        np.testing.assert_array_equal(x1.numpy() == 0, y1.detach().numpy() == 0)


def test_rrelu_training_matches():
    x = np.random.default_rng(3).standard_normal((5, 8)).astype(np.float32)
    a, b = both(6, lambda t: t.nn.functional.rrelu(t.tensor(x), training=True))
    same(a, b)


def test_dataloader_shuffle_order_matches():
    data = np.arange(50, dtype=np.float32)

    def fn(t):
        ds = t.utils.data.TensorDataset(t.tensor(data))
        dl = t.utils.data.DataLoader(ds, batch_size=8, shuffle=True)
        out = [b[0].numpy().tolist() for _ in range(2) for b in dl]
        out.append(t.rand(3).numpy().tolist())  # the default stream afterwards
        g = t.Generator().manual_seed(4)
        out.append(list(t.utils.data.RandomSampler(range(10), replacement=True, num_samples=40, generator=g)))
        out.append([len(s) for s in t.utils.data.random_split(range(10), [0.3, 0.7])])
        out.append(list(t.utils.data.random_split(range(10), [3, 7])[0]))
        out.append(list(t.utils.data.WeightedRandomSampler([0.1, 0.5, 2.0, 1.0], 12)))
        return out
    a, b = both(1234, fn)
    assert a == b


@needs_x86
def test_makemore_style_training_step_matches():
    """Karpathy's lecture pattern: a seeded Generator for weights, randint minibatches, multinomial sampling."""
    def run(t):
        g = t.Generator().manual_seed(2147483647)
        C = t.randn((27, 10), generator=g)
        W1 = t.randn((30, 200), generator=g) * (5 / 3) / 30 ** 0.5
        W2 = t.randn((200, 27), generator=g) * 0.01
        X = t.randint(0, 27, (500, 3), generator=g)
        Y = t.randint(0, 27, (500,), generator=g)
        ix = t.randint(0, X.shape[0], (32,), generator=g)
        h = t.tanh(C[X[ix]].view(32, -1) @ W1)
        probs = t.softmax(h @ W2, dim=1)
        sample = t.multinomial(probs[0], num_samples=1, replacement=True, generator=g)
        return [ix.numpy(), probs.numpy(), sample.numpy()]
    (ia, pa, sa), (ib, pb, sb) = run(numtorch), run(torch)
    np.testing.assert_array_equal(ia, ib)
    np.testing.assert_allclose(pa, pb, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(sa, sb)


@needs_x86
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("n", [5, 16, 40, 100])
def test_half_precision_samples_match(dtype, n):
    for fn in (lambda t: t.rand(n, dtype=getattr(t, dtype)), lambda t: t.randn(n, dtype=getattr(t, dtype)),
               lambda t: t.empty(n, dtype=getattr(t, dtype)).uniform_(-2, 3)):
        a, b = both(3, fn)
        same(a.float(), b.float())


def test_poisson_matches():
    lam = np.tile(np.array([0.0, 0.5, 3.0, 9.9, 10.0, 25.0, 1000.5]), 20)
    a, b = both(5, lambda t: [t.poisson(t.tensor(lam)), t.poisson(t.tensor(lam.astype(np.float32))), t.rand(3)])
    for x, y in zip(a, b):
        same(x, y)
    with pytest.raises(RuntimeError, match="non-negative"):
        numtorch.poisson(numtorch.tensor([-1.0]))


@needs_x86
@not_mkl_bernoulli
@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_layers_train_mode_match(batch_first):
    """Dropout masks follow memory order, so MHA's output layout ((L, N, E) in memory) must be PyTorch's."""
    x = np.random.default_rng(0).standard_normal((5, 2, 8)).astype(np.float32)

    def fn(t):
        enc = t.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.2, batch_first=batch_first)
        dec = t.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.2, batch_first=batch_first)
        src = t.tensor(x)
        mem = enc(src)
        return [mem, dec(src, mem), t.rand(2)]
    a, b = both(3, fn)
    for x1, y1 in zip(a, b):
        np.testing.assert_allclose(x1.detach().numpy(), y1.detach().numpy(), rtol=1e-5, atol=1e-5)
    mha_a, mha_b = both(1, lambda t: t.nn.MultiheadAttention(8, 2, batch_first=batch_first))
    q = np.random.default_rng(1).standard_normal((2, 5, 8)).astype(np.float32)
    oa, ob = mha_a(*(numtorch.tensor(q),) * 3)[0], mha_b(*(torch.tensor(q),) * 3)[0]
    assert oa.stride() == ob.stride()


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "float32", "float64", "float16"])
def test_random_inplace_forms_match(dtype):
    forms = [lambda x: x.random_(), lambda x: x.random_(5), lambda x: x.random_(2, 9), lambda x: x.random_(0, None),
             lambda x: x.random_(3, None), lambda x: x.random_(-2 ** 63, None)]
    for form in forms:
        def fn(t):
            try:
                return form(t.empty(6, dtype=getattr(t, dtype)))
            except (RuntimeError, NotImplementedError) as e:
                return type(e).__name__ + str(e)
        a, b = both(1, fn)
        if isinstance(b, str):
            assert a == b
        else:
            same(a.double(), b.double())


def test_random_sampler_epochs_and_wide_ranges_match():
    def fn(t):
        s = t.utils.data.RandomSampler(range(5), generator=t.Generator().manual_seed(1))
        wide = t.utils.data.RandomSampler(range(2 ** 29), replacement=True, num_samples=40)
        return [list(s), list(s), list(wide), list(wide), t.rand(2).tolist()]
    a, b = both(3, fn)
    assert a == b


def test_fork_rng_clone_state_and_normal_grad_nodes():
    numtorch.manual_seed(0)
    with numtorch.random.fork_rng():
        inside = numtorch.rand(3)
    same(numtorch.rand(3), inside)  # the draws inside left the stream where it was
    g = numtorch.Generator().manual_seed(5)
    numtorch.rand(3, generator=g)
    h = g.clone_state()
    same(numtorch.rand(4, generator=g), numtorch.rand(4, generator=h))
    for lib in (numtorch, torch):  # PyTorch's normal() has zero gradients for mean and std
        m = lib.zeros(3, requires_grad=True)
        s = lib.ones(3, requires_grad=True)
        outs = [lib.normal(m, 1.0), lib.normal(0.0, s), lib.normal(m, s)]
        assert [type(o.grad_fn).__name__ for o in outs] == ["NormalBackward1", "NormalBackward2", "NormalBackward3"]
        sum(o.sum() for o in outs).backward()
        assert m.grad.abs().sum().item() == 0 and s.grad.abs().sum().item() == 0


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_matches(hard):
    x = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)
    w = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)

    def fn(t):
        xt = t.tensor(x, requires_grad=True)
        y = t.nn.functional.gumbel_softmax(xt, tau=0.5, hard=hard)
        (y * t.tensor(w)).sum().backward()
        return y.detach(), xt.grad
    (ya, ga), (yb, gb) = both(1, fn)
    np.testing.assert_allclose(ya.numpy(), yb.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ga.numpy(), gb.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.warns(UserWarning, match="deprecated"):
        numtorch.nn.functional.gumbel_softmax(numtorch.tensor(x), eps=1e-5)


def test_default_generator_seeded_from_os_like_pytorch():
    import subprocess
    import sys
    code = "import numtorch; print(numtorch.initial_seed())"
    seeds = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout for _ in range(2)}
    assert len(seeds) == 2  # a fresh seed per process, as torch.initial_seed() shows
    assert numtorch.Generator().initial_seed() == torch.Generator().initial_seed() == 67280421310721


def test_tensor_from_any_sequence_like_pytorch():
    import array
    import collections
    cases = [collections.deque([1.0, 2.0]), range(3), array.array("f", [1, 2]), array.array("i", [1, 2]),
             memoryview(b"ab"), [collections.deque([1, 2])]]
    for data in cases:
        a, b = numtorch.tensor(data), torch.tensor(data)
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert numtorch.LongTensor(range(3)).tolist() == torch.LongTensor(range(3)).tolist()
    for bad, exc in (((x for x in [1]), RuntimeError), ("ab", TypeError), (object(), RuntimeError)):
        with pytest.raises(exc):
            numtorch.tensor(bad)
        with pytest.raises(exc):
            torch.tensor(bad)
