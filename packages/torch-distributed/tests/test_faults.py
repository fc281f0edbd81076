"""A rank that dies, raises or stalls ends the whole job in time, naming it; nothing is left
running afterwards."""

import os
import subprocess
import sys
import time
import uuid

import pytest
from _dist_launch import MPIEXEC, WORKERS, env


def leftovers(marker):
    found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True, timeout=10)
    return found.stdout.split()


def run_fault(mode, timeout_s=5.0, launcher=None):
    marker = f"fault-{uuid.uuid4().hex}"
    script = os.path.join(WORKERS, "faults.py")
    if launcher == "torchrun":
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2"]
    else:
        cmd = [MPIEXEC, "-n", "2", "-bind-to", "none", sys.executable]
    cmd += [script, mode, str(timeout_s), marker]
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env())
    took = time.monotonic() - start
    time.sleep(0.2)
    assert leftovers(marker) == [], f"processes left running after a {mode}"
    return proc, took


def test_sigkilled_rank_ends_the_job():
    proc, took = run_fault("kill")
    assert proc.returncode != 0 and took < 5.0
    assert "finished" not in proc.stdout
    assert "signal 9" in (proc.stdout + proc.stderr).lower()  # hydra names host and pid


def test_raising_rank_aborts_the_job():
    proc, took = run_fault("raise")
    assert proc.returncode != 0 and took < 5.0
    assert "rank 1 (pid" in proc.stderr and "rank 1 fails on purpose" in proc.stderr
    assert "finished" not in proc.stdout


def test_stalled_rank_times_out_the_others():
    proc, took = run_fault("stall", timeout_s=2.0)
    assert proc.returncode != 0 and took < 2.0 + 10.0
    assert "did not complete within the process group's timeout of 2 s" in proc.stderr
    assert "all_reduce on rank 0" in proc.stderr


@pytest.mark.parametrize("mode", ["kill", "raise"])
def test_failure_under_torchrun(mode):
    proc, took = run_fault(mode, launcher="torchrun")
    assert proc.returncode != 0 and took < 10.0
    assert "finished" not in proc.stdout
    if mode == "kill":  # the launcher names the rank
        assert "worker rank 1 (local rank 1, pid" in proc.stderr, proc.stderr
        assert "killed by signal 9 (SIGKILL)" in proc.stderr
    else:
        assert "rank 1 (pid" in proc.stderr and "rank 1 fails on purpose" in proc.stderr


def test_dead_rank_of_another_node_is_named():
    """Two torchrun "nodes" (two MPI jobs): hydra cannot stop node 0 when node 1's worker
    dies, so node 0's collective times out and names the dead rank."""
    marker = f"fault-{uuid.uuid4().hex}"
    port = str(20000 + int(marker[-4:], 16) % 20000)
    script = os.path.join(WORKERS, "faults.py")
    base = [sys.executable, "-m", "torch.distributed.run", "--nnodes", "2"]
    base += ["--master-port", port]
    nodes = [
        subprocess.Popen(
            base + ["--node-rank", str(k), script, "kill", "3", marker],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
        )
        for k in range(2)
    ]
    start = time.monotonic()
    outs = [p.communicate(timeout=60) for p in nodes]
    assert time.monotonic() - start < 15
    assert [p.returncode != 0 for p in nodes] == [True, True]
    assert "rank 1 (pid" in outs[0][1] and "has exited" in outs[0][1], outs[0][1]
    assert "worker rank 1 (local rank 0" in outs[1][1]
    time.sleep(0.2)
    assert leftovers(marker) == []
