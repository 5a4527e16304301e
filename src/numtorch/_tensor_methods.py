"""The binding table: every Tensor method and operator, attached in one place.

``_tensor.py`` defines the data structure and knows no ops; each ``_ops/`` family defines
functions whose first argument is the tensor (``add(input, other)``), and this table attaches them
(``Tensor.add = pointwise.add``). Read it to find where any Tensor method lives. It runs once, from
``numtorch/__init__.py``.

Each family block is ``_bind(module, "name name=function ...")``: ``name`` binds
``module.name``; ``name=function`` binds a differently named function (e.g. ``float=float_``).
"""
from __future__ import annotations

from ._ops import creation, indexing, matmul, pointwise as P, rearrange, reduction, shape
from ._ops import _convert, _inplace as _ip, logic as _logic, scatter as _scatter, slicing, sorting, strided
from ._ops import unary as _U
from ._ops import calculus as _calc, cumulative as _cum, statistics as _stats, vectors as _vec
from ._ops import linalg_legacy as _lx, sampling as _sampling, structured_matrices as _structured
from ._ops import complex_ops as _complex, householder as _householder
from ._ops import einsum as _einsum
from ._tensor import Tensor
from .autograd import tensor_api


def _bind(module, spec: str):
    for item in spec.split():
        name, _, fn = item.partition("=")
        setattr(Tensor, name, getattr(module, fn or name))


def _inplace(name, fn):
    """The in-place method ``name`` of op ``fn`` (``add_`` of ``add``), recorded through ``_inplace.inplace``."""
    return _ip.inplace_fn(fn, name)


def _bind_inplace(module, spec: str):
    for name in spec.split():
        setattr(Tensor, name + "_", _inplace(name + "_", getattr(module, name)))


# ---- autograd -----------------------------------------------------------------------------------
_bind(tensor_api, "backward register_hook register_post_accumulate_grad_hook retain_grad requires_grad_ detach "
                  "detach_")

# ---- in-place writes and conversions (_ops/_inplace.py, _ops/_convert.py) ------------------------
_bind(_ip, "copy_ zero_ fill_")
_bind(_convert, "to type_as cpu cuda float=float_ double half bfloat16 long int=int_ short char byte bool=bool_")
_bind(_convert, "cfloat cdouble")

# ---- pointwise: binary arithmetic and binary math ------------------------------------------------
_bind(P, """add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow float_power
         atan2 arctan2 maximum minimum fmax fmin where lerp addcmul addcdiv nan_to_num logaddexp logaddexp2 hypot
         copysign heaviside nextafter ldexp gcd lcm""")
_bind_inplace(P, """add sub mul div pow remainder fmod lerp addcmul addcdiv atan2 maximum minimum floor_divide nan_to_num
         hypot copysign heaviside nextafter ldexp gcd lcm""")
Tensor.subtract_, Tensor.multiply_, Tensor.divide_, Tensor.true_divide_ = Tensor.sub_, Tensor.mul_, Tensor.div_, Tensor.div_
Tensor.where = lambda self, condition, y: P.where(condition, self, y)  # x.where(c, y) is where(c, x, y) (PyTorch)

# ---- unary math ---------------------------------------------------------------------------------
_bind(_U, """neg negative abs absolute sign exp exp2 expm1 log log2 log10 log1p sqrt rsqrt reciprocal square
         sin cos tan asin acos atan arcsin arccos arctan sinh cosh tanh sigmoid relu erf erfinv
         floor ceil trunc fix frac round clamp clip clamp_min clamp_max atanh asinh acosh arctanh arcsinh arccosh
         deg2rad rad2deg frexp sgn positive angle""")
_bind_inplace(_U, """neg abs exp log log1p sqrt rsqrt sin cos tanh sigmoid relu clamp clip clamp_min clamp_max floor ceil
         round trunc reciprocal square sign erf erfinv tan asin acos atan sinh cosh log10 frac exp2 expm1 log2
         atanh asinh acosh arctanh arcsinh arccosh deg2rad rad2deg sgn""")

