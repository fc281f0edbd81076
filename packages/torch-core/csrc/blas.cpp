// blas.cpp — matrix products. float32/float64 go to OpenBLAS (scipy-openblas32), or to MKL
// where it is installed (Note [MKL]); 16-bit floats compute in float32 through them; integer
// types use a plain loop (off the main path).
#include <cblas.h>
#include <dlfcn.h>

#include "cpu_gemm.h"
#include "ops.h"

namespace tc {

void set_blas_threads(int n) {
  scipy_openblas_set_num_threads(n);
  if (mkl.set_num_threads) mkl.set_num_threads(n);
}

std::string load_mkl(const std::string& path) {
  if (mkl.sgemm) return "";
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) return dlerror();
  auto sym = [&](const char* name) { return dlsym(lib, name); };
  MklApi api;
  api.sgemm = reinterpret_cast<MklApi::Sgemm>(sym("cblas_sgemm"));
  api.dgemm = reinterpret_cast<MklApi::Dgemm>(sym("cblas_dgemm"));
  api.set_num_threads_local = reinterpret_cast<int (*)(int)>(sym("MKL_Set_Num_Threads_Local"));
  api.set_num_threads = reinterpret_cast<void (*)(int)>(sym("MKL_Set_Num_Threads"));
  auto set_layer = reinterpret_cast<int (*)(int)>(sym("MKL_Set_Threading_Layer"));
  if (!api.sgemm || !api.dgemm || !api.set_num_threads_local || !api.set_num_threads ||
      !set_layer) {
    dlclose(lib);
    return path + " lacks MKL's CBLAS or service functions";
  }
  constexpr int kGnuThreading = 3;  // MKL_THREADING_GNU: MKL's threads are libgomp's
  if (set_layer(kGnuThreading) != kGnuThreading) {
    dlclose(lib);  // (nothing of it ran: the threading layer must be set before any call)
    return "MKL refused its GNU OpenMP threading layer";
  }
  api.set_num_threads(get_num_threads());
  mkl = api;
  return "";
}

// How BLAS reads a matrix without copying it: row-major with a leading dimension,
// or transposed; false when neither stride is 1.
static bool blas_view(const Tensor& t, CBLAS_TRANSPOSE& trans, int& ld) {
  int64_t r = t.size(0), c = t.size(1);
  // The stride of a size-1 dim is never used: give it the value BLAS wants.
  int64_t s0 = r == 1 ? std::max<int64_t>(c, 1) : t.stride(0);
  int64_t s1 = c == 1 ? 1 : t.stride(1);
  if (std::max(s0, s1) >= (int64_t(1) << 31)) return false;  // BLAS's ld is an int
  if (s1 == 1 && s0 >= std::max<int64_t>(c, 1)) {
    trans = CblasNoTrans;
    ld = int(s0);
    return true;
  }
  if (s0 == 1 && s1 >= std::max<int64_t>(r, 1)) {
    trans = CblasTrans;
    ld = int(s1);
    return true;
  }
  return false;
}

// Note [Aligned product rows]: MKL's float product writes its result's rows with 32-byte
// stores; when a row of c starts off a 32-byte boundary (ldc = 650 floats: every row 8 bytes
// off) many of them split cache lines, and tall products ran up to 1.5x slower (2600x700 @
// 700x650: 25.8 ms, 17.4 ms into rows 656 floats apart; the same for the 10000x650 weight
// gradient of a 10k-word decoder). Such products are computed into rows padded to 64 bytes,
// then copied into c: the copy is one pass over c, the product k/8 or more.
template <class T>
bool needs_aligned_rows(int64_t m, int64_t n, int64_t k, int64_t ldc) {
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) return false;
  return mkl.sgemm && (ldc * int64_t(sizeof(T))) % 32 != 0 && m >= 256 && n >= 64 && k >= 64 &&
         double(m) * double(n) * double(k) >= double(1 << 24);
}

