"""numtorch.utils.data against torch.utils.data: batching, collation, samplers, splits."""
import collections

import numpy as np
import pytest
import torch as ref
import torch.utils.data as rdata

import numtorch as nt
import numtorch.utils.data as ndata


def to_np(x):
    if isinstance(x, (nt.Tensor, ref.Tensor)):
        return ("tensor", str(x.dtype), x.numpy().tolist())
    if isinstance(x, dict):
        return {k: to_np(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__, tuple(to_np(v) for v in x))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [to_np(v) for v in x])
    return x


Point = collections.namedtuple("Point", "x y")


class ListDataset:
    """A plain map-style dataset (no base class), as many programs write them."""

    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def samples(fw):
    rng = np.random.default_rng(0)
    return {
        "tensor_pairs": [(fw.tensor(rng.standard_normal(3).astype(np.float32)), fw.tensor(i)) for i in range(7)],
        "numpy": [rng.standard_normal((2, 2)).astype(np.float32) for _ in range(5)],
        "numbers": [(1.5 * i, i, True) for i in range(5)],
        "dicts": [{"a": fw.tensor([i, i]), "b": float(i), "s": f"x{i}"} for i in range(5)],
        "lists": [[fw.tensor(float(i)), [i, i + 1]] for i in range(5)],
        "namedtuple": [Point(fw.tensor([float(i)]), i) for i in range(5)],
        "strings": [f"s{i}" for i in range(5)],
    }


@pytest.mark.parametrize("kind", ["tensor_pairs", "numpy", "numbers", "dicts", "lists", "namedtuple", "strings"])
@pytest.mark.parametrize("batch_size,drop_last", [(2, False), (2, True), (5, False), (None, False)])
def test_default_collate_matches_torch(kind, batch_size, drop_last):
    a = list(ndata.DataLoader(ListDataset(samples(nt)[kind]), batch_size=batch_size, drop_last=drop_last))
    b = list(rdata.DataLoader(ListDataset(samples(ref)[kind]), batch_size=batch_size, drop_last=drop_last))
    assert to_np(a) == to_np(b)


def test_tensor_dataset_fast_path_matches_torch():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10)
    a = list(ndata.DataLoader(ndata.TensorDataset(nt.tensor(x), nt.tensor(y)), batch_size=3))
    b = list(rdata.DataLoader(rdata.TensorDataset(ref.tensor(x), ref.tensor(y)), batch_size=3))
    assert to_np(a) == to_np(b)
    assert len(ndata.DataLoader(ndata.TensorDataset(nt.tensor(x)), batch_size=3, drop_last=True)) == 3


def test_tensor_dataset_size_mismatch():
    with pytest.raises(AssertionError, match="Size mismatch"):
        ndata.TensorDataset(nt.zeros(3), nt.zeros(4))


def test_shuffle_is_a_permutation_and_reproducible():
    ds = ndata.TensorDataset(nt.arange(50))
    run = lambda s: [b[0].tolist() for b in ndata.DataLoader(ds, batch_size=8, shuffle=True,  # noqa: E731
                                                              generator=nt.Generator().manual_seed(s))]
    first = run(1)
    assert sorted(sum(first, [])) == list(range(50)) and first != [list(range(i, min(i + 8, 50))) for i in range(0, 50, 8)]
    assert run(1) == first and run(2) != first


def test_samplers_and_batch_sampler():
    assert list(ndata.SequentialSampler(range(4))) == [0, 1, 2, 3]
    assert list(ndata.BatchSampler(range(7), 3, False)) == list(rdata.BatchSampler(range(7), 3, False))
    assert list(ndata.BatchSampler(range(7), 3, True)) == list(rdata.BatchSampler(range(7), 3, True))
    assert len(ndata.BatchSampler(range(7), 3, False)) == 3
    rs = ndata.RandomSampler(range(10), replacement=True, num_samples=25, generator=nt.Generator().manual_seed(0))
    draws = list(rs)
    assert len(draws) == 25 and all(0 <= d < 10 for d in draws)
    huge = ndata.RandomSampler(range(3), replacement=True, num_samples=10 ** 12)
    it = iter(huge)
    assert len([next(it) for _ in range(5)]) == 5 and len(huge) == 10 ** 12  # lazy: nothing built up front
    with pytest.raises(ValueError):
        ndata.RandomSampler(range(3), num_samples=0)
    with pytest.raises(ValueError):
        ndata.BatchSampler(range(3), 0, False)


def test_sampler_and_batch_sampler_options():
    ds = ListDataset(list(range(10)))
    got = [b.tolist() for b in ndata.DataLoader(ds, sampler=[9, 8, 7], batch_size=2)]
    assert got == [[9, 8], [7]]
    got = [b.tolist() for b in ndata.DataLoader(ds, batch_sampler=[[0, 5], [3]])]
    assert got == [[0, 5], [3]]
    with pytest.raises(ValueError, match="mutually exclusive"):
        ndata.DataLoader(ds, sampler=[1], shuffle=True)
    with pytest.raises(ValueError, match="mutually exclusive"):
        ndata.DataLoader(ds, batch_sampler=[[1]], batch_size=2)


def test_collate_fn_and_iterable_dataset():
    class Stream(ndata.IterableDataset):
        def __iter__(self):
            return iter(range(7))
    got = [b.tolist() for b in ndata.DataLoader(Stream(), batch_size=3)]
    assert got == [[0, 1, 2], [3, 4, 5], [6]]
    got = list(ndata.DataLoader(ListDataset([1, 2, 3]), batch_size=2, collate_fn=lambda b: sum(b)))
    assert got == [3, 3]
    with pytest.raises(ValueError):
        ndata.DataLoader(Stream(), shuffle=True)


def test_random_split_lengths_and_fractions():
    ds = ListDataset(list(range(10)))
    parts = ndata.random_split(ds, [7, 3], generator=nt.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [7, 3]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    fr = ndata.random_split(ListDataset(list(range(11))), [0.5, 0.3, 0.2])
    assert [len(p) for p in fr] == [len(p) for p in rdata.random_split(list(range(11)), [0.5, 0.3, 0.2])]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        ndata.random_split(ds, [3, 3])


def test_subset_concat():
    a, b = ListDataset([1, 2, 3]), ListDataset([4, 5])
    c = ndata.ConcatDataset([a, b])
    assert len(c) == 5 and [c[i] for i in range(5)] == [1, 2, 3, 4, 5] and c[-1] == 5
    s = ndata.Subset(c, [4, 0])
    assert [s[0], s[1]] == [5, 1]


def test_collate_errors_match_torch():
    with pytest.raises(RuntimeError, match="equal size"):
        ndata.default_collate([[1, 2], [1]])
    with pytest.raises(TypeError, match="default_collate"):
        ndata.default_collate([object(), object()])


def test_num_workers_gives_the_same_batches():
    ds = ListDataset([np.full(2, i, np.float32) for i in range(9)])
    a = [b.tolist() for b in ndata.DataLoader(ds, batch_size=4)]
    b = [b.tolist() for b in ndata.DataLoader(ds, batch_size=4, num_workers=2)]
    assert a == b
