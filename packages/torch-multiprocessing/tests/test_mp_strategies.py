"""Sharing strategies, and a clear error when shared memory runs out."""

import os
import re
import resource

import pytest

import torch
import torch.multiprocessing as mp
from torch.multiprocessing import _shared_memory


@pytest.fixture
def file_system():
    mp.set_sharing_strategy("file_system")
    yield
    mp.set_sharing_strategy("file_descriptor")


def test_strategy_names():
    assert mp.get_sharing_strategy() == "file_descriptor"
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    with pytest.raises(ValueError, match="file_descriptor, file_system") as info:
        mp.set_sharing_strategy("shm_manager")
    assert "shm_manager" in str(info.value)
    assert mp.get_sharing_strategy() == "file_descriptor"


def _new_in_shm(before):
    """Names in /dev/shm that are not in `before`, less the segments other processes made
    meanwhile (``torch_<their pid>_...``: tests may run in parallel processes)."""
    others = re.compile(rf"torch_(?!{os.getpid()}_)\d+_")
    return {name for name in set(os.listdir("/dev/shm")) - before if not others.match(name)}


def test_file_descriptor_segments_have_no_name():
    before = set(os.listdir("/dev/shm"))
    tensor = torch.ones(1000).share_memory_()
    assert _new_in_shm(before) == set()
    assert _shared_memory.segment_of(tensor.untyped_storage()).path is None
    assert tensor.sum().item() == 1000


def test_file_system_segment_lives_while_used(file_system):
    before = set(os.listdir("/dev/shm"))
    tensor = torch.arange(10.0).share_memory_()
    (name,) = _new_in_shm(before)
    assert name.startswith(f"torch_{os.getpid()}_")
    assert os.path.getsize(f"/dev/shm/{name}") == 40 + 8  # data, then the in-flight count
    assert tensor.tolist() == list(range(10))
    view = tensor[2:]
    del tensor
    assert os.path.exists(f"/dev/shm/{name}")  # the view keeps the storage
    del view
    assert not os.path.exists(f"/dev/shm/{name}")


def test_strategy_applies_to_new_storages_only(file_system):
    tensor = torch.ones(3)
    tensor.share_memory_()
    segment = _shared_memory.segment_of(tensor.untyped_storage())
    mp.set_sharing_strategy("file_descriptor")
    tensor.share_memory_()
    assert _shared_memory.segment_of(tensor.untyped_storage()) is segment
    assert segment.path is not None


def _share_under_limit(strategy, directory, limit, nbytes, results):
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    _shared_memory.SEGMENT_DIR = directory
    mp.set_sharing_strategy(strategy)
    tensor = torch.zeros(nbytes // 4)
    try:
        tensor.share_memory_()
    except RuntimeError as err:
        results.put(("RuntimeError", str(err), tensor.is_shared(), os.listdir(directory)))
    else:
        results.put(("shared", "", tensor.is_shared(), os.listdir(directory)))


@pytest.mark.parametrize("strategy", ["file_descriptor", "file_system"])
def test_out_of_shared_memory_is_a_clear_error(strategy, tmp_path):
    """A segment bigger than allowed fails at creation (not with SIGBUS on first touch)."""
    ctx = mp.get_context("fork")
    results = ctx.SimpleQueue()
    nbytes = 4 * 2**20
    child = ctx.Process(
        target=_share_under_limit, args=(strategy, str(tmp_path), 2**20, nbytes, results)
    )
    child.start()
    kind, message, shared, files = results.get()
    child.join()
    assert child.exitcode == 0
    assert kind == "RuntimeError" and not shared
    assert f"cannot allocate {nbytes} bytes of shared memory" in message
    assert "os.statvfs" in message and "--shm-size" in message
    assert files == []  # the failed segment was removed


def test_within_the_limit_is_fine(tmp_path):
    ctx = mp.get_context("fork")
    results = ctx.SimpleQueue()
    child = ctx.Process(
        target=_share_under_limit, args=("file_system", str(tmp_path), 2**20, 2**16, results)
    )
    child.start()
    kind, _, shared, files = results.get()
    child.join()
    assert kind == "shared" and shared and len(files) == 1
    assert os.listdir(tmp_path) == []  # unlinked when the child exited
