"""DataLoader: batches from a dataset, in the main process or in worker processes.

With ``num_workers > 0`` each worker has a task ``Queue`` and a result ``Pipe`` of its own.
The main process deals tasks (epoch, idx, indices) round robin, about ``prefetch_factor`` per
worker ahead, and reads the answer to task ``idx`` from the pipe of the worker that got it: a
worker answers its tasks in order, so batches come out in sampler order with no reordering
buffer. While it waits it also watches the worker's process sentinel, so a dead worker is
reported at once instead of hanging. Tasks go through a Queue because its put never blocks
(a feeder thread writes): a main process blocked writing a big task to a worker that is itself
blocked writing a batch back would deadlock. Pipes and queues pickle with multiprocessing's
ForkingPickler, so the tensor reductions of ``torch.multiprocessing`` (shared memory) apply.
"""

import math
import os
import pickle
import signal
import time
import warnings
import weakref
from multiprocessing.connection import wait as _wait_any

import torch
import torch.multiprocessing as multiprocessing
from torch.utils.data._collate import default_collate, default_convert
from torch.utils.data._fetch import make_fetcher
from torch.utils.data._worker import ExceptionWrapper, ResumeIteration, StopMarker, worker_loop
from torch.utils.data.dataset import IterableDataset
from torch.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]

# How long shutdown lets workers finish on their own before terminating them.
_SHUTDOWN_GRACE_S = 2.0
# Attributes that define the batches; changing them after construction would desync len() and
# the samplers built from them.
_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


class _InfiniteConstantSampler(Sampler):
    """Yields None forever: for an iterable dataset the 'index' only counts samples."""

    def __iter__(self):
        while True:
            yield None


