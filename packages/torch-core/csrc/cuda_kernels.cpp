// cuda_kernels.cpp — the CUDA backend's kernels: CUDA C++ source generated per (op, dtype),
// compiled by NVRTC on first use (cuda.cpp), registered in the (op, device, dtype) table.
//
// The host does what the CPU kernels' front ends already do (ElementwiseIter: broadcasting,
// promotion, merged dims and byte strides; ReduceIter: kept and reduced dims); a kernel only
// walks that geometry. One source per op and dtype holds three walks: `_1d` (one merged dim:
// four elements per thread, loads first), `_nd32` and `_nd64` (any rank; 32-bit index math
// where every offset fits). 16-bit floats load and store as float (PTX conversions, so no
// CUDA header is needed), bool and integers as themselves.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>

#include "cuda.h"
#include "fused.h"
#include "shape_ops.h"

namespace tc::cuda {

namespace {

constexpr int kMaxDims = 16;   // ElementwiseIter never merges to more dims than a tensor has
constexpr int kThreads = 256;  // threads per block
constexpr int kRealTypes = int(ScalarType::Double) + 1;  // no complex kernels on CUDA yet

// ---------------------------------------------------------------- source pieces
}  // namespace

const char* const kPrelude = R"(
typedef signed char i8; typedef unsigned char u8; typedef short i16; typedef int i32;
typedef long long i64; typedef unsigned int u32; typedef unsigned long long u64;
struct f16 { unsigned short x; };
struct bf16 { unsigned short x; };
__device__ __forceinline__ float to_acc(f16 h) {
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.x)); return f; }
__device__ __forceinline__ float to_acc(bf16 h) { return __uint_as_float(((u32)h.x) << 16); }
template <class T> __device__ __forceinline__ T to_acc(T v) { return v; }
template <class S> struct Cvt { template <class A> __device__ static S go(A v) { return (S)v; } };
template <> struct Cvt<bool> { template <class A> __device__ static bool go(A v) { return v != A(0); } };
template <> struct Cvt<f16> { template <class A> __device__ static f16 go(A v) {
  float f = (float)v; f16 h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.x) : "f"(f)); return h; } };
template <> struct Cvt<bf16> { template <class A> __device__ static bf16 go(A v) {
  float f = (float)v; bf16 h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h.x) : "f"(f)); return h; } };
// integer division as C's (truncating) without its undefined cases: b == 0 gives 0 (the
// CPU raises; a kernel cannot), b == -1 negates with wrap-around
template <class A> __device__ __forceinline__ A neg_wrap(A a) { return (A)(0ull - (u64)a); }
template <class A> __device__ __forceinline__ A idiv(A a, A b) {
  return b == A(0) ? A(0) : (A(-1) < A(0) && b == A(-1)) ? neg_wrap(a) : A(a / b); }
template <class A> __device__ __forceinline__ A imod(A a, A b) {
  return (b == A(0) || (A(-1) < A(0) && b == A(-1))) ? A(0) : A(a % b); }
template <class A> __device__ __forceinline__ A bnot(A a) { return ~a; }
__device__ __forceinline__ bool bnot(bool a) { return !a; }
#define MAXD 16
struct EwParams {
  char* ptr[4];
  i64 n;
  int nd, host;  // host: bit k set = operand k is a CPU number, its value in hd/hi
  i64 size[MAXD];
  i64 st[4][MAXD];
  double a0, a1, hd[4];
  i64 i0, i1, hi[4];
};
struct RedParams {
  const char* in; char* out; i64* out_idx; char* part; i64* part_idx;
  i64 n_out, n_red, chunk;
  int kd, rd, splits;
  i64 ksize[MAXD], kstride[MAXD], rsize[MAXD], rstride[MAXD];
};
)";

// C++ type name of a storage dtype in kernel source, and of its compute type
const char* storage_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return "bool";
    case ScalarType::Byte:
      return "u8";
    case ScalarType::Char:
      return "i8";
    case ScalarType::Short:
      return "i16";
    case ScalarType::Int:
      return "i32";
    case ScalarType::Long:
      return "i64";
    case ScalarType::Half:
      return "f16";
    case ScalarType::BFloat16:
      return "bf16";
    case ScalarType::Float:
      return "float";
    case ScalarType::Double:
      return "double";
    default:
      fail(ErrorKind::NotImplemented, "CUDA: no kernels for ", dtype_name(t));
  }
}
const char* acc_name(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16 ? "float" : storage_name(t);
}

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a
// kernel takes a fresh 64-bit key from the device's generator per launch (next_philox_key),
// and a counter per draw (the element), so no state is kept on the device.
const char* const kPhilox = R"(
__device__ __forceinline__ void philox(u64 key, u64 ctr, u32 out[4]) {
  u32 k0 = (u32)key, k1 = (u32)(key >> 32), c0 = (u32)ctr, c1 = (u32)(ctr >> 32), c2 = 0, c3 = 0;
  for (int r = 0; r < 10; r++) {
    u64 p0 = (u64)0xD2511F53u * c0, p1 = (u64)0xCD9E8D57u * c2;
    u32 n0 = (u32)(p1 >> 32) ^ c1 ^ k0, n2 = (u32)(p0 >> 32) ^ c3 ^ k1;
    c1 = (u32)p1; c3 = (u32)p0; c0 = n0; c2 = n2;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
  out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}
)";

