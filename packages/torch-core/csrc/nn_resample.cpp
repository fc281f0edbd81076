// nn_resample.cpp — padding (constant, reflect, replicate, circular) and interpolation
// (nearest, nearest-exact, linear over 1-3 dims), each with its backward (the adjoint map).
//
// Both are separable: padding maps each output index of a padded dim to an input index
// (-1: the fill value); interpolation maps each output index to one or two input taps with
// weights. The kernels walk output rows in parallel; the backward adds into the input's
// gradient plane by plane (taps of different outputs may meet), except for constant
// padding, which never reads an input twice.
#include <cmath>
#include <cstring>

#include "nn_kernels.h"

namespace tc {

namespace {

const char* pad_mode_name(int64_t m) {
  static const char* names[] = {"constant", "reflect", "replicate", "circular"};
  return m >= 0 && m < 4 ? names[m] : "?";
}

PadPlan pad_plan(const IntList& shape, const IntList& pads, int64_t mode) {
  const char* op = "pad";
  TC_CHECK(mode >= 0 && mode <= 3, Value, op, "(): unknown padding mode ", mode);
  TC_CHECK(pads.size() % 2 == 0, Runtime, op, "(): padding length must be divisible by 2, got ",
           pads.size());
  PadPlan p;
  int64_t nd = int64_t(shape.size());
  p.k = int64_t(pads.size()) / 2;
  TC_CHECK(p.k <= nd, Runtime, op, "(): padding length ", pads.size(),
           " is too large for an input of ", nd, " dims (at most ", 2 * nd, ")");
  for (int64_t d = 0; d < nd - p.k; d++) p.outer *= shape[size_t(d)];
  p.out_shape = Shape(shape);
  for (int64_t j = 0; j < p.k; j++) {
    int64_t d = nd - p.k + j, L = shape[size_t(d)];
    int64_t before = pads[size_t(2 * (nd - 1 - d))], after = pads[size_t(2 * (nd - 1 - d) + 1)];
    int64_t n = L + before + after;
    TC_CHECK(n >= 0, Runtime, op, "(): the input size ", L, " at dim ", d, " plus padding (",
             before, ", ", after, ") gives a negative output size ", n);
    if (mode == 1)
      TC_CHECK(before < L && after < L, Runtime, op,
               "(): reflect padding must be smaller than the input size, got padding (", before,
               ", ", after, ") at dim ", d, " of size ", L);
    if (mode == 2 && n > 0)
      TC_CHECK(L > 0, Runtime, op, "(): replicate padding needs a non-empty dim ", d);
    if (mode == 3)
      TC_CHECK(before <= L && after <= L &&
                   L + std::min<int64_t>(before, 0) + std::min<int64_t>(after, 0) > 0,
               Runtime, op,
               "(): circular padding may not wrap around more than once, got padding (", before,
               ", ", after, ") at dim ", d, " of size ", L);
    std::vector<int64_t> m(static_cast<size_t>(n));
    for (int64_t o = 0; o < n; o++) {
      int64_t s = o - before;
      if (mode == 0) {
        s = s >= 0 && s < L ? s : -1;
      } else if (mode == 1) {
        if (s < 0) s = -s;
        if (s >= L) s = 2 * (L - 1) - s;
      } else if (mode == 2) {
        s = s < 0 ? 0 : s >= L ? L - 1 : s;
      } else {  // circular: negative padding crops first, the rest wraps the cropped range
        int64_t c0 = std::max<int64_t>(-before, 0);
        int64_t lc = L + std::min<int64_t>(before, 0) + std::min<int64_t>(after, 0);
        int64_t q = (o - std::max<int64_t>(before, 0)) % lc;
        s = c0 + (q < 0 ? q + lc : q);
      }
      m[size_t(o)] = s;
    }
    if (j == p.k - 1) {  // the longest run o, o + 1, ... reading s, s + 1, ...
      for (int64_t o = 0; o < n;) {
        int64_t e = o + 1;
        while (m[size_t(o)] >= 0 && e < n && m[size_t(e)] == m[size_t(e - 1)] + 1) e++;
        if (m[size_t(o)] >= 0 && e - o > p.run_n)
          p.run_o = o, p.run_n = e - o, p.run_src = m[size_t(o)];
        o = e;
      }
    }
    p.maps.push_back(std::move(m));
    p.in.push_back(L);
    p.out.push_back(n);
    p.out_shape[d] = n;
  }
  return p;
}

// f(out_row, in_row_offset or -1): each output row (the last padded dim) with the offset of
// the input row it reads (-1: fill). rows of one outer index are contiguous.
template <class F>
void pad_rows(const PadPlan& p, int64_t outer, const F& f) {
  int64_t rows = 1;
  for (int64_t j = 0; j + 1 < p.k; j++) rows *= p.out[size_t(j)];
  for (int64_t r = 0; r < rows; r++) {
    int64_t rem = r, off = 0, mul = 1;
    bool fill = false;
    for (int64_t j = p.k - 2; j >= 0; j--) {
      int64_t o = rem % p.out[size_t(j)];
      rem /= p.out[size_t(j)];
      int64_t s = p.maps[size_t(j)][size_t(o)];
      if (s < 0) fill = true;
      off += s * mul;
      mul *= p.in[size_t(j)];
    }
    f(outer * rows + r, fill ? -1 : outer * mul + off);
  }
}

template <class T>
void pad_kernel(const PadPlan& p, const T* x, T* y, T value) {
  if (p.k == 0) {
    std::memcpy(y, x, sizeof(T) * size_t(p.outer));
    return;
  }
  int64_t lo = p.out.back(), li = p.in.back();
  const auto& last = p.maps.back();
  int64_t total = p.outer;
  for (auto n : p.out) total *= n;
  int nt = p.outer > 1 && total >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t q = 0; q < p.outer; q++)
    pad_rows(p, q, [&](int64_t r, int64_t in_row) {
      T* o = y + r * lo;
      if (in_row < 0) {
        for (int64_t i = 0; i < lo; i++) o[i] = value;
        return;
      }
      const T* s = x + in_row * li;
      for (int64_t i = 0; i < p.run_o; i++) o[i] = last[size_t(i)] < 0 ? value : s[last[size_t(i)]];
      std::memcpy(o + p.run_o, s + p.run_src, sizeof(T) * size_t(p.run_n));
      for (int64_t i = p.run_o + p.run_n; i < lo; i++)
        o[i] = last[size_t(i)] < 0 ? value : s[last[size_t(i)]];
    });
}

template <class T>
void pad_backward_kernel(const PadPlan& p, const T* g, T* gx) {
  if (p.k == 0) {
    std::memcpy(gx, g, sizeof(T) * size_t(p.outer));
    return;
  }
  int64_t lo = p.out.back(), li = p.in.back();
  const auto& last = p.maps.back();
  int64_t total = p.outer;
  for (auto n : p.out) total *= n;
  int nt = p.outer > 1 && total >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t q = 0; q < p.outer; q++)
    pad_rows(p, q, [&](int64_t r, int64_t in_row) {
      if (in_row < 0) return;
      const T* o = g + r * lo;
      T* s = gx + in_row * li;
      for (int64_t i = 0; i < lo; i++)
        if (last[size_t(i)] >= 0) s[last[size_t(i)]] += o[i];
    });
}