template <class T>
void blas_gemm(const GemmArgs& g) {
  Tensor a = *g.a, b = *g.b;
  const Tensor& c = *g.c;
  CBLAS_TRANSPOSE ta, tb;
  int lda, ldb;
  if (!blas_view(a, ta, lda)) {
    a = clone(a);  // a fresh row-major copy always qualifies
    blas_view(a, ta, lda);
  }
  if (!blas_view(b, tb, ldb)) {
    b = clone(b);
    blas_view(b, tb, ldb);
  }
  int m = int(c.size(0)), n = int(c.size(1)), k = int(a.size(1)),
      ldc = int(std::max<int64_t>(c.stride(0), n));
  if constexpr (std::is_same_v<T, c64>) {
    c64 alpha = g.alpha.to<c64>(), beta = g.beta.to<c64>();
    scipy_cblas_cgemm(CblasRowMajor, ta, tb, m, n, k, &alpha, a.data(), lda, b.data(), ldb, &beta,
                      c.data(), ldc);
  } else if constexpr (std::is_same_v<T, c128>) {
    c128 alpha = g.alpha.to<c128>(), beta = g.beta.to<c128>();
    scipy_cblas_zgemm(CblasRowMajor, ta, tb, m, n, k, &alpha, a.data(), lda, b.data(), ldb, &beta,
                      c.data(), ldc);
  } else if (needs_aligned_rows<T>(m, n, k, ldc)) {
    // Note [Aligned product rows]
    const int64_t ldp = (n + 15) / 16 * 16;
    Tensor rows = empty({m, ldp}, c.dtype(), c.device());
    Tensor view = as_strided(rows, {m, n}, {ldp, 1}, 0);
    const T beta = g.beta.to<T>();
    if (beta != T(0)) copy_(view, c);
    par_gemm<T>(ta == CblasTrans, tb == CblasTrans, m, n, k, g.alpha.to<T>(), a.data_as<T>(), lda,
                b.data_as<T>(), ldb, beta, rows.data_as<T>(), ldp);
    copy_(c, view);
  } else {
    par_gemm<T>(ta == CblasTrans, tb == CblasTrans, m, n, k, g.alpha.to<T>(), a.data_as<T>(), lda,
                b.data_as<T>(), ldb, g.beta.to<T>(), c.data_as<T>(), ldc);
  }
}

template <class T>
void loop_gemm(const GemmArgs& g) {
  using A = std::conditional_t<std::is_same_v<T, bool>, bool, typename AccOf<T>::type>;
  const Tensor &a = *g.a, &b = *g.b, &c = *g.c;
  int64_t m = c.size(0), n = c.size(1), k = a.size(1);
  A alpha = g.alpha.to<A>(), beta = g.beta.to<A>();
  T* pc = c.data_as<T>();
  const T* pa = a.data_as<T>();
  const T* pb = b.data_as<T>();
  for (int64_t i = 0; i < m; i++) {
    std::vector<A> row(n, A(0));
    for (int64_t p = 0; p < k; p++) {
      A av = A(pa[i * a.stride(0) + p * a.stride(1)]);
      for (int64_t j = 0; j < n; j++) row[j] += av * A(pb[p * b.stride(0) + j * b.stride(1)]);
    }
    for (int64_t j = 0; j < n; j++) {
      T& out = pc[i * c.stride(0) + j];
      out = T(beta == A(0) ? alpha * row[j] : alpha * row[j] + beta * A(out));
    }
  }
}

void register_blas_kernels() {
  reg_each<float, double, c64, c128>(Op::gemm, TC_KERNEL(blas_gemm));
  reg_each<TC_INTS>(Op::gemm, TC_KERNEL(loop_gemm));
}

static void check_dtypes(const char* op, const Tensor& a, const Tensor& b) {
  TC_CHECK(a.dtype() == b.dtype(), Runtime, op,
           ": expected both operands to have the same dtype, "
           "but got ",
           dtype_name(a.dtype()), " and ", dtype_name(b.dtype()));
  TC_CHECK(a.dtype() != ScalarType::Bool, NotImplemented, op, ": not implemented for dtype bool");
  check_same_device(a, b, op);
}

