// shape_ops.h — front ends of the shape ops that need their own pass over the data
// (shape.cpp). The composites over views (stack, split, repeat, kron, ...) are Python, in
// torch/_shape_ops.py.
#pragma once
#include <vector>

#include "ops.h"

namespace tc {

// Kernels of the dispatch table (one per dtype, CPU registrations in shape.cpp).
// cat: copies each input into its slice of `out` along `dim` (shapes already checked).
using CatFn = void (*)(const Tensor& out, const std::vector<Tensor>& inputs, int64_t dim);
// flip: out = the source view, whose flipped dims have negative strides.
using FlipFn = void (*)(const Tensor& out, const Tensor& reversed_view);
// roll: out = in rolled by shifts[j] (in [1, n)) along distinct dims[j].
using RollFn = void (*)(const Tensor& out, const Tensor& in, const Shape& dims,
                        const Shape& shifts);
// tril/triu: dst = src with the elements outside the kept triangle zeroed (dst may be src).
using TriFn = void (*)(const Tensor& dst, const Tensor& src, int64_t diagonal, bool upper);
// repeat_interleave over a contiguous input viewed as [outer, n, inner]: row i of each
// outer block is written repeats[i] times, starting at output row offsets[i].
using RepeatInterleaveFn = void (*)(const Tensor& out, const Tensor& in, int64_t outer, int64_t n,
                                    int64_t inner, const int64_t* repeats, const int64_t* offsets);

// `out` may be undefined (allocated) or a user tensor (resized).
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& out = Tensor());
Tensor flip(const Tensor& x, const Shape& dims);
Tensor roll(const Tensor& x, const Shape& shifts, const Shape& dims);
Tensor tril(const Tensor& x, int64_t diagonal, bool upper, const Tensor& out = Tensor());
void tril_(const Tensor& x, int64_t diagonal, bool upper);  // in place
Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, int64_t dim);
Tensor tril_indices(int64_t rows, int64_t cols, int64_t offset, bool upper, ScalarType dtype);

}  // namespace tc
