// sparse_kernels.cpp — kernels of the sparse layouts (torch/_sparse.py): products of a sparse
// matrix with a dense one, the gradient of its values (sampled dense-dense product),
// coalescing, and row accumulation (index_add_ along dim 0, the sparse SGD update).
//
// Every entry point is a raw kernel bound with `nograd`: torch/_sparse.py records autograd
// itself. Each one validates all its arguments (device, dtype, shape, and every index it will
// follow) before it reads or writes through them, so a direct call of torch._C._sparse_* may
// raise but never reads or writes out of bounds.
//
// Parallelism: the product of a row-sorted matrix (CSR, coalesced COO) hands blocks of output
// rows to OpenMP threads; the products of unsorted entries and the row accumulation give each
// thread a range of output rows that it alone writes (every thread scans all the entries and
// keeps those that land in its range), so there are no atomics and the result does not
// depend on the number of threads.
#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "bind.h"

namespace tc {
namespace {

// ---------------------------------------------------------------- argument checks
void check_cpu(const Tensor& t, const char* op, const char* name) {
  TC_CHECK(t.defined(), Type, op, "(): expected a tensor for ", name);
  TC_CHECK(t.device().type == DeviceType::CPU, Runtime, op, "(): expected ", name,
           " on the CPU, got a tensor on ", t.device().str());
}

// A 1-D int64 CPU tensor, made contiguous.
Tensor index_vector(const Tensor& t, const char* op, const char* name) {
  check_cpu(t, op, name);
  TC_CHECK(t.dtype() == ScalarType::Long, Runtime, op, "(): expected ", name,
           " of dtype int64, got ", dtype_name(t.dtype()));
  TC_CHECK(t.dim() == 1, Runtime, op, "(): expected ", name, " to be 1-D, got shape ",
           shape_str(t.sizes()));
  return contiguous(t);
}

// A float32/float64 CPU tensor of `ndim` dims, made contiguous.
Tensor float_tensor(const Tensor& t, int64_t ndim, const char* op, const char* name) {
  check_cpu(t, op, name);
  TC_CHECK(t.dtype() == ScalarType::Float || t.dtype() == ScalarType::Double, Runtime, op,
           "(): expected ", name, " of dtype float32 or float64, got ", dtype_name(t.dtype()));
  TC_CHECK(t.dim() == ndim, Runtime, op, "(): expected ", name, " to be ", ndim, "-D, got shape ",
           shape_str(t.sizes()));
  return contiguous(t);
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* op, const char* na,
                      const char* nb) {
  TC_CHECK(a.dtype() == b.dtype(), Runtime, op, "(): expected ", na, " and ", nb,
           " to have one dtype, got ", dtype_name(a.dtype()), " and ", dtype_name(b.dtype()));
}

int num_threads_for(int64_t work, int64_t grain) {
  return work >= grain ? std::max(1, get_num_threads()) : 1;
}

// The position of the first of p[0..n) outside [0, size), or -1 (a branch-free parallel count
// first: the common case reads the indices once, vectorised).
int64_t first_out_of_range(const int64_t* p, int64_t n, int64_t size) {
  int64_t bad = 0;
  const uint64_t lim = uint64_t(size);
#pragma omp parallel for num_threads(num_threads_for(n, kCheapGrain)) reduction(+ : bad)
  for (int64_t k = 0; k < n; k++) bad += uint64_t(p[k]) >= lim;
  if (!bad) return -1;
  for (int64_t k = 0; k < n; k++)
    if (uint64_t(p[k]) >= lim) return k;
  return -1;
}

void check_in_range(const int64_t* p, int64_t n, int64_t size, int64_t dim, const char* op) {
  const int64_t k = first_out_of_range(p, n, size);
  if (k >= 0)
    fail(ErrorKind::Index, op, "(): index ", p[k], " is out of bounds for dimension ", dim,
         " with size ", size);
}

int64_t checked_mul(int64_t a, int64_t b, const char* op) {
  int64_t r;
  TC_CHECK(!__builtin_mul_overflow(a, b, &r), Runtime, op, "(): size ", a, " x ", b,
           " overflows int64");
  return r;
}

// Whether p[0..n) is non-decreasing.
bool is_sorted_parallel(const int64_t* p, int64_t n) {
  int64_t descents = 0;
#pragma omp parallel for num_threads(num_threads_for(n, kCheapGrain)) reduction(+ : descents)
  for (int64_t k = 1; k < n; k++) descents += p[k] < p[k - 1];
  return descents == 0;
}

// ---------------------------------------------------------------- sparse (CSR) x dense
// Output row o[0..W) = sum over the row's entries k of val[k] * B[col[k], 0..W): the W
// accumulators stay in registers, and the B rows of later entries are prefetched (B is read
// at random rows, the product's memory-bound part).
constexpr int64_t kPrefetch = 8;

template <class T, int W>
inline void csr_row_block(const int64_t* col, const T* val, int64_t k0, int64_t k1, int64_t nnz,
                          const T* B, int64_t ldb, T* o) {
  T acc[W];
  for (int j = 0; j < W; j++) acc[j] = T(0);
  for (int64_t k = k0; k < k1; k++) {
    if (k + kPrefetch < nnz) {
      const char* p = reinterpret_cast<const char*>(B + col[k + kPrefetch] * ldb);
      for (int line = 0; line < int(W * sizeof(T)); line += 64) __builtin_prefetch(p + line);
    }
    const T v = val[k];
    const T* b = B + col[k] * ldb;
    for (int j = 0; j < W; j++) acc[j] += v * b[j];
  }
  for (int j = 0; j < W; j++) o[j] = acc[j];
}

template <class T>
TC_MULTIVERSION void csr_rows(const int64_t* crow, const int64_t* col, const T* val, int64_t nnz,
                              const T* B, int64_t n, T* out, int64_t r0, int64_t r1) {
  constexpr int W = 256 / sizeof(T);  // 64 floats, 32 doubles: four cache lines of B
  constexpr int W4 = W / 4;
  for (int64_t r = r0; r < r1; r++) {
    const int64_t k0 = crow[r], k1 = crow[r + 1];
    T* o = out + r * n;
    int64_t j = 0;
    for (; j + W <= n; j += W) csr_row_block<T, W>(col, val, k0, k1, nnz, B + j, n, o + j);
    for (; j + W4 <= n; j += W4) csr_row_block<T, W4>(col, val, k0, k1, nnz, B + j, n, o + j);
    for (; j < n; j++) {
      T acc = T(0);
      for (int64_t k = k0; k < k1; k++) acc += val[k] * B[col[k] * n + j];
      o[j] = acc;
    }
  }
}

// out (rows x n) = CSR (crow, col, val) @ B (K x n, contiguous); every index already checked.
template <class T>
void csr_mm_run(const int64_t* crow, const int64_t* col, const T* val, int64_t rows, int64_t nnz,
                const T* B, int64_t n, T* out) {
  const int64_t work = nnz * std::max<int64_t>(n, 1) + rows * n;  // both < numel bounds
  const int nt = num_threads_for(work, kGrain);
  if (nt <= 1) {
    csr_rows<T>(crow, col, val, nnz, B, n, out, 0, rows);
    return;
  }
  const int64_t chunk = std::max<int64_t>(1, rows / (int64_t(nt) * 32));
  const int64_t nchunks = (rows + chunk - 1) / chunk;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
  for (int64_t c = 0; c < nchunks; c++)
    csr_rows<T>(crow, col, val, nnz, B, n, out, c * chunk, std::min(rows, (c + 1) * chunk));
}

// Rows of the output that thread `t` of `nt` owns: [lo, hi).
inline std::pair<int64_t, int64_t> owned_rows(int64_t rows, int t, int nt) {
  return {rows * t / nt, rows * (t + 1) / nt};
}

// out[rows[k], :] += val[k] * B[cols[k], :] for the entries whose row lies in [lo, hi)
// (after zeroing those output rows).
template <class T>
TC_MULTIVERSION void scatter_rows(const int64_t* rows, const int64_t* cols, const T* val,
                                  int64_t nnz, const T* B, int64_t n, T* out, int64_t lo,
                                  int64_t hi) {
  std::fill(out + lo * n, out + hi * n, T(0));
  for (int64_t k = 0; k < nnz; k++) {
    const int64_t r = rows[k];
    if (r < lo || r >= hi) continue;
    const T v = val[k];
    const T* __restrict b = B + cols[k] * n;
    T* __restrict o = out + r * n;
    for (int64_t j = 0; j < n; j++) o[j] += v * b[j];
  }
}

template <class T>
void scatter_mm_run(const int64_t* rows, const int64_t* cols, const T* val, int64_t nrows,
                    int64_t nnz, const T* B, int64_t n, T* out) {
  const int nt = int(std::min<int64_t>(num_threads_for(nnz * std::max<int64_t>(n, 1), kGrain),
                                       std::max<int64_t>(nrows, 1)));
  if (nt <= 1) {
    scatter_rows<T>(rows, cols, val, nnz, B, n, out, 0, nrows);
    return;
  }
#pragma omp parallel num_threads(nt)
  {
    auto [lo, hi] = owned_rows(nrows, omp_get_thread_num(), omp_get_num_threads());
    scatter_rows<T>(rows, cols, val, nnz, B, n, out, lo, hi);
  }
}

// The checks shared by both products: values and B of one float dtype, B's rows = `inner`.
struct MmArgs {
  Tensor val, B;
  int64_t n;
};
MmArgs mm_args(const Tensor& values, const Tensor& dense, int64_t nnz, int64_t inner,
               const char* op) {
  MmArgs a{float_tensor(values, 1, op, "values"), float_tensor(dense, 2, op, "dense"), 0};
  check_same_dtype(a.val, a.B, op, "values", "dense");
  TC_CHECK(a.val.size(0) == nnz, Runtime, op, "(): expected ", nnz, " values (one per index), got ",
           a.val.size(0));
  TC_CHECK(a.B.size(0) == inner, Runtime, op,
           "(): mat1 and mat2 shapes cannot be multiplied (the sparse matrix has ", inner,
           " columns, the dense one ", a.B.size(0), " rows)");
  a.n = a.B.size(1);
  return a;
}

// CSR (crow, col, values) of `ncols` columns @ dense -> dense (rows x n).
Tensor sparse_csr_mm(const Tensor& crow_in, const Tensor& col_in, const Tensor& values,
                     const Tensor& dense, Int64 ncols) {
  const char* op = "_sparse_csr_mm";
  Tensor crow = index_vector(crow_in, op, "crow_indices");
  Tensor col = index_vector(col_in, op, "col_indices");
  TC_CHECK(ncols >= 0, Runtime, op, "(): expected a non-negative number of columns, got ",
           int64_t(ncols));
  TC_CHECK(crow.size(0) >= 1, Runtime, op, "(): crow_indices must hold rows + 1 >= 1 entries");
  const int64_t rows = crow.size(0) - 1, nnz = col.size(0);
  MmArgs a = mm_args(values, dense, nnz, ncols, op);
  const int64_t* cr = crow.data_as<int64_t>();
  TC_CHECK(cr[0] == 0, Runtime, op, "(): 0th value of crow_indices must be 0, got ", cr[0]);
  TC_CHECK(cr[rows] == nnz, Runtime, op,
           "(): last value of crow_indices should be equal to the length of col_indices (", nnz,
           "), got ", cr[rows]);
  TC_CHECK(is_sorted_parallel(cr, rows + 1), Runtime, op,
           "(): crow_indices must be non-decreasing");
  check_in_range(col.data_as<int64_t>(), nnz, ncols, 1, op);
  safe_numel(Shape{rows, a.n}, op);
  Tensor out = empty(Shape{rows, a.n}, a.B.dtype());
  if (rows == 0 || a.n == 0) return out;
  visit_dtype(a.B.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      csr_mm_run<T>(cr, col.data_as<int64_t>(), a.val.data_as<T>(), rows, nnz, a.B.data_as<T>(),
                    a.n, out.data_as<T>());
  });
  return out;
}

// COO (rows, cols, values) of size (nrows, ncols) @ dense -> dense (nrows x n). Entries in
// any order, repeats allowed (they add up); row-sorted entries (a coalesced tensor) take the
// CSR kernel through row pointers made here.
Tensor sparse_coo_mm(const Tensor& rows_in, const Tensor& cols_in, const Tensor& values,
                     const Tensor& dense, Int64 nrows, Int64 ncols) {
  const char* op = "_sparse_coo_mm";
  Tensor rows = index_vector(rows_in, op, "row indices");
  Tensor cols = index_vector(cols_in, op, "column indices");
  TC_CHECK(nrows >= 0 && ncols >= 0, Runtime, op, "(): expected a non-negative size, got (",
           int64_t(nrows), ", ", int64_t(ncols), ")");
  const int64_t nnz = rows.size(0);
  TC_CHECK(cols.size(0) == nnz, Runtime, op, "(): expected as many row as column indices, got ",
           nnz, " and ", cols.size(0));
  MmArgs a = mm_args(values, dense, nnz, ncols, op);
  const int64_t* r = rows.data_as<int64_t>();
  const int64_t* c = cols.data_as<int64_t>();
  const bool sorted = is_sorted_parallel(r, nnz);
  if (sorted && nnz) {  // sorted rows lie in range when the first and last do
    if (r[0] < 0) check_in_range(r, 1, nrows, 0, op);
    if (r[nnz - 1] >= nrows) check_in_range(r + nnz - 1, 1, nrows, 0, op);
  } else {
    check_in_range(r, nnz, nrows, 0, op);
  }
  check_in_range(c, nnz, ncols, 1, op);
  safe_numel(Shape{nrows, a.n}, op);
  Tensor out = empty(Shape{nrows, a.n}, a.B.dtype());
  if (nrows == 0 || a.n == 0) return out;
  std::vector<int64_t> crow;
  if (sorted) {  // row pointers: crow[i] = the first entry of a row >= i
    crow.resize(size_t(nrows) + 1);
#pragma omp parallel for num_threads(num_threads_for(nrows, kGrain)) schedule(static)
    for (int64_t i = 0; i <= nrows; i++) crow[size_t(i)] = std::lower_bound(r, r + nnz, i) - r;
  }
  visit_dtype(a.B.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (sorted)
        csr_mm_run<T>(crow.data(), c, a.val.data_as<T>(), nrows, nnz, a.B.data_as<T>(), a.n,
                      out.data_as<T>());
      else
        scatter_mm_run<T>(r, c, a.val.data_as<T>(), nrows, nnz, a.B.data_as<T>(), a.n,
                          out.data_as<T>());
    }
  });
  return out;
}

