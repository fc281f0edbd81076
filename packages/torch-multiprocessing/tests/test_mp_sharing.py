"""Tensors and storages sent between processes share memory with the sender, both ways."""

import os

import numpy as np
import pytest

import torch
import torch.multiprocessing as mp


def _fill_and_return(inbox, outbox, value):
    tensor = inbox.get()
    tensor.fill_(value)
    outbox.put(tensor)


def _check_views(inbox, outbox):
    a, b, storage = inbox.get()
    outbox.put(
        (
            a.data_ptr() - a.storage_offset() * 4 == b.data_ptr() - b.storage_offset() * 4,
            a.untyped_storage() == b.untyped_storage() == storage,  # one storage
            tuple(b.shape),
            b.stride(),
            b.tolist(),
        )
    )


def _child_creates(outbox, done):
    tensor = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    outbox.put(tensor)
    done.wait()  # the parent writes into it; we check we see the writes
    outbox.put(tensor.tolist())


@pytest.mark.parametrize("method", ["fork", "spawn"])
@pytest.mark.parametrize("strategy", ["file_descriptor", "file_system"])
def test_child_writes_are_seen_by_parent(method, strategy):
    mp.set_sharing_strategy(strategy)
    try:
        ctx = mp.get_context(method)
        inbox, outbox = ctx.Queue(), ctx.Queue()
        base = torch.zeros(3, 4)
        child = ctx.Process(target=_fill_and_return, args=(inbox, outbox, 10.0))
        child.start()
        inbox.put(base[1])  # a view: the whole storage is shared, the view's layout kept
        back = outbox.get()
        child.join()
        expected = np.zeros((3, 4), np.float32)
        expected[1] = 10
        np.testing.assert_array_equal(base.numpy(), expected)
        assert base.is_shared()
        assert back.data_ptr() == base[1].data_ptr()  # the parent's own mapping, not a copy
    finally:
        mp.set_sharing_strategy("file_descriptor")


def test_parent_writes_are_seen_by_child_fork():
    ctx = mp.get_context("fork")
    outbox, done = ctx.Queue(), ctx.Event()
    child = ctx.Process(target=_child_creates, args=(outbox, done))
    child.start()
    tensor = outbox.get()
    assert tensor.is_shared()
    tensor.mul_(-1)
    done.set()
    assert outbox.get() == (-np.arange(6).reshape(2, 3)).tolist()
    child.join()


def test_parent_writes_are_seen_by_child_spawn():
    ctx = mp.get_context("spawn")
    outbox, done = ctx.Queue(), ctx.Event()
    child = ctx.Process(target=_child_creates, args=(outbox, done))
    child.start()
    tensor = outbox.get()
    tensor.add_(100)
    done.set()
    assert outbox.get() == (np.arange(6).reshape(2, 3) + 100).tolist()
    child.join()


def test_views_of_one_storage_arrive_as_one_storage():
    ctx = mp.get_context("fork")
    inbox, outbox = ctx.Queue(), ctx.Queue()
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    child = ctx.Process(target=_check_views, args=(inbox, outbox))
    child.start()
    view = base.t()[1:]  # non-contiguous, with an offset
    inbox.put((base, view, base.untyped_storage()))
    same_memory, same_storage, shape, stride, values = outbox.get()
    child.join()
    assert same_memory and same_storage
    assert shape == (3, 3) and stride == (1, 4)
    assert values == base.numpy().T[1:].tolist()


def test_process_arguments_are_shared_under_fork():
    """Fork does not pickle a Process's arguments: the tensors are moved to shared memory."""
    ctx = mp.get_context("fork")
    tensor = torch.zeros(5, dtype=torch.int32)
    storage = torch.zeros(2, dtype=torch.int64).untyped_storage()
    child = ctx.Process(target=_fill_args, args=([tensor],), kwargs={"storage": storage})
    child.start()
    child.join()
    assert child.exitcode == 0
    assert tensor.tolist() == [7] * 5
    assert torch.empty(0, dtype=torch.int64).set_(storage).tolist() == [3, 3]


