// nn_rnn.cpp — the LSTM cell's pointwise part, forward and backward, fused: torch.nn's LSTM
// layer runs it once per time step between the recurrent matrix products (rnn.py), where
// a dozen separate elementwise ops cost more than the arithmetic.

#include <cstring>

#include "cpu_gemm.h"
#include "nn_kernels.h"

namespace tc {

namespace {

// p[j] = a sigmoid(a p[j]) + b: sigmoid for (1, 0), tanh for (2, -1). Loops without
// branches, so that they vectorise (fast_exp is branch-free for float).
template <class T>
TC_MULTIVERSION void activate(T* __restrict p, int64_t n, T a, T b) {
  for (int64_t j = 0; j < n; j++) p[j] = a / (T(1) + fast_exp(-a * p[j])) + b;
}

template <class T>
TC_MULTIVERSION void cell(const T* __restrict a, const T* __restrict cp, T* __restrict c,
                          T* __restrict tc, T* __restrict h, int64_t H) {
  for (int64_t j = 0; j < H; j++) c[j] = a[H + j] * cp[j] + a[j] * a[2 * H + j];
  for (int64_t j = 0; j < H; j++) tc[j] = T(2) / (T(1) + fast_exp(T(-2) * c[j])) - T(1);
  for (int64_t j = 0; j < H; j++) h[j] = a[3 * H + j] * tc[j];
}

template <class T>
TC_MULTIVERSION void cell_backward(const T* __restrict a, const T* __restrict g,
                                   const T* __restrict cp, const T* __restrict t, T* __restrict gc,
                                   T* __restrict d, int64_t H) {
  for (int64_t j = 0; j < H; j++) {
    const T i = a[j], f = a[H + j], gg = a[2 * H + j], o = a[3 * H + j];
    const T dc = gc[j] + g[j] * o * (T(1) - t[j] * t[j]);
    d[j] = dc * gg * i * (T(1) - i);
    d[H + j] = dc * cp[j] * f * (T(1) - f);
    d[2 * H + j] = dc * i * (T(1) - gg * gg);
    d[3 * H + j] = g[j] * t[j] * o * (T(1) - o);
    gc[j] = dc * f;  // the gradient reaching the previous step's cell state
  }
}

// rows x width matrix whose rows are contiguous (a row slice of a contiguous buffer)
void check_rows(const Tensor& t, int64_t rows, int64_t width, ScalarType dt, const char* op,
                const char* arg) {
  TC_CHECK(t.dim() == 2 && t.size(0) == rows && t.size(1) == width, Runtime, op, "(): expected ",
           arg, " of shape (", rows, ", ", width, "), got ", shape_str(t.sizes()));
  TC_CHECK(t.dtype() == dt, Type, op, "(): expected ", arg, " of dtype ", dtype_name(dt), ", got ",
           dtype_name(t.dtype()));
  TC_CHECK(t.stride(1) == 1 && (rows <= 1 || t.stride(0) == width), Runtime, op, "(): ", arg,
           " must have contiguous rows");
}

template <class F>
void for_rows(int64_t rows, int64_t width, const F& f) {
  int nt = rows * width >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t r = 0; r < rows; r++) f(r);
}

// gates (n, 4H) pre-activations become activations; c, tc, h (n, H) written
template <class T>
void lstm_cell_cpu(const Tensor& gates, const Tensor& c_prev, const Tensor& c, const Tensor& tc,
                   const Tensor& h) {
  const int64_t n = gates.size(0), H = gates.size(1) / 4;
  for_rows(n, 4 * H, [&](int64_t r) {
    T* a = gates.data_as<T>() + r * 4 * H;
    activate<T>(a, 2 * H, T(1), T(0));       // i, f
    activate<T>(a + 2 * H, H, T(2), T(-1));  // g: tanh
    activate<T>(a + 3 * H, H, T(1), T(0));   // o
    cell<T>(a, c_prev.data_as<T>() + r * H, c.data_as<T>() + r * H, tc.data_as<T>() + r * H,
            h.data_as<T>() + r * H, H);
  });
}

template <class T>
void lstm_cell_backward_cpu(const Tensor& gh, const Tensor& gc, const Tensor& acts,
                            const Tensor& c_prev, const Tensor& tc, const Tensor& d_gates) {
  const int64_t n = acts.size(0), H = acts.size(1) / 4;
  for_rows(n, 4 * H, [&](int64_t r) {
    cell_backward<T>(acts.data_as<T>() + r * 4 * H, gh.data_as<T>() + r * H,
                     c_prev.data_as<T>() + r * H, tc.data_as<T>() + r * H, gc.data_as<T>() + r * H,
                     d_gates.data_as<T>() + r * 4 * H, H);
  });
}

// r: out, acts (holding xw), c, tc of T steps of B rows
template <class T_>
void lstm_layer_cpu(const Tensor& h0, const Tensor& c0, const Tensor& w_hh, bool reverse,
                    const LstmLayer& r) {
  const int64_t B = h0.size(0), H = h0.size(1), T = B ? r.out.size(0) / B : 0;
  T_ *out = r.out.data_as<T_>(), *acts = r.acts.data_as<T_>();
  T_ *c = r.c.data_as<T_>(), *tc = r.tc.data_as<T_>();
  const T_ *hp = h0.data_as<T_>(), *cp = c0.data_as<T_>(), *w = w_hh.data_as<T_>();
  for (int64_t s = 0; s < T; s++) {
    const int64_t r0 = (reverse ? T - 1 - s : s) * B;
    T_* a = acts + r0 * 4 * H;
    // a = xw + h_prev @ W_hh^T
    par_gemm(false, true, B, 4 * H, H, T_(1), hp, H, w, H, T_(1), a, 4 * H);
    for_rows(B, 4 * H, [&](int64_t i) {
      T_* ai = a + i * 4 * H;
      activate<T_>(ai, 2 * H, T_(1), T_(0));
      activate<T_>(ai + 2 * H, H, T_(2), T_(-1));
      activate<T_>(ai + 3 * H, H, T_(1), T_(0));
      cell<T_>(ai, cp + i * H, c + (r0 + i) * H, tc + (r0 + i) * H, out + (r0 + i) * H, H);
    });
    hp = out + r0 * H;
    cp = c + r0 * H;
  }
}

// r: d gates, gh (holding g_hn), gc (holding g_cn), scratch (B, H)
template <class T_>
void lstm_layer_backward_cpu(const Tensor& g_out, const Tensor& w_hh, const Tensor& acts,
                             const Tensor& c, const Tensor& tc, const Tensor& c0, bool reverse,
                             const LstmLayer& r) {
  const int64_t B = c0.size(0), H = c0.size(1), T = B ? acts.size(0) / B : 0;
  T_ *d = r.out.data_as<T_>(), *gh = r.acts.data_as<T_>(), *gc = r.c.data_as<T_>();
  T_* g = r.tc.data_as<T_>();
  const T_ *go = g_out.data_as<T_>(), *a = acts.data_as<T_>(), *w = w_hh.data_as<T_>();
  const T_ *cs = c.data_as<T_>(), *t = tc.data_as<T_>();
  for (int64_t s = T - 1; s >= 0; s--) {
    const int64_t r0 = (reverse ? T - 1 - s : s) * B, rp = (reverse ? T - s : s - 1) * B;
    const T_* cp = s == 0 ? c0.data_as<T_>() : cs + rp * H;
    for_rows(B, 4 * H, [&](int64_t i) {
      const int64_t k = r0 + i;
      for (int64_t j = 0; j < H; j++) g[i * H + j] = gh[i * H + j] + go[k * H + j];
      cell_backward<T_>(a + k * 4 * H, g + i * H, cp + i * H, t + k * H, gc + i * H, d + k * 4 * H,
                        H);
    });
    // gh = d @ W_hh
    par_gemm(false, false, B, H, 4 * H, T_(1), d + r0 * 4 * H, 4 * H, w, H, T_(0), gh, H);
  }
}

void check_contiguous(const Tensor& t, const Shape& shape, ScalarType dt, const char* op,
                      const char* arg) {
  TC_CHECK(t.sizes() == shape && t.dtype() == dt && t.is_contiguous(), Runtime, op,
           "(): expected a contiguous ", dtype_name(dt), " ", arg, " of shape ", shape_str(shape),
           ", got ", dtype_name(t.dtype()), " of shape ", shape_str(t.sizes()));
}

}  // namespace