// ---------------------------------------------------------------- sampled dense-dense product
// out[k] = dot(A[rows[k], :], B[cols[k], :]): the gradient of a sparse x dense product with
// respect to the sparse values (A the output's gradient, B the dense factor).
template <class T>
TC_MULTIVERSION void sddmm_range(const int64_t* rows, const int64_t* cols, const T* A, const T* B,
                                 int64_t n, T* out, int64_t k0, int64_t k1) {
  constexpr int L = 16;  // independent partial sums: the dot product vectorises
  for (int64_t k = k0; k < k1; k++) {
    const T* a = A + rows[k] * n;
    const T* b = B + cols[k] * n;
    if (k + kPrefetch < k1) {
      const char* p = reinterpret_cast<const char*>(B + cols[k + kPrefetch] * n);
      for (int64_t line = 0; line < std::min<int64_t>(n * int64_t(sizeof(T)), 256); line += 64)
        __builtin_prefetch(p + line);
    }
    T acc[L] = {};
    int64_t j = 0;
    for (; j + L <= n; j += L)
      for (int i = 0; i < L; i++) acc[i] += a[j + i] * b[j + i];
    for (int h = L / 2; h >= 1; h /= 2)  // a tree: short dependency chains
      for (int i = 0; i < h; i++) acc[i] += acc[i + h];
    T s = acc[0];
    for (; j < n; j++) s += a[j] * b[j];
    out[k] = s;
  }
}

