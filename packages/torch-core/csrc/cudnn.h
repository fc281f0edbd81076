// cudnn.h — convolutions on CUDA through cuDNN 9, loaded with dlopen on first use.
//
// Nothing of cuDNN is needed to build: the few functions of its convolution API
// (cudnnConvolutionForward / BackwardData / BackwardFilter and their descriptors) are
// declared by hand in cudnn.cpp and looked up at run time. The conv kernels are registered
// for CUDA when CUDA loads (bind_cuda.cpp); the first convolution asks the loader (set by
// bind_cuda.cpp: torch.backends.cudnn finds libcudnn.so.9) to load cuDNN, and raises
// NotImplementedError saying what is missing when it cannot.
#pragma once
#include <functional>
#include <string>

namespace tc::cuda {

std::string cudnn_load(const std::string& path);  // dlopen libcudnn.so.9: "" or why not
bool cudnn_loaded();
int cudnn_version();  // cudnnGetVersion(), e.g. 92801; 0 when not loaded
// Who loads cuDNN when a convolution first needs it: returns "" or why it cannot be used.
void set_cudnn_loader(std::function<std::string()> loader);
void register_cudnn_kernels();  // Op::conv and Op::conv_weight_grad on CUDA

// torch.backends.cudnn's flags (deterministic also covers torch.use_deterministic_algorithms)
struct CudnnFlags {
  bool benchmark = false, deterministic = false, allow_tf32 = true;
};
CudnnFlags& cudnn_flags();
size_t cudnn_cached_algorithms();  // choices remembered so far (tests)

}  // namespace tc::cuda
