"""Pointwise ops: casts, binary arithmetic, where/lerp, comparisons and logic, the in-place machinery
and the dtype conversion methods; the unary math lives in ``unary.py`` and is re-exported here.

Each differentiable op is an ``Op`` (forward/backward on ndarrays, see ``autograd/function.py``);
the public function below it handles type promotion and scalars. Gradients of broadcast operands
are summed back to the operand's shape with ``unbroadcast``.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype
from .._tensor import Tensor, _make
from ..autograd.function import Op, rebase_view
from ..autograd.grad_mode import _State, no_grad
from ._util import bump, check_inplace, prep2, to_tensor, unbroadcast

__all__ = """add sub subtract mul multiply div divide true_divide floor_divide remainder fmod pow float_power atan2 arctan2
maximum minimum fmax fmin where lerp addcmul addcdiv eq ne lt le gt ge greater greater_equal less less_equal
not_equal logical_and logical_or logical_xor logical_not bitwise_and bitwise_or bitwise_xor bitwise_not isnan
isinf isfinite isclose allclose equal nan_to_num""".split()

# ------------------------------------------------------------------------------------------------
# casts
# ------------------------------------------------------------------------------------------------
class ToCopyBackward0(Op):
    def forward(self, a, dtype):
        self.src = a.dtype
        return a.astype(dtype)

    def backward(self, g):
        if g.dtype.kind == "c" and self.src.kind != "c":
            g = g.real  # real -> complex cast: the real input gets the real part
        return g.astype(self.src)


def cast(t: Tensor, dtype) -> Tensor:
    """``t`` converted to ``dtype`` (differentiable between floating types); ``t`` itself if equal."""
    npd = _dtype.to_np(dtype)
    if t._data.dtype == npd:
        return t
    return ToCopyBackward0.apply(t, dtype=npd)


# ------------------------------------------------------------------------------------------------
# binary arithmetic
# ------------------------------------------------------------------------------------------------
def _shape(x):
    return x.shape if isinstance(x, np.ndarray) else ()


def _bshape(a, b):
    try:
        return np.broadcast_shapes(_shape(a), _shape(b))
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({_mismatch(a, b)[0]}) must match the size of tensor b "
                           f"({_mismatch(a, b)[1]}) at non-singleton dimension {_mismatch(a, b)[2]}") from None


def _mismatch(a, b):
    sa, sb = _shape(a), _shape(b)
    n = max(len(sa), len(sb))
    sa, sb = (1,) * (n - len(sa)) + tuple(sa), (1,) * (n - len(sb)) + tuple(sb)
    for i in range(n - 1, -1, -1):
        if sa[i] != sb[i] and 1 not in (sa[i], sb[i]):
            return sa[i], sb[i], i
    return sa, sb, 0


class _Binary(Op):
    """Shared apply-time checks for broadcasting binary ops. Backward computes only the gradients
    that have somewhere to go (``_edges[i]`` is None for scalars and inputs without grad)."""

    def forward(self, a, b):
        self.sa = a.shape if type(a) is np.ndarray else ()
        self.sb = b.shape if type(b) is np.ndarray else ()
        try:
            return self._f(a, b)
        except ValueError:
            _bshape(a, b)
            raise


class AddBackward0(_Binary):
    @staticmethod
    def _f(a, b):
        return a + b

    def backward(self, g):
        ea, eb = self._edges
        return (unbroadcast(g, self.sa) if ea is not None else None,
                unbroadcast(g, self.sb) if eb is not None else None)


class SubBackward0(_Binary):
    @staticmethod
    def _f(a, b):
        return a - b

    def backward(self, g):
        ea, eb = self._edges
        return (unbroadcast(g, self.sa) if ea is not None else None,
                unbroadcast(-g, self.sb) if eb is not None else None)


def _conj(x):
    """Complex conjugate keeping Python scalars Python scalars (a NumPy scalar would upcast complex64)."""
    return np.conj(x) if isinstance(x, np.ndarray) else x.conjugate()


class MulBackward0(_Binary):
    _saves = (0, 1)

    def _f(self, a, b):
        self.saved = (a, b)
        return a * b

    def backward(self, g):
        a, b = self.saved
        if g.dtype.kind == "c":  # complex: PyTorch's gradient is grad * conj(other)
            a, b = _conj(a), _conj(b)
        ea, eb = self._edges
        return (unbroadcast(g * b, self.sa) if ea is not None else None,
                unbroadcast(g * a, self.sb) if eb is not None else None)


class DivBackward0(_Binary):
    _saves = (0, 1)

    def _f(self, a, b):
        self.saved = (a, b)
        return a / b

    def backward(self, g):
        a, b = self.saved
        if g.dtype.kind == "c":  # complex: grad / conj(b) and -grad * conj(a / b**2)
            a, b = _conj(a), _conj(b)
        gb = None
        ga = g / b
        if self._edges[1] is not None:
            gb = unbroadcast(-ga * a / b, self.sb)
        return (unbroadcast(ga, self.sa) if self._edges[0] is not None else None), gb


class PowBackward0(_Binary):
    _saves = (0, 1, "out")

    def _f(self, a, b):
        out = np.power(a, b)
        self.saved = (a, b, out)
        return out

    def backward(self, g):
        a, b, out = self.saved
        ga = gb = None
        if self._edges[0] is not None:
            if isinstance(b, np.ndarray):
                ga = g * b * np.power(a, b - 1)
            elif b == 0:
                ga = np.zeros_like(g)
            else:
                ga = g * (b * np.power(a, b - 1))
            ga = unbroadcast(ga, self.sa)
        if len(self._edges) > 1 and self._edges[1] is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                la = np.log(a) if isinstance(a, np.ndarray) else np.log(np.asarray(a, out.dtype))
                gb = g * out * np.where((a == 0) & (np.asarray(b) >= 0), 0, la)
            gb = unbroadcast(gb, self.sb)
        return ga, gb


class MaximumBackward0(_Binary):
    _saves = (0, 1)

    def _f(self, a, b):
        self.saved = (a, b)
        return np.maximum(a, b)

    def backward(self, g):
        a, b = self.saved
        # ties split the gradient evenly, as PyTorch does
        w = (a > b) + 0.5 * (a == b)
        return unbroadcast(g * w, self.sa), unbroadcast(g * (1 - w), self.sb)


class MinimumBackward0(_Binary):
    _saves = (0, 1)

    def _f(self, a, b):
        self.saved = (a, b)
        return np.minimum(a, b)

    def backward(self, g):
        a, b = self.saved
        w = (a < b) + 0.5 * (a == b)
        return unbroadcast(g * w, self.sa), unbroadcast(g * (1 - w), self.sb)


class Atan2Backward0(_Binary):
    _saves = (0, 1)

    def _f(self, a, b):
        self.saved = (a, b)
        return np.arctan2(a, b)

    def backward(self, g):
        a, b = self.saved
        d = a * a + b * b
        return unbroadcast(g * b / d, self.sa), unbroadcast(-g * a / d, self.sb)


def _binary(op, a, b):
    a, b = prep2(a, b)
    return op.apply(a, b)


def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other`` with broadcasting and type promotion (``torch.add``)."""
    if alpha != 1:
        other = mul(other, alpha)
    r = AddBackward0.apply(*prep2(input, other))
    return r if out is None else _out(r, out)


