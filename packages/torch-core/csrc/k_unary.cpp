// k_unary.cpp — CPU kernels of unary ops and predicates.
#include "kernels.h"
#include "vecmath.h"

namespace tc {

// A functor whose function glibc also has in vector form (libmvec_kernel below).
#define TC_FN1_VEC(Name, vec_name, ...)                          \
  template <class A>                                             \
  struct Name {                                                  \
    static constexpr const char* kVecName = vec_name;            \
    explicit Name(const Scalar*) {}                              \
    TC_INLINE A operator()(A x) const { return A(__VA_ARGS__); } \
  };

// float and double through glibc's vector version of F's function (at most 4 ulp; see
// vecmath.h) where this machine has one, else F's scalar loop. Strided runs go through a
// buffer, 256 values at a time.
template <class T, template <class> class F>
struct libmvec_kernel {
  static void run(ElementwiseIter& it) {
    static const VecMath v = find_vec_math<T>(F<T>::kVecName);
    if (!v.fn) return unary_kernel<T, F>::run(it);
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(T) && s[1] == sizeof(T))
        return vec_apply(v, reinterpret_cast<const T*>(d[1]), reinterpret_cast<T*>(d[0]), n);
      T buf[256];
      for (int64_t b = 0; b < n; b += 256) {
        int64_t m = std::min<int64_t>(256, n - b);
        for (int64_t i = 0; i < m; i++) buf[i] = *reinterpret_cast<const T*>(d[1] + (b + i) * s[1]);
        vec_apply(v, buf, buf, m);
        for (int64_t i = 0; i < m; i++) *reinterpret_cast<T*>(d[0] + (b + i) * s[0]) = buf[i];
      }
    });
  }
};

TC_FN1_VEC(ExpF, "exp", fast_exp(x))
TC_FN1_VEC(Exp2F, "exp2", std::exp2(x))
TC_FN1(LogF, fast_log(x))
TC_FN1_VEC(Log2F, "log2", std::log2(x))
// log10: own polynomial (kernels.h: within 0.9 ulp, exact at powers of ten, which glibc's
// vector log10f and its AVX2 log10 are not).
TC_FN1(Log10F, log10_any(x))
// log10_normal over a contiguous run, in one pass that also checks that every input was a
// positive normal number (min and max of the bits as signed integers: positive floats order as
// their bits do, negatives and NaNs fall outside); false: y must be recomputed by log10_any.
// Skipping log10_any's special-value selects this way is ~20% faster.
template <class T>
TC_MULTIVERSION bool log10_normal_run(const T* __restrict x, T* __restrict y, int64_t n) {
  using I = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  I lo = std::numeric_limits<I>::max(), hi = std::numeric_limits<I>::min();
  for (int64_t i = 0; i < n; i++) {
    const T v = x[i];
    I b;
    std::memcpy(&b, &v, sizeof(T));
    lo = std::min(lo, b);
    hi = std::max(hi, b);
    y[i] = log10_normal(v);
  }
  const T min_normal = std::numeric_limits<T>::min(), max_finite = std::numeric_limits<T>::max();
  I min_bits, max_bits;
  std::memcpy(&min_bits, &min_normal, sizeof(T));
  std::memcpy(&max_bits, &max_finite, sizeof(T));
  return lo >= min_bits && hi <= max_bits;
}
template <class T>
struct log10_kernel {
  static void run(ElementwiseIter& it) {
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      if (s[0] != sizeof(T) || s[1] != sizeof(T)) return unary_loop<T>(d, s, n, Log10F<T>(nullptr));
      bool try_fast = true;  // until a block has a special value: then likely the next ones too
      for (int64_t b = 0; b < n; b += 1024) {
        const int64_t m = std::min<int64_t>(1024, n - b);
        T* y = reinterpret_cast<T*>(d[0]) + b;
        const T* x = reinterpret_cast<const T*>(d[1]) + b;
        const bool apart = y + m <= x || x + m <= y;  // (in place: not)
        if (try_fast && apart && log10_normal_run(x, y, m)) continue;
        try_fast = false;
        char* bd[2] = {reinterpret_cast<char*>(y), reinterpret_cast<char*>(const_cast<T*>(x))};
        unary_loop<T>(bd, s, m, Log10F<T>(nullptr));
      }
    });
  }
};

