"""numtorch.load against hostile and damaged files, written by hand in torch's format.

Each checkpoint is a zip with ``archive/data.pkl`` (pickle protocol 2, tensors as
``torch._utils._rebuild_tensor_v2`` over persistent ids ``('storage', type, key, 'cpu', numel)``)
and ``archive/data/<key>`` records, as ``torch.save`` writes them.
"""
import collections
import datetime
import io
import pickle
import struct
import warnings
import zipfile

import numpy as np
import pytest
import torch as ref

import numtorch as nt


# ------------------------------------------------------------------ building checkpoints by hand
def G(module, name):
    return b"c" + f"{module}\n{name}\n".encode()


def P(obj):
    """The opcodes that push ``obj`` (no PROTO, no STOP)."""
    return pickle.dumps(obj, protocol=2)[2:-1]


def T(*parts):
    return b"(" + b"".join(parts) + b"t"


def storage(key, numel, stype="FloatStorage"):
    return T(P("storage"), G("torch", stype), P(key), P("cpu"), P(numel)) + b"Q"


def tensor(key, numel, offset, size, stride, stype="FloatStorage"):
    return (G("torch._utils", "_rebuild_tensor_v2") +
            T(storage(key, numel, stype), P(offset), P(tuple(size)), P(tuple(stride)), b"\x89",
              G("collections", "OrderedDict") + b")R") + b"R")


