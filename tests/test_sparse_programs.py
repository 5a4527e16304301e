"""Graph neural networks on sparse COO adjacencies, written for PyTorch and run unchanged (issue #16 item 8):
a two-layer GCN (normalised sparse adjacency, torch.sparse.mm, learnable edge weights) and a GAT (edge
attention with index ops and scatter; torch.sparse.softmax over a sparse attention matrix), each run with
torch and through ``python -m numtorch.alias`` in subprocesses (same seeds: same weights, graph and dropout
masks); their losses and weights must agree."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_programs")


def _run(script, alias):
    cmd = [sys.executable] + (["-m", "numtorch.alias"] if alias else []) + [os.path.join(HERE, script)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("script", ["gcn_sparse.py", "gat_sparse.py"])
def test_graph_program_matches_torch(script):
    ours, theirs = _run(script, alias=True), _run(script, alias=False)
    assert ours.keys() == theirs.keys()
    for k in ours:
        np.testing.assert_allclose(np.array(ours[k], dtype=float), np.array(theirs[k], dtype=float), rtol=1e-4,
                                   atol=1e-5, err_msg=k)
