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
from ._ops import complex_ops as _complex
from ._tensor import Tensor
from .autograd import tensor_api


def _bind(module, spec: str):
    for item in spec.split():
        name, _, fn = item.partition("=")
        setattr(Tensor, name, getattr(module, fn or name))


def _inplace(name, fn):
    def method(self, *args, **kwargs):
        return P.inplace(self, fn, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{fn.__name__}``: writes into ``self`` and returns it (``torch.Tensor.{name}``)."
    return method


# ---- autograd -----------------------------------------------------------------------------------
_bind(tensor_api, "backward register_hook retain_grad requires_grad_ detach detach_")

# ---- pointwise: arithmetic, math, comparisons, casts --------------------------------------------
_bind(P, """add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow float_power
         neg negative abs absolute sign exp exp2 expm1 log log2 log10 log1p sqrt rsqrt reciprocal square
         sin cos tan asin acos atan arcsin arccos arctan atan2 arctan2 sinh cosh tanh sigmoid relu erf erfinv
         floor ceil trunc fix frac round clamp clip clamp_min clamp_max maximum minimum fmax fmin where lerp
         addcmul addcdiv eq ne lt le gt ge greater greater_equal less less_equal not_equal
         logical_and logical_or logical_xor logical_not bitwise_and bitwise_or bitwise_xor bitwise_not
         isnan isinf isfinite isclose allclose equal nan_to_num copy_ zero_ fill_
         to type=type_ type_as cpu cuda float=float_ double half bfloat16 long int=int_ short char byte
         bool=bool_""")
for _name in ("add sub mul div pow neg abs exp log log1p sqrt rsqrt sin cos tanh sigmoid relu clamp clip "
              "clamp_min clamp_max floor ceil round trunc remainder fmod lerp addcmul addcdiv reciprocal "
              "square sign erf erfinv tan asin acos atan sinh cosh log10 frac atan2 maximum minimum floor_divide exp2 expm1 log2 nan_to_num "
              "eq ne lt le gt ge logical_not logical_and logical_or").split():
    setattr(Tensor, _name + "_", _inplace(_name + "_", getattr(P, _name)))
Tensor.subtract_, Tensor.multiply_, Tensor.divide_, Tensor.true_divide_ = Tensor.sub_, Tensor.mul_, Tensor.div_, Tensor.div_

# ---- special functions ----------------------------------------------------------------------------
from ._ops import special as _special  # noqa: E402
_bind(_special, "lgamma digamma xlogy erfc logit polygamma=polygamma_method mvlgamma mvlgamma_ i0 sinc igamma igammac")
for _name in ("lgamma", "digamma", "erfc", "logit", "xlogy", "polygamma", "i0", "sinc", "igamma", "igammac"):
    setattr(Tensor, _name + "_", _inplace(_name + "_", getattr(Tensor, _name)))

# ---- reductions ---------------------------------------------------------------------------------
_bind(reduction, """sum mean nansum nanmean var std prod max min amax amin aminmax argmax argmin logsumexp
         norm all any count_nonzero median""")

# ---- linear algebra -----------------------------------------------------------------------------
_bind(matmul, "matmul mm bmm mv dot vdot inner outer ger addmm addmm_ baddbmm baddbmm_ addmv addmv_ addbmm addbmm_ kron trace")
Tensor.__matmul__ = lambda self, other: matmul.matmul(self, other) if isinstance(other, Tensor) else NotImplemented
Tensor.__rmatmul__ = lambda self, other: matmul.matmul(other, self) if isinstance(other, Tensor) else NotImplemented
Tensor.__imatmul__ = Tensor.__matmul__  # PyTorch has no in-place matmul: `a @= b` rebinds a to a new tensor

# ---- shape and views ----------------------------------------------------------------------------
_bind(shape, """view=view_method view_as reshape=reshape_method reshape_as flatten unflatten ravel
         permute=permute_method transpose swapaxes swapdims t movedim moveaxis squeeze unsqueeze
         expand=expand_method expand_as broadcast_to repeat=repeat_method tile=tile_method repeat_interleave
         split chunk tensor_split unbind narrow select clone contiguous""")
_bind(rearrange, "flip=flip_method fliplr flipud roll rot90 tril triu diagonal diag diag_embed")
Tensor.T, Tensor.mT = property(shape.T_prop), property(shape.mT_prop)
Tensor.H, Tensor.mH = property(shape.H_prop), property(shape.mH_prop)
_bind(_complex, "conj conj_physical resolve_conj is_conj")
Tensor.real, Tensor.imag = property(_complex.real), property(_complex.imag)

# ---- indexing, selection, sorting ---------------------------------------------------------------
_bind(indexing, """gather scatter scatter_add scatter_reduce index_select index_add index_fill index_copy index_put
         masked_fill masked_select masked_scatter take take_along_dim nonzero argwhere topk sort argsort msort
         kthvalue unique unique_consecutive bincount masked_fill_ masked_scatter_ scatter_ scatter_add_
         scatter_reduce_ index_add_ index_fill_ index_copy_ index_put_""")
Tensor.__getitem__, Tensor.__setitem__ = indexing.getitem, indexing.setitem
Tensor.__iter__, Tensor.__contains__ = indexing.iter_, indexing.contains

# ---- creation from an existing tensor -----------------------------------------------------------
_bind(creation, "")

# ---- nn kernels that PyTorch also exposes as Tensor methods -------------------------------------
from ._ops import nn_ops  # noqa: E402

_bind(nn_ops, "softmax log_softmax prelu hardshrink")


# ---- operators ----------------------------------------------------------------------------------
def _rev(fn):
    return lambda self, other: fn(other, self)


Tensor.__add__ = P.add
Tensor.__radd__ = _rev(P.add)
Tensor.__iadd__ = Tensor.add_
Tensor.__sub__ = P.sub
Tensor.__rsub__ = _rev(P.sub)
Tensor.__isub__ = Tensor.sub_
Tensor.__mul__ = P.mul
Tensor.__rmul__ = _rev(P.mul)
Tensor.__imul__ = Tensor.mul_
Tensor.__truediv__ = P.div
Tensor.__rtruediv__ = _rev(P.div)
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
Tensor.__neg__ = P.neg
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = P.abs
def _invert(self):
    k = self._data.dtype.kind
    if k == "b":
        return P.logical_not(self)
    if k not in "iu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return P.bitwise_not(self)


Tensor.__invert__ = _invert
Tensor.__and__ = P.bitwise_and
Tensor.__rand__ = _rev(P.bitwise_and)
Tensor.__or__ = P.bitwise_or
Tensor.__ror__ = _rev(P.bitwise_or)
Tensor.__xor__ = P.bitwise_xor
Tensor.__rxor__ = _rev(P.bitwise_xor)
Tensor.__lt__ = P.lt
Tensor.__le__ = P.le
Tensor.__gt__ = P.gt
Tensor.__ge__ = P.ge


def _eq(self, other):
    if other is None or isinstance(other, str) or not isinstance(other, (Tensor, int, float, bool, complex)) and not hasattr(other, "__len__"):
        return False
    return P.eq(self, other)


def _ne(self, other):
    if other is None or isinstance(other, str) or not isinstance(other, (Tensor, int, float, bool, complex)) and not hasattr(other, "__len__"):
        return True
    return P.ne(self, other)


Tensor.__eq__ = _eq
Tensor.__ne__ = _ne
Tensor.__hash__ = object.__hash__  # identity hash in C (the engine hashes leaves in dicts); __eq__ would drop it

# ---- random in-place samplers -------------------------------------------------------------------
from ._ops import sampling as _sampling  # noqa: E402

_bind(_sampling, "uniform_ normal_ bernoulli_ random_ exponential_ geometric_ log_normal_ cauchy_ "
               "multinomial=multinomial_method bernoulli=bernoulli_method")

# ---- new_* creation, strided views, in-place shape changes, legacy types, pinning ---------------
from . import _tensor_types, _utils_api  # noqa: E402
from ._ops import strided  # noqa: E402

_bind(creation, "new_zeros new_ones new_full new_empty new_tensor")
_bind(strided, "unfold as_strided squeeze_ unsqueeze_ t_ transpose_ swapdims_=transpose_ swapaxes_=transpose_ resize_")
_bind(_tensor_types, "type=type_method")
_bind(_utils_api, "pin_memory is_pinned")

# ---- later families: one block each ----
from ._ops import math_extra as _mx  # noqa: E402
_bind(_mx, """atanh asinh acosh arctanh arcsinh arccosh logaddexp logaddexp2 hypot copysign heaviside nextafter
         deg2rad rad2deg frexp ldexp signbit sgn positive angle isreal isneginf isposinf gcd lcm""")
for _name in _mx.INPLACE_METHODS:
    setattr(Tensor, _name + "_", _inplace(_name + "_", getattr(_mx, _name)))
from ._ops import calculus as _calc, cumulative as _cum, statistics as _stats, vectors as _vec  # noqa: E402
_bind(_cum, "cumsum cumprod cumsum_ cumprod_ cummax cummin logcumsumexp")
_bind(_calc, "diff")
_bind(_stats, "quantile nanquantile nanmedian mode histc")
_bind(_vec, "cross renorm")
from ._ops import linalg_legacy as _lx  # noqa: E402
_bind(_lx, "det logdet slogdet inverse pinverse matrix_power matrix_exp cholesky svd qr lu lu_solve triangular_solve cholesky_solve cholesky_inverse")