// c (m x n, fresh or user-given) = alpha * a @ b + beta * c
static void gemm_into(const Tensor& c, const Tensor& a, const Tensor& b, Scalar alpha,
                      Scalar beta) {
  if (c.numel() == 0) return;
  if (a.size(1) == 0) {  // empty inner dimension: only the beta * c term
    if (beta.d == 0)
      fill_(c, Scalar::from_int(0));
    else
      copy_(c, binary(Op::mul, c, wrap_scalar(beta)));
    return;
  }
  for (int64_t s : {a.size(0), a.size(1), b.size(1)})
    TC_CHECK(s < (int64_t(1) << 31), NotImplemented,
             "matrix products with a dimension of 2^31 "
             "or more are not supported");
  ScalarType dt = a.dtype();
  if ((dt == ScalarType::Half || dt == ScalarType::BFloat16) &&
      c.device().type == DeviceType::CPU) {  // via float32 (cuBLAS has 16-bit kernels)
    Tensor cf = to_dtype(c, ScalarType::Float, true);
    gemm_into(cf, to_dtype(a, ScalarType::Float), to_dtype(b, ScalarType::Float), alpha, beta);
    copy_(c, cf);
    return;
  }
  bool direct = c.stride(1) == 1 && c.stride(0) >= c.size(1);
  Tensor target = direct ? c : contiguous(c);
  GemmArgs g{&a, &b, &target, alpha, beta};
  find_kernel<GemmFn>(Op::gemm, c.device(), dt)(g);
  if (!direct) copy_(c, target);
  c.bump_version();
}

// The result (fresh, or `out` resized) on a's device with a's dtype.
static Tensor prepare_out(const Tensor& out, const Shape& shape, const Tensor& a, const char* op) {
  if (!out.defined()) return empty(shape, a.dtype(), a.device());
  TC_CHECK(out.dtype() == a.dtype(), Runtime, op, ": expected out tensor to have dtype ",
           dtype_name(a.dtype()), ", but got ", dtype_name(out.dtype()));
  TC_CHECK(out.device() == a.device(), Runtime, op, ": expected out tensor on ", a.device().str(),
           ", but got one on ", out.device().str());
  if (out.sizes() != shape) resize_(out, shape);
  return out;
}

static void check_mm(const char* op, const Tensor& a, const Tensor& b) {
  TC_CHECK(a.dim() == 2 && b.dim() == 2, Runtime, op, ": expected 2-D tensors, got shapes ",
           shape_str(a.sizes()), " and ", shape_str(b.sizes()));
  TC_CHECK(a.size(1) == b.size(0), Runtime, op, ": shapes ", shape_str(a.sizes()), " and ",
           shape_str(b.sizes()), " cannot be multiplied (", a.size(1), " != ", b.size(0), ")");
  check_dtypes(op, a, b);
}

Tensor mm(const Tensor& a, const Tensor& b, const Tensor& out) {
  check_mm("mm", a, b);
  Tensor c = prepare_out(out, {a.size(0), b.size(1)}, a, "mm");
  gemm_into(c, a, b, Scalar::from_int(1), Scalar::from_int(0));
  return c;
}

Tensor addmm(const Tensor& input, const Tensor& a, const Tensor& b, Scalar beta, Scalar alpha,
             const Tensor& out) {
  check_mm("addmm", a, b);
  check_dtypes("addmm", input, a);
  Tensor c = prepare_out(out, {a.size(0), b.size(1)}, a, "addmm");
  if (beta.d != 0) {
    if (!c.same(input)) copy_(c, expand(input, c.sizes()));
  } else {
    beta = Scalar::from_int(0);
  }
  gemm_into(c, a, b, alpha, beta);
  return c;
}

static void check_bmm(const char* op, const Tensor& a, const Tensor& b) {
  TC_CHECK(a.dim() == 3 && b.dim() == 3, Runtime, op, ": expected 3-D tensors, got shapes ",
           shape_str(a.sizes()), " and ", shape_str(b.sizes()));
  TC_CHECK(a.size(0) == b.size(0) && a.size(2) == b.size(1), Runtime, op, ": shapes ",
           shape_str(a.sizes()), " and ", shape_str(b.sizes()), " cannot be multiplied");
  check_dtypes(op, a, b);
}

