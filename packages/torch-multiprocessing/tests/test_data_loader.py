"""DataLoader in the main process and with worker processes (fork; a few spawn cases).

Oracle: NumPy slicing of the same data, torch.randperm for the shuffled order, and the
worker's own report (pid, seed) carried in the batches.
"""

import gc
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import torch
import torch.multiprocessing
from torch.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    SequentialSampler,
    TensorDataset,
    default_collate,
    get_worker_info,
)

X = np.arange(40, dtype=np.float32).reshape(20, 2)


def tensor_dataset():
    return TensorDataset(torch.from_numpy(X.copy()), torch.arange(20))


class Squares(Dataset):
    """Item i is i*i; item `bad` raises; items sleep `delay(i)` so workers finish out of order."""

    def __init__(self, n=12, bad=None, slow_every=0):
        self.n, self.bad, self.slow_every = n, bad, slow_every

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.bad:
            raise ValueError(f"item {i} is broken")
        if self.slow_every and i % self.slow_every == 0:
            time.sleep(0.05)
        return i * i


class Stream(IterableDataset):
    """0..n-1, split across workers by get_worker_info when `split`."""

    def __init__(self, n, split=True):
        self.n, self.split = n, split

    def __iter__(self):
        info = get_worker_info()
        if info is None or not self.split:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


