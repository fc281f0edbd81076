// linalg.cpp — linear algebra through LAPACK (scipy-openblas32's LAPACKE, 32-bit ints).
//
// Note [Column-major batches]: LAPACK reads column-major matrices. A batch of m x n
// matrices (..., m, n) is copied into a contiguous buffer of shape (B, n, m): each matrix
// stored transposed, which is the same bytes as the column-major matrix (lda = m). A result
// buffer of shape (..., n, m) is handed back as its transposed view (..., m, n), so no copy
// is made on the way out (PyTorch's results are column-major too).
//
// Front ends here only check dtypes and build buffers; the Python layer (torch.linalg)
// checks shapes, broadcasts and turns LAPACK's info codes into LinAlgError.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "iter.h"
#include "linalg_ops.h"

namespace tc {

// ---------------------------------------------------------------- LAPACKE by type
template <class T>
struct Lapack;
#define TC_LAPACK(T, p)                                                                           \
  template <>                                                                                     \
  struct Lapack<T> {                                                                              \
    static int getrf(int m, int n, T* a, int* piv) {                                              \
      return scipy_LAPACKE_##p##getrf(LAPACK_COL_MAJOR, m, n, a, std::max(1, m), piv);            \
    }                                                                                             \
    static int gesv(int n, int k, T* a, int* piv, T* b) {                                         \
      return scipy_LAPACKE_##p##gesv(LAPACK_COL_MAJOR, n, k, a, std::max(1, n), piv, b,           \
                                     std::max(1, n));                                             \
    }                                                                                             \
    static int potrf(char uplo, int n, T* a) {                                                    \
      return scipy_LAPACKE_##p##potrf(LAPACK_COL_MAJOR, uplo, n, a, std::max(1, n));              \
    }                                                                                             \
    static int geqrf(int m, int n, T* a, T* tau) {                                                \
      return scipy_LAPACKE_##p##geqrf(LAPACK_COL_MAJOR, m, n, a, std::max(1, m), tau);            \
    }                                                                                             \
    static int orgqr(int m, int n, int k, T* a, const T* tau) {                                   \
      return scipy_LAPACKE_##p##orgqr(LAPACK_COL_MAJOR, m, n, k, a, std::max(1, m), tau);         \
    }                                                                                             \
    static int gesdd(char jobz, int m, int n, T* a, T* s, T* u, int ldu, T* vt, int ldvt) {       \
      return scipy_LAPACKE_##p##gesdd(LAPACK_COL_MAJOR, jobz, m, n, a, std::max(1, m), s, u, ldu, \
                                      vt, ldvt);                                                  \
    }                                                                                             \
    static int syevd(char jobz, char uplo, int n, T* a, T* w) {                                   \
      return scipy_LAPACKE_##p##syevd(LAPACK_COL_MAJOR, jobz, uplo, n, a, std::max(1, n), w);     \
    }                                                                                             \
    static int geev(char jobvr, int n, T* a, T* wr, T* wi, T* vr) {                               \
      T dummy;                                                                                    \
      return scipy_LAPACKE_##p##geev(LAPACK_COL_MAJOR, 'N', jobvr, n, a, std::max(1, n), wr, wi,  \
                                     &dummy, 1, vr, std::max(1, n));                              \
    }                                                                                             \
    static int gelsd(int m, int n, int k, T* a, T* b, int ldb, T* s, T rcond, int* rank) {        \
      return scipy_LAPACKE_##p##gelsd(LAPACK_COL_MAJOR, m, n, k, a, std::max(1, m), b, ldb, s,    \
                                      rcond, rank);                                               \
    }                                                                                             \
    static void trsm(bool upper, bool unit, int n, int k, const T* a, T* b) {                     \
      scipy_cblas_##p##trsm(CblasColMajor, CblasLeft, upper ? CblasUpper : CblasLower,            \
                            CblasNoTrans, unit ? CblasUnit : CblasNonUnit, n, k, T(1), a,         \
                            std::max(1, n), b, std::max(1, n));                                   \
    }                                                                                             \
  };
