// nn_norm.cpp — batch normalisation over (N, C, S), layer normalisation over (R, L), and
// their backwards.
//
// batch_norm: statistics per channel c, over the N * S values x[n, c, :]; channels run in
// parallel. group_norm and instance_norm reuse it on a reshaped input (one "channel" per
// normalised group), see torch/_nn_norms.py. layer_norm has its own kernels: its rows are
// short (a transformer's width) and its weight and bias are per position in the row, so
// statistics, normalisation and affine map are one pass over each row while it is in cache.
#include <cmath>

#include "nn_kernels.h"

namespace tc {

namespace {

template <class F>
void for_channels(const NormDims& d, const F& f) {
  int nt = d.C > 1 && d.N * d.C * d.S >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t c = 0; c < d.C; c++) f(c);
}

// The loops over one channel: its N rows of S values, `stride` apart. TC_MULTIVERSION: these
// are compiled for AVX2 machines too.
template <class T>
TC_MULTIVERSION void channel_stats(const T* x, int64_t N, int64_t stride, int64_t S, double* mean,
                                   double* ssd) {
  double sum = 0, ss = 0;
  for (int64_t n = 0; n < N; n++) {
    const T* r = x + n * stride;
    sum += double(lane_sum<T>(S, [&](int64_t i) { return r[i]; }));
  }
  *mean = sum / double(N * S);
  T m = T(*mean);
  for (int64_t n = 0; n < N; n++) {
    const T* r = x + n * stride;
    ss += double(lane_sum<T>(S, [&](int64_t i) { return (r[i] - m) * (r[i] - m); }));
  }
  *ssd = ss;
}

template <class T>
TC_MULTIVERSION void channel_affine(const T* x, T* y, int64_t N, int64_t stride, int64_t S, T a,
                                    T b) {
  for (int64_t n = 0; n < N; n++) {
    const T* __restrict r = x + n * stride;
    T* __restrict o = y + n * stride;
    for (int64_t i = 0; i < S; i++) o[i] = r[i] * a + b;
  }
}

// sum(g) and sum(g * (x - m))
template <class T>
TC_MULTIVERSION void channel_grad_sums(const T* g, const T* x, int64_t N, int64_t stride, int64_t S,
                                       T m, double* sg, double* sgx) {
  double s1 = 0, s2 = 0;
  for (int64_t n = 0; n < N; n++) {
    const T *gr = g + n * stride, *xr = x + n * stride;
    s1 += double(lane_sum<T>(S, [&](int64_t i) { return gr[i]; }));
    s2 += double(lane_sum<T>(S, [&](int64_t i) { return gr[i] * (xr[i] - m); }));
  }
  *sg = s1, *sgx = s2;
}

// o = a * g + b * (x - m) + k
template <class T>
TC_MULTIVERSION void channel_grad(const T* g, const T* x, T* o, int64_t N, int64_t stride,
                                  int64_t S, T a, T b, T m, T k) {
  for (int64_t n = 0; n < N; n++) {
    const T* __restrict gr = g + n * stride, * __restrict xr = x + n * stride;
    T* __restrict out = o + n * stride;
    for (int64_t i = 0; i < S; i++) out[i] = a * gr[i] + b * (xr[i] - m) + k;
  }
}

template <class T>
void bn_forward(const NormDims& d, const T* x, const T* w, const T* b, T* rm, T* rv, bool training,
                bool update, double momentum, double eps, T* y, T* mean_out, T* invstd_out) {
  double M = double(d.N * d.S);
  int64_t st = d.C * d.S;
  for_channels(d, [&](int64_t c) {
    double mean, invstd;
    if (training) {
      double ss;
      channel_stats(x + c * d.S, d.N, st, d.S, &mean, &ss);
      invstd = 1.0 / std::sqrt(ss / M + eps);
      if (update && rm) rm[c] = T((1 - momentum) * double(rm[c]) + momentum * mean);
      if (update && rv) rv[c] = T((1 - momentum) * double(rv[c]) + momentum * ss / (M - 1));
    } else {
      mean = double(rm[c]);
      invstd = 1.0 / std::sqrt(double(rv[c]) + eps);
    }
    mean_out[c] = T(mean);
    invstd_out[c] = T(invstd);
    double scale = invstd * (w ? double(w[c]) : 1.0);
    channel_affine(x + c * d.S, y + c * d.S, d.N, st, d.S, T(scale),
                   T((b ? double(b[c]) : 0.0) - mean * scale));
  });
}

template <class T>
void bn_backward(const NormDims& d, const T* g, const T* x, const T* w, const T* mean,
                 const T* invstd, bool training, T* gx, T* gw, T* gb) {
  double M = double(d.N * d.S);
  int64_t st = d.C * d.S;
  for_channels(d, [&](int64_t c) {
    T m = mean[c];
    double sg, sgx;
    channel_grad_sums(g + c * d.S, x + c * d.S, d.N, st, d.S, m, &sg, &sgx);
    double is = double(invstd[c]), wc = w ? double(w[c]) : 1.0;
    gw[c] = T(sgx * is);
    gb[c] = T(sg);
    // gx = a * g + b * (x - mean) + k
    T a = T(is * wc), bb = 0, k = 0;
    if (training) {
      bb = T(-wc * is * is * is * sgx / M);
      k = T(-wc * is * sg / M);
    }
    channel_grad(g + c * d.S, x + c * d.S, gx + c * d.S, d.N, st, d.S, a, bb, m, k);
  });
}

// ---------------------------------------------------------------- layer norm
// Row r of x (R rows of L): y = (x - mean) * rstd * w + b, rstd = 1 / sqrt(var + eps) (var
// biased); w, b per position (null: 1, 0). Rows run in parallel.
template <class T>
TC_MULTIVERSION void ln_rows(const T* x, T* y, int64_t r0, int64_t r1, int64_t L, const T* w,
                             const T* b, double eps, T* mean, T* rstd) {
  for (int64_t r = r0; r < r1; r++) {
    const T* __restrict xr = x + r * L;
    T* __restrict yr = y + r * L;
    const T m = T(double(lane_sum<T>(L, [&](int64_t i) { return xr[i]; })) / double(L));
    const double var = double(lane_sum<T>(L, [&](int64_t i) { return (xr[i] - m) * (xr[i] - m); }));
    const T rs = T(1.0 / std::sqrt(var / double(L) + eps));
    mean[r] = m, rstd[r] = rs;
    if (w && b)
      for (int64_t i = 0; i < L; i++) yr[i] = (xr[i] - m) * rs * w[i] + b[i];
    else if (w)
      for (int64_t i = 0; i < L; i++) yr[i] = (xr[i] - m) * rs * w[i];
    else if (b)
      for (int64_t i = 0; i < L; i++) yr[i] = (xr[i] - m) * rs + b[i];
    else
      for (int64_t i = 0; i < L; i++) yr[i] = (xr[i] - m) * rs;
  }
}

// Rows [r0, r1): gx = rstd * (gh - mean(gh) - xhat * mean(gh * xhat)), gh = g * w, xhat =
// (x - mean) * rstd; and this range's column sums gw += g * xhat, gb += g. (HasW: a test of
// w inside the loops would keep them from vectorising.)
template <class T, bool HasW>
TC_MULTIVERSION void ln_grad_rows(const T* g, const T* x, const T* w, const T* mean, const T* rstd,
                                  T* gx, int64_t r0, int64_t r1, int64_t L, T* gw, T* gb) {
  for (int64_t r = r0; r < r1; r++) {
    const T* __restrict gr = g + r * L, * __restrict xr = x + r * L;
    T* __restrict out = gx + r * L;
    const T m = mean[r], rs = rstd[r];
    auto gh = [&](int64_t i) {
      if constexpr (HasW)
        return gr[i] * w[i];
      else
        return gr[i];
    };
    const T s1 = lane_sum<T>(L, gh);
    const T s2 = lane_sum<T>(L, [&](int64_t i) { return gh(i) * (xr[i] - m) * rs; });
    const T a = s1 / T(L), c = s2 / T(L);
#pragma omp simd  // (GCC's alias checks for six arrays gave up on vectorising it)
    for (int64_t i = 0; i < L; i++) {
      const T xhat = (xr[i] - m) * rs;
      out[i] = rs * (gh(i) - a - xhat * c);
      gw[i] += gr[i] * xhat;
      gb[i] += gr[i];
    }
  }
}

template <class T>
void layer_norm_cpu(int64_t R, int64_t L, const Tensor& x, const Tensor& w, const Tensor& b,
                    double eps, const NormResult& r) {
  const T *px = x.data_as<T>(), *pw = w.defined() ? w.data_as<T>() : nullptr,
          *pb = b.defined() ? b.data_as<T>() : nullptr;
  T *py = r.out.data_as<T>(), *pm = r.mean.data_as<T>(), *ps = r.invstd.data_as<T>();
  const int nt = R > 1 && R * L >= kGrain ? int(std::min<int64_t>(get_num_threads(), R)) : 1;
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    const int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
    ln_rows<T>(px, py, R * t / n, R * (t + 1) / n, L, pw, pb, eps, pm, ps);
  }
}

