"""Every collective against NumPy: one mpiexec job of 2 ranks and one of 4 per module."""

import pytest
from _dist_launch import assert_check, run_checks
from workers.collectives import CHECKS

NAMES = [name for name, _ in CHECKS]


@pytest.fixture(scope="module", params=[2, 4], ids=["2ranks", "4ranks"])
def job(request):
    results, proc = run_checks(request.param, "collectives.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return request.param, results, proc


@pytest.mark.parametrize("name", NAMES)
def test_collective(job, name):
    n, results, proc = job
    assert_check(results, proc, name, n)
