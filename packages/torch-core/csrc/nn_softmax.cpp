// nn_softmax.cpp — softmax and log_softmax along a dim, and their backward.
//
// The input is seen as (outer, n, inner) with n the softmax dim. Rows with inner == 1 are
// contiguous and handled one at a time; otherwise a block of up to kCols columns of one
// outer index is processed together, each pass running along the contiguous inner dim.
// The max is subtracted before exp, so large inputs do not overflow.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "nn_kernels.h"
#include "vecmath.h"

namespace tc {

namespace {

constexpr int64_t kCols = 256;

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

// Rows of n contiguous values (inner == 1), in groups of about kGroup values: the group's
// shifted values x - max first, then one exp over the whole group (glibc's vector expf for
// float: 2x the own polynomial), then each row's sum and scaling. Short rows (attention's
// 64) thus pay for one call per group, not per row. TC_MULTIVERSION: also for AVX2 machines.
constexpr int64_t kGroup = 4096;

template <class T>
TC_MULTIVERSION void softmax_rows(const T* __restrict x, T* __restrict y, int64_t rows, int64_t n,
                                  bool log) {
  static const VecMath vexp = find_vec_math<T>("exp");
  const bool vec = std::is_same_v<T, float> && vexp.fn;
  const int64_t per = std::max<int64_t>(1, kGroup / n);
  T mx[kGroup], sums[kGroup];  // each row's max and (log-softmax) sum of exps
  for (int64_t r0 = 0; r0 < rows; r0 += per) {
    const int64_t m = std::min(per, rows - r0);
    const T* xg = x + r0 * n;
    T* yg = y + r0 * n;
    for (int64_t r = 0; r < m; r++) {
      const T* xr = xg + r * n;
      T* yr = yg + r * n;
      const T mr = mx[r] = lane_max(xr, n);
      if (vec)
        for (int64_t i = 0; i < n; i++) yr[i] = xr[i] - mr;
      else
        for (int64_t i = 0; i < n; i++) yr[i] = fast_exp(xr[i] - mr);
    }
    if (vec) vec_apply(vexp, yg, yg, m * n);
    for (int64_t r = 0; r < m; r++) {
      T* yr = yg + r * n;
      T s = lane_sum<T>(n, [&](int64_t i) { return yr[i]; });
      if (log) {
        sums[r] = s;
      } else {
        T inv = T(1) / s;
        for (int64_t i = 0; i < n; i++) yr[i] *= inv;
      }
    }
    if (!log) continue;
    // the rows' logs in one vectorised loop (short rows, a classifier's 10 scores, spent most
    // of their time in one scalar log call each); then (x - max) - log(sum): max + log(sum)
    // would round away the log near 3e38
    for (int64_t r = 0; r < m; r++) sums[r] = fast_log(sums[r]);
    for (int64_t r = 0; r < m; r++) {
      const T* xr = xg + r * n;
      T* yr = yg + r * n;
      const T mr = mx[r], ls = sums[r];
      for (int64_t i = 0; i < n; i++) yr[i] = (xr[i] - mr) - ls;
    }
  }
}

// float32 rows on AVX-512: each row's max, exp(x - max) with its sum, and the scaling in
// 16-float registers (a masked tail), the lanes folded by the reduce instructions. Rows of a
// transformer's attention (64 values) spent more on the generic loops' lane folds than on
// their values. exp is fast_expf's polynomial (2 ulp), 2^k applied by vscalefps. NaN in a
// row makes the whole row NaN (through its exp and sum), as in the generic loops.
#define TC_AVX512 __attribute__((target("avx512f"), always_inline)) inline
TC_AVX512 __m512 exp16(__m512 x) {
  const __m512 xc = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-104.0f)), _mm512_set1_ps(89.0f));
  const __m512 k = _mm512_roundscale_ps(_mm512_mul_ps(xc, _mm512_set1_ps(1.44269504f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(k, _mm512_set1_ps(0.693359375f), xc);
  r = _mm512_fnmadd_ps(k, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.0f / 720);
  for (float c : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f})
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(c));
  const __m512 y = _mm512_scalef_ps(p, k);  // p * 2^k, overflowing to inf, subnormal below
  return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);  // NaN stays
}

