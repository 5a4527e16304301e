"""Shape and view ops: view/reshape, transpose/permute, squeeze, expand/repeat, split/unbind/narrow,
clone/contiguous (mirrors the matching ``torch.*`` functions). Copying rearrangements (cat/stack,
flip/roll, triangles, diagonals) are in ``rearrange.py``.

View ops (``view``, ``transpose``, ``expand``, ``narrow``, ``diagonal``, split outputs, ...) return
NumPy views of the input and set ``_view = True`` on their Op, so the result shares memory, version
counter and ``_base`` with its input, as in PyTorch. Every backward is a reshape, a transpose, a
slice or one reduction over whole arrays; none loops over elements.

Tensor methods with varargs forms (``x.view(2, 3)``, ``x.permute(1, 0)``) are the ``*_method``
wrappers at the end; ``_tensor_methods.py`` binds them.
"""
from __future__ import annotations

import functools
import math
import operator
import warnings

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.function import Op
from ._util import dims_arg, unbroadcast, wrap_dim

__all__ = """reshape flatten unflatten permute transpose swapaxes swapdims t movedim moveaxis squeeze unsqueeze
broadcast_to broadcast_tensors repeat_interleave tile split chunk tensor_split unbind narrow select clone
ravel atleast_1d atleast_2d atleast_3d""".split()

_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
         "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
         "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


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


def _check_tensors(tensors, fn):
    if isinstance(tensors, Tensor):
        raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tensors


def _promote(tensors):
    """Cast every tensor to the common dtype (differentiably), as cat/stack do."""
    dt = tensors[0]._data.dtype
    if all(t._data.dtype == dt for t in tensors):
        return tensors
    from .pointwise import cast
    common = functools.reduce(_dtype.promote_types, (t.dtype for t in tensors))
    return [cast(t, common) for t in tensors]


def _out(result, out):
    if out is None:
        return result
    from .pointwise import _out as store
    return store(result, out)


# ------------------------------------------------------------------------------------------------
# view / reshape / flatten
# ------------------------------------------------------------------------------------------------
class ViewBackward0(Op):
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

    def forward(self, a, shape):
        self.shape = a.shape
        return np.reshape(a, shape)

    def backward(self, g):
        return g.reshape(self.shape)


def _view_dtype(t: Tensor, dtype) -> Tensor:
    a, npd = t._data, _dtype.to_np(dtype)
    if npd.itemsize != a.itemsize:
        names = f"{_TYPE[str(a.dtype)]} as {_TYPE[str(npd)]} (different element sizes)"
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
        raise RuntimeError(f"cannot view {_TYPE[str(a.dtype)]} as {_TYPE[str(npd)]}: {e}") from None
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


def reshape(input: Tensor, shape) -> Tensor:
    """``input`` with ``shape``: a view when the strides allow, else a copy (``torch.reshape``).

    One entry may be -1. RuntimeError when the element count differs.
    """
    shape = _infer_size(_ints((shape,), "reshape"), input._data.size)
    if not input._data.flags.c_contiguous:
        try:
            np.reshape(input._data, shape, copy=False)
        except ValueError:
            return UnsafeViewBackward0.apply(input, shape=shape)
    return ViewBackward0.apply(input, shape=shape)


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, other._data.shape)


def flatten(input: Tensor, start_dim=0, end_dim=-1) -> Tensor:
    """Merge dims ``start_dim..end_dim`` into one (``torch.flatten``); a 0-d input becomes 1-d.

    Returns ``input`` itself when ``start_dim == end_dim``; a view when possible, else a copy.
    """
    nd = input._data.ndim
    if nd == 0:
        return reshape(input, (1,))
    s, e = wrap_dim(start_dim, nd), wrap_dim(end_dim, nd)
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
    _view = True

    def forward(self, a, dims):
        self.dims = dims
        return a.transpose(dims)

    def backward(self, g):
        return g.transpose(np.argsort(self.dims))


class TransposeBackward0(Op):
    _view = True

    def forward(self, a, d0, d1):
        self.d = (d0, d1)
        return a.swapaxes(d0, d1)

    def backward(self, g):
        return g.swapaxes(*self.d)


