// nn_loss.cpp — the losses' kernels and their backwards: the negative log-likelihood loss on
// class indices; the elementwise losses (mse, l1, smooth_l1, huber, the binary cross
// entropies) each fused with its reduction; and var, std and logsumexp as one kernel each.
//
// nll_loss: the input is (N, C, S): N samples, C classes, S positions per sample (the flattened
// d1, d2, ... of a K-dimensional loss; 1 for the usual (N, C)). Each position picks
// -weight[t] * x[n, t, s] for its target t; ignore_index positions count for nothing.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "nn_kernels.h"
#include "vecmath.h"

namespace tc {

namespace {

NllArgs nll_args(const Tensor& x, const Tensor& target, const Tensor& weight, int64_t reduction,
                 int64_t ignore_index, const char* op) {
  check_float(x, op);
  TC_CHECK(x.dim() == 2 || x.dim() == 3, Runtime, op,
           "(): expected input of shape (N, C) or (N, C, S), got ", shape_str(x.sizes()));
  TC_CHECK(target.dtype() == ScalarType::Long, Runtime, op,
           "(): expected target to hold class indices of dtype int64, got ",
           dtype_name(target.dtype()));
  NllArgs a;
  a.N = x.size(0), a.C = x.size(1), a.S = x.dim() == 3 ? x.size(2) : 1;
  bool ok = x.dim() == 2 ? target.dim() == 1 && target.size(0) == a.N
                         : target.dim() == 2 && target.size(0) == a.N && target.size(1) == a.S;
  TC_CHECK(ok, Runtime, op, "(): expected target of shape (", a.N,
           x.dim() == 3 ? cat_str(", ", a.S, ")") : std::string(")"), " for input of shape ",
           shape_str(x.sizes()), ", got ", shape_str(target.sizes()));
  if (weight.defined())
    TC_CHECK(weight.dtype() == x.dtype() && weight.dim() == 1 && weight.size(0) == a.C, Runtime, op,
             "(): expected weight to be a 1-D ", dtype_name(x.dtype()), " tensor of ", a.C,
             " values (one per class), got ", dtype_name(weight.dtype()), " of shape ",
             shape_str(weight.sizes()));
  TC_CHECK(reduction >= 0 && reduction <= 2, Value, op, "(): bad reduction ", reduction);
  a.reduction = reduction, a.ignore = ignore_index;
  return a;
}

// Raises for the first target out of range (after a kernel counted some: they skip them).
void check_targets(const NllArgs& a, const int64_t* target, const char* op) {
  int64_t n = a.N * a.S, bad = -1;
  for (int64_t i = 0; i < n; i++) {
    int64_t t = target[i];
    if (t != a.ignore && (t < 0 || t >= a.C)) {
      bad = i;
      break;
    }
  }
  if (bad >= 0)
    fail(ErrorKind::Index, op, "(): target ", target[bad], " is out of bounds for ", a.C,
         " classes (expected values in [0, ", a.C - 1, "] or ignore_index ", a.ignore, ")");
}

// Position i of the flattened (N, S) targets: its input element for class t. S1: S == 1, the
// usual (N, C) input, without the division.
template <bool S1>
inline int64_t nll_at(const NllArgs& a, int64_t i, int64_t t) {
  if (S1) return i * a.C + t;
  return (i / a.S * a.C + t) * a.S + i % a.S;
}

// Returns how many targets were out of range (skipped).
template <class T, bool S1>
int64_t nll_kernel(const NllArgs& a, const int64_t* target, const T* x, const T* w, T* out,
                   T* total) {
  int64_t n = a.N * a.S, bad = 0;
  double sum = 0, wsum = 0;
  int nt = n >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) reduction(+ : sum, wsum, bad) if (nt > 1)
  for (int64_t i = 0; i < n; i++) {
    int64_t t = target[i];
    double wi = 0, li = 0;
    if (t != a.ignore) {
      if (t < 0 || t >= a.C) {
        bad++;
        continue;
      }
      wi = w ? double(w[t]) : 1.0;
      li = -wi * double(x[nll_at<S1>(a, i, t)]);
    }
    if (a.reduction == 0) out[i] = T(li);
    sum += li, wsum += wi;
  }
  *total = T(wsum);
  if (a.reduction == 1) *out = T(sum / wsum);
  if (a.reduction == 2) *out = T(sum);
  return bad;
}

template <class T, bool S1>
int64_t nll_backward_kernel(const NllArgs& a, const int64_t* target, const T* g, const T* w,
                            T total, T* gx) {
  int64_t n = a.N * a.S, bad = 0;
  T scale = a.reduction == 1 ? T(1) / total : T(1);
  int nt = n >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) reduction(+ : bad) if (nt > 1)
  for (int64_t i = 0; i < n; i++) {
    int64_t t = target[i];
    if (t == a.ignore) continue;
    if (t < 0 || t >= a.C) {
      bad++;
      continue;
    }
    T gi = a.reduction == 0 ? g[i] : g[0];
    gx[nll_at<S1>(a, i, t)] = -(w ? w[t] : T(1)) * gi * scale;
  }
  return bad;
}

template <class T>
const T* maybe(const Tensor& t) {
  return t.defined() ? t.data_as<T>() : nullptr;
}

