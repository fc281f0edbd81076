"""The CUDA backend's host side against a stand-in driver, on machines without a GPU.

A small C library exporting the driver and cuBLAS functions the core loads, with device
memory that is host memory (allocations are malloc, copies memcpy, kernel launches do
nothing), lets everything that only moves bytes run for real: loading, the caching
allocator's counters, copies to and from the "GPU", pinned memory, torch.save / torch.load
of CUDA tensors, and the refusal to read device memory from the host. Nothing here computes
on the device (kernels are NVRTC's and the GPU's: tests/test_cuda_gpu.py). Each scenario
runs in a fresh process, as loading a driver cannot be undone.
"""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import torch

FAKE_DRIVER = r"""
#include <stdlib.h>
#include <string.h>
typedef unsigned long long P;
int cuInit(unsigned f) { return 0; }
int cuDeviceGetCount(int* n) { *n = 1; return 0; }
int cuDeviceGet(int* d, int i) { *d = i; return 0; }
int cuDeviceGetName(char* b, int n, int d) { strncpy(b, "Stand-in GPU", n); return 0; }
int cuDeviceGetAttribute(int* v, int a, int d) { *v = a == 16 ? 4 : a == 75 ? 9 : 0; return 0; }
int cuDeviceTotalMem_v2(size_t* n, int d) { *n = (size_t)1 << 30; return 0; }
int cuDevicePrimaryCtxRetain(void** c, int d) { *c = (void*)1; return 0; }
int cuCtxSetCurrent(void* c) { return 0; }
int cuCtxSynchronize(void) { return 0; }
int cuMemAlloc_v2(P* p, size_t n) { *p = (P)malloc(n); return *p ? 0 : 2; }
int cuMemFree_v2(P p) { free((void*)p); return 0; }
int cuMemGetInfo_v2(size_t* f, size_t* t) { *f = 1; *t = 2; return 0; }
int cuMemcpyHtoDAsync_v2(P d, const void* s, size_t n, void* st) {
  memcpy((void*)d, s, n); return 0; }
int cuMemcpyDtoHAsync_v2(void* d, P s, size_t n, void* st) { memcpy(d, (void*)s, n); return 0; }
int cuMemcpyDtoDAsync_v2(P d, P s, size_t n, void* st) { memcpy((void*)d, (void*)s, n); return 0; }
int cuMemHostAlloc(void** p, size_t n, unsigned f) { *p = malloc(n); return 0; }
int cuMemFreeHost(void* p) { free(p); return 0; }
int cuModuleLoadData(void** m, const void* d) { *m = (void*)1; return 0; }
int cuModuleGetFunction(void** f, void* m, const char* n) { *f = (void*)1; return 0; }
int cuLaunchKernel(void* f, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e,
                   unsigned g, unsigned sh, void* s, void** pa, void** ex) { return 0; }
int cuStreamCreateWithPriority(void** s, unsigned f, int p) { *s = (void*)2; return 0; }
int cuStreamDestroy_v2(void* s) { return 0; }
int cuStreamSynchronize(void* s) { return 0; }
int cuStreamQuery(void* s) { return 0; }
int cuStreamWaitEvent(void* s, void* e, unsigned f) { return 0; }
int cuEventCreate(void** e, unsigned f) { *e = (void*)3; return 0; }
int cuEventDestroy_v2(void* e) { return 0; }
int cuEventRecord(void* e, void* s) { return 0; }
int cuEventSynchronize(void* e) { return 0; }
int cuEventQuery(void* e) { return 0; }
int cuEventElapsedTime_v2(float* m, void* a, void* b) { *m = 1.5f; return 0; }
int cuGetErrorName(int r, const char** s) { *s = "CUDA_ERROR_STAND_IN"; return 0; }
int cublasCreate_v2(void** h) { *h = (void*)4; return 0; }
int cublasSetStream_v2(void* h, void* s) { return 0; }
int cublasGemmEx(void) { return 0; }
"""

# What every scenario starts with: torch.cuda loads the stand-in instead of libcuda.so.1.
PRELUDE = """
import io, sys, types
import torch
from torch.cuda import _libs
fake, nvrtc = sys.argv[1], sys.argv[2]
_libs.driver_problem = lambda *a: None
_libs.find = lambda **kw: types.SimpleNamespace(args=lambda: (fake, nvrtc, fake))
assert torch.cuda.is_available(), torch.cuda._load()
"""


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory):
    if not hasattr(torch._C, "_cuda_load"):
        pytest.fail("this build of the core has no CUDA backend")
    from torch.cuda import _libs

    nvrtc = _libs.find_library("nvrtc")
    if not nvrtc.found:  # the core loads NVRTC before the driver
        pytest.skip(f"NVRTC is not installed: {nvrtc.describe()}")
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the stand-in driver")
    folder = tmp_path_factory.mktemp("fake_cuda")
    (folder / "fake.c").write_text(FAKE_DRIVER)
    lib = folder / "libfakecuda.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(folder / "fake.c")], check=True)
    return str(lib), nvrtc.path


