// dispatch.h — the op set and the one kernel table keyed by (op, device, dtype).
//
// Every op of the core is listed once below, in groups. A backend registers a kernel per
// (op, device, dtype); the op's front end (shape checks, promotion, output allocation) is
// device-neutral and looks the kernel up here. A CUDA backend adds its registrations in
// its own files and nothing else changes.
//
//   register_kernel(Op::exp, DeviceType::CPU, ScalarType::Float, (void*)&exp_kernel<float>);
//   auto fn = find_kernel<ElementwiseFn>(Op::exp, t.device().type, t.dtype());
#pragma once
#include "core.h"

namespace tc {

// clang-format off
// X(name, group)
#define TC_FORALL_OPS(X)                                                                    \
  /* unary, computed in floating point */                                                  \
  X(exp, unary_float) X(exp2, unary_float) X(log, unary_float) X(log2, unary_float)        \
  X(log10, unary_float) X(log1p, unary_float) X(expm1, unary_float) X(sqrt, unary_float)   \
  X(rsqrt, unary_float) X(sin, unary_float) X(cos, unary_float) X(tan, unary_float)        \
  X(asin, unary_float) X(acos, unary_float) X(atan, unary_float) X(sinh, unary_float)      \
  X(cosh, unary_float) X(tanh, unary_float) X(sigmoid, unary_float) X(erf, unary_float)    \
  X(erfinv, unary_float) X(reciprocal, unary_float) X(asinh, unary_float)                  \
  X(acosh, unary_float) X(atanh, unary_float)                                              \
  /* fused activations and their gradients (grad, x) */                                    \
  X(gelu, unary_float) X(gelu_tanh, unary_float) X(silu, unary_float)                      \
  X(gelu_grad, binary_float) X(gelu_tanh_grad, binary_float) X(silu_grad, binary_float)    \
  X(tanh_grad, binary_float) X(sigmoid_grad, binary_float)                                \
  X(leaky_relu, unary_float) X(elu, unary_float) X(selu, unary_float)                      \
  X(softplus, unary_float) X(hardtanh, unary_float)                                        \
  X(leaky_relu_grad, binary_float) X(elu_grad, binary_float) X(selu_grad, binary_float)    \
  X(softplus_grad, binary_float) X(hardtanh_grad, binary_float)                            \
  /* unary, same dtype in and out */                                                       \
  X(abs, unary) X(neg, unary) X(sign, unary) X(floor, unary) X(ceil, unary)                \
  X(round, unary) X(trunc, unary) X(frac, unary) X(relu, unary)                        \
  X(bitwise_not, bitwise)                                                                  \
  /* unary predicates, bool out */                                                         \
  X(isnan, predicate) X(isinf, predicate) X(isfinite, predicate) X(logical_not, predicate) \
  /* binary */                                                                             \
  X(add, binary) X(sub, binary) X(mul, binary) X(div, binary_float)                        \
  X(div_floor, binary) X(div_trunc, binary) X(pow, binary) X(atan2, binary_float)          \
  X(fmod, binary) X(remainder, binary) X(maximum, binary) X(minimum, binary)               \
  X(relu_grad, binary)                                                                     \
  /* binary on integers and bools */                                                        \
  X(bitwise_and, bitwise) X(bitwise_or, bitwise) X(bitwise_xor, bitwise)                   \
  X(lshift, bitwise) X(rshift, bitwise)                                                    \
  X(eq, compare) X(ne, compare) X(lt, compare) X(le, compare) X(gt, compare)               \
  X(ge, compare) X(logical_and, compare) X(logical_or, compare) X(logical_xor, compare)    \
  /* ternary */                                                                            \
  X(where, ternary) X(lerp, ternary) X(addcmul, ternary)                 \
  X(addcdiv, ternary)                                                                      \
  /* data movement and filling */                                                          \
  X(copy, movement) X(fill, movement) X(to_host, movement) X(from_host, movement)         \
  /* reductions */                                                                         \
  X(sum, reduce) X(prod, reduce) X(amax, reduce) X(amin, reduce) X(all, reduce)            \
  X(any, reduce) X(sum_sq, reduce) X(argmax, reduce) X(argmin, reduce)                     \
  /* random sampling (random.cpp) */                                                    \
  X(uniform, random) X(normal, random) X(random_int, random) X(bernoulli, random)          \
  X(multinomial, random)                                                                  \
  /* complex parts and FFTs (complex.cpp) */                                              \
  X(complex_abs, complex) X(complex_angle, complex) X(fft_c2c, complex)                    \
  X(fft_r2c, complex) X(fft_c2r, complex)                                                  \
  /* matrix products */                                                                    \
  X(gemm, blas)                                                                            \
  /* indexing (index.cpp) */                                                               \
  X(index_select, index) X(gather, index) X(scatter, index) X(scatter_add, index)          \
  X(scatter_reduce, index) X(index_add, index) X(index_put, index) X(masked_select, index) \
  X(masked_fill, index) X(masked_scatter, index) X(nonzero, index) X(take, index)          \
  X(index_offsets, index) X(count_nonzero, index)                                          \
  X(searchsorted, index) X(bincount, index) X(histc, index)                                \
  /* shape ops (shape.cpp) */                                                              \
  X(cat, shape) X(flip, shape) X(roll, shape) X(tril, shape) X(triu, shape)                \
  X(repeat_interleave, shape)                                                              \
  /* scans and order statistics (sort.cpp) */                                              \
  X(cumsum, scan) X(cumprod, scan) X(cummax, scan) X(cummin, scan) X(logcumsumexp, scan)   \
  X(sort, order) X(topk, order) X(kthvalue, order) X(mode, order) X(unique, order)         \
  /* linear algebra (linalg.cpp) */                                                        \
  X(lu_factor, linalg) X(lu_solve, linalg) X(cholesky, linalg) X(qr, linalg)               \
  X(svd, linalg) X(eigh, linalg) X(eig, linalg) X(lstsq, linalg) X(triangular_solve, linalg) \
  /* neural-network kernels (nn_*.cpp, conv.cpp; their types in nn_kernels.h) */          \
  X(conv, nn) X(conv_weight_grad, nn) X(im2col, nn) X(col2im, nn)                          \
  X(max_pool, nn) X(max_pool_backward, nn) X(avg_pool, nn)                                 \
  X(softmax, nn) X(softmax_backward, nn) X(nll_loss, nn) X(nll_loss_backward, nn)          \
  X(batch_norm, nn) X(batch_norm_backward, nn) X(layer_norm, nn) X(layer_norm_backward, nn) X(embedding, nn) X(dropout_mask, nn)        \
  X(adam_update, nn) X(pad, nn) X(pad_backward, nn) X(interpolate, nn)                     \
  X(lstm_cell, nn) X(lstm_cell_backward, nn) X(lstm_layer, nn) X(lstm_layer_backward, nn)

// clang-format on
enum class Op : int16_t {
#define TC_OP_ENUM(name, group) name,
  TC_FORALL_OPS(TC_OP_ENUM)
#undef TC_OP_ENUM
      NumOps
};

const char* op_name(Op op);
void register_kernel(Op op, DeviceType dev, ScalarType dtype, void* fn);
void* find_kernel_raw(Op op, Device dev, ScalarType dtype);  // throws naming op/dtype/device

template <class Fn>
Fn find_kernel(Op op, Device dev, ScalarType dtype) {
  return reinterpret_cast<Fn>(find_kernel_raw(op, dev, dtype));
}

// Registration from a static initializer: REGISTER_KERNEL(CPU, exp, Float, fn)
struct KernelRegistrar {
  KernelRegistrar(Op op, DeviceType dev, ScalarType dtype, void* fn) {
    register_kernel(op, dev, dtype, fn);
  }
};

}  // namespace tc