// c[i] = alpha * a[i] @ b[i] + beta * c[i] for every i, the items spread over the threads
// (many small products, e.g. attention heads: one each, BLAS single-threaded). False when
// the items are not all BLAS-readable alike, so the caller goes item by item.
template <class T>
static bool batched_gemm(const Tensor& c, const Tensor& a, const Tensor& b, Scalar alpha,
                         Scalar beta) {
  const int64_t B = c.size(0), m = c.size(1), n = c.size(2), k = a.size(2);
  int nt = double(B) * double(m) * double(n) * double(k) >= kParallelGemm ? get_num_threads() : 1;
  if (B < 2 || nt <= 1 || m == 0 || n == 0 || k == 0 || std::max({m, n, k}) >= (int64_t(1) << 31))
    return false;
  CBLAS_TRANSPOSE ta, tb;
  int lda, ldb;
  Tensor c0 = select(c, 0, 0);
  if (!blas_view(select(a, 0, 0), ta, lda) || !blas_view(select(b, 0, 0), tb, ldb) ||
      c0.stride(1) != 1 || c0.stride(0) < n || c.stride(0) < (m - 1) * c0.stride(0) + n)
    return false;  // (the last: items of c that overlap would be written by two threads)
  const T *pa = a.data_as<T>(), *pb = b.data_as<T>();
  T* pc = c.data_as<T>();
  const int64_t sa = a.stride(0), sb = b.stride(0), sc = c.stride(0), ldc = c0.stride(0);
  const T al = alpha.to<T>(), be = beta.to<T>();
  nt = int(std::min<int64_t>(nt, B));
  on_threads(nt, [&](int t) {
    for (int64_t i = t; i < B; i += nt)
      cpu_gemm<T>(ta == CblasTrans, tb == CblasTrans, m, n, k, al, pa + i * sa, lda, pb + i * sb,
                  ldb, be, pc + i * sc, ldc);
  });
  c.bump_version();
  return true;
}

// c (batch..., m, p), contiguous, = x @ y item by item, where x (batch..., m, n) and y
// (batch..., n, p) may be any strided views (broadcast batch dims have stride 0) whose
// matrices BLAS reads in place: matmul's batched case without copying its operands into
// (nb, m, n) blocks first (attention's q @ k.transpose(-2, -1) on heads split by a
// transpose). False when the matrices are not BLAS-readable; the caller then copies.
template <class T>
static bool strided_batched_matmul(const Tensor& c, const Tensor& x, const Tensor& y) {
  const int nb_dims = int(c.dim()) - 2;
  const int64_t m = c.size(nb_dims), p = c.size(nb_dims + 1), n = x.size(nb_dims + 1);
  if (m == 0 || p == 0 || n == 0 || std::max({m, n, p}) >= (int64_t(1) << 31)) return false;
  CBLAS_TRANSPOSE ta, tb;
  int lda, ldb;
  Tensor x0 = x, y0 = y;  // the first item's matrices: every item has their strides
  for (int d = 0; d < nb_dims; d++) x0 = select(x0, 0, 0), y0 = select(y0, 0, 0);
  if (!blas_view(x0, ta, lda) || !blas_view(y0, tb, ldb)) return false;
  int64_t nb = 1;
  for (int d = 0; d < nb_dims; d++) nb *= c.size(d);
  const T *px = x.data_as<T>(), *py = y.data_as<T>();
  T* pc = c.data_as<T>();
  auto item = [&](int64_t i) {  // the offsets of item i in x and y
    int64_t ox = 0, oy = 0;
    for (int d = nb_dims - 1; d >= 0; d--) {
      const int64_t k = i % c.size(d);
      i /= c.size(d);
      ox += k * x.stride(d), oy += k * y.stride(d);
    }
    return std::pair{ox, oy};
  };
  int nt = double(nb) * double(m) * double(n) * double(p) >= kParallelGemm ? get_num_threads() : 1;
  nt = int(std::min<int64_t>(nt, nb));
  auto run = [&](int t, int step) {
    for (int64_t i = t; i < nb; i += step) {
      auto [ox, oy] = item(i);
      cpu_gemm<T>(ta == CblasTrans, tb == CblasTrans, m, p, n, T(1), px + ox, lda, py + oy, ldb,
                  T(0), pc + i * m * p, p);
    }
  };
  if (nt <= 1 && nb == 1)
    par_gemm<T>(ta == CblasTrans, tb == CblasTrans, m, p, n, T(1), px, lda, py, ldb, T(0), pc, p);
  else if (nt <= 1)
    on_threads(1, [&](int) { run(0, 1); });  // (BLAS single-threaded for small items)
  else
    on_threads(nt, [&](int t) { run(t, nt); });
  return true;
}