Tensor sparse_sddmm(const Tensor& rows_in, const Tensor& cols_in, const Tensor& a_in,
                    const Tensor& b_in) {
  const char* op = "_sparse_sddmm";
  Tensor rows = index_vector(rows_in, op, "row indices");
  Tensor cols = index_vector(cols_in, op, "column indices");
  Tensor A = float_tensor(a_in, 2, op, "grad");
  Tensor B = float_tensor(b_in, 2, op, "dense");
  check_same_dtype(A, B, op, "grad", "dense");
  const int64_t nnz = rows.size(0), n = A.size(1);
  TC_CHECK(cols.size(0) == nnz, Runtime, op, "(): expected as many row as column indices, got ",
           nnz, " and ", cols.size(0));
  TC_CHECK(B.size(1) == n, Runtime, op, "(): expected grad and dense of one width, got ",
           shape_str(A.sizes()), " and ", shape_str(B.sizes()));
  check_in_range(rows.data_as<int64_t>(), nnz, A.size(0), 0, op);
  check_in_range(cols.data_as<int64_t>(), nnz, B.size(0), 0, op);
  Tensor out = empty(Shape{nnz}, A.dtype());
  if (nnz == 0) return out;
  visit_dtype(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const int64_t* r = rows.data_as<int64_t>();
      const int64_t* c = cols.data_as<int64_t>();
      const int nt = num_threads_for(nnz * std::max<int64_t>(n, 1), kGrain);
      const int64_t chunk = std::max<int64_t>(1024, nnz / (int64_t(nt) * 8));
      const int64_t nchunks = (nnz + chunk - 1) / chunk;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
      for (int64_t q = 0; q < nchunks; q++)
        sddmm_range<T>(r, c, A.data_as<T>(), B.data_as<T>(), n, out.data_as<T>(), q * chunk,
                       std::min(nnz, (q + 1) * chunk));
    }
  });
  return out;
}

