"""examples/mnist_ddp: two processes under the launcher, a few epochs."""

import os
import subprocess
import sys

from _dist_launch import env

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def test_mnist_ddp_example_learns(tmp_path):
    script = os.path.join(ROOT, "examples", "mnist_ddp", "main.py")
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", script]
    cmd += ["--epochs", "1", "--save-model", str(tmp_path / "m.pt"), "--min-accuracy", "0.5"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("epoch ") == 1 and "2 ranks" in proc.stdout  # rank 0 prints
    assert (tmp_path / "m.pt").exists()
