"""PyTorch's DDP tutorial pattern: torch.multiprocessing.spawn + env:// + DDP, and its faults."""

import os
import socket
import subprocess
import sys
import time
import uuid

import pytest
from _dist_launch import WORKERS, env


def free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def placeholders(marker):
    """The mpiexec jobs that hold spawned ranks' MPI (see _own_mpi_job), of the processes
    whose environment has `marker` (other tests may spawn ranks meanwhile)."""
    out = subprocess.run(["pgrep", "-f", "pmi-port /bin/sh"], capture_output=True, text=True)
    found = set()
    for pid in out.stdout.split():
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"SPAWN_DDP_TEST={marker}".encode() in f.read().split(b"\0"):
                    found.add(pid)
        except OSError:  # it ended meanwhile
            pass
    return found


def spawn(n, mode):
    marker = uuid.uuid4().hex
    cmd = [sys.executable, os.path.join(WORKERS, "spawned_ddp.py"), str(n), str(free_port()), mode]
    start = time.monotonic()
    proc = subprocess.run(
        cmd, capture_output=True, text=True, timeout=60, env=env(SPAWN_DDP_TEST=marker)
    )
    took = time.monotonic() - start
    time.sleep(0.3)
    assert placeholders(marker) == set(), "an MPI placeholder job outlived its process"
    return proc, took


@pytest.mark.parametrize("n", [2, 3])
def test_spawned_ddp_trains(n):
    proc, _ = spawn(n, "ok")
    assert "SPAWN OK" in proc.stdout, proc.stdout + proc.stderr


def test_spawned_rank_that_raises_fails_the_job():
    proc, took = spawn(2, "raise")
    assert "SPAWN FAILED" in proc.stdout and "rank 1 fails on purpose" in proc.stdout
    assert "Process 1 terminated" in proc.stdout and took < 20


def test_spawned_rank_that_is_killed_fails_the_job():
    proc, took = spawn(2, "kill")
    assert "process 1 terminated with signal SIGKILL" in proc.stdout, proc.stdout + proc.stderr
    assert took < 20
