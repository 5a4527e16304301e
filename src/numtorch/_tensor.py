"""The Tensor data structure (mirrors ``torch.Tensor``), with no ops of its own.

A Tensor holds an ndarray (``_data``), its autograd state (``requires_grad``, ``grad``, ``grad_fn``,
``_output_nr``) and a version counter shared with its views. Math methods and operators
(``__add__``, ``sum``, ...) are attached by ``numtorch/_tensor_methods.py``, the one binding table,
so this file stays a plain data structure that every op module can import.
"""
from __future__ import annotations

import copy
import operator
import warnings

import numpy as np

from . import _dtype, _tensor_storage as _storage
from ._backend import MetaArray, meta
from ._device import CPU, META, check
from ._tensor_sparse import SparseCOO, sparse_coo, strided
from ._tensor_str import tensor_repr

__all__ = ["Tensor", "Size"]

_GRAD_KINDS = "fcV"  # NumPy dtype kinds that can require grad: float, complex, "V" (bfloat16 from ml_dtypes)


class Size(tuple):
    """``torch.Size``: a tuple of ints with PyTorch's repr and ``numel()``."""

    __slots__ = ()

    def __repr__(self):
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __add__(self, other):  # Size + tuple stays a Size, as in PyTorch
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __getitem__(self, item):
        out = tuple.__getitem__(self, item)
        return Size(out) if isinstance(item, slice) else out

    def __reduce__(self):
        return (Size, (tuple(self),))