// ---------------------------------------------------------------- coalesce
// The common case of coalescing (positions fit int64, no more first-dim values than ~4x the
// entries): a stable counting sort by the first index that carries each entry's row-major
// position along, then each bucket sorted by position (with the entry number, so equal
// positions keep their order); repeats are then neighbours, and the indices of each group
// come back from its position. Reads the indices once, in order.
py::tuple coalesce_by_buckets(const int64_t* I, int64_t nsp, int64_t nnz,
                              const std::vector<int64_t>& sizes, int64_t total,
                              const Tensor& perm_t, int nt) {
  const int64_t size0 = sizes[0], inner = total / size0;  // size0 > 0: it holds an index
  int64_t* perm = perm_t.data_as<int64_t>();
  std::unique_ptr<int64_t[]> keys(new int64_t[size_t(nnz)]);  // every slot is written
  // Per-thread histograms of the first index over contiguous blocks of entries (one thread
  // when they would cost more memory than the entries).
  const int nb = (int64_t(nt) * size0 <= nnz) ? nt : 1;
  std::vector<int64_t> pos(size_t(nb) * size_t(size0), 0);
  auto block = [&](int t) { return std::make_pair(nnz * t / nb, nnz * (t + 1) / nb); };
#pragma omp parallel for num_threads(nb) schedule(static, 1)
  for (int t = 0; t < nb; t++) {
    int64_t* h = pos.data() + size_t(t) * size_t(size0);
    auto [k0, k1] = block(t);
    for (int64_t k = k0; k < k1; k++) h[I[k]]++;
  }
  std::vector<int64_t> start(size_t(size0) + 1, 0);  // bucket b: [start[b], start[b + 1])
  {
    int64_t run = 0;
    for (int64_t b = 0; b < size0; b++) {
      start[size_t(b)] = run;
      for (int t = 0; t < nb; t++) {
        int64_t& h = pos[size_t(t) * size_t(size0) + size_t(b)];
        const int64_t c = h;
        h = run;
        run += c;
      }
    }
    start[size_t(size0)] = run;
  }
#pragma omp parallel for num_threads(nb) schedule(static, 1)
  for (int t = 0; t < nb; t++) {
    int64_t* h = pos.data() + size_t(t) * size_t(size0);
    auto [k0, k1] = block(t);
    for (int64_t k = k0; k < k1; k++) {
      int64_t key = I[k];
      for (int64_t d = 1; d < nsp; d++) key = key * sizes[size_t(d)] + I[d * nnz + k];
      const int64_t p = h[I[k]]++;
      perm[p] = k;
      keys[size_t(p)] = key;
    }
  }
  if (nsp >= 2) {
#pragma omp parallel num_threads(nt)
    {
      std::vector<std::pair<int64_t, int64_t>> buf;
#pragma omp for schedule(dynamic, 64)
      for (int64_t b = 0; b < size0; b++) {
        const int64_t b0 = start[size_t(b)], b1 = start[size_t(b) + 1];
        bool sorted = true;
        for (int64_t p = b0 + 1; p < b1 && sorted; p++)
          sorted = keys[size_t(p)] >= keys[size_t(p - 1)];
        if (sorted) continue;
        buf.resize(size_t(b1 - b0));
        for (int64_t p = b0; p < b1; p++) buf[size_t(p - b0)] = {keys[size_t(p)], perm[p]};
        std::sort(buf.begin(), buf.end());
        for (int64_t p = b0; p < b1; p++) {
          keys[size_t(p)] = buf[size_t(p - b0)].first;
          perm[p] = buf[size_t(p - b0)].second;
        }
      }
    }
  }
  // Groups: a new one starts where the position changes; counted per block, then written.
  const int64_t nblocks = std::min<int64_t>(nnz, int64_t(nt) * 8);
  std::vector<int64_t> first(size_t(nblocks) + 1, 0);
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t q = 0; q < nblocks; q++) {
    int64_t cnt = 0;
    for (int64_t p = nnz * q / nblocks; p < nnz * (q + 1) / nblocks; p++)
      cnt += p == 0 || keys[size_t(p)] != keys[size_t(p - 1)];
    first[size_t(q) + 1] = cnt;
  }
  for (int64_t q = 0; q < nblocks; q++) first[size_t(q) + 1] += first[size_t(q)];
  const int64_t u = first[size_t(nblocks)];
  Tensor out_idx = empty(Shape{nsp, u}, ScalarType::Long);
  Tensor offsets = empty(Shape{u + 1}, ScalarType::Long);
  int64_t* O = out_idx.data_as<int64_t>();
  int64_t* off = offsets.data_as<int64_t>();
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t q = 0; q < nblocks; q++) {
    int64_t g = first[size_t(q)];
    for (int64_t p = nnz * q / nblocks; p < nnz * (q + 1) / nblocks; p++) {
      const int64_t key = keys[size_t(p)];
      if (p > 0 && key == keys[size_t(p - 1)]) continue;
      off[g] = p;
      if (nsp == 1) {
        O[g] = key;
      } else if (nsp == 2) {
        const int64_t r = key / inner;
        O[g] = r;
        O[u + g] = key - r * inner;
      } else {
        int64_t rem = key;
        for (int64_t d = nsp - 1; d >= 0; d--) {
          const int64_t s = sizes[size_t(d)];
          O[d * u + g] = rem % s;
          rem /= s;
        }
      }
      g++;
    }
  }
  off[u] = nnz;
  return py::make_tuple(out_idx, perm_t, offsets);
}

