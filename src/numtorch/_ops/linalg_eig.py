"""``torch.linalg.eig`` and ``eigvals``: eigenvalues and eigenvectors of general square matrices.

``A = V diag(L) V^-1`` with complex ``L`` and ``V`` (unit-norm columns), from LAPACK's ``?geev`` through
NumPy, as PyTorch (a real input's conjugate pairs come out as NumPy and PyTorch both build them). The
backward is PyTorch's: with ``E_ij = conj(L_j - L_i)`` (1 on the diagonal),

    gA = V^-H (diag(gL) + (V^H gV - V^H V diag(re(V^H gV))) / E) V^H

(off the diagonal for the ``gV`` part), whose real part is taken for real ``A``. It is only defined
for losses that do not depend on each eigenvector's phase: ``Im diag(V^H gV)`` must vanish. The
forward-AD rule is PyTorch's too: ``dP = V^-1 dA V``, ``dL = diag(dP)``, ``dV = V (dP / E)`` (zero
diagonal) less ``V diag(re(V^H V (dP / E)))``, which keeps the columns' norms.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Op
from . import linalg as _la
from .creation import eye

__all__ = ["eig", "eigvals"]

EigResult = _la._result("linalg_eig", "eigenvalues eigenvectors")

_CPLX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


class LinalgEigBackward0(Op):
    _saves = ("out",)
    _graph_recompute = True  # L and V come from _graph_outputs

    def forward(self, a):
        if not np.isfinite(a).all():
            raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
        self.real_input = a.dtype.kind != "c"
        ctype = _CPLX.get(a.dtype, a.dtype)
        w, v = np.linalg.eig(a)
        w, v = w.astype(ctype, copy=False), v.astype(ctype, copy=False)
        self.saved = (w, v)
        return w, v

    def backward(self, gl, gv):
        w, v = self.saved
        if self._graph:  # create_graph: the same formula on boxes of the outputs (twice differentiable)
            w, v = self._graph_outputs(w, v)
        n = w.shape[-1]
        eye = np.eye(n, dtype=v.dtype)
        vh = _la._mH(v)
        g = None
        if gv is not None:
            vhgv = vh @ gv
            d = np.einsum("...ii->...i", vhgv)
            if (np.abs(d.imag) > 1e-2).any():  # V is complex for real A too
                raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case are specified up to "
                                   "multiplication by e^{i phi}. The specified loss function depends on this "
                                   "quantity, so it is ill-defined.")
            e = np.conj(w[..., None, :] - w[..., :, None]) + eye  # E_ij = conj(L_j - L_i), 1 on the diagonal
            g = (vhgv - vh @ (v * d.real[..., None, :])) / e
        if gl is not None:
            diag = gl[..., None, :] * eye
            g = diag if g is None else g * (1 - eye) + diag
        ga = np.linalg.solve(vh, g @ vh)
        return ga.real if self.real_input else ga

    def jvp(self, da):
        w, v = self.fw_out
        dp = _la.solve(v, da.to(v.dtype) @ v)  # V^-1 dA V
        n = w.shape[-1]
        i = eye(n, dtype=w.dtype)
        gaps = w.unsqueeze(-2) - w.unsqueeze(-1) + i  # E_ij = L_j - L_i, ones on the diagonal (zeroed below)
        dv = v @ (dp / gaps * (1 - i))
        dv = dv - v * (v.mH @ dv).diagonal(0, -2, -1).real.to(v.dtype).unsqueeze(-2)
        return dp.diagonal(0, -2, -1), dv


def eig(A: Tensor, *, out=None):
    """``(eigenvalues, eigenvectors)`` of each square matrix in ``A`` ``(*, n, n)``: complex ``(*, n)`` and
    ``(*, n, n)`` (float32 -> complex64). Differentiable (see the module docstring).

    Raises RuntimeError for non-square or non-float input, or infs/NaNs.
    """
    _la._check(A, "linalg.eig", square=True)
    return EigResult(*LinalgEigBackward0.apply(A))


def eigvals(A: Tensor, *, out=None) -> Tensor:
    """The eigenvalues of ``eig``: complex ``(*, n)``. Differentiable."""
    _la._check(A, "linalg.eigvals", square=True)
    return LinalgEigBackward0.apply(A)[0]
