// nn_ops.h — neural-network kernels other than convolution (nn_*.cpp): pooling, softmax,
// losses, batch normalisation, embedding, dropout masks, interpolation and padding.
//
// Every op takes float32 or float64 tensors (any layout: they are made contiguous) and has
// a backward op. Most pairs are adjoint linear maps (avg_pool / avg_pool_backward, pad /
// pad_backward, ...), so each one's gradient is the other: autograd's formulas use that
// for gradients of any order. Spatial ops see (planes, *spatial): every dim before the last
// D (D = the number of spatial dims) counts as a plane, so batched and unbatched inputs are
// alike.
#pragma once
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "ops.h"

namespace tc {

// ---------------------------------------------------------------- vectorisable helpers
// GCC vectorises a floating-point reduction only when it may reorder it: these keep kLanes
// independent partial results, which it maps onto SIMD registers.
constexpr int kLanes = 16;

template <class T, class F>
inline T lane_sum(int64_t n, const F& f) {  // sum of f(i), i < n
  if (n < kLanes) {  // (short rows, e.g. a CNN's last feature maps: no lanes to set up and fold)
    T s = 0;
    for (int64_t i = 0; i < n; i++) s += f(i);
    return s;
  }
  T acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; j++) acc[j] += f(i + j);
  T s = 0;
  for (; i < n; i++) s += f(i);
  for (int j = 0; j < kLanes; j++) s += acc[j];
  return s;
}

// The max of p[0..n) (NaN if any is NaN; -inf for n == 0), with GCC/Clang vector types: the
// compiler does not vectorise a NaN-aware select loop by itself.
template <class V, class T, int W>
inline T lane_max_impl(const T* p, int64_t n) {
  const T ninf = -std::numeric_limits<T>::infinity();
  V a0, a1, a2, a3;
  for (int j = 0; j < W; j++) a0[j] = a1[j] = a2[j] = a3[j] = ninf;
  auto step = [](V& acc, const T* q) {
    V v;
    std::memcpy(&v, q, sizeof(V));
    acc = ((v > acc) | (v != v)) ? v : acc;
  };
  int64_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W)
    step(a0, p + i), step(a1, p + i + W), step(a2, p + i + 2 * W), step(a3, p + i + 3 * W);
  T m = ninf;
  auto fold = [&](T v) { m = (v > m || v != v) ? v : m; };
  if (i > 0)  // (short rows, a classifier's 10 scores: no lanes to fold)
    for (int j = 0; j < W; j++) fold(a0[j]), fold(a1[j]), fold(a2[j]), fold(a3[j]);
  for (; i < n; i++) fold(p[i]);
  return m;
}
typedef float nn_v4f __attribute__((vector_size(16)));
typedef double nn_v2d __attribute__((vector_size(16)));
inline float lane_max(const float* p, int64_t n) { return lane_max_impl<nn_v4f, float, 4>(p, n); }
inline double lane_max(const double* p, int64_t n) {
  return lane_max_impl<nn_v2d, double, 2>(p, n);
}

using IntList = std::vector<int64_t>;
using DoubleList = std::vector<double>;

// Raises TypeError unless t is float32 or float64.
void check_float(const Tensor& t, const char* op, const char* arg = "input");

// ---------------------------------------------------------------- pooling (nn_pool.cpp)
// (values, flat index of the max within each input plane)
std::pair<Tensor, Tensor> max_pool(const Tensor& x, const IntList& kernel, const IntList& stride,
                                   const IntList& padding, const IntList& dilation, bool ceil_mode);
std::pair<Tensor, Tensor> adaptive_max_pool(const Tensor& x, const IntList& out_size);
// zeros of in_shape with g added at the indices (the backward of both max pools)
Tensor max_pool_backward(const Tensor& g, const Tensor& indices, const IntList& in_shape,
                         int64_t D);
// divisor_override <= 0: none
Tensor avg_pool(const Tensor& x, const IntList& kernel, const IntList& stride,
                const IntList& padding, bool ceil_mode, bool count_include_pad,
                int64_t divisor_override);
Tensor avg_pool_backward(const Tensor& g, const IntList& in_shape, const IntList& kernel,
                         const IntList& stride, const IntList& padding, bool ceil_mode,
                         bool count_include_pad, int64_t divisor_override);
