"""Pool arguments and results, the alpha-2 release notes' two examples as written, the
``spawn`` helper's error reporting, and the Hogwild example."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import torch
import torch.multiprocessing as mp

ROOT = Path(__file__).resolve().parents[3]

LOADERS = """
# loaders.py
# Functions from this file run in the workers

def fill(queue):
  while True:
    tensor = queue.get()
    tensor.fill_(10)
    queue.put(tensor)

def fill_pool(tensor):
  tensor.fill_(10)
"""

PROCESS = """
# Example 1: Using multiple persistent processes and a Queue
# process.py

import torch
import torch.multiprocessing as multiprocessing
from loaders import fill

# torch.multiprocessing.Queue automatically moves Tensor data to shared memory
# So the main process and worker share the data
queue = multiprocessing.Queue()
buffers = [torch.Tensor(2, 2) for i in range(4)]
for b in buffers:
  queue.put(b)
processes = [multiprocessing.Process(target=fill, args=(queue,)).start() for i in range(10)]
"""

# Appended to check the outcome: the example's workers loop forever, so stop them after.
PROCESS_CHECK = """
import time
deadline = time.monotonic() + 30
while not all(b.eq(10).all() for b in buffers) and time.monotonic() < deadline:
  time.sleep(0.01)
assert all(b.is_shared() and b.eq(10).all() for b in buffers), buffers
assert processes == [None] * 10  # Process.start() returns None, as in the notes
for p in multiprocessing.active_children():
  p.terminate()
print("buffers filled")
"""

POOL = """
# Example 2: Using a process pool
# pool.py

import torch
from torch.multiprocessing import Pool
from loaders import fill_pool

tensors = [torch.Tensor(2, 2) for i in range(100)]
pool = Pool(10)
pool.map(fill_pool, tensors)
"""

POOL_CHECK = """
assert all(t.is_shared() and t.eq(10).all() for t in tensors)
pool.close()
pool.join()
print("tensors filled")
"""


def _run_example(tmp_path, name, code):
    """Run a script in its own process group; whatever happens, no worker outlives the test
    (the Queue example's workers loop forever)."""
    (tmp_path / "loaders.py").write_text(LOADERS)
    (tmp_path / name).write_text(code)
    proc = subprocess.Popen(
        [sys.executable, name], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def test_seed_queue_example(tmp_path):
    run = _run_example(tmp_path, "process.py", PROCESS + PROCESS_CHECK)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "buffers filled"


def test_seed_pool_example(tmp_path):
    run = _run_example(tmp_path, "pool.py", POOL + POOL_CHECK)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "tensors filled"


def _scale(pair):
    tensor, factor = pair
    tensor.mul_(factor)
    return tensor.sum(), torch.full((2,), float(factor))


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_pool_arguments_and_results(method):
    tensors = [torch.ones(3) * i for i in range(6)]
    with mp.get_context(method).Pool(2) as pool:
        results = pool.map(_scale, [(t, 2) for t in tensors])
    for i, (tensor, (total, made)) in enumerate(zip(tensors, results)):
        assert tensor.tolist() == [2.0 * i] * 3  # the worker's in-place write
        assert total.item() == 6.0 * i
        assert made.tolist() == [2.0, 2.0]  # a tensor created in the worker


def _worker(i, values, mode):
    if mode == "ok":
        values[i] = i + 1
    elif mode == "raise" and i == 1:
        raise KeyError(f"bad key in process {i}")
    elif mode == "exit" and i == 0:
        sys.exit(3)
    elif mode == "kill" and i == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    else:
        time.sleep(30)  # the others: stopped by the parent on the first failure


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_spawn_runs_fn_with_index(method):
    values = torch.zeros(3)
    assert mp.spawn(_worker, args=(values, "ok"), nprocs=3, start_method=method) is None
    assert values.tolist() == [1.0, 2.0, 3.0]


def test_spawn_reraises_child_exception_with_traceback():
    start = time.monotonic()
    with pytest.raises(mp.ProcessRaisedException, match="bad key in process 1") as info:
        mp.spawn(_worker, args=(torch.zeros(3), "raise"), nprocs=3, start_method="fork")
    assert info.value.error_index == 1 and "Traceback" in str(info.value)
    assert time.monotonic() - start < 20  # the sleeping ones were stopped


@pytest.mark.parametrize(
    "mode, index, code, signal_name", [("exit", 0, 3, None), ("kill", 1, -9, "SIGKILL")]
)
def test_spawn_reports_exit_code_and_signal(mode, index, code, signal_name):
    context = mp.start_processes(
        _worker, args=(torch.zeros(3), mode), nprocs=2, join=False, start_method="fork"
    )
    assert isinstance(context, mp.ProcessContext) and len(context.pids()) == 2
    with pytest.raises(mp.ProcessExitedException) as info:
        while not context.join(timeout=10):
            pass
    err = info.value
    assert (err.error_index, err.exit_code, err.signal_name) == (index, code, signal_name)
    assert all(not p.is_alive() for p in context.processes)


def test_hogwild_example_trains_a_shared_model():
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples/mnist_hogwild/main.py"), "--epochs", "6"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    last = run.stdout.strip().splitlines()[-1]
    accuracy = float(last.split("test accuracy ")[1].split("%")[0])
    assert accuracy > 85.0, run.stdout  # untrained: about 10%; usually 93-97%
    assert sum("process 1" in line for line in run.stdout.splitlines()) == 6
