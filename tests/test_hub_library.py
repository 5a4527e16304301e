"""torch.hub (offline), torch.library/torch.ops, torch._C odds and ends, and the small torch APIs added for
torchvision: each against PyTorch where PyTorch can run it here (no network), else against its documented
behaviour."""
import os
import urllib.error

import numpy as np
import pytest
import torch as ref

import numtorch as nt
from numtorch import hub


@pytest.fixture
def hub_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    return tmp_path / "home" / "hub"


def test_get_dir_follows_torch_home_and_set_dir(hub_dir, tmp_path, monkeypatch):
    assert hub.get_dir() == str(hub_dir)
    monkeypatch.setattr(ref.hub, "_hub_dir", None)
    assert ref.hub.get_dir() == hub.get_dir()
    hub.set_dir(str(tmp_path / "elsewhere"))
    assert hub.get_dir() == str(tmp_path / "elsewhere")


def test_load_state_dict_from_url_reads_the_cache(hub_dir):
    url = "https://download.pytorch.org/models/tiny-0123abcd.pth"
    with pytest.raises(urllib.error.URLError) as e:
        hub.load_state_dict_from_url(url)
    target = os.path.join(str(hub_dir), "checkpoints", "tiny-0123abcd.pth")
    assert "no network" in str(e.value) and target in str(e.value) and url in str(e.value)
    ref.save({"w": ref.arange(3.0)}, target)  # the file a download would have left
    sd = hub.load_state_dict_from_url(url, check_hash=True)
    np.testing.assert_array_equal(sd["w"].numpy(), [0.0, 1.0, 2.0])
    assert nt.utils.model_zoo.load_url(url)["w"].tolist() == [0.0, 1.0, 2.0]
    other = hub_dir / "mine"
    other.mkdir(parents=True)
    nt.save({"v": nt.ones(2)}, str(other / "x.pt"))
    assert hub.load_state_dict_from_url("http://h/a/b.pt", model_dir=str(other), file_name="x.pt")["v"].tolist() == [1, 1]


def test_download_url_to_file_raises_offline(tmp_path):
    with pytest.raises(urllib.error.URLError, match="no network"):
        hub.download_url_to_file("https://example.invalid/f.bin", str(tmp_path / "f.bin"))


def test_hub_load_local_and_cached_github(hub_dir, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "hubconf.py").write_text("dependencies = ['numpy']\n"
                                     "def small(n=2):\n    '''A small model.'''\n    return {'in_features': n}\n"
                                     "_private = 1\n")
    m = hub.load(str(repo), "small", 3, source="local")
    assert m == {"in_features": 3}
    with pytest.raises(RuntimeError, match="Cannot find callable nope in hubconf"):
        hub.load(str(repo), "nope", source="local")
    with pytest.raises(urllib.error.URLError, match="no network"):
        hub.load("owner/name:main", "small")
    os.makedirs(hub_dir, exist_ok=True)
    os.rename(repo, hub_dir / "owner_name_main")  # a repository unpacked in the cache
    assert hub.list("owner/name:main") == ["small"]
    assert hub.help("owner/name", "small") == "A small model."
    assert hub.load("owner/name", "small") == {"in_features": 2}


def test_library_define_impl_and_call():
    lib = nt.library.Library("numtorch_test", "DEF")
    lib.define("scale(Tensor x, float a) -> Tensor")
    lib.impl("scale", lambda x, a: x * a, "CPU")
    x = nt.tensor([1.0, 2.0], requires_grad=True)
    y = nt.ops.numtorch_test.scale(x, 3.0)
    y.sum().backward()  # the kernel is numtorch ops, so it is differentiated through them
    assert y.tolist() == [3.0, 6.0] and x.grad.tolist() == [3.0, 3.0]
    assert nt.ops.numtorch_test.scale.default(x, 2.0).tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match="multiple times"):
        lib.define("scale(Tensor x, float a) -> Tensor")
    nt.library.define("numtorch_test::twice", "(Tensor x) -> Tensor")

    @nt.library.impl("numtorch_test::twice", "cpu")
    def twice(x):
        return x + x
    assert nt.ops.numtorch_test.twice(nt.ones(2)).tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match="Unsupported kind"):
        nt.library.Library("numtorch_test", "BAD")