def checkpoint(body, records=None, compress=zipfile.ZIP_STORED):
    """A zip checkpoint whose data.pkl pushes ``body`` (opcodes) and returns it."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compress) as zf:
        zf.writestr("archive/data.pkl", b"\x80\x02" + body + b".")
        zf.writestr("archive/byteorder", b"little")
        for key, data in (records or {}).items():
            zf.writestr(f"archive/data/{key}", data)
        zf.writestr("archive/version", b"3\n")
    return buf.getvalue()


FOUR_FLOATS = {"0": np.arange(4, dtype=np.float32).tobytes()}


def load_bytes(data, **kw):
    return nt.load(io.BytesIO(data), **kw)


# ------------------------------------------------------------------ 1. tensor rebuilds are validated
def test_handmade_checkpoint_loads_in_numtorch_and_torch():
    data = checkpoint(tensor("0", 4, 1, (3,), (1,)), FOUR_FLOATS)
    assert ref.load(io.BytesIO(data)).tolist() == [1.0, 2.0, 3.0]
    assert load_bytes(data).tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("offset,size,stride", [
    (0, (5,), (1,)),            # more elements than the record holds
    (4, (1,), (1,)),            # offset at the end
    (0, (2, 2), (1, 3)),        # stride walks past the end
    (0, (2,), (1 << 60,)),      # huge stride
    (10, (0,), (1,)),           # empty tensor, offset past the end
    (-1, (1,), (1,)),           # negative offset
    (2, (2,), (-1,)),           # negative stride
    (0, (-1,), (1,)),           # negative size
    (0, (2,), (1, 1)),          # size/stride length mismatch
    (0, ("x",), (1,)),          # not integers
])
def test_out_of_bounds_views_raise_runtime_error_naming_the_record(offset, size, stride):
    data = checkpoint(tensor("0", 4, offset, size, stride), FOUR_FLOATS)
    with pytest.raises(RuntimeError, match="archive/data/0"):
        load_bytes(data)
    with pytest.raises(RuntimeError, match="archive/data/0"):
        load_bytes(data, weights_only=False)


def test_torch_also_refuses_an_out_of_bounds_view():
    with pytest.raises(RuntimeError):
        ref.load(io.BytesIO(checkpoint(tensor("0", 4, 0, (5,), (1,)), FOUR_FLOATS)))


def test_declared_numel_must_match_the_record():
    data = checkpoint(tensor("0", 1 << 40, 0, (1 << 40,), (1,)), FOUR_FLOATS)
    with pytest.raises(RuntimeError, match="archive/data/0.*16 bytes"):
        load_bytes(data)


def test_missing_record_and_bad_persistent_ids():
    with pytest.raises(RuntimeError, match="archive/data/7 is missing"):
        load_bytes(checkpoint(tensor("7", 4, 0, (4,), (1,)), FOUR_FLOATS))
    bad_pid = T(P("storage"), G("torch", "FloatStorage"), P("0"), P("cpu"), P(-4)) + b"Q"
    with pytest.raises(pickle.UnpicklingError, match="storage id"):
        load_bytes(checkpoint(bad_pid, FOUR_FLOATS))
    with pytest.raises(pickle.UnpicklingError, match="persistent id"):
        load_bytes(checkpoint(P(("module", 1)) + b"Q", FOUR_FLOATS))


def test_a_storage_is_read_under_one_dtype_only():
    body = T(tensor("0", 4, 0, (4,), (1,)), tensor("0", 2, 0, (2,), (1,), stype="DoubleStorage"))
    with pytest.raises(RuntimeError, match="archive/data/0.*one dtype"):
        load_bytes(checkpoint(body, FOUR_FLOATS))


def test_mmap_load_validates_too(tmp_path):
    path = tmp_path / "m.pt"
    path.write_bytes(checkpoint(tensor("0", 4, 2, (3,), (1,)), FOUR_FLOATS))
    with pytest.raises(RuntimeError, match="archive/data/0"):
        nt.load(path, mmap=True)


def test_compressed_records_load_like_torch_and_are_capped_at_their_declared_size():
    src = io.BytesIO()
    ref.save({"w": ref.arange(6.0)}, src)
    with zipfile.ZipFile(src) as zf:
        items = {n: zf.read(n) for n in zf.namelist()}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for n, d in items.items():
            zf.writestr(n, d)
    assert ref.load(io.BytesIO(out.getvalue()))["w"].tolist() == list(map(float, range(6)))
    assert load_bytes(out.getvalue())["w"].tolist() == list(map(float, range(6)))
    # a deflated record whose pid declares more than the record holds is refused before reading
    bomb = checkpoint(tensor("0", 1 << 30, 0, (1,), (1,)), {"0": bytes(1 << 20)}, zipfile.ZIP_DEFLATED)
    with pytest.raises(RuntimeError, match="archive/data/0"):
        load_bytes(bomb)


# ------------------------------------------------------------------ 2. BUILD / SETITEM touch only the file's objects
def test_build_on_torch_float32_cannot_rename_the_global_dtype():
    for state in ((None, {"name": "evil"}), {"name": "evil"}):
        with pytest.raises(pickle.UnpicklingError, match="BUILD"):
            load_bytes(checkpoint(G("torch", "float32") + P(state) + b"b"))
    assert nt.float32.name == "float32" and repr(nt.float32) == "torch.float32"
    assert str(nt.ones(1).dtype) == "torch.float32"


def test_build_on_torch_size_cannot_patch_the_class():
    with pytest.raises(pickle.UnpicklingError, match="BUILD"):
        load_bytes(checkpoint(G("torch", "Size") + P((None, {"__len__": 0})) + b"b"))
    assert len(nt.zeros(2, 3).shape) == 2


def test_setitem_append_and_calls_on_globals_are_refused():
    with pytest.raises(pickle.UnpicklingError, match="SETITEM"):
        load_bytes(checkpoint(G("torch", "Size") + P("k") + P(1) + b"s"))
    with pytest.raises(pickle.UnpicklingError, match="SETITEM"):
        load_bytes(checkpoint(G("collections", "OrderedDict") + b"(" + P("k") + P(1) + b"u"))
    with pytest.raises(pickle.UnpicklingError, match="APPEND"):
        load_bytes(checkpoint(G("torch", "float16") + P(1) + b"a"))
    with pytest.raises(pickle.UnpicklingError, match="allowed callable"):
        load_bytes(checkpoint(G("torch", "float16") + P(()) + b"R"))
    with pytest.raises(pickle.UnpicklingError, match="opcode"):
        load_bytes(checkpoint(b"(ios\nsystem\n"))


def test_counter_is_allowed_as_in_torch():
    buf = io.BytesIO()
    ref.save({"c": collections.Counter(a=2)}, buf)
    assert load_bytes(buf.getvalue())["c"] == collections.Counter(a=2)


def test_build_on_objects_the_file_created_still_works():
    od = collections.OrderedDict(a=nt.ones(1))
    od._metadata = {"": {"version": 1}}
    buf = io.BytesIO()
    nt.save(od, buf)
    back = load_bytes(buf.getvalue())
    assert back._metadata == {"": {"version": 1}}
    # but only plain attribute names, and a Parameter's state may not replace numtorch's own fields
    with pytest.raises(pickle.UnpicklingError):
        load_bytes(checkpoint(G("collections", "OrderedDict") + b")R" + P({"__class__": 1}) + b"b"))
    body = (G("torch._utils", "_rebuild_parameter_with_state") +
            T(tensor("0", 4, 0, (4,), (1,)), b"\x88", G("collections", "OrderedDict") + b")R", P({"_data": 1})) + b"R")
    with pytest.raises(pickle.UnpicklingError, match="_data"):
        load_bytes(checkpoint(body, FOUR_FLOATS))


@pytest.mark.parametrize("key", ["sum", "numpy", "grad", "data", "shape"])
def test_tensor_state_cannot_shadow_methods_or_properties(key):
    # torch refuses a dict state on a plain tensor (TypeError from set_); numtorch accepted it and a
    # loaded tensor's t.sum / t.numpy became whatever the file said
    body = tensor("0", 4, 0, (4,), (1,)) + P({key: 1}) + b"b"
    with pytest.raises(TypeError):
        ref.load(io.BytesIO(checkpoint(body, FOUR_FLOATS)))
    with pytest.raises(pickle.UnpicklingError, match=key):
        load_bytes(checkpoint(body, FOUR_FLOATS))
    body = (G("torch._utils", "_rebuild_parameter_with_state") +
            T(tensor("0", 4, 0, (4,), (1,)), b"\x88", G("collections", "OrderedDict") + b")R", P({key: 1})) + b"R")
    with pytest.raises(pickle.UnpicklingError, match=key):
        load_bytes(checkpoint(body, FOUR_FLOATS))


def test_allowed_callables_refuse_hostile_arguments():
    with pytest.raises(pickle.UnpicklingError, match="bytearray"):
        load_bytes(checkpoint(G("builtins", "bytearray") + P((1 << 40,)) + b"R"))
    with pytest.raises(pickle.UnpicklingError, match="_codecs"):
        load_bytes(checkpoint(G("_codecs", "encode") + P(("x", "zlib_codec")) + b"R"))
    with pytest.raises(pickle.UnpicklingError, match="_codecs"):
        load_bytes(checkpoint(G("_codecs", "encode") + P(("x", "no-such-codec")) + b"R"))


def test_declared_lengths_in_the_pickle_allocate_nothing_up_front():
    with pytest.raises(EOFError, match="truncated|ends early"):
        load_bytes(checkpoint(b"\x96" + (1 << 50).to_bytes(8, "little") + b"abc"))


def test_fuzzed_pickles_raise_only_torchs_exception_types():
    import random
    buf = io.BytesIO()
    m = ref.nn.Linear(3, 2)
    ref.save({"sd": m.state_dict(), "p": ref.nn.Parameter(ref.ones(2)), "b": b"xy", "s": {1, 2}, "c": 1j,
              "size": ref.Size([2]), "dev": ref.device("cpu"), "dt": ref.float16}, buf)
    with zipfile.ZipFile(buf) as zf:
        items = {n: zf.read(n) for n in zf.namelist()}
    pkl = next(n for n in items if n.endswith("data.pkl"))
    rng = random.Random(0)
    for _ in range(600):
        d = bytearray(items[pkl])
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(d))
            if rng.random() < 0.6:
                d[i] = rng.randrange(256)
            else:
                del d[i:i + rng.randint(1, 8)]
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as zf:
            for n, v in items.items():
                zf.writestr(n, bytes(d) if n == pkl else v)
        try:
            load_bytes(out.getvalue())
        except (pickle.UnpicklingError, RuntimeError, EOFError):
            pass


# ------------------------------------------------------------------ 3. damaged files say so, with torch's types
def _good():
    buf = io.BytesIO()
    ref.save({"x": ref.arange(100.0)}, buf)
    return buf.getvalue()


def _flip_data_byte(data):
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        name = next(n for n in zf.namelist() if n.endswith("data/0"))
        info = zf.getinfo(name)
    b = bytearray(data)
    name_len, extra_len = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
    b[info.header_offset + 30 + name_len + extra_len + 3] ^= 0xFF
    return bytes(b)


DAMAGED = {
    "empty": (b"", EOFError, "empty"),
    "text": (b"not a checkpoint\n", pickle.UnpicklingError, "damaged or not a PyTorch checkpoint"),
    "json": (b'{"a": 1}\n', pickle.UnpicklingError, "damaged or not a PyTorch checkpoint"),
    "truncated_zip": (_good()[:300], RuntimeError, "damaged"),
    "zip_without_tail": (_good()[:-10], RuntimeError, "damaged"),
    "zip_magic_only": (b"PK\x03\x04garbage", RuntimeError, "damaged"),
    "truncated_pickle": (b"\x80\x02", EOFError, "truncated"),
}


@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_damaged_files_raise_torchs_exception_type(name, tmp_path):
    data, exc, msg = DAMAGED[name]
    path = tmp_path / f"{name}.pt"
    path.write_bytes(data)
    with pytest.raises(BaseException) as theirs:
        ref.load(path)
    assert isinstance(theirs.value, exc)
    with pytest.raises(exc, match=msg):
        nt.load(path)
    with pytest.raises(exc):
        nt.load(path, weights_only=False)


def test_crc_mismatch_is_reported_as_damage():
    # torch does not verify data CRCs (it loads the flipped byte); numtorch refuses with torch's zip-error type
    bad = _flip_data_byte(_good())
    assert ref.load(io.BytesIO(bad))["x"][0].item() != 0.0
    with pytest.raises(RuntimeError, match="CRC.*damaged"):
        load_bytes(bad)


# ------------------------------------------------------------------ 3. environment variables
def _timedelta_file(tmp_path):  # a global on neither torch's nor numtorch's allow-list
    path = tmp_path / "timedelta.pt"
    ref.save({"c": datetime.timedelta(days=1)}, path)
    return path


def test_force_no_weights_only_applies_only_when_the_caller_did_not_choose(tmp_path, monkeypatch):
    path = _timedelta_file(tmp_path)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"):
        assert nt.load(path)["c"] == datetime.timedelta(days=1)
    with pytest.warns(UserWarning, match="TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"):
        assert ref.load(path)["c"] == datetime.timedelta(days=1)
    with pytest.raises(pickle.UnpicklingError, match="timedelta"):
        nt.load(path, weights_only=True)


def test_force_weights_only_overrides_the_caller(tmp_path, monkeypatch):
    path = _timedelta_file(tmp_path)
    monkeypatch.setenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "true")
    with pytest.raises(pickle.UnpicklingError, match="timedelta"):
        nt.load(path, weights_only=False)
    with pytest.raises(pickle.UnpicklingError):
        ref.load(path, weights_only=False)
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")
    with pytest.raises(RuntimeError, match="Only one of"):
        nt.load(path)


def test_explicit_pickle_module_needs_weights_only_false(tmp_path):
    path = _timedelta_file(tmp_path)
    with pytest.raises(RuntimeError, match="pickle_module"):
        nt.load(path, pickle_module=pickle, weights_only=True)
    with pytest.raises(RuntimeError, match="pickle_module"):
        ref.load(path, pickle_module=pickle, weights_only=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nt.load(path, pickle_module=pickle, weights_only=False)["c"].days == 1


def test_pickle_module_without_weights_only_defaults_to_a_full_load(tmp_path):
    # PyTorch 2.13: weights_only defaults to False when a pickle_module is given (was: RuntimeError)
    path = _timedelta_file(tmp_path)
    assert ref.load(path, pickle_module=pickle)["c"].days == 1
    assert nt.load(path, pickle_module=pickle)["c"].days == 1


@pytest.mark.parametrize("data, exc", [(b"hello world\n", KeyError), (b"\x80", IndexError)])
def test_malformed_pickle_errors_are_also_torchs_raw_type(tmp_path, data, exc):
    # torch's weights-only unpickler lets KeyError/IndexError escape; numtorch's error is both that and
    # pickle.UnpicklingError, with a message saying the file is damaged
    path = tmp_path / "damaged.pt"
    path.write_bytes(data)
    with pytest.raises(exc):
        ref.load(path)
    with pytest.raises(exc) as e:
        nt.load(path)
    assert isinstance(e.value, pickle.UnpicklingError)
    assert str(e.value).startswith("numtorch.load: the file is damaged")


# ------------------------------------------------------------------ legacy (pre-zip) files
def _legacy(obj):
    buf = io.BytesIO()
    ref.save(obj, buf, _use_new_zipfile_serialization=False)
    return buf.getvalue()


def test_legacy_torch_files_load_with_shared_storage():
    base = ref.arange(12.0).reshape(3, 4)
    p = ref.nn.Parameter(ref.ones(2))
    data = _legacy({"base": base, "row": base[1], "t": base.t(), "i": ref.arange(5), "p": p, "n": 3})
    r = load_bytes(data)
    for k in ("base", "row", "t", "i"):
        np.testing.assert_array_equal(r[k].numpy(), {"base": base, "row": base[1], "t": base.t(),
                                                      "i": ref.arange(5)}[k].numpy())
    assert r["t"].stride() == (1, 4) and r["n"] == 3 and isinstance(r["p"], nt.nn.Parameter)
    r["base"][1, 0] = -1.0
    assert r["row"][0].item() == -1.0
    assert load_bytes(data, weights_only=False)["i"].tolist() == [0, 1, 2, 3, 4]


class _Evil:
    def __reduce__(self):
        import os
        return (os.system, ("echo pwned > /tmp/numtorch_pwned_legacy",))


def test_legacy_files_get_the_same_restrictions(tmp_path):
    with pytest.raises(pickle.UnpicklingError, match="system"):
        load_bytes(_legacy({"x": ref.ones(1), "evil": _Evil()}))
    data = _legacy({"x": ref.ones(1000)})
    with pytest.raises((EOFError, RuntimeError), match="truncated|damaged"):
        load_bytes(data[:-100])
    path = tmp_path / "legacy.pt"
    path.write_bytes(data)
    with pytest.raises(RuntimeError, match="mmap"):
        nt.load(path, mmap=True)


def test_legacy_storage_larger_than_the_file_is_refused():
    data = _legacy({"x": ref.ones(4)})
    # the pickled numel (4) sits in the persistent id; declare 2**40 elements instead
    hacked = data.replace(b"K\x04N", b"\x8a\x06\x00\x00\x00\x00\x00\x01N", 1)
    assert hacked != data
    with pytest.raises(RuntimeError, match="more than the file holds"):
        load_bytes(hacked)
