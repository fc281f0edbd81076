// cuda.cpp — the CUDA backend's runtime (cuda.h): loading, devices, the caching allocator,
// streams, events, copies, the NVRTC kernel cache and cuBLAS.
#include "cuda.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <unordered_map>

namespace tc::cuda {

namespace {

// ---------------------------------------------------------------- the libraries' functions
// Declared by hand (no toolkit needed to build); the names are the exported symbols, which
// for some functions carry the _v2 suffix that cuda.h's macros add.
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemGetInfo)(size_t*, size_t*);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void*, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemHostAlloc)(void**, size_t, unsigned);
  CUresult (*cuMemFreeHost)(void*);
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);
  CUresult (*cuStreamCreateWithPriority)(CUstream*, unsigned, int);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamQuery)(CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventQuery)(CUevent);
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
  CUresult (*cuGetErrorName)(CUresult, const char**);
};

using nvrtcProgram = struct _nvrtcProgram*;
struct Nvrtc {
  int (*nvrtcVersion)(int*, int*);
  int (*nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                            const char* const*);
  int (*nvrtcCompileProgram)(nvrtcProgram, int, const char* const*);
  int (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t*);
  int (*nvrtcGetProgramLog)(nvrtcProgram, char*);
  int (*nvrtcGetCUBINSize)(nvrtcProgram, size_t*);
  int (*nvrtcGetCUBIN)(nvrtcProgram, char*);
  int (*nvrtcDestroyProgram)(nvrtcProgram*);
  const char* (*nvrtcGetErrorString)(int);
};

using cublasHandle_t = struct cublasContext*;
struct Cublas {
  int (*cublasCreate)(cublasHandle_t*);
  int (*cublasSetStream)(cublasHandle_t, CUstream);
  int (*cublasGemmEx)(cublasHandle_t, int, int, int, int, int, const void*, const void*, int, int,
                      const void*, int, int, const void*, void*, int, int, int, int);
};

Driver g_drv;
Nvrtc g_nvrtc;
Cublas g_blas;
bool g_nvrtc_loaded = false, g_loaded = false;
std::mutex g_mutex;  // loading, the kernel cache, the allocator's pools

// Look each name up in `lib`; "" or the first missing symbol.
template <class Table>
std::string bind_symbols(void* lib, Table& table, std::initializer_list<const char*> names) {
  void** slot = reinterpret_cast<void**>(&table);
  for (const char* n : names) {
    *slot = dlsym(lib, n);
    if (!*slot) return std::string("missing symbol ") + n;
    slot++;
  }
  return "";
}

std::string open_lib(const std::string& path, void** lib) {
  *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!*lib) {
    const char* e = dlerror();
    return e ? e : (path + ": cannot be loaded");
  }
  return "";
}

const char* error_name(CUresult r) {
  const char* n = nullptr;
  if (g_drv.cuGetErrorName) g_drv.cuGetErrorName(r, &n);
  return n ? n : "CUDA_ERROR_UNKNOWN";
}

constexpr CUresult kOutOfMemory = 2, kNotReady = 600;

// ---------------------------------------------------------------- devices and contexts
struct DeviceState {
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  int sm_count = 0, major = 0, minor = 0;
  std::string arch;  // "sm_90"
  cublasHandle_t blas = nullptr;
  Generator rng;  // Philox keys (next_philox_key)
  uint64_t rng_draws = 0;
};
std::vector<DeviceState> g_devices;
thread_local int t_device = 0;
thread_local CUcontext t_ctx = nullptr;
thread_local CUstream t_stream = nullptr;

void need_loaded() {
  TC_CHECK(g_loaded, Runtime,
           "CUDA is not initialised: torch.cuda.is_available() is False or torch.cuda has not "
           "loaded the driver yet (call torch.cuda.init())");
}

DeviceState& state(int d) {
  need_loaded();
  TC_CHECK(d >= 0 && d < int(g_devices.size()), Runtime, "CUDA error: invalid device ordinal ", d,
           " (this machine has ", g_devices.size(), " CUDA device(s))");
  return g_devices[d];
}

// Make the current device's context current on this thread (cheap when it already is).
void bind_context() {
  DeviceState& s = state(t_device);
  if (t_ctx != s.ctx) {
    check(g_drv.cuCtxSetCurrent(s.ctx), "cuCtxSetCurrent");
    t_ctx = s.ctx;
  }
}