Tensor baddbmm(const Tensor& input, const Tensor& a, const Tensor& b, Scalar beta, Scalar alpha,
               const Tensor& out) {
  check_bmm("baddbmm", a, b);
  Tensor c = prepare_out(out, {a.size(0), a.size(1), b.size(2)}, a, "baddbmm");
  if (input.defined() && beta.d != 0) {
    check_dtypes("baddbmm", input, a);
    if (!c.same(input)) copy_(c, expand(input, c.sizes()));
  } else {
    beta = Scalar::from_int(0);
  }
  if (c.dtype() == ScalarType::Float    ? batched_gemm<float>(c, a, b, alpha, beta)
      : c.dtype() == ScalarType::Double ? batched_gemm<double>(c, a, b, alpha, beta)
                                        : false)
    return c;
  for (int64_t i = 0; i < a.size(0); i++)
    gemm_into(select(c, 0, i), select(a, 0, i), select(b, 0, i), alpha, beta);
  return c;
}

Tensor bmm(const Tensor& a, const Tensor& b, const Tensor& out) {
  return baddbmm(Tensor(), a, b, Scalar::from_int(0), Scalar::from_int(1), out);
}

Tensor mv(const Tensor& a, const Tensor& v, const Tensor& out) {
  TC_CHECK(a.dim() == 2 && v.dim() == 1, Runtime,
           "mv: expected a 2-D matrix and a 1-D vector, got "
           "shapes ",
           shape_str(a.sizes()), " and ", shape_str(v.sizes()));
  TC_CHECK(a.size(1) == v.size(0), Runtime, "mv: shapes ", shape_str(a.sizes()), " and ",
           shape_str(v.sizes()), " cannot be multiplied (", a.size(1), " != ", v.size(0), ")");
  check_dtypes("mv", a, v);
  Tensor c = prepare_out(out, {a.size(0)}, a, "mv");
  gemm_into(unsqueeze(c, 1), a, unsqueeze(v, 1), Scalar::from_int(1), Scalar::from_int(0));
  return c;
}

Tensor addmv(const Tensor& input, const Tensor& a, const Tensor& v, Scalar beta, Scalar alpha,
             const Tensor& out) {
  TC_CHECK(a.dim() == 2 && v.dim() == 1 && a.size(1) == v.size(0), Runtime, "addmv: shapes ",
           shape_str(a.sizes()), " and ", shape_str(v.sizes()), " cannot be multiplied");
  check_dtypes("addmv", a, v);
  check_dtypes("addmv", input, a);
  Tensor c = prepare_out(out, {a.size(0)}, a, "addmv");
  if (beta.d != 0) {
    if (!c.same(input)) copy_(c, expand(input, c.sizes()));
  } else {
    beta = Scalar::from_int(0);
  }
  gemm_into(unsqueeze(c, 1), a, unsqueeze(v, 1), alpha, beta);
  return c;
}

Tensor dot(const Tensor& a, const Tensor& b) {
  TC_CHECK(a.dim() == 1 && b.dim() == 1, Runtime, "dot: expected 1-D tensors, got shapes ",
           shape_str(a.sizes()), " and ", shape_str(b.sizes()));
  TC_CHECK(a.size(0) == b.size(0), Runtime, "dot: inconsistent tensor sizes ", shape_str(a.sizes()),
           " and ", shape_str(b.sizes()));
  check_dtypes("dot", a, b);
  Tensor c = empty({1, 1}, a.dtype(), a.device());
  gemm_into(c, unsqueeze(a, 0), unsqueeze(b, 1), Scalar::from_int(1), Scalar::from_int(0));
  return view(c, {});
}