// Sorts the entries of a COO tensor by their index (row-major over the sparse dims) and groups
// the repeats: returns (indices (nsp, u) sorted and unique, perm (nnz): the entries in sorted
// order, offsets (u + 1): group g is perm[offsets[g]:offsets[g + 1]]). The sort is stable.
py::tuple sparse_coalesce_index(const Tensor& indices_in, const std::vector<int64_t>& sizes) {
  const char* op = "_sparse_coalesce_index";
  check_cpu(indices_in, op, "indices");
  TC_CHECK(indices_in.dtype() == ScalarType::Long, Runtime, op,
           "(): expected indices of dtype int64, got ", dtype_name(indices_in.dtype()));
  TC_CHECK(indices_in.dim() == 2, Runtime, op, "(): indices must be sparse_dim x nnz, got ",
           shape_str(indices_in.sizes()));
  const int64_t nsp = indices_in.size(0), nnz = indices_in.size(1);
  TC_CHECK(int64_t(sizes.size()) == nsp, Runtime, op, "(): expected ", nsp,
           " sizes (one per sparse dim), got ", sizes.size());
  for (int64_t s : sizes) TC_CHECK(s >= 0, Runtime, op, "(): sizes must be non-negative, got ", s);
  Tensor indices = contiguous(indices_in);
  const int64_t* I = indices.data_as<int64_t>();
  for (int64_t d = 0; d < nsp; d++) check_in_range(I + d * nnz, nnz, sizes[size_t(d)], d, op);
  // Whether the row-major position over the sparse dims fits int64 (else: compare dims).
  int64_t total = 1;
  bool fits = true;
  for (int64_t s : sizes) fits = fits && !__builtin_mul_overflow(total, s, &total);

  Tensor perm_t = empty(Shape{nnz}, ScalarType::Long);
  int64_t* perm = perm_t.data_as<int64_t>();
  const int64_t size0 = nsp ? sizes[0] : 1;
  const int nt = num_threads_for(nnz, kGrain);
  if (nsp >= 1 && fits && nnz > 0 && size0 <= 4 * nnz + 65536)
    return coalesce_by_buckets(I, nsp, nnz, sizes, total, perm_t, nt);
  // Rare shapes (positions beyond int64, far more rows than entries): a stable comparison
  // sort of the entry numbers, reading the indices through them.
  auto same = [&](int64_t x, int64_t y) {  // entries x and y have one index
    for (int64_t d = 0; d < nsp; d++)
      if (I[d * nnz + x] != I[d * nnz + y]) return false;
    return true;
  };
  std::iota(perm, perm + nnz, int64_t(0));
  std::stable_sort(perm, perm + nnz, [&](int64_t x, int64_t y) {
    for (int64_t d = 0; d < nsp; d++) {
      const int64_t a = I[d * nnz + x], b = I[d * nnz + y];
      if (a != b) return a < b;
    }
    return false;
  });
  int64_t u = 0;
  for (int64_t p = 0; p < nnz; p++) u += p == 0 || !same(perm[p], perm[p - 1]);
  Tensor out_idx = empty(Shape{nsp, u}, ScalarType::Long);
  Tensor offsets = empty(Shape{u + 1}, ScalarType::Long);
  int64_t* O = out_idx.data_as<int64_t>();
  int64_t* off = offsets.data_as<int64_t>();
  for (int64_t p = 0, g = 0; p < nnz; p++) {
    if (p == 0 || !same(perm[p], perm[p - 1])) {
      off[g] = p;
      for (int64_t d = 0; d < nsp; d++) O[d * u + g] = I[d * nnz + perm[p]];
      g++;
    }
  }
  off[u] = nnz;
  return py::make_tuple(out_idx, perm_t, offsets);
}

