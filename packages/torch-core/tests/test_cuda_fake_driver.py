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
/* What a scenario counts (see COUNTED): the calls that make the host wait for the device
   (synchronisations, copies to the host), the driver's allocations and the launches. A
   scenario may set fake_on_wait to hear of each wait as it happens (kind, bytes), and
   fake_on_launch of each launch (a function is its kernel's name here). */
enum { STREAM_SYNC, CTX_SYNC, EVENT_SYNC, DTOH, DTOH_BYTES, MEM_ALLOC, MEM_FREE, HOST_ALLOC,
       LAUNCH, GEMM, HTOD, DTOD, NCOUNTS };
long long fake_counts[NCOUNTS];
void (*fake_on_wait)(int, size_t);
void (*fake_on_launch)(const char*);
static int waited(int kind, size_t n) {
  fake_counts[kind]++;
  if (fake_on_wait) fake_on_wait(kind, n);
  return 0;
}
int cuInit(unsigned f) { return 0; }
int cuDeviceGetCount(int* n) { *n = 1; return 0; }
int cuDeviceGet(int* d, int i) { *d = i; return 0; }
int cuDeviceGetName(char* b, int n, int d) { strncpy(b, "Stand-in GPU", n); return 0; }
int cuDeviceGetAttribute(int* v, int a, int d) { *v = a == 16 ? 132 : a == 75 ? 9 : 0; return 0; }
int cuDeviceTotalMem_v2(size_t* n, int d) { *n = (size_t)1 << 30; return 0; }
int cuDevicePrimaryCtxRetain(void** c, int d) { *c = (void*)1; return 0; }
int cuCtxSetCurrent(void* c) { return 0; }
int cuCtxSynchronize(void) { return waited(CTX_SYNC, 0); }
int cuMemAlloc_v2(P* p, size_t n) { /* zeroed: what kernels "write" reads the same every run */
  fake_counts[MEM_ALLOC]++; *p = (P)calloc(n, 1); return *p ? 0 : 2; }
int cuMemFree_v2(P p) { fake_counts[MEM_FREE]++; free((void*)p); return 0; }
int cuMemGetInfo_v2(size_t* f, size_t* t) { *f = 1; *t = 2; return 0; }
int cuMemcpyHtoDAsync_v2(P d, const void* s, size_t n, void* st) {
  fake_counts[HTOD]++; memcpy((void*)d, s, n); return 0; }
int cuMemcpyDtoHAsync_v2(void* d, P s, size_t n, void* st) {
  fake_counts[DTOH_BYTES] += n; memcpy(d, (void*)s, n); return waited(DTOH, n); }
int cuMemcpyDtoDAsync_v2(P d, P s, size_t n, void* st) {
  fake_counts[DTOD]++; memcpy((void*)d, (void*)s, n); return 0; }
int cuMemHostAlloc(void** p, size_t n, unsigned f) {
  fake_counts[HOST_ALLOC]++; *p = malloc(n); return 0; }
int cuMemFreeHost(void* p) { free(p); return 0; }
int cuModuleLoadData(void** m, const void* d) { *m = (void*)1; return 0; }
int cuModuleGetFunction(void** f, void* m, const char* n) { *f = strdup(n); return 0; }
int cuLaunchKernel(void* f, unsigned a, unsigned b, unsigned c, unsigned d, unsigned e,
                   unsigned g, unsigned sh, void* s, void** pa, void** ex) {
  fake_counts[LAUNCH]++;
  if (fake_on_launch) fake_on_launch((const char*)f); /* the kernel's name */
  return 0; }