// The targets are checked here, by the kernel that reads them (in the same pass).
template <class T>
void nll_loss_cpu(const NllArgs& a, const Tensor& x, const Tensor& target, const Tensor& weight,
                  const Tensor& out, const Tensor& total) {
  const int64_t* tg = target.data_as<int64_t>();
  auto kernel = a.S == 1 ? nll_kernel<T, true> : nll_kernel<T, false>;
  if (kernel(a, tg, x.data_as<T>(), maybe<T>(weight), out.data_as<T>(), total.data_as<T>()))
    check_targets(a, tg, "nll_loss");
}

// The weight of the targets that count (what 'mean' divides by).
template <class T>
double nll_total(const NllArgs& a, const int64_t* target, const T* w) {
  int64_t n = a.N * a.S;
  double total = 0;
  int nt = n >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) reduction(+ : total) if (nt > 1)
  for (int64_t i = 0; i < n; i++) {
    int64_t t = target[i];
    if (t != a.ignore && t >= 0 && t < a.C) total += w ? double(w[t]) : 1.0;
  }
  return total;
}

// total_weight: the forward's total weight, or undefined to count it here
template <class T>
void nll_loss_backward_cpu(const NllArgs& a, const Tensor& g, const Tensor& target,
                           const Tensor& weight, const Tensor& total_weight, const Tensor& gx) {
  const int64_t* tg = target.data_as<int64_t>();
  double total = total_weight.defined() ? double(*total_weight.data_as<T>())
                                        : std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(total) && a.reduction == 1) total = nll_total(a, tg, maybe<T>(weight));
  if (gx.numel()) std::memset(gx.data(), 0, size_t(gx.numel()) * sizeof(T));
  auto kernel = a.S == 1 ? nll_backward_kernel<T, true> : nll_backward_kernel<T, false>;
  if (kernel(a, tg, g.data_as<T>(), maybe<T>(weight), T(total), gx.data_as<T>()))
    check_targets(a, tg, "nll_loss_backward");
}

}  // namespace

void register_loss_kernels() {
  reg_each<float, double>(Op::nll_loss, TC_KERNEL(nll_loss_cpu));
  reg_each<float, double>(Op::nll_loss_backward, TC_KERNEL(nll_loss_backward_cpu));
}

std::pair<Tensor, Tensor> nll_loss(const Tensor& x, const Tensor& target, const Tensor& weight,
                                   int64_t reduction, int64_t ignore_index) {
  NllArgs a = nll_args(x, target, weight, reduction, ignore_index, "nll_loss");
  Tensor wc = weight.defined() ? contiguous(weight) : Tensor();
  Tensor out = empty(reduction == 0 ? target.sizes() : Shape(), x.dtype(), x.device());
  Tensor total = empty({}, x.dtype(), x.device());
  find_kernel<NllLossFn>(Op::nll_loss, x.device(), x.dtype())(a, contiguous(x), contiguous(target),
                                                              wc, out, total);
  return {out, total};
}

Tensor nll_loss_backward(const Tensor& g, const Tensor& target, const Tensor& weight,
                         int64_t reduction, int64_t ignore_index, const Tensor& total_weight,
                         int64_t classes) {
  const char* op = "nll_loss_backward";
  TC_CHECK(target.dim() == 1 || target.dim() == 2, Runtime, op,
           "(): expected a 1-D or 2-D target, got ", shape_str(target.sizes()));
  Shape gx_shape = target.dim() == 1 ? Shape{target.size(0), classes}
                                     : Shape{target.size(0), classes, target.size(1)};
  Tensor gx = empty(gx_shape, g.dtype(), g.device());
  NllArgs a = nll_args(gx, target, weight, reduction, ignore_index, op);
  Shape expect = reduction == 0 ? target.sizes() : Shape();
  TC_CHECK(g.sizes() == expect, Runtime, op, "(): expected grad of shape ", shape_str(expect),
           ", got ", shape_str(g.sizes()));
  TC_CHECK(!total_weight.defined() || total_weight.numel() == 1, Runtime, op,
           "(): expected a one-element total_weight");
  Tensor wc = weight.defined() ? contiguous(weight) : Tensor();
  // the total as a 0-d tensor of g's dtype where g is: a CUDA total stays on the GPU (reading
  // it here would wait for the GPU); one elsewhere is read and put there
  Tensor tw;
  if (total_weight.defined() && total_weight.device() == g.device()) {
    tw = contiguous(to_dtype(reshape(total_weight, Shape{}), g.dtype()));
  } else if (total_weight.defined()) {
    tw = empty(Shape{}, g.dtype(), g.device());
    fill_(tw, Scalar::from_double(item(to_dtype(total_weight, ScalarType::Double)).d));
  }
  find_kernel<NllLossBackwardFn>(Op::nll_loss_backward, g.device(), g.dtype())(
      a, contiguous(g), contiguous(target), wc, tw, gx);
  return gx;
}

}  // namespace tc

