// cpu_gemm.h — the one matrix product the CPU kernels call: conv, the LSTM layer and the gemm
// op's float32/float64 kernels; par_gemm spreads one over OpenMP's threads. The product is
// OpenBLAS's, or Intel MKL's where the optional `mkl` wheel is installed (Note [MKL]).
#pragma once
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "iter.h"  // get_num_threads

namespace tc {

// Note [MKL]: on two cores OpenBLAS's float product reaches about 1.3x its one-thread speed,
// MKL's about 1.9x (benchmarks in docs/development.rst), so where the `mkl` wheel is installed
// torch loads its single dynamic library (libmkl_rt) at import, asks for its GNU OpenMP
// threading layer (the libgomp our kernels run on, so one thread pool still serves both) and
// routes cpu_gemm here. Declared by hand from the CBLAS standard: the build needs no MKL.
struct MklApi {
  using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int,
                         float, float*, int);
  using Dgemm = void (*)(int, int, int, int, int, int, double, const double*, int, const double*,
                         int, double, double*, int);
  Sgemm sgemm = nullptr;
  Dgemm dgemm = nullptr;
  int (*set_num_threads_local)(int) = nullptr;  // this thread's MKL threads; returns the old
  void (*set_num_threads)(int) = nullptr;
};
inline MklApi mkl;  // filled once by load_mkl at import, before any product runs

// Routes float products to the MKL at `path` (libmkl_rt): "" on success, else why not (blas.cpp)
std::string load_mkl(const std::string& path);

// The product on nt threads (MKL's own, on libgomp), or single-threaded for nt == 1.
template <class T>
inline void mkl_gemm(int nt, bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                     int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  const int t_a = ta ? CblasTrans : CblasNoTrans, t_b = tb ? CblasTrans : CblasNoTrans;
  const int old = mkl.set_num_threads_local(nt);
  if constexpr (std::is_same_v<T, float>)
    mkl.sgemm(CblasRowMajor, t_a, t_b, int(m), int(n), int(k), alpha, a, int(lda), b, int(ldb),
              beta, c, int(ldc));
  else
    mkl.dgemm(CblasRowMajor, t_a, t_b, int(m), int(n), int(k), alpha, a, int(lda), b, int(ldb),
              beta, c, int(ldc));
  mkl.set_num_threads_local(old);
}

// c (m x n, row stride ldc) = alpha * op(a) @ op(b) + beta * c, row-major; ta/tb: a/b are
// stored transposed. k == 0 leaves beta * c (zeros for beta == 0, whatever c held).
template <class T>
inline void cpu_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                     int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    return;
  }
  if (mkl.sgemm) return mkl_gemm<T>(1, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  auto t = [](bool x) { return x ? CblasTrans : CblasNoTrans; };
  if constexpr (std::is_same_v<T, float>)
    scipy_cblas_sgemm(CblasRowMajor, t(ta), t(tb), int(m), int(n), int(k), alpha, a, int(lda), b,
                      int(ldb), beta, c, int(ldc));
  else
    scipy_cblas_dgemm(CblasRowMajor, t(ta), t(tb), int(m), int(n), int(k), alpha, a, int(lda), b,
                      int(ldb), beta, c, int(ldc));
}

// Note [One thread pool]: float products run on OpenMP's threads, each calling a
// single-threaded BLAS on its own panel of c. OpenBLAS's own threads would be a second pool
// competing for the same cores with OpenMP's (which spin a while after each elementwise
// kernel): a product between elementwise ops then ran up to 10x slower on 2 busy cores.
constexpr double kParallelGemm = 1 << 20;  // multiply-adds below which one thread does it all

// f(t) for t in [0, nt) on nt OpenMP threads, BLAS single-threaded meanwhile.
template <class F>
void on_threads(int nt, const F& f) {
  int blas_threads = scipy_openblas_get_num_threads();
  scipy_openblas_set_num_threads(1);
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int t = 0; t < nt; t++) f(t);
  scipy_openblas_set_num_threads(blas_threads);
}

// Note [Skinny products]: MKL's own threads share a product with few rows (or columns)
// badly: an LSTM step's 20x650 @ 650x2600 took 1.2 ms on two threads, about its one-thread
// time, and 0.8 ms as two one-thread panels of c; 128x1024 @ 1024x1024 2.7 ms against 2.1.
// From 256 rows and columns on, MKL's threads are as fast or faster (700x650 @ 650x2600:
// 19.2 ms against 22.3 as panels), so only products below that are cut into panels here.
constexpr int64_t kSkinnyGemm = 256;

// cpu_gemm with c cut into one panel per thread along its longer side (panels of whole
// 16-wide tiles, so each thread's BLAS keeps its full kernel width).
template <class T>
void par_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
              const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  const bool by_cols = n >= m;
  const int64_t len = by_cols ? n : m;
  int nt = double(m) * double(n) * double(k) >= kParallelGemm ? get_num_threads() : 1;
  nt = int(std::min<int64_t>(nt, (len + 15) / 16));
  if (mkl.sgemm && k > 0 && (nt <= 1 || std::min(m, n) >= kSkinnyGemm))
    return mkl_gemm<T>(nt, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (nt <= 1) {
    int blas_threads = scipy_openblas_get_num_threads();
    scipy_openblas_set_num_threads(1);
    cpu_gemm<T>(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    scipy_openblas_set_num_threads(blas_threads);
    return;
  }
  const int64_t panel = (len / nt + 15) / 16 * 16;
  on_threads(nt, [&](int t) {
    const int64_t j0 = std::min(len, t * panel), j1 = t == nt - 1 ? len : std::min(len, j0 + panel);
    if (j0 >= j1) return;
    if (by_cols)
      cpu_gemm<T>(ta, tb, m, j1 - j0, k, alpha, a, lda, tb ? b + j0 * ldb : b + j0, ldb, beta,
                  c + j0, ldc);
    else
      cpu_gemm<T>(ta, tb, j1 - j0, n, k, alpha, ta ? a + j0 : a + j0 * lda, lda, b, ldb, beta,
                  c + j0 * ldc, ldc);
  });
}

}  // namespace tc