namespace {

bool is_f(ScalarType t) { return is_floating(t); }

// ---------------------------------------------------------------- elementwise ops
// An op's body: assigns `r` (the result, compute type A) from a, b, c (inputs, compute type)
// and the scalar arguments: a0/a1 (double) or i0/i1 (int64), whichever suits the dtype.
// F(name) is the float or double math function.
struct EwOp {
  int arity;
  std::string body;  // uses A, a, b, c, S0/S1 (scalar args as A), F(fn)
  enum Types { Floats, Numeric, All, Ints, IntsBool } types;
  bool bool_out = false;
  std::string int_body = "";  // for integer dtypes, where it differs from body
};

const std::map<Op, EwOp>& ew_ops() {
  static const std::map<Op, EwOp> m = {
      // unary, floating point
      {Op::exp, {1, "r = F(exp)(a);", EwOp::Floats}},
      {Op::exp2, {1, "r = F(exp2)(a);", EwOp::Floats}},
      {Op::log, {1, "r = F(log)(a);", EwOp::Floats}},
      {Op::log2, {1, "r = F(log2)(a);", EwOp::Floats}},
      {Op::log10, {1, "r = F(log10)(a);", EwOp::Floats}},
      {Op::log1p, {1, "r = F(log1p)(a);", EwOp::Floats}},
      {Op::expm1, {1, "r = F(expm1)(a);", EwOp::Floats}},
      {Op::sqrt, {1, "r = F(sqrt)(a);", EwOp::Floats}},
      {Op::rsqrt, {1, "r = F(rsqrt)(a);", EwOp::Floats}},
      {Op::sin, {1, "r = F(sin)(a);", EwOp::Floats}},
      {Op::cos, {1, "r = F(cos)(a);", EwOp::Floats}},
      {Op::tan, {1, "r = F(tan)(a);", EwOp::Floats}},
      {Op::asin, {1, "r = F(asin)(a);", EwOp::Floats}},
      {Op::acos, {1, "r = F(acos)(a);", EwOp::Floats}},
      {Op::atan, {1, "r = F(atan)(a);", EwOp::Floats}},
      {Op::sinh, {1, "r = F(sinh)(a);", EwOp::Floats}},
      {Op::cosh, {1, "r = F(cosh)(a);", EwOp::Floats}},
      {Op::asinh, {1, "r = F(asinh)(a);", EwOp::Floats}},
      {Op::acosh, {1, "r = F(acosh)(a);", EwOp::Floats}},
      {Op::atanh, {1, "r = F(atanh)(a);", EwOp::Floats}},
      {Op::tanh, {1, "r = F(tanh)(a);", EwOp::Floats}},
      {Op::sigmoid, {1, "r = A(1) / (A(1) + F(exp)(-a));", EwOp::Floats}},
      {Op::erf, {1, "r = F(erf)(a);", EwOp::Floats}},
      {Op::erfinv, {1, "r = F(erfinv)(a);", EwOp::Floats}},
      {Op::reciprocal, {1, "r = A(1) / a;", EwOp::Floats}},
      {Op::gelu, {1, "r = A(0.5) * a * F(erfc)(-a * A(0.70710678118654752440));", EwOp::Floats}},
      {Op::gelu_tanh,
       {1,
        "r = A(0.5) * a * (A(1) + F(tanh)(A(0.79788456080286535588) * (a + A(0.044715) * a * a "
        "* a)));",
        EwOp::Floats}},
      {Op::silu, {1, "r = a / (A(1) + F(exp)(-a));", EwOp::Floats}},
      {Op::leaky_relu, {1, "r = a > A(0) ? a : a * S0;", EwOp::Floats}},
      {Op::elu, {1, "r = a > A(0) ? a : S0 * F(expm1)(S1 * a);", EwOp::Floats}},
      {Op::selu,
       {1,
        "r = a > A(0) ? A(1.0507009873554804934) * a : A(1.0507009873554804934 * "
        "1.6732632423543772848) * F(expm1)(a);",
        EwOp::Floats}},
      {Op::softplus,
       {1, "A bx = a * S0; r = bx > S1 ? a : F(log1p)(F(exp)(bx)) / S0;", EwOp::Floats}},
      {Op::hardtanh, {1, "r = a <= S0 ? S0 : (a >= S1 ? S1 : a);", EwOp::Floats}},
      // activation gradients (g, x); tanh's and sigmoid's from their output (g, y)
      {Op::tanh_grad, {2, "r = a * (A(1) - b * b);", EwOp::Floats}},
      {Op::sigmoid_grad, {2, "r = a * b * (A(1) - b);", EwOp::Floats}},
      {Op::gelu_grad,
       {2,
        "A cdf = A(0.5) * F(erfc)(-b * A(0.70710678118654752440));"
        "A pdf = A(0.39894228040143267794) * F(exp)(A(-0.5) * b * b); r = a * (cdf + b * pdf);",
        EwOp::Floats}},
      {Op::gelu_tanh_grad,
       {2,
        "const A k = A(0.79788456080286535588), c = A(0.044715); A x2 = b * b;"
        "A t = F(tanh)(k * (b + c * x2 * b));"
        "r = a * (A(0.5) * (A(1) + t) + A(0.5) * b * (A(1) - t * t) * k * (A(1) + A(3) * c * "
        "x2));",
        EwOp::Floats}},
      {Op::silu_grad,
       {2, "A s = A(1) / (A(1) + F(exp)(-b)); r = a * s * (A(1) + b * (A(1) - s));", EwOp::Floats}},
      {Op::leaky_relu_grad, {2, "r = b > A(0) ? a : a * S0;", EwOp::Floats}},
      {Op::elu_grad, {2, "r = b > A(0) ? a : a * S0 * S1 * F(exp)(S1 * b);", EwOp::Floats}},
      {Op::selu_grad,
       {2,
        "r = b > A(0) ? a * A(1.0507009873554804934) : a * A(1.0507009873554804934 * "
        "1.6732632423543772848) * F(exp)(b);",
        EwOp::Floats}},
      {Op::softplus_grad,
       {2, "A bx = b * S0; r = bx > S1 ? a : a / (A(1) + F(exp)(-bx));", EwOp::Floats}},
      {Op::hardtanh_grad, {2, "r = (b <= S0 || b >= S1) ? A(0) : a;", EwOp::Floats}},
      {Op::relu_grad, {2, "r = b > A(0) ? a : A(0);", EwOp::Floats}},
      // unary, same dtype
      {Op::abs, {1, "r = a < A(0) ? A(-a) : a;", EwOp::Numeric}},
      {Op::neg, {1, "r = -a;", EwOp::Numeric}},
      {Op::sign, {1, "r = a != a ? A(0) : A((A(0) < a) - (a < A(0)));", EwOp::Numeric}},
      {Op::floor, {1, "r = F(floor)(a);", EwOp::Floats}},
      {Op::ceil, {1, "r = F(ceil)(a);", EwOp::Floats}},
      {Op::round, {1, "r = F(rint)(a);", EwOp::Floats}},
      {Op::trunc, {1, "r = F(trunc)(a);", EwOp::Floats}},
      {Op::frac, {1, "r = a - F(trunc)(a);", EwOp::Floats}},
      {Op::relu, {1, "r = (a > A(0) || a != a) ? a : A(0);", EwOp::Numeric}},
      {Op::bitwise_not, {1, "r = bnot(a);", EwOp::IntsBool}},
      // predicates (bool out)
      {Op::isnan, {1, "r = a != a;", EwOp::All, true}},
      {Op::isinf, {1, "r = (a == a) && (a - a != a - a);", EwOp::All, true}},
      {Op::isfinite, {1, "r = a - a == a - a;", EwOp::All, true}},
      {Op::logical_not, {1, "r = !(a != A(0));", EwOp::All, true}},
      // binary
      {Op::add, {2, "r = a + S0 * b;", EwOp::All}},
      {Op::sub, {2, "r = a - S0 * b;", EwOp::Numeric}},
      {Op::mul, {2, "r = a * b;", EwOp::All}},
      {Op::div, {2, "r = a / b;", EwOp::Floats}},
      {Op::div_trunc, {2, "r = F(trunc)(a / b);", EwOp::Numeric, false, "r = idiv(a, b);"}},
      {Op::div_floor,
       {2,
        "if (b == A(0)) { r = a / b; } else { A m = F(fmod)(a, b); A d = (a - m) / b;"
        " if (m != A(0) && ((b < A(0)) != (m < A(0)))) d -= A(1);"
        " A fd = F(floor)(d); if (d - fd > A(0.5)) fd += A(1); r = d == A(0) ? "
        "F(copysign)(A(0), a / b) : fd; }",
        EwOp::Numeric, false,
        "A q = idiv(a, b); r = (imod(a, b) != A(0) && ((a < A(0)) != (b < A(0)))) ? A(q - A(1)) "
        ": q;"}},
      {Op::pow,  // S1 != 0: a Python-number exponent, whose +-0.5 PyTorch takes as (r)sqrt
       {2,
        "r = S1 != A(0) && b == A(0.5)    ? F(sqrt)(a)"
        "  : S1 != A(0) && b == A(-0.5) ? A(1) / F(sqrt)(a) : F(pow)(a, b);",
        EwOp::Floats}},
      {Op::atan2, {2, "r = F(atan2)(a, b);", EwOp::Floats}},
      {Op::fmod, {2, "r = F(fmod)(a, b);", EwOp::Numeric, false, "r = imod(a, b);"}},
      {Op::remainder,
       {2, "A m = F(fmod)(a, b); r = (m != A(0) && ((b < A(0)) != (m < A(0)))) ? A(m + b) : m;",
        EwOp::Numeric, false,
        "A m = imod(a, b); r = (m != A(0) && ((b < A(0)) != (m < A(0)))) ? A(m + b) : m;"}},
      {Op::maximum, {2, "r = (a != a) ? a : ((b != b) ? b : (a > b ? a : b));", EwOp::All}},
      {Op::minimum, {2, "r = (a != a) ? a : ((b != b) ? b : (a < b ? a : b));", EwOp::All}},
      {Op::bitwise_and, {2, "r = a & b;", EwOp::IntsBool}},
      {Op::bitwise_or, {2, "r = a | b;", EwOp::IntsBool}},
      {Op::bitwise_xor, {2, "r = a ^ b;", EwOp::IntsBool}},
      // comparisons (bool out)
      {Op::eq, {2, "r = a == b;", EwOp::All, true}},
      {Op::ne, {2, "r = a != b;", EwOp::All, true}},
      {Op::lt, {2, "r = a < b;", EwOp::All, true}},
      {Op::le, {2, "r = a <= b;", EwOp::All, true}},
      {Op::gt, {2, "r = a > b;", EwOp::All, true}},
      {Op::ge, {2, "r = a >= b;", EwOp::All, true}},
      {Op::logical_and, {2, "r = (a != A(0)) && (b != A(0));", EwOp::All, true}},
      {Op::logical_or, {2, "r = (a != A(0)) || (b != A(0));", EwOp::All, true}},
      {Op::logical_xor, {2, "r = (a != A(0)) != (b != A(0));", EwOp::All, true}},
      // ternary
      {Op::lerp,
       {3, "r = (c < A(0.5) && c > A(-0.5)) ? a + c * (b - a) : b - (b - a) * (A(1) - c);",
        EwOp::Floats}},
      {Op::addcmul, {3, "r = a + S0 * b * c;", EwOp::Numeric}},
      {Op::addcdiv, {3, "r = a + S0 * b / c;", EwOp::Floats}},
  };
  return m;
}

bool op_takes(EwOp::Types types, ScalarType t) {
  switch (types) {
    case EwOp::Floats:
      return is_floating(t);
    case EwOp::Numeric:
      return t != ScalarType::Bool;
    case EwOp::All:
      return true;
    case EwOp::Ints:
      return is_integral(t, false);
    case EwOp::IntsBool:
      return is_integral(t, true);
  }
  return false;
}

// The three walks of one elementwise kernel. `types`: the storage type of each operand (0 =
// output); `load`: the compute type each input is loaded as; `body` sets r from a, b, c.
std::string ew_source(const std::string& name, const std::vector<std::string>& types,
                      const std::string& acc, const std::string& out_acc,
                      const std::string& prologue, const std::string& body) {
  int n_in = int(types.size()) - 1;
  const char* var[] = {"a", "b", "c"};
  std::string s = kPrelude;
  s += "typedef " + acc + " A;\n";
  // load(k, off): operand k's value at byte offset off, in A (or its own type for `where`)
  auto load = [&](int k, const std::string& off) {
    std::string t = types[k];
    return cat_str("((p.host >> ", k, ") & 1 ? (", t == "f16" || t == "bf16" ? "float" : t, ")(",
                   t == "bool" || (t[0] == 'i' || t[0] == 'u') ? "p.hi[" : "p.hd[", k,
                   "]) : to_acc(*(const ", t, "*)(p.ptr[", k, "] + ", off, ")))");
  };
  auto element = [&](const std::vector<std::string>& offs) {
    std::string e = "{\n";
    for (int k = 1; k <= n_in; k++)
      e += cat_str("  A ", var[k - 1], " = (A)", load(k, offs[k]), ";\n");
    e += "  " + out_acc + " r;\n  " + body + "\n";
    e += cat_str("  *(", types[0], "*)(p.ptr[0] + ", offs[0], ") = Cvt<", types[0],
                 ">::go(r);\n}\n");
    return e;
  };
  std::string pro = "  " + prologue + "\n";
  // 1-D: 4 elements per thread, a block covering 4 * blockDim contiguous indices
  s += "extern \"C\" __global__ void " + name + "_1d(EwParams p) {\n" + pro;
  s += "  i64 base = (i64)blockIdx.x * (blockDim.x * 4) + threadIdx.x;\n";
  s += "  A in[3][4]; bool ok[4];\n#pragma unroll\n  for (int j = 0; j < 4; j++) {\n";
  s += "    i64 i = base + (i64)j * blockDim.x; ok[j] = i < p.n;\n    if (ok[j]) {\n";
  for (int k = 1; k <= n_in; k++)
    s += cat_str("      in[", k - 1, "][j] = (A)", load(k, cat_str("i * p.st[", k, "][0]")), ";\n");
  s += "    }\n  }\n#pragma unroll\n  for (int j = 0; j < 4; j++) {\n    if (!ok[j]) continue;\n";
  s += "    i64 i = base + (i64)j * blockDim.x;\n";
  for (int k = 1; k <= n_in; k++) s += cat_str("    A ", var[k - 1], " = in[", k - 1, "][j];\n");
  s += "    " + out_acc + " r;\n    " + body + "\n";
  s += cat_str("    *(", types[0], "*)(p.ptr[0] + i * p.st[0][0]) = Cvt<", types[0], ">::go(r);\n");
  s += "  }\n}\n";
  // N-D, with index type I
  for (const char* I : {"i32", "i64"}) {
    s += cat_str("extern \"C\" __global__ void ", name, "_nd", I[1] == '3' ? "32" : "64",
                 "(EwParams p) {\n", pro);
    s += cat_str("  for (", I, " i = (", I, ")blockIdx.x * blockDim.x + threadIdx.x; i < (", I,
                 ")p.n; i += (", I, ")gridDim.x * blockDim.x) {\n");
    s += cat_str("    ", I, " rem = i, o[4] = {0, 0, 0, 0};\n");
    s += "    for (int d = 0; d < p.nd; d++) {\n";
    s += cat_str("      ", I, " sz = (", I,
                 ")p.size[d], q = rem / sz, id = rem - q * sz; rem = q;\n");
    s += cat_str("      for (int k = 0; k <= ", n_in, "; k++) o[k] += id * (", I, ")p.st[k][d];\n");
    s += "    }\n";
    std::vector<std::string> offs;
    for (int k = 0; k <= n_in; k++) offs.push_back(cat_str("o[", k, "]"));
    s += element(offs);
    s += "  }\n}\n";
  }
  return s;
}

// The scalar arguments as A: S0/S1
std::string scalar_prologue(ScalarType compute) {
  return is_f(compute) ? "const A S0 = (A)p.a0, S1 = (A)p.a1;"
                       : "const A S0 = (A)p.i0, S1 = (A)p.i1;";
}

std::string ew_name(Op op, ScalarType t) { return cat_str(op_name(op), '_', dtype_name(t)); }

std::string ew_op_source(Op op, ScalarType t) {
  const EwOp& e = ew_ops().at(op);
  std::vector<std::string> types(size_t(e.arity + 1), storage_name(t));
  if (e.bool_out) types[0] = "bool";
  const std::string& source_body = e.int_body.empty() || is_floating(t) ? e.body : e.int_body;
  std::string body = math_names(source_body, acc_name(t) == std::string("float"));
  return ew_source(ew_name(op, t), types, acc_name(t), e.bool_out ? "bool" : "A",
                   scalar_prologue(t), body);
}

std::string where_source(ScalarType t) {
  // operands: out, cond (bool), a, b; the condition loads as A (0 or 1)
  std::vector<std::string> types = {storage_name(t), "bool", storage_name(t), storage_name(t)};
  return ew_source(cat_str("where_", dtype_name(t)), types, acc_name(t), "A", "",
                   "r = a != A(0) ? b : c;");
}

std::string copy_source(ScalarType dst, ScalarType src) {
  // loads in the source's compute type, converts once on the store
  return ew_source(cat_str("copy_", dtype_name(src), "_to_", dtype_name(dst)),
                   {storage_name(dst), storage_name(src)}, acc_name(src), "A", "", "r = a;");
}

std::string fill_source(ScalarType t) {
  return ew_source(cat_str("fill_", dtype_name(t)), {storage_name(t)}, acc_name(t), "A",
                   scalar_prologue(t), "r = S0;");
}

// ---------------------------------------------------------------- reductions
struct RedKind {
  const char* acc;    // accumulator type
  const char* out;    // output storage type
  std::string init;   // the identity
  std::string load;   // v from the loaded value x
  std::string merge;  // x = merge of x and v
  bool arg = false;
  bool max = false;
};

std::string lowest(ScalarType t, bool max) {  // -inf/+inf, or the integer type's extreme
  if (t == ScalarType::Double)
    return max ? "__longlong_as_double(0xfff0000000000000LL)"
               : "__longlong_as_double(0x7ff0000000000000LL)";
  if (is_floating(t)) return max ? "__int_as_float(0xff800000)" : "__int_as_float(0x7f800000)";
  auto lim = [&](auto v) {
    using T = decltype(v);
    return max ? cat_str("(A)(", int64_t(std::numeric_limits<T>::min()), "LL)")
               : cat_str("(A)(", int64_t(std::numeric_limits<T>::max()), "LL)");
  };
  switch (t) {
    case ScalarType::Bool:
      return max ? "false" : "true";
    case ScalarType::Byte:
      return lim(uint8_t());
    case ScalarType::Char:
      return lim(int8_t());
    case ScalarType::Short:
      return lim(int16_t());
    case ScalarType::Int:
      return lim(int32_t());
    default:
      return max ? "(A)(-9223372036854775807LL - 1)" : "(A)9223372036854775807LL";
  }
}

RedKind red_kind(Op op, ScalarType t) {
  bool ints = !is_floating(t);
  const char* acc = ints ? "i64" : acc_name(t);
  const char* same = storage_name(t);
  const char* sum_out = ints ? "i64" : same;
  const char* nanmax = "x = (x != x) ? x : ((v != v) ? v : (x > v ? x : v));";
  const char* nanmin = "x = (x != x) ? x : ((v != v) ? v : (x < v ? x : v));";
  switch (op) {
    case Op::sum:
      return {acc, sum_out, "(A)0", "v = (A)x;", "x = x + v;"};
    case Op::sum_sq:
      return {acc, same, "(A)0", "v = (A)x * (A)x;", "x = x + v;"};
    case Op::prod:
      return {acc, sum_out, "(A)1", "v = (A)x;", "x = x * v;"};
    case Op::amax:
      return {acc_name(t), same, lowest(t, true), "v = (A)x;", nanmax};
    case Op::amin:
      return {acc_name(t), same, lowest(t, false), "v = (A)x;", nanmin};
    case Op::all:
      return {"bool", t == ScalarType::Byte ? "u8" : "bool", "true", "v = x != 0;", "x = x && v;"};
    case Op::any:
      return {"bool", t == ScalarType::Byte ? "u8" : "bool", "false", "v = x != 0;", "x = x || v;"};
    case Op::argmax:
      return {acc_name(t), same, lowest(t, true), "v = (A)x;", "", true, true};
    case Op::argmin:
      return {acc_name(t), same, lowest(t, false), "v = (A)x;", "", true, false};
    default:
      fail(ErrorKind::NotImplemented, "CUDA: no reduction kernel for ", op_name(op));
  }
}

std::string red_name(Op op, ScalarType t) {
  return cat_str("red_", op_name(op), '_', dtype_name(t));
}

std::string red_source(Op op, ScalarType t) {
  RedKind k = red_kind(op, t);
  std::string name = red_name(op, t), S = storage_name(t);
  std::string s = kPrelude;
  s += cat_str("typedef ", k.acc, " A;\ntypedef ", k.out, " OUT;\ntypedef ", S, " S;\n");
  // merge (x, xi) with (v, vi): arg reductions keep the first extreme; NaN wins
  if (k.arg) {
    s += cat_str(
        "__device__ __forceinline__ bool better(A v, i64 vi, A x, i64 xi) {\n"
        "  if (xi < 0) return true;\n  if (vi < 0) return false;\n"
        "  bool vn = v != v, xn = x != x;\n  if (xn) return vn && vi < xi;\n  if (vn) return "
        "true;\n"
        "  if (v ",
        k.max ? ">" : "<", " x) return true;\n  return v == x && vi < xi;\n}\n");
    s += "#define MERGE(x, xi, v, vi) if (better(v, vi, x, xi)) { x = v; xi = vi; }\n";
  } else {
    s += "#define MERGE(x, xi, v, vi) { " + k.merge + " }\n";
  }
  s += "template <class X> __device__ __forceinline__ A load_value(X x) { A v; " + k.load +
       " return v; }\n";
  s += "__device__ __forceinline__ A load(const char* in, i64 off) {\n"
       "  return load_value(to_acc(((const S*)in)[off]));\n}\n";
  // block-wide tree in shared memory, fixed order: deterministic
  std::string tree =
      "  sv[tid] = x; si[tid] = xi; __syncthreads();\n"
      "  for (int w = blockDim.x / 2; w > 0; w >>= 1) {\n"
      "    if (tid < w) { A a = sv[tid]; i64 ai = si[tid]; MERGE(a, ai, sv[tid + w], si[tid + w]); "
      "sv[tid] = a; si[tid] = ai; }\n"
      "    __syncthreads();\n  }\n";
  s += "extern \"C\" __global__ void " + name + "(RedParams p) {\n";
  s += "  __shared__ A sv[256]; __shared__ i64 si[256];\n";
  s += "  i64 o = blockIdx.x; int sp = blockIdx.y, tid = threadIdx.x, bs = blockDim.x;\n";
  s += "  i64 base = 0, rem = o;\n";
  s += "  for (int d = p.kd - 1; d >= 0; d--) { i64 q = rem / p.ksize[d]; base += (rem - q * "
       "p.ksize[d]) * p.kstride[d]; rem = q; }\n";
  s += "  i64 beg = (i64)sp * p.chunk, end = beg + p.chunk < p.n_red ? beg + p.chunk : p.n_red;\n";
  s += "  A x = " + k.init + "; i64 xi = -1;\n";
  // Contiguous runs read 16 bytes per load, four loads in flight per thread: a memory-bound
  // reduction needs that many bytes in flight to reach the GPU's bandwidth. The host makes
  // each block's chunk a multiple of 16 elements, so its start keeps the row's alignment.
  s += "  if (p.rd == 1 && p.rstride[0] == 1 && ((u64)((const S*)p.in + base) & 15) == 0) {\n";
  s += "    constexpr int VW = 16 / sizeof(S);\n";
  s += "    struct __align__(16) V { S e[16 / sizeof(S)]; };\n";
  s += "    const V* vin = (const V*)((const S*)p.in + base + beg);\n";
  s += "    i64 nv = end > beg ? (end - beg) / VW : 0, k = tid;\n";
  s += "    for (; k + 3 * bs < nv; k += 4 * bs) {\n";
  s += "      V q[4] = {vin[k], vin[k + bs], vin[k + 2 * bs], vin[k + 3 * bs]};\n";
  s += "      for (int u = 0; u < 4; u++)\n";
  s += "        for (int e = 0; e < VW; e++) { A v = load_value(to_acc(q[u].e[e])); i64 vi = beg + "
       "(k + u * bs) * VW + e; MERGE(x, xi, v, vi); }\n";
  s += "    }\n";
  s += "    for (; k < nv; k += bs) {\n      V q = vin[k];\n";
  s += "      for (int e = 0; e < VW; e++) { A v = load_value(to_acc(q.e[e])); i64 vi = beg + k * "
       "VW + e; MERGE(x, xi, v, vi); }\n    }\n";
  s += "    for (i64 j = beg + nv * VW + tid; j < end; j += bs) { A v = load(p.in, base + j); "
       "i64 vi = j; MERGE(x, xi, v, vi); }\n";
  s += "  } else if (p.rd == 1) {\n    i64 rs = p.rstride[0], j = beg + tid;\n";
  s += "    for (; j + 3 * bs < end; j += 4 * bs) {\n";
  s += "      A v0 = load(p.in, base + j * rs), v1 = load(p.in, base + (j + bs) * rs), v2 = "
       "load(p.in, base + (j + 2 * bs) * rs), v3 = load(p.in, base + (j + 3 * bs) * rs);\n";
  s += "      { A v = v0; i64 vi = j; MERGE(x, xi, v, vi); } { A v = v1; i64 vi = j + bs; MERGE(x, "
       "xi, v, vi); }\n";
  s += "      { A v = v2; i64 vi = j + 2 * bs; MERGE(x, xi, v, vi); } { A v = v3; i64 vi = j + 3 * "
       "bs; MERGE(x, xi, v, vi); }\n";
  s += "    }\n    for (; j < end; j += bs) { A v = load(p.in, base + j * rs); i64 vi = j; "
       "MERGE(x, xi, v, vi); }\n";
  s += "  } else {\n    for (i64 j = beg + tid; j < end; j += bs) {\n";
  s += "      i64 off = base, r = j;\n";
  s += "      for (int d = p.rd - 1; d >= 0; d--) { i64 q = r / p.rsize[d]; off += (r - q * "
       "p.rsize[d]) * p.rstride[d]; r = q; }\n";
  s += "      A v = load(p.in, off); i64 vi = j; MERGE(x, xi, v, vi);\n    }\n  }\n";
  s += tree;
  s += "  if (tid == 0) {\n    if (p.splits == 1) { ((OUT*)p.out)[o] = Cvt<OUT>::go(sv[0]); if "
       "(p.out_idx) p.out_idx[o] = si[0]; }\n";
  s += "    else { ((A*)p.part)[o * p.splits + sp] = sv[0]; p.part_idx[o * p.splits + sp] = si[0]; "
       "}\n  }\n}\n";
  // second pass: each output's partial results, in split order
  s += "extern \"C\" __global__ void " + name + "_fin(RedParams p) {\n";
  s += "  __shared__ A sv[256]; __shared__ i64 si[256];\n";
  s += "  i64 o = blockIdx.x; int tid = threadIdx.x;\n";
  s += "  A x = " + k.init + "; i64 xi = -1;\n";
  s += "  for (int j = tid; j < p.splits; j += blockDim.x) { A v = ((const A*)p.part)[o * p.splits "
       "+ j]; i64 vi = p.part_idx[o * p.splits + j]; MERGE(x, xi, v, vi); }\n";
  s += tree;
  s += "  if (tid == 0) { ((OUT*)p.out)[o] = Cvt<OUT>::go(sv[0]); if (p.out_idx) p.out_idx[o] = "
       "si[0]; }\n}\n";
  return s + "#undef MERGE\n";
}

// ---------------------------------------------------------------- random sampling
// Philox draws (kPhilox, above): key per launch, counter per element.
std::string random_source(Op op, ScalarType t) {
  std::string S = storage_name(t), name = cat_str("rand_", op_name(op), '_', dtype_name(t));
  std::string s = kPrelude;
  s += "typedef " + S + " S;\n";
  s += kPhilox;
  s += R"(
struct RandParams { S* out; const double* p; i64 n; u64 key; double a, b; i64 low; u64 range; };
)";
  s += "extern \"C\" __global__ void " + name + "(RandParams q) {\n";
  s += "  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < q.n; i += (i64)gridDim.x * "
       "blockDim.x) {\n";
  s += "    u32 x[4]; philox(q.key, (u64)i, x);\n";
  s += "    double u = ((double)(((u64)x[0] << 21) ^ (x[1] >> 11)) ) * (1.0 / "
       "9007199254740992.0);\n";
  if (op == Op::uniform) {
    s += "    double v = q.a + (q.b - q.a) * u;\n";
    if (t != ScalarType::Double)  // a float that rounds up to b is pulled back below it
      s += "    float f = (float)v; if (f >= (float)q.b && q.b > q.a) f = nextafterf((float)q.b, "
           "-__int_as_float(0x7f800000)); q.out[i] = Cvt<S>::go(f);\n";
    else
      s += "    q.out[i] = Cvt<S>::go(v);\n";
  } else if (op == Op::normal) {
    s += "    double u1 = ((double)x[2] + 1.0) * (1.0 / 4294967296.0);\n";
    s += "    double z = sqrt(-2.0 * log(u1)) * cospi(2.0 * u);\n";
    s += "    q.out[i] = Cvt<S>::go(q.a + q.b * z);\n";
  } else if (op == Op::random_int) {
    s += "    u64 r = (((u64)x[2] << 32) | x[3]) % q.range;\n";
    s += "    q.out[i] = Cvt<S>::go((i64)(q.low + (i64)r));\n";
  } else {  // bernoulli
    s += "    q.out[i] = Cvt<S>::go(u < q.p[i] ? 1 : 0);\n";
  }
  s += "  }\n}\n";
  return s;
}