def _fill_args(tensors, storage):
    tensors[0].fill_(7)
    torch.empty(0, dtype=torch.int64).set_(storage).fill_(3)


def _echo(conn):
    while True:
        obj = conn.recv()
        if obj is None:
            return
        conn.send(obj)


def test_pipe_carries_dtypes_grad_flags_parameters_and_storages():
    ctx = mp.get_context("fork")
    parent, child_end = ctx.Pipe()
    child = ctx.Process(target=_echo, args=(child_end,))
    child.start()
    try:
        for dtype in (torch.float64, torch.int16, torch.bool, torch.uint8):
            tensor = torch.ones(3, dtype=dtype)
            parent.send(tensor)
            back = parent.recv()
            assert back.dtype == dtype and back.data_ptr() == tensor.data_ptr()
        weight = torch.nn.Parameter(torch.randn(2, 2))
        leaf = torch.ones(2, requires_grad=True)
        parent.send((weight, leaf, torch.ones(2)))
        w, leaf_back, plain = parent.recv()
        assert type(w) is torch.nn.Parameter and w.requires_grad
        assert leaf_back.requires_grad and leaf_back.is_leaf and not plain.requires_grad
        assert torch.equal(w.detach(), weight.detach())
        typed = torch.tensor([1.5, 2.5]).storage()
        parent.send(typed)
        back = parent.recv()
        assert type(back) is type(typed) and back.tolist() == [1.5, 2.5]
        assert back.data_ptr() == typed.data_ptr()
    finally:
        parent.send(None)
        child.join()


def test_non_leaf_requiring_grad_is_refused():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        mp.reductions.ForkingPickler.dumps(x * 2)


def test_share_memory_and_is_shared():
    tensor = torch.arange(4.0)
    assert not tensor.is_shared()
    view = tensor[1:]
    assert tensor.share_memory_() is tensor
    assert tensor.is_shared() and view.is_shared()
    assert view.tolist() == [1.0, 2.0, 3.0]
    ptr = tensor.data_ptr()
    tensor.share_memory_()  # already shared: nothing moves
    assert tensor.data_ptr() == ptr


def test_module_share_memory():
    model = torch.nn.Linear(3, 2)
    weight = model.weight
    model.share_memory()
    assert model.weight is weight
    assert all(p.is_shared() for p in model.parameters())


def test_module_level_api_matches_multiprocessing():
    import multiprocessing

    for name in multiprocessing.__all__:
        assert hasattr(mp, name), name
    assert mp.get_start_method() == multiprocessing.get_start_method()
    assert isinstance(mp.get_context("spawn"), mp.SpawnContext)
    with pytest.raises(ValueError, match="cannot find context"):
        mp.get_context("thread")
    assert os.getpid() == mp.current_process().pid


def _send_and_exit(outbox):
    tensor = torch.arange(5.0)
    outbox.put(tensor)
    outbox.close()
    outbox.join_thread()  # flushed; the process exits before the parent reads it


def test_file_system_message_outlives_its_sender():
    mp.set_sharing_strategy("file_system")
    try:
        ctx = mp.get_context("fork")
        outbox = ctx.Queue()
        child = ctx.Process(target=_send_and_exit, args=(outbox,))
        child.start()
        child.join()
        tensor = outbox.get()
        assert tensor.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0] and tensor.is_shared()
    finally:
        mp.set_sharing_strategy("file_descriptor")


def test_file_descriptor_sender_gone_is_a_clear_error():
    ctx = mp.get_context("fork")
    outbox = ctx.Queue()
    child = ctx.Process(target=_send_and_exit, args=(outbox,))
    child.start()
    child.join()
    with pytest.raises(RuntimeError, match="exited before it was received.*file_system"):
        outbox.get()


def test_same_process_round_trip_and_empty_tensors():
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    tensor, empty = torch.ones(4), torch.zeros(0, 3)
    queue.put((tensor, tensor[2:], empty))
    back, tail, back_empty = queue.get()
    assert back.data_ptr() == tensor.data_ptr() and tail.data_ptr() == tensor[2:].data_ptr()
    assert back_empty.shape == (0, 3) and back_empty.is_shared()
    queue.close()
    queue.join_thread()