TC_FN1_VEC(Log1pF, "log1p", fast_log1p(x))
TC_FN1_VEC(Expm1F, "expm1", fast_expm1(x))
TC_FN1(SqrtF, std::sqrt(x))
TC_FN1(RsqrtF, A(1) / std::sqrt(x))
TC_FN1_VEC(SinF, "sin", std::sin(x))
TC_FN1_VEC(CosF, "cos", std::cos(x))
TC_FN1_VEC(TanF, "tan", std::tan(x))
TC_FN1_VEC(AsinF, "asin", std::asin(x))
TC_FN1_VEC(AcosF, "acos", std::acos(x))
TC_FN1_VEC(AtanF, "atan", std::atan(x))
TC_FN1_VEC(SinhF, "sinh", std::sinh(x))
TC_FN1_VEC(AsinhF, "asinh", std::asinh(x))
TC_FN1_VEC(AcoshF, "acosh", std::acosh(x))
TC_FN1_VEC(AtanhF, "atanh", std::atanh(x))
TC_FN1_VEC(CoshF, "cosh", std::cosh(x))
TC_FN1_VEC(TanhF, "tanh", rational_tanh(x))
TC_FN1(SigmoidF, A(1) / (A(1) + fast_exp(-x)))
TC_FN1_VEC(ErfF, "erf", fast_erf(x))
TC_FN1(ErfinvF, fast_erfinvf(x))  // float32 and the 16-bit floats (computed in float)
TC_FN1(ErfinvCentralF, erfinv_centrald(x))
TC_FN1(ErfinvTailF, erfinv_taild(x))
TC_PRED1(ErfinvInTailF, std::fabs(x) > A(0.85))

// float64 erfinv, each block of 256 in two vectorised passes: erfinv_centrald over all of it
// (no log, no sqrt), then erfinv_taild over only its elements beyond 0.85 (4x the cost, and
// few in most data), gathered into a buffer first since the output may be the input.
struct erfinv_f64_kernel {
  static void run(ElementwiseIter& it) {
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      constexpr int64_t B = 256;
      bool tail[B + 8];
      int32_t at[B];
      double xt[B], yt[B];
      for (int64_t b = 0; b < n; b += B) {
        const int64_t m = std::min(B, n - b);
        char* bd[2] = {d[0] + b * s[0], d[1] + b * s[1]};
        char* fd[2] = {reinterpret_cast<char*>(tail), bd[1]};
        const int64_t fs[2] = {1, s[1]};
        unary_loop<double, bool>(fd, fs, m, ErfinvInTailF<double>(nullptr));
        std::memset(tail + m, 0, 8);
        int64_t k = 0;
        for (int64_t i = 0; i < m; i += 8) {  // 8 flags at a time: most words are all zero
          uint64_t word;
          std::memcpy(&word, tail + i, 8);
          for (; word; word &= word - 1) {
            const int64_t j = i + __builtin_ctzll(word) / 8;
            at[k] = int32_t(j);
            xt[k++] = *reinterpret_cast<const double*>(bd[1] + j * s[1]);
          }
        }
        unary_loop<double>(bd, s, m, ErfinvCentralF<double>(nullptr));
        if (k == 0) continue;
        char* td[2] = {reinterpret_cast<char*>(yt), reinterpret_cast<char*>(xt)};
        const int64_t ts[2] = {sizeof(double), sizeof(double)};
        unary_loop<double>(td, ts, k, ErfinvTailF<double>(nullptr));
        for (int64_t j = 0; j < k; j++) *reinterpret_cast<double*>(bd[0] + at[j] * s[0]) = yt[j];
      }
    });
  }
};
TC_FN1(ReciprocalF, A(1) / x)

// Fused activations: one pass instead of the 4-6 of their composite forms. The constants
// are sqrt(2/pi) and gelu_tanh's 0.044715.
TC_FN1(GeluF, x* fast_gelu_cdf(x))
TC_FN1(GeluTanhF,
       A(0.5) * x * (A(1) + fast_tanh(A(0.79788456080286535588) * (x + A(0.044715) * x * x * x))))
TC_FN1(SiluF, x / (A(1) + fast_exp(-x)))

