"""Run on N ranks (``mpiexec -n N python collectives_vs_torch.py PORT``): every numtorch.distributed
collective, point-to-point transfer, object collective, group, async handle, autograd collective and
argument error, compared on the same inputs with a NumPy computation and with torch.distributed on
its gloo backend (a second process group in the same processes, over TCP at 127.0.0.1:PORT).

Prints ``CHECKS OK rank R (K checks)`` and exits 0, or raises on the first difference."""
import datetime
import sys

import numpy as np
import torch as tt
import torch.distributed as tdist
import torch.distributed.nn.functional as tF

import numtorch as nt
import numtorch.distributed as ndist
import numtorch.distributed.nn.functional as nF

PORT = int(sys.argv[1])
ndist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
r, n = ndist.get_rank(), ndist.get_world_size()
tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{PORT}", rank=r, world_size=n,
                         timeout=datetime.timedelta(seconds=60))
assert (tdist.get_rank(), tdist.get_world_size()) == (r, n)
assert ndist.is_initialized() and ndist.get_backend() == "gloo" and ndist.is_available()
CHECKS = [0]


def data(rank, shape=(2, 3), dtype=np.float32, seed=0):
    """The input rank ``rank`` uses (every rank can compute every rank's input)."""
    g = np.random.default_rng(1000 * seed + rank)
    if np.dtype(dtype).kind in "iu":
        return g.integers(1, 5, size=shape).astype(dtype)
    return (g.standard_normal(shape) + 2).astype(dtype)


def pair(a):
    return nt.tensor(a.copy()), tt.tensor(a.copy())


def same(name, got_nt, got_tt, want=None, tol=1e-6):
    gn = got_nt.detach().numpy() if hasattr(got_nt, "detach") else np.asarray(got_nt)
    gt = got_tt.detach().numpy() if hasattr(got_tt, "detach") else np.asarray(got_tt)
    assert gn.shape == gt.shape and str(got_nt.dtype).split(".")[-1] == str(got_tt.dtype).split(".")[-1], \
        (name, gn.shape, gt.shape, got_nt.dtype, got_tt.dtype)
    np.testing.assert_allclose(gn.astype(np.float64), gt.astype(np.float64), rtol=tol, atol=tol, err_msg=name)
    if want is not None:
        np.testing.assert_allclose(gn.astype(np.float64), np.asarray(want, np.float64), rtol=tol, atol=tol,
                                   err_msg=name + " vs numpy")
    CHECKS[0] += 1


ALL = lambda dtype=np.float32, shape=(2, 3), seed=0: np.stack([data(i, shape, dtype, seed) for i in range(n)])  # noqa

# ---- all_reduce: every op, several dtypes, a non-contiguous tensor -----------------------------
for opname, fn in (("SUM", np.sum), ("PRODUCT", np.prod), ("MIN", np.min), ("MAX", np.max)):
    for dtype in (np.float32, np.float64, np.int64):
        a, b = pair(data(r, dtype=dtype))
        ndist.all_reduce(a, op=getattr(ndist.ReduceOp, opname))
        tdist.all_reduce(b, op=getattr(tdist.ReduceOp, opname))
        same(f"all_reduce {opname} {dtype}", a, b, fn(ALL(dtype), axis=0))
a = nt.tensor(data(r))
ndist.all_reduce(a, op=ndist.ReduceOp.AVG)
same("all_reduce AVG", a, nt.tensor(ALL().mean(0)), ALL().mean(0))
a, b = pair(data(r, dtype=np.float16))
ndist.all_reduce(a)
tdist.all_reduce(b)
same("all_reduce float16", a, b, ALL(np.float16).astype(np.float32).sum(0), tol=1e-2)
a, b = pair(data(r, (3, 4)))
a, b = a.t(), b.t()  # not contiguous: written in place all the same
ndist.all_reduce(a)
tdist.all_reduce(b)
same("all_reduce transposed", a, b, ALL(shape=(3, 4)).sum(0).T)
version = a._version
ndist.all_reduce(a)
assert a._version > version, "collectives bump the version counter (they write in place)"

