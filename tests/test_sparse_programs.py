"""Graph neural networks on sparse COO adjacencies, written for PyTorch and run unchanged (issue #16 item 8):
a two-layer GCN (normalised sparse adjacency, torch.sparse.mm, learnable edge weights) and a GAT (edge
attention with index ops and scatter; torch.sparse.softmax over a sparse attention matrix), each run with
torch and through ``python -m numtorch.alias`` in subprocesses (same seeds: same weights, graph and dropout
masks); their losses and weights must agree. Both networks are one program (tests/nn_programs/gnn_sparse.py),
so each library starts once."""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_programs")


def _run(script, alias):
    cmd = [sys.executable] + (["-m", "numtorch.alias"] if alias else []) + [os.path.join(HERE, script)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONWARNINGS="ignore")
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_graph_programs_match_torch():
    ours, theirs = _run("gnn_sparse.py", alias=True), _run("gnn_sparse.py", alias=False)
    assert ours.keys() == theirs.keys()
    for k in ours:
        np.testing.assert_allclose(np.array(ours[k], dtype=float), np.array(theirs[k], dtype=float), rtol=1e-4,
                                   atol=1e-5, err_msg=k)
