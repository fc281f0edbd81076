"""No shared-memory segment and no file descriptor outlives the processes that used it:
after a normal exit, an exception, or SIGKILL."""

import gc
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import torch
import torch.multiprocessing as mp


def _segments(*pids):
    """The file_system segments in /dev/shm that processes `pids` (default: this one) made;
    other processes' segments come and go meanwhile when tests run in parallel."""
    prefixes = tuple(f"torch_{pid}_" for pid in pids or [os.getpid()])
    return {name for name in os.listdir("/dev/shm") if name.startswith(prefixes)}


def _fds():
    return len(os.listdir("/proc/self/fd"))


def _hold(inbox, ready, how):
    tensors = inbox.get()
    for t in tensors:
        t.add_(1)
    ready.put(sum(t.numel() for t in tensors))
    if how == "raise":
        raise ValueError("worker failed on purpose")
    if how == "wait_for_kill":
        time.sleep(60)


def _scenario(how):
    """A child maps two shared tensors, then exits as `how` says; returns its exit code and
    its pid."""
    ctx = mp.get_context("fork")
    inbox, ready = ctx.Queue(), ctx.SimpleQueue()
    tensors = [torch.zeros(1000), torch.zeros(3, 5, dtype=torch.int64)]
    child = ctx.Process(target=_hold, args=(inbox, ready, how))
    child.start()
    inbox.put(tensors)
    assert ready.get() == 1015
    assert all((t == 1).all() for t in tensors)  # the child's writes
    if how == "wait_for_kill":
        os.kill(child.pid, signal.SIGKILL)
    child.join()
    inbox.close()
    inbox.join_thread()
    ready.close()
    return child.exitcode, child.pid


@pytest.fixture(params=["file_descriptor", "file_system"])
def strategy(request):
    mp.set_sharing_strategy(request.param)
    _scenario("exit")  # warm-up: starts the fd-passing thread (and the resource tracker)
    gc.collect()
    yield request.param
    mp.set_sharing_strategy("file_descriptor")


@pytest.mark.parametrize(
    "how, exitcode", [("exit", 0), ("raise", 1), ("wait_for_kill", -signal.SIGKILL)]
)
def test_no_leak_in_this_process(strategy, how, exitcode, capfd):
    fds, segments = _fds(), _segments()
    code, child = _scenario(how)
    assert code == exitcode
    gc.collect()
    assert _fds() == fds
    assert _segments(os.getpid(), child) == segments
    capfd.readouterr()  # the child's traceback


SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, time
    import torch, torch.multiprocessing as mp

    def hold(inbox, ready):
        tensor = inbox.get()
        tensor.fill_(5)
        ready.put(os.getpid())
        time.sleep(60)

    if __name__ == "__main__":
        mp.set_sharing_strategy(sys.argv[1])
        ctx = mp.get_context(sys.argv[2])
        inbox, ready = ctx.Queue(), ctx.SimpleQueue()
        tensor = torch.zeros(10)
        child = ctx.Process(target=hold, args=(inbox, ready))
        child.start()
        inbox.put(tensor)
        pid = ready.get()
        print(os.getpid(), pid, flush=True)  # the test looks for these processes' segments
        assert tensor.sum().item() == 50
        os.kill(pid, signal.SIGKILL)
        child.join()
        if sys.argv[3] == "kill-self":
            os.kill(os.getpid(), signal.SIGKILL)
    """
)


@pytest.mark.parametrize(
    "strategy, method, end",
    [
        ("file_system", "fork", "exit"),
        ("file_system", "fork", "kill-self"),
        ("file_system", "spawn", "kill-self"),
        ("file_descriptor", "fork", "kill-self"),
    ],
)
def test_killed_process_tree_leaves_nothing(tmp_path, strategy, method, end):
    script = tmp_path / "scenario.py"
    script.write_text(SCRIPT)
    run = subprocess.run(
        [sys.executable, str(script), strategy, method, end], capture_output=True, timeout=60
    )
    expected = -signal.SIGKILL if end == "kill-self" else 0
    assert run.returncode == expected, run.stderr.decode()
    pids = run.stdout.decode().split()  # the script's and its child's
    assert len(pids) == 2, run.stdout
    deadline = time.monotonic() + 10  # the resource tracker notices, then cleans up
    while _segments(*pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _segments(*pids) == set()