def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other`` (``torch.sub``); RuntimeError for bool operands, as in PyTorch."""
    na = isinstance(input, bool) or isinstance(input, Tensor) and input._data.dtype.kind == "b"
    nb = isinstance(other, bool) or isinstance(other, Tensor) and other._data.dtype.kind == "b"
    if na and nb:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    if na or nb:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")
    if alpha != 1:
        other = mul(other, alpha)
    r = SubBackward0.apply(*prep2(input, other))
    return r if out is None else _out(r, out)


subtract = sub


def mul(input, other, *, out=None):
    """Elementwise product with broadcasting (``torch.mul``)."""
    r = MulBackward0.apply(*prep2(input, other))
    return r if out is None else _out(r, out)


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    """True division (integers promote to the default float dtype), or ``rounding_mode`` "trunc"/"floor"."""
    if rounding_mode is not None:
        if rounding_mode == "floor":
            return _out(floor_divide(input, other), out)
        if rounding_mode == "trunc":
            return _out(trunc(true_divide(input, other)) if _is_float(input, other)
                        else _nondiff(lambda x, y: np.trunc(np.true_divide(x, y)).astype(np.result_type(x, y)),
                                      input, other), out)
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    a, b = prep2(input, other)
    if (a._data if isinstance(a, Tensor) else b._data).dtype.kind in "biu":
        dt = _dtype.get_default_dtype()
        a = cast(a, dt) if isinstance(a, Tensor) else a
        b = cast(b, dt) if isinstance(b, Tensor) else b
    return _out(DivBackward0.apply(a, b), out)


true_divide = divide = div


def _is_float(*xs):
    return any(isinstance(x, float) or (isinstance(x, Tensor) and x._data.dtype.kind in "fcV") for x in xs)


def pow(input, exponent, *, out=None):
    """``input ** exponent`` (``torch.pow``); either may be a scalar."""
    if isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        if exponent == 2:
            return _out(SquareBackward.apply(input), out)
        if isinstance(exponent, int) and exponent < 0 and input._data.dtype.kind in "iub":
            raise RuntimeError("Integers to negative integer powers are not allowed.")
    return _out(_binary(PowBackward0, input, exponent), out)


def float_power(input, exponent, *, out=None):
    """``pow`` computed in float64 (``torch.float_power``): the result is always double."""
    to64 = lambda x: cast(x, _dtype.float64) if isinstance(x, Tensor) else x  # noqa: E731
    return pow(to64(input), to64(exponent), out=out)


def maximum(input, other, *, out=None):
    return _out(_binary(MaximumBackward0, input, other), out)


def minimum(input, other, *, out=None):
    return _out(_binary(MinimumBackward0, input, other), out)


fmax, fmin = maximum, minimum


def atan2(input, other, *, out=None):
    a, b = prep2(input, other)
    if (a._data if isinstance(a, Tensor) else b._data).dtype.kind in "biu":  # integers give the default float
        dt = _dtype.get_default_dtype()
        a = cast(a, dt) if isinstance(a, Tensor) else a
        b = cast(b, dt) if isinstance(b, Tensor) else b
    return _out(Atan2Backward0.apply(a, b), out)


arctan2 = atan2


def _nondiff(fn, a, b=None):
    """Run a non-differentiable NumPy function on Tensor/scalar operands; result never requires grad."""
    if b is None:
        return _make(np.asarray(fn(a._data)))
    a, b = prep2(a, b)
    x = a._data if isinstance(a, Tensor) else a
    y = b._data if isinstance(b, Tensor) else b
    try:
        return _make(np.asarray(fn(x, y)))
    except ValueError:
        _bshape(x, y)
        raise


def floor_divide(input, other, *, out=None):
    """``input // other`` rounding toward negative infinity (``torch.floor_divide``); no gradient."""
    return _out(_nondiff(np.floor_divide, input, other), out)


