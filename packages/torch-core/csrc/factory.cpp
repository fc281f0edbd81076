// factory.cpp — tensors made from ranges (arange, linspace, eye).
#include <cmath>

#include "ops.h"

namespace tc {

// Values computed in double, then cast: the same numbers for every output dtype.
template <class F>
static Tensor from_index(int64_t n, ScalarType dtype, F value) {
  Tensor r = empty({n}, dtype);
  visit_dtype(dtype, [&](auto v) {
    using T = decltype(v);
    T* p = r.data_as<T>();
    for (int64_t i = 0; i < n; i++) p[i] = T(typename AccOf<T>::type(value(i)));
  });
  return r;
}

Tensor arange(double start, double end, double step, ScalarType dtype) {
  TC_CHECK(step != 0, Runtime, "arange: step must be nonzero");
  TC_CHECK(std::isfinite(start) && std::isfinite(end), Runtime,
           "arange: unsupported range: ", start, " -> ", end);
  TC_CHECK((step > 0 && end >= start) || (step < 0 && end <= start), Runtime,
           "arange: upper bound and larger bound inconsistent with step sign (start=", start,
           ", end=", end, ", step=", step, ")");
  double n = std::ceil((end - start) / step);
  TC_CHECK(n < double(int64_t(1) << 48), Runtime, "arange: too many elements (", n, ")");
  return from_index(int64_t(n), dtype, [&](int64_t i) { return start + double(i) * step; });
}

Tensor linspace(double start, double end, int64_t steps, ScalarType dtype) {
  TC_CHECK(steps >= 0, Runtime, "linspace: number of steps must be non-negative, got ", steps);
  double step = steps > 1 ? (end - start) / double(steps - 1) : 0;
  int64_t half = steps / 2;
  // Both ends are exact: the first half counts up from start, the second down from end.
  return from_index(steps, dtype, [&](int64_t i) {
    if (steps == 1) return start;
    return i < half ? start + step * double(i) : end - step * double(steps - 1 - i);
  });
}

Tensor eye(int64_t n, int64_t m, ScalarType dtype) {
  TC_CHECK(n >= 0 && m >= 0, Runtime, "eye: n and m must be non-negative, got ", n, " and ", m);
  Tensor r = empty({n, m}, dtype);
  fill_(r, Scalar::from_int(0));
  fill_(diagonal(r, 0, 0, 1), Scalar::from_int(1));
  return r;
}

}  // namespace tc