# ---- reduce / broadcast ------------------------------------------------------------------------
a, b = pair(data(r))
ndist.reduce(a, dst=n - 1)
tdist.reduce(b, dst=n - 1)
if r == n - 1:
    same("reduce", a, b, ALL().sum(0))
a, b = pair(data(r))
ndist.broadcast(a, src=n - 1)
tdist.broadcast(b, src=n - 1)
same("broadcast", a, b, data(n - 1))
a, b = pair(data(r, dtype=np.int32))
ndist.broadcast(a, src=0)
tdist.broadcast(b, src=0)
same("broadcast int32", a, b, data(0, dtype=np.int32))

# ---- gathers and scatters ----------------------------------------------------------------------
a, b = pair(data(r))
la, lb = [nt.zeros(2, 3) for _ in range(n)], [tt.zeros(2, 3) for _ in range(n)]
ndist.all_gather(la, a)
tdist.all_gather(lb, b)
for i in range(n):
    same(f"all_gather[{i}]", la[i], lb[i], data(i))
oa, ob = nt.zeros(2 * n, 3), tt.zeros(2 * n, 3)
ndist.all_gather_into_tensor(oa, a)
tdist.all_gather_into_tensor(ob, b)
same("all_gather_into_tensor", oa, ob, np.concatenate([data(i) for i in range(n)]))
la = [nt.zeros(2, 3) for _ in range(n)] if r == 0 else None
lb = [tt.zeros(2, 3) for _ in range(n)] if r == 0 else None
ndist.gather(a, la, dst=0)
tdist.gather(b, lb, dst=0)
if r == 0:
    for i in range(n):
        same(f"gather[{i}]", la[i], lb[i], data(i))
src = 1 % n
xa, xb = nt.zeros(2, 3), tt.zeros(2, 3)
ndist.scatter(xa, [nt.tensor(data(i, seed=5)) for i in range(n)] if r == src else None, src=src)
tdist.scatter(xb, [tt.tensor(data(i, seed=5)) for i in range(n)] if r == src else None, src=src)
same("scatter", xa, xb, data(r, seed=5))
ins = [data(r, seed=10 + j) for j in range(n)]  # rank r's piece for rank j
oa, ob = nt.zeros(2, 3), tt.zeros(2, 3)
ndist.reduce_scatter(oa, [nt.tensor(x) for x in ins])
tdist.reduce_scatter(ob, [tt.tensor(x) for x in ins])
same("reduce_scatter", oa, ob, sum(data(i, seed=10 + r) for i in range(n)))
big = np.concatenate(ins)
oa, ob = nt.zeros(2, 3), tt.zeros(2, 3)
ndist.reduce_scatter_tensor(oa, nt.tensor(big), op=ndist.ReduceOp.MAX)
tdist.reduce_scatter_tensor(ob, tt.tensor(big), op=tdist.ReduceOp.MAX)
same("reduce_scatter_tensor MAX", oa, ob, np.max([data(i, seed=10 + r) for i in range(n)], 0))

# ---- all_to_all with uneven pieces: rank i sends j + 1 rows to rank j --------------------------
send = [np.full((j + 1, 2), 10.0 * r + j, np.float32) for j in range(n)]
got_a = [nt.zeros(r + 1, 2) for _ in range(n)]
ndist.all_to_all(got_a, [nt.tensor(s) for s in send])
# gloo has no all_to_all (and its scatter needs equal sizes): torch's all_to_all_single is the oracle
ob = tt.zeros(n * (r + 1), 2)
tdist.all_to_all_single(ob, tt.tensor(np.concatenate(send)), [r + 1] * n, [j + 1 for j in range(n)])
got_b = list(ob.split(r + 1))
for i in range(n):
    same(f"all_to_all[{i}]", got_a[i], got_b[i], np.full((r + 1, 2), 10.0 * i + r))
splits_in = [j + 1 for j in range(n)]
splits_out = [r + 1] * n
a = nt.tensor(np.concatenate(send))
oa = nt.zeros(sum(splits_out), 2)
ndist.all_to_all_single(oa, a, splits_out, splits_in)
ob = tt.zeros(sum(splits_out), 2)
tdist.all_to_all_single(ob, tt.tensor(np.concatenate(send)), splits_out, splits_in)
same("all_to_all_single uneven", oa, ob, np.concatenate([np.full((r + 1, 2), 10.0 * i + r) for i in range(n)]))
a, b = pair(np.arange(2 * n * n, dtype=np.float32).reshape(2 * n, n) + 100 * r)
oa, ob = nt.zeros(2 * n, n), tt.zeros(2 * n, n)
ndist.all_to_all_single(oa, a)
tdist.all_to_all_single(ob, b)
same("all_to_all_single even", oa, ob)