void register_rnn_kernels() {
  reg_each<float, double>(Op::lstm_cell, TC_KERNEL(lstm_cell_cpu));
  reg_each<float, double>(Op::lstm_cell_backward, TC_KERNEL(lstm_cell_backward_cpu));
  reg_each<float, double>(Op::lstm_layer, TC_KERNEL(lstm_layer_cpu));
  reg_each<float, double>(Op::lstm_layer_backward, TC_KERNEL(lstm_layer_backward_cpu));
}

void lstm_cell(const Tensor& gates, const Tensor& c_prev, const Tensor& c, const Tensor& tc,
               const Tensor& h) {
  const char* op = "_lstm_cell";
  check_float(gates, op, "gates");
  const int64_t n = gates.size(0), H = gates.dim() == 2 ? gates.size(1) / 4 : 0;
  check_rows(gates, n, 4 * H, gates.dtype(), op, "gates");
  for (auto [t, arg] : {std::pair{&c_prev, "c_prev"}, {&c, "c"}, {&tc, "tc"}, {&h, "h"}})
    check_rows(*t, n, H, gates.dtype(), op, arg);
  find_kernel<LstmCellFn>(Op::lstm_cell, gates.device(), gates.dtype())(gates, c_prev, c, tc, h);
}

void lstm_cell_backward(const Tensor& gh, const Tensor& gc, const Tensor& acts,
                        const Tensor& c_prev, const Tensor& tc, const Tensor& d_gates) {
  const char* op = "_lstm_cell_backward";
  check_float(acts, op, "acts");
  const int64_t n = acts.size(0), H = acts.dim() == 2 ? acts.size(1) / 4 : 0;
  check_rows(acts, n, 4 * H, acts.dtype(), op, "acts");
  check_rows(d_gates, n, 4 * H, acts.dtype(), op, "d_gates");
  for (auto [t, arg] : {std::pair{&gh, "gh"}, {&gc, "gc"}, {&c_prev, "c_prev"}, {&tc, "tc"}})
    check_rows(*t, n, H, acts.dtype(), op, arg);
  find_kernel<LstmCellBackwardFn>(Op::lstm_cell_backward, acts.device(), acts.dtype())(
      gh, gc, acts, c_prev, tc, d_gates);
}

