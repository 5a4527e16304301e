"""Programs from issue #16, written for PyTorch and run unchanged: a DCGAN training on random images and a
forward-forward network, each run with torch and through ``python -m numtorch.alias`` in subprocesses
(same seeds, so the same initial weights and data); their losses and weights must agree."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_programs")


def _run(script, alias):
    cmd = [sys.executable] + (["-m", "numtorch.alias"] if alias else []) + [os.path.join(HERE, script)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("script,tol", [("dcgan_step.py", 2e-4), ("forward_forward.py", 1e-4)])
def test_program_matches_torch(script, tol):
    ours, theirs = _run(script, alias=True), _run(script, alias=False)
    assert ours.keys() == theirs.keys()
    for k in ours:
        np.testing.assert_allclose(np.array(ours[k], dtype=float), np.array(theirs[k], dtype=float), rtol=tol, atol=tol,
                                   err_msg=k)
