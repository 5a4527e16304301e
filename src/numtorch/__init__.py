"""numtorch: PyTorch's Tensor, autograd, nn, optim, data and serialization, from scratch on NumPy.

``import numtorch as torch`` exposes the ``torch.*`` namespace: tensor creation, math, dtypes,
``no_grad``, ``manual_seed``, ``save``/``load``, and the ``nn``, ``optim``, ``utils.data`` and
``autograd`` packages.
"""
from __future__ import annotations

from .version import __version__  # "2.13.0+numtorch.0.1.0": see version.py

import importlib as _importlib
import warnings as _warnings

newaxis = None  # torch.newaxis, NumPy's spelling of None in indexing

# NumPy's floating-point RuntimeWarnings (log(0), sqrt(-1), overflow) raised inside numtorch's kernels:
# PyTorch returns inf/nan silently, and so does numtorch. Only warnings from numtorch's own modules.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"numtorch(\.|$)")

from math import e, inf, nan, pi  # torch.e, torch.pi, torch.inf, torch.nan: Python floats, as in PyTorch

from . import _dtype
from ._device import device, get_default_device, set_default_device
from ._dtype import (bfloat16, bool, complex64, complex128, dtype, float16, float32, float64,  # noqa: A004
                     get_default_dtype, int8, int16, int32, int64, promote_types, result_type,
                     set_default_dtype, uint8, uint16, uint32, uint64)
from ._tensor import Size, Tensor
from . import _tensor_methods  # noqa: F401  (attaches every Tensor method and operator)
from ._ops.creation import *  # noqa: F401,F403
from ._ops.pointwise import *  # noqa: F401,F403
from ._ops.unary import *  # noqa: F401,F403
from ._ops.logic import *  # noqa: F401,F403
from ._ops.reduction import *  # noqa: F401,F403
from ._ops.matmul import *  # noqa: F401,F403
from ._ops.einsum import *  # noqa: F401,F403
from ._ops.shape import *  # noqa: F401,F403
from ._ops.slicing import *  # noqa: F401,F403
from ._ops.strided import *  # noqa: F401,F403
from ._ops.rearrange import *  # noqa: F401,F403
from ._ops.indexing import *  # noqa: F401,F403
from ._ops.coordinates import *  # noqa: F401,F403
from ._ops.scatter import *  # noqa: F401,F403
from ._ops.sorting import *  # noqa: F401,F403
from ._ops.conv import *  # noqa: F401,F403
from ._ops.nn_ops import *  # noqa: F401,F403
from ._ops.dropout import *  # noqa: F401,F403
from ._ops.embedding import *  # noqa: F401,F403
from ._ops.norm_ops import *  # noqa: F401,F403
from ._ops.losses import *  # noqa: F401,F403
from ._ops import meta_rules as _meta_rules  # noqa: F401,E402  (shape rules of heavy ops on meta tensors)
from ._ops.special import *  # noqa: F401,F403
from ._ops.complex_ops import *  # noqa: F401,F403
from ._ops.resample import channel_shuffle  # noqa: E402,F401
from ._ops.distance import *  # noqa: E402,F401,F403
from ._ops.cumulative import *  # noqa: E402,F401,F403
from ._ops.statistics import *  # noqa: E402,F401,F403
from ._ops.calculus import *  # noqa: E402,F401,F403
from ._ops.vectors import *  # noqa: E402,F401,F403
from ._ops.combinatorics import *  # noqa: E402,F401,F403
from ._ops.structured_matrices import *  # noqa: E402,F401,F403
from ._ops.householder import geqrf, orgqr, ormqr  # noqa: E402,F401
from ._ops.linalg_legacy import *  # noqa: E402,F401,F403
from ._ops.functional_views import *  # noqa: E402,F401,F403  (view_copy & co., slice_scatter & co.)
from ._ops.broadcasting import *  # noqa: E402,F401,F403  (broadcast_shapes)
from ._ops.windows import *  # noqa: E402,F401,F403  (hann_window & co.)
from ._ops.histograms import *  # noqa: E402,F401,F403  (histogram, histogramdd)
from ._ops.stft import *  # noqa: E402,F401,F403  (stft, istft)
from ._ops.aten_internals import *  # noqa: E402,F401,F403  (constant_pad_nd, fill, _chunk_cat & co.)
from ._ops.native_norms import *  # noqa: E402,F401,F403  (native_batch_norm & co.)
from ._ops.lowrank import *  # noqa: E402,F401,F403  (svd_lowrank, pca_lowrank)
from ._ops.segment_reduce import *  # noqa: E402,F401,F403  (segment_reduce)
from ._ops import _util as _ops_util  # noqa: E402
from . import autograd
from .autograd import graph_backward as _graph_backward  # noqa: F401,E402  (create_graph=True)
from .autograd import functional as _autograd_functional  # noqa: F401,E402  (torch.autograd.functional)
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .autograd.grad_mode import is_inference_mode_enabled
from .random import *  # noqa: F401,F403
from . import random