// ---------------------------------------------------------------- host side
struct EwParamsHost {  // the layout of EwParams in kPrelude
  char* ptr[4];
  int64_t n;
  int32_t nd, host;
  int64_t size[kMaxDims];
  int64_t st[4][kMaxDims];
  double a0, a1, hd[4];
  int64_t i0, i1, hi[4];
};
struct RedParamsHost {  // RedParams
  const char* in;
  char* out;
  int64_t* out_idx;
  char* part;
  int64_t* part_idx;
  int64_t n_out, n_red, chunk;
  int32_t kd, rd, splits;
  int64_t ksize[kMaxDims], kstride[kMaxDims], rsize[kMaxDims], rstride[kMaxDims];
};
struct RandParamsHost {
  void* out;
  const double* p;
  int64_t n;
  uint64_t key;
  double a, b;
  int64_t low;
  uint64_t range;
};

}  // namespace

// Replace every "F(fn)" by fnf (float) or fn (double).
std::string math_names(std::string body, bool single) {
  for (size_t p; (p = body.find("F(")) != std::string::npos;) {
    size_t e = body.find(')', p);
    body = body.substr(0, p) + body.substr(p + 2, e - p - 2) + (single ? "f" : "") +
           body.substr(e + 1);
  }
  return body;
}

// Compiled functions, per (kind, op, dtype, dtype2, device): the source is made only once.
CUfunction cached(int kind, int op, ScalarType t, ScalarType t2, const std::string& suffix,
                  const std::function<std::pair<std::string, std::string>()>& make) {
  static std::map<std::tuple<int, int, int, int, int, std::string>, CUfunction> cache;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  auto key = std::make_tuple(kind, op, int(t), int(t2), current_device(), suffix);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto [source, name] = make();
  CUfunction f = function(source, name + suffix);
  cache.emplace(key, f);
  return f;
}