def remainder(input, other, *, out=None):
    """Python-style modulus (sign of the divisor), as ``torch.remainder``; gradient 1 w.r.t. input."""
    a, b = prep2(input, other)
    if isinstance(a, Tensor) and a._rg and _State.enabled:
        return _out(sub(a, mul(floor_divide(a.detach(), b), b)), out)
    return _out(_nondiff(np.mod, a, b), out)


def fmod(input, other, *, out=None):
    a, b = prep2(input, other)
    if isinstance(a, Tensor) and a._rg and _State.enabled:
        q = _nondiff(lambda x, y: np.trunc(np.true_divide(x, y)).astype(np.result_type(x, y)), a.detach(), b)
        return _out(sub(a, mul(q, b)), out)
    return _out(_nondiff(np.fmod, a, b), out)


# ------------------------------------------------------------------------------------------------
# where / lerp
# ------------------------------------------------------------------------------------------------
class WhereBackward0(Op):
    def forward(self, cond, a, b):
        self.cond = cond
        self.sa, self.sb = _shape(a), _shape(b)
        return np.where(cond, a, b)

    def backward(self, g):
        c = self.cond
        ga = unbroadcast(np.where(c, g, 0), self.sa) if self._edges[1] is not None else None
        gb = unbroadcast(np.where(c, 0, g), self.sb) if self._edges[2] is not None else None
        return None, ga, gb


