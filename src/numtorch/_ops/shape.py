"""Shape and view ops: view/reshape, transpose/permute, squeeze/unsqueeze, expand/broadcast,
clone/contiguous (mirrors the matching ``torch.*`` functions). Splitting and slicing views
(split/chunk/unbind/narrow/select) are in ``slicing.py``; copying rearrangements (cat/stack,
repeat/tile, flip/roll, triangles, diagonals) in ``rearrange.py``.

View ops (``view``, ``transpose``, ``expand``, ``narrow``, ``diagonal``, split outputs, ...) return
NumPy views of the input and set ``_view = True`` on their Op, so the result shares memory, version
counter and ``_base`` with its input, as in PyTorch. Every backward is a reshape, a transpose, a
slice or one reduction over whole arrays; none loops over elements.

Tensor methods with varargs forms (``x.view(2, 3)``, ``x.permute(1, 0)``) are the ``*_method``
wrappers at the end; ``_tensor_methods.py`` binds them.
"""
from __future__ import annotations

import math
import operator
import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from .._tensor_sparse import SparseCOO
from ..autograd.function import Op
from ._cast import _aten
from ._layout import format_name, laid_out
from ._util import dims_arg, unbroadcast, wrap_dim

__all__ = """reshape flatten unflatten permute transpose swapaxes swapdims t movedim moveaxis squeeze unsqueeze
broadcast_to broadcast_tensors clone ravel atleast_1d atleast_2d atleast_3d""".split()

# ------------------------------------------------------------------------------------------------
# argument helpers
# ------------------------------------------------------------------------------------------------
def _ints(args, fn, arg="size"):
    """``(2, 3)``, ``((2, 3),)`` or ``([2, 3],)`` as a tuple of Python ints; TypeError otherwise."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    for s in args:  # fast path: already Python ints
        if type(s) is not int:
            break
    else:
        return tuple(args)
    out = []
    for i, s in enumerate(args):
        try:
            out.append(operator.index(s))
        except TypeError:
            raise TypeError(f"{fn}(): argument '{arg}' must be tuple of ints, but found element of type "
                            f"{type(s).__name__} at pos {i}") from None
    return tuple(out)


def _infer_size(shape, numel):
    """Replace one ``-1`` in ``shape`` by the size that makes the element count ``numel``."""
    neg, prod = None, 1
    for i, s in enumerate(shape):
        if s == -1:
            if neg is not None:
                raise RuntimeError("only one dimension can be inferred")
            neg = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
        else:
            prod *= s
    if neg is None:
        if prod != numel:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        return shape
    if prod == 0:
        raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                           f"unspecified dimension size -1 can be any value and is ambiguous")
    if numel % prod:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape[:neg] + (numel // prod,) + shape[neg + 1:]


# ------------------------------------------------------------------------------------------------
# view / reshape / flatten
# ------------------------------------------------------------------------------------------------
class ViewBackward0(Op):
    _vmap = "view"  # batching rule kind (func/_batching_rules.py)
    _view = True

    def forward(self, a, shape):
        self.shape = a.shape
        if a.flags.c_contiguous:  # always viewable; ndarray.reshape is the fast path
            return a.reshape(shape)
        try:
            return np.reshape(a, shape, copy=False)
        except ValueError:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) "
                               "instead.") from None

    def backward(self, g):
        return g.reshape(self.shape)


class UnsafeViewBackward0(Op):
    """reshape that had to copy (PyTorch records clone + _unsafe_view)."""
    _vmap = "view"  # batching rule kind (func/_batching_rules.py)

    def forward(self, a, shape):
        self.shape = a.shape
        return np.reshape(a, shape)

    def backward(self, g):
        return g.reshape(self.shape)


def _view_dtype(t: Tensor, dtype) -> Tensor:
    a, npd = t._data, _dtype.to_np(dtype)
    if npd.itemsize != a.itemsize:
        names = f"{_aten(a.dtype)} as {_aten(npd)} (different element sizes)"
        if a.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to view {names}")
        if a.shape[-1] != 1 and a.strides[-1] != a.itemsize:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {names}, but got {t.stride(-1)}")
        ratio = npd.itemsize // a.itemsize
        if ratio > 1 and a.shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} to view {names}, but got "
                               f"{a.shape[-1]}")
    try:
        out = _make(a.view(npd))
    except ValueError as e:
        raise RuntimeError(f"cannot view {_aten(a.dtype)} as {_aten(npd)}: {e}") from None
    out._vc, out._base = t._vc, (t._base if t._base is not None else t)
    out._view_version = t._vc[0]
    return out


def view(input: Tensor, shape) -> Tensor:
    """A view of ``input`` with ``shape`` (one entry may be -1) sharing its memory (``Tensor.view``).

    ``shape`` may instead be a dtype: the same bytes reinterpreted (not differentiable).
    RuntimeError when the element count differs, or when ``input``'s strides make a view impossible
    (e.g. after ``transpose``; use ``reshape``).
    """
    if isinstance(shape, _dtype.dtype):
        return _view_dtype(input, shape)
    return ViewBackward0.apply(input, shape=_infer_size(_ints((shape,), "view"), input._data.size))


def view_as(input: Tensor, other: Tensor) -> Tensor:
    """``input.view(other.shape)`` (``Tensor.view_as``)."""
    return view(input, other._data.shape)


def as_subclass(input: Tensor, cls) -> Tensor:
    """``Tensor.as_subclass(cls)``: an alias of ``input`` (same data, in the same autograd graph through an
    ``AliasBackward0`` node) whose type is ``cls``, a subclass of Tensor. Ops on it return plain Tensors:
    numtorch does not dispatch ``__torch_function__``."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"as_subclass(): argument 'cls' must be a subclass of torch.Tensor, not {cls!r}")
    out = input[...]  # the Ellipsis index: a view recorded as AliasBackward0
    out.__class__ = cls
    return out