__attribute__((target("avx512f"))) void softmax_rows_avx512(const float* x, float* y, int64_t rows,
                                                            int64_t n, bool log) {
  const int64_t full = n / 16 * 16;
  const __mmask16 tail = __mmask16((1u << (n - full)) - 1);
  for (int64_t r = 0; r < rows; r++) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    __m512 m = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    for (int64_t i = 0; i < full; i += 16) m = _mm512_max_ps(m, _mm512_loadu_ps(xr + i));
    if (tail) m = _mm512_mask_max_ps(m, tail, m, _mm512_maskz_loadu_ps(tail, xr + full));
    const __m512 mx = _mm512_set1_ps(_mm512_reduce_max_ps(m));
    __m512 s = _mm512_setzero_ps();
    for (int64_t i = 0; i < full; i += 16) {
      const __m512 e = exp16(_mm512_sub_ps(_mm512_loadu_ps(xr + i), mx));
      if (!log) _mm512_storeu_ps(yr + i, e);
      s = _mm512_add_ps(s, e);
    }
    if (tail) {
      const __m512 e = exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(tail, xr + full), mx));
      if (!log) _mm512_mask_storeu_ps(yr + full, tail, e);
      s = _mm512_mask_add_ps(s, tail, s, e);
    }
    const float sum = _mm512_reduce_add_ps(s);
    if (log) {  // (x - max) - log(sum)
      const __m512 ls = _mm512_set1_ps(std::log(sum));
      for (int64_t i = 0; i < full; i += 16)
        _mm512_storeu_ps(yr + i, _mm512_sub_ps(_mm512_sub_ps(_mm512_loadu_ps(xr + i), mx), ls));
      if (tail)
        _mm512_mask_storeu_ps(
            yr + full, tail,
            _mm512_sub_ps(_mm512_sub_ps(_mm512_maskz_loadu_ps(tail, xr + full), mx), ls));
    } else {
      const __m512 inv = _mm512_set1_ps(1.0f / sum);
      for (int64_t i = 0; i < full; i += 16)
        _mm512_storeu_ps(yr + i, _mm512_mul_ps(_mm512_loadu_ps(yr + i), inv));
      if (tail)
        _mm512_mask_storeu_ps(yr + full, tail,
                              _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, yr + full), inv));
    }
  }
}

// g - exp(y) s (log_softmax), or y (g - s)
TC_AVX512 __m512 grad16(__m512 g, __m512 y, __m512 s, bool log) {
  return log ? _mm512_fnmadd_ps(exp16(y), s, g) : _mm512_mul_ps(y, _mm512_sub_ps(g, s));
}

// softmax_grad_row for float32 rows on AVX-512 (the same lane folds by reduce instructions)
__attribute__((target("avx512f"))) void softmax_grad_rows_avx512(const float* g, const float* y,
                                                                 float* o, int64_t rows, int64_t n,
                                                                 bool log) {
  const int64_t full = n / 16 * 16;
  const __mmask16 tail = __mmask16((1u << (n - full)) - 1);
  for (int64_t r = 0; r < rows; r++) {
    const float *gr = g + r * n, *yr = y + r * n;
    float* orow = o + r * n;
    __m512 s = _mm512_setzero_ps();
    for (int64_t i = 0; i < full; i += 16) {
      const __m512 gv = _mm512_loadu_ps(gr + i);
      s = log ? _mm512_add_ps(s, gv) : _mm512_fmadd_ps(gv, _mm512_loadu_ps(yr + i), s);
    }
    if (tail) {
      const __m512 gv = _mm512_maskz_loadu_ps(tail, gr + full);
      s = log ? _mm512_add_ps(s, gv)
              : _mm512_fmadd_ps(gv, _mm512_maskz_loadu_ps(tail, yr + full), s);
    }
    const __m512 sv = _mm512_set1_ps(_mm512_reduce_add_ps(s));
    for (int64_t i = 0; i < full; i += 16)
      _mm512_storeu_ps(orow + i, grad16(_mm512_loadu_ps(gr + i), _mm512_loadu_ps(yr + i), sv, log));
    if (tail)
      _mm512_mask_storeu_ps(orow + full, tail,
                            grad16(_mm512_maskz_loadu_ps(tail, gr + full),
                                   _mm512_maskz_loadu_ps(tail, yr + full), sv, log));
  }
}