def run(fake_driver, body):
    code = PRELUDE + textwrap.dedent(body)
    env = dict(os.environ, TORCH_CUDA_KERNEL_CACHE=os.devnull)
    done = subprocess.run(
        [sys.executable, "-c", code, *fake_driver], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_device_queries(fake_driver):
    out = run(
        fake_driver,
        """
        print(torch.cuda.device_count(), torch.cuda.get_device_name(0))
        print(torch.cuda.get_device_capability(0), torch.cuda.current_device())
        """,
    )
    assert out.split("\n")[:2] == ["1 Stand-in GPU", "(9, 0) 0"]


def test_copies_to_and_from_the_device_keep_every_dtype(fake_driver):
    run(
        fake_driver,
        """
        for dtype in (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32,
                      torch.int64, torch.float16, torch.bfloat16, torch.float32, torch.float64):
            x = (torch.arange(60, dtype=torch.float64).reshape(3, 4, 5) % 7).to(dtype)
            g = x.to("cuda")
            assert g.device == torch.device("cuda", 0) and g.dtype == dtype, (g.device, g.dtype)
            back = g.cpu()
            assert back.device.type == "cpu" and torch.equal(back, x), dtype
            assert g[1, 2, 3].item() == x[1, 2, 3].item()  # a view's element (an offset)
            h = torch.empty(3, 4, 5, dtype=dtype)
            h.copy_(g)  # copy_ across devices
            assert torch.equal(h, x)
        """,
    )


def test_the_caching_allocator_counts_and_reuses(fake_driver):
    run(
        fake_driver,
        """
        base, reserved0 = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
        x = torch.empty(1000, device="cuda")  # 4000 bytes: the 512-byte class of 4096
        assert torch.cuda.memory_allocated() - base == 4096, torch.cuda.memory_allocated()
        reserved = torch.cuda.memory_reserved()
        ptr = x.data_ptr()
        del x
        assert torch.cuda.memory_allocated() == base
        assert torch.cuda.memory_reserved() == reserved  # kept in the cache
        y = torch.empty(1000, device="cuda")
        assert y.data_ptr() == ptr  # the cached block serves the same size again
        big = torch.empty(3 << 20, dtype=torch.uint8, device="cuda")  # 2 MiB classes above 1 MiB
        assert torch.cuda.memory_allocated() - base == 4096 + (4 << 20)
        assert torch.cuda.max_memory_allocated() >= torch.cuda.memory_allocated()
        del y, big
        torch.cuda.empty_cache()
        assert torch.cuda.memory_reserved() == reserved0  # the cache went back
        """,
    )


def test_pinned_memory(fake_driver):
    run(
        fake_driver,
        """
        x = torch.arange(10.0)
        assert not x.is_pinned()
        p = x.pin_memory()
        assert p.is_pinned() and torch.equal(p, x) and p.pin_memory() is p
        assert torch.equal(p.to("cuda", non_blocking=True).cpu(), x)
        """,
    )


def test_device_memory_is_never_read_as_host_memory(fake_driver):
    run(
        fake_driver,
        """
        g = torch.arange(4.0).cuda()
        try:
            memoryview(g.untyped_storage())
        except BufferError as e:  # Python's buffer protocol wraps the core's TypeError
            assert "not in host memory" in repr(e.__context__), repr(e.__context__)
        else:
            raise AssertionError("a CUDA storage exported its bytes to the host")
        """,
    )


def test_save_a_cuda_tensor_and_load_it_anywhere(fake_driver):
    run(
        fake_driver,
        """
        x = torch.arange(12.0).reshape(3, 4)
        buf = io.BytesIO()
        torch.save({"x": x.cuda(), "y": x.cpu()}, buf)
        for kw, want in (({}, "cuda:0"), ({"map_location": "cpu"}, "cpu"),
                         ({"map_location": "cuda"}, "cuda:0"),
                         ({"map_location": {"cuda:0": "cpu"}}, "cpu")):
            buf.seek(0)
            got = torch.load(buf, **kw)
            assert str(got["x"].device) == want, (kw, got["x"].device)
            assert torch.equal(got["x"].cpu(), x) and got["y"].device.type == ("cpu"
                if "map_location" not in kw or kw["map_location"] != "cuda" else "cuda")
        """,
    )


def test_a_cuda_checkpoint_on_a_machine_without_a_gpu(fake_driver, tmp_path):
    # made under the stand-in driver, loaded here, where CUDA is unavailable
    path = tmp_path / "cuda.pt"
    run(
        fake_driver,
        f"""
        torch.save({{"w": torch.arange(6.0).cuda()}}, {str(path)!r})
        """,
    )
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(RuntimeError, match="map_location=torch.device\\('cpu'\\)"):
        torch.load(path)
    loaded = torch.load(path, map_location="cpu")
    assert loaded["w"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_dataloader_pins_its_batches(fake_driver):
    from torch import _packages

    if not _packages.installed(torch.__path__, "multiprocessing"):
        pytest.skip("torch-multiprocessing (torch.utils.data) is not installed")
    run(
        fake_driver,
        """
        from collections import namedtuple
        from torch.utils.data import DataLoader, Dataset

        Pair = namedtuple("Pair", "x y")

        class Items(Dataset):
            def __len__(self):
                return 6

            def __getitem__(self, i):
                return {"pair": Pair(torch.full((2,), float(i)), i), "name": str(i)}

        for workers in (0, 2):
            batches = list(DataLoader(Items(), batch_size=4, num_workers=workers,
                                      pin_memory=True))
            first = batches[0]
            assert isinstance(first["pair"], Pair) and first["name"] == ["0", "1", "2", "3"]
            assert first["pair"].x.is_pinned() and first["pair"].y.is_pinned()
            assert first["pair"].x[:, 0].tolist() == [0.0, 1.0, 2.0, 3.0]
            assert batches[1]["pair"].y.tolist() == [4, 5]
        """,
    )
