"""QR in LAPACK's compact form and products of Householder reflectors: ``torch.geqrf``,
``torch.linalg.householder_product`` (alias ``torch.orgqr``).

``geqrf`` stores ``A = QR`` as ``R`` on and above the diagonal and, below it, the vectors ``v_i`` of
the reflectors ``H_i = I - tau_i v_i v_i^H`` whose product is ``Q`` (``v_i`` has a 1 at row ``i``
and zeros above). ``householder_product(A, tau)`` multiplies the reflectors back out:
``Q = H_1 H_2 ... H_k`` (its first ``n`` columns). ``geqrf`` runs LAPACK through SciPy, as PyTorch
runs LAPACK; ``householder_product`` is written with differentiable ops, so its gradients (any order)
come from autograd.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, _make
from ..autograd.function import Op
from .creation import eye
from .linalg import _check, _result
from .matmul import _aname, matmul
from .rearrange import tril

__all__ = ["geqrf", "householder_product", "orgqr", "ormqr"]

GeqrfResult = _result("geqrf", "a tau")


class GeqrfBackward0(Op):
    """LAPACK's ``?geqrf`` on each matrix; like PyTorch, no derivative."""

    def forward(self, a):
        from scipy.linalg import lapack  # SciPy: slow to import, only needed here
        if a.size == 0:  # an empty matrix or batch: nothing to factor
            return a.copy(), np.zeros(a.shape[:-2] + (min(a.shape[-2:]),), a.dtype)
        flat = a.reshape((-1,) + a.shape[-2:])
        fn = lapack.get_lapack_funcs(("geqrf",), (flat,))[0]
        qr = np.empty_like(flat)
        tau = np.empty(flat.shape[:1] + (min(a.shape[-2:]),), a.dtype)
        for i, m in enumerate(flat):
            out = fn(np.array(m, order="F"))
            qr[i], tau[i] = out[0], out[1]
        return qr.reshape(a.shape), tau.reshape(a.shape[:-2] + tau.shape[-1:])

    def backward(self, *grads):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input: Tensor, *, out=None):
    """``torch.geqrf``: ``(a, tau)`` for ``input`` of shape ``(*, m, n)``: ``a`` ``(*, m, n)`` holds ``R``
    and the reflectors, ``tau`` ``(*, min(m, n))`` their scales. Float or complex.

    Raises RuntimeError for fewer than 2 dims or a non-float dtype; backward raises NotImplementedError.
    """
    if isinstance(input, Tensor) and input._data.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _check(input, "torch.geqrf", arg="input")
    a, tau = GeqrfBackward0.apply(input)
    if out is not None:
        for dst, src in zip(out, (a, tau)):
            dst.resize_(src.shape).copy_(src)
        return GeqrfResult(*out)
    return GeqrfResult(a, tau)


def householder_product(A: Tensor, tau: Tensor, *, out=None) -> Tensor:
    """``torch.linalg.householder_product`` (``torch.orgqr``): the first ``n`` columns of
    ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H``, ``v_i`` the ``i``-th column of ``A`` below the
    diagonal with a 1 on it. ``A`` ``(*, m, n)`` with ``m >= n >= k``, ``tau`` ``(*, k)``; result
    ``(*, m, n)`` in ``A``'s dtype. Differentiable in ``A`` and ``tau``.

    Raises RuntimeError, with PyTorch's messages, for fewer than 2 dims, ``m < n``, ``n < k``, ``tau``
    without exactly one dim less, other batch dims, or another dtype.
    """
    fn = "torch.linalg.householder_product"
    if A._data.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError(f"{fn}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if n < tau.shape[-1] if tau._data.ndim else False:
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tau._data.ndim != A._data.ndim - 1:
        raise RuntimeError(f"{fn}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau._data.ndim} and input.ndim is equal to {A._data.ndim}")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{fn}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"{fn}: tau dtype {_aname(tau._data)} does not match input dtype {_aname(A._data)}")
    _check(A, fn, arg="input")
    vs = tril(A, -1) + eye(m, n, dtype=A.dtype)  # column i is v_i
    q = eye(m, n, dtype=A.dtype).expand(*A.shape)
    # Q = H_1 (H_2 (... (H_k E))): apply the reflectors to the first n columns of I, last one first
    for i in reversed(range(tau.shape[-1])):
        v = vs[..., :, i:i + 1]
        q = q - tau[..., i, None, None] * matmul(v, matmul(v.mH, q))
    if out is not None:
        return out.resize_(q.shape).copy_(q)
    return q


orgqr = householder_product


def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False, *,
          out=None) -> Tensor:
    """``torch.ormqr``: ``other`` (``input3``, ``(*, m, n)``) multiplied by the ``Q`` of ``geqrf``'s reflectors
    (``input`` ``(*, mn, k)``, ``tau = input2`` ``(*, k)``): ``Q C`` (``left``) or ``C Q``, with ``Q^H`` when
    ``transpose``; ``mn`` is ``m`` (left) or ``n``. The reflectors are applied one by one, never forming ``Q``;
    differentiable in all three. RuntimeError, with PyTorch's messages, for mismatched shapes or dtypes."""
    fn = "torch.ormqr"
    A, tau, C = input, input2, input3
    if A._data.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if C._data.ndim < 2:
        raise RuntimeError(f"{fn}: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if tau._data.ndim != A._data.ndim - 1:
        raise RuntimeError(f"{fn}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau._data.ndim} and input.ndim is equal to {A._data.ndim}")
    if tau.shape[-1] != min(C.shape[side], A.shape[-1]):
        raise RuntimeError(f"{fn}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    if C.shape[side] != A.shape[-2]:
        raise RuntimeError(f"{fn}: other.shape[{side}] must be equal to input.shape[-2]")
    if C._data.ndim != A._data.ndim:
        raise RuntimeError(f"{fn}: Expected other to have the same number of dimensions as input, but got "
                           f"other.ndim equal to {C._data.ndim} and input.ndim is equal to {A._data.ndim}")
    for t, what in ((tau, "tau"), (C, "other")):
        if t.dtype != A.dtype:
            raise RuntimeError(f"{fn}: Expected input and {what} to have the same dtype, but input has dtype"
                               f"{_aname(A._data)} and {what} has dtype {_aname(t._data)}")
    _check(A, fn, arg="input")
    mn, k = A.shape[-2], tau.shape[-1]
    vs = tril(A, -1)[..., :k] + eye(mn, k, dtype=A.dtype)  # column i is v_i
    taus = tau.conj() if transpose else tau  # H_i^H = I - conj(tau_i) v_i v_i^H
    # Q = H_1 ... H_k: Q C applies H_k first, Q^H C applies H_1 first; C Q applies H_1 first, C Q^H H_k first
    order = range(k) if left == transpose else reversed(range(k))
    for i in order:
        v, t = vs[..., :, i:i + 1], taus[..., i, None, None]
        C = C - t * matmul(v, matmul(v.mH, C)) if left else C - t * matmul(matmul(C, v), v.mH)
    if out is not None:
        return out.resize_(C.shape).copy_(C)
    return C