// The same two row kernels on AVX2 + FMA machines (8-float registers; the tail's lanes come
// from maskload, the masked ones -inf for the max and 0 for the sums). exp8 is exp16's
// polynomial, so both machines give the same numbers; 2^k is two exponent-field factors
// 2^(k/2) 2^(k - k/2), each a normal float for every k of the clamped range [-150, 128], so
// results underflow to subnormals and overflow to inf as vscalefps makes them.
#define TC_AVX2 __attribute__((target("avx2,fma"), always_inline)) inline
TC_AVX2 __m256 exp8(__m256 x) {
  const __m256 xc = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-104.0f)), _mm256_set1_ps(89.0f));
  const __m256 k = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693359375f), xc);
  r = _mm256_fnmadd_ps(k, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.0f / 720);
  for (float c : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f})
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(c));
  const __m256i ki = _mm256_cvtps_epi32(k), k1 = _mm256_srai_epi32(ki, 1);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 f1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(k1, bias), 23));
  const __m256 f2 =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(ki, k1), bias), 23));
  const __m256 y = _mm256_mul_ps(_mm256_mul_ps(p, f1), f2);
  return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));  // NaN stays
}
TC_AVX2 float hmax8(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  return _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
}
TC_AVX2 float hsum8(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}
TC_AVX2 __m256i tail_mask8(int64_t count) {  // the first count (0..7) lanes set
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(count)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

__attribute__((target("avx2,fma"))) void softmax_rows_avx2(const float* x, float* y, int64_t rows,
                                                           int64_t n, bool log) {
  const int64_t full = n / 8 * 8;
  const bool has_tail = full < n;
  const __m256i tail = tail_mask8(n - full);
  const __m256 ninf = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
  for (int64_t r = 0; r < rows; r++) {
    const float* xr = x + r * n;
    float* yr = y + r * n;
    __m256 m = ninf;
    for (int64_t i = 0; i < full; i += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(xr + i));
    if (has_tail)
      m = _mm256_max_ps(m, _mm256_blendv_ps(ninf, _mm256_maskload_ps(xr + full, tail),
                                            _mm256_castsi256_ps(tail)));
    const __m256 mx = _mm256_set1_ps(hmax8(m));  // a NaN's exp makes its row NaN below
    __m256 s = _mm256_setzero_ps();
    for (int64_t i = 0; i < full; i += 8) {
      const __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(xr + i), mx));
      if (!log) _mm256_storeu_ps(yr + i, e);
      s = _mm256_add_ps(s, e);
    }
    if (has_tail) {
      const __m256 e = _mm256_and_ps(exp8(_mm256_sub_ps(_mm256_maskload_ps(xr + full, tail), mx)),
                                     _mm256_castsi256_ps(tail));
      if (!log) _mm256_maskstore_ps(yr + full, tail, e);
      s = _mm256_add_ps(s, e);
    }
    const float sum = hsum8(s);
    if (log) {  // (x - max) - log(sum)
      const __m256 ls = _mm256_set1_ps(std::log(sum));
      for (int64_t i = 0; i < full; i += 8)
        _mm256_storeu_ps(yr + i, _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(xr + i), mx), ls));
      if (has_tail)
        _mm256_maskstore_ps(
            yr + full, tail,
            _mm256_sub_ps(_mm256_sub_ps(_mm256_maskload_ps(xr + full, tail), mx), ls));
    } else {
      const __m256 inv = _mm256_set1_ps(1.0f / sum);
      for (int64_t i = 0; i < full; i += 8)
        _mm256_storeu_ps(yr + i, _mm256_mul_ps(_mm256_loadu_ps(yr + i), inv));
      if (has_tail)
        _mm256_maskstore_ps(yr + full, tail,
                            _mm256_mul_ps(_mm256_maskload_ps(yr + full, tail), inv));
    }
  }
}

TC_AVX2 __m256 grad8(__m256 g, __m256 y, __m256 s, bool log) {
  return log ? _mm256_fnmadd_ps(exp8(y), s, g) : _mm256_mul_ps(y, _mm256_sub_ps(g, s));
}