def reshape(input: Tensor, shape) -> Tensor:
    """``input`` with ``shape``: a view when the strides allow, else a copy (``torch.reshape``).

    One entry may be -1. RuntimeError when the element count differs.
    """
    shape = _infer_size(_ints((shape,), "reshape"), input._data.size)
    data, full = input._data, shape
    if type(data) is not np.ndarray and hasattr(input, "_phys"):  # batched (vmap): its physical strides decide
        data = input._phys._data
        full = data.shape[:data.ndim - input._data.ndim] + shape
    if not data.flags.c_contiguous:
        try:
            np.reshape(data, full, copy=False)
        except ValueError:
            return UnsafeViewBackward0.apply(input, shape=shape)
    return ViewBackward0.apply(input, shape=shape)


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, other._data.shape)


def flatten(input: Tensor, start_dim=0, end_dim=-1) -> Tensor:
    """Merge dims ``start_dim..end_dim`` into one (``torch.flatten``); a 0-d input becomes 1-d.

    Returns ``input`` itself when ``start_dim == end_dim``; a view when possible, else a copy.
    """
    for i, (name, v) in enumerate((("start_dim", start_dim), ("end_dim", end_dim))):
        if not isinstance(v, int):
            raise TypeError(f"flatten(): argument '{name}' (position {i + 2}) must be int, not {type(v).__name__}")
    nd = input._data.ndim
    s, e = wrap_dim(start_dim, nd), wrap_dim(end_dim, nd)
    if nd == 0:
        return reshape(input, (1,))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shp = input._data.shape
    return reshape(input, shp[:s] + (math.prod(shp[s:e + 1]),) + shp[e + 1:])  # not -1: size-0 inputs


def unflatten(input: Tensor, dim, sizes) -> Tensor:
    """Split dim ``dim`` into ``sizes`` (one may be -1), as a view (``torch.unflatten``)."""
    sizes = _ints((sizes,), "unflatten", "sizes")
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in sizes if s != -1)
    full = tuple(n // known if s == -1 and known else s for s in sizes)
    if math.prod(full) != n or any(s < 0 for s in full):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
                           f"({n}) in the input tensor")
    shp = input._data.shape
    return ViewBackward0.apply(input, shape=shp[:d] + full + shp[d + 1:])


def ravel(input: Tensor) -> Tensor:
    """A contiguous 1-d tensor of ``input``'s elements (a view if already contiguous)."""
    return view(contiguous(input), (-1,))


# ------------------------------------------------------------------------------------------------
# transposes and permutations
# ------------------------------------------------------------------------------------------------
class PermuteBackward0(Op):
    _vmap = "permute"  # batching rule kind (func/_batching_rules.py)
    _view = True

    def forward(self, a, dims):
        self.dims = dims
        return a.transpose(dims)

    def backward(self, g):
        return g.transpose(np.argsort(self.dims))


class TransposeBackward0(Op):
    _vmap = ("dims", "d0", "d1")  # batching rule kind (func/_batching_rules.py)
    _view = True

    def forward(self, a, d0, d1):
        self.d = (d0, d1)
        return a.swapaxes(d0, d1) if a.ndim else a.view()  # a 0-d tensor (dims 0 / -1): itself

    def backward(self, g):
        return g.swapaxes(*self.d) if g.ndim else g


