"""torchvision on numtorch: a real torchvision's pure-Python parts, run through ``numtorch.alias``, against
the same torchvision on real PyTorch.

Each scenario in ``torchvision_programs/scenarios.py`` is an ordinary torchvision program. It runs twice
in subprocesses: on real PyTorch (which also writes the checkpoints and the fake dataset files) and on
numtorch through the alias; the test compares the two result files: models' logits and input/parameter
gradients (ResNet-18 in eval and train mode, MobileNetV3 small/large, weights copied from the PyTorch
run through a checkpoint or through the hub cache), ``transforms.v2`` and v1 pipelines on tensors and
PIL images (random ones with the same seed: numtorch's generator is PyTorch's), MNIST/FashionMNIST/
CIFAR10/ImageFolder on fake files in the real formats, ``make_grid``/``save_image``.

torchvision is installed without its dependencies (it would pull a PyTorch build):
``pip install --no-deps torchvision==0.28.0``, or into a folder named by ``NUMTORCH_TORCHVISION_DIR``
(``.ci/run`` does that). Without it these tests skip, saying so.
"""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "torchvision_programs")
INSTALL = ("pip install --no-deps torchvision==0.28.0  (or: pip install --no-deps --target DIR torchvision==0.28.0 "
           "and set NUMTORCH_TORCHVISION_DIR=DIR)")


def _torchvision_dir():
    d = os.environ.get("NUMTORCH_TORCHVISION_DIR")
    if d and os.path.isdir(os.path.join(d, "torchvision")):
        return d
    spec = importlib.util.find_spec("torchvision")
    return os.path.dirname(os.path.dirname(spec.origin)) if spec and spec.origin else None


TV_DIR = _torchvision_dir()
pytestmark = pytest.mark.skipif(TV_DIR is None, reason=f"torchvision is not installed: {INSTALL}")


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("torchvision"))
    env = dict(os.environ, PYTHONWARNINGS="ignore", TORCH_HOME=os.path.join(out, "home"),
               PYTHONPATH=os.pathsep.join(p for p in (TV_DIR, os.environ.get("PYTHONPATH")) if p))
    done = {}

    def run(name):
        if name not in done:
            script = os.path.join(PROGRAMS, "scenarios.py")
            for side, cmd in (("torch", [os.path.join(PROGRAMS, "real_torch.py"), script]),
                              ("numtorch", ["-m", "numtorch.alias", script])):
                res = subprocess.run([sys.executable, *cmd, name, out], capture_output=True, text=True, env=env,
                                     timeout=600, cwd=out)
                assert res.returncode == 0, f"{side} {name}: exit {res.returncode}\n{res.stdout}\n{res.stderr[-4000:]}"
            done[name] = tuple(np.load(os.path.join(out, f"{name}_{side}.npz")) for side in ("torch", "numtorch"))
        return done[name]
    return run


def _compare(ref, ours, rel=1e-4, loose=None):
    """Every array the torch run wrote has the same dtype and shape in the numtorch run, and equal values:
    exactly for integers, within ``rel`` of the array's largest magnitude for floats (``loose`` overrides)."""
    assert sorted(ref.files) == sorted(ours.files)
    for k in ref.files:
        a, b = ref[k], ours[k]
        assert (a.dtype, a.shape) == (b.dtype, b.shape), k
        if a.dtype.kind in "fc":
            tol = (loose or {}).get(k, rel * max(1.0, float(np.abs(a).max()) if a.size else 1.0))
            assert np.abs(a - b).max() <= tol if a.size else True, (k, np.abs(a - b).max(), tol)
        else:
            np.testing.assert_array_equal(a, b, err_msg=k)


@pytest.mark.parametrize("name", ["resnet18", "resnet18_train", "mobilenet_v3_small", "mobilenet_v3_large"])
def test_model_logits_and_gradients_match_torch(scenario, name):
    ref, ours = scenario(name)
    assert "logits" in ref.files and "x_grad" in ref.files and sum(k.startswith("grad.") for k in ref.files) > 40
    if name == "resnet18_train":  # BatchNorm's updated running statistics too
        assert any(k.startswith("buffer.") for k in ref.files)
    _compare(ref, ours)


def test_weights_enum_loads_from_the_hub_cache(scenario):
    ref, ours = scenario("hub_weights")
    _compare(ref, ours, rel=1e-5)


def test_transforms_v2_and_v1_match_torch(scenario):
    ref, ours = scenario("transforms_v2")
    # uint8 images resized with antialiasing: PyTorch's fixed-point uint8 kernel vs numtorch's float path then
    # rounding, so a pixel may differ by one level (1/255, then divided by Normalize's std)
    one_level = 1 / 255
    _compare(ref, ours, rel=1e-5, loose={"pipe_pil": one_level / 0.224 + 1e-5, "v1_tensor": one_level + 1e-6})
    np.testing.assert_array_equal(ref["flip_boxes"], [[40, 5, 56, 30]])


def test_datasets_from_local_files_match_torch(scenario):
    ref, ours = scenario("datasets")
    assert ref["MNIST_True_x"].shape == (5, 1, 28, 28) and ref["cifar_x"].shape == (10, 3, 32, 32)
    _compare(ref, ours, rel=0)


def test_make_grid_and_save_image_match_torch(scenario):
    ref, ours = scenario("utils")
    _compare(ref, ours, rel=1e-6)


UNAVAILABLE = r"""
import torch, torchvision
from torchvision import models, ops
try:
    ops.nms(torch.tensor([[0., 0, 1, 1]]), torch.tensor([1.]), 0.5)
except RuntimeError as e:
    print("NMS", "C++ ops" in str(e))
try:
    torch.ops.torchvision.nms(torch.tensor([[0., 0, 1, 1]]), torch.tensor([1.]), 0.5)
except NotImplementedError as e:
    print("OPS", "compiled extension" in str(e))
# roi_align has a pure-Python fallback, used when the compiled ops are missing
out = ops.roi_align(torch.arange(32.).reshape(1, 2, 4, 4), [torch.tensor([[0., 0, 3, 3]])], output_size=2)
print("ROI", tuple(out.shape))
vit = models.vit_b_16(weights=None, image_size=32).eval()
with torch.no_grad():
    print("VIT", tuple(vit(torch.randn(1, 3, 32, 32)).shape))
"""


def test_compiled_ops_report_unavailable_and_vit_builds(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(UNAVAILABLE)
    env = dict(os.environ, PYTHONWARNINGS="ignore",
               PYTHONPATH=os.pathsep.join(p for p in (TV_DIR, os.environ.get("PYTHONPATH")) if p))
    res = subprocess.run([sys.executable, "-m", "numtorch.alias", str(prog)], capture_output=True, text=True,
                         env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-4000:]
    assert res.stdout.split("\n")[:4] == ["NMS True", "OPS True", "ROI (1, 2, 2, 2)", "VIT (1, 1000)"], res.stdout