int cuStreamCreateWithPriority(void** s, unsigned f, int p) { *s = (void*)2; return 0; }
int cuStreamDestroy_v2(void* s) { return 0; }
int cuStreamSynchronize(void* s) { return waited(STREAM_SYNC, 0); }
int cuStreamQuery(void* s) { return 0; }
int cuStreamWaitEvent(void* s, void* e, unsigned f) { return 0; }
int cuEventCreate(void** e, unsigned f) { *e = (void*)3; return 0; }
int cuEventDestroy_v2(void* e) { return 0; }
int cuEventRecord(void* e, void* s) { return 0; }
int cuEventSynchronize(void* e) { return waited(EVENT_SYNC, 0); }
int fake_events_pending; /* set: every event reads as not yet reached */
int cuEventQuery(void* e) { return fake_events_pending ? 600 : 0; }
int cuEventElapsedTime_v2(float* m, void* a, void* b) { *m = 1.5f; return 0; }
int cuGetErrorName(int r, const char** s) { *s = "CUDA_ERROR_STAND_IN"; return 0; }
int cublasCreate_v2(void** h) { *h = (void*)4; return 0; }
int cublasSetStream_v2(void* h, void* s) { return 0; }
int cublasGemmEx(void) { fake_counts[GEMM]++; return 0; }
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
                      torch.int64, torch.float16, torch.bfloat16, torch.float32, torch.float64,
                      torch.complex64, torch.complex128):
            x = (torch.arange(60, dtype=torch.float64).reshape(3, 4, 5) % 7).to(dtype)
            if dtype.is_complex:
                x = x + 1j * x.flip(0)
            g = x.to("cuda")
            assert g.device == torch.device("cuda", 0) and g.dtype == dtype, (g.device, g.dtype)
            back = g.cpu()
            assert back.device.type == "cpu" and torch.equal(back, x), dtype
            assert g[1, 2, 3].item() == x[1, 2, 3].item()  # a view's element (an offset)
            h = torch.empty(3, 4, 5, dtype=dtype)
            h.copy_(g)  # copy_ across devices
            assert torch.equal(h, x)
        g = torch.ones(3, dtype=torch.complex64).cuda()
        try:  # complex tensors only move on CUDA: no conversion kernels
            g.to(torch.complex128)
        except NotImplementedError as e:
            assert "complex64" in str(e) and "complex128" in str(e), e
        else:
            raise AssertionError("a complex64 -> complex128 copy on CUDA did not raise")
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


# ---------------------------------------------------------------- what a training step waits for
# A training step should queue its work and return: the host waits for the GPU only where the
# program asks for a value (loss.item()), so that the host's overhead of the next ops overlaps
# the GPU's work of the previous ones. Any synchronisation, copy to the host (an .item(),
# bool() or .tolist() of a CUDA tensor, a check that reads device data, a CPU fallback) or
# allocation from the driver inside the step stalls the host until the GPU drains. The
# stand-in driver counts them (kernels do nothing there, so device values are garbage: only
# the control flow counts, and whatever reads device values on the host shows as a copy).

# A stand-in cuDNN that does nothing but count: the convolutions' results do not matter here.
NOOP_CUDNN = r"""
#include <stddef.h>
#include <string.h>
typedef struct {
  int algo, status;
  float time;
  size_t memory;
  int determinism, math, reserved[3];
} Perf;
long long cudnn_runs;
size_t cudnnGetVersion(void) { return 91002; }
const char* cudnnGetErrorString(int s) { return "CUDNN_STATUS_STAND_IN"; }
void cudnnGetLastErrorString(char* m, size_t n) { if (n) m[0] = 0; }
int cudnnCreate(void** h) { *h = (void*)5; return 0; }
static int made(void** d) { *d = (void*)6; return 0; }
int cudnnCreateTensorDescriptor(void** d) { return made(d); }
int cudnnCreateFilterDescriptor(void** d) { return made(d); }
int cudnnCreateConvolutionDescriptor(void** d) { return made(d); }
#define NOTHING(name) int name() { return 0; }
NOTHING(cudnnSetStream) NOTHING(cudnnSetTensorNdDescriptor) NOTHING(cudnnDestroyTensorDescriptor)
NOTHING(cudnnSetFilterNdDescriptor) NOTHING(cudnnDestroyFilterDescriptor)
NOTHING(cudnnSetConvolutionNdDescriptor) NOTHING(cudnnSetConvolutionGroupCount)
NOTHING(cudnnSetConvolutionMathType) NOTHING(cudnnDestroyConvolutionDescriptor)
static int one(int* n, Perf* p) {
  memset(p, 0, sizeof(Perf));
  p->determinism = 1;
  *n = 1;
  return 0;
}
#define ALGOS(name) \
  int name(void* h, void* a, void* b, void* c, void* d, int r, int* n, Perf* p) { \
    return one(n, p); }
ALGOS(cudnnGetConvolutionForwardAlgorithm_v7) ALGOS(cudnnFindConvolutionForwardAlgorithm)
ALGOS(cudnnGetConvolutionBackwardDataAlgorithm_v7) ALGOS(cudnnFindConvolutionBackwardDataAlgorithm)
ALGOS(cudnnGetConvolutionBackwardFilterAlgorithm_v7)
ALGOS(cudnnFindConvolutionBackwardFilterAlgorithm)
#define SIZE(name) \
  int name(void* h, void* a, void* b, void* c, void* d, int algo, size_t* n) { \
    *n = 256; return 0; }
SIZE(cudnnGetConvolutionForwardWorkspaceSize) SIZE(cudnnGetConvolutionBackwardDataWorkspaceSize)
SIZE(cudnnGetConvolutionBackwardFilterWorkspaceSize)
#define RUN(name) int name() { cudnn_runs++; return 0; }
RUN(cudnnConvolutionForward) RUN(cudnnConvolutionBackwardData)
RUN(cudnnConvolutionBackwardFilter)
"""