// Runs with the context of device d current (the caching allocator frees on any thread).
struct DeviceGuard {
  int prev;
  explicit DeviceGuard(int d) : prev(t_device) {
    t_device = d;
    bind_context();
  }
  ~DeviceGuard() {
    t_device = prev;
    if (!g_devices.empty()) {
      CUcontext c = g_devices[prev].ctx;
      if (t_ctx != c && g_drv.cuCtxSetCurrent(c) == 0) t_ctx = c;
    }
  }
};

// ---------------------------------------------------------------- the caching allocator
// Freed blocks stay with the allocator, keyed by (stream, size), and serve later requests of
// the same stream (a kernel queued on that stream after the free cannot overtake the earlier
// users). Sizes round up to 512 bytes below 1 MiB and to 2 MiB above, so a block is reused
// only for requests within its class; a block is never split. When the driver has no memory
// left, the cache is given back (cuMemFree) and the allocation tried once more.
struct Block {
  CUdeviceptr ptr;
  size_t size;
  int device;
  CUstream stream;
};

class CudaAllocator : public Allocator {
 public:
  StoragePtr allocate(size_t nbytes) override {
    int d = t_device;
    state(d);  // checks that CUDA is loaded
    bind_context();
    size_t size = round(nbytes);
    Block* b = nullptr;
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      auto& pool = pools_[d];
      auto it = pool.find({t_stream, size});
      if (it != pool.end()) {
        b = it->second;
        pool.erase(it);
      }
    }
    if (!b) b = fresh(d, size, nbytes);
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      MemoryStats& st = stats_[d];
      st.allocated += int64_t(b->size);
      st.peak_allocated = std::max(st.peak_allocated, st.allocated);
      st.num_allocs++;
    }
    auto storage = std::make_shared<Storage>();
    storage->data = reinterpret_cast<void*>(b->ptr);
    storage->nbytes = nbytes;
    storage->device = Device{DeviceType::CUDA, d};
    storage->ctx = b;
    storage->deleter = [](void*, void* ctx) { instance().release(static_cast<Block*>(ctx)); };
    return storage;
  }

  void copy_bytes(void* dst, const void* src, size_t n) override {
    if (n) memcpy_async(dst, src, n, 2);
  }

  void release(Block* b) {
    std::lock_guard<std::mutex> lock(g_mutex);
    MemoryStats& st = stats_[b->device];
    st.allocated -= int64_t(b->size);
    st.num_frees++;
    pools_[b->device].insert({{b->stream, b->size}, b});
  }

  // Give every cached block back to the driver.
  void empty_cache() {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (auto& [d, pool] : pools_) {
      DeviceGuard guard(d);
      for (auto& [key, b] : pool) {
        g_drv.cuMemFree(b->ptr);
        stats_[d].reserved -= int64_t(b->size);
        delete b;
      }
      pool.clear();
    }
  }

  MemoryStats stats(int d) {
    std::lock_guard<std::mutex> lock(g_mutex);
    return stats_[d];
  }
  void reset_peak(int d) {
    std::lock_guard<std::mutex> lock(g_mutex);
    stats_[d].peak_allocated = stats_[d].allocated;
    stats_[d].peak_reserved = stats_[d].reserved;
  }

  static CudaAllocator& instance() {
    static CudaAllocator a;
    return a;
  }

 private:
  static size_t round(size_t n) {
    constexpr size_t kSmall = 512, kLarge = size_t(2) << 20;
    n = std::max<size_t>(n, 1);
    size_t unit = n < (size_t(1) << 20) ? kSmall : kLarge;
    TC_CHECK(n <= SIZE_MAX - unit, Runtime, "CUDA: allocation of ", n, " bytes is too large");
    return (n + unit - 1) / unit * unit;
  }

  Block* fresh(int d, size_t size, size_t asked) {
    CUdeviceptr p = 0;
    CUresult r = g_drv.cuMemAlloc(&p, size);
    if (r == kOutOfMemory) {
      {
        std::lock_guard<std::mutex> lock(g_mutex);
        stats_[d].num_alloc_retries++;
      }
      empty_cache();
      bind_context();
      r = g_drv.cuMemAlloc(&p, size);
    }
    if (r == kOutOfMemory) {
      MemoryStats st;
      {
        std::lock_guard<std::mutex> lock(g_mutex);
        stats_[d].num_ooms++;
        st = stats_[d];
      }
      size_t free_b = 0, total_b = 0;
      g_drv.cuMemGetInfo(&free_b, &total_b);
      auto mib = [](double b) { return cat_str(int64_t(b / 1048576.0), " MiB"); };
      fail(ErrorKind::OutOfMemory, "CUDA out of memory. Tried to allocate ", mib(double(asked)),
           " (", asked, " bytes). GPU ", d, " has a total capacity of ", mib(double(total_b)),
           " of which ", mib(double(free_b)), " is free. Of the allocated memory ",
           mib(double(st.allocated)), " is allocated by tensors and ", mib(double(st.reserved)),
           " is reserved by the caching allocator (its cache was emptied and the allocation "
           "retried once).");
    }
    check(r, "cuMemAlloc");
    std::lock_guard<std::mutex> lock(g_mutex);
    MemoryStats& st = stats_[d];
    st.reserved += int64_t(size);
    st.peak_reserved = std::max(st.peak_reserved, st.reserved);
    return new Block{p, size, d, t_stream};
  }

  std::map<int, std::multimap<std::pair<CUstream, size_t>, Block*>> pools_;
  std::map<int, MemoryStats> stats_;
};