void use_device_of(const Tensor& t) {
  int d = t.device().index;
  if (d >= 0 && d != current_device()) set_device(d);
}

// Walk an ElementwiseIter with the kernel `name` of `source` (made on first use).
namespace {

void run_elementwise_cuda(ElementwiseIter& it, int kind, int op, ScalarType t, ScalarType t2,
                          const std::function<std::pair<std::string, std::string>()>& make) {
  int64_t n = it.numel();
  if (n == 0) return;
  use_device_of(it.operand(0));
  EwParamsHost p{};
  const Shape& shape = it.shape();
  int nd = int(shape.size());
  TC_CHECK(nd <= kMaxDims, NotImplemented, "CUDA: elementwise walks of more than ", kMaxDims,
           " dims are not supported");
  p.n = n;
  p.nd = nd;
  for (int d = 0; d < nd; d++) p.size[d] = shape[d];
  bool fits32 = n < (int64_t(1) << 31);
  for (int k = 0; k < it.ntensors; k++) {
    const Tensor& opnd = it.operand(k);
    if (opnd.device().type == DeviceType::CPU) {  // a Python number: passed by value
      TC_CHECK(k > 0, Runtime, "CUDA: an elementwise output on the CPU");
      p.host |= 1 << k;
      visit_dtype(opnd.dtype(), [&](auto v) {
        using T = decltype(v);
        T x = *reinterpret_cast<const T*>(it.data(k));
        p.hd[k] = double(typename AccOf<T>::type(x));
        if constexpr (std::is_integral_v<T>) p.hi[k] = int64_t(x);
      });
      continue;
    }
    p.ptr[k] = it.data(k);
    int64_t span = 0;
    for (int d = 0; d < nd; d++) {
      p.st[k][d] = it.strides(k)[d];
      span += (p.st[k][d] < 0 ? -p.st[k][d] : p.st[k][d]) * (shape[d] - 1);
    }
    fits32 &= span < (int64_t(1) << 31);
  }
  p.a0 = it.args[0].d;
  p.a1 = it.args[1].d;
  p.i0 = it.args[0].i;
  p.i1 = it.args[1].i;
  std::string suffix = nd <= 1 ? "_1d" : fits32 ? "_nd32" : "_nd64";
  CUfunction f = cached(kind, op, t, t2, suffix, make);
  void* args[] = {&p};
  if (nd <= 1) {
    int64_t per_block = int64_t(kThreads) * 4;
    launch(f, unsigned((n + per_block - 1) / per_block), 1, kThreads, args);
  } else {
    int64_t blocks =
        std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t(sm_count(current_device())) * 32);
    launch(f, unsigned(blocks), 1, kThreads, args);
  }
}

