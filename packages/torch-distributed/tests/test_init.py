"""init_process_group without mpiexec, the stores, and the API that needs no process group."""

import datetime
import os
import socket
import subprocess
import sys
import threading

import pytest
from _dist_launch import WORKERS, env

import torch
import torch.distributed as dist


def free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def python(script, *args, timeout=60):
    cmd = [sys.executable, os.path.join(WORKERS, script), *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env())


@pytest.mark.parametrize("method", ["tcp", "env", "file"])
def test_spawned_processes_connect(method, tmp_path):
    proc = python("spawned.py", method, free_port(), tmp_path / "store")
    assert "SPAWN OK" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize("init", ["tcp", "file", "env"])
def test_single_process_group(init, tmp_path):
    url = {"tcp": f"tcp://127.0.0.1:{free_port()}", "file": f"file://{tmp_path}/store",
           "env": "env://"}[init]  # fmt: skip
    proc = python("single.py", url)
    assert "SINGLE OK" in proc.stdout, proc.stdout + proc.stderr


def test_availability_and_names():
    assert dist.is_available() and dist.is_mpi_available() and dist.is_gloo_available()
    assert not dist.is_nccl_available()
    assert not dist.is_initialized() and dist.GroupMember.WORLD is None
    assert dist.Backend("GLOO") == "gloo" and dist.Backend.MPI == "mpi"
    assert dist.ReduceOp.SUM != dist.ReduceOp.AVG
    with pytest.raises(ValueError, match="Invalid backend"):
        dist.Backend("carrier-pigeon")


def test_nccl_says_it_needs_cuda():
    with pytest.raises(RuntimeError, match="CUDA"):
        dist.init_process_group("nccl")
    assert not dist.is_initialized()


def test_collectives_need_init():
    with pytest.raises(ValueError, match="init_process_group"):
        dist.all_reduce(torch.ones(1))
    with pytest.raises(ValueError, match="init_process_group"):
        dist.get_rank()


def test_importing_does_not_start_mpi():
    code = "import torch.distributed, sys; print('mpi4py.MPI' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False"


def test_tcp_store_between_threads():
    port = free_port()
    master = dist.TCPStore("127.0.0.1", port, 2, True, timeout=datetime.timedelta(seconds=5))
    client = dist.TCPStore("127.0.0.1", port, 2, False, timeout=datetime.timedelta(seconds=5))
    got = []
    reader = threading.Thread(target=lambda: got.append(client.get("key")))
    reader.start()
    master.set("key", "value")
    reader.join(timeout=10)
    assert got == [b"value"]
    assert master.add("n", 2) == 2 and client.add("n", 3) == 5
    assert client.check(["key", "n"]) and not client.check(["nope"])
    with pytest.raises(TimeoutError, match="nope"):
        client.wait(["nope"], timeout=datetime.timedelta(seconds=0.1))
    client.close()
    master.close()


def test_file_store(tmp_path):
    a = dist.FileStore(str(tmp_path / "f"), 2)
    b = dist.FileStore(str(tmp_path / "f"), 2)
    a.set("x", b"\x00\xff")
    assert b.get("x") == b"\x00\xff"
    assert a.add("c", 1) == 1 and b.add("c", 1) == 2


def test_store_unreachable_times_out():
    with pytest.raises(TimeoutError, match="MASTER_ADDR"):
        dist.TCPStore("127.0.0.1", free_port(), 2, False, timeout=0.3)