// Activations with parameters (args[0], args[1]); selu's constants are fixed.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;
template <class A>
struct LeakyReluF {  // x > 0 ? x : slope x
  A slope;
  explicit LeakyReluF(const Scalar* a) : slope(a[0].to<A>()) {}
  TC_INLINE A operator()(A x) const { return x > A(0) ? x : x * slope; }
};
template <class A>
struct EluF {  // x > 0 ? x : c (exp(k x) - 1): elu (c = alpha, k = 1), celu (c = alpha, k =
               // 1/alpha)
  A c, k;
  explicit EluF(const Scalar* a) : c(a[0].to<A>()), k(a[1].to<A>()) {}
  TC_INLINE A operator()(A x) const { return x > A(0) ? x : c * fast_expm1(k * x); }
};
TC_FN1(SeluF, x > A(0) ? A(kSeluScale) * x : A(kSeluScale * kSeluAlpha) * fast_expm1(x))
template <class A>
struct SoftplusF {  // log(1 + exp(beta x)) / beta; x where beta x > threshold
  A beta, threshold;
  explicit SoftplusF(const Scalar* a) : beta(a[0].to<A>()), threshold(a[1].to<A>()) {}
  TC_INLINE A operator()(A x) const {
    A bx = x * beta;
    return bx > threshold ? x : fast_log1p(fast_exp(bx)) / beta;
  }
};
template <class A>
struct HardtanhF {  // x clamped to [lo, hi]; NaN stays NaN
  A lo, hi;
  explicit HardtanhF(const Scalar* a) : lo(a[0].to<A>()), hi(a[1].to<A>()) {}
  TC_INLINE A operator()(A x) const { return x <= lo ? lo : (x >= hi ? hi : x); }
};

template <class A>
A abs_impl(A x) {
  if constexpr (std::is_unsigned_v<A> || std::is_same_v<A, bool>)
    return x;
  else if constexpr (std::is_integral_v<A>)
    return x < 0 ? A(0 - x) : x;  // wraps at the minimum
  else
    return std::fabs(x);
}
template <class A>
A sign_impl(A x) {
  if constexpr (std::is_same_v<A, bool>)
    return x;
  else if constexpr (std::is_floating_point_v<A>)  // (NaN and -0.0: 0; two selects vectorise)
    return x < A(0) ? A(-1) : (x > A(0) ? A(1) : A(0));
  else
    return A((A(0) < x) - (x < A(0)));
}
// Rounding ops: floating types round, integers are already integral.
template <class A, class F>
A round_with(A x, F f) {
  if constexpr (std::is_floating_point_v<A>)
    return f(x);
  else
    return x;
}

TC_FN1(AbsF, abs_impl(x))
TC_FN1(NegF, -x)                                // -0.0 for 0.0, as IEEE negation gives
TC_FN1(ReluF, (x > A(0) || x != x) ? x : A(0))  // NaN stays NaN
TC_FN1(SignF, sign_impl(x))
TC_FN1(FloorF, round_with(x, [](auto v) { return std::floor(v); }))
TC_FN1(CeilF, round_with(x, [](auto v) { return std::ceil(v); }))
TC_FN1(RoundF, round_with(x, [](auto v) { return std::nearbyint(v); }))
TC_FN1(TruncF, round_with(x, [](auto v) { return std::trunc(v); }))
TC_FN1(FracF, x - std::trunc(x))
TC_FN1(BitwiseNotF, std::is_same_v<A, bool> ? A(!x) : A(~x))

TC_PRED1(IsnanF, x != x)
TC_PRED1(IsinfF, std::isinf(double(x)))
TC_PRED1(IsfiniteF, std::isfinite(double(x)))
TC_PRED1(LogicalNotF, !bool(x))

// Complex functions: std::complex's own, the rest from them (log2, exp2, expm1 and log1p
// with no special care near 0).
TC_FN1(CExpF, std::exp(x))
TC_FN1(CExp2F, std::pow(A(2), x))
TC_FN1(CLogF, std::log(x))
TC_FN1(CLog2F, std::log(x) / typename A::value_type(M_LN2))
TC_FN1(CLog10F, std::log10(x))
TC_FN1(CLog1pF, std::log(A(1) + x))
TC_FN1(CExpm1F, std::exp(x) - A(1))
TC_FN1(CSqrtF, std::sqrt(x))
TC_FN1(CRsqrtF, A(1) / std::sqrt(x))
TC_FN1(CSinF, std::sin(x))
TC_FN1(CCosF, std::cos(x))
TC_FN1(CTanF, std::tan(x))
TC_FN1(CAsinF, std::asin(x))
TC_FN1(CAcosF, std::acos(x))
TC_FN1(CAtanF, std::atan(x))
TC_FN1(CSinhF, std::sinh(x))
TC_FN1(CAsinhF, std::asinh(x))
TC_FN1(CAcoshF, std::acosh(x))
TC_FN1(CAtanhF, std::atanh(x))
TC_FN1(CCoshF, std::cosh(x))
TC_FN1(CTanhF, std::tanh(x))
TC_FN1(CSigmoidF, A(1) / (A(1) + std::exp(-x)))
TC_PRED1(CIsnanF, x != x)
TC_PRED1(CIsinfF, std::isinf(x.real()) || std::isinf(x.imag()))
TC_PRED1(CIsfiniteF, std::isfinite(x.real()) && std::isfinite(x.imag()))
TC_PRED1(CLogicalNotF, x == A(0))