class DataLoader:
    """Iterates over ``dataset`` in batches.

    Args: ``batch_size`` (None turns off automatic batching: each item is one sample, passed
    through ``collate_fn``), ``shuffle`` (a ``RandomSampler`` using ``generator``), ``sampler``
    or ``batch_sampler`` (custom order; exclusive with shuffle, and batch_sampler also with
    batch_size/drop_last), ``num_workers`` (0: load in the main process), ``collate_fn``
    (default ``default_collate``), ``pin_memory`` (batches in page-locked memory where CUDA
    can be used, for fast and asynchronous copies to the GPU; a warning and plain batches
    elsewhere, as in PyTorch), ``drop_last``
    (drop the last incomplete batch), ``timeout`` (seconds to wait for a worker's batch, 0 =
    forever), ``worker_init_fn(worker_id)`` (called in each worker after seeding),
    ``multiprocessing_context`` (a start method name or a context), ``generator`` (draws the
    shuffle order and the workers' base seed), ``prefetch_factor`` (batches in flight per
    worker, default 2), ``persistent_workers`` (keep the workers between epochs).

    Worker ``i`` is seeded with ``base_seed + i`` (``torch.initial_seed()`` there), where
    ``base_seed`` is drawn from ``generator`` at each ``iter()``; Python's ``random`` and,
    if imported, NumPy are seeded from it too.
    """

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers=False,
        pin_memory_device="",
        in_order=True,
    ):
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(
                f"DataLoader: num_workers should be a non-negative integer, got {num_workers!r}"
                " (num_workers=0 loads in the main process)"
            )
        if timeout < 0:
            raise ValueError(f"DataLoader: timeout should be non-negative, got {timeout!r}")
        if prefetch_factor is not None:
            if num_workers == 0:
                raise ValueError(
                    "DataLoader: prefetch_factor is only used with worker processes; leave it "
                    "None when num_workers=0"
                )
            if isinstance(prefetch_factor, bool) or not isinstance(prefetch_factor, int):
                raise TypeError(
                    f"DataLoader: prefetch_factor should be an integer, got {prefetch_factor!r}"
                )
            if prefetch_factor < 1:
                raise ValueError(
                    f"DataLoader: prefetch_factor should be at least 1, got {prefetch_factor}"
                )
        elif num_workers > 0:
            prefetch_factor = 2
        if persistent_workers and num_workers == 0:
            raise ValueError("DataLoader: persistent_workers=True needs num_workers > 0")
        if worker_init_fn is not None and not callable(worker_init_fn):
            raise TypeError(
                f"DataLoader: worker_init_fn should be callable, got {type(worker_init_fn)}"
            )
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"DataLoader: collate_fn should be callable, got {type(collate_fn)}")

        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler)):
                if value not in (None, False):
                    raise ValueError(
                        f"DataLoader: an IterableDataset sets its own order; {name} must be "
                        f"left unset, got {name}={value!r}"
                    )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader: an IterableDataset sets its own order; batch_sampler must be "
                    "left unset"
                )
            shuffle = False
        if shuffle not in (None, True, False):
            raise TypeError(f"DataLoader: shuffle should be a bool, got {shuffle!r}")
        if sampler is not None and shuffle:
            raise ValueError(
                "DataLoader: sampler and shuffle=True are exclusive (the sampler sets the "
                "order; use RandomSampler for a shuffled one)"
            )
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "DataLoader: batch_sampler is exclusive with batch_size, shuffle, sampler "
                    "and drop_last (the batch sampler already decides all of them)"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "DataLoader: batch_size=None turns off batching, so drop_last=True means nothing"
            )
        if batch_size is not None and (
            isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0
        ):
            raise ValueError(
                f"DataLoader: batch_size should be a positive integer or None, got {batch_size!r}"
            )

        if sampler is None:
            if iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert

        self.dataset = dataset
        self.batch_size = batch_size
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.collate_fn = collate_fn
        if pin_memory and not torch.cuda.is_available():  # PyTorch's warning, then no pinning
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device "
                "pinned memory won't be used.",
                UserWarning,
                stacklevel=2,
            )
            pin_memory = False
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.drop_last = drop_last
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self._iterable = iterable
        self._iterator = None
        self._initialized = True

    def __setattr__(self, name, value):
        if name in _FROZEN and getattr(self, "_initialized", False):
            raise ValueError(
                f"DataLoader: {name} cannot be changed after the DataLoader is built; make a "
                "new DataLoader"
            )
        super().__setattr__(name, value)

    @property
    def multiprocessing_context(self):
        return self._mp_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None and self.num_workers == 0:
            raise ValueError(
                "DataLoader: multiprocessing_context only applies to worker processes; leave "
                "it None when num_workers=0"
            )
        if context is not None:
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(
                        f"DataLoader: multiprocessing_context {context!r} is not a start method"
                        f" here; choose one of {methods}"
                    )
                context = multiprocessing.get_context(context)
            elif not (hasattr(context, "Process") and hasattr(context, "get_start_method")):
                raise TypeError(
                    "DataLoader: multiprocessing_context should be a start method name or a "
                    f"multiprocessing context, got {type(context)}"
                )
        self._mp_context = context

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if not self.persistent_workers:
            return _MultiProcessIter(self)
        if self._iterator is None or self._iterator._closed:
            self._iterator = _MultiProcessIter(self)
        else:
            self._iterator._reset()
        return self._iterator

    def __len__(self):
        if not self._iterable:
            return len(self._index_sampler)
        n = len(self.dataset)  # TypeError if the stream has no length
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)


class _SingleProcessIter:
    def __init__(self, loader):
        self._loader = loader
        self._sampler_iter = iter(loader._index_sampler)
        self._fetcher = make_fetcher(
            loader.dataset,
            loader._iterable,
            loader._auto_collation,
            loader.collate_fn,
            loader.drop_last,
        )

    def __iter__(self):
        return self

    def __next__(self):
        batch = self._fetcher.fetch(next(self._sampler_iter))
        return _pinned(batch) if self._loader.pin_memory else batch

    def __len__(self):
        return len(self._loader)


