"""CUDA tensors shared with CuPy without a copy: DLPack both ways and the CUDA Array
Interface (``__cuda_array_interface__``) both ways. Values are checked against the CPU
copies, and sharing by writing through one side and reading through the other.

Skipped where CUDA is not available or CuPy is not installed.
"""

import numpy as np
import pytest

import torch

if not torch.cuda.is_available():
    pytest.skip("no usable CUDA GPU", allow_module_level=True)
cp = pytest.importorskip("cupy")

DTYPES = [torch.float32, torch.float64, torch.float16, torch.int64, torch.int32, torch.bool]


def _tensor(dtype, shape=(3, 5)):
    x = torch.arange(int(np.prod(shape)), dtype=torch.float64).reshape(shape) - 4
    return x.to(dtype).cuda()


@pytest.mark.parametrize("dtype", DTYPES)
def test_dlpack_to_cupy_shares_memory(dtype):
    t = _tensor(dtype)
    a = cp.from_dlpack(t)
    np.testing.assert_array_equal(cp.asnumpy(a), t.cpu().numpy())
    if dtype != torch.bool:
        a[0, 0] = 7
        assert t[0, 0].item() == 7


@pytest.mark.parametrize("dtype", DTYPES)
def test_cuda_array_interface_to_cupy_shares_memory(dtype):
    t = _tensor(dtype)
    info = t.__cuda_array_interface__
    assert info["shape"] == (3, 5) and info["version"] == 3
    assert info["data"][0] == t.data_ptr()
    a = cp.asarray(t)  # reads __cuda_array_interface__
    np.testing.assert_array_equal(cp.asnumpy(a), t.cpu().numpy())
    if dtype != torch.bool:
        t[1, 2] = 9
        assert int(a[1, 2]) == 9


def test_strided_views_keep_their_strides():
    t = _tensor(torch.float32, (4, 6)).t()[1:, ::2]
    a = cp.asarray(t)
    np.testing.assert_array_equal(cp.asnumpy(a), t.cpu().numpy())
    b = cp.from_dlpack(t)
    np.testing.assert_array_equal(cp.asnumpy(b), t.cpu().numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.float16, np.bool_])
def test_cupy_arrays_become_tensors_without_a_copy(dtype):
    a = cp.asarray(np.arange(12).reshape(3, 4) % 3 - 1).astype(dtype)
    for t in (torch.from_dlpack(a), torch.as_tensor(a)):
        assert t.device.type == "cuda"
        np.testing.assert_array_equal(t.cpu().numpy(), cp.asnumpy(a))
    if dtype != np.bool_:
        shared = torch.as_tensor(a)
        shared[2, 3] = 5
        assert int(a[2, 3]) == 5
        copied = torch.tensor(a)
        copied[0, 0] = 4
        assert int(a[0, 0]) != 4


def test_cupy_views_and_work_on_cupys_stream_are_seen():
    base = cp.arange(40, dtype=cp.float32).reshape(5, 8)
    with cp.cuda.Stream(non_blocking=True):
        view = (base * 2)[:, 1::3]  # computed on another stream
        t = torch.as_tensor(view)
    np.testing.assert_array_equal(t.cpu().numpy(), cp.asnumpy(view))
    u = torch.from_dlpack(view)
    torch.testing.assert_close(u, t)


def test_the_tensor_keeps_the_cupy_memory_alive():
    a = cp.arange(1000, dtype=cp.float32)
    t = torch.as_tensor(a)
    del a
    cp.get_default_memory_pool().free_all_blocks()
    _ = cp.ones(1000, dtype=cp.float32) * 3  # would reuse the block if it had been freed
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(1000, dtype=np.float32))


def test_cpu_tensors_have_no_cuda_array_interface():
    assert not hasattr(torch.ones(2), "__cuda_array_interface__")
    assert torch.ones(2).__dlpack_device__() == (1, 0)
    assert _tensor(torch.float32).__dlpack_device__() == (2, torch.cuda.current_device())
