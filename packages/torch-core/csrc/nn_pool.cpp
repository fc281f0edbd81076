// nn_pool.cpp — max, average and adaptive pooling over 1-3 spatial dims, and their backward.
//
// Every pooling is separable into per-dim windows: for each output position along a dim,
// the first input index, the number of taps and the step between them (the dilation), plus
// the window's padded span (the divisor of an average that counts padding). A geometry is
// three such dims (unused ones are trivial), and one kernel per kind walks the planes in
// parallel.
#include <algorithm>
#include <cmath>
#include <limits>

#include "nn_kernels.h"

namespace tc {

void check_float(const Tensor& t, const char* op, const char* arg) {
  TC_CHECK(t.dtype() == ScalarType::Float || t.dtype() == ScalarType::Double, Type, op,
           "(): expected ", arg, " to be a float32 or float64 tensor, got ", dtype_name(t.dtype()),
           " of shape ", shape_str(t.sizes()));
}

namespace {

std::string sizes_str(const Tensor& x, int64_t D) {
  std::string s;
  for (int64_t d = x.dim() - D; d < x.dim(); d++)
    s += (s.empty() ? "" : "x") + std::to_string(x.size(d));
  return s;
}

// Shared checks: dtype, rank, number of planes; fills in the geometry's input sizes.
PoolGeometry start_geometry(const Tensor& x, int64_t D, const char* op) {
  check_float(x, op);
  TC_CHECK(D >= 1 && D <= 3, Value, op, "(): expected 1 to 3 spatial dims, got ", D);
  TC_CHECK(x.dim() == D + 1 || x.dim() == D + 2, Runtime, op, "(): expected a ", D + 1, "-D or ",
           D + 2, "-D input (unbatched or batched), got shape ", shape_str(x.sizes()));
  PoolGeometry g;
  g.D = D;
  for (int64_t d = 0; d < x.dim() - D; d++) g.planes *= x.size(d);
  for (int k = 0; k < 3; k++) g.w[k].trivial();
  for (int64_t d = 0; d < D; d++) {
    int64_t n = x.size(x.dim() - D + d);
    TC_CHECK(n > 0 || g.planes == 0, Runtime, op,
             "(): expected non-empty spatial dims, got input of shape ", shape_str(x.sizes()));
    g.w[3 - D + d].in = n;
  }
  return g;
}

constexpr int64_t kMaxWindows = int64_t(1) << 26;  // output positions per dim

void pool_dims(PoolGeometry& g, const IntList& kernel, const IntList& stride,
               const IntList& padding, const IntList& dilation, bool ceil_mode, bool avg,
               const Tensor& x, const char* op) {
  int64_t D = g.D;
  auto arg = [&](const IntList& v, int64_t d, const char* name) {
    TC_CHECK(v.size() == 1 || int64_t(v.size()) == D, Runtime, op, "(): ", name,
             " must be a single int or a tuple of ", D, " ints, got ", v.size(), " values");
    return v.size() == 1 ? v[0] : v[size_t(d)];
  };
  bool bad = false;
  for (int64_t d = 0; d < D; d++) {
    int64_t k = arg(kernel, d, "kernel_size"), s = stride.empty() ? k : arg(stride, d, "stride");
    int64_t p = arg(padding, d, "padding"), dl = avg ? 1 : arg(dilation, d, "dilation");
    TC_CHECK(k > 0, Runtime, op, "(): kernel_size must be greater than zero, got ", k);
    TC_CHECK(s > 0, Runtime, op, "(): stride must be greater than zero, got ", s);
    TC_CHECK(dl > 0, Runtime, op, "(): dilation must be greater than zero, got ", dl);
    TC_CHECK(k <= (int64_t(1) << 40) && s <= (int64_t(1) << 40) && dl <= (int64_t(1) << 20),
             Runtime, op, "(): kernel_size ", k, ", stride ", s, " or dilation ", dl,
             " is too large");  // bounds that keep the window arithmetic below in int64
    int64_t eff = (k - 1) * dl + 1;
    TC_CHECK(p >= 0 && p <= eff / 2, Runtime, op,
             "(): pad should be at least zero and at most half of the effective kernel size, got "
             "padding ",
             p, " for kernel size ", eff);
    Win& w = g.w[3 - D + d];
    int64_t num = w.in + 2 * p - eff + (ceil_mode ? s - 1 : 0);
    int64_t out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    if (ceil_mode && out > 0 && (out - 1) * s >= w.in + p) out--;
    if (out < 1) bad = true;
    w.out = std::max<int64_t>(out, 0);
    TC_CHECK(w.out <= kMaxWindows, Runtime, op, "(): the output size ", w.out,
             " is too large (at most ", kMaxWindows, " per dim)");  // 3 int64 per position
    w.step = dl;
    w.beg.assign(size_t(w.out), 0);
    w.cnt = w.span = w.beg;
    for (int64_t o = 0; o < w.out; o++) {
      int64_t start = o * s - p;
      if (avg) {
        int64_t end = std::min(start + k, w.in + p);
        w.span[o] = end - start;
        w.beg[o] = std::max<int64_t>(start, 0);
        w.cnt[o] = std::min(end, w.in) - w.beg[o];
      } else {
        int64_t j0 = start < 0 ? (-start + dl - 1) / dl : 0, n = 0;
        for (int64_t j = j0; j < k && start + j * dl < w.in; j++) n++;
        w.beg[o] = start + j0 * dl;
        w.cnt[o] = n;
        w.span[o] = n;
      }
    }
  }
  if (bad) {
    std::string outs;
    for (int64_t d = 0; d < D; d++) outs += (d ? "x" : "") + std::to_string(g.w[3 - D + d].out);
    fail(ErrorKind::Runtime, op, "(): given input size (", sizes_str(x, D),
         "), the calculated output size (", outs, ") is too small");
  }
}

void adaptive_dims(PoolGeometry& g, const IntList& out_size, const char* op) {
  TC_CHECK(int64_t(out_size.size()) == g.D, Runtime, op, "(): output_size must have ", g.D,
           " values, got ", out_size.size());
  for (int64_t d = 0; d < g.D; d++) {
    Win& w = g.w[3 - g.D + d];
    int64_t out = out_size[size_t(d)];
    TC_CHECK(out >= 0, Runtime, op, "(): output_size must be non-negative, got ", out);
    // the window tables below hold 3 int64 per output position
    TC_CHECK(out <= kMaxWindows, Runtime, op, "(): output_size ", out, " is too large (at most ",
             kMaxWindows, " per dim)");
    w.out = out;
    w.beg.assign(size_t(out), 0);
    w.cnt = w.span = w.beg;
    for (int64_t o = 0; o < out; o++) {  // 128-bit: o * in overflows int64 for expanded inputs
      int64_t b = int64_t(__int128(o) * w.in / out);
      int64_t e = int64_t((__int128(o + 1) * w.in + out - 1) / out);
      w.beg[o] = b;
      w.cnt[o] = w.span[o] = e - b;
    }
  }
}

Shape out_shape(const Tensor& x, const PoolGeometry& g) {
  Shape s(x.sizes().begin(), x.sizes().end() - g.D);
  for (int64_t d = 0; d < g.D; d++) s.push_back(g.w[3 - g.D + d].out);
  return s;
}

template <class F>
void for_planes(const PoolGeometry& g, const F& f) {
  int64_t work = g.planes * std::max(g.in_plane(), g.out_plane());
  int nt = g.planes > 1 && work >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t p = 0; p < g.planes; p++) f(p);
}

template <class T>
inline T select_bits(int64_t mask, T a, T b) {  // mask all ones: a, zero: b
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  U ua, ub, um = U(mask);
  std::memcpy(&ua, &a, sizeof(T));
  std::memcpy(&ub, &b, sizeof(T));
  U r = (ua & um) | (ub & ~um);
  T out;
  std::memcpy(&out, &r, sizeof(T));
  return out;
}

// Plain copies of a geometry's windows, so that the kernels keep them in registers (stores
// to int64 outputs could otherwise alias the vectors' contents).
struct Flat {
  const int64_t *beg[3], *cnt[3], *span[3];
  int64_t step[3], in[3], out[3];
  explicit Flat(const PoolGeometry& g) {
    for (int d = 0; d < 3; d++) {
      beg[d] = g.w[d].beg.data(), cnt[d] = g.w[d].cnt.data(), span[d] = g.w[d].span.data();
      step[d] = g.w[d].step, in[d] = g.w[d].in, out[d] = g.w[d].out;
    }
  }
};

// Windows that are whole (no tap cut off by the border) share one list of tap offsets and
// take the short loop; the others walk their taps dim by dim.
template <class T>
TC_MULTIVERSION void max_plane(const T* __restrict xp, T* __restrict yp, int64_t* __restrict ix,
                               const Flat f, const int64_t* full_off, int64_t K,
                               const int64_t* whole) {
  int64_t o = 0;
  const int64_t sa = f.step[0] * f.in[1] * f.in[2], sb = f.step[1] * f.in[2], sc = f.step[2];
  for (int64_t i = 0; i < f.out[0]; i++)
    for (int64_t j = 0; j < f.out[1]; j++) {
      const int64_t row0 = (f.beg[0][i] * f.in[1] + f.beg[1][j]) * f.in[2];
      const int64_t na = f.cnt[0][i], nb = f.cnt[1][j];
      const bool row_whole = na == whole[0] && nb == whole[1];
      for (int64_t k = 0; k < f.out[2]; k++, o++) {
        const int64_t start = row0 + f.beg[2][k], nc = f.cnt[2][k];
        T best = -std::numeric_limits<T>::infinity();
        int64_t at = start;
        auto take = [&](int64_t pos) {
          T v = xp[pos];
          // NaN wins, as in PyTorch; selects on masks, not branches (which mispredict half
          // the time on random data)
          int64_t m = -int64_t((v > best) | (v != v));
          at = (pos & m) | (at & ~m);
          best = select_bits(m, v, best);
        };
        if (row_whole && nc == whole[2]) {
          for (int64_t t = 0; t < K; t++) take(start + full_off[t]);
        } else {
          for (int64_t ti = 0; ti < na; ti++)
            for (int64_t tj = 0; tj < nb; tj++)
              for (int64_t tk = 0; tk < nc; tk++) take(start + ti * sa + tj * sb + tk * sc);
        }
        yp[o] = best;
        ix[o] = at;
      }
    }
}

template <class T>
void max_kernel(const PoolGeometry& g, const T* x, T* y, int64_t* idx) {
  int64_t ip = g.in_plane(), op = g.out_plane();
  Flat f(g);
  int64_t whole[3] = {0, 0, 0};
  for (int d = 0; d < 3; d++)
    for (int64_t o = 0; o < f.out[d]; o++) whole[d] = std::max(whole[d], f.cnt[d][o]);
  std::vector<int64_t> off;
  for (int64_t ti = 0; ti < whole[0]; ti++)
    for (int64_t tj = 0; tj < whole[1]; tj++)
      for (int64_t tk = 0; tk < whole[2]; tk++)
        off.push_back((ti * f.step[0] * f.in[1] + tj * f.step[1]) * f.in[2] + tk * f.step[2]);
  int64_t K = int64_t(off.size());
  for_planes(g, [&](int64_t p) {
    max_plane<T>(x + p * ip, y + p * op, idx + p * op, f, off.data(), K, whole);
  });
}

// Average pooling of one plane: forward (the sum over each window / divisor) or backward
// (g / divisor added to each tap); inv: 1 / divisor per output.
template <class T>
TC_MULTIVERSION void avg_plane(const T* __restrict src, T* __restrict dst, const Flat f,
                               const double* inv, bool backward) {
  const int64_t sa = f.step[0] * f.in[1] * f.in[2], sb = f.step[1] * f.in[2];
  int64_t o = 0;
  for (int64_t i = 0; i < f.out[0]; i++)
    for (int64_t j = 0; j < f.out[1]; j++) {
      const int64_t row0 = (f.beg[0][i] * f.in[1] + f.beg[1][j]) * f.in[2];
      const int64_t na = f.cnt[0][i], nb = f.cnt[1][j];
      for (int64_t k = 0; k < f.out[2]; k++, o++) {
        const int64_t start = row0 + f.beg[2][k], nc = f.cnt[2][k];
        if (backward) {
          T gv = T(double(src[o]) * inv[o]);
          for (int64_t ti = 0; ti < na; ti++)
            for (int64_t tj = 0; tj < nb; tj++) {
              T* r = dst + start + ti * sa + tj * sb;
              for (int64_t tk = 0; tk < nc; tk++) r[tk] += gv;
            }
        } else if (nc == f.in[2] && f.step[2] == 1 && f.step[1] == 1) {
          // whole rows: the window's rows along b are one contiguous run
          double acc = 0;
          for (int64_t ti = 0; ti < na; ti++) {
            const T* r = src + start + ti * sa;
            acc += double(lane_sum<T>(nb * nc, [&](int64_t t) { return r[t]; }));
          }
          dst[o] = T(acc * inv[o]);
        } else {
          double acc = 0;
          for (int64_t ti = 0; ti < na; ti++)
            for (int64_t tj = 0; tj < nb; tj++) {
              const T* r = src + start + ti * sa + tj * sb;
              if (nc >= kLanes) {
                acc += double(lane_sum<T>(nc, [&](int64_t t) { return r[t]; }));
              } else {
                for (int64_t t = 0; t < nc; t++) acc += double(r[t]);
              }
            }
          dst[o] = T(acc * inv[o]);
        }
      }
    }
}

// divisor: the override, the padded span or the number of taps.
template <class T>
void avg_kernel(const PoolGeometry& g, const T* src, T* dst, bool backward, bool count_pad,
                int64_t override_div) {
  int64_t ip = g.in_plane(), op = g.out_plane();
  const Win &a = g.w[0], &b = g.w[1], &c = g.w[2];
  std::vector<double> inv(static_cast<size_t>(op));
  int64_t o = 0;
  for (int64_t i = 0; i < a.out; i++)
    for (int64_t j = 0; j < b.out; j++)
      for (int64_t k = 0; k < c.out; k++, o++) {
        int64_t d = override_div > 0 ? override_div
                    : count_pad      ? a.span[i] * b.span[j] * c.span[k]
                                     : a.cnt[i] * b.cnt[j] * c.cnt[k];
        inv[o] = 1.0 / double(d);
      }
  Flat f(g);
  for_planes(g, [&](int64_t p) {
    if (backward)
      avg_plane<T>(src + p * op, dst + p * ip, f, inv.data(), true);
    else
      avg_plane<T>(src + p * ip, dst + p * op, f, inv.data(), false);
  });
}

std::string pool_name(const char* kind, int64_t D) { return cat_str(kind, D, "d"); }

Tensor input_like(const Tensor& g, const IntList& in_shape, int64_t D, const char* op) {
  TC_CHECK(int64_t(in_shape.size()) == g.dim() && g.dim() >= D + 1, Runtime, op, "(): input shape ",
           shape_str(Shape(in_shape)), " does not match grad of shape ", shape_str(g.sizes()));
  for (int64_t d = 0; d < g.dim() - D; d++)
    TC_CHECK(in_shape[size_t(d)] == g.size(d), Runtime, op, "(): input shape ",
             shape_str(Shape(in_shape)), " does not match grad of shape ", shape_str(g.sizes()));
  return empty(Shape(in_shape), g.dtype(), g.device());  // the kernels zero it
}

void check_out(const Tensor& g, const Shape& expect, const char* op) {
  TC_CHECK(g.sizes() == expect, Runtime, op, "(): expected grad of shape ", shape_str(expect),
           ", got ", shape_str(g.sizes()));
}

template <class T>
void max_pool_cpu(const PoolGeometry& g, const Tensor& x, const Tensor& y, const Tensor& idx) {
  max_kernel<T>(g, x.data_as<T>(), y.data_as<T>(), idx.data_as<int64_t>());
}

// gx (planes, ip) = 0, then g (planes, on) added at the indices (each checked)
template <class T>
void max_pool_backward_cpu(int64_t planes, int64_t ip, int64_t on, const Tensor& gt,
                           const Tensor& indices, const Tensor& gxt) {
  const T* gp = gt.data_as<T>();
  const int64_t* id = indices.data_as<int64_t>();
  T* xp = gxt.data_as<T>();
  std::fill(xp, xp + planes * ip, T(0));
  bool bad = false;
  int nt = planes > 1 && planes * on >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1) reduction(|| : bad)
  for (int64_t p = 0; p < planes; p++) {
    for (int64_t o = 0; o < on; o++) {
      int64_t i = id[p * on + o];
      if (i < 0 || i >= ip) {
        bad = true;
        continue;
      }
      xp[p * ip + i] += gp[p * on + o];
    }
  }
  TC_CHECK(!bad, Index, "max_pool_backward(): an index is out of range for an input plane of ", ip,
           " values");
}