// ---------------------------------------------------------------- NVRTC and the kernel cache
uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::string cache_dir() {
  if (const char* e = std::getenv("TORCH_CUDA_KERNEL_CACHE")) return e;
  if (const char* x = std::getenv("XDG_CACHE_HOME")) return std::string(x) + "/torch-core/cuda";
  if (const char* h = std::getenv("HOME")) return std::string(h) + "/.cache/torch-core/cuda";
  return "";
}

void make_dirs(const std::string& path) {
  for (size_t i = 1; i <= path.size(); i++)
    if (i == path.size() || path[i] == '/') mkdir(path.substr(0, i).c_str(), 0755);
}

std::string compile_cubin(const std::string& source, const std::string& name,
                          const std::string& arch) {
  TC_CHECK(g_nvrtc_loaded, Runtime, "CUDA: NVRTC is not loaded (pip install nvidia-cuda-nvrtc)");
  nvrtcProgram prog = nullptr;
  int r = g_nvrtc.nvrtcCreateProgram(&prog, source.c_str(), (name + ".cu").c_str(), 0, nullptr,
                                     nullptr);
  TC_CHECK(r == 0, Runtime, "NVRTC: cannot create program ", name, ": ",
           g_nvrtc.nvrtcGetErrorString(r));
  std::string arch_opt = "--gpu-architecture=" + arch;
  const char* opts[] = {arch_opt.c_str(), "--std=c++17", "--device-as-default-execution-space"};
  r = g_nvrtc.nvrtcCompileProgram(prog, 3, opts);
  std::string log;
  size_t log_size = 0;
  if (g_nvrtc.nvrtcGetProgramLogSize(prog, &log_size) == 0 && log_size > 1) {
    log.resize(log_size);
    g_nvrtc.nvrtcGetProgramLog(prog, log.data());
  }
  if (r != 0) {
    g_nvrtc.nvrtcDestroyProgram(&prog);
    fail(ErrorKind::Runtime, "NVRTC could not compile kernel ", name, " for ", arch, ": ",
         g_nvrtc.nvrtcGetErrorString(r), "\n", log);
  }
  size_t n = 0;
  g_nvrtc.nvrtcGetCUBINSize(prog, &n);
  std::string cubin(n, '\0');
  g_nvrtc.nvrtcGetCUBIN(prog, cubin.data());
  g_nvrtc.nvrtcDestroyProgram(&prog);
  return cubin;
}

// The cubin for (source, arch): from disk when an earlier process compiled it.
std::string cubin_for(const std::string& source, const std::string& name, const std::string& arch) {
  auto [maj, min] = nvrtc_version();
  std::string key = cat_str(source, '\n', arch, '\n', maj, '.', min);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)fnv1a(key));
  std::string dir = cache_dir();
  std::string path = dir.empty() ? "" : cat_str(dir, '/', name, '-', hex, ".cubin");
  if (!path.empty()) {
    std::ifstream f(path, std::ios::binary);
    if (f) {
      std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      if (!data.empty()) return data;
    }
  }
  std::string cubin = compile_cubin(source, name, arch);
  if (!path.empty()) {  // best effort: write then rename, so readers never see half a file
    make_dirs(dir);
    std::string tmp = cat_str(path, '.', getpid());
    std::ofstream f(tmp, std::ios::binary);
    if (f && f.write(cubin.data(), std::streamsize(cubin.size())) && (f.close(), true))
      std::rename(tmp.c_str(), path.c_str());
    else
      std::remove(tmp.c_str());
  }
  return cubin;
}