// out[g] = sum of values[perm[p]] for p in [offsets[g], offsets[g + 1]): the values of a
// coalesced tensor (values (nnz, *dense) -> (u, *dense)).
template <class T>
void segment_sum_run(const T* V, const int64_t* perm, const int64_t* off, int64_t u, int64_t w,
                     T* out, int nt) {
  if (w == 1) {  // one number per entry: a gather-sum, the next entries prefetched
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t g = 0; g < u; g++) {
      const int64_t p0 = off[g], p1 = off[g + 1];
      if (p1 + 16 < off[u]) __builtin_prefetch(V + perm[p1 + 16]);
      T s = T(0);
      for (int64_t p = p0; p < p1; p++) s += V[perm[p]];
      out[g] = s;
    }
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(dynamic, 256)
  for (int64_t g = 0; g < u; g++) {
    T* o = out + g * w;
    const int64_t p0 = off[g], p1 = off[g + 1];
    if (p0 == p1) {
      std::fill(o, o + w, T(0));
      continue;
    }
    const T* first = V + perm[p0] * w;
    std::copy(first, first + w, o);
    for (int64_t p = p0 + 1; p < p1; p++) {
      const T* v = V + perm[p] * w;
      for (int64_t j = 0; j < w; j++) o[j] += v[j];
    }
  }
}

