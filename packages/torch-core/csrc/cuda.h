// cuda.h — the CUDA backend's runtime: the driver, NVRTC and cuBLAS loaded with dlopen.
//
// Nothing here needs the CUDA toolkit to build: the few driver, NVRTC and cuBLAS functions
// the backend calls are declared below by hand and looked up at run time (load()). Kernels
// are CUDA C++ source (cuda_kernels.cpp) compiled by NVRTC for the device's architecture on
// first use and cached in memory and on disk.
//
//   std::string why = cuda::load("libcuda.so.1", nvrtc_path, cublas_path);  // "" = ready
//   CUfunction f = cuda::function(source, "add_f32");
//   cuda::launch(f, grid, block, args);
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ops.h"

namespace tc::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;

// ---------------------------------------------------------------- loading
// dlopen the driver, NVRTC and cuBLAS (paths or sonames), start the driver and register the
// backend's allocator and kernels. "" on success, else why CUDA cannot be used.
std::string load(const std::string& driver, const std::string& nvrtc, const std::string& cublas);
std::string load_nvrtc(const std::string& nvrtc);  // NVRTC alone (compile checks, no GPU)
bool loaded();                                     // load() succeeded
std::pair<int, int> nvrtc_version();

// ---------------------------------------------------------------- devices
int device_count();
int current_device();
void set_device(int d);
int device_index(Device dev);  // cuda (no index) -> the current device; checks the range
std::string device_name(int d);
std::pair<int, int> capability(int d);
size_t total_memory(int d);
int sm_count(int d);
std::pair<size_t, size_t> mem_get_info(int d);
void synchronize(int d);  // and raise_device_errors()

// ---------------------------------------------------------------- device-side checks
// A kernel that meets a bad index (out of range) skips it and stores int(op) + 1 into this
// word (page-locked host memory, one per process, written through unified addressing):
//   if (bad) *(volatile int*)p.err = OP_CODE;   // then continue, touching nothing
// The next synchronising call (synchronize, a stream/event wait, a copy to the host, so
// .item() and .cpu()) raises IndexError naming the op and clears it: like PyTorch's
// device-side asserts, asynchronously, but the process stays usable.
int* device_error_word();
void raise_device_errors();

// ---------------------------------------------------------------- streams and events
CUstream current_stream();  // per thread; nullptr = the legacy default stream
void set_stream(CUstream s);
uintptr_t stream_create(int priority);
void stream_destroy(uintptr_t s);
void stream_synchronize(uintptr_t s);
bool stream_query(uintptr_t s);
void stream_wait_event(uintptr_t s, uintptr_t e);
uintptr_t event_create(bool timing);
void event_destroy(uintptr_t e);
void event_record(uintptr_t e, uintptr_t s);
void event_synchronize(uintptr_t e);
bool event_query(uintptr_t e);
float event_elapsed_ms(uintptr_t start, uintptr_t end);

// ---------------------------------------------------------------- memory
struct MemoryStats {
  int64_t allocated = 0, peak_allocated = 0, reserved = 0, peak_reserved = 0;
  int64_t num_alloc_retries = 0, num_ooms = 0, num_allocs = 0, num_frees = 0;
};
MemoryStats memory_stats(int d);
void reset_peak_stats(int d);
void empty_cache();
Tensor pin_memory(const Tensor& t);  // a contiguous copy in page-locked host memory
bool is_pinned(const Tensor& t);

// ---------------------------------------------------------------- copies
// A copy of t on `dev` (CPU <-> CUDA, CUDA <-> CUDA), same dtype, contiguous.
Tensor to_device(const Tensor& t, Device dev, bool non_blocking);

// ---------------------------------------------------------------- random numbers
// One generator per device: each sampling kernel takes a fresh 64-bit Philox key from it.
void manual_seed(uint64_t seed);
uint64_t initial_seed();
std::pair<uint64_t, uint64_t> rng_state();  // (seed, draws so far)
void set_rng_state(uint64_t seed, uint64_t draws);