# Scenario code after PRELUDE: per_step(step) runs step a few times to warm up (kernels
# compiled, the caching allocator filled), then returns what one step did on average and
# where each wait happened (the Python stack of each synchronisation and copy to the host).
COUNTING = """
import ctypes, json, traceback
from torch.cuda import _libs
COUNTED = ("stream_syncs", "ctx_syncs", "event_syncs", "dtoh_copies", "dtoh_bytes",
           "mem_allocs", "mem_frees", "host_allocs", "launches", "gemms", "htod_copies",
           "dtod_copies")
_drv = ctypes.CDLL(fake)  # the library the core opened: the same counters
_counts = (ctypes.c_longlong * len(COUNTED)).in_dll(_drv, "fake_counts")
_cudnn_path = sys.argv[3]
_libs.find_library = lambda name, **kw: _libs.Library(name, "libcudnn.so.9", _cudnn_path, "wheel")
_cudnn_runs = ctypes.c_longlong.in_dll(ctypes.CDLL(_cudnn_path), "cudnn_runs")
_waits = []

@ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_size_t)
def _on_wait(kind, n):
    where = traceback.format_stack(limit=6)[:-1]
    _waits.append(f"{COUNTED[kind]} ({n} bytes) at\\n" + "".join(where))

_launches = []

@ctypes.CFUNCTYPE(None, ctypes.c_char_p)
def _on_launch(name):
    _launches.append(name.decode())

for _name, _hook in (("fake_on_wait", _on_wait), ("fake_on_launch", _on_launch)):
    ctypes.c_void_p.in_dll(_drv, _name).value = ctypes.cast(_hook, ctypes.c_void_p).value

def per_step(step, warmup=3, steps=3):
    for _ in range(warmup):
        step()
    before, runs = list(_counts), _cudnn_runs.value
    del _waits[:], _launches[:]
    for _ in range(steps):
        step()
    got = {k: (a - b) / steps for k, a, b in zip(COUNTED, _counts, before)}
    got["cudnn_runs"] = (_cudnn_runs.value - runs) / steps
    return got, list(_waits), _launches[: len(_launches) // steps]  # the kernels of a step
"""


