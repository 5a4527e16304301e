"""Constraints: the regions where distribution parameters and values are valid
(mirrors ``torch.distributions.constraints``).

A ``Constraint`` has ``check(value)``, which returns a bool tensor of shape ``value.shape[:-event_dim]``
(one flag per event), plus ``is_discrete`` and ``event_dim``. Instances below the classes
(``real``, ``positive``, ``simplex``...) and constructors (``interval(lo, hi)``, ``independent(c, n)``...)
are the public names, as in PyTorch; ``repr`` matches PyTorch's (``GreaterThan(lower_bound=0.0)``).
"""
from __future__ import annotations

import numtorch as torch

__all__ = ["Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property", "greater_than",
           "greater_than_eq", "independent", "integer_interval", "interval", "half_open_interval", "is_dependent",
           "less_than", "lower_cholesky", "lower_triangular", "MixtureSameFamilyConstraint", "multinomial",
           "nonnegative", "nonnegative_integer", "one_hot", "positive", "positive_semidefinite",
           "positive_definite", "positive_integer", "real", "real_vector", "simplex", "square", "stack",
           "symmetric", "unit_interval"]


class Constraint:
    """Abstract base class of constraints: ``check(value)`` -> bool tensor over
    ``sample_shape + batch_shape``; ``is_discrete`` (default False); ``event_dim`` (default 0)."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    """Placeholder for a constraint that depends on other variables; ``check`` raises ValueError.
    ``is_discrete``/``event_dim`` raise NotImplementedError unless given (``dependent(event_dim=1)``)."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint) -> bool:
    """True if ``constraint`` is a ``_Dependent`` (its validity cannot be checked on its own)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """``@dependent_property``: a property on instances, a dependent constraint on the class."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _ConstraintWrapper(Constraint):
    """Base of the constraints built on another one, ``base_constraint`` (AssertionError unless it is a
    ``Constraint``); discrete when that one is."""

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete


class _IndependentConstraint(_ConstraintWrapper):
    """Wrap a constraint so that ``reinterpreted_batch_ndims`` more rightmost dims form one event."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        super().__init__(base_constraint)
        if not isinstance(reinterpreted_batch_ndims, int):
            raise AssertionError(f"reinterpreted_batch_ndims must be an int, got "
                                 f"{type(reinterpreted_batch_ndims).__name__}")
        if reinterpreted_batch_ndims < 0:
            raise AssertionError(f"reinterpreted_batch_ndims must be >= 0, got {reinterpreted_batch_ndims}")
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        result = result.reshape(tuple(result.shape[:result.dim() - self.reinterpreted_batch_ndims]) + (-1,))
        return result.all(-1)

    def __repr__(self):
        return f"{self.__class__.__name__[1:]}({repr(self.base_constraint)}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(_ConstraintWrapper):
    """The constraint of a ``MixtureSameFamily``: checks ``base_constraint`` with the component dim added back."""

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        result = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.dim() < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        keep = value.dim() - self.event_dim
        return result.reshape(tuple(result.shape[:keep]) + (-1,)).all(-1)

    def __repr__(self):
        return f"{self.__class__.__name__}({repr(self.base_constraint)})"


class _Boolean(Constraint):
    """The two values ``{0, 1}``."""
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """One-hot vectors over the last dim."""
    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = (value == 0) | (value == 1)
        return is_boolean.all(-1) & value.sum(-1).eq(1)


class _Bounded(Constraint):
    """Shared ``repr`` of the constraints with bounds: ``Name(lower_bound=..., upper_bound=...)``."""
    _fields = ()

    def __repr__(self):
        args = ", ".join(f"{f}={getattr(self, f)}" for f in self._fields)
        return f"{self.__class__.__name__[1:]}({args})"


class _LowerBounded(_Bounded):
    """A constraint with one bound, ``lower_bound``."""
    _fields = ("lower_bound",)

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()


class _UpperBounded(_Bounded):
    """A constraint with one bound, ``upper_bound``."""
    _fields = ("upper_bound",)

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()


class _TwoBounded(_Bounded):
    """A constraint with both bounds, ``lower_bound`` and ``upper_bound``."""
    _fields = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()


class _IntegerInterval(_TwoBounded):
    """Integers in ``[lower_bound, upper_bound]``."""
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)


class _IntegerLessThan(_UpperBounded):
    """Integers in ``(-inf, upper_bound]``."""
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & (value <= self.upper_bound)


class _IntegerGreaterThan(_LowerBounded):
    """Integers in ``[lower_bound, inf)``."""
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Real(Constraint):
    """The extended real line ``[-inf, inf]`` (False only for NaN)."""

    def check(self, value):
        return value == value


class _GreaterThan(_LowerBounded):
    """``(lower_bound, inf]``."""

    def check(self, value):
        return self.lower_bound < value


class _GreaterThanEq(_LowerBounded):
    """``[lower_bound, inf)``."""

    def check(self, value):
        return self.lower_bound <= value


class _LessThan(_UpperBounded):
    """``[-inf, upper_bound)``."""

    def check(self, value):
        return value < self.upper_bound


class _Interval(_TwoBounded):
    """``[lower_bound, upper_bound]``."""

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)


class _HalfOpenInterval(_Interval):
    """``[lower_bound, upper_bound)``."""

    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    """The unit simplex over the last dim: ``x >= 0`` and ``|x.sum(-1) - 1| < 1e-6``."""
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Non-negative values whose sum over the last dim is at most ``upper_bound``."""
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(dim=-1) & (x.sum(dim=-1) <= self.upper_bound)


