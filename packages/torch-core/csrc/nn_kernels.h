// nn_kernels.h — the kernel types of the neural-network ops (nn_*.cpp, conv.cpp) and the
// plans their front ends compute.
//
// Each op's front end (nn_ops.h) checks its arguments, computes a plan (shapes, windows,
// strides) and allocates its outputs on the input's device; then it finds the kernel for
// (op, device, dtype) in the one table (dispatch.h) and calls it with the plan and tensors.
// A backend registers one function of the type below per (op, dtype) — the CPU ones are in
// the same .cpp files as the front ends — and the front ends stay as they are. Kernels only
// read and write the tensors' data; data-dependent checks (class targets, embedding and
// pooling indices) happen in the kernels, which read that data.
#pragma once
#include <vector>

#include "nn_ops.h"

namespace tc {

// ---------------------------------------------------------------- softmax (nn_softmax.cpp)
// x seen as (outer, n, inner), n the softmax dim
struct RowShape {
  int64_t outer = 1, n = 1, inner = 1;
};
using SoftmaxFn = void (*)(const RowShape& r, const Tensor& x, const Tensor& y, bool log);
using SoftmaxBackwardFn = void (*)(const RowShape& r, const Tensor& g, const Tensor& y,
                                   const Tensor& gx, bool log);

// ---------------------------------------------------------------- nll loss (nn_loss.cpp)
// x (N, C, S); target (N * S) int64; weight (C) or undefined; reduction 0 none, 1 mean, 2 sum
struct NllArgs {
  int64_t N = 0, C = 0, S = 0, reduction = 1, ignore = -100;
};
using NllLossFn = void (*)(const NllArgs& a, const Tensor& x, const Tensor& target,
                           const Tensor& weight, const Tensor& out, const Tensor& total);
// total: the forward's total weight (a 0-d tensor of g's dtype on its device), or undefined
// to count it from target and weight
using NllLossBackwardFn = void (*)(const NllArgs& a, const Tensor& g, const Tensor& target,
                                   const Tensor& weight, const Tensor& total, const Tensor& gx);

// Whether this CPU runs AVX-512 (the kernels with a hand-written AVX-512 path ask).
inline bool has_avx512() {
  static const bool yes = (__builtin_cpu_init(), __builtin_cpu_supports("avx512f"));
  return yes;
}

// ---------------------------------------------------------------- batch norm (nn_norm.cpp)
struct NormDims {
  int64_t N, C, S;
};
// w, b, rm, rv may be undefined; r: (y, mean, invstd) to write
using BatchNormFn = void (*)(const NormDims& d, const Tensor& x, const Tensor& w, const Tensor& b,
                             const Tensor& rm, const Tensor& rv, bool training, bool update,
                             double momentum, double eps, const NormResult& r);
// r: (grad x, grad weight, grad bias) to write
using BatchNormBackwardFn = void (*)(const NormDims& d, const Tensor& g, const Tensor& x,
                                     const Tensor& w, const Tensor& mean, const Tensor& invstd,
                                     bool training, const NormResult& r);

// x (R, L) contiguous; w, b (L) or undefined; r: (y, mean, rstd) to write
using LayerNormFn = void (*)(int64_t R, int64_t L, const Tensor& x, const Tensor& w,
                             const Tensor& b, double eps, const NormResult& r);
// r: (grad x, grad weight, grad bias) to write
using LayerNormBackwardFn = void (*)(int64_t R, int64_t L, const Tensor& g, const Tensor& x,
                                     const Tensor& w, const Tensor& mean, const Tensor& rstd,
                                     const NormResult& r);

// ---------------------------------------------------------------- pooling (nn_pool.cpp)
// One spatial dim of a pooling: per output position, the first input index of its window
// (beg), the number of taps inside the input (cnt) and the window's padded span.
struct Win {
  std::vector<int64_t> beg, cnt, span;
  int64_t step = 1, in = 1, out = 1;
  void trivial() {
    beg = {0}, cnt = {1}, span = {1};
    in = out = 1;
  }
};
// (planes, *spatial) padded to 3 spatial dims (leading ones trivial)
struct PoolGeometry {
  Win w[3];
  int64_t planes = 1, D = 0;
  int64_t in_plane() const { return w[0].in * w[1].in * w[2].in; }
  int64_t out_plane() const { return w[0].out * w[1].out * w[2].out; }
};
// y and idx (int64: the max's flat index within its input plane)
using MaxPoolFn = void (*)(const PoolGeometry& g, const Tensor& x, const Tensor& y,
                           const Tensor& idx);
// gx (planes, ip) zeroed, then g (planes, on) added at idx (each index checked)
using MaxPoolBackwardFn = void (*)(int64_t planes, int64_t ip, int64_t on, const Tensor& g,
                                   const Tensor& idx, const Tensor& gx);
// forward: dst = window sums / divisor; backward: dst (the input's gradient) zeroed, then
// src / divisor added to each tap. divisor_override <= 0: none.
using AvgPoolFn = void (*)(const PoolGeometry& g, const Tensor& src, const Tensor& dst,
                           bool backward, bool count_pad, int64_t divisor_override);

// ---------------------------------------------------------------- misc (nn_misc.cpp)
using EmbeddingFn = void (*)(const Tensor& weight, const Tensor& indices, const Tensor& out);
// mask = keep with probability 1 - p, else 0; drawn from a counter-based hash of seed
using DropoutMaskFn = void (*)(const Tensor& mask, uint64_t seed, double p, double keep);
using AdamUpdateFn = void (*)(const Tensor& p, const Tensor& grad, const Tensor& exp_avg,
                              const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, double beta1,
                              double beta2, double step_size, double eps);

// ---------------------------------------------------------------- pad, interpolate
// (nn_resample.cpp)
struct PadPlan {
  int64_t k = 0, outer = 1;
  std::vector<std::vector<int64_t>> maps;  // per padded dim (outermost first)
  IntList in, out;                         // sizes of the padded dims
  Shape out_shape;
  int64_t run_o = 0, run_n = 0, run_src = 0;  // the last dim's longest run of consecutive reads
};
struct Taps {  // per output position: two input indices and their weights
  std::vector<int64_t> i0, i1;
  std::vector<double> w0, w1;
  int64_t in = 1, out = 1;
};
struct InterpPlan {
  Taps t[3];
  int64_t planes = 1, D = 0, ntaps[3] = {1, 1, 1};  // taps per dim
};
using PadFn = void (*)(const PadPlan& p, const Tensor& x, const Tensor& y, double value);
using PadBackwardFn = void (*)(const PadPlan& p, const Tensor& g, const Tensor& gx);
// backward: dst (the input's gradient) zeroed, then each tap adds to it
using InterpolateFn = void (*)(const InterpPlan& p, const Tensor& src, const Tensor& dst,
                               bool backward);

// ---------------------------------------------------------------- LSTM (nn_rnn.cpp)
using LstmCellFn = void (*)(const Tensor& gates, const Tensor& c_prev, const Tensor& c,
                            const Tensor& tc, const Tensor& h);
using LstmCellBackwardFn = void (*)(const Tensor& gh, const Tensor& gc, const Tensor& acts,
                                    const Tensor& c_prev, const Tensor& tc, const Tensor& d_gates);
// r: out, acts (holding xw on entry), c, tc
using LstmLayerFn = void (*)(const Tensor& h0, const Tensor& c0, const Tensor& w_hh, bool reverse,
                             const LstmLayer& r);
// r: d gates, gh (holding g_hn on entry), gc (holding g_cn), scratch (B, H)
using LstmLayerBackwardFn = void (*)(const Tensor& g_out, const Tensor& w_hh, const Tensor& acts,
                                     const Tensor& c, const Tensor& tc, const Tensor& c0,
                                     bool reverse, const LstmLayer& r);

// ---------------------------------------------------------------- convolution (conv.cpp)
// One sample, padded to 3 spatial dims (missing leading dims have size 1): an image of C
// channels and size `in`, and the kernel positions `out` it is sampled at. A line is the
// run of out[2] positions at one (z, y): a sample has out[0] * out[1] lines.
struct ConvGeom {
  int64_t C = 0;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
  int64_t s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  int64_t in_n() const { return in[0] * in[1] * in[2]; }
  int64_t out_n() const { return out[0] * out[1] * out[2]; }
  int64_t k_n() const { return k[0] * k[1] * k[2]; }
  int64_t lines() const { return out[0] * out[1]; }
  bool identity() const {  // 1x1 kernel, stride 1, no padding: the columns are the image
    for (int i = 0; i < 3; i++)
      if (k[i] != 1 || s[i] != 1 || p[i] != 0 || in[i] != out[i]) return false;
    return true;
  }
};
// g: the image im2col reads (conv) or col2im writes (conv_transpose); N samples, C input
// and O output channels in `groups` groups
struct ConvPlan {
  ConvGeom g;
  int64_t N = 0, C = 0, O = 0, groups = 1;
  bool transposed = false;
};
// Note [oneDNN] (onednn.cpp): float32 convolutions (nd spatial dims, contiguous buffers) run
// through oneDNN where it is loaded and enabled; false: the caller runs its own kernels.
bool onednn_conv(const ConvPlan& c, int nd, const float* x, const float* w, const float* b,
                 float* y);
bool onednn_conv_weight_grad(const ConvPlan& c, int nd, const float* x, const float* gy, float* gw);
std::string load_onednn(const std::string& path);  // "" on success, else why not
bool onednn_loaded();
bool onednn_enabled();
void set_onednn_enabled(bool on);  // torch.backends.mkldnn.enabled
int64_t onednn_runs();             // convolutions it ran so far
// x, w contiguous; b undefined or (O); y (N, O, *out)
using ConvFn = void (*)(const ConvPlan& c, const Tensor& x, const Tensor& w, const Tensor& b,
                        const Tensor& y);
using ConvWeightGradFn = void (*)(const ConvPlan& c, const Tensor& x, const Tensor& gy,
                                  const Tensor& gw);
using Im2colFn = void (*)(const ConvGeom& g, int64_t N, const Tensor& x, const Tensor& col);
using Col2imFn = void (*)(const ConvGeom& g, int64_t N, const Tensor& col, const Tensor& y);

// the CPU kernels' registrations, one per file (called by register_nn_kernels)
void register_softmax_kernels();
void register_loss_kernels();
void register_norm_kernels();
void register_pool_kernels();
void register_resample_kernels();
void register_rnn_kernels();
void register_conv_kernels();

}  // namespace tc
