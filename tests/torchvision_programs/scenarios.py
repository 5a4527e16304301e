"""Torchvision programs written for PyTorch, run unchanged on real PyTorch and (through numtorch.alias) on
numtorch by tests/test_torchvision.py; each writes its results to an .npz file for the test to compare.

    python scenarios.py NAME OUT_DIR [side]     # side: "torch" (writes the checkpoints) or "numtorch"
"""
import os
import pickle
import sys

import numpy as np
import torch
import torchvision
from PIL import Image
from torchvision import datasets, models
from torchvision.transforms import v2
from torchvision.utils import make_grid, save_image

name, out = sys.argv[1], sys.argv[2]
side = "numtorch" if torch.__name__ == "numtorch" else "torch"
results = {}


def arr(t):
    return t.detach().numpy().copy()


def model_scenario(builder, batch, size, train=False):
    ckpt = os.path.join(out, builder + ".pt")
    if side == "torch":
        torch.manual_seed(0)
        model = getattr(models, builder)(weights=None)
        with torch.no_grad():  # non-trivial BatchNorm statistics, so eval mode uses them
            for m in model.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.running_mean.uniform_(-0.2, 0.2)
                    m.running_var.uniform_(0.5, 1.5)
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.2, 0.2)
        torch.save(model.state_dict(), ckpt)
    else:
        model = getattr(models, builder)(weights=None)
        model.load_state_dict(torch.load(ckpt))
    model.train(train)
    rng = np.random.RandomState(1)
    x = torch.tensor(rng.randn(batch, 3, size, size).astype(np.float32), requires_grad=True)
    logits = model(x)
    w = torch.tensor(rng.randn(*logits.shape).astype(np.float32))
    (logits * w).sum().backward()
    results["logits"], results["x_grad"] = arr(logits), arr(x.grad)
    for pname, p in model.named_parameters():
        results["grad." + pname] = arr(p.grad)
    if train:
        for bname, b in model.named_buffers():
            if b.dtype == torch.float32:
                results["buffer." + bname] = arr(b)


def hub_weights():
    # a weights enum: the checkpoint comes from the hub cache (TORCH_HOME), as after a download
    weights = models.ResNet18_Weights.IMAGENET1K_V1
    path = os.path.join(torch.hub.get_dir(), "checkpoints", os.path.basename(weights.url))
    if side == "torch":
        torch.manual_seed(0)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        torch.save(models.resnet18().state_dict(), path)
    model = models.resnet18(weights=weights).eval()
    x = torch.tensor(np.random.RandomState(2).rand(1, 3, 64, 64).astype(np.float32))
    with torch.no_grad():
        results["logits"] = arr(model(x))
    results["preprocess"] = arr(weights.transforms()(torch.tensor(np.random.RandomState(3).rand(3, 80, 90).astype(np.float32))))


