// kernels.h — helpers for writing CPU kernels: each op is one small functor template
// F<A> (A = the compute type; float for 16-bit floats), constructed from the iterator's
// scalar arguments; reg_* instantiates its kernel per dtype and registers it.
#pragma once
#include <atomic>
#include <cmath>
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

template <template <class, template <class> class> class K, template <class> class F, class... Ts>
void reg(Op op) {
  (register_kernel(op, DeviceType::CPU, DTypeOf<Ts>::value, (void*)&K<Ts, F>::run), ...);
}

// dtype lists
#define TC_FLOATS ::tc::Half, ::tc::BFloat16, float, double
#define TC_INTS uint8_t, int8_t, int16_t, int32_t, int64_t
#define TC_NUMERIC TC_INTS, TC_FLOATS
#define TC_ALL bool, TC_NUMERIC
#define TC_COMPLEX ::tc::c64, ::tc::c128

// A functor without scalar arguments: TC_FN1(Name, expr in x) / TC_FN2(Name, expr in x, y)
#define TC_FN1(Name, ...)                              \
  template <class A>                                   \
  struct Name {                                        \
    explicit Name(const Scalar*) {}                    \
    A operator()(A x) const { return A(__VA_ARGS__); } \
  };
#define TC_FN2(Name, ...)                                   \
  template <class A>                                        \
  struct Name {                                             \
    explicit Name(const Scalar*) {}                         \
    A operator()(A x, A y) const { return A(__VA_ARGS__); } \
  };
#define TC_PRED1(Name, ...)                            \
  template <class A>                                   \
  struct Name {                                        \
    explicit Name(const Scalar*) {}                    \
    bool operator()(A x) const { return __VA_ARGS__; } \
  };
#define TC_PRED2(Name, ...)                                 \
  template <class A>                                        \
  struct Name {                                             \
    explicit Name(const Scalar*) {}                         \
    bool operator()(A x, A y) const { return __VA_ARGS__; } \
  };

void register_unary_kernels();
void register_binary_kernels();
void register_misc_kernels();
void register_reduce_kernels();
void register_index_kernels();   // index.cpp
void register_shape_kernels();   // shape.cpp
void register_sort_kernels();    // sort.cpp
void register_linalg_kernels();  // linalg.cpp

}  // namespace tc
