// vecmath.cpp — glibc's libmvec functions behind vecmath.h (see there).
#include "vecmath.h"

#include <dlfcn.h>
#include <immintrin.h>

#include <cstring>
#include <string>

namespace tc {

namespace {

// Bytes of the widest vector unit libmvec has functions for: 64, 32, or 0 (use none).
int vector_bytes() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 64;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 32;
  return 0;
}

VecMath find(const char* name, int elem_bytes, const char* suffix, const char* args = "v") {
  static void* lib = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
  static const int bytes = vector_bytes();
  if (!lib || !bytes) return {};
  // x86-64 vector function ABI: 'e' AVX-512, 'd' AVX2; N<lanes>; a 'v' per vector argument
  std::string symbol = std::string("_ZGV") + (bytes == 64 ? "e" : "d") + "N" +
                       std::to_string(bytes / elem_bytes) + args + "_" + name + suffix;
  void* fn = dlsym(lib, symbol.c_str());
  return fn ? VecMath{fn, bytes} : VecMath{};
}

// Whole vectors straight from `in`; the tail through a zero-padded register-sized buffer.
#define TC_VEC_APPLY(Name, isa, V, T, lanes, load, store)                            \
  __attribute__((target(isa))) void Name(void* fn, const T* in, T* out, int64_t n) { \
    auto f = reinterpret_cast<V (*)(V)>(fn);                                         \
    int64_t i = 0;                                                                   \
    for (; i + lanes <= n; i += lanes) store(out + i, f(load(in + i)));              \
    if (i < n) {                                                                     \
      T buf[lanes] = {};                                                             \
      std::memcpy(buf, in + i, size_t(n - i) * sizeof(T));                           \
      store(buf, f(load(buf)));                                                      \
      std::memcpy(out + i, buf, size_t(n - i) * sizeof(T));                          \
    }                                                                                \
  }
TC_VEC_APPLY(apply_avx512_f32, "avx512f", __m512, float, 16, _mm512_loadu_ps, _mm512_storeu_ps)
TC_VEC_APPLY(apply_avx512_f64, "avx512f", __m512d, double, 8, _mm512_loadu_pd, _mm512_storeu_pd)
TC_VEC_APPLY(apply_avx2_f32, "avx2,fma", __m256, float, 8, _mm256_loadu_ps, _mm256_storeu_ps)
TC_VEC_APPLY(apply_avx2_f64, "avx2,fma", __m256d, double, 4, _mm256_loadu_pd, _mm256_storeu_pd)
#undef TC_VEC_APPLY

#define TC_VEC_APPLY2(Name, isa, V, T, lanes, load, store)                                      \
  __attribute__((target(isa))) void Name(void* fn, const T* a, const T* b, T* out, int64_t n) { \
    auto f = reinterpret_cast<V (*)(V, V)>(fn);                                                 \
    int64_t i = 0;                                                                              \
    for (; i + lanes <= n; i += lanes) store(out + i, f(load(a + i), load(b + i)));             \
    if (i < n) {                                                                                \
      T x[lanes] = {}, y[lanes] = {};                                                           \
      std::memcpy(x, a + i, size_t(n - i) * sizeof(T));                                         \
      std::memcpy(y, b + i, size_t(n - i) * sizeof(T));                                         \
      store(x, f(load(x), load(y)));                                                            \
      std::memcpy(out + i, x, size_t(n - i) * sizeof(T));                                       \
    }                                                                                           \
  }
TC_VEC_APPLY2(apply2_avx512_f32, "avx512f", __m512, float, 16, _mm512_loadu_ps, _mm512_storeu_ps)
TC_VEC_APPLY2(apply2_avx512_f64, "avx512f", __m512d, double, 8, _mm512_loadu_pd, _mm512_storeu_pd)
TC_VEC_APPLY2(apply2_avx2_f32, "avx2,fma", __m256, float, 8, _mm256_loadu_ps, _mm256_storeu_ps)
TC_VEC_APPLY2(apply2_avx2_f64, "avx2,fma", __m256d, double, 4, _mm256_loadu_pd, _mm256_storeu_pd)
#undef TC_VEC_APPLY2

}  // namespace

template <>
VecMath find_vec_math<float>(const char* name) {
  return find(name, sizeof(float), "f");
}
template <>
VecMath find_vec_math<double>(const char* name) {
  return find(name, sizeof(double), "");
}

template <>
VecMath find_vec_math2<float>(const char* name) {
  return find(name, sizeof(float), "f", "vv");
}
template <>
VecMath find_vec_math2<double>(const char* name) {
  return find(name, sizeof(double), "", "vv");
}

void vec_apply2(const VecMath& v, const float* a, const float* b, float* out, int64_t n) {
  (v.bytes == 64 ? apply2_avx512_f32 : apply2_avx2_f32)(v.fn, a, b, out, n);
}
void vec_apply2(const VecMath& v, const double* a, const double* b, double* out, int64_t n) {
  (v.bytes == 64 ? apply2_avx512_f64 : apply2_avx2_f64)(v.fn, a, b, out, n);
}

void vec_apply(const VecMath& v, const float* in, float* out, int64_t n) {
  (v.bytes == 64 ? apply_avx512_f32 : apply_avx2_f32)(v.fn, in, out, n);
}
void vec_apply(const VecMath& v, const double* in, double* out, int64_t n) {
  (v.bytes == 64 ? apply_avx512_f64 : apply_avx2_f64)(v.fn, in, out, n);
}

}  // namespace tc