def transforms_v2():
    rng = np.random.RandomState(0)
    img_u8 = torch.tensor(rng.randint(0, 256, (3, 48, 60)).astype(np.uint8))
    img_f = torch.tensor(rng.rand(2, 3, 48, 60).astype(np.float32))
    pil = Image.fromarray(rng.randint(0, 256, (48, 60, 3)).astype(np.uint8))
    torch.manual_seed(7)
    pipe = v2.Compose([v2.Resize(40), v2.RandomCrop(32, padding=2), v2.RandomHorizontalFlip(),
                       v2.ToDtype(torch.float32, scale=True), v2.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
    results["pipe_float"] = np.stack([arr(pipe(img_f[0])) for _ in range(4)])
    results["pipe_pil"] = np.stack([arr(pipe(v2.functional.pil_to_tensor(pil))) for _ in range(3)])
    results["pipe_from_pil"] = arr(v2.Compose([v2.ToImage(), v2.CenterCrop(40), v2.ToDtype(torch.float32, scale=True)])(pil))
    results["resize_bicubic"] = arr(v2.Resize((30, 20), interpolation=v2.InterpolationMode.BICUBIC)(img_f))
    results["resize_nearest_u8"] = arr(v2.Resize(25, interpolation=v2.InterpolationMode.NEAREST)(img_u8))
    results["resized_crop"] = arr(v2.RandomResizedCrop(24, antialias=True)(img_f))
    results["rotate"] = arr(v2.functional.rotate(img_f, 30.0, interpolation=v2.InterpolationMode.BILINEAR))
    results["affine"] = arr(v2.functional.affine(img_f, angle=10.0, translate=[3, -2], scale=0.9, shear=[5.0, 0.0]))
    results["blur"] = arr(v2.GaussianBlur(5, sigma=1.3)(img_f))
    results["gray"] = arr(v2.Grayscale(3)(img_u8))
    results["jitter"] = arr(v2.functional.adjust_saturation(v2.functional.adjust_brightness(img_f, 1.3), 0.6))
    results["todtype_u8"] = arr(v2.ToDtype(torch.float32, scale=True)(img_u8))
    results["erase"] = arr(v2.RandomErasing(1.0)(img_f))
    boxes = torchvision.tv_tensors.BoundingBoxes([[4, 5, 20, 30]], format="XYXY", canvas_size=(48, 60))
    img2, boxes2 = v2.RandomHorizontalFlip(1.0)(img_f[0], boxes)
    results["flip_img"], results["flip_boxes"] = arr(img2), arr(boxes2)
    # the v1 API on PIL images and on tensors
    import torchvision.transforms as T
    results["v1_pil"] = arr(T.Compose([T.Resize(36), T.CenterCrop(32), T.ToTensor(), T.Normalize([0.5] * 3, [0.25] * 3)])(pil))
    results["v1_tensor"] = arr(T.Compose([T.Resize(36, antialias=True), T.ConvertImageDtype(torch.float32)])(img_u8))
    results["v1_topil"] = np.asarray(T.ToPILImage()(img_f[0]))


def write_fake_files(root):
    """Tiny files in the real formats: MNIST/FashionMNIST IDX, CIFAR-10 pickles, an ImageFolder tree."""
    rng = np.random.RandomState(0)
    for folder in ("MNIST", "FashionMNIST"):
        raw = os.path.join(root, folder, "raw")
        os.makedirs(raw, exist_ok=True)
        for split, n in (("train", 5), ("t10k", 3)):
            with open(os.path.join(raw, f"{split}-images-idx3-ubyte"), "wb") as f:
                f.write(np.array([0x803, n, 28, 28], ">i4").tobytes() + rng.randint(0, 256, (n, 28, 28)).astype(np.uint8).tobytes())
            with open(os.path.join(raw, f"{split}-labels-idx1-ubyte"), "wb") as f:
                f.write(np.array([0x801, n], ">i4").tobytes() + rng.randint(0, 10, n).astype(np.uint8).tobytes())
    cifar = os.path.join(root, "cifar-10-batches-py")
    os.makedirs(cifar, exist_ok=True)
    for fname in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        with open(os.path.join(cifar, fname), "wb") as f:
            pickle.dump({"data": rng.randint(0, 256, (2, 3072)).astype(np.uint8), "labels": [1, 7]}, f)
    with open(os.path.join(cifar, "batches.meta"), "wb") as f:
        pickle.dump({"label_names": ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
                                     "truck"]}, f)
    for cls in ("cat", "dog"):
        os.makedirs(os.path.join(root, "folder", cls), exist_ok=True)
        for i in range(2):
            Image.fromarray(rng.randint(0, 256, (10, 12, 3)).astype(np.uint8)).save(os.path.join(root, "folder", cls, f"{i}.png"))


def datasets_scenario():
    import hashlib
    root = os.path.join(out, "data")
    if side == "torch":
        write_fake_files(root)
    to_tensor = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])
    for cls in (datasets.MNIST, datasets.FashionMNIST):
        for train in (True, False):
            ds = cls(root, train=train, transform=to_tensor)
            results[f"{cls.__name__}_{train}_x"] = np.stack([arr(ds[i][0]) for i in range(len(ds))])
            results[f"{cls.__name__}_{train}_y"] = np.array([ds[i][1] for i in range(len(ds))])
            results[f"{cls.__name__}_{train}_data"] = arr(ds.data)

    def md5(f):
        return hashlib.md5(open(os.path.join(root, "cifar-10-batches-py", f), "rb").read()).hexdigest()

    class FakeCIFAR10(datasets.CIFAR10):  # the md5 sums of the fake files, so the integrity check passes
        train_list = [[f"data_batch_{i}", md5(f"data_batch_{i}")] for i in range(1, 6)]
        test_list = [["test_batch", md5("test_batch")]]
        meta = {"filename": "batches.meta", "key": "label_names", "md5": md5("batches.meta")}

    ds = FakeCIFAR10(root, train=True, transform=to_tensor)
    results["cifar_x"] = np.stack([arr(ds[i][0]) for i in range(len(ds))])
    results["cifar_y"] = np.array([ds[i][1] for i in range(len(ds))])
    results["cifar_classes"] = np.array(ds.classes)
    folder = datasets.ImageFolder(os.path.join(root, "folder"), transform=to_tensor)
    results["folder_x"] = np.stack([arr(folder[i][0]) for i in range(len(folder))])
    results["folder_y"] = np.array([folder[i][1] for i in range(len(folder))])
    loader = torch.utils.data.DataLoader(folder, batch_size=3)
    xb, yb = next(iter(loader))
    results["loader_x"], results["loader_y"] = arr(xb), arr(yb)


def utils_scenario():
    x = torch.tensor(np.random.RandomState(0).rand(5, 3, 8, 9).astype(np.float32))
    results["grid"] = arr(make_grid(x, nrow=3, padding=1))
    results["grid_norm"] = arr(make_grid(x * 3 - 1, nrow=2, normalize=True, scale_each=True, pad_value=0.5))
    path = os.path.join(out, f"grid_{side}.png")
    save_image(x, path, nrow=2)
    results["saved_png"] = np.asarray(Image.open(path))


{"resnet18": lambda: model_scenario("resnet18", 2, 64), "resnet18_train": lambda: model_scenario("resnet18", 2, 64, True),
 "mobilenet_v3_small": lambda: model_scenario("mobilenet_v3_small", 1, 64),
 "mobilenet_v3_large": lambda: model_scenario("mobilenet_v3_large", 1, 64),
 "hub_weights": hub_weights, "transforms_v2": transforms_v2, "datasets": datasets_scenario,
 "utils": utils_scenario}[name]()
np.savez(os.path.join(out, f"{name}_{side}.npz"), **results)
print("DONE", name, side, len(results))