Tensor sparse_segment_sum(const Tensor& values_in, const Tensor& perm_in,
                          const Tensor& offsets_in) {
  const char* op = "_sparse_segment_sum";
  check_cpu(values_in, op, "values");
  const ScalarType dt = values_in.dtype();
  TC_CHECK(dt == ScalarType::Float || dt == ScalarType::Double || is_integral(dt, false), Runtime,
           op, "(): expected values of a float32, float64 or integer dtype, got ", dtype_name(dt));
  TC_CHECK(values_in.dim() >= 1, Runtime, op, "(): expected values of at least 1 dim");
  Tensor values = contiguous(values_in);
  Tensor perm = index_vector(perm_in, op, "perm");
  Tensor offsets = index_vector(offsets_in, op, "offsets");
  const int64_t nnz = values.size(0), np = perm.size(0);
  TC_CHECK(offsets.size(0) >= 1, Runtime, op, "(): offsets must hold groups + 1 >= 1 entries");
  const int64_t u = offsets.size(0) - 1;
  const int64_t* off = offsets.data_as<int64_t>();
  TC_CHECK(off[0] == 0 && off[u] == np, Runtime, op, "(): offsets must run from 0 to ", np,
           ", got ", off[0], " to ", off[u]);
  TC_CHECK(is_sorted_parallel(off, u + 1), Runtime, op, "(): offsets must be non-decreasing");
  check_in_range(perm.data_as<int64_t>(), np, nnz, 0, op);
  Shape shape = values.sizes();
  int64_t w = 1;
  for (size_t d = 1; d < shape.size(); d++) w = checked_mul(w, shape[d], op);
  shape[0] = u;
  safe_numel(shape, op);
  Tensor out = empty(shape, dt);
  if (u == 0 || w == 0) return out;
  const int nt = num_threads_for(np * w + u * w, kCheapGrain);
  visit_dtype(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                  (std::is_integral_v<T> && !std::is_same_v<T, bool>))
      segment_sum_run<T>(values.data_as<T>(), perm.data_as<int64_t>(), off, u, w, out.data_as<T>(),
                         nt);
  });
  return out;
}

// ---------------------------------------------------------------- index_add_ along dim 0
template <class T>
TC_MULTIVERSION void add_rows_range(T* self, const int64_t* idx, int64_t m, const T* src, int64_t w,
                                    T alpha, int64_t lo, int64_t hi) {
  for (int64_t k = 0; k < m; k++) {
    const int64_t r = idx[k];
    if (r < lo || r >= hi) continue;
    T* __restrict o = self + r * w;
    const T* __restrict s = src + k * w;
    for (int64_t j = 0; j < w; j++) o[j] += alpha * s[j];
  }
}

