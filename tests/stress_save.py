"""kill -9 stress test of numtorch.save's atomic replace.

A child process saves a state_dict of ``--mb`` megabytes over one path again and again (each save
has every tensor filled with its version number); the parent SIGKILLs it at a random moment,
``--kills`` times. After every kill the target must load (CRC-checked, every byte) as one complete
version -- the old file or the new one, never a mix or a truncation -- and after the next save into
the directory no temporary file of a dead save may remain.

    PYTHONPATH=src python tests/stress_save.py --mb 500 --kills 20       # the issue's full run
    (tests/test_serialization_save.py runs it small as part of the suite)
"""
from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import sys, numpy as np, numtorch as nt
path, mb, version = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
n = max(1, mb * (1 << 20) // 4 // 8)
print("ready", flush=True)
while True:
    sd = {"version": nt.tensor([version])}
    sd.update({f"w{i}": nt.from_numpy(np.full(n, version, np.float32)) for i in range(8)})
    nt.save(sd, path)
    print("saved", version, flush=True)
    version += 1
"""


def _temps(directory, name):
    return sorted(f for f in os.listdir(directory) if f.startswith(f".{name}.") and f.endswith(".tmp"))


def _check(path):
    import numpy as np

    import numtorch as nt
    sd = nt.load(path)
    v = int(sd["version"].item())
    for k, t in sd.items():
        if k != "version" and not np.all(t.numpy() == v):
            raise AssertionError(f"{path}: tensor {k} is not all {v}: a mixed or torn checkpoint")
    return v


def run(directory, mb=50, kills=10, seed=0, log=print):
    """Returns a dict of what happened; raises AssertionError on the first violation."""
    rng = random.Random(seed)
    path = os.path.join(directory, "ckpt.pt")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    version, save_s, mid_save_kills, max_temps = 0, None, 0, 0
    for k in range(kills):
        proc = subprocess.Popen([sys.executable, "-c", CHILD, path, str(mb), str(version)], env=env,
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready"
        first = ""
        if save_s is None:  # measure one save, to kill at random moments across the whole save
            t0 = time.perf_counter()
            first = proc.stdout.readline()
            save_s = time.perf_counter() - t0
            assert first.startswith("saved")
        time.sleep(rng.uniform(0, 1.5 * save_s))
        os.kill(proc.pid, signal.SIGKILL)
        out = first + proc.communicate()[0]
        saved = [int(s.split()[1]) for s in out.splitlines() if s.startswith("saved")]
        temps = _temps(directory, "ckpt.pt")
        max_temps = max(max_temps, len(temps))
        assert len(temps) <= 1, f"temporary files accumulate: {temps}"
        mid_save_kills += bool(temps)
        if os.path.exists(path):
            v = _check(path)
            newest = saved[-1] if saved else version - 1
            assert v in (newest, newest + 1), f"target holds version {v}; saves completed: {saved}"
            version = v + 1
        log(f"kill {k + 1}/{kills}: target holds version {version - 1}, {len(temps)} temp file(s) of the killed save")
    # one clean save into the directory removes what the killed saves left
    import numtorch as nt
    nt.save({"version": nt.tensor([version])}, path)
    left = _temps(directory, "ckpt.pt")
    assert not left, f"temporary files left after a clean save: {left}"
    return {"kills": kills, "mb": mb, "save_seconds": save_s, "kills_mid_save": mid_save_kills,
            "max_temp_files": max_temps}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, default=500)
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", default=None, help="directory to save into (default: a new temporary one)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.dir) as d:
        t0 = time.perf_counter()
        res = run(d, a.mb, a.kills, a.seed)
        print(f"OK in {time.perf_counter() - t0:.1f}s: {res}")