template <class T>
void layer_norm_backward_cpu(int64_t R, int64_t L, const Tensor& g, const Tensor& x,
                             const Tensor& w, const Tensor& mean, const Tensor& rstd,
                             const NormResult& r) {
  const T *pg = g.data_as<T>(), *px = x.data_as<T>(), *pw = w.defined() ? w.data_as<T>() : nullptr;
  const int nt = R > 1 && R * L >= kGrain ? int(std::min<int64_t>(get_num_threads(), R)) : 1;
  std::vector<T> sums(size_t(2 * nt * L), T(0));  // per thread: gw's, then gb's column sums
#pragma omp parallel num_threads(nt) if (nt > 1)
  {
    const int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
    T* mine = sums.data() + 2 * t * L;
    auto rows = pw ? ln_grad_rows<T, true> : ln_grad_rows<T, false>;
    rows(pg, px, pw, mean.data_as<T>(), rstd.data_as<T>(), r.out.data_as<T>(), R * t / n,
         R * (t + 1) / n, L, mine, mine + L);
  }
  T *gw = r.mean.data_as<T>(), *gb = r.invstd.data_as<T>();
  for (int64_t i = 0; i < L; i++) {
    double sw = 0, sb = 0;
    for (int t = 0; t < nt; t++)
      sw += double(sums[size_t(2 * t * L + i)]), sb += double(sums[size_t((2 * t + 1) * L + i)]);
    gw[i] = T(sw), gb[i] = T(sb);
  }
}

