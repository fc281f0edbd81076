// nn_loss.cpp — the negative log-likelihood loss on class indices, and its backward.
//
// The input is (N, C, S): N samples, C classes, S positions per sample (the flattened
// d1, d2, ... of a K-dimensional loss; 1 for the usual (N, C)). Each position picks
// -weight[t] * x[n, t, s] for its target t; ignore_index positions count for nothing.
#include <cmath>
#include <cstring>

#include "nn_kernels.h"

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

// Checks every target once (the kernels then trust them).
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

template <class T>
void nll_kernel(const NllArgs& a, const int64_t* target, const T* x, const T* w, T* out, T* total) {
  int64_t n = a.N * a.S;
  double sum = 0, wsum = 0;
  int nt = n >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) reduction(+ : sum, wsum) if (nt > 1)
  for (int64_t i = 0; i < n; i++) {
    int64_t t = target[i], s = i % a.S, b = i / a.S;
    double wi = 0, li = 0;
    if (t != a.ignore) {
      wi = w ? double(w[t]) : 1.0;
      li = -wi * double(x[(b * a.C + t) * a.S + s]);
    }
    if (a.reduction == 0) out[i] = T(li);
    sum += li, wsum += wi;
  }
  *total = T(wsum);
  if (a.reduction == 1) *out = T(sum / wsum);
  if (a.reduction == 2) *out = T(sum);
}

template <class T>
void nll_backward_kernel(const NllArgs& a, const int64_t* target, const T* g, const T* w, T total,
                         T* gx) {
  int64_t n = a.N * a.S;
  T scale = a.reduction == 1 ? T(1) / total : T(1);
  int nt = n >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) if (nt > 1)
  for (int64_t i = 0; i < n; i++) {
    int64_t t = target[i], s = i % a.S, b = i / a.S;
    if (t == a.ignore) continue;
    T gi = a.reduction == 0 ? g[i] : g[0];
    gx[(b * a.C + t) * a.S + s] = -(w ? w[t] : T(1)) * gi * scale;
  }
}

template <class T>
const T* maybe(const Tensor& t) {
  return t.defined() ? t.data_as<T>() : nullptr;
}

// The targets are checked here, by the kernel that reads them.
template <class T>
void nll_loss_cpu(const NllArgs& a, const Tensor& x, const Tensor& target, const Tensor& weight,
                  const Tensor& out, const Tensor& total) {
  const int64_t* tg = target.data_as<int64_t>();
  check_targets(a, tg, "nll_loss");
  nll_kernel<T>(a, tg, x.data_as<T>(), maybe<T>(weight), out.data_as<T>(), total.data_as<T>());
}

template <class T>
void nll_loss_backward_cpu(const NllArgs& a, const Tensor& g, const Tensor& target,
                           const Tensor& weight, double total, const Tensor& gx) {
  const int64_t* tg = target.data_as<int64_t>();
  check_targets(a, tg, "nll_loss_backward");
  if (gx.numel()) std::memset(gx.data(), 0, size_t(gx.numel()) * sizeof(T));
  nll_backward_kernel<T>(a, tg, g.data_as<T>(), maybe<T>(weight), T(total), gx.data_as<T>());
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
  TC_CHECK(total_weight.numel() == 1, Runtime, op, "(): expected a one-element total_weight");
  Tensor wc = weight.defined() ? contiguous(weight) : Tensor();
  double tw = item(to_dtype(total_weight, ScalarType::Double)).d;
  find_kernel<NllLossBackwardFn>(Op::nll_loss_backward, g.device(), g.dtype())(
      a, contiguous(g), contiguous(target), wc, tw, gx);
  return gx;
}

}  // namespace tc
