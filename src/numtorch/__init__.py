"""numtorch: PyTorch's Tensor, autograd, nn, optim, data and serialization, from scratch on NumPy.

``import numtorch as torch`` exposes the ``torch.*`` namespace: tensor creation, math, dtypes,
``no_grad``, ``manual_seed``, ``save``/``load``, and the ``nn``, ``optim``, ``utils.data`` and
``autograd`` packages.
"""
from __future__ import annotations

from .version import __version__  # "2.13.0+numtorch.0.1.0": see version.py

import warnings as _warnings

# NumPy's floating-point RuntimeWarnings (log(0), sqrt(-1), overflow) raised inside numtorch's kernels:
# PyTorch returns inf/nan silently, and so does numtorch. Only warnings from numtorch's own modules.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"numtorch(\.|$)")

from . import _dtype
from ._device import device
from ._dtype import (bfloat16, bool, complex64, complex128, dtype, float16, float32, float64,  # noqa: A004
                     get_default_dtype, int8, int16, int32, int64, promote_types, result_type,
                     set_default_dtype, uint8)
from ._tensor import Size, Tensor
from . import _tensor_methods  # noqa: F401  (attaches every Tensor method and operator)
from ._ops.creation import *  # noqa: F401,F403
from ._ops.pointwise import *  # noqa: F401,F403
from ._ops.reduction import *  # noqa: F401,F403
from ._ops.linalg import *  # noqa: F401,F403
from ._ops.shape import *  # noqa: F401,F403
from ._ops.strided import *  # noqa: F401,F403
from ._ops.rearrange import *  # noqa: F401,F403
from ._ops.indexing import *  # noqa: F401,F403
from ._ops.conv import *  # noqa: F401,F403
from ._ops.nn_ops import *  # noqa: F401,F403
from ._ops.norm_ops import *  # noqa: F401,F403
from ._ops.losses import *  # noqa: F401,F403
from ._ops.special import *  # noqa: F401,F403
from ._ops.complex_ops import *  # noqa: F401,F403
from ._ops.extra_layers import channel_shuffle, pdist  # noqa: E402,F401
from ._ops.conv3d import conv3d, conv_transpose3d  # noqa: E402,F401
from ._ops.math_extra import *  # noqa: E402,F401,F403
from ._ops.reduction_extra import *  # noqa: E402,F401,F403
from ._ops.linalg_extra import *  # noqa: E402,F401,F403
from ._ops import _util as _ops_util  # noqa: E402
from ._ops import (conv as _c, indexing as _i, linalg as _l, losses as _lo, nn_ops as _n, norm_ops as _no,  # noqa: E402
                   pointwise as _p, reduction as _r, shape as _s, strided as _st)

for _m in (_p, _r, _l, _s, _st, _i, _c, _n, _no, _lo):
    _ops_util.guard_tensor_input(globals(), _m.__all__)  # torch.exp(ndarray) -> TypeError, as in PyTorch
del _m, _c, _i, _l, _lo, _n, _no, _p, _r, _s, _st
from . import autograd
from .autograd import graph_backward as _graph_backward  # noqa: F401,E402  (create_graph=True)
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .autograd.grad_mode import is_inference_mode_enabled
from .random import *  # noqa: F401,F403
from . import random

# PyTorch's dtype aliases
float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16
cfloat = complex64
cdouble = complex128
# Legacy tensor type names, used as constructors and in isinstance checks
from ._tensor_types import *  # noqa: F401,F403,E402
from ._utils_api import *  # noqa: F401,F403,E402  (finfo, iinfo, print options, threads, flags)


def is_tensor(obj) -> "builtins.bool":
    """True if ``obj`` is a numtorch Tensor (``torch.is_tensor``)."""
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> "builtins.bool":
    return input.dtype.is_floating_point


def numel(input: Tensor) -> "builtins.int":
    return input.numel()

from . import serialization
from .serialization import load, save
from . import nn, optim, utils
from . import linalg  # torch.linalg (the matmul family is _ops/linalg.py)
from . import accelerator, amp, backends, cuda, distributed
from . import jit, multiprocessing, onnx, version  # noqa: E402  (compat: torch.jit/.multiprocessing/.onnx/.version)
from .amp import autocast
_LAZY_SUBMODULES = ("distributions", "special", "fft")  # imported on first use: keeps `import numtorch` light


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, name=None,
            disable=False, recompile_limit=None, isolate_recompiles=False, shapes_spec=None):
    """``torch.compile``: returns ``model`` unchanged (numtorch has no compiler); usable as a decorator."""
    if model is None:
        return lambda m: m
    return model