template <class T>
T* ptr(const Tensor& t) {
  return t.defined() ? t.data_as<T>() : nullptr;
}

Tensor channel_param(const Tensor& t, const Tensor& x, int64_t C, const char* name,
                     const char* op) {
  if (!t.defined()) return t;
  TC_CHECK(t.dtype() == x.dtype() && t.numel() == C, Runtime, op, "(): expected ", name,
           " to be a ", dtype_name(x.dtype()), " tensor of ", C, " values (one per channel), got ",
           dtype_name(t.dtype()), " of shape ", shape_str(t.sizes()));
  return contiguous(t);
}

template <class T>
void batch_norm_cpu(const NormDims& d, const Tensor& x, const Tensor& w, const Tensor& b,
                    const Tensor& rm, const Tensor& rv, bool training, bool update, double momentum,
                    double eps, const NormResult& r) {
  bn_forward<T>(d, x.data_as<T>(), ptr<T>(w), ptr<T>(b), ptr<T>(rm), ptr<T>(rv), training, update,
                momentum, eps, r.out.data_as<T>(), r.mean.data_as<T>(), r.invstd.data_as<T>());
}

template <class T>
void batch_norm_backward_cpu(const NormDims& d, const Tensor& g, const Tensor& x, const Tensor& w,
                             const Tensor& mean, const Tensor& invstd, bool training,
                             const NormResult& r) {
  bn_backward<T>(d, g.data_as<T>(), x.data_as<T>(), ptr<T>(w), mean.data_as<T>(),
                 invstd.data_as<T>(), training, r.out.data_as<T>(), r.mean.data_as<T>(),
                 r.invstd.data_as<T>());
}

}  // namespace