std::unordered_map<std::string, CUfunction> g_functions;  // key: device, name, source

}  // namespace

// ---------------------------------------------------------------- public: errors, loading
void check(CUresult r, const char* what) {
  if (r == 0) return;
  if (r == kOutOfMemory) fail(ErrorKind::OutOfMemory, "CUDA out of memory (", what, ")");
  fail(ErrorKind::Runtime, "CUDA error: ", error_name(r), " (", r, ") in ", what);
}

std::string load_nvrtc(const std::string& nvrtc) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_nvrtc_loaded) return "";
  void* lib = nullptr;
  std::string why = open_lib(nvrtc, &lib);
  if (!why.empty()) return "NVRTC: " + why;
  why = bind_symbols(lib, g_nvrtc,
                     {"nvrtcVersion", "nvrtcCreateProgram", "nvrtcCompileProgram",
                      "nvrtcGetProgramLogSize", "nvrtcGetProgramLog", "nvrtcGetCUBINSize",
                      "nvrtcGetCUBIN", "nvrtcDestroyProgram", "nvrtcGetErrorString"});
  if (!why.empty()) return "NVRTC: " + why;
  g_nvrtc_loaded = true;
  return "";
}

std::pair<int, int> nvrtc_version() {
  TC_CHECK(g_nvrtc_loaded, Runtime, "CUDA: NVRTC is not loaded");
  int a = 0, b = 0;
  g_nvrtc.nvrtcVersion(&a, &b);
  return {a, b};
}

// TORCH_CUDA_TRACE=1: each loading step on stderr (where a driver misbehaves)
static void trace(const char* step) {
  static const bool on = std::getenv("TORCH_CUDA_TRACE") != nullptr;
  if (on) std::fprintf(stderr, "torch cuda: %s\n", step), std::fflush(stderr);
}

std::string load(const std::string& driver, const std::string& nvrtc, const std::string& cublas) {
  if (g_loaded) return "";
  trace("loading NVRTC");
  std::string why = load_nvrtc(nvrtc);
  if (!why.empty()) return why;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_loaded) return "";
  void *drv = nullptr, *blas = nullptr;
  trace("loading the driver");
  why = open_lib(driver, &drv);
  if (!why.empty()) return "the NVIDIA driver (" + driver + "): " + why;
  why = bind_symbols(drv, g_drv,
                     {"cuInit",
                      "cuDeviceGetCount",
                      "cuDeviceGet",
                      "cuDeviceGetName",
                      "cuDeviceGetAttribute",
                      "cuDeviceTotalMem_v2",
                      "cuDevicePrimaryCtxRetain",
                      "cuCtxSetCurrent",
                      "cuCtxSynchronize",
                      "cuMemAlloc_v2",
                      "cuMemFree_v2",
                      "cuMemGetInfo_v2",
                      "cuMemcpyHtoDAsync_v2",
                      "cuMemcpyDtoHAsync_v2",
                      "cuMemcpyDtoDAsync_v2",
                      "cuMemHostAlloc",
                      "cuMemFreeHost",
                      "cuModuleLoadData",
                      "cuModuleGetFunction",
                      "cuLaunchKernel",
                      "cuStreamCreateWithPriority",
                      "cuStreamDestroy_v2",
                      "cuStreamSynchronize",
                      "cuStreamQuery",
                      "cuStreamWaitEvent",
                      "cuEventCreate",
                      "cuEventDestroy_v2",
                      "cuEventRecord",
                      "cuEventSynchronize",
                      "cuEventQuery",
                      "cuEventElapsedTime_v2",
                      "cuGetErrorName"});
  if (!why.empty()) return "the NVIDIA driver: " + why;
  trace("cuInit");
  CUresult r = g_drv.cuInit(0);
  if (r != 0) return cat_str("cuInit failed: ", error_name(r), " (", r, ")");
  int n = 0;
  trace("cuDeviceGetCount");
  r = g_drv.cuDeviceGetCount(&n);
  if (r != 0) return cat_str("cuDeviceGetCount failed: ", error_name(r), " (", r, ")");
  if (n == 0) return "no CUDA device found (the driver loaded, but it sees no GPU)";
  trace("loading cuBLAS");
  why = open_lib(cublas, &blas);
  if (!why.empty()) return "cuBLAS: " + why;
  why = bind_symbols(blas, g_blas, {"cublasCreate_v2", "cublasSetStream_v2", "cublasGemmEx"});
  if (!why.empty()) return "cuBLAS: " + why;
  trace("opening the devices");
  std::vector<DeviceState> devs(n);
  for (int i = 0; i < n; i++) {
    DeviceState& s = devs[i];
    if ((r = g_drv.cuDeviceGet(&s.dev, i)) != 0 ||
        (r = g_drv.cuDevicePrimaryCtxRetain(&s.ctx, s.dev)) != 0)
      return cat_str("cannot open CUDA device ", i, ": ", error_name(r), " (", r, ")");
    g_drv.cuDeviceGetAttribute(&s.sm_count, 16, s.dev);  // MULTIPROCESSOR_COUNT
    g_drv.cuDeviceGetAttribute(&s.major, 75, s.dev);     // COMPUTE_CAPABILITY_MAJOR
    g_drv.cuDeviceGetAttribute(&s.minor, 76, s.dev);
    s.arch = cat_str("sm_", s.major, s.minor);
  }
  g_devices = std::move(devs);
  g_loaded = true;
  set_allocator(DeviceType::CUDA, &CudaAllocator::instance());
  trace("registering kernels");
  register_kernels();
  trace("ready");
  return "";
}