TC_LAPACK(float, s)
TC_LAPACK(double, d)
#undef TC_LAPACK

// ---------------------------------------------------------------- buffers
// The batch dims of t (all but the last two) and their product.
static Shape batch_of(const Tensor& t, int64_t& count) {
  Shape b(t.sizes().begin(), t.sizes().end() - 2);
  count = 1;
  for (auto s : b) count *= s;
  return b;
}

// Note [Column-major batches]: a fresh (B, n, m) copy of t (..., m, n) (never t's own
// storage: the kernels overwrite it).
static Tensor colmajor(const Tensor& t, int64_t count) {
  int64_t d = t.dim();
  Shape s = t.sizes();
  std::swap(s[d - 1], s[d - 2]);
  Tensor buf = empty(s, t.dtype(), t.device());
  copy_(buf, transpose(t, d - 1, d - 2));
  return view(buf, {count, s[d - 2], s[d - 1]});
}

// A fresh contiguous (B, m, n) copy of t (..., m, n).
static Tensor rowmajor(const Tensor& t, int64_t count) {
  Tensor buf = empty(t.sizes(), t.dtype(), t.device());
  copy_(buf, t);
  return view(buf, {count, t.size(t.dim() - 2), t.size(t.dim() - 1)});
}

// (B, cols, rows) buffer -> (..., rows, cols) view
static Tensor from_colmajor(const Tensor& buf, Shape batch) {
  batch.push_back(buf.size(1));
  batch.push_back(buf.size(2));
  Tensor v = view(buf, batch);
  return transpose(v, v.dim() - 1, v.dim() - 2);
}

static Shape with(Shape s, std::initializer_list<int64_t> tail) {
  for (auto t : tail) s.push_back(t);
  return s;
}

static void check_float(const Tensor& a, const char* op) {
  TC_CHECK(a.dtype() == ScalarType::Float || a.dtype() == ScalarType::Double, Runtime, op,
           ": expected a float32 or float64 tensor, got ", dtype_name(a.dtype()));
  TC_CHECK(a.dim() >= 2, Runtime, op, ": expected a tensor with 2 or more dimensions, got shape ",
           shape_str(a.sizes()));
}

static int to_int(int64_t v, const char* op) {
  TC_CHECK(v < (int64_t(1) << 31), NotImplemented, op, ": matrix dimensions of 2^31 or more ",
           "are not supported");
  return int(v);
}

// Run f(i) for each matrix i of a batch, across threads when the whole batch is enough
// work. f must not call BLAS or LAPACK (never inside an OpenMP region).
template <class F>
static void for_batch(int64_t count, int64_t flops_each, const F& f) {
  bool par = count > 1 && count * flops_each >= kGrain && get_num_threads() > 1;
  if (!par) {
    for (int64_t i = 0; i < count; i++) f(i);
    return;
  }
#pragma omp parallel for num_threads(get_num_threads()) schedule(static)
  for (int64_t i = 0; i < count; i++) f(i);
}

// ---------------------------------------------------------------- small solve
// Gaussian elimination with partial pivoting on [A | B] for tiny systems, so a batch can
// run across threads without LAPACK's per-call overhead. a: n x n and b: n x k, both
// row-major (the inner loops run along contiguous rows). Returns LAPACK's info: the
// 1-based index of the first zero pivot, 0 when A is invertible.
template <class T>
static int small_gesv(int n, int k, T* a, T* b) {
  for (int j = 0; j < n; j++) {
    int p = j;
    T best = std::abs(a[j * n + j]);
    for (int i = j + 1; i < n; i++)
      if (std::abs(a[i * n + j]) > best) best = std::abs(a[(p = i) * n + j]);
    if (best == T(0)) return j + 1;
    if (p != j) {
      std::swap_ranges(a + j * n, a + j * n + n, a + p * n);
      std::swap_ranges(b + j * k, b + j * k + k, b + p * k);
    }
    T inv = T(1) / a[j * n + j];
    for (int i = j + 1; i < n; i++) {
      T f = a[i * n + j] * inv;
      for (int c = j + 1; c < n; c++) a[i * n + c] -= f * a[j * n + c];
      for (int c = 0; c < k; c++) b[i * k + c] -= f * b[j * k + c];
    }
  }
  for (int j = n - 1; j >= 0; j--) {  // back substitution: U X = B'
    T inv = T(1) / a[j * n + j];
    for (int c = 0; c < k; c++) b[j * k + c] *= inv;
    for (int i = 0; i < j; i++) {
      T f = a[i * n + j];
      for (int c = 0; c < k; c++) b[i * k + c] -= f * b[j * k + c];
    }
  }
  return 0;
}