void register_norm_kernels() {
  reg_each<float, double>(Op::batch_norm, TC_KERNEL(batch_norm_cpu));
  reg_each<float, double>(Op::batch_norm_backward, TC_KERNEL(batch_norm_backward_cpu));
  reg_each<float, double>(Op::layer_norm, TC_KERNEL(layer_norm_cpu));
  reg_each<float, double>(Op::layer_norm_backward, TC_KERNEL(layer_norm_backward_cpu));
}

// x (N, C, *) as batch_norm's (N, C, S): the trailing dims make S. (Taking them here, not
// as a reshaped view from Python, keeps the result a tensor of its own: an in-place ReLU on
// a view of it would make autograd rewrite the view's history on every step.)
static NormDims norm_dims(const Tensor& x, const char* op) {
  TC_CHECK(x.dim() >= 2, Runtime, op, "(): expected input of shape (N, C, *), got ",
           shape_str(x.sizes()));
  int64_t S = 1;  // (a product of a tensor's dims: it fits, as its numel does)
  for (int64_t i = 2; i < x.dim(); i++) S *= x.size(i);
  return {x.size(0), x.size(1), S};
}

NormResult batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                      const Tensor& running_mean, const Tensor& running_var, bool training,
                      double momentum, double eps) {
  const char* op = "batch_norm";
  check_float(x, op);
  NormDims d = norm_dims(x, op);
  TC_CHECK(training || (running_mean.defined() && running_var.defined()), Runtime, op,
           "(): running_mean and running_var must be defined in evaluation mode");
  Tensor w = channel_param(weight, x, d.C, "weight", op);
  Tensor b = channel_param(bias, x, d.C, "bias", op);
  Tensor rm = channel_param(running_mean, x, d.C, "running_mean", op);
  Tensor rv = channel_param(running_var, x, d.C, "running_var", op);
  bool update = training && d.N * d.S > 0;
  if (update && rm.defined() && !rm.same(running_mean)) rm = clone(rm);  // a private copy
  if (update && rv.defined() && !rv.same(running_var)) rv = clone(rv);
  Tensor xc = contiguous(x);
  NormResult r{empty(x.sizes(), x.dtype(), x.device()), empty({d.C}, x.dtype(), x.device()),
               empty({d.C}, x.dtype(), x.device())};
  if (d.N * d.S == 0) {  // no values: nothing to normalise, statistics undefined
    if (d.C) {
      fill_(r.mean, Scalar::from_double(NAN));
      fill_(r.invstd, Scalar::from_double(NAN));
    }
    return r;
  }
  find_kernel<BatchNormFn>(Op::batch_norm, x.device(), x.dtype())(d, xc, w, b, rm, rv, training,
                                                                  update, momentum, eps, r);
  if (update) {
    for (auto [mine, theirs] : {std::pair{rm, running_mean}, std::pair{rv, running_var}}) {
      if (!theirs.defined()) continue;
      if (!mine.same(theirs)) copy_(theirs, view(mine, theirs.sizes()));
      theirs.bump_version();
    }
  }
  return r;
}

NormResult batch_norm_backward(const Tensor& g, const Tensor& x, const Tensor& weight,
                               const Tensor& mean, const Tensor& invstd, bool training) {
  const char* op = "batch_norm_backward";
  check_float(x, op);
  TC_CHECK(g.sizes() == x.sizes() && g.dtype() == x.dtype(), Runtime, op,
           "(): expected grad and input of one shape and dtype, got ", dtype_name(g.dtype()), " ",
           shape_str(g.sizes()), " and ", dtype_name(x.dtype()), " ", shape_str(x.sizes()));
  NormDims d = norm_dims(x, op);
  Tensor w = channel_param(weight, x, d.C, "weight", op);
  Tensor m = channel_param(mean, x, d.C, "mean", op);
  Tensor is = channel_param(invstd, x, d.C, "invstd", op);
  TC_CHECK(m.defined() && is.defined(), Runtime, op, "(): mean and invstd are required");
  Tensor gc = contiguous(g), xc = contiguous(x);
  NormResult r{empty(x.sizes(), x.dtype(), x.device()), empty({d.C}, x.dtype(), x.device()),
               empty({d.C}, x.dtype(), x.device())};
  find_kernel<BatchNormBackwardFn>(Op::batch_norm_backward, x.device(), x.dtype())(d, gc, xc, w, m,
                                                                                   is, training, r);
  return r;
}

