// nn_softmax.cpp — softmax and log_softmax along a dim, and their backward.
//
// The input is seen as (outer, n, inner) with n the softmax dim. Rows with inner == 1 are
// contiguous and handled one at a time; otherwise a block of up to kCols columns of one
// outer index is processed together, each pass running along the contiguous inner dim.
// The max is subtracted before exp, so large inputs do not overflow.
#include <algorithm>
#include <cmath>
#include <limits>

#include "nn_ops.h"

namespace tc {

namespace {

constexpr int64_t kCols = 256;

struct RowShape {
  int64_t outer = 1, n = 1, inner = 1;
};

RowShape row_shape(const Tensor& x, int64_t dim, const char* op) {
  RowShape r;
  if (x.dim() == 0) {
    wrap_dim(dim, 1, op);
    return r;
  }
  dim = wrap_dim(dim, x.dim(), op);
  for (int64_t d = 0; d < x.dim(); d++) {
    if (d < dim) r.outer *= x.size(d);
    if (d > dim) r.inner *= x.size(d);
  }
  r.n = x.size(dim);
  return r;
}

// f(o, c0, c1): columns [c0, c1) of outer index o (inner == 1: the row o, c0 = 0, c1 = 1)
template <class F>
void for_blocks(const RowShape& r, const F& f) {
  int64_t blocks = (r.inner + kCols - 1) / kCols, tasks = r.outer * blocks;
  int nt = tasks > 1 && r.outer * r.n * r.inner >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t t = 0; t < tasks; t++) {
    int64_t o = t / blocks, c0 = (t % blocks) * kCols;
    f(o, c0, std::min(r.inner, c0 + kCols));
  }
}

// contiguous rows (inner == 1)
template <class F>
void for_rows(const RowShape& r, const F& f) {
  int nt = r.outer > 1 && r.outer * r.n >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t o = 0; o < r.outer; o++) f(o * r.n);
}

template <class T>
void softmax_kernel(const RowShape& r, const T* x, T* y, bool log) {
  using A = double;
  int64_t n = r.n;
  if (r.inner == 1) {
    for_rows(r, [&](int64_t off) {
      const T* xr = x + off;
      T* yr = y + off;
      T mx = lane_max(xr, n);
      if (log) {
        T s = lane_sum<T>(n, [&](int64_t i) { return nn_exp(xr[i] - mx); });
        T sub = mx + std::log(s);
        for (int64_t i = 0; i < n; i++) yr[i] = xr[i] - sub;
      } else {
        for (int64_t i = 0; i < n; i++) yr[i] = nn_exp(xr[i] - mx);
        T inv = T(1) / lane_sum<T>(n, [&](int64_t i) { return yr[i]; });
        for (int64_t i = 0; i < n; i++) yr[i] *= inv;
      }
    });
    return;
  }
  for_blocks(r, [&](int64_t o, int64_t c0, int64_t c1) {
    int64_t m = c1 - c0, st = r.inner;
    const T* xb = x + o * r.n * r.inner + c0;
    T* yb = y + o * r.n * r.inner + c0;
    T mx[kCols];
    A sum[kCols];
    for (int64_t c = 0; c < m; c++) mx[c] = -std::numeric_limits<T>::infinity(), sum[c] = 0;
    for (int64_t i = 0; i < r.n; i++)
      for (int64_t c = 0; c < m; c++) {
        T v = xb[i * st + c];
        mx[c] = (v > mx[c] || std::isnan(v)) ? v : mx[c];
      }
    for (int64_t i = 0; i < r.n; i++)
      for (int64_t c = 0; c < m; c++) {
        T e = nn_exp(xb[i * st + c] - mx[c]);
        sum[c] += A(e);
        if (!log) yb[i * st + c] = e;
      }
    if (log) {
      T sub[kCols];
      for (int64_t c = 0; c < m; c++) sub[c] = mx[c] + T(std::log(sum[c]));
      for (int64_t i = 0; i < r.n; i++)
        for (int64_t c = 0; c < m; c++) yb[i * st + c] = xb[i * st + c] - sub[c];
    } else {
      T inv[kCols];
      for (int64_t c = 0; c < m; c++) inv[c] = T(1.0 / sum[c]);
      for (int64_t i = 0; i < r.n; i++)
        for (int64_t c = 0; c < m; c++) yb[i * st + c] *= inv[c];
    }
  });
}

