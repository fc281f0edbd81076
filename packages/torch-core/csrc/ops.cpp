// ops.cpp — front ends of elementwise ops and the kernels' registration.
#include "ops.h"

namespace tc {

namespace group {  // the second column of TC_FORALL_OPS
enum Kind {
  unary_float,
  unary,
  predicate,
  binary,
  binary_float,
  compare,
  bitwise,
  ternary,
  movement,
  reduce,
  blas,
  index,
  shape,
  scan,
  order,
  linalg,
  nn,
  random,
  complex
};
}  // namespace group

static group::Kind group_of(Op op) {
  static const group::Kind groups[] = {
#define TC_OP_GROUP(name, g) group::g,
      TC_FORALL_OPS(TC_OP_GROUP)
#undef TC_OP_GROUP
  };
  return groups[int(op)];
}

ElementwiseSpec spec_of(Op op) {
  group::Kind g = group_of(op);
  ElementwiseSpec s{op};
  s.int_to_float = g == group::unary_float || g == group::binary_float;
  s.bool_out = g == group::predicate || g == group::compare;
  // Threads pay off from kGrain elements for functions (scalar libm work, ~5-20 ns an
  // element, and the vectorised ones, ~0.2-1 ns), from kCheapGrain for the rest.
  bool scalar = op == Op::pow || op == Op::atan2 || op == Op::fmod || op == Op::remainder ||
                op == Op::erfinv || op == Op::log10;
  bool costly = g == group::unary_float || g == group::binary_float;
  s.grain = scalar || costly ? kGrain : kCheapGrain;
  return s;
}

bool has_gradient(Op op) {
  group::Kind g = group_of(op);
  return g != group::predicate && g != group::compare && g != group::bitwise && op != Op::all &&
         op != Op::any;
}

static void raise_kernel_error(Op op) {
  int e = g_kernel_error.exchange(0);
  if (e == int(KernelError::IntDivByZero))
    fail(ErrorKind::Runtime, op_name(op), ": ZeroDivisionError (integer division by zero)");
  if (e == int(KernelError::NegativeIntPower))
    fail(ErrorKind::Runtime, op_name(op), ": integers to negative integer powers are not allowed");
}

Tensor unary(Op op, const Tensor& x, const Tensor& out) {
  if (op == Op::abs && is_complex(x.dtype())) {  // |z| is real
    Tensor r = complex_abs(x);
    if (!out.defined()) return r;
    copy_(out, r);  // copy_ broadcasts; a wrong out shape raises there
    out.bump_version();
    return out;
  }
  return run_elementwise(spec_of(op), out, {x});
}

Tensor binary(Op op, const Tensor& a, const Tensor& b, const Tensor& out, Scalar alpha) {
  if (op == Op::sub && (a.dtype() == ScalarType::Bool || b.dtype() == ScalarType::Bool))
    fail(ErrorKind::Runtime, "sub: subtraction, the `-` operator, with a bool tensor (",
         dtype_name(a.dtype()), " - ", dtype_name(b.dtype()),
         ") is not supported; to invert a mask use the `~` or logical_not() operator");
  // pow's second scalar says whether the exponent is a Python number: PyTorch then computes
  // x ** 0.5 and x ** -0.5 as sqrt and rsqrt ((-inf) ** 0.5 is NaN), else as C's pow (inf)
  const bool python_exponent = op == Op::pow && b.impl()->wrapped_number;
  Tensor r =
      run_elementwise(spec_of(op), out, {a, b}, alpha, Scalar::from_int(python_exponent ? 1 : 0));
  if (g_kernel_error.load(std::memory_order_relaxed)) raise_kernel_error(op);
  return r;
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  TC_CHECK(cond.dtype() == ScalarType::Bool, Runtime,
           "where: expected condition to be a bool "
           "tensor, but got ",
           dtype_name(cond.dtype()));
  ElementwiseSpec s{Op::where};
  s.promote_inputs = false;
  return run_elementwise(s, out, {cond, a, b});
}

Tensor ternary(Op op, const Tensor& x, const Tensor& a, const Tensor& b, Scalar value,
               const Tensor& out) {
  ElementwiseSpec s{op};
  s.int_to_float = op == Op::lerp;
  if (op == Op::addcdiv)
    TC_CHECK(is_floating(result_type({a, b})), Runtime,
             "addcdiv: integer division with addcdiv "
             "is not supported; use torch.div with rounding_mode instead");
  return run_elementwise(s, out, {x, a, b}, value);
}

void fill_(const Tensor& t, const Scalar& v) {
  check_fits(v, t.dtype(), "fill_");
  check_not_inference(t, "fill_");
  ElementwiseIter it = ElementwiseIter::for_copy(t, Tensor());
  it.args[0] = v;
  find_kernel<ElementwiseFn>(Op::fill, t.device(), t.dtype())(it);
}

Tensor on_host(const Tensor& t) {
  if (t.device().type == DeviceType::CPU) return t;
  TC_CHECK(t.device().type != DeviceType::Meta, NotImplemented,
           "Cannot copy out of meta tensor; no data!");
  Tensor host = empty(t.sizes(), t.dtype());
  find_kernel<ToHostFn>(Op::to_host, t.device(), t.dtype())(t, host);
  return host;
}

void register_cpu_kernels() {
  register_unary_kernels();
  register_binary_kernels();
  register_misc_kernels();
  register_reduce_kernels();
  register_index_kernels();
  register_shape_kernels();
  register_sort_kernels();
  register_linalg_kernels();
  register_blas_kernels();
  register_nn_kernels();
  register_random_kernels();
  register_complex_kernels();
}

}  // namespace tc