// backward: dst (the input's gradient) is zeroed first, then each tap adds to it
template <class T>
void avg_pool_cpu(const PoolGeometry& g, const Tensor& src, const Tensor& dst, bool backward,
                  bool count_pad, int64_t divisor_override) {
  T* d = dst.data_as<T>();
  if (backward) std::fill(d, d + dst.numel(), T(0));
  avg_kernel<T>(g, src.data_as<T>(), d, backward, count_pad, divisor_override);
}

}  // namespace

void register_pool_kernels() {
  reg_each<float, double>(Op::max_pool, TC_KERNEL(max_pool_cpu));
  reg_each<float, double>(Op::max_pool_backward, TC_KERNEL(max_pool_backward_cpu));
  reg_each<float, double>(Op::avg_pool, TC_KERNEL(avg_pool_cpu));
}

static void run_max_pool(const PoolGeometry& g, const Tensor& x, const Tensor& y,
                         const Tensor& idx) {
  find_kernel<MaxPoolFn>(Op::max_pool, x.device(), x.dtype())(g, contiguous(x), y, idx);
}

static void run_avg_pool(const PoolGeometry& g, const Tensor& src, const Tensor& dst, bool backward,
                         bool count_pad, int64_t divisor_override) {
  find_kernel<AvgPoolFn>(Op::avg_pool, src.device(), src.dtype())(g, contiguous(src), dst, backward,
                                                                  count_pad, divisor_override);
}