def test_ops_without_python_kernel_and_compiled_libraries():
    @nt.library.register_fake("numtorch_compiled::op")
    def fake(x):
        return x
    with pytest.raises(NotImplementedError, match="compiled extension"):
        nt.ops.numtorch_compiled.op(nt.ones(1))
    with pytest.raises(AttributeError):
        nt.ops.numtorch_compiled.never_registered
    with pytest.raises(OSError, match="cannot be loaded"):
        nt.ops.load_library("/some/lib.so")
    assert nt.ops.aten.add(nt.ones(2), nt.ones(2)).tolist() == [2.0, 2.0]
    assert ref.ops.aten.add(ref.ones(2), ref.ones(2)).tolist() == [2.0, 2.0]


def test_checks_raise_pytorchs_types():
    for name, err in (("_check", RuntimeError), ("_check_value", ValueError), ("_check_type", TypeError),
                      ("_check_index", IndexError), ("_check_not_implemented", NotImplementedError)):
        getattr(nt, name)(True, lambda: "unused")
        for mod in (nt, ref):
            with pytest.raises(err, match="custom text"):
                getattr(mod, name)(False, lambda: "custom text")
    with pytest.raises(AssertionError, match="msg"):
        nt._assert(False, "msg")
    assert nt._C._get_tracing_state() is ref._C._get_tracing_state() is None
    with nt._C.DisableTorchFunctionSubclass():
        pass


def test_as_subclass_memory_format_frombuffer_and_shell_dtypes():
    class Sub(nt.Tensor):
        pass

    class RefSub(ref.Tensor):
        pass
    x = nt.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).as_subclass(Sub)
    r = (ref.tensor([1.0, 2.0], requires_grad=True) * 2).as_subclass(RefSub)
    assert type(y) is Sub and y.grad_fn.name() == r.grad_fn.name() == "AliasBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    with pytest.raises(TypeError):
        x.as_subclass(int)
    a = np.zeros((2, 3, 4, 5), np.float32)
    for arr in (a, a.transpose(0, 2, 3, 1).copy().transpose(0, 3, 1, 2)):
        for fmt in ("channels_last", "contiguous_format"):
            assert nt.from_numpy(arr).is_contiguous(memory_format=getattr(nt, fmt)) == \
                ref.from_numpy(arr).is_contiguous(memory_format=getattr(ref, fmt))
    assert not nt.zeros(2, 3).is_contiguous(memory_format=nt.channels_last)
    assert repr(nt.channels_last) == repr(ref.channels_last)
    buf = bytearray(np.arange(6, dtype=np.int16).tobytes())
    for mod in (nt, ref):
        t = mod.frombuffer(buf, dtype=mod.int16, offset=2, count=3)
        assert t.tolist() == [1, 2, 3] and str(t.dtype) == "torch.int16"
        with pytest.raises(ValueError):
            mod.frombuffer(buf, dtype=mod.int16, offset=2, count=10)
    t = nt.frombuffer(buf, dtype=nt.int16)
    t[0] = 7  # shares the buffer's memory
    assert np.frombuffer(buf, np.int16)[0] == 7
    assert repr(nt.uint16) == repr(ref.uint16) and nt.uint16 != nt.uint8 and not nt.uint16.is_signed
    with pytest.raises(TypeError, match="uint16"):
        nt.zeros(2, dtype=nt.uint16)
    for mod in (nt, ref):
        parts = mod.tensor_split(mod.arange(6), indices=(-1,))
        assert [p.tolist() for p in parts] == [[0, 1, 2, 3, 4], [5]]
    assert not nt.ones(1).is_quantized and not nt.ones(1).is_mps


def test_autocast_enabled_flag():
    assert nt.is_autocast_enabled("cpu") is ref.is_autocast_enabled("cpu") is False
    with nt.autocast("cpu", dtype=nt.float32), ref.autocast("cpu", dtype=ref.bfloat16):
        assert nt.is_autocast_enabled("cpu") is ref.is_autocast_enabled("cpu") is True
        assert nt.is_autocast_enabled() is ref.is_autocast_enabled() is False
    assert nt.is_autocast_enabled("cpu") is False
