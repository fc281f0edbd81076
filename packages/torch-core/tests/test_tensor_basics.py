"""The tensor data model: views share storage, strides and offsets, shape
queries, contiguity, devices, the version counter and autograd attributes."""

import numpy as np
import pytest

import torch
from torch.testing._op_registry import SHORT, assert_array_matches, cases, to_numpy


@pytest.mark.parametrize("case", cases("view"), ids=repr)
def test_view_ops_match_numpy(case):
    x = case.make()
    case.check(case.call(x), case.expected(x))


@pytest.mark.parametrize(
    "case",
    cases(
        "view",
        where=lambda c: (
            c.op.view
            and c.sample.args[0].layout != "e"
            and c.dtype in (torch.float32, torch.int16, torch.bool)
        ),
    ),
    ids=repr,
)
def test_views_share_storage(case):
    """Writing into the input after taking a view shows through the view."""
    x = case.make()
    result = case.call(x)
    source = x.args[0]
    fresh = case.make(seed=1)
    source[...] = fresh.args[0]
    case.check(result, case.expected(x._replace(np_args=[fresh.np_args[0]] + x.np_args[1:])))


def test_view_strides_and_offsets():
    t = torch.arange(24.0).reshape(2, 3, 4)
    assert t.stride() == (12, 4, 1) and t.stride(1) == 4 and t.stride(-1) == 1
    assert t.transpose(0, 2).stride() == (1, 4, 12)
    assert t.permute(1, 2, 0).stride() == (4, 1, 12)
    assert t[:, 1:, ::2].stride() == (12, 4, 2)
    assert t[:, 1:, ::2].storage_offset() == 4
    assert t.select(1, 2).storage_offset() == 8
    assert t.narrow(2, 1, 2).storage_offset() == 1
    assert t.unsqueeze(1).shape == (2, 1, 3, 4)
    assert t[1].unfold(1, 2, 2).stride() == (4, 2, 1)
    assert t.diagonal(0, 1, 2).stride() == (12, 5)
    assert torch.ones(3, 1).expand(3, 5).stride() == (1, 0)
    assert t.as_strided((2, 2), (1, 3), 5).storage_offset() == 5


def test_data_ptr_moves_with_the_offset():
    for dtype in (torch.float64, torch.int16, torch.bool):
        t = torch.zeros(10, dtype=dtype)
        assert t[3:].data_ptr() == t.data_ptr() + 3 * t.element_size()
        assert t.untyped_storage().data_ptr() == t[3:].untyped_storage().data_ptr()


@pytest.mark.parametrize(
    "dtype, size",
    [
        (torch.float32, 4),
        (torch.float64, 8),
        (torch.float16, 2),
        (torch.bfloat16, 2),
        (torch.int8, 1),
        (torch.uint8, 1),
        (torch.int16, 2),
        (torch.int32, 4),
        (torch.int64, 8),
        (torch.bool, 1),
    ],
    ids=lambda v: SHORT.get(v, str(v)),
)
def test_element_size(dtype, size):
    t = torch.zeros(3, dtype=dtype)
    assert t.element_size() == size
    assert t.untyped_storage().nbytes() == 3 * size


def test_storage_is_aligned():
    for n in (1, 3, 17, 1000):
        assert torch.empty(n).data_ptr() % 64 == 0


def test_shape_queries():
    t = torch.zeros(2, 3, 4)
    assert isinstance(t.shape, torch.Size) and isinstance(t.size(), torch.Size)
    assert isinstance(t.shape, tuple)
    assert t.shape == (2, 3, 4) and t.size() == torch.Size([2, 3, 4])
    assert t.size(1) == 3 and t.size(-1) == 4
    assert t.dim() == 3 and t.ndim == 3
    assert t.numel() == 24 and t.shape.numel() == 24
    assert len(t) == 2
    scalar = torch.tensor(5.0)
    assert scalar.shape == () and scalar.dim() == 0 and scalar.numel() == 1
    assert torch.zeros(0, 3).numel() == 0