// Systems up to this size take small_gesv (row-major buffers), larger ones LAPACK's gesv.
constexpr int64_t kSmallSolve = 32;

template <class T>
static T* mat(const Tensor& buf, int64_t i) {
  return buf.data_as<T>() + i * buf.size(1) * buf.size(2);
}

// LAPACK's eigenvalue and least-squares drivers corrupt the heap or spin on NaN/infinity
// (reference LAPACK does too), so their inputs are checked first.
template <class T>
static void check_finite(const Tensor& buf, int64_t i, const char* op) {
  const T* p = mat<T>(buf, i);
  for (int64_t j = 0, n = buf.size(1) * buf.size(2); j < n; j++)
    TC_CHECK(std::isfinite(p[j]), Runtime, op, ": the input contains NaN or infinity (matrix ", i,
             " of the batch)");
}

template <class T>
void lu_factor_kernel(const Tensor& a, const Tensor& piv, const Tensor& info) {
  int rows = int(a.size(2)), cols = int(a.size(1));
  for (int64_t i = 0; i < a.size(0); i++)
    info.data_as<int>()[i] =
        Lapack<T>::getrf(rows, cols, mat<T>(a, i), piv.data_as<int>() + i * piv.size(1));
}

template <class T>
void solve_kernel(const Tensor& a, const Tensor& b, const Tensor& info) {
  int n = int(a.size(1)), k = int(b.size(1));
  int* inf = info.data_as<int>();
  if (n <= kSmallSolve) {
    k = int(b.size(2));
    for_batch(a.size(0), int64_t(n) * n * (n + k),
              [&](int64_t i) { inf[i] = small_gesv<T>(n, k, mat<T>(a, i), mat<T>(b, i)); });
    return;
  }
  std::vector<int> piv(n);
  for (int64_t i = 0; i < a.size(0); i++)
    inf[i] = Lapack<T>::gesv(n, k, mat<T>(a, i), piv.data(), mat<T>(b, i));
}

template <class T>
void cholesky_kernel(const Tensor& a, bool upper, const Tensor& info) {
  int n = int(a.size(1));
  for (int64_t i = 0; i < a.size(0); i++) {
    T* p = mat<T>(a, i);
    info.data_as<int>()[i] = Lapack<T>::potrf(upper ? 'U' : 'L', n, p);
    for (int c = 0; c < n; c++)  // zero the other triangle
      for (int r = 0; r < n; r++)
        if (upper ? r > c : r < c) p[c * n + r] = T(0);
  }
}

// q: (B, qcols, m) gets the first qcols columns of Q (qcols may be 0: R only); a gets R.
template <class T>
void qr_kernel(const Tensor& a, const Tensor& q, const Tensor& info) {
  int m = int(a.size(2)), n = int(a.size(1)), k = std::min(m, n), qc = int(q.size(1));
  std::vector<T> tau(std::max(k, 1));
  for (int64_t i = 0; i < a.size(0); i++) {
    T* p = mat<T>(a, i);
    int r = m && n ? Lapack<T>::geqrf(m, n, p, tau.data()) : 0;
    if (qc > 0 && m > 0) {
      T* pq = mat<T>(q, i);
      std::copy(p, p + int64_t(std::min(qc, n)) * m, pq);
      if (r == 0) r = Lapack<T>::orgqr(m, qc, std::min(k, qc), pq, tau.data());
    }
    for (int c = 0; c < n; c++)
      for (int row = c + 1; row < m; row++) p[int64_t(c) * m + row] = T(0);
    info.data_as<int>()[i] = r;
  }
}

