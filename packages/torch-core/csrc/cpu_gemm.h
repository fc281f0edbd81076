// cpu_gemm.h — the one matrix product the CPU kernels call (OpenBLAS): conv, the LSTM layer
// and the gemm op's float32/float64 kernels.
#pragma once
#include <cblas.h>

#include <algorithm>
#include <cstdint>

namespace tc {

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
  auto t = [](bool x) { return x ? CblasTrans : CblasNoTrans; };
  if constexpr (std::is_same_v<T, float>)
    scipy_cblas_sgemm(CblasRowMajor, t(ta), t(tb), int(m), int(n), int(k), alpha, a, int(lda), b,
                      int(ldb), beta, c, int(ldc));
  else
    scipy_cblas_dgemm(CblasRowMajor, t(ta), t(tb), int(m), int(n), int(k), alpha, a, int(lda), b,
                      int(ldb), beta, c, int(ldc));
}

}  // namespace tc