bool loaded() { return g_loaded; }

// ---------------------------------------------------------------- devices
int device_count() { return g_loaded ? int(g_devices.size()) : 0; }
int current_device() {
  need_loaded();
  return t_device;
}
void set_device(int d) {
  state(d);
  t_device = d;
  bind_context();
}
int device_index(Device dev) {
  int d = dev.index < 0 ? current_device() : dev.index;
  state(d);
  return d;
}
std::string device_name(int d) {
  char buf[256] = {0};
  check(g_drv.cuDeviceGetName(buf, sizeof buf - 1, state(d).dev), "cuDeviceGetName");
  return buf;
}
std::pair<int, int> capability(int d) { return {state(d).major, state(d).minor}; }
size_t total_memory(int d) {
  size_t n = 0;
  check(g_drv.cuDeviceTotalMem(&n, state(d).dev), "cuDeviceTotalMem");
  return n;
}
int sm_count(int d) { return state(d).sm_count; }
std::pair<size_t, size_t> mem_get_info(int d) {
  DeviceGuard g(d);
  size_t f = 0, t = 0;
  check(g_drv.cuMemGetInfo(&f, &t), "cuMemGetInfo");
  return {f, t};
}
void synchronize(int d) {
  DeviceGuard g(d);
  check(g_drv.cuCtxSynchronize(), "cuCtxSynchronize");
  raise_device_errors();
}

// ---------------------------------------------------------------- device-side checks
// One word of page-locked host memory, which kernels on every device write through unified
// addressing: reading it after a synchronisation needs no copy.
int* device_error_word() {
  static int* word = [] {
    need_loaded();
    bind_context();
    void* p = nullptr;
    check(g_drv.cuMemHostAlloc(&p, sizeof(int), 3), "cuMemHostAlloc");  // PORTABLE | DEVICEMAP
    *static_cast<volatile int*>(p) = 0;
    return static_cast<int*>(p);
  }();
  return word;
}

void raise_device_errors() {
  if (!g_loaded) return;
  volatile int* word = device_error_word();
  int code = *word;
  if (code == 0) return;
  *word = 0;
  const char* op = code > 0 && code <= int(Op::NumOps) ? op_name(Op(code - 1)) : "a CUDA kernel";
  fail(ErrorKind::Index, op, ": index out of range (found by a CUDA kernel, which skipped it; ",
       "reported at the next synchronisation, so the failing call may be an earlier one)");
}