__attribute__((target("avx2,fma"))) void softmax_grad_rows_avx2(const float* g, const float* y,
                                                                float* o, int64_t rows, int64_t n,
                                                                bool log) {
  const int64_t full = n / 8 * 8;
  const bool has_tail = full < n;
  const __m256i tail = tail_mask8(n - full);
  for (int64_t r = 0; r < rows; r++) {
    const float *gr = g + r * n, *yr = y + r * n;
    float* orow = o + r * n;
    __m256 s = _mm256_setzero_ps();
    for (int64_t i = 0; i < full; i += 8) {
      const __m256 gv = _mm256_loadu_ps(gr + i);
      s = log ? _mm256_add_ps(s, gv) : _mm256_fmadd_ps(gv, _mm256_loadu_ps(yr + i), s);
    }
    if (has_tail) {
      const __m256 gv = _mm256_maskload_ps(gr + full, tail);
      s = log ? _mm256_add_ps(s, gv) : _mm256_fmadd_ps(gv, _mm256_maskload_ps(yr + full, tail), s);
    }
    const __m256 sv = _mm256_set1_ps(hsum8(s));
    for (int64_t i = 0; i < full; i += 8)
      _mm256_storeu_ps(orow + i, grad8(_mm256_loadu_ps(gr + i), _mm256_loadu_ps(yr + i), sv, log));
    if (has_tail)
      _mm256_maskstore_ps(
          orow + full, tail,
          grad8(_mm256_maskload_ps(gr + full, tail), _mm256_maskload_ps(yr + full, tail), sv, log));
  }
}

bool has_avx2_fma() {
  static const bool yes =
      (__builtin_cpu_init(), __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
  return yes;
}

// m <= kCols columns (stride st between rows) of n rows.
template <class T>
TC_MULTIVERSION void softmax_block(const T* __restrict x, T* __restrict y, int64_t n, int64_t m,
                                   int64_t st, bool log) {
  T mx[kCols], sum[kCols];
  for (int64_t c = 0; c < m; c++) mx[c] = -std::numeric_limits<T>::infinity(), sum[c] = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t c = 0; c < m; c++) {
      T v = x[i * st + c];
      mx[c] = (v > mx[c] || v != v) ? v : mx[c];
    }
  for (int64_t i = 0; i < n; i++)
    for (int64_t c = 0; c < m; c++) {
      T e = fast_exp(x[i * st + c] - mx[c]);
      y[i * st + c] = e;
      sum[c] += e;
    }
  if (log)
    for (int64_t c = 0; c < m; c++) sum[c] = std::log(sum[c]);
  else
    for (int64_t c = 0; c < m; c++) sum[c] = T(1) / sum[c];
  for (int64_t i = 0; i < n; i++)
    for (int64_t c = 0; c < m; c++)
      y[i * st + c] = log ? (x[i * st + c] - mx[c]) - sum[c] : y[i * st + c] * sum[c];
}

// softmax: y * (g - sum(g * y)); log_softmax: g - exp(y) * sum(g)
template <class T>
TC_MULTIVERSION void softmax_grad_row(const T* __restrict g, const T* __restrict y, T* __restrict o,
                                      int64_t n, bool log) {
  if (log) {
    T s = lane_sum<T>(n, [&](int64_t i) { return g[i]; });
    for (int64_t i = 0; i < n; i++) o[i] = g[i] - fast_exp(y[i]) * s;
  } else {
    T s = lane_sum<T>(n, [&](int64_t i) { return g[i] * y[i]; });
    for (int64_t i = 0; i < n; i++) o[i] = y[i] * (g[i] - s);
  }
}

template <class T>
TC_MULTIVERSION void softmax_grad_block(const T* __restrict g, const T* __restrict y,
                                        T* __restrict o, int64_t n, int64_t m, int64_t st,
                                        bool log) {
  T s[kCols];
  for (int64_t c = 0; c < m; c++) s[c] = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t c = 0; c < m; c++) s[c] += log ? g[i * st + c] : g[i * st + c] * y[i * st + c];
  for (int64_t i = 0; i < n; i++)
    for (int64_t c = 0; c < m; c++) {
      int64_t k = i * st + c;
      o[k] = log ? g[k] - fast_exp(y[k]) * s[c] : y[k] * (g[k] - s[c]);
    }
}

// contiguous rows (inner == 1)
template <class F>
void for_rows(const RowShape& r, const F& f) {
  int nt = r.outer > 1 && r.outer * r.n >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t o = 0; o < r.outer; o++) f(o * r.n);
}