def where(condition, input=None, other=None, *, out=None):
    """``torch.where(condition, input, other)``: elementwise select with broadcasting.

    ``where(condition)`` alone returns ``condition.nonzero(as_tuple=True)``.
    """
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    if isinstance(condition, Tensor) and condition._data.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_ATEN_NAMES[condition.dtype.name]}")
    a, b = prep2(input, other) if (isinstance(input, Tensor) or isinstance(other, Tensor)) else (
        to_tensor(input), to_tensor(other))
    if not isinstance(a, Tensor):
        a = _make(np.asarray(a, b._data.dtype))
    if not isinstance(b, Tensor):
        b = _make(np.asarray(b, a._data.dtype))
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    try:
        np.broadcast_shapes(cond.shape, a._data.shape, b._data.shape)
    except ValueError:
        raise RuntimeError(f"where: shapes {list(cond.shape)}, {list(a._data.shape)} and {list(b._data.shape)} "
                           f"cannot be broadcast together") from None
    return _out(WhereBackward0.apply(cond, a, b), out)


def lerp(input, end, weight, *, out=None):
    """``input + weight * (end - input)`` (``torch.lerp``)."""
    return _out(add(input, mul(weight, sub(end, input))), out)


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    return _out(add(input, mul(mul(tensor1, tensor2), value)), out)


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    return _out(add(input, mul(div(tensor1, tensor2), value)), out)


# ------------------------------------------------------------------------------------------------
# comparisons and logic (never differentiable)
# ------------------------------------------------------------------------------------------------
def _cmp(fn, name):
    def op(input, other, *, out=None):
        return _out(_nondiff(fn, input, other), out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``torch.{name}`` with broadcasting; returns a bool tensor."
    return op


eq, ne = _cmp(np.equal, "eq"), _cmp(np.not_equal, "ne")
lt, le, gt, ge = _cmp(np.less, "lt"), _cmp(np.less_equal, "le"), _cmp(np.greater, "gt"), _cmp(np.greater_equal, "ge")
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
logical_and, logical_or, logical_xor = (_cmp(np.logical_and, "logical_and"), _cmp(np.logical_or, "logical_or"),
                                        _cmp(np.logical_xor, "logical_xor"))


_ATEN_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
               "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
               "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _bitwise(fn, name):
    def op(input, other, *, out=None):
        a, b = prep2(input, other)
        x = a._data if isinstance(a, Tensor) else a
        y = b._data if isinstance(b, Tensor) else b
        if any(isinstance(v, (float, np.floating)) or (isinstance(v, np.ndarray) and v.dtype.kind in "fcV")
               for v in (x, y)):
            fl = next(v for v in (x, y) if np.result_type(v).kind in "fcV")
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for "
                                      f"'{_ATEN_NAMES.get(str(np.result_type(fl)), 'Float')}'")
        return _out(_make(np.asarray(fn(x, y))), out)
    op.__name__ = op.__qualname__ = name
    return op


bitwise_and, bitwise_or, bitwise_xor = (_bitwise(np.bitwise_and, "bitwise_and"), _bitwise(np.bitwise_or, "bitwise_or"),
                                        _bitwise(np.bitwise_xor, "bitwise_xor"))


def bitwise_not(input, *, out=None):
    if input._data.dtype.kind in "fcV":
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for "
                                  f"'{_ATEN_NAMES.get(str(input._data.dtype), 'Float')}'")
    return _out(_make(np.invert(input._data)), out)


def logical_not(input, *, out=None):
    return _out(_make(np.logical_not(input._data)), out)


def isnan(input):
    return _make(np.isnan(input._data))


def isinf(input):
    return _make(np.isinf(input._data))