class TBackward0(Op):
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
    return TransposeBackward0.apply(input, d0=wrap_dim(dim0, nd), d1=wrap_dim(dim1, nd))


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    """Transpose of a <= 2-d tensor (``torch.t``); RuntimeError for more dims."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    return TBackward0.apply(input)


def movedim(input: Tensor, source, destination) -> Tensor:
    """Move dims ``source`` to positions ``destination`` (ints or sequences), as a permute view."""
    nd = input._data.ndim
    src = _ints((source,), "movedim", "source")
    dst = _ints((destination,), "movedim", "destination")
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
                           f"contain the same number of dims as destination ({list(dst)} dims)")
    src = tuple(wrap_dim(d, nd) for d in src)
    dst = tuple(wrap_dim(d, nd) for d in dst)
    for name, ds in (("source", src), ("destination", dst)):
        if len(set(ds)) != len(ds):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(ds)})")
    rest = [d for d in range(nd) if d not in src]
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    it = iter(rest)
    order = tuple(o if o is not None else next(it) for o in order)
    return PermuteBackward0.apply(input, dims=order)


moveaxis = movedim


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


def _real_only(self, name):
    if self._data.dtype.kind == "c":
        raise NotImplementedError(f"numtorch: tensor.{name} of a complex tensor (conjugation) is not supported")


def mT_prop(self: Tensor) -> Tensor:
    """``Tensor.mT``: the last two dims swapped; RuntimeError below 2 dims."""
    if self._data.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{self._data.ndim}-D tensor.")
    return TransposeBackward0.apply(self, d0=self._data.ndim - 2, d1=self._data.ndim - 1)


def H_prop(self: Tensor) -> Tensor:
    """``Tensor.H``: conjugate transpose of a matrix (real tensors only)."""
    _real_only(self, "H")
    if self._data.ndim == 0:
        warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return PermuteBackward0.apply(self, dims=())
    if self._data.ndim != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self._data.ndim}-D tensor."
                           f"{' For batches of matrices, consider using tensor.mH' if self._data.ndim > 2 else ''}")
    return TransposeBackward0.apply(self, d0=0, d1=1)


def mH_prop(self: Tensor) -> Tensor:
    """``Tensor.mH``: conjugate transpose of the last two dims (real tensors only)."""
    _real_only(self, "mH")
    if self._data.ndim < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got "
                           f"{self._data.ndim}-D tensor.")
    return TransposeBackward0.apply(self, d0=self._data.ndim - 2, d1=self._data.ndim - 1)


# ------------------------------------------------------------------------------------------------
# squeeze / unsqueeze
# ------------------------------------------------------------------------------------------------
class SqueezeBackward0(Op):
    """squeeze() of all size-1 dims; SqueezeBackward1/2 are the one-dim and dims-tuple forms."""

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
    _view = True

    def forward(self, a, dim):
        self.dim = dim
        return np.expand_dims(a, dim)

    def backward(self, g):
        return np.squeeze(g, axis=self.dim)


def squeeze(input: Tensor, dim=None) -> Tensor:
    """Remove size-1 dims: all of them, or those among ``dim`` (int or tuple) (``torch.squeeze``).

    Dims in ``dim`` whose size is not 1 are left alone; IndexError for a bad dim.
    """
    shp = input._data.shape
    if dim is None:
        return SqueezeBackward0.apply(input, axes=tuple(i for i, s in enumerate(shp) if s == 1))
    if isinstance(dim, (tuple, list)):
        dims = dims_arg(dim, len(shp)) or ()
        return SqueezeBackward2.apply(input, axes=tuple(d for d in dims if shp[d] == 1))
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
        raise RuntimeError(f"expand(torch.{_TYPE[str(input._data.dtype)]}Tensor{{{list(shp)}}}, size={size}): "
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


class RepeatBackward0(Op):
    def forward(self, a, reps):
        self.shape, self.reps = a.shape, reps
        return np.tile(a, reps)

    def backward(self, g):
        # the output is blocks (r0, s0, r1, s1, ...): sum over every r axis
        padded = (1,) * (len(self.reps) - len(self.shape)) + self.shape
        inter = tuple(x for pair in zip(self.reps, padded) for x in pair)
        return g.reshape(inter).sum(axis=tuple(range(0, len(inter), 2))).reshape(self.shape)


def repeat(input: Tensor, repeats) -> Tensor:
    """``input`` tiled ``repeats[i]`` times along each dim, as a copy (``Tensor.repeat``).

    ``len(repeats)`` may exceed ``input.dim()`` (new leading dims); RuntimeError if it is smaller
    or a count is negative.
    """
    reps = _ints((repeats,), "repeat", "repeats")
    shp = input._data.shape
    if len(reps) < len(shp):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    if any(r < 0 for r in reps):
        padded = (1,) * (len(reps) - len(shp)) + shp
        sizes = [r * s for r, s in zip(reps, padded)]
        raise RuntimeError(f"Trying to create tensor with negative dimension {next(s for s in sizes if s < 0)}: "
                           f"{sizes}")
    return RepeatBackward0.apply(input, reps=reps)


def tile(input: Tensor, dims) -> Tensor:
    """``repeat`` with ``dims`` padded by leading ones to ``input.dim()`` (``torch.tile``)."""
    dims = _ints((dims,), "tile", "dims")
    return repeat(input, (1,) * (input._data.ndim - len(dims)) + dims)


class IndexSelectBackward0(Op):
    """repeat_interleave with per-index counts: np.repeat forward, segment sums backward."""

    def forward(self, a, reps, dim):
        self.shape, self.reps, self.dim = a.shape, reps, dim
        return np.repeat(a, reps, axis=dim)

    def backward(self, g):
        out = np.zeros(self.shape, g.dtype)
        nz = self.reps > 0
        if g.shape[self.dim]:
            starts = np.cumsum(self.reps)[nz] - self.reps[nz]
            idx = (slice(None),) * self.dim + (nz,)
            out[idx] = np.add.reduceat(g, starts, axis=self.dim)
        return out


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Repeat each element ``repeats`` times along ``dim`` (flattened when ``dim`` is None).

    ``repeats`` is an int or a 0-d/1-d int tensor (one count per index). With only a tensor
    argument, returns ``arange(n)`` repeated by it (``torch.repeat_interleave(repeats)``).
    RuntimeError for negative counts or a count tensor of the wrong length.
    """
    if repeats is None:
        r = input._data
        return _make(np.repeat(np.arange(r.shape[0], dtype=np.int64), r))
    if dim is None:
        input, dim = flatten(input), 0
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if isinstance(repeats, Tensor):
        r = repeats._data
        if r.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if r.size != 1 and r.size != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {r.size} and input.size({d}) = {n}")
        if (r < 0).any():
            raise RuntimeError("repeats can not be negative")
        return IndexSelectBackward0.apply(input, reps=np.broadcast_to(r.astype(np.int64).reshape(-1), (n,)), dim=d)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    # PyTorch's graph: unsqueeze -> expand -> clone -> view
    shp = input._data.shape
    e = expand(unsqueeze(input, d + 1), shp[:d + 1] + (repeats,) + shp[d + 1:])
    return view(contiguous(e), shp[:d] + (n * repeats,) + shp[d + 1:])


