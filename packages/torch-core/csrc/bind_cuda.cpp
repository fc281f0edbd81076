// bind_cuda.cpp — Python bindings of the CUDA backend's runtime (cuda.h): private _C._cuda_*
// functions that torch/cuda/__init__.py turns into torch.cuda's API.
#include "bind.h"
#include "cuda.h"
#include "cudnn.h"

namespace tc {

void bind_cuda(py::module_& m) {
  namespace cu = tc::cuda;
  m.def(
      "_cuda_load",
      [](const std::string& driver, const std::string& nvrtc, const std::string& cublas) {
        std::string why = cu::load(driver, nvrtc, cublas);
        if (why.empty()) cu::register_cudnn_kernels();  // cuDNN itself loads on first use
        return why;
      },
      py::arg("driver"), py::arg("nvrtc"), py::arg("cublas"),
      "dlopen the driver, NVRTC and cuBLAS and start CUDA: '' on success, else why not.");
  // The first CUDA convolution loads cuDNN through torch.backends.cudnn (which finds it).
  cu::set_cudnn_loader([]() -> std::string {
    py::gil_scoped_acquire gil;
    try {
      return py::module_::import("torch.backends.cudnn").attr("_load")().cast<std::string>();
    } catch (py::error_already_set& e) {
      return e.what();
    }
  });
  m.def("_cuda_cudnn_load", &cu::cudnn_load, py::arg("path"),
        "dlopen cuDNN 9 (libcudnn.so.9): '' on success, else why not.");
  m.def("_cuda_cudnn_version", &cu::cudnn_version,
        "cuDNN's version (e.g. 92801); 0 if not loaded.");
  m.def(
      "_cuda_cudnn_set_flags",
      [](bool benchmark, bool deterministic, bool allow_tf32) {
        cu::cudnn_flags() = {benchmark, deterministic, allow_tf32};
      },
      py::arg("benchmark"), py::arg("deterministic"), py::arg("allow_tf32"),
      "torch.backends.cudnn's flags, as the convolutions read them.");
  m.def(
      "_cuda_cudnn_get_flags",
      [] {
        const cu::CudnnFlags& f = cu::cudnn_flags();
        return py::make_tuple(f.benchmark, f.deterministic, f.allow_tf32);
      },
      "(benchmark, deterministic, allow_tf32) as the convolutions read them.");
  m.def("_cuda_cudnn_cached_algorithms", &cu::cudnn_cached_algorithms,
        "How many convolution problems have a remembered cuDNN algorithm.");
  m.def("_cuda_load_nvrtc", &cu::load_nvrtc, py::arg("nvrtc"),
        "dlopen NVRTC alone (compiling needs no GPU): '' on success, else why not.");
  m.def("_cuda_nvrtc_version", &cu::nvrtc_version, "NVRTC's (major, minor) version.");
  m.def("_cuda_kernel_sources", &cu::kernel_sources,
        "(name, CUDA C++ source) of every kernel the backend generates.");
  m.def(
      "_cuda_nvrtc_compile",
      [](const std::string& src, const std::string& name, const std::string& arch) {
        py::gil_scoped_release release;
        return cu::nvrtc_compile(src, name, arch);
      },
      py::arg("source"), py::arg("name"), py::arg("arch"),
      "Compile a kernel source for `arch` (e.g. 'sm_90'); the cubin's size in bytes.");
  m.def("_cuda_device_count", &cu::device_count, "The number of CUDA devices (0 before loading).");
  m.def("_cuda_current_device", &cu::current_device, "This thread's current CUDA device.");
  m.def("_cuda_set_device", &cu::set_device, "Make a CUDA device this thread's current one.");
  m.def("_cuda_device_name", &cu::device_name, "A CUDA device's name.");
  m.def("_cuda_device_capability", &cu::capability, "A CUDA device's (major, minor).");
  m.def("_cuda_device_total_memory", &cu::total_memory, "A CUDA device's memory in bytes.");
  m.def("_cuda_device_sm_count", &cu::sm_count, "A CUDA device's multiprocessor count.");
  m.def("_cuda_mem_get_info", &cu::mem_get_info, "(free, total) bytes of a CUDA device.");
  m.def(
      "_cuda_synchronize",
      [](int d) {
        py::gil_scoped_release release;
        cu::synchronize(d);
      },
      "Wait for all work queued on a CUDA device.");
  m.def(
      "_cuda_memory_stats",
      [](int d) {
        cu::MemoryStats s = cu::memory_stats(d);
        py::dict r;
        r["allocated"] = s.allocated;
        r["peak_allocated"] = s.peak_allocated;
        r["reserved"] = s.reserved;
        r["peak_reserved"] = s.peak_reserved;
        r["num_alloc_retries"] = s.num_alloc_retries;
        r["num_ooms"] = s.num_ooms;
        r["num_allocs"] = s.num_allocs;
        r["num_frees"] = s.num_frees;
        return r;
      },
      "The caching allocator's counters for a device (bytes and counts).");
  m.def("_cuda_reset_peak_stats", &cu::reset_peak_stats, "Peaks back to the current values.");
  m.def("_cuda_empty_cache", &cu::empty_cache, "Give the allocator's cached blocks back.");
  m.def(
      "_cuda_stream_create", [](int priority) { return uintptr_t(cu::stream_create(priority)); },
      py::arg("priority") = 0, "A new CUDA stream's handle.");
  m.def("_cuda_stream_destroy", &cu::stream_destroy, "Destroy a stream.");
  m.def(
      "_cuda_stream_synchronize",
      [](uintptr_t s) {
        py::gil_scoped_release release;
        cu::stream_synchronize(s);
      },
      "Wait for a stream's work.");
  m.def("_cuda_stream_query", &cu::stream_query, "Whether a stream's work is all done.");
  m.def(
      "_cuda_current_stream", [] { return uintptr_t(cu::current_stream()); },
      "This thread's current stream (0: the default stream).");
  m.def(
      "_cuda_set_stream", [](uintptr_t s) { cu::set_stream(cu::CUstream(s)); },
      "Queue this thread's later CUDA work on stream `s`.");
  m.def("_cuda_stream_wait_event", &cu::stream_wait_event,
        "Make a stream wait for an event's work.");
  m.def("_cuda_event_create", &cu::event_create, py::arg("enable_timing"), "A new CUDA event.");
  m.def("_cuda_event_destroy", &cu::event_destroy, "Destroy an event.");
  m.def("_cuda_event_record", &cu::event_record, "Record an event on a stream.");
  m.def(
      "_cuda_event_synchronize",
      [](uintptr_t e) {
        py::gil_scoped_release release;
        cu::event_synchronize(e);
      },
      "Wait for an event.");
  m.def("_cuda_event_query", &cu::event_query, "Whether an event's work is done.");
  m.def("_cuda_event_elapsed_ms", &cu::event_elapsed_ms, "Milliseconds between two events.");
  m.def("_cuda_manual_seed", &cu::manual_seed, "Seed every CUDA device's generator.");
  m.def("_cuda_initial_seed", &cu::initial_seed, "The current device generator's seed.");
  m.def(
      "_cuda_get_rng_state",
      [] {
        auto [seed, draws] = cu::rng_state();
        char b[16];
        std::memcpy(b, &seed, 8);
        std::memcpy(b + 8, &draws, 8);
        return py::bytes(b, 16);
      },
      "The current device generator's state: 16 bytes (seed, draws).");
  m.def(
      "_cuda_set_rng_state",
      [](const py::bytes& state) {
        std::string b = state;
        TC_CHECK(b.size() == 16, Runtime, "set_rng_state: expected a state of 16 bytes, got ",
                 b.size());
        uint64_t seed, draws;
        std::memcpy(&seed, b.data(), 8);
        std::memcpy(&draws, b.data() + 8, 8);
        cu::set_rng_state(seed, draws);
      },
      "Restore a state from _cuda_get_rng_state.");
  m.def(
      "_cuda_to_device",
      [](const Tensor& t, py::handle device, bool non_blocking) {
        return cu::to_device(t, to_device_arg(device), non_blocking);
      },
      py::arg("tensor"), py::arg("device"), py::arg("non_blocking") = false,
      "A copy of a tensor on another device (CPU <-> CUDA), same dtype.");
  m.def(
      "_cuda_upload_staged",
      [](const Tensor& t, py::handle device) {
        Device dev = to_device_arg(device);
        // contiguous host tensors a factory made: through page-locked staging memory (up to
        // 1 MiB), queued on the current stream without waiting for the GPU
        if (t.device().type == DeviceType::CPU && dev.type == DeviceType::CUDA && t.is_contiguous())
          return cu::upload_async(t, dev);
        return cu::to_device(t, dev, false);
      },
      py::arg("tensor"), py::arg("device"),
      "A factory's host tensor on a CUDA device, copied without waiting for the GPU.");
  m.def("_cuda_pin_memory", &cu::pin_memory, "A contiguous copy in page-locked host memory.");
  m.def("_cuda_is_pinned", &cu::is_pinned, "Whether a CPU tensor is in page-locked memory.");
  m.def(
      "_cuda_set_allow_tf32", [](bool on) { cu::allow_tf32() = on; },
      "torch.backends.cuda.matmul.allow_tf32's setter.");
  m.def(
      "_cuda_get_allow_tf32", [] { return cu::allow_tf32(); },
      "torch.backends.cuda.matmul.allow_tf32's value.");
}

}  // namespace tc