template <class T>
static void set_identity(T* p, int64_t rows, int64_t cols) {
  std::fill(p, p + rows * cols, T(0));
  for (int64_t j = 0; j < std::min(rows, cols); j++) p[j * rows + j] = T(1);
}

// u: (B, ucols, m), vt: (B, n, vrows), s: (B, k)
template <class T>
void svd_kernel(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt, char jobz,
                const Tensor& info) {
  int m = int(a.size(2)), n = int(a.size(1));
  int ldu = std::max(1, m), ldvt = jobz == 'N' ? 1 : std::max<int>(1, int(vt.size(2)));
  T dummy[1];
  for (int64_t i = 0; i < a.size(0); i++) {
    T* pu = jobz == 'N' ? dummy : mat<T>(u, i);
    T* pv = jobz == 'N' ? dummy : mat<T>(vt, i);
    if (m == 0 || n == 0) {
      if (jobz != 'N') {
        set_identity(pu, u.size(2), u.size(1));
        set_identity(pv, vt.size(2), vt.size(1));
      }
      info.data_as<int>()[i] = 0;
      continue;
    }
    info.data_as<int>()[i] = Lapack<T>::gesdd(
        jobz, m, n, mat<T>(a, i), s.data_as<T>() + i * std::min(m, n), pu, ldu, pv, ldvt);
  }
}

template <class T>
void eigh_kernel(const Tensor& a, const Tensor& w, bool upper, bool vectors, const Tensor& info) {
  int n = int(a.size(1));
  for (int64_t i = 0; i < a.size(0); i++)
    info.data_as<int>()[i] = n == 0 ? 0
                                    : Lapack<T>::syevd(vectors ? 'V' : 'N', upper ? 'U' : 'L', n,
                                                       mat<T>(a, i), w.data_as<T>() + i * n);
}

// w (B, n) and v (B, n, n) are complex; LAPACK's real form is unpacked: a conjugate pair
// (wi_j > 0, wi_{j+1} = -wi_j) shares two real columns, v_j = vr_j + i vr_{j+1} and
// v_{j+1} = conj(v_j).
template <class T>
void eig_kernel(const Tensor& a, const Tensor& w, const Tensor& v, bool vectors,
                const Tensor& info) {
  using C = std::complex<T>;
  int n = int(a.size(1));
  std::vector<T> wr(n), wi(n), vr(vectors ? size_t(n) * n : 1);
  for (int64_t i = 0; i < a.size(0); i++) check_finite<T>(a, i, "linalg.eig");
  for (int64_t i = 0; i < a.size(0); i++) {
    int status = n == 0 ? 0
                        : Lapack<T>::geev(vectors ? 'V' : 'N', n, mat<T>(a, i), wr.data(),
                                          wi.data(), vr.data());
    info.data_as<int>()[i] = status;
    if (status != 0) continue;
    C* wc = w.data_as<C>() + i * n;
    for (int j = 0; j < n; j++) wc[j] = C(wr[j], wi[j]);
    if (!vectors) continue;
    C* vc = mat<C>(v, i);
    for (int j = 0; j < n; j++) {
      const T* col = vr.data() + size_t(j) * n;
      C* out = vc + size_t(j) * n;
      if (wi[j] == 0) {
        for (int r = 0; r < n; r++) out[r] = C(col[r], 0);
      } else if (wi[j] > 0 && j + 1 < n) {
        for (int r = 0; r < n; r++) out[r] = C(col[r], col[r + n]);
      } else if (j > 0) {  // the second of a pair: the conjugate of the first
        for (int r = 0; r < n; r++) out[r] = std::conj(vc[size_t(j - 1) * n + r]);
      }
    }
  }
}