# ---- async handles -----------------------------------------------------------------------------
a, b = pair(data(r, seed=3))
wa, wb = ndist.all_reduce(a, async_op=True), tdist.all_reduce(b, async_op=True)
assert isinstance(wa, ndist.Work) and wa.wait() is True and wa.is_completed() and wa.is_success()
wb.wait()
same("async all_reduce", a, b, ALL(seed=3).sum(0))
works = [ndist.broadcast(x, src=0, async_op=True) for x in (nt.tensor(data(r, seed=s)) for s in (1, 2))]
assert all(w.wait() for w in works)
xs = [nt.tensor(data(r, seed=s)) for s in range(4)]
works = [ndist.all_reduce(x, async_op=True) for x in xs]  # several in flight at once
for w in works:
    w.wait()
for s, x in enumerate(xs):
    same(f"async all_reduce in flight {s}", x, nt.tensor(ALL(seed=s).sum(0)), ALL(seed=s).sum(0))

# ---- point to point: a ring, blocking and not, tags, any source --------------------------------
nxt, prv = (r + 1) % n, (r - 1) % n
if n > 1:
    xa, xb = nt.zeros(4), tt.zeros(4)
    if r % 2 == 0:
        ndist.send(nt.tensor(data(r, (4,))), nxt)
        ndist.recv(xa, prv)
        tdist.send(tt.tensor(data(r, (4,))), nxt)
        tdist.recv(xb, prv)
    else:
        ndist.recv(xa, prv)
        ndist.send(nt.tensor(data(r, (4,))), nxt)
        tdist.recv(xb, prv)
        tdist.send(tt.tensor(data(r, (4,))), nxt)
    same("send/recv ring", xa, xb, data(prv, (4,)))
    s1 = ndist.isend(nt.tensor(data(r, (3,), seed=7)), nxt, tag=7)
    s2 = ndist.isend(nt.tensor(data(r, (3,), seed=8)), nxt, tag=8)
    x8, x7 = nt.zeros(3), nt.zeros(3)
    r8, r7 = ndist.irecv(x8, prv, tag=8), ndist.irecv(x7, prv, tag=7)  # tags pick the message
    for w in (s1, s2, r7, r8):
        w.wait()
    same("isend/irecv tag 7", x7, nt.tensor(data(prv, (3,), seed=7)), data(prv, (3,), seed=7))
    same("isend/irecv tag 8", x8, nt.tensor(data(prv, (3,), seed=8)), data(prv, (3,), seed=8))
    ya, yb = nt.zeros(2), tt.zeros(2)
    wa = ndist.batch_isend_irecv([ndist.P2POp(ndist.isend, nt.tensor(data(r, (2,), seed=9)), nxt),
                                  ndist.P2POp(ndist.irecv, ya, prv)])
    wb = tdist.batch_isend_irecv([tdist.P2POp(tdist.isend, tt.tensor(data(r, (2,), seed=9)), nxt),
                                  tdist.P2POp(tdist.irecv, yb, prv)])
    for w in wa + wb:
        w.wait()
    same("batch_isend_irecv", ya, yb, data(prv, (2,), seed=9))
    if r == 0:
        senders = sorted(ndist.recv(x := nt.zeros(2)) for _ in range(n - 1))
        assert senders == list(range(1, n)), senders
    else:
        ndist.send(nt.full((2,), float(r)), 0)
    if r == 0:  # a message of the wrong size is refused, not truncated
        ndist.send(nt.zeros(3), 1, tag=99)
    elif r == 1:
        try:
            ndist.recv(nt.zeros(2), 0, tag=99)
            raise AssertionError("recv of a 12-byte message into 8 bytes did not raise")
        except RuntimeError as e:
            assert "has 12 bytes but the receiving tensor has 8" in str(e), e
    try:
        ndist.send(nt.zeros(1), r)
    except ValueError as e:
        try:
            tdist.send(tt.zeros(1), r)
        except ValueError as e2:
            assert str(e) == str(e2), (e, e2)

