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

// tanh for float32, branch-free (vectorises): x P(x^2) / Q(x^2), a rational of degrees 11/8
// fitted (weighted least squares, Lawson's iteration) to tanh's relative error on [0, 9],
// where it is below 1.4e-9 (2.4e-8 with the coefficients rounded to float); x is clamped to
// [-9, 9] first, and beyond is +-1. Within 5.7 ulp of the exact value, 0.08 ulp on average
// (measured over every float32; the worst cases are the evaluation's rounding just below
// 1); P(0) = Q(0) = 1, so tiny x and -0.0 come back exactly. One division and ten
// multiply-adds: 3x glibc's vector tanhf on AVX2. torch.tanh's float32 kernel (eager and
// fused). NaN passes through (the clamp's comparisons are false for it). always_inline:
// also into the loops' per-CPU clones (TC_MULTIVERSION), where GCC would otherwise call it
// and not vectorise.
[[gnu::always_inline]] inline float rational_tanhf(float x) {
  const float c = x < -9.0f ? -9.0f : (x > 9.0f ? 9.0f : x), z = c * c;
  float p = -1.233590313e-11f;
  p = p * z + 3.077530764e-08f;
  p = p * z + 2.809056605e-05f;
  p = p * z + 3.872563597e-03f;
  p = p * z + 1.368332654e-01f;
  p = p * z + 1.0f;
  float q = 1.293046012e-06f;
  q = q * z + 3.946015786e-04f;
  q = q * z + 2.726143971e-02f;
  q = q * z + 4.701665938e-01f;
  q = q * z + 1.0f;
  const float r = (c * p) / q;
  return x >= 9.0f ? 1.0f : (x <= -9.0f ? -1.0f : r);  // +-1 exactly from there on (+-inf)
}

// tanh for float32 where 1 + tanh(x) near -1 matters (gelu's tanh form): for |x| < 0.4 its
// odd Taylor series to x^13 (truncation < 1e-9 relative), else sign(x) (1 - 2 / (e^(2|x|) +
// 1)) with fast_expf, whose fraction (below 0.62, no cancellation) keeps the distance to +-1
// within an ulp of it. Branch-free (vectorises); saturates to +-1; NaN passes through.
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
// v as a double, for v < 2^52: v in the mantissa of 2^52, then 2^52 taken away (exact). Plain
// conversions between int64 and double need AVX-512, so on AVX2 they keep a loop scalar.
[[gnu::always_inline]] inline double small_uint_to_double(uint64_t v) {
  const uint64_t b = v | 0x4330000000000000ull;  // the bits of 2^52 + v
  double d;
  std::memcpy(&d, &b, 8);
  return d - 4503599627370496.0;
}

