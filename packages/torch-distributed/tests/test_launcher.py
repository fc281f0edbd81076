"""torchrun / python -m torch.distributed.run: workers, their environment, several nodes."""

import json
import os
import socket
import subprocess
import sys

from _dist_launch import WORKERS, env

SCRIPT = os.path.join(WORKERS, "env_report.py")
TORCHRUN = os.path.join(os.path.dirname(sys.executable), "torchrun")


def free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def reports(tmp_path, n):
    out = {}
    for r in range(n):
        with open(tmp_path / f"rank{r}.json") as f:
            out[r] = json.load(f)
    return out


def launcher(how):
    if how == "module":
        return [sys.executable, "-m", "torch.distributed.run"]
    if os.path.exists(TORCHRUN):  # the console script, once the wheel is (re)installed
        return [TORCHRUN]
    # the entry point the console script calls ([project.scripts] torchrun)
    return [sys.executable, "-c", "import sys; from torch.distributed.run import main; main()"]


def run(cmd, tmp_path, timeout=60):
    return subprocess.run(
        cmd, env=env(CHECK_DIR=str(tmp_path)), capture_output=True, text=True, timeout=timeout
    )


def check_two_workers(how, tmp_path):
    port = free_port()
    proc = run(
        launcher(how) + ["--nproc-per-node", "2", "--master-port", str(port), SCRIPT, "--x", "1"],
        tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = reports(tmp_path, 2)
    for r in range(2):
        rep = got[r]
        assert rep["RANK"] == rep["LOCAL_RANK"] == str(r) and rep["rank"] == r
        assert rep["WORLD_SIZE"] == rep["LOCAL_WORLD_SIZE"] == "2" and rep["world"] == 2
        assert rep["MASTER_ADDR"] == "127.0.0.1" and rep["MASTER_PORT"] == str(port)
        assert rep["GROUP_RANK"] == "0" and rep["TORCHELASTIC_RUN_ID"]
        assert rep["total"] == 1.0 and rep["argv"] == ["--x", "1"]


def test_python_m_torch_distributed_run(tmp_path):
    check_two_workers("module", tmp_path)


def test_torchrun_console_script(tmp_path):
    check_two_workers("torchrun", tmp_path)


def test_two_nodes_meet_at_the_master(tmp_path):
    port = free_port()
    base = launcher("module") + ["--nnodes", "2", "--nproc-per-node", "2"]
    base += ["--master-addr", "127.0.0.1", "--master-port", str(port)]
    nodes = [
        subprocess.Popen(
            base + ["--node-rank", str(k), SCRIPT],
            env=env(CHECK_DIR=str(tmp_path)),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for k in range(2)
    ]
    outputs = [p.communicate(timeout=60)[0] for p in nodes]
    assert [p.returncode for p in nodes] == [0, 0], outputs
    got = reports(tmp_path, 4)
    assert [got[r]["RANK"] for r in range(4)] == ["0", "1", "2", "3"]
    assert [got[r]["LOCAL_RANK"] for r in range(4)] == ["0", "1", "0", "1"]
    assert [got[r]["GROUP_RANK"] for r in range(4)] == ["0", "0", "1", "1"]
    assert all(got[r]["world"] == 4 and got[r]["total"] == 6.0 for r in range(4))


def test_failing_worker_fails_the_launch(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("raise SystemExit(3)\n")
    proc = run(launcher("module") + ["--nproc-per-node", "2", str(bad)], tmp_path)
    assert proc.returncode != 0


def test_arguments_are_torchruns():
    from torch.distributed.run import parse_args

    a = parse_args(["--nproc_per_node=4", "--nnodes=1:2", "--node_rank", "1", "-m", "pkg.mod"])
    assert (a.nproc_per_node, a.nnodes, a.node_rank, a.module) == ("4", "1:2", 1, True)
    assert a.training_script == "pkg.mod" and a.training_script_args == []