template <int OP>
void ew_kernel(ElementwiseIter& it) {
  Op op = Op(OP);
  ScalarType t = it.compute_dtype();
  run_elementwise_cuda(it, 0, OP, t, t,
                       [&] { return std::make_pair(ew_op_source(op, t), ew_name(op, t)); });
}

void where_kernel(ElementwiseIter& it) {
  ScalarType t = it.compute_dtype();
  run_elementwise_cuda(it, 1, 0, t, t, [&] {
    return std::make_pair(where_source(t), cat_str("where_", dtype_name(t)));
  });
}

void copy_kernel(ElementwiseIter& it) {
  ScalarType dst = it.compute_dtype(), src = it.input_dtype;
  const Tensor& s = it.operand(1);
  if (s.device().type == DeviceType::CUDA && s.device().index != it.operand(0).device().index) {
    copy_(it.operand(0), to_device(s, it.operand(0).device(), false));  // between GPUs
    return;
  }
  run_elementwise_cuda(it, 2, 0, dst, src, [&] {
    return std::make_pair(copy_source(dst, src),
                          cat_str("copy_", dtype_name(src), "_to_", dtype_name(dst)));
  });
}

// Complex tensors only move on CUDA (no complex arithmetic in the kernels): a copy between
// tensors of one complex dtype is cuda_shape.cpp's gather (flip's kernel fed an unflipped
// view), the moves to and from the host plain byte copies.
void copy_complex_kernel(ElementwiseIter& it) {
  const Tensor &dst = it.operand(0), &src = it.operand(1);
  TC_CHECK(src.dtype() == dst.dtype() && src.device() == dst.device(), NotImplemented,
           "copy_: from ", dtype_name(src.dtype()), " on ", src.device().str(), " to ",
           dtype_name(dst.dtype()), " on ", dst.device().str(),
           " is not implemented (CUDA copies complex tensors within one dtype and device)");
  find_kernel<FlipFn>(Op::flip, dst.device(), dst.dtype())(dst, src);
}

