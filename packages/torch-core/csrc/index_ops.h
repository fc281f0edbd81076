// index_ops.h — front ends of the indexing kernels (index.cpp), bound in bind_index.cpp.
//
// Advanced indexing is reduced to two primitives over element offsets:
//   take_rows(sub, off)           out[b, ...] = sub[...] shifted by off[b] elements
//   put_rows(sub, off, v, mode)   sub[...] shifted by off[b] (op)= v[b, ...]
// where `sub` is the indexed tensor with its advanced dims removed (the "subspace") and
// `off` (int64, any shape B) holds, per index combination, the element offset
// sum_j index_j * stride_j computed (and bounds-checked) by index_offsets.
#pragma once
#include <atomic>

#include "ops.h"

namespace tc {

enum class PutMode : int { Set = 0, Add, Mul, Max, Min };

// The first out-of-range index seen by any thread of a kernel; the front end raises it.
struct BadIndex {
  std::atomic<bool> seen{false};
  int64_t value = 0, which = 0;
  void record(int64_t v, int64_t w) {
    bool expected = false;
    if (seen.compare_exchange_strong(expected, true)) value = v, which = w;
  }
};

// nonzero and masked_select count, allocate, then write. The backend's count kernel splits
// the work as it likes and notes where each part's results start; its write kernel reads
// that back. The front end only reads total().
struct CountPlan {
  int64_t chunk = 1;               // elements per part
  std::vector<int64_t> starts{0};  // first result of each part, then the total
  int64_t total() const { return starts.back(); }
};

// ---------------------------------------------------------------- kernel types
// All pointers and tensors are on the indexed tensor's device.
using IndexOffsetsFn = void (*)(const std::vector<Tensor>& idx, const Shape& sizes,
                                const Shape& strides, const Tensor& out, BadIndex& bad);
using TakeFn = void (*)(const Tensor& sub, const int64_t* off, int64_t nb, char* out);
using PutFn = void (*)(const Tensor& sub, const int64_t* off, int64_t nb, const char* values,
                       PutMode mode);
using CountNonzeroFn = void (*)(const Tensor& x, int64_t work, CountPlan& plan);  // contiguous x
using NonzeroFn = void (*)(const Tensor& x, const CountPlan& plan, const Tensor& out);
// x contiguous, viewed as [mask.numel(), inner]; mask bool and contiguous
using MaskRowsFn = void (*)(const Tensor& x, const Tensor& mask, int64_t inner,
                            const CountPlan& plan, const Tensor& out);
using IndexSelectFn = void (*)(const Tensor& x, int64_t dim, const Tensor& idx, const Tensor& out,
                               BadIndex& bad);
using GatherFn = void (*)(const Tensor& x, int64_t dim, const Tensor& idx, char* out,
                          BadIndex& bad);
using SearchFn = void (*)(const Tensor& seq, const Tensor& values, bool right, char* out,
                          bool out_int32);

// offsets[b] = sum_j idx_j[b] * strides[j]; idx_j broadcast together, negative indices wrap,
// out-of-range ones raise IndexError naming dims[j] and sizes[j].
Tensor index_offsets(const std::vector<Tensor>& idx, const Shape& sizes, const Shape& strides,
                     const Shape& dims);
Tensor take_rows(const Tensor& sub, const Tensor& offsets);
void put_rows(const Tensor& sub, const Tensor& offsets, const Tensor& values, PutMode mode);

// x viewed as [M, rest] with mask over the M leading elements (mask.shape == x.shape[:k]).
Tensor mask_rows(const Tensor& x, const Tensor& mask);
Tensor nonzero(const Tensor& x);  // (count, ndim) int64
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor searchsorted(const Tensor& seq, const Tensor& values, bool right, bool out_int32);

}  // namespace tc