template <class T>
void triangular_solve_kernel(const Tensor& a, const Tensor& b, bool upper, bool unit) {
  int n = int(a.size(1)), k = int(b.size(1));
  for (int64_t i = 0; i < a.size(0); i++)
    Lapack<T>::trsm(upper, unit, n, k, mat<T>(a, i), mat<T>(b, i));
}

// b: (B, k, max(m, n)) with the right-hand sides in its first m rows
template <class T>
void lstsq_kernel(const Tensor& a, const Tensor& b, const Tensor& s, const Tensor& rank,
                  double rcond, const Tensor& info) {
  int m = int(a.size(2)), n = int(a.size(1)), k = int(b.size(1)), ldb = int(b.size(2));
  for (int64_t i = 0; i < a.size(0); i++) {
    int r = 0, res = 0;
    if (m > 0 && n > 0 && k > 0) {
      check_finite<T>(a, i, "linalg.lstsq");
      check_finite<T>(b, i, "linalg.lstsq");
    }
    if (m > 0 && n > 0 && k > 0)
      res = Lapack<T>::gelsd(m, n, k, mat<T>(a, i), mat<T>(b, i), std::max(1, ldb),
                             s.data_as<T>() + i * std::min(m, n), T(rcond), &r);
    rank.data_as<int64_t>()[i] = r;
    info.data_as<int>()[i] = res;
  }
}

// ---------------------------------------------------------------- front ends
static Tensor info_like(const Shape& batch, int64_t count) {
  return view(empty({count}, ScalarType::Int), batch);
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor(const Tensor& a) {
  check_float(a, "linalg.lu_factor");
  int64_t count, m = a.size(a.dim() - 2), n = a.size(a.dim() - 1);
  to_int(std::max(m, n), "linalg.lu_factor");
  Shape batch = batch_of(a, count);
  Tensor buf = colmajor(a, count), piv = empty({count, std::min(m, n)}, ScalarType::Int);
  Tensor info = empty({count}, ScalarType::Int);
  if (m > 0 && n > 0)
    find_kernel<LuFactorFn>(Op::lu_factor, a.device(), a.dtype())(buf, piv, info);
  else
    fill_(info, Scalar::from_int(0));
  return {from_colmajor(buf, batch), view(piv, with(batch, {std::min(m, n)})), view(info, batch)};
}

// a (..., n, n), b (..., n, k) with the same batch dims
std::pair<Tensor, Tensor> linalg_solve_ex(const Tensor& a, const Tensor& b) {
  check_float(a, "linalg.solve");
  int64_t count;
  Shape batch = batch_of(a, count);
  to_int(a.size(a.dim() - 1), "linalg.solve");
  int64_t n = a.size(a.dim() - 1), k = b.size(b.dim() - 1);
  bool small = n <= kSmallSolve;
  Tensor abuf = small ? rowmajor(a, count) : colmajor(a, count);
  Tensor bbuf = small ? rowmajor(b, count) : colmajor(b, count);
  Tensor info = empty({count}, ScalarType::Int);
  fill_(info, Scalar::from_int(0));
  if (n > 0 && k > 0) find_kernel<SolveFn>(Op::lu_solve, a.device(), a.dtype())(abuf, bbuf, info);
  return {small ? view(bbuf, with(batch, {n, k})) : from_colmajor(bbuf, batch), view(info, batch)};
}

// a (..., n, n) triangular, b (..., n, k) with the same batch dims; no singularity check
// (a zero diagonal gives inf/nan, as in PyTorch)
Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool unit) {
  check_float(a, "linalg.solve_triangular");
  int64_t count, n = a.size(a.dim() - 1), k = b.size(b.dim() - 1);
  to_int(std::max(n, k), "linalg.solve_triangular");
  Shape batch = batch_of(a, count);
  Tensor abuf = colmajor(a, count), bbuf = colmajor(b, count);
  if (n > 0 && k > 0)
    find_kernel<TriSolveFn>(Op::triangular_solve, a.device(), a.dtype())(abuf, bbuf, upper, unit);
  return from_colmajor(bbuf, batch);
}