// ================================================================ elementwise losses
// Each loss is one pass over x and y: every element's loss (times its weight) is written
// out (reduction none) or summed (mean, sum) while it is in registers; the backward is one
// more pass writing d/dx or d/dy. Values go in blocks of kBlock: summed in vectors of T, the
// blocks' sums added in double, in block order (the same result for any thread count).
namespace tc {

namespace {

constexpr int64_t kBlock = 4096;

// sum of p[0..n) in double: 32-byte vectors in four accumulators (GCC does not vectorise a
// floating-point sum by itself), then the lanes and the tail.
template <class T>
TC_INLINE double vec_sum(const T* p, int64_t n) {
  constexpr int L = 32 / sizeof(T);
  typedef T V __attribute__((vector_size(32)));
  V acc[4] = {};
  int64_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L)
    for (int k = 0; k < 4; k++) {
      V v;
      std::memcpy(&v, p + i + k * L, sizeof v);
      acc[k] += v;
    }
  const V t = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  double s = 0;
  for (; i < n; i++) s += double(p[i]);
  for (int l = 0; l < L; l++) s += double(t[l]);
  return s;
}

const char* loss_name(int64_t kind) {
  static const char* names[] = {"mse_loss",
                                "l1_loss",
                                "smooth_l1_loss",
                                "huber_loss",
                                "binary_cross_entropy",
                                "binary_cross_entropy_with_logits"};
  return kind >= 0 && kind <= kBceLogitsLoss ? names[kind] : "pointwise_loss";
}

// log(sigmoid(x)) without overflow
template <class T>
TC_INLINE T log_sigmoid(T x) {
  return std::min(x, T(0)) - fast_log1p(fast_exp(-std::abs(x)));
}

// One element's loss; pw: pos_weight (read when PW), p: beta or delta. The formulas and
// their branches at ties are PyTorch's.
template <int K, bool PW, class T>
TC_INLINE T loss_of(T x, T y, T pw, T p) {
  if constexpr (K == kMseLoss) {
    const T d = x - y;
    return d * d;
  } else if constexpr (K == kL1Loss) {
    return std::abs(x - y);
  } else if constexpr (K == kSmoothL1Loss) {
    const T d = std::abs(x - y);
    return d < p ? T(0.5) * d * d / p : d - T(0.5) * p;
  } else if constexpr (K == kHuberLoss) {
    const T d = std::abs(x - y);
    return d < p ? T(0.5) * d * d : p * (d - T(0.5) * p);
  } else if constexpr (K == kBceLoss) {
    const T lx = std::max(fast_log(x), T(-100)), l1x = std::max(fast_log1p(-x), T(-100));
    return (y - T(1)) * l1x - y * lx;
  } else {
    const T ls = log_sigmoid(x);
    return PW ? (T(1) - y) * x - (T(1) + (pw - T(1)) * y) * ls : (T(1) - y) * x - ls;
  }
}

template <int K, bool PW, class T>
TC_INLINE T loss_dx(T x, T y, T pw, T p) {
  if constexpr (K == kMseLoss) {
    return T(2) * (x - y);
  } else if constexpr (K == kL1Loss) {
    const T d = x - y;  // sign(d), 0 for NaN
    return T(d > T(0)) - T(d < T(0));
  } else if constexpr (K == kSmoothL1Loss) {
    const T d = x - y;
    return d <= -p ? T(-1) : (d >= p ? T(1) : d / p);
  } else if constexpr (K == kHuberLoss) {
    const T d = x - y;
    return d <= -p ? -p : (d >= p ? p : d);
  } else if constexpr (K == kBceLoss) {
    return (x - y) / std::max((T(1) - x) * x, T(1e-12));
  } else {
    const T s = T(1) / (T(1) + fast_exp(-x));
    return PW ? (pw * y + T(1) - y) * s - pw * y : s - y;
  }
}

template <int K, bool PW, class T>
TC_INLINE T loss_dy(T x, T y, T pw, T p) {
  if constexpr (K == kBceLoss)
    return fast_log1p(-x) - fast_log(x);  // (unclamped, as PyTorch's)
  else if constexpr (K == kBceLogitsLoss)
    return PW ? (T(1) - pw) * log_sigmoid(x) - x : -x;
  else
    return -loss_dx<K, PW>(x, y, pw, p);
}

// The loops over one block; W, PW: whether weight and pos_weight are read.
template <int K, bool W, bool PW, class T>
TC_INLINE void loss_loop(const T* __restrict x, const T* __restrict y, const T* __restrict w,
                         const T* __restrict pw, T p, int64_t n, T* __restrict out) {
  for (int64_t i = 0; i < n; i++) {
    const T v = loss_of<K, PW>(x[i], y[i], PW ? pw[i] : T(1), p);
    out[i] = W ? v * w[i] : v;
  }
}

template <int K, bool W, bool PW, class T>
TC_MULTIVERSION void loss_values(const T* x, const T* y, const T* w, const T* pw, T p, int64_t n,
                                 T* out) {
  loss_loop<K, W, PW>(x, y, w, pw, p, n, out);
}

// The block's losses into a buffer (a plain elementwise loop, which vectorises), then summed.
template <int K, bool W, bool PW, class T>
TC_MULTIVERSION double loss_sum(const T* x, const T* y, const T* w, const T* pw, T p, int64_t n) {
  T buf[kBlock];
  loss_loop<K, W, PW>(x, y, w, pw, p, n, buf);
  return vec_sum(buf, n);
}

// out = g * weight * (d/dx or d/dy); g per element (G: reduction none) or the scalar gs
template <int K, bool W, bool PW, bool DY, bool G, class T>
TC_MULTIVERSION void loss_grad(const T* __restrict x, const T* __restrict y, const T* __restrict w,
                               const T* __restrict pw, T p, const T* __restrict g, T gs, int64_t n,
                               T* __restrict out) {
  for (int64_t i = 0; i < n; i++) {
    const T pwi = PW ? pw[i] : T(1);
    const T d = DY ? loss_dy<K, PW>(x[i], y[i], pwi, p) : loss_dx<K, PW>(x[i], y[i], pwi, p);
    const T s = G ? g[i] : gs;
    out[i] = W ? s * w[i] * d : s * d;
  }
}

// How many of p[0..n) lie outside [0, 1] (NaN too)
template <class T>
TC_MULTIVERSION int64_t count_outside_unit(const T* p, int64_t n) {
  int64_t c = 0;
  for (int64_t i = 0; i < n; i++) c += !(p[i] >= T(0) && p[i] <= T(1));
  return c;
}

template <int K>
using KindC = std::integral_constant<int, K>;
using No = std::false_type;
using Yes = std::true_type;

// f(kind, has weight, has pos_weight) with compile-time constants, for the combinations
// that exist (weights belong to the binary cross entropies).
template <class F>
void with_loss(int64_t kind, bool w, bool pw, const F& f) {
  switch (kind) {
    case kMseLoss:
      return f(KindC<kMseLoss>(), No(), No());
    case kL1Loss:
      return f(KindC<kL1Loss>(), No(), No());
    case kSmoothL1Loss:
      return f(KindC<kSmoothL1Loss>(), No(), No());
    case kHuberLoss:
      return f(KindC<kHuberLoss>(), No(), No());
    case kBceLoss:
      return w ? f(KindC<kBceLoss>(), Yes(), No()) : f(KindC<kBceLoss>(), No(), No());
    default:
      if (w)
        return pw ? f(KindC<kBceLogitsLoss>(), Yes(), Yes())
                  : f(KindC<kBceLogitsLoss>(), Yes(), No());
      return pw ? f(KindC<kBceLogitsLoss>(), No(), Yes()) : f(KindC<kBceLogitsLoss>(), No(), No());
  }
}

template <class T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_as<T>() : nullptr;
}