class WhoAmI(Dataset):
    """Item i reports the worker that loaded it: (i, pid, worker id, torch seed, draws)."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return {
            "i": i,
            "pid": os.getpid(),
            "worker": info.id,
            "seed": torch.initial_seed(),
            "info_seed": info.seed,
            "torch_draw": torch.rand(1).item(),
            "random_draw": random.random(),
        }


class Sleepy(Dataset):
    def __init__(self, seconds):
        self.seconds = seconds

    def __len__(self):
        return 100

    def __getitem__(self, i):
        time.sleep(self.seconds)
        return i


class NeedsTwoArgs(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a} {b}")


class RaisesOddException(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 0:
            raise NeedsTwoArgs("x", "y")
        raise KeyError("missing key")


class NoSharedMemory:
    """A sample that cannot be sent, as when /dev/shm is full."""

    def __reduce__(self):
        raise RuntimeError("unable to allocate 4096 bytes of shared memory (limit 64 MiB)")


class Unsendable(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return NoSharedMemory()


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# ---- main process -------------------------------------------------------------------------


def test_batches_match_numpy_slices_and_len():
    loader = DataLoader(tensor_dataset(), batch_size=6)
    batches = list(loader)
    assert len(loader) == 4 == len(batches)
    for k, (x, y) in enumerate(batches):
        np.testing.assert_array_equal(x.numpy(), X[6 * k : 6 * k + 6])
        assert y.tolist() == list(range(6 * k, min(6 * k + 6, 20)))
    dropped = DataLoader(tensor_dataset(), batch_size=6, drop_last=True)
    assert len(dropped) == 3 == len(list(dropped))


def test_tensor_dataset_fast_path_equals_default_collate():
    ds = tensor_dataset()
    index = [3, 0, 7]
    fast = next(iter(DataLoader(ds, batch_sampler=[index])))
    slow = default_collate([ds[i] for i in index])
    assert type(fast) is type(slow) is list
    for a, b in zip(fast, slow):
        assert a.dtype == b.dtype and torch.equal(a, b)


def test_shuffle_follows_the_generator():
    loader = DataLoader(
        Squares(20), batch_size=5, shuffle=True, generator=torch.Generator().manual_seed(7)
    )
    order = [v for batch in loader for v in batch.tolist()]
    perm = torch.randperm(20, generator=torch.Generator().manual_seed(7)).tolist()
    assert order == [i * i for i in perm]


def test_batch_size_none_converts_each_sample():
    class Arrays(Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return np.full(2, i)

    items = list(DataLoader(Arrays(), batch_size=None))
    assert [t.tolist() for t in items] == [[0, 0], [1, 1], [2, 2]]


def test_batch_sampler_and_collate_fn():
    batches = BatchSampler(SequentialSampler(range(10)), 4, False)
    loader = DataLoader(Squares(10), batch_sampler=batches, collate_fn=sum)
    assert list(loader) == [14, 126, 145] and len(loader) == 3


def test_iterable_dataset_in_main_process():
    assert [b.tolist() for b in DataLoader(Stream(7), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(list(DataLoader(Stream(7), batch_size=3, drop_last=True))) == 2
    with pytest.raises(TypeError):
        len(DataLoader(Stream(7)))


def test_settings_are_frozen_after_construction():
    loader = DataLoader(Squares(), batch_size=2)
    with pytest.raises(ValueError, match="batch_size cannot be changed"):
        loader.batch_size = 3
    loader.timeout = 5  # others may change


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"batch_size": -1}, ValueError, "batch_size"),
        ({"batch_size": 0}, ValueError, "batch_size"),
        ({"num_workers": -1}, ValueError, "num_workers"),
        ({"timeout": -1}, ValueError, "timeout"),
        ({"sampler": [0, 1], "shuffle": True}, ValueError, "sampler and shuffle"),
        ({"batch_sampler": [[0]], "batch_size": 2}, ValueError, "batch_sampler"),
        ({"batch_sampler": [[0]], "shuffle": True}, ValueError, "batch_sampler"),
        ({"batch_sampler": [[0]], "sampler": [0]}, ValueError, "batch_sampler"),
        ({"batch_sampler": [[0]], "drop_last": True}, ValueError, "batch_sampler"),
        ({"batch_size": None, "drop_last": True}, ValueError, "drop_last"),
        ({"prefetch_factor": 2}, ValueError, "prefetch_factor"),
        ({"num_workers": 1, "prefetch_factor": 0}, ValueError, "prefetch_factor"),
        ({"persistent_workers": True}, ValueError, "persistent_workers"),
        ({"num_workers": 1, "multiprocessing_context": "nope"}, ValueError, "start method"),
        ({"num_workers": 1, "multiprocessing_context": 3}, TypeError, "multiprocessing_context"),
        ({"collate_fn": 3}, TypeError, "collate_fn"),
        ({"multiprocessing_context": "fork"}, ValueError, "num_workers=0"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        DataLoader(Squares(), **kwargs)


@pytest.mark.parametrize("kwargs", [{"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}])
def test_iterable_dataset_rejects_orderings(kwargs):
    with pytest.raises(ValueError, match="IterableDataset"):
        DataLoader(Stream(3), **kwargs)


# ---- worker processes (fork) ----------------------------------------------------------------


def test_workers_deliver_in_sampler_order():
    loader = DataLoader(Squares(40, slow_every=3), batch_size=3, num_workers=2, prefetch_factor=3)
    assert [v for b in loader for v in b.tolist()] == [i * i for i in range(40)]
    assert len(loader) == 14


def test_workers_tensor_dataset_matches_numpy():
    batches = list(DataLoader(tensor_dataset(), batch_size=4, num_workers=2))
    np.testing.assert_array_equal(torch.cat([x for x, _ in batches]).numpy(), X)


def test_big_tasks_and_batches_do_not_deadlock():
    # Index lists and batches bigger than a pipe's buffer, several in flight per worker: the
    # main process must never block writing a task while a worker blocks writing a batch.
    def give_up(signum, frame):
        raise TimeoutError("DataLoader deadlocked")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(60)
    try:
        # 1 MB tasks (pickled index lists) and 1.6 MB batches. Small tensor ops only in this
        # process: a big one would start OpenMP threads here, which later forks inherit badly.
        size = 200000
        batches = [[(k + j) % 10 for j in range(size)] for k in range(8)]
        loader = DataLoader(TensorDataset(torch.arange(10)), batch_sampler=batches, num_workers=2)
        got = [b for (b,) in loader]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert len(got) == 8
    for index, batch in zip(batches, got):
        assert batch.shape == (size,)
        assert batch[:20].tolist() == index[:20] and batch[-20:].tolist() == index[-20:]


def test_iterable_dataset_split_across_workers():
    loader = DataLoader(Stream(11), batch_size=2, num_workers=2)
    batches = [b.tolist() for b in loader]
    # worker 0 streams the evens, worker 1 the odds; batches alternate between them
    assert batches == [[0, 2], [1, 3], [4, 6], [5, 7], [8, 10], [9]]
    unsplit_loader = DataLoader(Stream(3, split=False), num_workers=2)
    unsplit = sorted(v for b in unsplit_loader for v in b.tolist())
    assert unsplit == [0, 0, 1, 1, 2, 2]  # each worker streams everything: the documented trap
    dropping = DataLoader(Stream(11), batch_size=2, num_workers=2, drop_last=True)
    dropped = [b.tolist() for b in dropping]
    assert dropped == [[0, 2], [1, 3], [4, 6], [5, 7], [8, 10]]


class BrokenStream(IterableDataset):
    def __iter__(self):
        raise OSError("stream unavailable")


def test_worker_init_fn_and_iter_errors_are_reported():
    def init(worker_id):
        raise ValueError(f"no setup for worker {worker_id}")

    with pytest.raises(ValueError, match="(?s)worker process 0.*no setup for worker 0"):
        next(iter(DataLoader(Squares(4), num_workers=1, worker_init_fn=init)))
    with pytest.raises(OSError, match="(?s)in __iter__.*stream unavailable"):
        next(iter(DataLoader(BrokenStream(), num_workers=1)))


def test_worker_exception_carries_type_and_traceback():
    loader = DataLoader(Squares(8, bad=5), batch_size=2, num_workers=2)
    it = iter(loader)
    assert next(it).tolist() == [0, 1] and next(it).tolist() == [4, 9]
    with pytest.raises(ValueError) as info:
        next(it)
    text = str(info.value)
    assert "worker process 0" in text and "item 5 is broken" in text
    assert "__getitem__" in text and "Traceback" in text
    assert next(it).tolist() == [36, 49]  # the loader goes on after a failed batch


def test_exception_types_that_cannot_be_rebuilt():
    it = iter(DataLoader(RaisesOddException(), num_workers=1))
    with pytest.raises(RuntimeError, match="NeedsTwoArgs: x y"):
        next(it)
    with pytest.raises(KeyError, match="missing key") as info:
        next(it)
    assert "\n" in str(info.value)  # the traceback's lines stay readable


def test_unsendable_batch_error_reaches_the_user_intact():
    it = iter(DataLoader(Unsendable(), num_workers=1, collate_fn=lambda b: b))
    with pytest.raises(RuntimeError, match="unable to allocate 4096 bytes of shared memory"):
        next(it)


def test_killed_worker_is_reported_quickly_and_others_shut_down():
    it = iter(DataLoader(Sleepy(0.2), num_workers=2))
    pids = [w.pid for w in it._workers]
    os.kill(pids[1], signal.SIGKILL)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=rf"worker 1 \(pid {pids[1]}\).*SIGKILL"):
        for _ in range(4):
            next(it)
    assert time.monotonic() - start < 5
    assert not any(alive(pid) for pid in pids)  # reaped: no zombies


class Exits(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os._exit(3)


def test_worker_exiting_is_reported_with_its_code():
    with pytest.raises(
        RuntimeError, match=r"worker 0 \(pid \d+\) exited unexpectedly with exit code 3"
    ):
        list(DataLoader(Exits(), num_workers=1))


def test_persistent_worker_killed_between_epochs():
    loader = DataLoader(Squares(6), batch_size=2, num_workers=2, persistent_workers=True)
    assert len(list(loader)) == 3
    victim = loader._iterator._workers[0]
    os.kill(victim.pid, signal.SIGKILL)
    victim.join()
    with pytest.raises(RuntimeError, match=r"worker 0 .*SIGKILL"):
        iter(loader)
    assert [b.tolist() for b in loader] == [[0, 1], [4, 9], [16, 25]]  # fresh workers
    loader._iterator._shutdown()


def test_timeout():
    it = iter(DataLoader(Sleepy(3), num_workers=1, timeout=0.3))
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"timed out after 0.3 s"):
        next(it)
    assert time.monotonic() - start < 3


def test_garbage_collected_iterator_stops_its_workers():
    it = iter(DataLoader(Squares(50), num_workers=2))
    next(it)
    pids = [w.pid for w in it._workers]
    del it
    gc.collect()
    assert not any(alive(pid) for pid in pids)
    # in a reference cycle, collected with its queues and processes: still a clean exit
    it = iter(DataLoader(Squares(50), num_workers=2))
    next(it)
    workers = list(it._workers)
    cycle = [it]
    cycle.append(cycle)
    del it, cycle
    start = time.monotonic()
    gc.collect()
    # no hang (the grace period is 2 s; a loaded 2-core machine can take most of it), and the
    # workers exited on request rather than being terminated
    assert time.monotonic() - start < 3.5
    assert [w.exitcode for w in workers] == [0, 0]


def test_keyboard_interrupt_shuts_workers_down():
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    it = iter(DataLoader(Sleepy(2), num_workers=2))
    pids = [w.pid for w in it._workers]
    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(KeyboardInterrupt):
            next(it)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert not any(alive(pid) for pid in pids)
    with pytest.raises(StopIteration):
        next(it)


def test_worker_seeds_and_worker_init_fn():
    def init(worker_id):
        info = get_worker_info()
        assert info.id == worker_id and info.num_workers == 2
        random.seed(1000 + worker_id)

    def load(seed):
        loader = DataLoader(
            WhoAmI(), batch_size=None, num_workers=2, worker_init_fn=init,
            generator=torch.Generator().manual_seed(seed),
        )  # fmt: skip
        return list(loader)

    items = load(3)
    assert [d["i"] for d in items] == list(range(8))
    by_worker = {d["worker"]: d for d in items}
    assert by_worker[1]["seed"] == by_worker[0]["seed"] + 1  # base_seed + worker_id
    assert all(d["seed"] == d["info_seed"] for d in items)
    expected_base = torch.randint(0, 2**62, (), generator=torch.Generator().manual_seed(3)).item()
    assert by_worker[0]["seed"] == expected_base
    # torch draws follow the worker seed; worker_init_fn's reseeding of `random` sticks
    g = torch.Generator().manual_seed(by_worker[0]["seed"])
    assert items[0]["torch_draw"] == pytest.approx(torch.rand(1, generator=g).item())
    assert items[0]["random_draw"] == random.Random(1000).random()
    again = load(3)
    assert [d["torch_draw"] for d in again] == [d["torch_draw"] for d in items]
    assert get_worker_info() is None  # in the main process


def test_persistent_workers_are_reused_across_epochs():
    loader = DataLoader(WhoAmI(), batch_size=2, num_workers=2, persistent_workers=True)
    first = list(loader)
    pids = set(b["pid"].tolist()[0] for b in first)
    it = iter(loader)
    next(it)  # an epoch cut short: its leftovers must not leak into the next one
    second = list(loader)
    assert [b["i"].tolist() for b in second] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert set(b["pid"].tolist()[0] for b in second) == pids
    workers = loader._iterator._workers
    loader._iterator._shutdown()
    assert not any(w.is_alive() for w in workers)


def test_persistent_workers_restart_an_iterable_dataset():
    loader = DataLoader(Stream(5), batch_size=2, num_workers=2, persistent_workers=True)
    expected = [[0, 2], [1, 3], [4]]
    assert [b.tolist() for b in loader] == expected
    assert [b.tolist() for b in loader] == expected
    loader._iterator._shutdown()


# ---- spawn (about a second per worker: few cases) -------------------------------------------


def test_spawn_order_exception_and_persistent_epochs():
    loader = DataLoader(
        Squares(12, bad=9, slow_every=2), batch_size=3, num_workers=2,
        multiprocessing_context="spawn", persistent_workers=True,
    )  # fmt: skip
    it = iter(loader)
    assert [next(it).tolist() for _ in range(3)] == [[0, 1, 4], [9, 16, 25], [36, 49, 64]]
    with pytest.raises(ValueError, match="(?s)worker process 1.*item 9 is broken"):
        next(it)
    it = iter(loader)  # the same spawned workers serve the next epoch
    assert [next(it).tolist() for _ in range(3)] == [[0, 1, 4], [9, 16, 25], [36, 49, 64]]
    loader._iterator._shutdown()


def test_spawn_iterable_split_with_a_context_object():
    context = torch.multiprocessing.get_context("spawn")
    loader = DataLoader(Stream(7), batch_size=2, num_workers=2, multiprocessing_context=context)
    assert [b.tolist() for b in loader] == [[0, 2], [1, 3], [4, 6], [5]]


def test_spawn_unpicklable_dataset_names_it_and_the_start_method():
    class Local(Dataset):  # a local class cannot be pickled
        def __len__(self):
            return 1

        def __getitem__(self, i):
            return i

    with pytest.raises(TypeError, match=r"(?s)dataset .*Local.*'spawn' start method"):
        iter(DataLoader(Local(), num_workers=2, multiprocessing_context="spawn"))


def test_workers_exit_when_the_main_process_is_killed():
    script = textwrap.dedent(
        """
        import os, signal, sys, torch
        from torch.utils.data import DataLoader, TensorDataset
        # 4 MB batches: the workers are blocked sending theirs when the main process dies
        loader = DataLoader(TensorDataset(torch.zeros(100, 100000)), batch_size=10, num_workers=2)
        it = iter(loader)
        next(it)
        print(*(w.pid for w in it._workers), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL, done.stderr
    pids = [int(p) for p in done.stdout.split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in pids)


@pytest.mark.skipif(torch.cuda.is_available(), reason="with a GPU the batches are pinned")
@pytest.mark.parametrize("workers", [0, 2])
def test_pin_memory_without_a_gpu_warns_and_gives_plain_batches(workers):
    data = TensorDataset(torch.arange(10.0), torch.arange(10))
    with pytest.warns(UserWarning, match="no accelerator is found"):
        loader = DataLoader(data, batch_size=4, num_workers=workers, pin_memory=True)
    assert loader.pin_memory is False
    batches = list(loader)
    assert [b[0].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert not any(t.is_pinned() for b in batches for t in b)
