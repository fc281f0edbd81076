// nn_misc.cpp — embedding lookup and dropout masks.
//
// Dropout draws one 64-bit seed from the generator and hashes (seed, element index) with
// SplitMix64, so a mask depends only on the generator's state, not on the thread count,
// and is filled in parallel.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "nn_kernels.h"

namespace tc {

namespace {

// Rows are copied as bytes: T only sets the item size.
template <class T>
void embedding_cpu(const Tensor& weight, const Tensor& indices, const Tensor& out) {
  const int64_t V = weight.size(0), D = weight.size(1), n = indices.numel();
  const int64_t* id = indices.data_as<int64_t>();
  for (int64_t i = 0; i < n; i++)
    TC_CHECK(id[i] >= 0 && id[i] < V, Index, "embedding(): index ", id[i],
             " is out of range for a weight of ", V, " rows");
  const int64_t rs = weight.stride(0), cs = weight.stride(1);
  const T* w = weight.data_as<T>();
  T* o = out.data_as<T>();
  int nt = n > 1 && n * D >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t i = 0; i < n; i++) {
    const T* src = w + id[i] * rs;
    T* dst = o + i * D;
    if (cs == 1) {
      std::memcpy(dst, src, size_t(D) * sizeof(T));
    } else {
      for (int64_t j = 0; j < D; j++) dst[j] = src[j * cs];
    }
  }
}

}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices) {
  const char* op = "embedding";
  check_float(weight, op, "weight");
  TC_CHECK(weight.dim() == 2, Runtime, op, "(): expected a 2-D weight (num_embeddings, dim), got ",
           shape_str(weight.sizes()));
  TC_CHECK(indices.dtype() == ScalarType::Long, Runtime, op,
           "(): expected indices of dtype int64, got ", dtype_name(indices.dtype()));
  Shape shape = indices.sizes();
  shape.push_back(weight.size(1));
  Tensor out = empty(shape, weight.dtype(), weight.device());
  find_kernel<EmbeddingFn>(Op::embedding, weight.device(), weight.dtype())(
      weight, contiguous(indices), out);
  return out;
}

namespace {

inline uint64_t splitmix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

template <class T>
TC_MULTIVERSION void fill_range(T* m, int64_t b, int64_t e, uint64_t seed, uint64_t thr, T keep) {
  for (int64_t i = b; i < e; i++) {
    uint64_t h = splitmix64(seed + uint64_t(i + 1) * 0x9E3779B97F4A7C15ULL);
    m[i] = (h >> 11) >= thr ? keep : T(0);
  }
}

// keep with probability 1 - p: when the 53-bit uniform u = (h >> 11) / 2^53 is >= p
template <class T>
void dropout_mask_cpu(const Tensor& mask, uint64_t seed, double p, double keep) {
  T* m = mask.data_as<T>();
  const int64_t n = mask.numel();
  const double two53 = 9007199254740992.0;
  uint64_t thr = p >= 1 ? (uint64_t(1) << 53) : uint64_t(std::ceil(p * two53));
  int nt = n >= kGrain ? get_num_threads() : 1;
  int64_t chunks = nt > 1 ? 8 * int64_t(nt) : 1, step = (n + chunks - 1) / chunks;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int64_t c = 0; c < chunks; c++)
    fill_range(m, std::min(n, c * step), std::min(n, (c + 1) * step), seed, thr, T(keep));
}

}  // namespace

Tensor dropout_mask(const Shape& shape, double p, ScalarType dtype, bool scale, Generator* g,
                    Device device) {
  const char* op = "dropout";
  TC_CHECK(p >= 0 && p <= 1, Value, op,
           "(): dropout probability has to be between 0 and 1, but got ", p);
  TC_CHECK(dtype == ScalarType::Float || dtype == ScalarType::Double, Type, op,
           "(): expected a float32 or float64 input, got ", dtype_name(dtype));
  Tensor m = empty(shape, dtype, device);
  Generator& gen = g ? *g : default_generator();
  uint64_t seed = gen.next();
  double keep = scale ? (p < 1 ? 1.0 / (1.0 - p) : 0.0) : 1.0;
  find_kernel<DropoutMaskFn>(Op::dropout_mask, m.device(), dtype)(m, seed, p, keep);
  return m;
}

