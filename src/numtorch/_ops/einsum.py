"""Einstein summation (``torch.einsum``), ``torch.tensordot`` and ``torch.inner`` (a tensordot): an equation made explicit (ellipsis spelt
out, implicit output, PyTorch's errors), then one ``np.einsum`` (BLAS for pairwise contractions) whose
backward is another einsum per operand. Integer operands follow PyTorch's result dtype (int64 where its
algorithm sums a subscript away)."""
from __future__ import annotations

import string

import numpy as np

from .._tensor import Tensor, _make
from ..autograd.function import Op
from .matmul import _aname, _check_tensor, _cz
from .pointwise import _out, mul

__all__ = ["einsum", "tensordot", "inner"]

_LETTERS = string.ascii_uppercase + string.ascii_lowercase


def _parse_einsum(equation, shapes):
    """Make an equation explicit: per-operand letter strings (ellipsis spelt out), the output letters
    and every letter's size. Raises PyTorch's RuntimeErrors for malformed equations."""
    lhs, arrow, rhs = equation.partition("->")
    for i, ch in enumerate(equation):
        if not (ch in _LETTERS or ch in ",.- >" or ch == " "):
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, "
                               f"subscripts must be in [a-zA-Z]")
    terms = [t.replace(" ", "") for t in lhs.split(",")]
    if len(terms) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    used = set(equation)
    free = [c for c in _LETTERS if c not in used]
    n_ell = 0
    for k, (t, shp) in enumerate(zip(terms, shapes)):
        n_let = len(t.replace("...", ""))
        if "..." in t:
            if n_let > len(shp):
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_let}) is more than the "
                                   f"number of dimensions ({len(shp)}) for operand {k}")
            n_ell = max(n_ell, len(shp) - n_let)
        elif n_let != len(shp):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_let}) does not match the "
                               f"number of dimensions ({len(shp)}) for operand {k} and no ellipsis was given")
    ell = "".join(free[:n_ell])
    terms = [t.replace("...", ell[n_ell - (len(s) - len(t.replace("...", ""))):] if n_ell else "")
             if "..." in t else t for t, s in zip(terms, shapes)]
    sizes = {}
    for k, (t, shp) in enumerate(zip(terms, shapes)):
        seen = {}
        for c, s in zip(t, shp):
            if c in seen and seen[c] != s:
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't match, "
                                   f"{s} != {seen[c]}")
            seen[c] = s
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = s
            elif s != 1 and s != prev:
                raise RuntimeError(f"einsum(): subscript {c} has size {s} for operand {k} which does not broadcast "
                                   f"with previously seen size {prev}")
    if arrow:
        out = rhs.replace(" ", "").replace("...", ell)
        for c in out:
            if c not in sizes:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input "
                                   f"operand")
            if out.count(c) > 1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
    else:  # implicit output: ellipsis dims, then the letters used once, sorted
        counts = {}
        for t in terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    return terms, out, sizes


def _einsum(eq, arrays):
    if arrays[0].dtype.kind == "V":  # bfloat16: compute in float32
        return np.einsum(eq, *(a.astype(np.float32) for a in arrays), optimize=len(arrays) > 1).astype(arrays[0].dtype)
    return np.einsum(eq, *arrays, optimize=len(arrays) > 1)


class _Einsum(Op):
    """``np.einsum`` over explicit subscripts; each operand's gradient is another einsum.

    The gradient of operand i contracts the upstream gradient (output subscripts) with the other
    operands into operand i's distinct subscripts; subscripts that appear nowhere else are
    broadcast back, size-1 (broadcast) dims are summed, and repeated subscripts (a diagonal) are
    written into a zero tensor through a diagonal view.
    """

    def forward(self, *arrays, spec):
        terms, out, sizes = spec
        self.saved = arrays
        self.spec = spec
        res = _einsum(",".join(terms) + "->" + out, arrays)
        if len(arrays) == 1 and np.may_share_memory(res, arrays[0]):
            return np.array(res, order="C", copy=True)  # einsum may return a view (e.g. a transpose)
        return np.asarray(res, order="C")  # keeps 0-d results 0-d (ascontiguousarray would not)

    def backward(self, g):
        arrays = self.saved
        if g.dtype.kind == "c":  # complex: contract with the conjugated other operands
            arrays = tuple(_cz(x) for x in arrays)
        terms, out, sizes = self.spec
        grads = []
        for i, (arr, term) in enumerate(zip(arrays, terms)):
            if self._edges[i] is None:
                grads.append(None)
                continue
            others = [j for j in range(len(terms)) if j != i]
            avail = set(out).union(*(terms[j] for j in others))
            uniq = "".join(dict.fromkeys(term))
            keep = "".join(c for c in uniq if c in avail)
            eq = ",".join([out] + [terms[j] for j in others]) + "->" + keep
            r = _einsum(eq, [g] + [arrays[j] for j in others])
            if len(keep) < len(uniq):  # letters summed only inside this operand: broadcast the grad back
                order = keep + "".join(c for c in uniq if c not in keep)
                r = r.reshape(r.shape + (1,) * (len(uniq) - len(keep)))
                r = np.broadcast_to(r.transpose([order.index(c) for c in uniq]), [sizes[c] for c in uniq])
            own = [arr.shape[term.index(c)] for c in uniq]
            axes = tuple(k for k, s in enumerate(own) if s == 1 and r.shape[k] != 1)
            if axes:
                r = r.sum(axis=axes, keepdims=True)
            if tuple(r.shape) != tuple(own):  # the others hold a letter with size 1 (tensordot broadcasts it)
                r = np.broadcast_to(r, own)
            if len(uniq) < len(term) and self._graph:  # the diagonal written through a 0/1 mask
                mask = np.zeros(arr.shape, arr.dtype)
                np.einsum(term + "->" + uniq, mask)[...] = 1
                shape = [r.shape[uniq.index(c)] if term.index(c) == k else 1 for k, c in enumerate(term)]
                r = r.reshape(shape) * mask
            elif len(uniq) < len(term):
                full = np.zeros(arr.shape, arr.dtype)
                np.einsum(term + "->" + uniq, full)[...] = r
                r = full
            grads.append(r.astype(arr.dtype, copy=False))
        return tuple(grads)


