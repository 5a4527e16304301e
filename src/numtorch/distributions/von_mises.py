"""The circular von Mises distribution (mirrors ``torch.distributions.von_mises``)."""
from __future__ import annotations

import math

import numtorch as torch

from .._tensor import Size, Tensor
from . import constraints
from .distribution import Distribution, _LocationFamily
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# polynomial approximations of the modified Bessel functions I0 and I1 (Abramowitz & Stegun 9.8.1-4),
# lowest power first; "small" for x < 3.75 in powers of (x / 3.75)^2, "large" in powers of 3.75 / x
_COEF_SMALL = [
    [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2],
    [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3],
]
_COEF_LARGE = [
    [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1, 0.2635537e-1,
     -0.1647633e-1, 0.392377e-2],
    [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1, 0.2282967e-1, -0.2895312e-1,
     0.1787654e-1, -0.420059e-2],
]


def _eval_poly(y: Tensor, coef) -> Tensor:
    """Horner's rule: ``coef[0] + y * (coef[1] + y * (...))``."""
    result = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def _log_modified_bessel_fn(x: Tensor, order: int = 0) -> Tensor:
    """``log(I_order(x))`` for ``x > 0`` and ``order`` 0 or 1 (differentiable)."""
    if order not in (0, 1):
        raise AssertionError(f"order must be 0 or 1, got {order}")
    y = x / 3.75
    small = _eval_poly(y * y, _COEF_SMALL[order])
    if order == 1:
        small = x.abs() * small
    small = small.log()
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, _COEF_LARGE[order]).log()
    return torch.where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, x):
    """Best & Fisher (1979): rounds of three uniforms per element (``rand((3,) + shape)``) until every
    element is accepted; then wrapped into ``[-pi, pi)`` around ``loc``."""
    done = torch.zeros(x.shape, dtype=torch.bool)
    while not done.all():
        u1, u2, u3 = torch.rand((3,) + tuple(x.shape), dtype=loc.dtype).unbind()
        z = torch.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if accept.any():
            x = torch.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(_LocationFamily, Distribution):
    """Circular distribution of angles with location ``loc`` (any real, read modulo 2 pi) and positive
    ``concentration`` (``torch.distributions.VonMises``). ``mean`` (``loc``, as ``mode``) and ``variance`` are
    the circular ones.

    ``sample`` runs Best and Fisher's rejection sampler in float64 as PyTorch does (the same ``torch.rand``
    calls, so seeded draws equal PyTorch's) and returns ``loc``'s dtype. No ``rsample``, no ``entropy``.
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * torch.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)

    @lazy_property
    def _loc(self) -> Tensor:
        return self.loc.to(torch.double)

    @lazy_property
    def _concentration(self) -> Tensor:
        return self.concentration.to(torch.double)

    @lazy_property
    def _proposal_r(self) -> Tensor:
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho**2) / (2 * rho)
        return torch.where(kappa < 1e-5, 1 / kappa + kappa, proposal_r)  # Taylor expansion for tiny kappa

    def sample(self, sample_shape=Size()):
        """Float64 internally: float32 hangs the sampler for concentrations near 1e-4 (PyTorch issue 88443)."""
        with torch.no_grad():
            shape = self._extended_shape(sample_shape)
            x = torch.empty(shape, dtype=self._loc.dtype)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r, x).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        # as PyTorch: a new instance built by the constructor, re-validated only if this one was asked to be
        validate_args = self.__dict__.get("_validate_args")
        return type(self)(self.loc.expand(batch_shape), self.concentration.expand(batch_shape),
                          validate_args=validate_args)

    @lazy_property
    def variance(self) -> Tensor:
        """The circular variance ``1 - I1(kappa) / I0(kappa)``."""
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()