template <class T>
void loss_forward_cpu(int64_t kind, const Tensor& xt, const Tensor& yt, const Tensor& wt,
                      const Tensor& pwt, int64_t reduction, double p_, const Tensor& outt) {
  const T *x = xt.data_as<T>(), *y = yt.data_as<T>();
  const T *w = data_or_null<T>(wt), *pw = data_or_null<T>(pwt);
  T* out = outt.data_as<T>();
  const T p = T(p_);
  const int64_t n = xt.numel(), nb = (n + kBlock - 1) / kBlock;
  const int nt = n >= kGrain ? get_num_threads() : 1;
  const bool check = kind == kBceLoss;
  int64_t bad_x = 0, bad_y = 0;
  std::vector<double> part(reduction == 0 ? 0 : size_t(nb));
  with_loss(kind, w, pw, [&](auto k, auto hw, auto hpw) {
    constexpr int K = decltype(k)::value;
    constexpr bool W = decltype(hw)::value, PW = decltype(hpw)::value;
    int64_t bx = 0, by = 0;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(+ : bx, by) if (nt > 1)
    for (int64_t b = 0; b < nb; b++) {
      const int64_t i = b * kBlock, m = std::min(kBlock, n - i);
      if (check) {  // (while the block is in cache)
        bx += count_outside_unit(x + i, m);
        by += count_outside_unit(y + i, m);
      }
      const T* wi = W ? w + i : nullptr;
      const T* pwi = PW ? pw + i : nullptr;
      if (reduction == 0)
        loss_values<K, W, PW, T>(x + i, y + i, wi, pwi, p, m, out + i);
      else
        part[size_t(b)] = loss_sum<K, W, PW, T>(x + i, y + i, wi, pwi, p, m);
    }
    bad_x = bx, bad_y = by;
  });
  TC_CHECK(bad_x == 0, Runtime, "all elements of input should be between 0 and 1");
  TC_CHECK(bad_y == 0, Runtime, "all elements of target should be between 0 and 1");
  if (reduction == 0) return;
  double total = 0;
  for (double s : part) total += s;
  out[0] = T(reduction == 1 ? total / double(n) : total);  // (mean of nothing: NaN)
}

template <class T>
void loss_backward_cpu(int64_t kind, const Tensor& gt, const Tensor& xt, const Tensor& yt,
                       const Tensor& wt, const Tensor& pwt, int64_t reduction, double p_,
                       const Tensor& outt, bool dy) {
  const T *x = xt.data_as<T>(), *y = yt.data_as<T>(), *g = gt.data_as<T>();
  const T *w = data_or_null<T>(wt), *pw = data_or_null<T>(pwt);
  T* out = outt.data_as<T>();
  const T p = T(p_);
  const int64_t n = xt.numel(), nb = (n + kBlock - 1) / kBlock;
  const int nt = n >= kGrain ? get_num_threads() : 1;
  const T gs = reduction == 0 ? T(0) : reduction == 1 ? T(double(g[0]) / double(n)) : g[0];
  with_loss(kind, w, pw, [&](auto k, auto hw, auto hpw) {
    constexpr int K = decltype(k)::value;
    constexpr bool W = decltype(hw)::value, PW = decltype(hpw)::value;
    auto run = [&](auto dy_c, auto g_c) {
      constexpr bool DY = decltype(dy_c)::value, G = decltype(g_c)::value;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
      for (int64_t b = 0; b < nb; b++) {
        const int64_t i = b * kBlock, m = std::min(kBlock, n - i);
        loss_grad<K, W, PW, DY, G, T>(x + i, y + i, W ? w + i : nullptr, PW ? pw + i : nullptr, p,
                                      G ? g + i : nullptr, gs, m, out + i);
      }
    };
    if (dy)
      reduction == 0 ? run(Yes(), Yes()) : run(Yes(), No());
    else
      reduction == 0 ? run(No(), Yes()) : run(No(), No());
  });
}