std::pair<Tensor, Tensor> max_pool(const Tensor& x, const IntList& kernel, const IntList& stride,
                                   const IntList& padding, const IntList& dilation,
                                   bool ceil_mode) {
  int64_t D = int64_t(kernel.size());
  std::string op = pool_name("max_pool", D);
  PoolGeometry g = start_geometry(x, D, op.c_str());
  pool_dims(g, kernel, stride, padding, dilation, ceil_mode, false, x, op.c_str());
  Tensor y = empty(out_shape(x, g), x.dtype(), x.device());
  Tensor idx = empty(y.sizes(), ScalarType::Long, x.device());
  run_max_pool(g, x, y, idx);
  return {y, idx};
}

std::pair<Tensor, Tensor> adaptive_max_pool(const Tensor& x, const IntList& out_size) {
  int64_t D = int64_t(out_size.size());
  std::string op = pool_name("adaptive_max_pool", D);
  PoolGeometry g = start_geometry(x, D, op.c_str());
  adaptive_dims(g, out_size, op.c_str());
  Tensor y = empty(out_shape(x, g), x.dtype(), x.device());
  Tensor idx = empty(y.sizes(), ScalarType::Long, x.device());
  run_max_pool(g, x, y, idx);
  return {y, idx};
}

Tensor max_pool_backward(const Tensor& g, const Tensor& indices, const IntList& in_shape,
                         int64_t D) {
  const char* op = "max_pool_backward";
  check_float(g, op, "grad");
  TC_CHECK(indices.dtype() == ScalarType::Long && indices.sizes() == g.sizes(), Runtime, op,
           "(): expected int64 indices of the grad's shape ", shape_str(g.sizes()), ", got ",
           dtype_name(indices.dtype()), " of shape ", shape_str(indices.sizes()));
  Tensor gx = input_like(g, in_shape, D, op);
  int64_t planes = 1, ip = 1, on = 1;
  for (int64_t d = 0; d < g.dim(); d++) {
    if (d < g.dim() - D) {
      planes *= g.size(d);
    } else {
      ip *= in_shape[size_t(d)];
      on *= g.size(d);
    }
  }
  find_kernel<MaxPoolBackwardFn>(Op::max_pool_backward, g.device(), g.dtype())(
      planes, ip, on, contiguous(g), contiguous(indices), gx);
  return gx;
}