class TBackward0(Op):
    _vmap = "t"  # batching rule kind (func/_batching_rules.py)
    _view = True

    def forward(self, a):
        return a.T

    def backward(self, g):
        return g.T


def permute(input: Tensor, dims) -> Tensor:
    """The view with dims reordered as ``dims`` (``torch.permute``).

    RuntimeError when ``len(dims) != input.dim()`` or a dim repeats; IndexError for a bad dim.
    """
    nd = input._data.ndim
    dims = _ints((dims,), "permute", "dims")
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
                           f"to len(dims) = {len(dims)}")
    dims = tuple(wrap_dim(d, nd) for d in dims)
    if len(set(dims)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return PermuteBackward0.apply(input, dims=dims)


def transpose(input: Tensor, dim0, dim1) -> Tensor:
    """The view with dims ``dim0`` and ``dim1`` swapped (``torch.transpose``); IndexError for a bad dim."""
    nd = input._data.ndim
    if type(dim0) is not int or type(dim1) is not int:  # the arg parser checks both before any range
        for pos, (arg, d) in enumerate((("dim0", dim0), ("dim1", dim1)), 2):
            if not isinstance(d, (int, np.integer)):
                raise TypeError(f"transpose(): argument '{arg}' (position {pos}) must be int, not {type(d).__name__}")
    d0, d1 = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    if nd == 0:  # dims 0 / -1 of a 0-d tensor: itself, as a view
        return reshape(input, ())
    return TransposeBackward0.apply(input, d0=d0, d1=d1)


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    """Transpose of a <= 2-d tensor (``torch.t``); RuntimeError for more dims."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    return TBackward0.apply(input)


def movedim(input: Tensor, source, destination) -> Tensor:
    """Move dims ``source`` to positions ``destination`` (ints or sequences), as a permute view."""
    nd = input._data.ndim
    src, dst = _movedim_args(source, destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
                           f"contain the same number of dims as destination ({list(dst)} dims)")
    src = tuple(wrap_dim(d, nd) for d in src)
    dst = tuple(wrap_dim(d, nd) for d in dst)
    for name, ds in (("source", src), ("destination", dst)):
        if len(set(ds)) != len(ds):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(ds)})")
    if nd == 0:  # dims 0 / -1 of a 0-d tensor: itself, as a view
        return reshape(input, ())
    rest = [d for d in range(nd) if d not in src]
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    it = iter(rest)
    order = tuple(o if o is not None else next(it) for o in order)
    return PermuteBackward0.apply(input, dims=order)


moveaxis = movedim


def _movedim_args(source, destination):
    """``movedim``'s two overloads, (int, int) and (tuple of ints, tuple of ints), as two tuples;
    PyTorch's arg-parser TypeError for anything else (a float, None, an int with a list...)."""
    def kind(x):
        if isinstance(x, (int, np.integer)):
            return "int"
        if isinstance(x, (tuple, list)) and all(isinstance(d, (int, np.integer)) for d in x):
            return "ints"
        return None
    k = kind(source)
    if k is None or kind(destination) != k:
        raise TypeError(f"movedim() received an invalid combination of arguments - got (Tensor, "
                        f"{type(source).__name__}, {type(destination).__name__}), but expected one of:\n"
                        f" * (Tensor input, int source, int destination)\n"
                        f" * (Tensor input, tuple of ints source, tuple of ints destination)\n")
    if k == "int":
        return (int(source),), (int(destination),)
    return tuple(int(d) for d in source), tuple(int(d) for d in destination)


def T_prop(self: Tensor) -> Tensor:
    """``Tensor.T``: all dims reversed (PyTorch warns for dims other than 2)."""
    nd = self._data.ndim
    if nd == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
                      UserWarning, stacklevel=2)
    elif nd != 2:
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                      "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                      "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of "
                      "a tensor.", UserWarning, stacklevel=2)
    return PermuteBackward0.apply(self, dims=tuple(range(nd - 1, -1, -1)))


def mT_prop(self: Tensor) -> Tensor:
    """``Tensor.mT``: the last two dims swapped; RuntimeError below 2 dims."""
    if self._data.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{self._data.ndim}-D tensor.")
    return TransposeBackward0.apply(self, d0=self._data.ndim - 2, d1=self._data.ndim - 1)


