"""torch.backends.cudnn and the finding of cuDNN, on machines without a GPU.

The convolutions themselves run on a GPU only (tests/test_cuda_gpu_conv.py). Here: what
``torch.backends.cudnn`` answers without one, its flags, how ``torch.cuda._libs`` finds
``libcudnn.so.9`` laid out as NVIDIA's wheel lays it out, and the error a convolution on a
(stand-in) GPU raises when cuDNN is missing.
"""

import pytest

import torch
import torch.backends.cudnn as cudnn

FLAG_NAMES = ("enabled", "benchmark", "deterministic", "allow_tf32")


@pytest.fixture(autouse=True)
def keep_flags():
    saved = [getattr(cudnn, n) for n in FLAG_NAMES]
    yield
    for name, value in zip(FLAG_NAMES, saved):
        setattr(cudnn, name, value)
    torch.use_deterministic_algorithms(False)


def test_not_available_without_a_gpu_and_never_raises():
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert cudnn.is_available() is False
    assert cudnn.is_available() is False  # asked twice: the answer is kept
    assert cudnn.version() is None
    assert cudnn.is_acceptable(torch.ones(2)) is False


def test_default_flags_are_pytorchs():
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (
        True,
        False,
        False,
        True,
    )


def test_flags_context_sets_and_restores():
    with cudnn.flags(enabled=True, benchmark=True, deterministic=True, allow_tf32=False):
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (
            True,
            True,
            True,
            False,
        )
    assert (cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (False, False, True)
    with pytest.raises(ZeroDivisionError):
        with cudnn.flags(benchmark=True):
            raise ZeroDivisionError
    assert cudnn.benchmark is False


@pytest.mark.ours_only
def test_flags_reach_the_core():
    assert torch._C._cuda_cudnn_get_flags() == (False, False, True)
    cudnn.benchmark = True
    cudnn.allow_tf32 = False
    assert torch._C._cuda_cudnn_get_flags() == (True, False, False)
    cudnn.deterministic = True
    assert torch._C._cuda_cudnn_get_flags() == (True, True, False)
    cudnn.deterministic = False
    torch.use_deterministic_algorithms(True)  # the global switch counts too
    assert torch._C._cuda_cudnn_get_flags()[1] is True
    torch.use_deterministic_algorithms(False)
    with cudnn.flags(benchmark=False, allow_tf32=True):
        assert torch._C._cuda_cudnn_get_flags() == (False, False, True)
    assert torch._C._cuda_cudnn_get_flags() == (True, False, False)


# ---------------------------------------------------------------- finding libcudnn.so.9
def _touch(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x7fELF")  # not a loadable library: finding it is all that counts
    return str(path)


@pytest.fixture
def libs(monkeypatch, tmp_path):
    """torch.cuda._libs with no real toolkit in its way (the default one is a temp dir)."""
    from torch.cuda import _libs

    monkeypatch.setattr(_libs, "_DEFAULT_TOOLKIT", str(tmp_path / "usr-local-cuda"))
    return _libs


@pytest.mark.ours_only
@pytest.mark.parametrize("folder", ["nvidia/cudnn/lib", "nvidia/cu13/lib"])
def test_finds_cudnn_in_nvidias_wheel(libs, tmp_path, folder):
    site = tmp_path / "site"
    for sub in ("libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9"):
        _touch(site / folder / sub)
    path = _touch(site / folder / "libcudnn.so.9")
    lib = libs.find_library(
        "cudnn", search_path=[str(tmp_path / "none"), str(site)], environ={}, use_pathfinder=False
    )
    assert (lib.path, lib.via, lib.found) == (path, "wheel", True)
    assert "cuDNN" in lib.describe() and path in lib.describe()


@pytest.mark.ours_only
def test_finds_cudnn_in_a_toolkit(libs, tmp_path):
    home = tmp_path / "cuda-home"
    path = _touch(home / "lib64" / "libcudnn.so.9.10.2")
    lib = libs.find_library(
        "cudnn", search_path=[], environ={"CUDA_HOME": str(home)}, use_pathfinder=False
    )
    assert (lib.path, lib.via) == (path, "toolkit")


@pytest.mark.ours_only
def test_missing_cudnn_says_where_it_looked(libs):
    lib = libs.find_library("cudnn", search_path=[], environ={}, use_pathfinder=False)
    assert (lib.path, lib.found) == ("libcudnn.so.9", False)
    text = lib.describe()
    assert "cuDNN (libcudnn.so.9) was not found" in text
    assert "nvidia/cudnn/lib" in text and "/lib64" in text
    assert libs.PIP_INSTALL_CUDNN == "pip install nvidia-cudnn-cu13"


@pytest.mark.ours_only
def test_the_core_refuses_what_is_not_cudnn(tmp_path):
    if torch._C._cuda_cudnn_version():
        pytest.skip("cuDNN is already loaded in this process")
    assert torch._C._cuda_cudnn_load(str(tmp_path / "libcudnn.so.9")) != ""  # no such file
    bad = _touch(tmp_path / "lib" / "libcudnn.so.9")
    why = torch._C._cuda_cudnn_load(bad)
    assert why and bad in why
    _touch(tmp_path / "lib" / "libcudnn_graph.so.9")  # a broken sibling is named
    assert "libcudnn_graph.so.9" in torch._C._cuda_cudnn_load(bad)
    assert torch._C._cuda_cudnn_version() == 0


@pytest.mark.ours_only
def test_load_explains_what_is_missing(libs, monkeypatch):
    if not hasattr(torch._C, "_cuda_cudnn_load"):
        pytest.skip("a core without the CUDA backend")
    monkeypatch.setattr(cudnn, "_load_reason", None)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    real = libs.find_library
    monkeypatch.setattr(
        libs,
        "find_library",
        lambda name: real(name, search_path=[], environ={}, use_pathfinder=False),
    )
    if torch._C._cuda_cudnn_version():
        pytest.skip("cuDNN is already loaded in this process")
    why = cudnn._load()
    assert "cuDNN (libcudnn.so.9) was not found" in why and "loading it failed" in why
    monkeypatch.setattr(cudnn, "_load_reason", None)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert "CUDA cannot be used" in cudnn._load()
    assert cudnn.is_available() is False  # never raises


# ---------------------------------------------------------------- a conv on a stand-in GPU
@pytest.mark.ours_only
def test_conv_on_cuda_without_cudnn_names_the_pip_command(fake_driver):
    out = run(
        fake_driver,
        """
        from torch.cuda import _libs
        real = _libs.find_library
        _libs.find_library = lambda name: real(
            name, search_path=[], environ={"CUDA_HOME": "/nonexistent"}, use_pathfinder=False)
        _libs._DEFAULT_TOOLKIT = "/nonexistent"
        for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
            x = torch.ones(1, 2, 5, 5, device="cuda", dtype=dtype)
            w = torch.ones(3, 2, 3, 3, device="cuda", dtype=dtype)
            gy = torch.ones(1, 3, 3, 3, device="cuda", dtype=dtype)
            for call in (
                lambda: torch.conv2d(x, w),  # (the core's: a core-only install has no torch.nn)
                lambda: torch.conv_transpose2d(gy, w),
                lambda: torch._C._conv_weight_grad(x, gy, [3, 2, 3, 3], [1, 1], [0, 0], [1, 1], 1),
            ):
                try:
                    call()
                except NotImplementedError as e:
                    text = str(e)
                    assert "cuDNN" in text and "pip install nvidia-cudnn-cu13" in text, text
                    assert "libcudnn.so.9" in text, text
                else:
                    raise AssertionError("no error")
        print(torch.backends.cudnn.is_available(), torch.backends.cudnn.version())
        """,
    )
    assert out.split() == ["False", "None"]


# ---------------------------------------------------------------- the wiring, on a stand-in cuDNN
# A C stand-in for the few cuDNN functions the core calls: it checks the descriptors as cuDNN
# does (the output must be the forward size of the image, groups must divide the channels)
# and computes each direction with plain loops on the stand-in GPU's memory (host memory), so
# the core's descriptors, pointers and directions are checked against the CPU's results.
FAKE_CUDNN = r"""
#include <stdlib.h>
#include <string.h>
typedef struct {
  int dt, n, dims[8], strides[8];
} T;
typedef struct {
  int dt, n, dims[8];
} F;
typedef struct {
  int n, pad[6], str[6], dil[6], mode, compute, groups, math;
} C;
typedef struct {
  int algo, status;
  float time;
  size_t memory;
  int determinism, math, reserved[3];
} Perf;
int calls[3];
size_t cudnnGetVersion(void) { return 91002; }
const char* cudnnGetErrorString(int s) {
  return s == 2000 ? "CUDNN_STATUS_BAD_PARAM" : "CUDNN_STATUS_OTHER";
}
void cudnnGetLastErrorString(char* m, size_t n) { strncpy(m, "stand-in", n); }
int cudnnCreate(void** h) {
  *h = malloc(1);
  return 0;
}
int cudnnSetStream(void* h, void* s) { return 0; }
int cudnnCreateTensorDescriptor(T** t) {
  *t = calloc(1, sizeof(T));
  return 0;
}
int cudnnSetTensorNdDescriptor(T* t, int dt, int n, const int* d, const int* s) {
  if (n < 3 || n > 8) return 2000;
  t->dt = dt;
  t->n = n;
  memcpy(t->dims, d, n * 4);
  memcpy(t->strides, s, n * 4);
  return 0;
}
int cudnnDestroyTensorDescriptor(T* t) {
  free(t);
  return 0;
}
int cudnnCreateFilterDescriptor(F** f) {
  *f = calloc(1, sizeof(F));
  return 0;
}
int cudnnSetFilterNdDescriptor(F* f, int dt, int fmt, int n, const int* d) {
  if (fmt != 0) return 2000;
  f->dt = dt;
  f->n = n;
  memcpy(f->dims, d, n * 4);
  return 0;
}
int cudnnDestroyFilterDescriptor(F* f) {
  free(f);
  return 0;
}
int cudnnCreateConvolutionDescriptor(C** c) {
  *c = calloc(1, sizeof(C));
  (*c)->groups = 1;
  return 0;
}
int cudnnSetConvolutionNdDescriptor(C* c, int n, const int* p, const int* s, const int* d,
                                    int mode, int ct) {
  c->n = n;
  memcpy(c->pad, p, n * 4);
  memcpy(c->str, s, n * 4);
  memcpy(c->dil, d, n * 4);
  c->mode = mode;
  c->compute = ct;
  return 0;
}
int cudnnSetConvolutionGroupCount(C* c, int g) {
  c->groups = g;
  return 0;
}
int cudnnSetConvolutionMathType(C* c, int m) {
  c->math = m;
  return 0;
}
int cudnnDestroyConvolutionDescriptor(C* c) {
  free(c);
  return 0;
}

/* x: image, y: output, w: filter; checks the shapes as cuDNN does */
static int check(const T* x, const F* w, const C* c, const T* y) {
  int sd = x->n - 2;
  if (y->n != x->n || w->n != x->n || c->n != sd || c->mode != 1) return 2000;
  if (x->dt != w->dt || y->dt != x->dt) return 2000;
  if (x->dims[0] != y->dims[0] || w->dims[0] != y->dims[1]) return 2000;
  if (w->dims[1] * c->groups != x->dims[1] || y->dims[1] % c->groups) return 2000;
  for (int i = 0; i < sd; i++) {
    int eff = c->dil[i] * (w->dims[2 + i] - 1) + 1;
    if ((x->dims[2 + i] + 2 * c->pad[i] - eff) / c->str[i] + 1 != y->dims[2 + i]) return 2000;
  }
  return 0;
}
static double get(const void* p, int dt, long i) {
  return dt == 1 ? ((const double*)p)[i] : ((const float*)p)[i];
}
static void put(void* p, int dt, long i, double v) {
  if (dt == 1)
    ((double*)p)[i] = v;
  else
    ((float*)p)[i] = (float)v;
}
static double scal(const void* a, int dt) {
  return dt == 1 ? *(const double*)a : *(const float*)a;
}

/* one pass over every (n, oc, out position, ic, kernel position): dir 0 y += x*w,
   1 dx += dy*w, 2 dw += dy*x; the written tensor was scaled by beta before */
static void walk(int dir, const T* xd, void* x, const F* wd, void* w, const C* c, const T* yd,
                 void* y, double alpha) {
  int sd = xd->n - 2, G = c->groups, ocg = yd->dims[1] / G, icg = wd->dims[1];
  int o[3] = {1, 1, 1}, k[3] = {1, 1, 1}, in[3] = {1, 1, 1};
  for (int i = 0; i < sd; i++) {
    o[i] = yd->dims[2 + i];
    k[i] = wd->dims[2 + i];
    in[i] = xd->dims[2 + i];
  }
  long wst[5];
  wst[xd->n - 1] = 1;
  for (int i = xd->n - 2; i >= 0; i--) wst[i] = wst[i + 1] * wd->dims[i + 1];
  for (int n = 0; n < yd->dims[0]; n++)
    for (int oc = 0; oc < yd->dims[1]; oc++)
      for (int a = 0; a < o[0]; a++)
        for (int b = 0; b < o[1]; b++)
          for (int e = 0; e < o[2]; e++)
            for (int ic = 0; ic < icg; ic++)
              for (int ka = 0; ka < k[0]; ka++)
                for (int kb = 0; kb < k[1]; kb++)
                  for (int ke = 0; ke < k[2]; ke++) {
                    int op[3] = {a, b, e}, kp[3] = {ka, kb, ke}, ip[3];
                    int inside = 1;
                    for (int i = 0; i < sd; i++) {
                      ip[i] = op[i] * c->str[i] - c->pad[i] + kp[i] * c->dil[i];
                      if (ip[i] < 0 || ip[i] >= in[i]) inside = 0;
                    }
                    if (!inside) continue;
                    int cx = (oc / ocg) * icg + ic;
                    long xi = (long)n * xd->strides[0] + (long)cx * xd->strides[1];
                    long yi = (long)n * yd->strides[0] + (long)oc * yd->strides[1];
                    long wi = (long)oc * wst[0] + (long)ic * wst[1];
                    for (int i = 0; i < sd; i++) {
                      xi += (long)ip[i] * xd->strides[2 + i];
                      yi += (long)op[i] * yd->strides[2 + i];
                      wi += (long)kp[i] * wst[2 + i];
                    }
                    int dt = xd->dt;
                    if (dir == 0)
                      put(y, dt, yi, get(y, dt, yi) + alpha * get(x, dt, xi) * get(w, dt, wi));
                    else if (dir == 1)
                      put(x, dt, xi, get(x, dt, xi) + alpha * get(y, dt, yi) * get(w, dt, wi));
                    else
                      put(w, dt, wi, get(w, dt, wi) + alpha * get(y, dt, yi) * get(x, dt, xi));
                  }
}
static long numel(const int* d, int n) {
  long r = 1;
  for (int i = 0; i < n; i++) r *= d[i];
  return r;
}
static void scale(void* p, int dt, long n, double beta) {
  for (long i = 0; i < n; i++) put(p, dt, i, beta == 0 ? 0 : beta * get(p, dt, i));
}
static int perfs(const C* c, int* n, Perf* p) {
  memset(p, 0, sizeof(Perf));
  p->determinism = 1;
  p->math = c->math;
  p->memory = 64;
  *n = 1;
  return 0;
}

int cudnnGetConvolutionForwardAlgorithm_v7(void* h, T* x, F* w, C* c, T* y, int r, int* n,
                                           Perf* p) {
  int s = check(x, w, c, y);
  return s ? s : perfs(c, n, p);
}
int cudnnFindConvolutionForwardAlgorithm(void* h, T* x, F* w, C* c, T* y, int r, int* n,
                                         Perf* p) {
  int s = check(x, w, c, y);
  return s ? s : perfs(c, n, p);
}
int cudnnGetConvolutionForwardWorkspaceSize(void* h, T* x, F* w, C* c, T* y, int a, size_t* b) {
  *b = 64;
  return check(x, w, c, y);
}
int cudnnConvolutionForward(void* h, const void* al, T* xd, void* x, F* wd, void* w, C* c,
                            int algo, void* ws, size_t wsb, const void* be, T* yd, void* y) {
  int s = check(xd, wd, c, yd);
  if (s) return s;
  if (!ws || wsb < 64) return 2000;
  scale(y, yd->dt, numel(yd->dims, yd->n), scal(be, yd->dt));
  walk(0, xd, x, wd, w, c, yd, y, scal(al, yd->dt));
  calls[0]++;
  return 0;
}
int cudnnGetConvolutionBackwardDataAlgorithm_v7(void* h, F* w, T* dy, C* c, T* dx, int r,
                                                int* n, Perf* p) {
  int s = check(dx, w, c, dy);
  return s ? s : perfs(c, n, p);
}
int cudnnFindConvolutionBackwardDataAlgorithm(void* h, F* w, T* dy, C* c, T* dx, int r, int* n,
                                              Perf* p) {
  int s = check(dx, w, c, dy);
  return s ? s : perfs(c, n, p);
}
int cudnnGetConvolutionBackwardDataWorkspaceSize(void* h, F* w, T* dy, C* c, T* dx, int a,
                                                 size_t* b) {
  *b = 64;
  return check(dx, w, c, dy);
}
int cudnnConvolutionBackwardData(void* h, const void* al, F* wd, void* w, T* dyd, void* dy,
                                 C* c, int algo, void* ws, size_t wsb, const void* be, T* dxd,
                                 void* dx) {
  int s = check(dxd, wd, c, dyd);
  if (s) return s;
  if (!ws || wsb < 64) return 2000;
  scale(dx, dxd->dt, numel(dxd->dims, dxd->n), scal(be, dxd->dt));
  walk(1, dxd, dx, wd, w, c, dyd, dy, scal(al, dxd->dt));
  calls[1]++;
  return 0;
}
int cudnnGetConvolutionBackwardFilterAlgorithm_v7(void* h, T* x, T* dy, C* c, F* dw, int r,
                                                  int* n, Perf* p) {
  int s = check(x, dw, c, dy);
  return s ? s : perfs(c, n, p);
}
int cudnnFindConvolutionBackwardFilterAlgorithm(void* h, T* x, T* dy, C* c, F* dw, int r,
                                                int* n, Perf* p) {
  int s = check(x, dw, c, dy);
  return s ? s : perfs(c, n, p);
}
int cudnnGetConvolutionBackwardFilterWorkspaceSize(void* h, T* x, T* dy, C* c, F* dw, int a,
                                                   size_t* b) {
  *b = 64;
  return check(x, dw, c, dy);
}
int cudnnConvolutionBackwardFilter(void* h, const void* al, T* xd, void* x, T* dyd, void* dy,
                                   C* c, int algo, void* ws, size_t wsb, const void* be, F* dwd,
                                   void* dw) {
  int s = check(xd, dwd, c, dyd);
  if (s) return s;
  if (!ws || wsb < 64) return 2000;
  scale(dw, xd->dt, numel(dwd->dims, dwd->n), scal(be, xd->dt));
  walk(2, xd, x, dwd, dw, c, dyd, dy, scal(al, xd->dt));
  calls[2]++;
  return 0;
}
"""

WIRING = """
import numpy as np
from torch.cuda import _libs
stand_in = sys.argv[3]
_libs.find_library = lambda name, **kw: _libs.Library(name, "libcudnn.so.9", stand_in, "wheel")
def vals(shape, seed, dt):
    return torch.from_numpy(np.random.default_rng(seed).uniform(-1, 1, shape)).to(dt)
def listed(v, nd):
    return list(v) if isinstance(v, tuple) else [v] * nd
cases = [
    ("conv1d", (2, 4, 11), (6, 4, 3), dict(stride=2, padding=1)),
    ("conv2d", (2, 4, 10, 10), (6, 2, 3, 3),
     dict(stride=(2, 1), padding=(2, 1), dilation=(2, 1), groups=2)),
    ("conv2d", (2, 6, 8, 8), (6, 1, 3, 3), dict(padding=1, groups=6)),
    ("conv3d", (1, 2, 5, 6, 7), (3, 2, 3, 3, 3), dict(padding=1)),
    ("conv_transpose1d", (2, 4, 7), (4, 3, 3),
     dict(stride=3, padding=1, output_padding=2, groups=2)),
    ("conv_transpose2d", (2, 4, 5, 5), (4, 3, 3, 3), dict(stride=2, padding=1, output_padding=1)),
]
for dt, tol in ((torch.float64, 1e-12), (torch.float32, 1e-5)):
    for name, xs, ws, kw in cases:
        nd = len(xs) - 2
        s, p, d = (listed(kw.get(k, v), nd)
                   for k, v in (("stride", 1), ("padding", 0), ("dilation", 1)))
        g = kw.get("groups", 1)
        x, w = vals(xs, 1, dt), vals(ws, 2, dt)
        want = getattr(torch, name)(x, w, **kw)
        got = getattr(torch, name)(x.cuda(), w.cuda(), **kw)
        torch.testing.assert_close(got.cpu(), want, rtol=tol, atol=tol)
        gy = vals(tuple(want.shape), 3, dt)
        a, b = (gy, x) if "transpose" in name else (x, gy)
        want = torch._C._conv_weight_grad(a, b, list(ws), s, p, d, g)
        got = torch._C._conv_weight_grad(a.cuda(), b.cuda(), list(ws), s, p, d, g)
        torch.testing.assert_close(got.cpu(), want, rtol=tol, atol=tol)
print(torch.backends.cudnn.is_available(), torch.backends.cudnn.version())
calls = torch._C._cuda_cudnn_cached_algorithms()
torch.backends.cudnn.benchmark = True
x, w = vals((2, 3, 9, 8), 1, torch.float32), vals((4, 3, 3, 3), 2, torch.float32)
torch.testing.assert_close(torch.conv2d(x.cuda(), w.cuda()).cpu(), torch.conv2d(x, w))
print(torch._C._cuda_cudnn_cached_algorithms() - calls)
"""


@pytest.mark.ours_only
def test_conv_wiring_against_a_stand_in_cudnn(fake_driver, tmp_path):
    import shutil
    import subprocess

    cc = shutil.which("cc") or shutil.which("gcc")
    lib = tmp_path / "lib" / "libcudnn.so.9"
    lib.parent.mkdir()
    (tmp_path / "fake_cudnn.c").write_text(FAKE_CUDNN)
    subprocess.run(
        [cc, "-shared", "-fPIC", "-o", str(lib), str(tmp_path / "fake_cudnn.c")], check=True
    )
    out = run((*fake_driver, str(lib)), WIRING)
    assert out.split() == ["True", "91002", "1"]


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory):
    """The stand-in driver of test_cuda_fake_driver.py, built the same way."""
    import shutil
    import subprocess

    import test_cuda_fake_driver as fake

    if not hasattr(torch._C, "_cuda_load"):
        pytest.skip("a core without the CUDA backend")
    from torch.cuda import _libs

    nvrtc = _libs.find_library("nvrtc")
    if not nvrtc.found:
        pytest.skip(f"NVRTC is not installed: {nvrtc.describe()}")
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler to build the stand-in driver")
    folder = tmp_path_factory.mktemp("fake_cuda")
    (folder / "fake.c").write_text(fake.FAKE_DRIVER)
    lib = folder / "libfakecuda.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(folder / "fake.c")], check=True)
    return str(lib), nvrtc.path


def run(fake_driver, body):
    import test_cuda_fake_driver as fake

    return fake.run(fake_driver, body)
