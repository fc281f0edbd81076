"""``spawn``/``start_processes``: run ``fn(i, *args)`` in `nprocs` processes and report the first
failure (an exception's traceback, an exit code or a signal) in the parent, stopping the rest."""

import signal
import sys
import traceback
from multiprocessing import connection


class ProcessException(Exception):
    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A process raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A process exited with a non-zero code or was killed by a signal."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        args = (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)
        return type(self), args


def _run(fn, i, args, error_queue):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent is stopping us
    except Exception:
        error_queue.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes of one :func:`start_processes` call; :meth:`join` waits for them."""

    def __init__(self, processes, error_queues):
        self.processes = processes
        self.error_queues = error_queues
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None):
        """Wait up to `timeout` seconds for processes to end; True once all ended well.

        On the first failure the others are terminated and the failure is raised as
        ProcessRaisedException (with the child's traceback) or ProcessExitedException."""
        if not self.sentinels:
            return True
        ready = connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        self._stop_all()
        process = self.processes[failed]
        if not self.error_queues[failed].empty():
            message = self.error_queues[failed].get()
            raise ProcessRaisedException(
                f"\n\n-- Process {failed} terminated with the following error:\n{message}",
                failed,
                process.pid,
            )
        code = process.exitcode
        if code < 0:
            name = signal.Signals(-code).name
            raise ProcessExitedException(
                f"process {failed} terminated with signal {name}", failed, process.pid, code, name
            )
        raise ProcessExitedException(
            f"process {failed} terminated with exit code {code}", failed, process.pid, code
        )

    def _stop_all(self):
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        for process in self.processes:
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join()
        self.sentinels.clear()


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start `nprocs` processes running ``fn(i, *args)`` (i = 0 .. nprocs-1).

    join=True waits for all and returns None (raising the first failure); join=False returns
    the :class:`ProcessContext`."""
    from torch import multiprocessing

    ctx = multiprocessing.get_context(start_method)
    processes, error_queues = [], []
    for i in range(nprocs):
        error_queue = ctx.SimpleQueue()
        process = ctx.Process(target=_run, args=(fn, i, args, error_queue), daemon=daemon)
        process.start()
        processes.append(process)
        error_queues.append(error_queue)
    context = ProcessContext(processes, error_queues)
    if not join:
        return context
    while not context.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """:func:`start_processes` with the spawn start method by default."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