std::pair<Tensor, Tensor> linalg_cholesky_ex(const Tensor& a, bool upper) {
  check_float(a, "linalg.cholesky");
  int64_t count;
  Shape batch = batch_of(a, count);
  to_int(a.size(a.dim() - 1), "linalg.cholesky");
  Tensor buf = colmajor(a, count), info = empty({count}, ScalarType::Int);
  find_kernel<CholeskyFn>(Op::cholesky, a.device(), a.dtype())(buf, upper, info);
  return {from_colmajor(buf, batch), view(info, batch)};
}

// mode: "reduced", "complete" or "r"; returns (Q, R) with Q empty for "r"
std::pair<Tensor, Tensor> linalg_qr(const Tensor& a, const std::string& mode) {
  check_float(a, "linalg.qr");
  TC_CHECK(mode == "reduced" || mode == "complete" || mode == "r", Value,
           "linalg.qr: mode must be 'reduced', 'complete' or 'r', got '", mode, "'");
  int64_t count, m = a.size(a.dim() - 2), n = a.size(a.dim() - 1), k = std::min(m, n);
  to_int(std::max(m, n), "linalg.qr");
  Shape batch = batch_of(a, count);
  int64_t qc = mode == "r" ? 0 : mode == "complete" ? m : k;
  Tensor buf = colmajor(a, count), q = empty({count, qc, m}, a.dtype());
  Tensor info = empty({count}, ScalarType::Int);
  find_kernel<QrFn>(Op::qr, a.device(), a.dtype())(buf, q, info);
  Tensor r = from_colmajor(buf, batch);  // (..., m, n): R is its first rows
  int64_t rrows = mode == "complete" ? m : k;
  r = narrow(r, r.dim() - 2, 0, rrows);
  Tensor qv = mode == "r" ? empty({0}, a.dtype()) : from_colmajor(q, batch);
  return {qv, r};
}

// returns (U, S, Vh, info); U and Vh are empty when compute_uv is false
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices,
                                                      bool compute_uv) {
  check_float(a, "linalg.svd");
  int64_t count, m = a.size(a.dim() - 2), n = a.size(a.dim() - 1), k = std::min(m, n);
  to_int(std::max(m, n), "linalg.svd");
  Shape batch = batch_of(a, count);
  char jobz = !compute_uv ? 'N' : full_matrices ? 'A' : 'S';
  int64_t uc = full_matrices ? m : k, vr = full_matrices ? n : k;
  Tensor buf = colmajor(a, count), s = empty({count, k}, a.dtype());
  Tensor u = compute_uv ? empty({count, uc, m}, a.dtype()) : empty({0}, a.dtype());
  Tensor vt = compute_uv ? empty({count, n, vr}, a.dtype()) : empty({0}, a.dtype());
  Tensor info = empty({count}, ScalarType::Int);
  find_kernel<SvdFn>(Op::svd, a.device(), a.dtype())(buf, s, u, vt, jobz, info);
  Tensor sv = view(s, with(batch, {k}));
  if (!compute_uv) return {u, sv, vt, view(info, batch)};
  return {from_colmajor(u, batch), sv, from_colmajor(vt, batch), view(info, batch)};
}

// returns (eigenvalues ascending, eigenvectors or empty, info)
std::tuple<Tensor, Tensor, Tensor> linalg_eigh(const Tensor& a, bool upper, bool vectors) {
  check_float(a, "linalg.eigh");
  int64_t count, n = a.size(a.dim() - 1);
  to_int(n, "linalg.eigh");
  Shape batch = batch_of(a, count);
  Tensor buf = colmajor(a, count), w = empty({count, n}, a.dtype());
  Tensor info = empty({count}, ScalarType::Int);
  find_kernel<EighFn>(Op::eigh, a.device(), a.dtype())(buf, w, upper, vectors, info);
  Tensor v = vectors ? from_colmajor(buf, batch) : empty({0}, a.dtype());
  return {view(w, with(batch, {n})), v, view(info, batch)};
}

