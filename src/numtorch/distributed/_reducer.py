"""DistributedDataParallel's gradient reducer (mirrors PyTorch's C++ ``Reducer``, reducer.cpp).

The idea, in the order things happen in one training step:

1. **Buckets.** The parameters are grouped into buckets of about ``bucket_cap_mb`` each, in reverse
   order of ``model.parameters()`` (gradients of the last layers are ready first in backward), one
   dtype per bucket. Each bucket owns one flat array, the message of one all-reduce. As PyTorch does,
   the first step uses a single bucket (unless ``find_unused_parameters``); after it the buckets are
   rebuilt from the order in which gradients actually arrived (rank 0's order, broadcast).
2. **Hooks.** Each parameter has a post-accumulate-grad hook. When its ``.grad`` is complete, the hook
   copies it, multiplied by ``1 / world_size``, into its slot of the bucket. When every slot of a bucket
   is filled (and every bucket before it was launched: all ranks must issue the collectives in the same
   order), the bucket's all-reduce (SUM) is launched with ``async_op=True`` and backward goes on
   computing the earlier layers' gradients while it is in flight.
3. **Finalize.** When the last bucket is launched, a callback is queued on the autograd engine
   (``Variable._execution_engine.queue_callback``); it runs when backward ends, waits for every bucket
   and writes the averaged gradients back into ``.grad`` (or makes ``.grad`` a view of the bucket,
   ``gradient_as_bucket_view=True``).

Parameters that take no part in the loss never get a hook call, so their bucket never fills. With
``find_unused_parameters=True`` the forward's output graph is searched for them and they are marked
ready at backward's first hook (contributing their ``.grad``: zero when None, the accumulated one after
``no_sync``); otherwise the next forward raises PyTorch's
"Expected to have finished reduction in the prior iteration" RuntimeError.
"""
from __future__ import annotations

import sys

import numpy as np

from .._tensor import _make
from ..autograd.engine import queue_callback
from ..autograd.graph import Node

__all__ = ["Reducer", "assign_buckets", "reachable_leaves"]

DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024  # dist._DEFAULT_FIRST_BUCKET_BYTES


def assign_buckets(params, order, limits):
    """Bucket the indices ``order`` of ``params`` (PyTorch's ``_compute_bucket_assignment_by_size``):
    a bucket closes once its bytes reach its limit (``limits[k]`` for the k-th bucket of that dtype,
    the last limit afterwards). Returns lists of indices, ordered by their first index's position."""
    open_, done = {}, []
    for i in order:
        arr = params[i]._data
        cur = open_.setdefault(arr.dtype, [[], 0, 0])
        cur[0].append(i)
        cur[1] += arr.nbytes
        if cur[1] >= limits[min(cur[2], len(limits) - 1)]:
            done.append(cur[0])
            open_[arr.dtype] = [[], 0, cur[2] + 1]
    done += [cur[0] for cur in open_.values() if cur[0]]
    pos = {i: k for k, i in enumerate(order)}
    return sorted(done, key=lambda b: pos[b[0]])


def reachable_leaves(outputs):
    """The ids of the leaf tensors that ``outputs``' autograd graphs reach (for ``find_unused_parameters``)."""
    seen, leaves = set(), set()
    todo = [t.grad_fn for t in outputs if t.grad_fn is not None]
    leaves.update(id(t) for t in outputs if t.grad_fn is None and t.requires_grad)
    while todo:
        n = todo.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        for e in n._edges:
            if e is None:
                continue
            if isinstance(e[0], Node):
                todo.append(e[0])
            else:
                leaves.add(id(e[0]))
    return leaves


class _Bucket:
    """One all-reduce message: ``flat`` holds the gradients of ``indices`` at ``offsets``."""

    def __init__(self, params, indices):
        self.indices = indices
        self.offsets, n = [], 0
        for i in indices:
            self.offsets.append(n)
            n += params[i]._data.size
        self.flat = _make(np.zeros(n, params[indices[0]]._data.dtype))
        self.pending, self.work = len(indices), None

    def view(self, k, shape):
        """The slot of the bucket's k-th parameter, shaped like it (a view of ``flat``)."""
        off = self.offsets[k]
        n = int(np.prod(shape, dtype=np.int64))
        return self.flat._data[off:off + n].reshape(shape)