# ---- comparisons and logic ----------------------------------------------------------------------
_bind(_logic, """eq ne lt le gt ge greater greater_equal less less_equal not_equal
         logical_and logical_or logical_xor logical_not bitwise_and bitwise_or bitwise_xor bitwise_not
         isnan isinf isfinite isclose allclose equal signbit isreal isneginf isposinf all any count_nonzero""")
_bind_inplace(_logic, "eq ne lt le gt ge logical_not logical_and logical_or")
_bind(_logic, "bitwise_left_shift bitwise_right_shift")
_bind_inplace(_logic, "bitwise_left_shift bitwise_right_shift")
# in-place variants PyTorch's OpInfo database runs (issue #16)
_bind_inplace(_logic, "logical_xor bitwise_and bitwise_or bitwise_xor bitwise_not")
_bind(P, "float_power_")

# ---- special functions ----------------------------------------------------------------------------
from ._ops import special as _special  # noqa: E402
_bind(_special, "lgamma digamma xlogy erfc logit polygamma=polygamma_method mvlgamma mvlgamma_ i0 sinc igamma igammac")
for _name in ("lgamma", "digamma", "erfc", "logit", "xlogy", "polygamma", "i0", "sinc", "igamma", "igammac"):
    setattr(Tensor, _name + "_", _inplace(_name + "_", getattr(Tensor, _name)))

# ---- reductions ---------------------------------------------------------------------------------
_bind(reduction, """sum mean nansum nanmean var std prod max min amax amin aminmax argmax argmin logsumexp
         norm""")
_bind(_cum, "cumsum cumprod cumsum_ cumprod_ cummax cummin logcumsumexp")
_bind(_stats, "median quantile nanquantile nanmedian mode histc")
_bind(_calc, "diff")

# ---- linear algebra -----------------------------------------------------------------------------
_bind(matmul, "matmul mm bmm mv dot vdot outer ger addmm addmm_ baddbmm baddbmm_ addmv addmv_ addbmm addbmm_ trace")
_bind(_einsum, "inner")
Tensor.__matmul__ = lambda self, other: matmul.matmul(self, other) if isinstance(other, Tensor) else NotImplemented
Tensor.__rmatmul__ = lambda self, other: matmul.matmul(other, self) if isinstance(other, Tensor) else NotImplemented
_bind(_lx, "det logdet slogdet inverse pinverse matrix_power matrix_exp cholesky svd qr lu lu_solve triangular_solve cholesky_solve cholesky_inverse")
_bind(_vec, "cross renorm")
_bind(_structured, "kron")
_bind(_householder, "geqrf orgqr ormqr")
Tensor.__imatmul__ = Tensor.__matmul__  # PyTorch has no in-place matmul: `a @= b` rebinds a to a new tensor

# ---- sparse COO tensors (_ops/sparse.py; the dense ops above run on them too, see _tensor_sparse.py) ------
from ._ops import sparse as _sparse  # noqa: E402
_bind(_sparse, "to_sparse to_dense coalesce is_coalesced indices values _indices _values sparse_dim dense_dim _nnz "
              "sparse_mask")
Tensor.to_sparse_coo = lambda self: _sparse.to_sparse(self)

# ---- shape and views, strided views, slicing, rearrangements, complex views -----------------------
_bind(shape, """view=view_method view_as reshape=reshape_method reshape_as flatten unflatten ravel
         permute=permute_method transpose swapaxes swapdims t movedim moveaxis squeeze unsqueeze
         expand=expand_method expand_as broadcast_to clone contiguous as_subclass""")
Tensor.T, Tensor.mT = property(shape.T_prop), property(shape.mT_prop)
Tensor.H, Tensor.mH = property(_complex.H_prop), property(_complex.mH_prop)
_bind(strided, "unfold as_strided as_strided_ squeeze_ unsqueeze_ t_ transpose_ swapdims_=transpose_ swapaxes_=transpose_ resize_")
_bind(slicing, "split chunk tensor_split unbind narrow select split_with_sizes hsplit vsplit dsplit")
_bind(rearrange, """repeat=repeat_method tile=tile_method repeat_interleave flip=flip_method fliplr flipud roll rot90
         tril triu diagonal diag diag_embed""")