// ---------------------------------------------------------------- interpolation

template <class T>
Taps make_taps(int64_t in, int64_t out, double user_scale, int64_t mode, bool align) {
  Taps t;
  t.in = in, t.out = out;
  t.i0.resize(size_t(out)), t.i1.resize(size_t(out)), t.w0.resize(size_t(out)),
      t.w1.resize(size_t(out));
  // the mapping is computed in the input's precision, as PyTorch does
  T scale = user_scale > 0 ? T(1.0 / user_scale) : T(in) / T(out);
  if (mode == 2 && align) scale = out > 1 ? T(in - 1) / T(out - 1) : T(0);
  for (int64_t o = 0; o < out; o++) {
    int64_t a, b = 0;
    T l1 = 0;
    if (mode == 0 || mode == 1) {
      T src = mode == 0 ? T(o) * scale : (T(o) + T(0.5)) * scale;
      a = std::min<int64_t>(int64_t(std::floor(src)), in - 1);
      b = a;
    } else {
      T src = align ? scale * T(o) : std::max(scale * (T(o) + T(0.5)) - T(0.5), T(0));
      a = std::min<int64_t>(int64_t(src), in - 1);
      b = a + (a < in - 1 ? 1 : 0);
      l1 = std::min(std::max(src - T(a), T(0)), T(1));
    }
    t.i0[size_t(o)] = a, t.i1[size_t(o)] = b;
    t.w0[size_t(o)] = double(T(1) - l1), t.w1[size_t(o)] = double(l1);
  }
  return t;
}

