"""Complex-number views and conjugation: ``torch.view_as_real``/``view_as_complex``, ``real``/``imag``,
``conj``/``conj_physical`` (mirrors the matching ``torch.*`` functions and Tensor attributes).

Gradients follow PyTorch's convention for complex tensors: the gradient of a real loss ``L`` with
respect to ``z`` is ``dL/dRe(z) + i dL/dIm(z)``. ``view_as_real`` and ``view_as_complex`` are then
exact inverses of each other in backward too, and ``real``/``imag`` are ``view_as_real(z)[..., 0]``
and ``[..., 1]``, as PyTorch builds them (so their nodes are ``SelectBackward0``).

Differences from PyTorch: ``conj`` of a complex tensor returns a conjugated copy (PyTorch returns a
lazily conjugated view), so writing into it does not write into the input.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd.forward_ad import jvp_linear
from ..autograd.function import Op
from ._cast import _aten
from ._out import _out as _out_into
from ._util import unbroadcast
from .shape import PermuteBackward0, TransposeBackward0
from .slicing import select

__all__ = ["complex", "polar", "view_as_real", "view_as_complex", "real", "imag", "conj", "conj_physical", "resolve_conj",
           "is_conj", "adjoint"]

_REAL = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64}
_CPLX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


class ComplexBackward0(Op):
    """``real + i * imag``; the gradient of each part is that part of the incoming gradient."""

    def forward(self, re, im):
        out = np.empty(np.broadcast_shapes(re.shape, im.shape), _CPLX[re.dtype])
        out.real, out.imag = re, im
        self.shapes = (re.shape, im.shape)
        return out

    def backward(self, g):
        return unbroadcast(g.real, self.shapes[0]), unbroadcast(g.imag, self.shapes[1])


def complex(real: Tensor, imag: Tensor, *, out=None) -> Tensor:
    """``torch.complex``: the complex tensor ``real + i * imag`` (float32 -> complex64, float64 ->
    complex128; the two broadcast). RuntimeError, in PyTorch's words, for other or mismatched dtypes.
    Differentiable in both parts."""
    if not isinstance(real, Tensor) or not isinstance(imag, Tensor):
        bad = real if not isinstance(real, Tensor) else imag
        raise TypeError(f"complex(): argument '{'real' if bad is real else 'imag'}' must be Tensor, not "
                        f"{type(bad).__name__}")
    rd, idt = real._data.dtype, imag._data.dtype
    if rd != idt:
        raise RuntimeError(f"Expected object of scalar type {_aten(rd)} but got scalar type {_aten(idt)} for "
                           "second argument")
    if rd not in _CPLX:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {_aten(rd)} and "
                           f"{_aten(idt)}")
    if out is not None and out._data.dtype != _CPLX[rd]:
        raise RuntimeError(f"Expected object of scalar type {_aten(np.dtype(_CPLX[rd]))} but got scalar type "
                           f"{_aten(out._data.dtype)} for argument 'out'")
    res = ComplexBackward0.apply(real, imag)
    return res if out is None else _out_into(res, out)


def polar(abs: Tensor, angle: Tensor, *, out=None) -> Tensor:  # noqa: A002 - PyTorch's argument name
    """``abs * (cos(angle) + i sin(angle))`` (``torch.polar``): complex64 from float32, complex128 from
    float64; RuntimeError as ``torch.complex`` for other or mismatched dtypes. Differentiable in both."""
    if not isinstance(abs, Tensor) or not isinstance(angle, Tensor):
        bad = abs if not isinstance(abs, Tensor) else angle
        raise TypeError(f"polar(): argument '{'abs' if bad is abs else 'angle'}' must be Tensor, not "
                        f"{type(bad).__name__}")
    if abs._data.dtype != angle._data.dtype or abs._data.dtype not in _CPLX:
        complex(abs, angle)  # raises PyTorch's RuntimeError for the dtypes
    return complex(abs * angle.cos(), abs * angle.sin(), out=out)


def _pairs_to_complex(g):
    """A ``(..., 2)`` real array as the complex array ``g[..., 0] + i g[..., 1]`` (a view when it can be)."""
    if g.strides[-1] != g.itemsize or any(s % (2 * g.itemsize) for s, n in zip(g.strides[:-1], g.shape) if n > 1):
        g = np.ascontiguousarray(g)
    return g.view(_CPLX[g.dtype])[..., 0]


class ViewAsRealBackward0(Op):
    _view = True

    def forward(self, a):
        # a trailing axis of length 1 can always be reinterpreted as two reals, whatever the strides
        return a[..., None].view(_REAL[a.dtype])

    def backward(self, g):
        if not isinstance(g, np.ndarray):  # create_graph: a gradient box has no memory to reinterpret
            return g[..., 0] + g[..., 1] * 1j
        return _pairs_to_complex(g)


class ViewAsComplexBackward0(Op):
    _view = True

    def forward(self, a):
        return _pairs_to_complex(a)

    def backward(self, g):
        if not isinstance(g, np.ndarray):  # create_graph: a gradient box has no memory to reinterpret
            return np.stack([np.real(g), np.imag(g)], axis=-1)
        return g[..., None].view(_REAL[g.dtype])


class ConjPhysicalBackward0(Op):
    def forward(self, a):
        return np.conj(a)

    backward = forward  # conj is its own adjoint: the gradient is conj(g)
    jvp = jvp_linear  # forward AD: conj is real-linear, the tangent is conj(t) (the fallback would miss the conj)


class ConjBackward0(ConjPhysicalBackward0):
    pass


def view_as_real(input: Tensor) -> Tensor:
    """The ``(..., 2)`` real view of a complex tensor: last dim holds (real, imag) (``torch.view_as_real``).

    complex64 -> float32, complex128 -> float64; shares memory with ``input``. RuntimeError for a
    non-complex tensor.
    """
    if input._data.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return ViewAsRealBackward0.apply(input)


def view_as_complex(input: Tensor) -> Tensor:
    """The complex view of a float tensor whose last dim (size 2) holds (real, imag) (``torch.view_as_complex``).

    float32 -> complex64, float64 -> complex128; shape ``input.shape[:-1]``; shares memory.
    RuntimeError for other dtypes, a 0-d input, a last dim not of size 2 or not of stride 1, or
    another dim with an odd stride, as in PyTorch.
    """
    a = input._data
    if a.dtype not in _CPLX:
        raise RuntimeError(f"view_as_complex is only supported for half, float and double tensors, but got a "
                           f"tensor of scalar type: {_aten(a.dtype)}")
    if a.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if a.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if a.strides[-1] != a.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % (2 * a.itemsize) for s, n in zip(a.strides[:-1], a.shape) if n > 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    return ViewAsComplexBackward0.apply(input)


def real(input: Tensor) -> Tensor:
    """The real part of a complex tensor as a float view (``torch.real`` / ``Tensor.real``); a real
    tensor is returned as is."""
    if input._data.dtype.kind != "c":
        return input
    return select(view_as_real(input), -1, 0)


def imag(input: Tensor) -> Tensor:
    """The imaginary part of a complex tensor as a float view (``torch.imag`` / ``Tensor.imag``).

    RuntimeError for a non-complex tensor, as in PyTorch.
    """
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return select(view_as_real(input), -1, 1)


def conj(input: Tensor) -> Tensor:
    """The complex conjugate (``torch.conj``); a real tensor is returned as is. numtorch returns a
    copy where PyTorch returns a lazily conjugated view."""
    if input._data.dtype.kind != "c":
        return input
    return ConjBackward0.apply(input)


def conj_physical(input: Tensor) -> Tensor:
    """The complex conjugate as a new tensor (``torch.conj_physical``); a real tensor is returned as is."""
    if input._data.dtype.kind != "c":
        return input
    return ConjPhysicalBackward0.apply(input)


def resolve_conj(input: Tensor) -> Tensor:
    """``torch.resolve_conj``: numtorch never has lazily conjugated tensors, so ``input`` itself."""
    return input


def is_conj(input: Tensor) -> bool:
    """``torch.is_conj``: always False (numtorch's ``conj`` materializes the conjugate)."""
    return False


# ------------------------------------------------------------------------------------------------
# conjugate transposes: Tensor.H, Tensor.mH, adjoint
# ------------------------------------------------------------------------------------------------
def H_prop(self: Tensor) -> Tensor:
    """``Tensor.H``: the conjugate transpose of a matrix (a 2-D tensor); a 0-d tensor is conjugated
    (with PyTorch's deprecation warning). RuntimeError for other ranks. Nodes: ``TransposeBackward0``,
    then ``ConjBackward0`` for complex tensors, as PyTorch's graph."""
    nd = self._data.ndim
    if nd == 0:
        warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return conj(PermuteBackward0.apply(self, dims=()))
    if nd != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D tensor."
                           f"{' For batches of matrices, consider using tensor.mH' if nd > 2 else ''}")
    return conj(TransposeBackward0.apply(self, d0=0, d1=1))


def _mH(self, name):
    nd = self._data.ndim
    if nd < 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got {nd}-D tensor.")
    return conj(TransposeBackward0.apply(self, d0=nd - 2, d1=nd - 1))


def mH_prop(self: Tensor) -> Tensor:
    """``Tensor.mH``: the conjugate transpose of the last two dims (the transpose for real tensors).
    Shape ``(*, n, m)`` for an input ``(*, m, n)``; RuntimeError below 2 dims. numtorch's result of a
    complex input is a conjugated copy (PyTorch's is a lazily conjugated view)."""
    return _mH(self, "mH")


def adjoint(input: Tensor) -> Tensor:
    """``torch.adjoint`` / ``Tensor.adjoint()``: the same as ``input.mH``."""
    return _mH(input, "adjoint()")