def test_size_is_a_tuple_that_prints_like_pytorch():
    size = torch.Size([2, 3])
    assert size == (2, 3) and size[1] == 3 and size[-2:] == (2, 3)
    assert isinstance(size[0:1], torch.Size)
    assert repr(size) == "torch.Size([2, 3])"
    assert torch.zeros(size).shape == size


def test_size_indexing_slicing_and_pickling_match_tuples():
    import pickle

    shape = torch.zeros(2, 3, 4, 5).shape
    plain = (2, 3, 4, 5)
    for i in range(-4, 4):
        assert shape[i] == plain[i] and type(shape[i]) is int
    for sl in (slice(1, None), slice(None, -1), slice(None, None, -1), slice(None, None, 2)):
        assert shape[sl] == plain[sl] and type(shape[sl]) is torch.Size
    assert shape[1:].numel() == 60
    with pytest.raises(IndexError):
        shape[4]
    with pytest.raises(TypeError):
        shape["a"]
    assert type(shape + (6,)) is torch.Size and (1,) + shape == (1, *plain)
    back = pickle.loads(pickle.dumps(shape))
    assert back == shape and type(back) is torch.Size
    assert not hasattr(shape, "__dict__") and hash(shape) == hash(plain)
    assert torch.Size() == () and type(torch.Size(iter([1, 2]))) is torch.Size


def test_device_property_is_equal_across_tensors_and_calls():
    a, b = torch.zeros(2), torch.ones(3)
    assert a.device == b.device == torch.device("cpu") and a.device.type == "cpu"
    assert a.untyped_storage().device == a.device and hash(a.device) == hash(torch.device("cpu"))


def test_contiguity():
    t = torch.zeros(3, 4)
    assert t.is_contiguous()
    assert t.contiguous() is t
    assert not t.t().is_contiguous()
    assert not t[:, ::2].is_contiguous()
    assert t[1:].is_contiguous()
    c = t.t().contiguous()
    assert c.is_contiguous() and c.stride() == (3, 1)
    assert torch.zeros(3, 1).t().is_contiguous()  # size-1 dims do not count
    assert torch.zeros(1, 4).expand(1, 4).is_contiguous()


def test_contiguous_copy_does_not_share():
    t = torch.zeros(2, 3)
    c = t.t().contiguous()
    c.fill_(5)
    assert t.sum().item() == 0


def test_reshape_views_when_possible_and_copies_otherwise():
    t = torch.arange(12.0).reshape(3, 4)
    view = t.reshape(4, 3)
    view[0, 0] = 100
    assert t[0, 0].item() == 100
    copy = t.t().reshape(12)
    copy[0] = -1
    assert t[0, 0].item() == 100
    assert copy.tolist()[1:4] == [4.0, 8.0, 1.0]


def test_view_with_inferred_size_and_empty():
    t = torch.arange(12)
    assert t.view(-1, 3).shape == (4, 3)
    assert t.view(2, -1, 2).shape == (2, 3, 2)
    assert torch.zeros(0, 4).view(-1, 2).shape == (0, 2)
    assert torch.tensor(3).view(1, 1).shape == (1, 1)


def test_t_on_one_and_zero_dims_and_squeeze_with_tuple():
    v = torch.arange(3)
    assert v.t().shape == (3,)
    assert torch.tensor(1).t().shape == ()
    assert torch.zeros(1, 2, 1, 3).squeeze((0, 2)).shape == (2, 3)
    assert torch.zeros(1, 2, 1).squeeze().shape == (2,)


def test_select_and_integer_indexing_drop_a_dim():
    t = torch.arange(6).reshape(2, 3)
    assert t.select(0, 1).tolist() == [3, 4, 5]
    assert t.select(1, -1).tolist() == [2, 5]
    assert t[1, 2].shape == ()


def test_diagonal_is_a_writable_view():
    t = torch.zeros(3, 3)
    t.diagonal().fill_(1)
    assert_array_matches(t, np.eye(3))
    t.diagonal(1).add_(2)
    assert t[0, 1].item() == 2 and t[1, 2].item() == 2


