"""Ready-made parametrizations (mirrors ``torch.nn.utils.parametrizations``): ``weight_norm``,
``spectral_norm`` and ``orthogonal``, each registered with :mod:`.parametrize`, so the state_dict
keys read ``parametrizations.weight.original`` (or ``original0``/``original1``)."""
from __future__ import annotations

from enum import Enum, auto

from ..._ops.creation import eye, zeros_like
from ..._ops.householder import geqrf, householder_product
from ..._ops.linalg import matrix_exp, solve
from ..._ops.matmul import mv, vdot
from ..._ops.rearrange import cat
from ..._ops.sampling import randn
from ..._tensor import Tensor
from ..._utils_api import finfo
from ...autograd.grad_mode import no_grad
from ..functional import normalize
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---------------------------------------------------------------------------------------------- weight norm
class _WeightNorm(Module):
    """``weight = g * v / ||v||`` from the originals ``(g, v)``; ``right_inverse`` splits a weight into them."""

    def __init__(self, dim=0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name: str = "weight", dim=0):
    """Parametrize ``module.<name>`` as ``g * v / ||v||`` (``original0`` = ``g``, ``original1`` = ``v``;
    the norm over every dim except ``dim``; ``dim=None`` the whole tensor). Returns ``module``. A
    state_dict saved with the old ``nn.utils.weight_norm`` (``<name>_g``, ``<name>_v``) still loads."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _old_keys_to_new(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_old_keys_to_new)
    return module


# ---------------------------------------------------------------------------------------------- spectral norm
class _SpectralNorm(Module):
    """``weight / sigma``, ``sigma`` the largest singular value estimated by power iteration on the
    buffers ``_u`` and ``_v`` (refined in training mode; 15 iterations at registration)."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(normalize(mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(normalize(mv(weight_mat.mH, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        sigma = vdot(self._u.clone(), mv(weight_mat, self._v.clone()))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12, dim=None):
    """Parametrize ``module.<name>`` as itself divided by its spectral norm (a vector: normalised).
    ``dim`` defaults to 1 for ConvTranspose layers, else 0. Returns ``module``.

    Raises ValueError when the module has no tensor ``<name>``; IndexError for a ``dim`` out of range;
    ValueError for ``n_power_iterations <= 0``.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# ---------------------------------------------------------------------------------------------- orthogonal
class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _is_orthogonal(q: Tensor) -> bool:
    n, k = q.shape[-2:]
    eps = 10.0 * n * finfo(q.dtype).eps
    return bool(((q.mH @ q) - eye(k, dtype=q.dtype)).abs().le(eps).all())


def _make_orthogonal(a: Tensor) -> Tensor:
    """The Q of ``a = QR`` (``a`` tall), signs chosen so that ``diag(R)`` is non-negative."""
    x, tau = geqrf(a)
    q = householder_product(x, tau)
    return q * x.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    """An orthogonal (unitary) matrix from an unconstrained one: through the matrix exponential or the
    Cayley map of a skew-symmetric matrix, or a product of Householder reflectors. With
    ``use_trivialization`` the result is multiplied by the buffer ``base`` (set on assignment), so
    any orthogonal matrix can be assigned."""

    def __init__(self, weight, orthogonal_map: _OrthMaps, *, use_trivialization=True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, x: Tensor) -> Tensor:
        n, k = x.shape[-2:]
        transposed = n < k
        if transposed:
            x, (n, k) = x.mT, (k, n)
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            x = x.tril()
            if n != k:  # embed the tall matrix in a square one
                x = cat([x, x.new_zeros(n, n - k).expand(*x.shape[:-2], -1, -1)], dim=-1)
            a = x - x.mH  # skew-symmetric (skew-Hermitian)
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                q = matrix_exp(a)
            else:
                i = eye(n, dtype=a.dtype)
                q = solve(i.add(a, alpha=-0.5), i.add(a, alpha=0.5))
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (a * a).sum(dim=-2))
            q = householder_product(a, tau)
            # x's diagonal holds the signs +-1 (not differentiated through, hence the cast)
            q = q * x.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            q = self.base @ q
        return q.mT if transposed else q

    def right_inverse(self, q: Tensor) -> Tensor:
        with no_grad():
            if q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {q.shape}.")
            q_init = q
            n, k = q.shape[-2:]
            transpose = n < k
            if transpose:
                q, (n, k) = q.mT, (k, n)
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                              "parametrizations when use_trivialization=False.")
                a, tau = geqrf(q)
                # diag(R) > 0 makes the decomposition unique; LAPACK's tau == 0 marks a skipped reflection
                diag = a.diagonal(dim1=-2, dim2=-1)
                diag.sign_()
                diag[tau == 0.0] *= -1
                return a.mT if transpose else a
            if n == k:
                q = q.clone() if _is_orthogonal(q) else _make_orthogonal(q)
            else:  # complete q to a full n x n orthogonal matrix with random columns
                extra = randn(*(q.shape[:-2] + (n, n - k)), dtype=q.dtype)
                q = _make_orthogonal(cat([q, extra], dim=-1))
            self.base = q
            # -I: householder(zeros) is then I (the diagonal carries the signs)
            neg_id = zeros_like(q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def orthogonal(module, name: str = "weight", orthogonal_map=None, *, use_trivialization: bool = True):
    """Parametrize the matrix (or batch of matrices) ``module.<name>`` to stay orthogonal (unitary).

    ``orthogonal_map``: ``"matrix_exp"`` (default for square or complex), ``"cayley"``, or
    ``"householder"`` (default otherwise). Returns ``module``.

    Raises ValueError when the module has no tensor ``<name>``, it has fewer than 2 dims, or
    ``orthogonal_map`` is unknown (or ``"householder"`` for a complex tensor).
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