void fill_kernel(ElementwiseIter& it) {
  ScalarType t = it.compute_dtype();
  run_elementwise_cuda(it, 3, 0, t, t, [&] {
    return std::make_pair(fill_source(t), cat_str("fill_", dtype_name(t)));
  });
}

// One output per block; long reductions with few outputs split across blocks into partial
// results (a device buffer freed with its tensor), which a second launch combines in order.
template <int OP, int DT>
void red_kernel(ReduceIter& it) {
  Op op = Op(OP);
  ScalarType t = ScalarType(DT);
  RedParamsHost p{};
  p.in = it.in;
  p.out = it.out;
  p.out_idx = it.out_idx;
  p.n_out = it.n_out;
  p.n_red = it.n_red;
  p.kd = int(it.kept_sizes.size());
  p.rd = int(it.red_sizes.size());
  TC_CHECK(p.kd <= kMaxDims && p.rd <= kMaxDims, NotImplemented, "CUDA: reductions over more than ",
           kMaxDims, " dims are not supported");
  for (int d = 0; d < p.kd; d++) p.ksize[d] = it.kept_sizes[d], p.kstride[d] = it.kept_strides[d];
  for (int d = 0; d < p.rd; d++) p.rsize[d] = it.red_sizes[d], p.rstride[d] = it.red_strides[d];
  if (p.rd == 0) p.rd = 1, p.rsize[0] = 1, p.rstride[0] = 0;
  int sms = sm_count(current_device());
  // Split long reductions across blocks when there are too few outputs to fill the GPU.
  int64_t splits = 1;
  // (eight 256-thread blocks per SM: a full SM, as a memory-bound reduction wants)
  if (p.n_out < int64_t(sms) * 8 && p.n_red >= 8192)
    splits = std::min<int64_t>({(int64_t(sms) * 8 + p.n_out - 1) / p.n_out, p.n_red / 4096, 1024});
  splits = std::max<int64_t>(splits, 1);
  p.splits = int(splits);
  p.chunk = (p.n_red + splits - 1) / splits;
  if (splits > 1) p.chunk = (p.chunk + 15) / 16 * 16;  // each block's start stays 16-byte aligned
  int64_t work = std::min(p.n_red, p.chunk);
  unsigned threads = 32;
  while (threads < 256 && threads < work) threads *= 2;
  auto make = [&] { return std::make_pair(red_source(op, t), red_name(op, t)); };
  Tensor part, part_idx;
  if (splits > 1) {
    RedKind k = red_kind(op, t);
    size_t acc_size = std::string(k.acc) == "bool" ? 1 : std::string(k.acc) == "float" ? 4 : 8;
    part = empty(Shape{int64_t(p.n_out * splits * int64_t(acc_size))}, ScalarType::Byte,
                 Device{DeviceType::CUDA, current_device()});
    part_idx = empty(Shape{p.n_out * splits}, ScalarType::Long,
                     Device{DeviceType::CUDA, current_device()});
    p.part = part.data();
    p.part_idx = part_idx.data_as<int64_t>();
  }
  TC_CHECK(p.n_out < (int64_t(1) << 31), NotImplemented,
           "CUDA: reductions with 2^31 or more outputs are not supported");
  void* args[] = {&p};
  launch(cached(4, OP, t, t, "", make), unsigned(p.n_out), unsigned(splits), threads, args);
  if (splits > 1) {
    unsigned fin_threads = 32;
    while (fin_threads < 256 && fin_threads < splits) fin_threads *= 2;
    launch(cached(4, OP, t, t, "_fin", make), unsigned(p.n_out), 1, fin_threads, args);
  }
}