# ------------------------------------------------------------------------------------------------
# split / chunk / unbind / narrow / select
# ------------------------------------------------------------------------------------------------
class SplitBackward0(Op):
    _view = True

    def forward(self, a, bounds, dim):
        self.dim = dim
        edges = [0, *bounds, a.shape[dim]]  # np.split's pieces, by direct slicing (np.split is slow)
        lead = (slice(None),) * dim
        return tuple(a[lead + (slice(lo, hi),)] for lo, hi in zip(edges[:-1], edges[1:]))

    def backward(self, *grads):
        return np.concatenate(grads, axis=self.dim)


class SplitWithSizesBackward0(SplitBackward0):
    pass


def split(tensor: Tensor, split_size_or_sections, dim=0):
    """Views of consecutive pieces along ``dim`` (``torch.split``): of size ``split_size`` each (the
    last may be smaller) or of the listed sizes. RuntimeError when the sizes do not fit."""
    if tensor._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, tensor._data.ndim)
    n = tensor._data.shape[d]
    if isinstance(split_size_or_sections, (tuple, list)):
        sizes = _ints((split_size_or_sections,), "split", "split_size")
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                               f"dimension {d}), but got split_sizes={list(sizes)}")
        return SplitWithSizesBackward0.apply(tensor, bounds=list(np.cumsum(sizes)[:-1]), dim=d)
    size = operator.index(split_size_or_sections)
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    if size == 0:
        if n:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        return SplitBackward0.apply(tensor, bounds=[], dim=d)
    return SplitBackward0.apply(tensor, bounds=list(range(size, n, size)), dim=d)


