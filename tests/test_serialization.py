"""numtorch.save/load against real torch.save/torch.load, in both directions."""
import io
import os
import pickle
import zipfile

import numpy as np
import pytest
import torch as ref

import numtorch as nt
from numtorch.nn import Parameter

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64"]


def nt_tensor(name, shape=(2, 3)):
    rng = np.random.default_rng(0)
    arr = (rng.standard_normal(shape) * 10)
    if name == "bool":
        return nt.tensor(arr > 0)
    if name == "bfloat16":
        return nt.tensor(arr.astype(np.float32)).to(nt.bfloat16)
    if name.startswith("complex"):
        return nt.from_numpy((arr + 1j * arr).astype(name))
    return nt.from_numpy(arr.astype(name))


def as_np(t):
    if isinstance(t, ref.Tensor):
        return (t.float() if t.dtype == ref.bfloat16 else t).numpy()
    return (t.float() if t.dtype == nt.bfloat16 else t).numpy()


def roundtrip_nt_to_torch(obj):
    buf = io.BytesIO()
    nt.save(obj, buf)
    buf.seek(0)
    return ref.load(buf, weights_only=True)


def roundtrip_torch_to_nt(obj):
    buf = io.BytesIO()
    ref.save(obj, buf)
    buf.seek(0)
    return nt.load(buf)


@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_both_directions(name):
    t = nt_tensor(name)
    r = roundtrip_nt_to_torch({"x": t})["x"]
    assert str(r.dtype) == str(t.dtype) and tuple(r.shape) == tuple(t.shape)
    np.testing.assert_array_equal(as_np(r), as_np(t))
    back = roundtrip_torch_to_nt({"x": r})["x"]
    assert back.dtype is t.dtype
    np.testing.assert_array_equal(as_np(back), as_np(t))


def test_views_and_shared_storage_survive_both_ways():
    base = nt.arange(24.0).reshape(4, 6)
    sd = {"base": base, "row": base[1], "col": base[:, 2], "t": base.t(), "off": base[2:, 3:]}
    r = roundtrip_nt_to_torch(sd)
    ptr = r["base"].untyped_storage().data_ptr()
    for k in ("row", "col", "t", "off"):
        assert r[k].untyped_storage().data_ptr() == ptr, k
        np.testing.assert_array_equal(r[k].numpy(), sd[k].numpy())
    assert r["col"].stride() == sd["col"].stride() and r["t"].stride() == sd["t"].stride()
    assert r["off"].storage_offset() == sd["off"].storage_offset()
    back = roundtrip_torch_to_nt(r)
    back["base"][0, 0] = 100.0  # writes through one view show in the others
    assert back["t"][0, 0].item() == 100.0
    assert np.shares_memory(back["base"].numpy(), back["col"].numpy())


def test_torch_views_load_with_offsets_and_strides():
    b = ref.arange(30.0).reshape(5, 6)
    obj = {"a": b[1:4, ::2], "b": b.t(), "c": b[3], "scalar": b[2, 2]}
    r = roundtrip_torch_to_nt(obj)
    for k, v in obj.items():
        np.testing.assert_array_equal(r[k].numpy(), v.numpy())
        assert r[k].stride() == v.stride()


def test_nested_containers_numbers_and_strings():
    obj = {"list": [nt.ones(2), 3, 2.5, "s", None, True], "tuple": (nt.zeros(1), (1, 2)), "nested": {"a": {"b": nt.eye(2)}},
           "dtype": nt.float16, "size": nt.Size([2, 3])}
    r = roundtrip_nt_to_torch(obj)
    assert r["list"][1:] == [3, 2.5, "s", None, True]
    assert r["tuple"][1] == (1, 2) and r["dtype"] is ref.float16 and r["size"] == ref.Size([2, 3])
    np.testing.assert_array_equal(r["nested"]["a"]["b"].numpy(), np.eye(2, dtype=np.float32))
    back = roundtrip_torch_to_nt(r)
    assert back["dtype"] is nt.float16 and back["size"] == (2, 3) and back["list"][3] == "s"


def test_parameters_and_requires_grad():
    p = Parameter(nt.randn(3, 2))
    q = nt.randn(2, requires_grad=True)
    r = roundtrip_nt_to_torch({"p": p, "q": q})
    assert isinstance(r["p"], ref.nn.Parameter) and r["p"].requires_grad and r["q"].requires_grad
    back = roundtrip_torch_to_nt(r)
    assert isinstance(back["p"], Parameter) and back["p"].requires_grad
    np.testing.assert_array_equal(back["p"].detach().numpy(), p.detach().numpy())


def test_ordered_dict_state_dict_metadata():
    import collections
    sd = collections.OrderedDict([("w", nt.ones(2)), ("b", nt.zeros(1))])
    sd._metadata = collections.OrderedDict([("", {"version": 1})])
    r = roundtrip_nt_to_torch(sd)
    assert list(r.keys()) == ["w", "b"] and r._metadata[""]["version"] == 1
    back = roundtrip_torch_to_nt(r)
    assert isinstance(back, collections.OrderedDict) and back._metadata == {"": {"version": 1}}


def test_optimizer_state_dict_from_torch():
    m = ref.nn.Linear(3, 2)
    opt = ref.optim.Adam(m.parameters(), lr=0.01)
    m(ref.randn(4, 3)).sum().backward()
    opt.step()
    sd = opt.state_dict()
    r = roundtrip_torch_to_nt(sd)
    assert r["param_groups"][0]["lr"] == 0.01 and r["param_groups"][0]["params"] == [0, 1]
    np.testing.assert_allclose(r["state"][0]["exp_avg"].numpy(), sd["state"][0]["exp_avg"].numpy())
    assert r["state"][0]["step"].item() == 1.0