// The rows of x normalised by layer_norm: its last k dims (L values) make a row.
static void ln_rows_of(const char* op, const Tensor& x, int64_t k, int64_t& R, int64_t& L) {
  check_float(x, op);
  TC_CHECK(k >= 1 && k <= x.dim(), Runtime, op, "(): cannot normalise the last ", k,
           " dims of an input of size ", shape_str(x.sizes()));
  R = L = 1;  // (products of a tensor's dims: they fit, its numel does)
  for (int64_t d = 0; d < x.dim(); d++) (d < x.dim() - k ? R : L) *= x.size(d);
}

// The weight or bias of layer_norm: L values of x's dtype (any shape), or undefined.
static Tensor ln_param(const Tensor& t, const Tensor& x, int64_t L, const char* name,
                       const char* op) {
  if (!t.defined()) return t;
  TC_CHECK(t.dtype() == x.dtype() && t.numel() == L, Runtime, op, "(): expected ", name,
           " to be a ", dtype_name(x.dtype()), " tensor of ", L, " values, got ",
           dtype_name(t.dtype()), " of shape ", shape_str(t.sizes()));
  return contiguous(t);
}

NormResult layer_norm(const Tensor& x, int64_t k, const Tensor& weight, const Tensor& bias,
                      double eps) {
  const char* op = "layer_norm";
  int64_t R, L;
  ln_rows_of(op, x, k, R, L);
  Tensor w = ln_param(weight, x, L, "weight", op), b = ln_param(bias, x, L, "bias", op);
  NormResult r{empty(x.sizes(), x.dtype(), x.device()), empty({R}, x.dtype(), x.device()),
               empty({R}, x.dtype(), x.device())};
  if (L == 0) {  // empty rows: nothing to normalise, statistics undefined
    if (R) {
      fill_(r.mean, Scalar::from_double(NAN));
      fill_(r.invstd, Scalar::from_double(NAN));
    }
    return r;
  }
  if (R)
    find_kernel<LayerNormFn>(Op::layer_norm, x.device(), x.dtype())(R, L, contiguous(x), w, b, eps,
                                                                    r);
  return r;
}

NormResult layer_norm_backward(const Tensor& g, const Tensor& x, int64_t k, const Tensor& weight,
                               const Tensor& mean, const Tensor& rstd) {
  const char* op = "layer_norm_backward";
  TC_CHECK(g.sizes() == x.sizes() && g.dtype() == x.dtype(), Runtime, op,
           "(): expected grad and input of one shape and dtype, got ", dtype_name(g.dtype()), " ",
           shape_str(g.sizes()), " and ", dtype_name(x.dtype()), " ", shape_str(x.sizes()));
  int64_t R, L;
  ln_rows_of(op, x, k, R, L);
  Tensor w = ln_param(weight, x, L, "weight", op);
  Tensor m = ln_param(mean, x, R, "mean", op), rs = ln_param(rstd, x, R, "rstd", op);
  TC_CHECK(m.defined() && rs.defined(), Runtime, op, "(): mean and rstd are required");
  Shape wshape(x.sizes().end() - k, x.sizes().end());  // the normalised dims
  NormResult r{empty(x.sizes(), x.dtype(), x.device()), empty(wshape, x.dtype(), x.device()),
               empty(wshape, x.dtype(), x.device())};
  if (R == 0 || L == 0) {
    fill_(r.mean, Scalar::from_int(0));
    fill_(r.invstd, Scalar::from_int(0));
    return r;
  }
  find_kernel<LayerNormBackwardFn>(Op::layer_norm_backward, x.device(), x.dtype())(
      R, L, contiguous(g), contiguous(x), w, m, rs, r);
  return r;
}

}  // namespace tc