def chunk(input: Tensor, chunks, dim=0):
    """Split into ``chunks`` views of size ``ceil(n / chunks)`` (fewer if they run out) (``torch.chunk``)."""
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if n == 0:
        return split(input, [0] * chunks, d)
    return split(input, -(-n // chunks), d)


def tensor_split(input: Tensor, indices_or_sections, dim=0):
    """Views split into ``sections`` near-equal parts or at the given ``indices`` (``torch.tensor_split``)."""
    if input._data.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        ios = ios._data.item() if ios._data.ndim == 0 else ios._data.tolist()
    if isinstance(ios, (tuple, list)):
        bounds = [min(max(i if i >= 0 else i + n, 0), n) for i in _ints((ios,), "tensor_split", "indices")]
    else:
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        q, r = divmod(n, ios)
        bounds = list(np.cumsum([q + 1] * r + [q] * (ios - r))[:-1])
    starts = [0] + bounds
    stops = bounds + [n]
    return tuple(SliceBackward0.apply(input, dim=d, start=int(a), stop=int(max(a, b)))
                 for a, b in zip(starts, stops))


class UnbindBackward0(Op):
    _view = True

    def forward(self, a, dim):
        self.dim = dim
        m = np.moveaxis(a, dim, 0)
        return tuple(m[i, ...] for i in range(m.shape[0]))

    def backward(self, *grads):
        return np.stack(grads, axis=self.dim)


def unbind(input: Tensor, dim=0):
    """A tuple of views, one per index along ``dim``, each without that dim (``torch.unbind``)."""
    if input._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return UnbindBackward0.apply(input, dim=wrap_dim(dim, input._data.ndim))


class SliceBackward0(Op):
    _view = True

    def forward(self, a, dim, start, stop):
        self.shape = a.shape
        self.idx = (slice(None),) * dim + (slice(start, stop),)
        return a[self.idx]

    def backward(self, g):
        out = np.zeros(self.shape, g.dtype)
        out[self.idx] = g
        return out


def narrow(input: Tensor, dim, start, length) -> Tensor:
    """The view of ``length`` indices from ``start`` along ``dim`` (``torch.narrow``).

    ``start`` may be negative or a 0-d tensor. RuntimeError for a 0-d input, negative length or a
    range past the end; IndexError for a start out of range.
    """
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    start = operator.index(start)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return SliceBackward0.apply(input, dim=d, start=start, stop=start + length)


class SelectBackward0(Op):
    _view = True

    def forward(self, a, dim, index):
        self.shape = a.shape
        self.idx = (slice(None),) * dim + (index, Ellipsis)  # Ellipsis keeps 0-d results as views
        return a[self.idx]

    def backward(self, g):
        out = np.zeros(self.shape, g.dtype)
        out[self.idx] = g
        return out


def select(input: Tensor, dim, index) -> Tensor:
    """The view at ``index`` along ``dim``, without that dim (``torch.select``); IndexError if out of range."""
    shp = input._data.shape
    if not shp:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, len(shp))
    index = operator.index(index)
    if not -shp[d] <= index < shp[d]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(shp)} at dimension {d}")
    return SelectBackward0.apply(input, dim=d, index=index % shp[d])


# ------------------------------------------------------------------------------------------------
# copies
# ------------------------------------------------------------------------------------------------
class CloneBackward0(Op):
    def forward(self, a, order):
        return np.array(a, order=order, copy=True)

    def backward(self, g):
        return g


def clone(input: Tensor, *, memory_format=None) -> Tensor:
    """A differentiable copy (``torch.clone``); keeps the input's stride order unless asked for a
    contiguous format."""
    order = "K" if memory_format is None or "preserve" in str(memory_format) else "C"
    return CloneBackward0.apply(input, order=order)


def contiguous(self: Tensor, memory_format=None) -> Tensor:
    """``self`` if C-contiguous, else a contiguous differentiable copy (``Tensor.contiguous``)."""
    if self._data.flags.c_contiguous:
        return self
    return CloneBackward0.apply(self, order="C")


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
    return reshape(self, _ints(shape or (kw["shape"],), "reshape", "shape"))


def permute_method(self: Tensor, *dims, **kw) -> Tensor:
    return permute(self, _ints(dims or (kw["dims"],), "permute", "dims"))


def expand_method(self: Tensor, *sizes, **kw) -> Tensor:
    return expand(self, _ints(sizes or (kw["size"],), "expand"))


def repeat_method(self: Tensor, *sizes, **kw) -> Tensor:
    return repeat(self, _ints(sizes or (kw["repeats"],), "repeat", "repeats"))


def tile_method(self: Tensor, *dims, **kw) -> Tensor:
    return tile(self, _ints(dims or (kw["dims"],), "tile", "dims"))