// weight or pos_weight as a contiguous tensor of x's shape (undefined stays undefined)
Tensor loss_weight(const Tensor& w, const Tensor& x, const char* op, const char* arg) {
  if (!w.defined()) return w;
  TC_CHECK(w.dtype() == x.dtype(), Runtime, op, "(): expected ", arg, " of dtype ",
           dtype_name(x.dtype()), ", got ", dtype_name(w.dtype()));
  check_same_device(x, w, op);
  return contiguous(w.sizes() == x.sizes() ? w : expand(w, x.sizes()));
}

bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); i++)
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  return true;
}

// The checks shared by a loss and its backward; returns whether the kernel runs (CPU) or
// the outputs are only allocated (meta).
bool loss_checks(int64_t kind, const Tensor& x, const Tensor& y, int64_t reduction,
                 const char* op) {
  TC_CHECK(kind >= 0 && kind <= kBceLogitsLoss, Value, "pointwise_loss(): bad kind ", kind);
  check_float(x, op);
  TC_CHECK(y.dtype() == x.dtype() && y.sizes() == x.sizes(), Runtime, op,
           "(): expected a target of the input's shape and dtype (", shape_str(x.sizes()), ", ",
           dtype_name(x.dtype()), "), got ", shape_str(y.sizes()), ", ", dtype_name(y.dtype()));
  TC_CHECK(reduction >= 0 && reduction <= 2, Value, op, "(): bad reduction ", reduction);
  check_same_device(x, y, op);
  if (x.device().type == DeviceType::Meta) return false;
  TC_CHECK(x.device().type == DeviceType::CPU, NotImplemented, op, "(): not implemented on ",
           x.device().str());
  return true;
}

}  // namespace

bool pointwise_loss_fits(const Tensor& x, const Tensor& y, const Tensor& w, const Tensor& pw) {
  auto ok = [&](const Tensor& t) {
    return !t.defined() || (t.dtype() == x.dtype() && broadcasts_to(t.sizes(), x.sizes()));
  };
  // (other devices than the CPU and meta: the composed form, through their elementwise kernels)
  bool here = x.device().type == DeviceType::CPU || x.device().type == DeviceType::Meta;
  return here && (x.dtype() == ScalarType::Float || x.dtype() == ScalarType::Double) &&
         y.dtype() == x.dtype() && y.sizes() == x.sizes() && ok(w) && ok(pw);
}

Tensor pointwise_loss(int64_t kind, const Tensor& x, const Tensor& y, const Tensor& weight,
                      const Tensor& pos_weight, int64_t reduction, double p) {
  const char* op = loss_name(kind);
  bool run = loss_checks(kind, x, y, reduction, op);
  Tensor w = loss_weight(weight, x, op, "weight"),
         pw = loss_weight(pos_weight, x, op, "pos_weight");
  Tensor out = empty(reduction == 0 ? x.sizes() : Shape(), x.dtype(), x.device());
  if (!run) return out;
  Tensor xc = contiguous(x), yc = contiguous(y);
  if (x.dtype() == ScalarType::Float)
    loss_forward_cpu<float>(kind, xc, yc, w, pw, reduction, p, out);
  else
    loss_forward_cpu<double>(kind, xc, yc, w, pw, reduction, p, out);
  return out;
}

std::pair<Tensor, Tensor> pointwise_loss_backward(int64_t kind, const Tensor& g, const Tensor& x,
                                                  const Tensor& y, const Tensor& weight,
                                                  const Tensor& pos_weight, int64_t reduction,
                                                  double p, bool need_x, bool need_y) {
  const char* op = loss_name(kind);
  bool run = loss_checks(kind, x, y, reduction, op);
  Shape expect = reduction == 0 ? x.sizes() : Shape();
  TC_CHECK(g.dtype() == x.dtype() && g.sizes() == expect, Runtime, op,
           "_backward(): expected a gradient of shape ", shape_str(expect), " and dtype ",
           dtype_name(x.dtype()), ", got ", shape_str(g.sizes()), ", ", dtype_name(g.dtype()));
  Tensor w = loss_weight(weight, x, op, "weight"),
         pw = loss_weight(pos_weight, x, op, "pos_weight");
  Tensor gx = need_x ? empty(x.sizes(), x.dtype(), x.device()) : Tensor();
  Tensor gy = need_y ? empty(x.sizes(), x.dtype(), x.device()) : Tensor();
  if (!run) return {gx, gy};
  Tensor xc = contiguous(x), yc = contiguous(y), gc = contiguous(g);
  for (int dy = 0; dy < 2; dy++) {
    const Tensor& out = dy ? gy : gx;
    if (!out.defined()) continue;
    if (x.dtype() == ScalarType::Float)
      loss_backward_cpu<float>(kind, gc, xc, yc, w, pw, reduction, p, out, dy);
    else
      loss_backward_cpu<double>(kind, gc, xc, yc, w, pw, reduction, p, out, dy);
  }
  return {gx, gy};
}

}  // namespace tc

