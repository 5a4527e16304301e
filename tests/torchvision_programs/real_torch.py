"""Run scenarios.py on real PyTorch. torchvision's PyPI wheel has compiled ops built for PyTorch's CUDA
build; beside the CPU build they fail to load, and torchvision's import then stops at
``register_fake("torchvision::nms")``. Declaring the two operators it registers unconditionally lets it
import with its pure-Python parts (the ones these tests compare), as numtorch runs it."""
import runpy
import sys

try:
    import torchvision  # noqa: F401  (a torchvision whose compiled ops load: nothing to do)
except RuntimeError:
    import torch
    for mod in [m for m in sys.modules if m == "torchvision" or m.startswith("torchvision.")]:
        del sys.modules[mod]
    lib = torch.library.Library("torchvision", "DEF")
    lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
    lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