class Reducer:
    """Averages the gradients of ``params`` across the ranks of ``group`` during backward (see the module
    docstring). ``dist`` is ``numtorch.distributed`` (passed in to keep this file free of the backend)."""

    def __init__(self, params, names, dist, group, bucket_bytes, first_bucket_bytes, find_unused, static_graph,
                 gradient_as_bucket_view):
        self.params, self.names, self.dist, self.group = params, names, dist, group
        self.world = dist.get_world_size(group)
        self.scale = np.float32(1.0 / self.world)  # PyTorch multiplies by a float scalar 1/world_size
        self.bucket_bytes, self.first_bucket_bytes = bucket_bytes, first_bucket_bytes
        self.find_unused, self.static_graph, self.as_view = find_unused, static_graph, gradient_as_bucket_view
        self.where = {}
        limits = ([sys.maxsize] if static_graph or not find_unused
                  else [first_bucket_bytes, bucket_bytes] if first_bucket_bytes < bucket_bytes else [bucket_bytes])
        self._set_buckets(assign_buckets(params, list(reversed(range(len(params)))), limits))
        self.rebuilt = False
        self.ready_order = []
        self.expect_hooks = False   # between a forward that will be reduced and the end of its backward
        self.require_finalize = False  # a hook fired and the reduction has not finished yet
        self.ready = [False] * len(params)
        self.used = np.zeros(len(params), np.int32)
        self.unused = []  # found unused by prepare_for_backward, marked ready at the first hook
        self.next_bucket = 0
        self.handles = [p.register_post_accumulate_grad_hook(self._hook(i)) for i, p in enumerate(params)]

    def _set_buckets(self, lists):
        self.buckets = [_Bucket(self.params, idx) for idx in lists]
        self.where = {i: (b, k) for b in self.buckets for k, i in enumerate(b.indices)}
        self.grad_views = [None] * len(self.params)

    def bucket_indices(self):
        """The parameter indices of each bucket, in launch order."""
        return [list(b.indices) for b in self.buckets]

    # ------------------------------------------------------------------------- forward side
    def rebuild_buckets(self):
        """After the first reduced step, re-bucket in the order gradients arrived (rank 0's order)."""
        if self.rebuilt or (self.find_unused and not self.static_graph) or not self.ready_order:
            return False
        order = list(self.ready_order)
        got = set(order)
        order += [i for i in reversed(range(len(self.params))) if i not in got]  # unused ones, if any
        box = [order]
        self.dist.broadcast_object_list(box, group=self.group, group_src=0)
        self.rebuilt = True
        self._set_buckets(assign_buckets(self.params, box[0], [self.first_bucket_bytes, self.bucket_bytes]))
        return True

    def prepare_for_backward(self, outputs):
        """Arm the hooks for the backward of this forward. ``outputs``: the forward's output tensors,
        searched for unused parameters when ``find_unused_parameters`` (or ``static_graph``)."""
        self.ensure_prior_reduction_finished()
        self.expect_hooks = True
        self.next_bucket = 0
        self.ready = [False] * len(self.params)
        self.used[:] = 0
        for b in self.buckets:
            b.pending, b.work = len(b.indices), None
        self.unused = []
        if self.find_unused or self.static_graph:
            reached = reachable_leaves(outputs)
            self.unused = [i for i, p in enumerate(self.params) if id(p) not in reached]

    def ensure_prior_reduction_finished(self):
        if not self.require_finalize:
            return
        missing = [i for i in range(len(self.params)) if not self.ready[i]]
        names = ", ".join(self.names[i] for i in missing)
        raise RuntimeError(
            "Expected to have finished reduction in the prior iteration before starting a new one. This error "
            "indicates that your module has parameters that were not used in producing loss. You can enable "
            "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
            "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
            "participate in calculating loss.\n"
            f"Parameter indices which did not receive grad for rank {self.dist.get_rank(self.group)}: "
            f"{' '.join(map(str, missing))}\nParameters which did not receive grad: {names}")

    # ------------------------------------------------------------------------ backward side
    def _hook(self, i):
        def hook(param):
            if not self.expect_hooks:  # no_sync(), eval forward, or a backward DDP did not prepare
                return
            # the unused parameters are marked ready at the first hook, as PyTorch: their .grad (None, or
            # one accumulated under no_sync) is read during backward, after a zero_grad between the two
            unused, self.unused = self.unused, []
            for j in unused:
                self._mark_ready(j)
            if self.ready[i]:
                raise RuntimeError(
                    f"Expected to mark a variable ready only once. Parameter {self.names[i]} (index {i}) has "
                    "been marked as ready twice. This can happen when a parameter is used more than once in "
                    "backward (reentrant backward, a shared parameter in several forwards of one iteration) "
                    "or when find_unused_parameters=True marked a parameter that later got a gradient.")
            self.require_finalize = True
            self.used[i] = 1
            if not self.rebuilt:
                self.ready_order.append(i)
            self._mark_ready(i)
        return hook

    def _mark_ready(self, i):
        b, k = self.where[i]
        p = self.params[i]
        slot = b.view(k, p._data.shape)
        g = p._grad
        if g is None:  # an unused parameter with a .grad (e.g. accumulated under no_sync) sends it, as PyTorch
            slot[...] = 0
        elif g is self.grad_views[i]:  # .grad already is this slot (gradient_as_bucket_view)
            np.multiply(slot, self.scale, out=slot)
        else:
            np.multiply(g._data, self.scale, out=slot, casting="unsafe")
        self.ready[i] = True
        b.pending -= 1
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            nb = self.buckets[self.next_bucket]
            nb.work = self.dist.all_reduce(nb.flat, group=self.group, async_op=True)
            self.next_bucket += 1
            if self.next_bucket == len(self.buckets):
                queue_callback(self._finalize)

    def _finalize(self):
        """End of backward: wait for the buckets and hand the averaged gradients to ``.grad``."""
        self.expect_hooks = False
        globally_used = None
        if self.find_unused or self.static_graph:
            used = _make(self.used.copy())
            self.dist.all_reduce(used, group=self.group)
            globally_used = used._data
        for b in self.buckets:
            b.work.wait()
            for k, i in enumerate(b.indices):
                if globally_used is not None and not globally_used[i]:
                    continue  # no rank used it: .grad stays as it was (PyTorch leaves it untouched)
                p = self.params[i]
                slot = b.view(k, p._data.shape)
                if self.as_view:
                    if p._grad is None or p._grad is not self.grad_views[i]:
                        self.grad_views[i] = p._grad = _make(slot)
                elif p._grad is None:
                    p._grad = _make(slot.copy())
                else:
                    p._grad._data[...] = slot
                    p._grad._vc[0] += 1
        self.require_finalize = False

    def remove_hooks(self):
        for h in self.handles:
            h.remove()