InterpPlan interp_plan(const IntList& in_shape, const IntList& out_size, const DoubleList& scales,
                       int64_t mode, bool align, ScalarType dt) {
  const char* op = "interpolate";
  int64_t D = int64_t(out_size.size()), nd = int64_t(in_shape.size());
  TC_CHECK(D >= 1 && D <= 3 && nd >= D + 1, Runtime, op, "(): expected 1 to 3 spatial dims and a",
           " channel dim, got output size of ", D, " dims for input of ", nd, " dims");
  TC_CHECK(mode >= 0 && mode <= 2, Value, op, "(): unknown mode ", mode);
  TC_CHECK(scales.empty() || int64_t(scales.size()) == D, Runtime, op, "(): expected ", D,
           " scale factors, got ", scales.size());
  InterpPlan p;
  p.D = D;
  for (int64_t d = 0; d < nd - D; d++) p.planes *= in_shape[size_t(d)];
  for (int64_t d = 0; d < D; d++) {
    int64_t in = in_shape[size_t(nd - D + d)], out = out_size[size_t(d)];
    TC_CHECK(in > 0 && out > 0, Runtime, op,
             "(): input and output sizes should be greater than 0, got input size ", in,
             " and output size ", out, " at spatial dim ", d);
    double s = scales.empty() ? 0.0 : scales[size_t(d)];
    p.t[3 - D + d] = dt == ScalarType::Float ? make_taps<float>(in, out, s, mode, align)
                                             : make_taps<double>(in, out, s, mode, align);
    p.ntaps[3 - D + d] = mode == 2 ? 2 : 1;
  }
  for (int64_t d = 0; d < 3 - D; d++) p.t[d] = make_taps<double>(1, 1, 0, 0, false);
  return p;
}

// forward (backward = false): out[o] = sum of w * x[tap]; backward: gx[tap] += w * g[o].
// One output row (fixed i, j) at a time: its up to 4 input rows and their weights first,
// then the taps along the last dim. w0/w1: the last dim's weights in T.
template <class T>
TC_MULTIVERSION void interp_plane(const InterpPlan& p, const T* __restrict s, T* __restrict d,
                                  const T* w0, const T* w1, bool backward) {
  const Taps &a = p.t[0], &b = p.t[1], &c = p.t[2];
  const int64_t nk = c.out, *ci0 = c.i0.data(), *ci1 = c.i1.data();
  const bool two = p.ntaps[2] == 2;
  for (int64_t i = 0; i < a.out; i++)
    for (int64_t j = 0; j < b.out; j++) {
      int64_t rows[4];
      T w[4];
      int nr = 0;
      for (int64_t ta = 0; ta < p.ntaps[0]; ta++)
        for (int64_t tb = 0; tb < p.ntaps[1]; tb++) {
          int64_t ia = ta ? a.i1[i] : a.i0[i], ib = tb ? b.i1[j] : b.i0[j];
          rows[nr] = (ia * b.in + ib) * c.in;
          w[nr++] = T(ta ? a.w1[i] : a.w0[i]) * T(tb ? b.w1[j] : b.w0[j]);
        }
      int64_t orow = (i * b.out + j) * nk;
      if (!backward) {
        T* o = d + orow;
        for (int64_t k = 0; k < nk; k++) o[k] = 0;
        for (int r = 0; r < nr; r++) {
          const T* sr = s + rows[r];
          T wr = w[r];
          if (two)
            for (int64_t k = 0; k < nk; k++) o[k] += wr * (sr[ci0[k]] * w0[k] + sr[ci1[k]] * w1[k]);
          else
            for (int64_t k = 0; k < nk; k++) o[k] += wr * sr[ci0[k]];
        }
      } else {
        const T* gr = s + orow;
        for (int r = 0; r < nr; r++) {
          T* dr = d + rows[r];
          T wr = w[r];
          for (int64_t k = 0; k < nk; k++) {
            T gv = gr[k] * wr;
            dr[ci0[k]] += two ? gv * w0[k] : gv;
            if (two) dr[ci1[k]] += gv * w1[k];
          }
        }
      }
    }
}

template <class T>
void interp_kernel(const InterpPlan& p, const T* src, T* dst, bool backward) {
  const Taps &a = p.t[0], &b = p.t[1], &c = p.t[2];
  int64_t ip = a.in * b.in * c.in, op = a.out * b.out * c.out;
  std::vector<T> w0(c.w0.begin(), c.w0.end()), w1(c.w1.begin(), c.w1.end());
  int nt = p.planes > 1 && p.planes * std::max(op, ip) >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t q = 0; q < p.planes; q++)
    interp_plane<T>(p, src + q * (backward ? op : ip), dst + q * (backward ? ip : op), w0.data(),
                    w1.data(), backward);
}

template <class T>
void pad_cpu(const PadPlan& p, const Tensor& x, const Tensor& y, double value) {
  pad_kernel<T>(p, x.data_as<T>(), y.data_as<T>(), T(value));
}