Tensor avg_pool(const Tensor& x, const IntList& kernel, const IntList& stride,
                const IntList& padding, bool ceil_mode, bool count_include_pad,
                int64_t divisor_override) {
  int64_t D = int64_t(kernel.size());
  std::string op = pool_name("avg_pool", D);
  PoolGeometry g = start_geometry(x, D, op.c_str());
  pool_dims(g, kernel, stride, padding, {1}, ceil_mode, true, x, op.c_str());
  Tensor y = empty(out_shape(x, g), x.dtype(), x.device());
  run_avg_pool(g, x, y, false, count_include_pad, divisor_override);
  return y;
}

Tensor avg_pool_backward(const Tensor& g, const IntList& in_shape, const IntList& kernel,
                         const IntList& stride, const IntList& padding, bool ceil_mode,
                         bool count_include_pad, int64_t divisor_override) {
  int64_t D = int64_t(kernel.size());
  std::string op = pool_name("avg_pool", D) + "_backward";
  Tensor gx = input_like(g, in_shape, D, op.c_str());
  PoolGeometry geo = start_geometry(gx, D, op.c_str());
  pool_dims(geo, kernel, stride, padding, {1}, ceil_mode, true, gx, op.c_str());
  check_out(g, out_shape(gx, geo), op.c_str());
  run_avg_pool(geo, g, gx, true, count_include_pad, divisor_override);
  return gx;
}

Tensor adaptive_avg_pool(const Tensor& x, const IntList& out_size) {
  int64_t D = int64_t(out_size.size());
  std::string op = pool_name("adaptive_avg_pool", D);
  PoolGeometry g = start_geometry(x, D, op.c_str());
  adaptive_dims(g, out_size, op.c_str());
  Tensor y = empty(out_shape(x, g), x.dtype(), x.device());
  run_avg_pool(g, x, y, false, false, 0);
  return y;
}

Tensor adaptive_avg_pool_backward(const Tensor& g, const IntList& in_shape, int64_t D) {
  std::string op = "adaptive_avg_pool_backward";
  TC_CHECK(D >= 1 && D <= 3 && g.dim() > D, Runtime, op, "(): bad grad of shape ",
           shape_str(g.sizes()), " for ", D, " spatial dims");
  int64_t lead = g.dim() - D;
  IntList out_size(g.sizes().begin() + lead, g.sizes().end());
  Tensor gx = input_like(g, in_shape, D, op.c_str());
  PoolGeometry geo = start_geometry(gx, D, op.c_str());
  adaptive_dims(geo, out_size, op.c_str());
  run_avg_pool(geo, g, gx, true, false, 0);
  return gx;
}

}  // namespace tc