static void register_complex_unary_kernels() {
  reg<unary_kernel, CExpF, TC_COMPLEX>(Op::exp);
  reg<unary_kernel, CExp2F, TC_COMPLEX>(Op::exp2);
  reg<unary_kernel, CLogF, TC_COMPLEX>(Op::log);
  reg<unary_kernel, CLog2F, TC_COMPLEX>(Op::log2);
  reg<unary_kernel, CLog10F, TC_COMPLEX>(Op::log10);
  reg<unary_kernel, CLog1pF, TC_COMPLEX>(Op::log1p);
  reg<unary_kernel, CExpm1F, TC_COMPLEX>(Op::expm1);
  reg<unary_kernel, CSqrtF, TC_COMPLEX>(Op::sqrt);
  reg<unary_kernel, CRsqrtF, TC_COMPLEX>(Op::rsqrt);
  reg<unary_kernel, CSinF, TC_COMPLEX>(Op::sin);
  reg<unary_kernel, CCosF, TC_COMPLEX>(Op::cos);
  reg<unary_kernel, CTanF, TC_COMPLEX>(Op::tan);
  reg<unary_kernel, CAsinF, TC_COMPLEX>(Op::asin);
  reg<unary_kernel, CAcosF, TC_COMPLEX>(Op::acos);
  reg<unary_kernel, CAtanF, TC_COMPLEX>(Op::atan);
  reg<unary_kernel, CSinhF, TC_COMPLEX>(Op::sinh);
  reg<unary_kernel, CAsinhF, TC_COMPLEX>(Op::asinh);
  reg<unary_kernel, CAcoshF, TC_COMPLEX>(Op::acosh);
  reg<unary_kernel, CAtanhF, TC_COMPLEX>(Op::atanh);
  reg<unary_kernel, CCoshF, TC_COMPLEX>(Op::cosh);
  reg<unary_kernel, CTanhF, TC_COMPLEX>(Op::tanh);
  reg<unary_kernel, CSigmoidF, TC_COMPLEX>(Op::sigmoid);
  reg<unary_kernel, ReciprocalF, TC_COMPLEX>(Op::reciprocal);
  reg<unary_kernel, NegF, TC_COMPLEX>(Op::neg);
  reg<predicate_kernel, CIsnanF, TC_COMPLEX>(Op::isnan);
  reg<predicate_kernel, CIsinfF, TC_COMPLEX>(Op::isinf);
  reg<predicate_kernel, CIsfiniteF, TC_COMPLEX>(Op::isfinite);
  reg<predicate_kernel, CLogicalNotF, TC_COMPLEX>(Op::logical_not);
}

