// linalg_ops.h — front ends of linalg.cpp, called by bind_linalg.cpp. Inputs are float32 or
// float64 with 2 or more dims; results come back with the input's batch dims. `info` tensors
// (int32, one per matrix) hold LAPACK's codes: 0 ok, > 0 a numerical failure (singular,
// not positive-definite, no convergence) that the Python layer reports.
#pragma once
#include <string>
#include <tuple>

#include "ops.h"

namespace tc {

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor(const Tensor& a);         // LU, pivots, info
std::pair<Tensor, Tensor> linalg_solve_ex(const Tensor& a, const Tensor& b);  // X, info
Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool unit);
std::pair<Tensor, Tensor> linalg_cholesky_ex(const Tensor& a, bool upper);      // L, info
std::pair<Tensor, Tensor> linalg_qr(const Tensor& a, const std::string& mode);  // Q, R
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices,
                                                      bool compute_uv);  // U, S, Vh, info
std::tuple<Tensor, Tensor, Tensor> linalg_eigh(const Tensor& a, bool upper,
                                               bool vectors);  // w, V, info
std::tuple<Tensor, Tensor, Tensor> linalg_eig(const Tensor& a,
                                              bool vectors);  // w, V (complex), info
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> linalg_lstsq(
    const Tensor& a, const Tensor& b, double rcond);  // X, residual rows, rank, S, info

// ---------------------------------------------------------------- kernel types (linalg.cpp)
// Each works in place on column-major buffers (B, cols, rows), solve's small path on
// row-major ones; info (B,) int32 gets LAPACK's code per matrix.
using LuFactorFn = void (*)(const Tensor& a, const Tensor& piv, const Tensor& info);
// solve: row-major (B, n, n) and (B, n, k) buffers when n <= kSmallSolve, else column-major
using SolveFn = void (*)(const Tensor& a, const Tensor& b, const Tensor& info);
using CholeskyFn = void (*)(const Tensor& a, bool upper, const Tensor& info);
using QrFn = void (*)(const Tensor& a, const Tensor& q, const Tensor& info);
using SvdFn = void (*)(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt,
                       char jobz, const Tensor& info);
using EighFn = void (*)(const Tensor& a, const Tensor& w, bool upper, bool vectors,
                        const Tensor& info);
using EigFn = void (*)(const Tensor& a, const Tensor& w, const Tensor& v, bool vectors,
                       const Tensor& info);
using TriSolveFn = void (*)(const Tensor& a, const Tensor& b, bool upper, bool unit);
using LstsqFn = void (*)(const Tensor& a, const Tensor& b, const Tensor& s, const Tensor& rank,
                         double rcond, const Tensor& info);

}  // namespace tc
