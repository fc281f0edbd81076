// index_ops.h — front ends of the indexing kernels (index.cpp), bound in bind_index.cpp.
//
// Advanced indexing is reduced to two primitives over element offsets:
//   take_rows(sub, off)           out[b, ...] = sub[...] shifted by off[b] elements
//   put_rows(sub, off, v, mode)   sub[...] shifted by off[b] (op)= v[b, ...]
// where `sub` is the indexed tensor with its advanced dims removed (the "subspace") and
// `off` (int64, any shape B) holds, per index combination, the element offset
// sum_j index_j * stride_j computed (and bounds-checked) by index_offsets.
#pragma once
#include "ops.h"

namespace tc {

enum class PutMode : int { Set = 0, Add, Mul, Max, Min };

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