def test_expand_and_unfold_share_storage():
    base = torch.tensor([[1.0], [2.0]])
    e = base.expand(2, 3)
    base[1, 0] = 7
    assert e.tolist() == [[1.0, 1.0, 1.0], [7.0, 7.0, 7.0]]
    s = torch.arange(6.0)
    w = s.unfold(0, 3, 1)
    s[2] = -1
    assert w[:, 0].tolist() == [0.0, 1.0, -1.0, 3.0]


def test_clone_is_a_copy():
    t = torch.arange(4.0)
    c = t.clone()
    c[0] = 9
    assert t[0].item() == 0
    assert c.dtype == t.dtype and c.shape == t.shape


@pytest.mark.parametrize(
    "dtype", [torch.float64, torch.int32, torch.bool, torch.bfloat16], ids=SHORT.get
)
def test_copy_broadcasts_and_converts(dtype):
    dst = torch.zeros(2, 3, dtype=dtype)
    src = torch.tensor([1.0, 0.0, 2.0])
    assert dst.copy_(src) is dst
    expected = np.broadcast_to(np.array([1.0, 0.0, 2.0]), (2, 3)).astype(
        bool if dtype == torch.bool else float
    )
    assert_array_matches(dst, expected)


@pytest.mark.parametrize(
    "target", [torch.float64, torch.int32, torch.uint8, torch.bool, torch.float16]
)
def test_to_dtype_converts_values_like_numpy(target):
    values = np.array([-1.75, 0.0, 0.5, 2.25, 100.0])
    t = torch.tensor(values)
    if target == torch.uint8:
        values = np.abs(values)  # casting negative floats to unsigned is undefined
        t = t.abs()
    converted = t.to(target)
    assert converted.dtype == target
    with np.errstate(all="ignore"):
        assert_array_matches(
            converted,
            values.astype(
                {
                    torch.float64: np.float64,
                    torch.int32: np.int32,
                    torch.uint8: np.uint8,
                    torch.bool: np.bool_,
                    torch.float16: np.float16,
                }[target]
            ),
        )


def test_to_returns_self_when_nothing_changes():
    t = torch.zeros(2)
    assert t.to(torch.float32) is t
    assert t.to("cpu") is t
    assert t.cpu() is t
    assert t.to(torch.device("cpu"), torch.float32) is t
    assert t.to(torch.zeros(1, dtype=torch.float64)).dtype == torch.float64
    assert t.to(dtype=torch.int64).dtype == torch.int64
    assert t.double().dtype == torch.float64 and t.long().dtype == torch.int64
    assert t.float().dtype == torch.float32 and t.int().dtype == torch.int32
    assert t.half().dtype == torch.float16 and t.bool().dtype == torch.bool


def test_devices():
    cpu = torch.device("cpu")
    assert cpu.type == "cpu" and str(cpu) == "cpu" and repr(cpu) == "device(type='cpu')"
    assert torch.device("cpu", 0).index == 0
    assert torch.device("cuda:1").type == "cuda" and torch.device("cuda:1").index == 1
    t = torch.zeros(2, device="cpu")
    assert t.device == cpu and t.device.type == "cpu"
    assert torch.ones(2, device=cpu).device == cpu
    assert torch.zeros(2).is_cpu
    assert not torch.zeros(2).is_cuda


@pytest.mark.parametrize(
    "mutate",
    [
        lambda t: t.add_(1),
        lambda t: t.zero_(),
        lambda t: t.fill_(3),
        lambda t: t.mul_(2),
        lambda t: t.__setitem__(0, 5),
        lambda t: t.__setitem__((slice(None), 1), torch.ones(2)),
        lambda t: t.copy_(torch.ones(2, 3)),
        lambda t: t.clamp_(0, 1),
        lambda t: t.uniform_(),
        lambda t: t.t().add_(1),
        lambda t: t[1].sub_(1),
        lambda t: torch.add(t, 1, out=t),
    ],
    ids=[
        "add_",
        "zero_",
        "fill_",
        "mul_",
        "setitem-int",
        "setitem-slice",
        "copy_",
        "clamp_",
        "uniform_",
        "view-t",
        "view-row",
        "out=",
    ],
)
def test_version_counter_bumps_on_inplace(mutate):
    t = torch.zeros(2, 3)
    view = t[0]
    before = t._version
    mutate(t)
    assert t._version > before
    assert view._version == t._version  # views share the counter


