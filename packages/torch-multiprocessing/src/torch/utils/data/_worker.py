"""The DataLoader worker process: its loop, its seeding, ``get_worker_info`` and the wrapper
that carries a worker's exception (with its traceback text) to the main process."""

import os
import pickle
import random
import signal
import sys
import threading
import time
import traceback

import torch

__all__ = ["WorkerInfo", "get_worker_info"]

# How often (s) a worker checks that the main process still exists.
_PARENT_CHECK_INTERVAL = 2.0

_worker_info = None


class WorkerInfo:
    """What ``get_worker_info()`` returns in a worker: ``id`` (0 .. num_workers - 1),
    ``num_workers``, ``seed`` (this worker's torch seed) and ``dataset`` (the worker's copy)."""

    def __init__(self, id, num_workers, seed, dataset):
        self.id = id
        self.num_workers = num_workers
        self.seed = seed
        self.dataset = dataset

    def __repr__(self):
        return (
            f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
            f"dataset={type(self.dataset).__name__})"
        )


def get_worker_info():
    """In a DataLoader worker process: its ``WorkerInfo``; in the main process: None.

    Use it in ``IterableDataset.__iter__`` to give each worker its own part of the stream, or
    in ``worker_init_fn`` to set up per-worker state.
    """
    return _worker_info


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process as its type (when it can
    be pickled) and its traceback text; ``reraise()`` raises it there."""

    def __init__(self, exc_info, where):
        exc_type, exc, tb = exc_info
        self.text = "".join(traceback.format_exception(exc_type, exc, tb))
        self.where = where
        self.exc_type = exc_type
        try:
            pickle.dumps(exc_type)
        except Exception:  # a class defined inside a function, ...
            self.exc_type = None

    def reraise(self):
        message = f"Caught {self.exc_type.__name__ if self.exc_type else 'an exception'} "
        message += f"{self.where}.\nOriginal {self.text}"
        if self.exc_type is KeyError:  # KeyError shows its argument's repr: keep lines intact
            raise KeyError(_KeyErrorMessage(message))
        try:
            exc = self.exc_type(message) if self.exc_type is not None else None
        except Exception:  # its constructor takes other arguments
            exc = None
        if not isinstance(exc, BaseException):
            raise RuntimeError(message)
        raise exc


class _KeyErrorMessage(str):
    def __repr__(self):
        return str(self)


class StopMarker:
    """Sent by a worker whose iterable dataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class ResumeIteration:
    """Sent to a persistent worker when a new epoch starts (restart its dataset iterator)."""


def worker_seed(base_seed, worker_id):
    return base_seed + worker_id


def _seed_everything(seed):
    random.seed(seed)
    torch.manual_seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:  # seed NumPy only where the program already uses it
        numpy.random.seed(seed % 2**32)


def _exit_when_orphaned(parent_pid):
    # A thread, so that it works wherever the loop is blocked (on a task, or sending a batch
    # nobody will read): if the main process died without shutting us down, leave.
    while True:
        time.sleep(_PARENT_CHECK_INTERVAL)
        if os.getppid() != parent_pid:
            os._exit(0)


def worker_loop(
    task_queue,
    result_conn,
    dataset,
    iterable,
    auto_collation,
    collate_fn,
    drop_last,
    base_seed,
    worker_init_fn,
    worker_id,
    num_workers,
):
    """Serves (epoch, idx, index) tasks from ``task_queue`` until it receives None; answers
    each on ``result_conn`` with (epoch, idx, batch | ExceptionWrapper | StopMarker), in the
    order received."""
    global _worker_info
    from torch.utils.data._fetch import make_fetcher

    # The process that started us: the main process, or forkserver's server. Either way, if
    # it goes away we are re-parented and the pid changes.
    parent_pid = os.getppid()
    threading.Thread(target=_exit_when_orphaned, args=(parent_pid,), daemon=True).start()
    # Ctrl-C reaches the whole process group: the main process handles it and shuts us down.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    torch.set_num_threads(1)  # workers run in parallel already; also keeps OpenMP fork-safe
    seed = worker_seed(base_seed, worker_id)
    _seed_everything(seed)
    _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
    where = f"in DataLoader worker process {worker_id}"

    def start_epoch():
        # (fetcher, None), or (None, the error every task of this epoch answers with)
        try:
            return make_fetcher(dataset, iterable, auto_collation, collate_fn, drop_last), None
        except Exception:  # e.g. iter(dataset) raised
            return None, ExceptionWrapper(sys.exc_info(), where)

    init_error = None
    try:
        if worker_init_fn is not None:
            worker_init_fn(worker_id)
    except Exception:
        init_error = ExceptionWrapper(sys.exc_info(), where)
    fetcher, epoch_error = start_epoch()

    while True:
        task = task_queue.get()
        if task is None:
            return
        if isinstance(task, ResumeIteration):
            fetcher, epoch_error = start_epoch()
            continue
        epoch, idx, index = task
        if init_error is not None or epoch_error is not None:
            data = init_error or epoch_error
        else:
            try:
                data = fetcher.fetch(index)
            except Exception as e:
                if iterable and isinstance(e, StopIteration):
                    data = StopMarker(worker_id)
                else:
                    data = ExceptionWrapper(sys.exc_info(), where)
        try:
            result_conn.send((epoch, idx, data))
        except Exception:  # the batch cannot be pickled or put in shared memory: say so
            result_conn.send((epoch, idx, ExceptionWrapper(sys.exc_info(), where)))
        del data
