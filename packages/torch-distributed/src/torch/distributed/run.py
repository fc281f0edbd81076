"""The launcher: ``torchrun`` and ``python -m torch.distributed.run``.

    torchrun --nproc-per-node 2 train.py --epochs 3
    torchrun --nnodes 2 --node-rank 0 --master-addr node0 --master-port 29500 \\
        --nproc-per-node 4 train.py           # and --node-rank 1 on the second node

It starts ``--nproc-per-node`` workers on this node under ``mpiexec`` (MPICH's hydra, from
the ``mpich`` wheel), each with the environment PyTorch's launcher gives: RANK, LOCAL_RANK,
WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, ROLE_RANK, ROLE_WORLD_SIZE, MASTER_ADDR,
MASTER_PORT, TORCHELASTIC_RUN_ID (and OMP_NUM_THREADS=1 unless set). On one node the workers
form one MPI job; with several nodes each node's job meets the others at MASTER_ADDR:
MASTER_PORT when the workers call ``init_process_group``. When a worker fails, hydra stops
the others and the launcher exits with a non-zero status. Elastic restarts
(``--max-restarts``) and rendezvous backends other than the static one are not supported:
the options are accepted and the values of ``--rdzv-endpoint`` give the master's address.
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import uuid

__all__ = ["get_args_parser", "main", "parse_args", "run"]


def _flag(parser, name, **kwargs):
    """An option spelled with dashes and with underscores, as torchrun accepts both."""
    names = [f"--{name}"]
    if "-" in name:
        names.append("--" + name.replace("-", "_"))
    parser.add_argument(*names, **kwargs)


def get_args_parser():
    """The argument parser of ``torchrun``."""
    p = argparse.ArgumentParser(
        prog="torchrun", description="Start one worker process per rank under mpiexec."
    )
    _flag(p, "nnodes", default="1", help="number of nodes, or MIN:MAX (MAX is used)")
    _flag(p, "nproc-per-node", default="1", help="workers on this node (int, 'cpu' or 'auto')")
    _flag(p, "node-rank", type=int, default=0, help="this node's rank, 0 .. nnodes-1")
    _flag(p, "master-addr", default="127.0.0.1", help="address of node 0")
    _flag(p, "master-port", type=int, default=29500, help="a free port on node 0")
    p.add_argument("--standalone", action="store_true", help="one node, a free port picked")
    _flag(p, "rdzv-backend", default="static", help="accepted; only static rendezvous")
    _flag(p, "rdzv-endpoint", default="", help="HOST:PORT of node 0 (the master)")
    _flag(p, "rdzv-id", default="none", help="the job id (TORCHELASTIC_RUN_ID)")
    _flag(p, "rdzv-conf", default="", help="accepted, unused")
    _flag(p, "max-restarts", type=int, default=0, help="accepted; restarts are not supported")
    _flag(p, "monitor-interval", type=float, default=0.1, help="accepted, unused")
    _flag(p, "start-method", default="spawn", help="accepted, unused (mpiexec starts workers)")
    _flag(p, "log-dir", default=None, help="accepted, unused")
    p.add_argument("--role", default="default", help="accepted, unused")
    p.add_argument("-r", "--redirects", default="0", help="accepted, unused")
    p.add_argument("-t", "--tee", default="0", help="accepted, unused")
    p.add_argument("-m", "--module", action="store_true", help="run the script as a module")
    _flag(p, "no-python", action="store_true", help="run the script as an executable")
    _flag(p, "mpiexec", default=None, help="the mpiexec to use (default: beside python)")
    p.add_argument("training_script", help="the program each worker runs")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def parse_args(args=None):
    """Parse torchrun's command line (``sys.argv[1:]`` by default)."""
    return get_args_parser().parse_args(args)


def _nproc(value):
    if value in ("cpu", "auto", "gpu"):
        return os.cpu_count() or 1
    return int(value)


def _free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _mpiexec(explicit):
    if explicit:
        return explicit
    beside = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = beside if os.path.exists(beside) else shutil.which("mpiexec")
    if found is None:
        raise RuntimeError(
            "torchrun needs mpiexec: install the mpich wheel (pip install mpich) or put an "
            "MPI's mpiexec on PATH, or pass --mpiexec PATH"
        )
    return found


def _command(args, nproc):
    """The mpiexec command line that starts this node's workers."""
    cmd = [_mpiexec(args.mpiexec), "-n", str(nproc)]
    if "hydra" in os.path.realpath(cmd[0]) or os.path.basename(cmd[0]) == "mpiexec":
        cmd += ["-bind-to", "none"]
    worker = [sys.executable, "-m", "torch.distributed._worker"]
    if args.no_python:
        worker.append("--no-python")
    elif args.module:
        worker.append("-m")
    return cmd + worker + [args.training_script] + list(args.training_script_args)


def run(args):
    """Start the workers of ``args`` (from :func:`parse_args`) and wait; their exit status."""
    nnodes = int(str(args.nnodes).split(":")[-1])
    nproc = _nproc(args.nproc_per_node)
    if not 0 <= args.node_rank < nnodes:
        raise ValueError(f"--node-rank {args.node_rank} is not in [0, {nnodes})")
    if args.max_restarts:
        print("torchrun: --max-restarts is not supported; running once", file=sys.stderr)
    addr, port = args.master_addr, args.master_port
    if args.rdzv_endpoint:
        host, _, p = args.rdzv_endpoint.partition(":")
        addr, port = host or addr, int(p) if p else port
    if args.standalone:
        addr, port, nnodes = "127.0.0.1", _free_port(), 1
    env = dict(os.environ)
    env.update(
        MASTER_ADDR=addr,
        MASTER_PORT=str(port),
        WORLD_SIZE=str(nnodes * nproc),
        LOCAL_WORLD_SIZE=str(nproc),
        GROUP_RANK=str(args.node_rank),
        ROLE_NAME=args.role,
        ROLE_WORLD_SIZE=str(nnodes * nproc),
        TORCHELASTIC_RUN_ID=args.rdzv_id if args.rdzv_id != "none" else uuid.uuid4().hex,
        TORCHELASTIC_RESTART_COUNT="0",
        TORCHELASTIC_MAX_RESTARTS=str(args.max_restarts),
    )
    if nproc > 1 and "OMP_NUM_THREADS" not in env:
        env["OMP_NUM_THREADS"] = "1"
    proc = subprocess.Popen(_command(args, nproc), env=env, start_new_session=True)

    def forward(signum, frame):
        proc.send_signal(signum)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, forward)
    try:
        return proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


def main(args=None):
    """The ``torchrun`` console script."""
    sys.exit(run(parse_args(args)))


if __name__ == "__main__":
    main()
