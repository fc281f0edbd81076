"""Every collective against NumPy, on the ranks of one mpiexec job (2 or 4 ranks)."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _check import run_checks  # noqa: E402

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

R = N = None  # this rank and the world size, set by main()
DTYPES = [torch.float32, torch.float64, torch.int32, torch.int64, torch.int8, torch.uint8,
          torch.int16, torch.float16, torch.bfloat16, torch.bool, torch.complex64]  # fmt: skip


def value(rank, dtype, shape=(3, 4)):
    """The tensor rank ``rank`` contributes: small values, exact in every dtype."""
    n = int(np.prod(shape))
    base = (np.arange(n) % 3 + rank + 1).reshape(shape)
    if dtype is torch.bool:
        return torch.tensor((base + rank) % 2 == 0)
    return torch.tensor(base.astype(np.float64)).to(dtype)


def as_np(t):
    return t.to(torch.float64).numpy() if t.dtype in (torch.bfloat16, torch.float16) else t.numpy()


def expect(t, want):
    got = as_np(t)
    if not np.array_equal(got, np.asarray(want).astype(got.dtype)):
        raise AssertionError(f"{t.dtype}: got {got}, want {want}")


def init_state():
    assert dist.is_initialized() and dist.get_backend() == "gloo"
    assert dist.GroupMember.WORLD is not None and dist.get_world_size() == N
    assert os.environ.get("PMI_RANK") == str(R)


def all_reduce_ops():
    ops = {
        dist.ReduceOp.SUM: np.sum, dist.ReduceOp.PRODUCT: np.prod,
        dist.ReduceOp.MIN: np.min, dist.ReduceOp.MAX: np.max,
    }  # fmt: skip
    for dtype in DTYPES:
        for op, fn in ops.items():
            if dtype.is_complex and op in (dist.ReduceOp.MIN, dist.ReduceOp.MAX):
                continue
            t = value(R, dtype)
            dist.all_reduce(t, op=op)
            every = np.stack([as_np(value(r, dtype)) for r in range(N)])
            if dtype is torch.bool:
                want = (
                    every.any(0) if op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX) else every.all(0)
                )
            else:
                want = fn(every, axis=0)
            expect(t, want)


def all_reduce_avg_and_bitwise():
    t = value(R, torch.float32)
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    expect(t, np.mean([value(r, torch.float32).numpy() for r in range(N)], 0))
    for op, fn in ((dist.ReduceOp.BAND, np.bitwise_and), (dist.ReduceOp.BOR, np.bitwise_or),
                   (dist.ReduceOp.BXOR, np.bitwise_xor)):  # fmt: skip
        t = value(R, torch.int32) * 5
        dist.all_reduce(t, op=op)
        expect(t, fn.reduce([value(r, torch.int32).numpy() * 5 for r in range(N)]))
    try:
        dist.all_reduce(torch.ones(2), op=dist.ReduceOp.BAND)
    except RuntimeError as e:
        assert "integer" in str(e)
    else:
        raise AssertionError("BAND on float did not raise")


def all_reduce_non_contiguous():
    base = value(R, torch.float32, (4, 6))
    t = base.t()[1:5:2]  # a strided view
    assert not t.is_contiguous()
    before = base.clone()
    dist.all_reduce(t)
    want = sum(value(r, torch.float32, (4, 6)).t()[1:5:2].numpy() for r in range(N))
    expect(t, want)
    mask = np.ones((6, 4), bool)
    mask[1:5:2] = False
    assert np.array_equal(base.t().numpy()[mask], before.t().numpy()[mask]), "wrote outside view"


def all_reduce_zero_copy():
    t = torch.zeros(1000) + R
    dist.all_reduce(t)
    assert float(t[0]) == sum(range(N))


def async_handles():
    works = []
    tensors = [torch.full((1000,), float(R + i)) for i in range(3)]
    for t in tensors:
        works.append(dist.all_reduce(t, async_op=True))
    for w in works:
        assert w.wait() is True and w.is_completed()
    for i, t in enumerate(tensors):
        expect(t, np.full(1000, sum(r + i for r in range(N))))
    w = dist.broadcast(torch.zeros(3), 0, async_op=True)
    while not w.is_completed():
        pass
    b = dist.barrier(async_op=True)
    b.wait()


def broadcast_each_dtype():
    for dtype in DTYPES:
        for src in range(N):
            t = value(R, dtype)
            dist.broadcast(t, src)
            expect(t, as_np(value(src, dtype)))


def reduce_to_each_root():
    for dst in range(N):
        t = value(R, torch.float64)
        dist.reduce(t, dst, op=dist.ReduceOp.MAX)
        want = (
            np.max([value(r, torch.float64).numpy() for r in range(N)], 0)
            if R == dst
            else as_np(value(R, torch.float64))
        )
        expect(t, want)


def all_gather_variants():
    for dtype in (torch.float32, torch.int64, torch.bool, torch.bfloat16):
        out = [torch.zeros(3, 4, dtype=dtype) for _ in range(N)]
        dist.all_gather(out, value(R, dtype))
        for r in range(N):
            expect(out[r], as_np(value(r, dtype)))
        big = torch.zeros(N * 3, 4, dtype=dtype)
        dist.all_gather_into_tensor(big, value(R, dtype))
        expect(big, np.concatenate([as_np(value(r, dtype)) for r in range(N)]))
    stacked = torch.zeros(N, 3, 4)
    dist.all_gather_into_tensor(stacked, value(R, torch.float32))
    expect(stacked, np.stack([value(r, torch.float32).numpy() for r in range(N)]))


def reduce_scatter_variants():
    inputs = [value(R, torch.float32) * (i + 1) for i in range(N)]
    out = torch.zeros(3, 4)
    dist.reduce_scatter(out, inputs)
    expect(out, sum(value(r, torch.float32).numpy() * (R + 1) for r in range(N)))
    big = torch.cat(inputs)
    out2 = torch.zeros(3, 4)
    dist.reduce_scatter_tensor(out2, big, op=dist.ReduceOp.AVG)
    expect(out2, sum(value(r, torch.float32).numpy() * (R + 1) for r in range(N)) / N)


def gather_scatter():
    for root in range(N):
        lst = [torch.zeros(3, 4) for _ in range(N)] if R == root else None
        dist.gather(value(R, torch.float32), lst, dst=root)
        if R == root:
            for r in range(N):
                expect(lst[r], value(r, torch.float32).numpy())
        out = torch.zeros(2, dtype=torch.int64)
        src = [torch.tensor([r, root]) for r in range(N)] if R == root else None
        dist.scatter(out, src, src=root)
        expect(out, [R, root])


def all_to_all_variants():
    inputs = [torch.full((r + 1,), float(10 * R + r)) for r in range(N)]
    outputs = [torch.zeros(R + 1) for _ in range(N)]
    dist.all_to_all(outputs, inputs)
    for r in range(N):
        expect(outputs[r], np.full(R + 1, 10 * r + R))
    inp = torch.arange(N * 2, dtype=torch.float32) + 100 * R
    out = torch.zeros(N * 2)
    dist.all_to_all_single(out, inp)
    expect(out, np.concatenate([np.arange(2 * R, 2 * R + 2) + 100 * r for r in range(N)]))
    # uneven splits: rank r sends j+1 rows to rank j
    inp = torch.cat([torch.full((j + 1, 2), float(R)) for j in range(N)])
    out = torch.zeros(N * (R + 1), 2)
    dist.all_to_all_single(out, inp, [R + 1] * N, [j + 1 for j in range(N)])
    expect(out, np.concatenate([np.full((R + 1, 2), r) for r in range(N)]))


def point_to_point():
    nxt, prv = (R + 1) % N, (R - 1) % N
    t = torch.full((5,), float(R))
    got = torch.zeros(5)
    if R % 2 == 0:
        dist.send(t, nxt)
        sender = dist.recv(got, prv)
    else:
        sender = dist.recv(got, prv)
        dist.send(t, nxt)
    assert sender == prv
    expect(got, np.full(5, prv))
    a = dist.isend(torch.tensor([R, 7]), nxt, tag=3)
    into = torch.zeros(2, dtype=torch.int64)
    b = dist.irecv(into, src=None, tag=3)
    a.wait()
    b.wait()
    expect(into, [prv, 7])


def object_collectives():
    objs = [{"rank": R}, "x" * R] if R == 1 else [None, None]
    dist.broadcast_object_list(objs, src=1)
    assert objs == [{"rank": 1}, "x"], objs
    gathered = [None] * N
    dist.all_gather_object(gathered, (R, [R] * R))
    assert gathered == [(r, [r] * r) for r in range(N)]
    out = [None] * N if R == 0 else None
    dist.gather_object({"r": R}, out, dst=0)
    if R == 0:
        assert out == [{"r": r} for r in range(N)]
    box = [None]
    dist.scatter_object_list(box, [f"for {r}" for r in range(N)] if R == 0 else None, src=0)
    assert box == [f"for {R}"]


def groups():
    evens = dist.new_group([r for r in range(N) if r % 2 == 0])
    if R % 2 == 0:
        assert dist.get_rank(evens) == R // 2
        assert dist.get_world_size(evens) == (N + 1) // 2
        t = torch.ones(2) * R
        dist.all_reduce(t, group=evens)
        expect(t, np.full(2, sum(range(0, N, 2))))
        last = dist.get_process_group_ranks(evens)[-1]
        u = torch.ones(1) * R
        dist.broadcast(u, last, group=evens)  # src is a global rank
        expect(u, [last])
        assert dist.get_global_rank(evens, 1 if N > 2 else 0) in range(N)
    else:
        assert evens is dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(evens) == -1
    world = dist.new_group()
    t = torch.ones(1)
    dist.all_reduce(t, group=world)
    expect(t, [N])


def errors():
    try:
        dist.all_gather([torch.zeros(2)], torch.zeros(2))
    except ValueError as e:
        assert "group has" in str(e)
    else:
        raise AssertionError("a short tensor_list did not raise")
    try:
        dist.all_gather_into_tensor(torch.zeros(3), torch.zeros(2))
    except ValueError as e:
        assert "must hold" in str(e)
    else:
        raise AssertionError("a wrong output size did not raise")
    try:
        dist.init_process_group("gloo")
    except ValueError as e:
        assert "twice" in str(e)
    else:
        raise AssertionError("a second init did not raise")


def mpi_errors_are_explained():
    try:
        dist.broadcast(torch.ones(3 + R), 0)  # the receivers' buffers are too big/small
    except dist.DistBackendError as e:
        assert R != 0 and "same size and dtype" in str(e), str(e)
    else:
        assert R == 0, "a broadcast of mismatched sizes did not raise on a receiver"


def debug_mode_catches_mismatch():
    os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
    try:
        dist.all_reduce(torch.zeros(3 + R))
    except RuntimeError as e:
        assert "different tensors" in str(e) and "rank 1" in str(e), str(e)
    else:
        raise AssertionError("mismatched shapes did not raise in DETAIL mode")
    finally:
        del os.environ["TORCH_DISTRIBUTED_DEBUG"]


CHECKS = [(f.__name__, f) for f in (
    init_state, all_reduce_ops, all_reduce_avg_and_bitwise, all_reduce_non_contiguous,
    all_reduce_zero_copy, async_handles, broadcast_each_dtype, reduce_to_each_root,
    all_gather_variants, reduce_scatter_variants, gather_scatter, all_to_all_variants,
    point_to_point, object_collectives, groups, errors, mpi_errors_are_explained,
    debug_mode_catches_mismatch,
)]  # fmt: skip


def main():
    global R, N
    dist.init_process_group("gloo")
    R, N = dist.get_rank(), dist.get_world_size()
    run_checks(R, CHECKS)
    dist.barrier()
    dist.destroy_process_group()
    assert not dist.is_initialized()


if __name__ == "__main__":
    main()