// f(first row, rows) over the threads, one range of rows each
template <class F>
void for_row_ranges(const RowShape& r, const F& f) {
  int nt = r.outer > 1 && r.outer * r.n >= kGrain ? get_num_threads() : 1;
  nt = int(std::min<int64_t>(nt, r.outer));
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    const int t = omp_get_thread_num(), k = omp_get_num_threads();
    const int64_t o0 = r.outer * t / k, o1 = r.outer * (t + 1) / k;
    if (o1 > o0) f(o0, o1 - o0);
  }
}

template <class T>
void softmax_cpu(const RowShape& r, const Tensor& xt, const Tensor& yt, bool log) {
  const T* x = xt.data_as<T>();
  T* y = yt.data_as<T>();
  if (r.inner == 1) {
    for_row_ranges(r, [&](int64_t o, int64_t m) {
      if constexpr (std::is_same_v<T, float>)
        if (has_avx512()) return softmax_rows_avx512(x + o * r.n, y + o * r.n, m, r.n, log);
      if constexpr (std::is_same_v<T, float>)
        if (has_avx2_fma()) return softmax_rows_avx2(x + o * r.n, y + o * r.n, m, r.n, log);
      softmax_rows(x + o * r.n, y + o * r.n, m, r.n, log);
    });
    return;
  }
  for_blocks(r, [&](int64_t o, int64_t c0, int64_t c1) {
    int64_t off = o * r.n * r.inner + c0;
    softmax_block(x + off, y + off, r.n, c1 - c0, r.inner, log);
  });
}

template <class T>
void softmax_backward_cpu(const RowShape& r, const Tensor& gt, const Tensor& yt, const Tensor& gxt,
                          bool log) {
  const T *g = gt.data_as<T>(), *y = yt.data_as<T>();
  T* gx = gxt.data_as<T>();
  if (r.inner == 1) {
    if constexpr (std::is_same_v<T, float>)
      if (has_avx512())
        return for_row_ranges(r, [&](int64_t o, int64_t m) {
          softmax_grad_rows_avx512(g + o * r.n, y + o * r.n, gx + o * r.n, m, r.n, log);
        });
    if constexpr (std::is_same_v<T, float>)
      if (has_avx2_fma())
        return for_row_ranges(r, [&](int64_t o, int64_t m) {
          softmax_grad_rows_avx2(g + o * r.n, y + o * r.n, gx + o * r.n, m, r.n, log);
        });
    for_rows(r, [&](int64_t off) { softmax_grad_row(g + off, y + off, gx + off, r.n, log); });
    return;
  }
  for_blocks(r, [&](int64_t o, int64_t c0, int64_t c1) {
    int64_t off = o * r.n * r.inner + c0;
    softmax_grad_block(g + off, y + off, gx + off, r.n, c1 - c0, r.inner, log);
  });
}

}  // namespace

void register_softmax_kernels() {
  reg_each<float, double>(Op::softmax, TC_KERNEL(softmax_cpu));
  reg_each<float, double>(Op::softmax_backward, TC_KERNEL(softmax_backward_cpu));
}

Tensor softmax(const Tensor& x, int64_t dim, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  check_float(x, op);
  RowShape r = row_shape(x, dim, op);
  Tensor xc = contiguous(x), y = empty(x.sizes(), x.dtype(), x.device());
  if (x.numel() == 0) return y;
  find_kernel<SoftmaxFn>(Op::softmax, x.device(), x.dtype())(r, xc, y, log);
  return y;
}

Tensor softmax_backward(const Tensor& g, const Tensor& y, int64_t dim, bool log) {
  const char* op = log ? "log_softmax_backward" : "softmax_backward";
  check_float(g, op, "grad");
  TC_CHECK(g.dtype() == y.dtype() && g.sizes() == y.sizes(), Runtime, op,
           "(): grad and output must have the same shape and dtype, got ", dtype_name(g.dtype()),
           " ", shape_str(g.sizes()), " and ", dtype_name(y.dtype()), " ", shape_str(y.sizes()));
  RowShape r = row_shape(y, dim, op);
  Tensor gc = contiguous(g), yc = contiguous(y), gx = empty(y.sizes(), y.dtype(), y.device());
  if (y.numel() == 0) return gx;
  find_kernel<SoftmaxBackwardFn>(Op::softmax_backward, y.device(), y.dtype())(r, gc, yc, gx, log);
  return gx;
}

}  // namespace tc
