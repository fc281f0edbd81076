"""Start worker scripts under mpiexec (or torchrun) with a timeout, and read their checks."""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WORKERS = os.path.join(HERE, "workers")
BIN = os.path.dirname(sys.executable)
MPIEXEC = os.path.join(BIN, "mpiexec")


def env(**extra):
    return dict(os.environ, OMP_NUM_THREADS="1", **extra)


def mpiexec(n, script, *args, timeout=90, extra_env=None):
    """Run ``workers/script`` on ``n`` ranks; the CompletedProcess (text output)."""
    cmd = [MPIEXEC, "-n", str(n), "-bind-to", "none", sys.executable]
    cmd += [os.path.join(WORKERS, script), *map(str, args)]
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=timeout, env=env(**(extra_env or {}))
    )


def run_checks(n, script, *args, timeout=90):
    """Run a checks worker on ``n`` ranks: ({rank: {check: result}}, CompletedProcess)."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = mpiexec(n, script, *args, timeout=timeout, extra_env={"CHECK_DIR": tmp})
        results = {}
        for r in range(n):
            path = os.path.join(tmp, f"rank{r}.json")
            if os.path.exists(path):
                with open(path) as f:
                    results[r] = json.load(f)
    return results, proc


def assert_check(results, proc, name, n):
    """Every rank ran ``name`` and it passed."""
    for r in range(n):
        if r not in results:
            raise AssertionError(f"rank {r} wrote no results:\n{proc.stdout}\n{proc.stderr}")
        outcome = results[r].get(name, "missing")
        assert outcome == "ok", f"rank {r}, {name}:\n{outcome}"