void random_kernel_impl(Op op, const Tensor& t_in, const RandomArgs& a) {
  use_device_of(t_in);
  Tensor t = t_in.is_contiguous() ? t_in : empty(t_in.sizes(), t_in.dtype(), t_in.device());
  RandParamsHost q{};
  q.out = t.data();
  q.n = t.numel();
  q.key = next_philox_key(current_device());
  q.a = a.a;
  q.b = a.b;
  q.low = a.low;
  q.range = a.range ? a.range : 1;
  Tensor p;
  if (op == Op::bernoulli) {
    p = contiguous(to_dtype(a.p, ScalarType::Double));
    TC_CHECK(p.device() == t.device(), Runtime, "bernoulli_: p must be on ", t.device().str());
    q.p = p.data_as<double>();
  }
  ScalarType dt = t.dtype();
  CUfunction f = cached(5, int(op), dt, dt, "", [&] {
    return std::make_pair(random_source(op, dt),
                          cat_str("rand_", op_name(op), '_', dtype_name(dt)));
  });
  void* args[] = {&q};
  int64_t blocks =
      std::min<int64_t>((q.n + kThreads - 1) / kThreads, int64_t(sm_count(current_device())) * 32);
  if (q.n > 0) launch(f, unsigned(blocks), 1, kThreads, args);
  if (!t.same(t_in)) copy_(t_in, t);
}
template <int OP>
void random_kernel(const Tensor& t, Generator&, const RandomArgs& a) {
  random_kernel_impl(Op(OP), t, a);
}