// ---------------------------------------------------------------- Adam's update, fused
namespace {

template <class T>
TC_MULTIVERSION void adam_range(T* __restrict p, const T* __restrict g, T* __restrict m,
                                T* __restrict v, T* __restrict mx, int64_t n, T b1, T c1, T b2,
                                T c2, T step_size, T eps) {  // c1 = 1 - b1, c2 = 1 - b2
  for (int64_t i = 0; i < n; i++) {
    m[i] = m[i] * b1 + g[i] * c1;
    v[i] = v[i] * b2 + g[i] * g[i] * c2;
    T second = v[i];
    if (mx) second = mx[i] = std::max(mx[i], v[i]);
    p[i] -= step_size * (m[i] / (std::sqrt(second) + eps));
  }
}

template <class T>
void adam_update_cpu(const Tensor& p, const Tensor& grad, const Tensor& exp_avg,
                     const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, double beta1,
                     double beta2, double step_size, double eps) {
  const int64_t n = p.numel();
  const int nt = n >= kGrain ? get_num_threads() : 1;
  const int64_t chunk = (n + nt - 1) / nt;
  T* mx = max_exp_avg_sq.defined() ? max_exp_avg_sq.data_as<T>() : nullptr;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
  for (int t = 0; t < nt; t++) {
    const int64_t i0 = std::min(n, t * chunk), len = std::min(n, i0 + chunk) - i0;
    adam_range<T>(p.data_as<T>() + i0, grad.data_as<T>() + i0, exp_avg.data_as<T>() + i0,
                  exp_avg_sq.data_as<T>() + i0, mx ? mx + i0 : nullptr, len, T(beta1), T(1 - beta1),
                  T(beta2), T(1 - beta2), T(step_size), T(eps));
  }
}

}  // namespace

void adam_update(const Tensor& p, const Tensor& grad, const Tensor& exp_avg,
                 const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, double beta1, double beta2,
                 double step_size, double eps) {
  const char* op = "_adam_update_";
  check_float(p, op, "param");
  for (const Tensor* t : {&grad, &exp_avg, &exp_avg_sq, &max_exp_avg_sq}) {
    if (!t->defined()) continue;
    TC_CHECK(t->dtype() == p.dtype() && t->sizes() == p.sizes() && t->is_contiguous() &&
                 t->device() == p.device(),
             Runtime, op, "(): expected contiguous ", dtype_name(p.dtype()), " tensors of shape ",
             shape_str(p.sizes()), " on ", p.device().str(), ", got ", dtype_name(t->dtype()),
             " of shape ", shape_str(t->sizes()), " on ", t->device().str());
  }
  TC_CHECK(p.is_contiguous(), Runtime, op, "(): expected a contiguous param");
  find_kernel<AdamUpdateFn>(Op::adam_update, p.device(), p.dtype())(
      p, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, beta1, beta2, step_size, eps);
  for (const Tensor* t : {&p, &exp_avg, &exp_avg_sq, &max_exp_avg_sq})
    if (t->defined()) t->bump_version();
}

void register_nn_kernels() {
  reg_each<float, double>(Op::embedding, TC_KERNEL(embedding_cpu));
  reg_each<float, double>(Op::dropout_mask, TC_KERNEL(dropout_mask_cpu));
  reg_each<float, double>(Op::adam_update, TC_KERNEL(adam_update_cpu));
  register_softmax_kernels();
  register_loss_kernels();
  register_norm_kernels();
  register_pool_kernels();
  register_resample_kernels();
  register_rnn_kernels();
  register_conv_kernels();
}

}  // namespace tc