template <class T>
void softmax_backward_kernel(const RowShape& r, const T* g, const T* y, T* gx, bool log) {
  using A = double;
  int64_t n = r.n;
  if (r.inner == 1) {
    for_rows(r, [&](int64_t off) {
      const T *gr = g + off, *yr = y + off;
      T* o = gx + off;
      if (log) {
        T s = lane_sum<T>(n, [&](int64_t i) { return gr[i]; });
        for (int64_t i = 0; i < n; i++) o[i] = gr[i] - nn_exp(yr[i]) * s;
      } else {
        T s = lane_sum<T>(n, [&](int64_t i) { return gr[i] * yr[i]; });
        for (int64_t i = 0; i < n; i++) o[i] = yr[i] * (gr[i] - s);
      }
    });
    return;
  }
  for_blocks(r, [&](int64_t o, int64_t c0, int64_t c1) {
    int64_t m = c1 - c0, st = r.inner, base = o * r.n * r.inner + c0;
    const T *gb = g + base, *yb = y + base;
    T* ob = gx + base;
    A acc[kCols];
    for (int64_t c = 0; c < m; c++) acc[c] = 0;
    for (int64_t i = 0; i < r.n; i++)
      for (int64_t c = 0; c < m; c++)
        acc[c] += log ? A(gb[i * st + c]) : A(gb[i * st + c]) * A(yb[i * st + c]);
    T s[kCols];
    for (int64_t c = 0; c < m; c++) s[c] = T(acc[c]);
    for (int64_t i = 0; i < r.n; i++)
      for (int64_t c = 0; c < m; c++) {
        int64_t k = i * st + c;
        ob[k] = log ? gb[k] - nn_exp(yb[k]) * s[c] : yb[k] * (gb[k] - s[c]);
      }
  });
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  check_float(x, op);
  RowShape r = row_shape(x, dim, op);
  Tensor xc = contiguous(x), y = empty(x.sizes(), x.dtype());
  if (x.numel() == 0) return y;
  if (x.dtype() == ScalarType::Float)
    softmax_kernel<float>(r, xc.data_as<float>(), y.data_as<float>(), log);
  else
    softmax_kernel<double>(r, xc.data_as<double>(), y.data_as<double>(), log);
  return y;
}

Tensor softmax_backward(const Tensor& g, const Tensor& y, int64_t dim, bool log) {
  const char* op = log ? "log_softmax_backward" : "softmax_backward";
  check_float(g, op, "grad");
  TC_CHECK(g.dtype() == y.dtype() && g.sizes() == y.sizes(), Runtime, op,
           "(): grad and output must have the same shape and dtype, got ", dtype_name(g.dtype()),
           " ", shape_str(g.sizes()), " and ", dtype_name(y.dtype()), " ", shape_str(y.sizes()));
  RowShape r = row_shape(y, dim, op);
  Tensor gc = contiguous(g), yc = contiguous(y), gx = empty(y.sizes(), y.dtype());
  if (y.numel() == 0) return gx;
  if (y.dtype() == ScalarType::Float)
    softmax_backward_kernel<float>(r, gc.data_as<float>(), yc.data_as<float>(), gx.data_as<float>(),
                                   log);
  else
    softmax_backward_kernel<double>(r, gc.data_as<double>(), yc.data_as<double>(),
                                    gx.data_as<double>(), log);
  return gx;
}

}  // namespace tc