def _pinned(data):
    """`data` (a batch) with every CPU tensor in it copied to page-locked memory; mappings,
    namedtuples, lists and tuples keep their types."""
    if isinstance(data, torch.Tensor):
        return data.pin_memory() if data.device.type == "cpu" else data
    if isinstance(data, dict):
        return type(data)({k: _pinned(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(_pinned(v) for v in data))
    if isinstance(data, (list, tuple)):
        return type(data)(_pinned(v) for v in data)
    return data


def _death_message(worker_id, process):
    code = process.exitcode
    if code is not None and code < 0:
        name = signal.Signals(-code).name
        how = f"was killed by signal {name} ({-code})"
        if -code == signal.SIGBUS:
            how += (
                "; a bus error in a worker usually means /dev/shm is full (raise it, e.g. "
                "docker run --shm-size=2g, or use num_workers=0)"
            )
        elif -code == signal.SIGKILL:
            how += " (possibly by the out-of-memory killer)"
    else:
        how = f"exited unexpectedly with exit code {code}"
    return f"DataLoader worker {worker_id} (pid {process.pid}) {how}"


class _MultiProcessIter:
    def __init__(self, loader):
        self._loader = loader
        self._closed = True  # until the workers exist
        self._workers, self._task_queues, self._conns = [], [], []
        # Stops the workers when called, or when this iterator is garbage collected. A
        # finalizer, not __del__: it holds the queues, pipes and processes itself, so they are
        # still usable when a garbage cycle containing the iterator is collected.
        self._stop = weakref.finalize(
            self, _stop_workers, self._workers, self._task_queues, self._conns, os.getpid()
        )
        context = loader.multiprocessing_context or multiprocessing.get_context()
        base_seed = int(
            torch.randint(0, 2**62, (), dtype=torch.int64, generator=loader.generator).item()
        )
        try:
            for worker_id in range(loader.num_workers):
                task_queue = context.Queue()
                conn, worker_conn = context.Pipe(duplex=False)
                process = context.Process(
                    target=worker_loop,
                    args=(
                        task_queue,
                        worker_conn,
                        loader.dataset,
                        loader._iterable,
                        loader._auto_collation,
                        loader.collate_fn,
                        loader.drop_last,
                        base_seed,
                        loader.worker_init_fn,
                        worker_id,
                        loader.num_workers,
                    ),
                    daemon=True,
                )
                self._task_queues.append(task_queue)
                self._conns.append(conn)
                try:
                    process.start()
                finally:
                    worker_conn.close()  # the worker has its own end now
                self._workers.append(process)
        except Exception as e:
            self._shutdown()
            method = context.get_start_method()
            culprit = None if method == "fork" else _unpicklable_argument(loader)
            if culprit is None:
                raise
            raise TypeError(
                f"DataLoader: the {culprit} cannot be pickled, but worker processes started "
                f"with the '{method}' start method receive it pickled "
                f"({type(e).__name__}: {e}). Define it at module level (no lambdas, local "
                "classes or open files), use the 'fork' start method, or num_workers=0"
            ) from e
        self._closed = False
        self._epoch = 0
        self._reset(first=True)

    def _reset(self, first=False):
        loader = self._loader
        self._epoch += 1
        self._sampler_iter = iter(loader._index_sampler)
        self._send_idx = self._rcvd_idx = 0
        self._task_worker = {}  # idx -> worker id, for tasks sent and not yet answered
        self._active = [True] * loader.num_workers  # False once its stream is exhausted
        self._next_worker = 0
        if not first:
            for worker_id, process in enumerate(self._workers):
                if not process.is_alive():  # died between epochs
                    message = _death_message(worker_id, process)
                    self._shutdown()
                    raise _WorkerFailure(message)
                self._task_queues[worker_id].put(ResumeIteration())
        for _ in range(loader.prefetch_factor * loader.num_workers):
            self._send_task()

    def _send_task(self):
        n = len(self._workers)
        for _ in range(n):
            worker_id = self._next_worker
            self._next_worker = (self._next_worker + 1) % n
            if self._active[worker_id]:
                break
        else:
            return
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        self._task_queues[worker_id].put((self._epoch, self._send_idx, index))
        self._task_worker[self._send_idx] = worker_id
        self._send_idx += 1

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        if self._closed:
            raise StopIteration
        try:
            while self._rcvd_idx < self._send_idx:
                worker_id = self._task_worker.pop(self._rcvd_idx)
                data = self._receive(worker_id)
                self._rcvd_idx += 1
                if isinstance(data, StopMarker):
                    self._active[worker_id] = False
                    continue
                self._send_task()
                if isinstance(data, ExceptionWrapper):
                    data.reraise()
                return _pinned(data) if self._loader.pin_memory else data
        except (KeyboardInterrupt, _WorkerFailure):
            self._shutdown()
            raise
        if not self._loader.persistent_workers:
            self._shutdown()
        raise StopIteration

    def _receive(self, worker_id):
        """The answer to the oldest task of ``worker_id`` in this epoch."""
        conn, process = self._conns[worker_id], self._workers[worker_id]
        timeout = self._loader.timeout
        deadline = time.monotonic() + timeout if timeout else None
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise _WorkerFailure(
                    f"DataLoader timed out after {timeout} s waiting for a batch from worker "
                    f"{worker_id} (pid {process.pid})"
                )
            ready = _wait_any([conn, process.sentinel], remaining)
            if conn in ready:
                try:
                    epoch, _, data = conn.recv()
                except Exception as e:
                    # EOF: it died mid-message; or it died right after sending, before we could
                    # fetch the shared memory of the batch's tensors.
                    if process.is_alive() and not isinstance(e, (EOFError, OSError)):
                        raise
                    process.join(1.0)
                    raise _WorkerFailure(_death_message(worker_id, process)) from e
                if epoch == self._epoch:  # else left over from an epoch the user cut short
                    return data
            elif process.sentinel in ready:
                process.join()
                raise _WorkerFailure(_death_message(worker_id, process))

    def _shutdown(self):
        self._closed = True
        self._stop()


def _stop_workers(workers, task_queues, conns, owner_pid):
    """Asks the workers to exit, gives them a moment, then terminates any left; empties the
    lists. Does nothing in a forked child (a worker of another loader) that inherited them."""
    if os.getpid() != owner_pid:
        return
    for task_queue in task_queues:
        task_queue.put(None)
    deadline = time.monotonic() + _SHUTDOWN_GRACE_S
    for conn, process in zip(conns, workers):
        # Drain answers still on the way: a worker blocked sending one never reads None.
        while process.is_alive():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            ready = _wait_any([conn, process.sentinel], remaining)
            if conn in ready:
                try:  # unpickled, so that its shared memory is released
                    conn.recv()
                except Exception:  # EOF, or its sender exited already: nothing to release
                    process.join(0.1)
        if process.is_alive():
            process.terminate()
            process.join(1.0)
            if process.is_alive():
                process.kill()
        process.join()
    for conn in conns:
        conn.close()
    for task_queue in task_queues:
        task_queue.cancel_join_thread()  # a dead worker's unread tasks must not block exit
        task_queue.close()
    del workers[:], task_queues[:], conns[:]


class _WorkerFailure(RuntimeError):
    """A worker died or timed out: the iterator shuts down."""


def _unpicklable_argument(loader):
    """Which of the objects a spawned worker receives does not pickle (None: all do)."""
    for name, obj in (
        ("dataset", loader.dataset),
        ("collate_fn", loader.collate_fn),
        ("worker_init_fn", loader.worker_init_fn),
    ):
        try:
            pickle.dumps(obj)
        except Exception:
            return f"{name} {obj!r}"
    return None