// returns (eigenvalues, right eigenvectors with unit-norm columns or empty, info); both
// complex (complex64 for float32 input, complex128 for float64)
std::tuple<Tensor, Tensor, Tensor> linalg_eig(const Tensor& a, bool vectors) {
  check_float(a, "linalg.eig");
  int64_t count, n = a.size(a.dim() - 1);
  to_int(n, "linalg.eig");
  Shape batch = batch_of(a, count);
  ScalarType ct = complex_dtype(a.dtype());
  Tensor buf = colmajor(a, count), w = empty({count, n}, ct);
  Tensor v = vectors ? empty({count, n, n}, ct) : empty({0}, ct);
  Tensor info = empty({count}, ScalarType::Int);
  find_kernel<EigFn>(Op::eig, a.device(), a.dtype())(buf, w, v, vectors, info);
  return {view(w, with(batch, {n})), vectors ? from_colmajor(v, batch) : v, view(info, batch)};
}

// a (..., m, n), b (..., m, k) with the same batch dims; returns (X (..., n, k), the
// rows m..max(m,n) of the transformed b (..., m-n, k) for residuals, rank (...) int64,
// singular values (..., min(m, n)), info)
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> linalg_lstsq(const Tensor& a, const Tensor& b,
                                                                double rcond) {
  check_float(a, "linalg.lstsq");
  int64_t count, m = a.size(a.dim() - 2), n = a.size(a.dim() - 1), k = b.size(b.dim() - 1);
  to_int(std::max(m, n), "linalg.lstsq");
  Shape batch = batch_of(a, count);
  int64_t ld = std::max(m, n);
  Tensor abuf = colmajor(a, count), bbuf = empty({count, k, ld}, a.dtype());
  fill_(bbuf, Scalar::from_int(0));
  copy_(narrow(bbuf, 2, 0, m), colmajor(b, count));
  Tensor s = empty({count, std::min(m, n)}, a.dtype()), rank = empty({count}, ScalarType::Long);
  Tensor info = empty({count}, ScalarType::Int);
  find_kernel<LstsqFn>(Op::lstsq, a.device(), a.dtype())(abuf, bbuf, s, rank, rcond, info);
  Tensor x = from_colmajor(bbuf, batch);  // (..., ld, k)
  Tensor sol = narrow(x, x.dim() - 2, 0, n);
  Tensor rest = narrow(x, x.dim() - 2, n, ld - n);
  return {sol, rest, view(rank, batch), view(s, with(batch, {std::min(m, n)})), view(info, batch)};
}

void register_linalg_kernels() {
  scipy_LAPACKE_set_nancheck(0);  // NaN inputs give NaN results, as in PyTorch
  reg_each<float, double>(Op::lu_factor, TC_KERNEL(lu_factor_kernel));
  reg_each<float, double>(Op::lu_solve, TC_KERNEL(solve_kernel));
  reg_each<float, double>(Op::cholesky, TC_KERNEL(cholesky_kernel));
  reg_each<float, double>(Op::qr, TC_KERNEL(qr_kernel));
  reg_each<float, double>(Op::svd, TC_KERNEL(svd_kernel));
  reg_each<float, double>(Op::eigh, TC_KERNEL(eigh_kernel));
  reg_each<float, double>(Op::eig, TC_KERNEL(eig_kernel));
  reg_each<float, double>(Op::lstsq, TC_KERNEL(lstsq_kernel));
  reg_each<float, double>(Op::triangular_solve, TC_KERNEL(triangular_solve_kernel));
}

}  // namespace tc