class Tensor:
    """A multi-dimensional array with autograd (mirrors ``torch.Tensor``).

    Create tensors with ``numtorch.tensor(data)``, ``zeros``, ``randn``, ...; ``Tensor(*sizes)``
    makes an uninitialized float tensor and ``Tensor(sequence)`` copies data, as in PyTorch.
    """

    __slots__ = ("_data", "_rg", "_grad", "grad_fn", "_output_nr", "_vc", "_base", "_view_version", "_hooks",
                 "__dict__", "__weakref__")
    __array_priority__ = 1000  # NumPy scalars/arrays defer to Tensor's reflected operators, as in PyTorch
    _post_accumulate_grad_hooks = None  # a leaf's register_post_accumulate_grad_hook dict (in its __dict__)

    def __init__(self, *args, **kwargs):
        if hasattr(self, "_data"):  # a subclass's __new__ already made it (x.as_subclass(cls)): as in PyTorch,
            return                  # __init__ then changes nothing
        if kwargs.get("device") is not None and check(kwargs["device"]).type != "cpu":
            raise RuntimeError("legacy constructor expects device type: cpu but device type: meta was passed")
        if len(args) == 1 and isinstance(args[0], np.ndarray):
            data = np.array(args[0], dtype=_dtype.float32.np)
        elif len(args) == 1 and isinstance(args[0], Tensor):
            data = args[0]._data
        elif len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            data = np.array(args[0], dtype=_dtype.float32.np)
        else:
            shape = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args or (0,)
            data = np.empty(tuple(int(s) for s in shape), dtype=_dtype.float32.np)
        _make(data, into=self)

    # ----------------------------------------------------------------- metadata
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim=None):
        """``(d0, d1, ...)`` as a ``Size``, or the length of ``dim``; IndexError for a bad dim."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self):
        try:
            return _dtype._NP2DT[self._data.dtype]
        except KeyError:  # e.g. an ml_dtypes bfloat16 array made before numtorch resolved bfloat16
            return _dtype.from_np(self._data.dtype)

    @property
    def device(self):
        return META if type(self._data) is MetaArray else CPU

    @property
    def is_cuda(self):
        return False

    @property
    def is_cpu(self):
        return type(self._data) is not MetaArray

    @property
    def is_meta(self):
        """True for a tensor on the ``meta`` device: a shape and a dtype, no data (docs/meta.md)."""
        return type(self._data) is MetaArray

    # numtorch tensors live on the CPU (or meta) and unquantized: the other devices' and layouts' flags are False
    is_mps = is_xpu = is_quantized = is_mkldnn = is_sparse_csr = is_cuda

    @property
    def is_sparse(self) -> bool:
        """Whether this is a sparse COO tensor (its ``_data`` a ``SparseCOO``, see ``_tensor_sparse.py``)."""
        return type(self._data) is SparseCOO

    @property
    def layout(self):
        return sparse_coo if type(self._data) is SparseCOO else strided

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    def stride(self, dim=None):
        """Strides in elements (not bytes), as PyTorch reports them (a meta tensor: row-major strides)."""
        if type(self._data) is MetaArray:
            st = _contiguous_strides(self._data.shape)
        else:
            st = tuple(s // self._data.itemsize for s in self._data.strides)
        return st if dim is None else st[_wrap_dim(dim, self._data.ndim)]

    def storage_offset(self) -> int:
        if type(self._data) is MetaArray:
            return 0
        base = _storage._owner(self._data)
        off = self._data.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        return off // self._data.itemsize

    def data_ptr(self) -> int:
        if type(self._data) is MetaArray:
            return 0  # as PyTorch's meta tensors: no memory
        return self._data.__array_interface__["data"][0]

    @property
    def nbytes(self) -> int:
        """Bytes of the elements (``numel() * itemsize``), not of the storage."""
        return self._data.nbytes

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    def untyped_storage(self):
        """The memory under this tensor (shared by all its views) as a ``torch.UntypedStorage``."""
        return _storage.UntypedStorage._of(self._data)

    def storage(self):
        """``torch.TypedStorage`` of this tensor's memory; deprecated (warns), as in PyTorch."""
        _storage._typed_storage_warning()
        return _storage.TypedStorage(wrap_storage=self.untyped_storage(), dtype=self.dtype)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Export this tensor's memory through DLPack (shared, not copied), for ``from_dlpack`` in NumPy,
        PyTorch, JAX, ... BufferError for a tensor that requires grad, as in PyTorch."""
        if self._rg:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        kwargs = {} if max_version is None else {"max_version": max_version}
        return self._data.__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()  # (kDLCPU = 1, 0)

    def _is_view(self) -> bool:
        """Whether this tensor is a view of another (``torch.Tensor._is_view``)."""
        return self._base is not None

    def is_contiguous(self, memory_format=None) -> bool:
        """Row-major contiguity; with ``torch.channels_last`` (4-D) / ``channels_last_3d`` (5-D), whether the
        strides are in N, spatial..., C order (memory formats are compared by name: they live above this layer)."""
        name = str(memory_format)
        if name.endswith(("channels_last", "channels_last_3d")):
            nd = 4 if name.endswith("channels_last") else 5
            if self._data.ndim != nd:
                return False
            return self._data.transpose(0, *range(2, nd), 1).flags.c_contiguous
        if type(self._data) is MetaArray:
            return True
        return self._data.flags.c_contiguous

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return self.dtype.is_complex

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None or not self._rg

    def is_inference(self) -> bool:
        """True for a tensor made by an op in inference mode (``torch.Tensor.is_inference``); such a
        tensor's version counter is a list subclass (``autograd.function._InferenceVersion``)."""
        return type(self._vc) is not list

    @property
    def _version(self) -> int:
        return self._vc[0]

    # ----------------------------------------------------------------- autograd state
    @property
    def requires_grad(self) -> bool:
        return self._rg

    @requires_grad.setter
    def requires_grad(self, flag):
        flag = bool(flag)
        if self.grad_fn is not None and self._rg and not flag:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use "
                               "a computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        if flag and self._data.dtype.kind not in _GRAD_KINDS:
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self._rg = flag

    @property
    def grad(self):
        """The accumulated gradient (a Tensor) or None. Reading it on a non-leaf that does not retain
        its gradient warns, as PyTorch does: backward never fills it."""
        if self._grad is None and self.grad_fn is not None and self._rg and not self.retains_grad:
            warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                          "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
                          "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
                          "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
                          "instead. See github.com/pytorch/pytorch/pull/30531 for more information.", stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"assigned grad has data of a different size: expected "
                                   f"{list(self._data.shape)}, got {list(value._data.shape)}")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(f"assigned grad has data of a different type: expected {self.dtype}, "
                                   f"got {value.dtype}")
        self._grad = value

    @property
    def data(self) -> "Tensor":
        """A tensor sharing this one's storage, outside autograd (``torch.Tensor.data``)."""
        return _make(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data

    @property
    def retains_grad(self) -> bool:
        node = self.grad_fn
        return node is not None and self._output_nr in (getattr(node, "_retained", None) or {})

    @property
    def output_nr(self) -> int:
        return self._output_nr

    # ----------------------------------------------------------------- conversion to Python/NumPy
    def numpy(self, *, force=False) -> np.ndarray:
        """The underlying ndarray (shares memory); RuntimeError if it requires grad (unless ``force``)."""
        if type(self._data) is SparseCOO:
            raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")
        if self._rg and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        if type(self._data) is MetaArray:
            raise TypeError("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
                            "to host memory first.")
        return self._data.copy() if force and self._rg else self._data

    def __array__(self, dtype=None, copy=None):
        if type(self._data) is MetaArray:
            self.numpy(force=True)  # raises PyTorch's TypeError
        arr = self.numpy()
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    def item(self):
        """The value of a one-element tensor as a Python number (``torch.Tensor.item``)."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        _no_values(self)
        v = self._data.reshape(()).item() if self._data.dtype.kind != "V" else float(self._data.reshape(()))
        return v

    def tolist(self):
        if type(self._data) is MetaArray:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        if self._data.dtype.kind == "V":
            return self._data.astype(np.float32).tolist()
        return self._data.tolist()

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __bool__(self):
        _no_values(self)
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'no values' if self._data.size == 0 else 'more than one value'} is ambiguous")
        return bool(self._data.reshape(()))

    def __float__(self):
        _no_values(self)
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return float(self._data.reshape(()))

    def __int__(self):
        _no_values(self)
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self._data.reshape(()))

    def __complex__(self):
        _no_values(self)
        return complex(self._data.reshape(()))

    def __index__(self):
        _no_values(self)  # range(meta) would read a zero
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def __format__(self, spec):
        if self._data.ndim == 0:
            return format(self.item(), spec)
        if spec:  # as PyTorch (object.__format__): only 0-d tensors take a format spec
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    __hash__ = object.__hash__  # identity, as PyTorch; C-level so dicts and sets of tensors stay cheap

    def __repr__(self, *, tensor_contents=None):
        return tensor_repr(self)

    # ----------------------------------------------------------------- copying and pickling
    def __deepcopy__(self, memo):
        if self.grad_fn is not None and self._rg:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment.  If you were attempting to deepcopy a module, this may "
                               "be because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        new = _make(self._data.copy(), self._rg, type(self))  # a meta array's copy is a meta array
        memo[id(self)] = new
        if self._grad is not None:
            new._grad = copy.deepcopy(self._grad, memo)
        state = _python_state(self)
        if state:
            new.__dict__.update(copy.deepcopy(state, memo))
        return new

    def __reduce_ex__(self, proto):
        if type(self._data) is MetaArray:  # no data to pickle: the shape and dtype
            return (_rebuild_meta, (self._data.shape, self._data.dtype.str, self._rg, _python_state(self)))
        return (_rebuild_tensor, (self._data, self._rg, _python_state(self)))

    def __setstate__(self, state):
        pass

    # ---- small predicates of PyTorch's surface (issue #16); torch.is_signed & co. are these methods ----
    is_xla = is_ipu = is_vulkan = is_mtia = is_maia = is_nested = is_cuda  # other backends: False

    def is_signed(self) -> bool:
        """Whether the dtype is signed: False for uint8 and bool (``Tensor.is_signed``)."""
        return self.dtype.is_signed

    def is_neg(self) -> bool:
        """False: numtorch negates eagerly, it has no lazy negation bit (``Tensor.is_neg``)."""
        return False

    def is_nonzero(self) -> bool:
        """``bool(self)`` of a one-element tensor; RuntimeError otherwise (``Tensor.is_nonzero``)."""
        return bool(self)

    def is_same_size(self, other) -> bool:
        return tuple(self._data.shape) == tuple(other._data.shape)

    def get_device(self) -> int:
        """The device index: -1 on the CPU (``Tensor.get_device``)."""
        return -1

    def dim_order(self, *, ambiguity_check=False) -> tuple:
        """The dims from outermost to innermost in memory (``Tensor.dim_order``): ``(0, 1, 2, 3)`` for a
        contiguous 4-D tensor, ``(0, 2, 3, 1)`` for channels-last. With ``ambiguity_check=True`` (or a list
        of memory formats), RuntimeError when a size-1 dim or equal strides make the order ambiguous (and
        not exactly one listed format fits); TypeError for another kind of ``ambiguity_check``."""
        strides = self.stride()
        if ambiguity_check is not False:
            formats = ambiguity_check if isinstance(ambiguity_check, list) else []
            if not (ambiguity_check is True or isinstance(ambiguity_check, list)) or any(
                    type(f).__name__ != "memory_format" for f in formats):
                raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
            ambiguous = 1 in self._data.shape or any(a == b for a, b in zip(strides, strides[1:]))
            if ambiguous and sum(self.is_contiguous(memory_format=f) for f in formats) != 1:
                raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the "
                                   "given memory formats.")
        return tuple(sorted(range(self._data.ndim), key=lambda d: -strides[d]))


def _no_values(t):
    """RuntimeError, in PyTorch's words, when a Python value is asked of a meta tensor."""
    if type(t._data) is MetaArray:
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")


def _contiguous_strides(shape) -> tuple:
    st, acc = [], 1
    for n in reversed(shape):
        st.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(st))