# ------------------------------------------------------------------------------------------------
# squeeze / unsqueeze
# ------------------------------------------------------------------------------------------------
class SqueezeBackward0(Op):
    """squeeze() of all size-1 dims; SqueezeBackward1/2 are the one-dim and dims-tuple forms."""
    _vmap = ("dims", "axes")  # batching rule kind (func/_batching_rules.py)

    _view = True

    def forward(self, a, axes):
        self.shape = a.shape
        return np.squeeze(a, axis=axes) if axes else a.view()

    def backward(self, g):
        return g.reshape(self.shape)


class SqueezeBackward1(SqueezeBackward0):
    pass


class SqueezeBackward2(SqueezeBackward0):
    pass


class UnsqueezeBackward0(Op):
    _vmap = ("dims", "dim")  # batching rule kind (func/_batching_rules.py)
    _view = True

    def forward(self, a, dim):
        self.dim = dim
        return np.expand_dims(a, dim)

    def backward(self, g):
        return np.squeeze(g, axis=self.dim)


class _AllDims:
    """The default of ``squeeze``'s ``dim``: no dim given (an explicit ``None`` is a TypeError)."""

    def __repr__(self):
        return "<all dims>"


_ALL_DIMS = _AllDims()


def squeeze(input: Tensor, dim=_ALL_DIMS) -> Tensor:
    """Remove size-1 dims: all of them, or those among ``dim`` (int or tuple) (``torch.squeeze``).

    Dims in ``dim`` whose size is not 1 are left alone; IndexError for a bad dim, TypeError for a
    ``dim`` that is not an int or a tuple of ints (``None`` included, as PyTorch's arg parser).
    """
    shp = input._data.shape
    if dim is _ALL_DIMS:
        return SqueezeBackward0.apply(input, axes=tuple(i for i, s in enumerate(shp) if s == 1))
    if isinstance(dim, (tuple, list)):
        dims = dims_arg(dim, len(shp)) or ()
        return SqueezeBackward2.apply(input, axes=tuple(d for d in dims if shp and shp[d] == 1))  # 0-d: dim 0 ok
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"squeeze() received an invalid combination of arguments - got (Tensor, "
                        f"{type(dim).__name__}), but expected one of:\n * (Tensor input)\n * (Tensor input, int dim)\n"
                        f" * (Tensor input, tuple of ints dim)\n")
    d = wrap_dim(dim, len(shp))
    return SqueezeBackward1.apply(input, axes=(d,) if shp and shp[d] == 1 else ())


def unsqueeze(input: Tensor, dim) -> Tensor:
    """Insert a size-1 dim at ``dim`` (in ``[-input.dim()-1, input.dim()]``), as a view."""
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"unsqueeze(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
    return UnsqueezeBackward0.apply(input, dim=wrap_dim(dim, input._data.ndim + 1))


def atleast_1d(*tensors):
    """Each tensor viewed with at least 1 dim; a tuple when given several (``torch.atleast_1d``)."""
    return _atleast(tensors, lambda x: reshape(x, (1,)) if x._data.ndim == 0 else x)


def atleast_2d(*tensors):
    """Each tensor with at least 2 dims: 0-d -> (1, 1), 1-d (n,) -> (1, n)."""
    def f(x):
        nd = x._data.ndim
        return reshape(x, (1, 1)) if nd == 0 else unsqueeze(x, 0) if nd == 1 else x
    return _atleast(tensors, f)