// ---------------------------------------------------------------- streams and events
CUstream current_stream() { return t_stream; }
void set_stream(CUstream s) {
  need_loaded();
  t_stream = s;
}
uintptr_t stream_create(int priority) {
  bind_context();
  CUstream s = nullptr;
  check(g_drv.cuStreamCreateWithPriority(&s, 0, priority), "cuStreamCreateWithPriority");
  return uintptr_t(s);
}
void stream_destroy(uintptr_t s) {
  if (s && g_loaded) g_drv.cuStreamDestroy(CUstream(s));
}
void stream_synchronize(uintptr_t s) {
  bind_context();
  check(g_drv.cuStreamSynchronize(CUstream(s)), "cuStreamSynchronize");
  raise_device_errors();
}
// A query's answer: true when the work is done, false while it runs (CUDA_ERROR_NOT_READY).
static bool finished(CUresult r, const char* what) {
  if (r == kNotReady) return false;
  check(r, what);
  return true;
}
bool stream_query(uintptr_t s) {
  bind_context();
  return finished(g_drv.cuStreamQuery(CUstream(s)), "cuStreamQuery");
}
void stream_wait_event(uintptr_t s, uintptr_t e) {
  bind_context();
  check(g_drv.cuStreamWaitEvent(CUstream(s), CUevent(e), 0), "cuStreamWaitEvent");
}
uintptr_t event_create(bool timing) {
  bind_context();
  CUevent e = nullptr;
  check(g_drv.cuEventCreate(&e, timing ? 0 : 2), "cuEventCreate");  // 2: DISABLE_TIMING
  return uintptr_t(e);
}
void event_destroy(uintptr_t e) {
  if (e && g_loaded) g_drv.cuEventDestroy(CUevent(e));
}
void event_record(uintptr_t e, uintptr_t s) {
  bind_context();
  check(g_drv.cuEventRecord(CUevent(e), CUstream(s)), "cuEventRecord");
}
void event_synchronize(uintptr_t e) {
  bind_context();
  check(g_drv.cuEventSynchronize(CUevent(e)), "cuEventSynchronize");
  raise_device_errors();
}
bool event_query(uintptr_t e) {
  bind_context();
  return finished(g_drv.cuEventQuery(CUevent(e)), "cuEventQuery");
}
float event_elapsed_ms(uintptr_t a, uintptr_t b) {
  bind_context();
  float ms = 0;
  check(g_drv.cuEventElapsedTime(&ms, CUevent(a), CUevent(b)), "cuEventElapsedTime");
  return ms;
}

// ---------------------------------------------------------------- memory
MemoryStats memory_stats(int d) {
  state(d);
  return CudaAllocator::instance().stats(d);
}
void reset_peak_stats(int d) {
  state(d);
  CudaAllocator::instance().reset_peak(d);
}
void empty_cache() {
  if (!g_loaded) return;
  for (int d = 0; d < device_count(); d++) synchronize(d);  // pending kernels may still read
  CudaAllocator::instance().empty_cache();
}

namespace {
void free_pinned(void* p, void*) {
  if (g_loaded) g_drv.cuMemFreeHost(p);
}
}  // namespace

Tensor pin_memory(const Tensor& t) {
  bind_context();
  TC_CHECK(t.device().type == DeviceType::CPU, Runtime, "pin_memory: cannot pin '",
           t.device().str(), "' memory: only CPU tensors can be pinned");
  size_t n = size_t(t.numel()) * t.itemsize();
  void* p = nullptr;
  check(g_drv.cuMemHostAlloc(&p, std::max<size_t>(n, 1), 1), "cuMemHostAlloc");  // PORTABLE
  auto st = std::make_shared<Storage>();
  st->data = p;
  st->nbytes = n;
  st->deleter = &free_pinned;
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = st;
  impl->sizes = t.sizes();
  impl->strides = contiguous_strides(t.sizes());
  impl->dtype = t.dtype();
  Tensor r(impl);
  copy_(r, t);
  return r;
}

bool is_pinned(const Tensor& t) {
  return t.device().type == DeviceType::CPU && t.impl()->storage->deleter == &free_pinned;
}

// ---------------------------------------------------------------- copies
void memcpy_async(void* dst, const void* src, size_t n, int kind) {
  bind_context();
  CUresult r = kind == 0 ? g_drv.cuMemcpyHtoDAsync(CUdeviceptr(dst), src, n, t_stream)
               : kind == 1
                   ? g_drv.cuMemcpyDtoHAsync(dst, CUdeviceptr(src), n, t_stream)
                   : g_drv.cuMemcpyDtoDAsync(CUdeviceptr(dst), CUdeviceptr(src), n, t_stream);
  check(r, "cuMemcpyAsync");
}