def _python_state(t):
    """The user's Python attributes of ``t`` (its ``__dict__``) for pickling and deepcopy, or None;
    post-accumulate-grad hooks stay behind, as in PyTorch (where they are not Python attributes)."""
    d = t.__dict__
    if "_post_accumulate_grad_hooks" in d:
        d = {k: v for k, v in d.items() if k != "_post_accumulate_grad_hooks"}
    return dict(d) or None


def _rebuild_tensor(data, requires_grad, state=None, cls=None):
    t = _make(data.copy() if type(data) is SparseCOO else np.array(data, copy=True), requires_grad, cls or Tensor)
    if state:
        t.__dict__.update(state)
    return t


def _rebuild_meta(shape, dtype, requires_grad, state=None):
    t = _make(meta(shape, np.dtype(dtype)), requires_grad)
    if state:
        t.__dict__.update(state)
    return t


def _make(data, requires_grad=False, cls=Tensor, into=None):
    """Wrap an ndarray as a new leaf Tensor (no copy), without running ``Tensor.__init__``; with
    ``into``, set the slots of that (new) tensor instead. ``Op.apply`` inlines this on its hot path."""
    t = object.__new__(cls) if into is None else into
    t._data = data
    t._rg = requires_grad
    t._grad = t.grad_fn = t._base = t._hooks = None
    t._output_nr = 0
    t._vc = [0]
    return t


def _dim_index(dim):
    try:
        return operator.index(dim)
    except TypeError:
        raise TypeError(f"argument 'dim' must be int, not {type(dim).__name__}") from None


def _wrap_dim(dim, ndim):
    """Normalize a possibly negative ``dim``; IndexError in PyTorch's words when out of range,
    TypeError for a dim that is not an integer (a float, str, None...)."""
    if type(dim) is not int:
        dim = _dim_index(dim)
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= dim <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim + ndim if dim < 0 else dim