// self[index[k], ...] += alpha * source[k, ...], in place (repeats add up); self contiguous.
void index_add_rows_(const Tensor& self, const Tensor& index_in, const Tensor& source_in,
                     double alpha) {
  const char* op = "index_add_";
  check_cpu(self, op, "self");
  check_cpu(source_in, op, "source");
  TC_CHECK(self.dtype() == ScalarType::Float || self.dtype() == ScalarType::Double, Runtime, op,
           "(): expected self of dtype float32 or float64, got ", dtype_name(self.dtype()));
  check_same_dtype(self, source_in, op, "self", "source");
  TC_CHECK(self.dim() >= 1, Runtime, op, "(): expected self of at least 1 dim");
  TC_CHECK(self.is_contiguous(), Runtime, op, "(): expected a contiguous self");
  check_not_inference(self, op);
  Tensor index = index_vector(index_in, op, "index");
  const int64_t m = index.size(0), rows = self.size(0);
  TC_CHECK(source_in.dim() == self.dim() && source_in.size(0) == m, Runtime, op,
           "(): Number of indices (", m, ") should be equal to source.size(dim): (",
           source_in.dim() ? source_in.size(0) : 1, "), for dim: 0");
  for (int64_t d = 1; d < self.dim(); d++)
    TC_CHECK(source_in.size(d) == self.size(d), Runtime, op, "(): source ",
             shape_str(source_in.sizes()), " must have the shape of self ", shape_str(self.sizes()),
             " apart from dim 0");
  const int64_t* idx = index.data_as<int64_t>();
  check_in_range(idx, m, rows, 0, op);
  Tensor source = contiguous(may_overlap(self, source_in) ? clone(source_in) : source_in);
  const int64_t w = rows ? self.numel() / rows : 0;
  self.bump_version();
  if (m == 0 || w == 0) return;
  visit_dtype(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      T* s = self.data_as<T>();
      const T* src = source.data_as<T>();
      const int nt =
          int(std::min<int64_t>(num_threads_for(m * w, kCheapGrain), std::max<int64_t>(rows, 1)));
      if (nt <= 1) {
        add_rows_range<T>(s, idx, m, src, w, T(alpha), 0, rows);
        return;
      }
#pragma omp parallel num_threads(nt)
      {
        auto [lo, hi] = owned_rows(rows, omp_get_thread_num(), omp_get_num_threads());
        add_rows_range<T>(s, idx, m, src, w, T(alpha), lo, hi);
      }
    }
  });
}

}  // namespace

void bind_sparse(py::module_& m) {
  m.def("_sparse_csr_mm", &sparse_csr_mm,
        "_sparse_csr_mm(crow, col, values, dense, ncols) -> Tensor\n\n"
        "The dense product of the CSR matrix (crow, col, values) of ncols columns with a dense "
        "matrix (float32/float64). A raw kernel: no autograd (torch/_sparse.py records it).",
        nograd);
  m.def("_sparse_coo_mm", &sparse_coo_mm,
        "_sparse_coo_mm(rows, cols, values, dense, nrows, ncols) -> Tensor\n\n"
        "The dense product of the COO matrix (rows, cols, values) of size (nrows, ncols) with a "
        "dense matrix; entries in any order, repeats add up. A raw kernel: no autograd.",
        nograd);
  m.def("_sparse_sddmm", &sparse_sddmm,
        "_sparse_sddmm(rows, cols, a, b) -> Tensor\n\n"
        "out[k] = dot(a[rows[k]], b[cols[k]]): the gradient of sparse @ dense with respect to "
        "the sparse values. A raw kernel: no autograd.",
        nograd);
  m.def("_sparse_coalesce_index", &sparse_coalesce_index,
        "_sparse_coalesce_index(indices, sizes) -> (indices, perm, offsets)\n\n"
        "The sorted unique indices of a COO tensor, its entries in sorted order (a stable sort) "
        "and where each group of repeats starts in that order.",
        nograd);
  m.def("_sparse_segment_sum", &sparse_segment_sum,
        "_sparse_segment_sum(values, perm, offsets) -> Tensor\n\n"
        "out[g] = the sum of values[perm[offsets[g]:offsets[g + 1]]]. A raw kernel: no "
        "autograd.",
        nograd);
  m.def("_index_add_rows_", &index_add_rows_,
        "_index_add_rows_(self, index, source, alpha) -> None\n\n"
        "self[index[k]] += alpha * source[k] in place, for a contiguous float32/float64 self "
        "(index_add_ along dim 0). A raw kernel: no autograd.",
        nograd);
}

}  // namespace tc