Tensor matmul(const Tensor& a, const Tensor& b, const Tensor& out) {
  TC_CHECK(a.dim() > 0 && b.dim() > 0, Runtime,
           "matmul: both arguments need at least 1 dimension, "
           "got shapes ",
           shape_str(a.sizes()), " and ", shape_str(b.sizes()));
  if (a.dim() == 1 && b.dim() == 1) {
    Tensor r = dot(a, b);
    if (out.defined()) {
      resize_(out, {});
      copy_(out, r);
      return out;
    }
    return r;
  }
  TC_CHECK(a.size(a.dim() - 1) == b.size(b.dim() > 1 ? b.dim() - 2 : 0), Runtime, "matmul: shapes ",
           shape_str(a.sizes()), " and ", shape_str(b.sizes()), " cannot be multiplied (",
           a.size(a.dim() - 1), " != ", b.size(b.dim() > 1 ? b.dim() - 2 : 0), ")");
  if (a.dim() == 2 && b.dim() == 2) return mm(a, b, out);
  if (a.dim() == 2 && b.dim() == 1) return mv(a, b, out);
  if (a.dim() == 1 && b.dim() == 2) {
    TC_CHECK(a.size(0) == b.size(0), Runtime, "matmul: shapes ", shape_str(a.sizes()), " and ",
             shape_str(b.sizes()), " cannot be multiplied (", a.size(0), " != ", b.size(0), ")");
    Tensor r = squeeze_dims(mm(unsqueeze(a, 0), b), {0});
    if (out.defined()) {
      resize_(out, r.sizes());
      copy_(out, r);
      return out;
    }
    return r;
  }
  // Batched: 1-D operands become a row/column, batch dims broadcast.
  Tensor x = a.dim() == 1 ? unsqueeze(a, 0) : a, y = b.dim() == 1 ? unsqueeze(b, 1) : b;
  int64_t n = x.size(-1 + x.dim()), m = x.size(x.dim() - 2), p = y.size(y.dim() - 1);
  TC_CHECK(n == y.size(y.dim() - 2), Runtime, "matmul: shapes ", shape_str(a.sizes()), " and ",
           shape_str(b.sizes()), " cannot be multiplied (", n, " != ", y.size(y.dim() - 2), ")");
  check_dtypes("matmul", a, b);
  Shape bx(x.sizes().begin(), x.sizes().end() - 2), by(y.sizes().begin(), y.sizes().end() - 2);
  Shape batch = broadcast_shapes(bx, by, "matmul");
  Shape res_shape = batch;
  if (a.dim() > 1) res_shape.push_back(m);
  if (b.dim() > 1) res_shape.push_back(p);
  Tensor r;
  if (y.dim() == 2 && by.empty()) {  // fold the batch into rows: one big GEMM
    int64_t rows = 1;
    for (int64_t d = 0; d + 1 < x.dim(); d++) rows *= x.size(d);
    Tensor x2 = reshape(x, {rows, n});
    r = view(mm(x2, y), res_shape);
  } else {
    int64_t nb = 1;
    for (auto s : batch) nb *= s;
    Shape xs = batch, ys = batch;
    xs.push_back(m);
    xs.push_back(n);
    ys.push_back(n);
    ys.push_back(p);
    Tensor xe = expand(x, xs), ye = expand(y, ys);
    Shape cs = batch;
    cs.push_back(m);
    cs.push_back(p);
    Tensor c = empty(cs, x.dtype(), x.device());
    const bool cpu = x.device().type == DeviceType::CPU;  // (the meta device has no data)
    bool done =
        c.numel() == 0 ||
        (cpu && x.dtype() == ScalarType::Float    ? strided_batched_matmul<float>(c, xe, ye)
         : cpu && x.dtype() == ScalarType::Double ? strided_batched_matmul<double>(c, xe, ye)
                                                  : false);
    r = done ? view(c, res_shape)
             : view(bmm(reshape(xe, {nb, m, n}), reshape(ye, {nb, n, p})), res_shape);
  }
  if (out.defined()) {
    resize_(out, r.sizes());
    copy_(out, r);
    return out;
  }
  return r;
}

}  // namespace tc