void upload(const Tensor& dst, const Tensor& src, bool wait) {
  size_t n = size_t(src.numel()) * src.itemsize();
  if (!n) return;
  memcpy_async(dst.data(), src.data(), n, 0);
  if (wait) check(g_drv.cuStreamSynchronize(t_stream), "cuStreamSynchronize");
}

// Page-locked staging blocks for upload_async, per (device, size class), in the order they
// were last used: the front one is reused once its copy is done; while it is still pending,
// a new block is made, up to kStagingBlocks, after which the front one is waited for. So a
// training loop that uploads the same tables every step allocates nothing after warm-up and
// never waits for the GPU, unless it runs more than kStagingBlocks uploads ahead of it.
namespace {
struct StagingBlock {
  void* host = nullptr;
  CUevent done = nullptr;
  bool used = false;
};
constexpr size_t kStagingBlocks = 256;
constexpr size_t kMaxStaged = size_t(1) << 20;  // larger uploads wait instead
std::mutex g_staging_mutex;
std::map<std::pair<int, size_t>, std::vector<StagingBlock>> g_staging;  // (device, size): a ring
std::map<std::pair<int, size_t>, size_t> g_staging_next;                // the ring's front
}  // namespace

Tensor upload_async(const Tensor& src, Device dev) {
  TC_CHECK(src.device().type == DeviceType::CPU && src.is_contiguous(), Runtime,
           "upload_async: expected a contiguous CPU tensor");
  const int d = device_index(dev);
  DeviceGuard guard(d);
  Tensor out = empty(src.sizes(), src.dtype(), Device{DeviceType::CUDA, d});
  size_t n = size_t(src.numel()) * src.itemsize();
  if (!n) return out;
  if (n > kMaxStaged) {  // (big tables are rare: a plain copy, waited for)
    upload(out, src, true);
    return out;
  }
  size_t size = 4096;
  while (size < n) size *= 2;
  std::lock_guard<std::mutex> lock(g_staging_mutex);
  auto& ring = g_staging[{d, size}];
  size_t& next = g_staging_next[{d, size}];
  StagingBlock* b = ring.empty() ? nullptr : &ring[next];
  bool reuse = b && (!b->used || finished(g_drv.cuEventQuery(b->done), "cuEventQuery"));
  if (!reuse && ring.size() < kStagingBlocks) {  // a new block, placed before the front
    StagingBlock fresh;
    check(g_drv.cuMemHostAlloc(&fresh.host, size, 1), "cuMemHostAlloc");  // PORTABLE
    CUresult r = g_drv.cuEventCreate(&fresh.done, 2);                     // DISABLE_TIMING
    if (r != 0) g_drv.cuMemFreeHost(fresh.host);
    check(r, "cuEventCreate");
    ring.insert(ring.begin() + std::ptrdiff_t(next), fresh);
    b = &ring[next];
  } else if (!reuse) {
    check(g_drv.cuEventSynchronize(b->done), "cuEventSynchronize");
  }
  std::memcpy(b->host, src.data(), n);
  memcpy_async(out.data(), b->host, n, 0);
  check(g_drv.cuEventRecord(b->done, t_stream), "cuEventRecord");
  b->used = true;
  next = (next + 1) % ring.size();
  return out;
}

void download(const Tensor& dst, const Tensor& src) {
  size_t n = size_t(src.numel()) * src.itemsize();
  if (!n) return;
  memcpy_async(dst.data(), src.data(), n, 1);
  check(g_drv.cuStreamSynchronize(t_stream), "cuStreamSynchronize");
  raise_device_errors();
}

Tensor to_device(const Tensor& t_in, Device dev, bool non_blocking) {
  Device from = t_in.device();
  TC_CHECK((from.type == DeviceType::CPU || from.type == DeviceType::CUDA) &&
               (dev.type == DeviceType::CPU || dev.type == DeviceType::CUDA),
           NotImplemented, "to: copying from ", from.str(), " to ", dev.str(),
           " is not implemented");
  if (dev.type == DeviceType::CPU)  // the CUDA device's to_host kernel
    return from.type == DeviceType::CPU ? clone(t_in) : on_host(t_in);
  int d = device_index(dev);
  DeviceGuard guard(d);
  Device target{DeviceType::CUDA, d};
  if (from.type == DeviceType::CUDA)  // another GPU: through the host (one GPU is the rule)
    return from.index == d ? clone(t_in) : to_device(on_host(t_in), target, non_blocking);
  Tensor src = contiguous(t_in);
  Tensor out = empty(src.sizes(), src.dtype(), target);
  // Pageable host memory may be reused as soon as we return: wait, unless the source is
  // page-locked and the caller asked not to (the copy then overlaps with later work).
  upload(out, src, !(non_blocking && is_pinned(src)));
  return out;
}