_bind(_complex, "conj conj_physical resolve_conj is_conj adjoint")
from ._ops import functional_views as _fviews  # noqa: E402
_bind(_fviews, "slice_scatter select_scatter diagonal_scatter as_strided_scatter narrow_copy")

# ---- ops added for issue #16 (each bound from its family file) ---------------------------------------
from ._ops import broadcasting as _bcast, distance as _dist  # noqa: E402
_bind(_bcast, "sum_to_size")
_bind(_vec, "addr")
Tensor.addr_ = _inplace("addr_", _vec.addr)
_bind(_stats, "cov corrcoef")
_bind(_dist, "dist")
_bind(_scatter, "put")
Tensor.put_ = _inplace("put_", _scatter.put)
_bind(indexing, "index_reduce")
Tensor.index_reduce_ = _inplace("index_reduce_", indexing.index_reduce)
_bind(rearrange, "diagflat")
from ._ops import histograms as _hist  # noqa: E402
_bind(_hist, "histogram")
from ._ops import stft as _stft  # noqa: E402
_bind(_stft, "stft istft")
_bind_inplace(rearrange, "tril triu")  # in-place variants PyTorch's OpInfo database runs (issue #16)
_bind_inplace(_vec, "renorm")
_bind_inplace(_complex, "conj_physical")
Tensor.real, Tensor.imag = property(_complex.real), property(_complex.imag)
from ._ops import aten_internals as _aten  # noqa: E402
_bind(_aten, "resolve_neg unsafe_chunk unsafe_split unsafe_split_with_sizes resize_as_ nonzero_static")

# ---- indexing, gather/scatter, sorting ----------------------------------------------------------
_bind(indexing, """index_select index_add index_fill index_copy index_put masked_fill masked_select masked_scatter
         masked_fill_ masked_scatter_ index_add_ index_fill_ index_copy_ index_put_""")
Tensor.__getitem__, Tensor.__setitem__ = indexing.getitem, indexing.setitem
Tensor.__iter__, Tensor.__contains__ = indexing.iter_, indexing.contains
_bind(_scatter, "gather scatter scatter_add scatter_reduce take take_along_dim scatter_ scatter_add_ scatter_reduce_")
_bind(sorting, "nonzero argwhere topk sort argsort msort kthvalue unique unique_consecutive bincount")

# ---- creation from an existing tensor (new_*) ---------------------------------------------------
_bind(creation, "new_zeros new_ones new_full new_empty new_empty_strided new_tensor")

# ---- nn kernels that PyTorch also exposes as Tensor methods -------------------------------------
from ._ops import nn_ops  # noqa: E402

_bind(nn_ops, "softmax log_softmax prelu hardshrink")


# ---- operators ----------------------------------------------------------------------------------
def _rev(fn):
    return lambda self, other: fn(other, self)


def _rev_checked(fn, name):
    """``_rev`` for the reflected operators PyTorch implements in C: called unbound on a non-Tensor
    (``torch.Tensor.__radd__(2, t)``), TypeError as its method descriptor raises."""
    def reflected(self, other):
        if not isinstance(self, Tensor):
            raise TypeError(f"descriptor '{name}' for 'Tensor' objects doesn't apply to a '{type(self).__name__}' "
                            "object")
        return fn(other, self)
    reflected.__name__ = reflected.__qualname__ = name
    return reflected


Tensor.__add__ = P.add
Tensor.__radd__ = _rev_checked(P.add, "__radd__")
Tensor.__iadd__ = Tensor.add_
Tensor.__sub__ = P.sub
Tensor.__rsub__ = _rev(P.sub)
Tensor.__isub__ = Tensor.sub_
Tensor.__mul__ = P.mul
Tensor.__rmul__ = _rev_checked(P.mul, "__rmul__")
Tensor.__imul__ = Tensor.mul_
Tensor.__truediv__ = P.div