def test_path_and_file_object(tmp_path):
    path = tmp_path / "ckpt.pt"
    nt.save({"a": nt.arange(5)}, path)
    assert ref.load(path, weights_only=True)["a"].tolist() == [0, 1, 2, 3, 4]
    assert nt.load(str(path))["a"].tolist() == [0, 1, 2, 3, 4]
    with open(path, "rb") as fh:
        assert nt.load(fh)["a"].tolist() == [0, 1, 2, 3, 4]
    assert not [f for f in os.listdir(tmp_path) if f != "ckpt.pt"], "no temporary files left behind"


def test_mmap_load(tmp_path):
    path = tmp_path / "m.pt"
    ref.save({"w": ref.arange(10.0)}, path)
    r = nt.load(path, mmap=True)
    assert r["w"].tolist() == list(map(float, range(10)))
    r["w"][0] = 5.0  # copy-on-write: the file is untouched
    assert ref.load(path)["w"][0].item() == 0.0


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > /tmp/numtorch_pwned",))


def _evil_file(tmp_path):
    path = tmp_path / "evil.pt"
    ref.save({"x": ref.ones(1), "evil": _Evil()}, path)
    return path


def test_hostile_pickle_is_refused_without_running(tmp_path):
    if os.path.exists("/tmp/numtorch_pwned"):
        os.unlink("/tmp/numtorch_pwned")
    path = _evil_file(tmp_path)
    with pytest.raises(pickle.UnpicklingError, match="system"):
        nt.load(path)
    assert not os.path.exists("/tmp/numtorch_pwned")


def test_weights_only_false_does_not_warn_as_in_torch(tmp_path):
    import warnings
    path = tmp_path / "plain.pt"
    nt.save({"x": nt.ones(1)}, path)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ref.load(path, weights_only=False)
        assert nt.load(path, weights_only=False)["x"].item() == 1.0
    assert not [w for w in seen if not issubclass(w.category, ResourceWarning)]


def test_interrupted_save_keeps_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    nt.save({"v": nt.tensor([1.0])}, path)
    from numtorch import serialization

    def boom(*a, **k):
        raise KeyboardInterrupt("killed mid-write")
    monkeypatch.setattr(serialization, "_write_record", boom)
    with pytest.raises(KeyboardInterrupt):
        nt.save({"v": nt.tensor([2.0])}, path)
    monkeypatch.undo()
    assert nt.load(path)["v"].item() == 1.0
    assert os.listdir(tmp_path) == ["ckpt.pt"]


def test_non_zip_and_big_endian_are_refused(tmp_path):
    bad = tmp_path / "not_a_checkpoint.pt"
    bad.write_bytes(pickle.dumps({"a": 1}, protocol=2))
    with pytest.raises(RuntimeError, match="magic number"):
        nt.load(bad)
    be = tmp_path / "be.pt"
    nt.save({"a": nt.ones(1)}, be)
    with zipfile.ZipFile(be) as z:
        items = {n: z.read(n) for n in z.namelist()}
    items["archive/byteorder"] = b"big"
    with zipfile.ZipFile(be, "w") as z:
        for n, d in items.items():
            z.writestr(n, d)
    with pytest.raises(RuntimeError, match="big-endian"):
        nt.load(be)


def test_non_leaf_requiring_grad_is_saved_as_torch_saves_it():
    # torch 2.13 saves a non-leaf: its values and requires_grad=True, no grad_fn; it loads as a leaf
    x = nt.ones(2, requires_grad=True)
    buf = io.BytesIO()
    nt.save({"y": x * 2, "v": (x * 3)[1:]}, buf)
    buf.seek(0)
    r = ref.load(buf, weights_only=True)
    xr = ref.ones(2, requires_grad=True)
    want = roundtrip_torch_to_nt({"y": xr * 2, "v": (xr * 3)[1:]})
    for k in ("y", "v"):
        assert r[k].requires_grad and r[k].is_leaf and r[k].grad_fn is None
        assert want[k].requires_grad and want[k].is_leaf and want[k].grad_fn is None
        np.testing.assert_array_equal(r[k].detach().numpy(), want[k].detach().numpy())
    back = roundtrip_torch_to_nt(r)
    assert back["y"].requires_grad and back["y"].is_leaf and back["y"].tolist() == [2.0, 2.0]


def test_safetensors_roundtrip(tmp_path):
    pytest.importorskip("safetensors")
    from safetensors.torch import load_file as t_load, save_file as t_save

    from numtorch.utils.safetensors import load_file, save_file
    path = tmp_path / "m.safetensors"
    save_file({"w": nt.randn(3, 2), "h": nt.ones(2, dtype=nt.bfloat16), "i": nt.arange(4)}, path)
    r = t_load(str(path))
    assert r["h"].dtype == ref.bfloat16 and r["i"].tolist() == [0, 1, 2, 3]
    t_save({"a": ref.full((2,), 1.5, dtype=ref.bfloat16), "b": ref.eye(2)}, str(path))
    back = load_file(path)
    assert back["a"].dtype is nt.bfloat16 and back["a"].float().tolist() == [1.5, 1.5]
    np.testing.assert_array_equal(back["b"].numpy(), np.eye(2, dtype=np.float32))