void register_unary_kernels() {
  register_complex_unary_kernels();
  reg<unary_kernel, ExpF, Half, BFloat16, double>(Op::exp);  // double: own, within 2 ulp
  reg<libmvec_kernel, ExpF, float>(Op::exp);                 // (2x the own polynomial)
  reg<unary_kernel, Exp2F, Half, BFloat16>(Op::exp2);
  reg<libmvec_kernel, Exp2F, float, double>(Op::exp2);
  reg<unary_kernel, LogF, TC_FLOATS>(Op::log);
  reg<unary_kernel, Log2F, Half, BFloat16>(Op::log2);
  reg<libmvec_kernel, Log2F, float, double>(Op::log2);
  reg<unary_kernel, Log10F, Half, BFloat16>(Op::log10);
  reg_each<float, double>(Op::log10, [](auto t) { return (void*)&log10_kernel<decltype(t)>::run; });
  reg<unary_kernel, Log1pF, Half, BFloat16, float>(Op::log1p);  // float: own polynomial
  reg<libmvec_kernel, Log1pF, double>(Op::log1p);
  reg<unary_kernel, Expm1F, Half, BFloat16, float>(Op::expm1);  // float: own polynomial
  reg<libmvec_kernel, Expm1F, double>(Op::expm1);
  reg<unary_kernel, SqrtF, TC_FLOATS>(Op::sqrt);
  reg<unary_kernel, RsqrtF, TC_FLOATS>(Op::rsqrt);
  reg<unary_kernel, SinF, Half, BFloat16>(Op::sin);
  reg<libmvec_kernel, SinF, float, double>(Op::sin);
  reg<unary_kernel, CosF, Half, BFloat16>(Op::cos);
  reg<libmvec_kernel, CosF, float, double>(Op::cos);
  reg<unary_kernel, TanF, Half, BFloat16>(Op::tan);
  reg<libmvec_kernel, TanF, float, double>(Op::tan);
  reg<unary_kernel, AsinF, Half, BFloat16>(Op::asin);
  reg<libmvec_kernel, AsinF, float, double>(Op::asin);
  reg<unary_kernel, AcosF, Half, BFloat16>(Op::acos);
  reg<libmvec_kernel, AcosF, float, double>(Op::acos);
  reg<unary_kernel, AtanF, Half, BFloat16>(Op::atan);
  reg<libmvec_kernel, AtanF, float, double>(Op::atan);
  reg<unary_kernel, SinhF, Half, BFloat16>(Op::sinh);
  reg<libmvec_kernel, SinhF, float, double>(Op::sinh);
  reg<unary_kernel, AsinhF, Half, BFloat16>(Op::asinh);
  reg<libmvec_kernel, AsinhF, float, double>(Op::asinh);
  reg<unary_kernel, AcoshF, Half, BFloat16>(Op::acosh);
  reg<libmvec_kernel, AcoshF, float, double>(Op::acosh);
  reg<unary_kernel, AtanhF, Half, BFloat16>(Op::atanh);
  reg<libmvec_kernel, AtanhF, float, double>(Op::atanh);
  reg<unary_kernel, CoshF, Half, BFloat16>(Op::cosh);
  reg<libmvec_kernel, CoshF, float, double>(Op::cosh);
  reg<unary_kernel, TanhF, Half, BFloat16>(Op::tanh);
  reg<unary_kernel, TanhF, float>(Op::tanh);  // the own rational (3x glibc's on AVX2)
  reg<libmvec_kernel, TanhF, double>(Op::tanh);
  reg<unary_kernel, SigmoidF, TC_FLOATS>(Op::sigmoid);
  reg<unary_kernel, ErfF, Half, BFloat16, float>(Op::erf);  // float: own polynomial
  reg<libmvec_kernel, ErfF, double>(Op::erf);
  reg<unary_kernel, ErfinvF, Half, BFloat16, float>(Op::erfinv);
  reg_each<double>(Op::erfinv, [](auto) { return (void*)&erfinv_f64_kernel::run; });
  reg<unary_kernel, ReciprocalF, TC_FLOATS>(Op::reciprocal);
  reg<unary_kernel, GeluF, TC_FLOATS>(Op::gelu);
  reg<unary_kernel, GeluTanhF, TC_FLOATS>(Op::gelu_tanh);
  reg<unary_kernel, SiluF, TC_FLOATS>(Op::silu);
  reg<unary_kernel, LeakyReluF, TC_FLOATS>(Op::leaky_relu);
  reg<unary_kernel, EluF, TC_FLOATS>(Op::elu);
  reg<unary_kernel, SeluF, TC_FLOATS>(Op::selu);
  reg<unary_kernel, SoftplusF, TC_FLOATS>(Op::softplus);
  reg<unary_kernel, HardtanhF, TC_FLOATS>(Op::hardtanh);
  reg<unary_kernel, FracF, TC_FLOATS>(Op::frac);
  reg<unary_kernel, AbsF, TC_NUMERIC>(Op::abs);
  reg<unary_kernel, NegF, TC_NUMERIC>(Op::neg);
  reg<unary_kernel, ReluF, TC_NUMERIC>(Op::relu);
  reg<unary_kernel, SignF, TC_ALL>(Op::sign);
  reg<unary_kernel, FloorF, TC_NUMERIC>(Op::floor);
  reg<unary_kernel, CeilF, TC_NUMERIC>(Op::ceil);
  reg<unary_kernel, RoundF, TC_NUMERIC>(Op::round);
  reg<unary_kernel, TruncF, TC_NUMERIC>(Op::trunc);
  reg<unary_kernel, BitwiseNotF, bool, TC_INTS>(Op::bitwise_not);
  reg<predicate_kernel, IsnanF, TC_ALL>(Op::isnan);
  reg<predicate_kernel, IsinfF, TC_ALL>(Op::isinf);
  reg<predicate_kernel, IsfiniteF, TC_ALL>(Op::isfinite);
  reg<predicate_kernel, LogicalNotF, TC_ALL>(Op::logical_not);
}

}  // namespace tc
