"""examples/vae/main.py runs end to end and its ELBO improves (needs scikit-learn, which the
tests session installs for the digits data)."""

import re
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "vae" / "main.py"


def test_vae_example_trains_and_the_elbo_rises():
    result = subprocess.run(
        [sys.executable, str(EXAMPLE), "--epochs", "4", "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    elbos = [float(m) for m in re.findall(r"ELBO\s+(-?[\d.]+)", result.stdout)]
    assert len(elbos) == 4, result.stdout
    assert all(b > a for a, b in zip(elbos, elbos[1:])), elbos
    assert elbos[-1] > elbos[0] + 10, elbos
