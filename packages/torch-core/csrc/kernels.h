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

template <class A>
[[gnu::always_inline]] inline A fast_tanh(A x) {
  if constexpr (std::is_same_v<A, float>)
    return fast_tanhf(x);
  else
    return std::tanh(x);
}

template <class A>
[[gnu::always_inline]] inline A fast_exp(A x) {
  if constexpr (std::is_same_v<A, float>)
    return fast_expf(x);
  else
    return std::exp(x);
}

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