// ---------------------------------------------------------------- random numbers
void manual_seed(uint64_t seed) {
  for (auto& s : g_devices) {
    s.rng.manual_seed(seed);
    s.rng_draws = 0;
  }
}
uint64_t initial_seed() { return state(t_device).rng.initial_seed; }
std::pair<uint64_t, uint64_t> rng_state() {
  DeviceState& s = state(t_device);
  return {s.rng.initial_seed, s.rng_draws};
}
void set_rng_state(uint64_t seed, uint64_t draws) {
  DeviceState& s = state(t_device);
  s.rng.manual_seed(seed);
  s.rng.engine.discard(draws);
  s.rng_draws = draws;
}
uint64_t next_philox_key(int d) {
  DeviceState& s = state(d);
  s.rng_draws++;
  return s.rng.next();
}

// ---------------------------------------------------------------- kernels
CUfunction function(const std::string& source, const std::string& name) {
  int d = t_device;
  DeviceState& s = state(d);
  bind_context();
  std::string key = cat_str(d, '\n', name, '\n', source);
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_functions.find(key);
  if (it != g_functions.end()) return it->second;
  std::string cubin = cubin_for(source, name, s.arch);
  CUmodule mod = nullptr;
  check(g_drv.cuModuleLoadData(&mod, cubin.data()), "cuModuleLoadData");
  CUfunction f = nullptr;
  check(g_drv.cuModuleGetFunction(&f, mod, name.c_str()), "cuModuleGetFunction");
  g_functions.emplace(std::move(key), f);
  return f;
}

void launch(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned block, void** params,
            unsigned shared_bytes) {
  check(g_drv.cuLaunchKernel(f, grid_x, grid_y, 1, block, 1, 1, shared_bytes, t_stream, params,
                             nullptr),
        "cuLaunchKernel");
}

size_t nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch) {
  return compile_cubin(source, name, arch).size();
}

// ---------------------------------------------------------------- cuBLAS
bool& allow_tf32() {
  static bool on = false;  // PyTorch's default: float32 products in full float32
  return on;
}

void cublas_gemm(const CublasGemm& g) {
  DeviceState& s = state(t_device);
  bind_context();
  if (!s.blas) {
    int r = g_blas.cublasCreate(&s.blas);
    TC_CHECK(r == 0, Runtime, "cuBLAS: cublasCreate failed (status ", r, ")");
  }
  g_blas.cublasSetStream(s.blas, t_stream);
  // cudaDataType and cublasComputeType values (library_types.h, cublas_api.h)
  int type = 0, compute = 68;  // CUDA_R_32F, CUBLAS_COMPUTE_32F
  float af = float(g.alpha), bf = float(g.beta);
  const void *alpha = &af, *beta = &bf;
  switch (g.dtype) {
    case ScalarType::Double:
      type = 1, compute = 70, alpha = &g.alpha, beta = &g.beta;  // CUDA_R_64F, COMPUTE_64F
      break;
    case ScalarType::Half:
      type = 2;
      break;
    case ScalarType::BFloat16:
      type = 14;
      break;
    case ScalarType::Float:
      if (allow_tf32()) compute = 77;  // CUBLAS_COMPUTE_32F_FAST_TF32
      break;
    default:
      fail(ErrorKind::NotImplemented, "matmul on CUDA: not implemented for ", dtype_name(g.dtype));
  }
  int r = g_blas.cublasGemmEx(s.blas, g.ta, g.tb, g.m, g.n, g.k, alpha, g.a, type, g.lda, g.b, type,
                              g.ldb, beta, g.c, type, g.ldc, compute, -1);  // GEMM_DEFAULT
  TC_CHECK(r == 0, Runtime, "cuBLAS: cublasGemmEx failed (status ", r, ") for a ", g.m, "x", g.k,
           " @ ", g.k, "x", g.n, " product in ", dtype_name(g.dtype));
}

}  // namespace tc::cuda