import sys as _sys  # noqa: E402

# torch.exp(ndarray) -> TypeError, as in PyTorch, for every op module loaded and the random facade.
# pdist and channel_shuffle check their own input and stay the very objects nn.functional exports
# (torch.pdist is F.pdist).
_w = {}
for _m in sorted(_n for _n in _sys.modules if _n.startswith(__name__ + "._ops.") or _n == __name__ + ".random"):
    _names = [n for n in getattr(_sys.modules[_m], "__all__", ()) if n not in ("pdist", "channel_shuffle")]
    _ops_util.guard_tensor_input(globals(), _names, _w)
del _m, _sys, _w, _names

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


def _tensor_arg(fn, input):
    """``input`` itself, or PyTorch's argument-parser TypeError when it is not a Tensor."""
    if not isinstance(input, Tensor):
        tn = type(input)
        name = tn.__name__ if tn.__module__ == "builtins" else f"{tn.__module__}.{tn.__qualname__}"
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {name}")
    return input


def is_floating_point(input: Tensor) -> "builtins.bool":
    return _tensor_arg("is_floating_point", input).dtype.is_floating_point


def is_complex(input: Tensor) -> "builtins.bool":
    """True if ``input``'s dtype is complex (``torch.is_complex``); TypeError for a non-Tensor."""
    return _tensor_arg("is_complex", input).dtype.is_complex


def numel(input: Tensor) -> "builtins.int":
    return _tensor_arg("numel", input).numel()

from . import serialization
from .serialization import load, save
from . import nn, optim, utils
from .utils.dlpack import from_dlpack  # noqa: E402
from ._tensor_storage import TypedStorage, UntypedStorage  # noqa: E402


def is_storage(obj) -> "builtins.bool":
    """True if ``obj`` is a storage object (``torch.is_storage``)."""
    return isinstance(obj, (TypedStorage, UntypedStorage))

from . import linalg  # torch.linalg (the matmul family is _ops/matmul.py)
from . import func  # torch.func (functorch's transforms)
from . import accelerator, amp, backends, cuda, distributed
from . import jit, multiprocessing, onnx, version  # noqa: E402  (compat: torch.jit/.multiprocessing/.onnx/.version)
from .amp import autocast, is_autocast_enabled
from . import _C, compiler, hub, library  # noqa: E402  (torch._C odds and ends, torch.compiler, offline torch.hub, torch.library)
from .library import ops  # noqa: E402  (torch.ops: Python custom ops; compiled libraries cannot load)
from ._memory_format import *  # noqa: F401,F403,E402  (torch.channels_last ...)
from ._tensor_sparse import layout, strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc  # noqa: E402
from ._ops.sparse import sparse_coo_tensor  # noqa: E402  (sparse COO tensors: docs/sparse.md)
from . import sparse  # noqa: E402  (torch.sparse)
spmm = mm  # torch.spmm: mm with a sparse left operand
from ._checks import *  # noqa: F401,F403,E402  (torch._assert, torch._check*)
from ._torch_functions import *  # noqa: F401,F403,E402  (torch.relu_, torch.max_pool2d, torch.vmap, ... other names)
_LAZY_SUBMODULES = ("distributions", "special", "fft", "profiler")  # imported on first use: keeps imports light
_LAZY_SUBMODULES += ("signal", "masked")  # torch.signal.windows, torch.masked (issue #16)


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, name=None,
            disable=False, recompile_limit=None, isolate_recompiles=False, shapes_spec=None):
    """``torch.compile``: returns ``model`` unchanged (numtorch has no compiler); usable as a decorator."""
    if model is None:
        return lambda m: m
    return model