def atleast_3d(*tensors):
    """Each tensor with at least 3 dims: 0-d -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    def f(x):
        nd = x._data.ndim
        if nd == 0:
            return reshape(x, (1, 1, 1))
        if nd == 1:
            return unsqueeze(unsqueeze(x, 0), -1)
        return unsqueeze(x, -1) if nd == 2 else x
    return _atleast(tensors, f)


def _atleast(tensors, f):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return f(tensors[0])
    if len(tensors) == 1:
        tensors = tensors[0]
    return tuple(f(x) for x in tensors)


# ------------------------------------------------------------------------------------------------
# expand / broadcast / repeat
# ------------------------------------------------------------------------------------------------
class ExpandBackward0(Op):
    _vmap = "view"  # batching rule kind (func/_batching_rules.py)
    _view = True

    def forward(self, a, shape):
        self.shape = a.shape
        if a.size and math.prod(shape) == a.size:  # only size-1 dims added: a writable view, like PyTorch's
            return a.reshape(shape)
        return np.broadcast_to(a, shape)

    def backward(self, g):
        return unbroadcast(g, self.shape)


def _expand_shape(input: Tensor, size):
    shp = input._data.shape
    size = list(size)
    lead = len(size) - len(shp)
    if lead < 0:
        raise RuntimeError(f"expand(torch.{_aten(input._data.dtype)}Tensor{{{list(shp)}}}, size={size}): "
                           f"the number of sizes provided ({len(size)}) must be greater or equal to the number "
                           f"of dimensions in the tensor ({len(shp)})")
    out = []
    for i, s in enumerate(size):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            out.append(s)
            continue
        cur = shp[i - lead]
        if s == -1:
            s = cur
        elif s != cur and (cur != 1 or s < 0):
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                               f"non-singleton dimension {i}.  Target sizes: {size}.  Tensor sizes: {list(shp)}")
        out.append(s)
    return tuple(out)


def expand(input: Tensor, size) -> Tensor:
    """A view with size-1 dims stretched (stride 0) to ``size``; -1 keeps a dim (``Tensor.expand``).

    New dims may be added in front. RuntimeError when a non-singleton dim would change.
    """
    return ExpandBackward0.apply(input, shape=_expand_shape(input, _ints((size,), "expand")))


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other._data.shape)


def broadcast_to(input: Tensor, size) -> Tensor:
    """``input.expand(size)`` (``torch.broadcast_to``)."""
    return expand(input, size)


def broadcast_tensors(*tensors):
    """Expand all tensors to their common broadcast shape (``torch.broadcast_tensors``); a tuple.

    RuntimeError naming the first mismatching dim when the shapes do not broadcast.
    """
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tensors[0]
    shape = ()
    for t in tensors:
        s = t._data.shape
        n = max(len(shape), len(s))
        a, b = (1,) * (n - len(shape)) + shape, (1,) * (n - len(s)) + s
        for i in range(n):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                                   f"non-singleton dimension {i}")
        shape = tuple(y if x == 1 else x for x, y in zip(a, b))
    return tuple(ExpandBackward0.apply(t, shape=shape) for t in tensors)


# ------------------------------------------------------------------------------------------------
# copies
# ------------------------------------------------------------------------------------------------
class CloneBackward0(Op):
    _vmap = "elementwise"  # batching rule kind (func/_batching_rules.py)
    def forward(self, a, memory_format):
        return a.copy() if type(a) is SparseCOO else laid_out(a, memory_format)

    def backward(self, g):
        return g


def clone(input: Tensor, *, memory_format=None) -> Tensor:
    """A differentiable copy (``torch.clone``); keeps the input's stride order unless asked for a
    contiguous format."""
    return CloneBackward0.apply(input, memory_format=memory_format)


def contiguous(self: Tensor, memory_format=None) -> Tensor:
    """``self`` if contiguous in ``memory_format`` (default row-major), else a differentiable copy laid out
    so (``Tensor.contiguous``)."""
    name = "contiguous_format" if memory_format is None else format_name(memory_format)
    if self.is_contiguous(memory_format=None if name in ("contiguous_format", "preserve_format") else name):
        return self
    if name == "preserve_format":
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return CloneBackward0.apply(self, memory_format=name)


# ------------------------------------------------------------------------------------------------
# Tensor-method forms with varargs (bound by _tensor_methods.py)
# ------------------------------------------------------------------------------------------------
def view_method(self: Tensor, *shape, size=None, dtype=None) -> Tensor:
    """``x.view(2, 3)``, ``x.view((2, 3))``, ``x.view(-1)`` or ``x.view(torch.int32)``."""
    if dtype is not None or (len(shape) == 1 and isinstance(shape[0], _dtype.dtype)):
        return _view_dtype(self, dtype if dtype is not None else shape[0])
    shape = _ints(shape if size is None else (size,), "view")
    return ViewBackward0.apply(self, shape=_infer_size(shape, self._data.size))


def reshape_method(self: Tensor, *shape, **kw) -> Tensor:
    return reshape(self, _varargs("reshape", "shape", shape, kw))


def _varargs(name, arg, args, kw):
    """``x.permute(1, 0)`` / ``x.permute((1, 0))`` / ``x.permute(dims=(1, 0))``; PyTorch's TypeError when
    the argument is missing."""
    if not args:
        if arg not in kw:
            raise TypeError(f'{name}() missing 1 required positional arguments: "{arg}"')
        args = (kw[arg],)
    return _ints(args, name, arg)


def permute_method(self: Tensor, *dims, **kw) -> Tensor:
    return permute(self, _varargs("permute", "dims", dims, kw))


def expand_method(self: Tensor, *sizes, **kw) -> Tensor:
    return expand(self, _varargs("expand", "size", sizes, kw))