// ================================================================ fused reductions
// var, std and logsumexp see x as rows of the reduced values: (R, L), the reduced dims moved
// last (a copy only when they are not already last). Each row is reduced in two passes over
// its values (mean then squared deviations; max then sum of exponentials), in blocks of
// kBlock; rows run in parallel, or the blocks of a row when there are fewer rows than threads.
namespace tc {

namespace {

struct Rows {
  Tensor x;  // (R, L) contiguous
  int64_t R = 1, L = 1;
  Shape out;   // the result's shape
  Shape perm;  // kept dims then reduced dims, when x had to be permuted (else empty)
};

Rows rows_of(const Tensor& x, const DimList& dims, bool keepdim, const char* op) {
  auto mask = reduced_mask(x, dims, op);
  Rows r;
  Shape kept, red;
  bool seen_red = false, moved = false;
  for (int64_t d = 0; d < x.dim(); d++) {
    const int64_t n = x.size(d);
    (mask[d] ? red : kept).push_back(d);
    if (mask[d]) {
      r.L *= n;
      if (keepdim) r.out.push_back(1);
    } else {
      r.R *= n;
      r.out.push_back(n);
    }
    if (n != 1) {  // a reduced dim before a kept one: the rows are not contiguous
      moved |= seen_red && !mask[d];
      seen_red |= bool(mask[d]);
    }
  }
  Tensor t = x;
  if (moved) {
    for (int64_t d : red) kept.push_back(d);
    r.perm = kept;
    t = permute(x, r.perm);
  }
  r.x = view(contiguous(t), Shape{r.R, r.L});
  return r;
}

// (R, L) rows back to x's shape
Tensor from_rows(const Tensor& rows, const Tensor& x, const Rows& r) {
  if (r.perm.empty()) return view(rows, x.sizes());
  Shape sizes, inverse(r.perm.size());
  for (size_t i = 0; i < r.perm.size(); i++) {
    sizes.push_back(x.size(r.perm[i]));
    inverse[size_t(r.perm[i])] = int64_t(i);
  }
  return contiguous(permute(view(rows, sizes), inverse));
}

// f(row, split) for each row: split says f should run the blocks of its row in parallel
template <class F>
void for_rows(int64_t R, int64_t L, const F& f) {
  const int nt = R * L >= kGrain ? get_num_threads() : 1;
  if (R < nt && L >= kGrain) {
    for (int64_t r = 0; r < R; r++) f(r, true);
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t r = 0; r < R; r++) f(r, false);
}

// fold(f(begin, n) over the blocks of a row of L values), in block order
template <class A, class F, class Fold>
A over_blocks(int64_t L, bool split, A init, const F& f, const Fold& fold) {
  const int64_t nb = (L + kBlock - 1) / kBlock;
  A acc = init;
  if (!split || nb < 2) {
    for (int64_t b = 0; b < nb; b++)
      acc = fold(acc, f(b * kBlock, std::min(kBlock, L - b * kBlock)));
    return acc;
  }
  std::vector<A> part(size_t(nb), init);
#pragma omp parallel for num_threads(get_num_threads()) schedule(static)
  for (int64_t b = 0; b < nb; b++)
    part[size_t(b)] = f(b * kBlock, std::min(kBlock, L - b * kBlock));
  for (const A& a : part) acc = fold(acc, a);
  return acc;
}

struct SumPair {
  double s1 = 0, s2 = 0;
};

template <class T>
TC_MULTIVERSION double block_sum(const T* p, int64_t n) {
  return vec_sum(p, n);
}
// sum of d and of d^2, d = p[i] - m, in vectors as vec_sum
template <class T>
TC_MULTIVERSION SumPair block_dev(const T* p, int64_t n, T m) {
  constexpr int L = 32 / sizeof(T);
  typedef T V __attribute__((vector_size(32)));
  V s1[2] = {}, s2[2] = {};
  const V mv = V{} + m;
  int64_t i = 0;
  for (; i + 2 * L <= n; i += 2 * L)
    for (int k = 0; k < 2; k++) {
      V v;
      std::memcpy(&v, p + i + k * L, sizeof v);
      v -= mv;
      s1[k] += v;
      s2[k] += v * v;
    }
  SumPair r;
  for (; i < n; i++) r.s1 += double(p[i] - m), r.s2 += double((p[i] - m) * (p[i] - m));
  for (int l = 0; l < L; l++)
    r.s1 += double(s1[0][l] + s1[1][l]), r.s2 += double(s2[0][l] + s2[1][l]);
  return r;
}
// the max of a block (NaN if any), in 32-byte vectors
typedef float nl_v8f __attribute__((vector_size(32)));
typedef double nl_v4d __attribute__((vector_size(32)));
TC_MULTIVERSION float block_max(const float* p, int64_t n) {
  return lane_max_impl<nl_v8f, float, 8>(p, n);
}
TC_MULTIVERSION double block_max(const double* p, int64_t n) {
  return lane_max_impl<nl_v4d, double, 4>(p, n);
}
template <class T>
TC_MULTIVERSION void block_shift(const T* __restrict p, int64_t n, T m, T* __restrict out) {
  for (int64_t i = 0; i < n; i++) out[i] = p[i] - m;
}
template <class T>
TC_MULTIVERSION void block_exp(T* p, int64_t n) {
  for (int64_t i = 0; i < n; i++) p[i] = fast_exp(p[i]);
}
template <class T>
TC_MULTIVERSION void block_scale(T* p, int64_t n, T g) {
  for (int64_t i = 0; i < n; i++) p[i] *= g;
}
// out = exp(p - m): glibc's vector exp where this machine has it (as torch.exp), else ours
template <class T>
void block_exp_of_shifted(const T* p, int64_t n, T m, T* out) {
  static const VecMath v = find_vec_math<T>("exp");
  block_shift(p, n, m, out);
  if (v.fn)
    vec_apply(v, out, out, n);
  else
    block_exp(out, n);
}
template <class T>
double block_sum_exp(const T* p, int64_t n, T m) {
  T buf[kBlock];
  block_exp_of_shifted(p, n, m, buf);
  return block_sum(buf, n);
}
template <class T>
TC_MULTIVERSION void block_scaled_dev(const T* __restrict p, int64_t n, T m, T k,
                                      T* __restrict out) {
  for (int64_t i = 0; i < n; i++) out[i] = k * (p[i] - m);
}
template <class T>
void block_exp_grad(const T* p, int64_t n, T r, T g, T* out) {
  block_exp_of_shifted(p, n, r, out);
  block_scale(out, n, g);
}

double add(double a, double b) { return a + b; }
SumPair add_pair(SumPair a, SumPair b) { return {a.s1 + b.s1, a.s2 + b.s2}; }

// The mean of a row and its sum of squared deviations, the latter corrected for the
// rounding of the mean (sum d^2 - (sum d)^2 / L).
template <class T>
std::pair<double, double> row_moments(const T* x, int64_t L, bool split) {
  double mean = over_blocks(
                    L, split, 0.0, [&](int64_t b, int64_t n) { return block_sum(x + b, n); }, add) /
                double(L);
  SumPair d = over_blocks(
      L, split, SumPair(), [&](int64_t b, int64_t n) { return block_dev(x + b, n, T(mean)); },
      add_pair);
  return {mean, d.s2 - d.s1 * d.s1 / double(L)};
}

template <class T>
void variance_cpu(const Rows& r, double denom, bool take_sqrt, const Tensor& out) {
  const T* x = r.x.data_as<T>();
  T* o = out.data_as<T>();
  for_rows(r.R, r.L, [&](int64_t i, bool split) {
    double v = row_moments(x + i * r.L, r.L, split).second / denom;
    o[i] = T(take_sqrt ? std::sqrt(v) : v);
  });
}

template <class T>
void variance_backward_cpu(const Rows& r, const T* g, const T* res, double denom, bool take_sqrt,
                           const Tensor& gx) {
  const T* x = r.x.data_as<T>();
  T* o = gx.data_as<T>();
  for_rows(r.R, r.L, [&](int64_t i, bool split) {
    const T* xr = x + i * r.L;
    double mean = row_moments(xr, r.L, split).first;
    // d var = 2 (x - mean) / denom; d std = d var / (2 std), 0 where std is 0 (PyTorch's)
    double k = take_sqrt ? (res[i] == T(0) ? 0.0 : double(g[i]) / (double(res[i]) * denom))
                         : 2.0 * double(g[i]) / denom;
    over_blocks(
        r.L, split, 0,
        [&](int64_t b, int64_t n) {
          block_scaled_dev(xr + b, n, T(mean), T(k), o + i * r.L + b);
          return 0;
        },
        [](int, int) { return 0; });
  });
}

template <class T>
void logsumexp_cpu(const Rows& r, const Tensor& out) {
  const T* x = r.x.data_as<T>();
  T* o = out.data_as<T>();
  const T ninf = -std::numeric_limits<T>::infinity();
  for_rows(r.R, r.L, [&](int64_t i, bool split) {
    const T* xr = x + i * r.L;
    T m = over_blocks(
        r.L, split, ninf, [&](int64_t b, int64_t n) { return block_max(xr + b, n); },
        [](T a, T b) { return a != a || b > a || b != b ? (a != a ? a : b) : a; });
    if (std::isinf(m)) m = 0;  // all -inf: log(0) = -inf; some +inf: inf (no inf - inf)
    double s = over_blocks(
        r.L, split, 0.0, [&](int64_t b, int64_t n) { return block_sum_exp(xr + b, n, m); }, add);
    o[i] = T(std::log(s) + double(m));
  });
}

template <class T>
void logsumexp_backward_cpu(const Rows& r, const T* g, const T* res, const Tensor& gx) {
  const T* x = r.x.data_as<T>();
  T* o = gx.data_as<T>();
  for_rows(r.R, r.L, [&](int64_t i, bool split) {
    over_blocks(
        r.L, split, 0,
        [&](int64_t b, int64_t n) {
          block_exp_grad(x + i * r.L + b, n, res[i], g[i], o + i * r.L + b);
          return 0;
        },
        [](int, int) { return 0; });
  });
}

// Whether x's reduction runs here (CPU) or is only shaped (meta); 16-bit floats are computed
// in float32 by the callers.
bool reduction_runs(const Tensor& x, const char* op) {
  TC_CHECK(is_floating(x.dtype()), Runtime, op, "(): expected a floating-point input, got ",
           dtype_name(x.dtype()));
  if (x.device().type == DeviceType::Meta) return false;
  TC_CHECK(x.device().type == DeviceType::CPU, NotImplemented, op, "(): not implemented on ",
           x.device().str());
  return true;
}

bool wide(const Tensor& x) {
  return x.dtype() == ScalarType::Float || x.dtype() == ScalarType::Double;
}

// g or result (the reduced shape) as R contiguous values of x's dtype
Tensor row_values(const Tensor& t, const Rows& r, ScalarType dtype, const char* op,
                  const char* what) {
  TC_CHECK(t.numel() == r.R, Runtime, op, "_backward(): expected ", what, " of ", r.R,
           " values, got shape ", shape_str(t.sizes()));
  return contiguous(to_dtype(t, dtype));
}

}  // namespace

Tensor mean(const Tensor& x, const DimList& dims, bool keepdim, ScalarType dtype) {
  auto mask = reduced_mask(x, dims, "mean");
  int64_t count = 1;
  for (int64_t d = 0; d < x.dim(); d++)
    if (mask[d]) count *= x.size(d);
  Tensor s = reduce(Op::sum, x, dims, keepdim, dtype);
  return binary(Op::div, s, wrap_scalar(Scalar::from_double(double(count))), s);
}

Tensor variance(const Tensor& x, const DimList& dims, double correction, bool keepdim,
                bool take_sqrt) {
  const char* op = take_sqrt ? "std" : "var";
  bool run = reduction_runs(x, op);
  if (!wide(x))
    return to_dtype(variance(to_dtype(x, ScalarType::Float), dims, correction, keepdim, take_sqrt),
                    x.dtype());
  Rows r = rows_of(x, dims, keepdim, op);
  Tensor out = empty(r.out, x.dtype(), x.device());
  if (!run) return out;
  double denom = std::max(double(r.L) - correction, 0.0);
  if (x.dtype() == ScalarType::Float)
    variance_cpu<float>(r, denom, take_sqrt, out);
  else
    variance_cpu<double>(r, denom, take_sqrt, out);
  return out;
}

Tensor variance_backward(const Tensor& g, const Tensor& x, const Tensor& result,
                         const DimList& dims, double correction, bool keepdim, bool take_sqrt) {
  const char* op = take_sqrt ? "std" : "var";
  bool run = reduction_runs(x, op);
  ScalarType dt = wide(x) ? x.dtype() : ScalarType::Float;
  Rows r = rows_of(wide(x) ? x : to_dtype(x, dt), dims, keepdim, op);
  Tensor gr = row_values(g, r, dt, op, "a gradient"),
         res = row_values(result, r, dt, op, "a result");
  Tensor gx = empty(Shape{r.R, r.L}, dt, x.device());
  if (run) {
    double denom = std::max(double(r.L) - correction, 0.0);
    if (dt == ScalarType::Float)
      variance_backward_cpu<float>(r, gr.data_as<float>(), res.data_as<float>(), denom, take_sqrt,
                                   gx);
    else
      variance_backward_cpu<double>(r, gr.data_as<double>(), res.data_as<double>(), denom,
                                    take_sqrt, gx);
  }
  return to_dtype(from_rows(gx, x, r), x.dtype());
}

Tensor logsumexp(const Tensor& x, const DimList& dims, bool keepdim) {
  bool run = reduction_runs(x, "logsumexp");
  if (!wide(x))
    return to_dtype(logsumexp(to_dtype(x, ScalarType::Float), dims, keepdim), x.dtype());
  Rows r = rows_of(x, dims, keepdim, "logsumexp");
  Tensor out = empty(r.out, x.dtype(), x.device());
  if (!run) return out;
  if (x.dtype() == ScalarType::Float)
    logsumexp_cpu<float>(r, out);
  else
    logsumexp_cpu<double>(r, out);
  return out;
}

Tensor logsumexp_backward(const Tensor& g, const Tensor& x, const Tensor& result,
                          const DimList& dims, bool keepdim) {
  const char* op = "logsumexp";
  bool run = reduction_runs(x, op);
  ScalarType dt = wide(x) ? x.dtype() : ScalarType::Float;
  Rows r = rows_of(wide(x) ? x : to_dtype(x, dt), dims, keepdim, op);
  Tensor gr = row_values(g, r, dt, op, "a gradient"),
         res = row_values(result, r, dt, op, "a result");
  Tensor gx = empty(Shape{r.R, r.L}, dt, x.device());
  if (run) {
    if (dt == ScalarType::Float)
      logsumexp_backward_cpu<float>(r, gr.data_as<float>(), res.data_as<float>(), gx);
    else
      logsumexp_backward_cpu<double>(r, gr.data_as<double>(), res.data_as<double>(), gx);
  }
  return to_dtype(from_rows(gx, x, r), x.dtype());
}

}  // namespace tc