Tensor adaptive_avg_pool(const Tensor& x, const IntList& out_size);
Tensor adaptive_avg_pool_backward(const Tensor& g, const IntList& in_shape, int64_t D);

// ---------------------------------------------------------------- softmax (nn_softmax.cpp)
Tensor softmax(const Tensor& x, int64_t dim, bool log);
// softmax: y * (g - sum(g * y)); log_softmax: g - exp(y) * sum(g)
Tensor softmax_backward(const Tensor& g, const Tensor& y, int64_t dim, bool log);

// ---------------------------------------------------------------- losses (nn_loss.cpp)
// x: (N, C, S) with target (N, S), or (N, C) with target (N,), int64; weight: (C) or
// undefined; reduction 0 none, 1 mean, 2 sum. Returns (loss: the target's shape or 0-d,
// total weight: 0-d).
std::pair<Tensor, Tensor> nll_loss(const Tensor& x, const Tensor& target, const Tensor& weight,
                                   int64_t reduction, int64_t ignore_index);
Tensor nll_loss_backward(const Tensor& g, const Tensor& target, const Tensor& weight,
                         int64_t reduction, int64_t ignore_index, const Tensor& total_weight,
                         int64_t classes);
// (total_weight undefined: counted from target and weight)

// The elementwise losses of input x and target y (same shape, float32 or float64), each
// computed in one pass with its reduction (0 none, 1 mean, 2 sum). kind: 0 mse, 1 l1,
// 2 smooth_l1 (p = beta > 0), 3 huber (p = delta), 4 binary_cross_entropy (x and y in
// [0, 1], logs clamped at -100), 5 binary_cross_entropy_with_logits. weight (kinds 4, 5)
// and pos_weight (kind 5) broadcast to x's shape, or undefined.
enum LossKind : int64_t { kMseLoss, kL1Loss, kSmoothL1Loss, kHuberLoss, kBceLoss, kBceLogitsLoss };
Tensor pointwise_loss(int64_t kind, const Tensor& x, const Tensor& y, const Tensor& weight,
                      const Tensor& pos_weight, int64_t reduction, double p);
// Whether pointwise_loss takes these arguments as they are (else the caller composes the
// loss: broadcasting, type promotion, integer and 16-bit inputs).
bool pointwise_loss_fits(const Tensor& x, const Tensor& y, const Tensor& weight,
                         const Tensor& pos_weight);
// (d loss / dx, d loss / dy) for the loss's gradient g, each only if asked for (else undefined)
std::pair<Tensor, Tensor> pointwise_loss_backward(int64_t kind, const Tensor& g, const Tensor& x,
                                                  const Tensor& y, const Tensor& weight,
                                                  const Tensor& pos_weight, int64_t reduction,
                                                  double p, bool need_x, bool need_y);

// ---------------------------------------------------------------- fused reductions (nn_loss.cpp)
// The reduced dims of x as a mask (reduce.cpp; IndexError for bad dims, RuntimeError for
// repeated ones).
std::vector<bool> reduced_mask(const Tensor& x, const DimList& dims, const char* op);
// sum / count over dims (dtype: the sum's, Undefined for x's)
Tensor mean(const Tensor& x, const DimList& dims, bool keepdim, ScalarType dtype);
// sum of squared deviations from the mean / max(count - correction, 0) over dims, or its
// square root (std); two passes over each row of reduced values, no temporaries.
Tensor variance(const Tensor& x, const DimList& dims, double correction, bool keepdim,
                bool take_sqrt);
// its gradient: 2 g (x - mean) / (count - correction); for std g (x - mean) / (std (count -
// correction)), 0 where std is 0. result: the forward's.
Tensor variance_backward(const Tensor& g, const Tensor& x, const Tensor& result,
                         const DimList& dims, double correction, bool keepdim, bool take_sqrt);
// log(sum(exp(x))) over dims, with the max subtracted first; and g exp(x - result)
Tensor logsumexp(const Tensor& x, const DimList& dims, bool keepdim);
Tensor logsumexp_backward(const Tensor& g, const Tensor& x, const Tensor& result,
                          const DimList& dims, bool keepdim);