# ---- objects -----------------------------------------------------------------------------------
objs_a = [{"rank": r, "list": [r] * 3}, "text", 3.5] if r == 0 else [None, None, None]
objs_b = list(objs_a)
ndist.broadcast_object_list(objs_a, src=0)
tdist.broadcast_object_list(objs_b, src=0)
assert objs_a == objs_b == [{"rank": 0, "list": [0, 0, 0]}, "text", 3.5], objs_a
ga, gb = [None] * n, [None] * n
ndist.all_gather_object(ga, ("r", r, list(range(r))))
tdist.all_gather_object(gb, ("r", r, list(range(r))))
assert ga == gb, (ga, gb)
CHECKS[0] += 2

# ---- groups --------------------------------------------------------------------------------------
ranks = [0, n - 1]
ga_, gb_ = ndist.new_group(ranks), tdist.new_group(ranks)
if r in ranks:
    assert ndist.get_rank(ga_) == tdist.get_rank(gb_) and ndist.get_world_size(ga_) == tdist.get_world_size(gb_)
    assert ndist.get_process_group_ranks(ga_) == tdist.get_process_group_ranks(gb_)
    a, b = pair(data(r, seed=4))
    ndist.all_reduce(a, group=ga_)
    tdist.all_reduce(b, group=gb_)
    same("group all_reduce", a, b, sum(data(i, seed=4) for i in set(ranks)))
    a, b = pair(data(r, seed=4))
    ndist.broadcast(a, src=n - 1, group=ga_)
    tdist.broadcast(b, src=n - 1, group=gb_)
    same("group broadcast (global src)", a, b, data(n - 1, seed=4))
else:
    assert ga_ is ndist.GroupMember.NON_GROUP_MEMBER and ndist.get_rank(ga_) == tdist.get_rank(gb_) == -1
ndist.barrier()
tdist.barrier()

# ---- autograd collectives (torch.distributed.nn.functional) ------------------------------------
w = data(r, (3,), seed=20)
coef = data(r, (3,), seed=21)
for name in ("all_reduce", "broadcast", "all_gather", "reduce", "reduce_scatter", "all_to_all_single"):
    grads = []
    for lib, F in ((nt, nF), (tt, tF)):
        x = lib.tensor(data(r, (n, 3), seed=22), requires_grad=True)
        y = x * lib.tensor(np.tile(w, (n, 1)))
        if name == "all_reduce":
            out = F.all_reduce(y)
        elif name == "broadcast":
            out = F.broadcast(y, src=n - 1)
        elif name == "all_gather":
            out = lib.stack(list(F.all_gather(y)))[:, 0]
        elif name == "reduce":
            out = F.reduce(y, dst=0)
        elif name == "reduce_scatter":
            out = F.reduce_scatter(lib.zeros(3), list(y.unbind(0)))
        else:
            out = F.all_to_all_single(lib.zeros(n, 3), y)
        out = out.reshape(-1, 3)
        (out * lib.tensor(coef)).sum().backward()
        grads.append((out.detach(), x.grad))
    if name == "reduce" and r != 0:
        same(f"autograd {name} grad", grads[0][1], grads[1][1])  # non-destination values are unspecified
    else:
        same(f"autograd {name} value", grads[0][0], grads[1][0], tol=1e-5)
        same(f"autograd {name} grad", grads[0][1], grads[1][1], tol=1e-5)

# ---- argument errors: the same exception types as torch ----------------------------------------
def raises_same(name, f_nt, f_tt):
    kinds = []
    for f in (f_nt, f_tt):
        try:
            f()
            kinds.append(None)
        except Exception as e:  # noqa: BLE001 -- comparing what each library raises
            kinds.append(type(e).__name__ if type(e).__name__ in ("ValueError", "TypeError") else "RuntimeError"
                         if isinstance(e, RuntimeError) else type(e).__name__)
    assert kinds[0] == kinds[1] and kinds[0] is not None, (name, kinds)
    CHECKS[0] += 1