def _is_lower(value):
    return (value.tril() == value).reshape(tuple(value.shape[:-2]) + (-1,)).all(-1)


class _LowerTriangular(Constraint):
    """Lower-triangular square matrices."""
    event_dim = 2

    def check(self, value):
        return _is_lower(value)


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal."""
    event_dim = 2

    def check(self, value):
        return _is_lower(value) & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices (rows of unit length)."""
    event_dim = 2

    def check(self, value):
        tol = torch.finfo(value.dtype).eps * value.size(-1) * 10  # 10: PyTorch's fudge factor
        row_norm = torch.linalg.norm(value.detach(), dim=-1)
        unit_row_norm = (row_norm - 1.0).abs().le(tol).all(dim=-1)
        return _LowerCholesky().check(value) & unit_row_norm


class _Square(Constraint):
    """Square matrices."""
    event_dim = 2

    def check(self, value):
        return torch.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1], dtype=torch.bool)


class _Symmetric(_Square):
    """Symmetric square matrices (``isclose`` with ``atol=1e-6``)."""

    def check(self, value):
        square_check = super().check(value)
        if not square_check.all():
            return square_check
        return torch.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices with non-negative eigenvalues."""

    def check(self, value):
        sym_check = super().check(value)
        if not sym_check.all():
            return sym_check
        return torch.linalg.eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with a Cholesky factorization."""

    def check(self, value):
        sym_check = super().check(value)
        if not sym_check.all():
            return sym_check
        return torch.linalg.cholesky_ex(value).info.eq(0)


class _ConstraintSequence(Constraint):
    """Base of ``cat``/``stack``: the constraints ``cseq`` (AssertionError unless all are ``Constraint``)
    applied to slices of a value along ``dim``; discrete when any of them is."""

    def __init__(self, cseq, dim=0):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    def _check_dim(self, value):
        if not -value.dim() <= self.dim < value.dim():
            raise AssertionError(f"dim {self.dim} out of range for value with {value.dim()} dimensions")


class _Cat(_ConstraintSequence):
    """Apply the constraints ``cseq`` to consecutive slices of ``lengths`` along ``dim`` (like ``torch.cat``)."""

    def __init__(self, cseq, dim=0, lengths=None):
        super().__init__(cseq, dim)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        self._check_dim(value)
        checks, start = [], 0
        for constr, length in zip(self.cseq, self.lengths):
            checks.append(constr.check(value.narrow(self.dim, start, length)))
            start = start + length
        return torch.cat(checks, self.dim)


class _Stack(_ConstraintSequence):
    """Apply the constraints ``cseq`` to the slices along ``dim`` (like ``torch.stack``)."""

    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        if self.dim + dim < 0:
            dim += 1
        return dim

    def check(self, value):
        self._check_dim(value)
        vs = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return torch.stack([c.check(v) for v, c in zip(vs, self.cseq)], self.dim)


# Public interface
dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