class TensordotBackward0(_Einsum):
    _saves = (0, 1)
    _saves_for = {0: (1,), 1: (0,)}  # an operand is read only for the other's gradient (as mm saves)


_EINSUM_OPS = {}


def _einsum_op(n):
    """The einsum node class for ``n`` operands (``_saves`` lists them all, so each is version-checked)."""
    op = _EINSUM_OPS.get(n)
    if op is None:
        # an operand's values are read only for the other operands' gradients (its own needs its shape)
        saves_for = {i: tuple(j for j in range(n) if j != i) for i in range(n)} if n > 1 else None
        op = _EINSUM_OPS[n] = type(f"Einsum{n}Operands", (_Einsum,),
                                   {"_saves": tuple(range(n)), "_node_name": "EinsumBackward0",
                                    "_saves_for": saves_for})
    return op


def _sublist_subscript(n) -> str:
    """One subscript of the sublist format: ``...`` for ``Ellipsis``, 0-25 -> ``A``-``Z``, 26-51 -> ``a``-``z``."""
    if n is Ellipsis:
        return "..."
    if isinstance(n, int) and 0 <= n < 52:
        return _LETTERS[n]
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args) -> Tensor:
    """Einstein summation (``torch.einsum``): ``einsum("ij,jk->ik", a, b)``; operands may also be
    given as one list, or in the sublist format ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` (subscripts
    0-51 or ``Ellipsis``, an optional output sublist last). Supports implicit output, ``...``
    (broadcasting) and repeated subscripts (diagonals). All operands must share one dtype. Contractions
    run through ``np.einsum`` with path optimization (BLAS for pairwise contractions). ValueError for
    fewer than two arguments or a subscript out of range; RuntimeError with PyTorch's messages for
    malformed equations and size mismatches. Backward node: EinsumBackward0.
    """
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):  # the sublist format: operand, its subscripts, ..., [output subscripts]
        equation = ",".join("".join(_sublist_subscript(n) for n in sub) for sub in args[1::2])
        if len(args) % 2:
            equation += "->" + "".join(_sublist_subscript(n) for n in args[-1])
        operands = args[:len(args) - len(args) % 2:2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' must be str, not {type(equation).__name__}")
    for k, t in enumerate(operands):
        _check_tensor(t, "einsum", "operands", k + 2)
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    d0 = operands[0]._data.dtype
    for t in operands[1:]:
        if t._data.dtype != d0:
            raise RuntimeError(f"expected scalar type {_aname(operands[0]._data)} but found {_aname(t._data)}")
    spec = _parse_einsum(equation, [t._data.shape for t in operands])
    if d0.kind in "iub":  # no gradients: PyTorch's steps, for its result dtype and wrap-around
        return _make(np.asarray(_einsum_integers(spec, [t._data for t in operands]), order="C"))
    return _einsum_op(len(operands)).apply(*operands, spec=spec)


def _einsum_integers(spec, arrays):
    """einsum of integer/bool arrays computed in PyTorch's steps, so that its result dtype and wrap-around
    come out alike: a subscript that only the running result or the next operand still holds is summed
    there with ``sum`` (int64 for integers and bool) unless it has size 1, then the two are multiplied
    (promoting) or contracted with ``bmm`` (which refuses mixed dtypes: RuntimeError, as PyTorch's, and
    bool: NotImplementedError). A single operand is summed whenever it has subscripts to contract;
    operands with no elements give zeros of their dtype."""
    terms, out, sizes = spec
    summed = [c for c in dict.fromkeys("".join(terms)) if c not in out]
    if len(arrays) > 1 and any(a.size == 0 for a in arrays):
        return _einsum(",".join(terms) + "->" + out, arrays)
    ops = []
    for t, a in zip(terms, arrays):
        lab = "".join(dict.fromkeys(t))
        ops.append([np.einsum(f"{t}->{lab}", a), lab])  # repeated subscripts: the diagonal
    if len(ops) == 1:
        a, lab = ops[0]
        return np.einsum(f"{lab}->{out}", a.astype(np.int64) if any(c in summed for c in lab) else a)
    last = {c: max(k for k, t in enumerate(terms) if c in t) for c in summed}

    def drop(x, c, total):  # sum (int64) or squeeze subscript c of the [array, letters] pair x
        a, lab = x
        if c in lab:
            i = lab.index(c)
            x[0] = a.sum(axis=i, dtype=np.int64) if total and a.shape[i] != 1 else a.squeeze(axis=i)
            x[1] = lab.replace(c, "")

    def size(x, c):
        return x[0].shape[x[1].index(c)] if c in x[1] else 1

    res = ops[0]
    for c in summed:
        if last[c] == 0:
            drop(res, c, True)
    for k in range(1, len(ops)):
        op, contract = ops[k], ""
        for c in summed:
            if last[c] != k:
                continue
            rs, os_ = size(res, c), size(op, c)
            if rs == 1 or os_ == 1:  # a size-1 side is squeezed, the other summed (sum: int64)
                drop(res, c, os_ == 1)
                drop(op, c, rs == 1)
            else:
                contract += c
        if contract:
            kinds = [_aname(x[0]) for x in (res, op)]
            if kinds[0] == "Bool":  # bmm's kernel is looked up by the first operand's dtype
                raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
            if kinds[0] != kinds[1]:
                raise RuntimeError(f"expected scalar type {kinds[0]} but found {kinds[1]}")
        lab = "".join(c for c in dict.fromkeys(res[1] + op[1]) if c not in contract)
        res = [np.einsum(f"{res[1]},{op[1]}->{lab}", res[0], op[0]), lab]
    return np.einsum(f"{res[1]}->{out}", res[0])


def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """Contract ``dims`` of ``a`` with ``dims`` of ``b`` (``torch.tensordot``).

    ``dims`` is an int (last ``dims`` of ``a`` with first ``dims`` of ``b``) or a pair of dim lists.
    Result shape: ``a``'s free dims then ``b``'s; a contracted dim of size 1 broadcasts against the other's.
    RuntimeError for mismatched sizes or dtypes.
    """
    na, nb = a._data.ndim, b._data.ndim
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(na, nb):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(na - dims, na)), list(range(dims))
    else:
        da, db = dims
        if isinstance(da, int) or isinstance(db, int):  # PyTorch's parser takes two lists of dims here
            raise TypeError("tensordot(): argument 'dims_self' (position 3) must be tuple of ints, not int")
        da, db = list(da), list(db)
        if len(da) != len(db):
            raise RuntimeError(f"both dimension lists should have same length, but got {len(da)} and {len(db)}")
        da = [d + na if d < 0 else d for d in da]
        db = [d + nb if d < 0 else d for d in db]
    for d in [d for dl in (da, db) for d in dl if dl.count(d) > 1][:1]:
        raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if a._data.dtype == np.bool_ and a._data.size and b._data.size:  # PyTorch's mm / dot have no bool kernel
        kernel = "dot" if len(da) == na and len(db) == nb else "addmm_impl_cpu_"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    for x, y in zip(da, db):  # a size-1 dim broadcasts against the other, as in PyTorch
        if a._data.shape[x] != b._data.shape[y] and 1 not in (a._data.shape[x], b._data.shape[y]):
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a._data.shape[x]} in dim "
                               f"{x} and second has size {b._data.shape[y]} in dim {y}")
    la = _LETTERS[:na]
    lb = [None] * nb
    for x, y in zip(da, db):
        lb[y] = la[x]
    extra = iter(_LETTERS[na:])
    lb = "".join(c if c is not None else next(extra) for c in lb)
    outl = "".join(c for k, c in enumerate(la) if k not in da) + "".join(c for k, c in enumerate(lb) if k not in db)
    sizes = dict(zip(la, a._data.shape))
    for c, n in zip(lb, b._data.shape):
        sizes[c] = max(n, sizes.get(c, 0))
    res = TensordotBackward0.apply(a, b, spec=([la, lb], outl, sizes))
    return _out(res, out)


def inner(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Sum over the last dims: ``(..., k), (..., k)`` -> ``input.shape[:-1] + other.shape[:-1]`` (``torch.inner``);
    a 0-d operand multiplies elementwise."""
    if input._data.ndim == 0 or other._data.ndim == 0:
        return _out(mul(input, other), out)
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input._data.shape)} and {list(other._data.shape)}")
    return _out(tensordot(input, other, dims=([-1], [-1])), out)