// 2^k for an integer-valued double k in [-1022, 1023]: k + 1023 added to 2^52 puts it in the low
// mantissa bits, and shifting those into the exponent field drops the rest.
[[gnu::always_inline]] inline double pow2_of_integer(double k) {
  const double biased = k + (1023.0 + 4503599627370496.0);
  uint64_t b;
  std::memcpy(&b, &biased, 8);
  b <<= 52;
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

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
  // 2^k in two factors so that results in the subnormal range stay exact; no conversion
  // between double and int64 (AVX2 has none, and one would keep the loop scalar)
  const double k1 = std::floor(k * 0.5), k2 = k - k1;
  double y = p * pow2_of_integer(k1) * pow2_of_integer(k2);
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
  double e = small_uint_to_double((u >> 52) & 0x7ff) - (sub ? 1077.0 : 1023.0);
  uint64_t mu = (u & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
  double m;
  std::memcpy(&m, &mu, 8);
  const bool high = m > 1.4142135623730951;
  m = high ? m * 0.5 : m;
  e += high ? 1.0 : 0.0;
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
  double r = e * ln2_hi + (e * ln2_lo + (f - sd * (f - z * p)));
  r = x == 0.0 ? -std::numeric_limits<double>::infinity() : r;
  r = x == std::numeric_limits<double>::infinity() ? x : r;
  return x < 0.0 || x != x ? std::numeric_limits<double>::quiet_NaN() : r;
}

// c[0] + c[1] v + ... + c[N-1] v^(N-1) by Horner's rule (unrolled into the vector loops).
template <class T, int N>
[[gnu::always_inline]] inline T poly_eval(T v, const T (&c)[N]) {
  T p = c[N - 1];
  for (int k = N - 2; k >= 0; k--) p = p * v + c[k];
  return p;
}

// erfinv for float32 (and the 16-bit floats), branch-free: erfinv(x) = x (c0 + w S(w)) with
// w = -log(1 - x^2), c0 = sqrt(pi)/2 in two parts, S a 5/5 rational fitted for this file
// (relative error 4e-9 on [0, 16.2], which covers every float below 1). w's log has no
// division: u = 2^e m, m in [sqrt(1/2), sqrt(2)), log m = f L(f) with f = m - 1 and L a
// degree-8 fit (2.6e-8). Within 3.1 ulp of the exact value over every float32 in [0, 1) (the
// float rounding of S and w in the far tail; tests/test_erfinv_fmod_log.py); +-1 -> +-inf,
// |x| > 1 -> NaN, -0.0 and NaN pass through.
[[gnu::always_inline]] inline float fast_erfinvf(float x) {
  static constexpr float kP[] = {0.23201366741475898f,   0.03264020190734883f,
                                 0.006520643537230806f,  0.0005444749351003286f,
                                 3.221927928569889e-05f, 8.018394407637391e-08f};
  static constexpr float kQ[] = {1.0f,
                                 0.09090361078609778f,
                                 0.03364367631278349f,
                                 0.0021392612045294497f,
                                 0.0002198599519545894f,
                                 2.732927795926948e-06f};
  static constexpr float kL[] = {
      0.9999999741897347f,   -0.49999987964369735f, 0.3333418562457837f,
      -0.25002074061236484f, 0.19956833579488614f,  -0.16562393174584206f,
      0.14952266529800942f,  -0.14366842717520403f, 0.08722355732516295f};
  // u = 1 - x^2 rounded once (>= 2^-23 below 1); t = its bits less sqrt(1/2)'s: t's exponent
  // field is e, and what that takes from u's bits leaves m
  const float u = std::fma(-x, x, 1.0f);
  const uint32_t b = float_bits(u), t = b - 0x3f3504f3u;
  const float e = float(int32_t(t) >> 23), f = bits_float(b - (t & 0xff800000u)) - 1.0f;
  const float w = -(e * 0.693359375f + (e * -2.12194440e-4f + f * poly_eval(f, kL)));
  const float s = poly_eval(w, kP) / poly_eval(w, kQ);
  // c0_hi below c0, so that c0_lo > 0 and x's two terms share its sign (-0.0 stays -0.0)
  float y = std::fma(x, 0.886226892f, x * std::fma(w, s, 3.29814445e-8f));
  const float a = std::fabs(x);
  y = a == 1.0f ? std::copysign(std::numeric_limits<float>::infinity(), x) : y;
  return a > 1.0f ? std::numeric_limits<float>::quiet_NaN() : y;
}

// erfinv for float64 in two parts (the kernel sends each element to one; both are rationals
// fitted for this file, written so the fitted part carries at most 60% of the result):
// |x| <= 0.85: x (c0 + x^2 S(0.7225 - x^2)), S an 8/8 rational (relative error 6e-19, 4e-17
// with its coefficients rounded to double); 0.85 < |x| <= 1: r (1 - H(r - 1.609375)),
// r = sqrt(-log((1 - |x|) / 2)) (1 - |x| is exact there), H an 8/8 rational (8e-19, 4e-17
// rounded) on r in [1.61, 6.13], which covers every double below 1.
// Within 2.4 ulp (measured 2.32 against mpmath; tests/test_erfinv_fmod_log.py).
[[gnu::always_inline]] inline double erfinv_centrald(double x) {
  static constexpr double kP[] = {0.4308725067326413, 4.807713903733044,  20.967090568990184,
                                  45.369444242445006, 51.14579762630843,  28.89095587956255,
                                  7.160945393627933,  0.5548980065102017, 0.0014460579832790829};
  static constexpr double kQ[] = {1.0,
                                  12.664168748009995,
                                  64.51641603410636,
                                  169.76526935187192,
                                  246.79802271250603,
                                  197.00862015108854,
                                  80.91298143825676,
                                  14.71169801842527,
                                  0.8213456850280532};
  const double v = std::fma(-x, x, 0.7225);
  const double s = poly_eval(v, kP) / poly_eval(v, kQ);
  return std::fma(x, 0.8862269254527579, x * std::fma(x * x, s, 7.268936996338665e-17));
}
[[gnu::always_inline]] inline double erfinv_taild(double x) {
  static constexpr double kP[] = {
      0.3675586491546441,    0.5936187802020253,    0.3807384085408588,
      0.122366371166895,     0.019967429316324437,  0.0014720713829575957,
      3.621784272052549e-05, 6.150678368277557e-08, -2.6729571314297227e-10};
  static constexpr double kQ[] = {1.0,
                                  2.5845319483299956,
                                  2.7939056999336747,
                                  1.6394015854081057,
                                  0.5644545758805751,
                                  0.11424536311093539,
                                  0.01277053239966745,
                                  0.0006772061364027407,
                                  1.1885715535270607e-05};
  const double a = std::fabs(x);
  const double r = std::sqrt(-fast_logd(std::fma(-0.5, a, 0.5)));
  const double v = r - 1.609375;
  double y = std::copysign(std::fma(-r, poly_eval(v, kP) / poly_eval(v, kQ), r), x);
  y = a == 1.0 ? std::copysign(std::numeric_limits<double>::infinity(), x) : y;
  return a > 1.0 ? std::numeric_limits<double>::quiet_NaN() : y;
}

// log10 of a positive normal float or double (the kernels route the other inputs through
// log10_any below): x = 2^e m, m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), log m = f - c with
// c = s (f - z p(z)), s = f / (2 + f), z = s^2 and p a minimax fit of the atanh series made for
// this file (float64: degree 6, relative error 4.6e-16; float32: degree 2, 2.8e-7; c is under
// a fifth of log m and z p under 1% of c). Then e log10(2) + log(m) / ln(10) with both
// constants in two parts, the rounding errors of log m and of the main sum carried along, so
// that only the last addition rounds noticeably: within 0.9 ulp (measured: 0.89 over every
// positive float32, 0.83 over 4 million float64s; tests/test_erfinv_fmod_log.py), and exact at
// powers of ten (their integer results are reached with errors far below half an ulp).
// e_add: added to e (subnormals arrive scaled by 2^23 or 2^54).
template <class T>
[[gnu::always_inline]] inline T log10_normal(T x, T e_add = T(0)) {
  constexpr bool f32 = std::is_same_v<T, float>;
  using U = std::conditional_t<f32, uint32_t, uint64_t>;
  constexpr int mant = f32 ? 23 : 52;
  constexpr U sqrt_half = f32 ? U(0x3f3504f3u) : U(0x3fe6a09e667f3bcdull);  // its bits
  static constexpr T kP[] = {T(0.666666666666667),   T(0.3999999999989918),  T(0.28571428626106177),
                             T(0.22222211115826268), T(0.18182890369327984), T(0.1533168400243779),
                             T(0.14616875727366235)};
  // log10(2) = k_hi + k_lo, k_hi short enough that e k_hi is exact; 1/ln(10) = m_hi + m_lo
  const T k_hi = f32 ? T(0.301025390625) : T(0.30102999566361177);
  const T k_lo = f32 ? T(4.605039e-06) : T(3.694239077158931e-13);
  const T m_hi = f32 ? T(0.4342945f) : T(0.4342944819032518);
  const T m_lo = f32 ? T(-1.010305e-08) : T(1.098319650216765e-17);
  U u;
  std::memcpy(&u, &x, sizeof(T));
  const U t = u - sqrt_half;  // its exponent field is e; what it takes from u leaves m
  const U mu = u - (t & ~((U(1) << mant) - 1));
  T m;
  std::memcpy(&m, &mu, sizeof(T));
  // e = the signed exponent field of t. float64: biased by 1024 first, so that the shift is a
  // logical one and the conversion a small unsigned one (AVX2 has neither signed 64-bit form)
  T e;
  if constexpr (f32)
    e = T(int32_t(t) >> mant) + e_add;
  else
    e = small_uint_to_double((t + (U(1024) << mant)) >> mant) - 1024.0 + e_add;
  const T f = m - T(1), s = f / (T(2) + f), z = s * s;
  T p;
  if constexpr (f32)
    p = (0.2958051167620921f * z + 0.3998876404802299f) * z + 0.6666668509998345f;
  else
    p = poly_eval(z, kP);
  const T c = s * (f - z * p);
  const T lm = f - c, lm_err = (f - lm) - c;  // log m = lm + lm_err (|f| > |c|: exact)
  // e k_hi + lm m_hi as a rounded sum and its exact error (|e k_hi| > |lm m_hi| or e = 0)
  const T head = e * k_hi, hi = lm * m_hi, sum = head + hi;
  const T err = ((head - sum) + hi) + std::fma(lm, m_hi, -hi);
  return sum + (err + std::fma(lm_err, m_hi, std::fma(lm, m_lo, e * k_lo)));
}
// log10 of any float or double: subnormals scaled into the normal range first; log10(0) is
// -inf, log10(inf) inf, negatives and NaN give NaN.
template <class T>
[[gnu::always_inline]] inline T log10_any(T x) {
  constexpr bool f32 = std::is_same_v<T, float>;
  const bool sub = x < std::numeric_limits<T>::min();
  T r = log10_normal(sub ? x * (f32 ? T(8388608.0) : T(18014398509481984.0)) : x,
                     sub ? (f32 ? T(-23) : T(-54)) : T(0));
  r = x == T(0) ? -std::numeric_limits<T>::infinity() : r;
  r = x == std::numeric_limits<T>::infinity() ? x : r;
  return x < T(0) || x != x ? std::numeric_limits<T>::quiet_NaN() : r;
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
TC_FAST_FN(rational_tanh, rational_tanhf, std::tanh, std::tanh)
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