raises_same("all_gather list length", lambda: ndist.all_gather([nt.zeros(1)] * (n + 1), nt.zeros(1)),
            lambda: tdist.all_gather([tt.zeros(1)] * (n + 1), tt.zeros(1)))
raises_same("all_gather shape", lambda: ndist.all_gather([nt.zeros(2)] * n, nt.zeros(1)),
            lambda: tdist.all_gather([tt.zeros(2)] * n, tt.zeros(1)))
raises_same("all_gather_into_tensor size", lambda: ndist.all_gather_into_tensor(nt.zeros(n + 1), nt.zeros(1)),
            lambda: tdist.all_gather_into_tensor(tt.zeros(n + 1), tt.zeros(1)))
raises_same("scatter list missing on src", lambda: ndist.scatter(nt.zeros(1), None, src=r),
            lambda: tdist.scatter(tt.zeros(1), None, src=r))
raises_same("scatter list length", lambda: ndist.scatter(nt.zeros(1), [nt.zeros(1)] * (n + 1), src=r),
            lambda: tdist.scatter(tt.zeros(1), [tt.zeros(1)] * (n + 1), src=r))
raises_same("gather list length", lambda: ndist.gather(nt.zeros(1), [nt.zeros(1)] * (n + 1), dst=r),
            lambda: tdist.gather(tt.zeros(1), [tt.zeros(1)] * (n + 1), dst=r))
raises_same("reduce_scatter list", lambda: ndist.reduce_scatter(nt.zeros(1), [nt.zeros(1)] * (n + 1)),
            lambda: tdist.reduce_scatter(tt.zeros(1), [tt.zeros(1)] * (n + 1)))
for dt in ("int32", "int64", "uint8", "bool"):  # AVG of integers: PyTorch refuses (every rank)
    raises_same(f"all_reduce AVG {dt}",
                lambda: ndist.all_reduce(nt.ones(2, dtype=getattr(nt, dt)), op=ndist.ReduceOp.AVG),
                lambda: tdist.all_reduce(tt.ones(2, dtype=getattr(tt, dt)), op=tdist.ReduceOp.AVG))
raises_same("reduce AVG int64", lambda: ndist.reduce(nt.ones(2, dtype=nt.int64), dst=0, op=ndist.ReduceOp.AVG),
            lambda: tdist.reduce(tt.ones(2, dtype=tt.int64), dst=0, op=tdist.ReduceOp.AVG))
for dt in ("float16", "bfloat16", "float32"):  # bitwise ops on floats: RuntimeError on every rank, no NumPy error
    raises_same(f"all_reduce BAND {dt}",
                lambda: ndist.all_reduce(nt.ones(2, dtype=getattr(nt, dt)), op=ndist.ReduceOp.BAND),
                lambda: tdist.all_reduce(tt.ones(2, dtype=getattr(tt, dt)), op=tdist.ReduceOp.BAND))
    raises_same(f"reduce BXOR {dt}",
                lambda: ndist.reduce(nt.ones(2, dtype=getattr(nt, dt)), dst=0, op=ndist.ReduceOp.BXOR),
                lambda: tdist.reduce(tt.ones(2, dtype=getattr(tt, dt)), dst=0, op=tdist.ReduceOp.BXOR))
raises_same("all_reduce of a list", lambda: ndist.all_reduce([1, 2]), lambda: tdist.all_reduce([1, 2]))
raises_same("init twice", lambda: ndist.init_process_group("gloo"), lambda: tdist.init_process_group("gloo"))
raises_same("broadcast bad src", lambda: ndist.broadcast(nt.zeros(1), src=n + 5),
            lambda: tdist.broadcast(tt.zeros(1), src=n + 5))
raises_same("new_group too many", lambda: ndist.new_group(list(range(n + 2))),
            lambda: tdist.new_group(list(range(n + 2))))

# ---- the end: both groups go away; numtorch's can be made again -------------------------------
ndist.destroy_process_group()
assert not ndist.is_initialized()
ndist.init_process_group("mpi")
x = nt.ones(1)
ndist.all_reduce(x)
assert x.item() == n
ndist.destroy_process_group()
tdist.destroy_process_group()
print(f"CHECKS OK rank {r} ({CHECKS[0]} checks)", flush=True)
