"""The CPU allocator's cache of freed buffers of 32 MiB and more (Note [Large-buffer cache]
in csrc/tensor.cpp): reused for the same size, released on any other large request and
beyond 512 MiB, never changing what a tensor holds."""

import os
import subprocess
import sys

import numpy as np
import pytest

import torch

MiB = 1 << 20


pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux")


def test_a_freed_buffer_serves_the_next_request_of_its_size():
    a = torch.full((40 * MiB // 4,), 7.0)
    p = a.data_ptr()
    del a
    b = torch.empty(40 * MiB // 4, dtype=torch.int32)  # same byte size, other dtype
    assert b.data_ptr() == p
    # the old bytes are still there (a fresh mapping would read as zeros)
    assert int(b[-1]) == int(np.array(7.0, np.float32).view(np.int32))


def test_reused_buffers_hold_what_the_op_wrote():
    n = 40 * MiB // 8
    a = torch.full((n,), 7.0, dtype=torch.float64)
    del a
    z = torch.zeros(n, dtype=torch.float64)
    assert int(z.count_nonzero()) == 0
    del z
    r = torch.arange(n, dtype=torch.float64)
    np.testing.assert_array_equal(r[-3:].numpy(), np.arange(n - 3, n, dtype=np.float64))
    del r
    x = torch.ones(n, dtype=torch.float64) * 3
    assert float(x.sum()) == 3.0 * n


def _in_a_fresh_process(body):
    # Resident-memory checks run in a new interpreter: in a long test run glibc's heap may
    # hold hundreds of MiB already resident and free, which a new buffer can reuse.
    code = (
        "import os, torch\n"
        "MiB = 1 << 20\n"
        "def resident():\n"
        "    with open('/proc/self/statm') as f:\n"
        "        return int(f.read().split()[1]) * os.sysconf('SC_PAGE_SIZE')\n" + body
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return [int(v) for v in out.stdout.split()]


def test_a_request_of_another_size_releases_the_cache():
    (grown,) = _in_a_fresh_process(
        "base = resident()\n"
        "a = torch.ones(64 * MiB // 4)\n"
        "del a  # 64 MiB kept\n"
        "b = torch.ones(160 * MiB // 4)  # another size: the 64 MiB go back to the kernel\n"
        "print(resident() - base)\n"
    )
    assert 150 * MiB < grown < 200 * MiB, grown // MiB


def test_the_cache_holds_at_most_512_mib():
    made, held = _in_a_fresh_process(
        "base = resident()\n"
        "xs = [torch.ones(128 * MiB // 4) for _ in range(6)]  # 768 MiB\n"
        "made = resident() - base\n"
        "del xs\n"
        "print(made, resident() - base)\n"
    )
    assert made > 700 * MiB, made // MiB
    assert 500 * MiB < held <= 512 * MiB + 32 * MiB, held // MiB


def test_large_buffers_are_freed_from_other_threads():
    import threading

    made = [torch.ones(32 * MiB // 4) for _ in range(4)]
    done = []

    def free(i):
        made[i] = None
        done.append(i)

    ts = [threading.Thread(target=free, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert sorted(done) == [0, 1, 2, 3]
    assert float(torch.ones(32 * MiB // 4).sum()) == 32 * MiB // 4