def isfinite(input):
    return _make(np.isfinite(input._data))


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _make(np.isclose(input._data, to_tensor(other)._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return bool(np.allclose(input._data, to_tensor(other)._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input, other) -> bool:
    """True if both tensors have the same shape and elements (``torch.equal``)."""
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


class NanToNumBackward0(Op):
    """nan -> ``nan``, +inf -> ``posinf``, -inf -> ``neginf`` (dtype max/min by default); the gradient passes
    where the input is finite and is 0 elsewhere, as in PyTorch."""
    _saves = (0,)

    def forward(self, a, nan, posinf, neginf):
        self.saved = a
        return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)

    def backward(self, g):
        return g * np.isfinite(self.saved), None, None, None


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """``torch.nan_to_num``: replace nan/+inf/-inf; differentiable (zero gradient at replaced entries)."""
    if input._data.dtype.kind not in "fcV":
        return _out(_make(input._data.copy()), out)
    return _out(NanToNumBackward0.apply(input, nan, posinf, neginf), out)


# ------------------------------------------------------------------------------------------------
# out= and in-place forms
# ------------------------------------------------------------------------------------------------
def _out(result, out):
    """Write ``result`` into ``out`` (resized to its shape) and return ``out``. RuntimeError, as PyTorch,
    when the result's dtype category can't be cast to ``out``'s (float into int, int into bool, ...)."""
    if out is None:
        return result
    if not _can_cast(result._data.dtype, out._data.dtype):
        raise RuntimeError(f"result type {_ATEN_NAMES[result.dtype.name]} can't be cast to the desired output "
                           f"type {_ATEN_NAMES[out.dtype.name]}")
    if out._data.shape != result._data.shape:
        out._data = np.empty(result._data.shape, out._data.dtype)
    copy_(out, result)
    return out


def _can_cast(src, dst):
    cat = lambda d: 0 if d.kind == "b" else 1 if d.kind in "iu" else 3 if d.kind == "c" else 2  # noqa: E731
    return cat(src) <= cat(dst)


def inplace(self: Tensor, result_fn, *args, **kwargs) -> Tensor:
    """Run ``result_fn(self, *args)`` out of place and write the result into ``self``'s storage.

    Keeps views aliased (the write goes through the shared ndarray) and bumps the version counter.
    Under autograd, the op is recorded on a copy of ``self``'s old value and ``self`` becomes its
    output, as PyTorch rebases history; when ``self`` is a view, its base's history is rebased
    too (``CopySlices``), so gradients reach both the written region and the rest of the base.
    RuntimeError for a leaf (or a view of a leaf) that requires grad, and for a result dtype that
    cannot be cast to ``self``'s (e.g. float into an int tensor).
    """
    if len(args) == 1 and not kwargs and result_fn in _FAST_INPLACE and _fast_inplace(self, result_fn, args[0]):
        return self
    check_inplace(self)
    base = self._base
    if base is not None and base._rg and base.grad_fn is None and _State.enabled:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    track = _State.enabled and (self._rg or any(isinstance(a, Tensor) and a._rg for a in args))
    if not track:
        with no_grad():
            res = result_fn(self, *args, **kwargs)
        _store(self, res)
        return self
    src = _make(self._data.copy(), self._rg)
    src.grad_fn, src._output_nr = self.grad_fn, self._output_nr
    res = result_fn(src, *args, **kwargs)
    _store(self, res)
    if res._rg:
        self.grad_fn, self._output_nr, self._rg = res.grad_fn, res._output_nr, True
        if base is not None:
            rebase_view(self, res)
    return self


def _fast_inplace(self, fn, other) -> bool:
    """``self.add_(other)`` and friends outside autograd, as one ufunc writing into ``self``'s memory.

    Taken only when nothing is recorded (grad mode off, or no operand requires grad), ``other`` is a
    Python number or a tensor of ``self``'s dtype, and the result keeps ``self``'s dtype; returns
    False (nothing written) otherwise, and the general path runs with its checks and messages.
    """
    if _State.enabled and (self._rg or isinstance(other, Tensor) and other._rg):
        return False
    d = self._data
    k = d.dtype.kind
    ts = type(other)
    if ts is float or ts is int:
        if not (k in "fc" or (ts is int and k in "iu" and fn is not div)):
            return False
    elif isinstance(other, Tensor):
        if other._data.dtype != d.dtype or k not in "fciu" or (k in "iu" and fn is div):
            return False
        other = other._data
    else:
        return False
    try:
        _FAST_INPLACE[fn](d, other, out=d)
    except ValueError:  # shapes that do not broadcast into self: the general path raises PyTorch's error
        return False
    self._vc[0] += 1
    return True


_FAST_INPLACE = {add: np.add, sub: np.subtract, mul: np.multiply, div: np.true_divide}


def _store(self, res):
    if not self._data.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    if not _can_cast(res._data.dtype, self._data.dtype):
        raise RuntimeError(f"result type {_ATEN_NAMES[res.dtype.name]} can't be cast to the desired output "
                           f"type {_ATEN_NAMES[self.dtype.name]}")
    if res._data.shape != self._data.shape:
        try:
            np.broadcast_to(res._data, self._data.shape)
        except ValueError:
            raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                               f"{list(res._data.shape)}") from None
    np.copyto(self._data, res._data, casting="unsafe")
    bump(self)


def copy_(self: Tensor, src, non_blocking=False) -> Tensor:
    """Copy ``src`` (broadcast, cast) into ``self`` in place (``Tensor.copy_``); differentiable w.r.t. src."""
    src = to_tensor(src)
    def result(s, x):
        x = cast(x, s.dtype) if x._data.dtype != s._data.dtype else x
        return add(mul(s, 0), x) if (s._rg or x._rg) and _State.enabled else x
    return inplace(self, result, src)


def zero_(self: Tensor) -> Tensor:
    check_inplace(self)
    self._data[...] = 0
    bump(self)
    return self


def fill_(self: Tensor, value) -> Tensor:
    check_inplace(self)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        value = value.item()
    self._data[...] = value
    bump(self)
    return self


# ------------------------------------------------------------------------------------------------
# dtype/device conversion methods: to, type, float, double, ...
# ------------------------------------------------------------------------------------------------
def _parse_to(args, kwargs):
    from .._device import device as _Device
    dtype = kwargs.get("dtype")
    device = kwargs.get("device")
    for a in args:
        if isinstance(a, _dtype.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (str, _Device, int)) and a is not None:
            device = a
        elif a is not None:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
    return dtype, device


def to(self: Tensor, *args, **kwargs) -> Tensor:
    """``to(dtype)``, ``to(device)``, ``to(other)``, ``to(device, dtype)``: ``self`` if nothing changes.

    RuntimeError for devices without a backend (``"cuda"``).
    """
    from .._device import check
    dtype, device = _parse_to(args, kwargs)
    check(device)
    if dtype is None or self._data.dtype == dtype.np:
        if kwargs.get("copy"):
            from .shape import clone
            return clone(self)
        return self
    return cast(self, dtype)


def _caster(d, name):
    def fn(self, memory_format=None):
        return cast(self, d)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``self.to({d})`` (``torch.Tensor.{name}``)."
    return fn


float_ = _caster(_dtype.float32, "float")
double = _caster(_dtype.float64, "double")
half = _caster(_dtype.float16, "half")
bfloat16 = _caster(_dtype.bfloat16, "bfloat16")
long = _caster(_dtype.int64, "long")
int_ = _caster(_dtype.int32, "int")
short = _caster(_dtype.int16, "short")
char = _caster(_dtype.int8, "char")
byte = _caster(_dtype.uint8, "byte")
bool_ = _caster(_dtype.bool, "bool")

_TYPE_NAMES = {"torch.FloatTensor": _dtype.float32, "torch.DoubleTensor": _dtype.float64,
               "torch.HalfTensor": _dtype.float16, "torch.BFloat16Tensor": _dtype.bfloat16,
               "torch.LongTensor": _dtype.int64, "torch.IntTensor": _dtype.int32,
               "torch.ShortTensor": _dtype.int16, "torch.CharTensor": _dtype.int8,
               "torch.ByteTensor": _dtype.uint8, "torch.BoolTensor": _dtype.bool}


def type_(self: Tensor, dtype=None, non_blocking=False, **kwargs):
    """``t.type()`` returns the type string (e.g. ``'torch.FloatTensor'``); ``t.type(dtype)`` casts."""
    if dtype is None:
        inv = {v: k for k, v in _TYPE_NAMES.items()}
        return inv.get(self.dtype, "torch.Tensor")
    if isinstance(dtype, str):
        if dtype not in _TYPE_NAMES:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _TYPE_NAMES[dtype]
    return cast(self, dtype)


def type_as(self: Tensor, other: Tensor) -> Tensor:
    return cast(self, other.dtype)


def cpu(self: Tensor, memory_format=None) -> Tensor:
    return self


def cuda(self: Tensor, device=None, non_blocking=False, memory_format=None) -> Tensor:
    from .._device import check
    check("cuda")


# The unary math family (exp, log, tanh, clamp, ...) lives in unary.py; it uses the binary ops above,
# so it is imported last and re-exported: pointwise.exp is unary.exp.
from .unary import *  # noqa: E402,F401,F403
from .unary import SquareBackward, trunc  # noqa: E402,F401  (used by pow and div above)
from . import unary as _unary  # noqa: E402

__all__ = __all__ + _unary.__all__

