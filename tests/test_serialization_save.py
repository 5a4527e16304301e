"""numtorch.save: atomic replace, symlinks, modes, special files, stale temporary files, kill -9."""
import importlib.util
import io
import os
import pickle
import stat
import subprocess
import sys
import threading

import pytest
import torch as ref

import numtorch as nt
from numtorch import serialization


def _temps(directory):
    return sorted(f for f in os.listdir(directory) if f.endswith(".tmp"))


def test_symlink_is_written_through(tmp_path):
    real = tmp_path / "real.pt"
    link = tmp_path / "link.pt"
    nt.save({"v": nt.tensor([1.0])}, real)
    link.symlink_to(real)
    nt.save({"v": nt.tensor([2.0])}, link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert nt.load(real)["v"].item() == 2.0 and ref.load(link)["v"].item() == 2.0
    dangling = tmp_path / "dangling.pt"
    dangling.symlink_to(tmp_path / "new_target.pt")
    nt.save({"v": nt.tensor([3.0])}, dangling)
    assert dangling.is_symlink() and nt.load(tmp_path / "new_target.pt")["v"].item() == 3.0


def test_mode_of_an_existing_file_is_kept_and_new_files_follow_umask(tmp_path):
    path = tmp_path / "secret.pt"
    nt.save({"v": nt.ones(1)}, path)
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~umask
    os.chmod(path, 0o600)
    nt.save({"v": nt.zeros(1)}, path)
    st = os.stat(path)
    assert stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == os.getuid()
    os.chmod(path, 0o640)
    nt.save({"v": nt.zeros(1)}, path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_owner_of_an_existing_file_is_kept(tmp_path):
    path = tmp_path / "theirs.pt"
    nt.save({"v": nt.ones(1)}, path)
    os.chown(path, 12345, 23456)
    os.chmod(path, 0o604)
    nt.save({"v": nt.zeros(1)}, path)
    st = os.stat(path)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (12345, 23456, 0o604)


def test_dev_null_is_written_not_replaced():
    before = os.stat("/dev/null")
    nt.save({"v": nt.ones(3)}, "/dev/null")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino and after.st_rdev == before.st_rdev


def test_fifo_is_written_directly(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = {}

    def reader():
        with open(fifo, "rb") as fh:
            got["data"] = fh.read()
    t = threading.Thread(target=reader)
    t.start()
    nt.save({"v": nt.arange(4)}, fifo)
    t.join(5)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert nt.load(io.BytesIO(got["data"]))["v"].tolist() == [0, 1, 2, 3]


def test_file_objects_are_written_directly(tmp_path):
    path = tmp_path / "f.pt"
    with open(path, "wb") as fh:
        nt.save({"v": nt.ones(2)}, fh)
    assert nt.load(path)["v"].tolist() == [1.0, 1.0] and _temps(tmp_path) == []


def _dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_stale_temp_files_of_dead_saves_are_removed_live_ones_kept(tmp_path):
    dead = tmp_path / f".ckpt.pt.{_dead_pid()}.0badf00d.tmp"
    other_dead = tmp_path / f".other.pt.{_dead_pid()}.12345678.tmp"
    live = tmp_path / ".ckpt.pt.1.deadbeef.tmp"  # pid 1 is alive: a save in progress elsewhere
    unrelated = tmp_path / ".ckpt.pt.swp.tmp"
    for f in (dead, other_dead, live, unrelated):
        f.write_bytes(b"partial")
    nt.save({"v": nt.ones(1)}, tmp_path / "ckpt.pt")
    assert sorted(os.listdir(tmp_path)) == sorted(["ckpt.pt", live.name, unrelated.name])


def test_temp_file_is_named_recognisably_and_directory_is_fsynced(tmp_path, monkeypatch):
    seen = {"names": [], "dir_fsync": 0}
    real_replace, real_fsync = os.replace, os.fsync

    def spy_replace(src, dst):
        seen["names"].append(os.path.basename(src))
        return real_replace(src, dst)

    def spy_fsync(fd):
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            seen["dir_fsync"] += 1
        return real_fsync(fd)
    monkeypatch.setattr(os, "replace", spy_replace)
    monkeypatch.setattr(os, "fsync", spy_fsync)
    nt.save({"v": nt.ones(1)}, tmp_path / "ckpt.pt")
    assert serialization._TMP_RE.match(seen["names"][0]) and seen["names"][0].startswith(f".ckpt.pt.{os.getpid()}.")
    assert seen["dir_fsync"] == 1


def test_missing_parent_directory_is_torchs_runtime_error(tmp_path):
    with pytest.raises(RuntimeError, match="Parent directory .*missing does not exist"):
        nt.save({}, tmp_path / "missing" / "x.pt")
    with pytest.raises(RuntimeError, match="Parent directory .*missing does not exist"):
        ref.save({}, tmp_path / "missing" / "x.pt")


def test_failed_save_leaves_old_file_and_no_temp(tmp_path):
    path = tmp_path / "ckpt.pt"
    nt.save({"v": nt.tensor([1.0])}, path)
    with pytest.raises(pickle.PicklingError):  # a lambda cannot be pickled, by torch.save either
        nt.save({"v": nt.ones(1) * 2, "f": lambda: 0}, path)
    assert nt.load(path)["v"].item() == 1.0 and os.listdir(tmp_path) == ["ckpt.pt"]


def test_kill_9_during_saves_never_leaves_a_torn_file_or_accumulating_temps(tmp_path):
    spec = importlib.util.spec_from_file_location("stress_save", os.path.join(os.path.dirname(__file__),
                                                                              "stress_save.py"))
    stress = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stress)
    res = stress.run(str(tmp_path), mb=16, kills=8, seed=1, log=lambda *a: None)
    assert res["kills"] == 8 and res["max_temp_files"] <= 1


@pytest.mark.parametrize("kind", ["directory", "symlink_loop"])
def test_target_that_cannot_be_opened_raises_torchs_runtime_error(tmp_path, kind):
    # torch.save reports these as RuntimeError from its file writer (was: IsADirectoryError / OSError)
    if kind == "directory":
        target = tmp_path / "adir"
        target.mkdir()
    else:
        target = tmp_path / "loop1"
        os.symlink(tmp_path / "loop2", target)
        os.symlink(target, tmp_path / "loop2")
    with pytest.raises(RuntimeError):
        ref.save({"a": ref.ones(2)}, target)
    with pytest.raises(RuntimeError, match="cannot be opened"):
        nt.save({"a": nt.ones(2)}, target)
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