def test_version_counter_ignores_out_of_place_ops():
    t = torch.zeros(2, 3)
    before = t._version
    _ = t + 1, t.sum(), t.t(), t.view(6), t.clone(), t[0], t.exp()
    assert t._version == before


def test_autograd_attributes_exist_on_plain_tensors():
    t = torch.zeros(2)
    assert t.requires_grad is False
    assert t.grad is None
    assert t.grad_fn is None
    assert t.is_leaf is True


def test_iteration_and_len():
    t = torch.arange(6).reshape(3, 2)
    rows = list(t)
    assert len(rows) == 3 and rows[2].tolist() == [4, 5]
    with pytest.raises(TypeError):
        len(torch.tensor(1))
    with pytest.raises(TypeError):
        iter(torch.tensor(1))


def test_numpy_view_of_non_contiguous_tensor():
    t = torch.arange(12).reshape(3, 4)[:, ::2].t()
    assert_array_matches(t, np.arange(12).reshape(3, 4)[:, ::2].T)
    assert to_numpy(t).shape == (2, 3)


# ---------------------------------------------------------------- set_, storage moves
def test_set_views_another_tensor_or_a_storage_in_place():
    src = torch.arange(6.0)
    t = torch.zeros(2)
    alias = t
    assert t.set_(src) is t and alias.data_ptr() == src.data_ptr()
    assert t.tolist() == src.tolist()
    t.set_(src.untyped_storage(), 1, (2, 2), (3, 1))
    np.testing.assert_array_equal(t.numpy(), [[1.0, 2.0], [4.0, 5.0]])
    src[1] = 10  # shared memory
    assert t[0, 0].item() == 10
    assert t.set_(src.storage()).shape == (6,)
    assert t.set_().shape == (0,) and t.numel() == 0
    with pytest.raises(RuntimeError, match="dtype"):
        t.set_(torch.zeros(2, dtype=torch.float64))
    with pytest.raises(RuntimeError, match="outside its storage"):
        t.set_(src.untyped_storage(), 5, (3, 3))


def test_resize_as_and_typed_storage():
    t = torch.zeros(3)
    assert t.resize_as_(torch.ones(2, 2)).shape == (2, 2)
    s = torch.arange(4, dtype=torch.int32).storage()
    assert s.dtype == torch.int32 and s.size() == 4 and s.tolist() == [0, 1, 2, 3]


def test_storage_move_into_a_buffer_keeps_views_and_values():
    import mmap

    t = torch.arange(6.0).view(2, 3)
    row = t[1]
    storage = t.untyped_storage()
    assert storage._buffer_owner() is None
    buf = mmap.mmap(-1, 4096)
    storage._move_into(buf)
    assert storage._buffer_owner() is buf
    np.testing.assert_array_equal(row.numpy(), [3.0, 4.0, 5.0])
    np.frombuffer(buf, dtype=np.float32, count=6)[4] = 40  # the buffer is now the memory
    assert row[1].item() == 40
    with pytest.raises(RuntimeError, match="cannot hold"):
        torch.zeros(2048).untyped_storage()._move_into(mmap.mmap(-1, 4096))


@pytest.mark.ours_only
def test_forked_child_runs_parallel_kernels():
    """GNU OpenMP's thread pool does not survive fork: a child that used the parent's threads
    would hang. Children run kernels on one thread (checked in a subprocess, with a timeout)."""
    import subprocess
    import sys

    code = (
        "import os, torch\n"
        "x = torch.zeros(2_000_000); x.add_(1)\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    y = torch.ones(2_000_000).add_(1)\n"
        "    os._exit(0 if y.sum().item() == 4_000_000 and torch.get_num_threads() == 1 else 3)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "assert os.waitstatus_to_exitcode(status) == 0, status\n"
        "print(torch.get_num_threads() >= 1)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "True"