// ---------------------------------------------------------------- batch norm (nn_norm.cpp)
// x: (N, C, *), normalised per channel over N and the trailing dims. Training: batch
// statistics, running stats (if defined) updated in place with the unbiased variance; eval:
// the running stats. Returns (y of x's shape, mean, invstd).
struct NormResult {
  Tensor out, mean, invstd;
};
NormResult batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                      const Tensor& running_mean, const Tensor& running_var, bool training,
                      double momentum, double eps);
// (grad x, grad weight, grad bias); weight undefined means 1
NormResult batch_norm_backward(const Tensor& g, const Tensor& x, const Tensor& weight,
                               const Tensor& mean, const Tensor& invstd, bool training);

// x's rows of its last k dims (L values) each normalised by their own mean and biased
// variance, then * weight + bias (L values each, or undefined). Returns (y of x's shape,
// mean (R), rstd (R)) for the R rows.
NormResult layer_norm(const Tensor& x, int64_t k, const Tensor& weight, const Tensor& bias,
                      double eps);
// (grad x, grad weight, grad bias), the last two shaped as the normalised dims; weight
// undefined means 1
NormResult layer_norm_backward(const Tensor& g, const Tensor& x, int64_t k, const Tensor& weight,
                               const Tensor& mean, const Tensor& rstd);

// ---------------------------------------------------------------- misc (nn_misc.cpp)
// weight rows at indices (any shape): (*indices.shape, D)
Tensor embedding(const Tensor& weight, const Tensor& indices);
// 0 with probability p, else 1/(1-p) (or 1 when !scale), drawn from g
Tensor dropout_mask(const Shape& shape, double p, ScalarType dtype, bool scale, Generator* g,
                    Device device);
// Adam's step on contiguous tensors of one shape, in place: m, v (and max v if defined)
// updated with betas, then p -= step_size * m / (sqrt(v or max v) + eps)
void adam_update(const Tensor& p, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, double beta1, double beta2,
                 double step_size, double eps);
// pads: PyTorch's order (last dim first, before/after pairs); mode 0 constant, 1 reflect,
// 2 replicate, 3 circular
Tensor pad(const Tensor& x, const IntList& pads, int64_t mode, double value);
Tensor pad_backward(const Tensor& g, const IntList& in_shape, const IntList& pads, int64_t mode);
// mode 0 nearest, 1 nearest-exact, 2 linear; scales: the user's scale factor per dim (<= 0:
// none, the sizes' ratio is used)
Tensor interpolate(const Tensor& x, const IntList& out_size, const DoubleList& scales, int64_t mode,
                   bool align_corners);
Tensor interpolate_backward(const Tensor& g, const IntList& in_shape, const DoubleList& scales,
                            int64_t mode, bool align_corners, int64_t D);

// ---------------------------------------------------------------- LSTM cell (nn_rnn.cpp)
// One time step's pointwise part, in place on row slices of contiguous buffers: gates (n, 4H)
// pre-activations (i, f, g, o) become their activations; c = f c_prev + i g, tc = tanh(c),
// h = o tc. Backward: gh, gc the gradients reaching h and c; writes d_gates (n, 4H) (of the
// pre-activations) and turns gc into the gradient of c_prev.
void lstm_cell(const Tensor& gates, const Tensor& c_prev, const Tensor& c, const Tensor& tc,
               const Tensor& h);
void lstm_cell_backward(const Tensor& gh, const Tensor& gc, const Tensor& acts,
                        const Tensor& c_prev, const Tensor& tc, const Tensor& d_gates);
// A layer direction whose steps all have the whole batch (B rows each), in one call: xw
// (T B, 4H) the input part of the gates, h0, c0 (B, H), w_hh (4H, H), all contiguous.
// Returns out (T B, H), acts, c and tanh(c) (what backward reads).
struct LstmLayer {
  Tensor out, acts, c, tc;
};
LstmLayer lstm_layer(const Tensor& xw, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                     bool reverse);
// Returns (d gates (T B, 4H), d h0, d c0) in the first three fields.
LstmLayer lstm_layer_backward(const Tensor& g_out, const Tensor& g_hn, const Tensor& g_cn,
                              const Tensor& w_hh, const Tensor& acts, const Tensor& c,
                              const Tensor& tc, const Tensor& c0, bool reverse);

}  // namespace tc
