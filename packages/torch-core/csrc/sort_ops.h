// sort_ops.h — front ends of scans and order statistics (sort.cpp). Each checks its
// arguments, allocates contiguous outputs and runs a kernel from the dispatch table that
// works row by row: a "row" is the run of elements along `dim` at one index of the others.
//
// Note [NaN order]: as in PyTorch, NaN sorts as the largest value (after +inf); all NaNs
// compare equal to each other, so a stable sort keeps them in input order.
#pragma once
#include <utility>
#include <vector>

#include "ops.h"

namespace tc {

using ValuesIndices = std::pair<Tensor, Tensor>;

// cumsum/cumprod (dtype: accumulate and return in this dtype; Undefined: integers and bool
// accumulate in int64) and logcumsumexp (Op::logcumsumexp, floating inputs only).
Tensor scan(Op op, const Tensor& x, int64_t dim, ScalarType dtype = ScalarType::Undefined);
ValuesIndices cum_arg(Op op, const Tensor& x, int64_t dim);  // Op::cummax / Op::cummin

ValuesIndices sort(const Tensor& x, int64_t dim, bool descending);  // always stable
ValuesIndices topk(const Tensor& x, int64_t k, int64_t dim, bool largest);
ValuesIndices kthvalue(const Tensor& x, int64_t k, int64_t dim, bool keepdim);
// median/nanmedian along dim (the lower median); NaN propagates unless ignore_nan
ValuesIndices median_dim(const Tensor& x, int64_t dim, bool keepdim, bool ignore_nan);
Tensor median_all(const Tensor& x, bool ignore_nan);
ValuesIndices mode(const Tensor& x, int64_t dim, bool keepdim);

// q: the quantiles; q_dim: q was a 1-D tensor (adds a leading dim); dim < 0 with all_dims:
// over the flattened input. interpolation: linear, lower, higher, midpoint, nearest.
Tensor quantile(const Tensor& x, const std::vector<double>& q, bool q_dim, int64_t dim,
                bool all_dims, bool keepdim, const std::string& interpolation, bool ignore_nan);

// unique / unique_consecutive: (values, inverse, counts). has_dim: unique slices along dim;
// otherwise unique elements of the flattened input (inverse has the input's shape).
struct UniqueResult {
  Tensor values, inverse, counts;
};
UniqueResult unique(const Tensor& x, bool consecutive, bool has_dim, int64_t dim);

// ---------------------------------------------------------------- kernel types (sort.cpp)
struct RowArgs {
  Tensor in, out, idx;  // idx: indices output (undefined when the op has none)
  int64_t dim = 0, k = 0;
  int mode = 0;       // kthvalue: 0 k-th, 1 median, 2 nanmedian
  bool flag = false;  // sort: descending; topk: largest
};
using RowFn = void (*)(const RowArgs&);
// unique: groups the rows of a contiguous [rows, m] tensor (equal rows form a group, ordered
// by value or, if consecutive, by position)
struct UniqueGroups {
  std::vector<int64_t> first, counts, inverse;  // per group: a row, its size; per row: group
};
using UniqueFn = void (*)(const Tensor& rows, bool consecutive, UniqueGroups& g);

}  // namespace tc