// ---------------------------------------------------------------- kernels
// The compiled function `name` of `source` on the current device (NVRTC on first use).
CUfunction function(const std::string& source, const std::string& name);
// Launch on the current stream; params are pointers to each argument, as the driver wants.
void launch(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned block, void** params,
            unsigned shared_bytes = 0);
// Compile source for an architecture ("sm_90") without a GPU; returns the cubin's size.
size_t nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch);
// (name, source) of every kernel the backend generates (cuda_kernels.cpp).
std::vector<std::pair<std::string, std::string>> kernel_sources();

// Internal helpers shared by cuda.cpp and cuda_kernels.cpp.
void check(CUresult r, const char* what);
void register_kernels();  // cuda_kernels.cpp
// Shared by the kernel files (defined in cuda_kernels.cpp): the source prelude every kernel
// source starts with (typedefs i8..u64, f16/bf16 with to_acc/Cvt, EwParams, RedParams), the
// C++ names of a dtype's storage and compute types in kernel source, the compiled function
// cache (kind: 0-9 cuda_kernels.cpp, 10-19 cuda_nn.cpp, 20-29 cuda_index.cpp, 30-39
// cuda_sort.cpp, 40-49 cuda_shape.cpp; the source is made once per key and device) and making
// a tensor's device current.
extern const char* const kPrelude;
extern const char* const kPhilox;  // philox(key, counter, out[4]): Philox4x32-10
const char* storage_name(ScalarType t);
std::string math_names(std::string body, bool single);  // "F(exp)" -> expf (float) or exp
const char* acc_name(ScalarType t);
CUfunction cached(int kind, int op, ScalarType t, ScalarType t2, const std::string& suffix,
                  const std::function<std::pair<std::string, std::string>()>& make);
void use_device_of(const Tensor& t);
// The neural-network kernels (cuda_nn.cpp): registered by register_kernels(), their sources
// listed by kernel_sources().
void register_nn_kernels();
void append_nn_kernel_sources(std::vector<std::pair<std::string, std::string>>& all);
// The indexing kernels (cuda_index.cpp), likewise.
void register_index_kernels();
void append_index_kernel_sources(std::vector<std::pair<std::string, std::string>>& all);
// The scans, sorting and multinomial kernels (cuda_sort.cpp), likewise.
void register_sort_kernels();
void append_sort_kernel_sources(std::vector<std::pair<std::string, std::string>>& all);
// flip, roll, tril/triu, repeat_interleave, the bit shifts, complex abs/angle and
// im2col/col2im (cuda_shape.cpp), likewise.
void register_shape_kernels();
void append_shape_kernel_sources(std::vector<std::pair<std::string, std::string>>& all);
void memcpy_async(void* dst, const void* src, size_t n, int kind);  // kind: 0 HtoD 1 DtoH 2 DtoD
// Contiguous same-size copies on the current stream: host -> device (waiting for it when
// `wait`), device -> host (always waited for).
void upload(const Tensor& dst, const Tensor& src, bool wait);
// A copy on `dev` of `src` (a contiguous CPU tensor the backend made: a window table, index
// maps), queued on the current stream without waiting for the GPU: the bytes go through a
// page-locked staging block that is reused once an event recorded behind the copy has passed
// (over 1 MiB: a plain copy, waited for).
Tensor upload_async(const Tensor& src, Device dev);
void download(const Tensor& dst, const Tensor& src);
struct CublasGemm {  // column-major C = alpha op(A) op(B) + beta C, cublasGemmEx's arguments
  bool ta, tb;
  int m, n, k;
  const void *a, *b;
  void* c;
  int lda, ldb, ldc;
  ScalarType dtype;
  double alpha, beta;
};
void cublas_gemm(const CublasGemm& g);
bool& allow_tf32();  // torch.backends.cuda.matmul.allow_tf32
uint64_t next_philox_key(int device);

}  // namespace tc::cuda
