"""DistributedDataParallel: 2-process training against single-process training."""

import pytest
from _dist_launch import assert_check, run_checks
from workers.ddp import CHECKS

import torch.nn as nn


@pytest.fixture(scope="module")
def job():
    results, proc = run_checks(2, "ddp.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return results, proc


@pytest.mark.parametrize("name", [name for name, _ in CHECKS])
def test_ddp(job, name):
    assert_check(*job, name, 2)


def test_ddp_needs_a_process_group():
    from torch.nn.parallel import DistributedDataParallel

    with pytest.raises(ValueError, match="init_process_group"):
        DistributedDataParallel(nn.Linear(2, 2))