@pytest.fixture(scope="module")
def fake_cudnn(fake_driver, tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    folder = tmp_path_factory.mktemp("fake_cudnn")
    (folder / "noop_cudnn.c").write_text(NOOP_CUDNN)
    lib = folder / "libcudnn.so.9"
    cmd = [cc, "-std=gnu11", "-shared", "-fPIC", "-o", str(lib), str(folder / "noop_cudnn.c")]
    subprocess.run(cmd, check=True)
    return (*fake_driver, str(lib))


TRAINING_STEPS = """
import torch.nn as nn
import torch.nn.functional as F

class MnistNet(nn.Module):  # benchmarks/run.py's _mnist_net: examples/mnist/main.py's network
    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(1, 32, 3, 1), nn.Conv2d(32, 64, 3, 1)
        self.dropout1, self.dropout2 = nn.Dropout(0.25), nn.Dropout(0.5)
        self.fc1, self.fc2 = nn.Linear(9216, 128), nn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
        x = self.dropout1(x).flatten(1)
        x = self.dropout2(F.relu(self.fc1(x)))
        return F.log_softmax(self.fc2(x), dim=1)

class LanguageModel(nn.Module):  # benchmarks/gpu.py's LSTM step, smaller
    def __init__(self):
        super().__init__()
        self.embed, self.lstm = nn.Embedding(500, 32), nn.LSTM(32, 32, num_layers=2)
        self.decode = nn.Linear(32, 500)

    def forward(self, tokens):
        return self.decode(self.lstm(self.embed(tokens))[0]).view(-1, 500)

def training(model, optimizer, loss_fn, x, y, scaler=None):
    def step():
        optimizer.zero_grad()
        if scaler is None:
            loss_fn(model(x), y).backward()
            optimizer.step()
            return
        with torch.autocast("cuda", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    return step

torch.manual_seed(0)
cuda = torch.device("cuda")
mnist = MnistNet().to(cuda)
mlp = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 10)).to(cuda)
mlp16 = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 10)).to(cuda)
lm = LanguageModel().to(cuda)
labels = torch.randint(0, 10, (64,)).to(cuda)
steps = {
    "mnist_sgd_momentum": training(
        mnist, torch.optim.SGD(mnist.parameters(), lr=0.01, momentum=0.9), F.nll_loss,
        torch.rand(64, 1, 28, 28).to(cuda), labels),
    "mlp_adam": training(mlp, torch.optim.Adam(mlp.parameters()), F.cross_entropy,
                         torch.rand(64, 784).to(cuda), labels),
    "mlp_grad_scaler": training(
        mlp16, torch.optim.SGD(mlp16.parameters(), lr=0.01, momentum=0.9), F.cross_entropy,
        torch.rand(64, 784).to(cuda), labels, torch.amp.GradScaler("cuda")),
    "lstm_embedding_sgd": training(
        lm, torch.optim.SGD(lm.parameters(), lr=1.0), F.cross_entropy,
        torch.randint(0, 500, (6, 4)).to(cuda), torch.randint(0, 500, (24,)).to(cuda)),
}
for name, step in steps.items():
    counts, waits, launches = per_step(step)
    print(json.dumps({"name": name, "counts": counts, "waits": waits, "launches": launches}))
"""

# What one step may wait for: nothing, but GradScaler.step's one look at whether the
# gradients were finite (a 4-byte copy, as in PyTorch: it decides whether optimizer.step runs).
ALLOWED_WAITS = {"mlp_grad_scaler": {"stream_syncs": 1, "dtoh_copies": 1, "dtoh_bytes": 4}}
# Kernel launches per step (cuDNN's convolutions and cuBLAS's products counted apart) as they
# are now: more is a regression to look at (a copy, a recount, a composed op where one kernel did).
MAX_LAUNCHES = {
    "mnist_sgd_momentum": 47,
    "mlp_adam": 16,
    "mlp_grad_scaler": 73,
    "lstm_embedding_sgd": 85,
}


def test_training_steps_never_wait_for_the_gpu(fake_cudnn):
    import json

    for needed in ("torch.nn", "torch.optim"):  # (a core-only install has neither)
        pytest.importorskip(needed)

    out = run(fake_cudnn, COUNTING + TRAINING_STEPS)
    seen = {}
    for line in out.splitlines():
        report = json.loads(line)
        name, counts = report["name"], report["counts"]
        seen[name] = counts
        print(name, {k: v for k, v in counts.items() if v})
        where = "\n".join(report["waits"][:4])
        allowed = ALLOWED_WAITS.get(name, {})
        for what in ("stream_syncs", "ctx_syncs", "event_syncs", "dtoh_copies", "dtoh_bytes"):
            assert counts[what] == allowed.get(what, 0), (name, what, counts, where)
        for what in ("mem_allocs", "mem_frees", "host_allocs"):  # the caching allocators serve
            assert counts[what] == 0, (name, what, counts)
        kernels = " ".join(report["launches"])
        assert counts["launches"] <= MAX_LAUNCHES[name], f"{name}: {counts}\n{kernels}"
    assert sorted(seen) == sorted(MAX_LAUNCHES)
    assert seen["mnist_sgd_momentum"]["cudnn_runs"] == 5  # 2 forward, 2 filter, 1 data grads


def test_factories_and_tables_reach_the_gpu_without_waiting(fake_cudnn):
    run(
        fake_cudnn,
        COUNTING
        + textwrap.dedent(
            """
        def counted(make):
            before = list(_counts)
            out = make()
            return out, {k: a - b for k, a, b in zip(COUNTED, _counts, before)}

        for make, want, filled in (  # filled: by a kernel, which does nothing on the stand-in
            (lambda: torch.arange(1000, device="cuda"), torch.arange(1000), False),
            (lambda: torch.tensor([[1.5, 2]], device="cuda"), torch.tensor([[1.5, 2]]), False),
            (lambda: torch.eye(3, device="cuda"), torch.eye(3), False),
            (lambda: torch.full((2, 3), 7, device="cuda"), torch.full((2, 3), 7), True),
            (lambda: torch.ones_like(torch.empty(4, device="cuda")), torch.ones(4), True),
        ):
            got, n = counted(make)
            assert n["stream_syncs"] == n["dtoh_copies"] == 0, n
            assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
            assert filled or torch.equal(got.cpu(), want), (got, want)
        # big ones are copied as before: a blocking copy, no staging block of their size
        big, n = counted(lambda: torch.arange(1 << 18, device="cuda"))  # 2 MiB of int64
        assert n["stream_syncs"] == 1 and n["host_allocs"] == 0, n
        # while the GPU has not reached the copies, staging blocks are added (up to 256 per
        # size), then the oldest one is waited for; each copy keeps its own bytes
        ctypes.c_int.in_dll(_drv, "fake_events_pending").value = 1
        made, n = counted(lambda: [torch.arange(i, i + 10, device="cuda") for i in range(300)])
        assert n["host_allocs"] < 256 and n["host_allocs"] + n["event_syncs"] == 300, n
        ctypes.c_int.in_dll(_drv, "fake_events_pending").value = 0
        assert all(torch.equal(t.cpu(), torch.arange(i, i + 10)) for i, t in enumerate(made))
        """
        ),
    )


def test_a_fused_program_on_cuda_is_one_generated_kernel(fake_driver):
    # torch.jit's fused groups (csrc/cuda_fused.cpp): the program becomes CUDA C++ that the
    # real NVRTC compiles here (a compile error would raise); the stand-in runs nothing, so
    # what is checked is the launch, the outputs' shape and device, and what is refused.
    out = run(
        fake_driver,
        """
        import ctypes
        drv = ctypes.CDLL(fake)
        names = []

        @ctypes.CFUNCTYPE(None, ctypes.c_char_p)
        def on_launch(name):
            names.append(name.decode())

        ctypes.c_void_p.in_dll(drv, "fake_on_launch").value = ctypes.cast(
            on_launch, ctypes.c_void_p).value
        ADD, MULC, TANH = 0, 9, 20  # fused.h's op codes
        code, consts = [MULC, 2, 0, 0, TANH, 3, 1, 0, ADD, 4, 2, 3], [0.5, 0.0, 0.0]
        for dtype in (torch.float32, torch.float64):
            x = torch.zeros(4, 3, dtype=dtype, device="cuda")
            b = torch.zeros(3, dtype=dtype, device="cuda")
            (y,) = torch._C._fused_elementwise(code, consts, [x, b], [4])  # x * 0.5 + tanh(b)
            assert y.shape == (4, 3) and y.device.type == "cuda" and y.dtype == dtype
            again = torch._C._fused_elementwise(code, consts, [x.t(), b[:, None]], [4, 2])
            assert [t.shape for t in again] == [(3, 4), (3, 4)]
        # no launch for no elements; an output smaller than the inputs' shape: None
        (e,) = torch._C._fused_elementwise(code, consts, [x[:0], b], [4])
        assert e.shape == (0, 3)
        assert torch._C._fused_elementwise(code, consts, [x, b], [4, 3]) is None
        # 63 inputs over 8 dims that do not merge: arguments over 4 KiB, so op by op (None)
        cube = torch.zeros((2,) * 8, device="cuda")
        many = [cube.permute(*range(7, -1, -1))] + [cube] * 62
        assert torch._C._fused_elementwise([ADD, 63, 0, 1], [0.0], many, [63]) is None
        (y,) = torch._C._fused_elementwise([ADD, 63, 0, 1], [0.0], many[:40], [63])  # 3 KiB
        assert y.shape == (2,) * 8
        for bad in ([x, b.cpu()], [x.half(), b.half()]):
            try:
                torch._C._fused_elementwise(code, consts, bad, [4])
            except TypeError as err:
                print("refused:", err)
            else:
                raise AssertionError(f"ran on {bad}")
        print(names)
        """,
    )
    lines = out.strip().split("\n")
    launched = eval(lines[-1])  # the kernels launched, in order (zeros' fills among them)
    names = [n for n in launched if n.startswith("fused_")]
    assert len(names) == 5, launched
    assert names[0].startswith("fused_float32_") and names[2].startswith("fused_float64_")
    assert len(set(names)) == 5  # another dtype, geometry or program: another kernel
    assert "one device" in lines[0] and "cuda:0 and cpu" in lines[0], lines[0]
    assert "float32 or float64" in lines[1], lines[1]