def _rdiv(self, other):
    """``other / self``; PyTorch's (Python) ``__rdiv__`` is ``self.reciprocal() * other``, so called unbound on
    a non-Tensor it raises AttributeError."""
    if not isinstance(self, Tensor):
        raise AttributeError(f"'{type(self).__name__}' object has no attribute 'reciprocal'")
    return P.div(other, self)


Tensor.__rtruediv__ = Tensor.__rdiv__ = _rdiv  # PyTorch keeps Python 2's name too
Tensor.__itruediv__ = Tensor.div_
Tensor.__floordiv__ = P.floor_divide
Tensor.__rfloordiv__ = _rev(P.floor_divide)
Tensor.__ifloordiv__ = Tensor.floor_divide_
Tensor.__mod__ = P.remainder
Tensor.__rmod__ = _rev(P.remainder)
Tensor.__imod__ = Tensor.remainder_
Tensor.__pow__ = P.pow
Tensor.__rpow__ = _rev(P.pow)
Tensor.__ipow__ = Tensor.pow_
Tensor.__neg__ = _U.neg
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = _U.abs
def _invert(self):
    k = self._data.dtype.kind
    if k == "b":
        return _logic.logical_not(self)
    if k not in "iu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return _logic.bitwise_not(self)


Tensor.__invert__ = _invert
Tensor.__and__ = _logic.bitwise_and
Tensor.__rand__ = _rev_checked(_logic.bitwise_and, "__rand__")
Tensor.__or__ = _logic.bitwise_or
Tensor.__ror__ = _rev_checked(_logic.bitwise_or, "__ror__")
Tensor.__xor__ = _logic.bitwise_xor
Tensor.__rxor__ = _rev_checked(_logic.bitwise_xor, "__rxor__")
Tensor.__lshift__ = _logic.bitwise_left_shift
Tensor.__rlshift__ = _rev(_logic.bitwise_left_shift)
Tensor.__ilshift__ = Tensor.bitwise_left_shift_
Tensor.__rshift__ = _logic.bitwise_right_shift
Tensor.__rrshift__ = _rev(_logic.bitwise_right_shift)
Tensor.__irshift__ = Tensor.bitwise_right_shift_
Tensor.__lt__ = _logic.lt
Tensor.__le__ = _logic.le
Tensor.__gt__ = _logic.gt
Tensor.__ge__ = _logic.ge


def _eq(self, other):
    if other is None or isinstance(other, str) or not isinstance(other, (Tensor, int, float, bool, complex)) and not hasattr(other, "__len__"):
        return False
    return _logic.eq(self, other)


def _ne(self, other):
    if other is None or isinstance(other, str) or not isinstance(other, (Tensor, int, float, bool, complex)) and not hasattr(other, "__len__"):
        return True
    return _logic.ne(self, other)


Tensor.__eq__ = _eq
Tensor.__ne__ = _ne
Tensor.__hash__ = object.__hash__  # identity hash in C (the engine hashes leaves in dicts); __eq__ would drop it

# ---- PyTorch's other names of in-place methods (issue #16) -----------------------------------------
Tensor.absolute_, Tensor.negative_, Tensor.fix_ = Tensor.abs_, Tensor.neg_, Tensor.trunc_
Tensor.arccos_, Tensor.arcsin_, Tensor.arctan_, Tensor.arctan2_ = Tensor.acos_, Tensor.asin_, Tensor.atan_, Tensor.atan2_
Tensor.greater_, Tensor.greater_equal_, Tensor.less_, Tensor.less_equal_, Tensor.not_equal_ = \
    Tensor.gt_, Tensor.ge_, Tensor.lt_, Tensor.le_, Tensor.ne_
_bind(_structured, "fill_diagonal_")

# ---- random in-place samplers -------------------------------------------------------------------
_bind(_sampling, "uniform_ normal_ bernoulli_ random_ exponential_ geometric_ log_normal_ cauchy_ "
               "multinomial=multinomial_method bernoulli=bernoulli_method")

# ---- legacy types, pinning ----------------------------------------------------------------------
from . import _tensor_types, _utils_api  # noqa: E402

_bind(_tensor_types, "type=type_method new=new_method")
_bind(_utils_api, "pin_memory is_pinned")