// c (m x n, row-major, unit column stride) = alpha a @ b + beta c through cuBLAS
void gemm_kernel(const GemmArgs& g) {
  const Tensor &a = *g.a, &b = *g.b, &c = *g.c;
  use_device_of(c);
  int64_t m = c.size(0), n = c.size(1), k = a.size(1);
  // a row-major view's cuBLAS form: (pointer, transposed, leading dimension), or a copy
  auto form = [](const Tensor& t, Tensor& keep) {
    int64_t rows = t.size(0), cols = t.size(1);
    if ((t.stride(1) == 1 || cols == 1) && (rows == 1 || t.stride(0) >= std::max<int64_t>(cols, 1)))
      return std::make_tuple(t.data(), false, rows == 1 ? std::max<int64_t>(cols, 1) : t.stride(0));
    if ((t.stride(0) == 1 || rows == 1) && (cols == 1 || t.stride(1) >= std::max<int64_t>(rows, 1)))
      return std::make_tuple(t.data(), true, cols == 1 ? std::max<int64_t>(rows, 1) : t.stride(1));
    keep = contiguous(t);
    return std::make_tuple(keep.data(), false, std::max<int64_t>(cols, 1));
  };
  Tensor ka, kb;
  auto [pa, ta, lda] = form(a, ka);
  auto [pb, tb, ldb] = form(b, kb);
  for (int64_t v : {lda, ldb, c.stride(0)})
    TC_CHECK(v < (int64_t(1) << 31), NotImplemented,
             "CUDA matmul: a leading dimension of 2^31 or more");
  // column-major: c^T (n x m) = b^T (n x k) a^T (k x m)
  CublasGemm cg{tb,
                ta,
                int(n),
                int(m),
                int(k),
                pb,
                pa,
                c.data(),
                int(ldb),
                int(lda),
                int(m == 1 ? std::max<int64_t>(n, 1) : c.stride(0)),
                c.dtype(),
                g.alpha.d,
                g.beta.d};
  cublas_gemm(cg);
}

void to_host_kernel(const Tensor& src, const Tensor& dst) {  // dst: CPU, contiguous
  use_device_of(src);
  download(dst, contiguous(src));
}

void from_host_kernel(const Tensor& src, const Tensor& dst) {  // src CPU contiguous, dst dense
  use_device_of(dst);
  upload(dst, src, true);
}

// cat: each input copied into its slice of out
void cat_kernel(const Tensor& out, const std::vector<Tensor>& inputs, int64_t dim) {
  int64_t at = 0;
  for (const Tensor& t : inputs) {
    if (t.dim() == 1 && t.size(0) == 0 && out.dim() != 1) continue;  // legacy empty inputs
    int64_t len = t.size(dim);
    if (len) copy_(narrow(out, dim, at, len), t);
    at += len;
  }
}

template <int... I>
void register_ew_ops(std::integer_sequence<int, I...>) {
  (
      [] {
        Op op = Op(I);
        auto it = ew_ops().find(op);
        if (it == ew_ops().end()) return;
        for (int d = 0; d < kRealTypes; d++)
          if (op_takes(it->second.types, ScalarType(d)))
            register_kernel(op, DeviceType::CUDA, ScalarType(d), (void*)&ew_kernel<I>);
      }(),
      ...);
}

template <int OP, int... D>
void register_red(std::integer_sequence<int, D...>) {
  (register_kernel(Op(OP), DeviceType::CUDA, ScalarType(D), (void*)&red_kernel<OP, D>), ...);
}

}  // namespace

void register_kernels() {
  register_ew_ops(std::make_integer_sequence<int, int(Op::copy)>());
  for (ScalarType t : {ScalarType::ComplexFloat, ScalarType::ComplexDouble}) {
    register_kernel(Op::copy, DeviceType::CUDA, t, (void*)&copy_complex_kernel);
    register_kernel(Op::to_host, DeviceType::CUDA, t, (void*)&to_host_kernel);
    register_kernel(Op::from_host, DeviceType::CUDA, t, (void*)&from_host_kernel);
    register_kernel(Op::cat, DeviceType::CUDA, t, (void*)&cat_kernel);
  }
  using AllTypes = std::make_integer_sequence<int, kRealTypes>;
  register_red<int(Op::sum)>(AllTypes());
  register_red<int(Op::prod)>(AllTypes());
  register_red<int(Op::amax)>(AllTypes());
  register_red<int(Op::amin)>(AllTypes());
  register_red<int(Op::all)>(AllTypes());
  register_red<int(Op::any)>(AllTypes());
  register_red<int(Op::sum_sq)>(AllTypes());
  register_red<int(Op::argmax)>(AllTypes());
  register_red<int(Op::argmin)>(AllTypes());
  for (int d = 0; d < kRealTypes; d++) {
    ScalarType t = ScalarType(d);
    register_kernel(Op::where, DeviceType::CUDA, t, (void*)&where_kernel);
    register_kernel(Op::copy, DeviceType::CUDA, t, (void*)&copy_kernel);
    register_kernel(Op::fill, DeviceType::CUDA, t, (void*)&fill_kernel);
    register_kernel(Op::to_host, DeviceType::CUDA, t, (void*)&to_host_kernel);
    register_kernel(Op::from_host, DeviceType::CUDA, t, (void*)&from_host_kernel);
    register_kernel(Op::cat, DeviceType::CUDA, t, (void*)&cat_kernel);
    register_kernel(Op::random_int, DeviceType::CUDA, t,
                    (void*)&random_kernel<int(Op::random_int)>);
    register_kernel(Op::bernoulli, DeviceType::CUDA, t, (void*)&random_kernel<int(Op::bernoulli)>);
    if (is_floating(t)) {
      register_kernel(Op::uniform, DeviceType::CUDA, t, (void*)&random_kernel<int(Op::uniform)>);
      register_kernel(Op::normal, DeviceType::CUDA, t, (void*)&random_kernel<int(Op::normal)>);
      register_kernel(Op::gemm, DeviceType::CUDA, t, (void*)&gemm_kernel);
    }
  }
  register_nn_kernels();
  register_index_kernels();
  register_sort_kernels();
  register_shape_kernels();
}

std::vector<std::pair<std::string, std::string>> kernel_sources() {
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& [op, e] : ew_ops())
    for (int d = 0; d < kRealTypes; d++)
      if (op_takes(e.types, ScalarType(d)))
        all.emplace_back(ew_name(op, ScalarType(d)), ew_op_source(op, ScalarType(d)));
  for (int d = 0; d < kRealTypes; d++) {
    ScalarType t = ScalarType(d);
    all.emplace_back(cat_str("where_", dtype_name(t)), where_source(t));
    all.emplace_back(cat_str("fill_", dtype_name(t)), fill_source(t));
    for (int s = 0; s < kRealTypes; s++)
      all.emplace_back(cat_str("copy_", dtype_name(ScalarType(s)), "_to_", dtype_name(t)),
                       copy_source(t, ScalarType(s)));
    for (Op op : {Op::sum, Op::prod, Op::amax, Op::amin, Op::all, Op::any, Op::sum_sq, Op::argmax,
                  Op::argmin})
      all.emplace_back(red_name(op, t), red_source(op, t));
    for (Op op : {Op::uniform, Op::normal, Op::random_int, Op::bernoulli})
      if (is_floating(t) || op == Op::random_int || op == Op::bernoulli)
        all.emplace_back(cat_str("rand_", op_name(op), '_', dtype_name(t)), random_source(op, t));
  }
  append_nn_kernel_sources(all);
  append_index_kernel_sources(all);
  append_sort_kernel_sources(all);
  append_shape_kernel_sources(all);
  append_fused_kernel_sources(all);
  return all;
}

}  // namespace tc::cuda
