"""torch.multiprocessing figure: a 64 MB float32 tensor sent to a child through a Queue and back.

Runs unchanged under this project and under PyTorch:

    python benchmarks/bench_mp.py          # prints MB/s
"""

import time

import torch
import torch.multiprocessing as mp

NBYTES = 64 * 2**20
ROUND_TRIPS = 40


def _echo(inbox, outbox):
    while True:
        tensor = inbox.get()
        if tensor is None:
            return
        outbox.put(tensor)


def bench_queue_roundtrip():
    """MB/s of tensor data carried (both directions) in steady-state round trips."""
    ctx = mp.get_context("fork")
    inbox, outbox = ctx.Queue(), ctx.Queue()
    child = ctx.Process(target=_echo, args=(inbox, outbox), daemon=True)
    child.start()
    tensor = torch.ones(NBYTES // 4)
    try:
        for _ in range(3):  # warm-up: the first trip moves the tensor to shared memory
            inbox.put(tensor)
            tensor = outbox.get()
        start = time.perf_counter()
        for _ in range(ROUND_TRIPS):
            inbox.put(tensor)
            tensor = outbox.get()
        elapsed = time.perf_counter() - start
    finally:
        inbox.put(None)
        child.join()
    return 2 * ROUND_TRIPS * NBYTES / 2**20 / elapsed


if __name__ == "__main__":
    print(f"queue round trip: {bench_queue_roundtrip():.0f} MB/s")