template <class T>
void pad_backward_cpu(const PadPlan& p, const Tensor& g, const Tensor& gx) {
  T* d = gx.data_as<T>();
  std::fill(d, d + gx.numel(), T(0));
  pad_backward_kernel<T>(p, g.data_as<T>(), d);
}

// backward: dst (the input's gradient) is zeroed, then each tap adds to it
template <class T>
void interpolate_cpu(const InterpPlan& p, const Tensor& src, const Tensor& dst, bool backward) {
  T* d = dst.data_as<T>();
  if (backward) std::fill(d, d + dst.numel(), T(0));
  interp_kernel<T>(p, src.data_as<T>(), d, backward);
}

}  // namespace

void register_resample_kernels() {
  reg_each<float, double>(Op::pad, TC_KERNEL(pad_cpu));
  reg_each<float, double>(Op::pad_backward, TC_KERNEL(pad_backward_cpu));
  reg_each<float, double>(Op::interpolate, TC_KERNEL(interpolate_cpu));
}

Tensor pad(const Tensor& x, const IntList& pads, int64_t mode, double value) {
  check_float(x, "pad");
  PadPlan p = pad_plan(x.sizes().vec(), pads, mode);
  if (mode != 0)
    for (int64_t j = 0; j < p.k; j++)
      TC_CHECK(p.in[size_t(j)] > 0 || p.out[size_t(j)] == 0, Runtime,
               "pad(): ", pad_mode_name(mode),
               " padding needs non-empty padded dims, got input of shape ", shape_str(x.sizes()));
  Tensor y = empty(p.out_shape, x.dtype(), x.device());
  if (y.numel() == 0) return y;
  find_kernel<PadFn>(Op::pad, x.device(), x.dtype())(p, contiguous(x), y, value);
  return y;
}

Tensor pad_backward(const Tensor& g, const IntList& in_shape, const IntList& pads, int64_t mode) {
  check_float(g, "pad_backward", "grad");
  PadPlan p = pad_plan(in_shape, pads, mode);
  TC_CHECK(g.sizes() == p.out_shape, Runtime, "pad_backward(): expected grad of shape ",
           shape_str(p.out_shape), ", got ", shape_str(g.sizes()));
  Tensor gx = empty(Shape(in_shape), g.dtype(), g.device());
  if (gx.numel() == 0) return gx;
  if (g.numel() == 0) {
    fill_(gx, Scalar::from_int(0));
    return gx;
  }
  find_kernel<PadBackwardFn>(Op::pad_backward, g.device(), g.dtype())(p, contiguous(g), gx);
  return gx;
}

Tensor interpolate(const Tensor& x, const IntList& out_size, const DoubleList& scales, int64_t mode,
                   bool align_corners) {
  check_float(x, "interpolate");
  InterpPlan p = interp_plan(x.sizes().vec(), out_size, scales, mode, align_corners, x.dtype());
  Shape shape(x.sizes().begin(), x.sizes().end() - p.D);
  for (auto n : out_size) shape.push_back(n);
  Tensor y = empty(shape, x.dtype(), x.device());
  if (y.numel() == 0) return y;
  find_kernel<InterpolateFn>(Op::interpolate, x.device(), x.dtype())(p, contiguous(x), y, false);
  return y;
}

Tensor interpolate_backward(const Tensor& g, const IntList& in_shape, const DoubleList& scales,
                            int64_t mode, bool align_corners, int64_t D) {
  check_float(g, "interpolate_backward", "grad");
  TC_CHECK(g.dim() == int64_t(in_shape.size()) && D >= 1 && D <= 3 && g.dim() > D, Runtime,
           "interpolate_backward(): grad of shape ", shape_str(g.sizes()),
           " does not match input shape ", shape_str(Shape(in_shape)));
  IntList out_size(g.sizes().end() - D, g.sizes().end());
  for (int64_t d = 0; d < g.dim() - D; d++)
    TC_CHECK(g.size(d) == in_shape[size_t(d)], Runtime, "interpolate_backward(): grad of shape ",
             shape_str(g.sizes()), " does not match input shape ", shape_str(Shape(in_shape)));
  InterpPlan p = interp_plan(in_shape, out_size, scales, mode, align_corners, g.dtype());
  Tensor gx = empty(Shape(in_shape), g.dtype(), g.device());
  if (gx.numel() == 0) return gx;
  if (g.numel() == 0) {
    fill_(gx, Scalar::from_int(0));
    return gx;
  }
  find_kernel<InterpolateFn>(Op::interpolate, g.device(), g.dtype())(p, contiguous(g), gx, true);
  return gx;
}

}  // namespace tc
