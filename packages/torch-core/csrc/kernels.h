// kernels.h — helpers for writing CPU kernels: each op is one small functor template
// F<A> (A = the compute type; float for 16-bit floats), constructed from the iterator's
// scalar arguments; reg_* instantiates its kernel per dtype and registers it.
#pragma once
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "iter.h"

namespace tc {

// Set by a kernel that met an input it cannot compute (integer division by zero);
// run_elementwise turns it into an exception after the parallel loop.
enum class KernelError : int { None = 0, IntDivByZero, NegativeIntPower };
extern std::atomic<int> g_kernel_error;
inline void flag_kernel_error(KernelError e) {
  g_kernel_error.store(int(e), std::memory_order_relaxed);
}

// exp for float32 written so the compiler vectorises it: 2^k * p(r), r = x - k ln2,
// |r| <= ln2/2, p a degree-6 Taylor polynomial (error < 2 ulp). Out-of-range inputs
// saturate to 0 or inf; NaN passes through. Every float32 exp of the kernels is this one.
[[gnu::always_inline]] inline float fast_expf(float x) {
  const float log2e = 1.44269504f, ln2_hi = 0.693359375f, ln2_lo = -2.12194440e-4f;
  float xc = x < -104.0f ? -104.0f : (x > 89.0f ? 89.0f : x);
  float k = (xc * log2e + 12582912.0f) - 12582912.0f;  // round to nearest
  float r = (xc - k * ln2_hi) - k * ln2_lo;
  float p = 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^k in two factors so that results in the subnormal range stay exact
  int ki = int(k), k1 = ki / 2, k2 = ki - k1;
  uint32_t b1 = uint32_t(k1 + 127) << 23, b2 = uint32_t(k2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, 4);
  std::memcpy(&s2, &b2, 4);
  float y = p * s1 * s2;
  y = x > 88.7228391f ? std::numeric_limits<float>::infinity() : y;
  y = x < -103.972084f ? 0.0f : y;
  return x != x ? x : y;
}

// tanh for float32, branch-free (vectorises): for |x| < 0.4 its odd Taylor series to x^13
// (truncation < 1e-9 relative), else sign(x) (1 - 2 / (e^(2|x|) + 1)) with fast_expf (no
// cancellation there: the fraction is below 0.62). Saturates to +-1; NaN passes through.
// always_inline: also into the loops' per-CPU clones (TC_MULTIVERSION), where GCC would
// otherwise call it and not vectorise.
[[gnu::always_inline]] inline float fast_tanhf(float x) {
  const float a = x < 0 ? -x : x, z = x * x;
  float p = 21844.0f / 6081075;
  p = p * z - 1382.0f / 155925;
  p = p * z + 62.0f / 2835;
  p = p * z - 17.0f / 315;
  p = p * z + 2.0f / 15;
  p = p * z - 1.0f / 3;
  const float small = x * (1.0f + z * p);  // keeps the sign of -0.0
  float big = 1.0f - 2.0f / (fast_expf(2.0f * a) + 1.0f);
  big = x < 0 ? -big : big;
  const float r = a < 0.4f ? small : big;
  return x != x ? x : r;
}

// Bits of a float and back (vectorises: a register move).
[[gnu::always_inline]] inline uint32_t float_bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
[[gnu::always_inline]] inline float bits_float(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

// log for float32, branch-free: x = 2^e m with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s)
// with s = (m - 1) / (m + 1), |s| < 0.172, by its odd series to s^13 (truncation < 1e-10
// relative); e ln2 is added in two parts. Subnormals are scaled by 2^23 first. Within 2 ulp
// (tests/test_fast_transcendentals.py measures it); log(0) = -inf, log(<0) = NaN.
[[gnu::always_inline]] inline float fast_logf(float x) {
  const float ln2_hi = 0.693359375f, ln2_lo = -2.12194440e-4f;
  const bool sub = x < 1.17549435e-38f;
  const uint32_t u = float_bits(sub ? x * 8388608.0f : x);
  int e = int((u >> 23) & 0xff) - (sub ? 150 : 127);
  float m = bits_float((u & 0x007fffffu) | 0x3f800000u);  // [1, 2)
  const bool high = m > 1.41421356f;
  m = high ? m * 0.5f : m;
  e += high ? 1 : 0;
  const float f = m - 1.0f, s = f / (2.0f + f), z = s * s;
  float p = 2.0f / 13;
  p = p * z + 2.0f / 11;
  p = p * z + 2.0f / 9;
  p = p * z + 2.0f / 7;
  p = p * z + 2.0f / 5;
  p = p * z + 2.0f / 3;
  const float ef = float(e);
  float r = ef * ln2_hi + (ef * ln2_lo + (f - s * (f - z * p)));  // 2s(1 + z p/2) = f - s(f - z p)
  r = x == 0.0f ? -std::numeric_limits<float>::infinity() : r;
  r = x == std::numeric_limits<float>::infinity() ? x : r;
  return x < 0.0f || x != x ? std::numeric_limits<float>::quiet_NaN() : r;
}

// expm1 for float32: x = k ln2 + r, |r| <= ln2/2, expm1(x) = 2^k expm1(r) + (2^k - 1) with
// expm1(r) by its Taylor series to r^9 (truncation < 1e-9 relative): no cancellation for
// small x, within 3 ulp overall. Beyond 60 it is exp(x) (the -1 is lost), below -20 it is -1.
[[gnu::always_inline]] inline float fast_expm1f(float x) {
  const float log2e = 1.44269504f, ln2_hi = 0.693359375f, ln2_lo = -2.12194440e-4f;
  const float xc = x < -20.0f ? -20.0f : (x > 60.0f ? 60.0f : x);
  const float k = (xc * log2e + 12582912.0f) - 12582912.0f;  // round to nearest
  const float r = (xc - k * ln2_hi) - k * ln2_lo;
  float p = 1.0f / 362880;
  p = p * r + 1.0f / 40320;
  p = p * r + 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  const float em1 = r + r * (r * p);
  const float two_k = bits_float(uint32_t(int(k) + 127) << 23);
  float y = two_k * em1 + (two_k - 1.0f);
  y = x > 60.0f ? fast_expf(x) : y;
  y = x < -20.0f ? -1.0f : y;
  return x != x || x == 0.0f ? x : y;  // NaN, and -0.0 keeps its sign
}

// log1p for float32: log(u) x / (u - 1) with u = 1 + x, which cancels the rounding of u
// (u == 1: x itself); within 3 ulp.
[[gnu::always_inline]] inline float fast_log1pf(float x) {
  const float u = 1.0f + x, d = u - 1.0f;
  float r = fast_logf(u) * (x / (d == 0.0f ? 1.0f : d));
  r = d == 0.0f ? x : r;
  return x == std::numeric_limits<float>::infinity() ? x : r;
}

// 2^q for q in [-125, 1] (a normal result): 2^k p(f), k = round(q), |f| <= 1/2, p a degree-6
// minimax fit (relative error 2e-9); 2^k goes straight into p's exponent bits (no scaling).
[[gnu::always_inline]] inline float exp2_normalf(float q) {
  const float m = q + 12582912.0f, f = q - (m - 12582912.0f);  // m's low bits hold k
  float p = 1.53458081e-4f;
  p = p * f + 1.33999309e-3f;
  p = p * f + 9.61848907e-3f;
  p = p * f + 5.55032864e-2f;
  p = p * f + 2.40226462e-1f;
  p = p * f + 6.93147182e-1f;
  p = p * f + 1.0f;
  return bits_float(float_bits(p) + (float_bits(m) << 23));
}

// erf for float32 in one pass without division (both parts run on every SIMD lane, so
// each is short): |x| < 0.92: x + x R(x^2), R of degree 5; beyond, 1 - 2^Q(|x|) with Q a
// degree-6 fit of log2(erfc) on [0.92, 3.92] (weighted by erfc: its error is scaled by it),
// 1 beyond 3.92. Minimax fits made for this file; within 1.3 ulp over all float32 inputs
// (tests/test_fast_transcendentals.py). NaN takes the first part, which keeps it and -0.0.
[[gnu::always_inline]] inline float fast_erff(float x) {
  const float a = x < 0 ? -x : x, s = x * x;
  float r = -5.9995451e-4f;
  r = r * s + 4.99486271e-3f;
  r = r * s - 2.67677475e-2f;
  r = r * s + 1.12818472e-1f;
  r = r * s - 3.76124978e-1f;
  r = r * s + 1.28379151e-1f;
  const float t = a < 3.92f ? a : 3.92f;
  float q = 2.81248649e-4f;
  q = q * t - 4.37669223e-3f;
  q = q * t + 3.20130773e-2f;
  q = q * t - 1.49833068e-1f;
  q = q * t - 9.19380128e-1f;
  q = q * t - 1.62682247f;
  q = q * t - 2.9865079e-4f;
  const float big = 1.0f - exp2_normalf(q);
  return a >= 0.92f ? (x < 0 ? -big : big) : x + x * r;
}

// The normal distribution's cdf Phi(x) = (1 + erf(x / sqrt 2)) / 2, for gelu (x Phi(x)) and
// its gradient, as fast_erff: 1/2 + x R(x^2) for |x| < 1.3; beyond, Phi(-|x|) = 2^Q(|x|),
// Q a degree-7 fit of log2 Phi(-t) on [1.3, 5.5] (so the lower tail keeps its relative
// precision, where 1 + erf would cancel), 0 below -5.5, and 1 - Phi(-x) above 1.3.
[[gnu::always_inline]] inline float fast_gelu_cdff(float x) {
  const float a = x < 0 ? -x : x, s = x * x;
  float r = -6.50233915e-6f;
  r = r * s + 1.09778397e-4f;
  r = r * s - 1.18196302e-3f;
  r = r * s + 9.97107755e-3f;
  r = r * s - 6.64898977e-2f;
  r = r * s + 3.98942262e-1f;
  const float t = a < 5.5f ? a : 5.5f;
  float q = -1.85379645e-6f;
  q = q * t + 6.10441202e-5f;
  q = q * t - 9.14455799e-4f;
  q = q * t + 8.36485717e-3f;
  q = q * t - 5.33483513e-2f;
  q = q * t - 4.59822327e-1f;
  q = q * t - 1.14976478f;
  q = q * t - 1.0006206f;
  const float lo = a > 5.5f ? 0.0f : exp2_normalf(q);
  return a >= 1.3f ? (x < 0 ? lo : 1.0f - lo) : 0.5f + x * r;
}

// exp for float64, branch-free as fast_expf: 2^k e^r, |r| <= ln2/2, ln2 in two parts (the
// high part has 32 significant bits, so k ln2_hi is exact), e^r by its Taylor series to r^13
// (truncation < 4e-18 relative). Within 1 ulp of the exact value (measured in the tests).
[[gnu::always_inline]] inline double fast_expd(double x) {
  const double log2e = 1.4426950408889634, ln2_hi = 0.6931471803691238,
               ln2_lo = 1.9082149292705877e-10;
  double xc = x < -746.0 ? -746.0 : (x > 710.0 ? 710.0 : x);
  double k = (xc * log2e + 6755399441055744.0) - 6755399441055744.0;  // round to nearest
  double r = (xc - k * ln2_hi) - k * ln2_lo;
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // 2^k in two factors so that results in the subnormal range stay exact
  int64_t ki = int64_t(k), k1 = ki / 2, k2 = ki - k1;
  uint64_t b1 = uint64_t(k1 + 1023) << 52, b2 = uint64_t(k2 + 1023) << 52;
  double s1, s2;
  std::memcpy(&s1, &b1, 8);
  std::memcpy(&s2, &b2, 8);
  double y = p * s1 * s2;
  y = x > 709.782712893384 ? std::numeric_limits<double>::infinity() : y;
  y = x < -745.1332191019412 ? 0.0 : y;
  return x != x ? x : y;
}

// log for float64, as fast_logf: x = 2^e m, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s),
// s = (m - 1) / (m + 1), by its odd series to s^23 (truncation < 3e-17 relative).
[[gnu::always_inline]] inline double fast_logd(double x) {
  const double ln2_hi = 0.6931471803691238, ln2_lo = 1.9082149292705877e-10;
  const bool sub = x < 2.2250738585072014e-308;
  double xs = sub ? x * 18014398509481984.0 : x;  // 2^54
  uint64_t u;
  std::memcpy(&u, &xs, 8);
  int64_t e = int64_t((u >> 52) & 0x7ff) - (sub ? 1077 : 1023);
  uint64_t mu = (u & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
  double m;
  std::memcpy(&m, &mu, 8);
  const bool high = m > 1.4142135623730951;
  m = high ? m * 0.5 : m;
  e += high ? 1 : 0;
  const double f = m - 1.0, sd = f / (2.0 + f), z = sd * sd;
  double p = 2.0 / 23;
  p = p * z + 2.0 / 21;
  p = p * z + 2.0 / 19;
  p = p * z + 2.0 / 17;
  p = p * z + 2.0 / 15;
  p = p * z + 2.0 / 13;
  p = p * z + 2.0 / 11;
  p = p * z + 2.0 / 9;
  p = p * z + 2.0 / 7;
  p = p * z + 2.0 / 5;
  p = p * z + 2.0 / 3;
  const double ef = double(e);
  double r = ef * ln2_hi + (ef * ln2_lo + (f - sd * (f - z * p)));
  r = x == 0.0 ? -std::numeric_limits<double>::infinity() : r;
  r = x == std::numeric_limits<double>::infinity() ? x : r;
  return x < 0.0 || x != x ? std::numeric_limits<double>::quiet_NaN() : r;
}

template <class A>
inline A gelu_cdf_libm(A x) {  // the other types' Phi(x), through libm's erf
  return A(0.5) * (A(1) + std::erf(x * A(0.70710678118654752440)));
}

// float32 and float64 go through the polynomial kernels above where there is one; other
// types (and float64 without one) through libm.
#define TC_FAST_FN(name, f32, f64, other)         \
  template <class A>                              \
  [[gnu::always_inline]] inline A name(A x) {     \
    if constexpr (std::is_same_v<A, float>)       \
      return f32(x);                              \
    else if constexpr (std::is_same_v<A, double>) \
      return f64(x);                              \
    else                                          \
      return other(x);                            \
  }
TC_FAST_FN(fast_exp, fast_expf, fast_expd, std::exp)
TC_FAST_FN(fast_log, fast_logf, fast_logd, std::log)
TC_FAST_FN(fast_tanh, fast_tanhf, std::tanh, std::tanh)
TC_FAST_FN(fast_log1p, fast_log1pf, std::log1p, std::log1p)
TC_FAST_FN(fast_expm1, fast_expm1f, std::expm1, std::expm1)
TC_FAST_FN(fast_erf, fast_erff, std::erf, std::erf)
TC_FAST_FN(fast_gelu_cdf, fast_gelu_cdff, gelu_cdf_libm, gelu_cdf_libm)
#undef TC_FAST_FN

template <class T, template <class> class F>
struct unary_kernel {
  static void run(ElementwiseIter& it) {
    F<typename AccOf<T>::type> f(it.args);
    it.for_each([&](char** d, const int64_t* s, int64_t n) { unary_loop<T>(d, s, n, f); });
  }
};
template <class T, template <class> class F>
struct predicate_kernel {
  static void run(ElementwiseIter& it) {
    F<typename AccOf<T>::type> f(it.args);
    it.for_each([&](char** d, const int64_t* s, int64_t n) { unary_loop<T, bool>(d, s, n, f); });
  }
};
template <class T, template <class> class F>
struct binary_kernel {
  static void run(ElementwiseIter& it) {
    F<typename AccOf<T>::type> f(it.args);
    it.for_each([&](char** d, const int64_t* s, int64_t n) { binary_loop<T>(d, s, n, f); });
  }
};
template <class T, template <class> class F>
struct compare_kernel {
  static void run(ElementwiseIter& it) {
    F<typename AccOf<T>::type> f(it.args);
    it.for_each([&](char** d, const int64_t* s, int64_t n) { binary_loop<T, bool>(d, s, n, f); });
  }
};
template <class T, template <class> class F>
struct ternary_kernel {
  static void run(ElementwiseIter& it) {
    F<typename AccOf<T>::type> f(it.args);
    it.for_each([&](char** d, const int64_t* s, int64_t n) { ternary_loop<T>(d, s, n, f); });
  }
};

// The one way kernels are registered: make(T()) gives the kernel for dtype T, for each of
// Ts; TC_KERNEL(fn) makes it from a function template fn<T>.
//   reg_each<float, double>(Op::softmax, TC_KERNEL(softmax_cpu));
template <class... Ts, class Make>
void reg_each(Op op, const Make& make, DeviceType dev = DeviceType::CPU) {
  (register_kernel(op, dev, DTypeOf<Ts>::value, make(Ts())), ...);
}
#define TC_KERNEL(fn) [](auto t) { return (void*)&fn<decltype(t)>; }

// The elementwise kernels: the loop K (unary_kernel, binary_kernel, ...) around functor F.
template <template <class, template <class> class> class K, template <class> class F, class... Ts>
void reg(Op op) {
  reg_each<Ts...>(op, [](auto t) { return (void*)&K<decltype(t), F>::run; });
}

// dtype lists
#define TC_FLOATS ::tc::Half, ::tc::BFloat16, float, double
#define TC_INTS uint8_t, int8_t, int16_t, int32_t, int64_t
#define TC_NUMERIC TC_INTS, TC_FLOATS
#define TC_ALL bool, TC_NUMERIC
#define TC_COMPLEX ::tc::c64, ::tc::c128

// Functors are inlined into every loop version (GCC may otherwise call them out of line from
// the contiguous loop of a large kernel, which then does not vectorise).
#define TC_INLINE [[gnu::always_inline]] inline

// A functor without scalar arguments: TC_FN1(Name, expr in x) / TC_FN2(Name, expr in x, y)
#define TC_FN1(Name, ...)                                        \
  template <class A>                                             \
  struct Name {                                                  \
    explicit Name(const Scalar*) {}                              \
    TC_INLINE A operator()(A x) const { return A(__VA_ARGS__); } \
  };
#define TC_FN2(Name, ...)                                             \
  template <class A>                                                  \
  struct Name {                                                       \
    explicit Name(const Scalar*) {}                                   \
    TC_INLINE A operator()(A x, A y) const { return A(__VA_ARGS__); } \
  };
#define TC_PRED1(Name, ...)                                      \
  template <class A>                                             \
  struct Name {                                                  \
    explicit Name(const Scalar*) {}                              \
    TC_INLINE bool operator()(A x) const { return __VA_ARGS__; } \
  };
#define TC_PRED2(Name, ...)                                           \
  template <class A>                                                  \
  struct Name {                                                       \
    explicit Name(const Scalar*) {}                                   \
    TC_INLINE bool operator()(A x, A y) const { return __VA_ARGS__; } \
  };

void register_unary_kernels();
void register_binary_kernels();
void register_misc_kernels();
void register_reduce_kernels();
void register_index_kernels();    // index.cpp
void register_shape_kernels();    // shape.cpp
void register_sort_kernels();     // sort.cpp
void register_linalg_kernels();   // linalg.cpp
void register_blas_kernels();     // blas.cpp
void register_nn_kernels();       // nn_*.cpp and conv.cpp
void register_random_kernels();   // random.cpp
void register_complex_kernels();  // complex.cpp

}  // namespace tc
