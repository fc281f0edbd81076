"""One torchrun worker under mpiexec.

It derives LOCAL_RANK and RANK from MPI's process manager (hydra sets PMI_RANK before MPI is
initialised), then forks: the child runs the training script as ``__main__``; the parent
only waits for it, so that a worker killed by a signal is reported with its rank (as
PyTorch's launcher reports failed workers) before hydra stops the others. The child dies
with the parent (``PR_SET_PDEATHSIG``), so no worker outlives the job.
"""

import ctypes
import os
import runpy
import signal
import sys


def _die_with_parent():
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (AttributeError, OSError):  # not Linux: the parent still reports, best effort
        pass


def _supervise(pid, rank):
    """Wait for the worker ``pid``; exit as it did, naming it if a signal killed it."""

    def forward(signum, frame):
        os.kill(pid, signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(sig, forward)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except ChildProcessError:
            os._exit(1)
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        sys.stderr.write(
            f"torchrun: worker rank {rank} (local rank {os.environ['LOCAL_RANK']}, pid {pid}) "
            f"was killed by signal {sig} ({signal.Signals(sig).name}); stopping the job\n"
        )
        sys.stderr.flush()
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status))


def main(argv):
    local = int(os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "0")))
    nproc = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    node = int(os.environ.get("GROUP_RANK", "0"))
    rank = node * nproc + local
    os.environ["LOCAL_RANK"] = str(local)
    os.environ["RANK"] = os.environ["ROLE_RANK"] = str(rank)
    sys.stdout.flush()
    pid = os.fork()
    if pid:
        _supervise(pid, rank)
    _die_with_parent()
    if argv[0] == "--no-python":
        os.execvp(argv[1], argv[1:])
    if argv[0] == "-m":
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