// The whole layer when every step has the whole batch: T steps of B rows each.
LstmLayer lstm_layer(const Tensor& xw, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                     bool reverse) {
  const char* op = "_lstm_layer";
  check_float(xw, op, "xw");
  const ScalarType dt = xw.dtype();
  const int64_t B = h0.dim() == 2 ? h0.size(0) : 0, H = h0.dim() == 2 ? h0.size(1) : 0;
  const int64_t rows = xw.dim() == 2 ? xw.size(0) : 0, T = B ? rows / B : 0;
  check_contiguous(xw, {T * B, 4 * H}, dt, op, "xw");
  check_contiguous(h0, {B, H}, dt, op, "h0");
  check_contiguous(c0, {B, H}, dt, op, "c0");
  check_contiguous(w_hh, {4 * H, H}, dt, op, "w_hh");
  const Device dev = xw.device();
  LstmLayer r{empty({rows, H}, dt, dev), clone(xw), empty({rows, H}, dt, dev),
              empty({rows, H}, dt, dev)};
  find_kernel<LstmLayerFn>(Op::lstm_layer, dev, dt)(h0, c0, w_hh, reverse, r);
  return r;
}

// Its backward: (d gates (rows, 4H), d h0, d c0); g_out (rows, H), g_hn, g_cn (B, H).
LstmLayer lstm_layer_backward(const Tensor& g_out, const Tensor& g_hn, const Tensor& g_cn,
                              const Tensor& w_hh, const Tensor& acts, const Tensor& c,
                              const Tensor& tc, const Tensor& c0, bool reverse) {
  const char* op = "_lstm_layer_backward";
  check_float(acts, op, "acts");
  const ScalarType dt = acts.dtype();
  const int64_t B = c0.dim() == 2 ? c0.size(0) : 0, H = c0.dim() == 2 ? c0.size(1) : 0;
  const int64_t rows = acts.dim() == 2 ? acts.size(0) : 0, T = B ? rows / B : 0;
  check_contiguous(acts, {T * B, 4 * H}, dt, op, "acts");
  for (auto [t, arg] : {std::pair{&g_out, "g_out"}, {&c, "c"}, {&tc, "tc"}})
    check_contiguous(*t, {T * B, H}, dt, op, arg);
  for (auto [t, arg] : {std::pair{&g_hn, "g_hn"}, {&g_cn, "g_cn"}, {&c0, "c0"}})
    check_contiguous(*t, {B, H}, dt, op, arg);
  check_contiguous(w_hh, {4 * H, H}, dt, op, "w_hh");
  const Device dev = acts.device();
  // fields: d gates, gh (the gradient reaching h of the step before), gc, scratch
  LstmLayer r{empty({rows, 4 * H}, dt, dev), clone(g_hn), clone(g_cn), empty({B, H}, dt, dev)};
  find_kernel<LstmLayerBackwardFn>(Op::lstm_layer_backward, dev, dt)(g_out, w_hh, acts, c, tc, c0,
                                                                     reverse, r);
  return {r.out, r.acts, r.c, Tensor()};
}

}  // namespace tc
