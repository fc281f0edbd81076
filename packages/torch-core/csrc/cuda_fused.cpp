// cuda_fused.cpp — torch.jit's fused elementwise programs (fused.h) on CUDA: each program
// becomes one generated kernel, compiled by NVRTC on first use.
//
// The kernel is straight-line code: every thread takes elements in a grid-stride loop, loads
// each input once (at its broadcast offset over the merged dims), runs the instructions in
// registers and stores each output, so a chain of n ops reads and writes memory once instead
// of n times. Each op is written as the eager CUDA kernel writes it (cuda_kernels.cpp's
// ew_ops), so a fused group gives the numbers of its ops run one by one.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "cuda.h"
#include "fused.h"

namespace tc::cuda {

namespace {

constexpr int kThreads = 256;
// A launch's arguments: 4 KiB on every driver and GPU the backend supports.
constexpr size_t kMaxParamBytes = 4096;

// One instruction as CUDA C++: `d` the destination register, `a`/`b` the sources, `c` the
// scalar (a literal of the compute type A), F(fn) the float or double math function.
std::string op_expr(const FusedInstr& in, const std::string& c) {
  std::string a = cat_str('r', in.a), b = cat_str('r', in.b);
  switch (in.op) {
    case kAdd:
      return a + " + " + b;
    case kSub:
      return a + " - " + b;
    case kMul:
      return a + " * " + b;
    case kDiv:
      return a + " / " + b;
    case kMaximum:
      return cat_str("(", a, " != ", a, ") ? ", a, " : ((", b, " != ", b, ") ? ", b, " : (", a,
                     " > ", b, " ? ", a, " : ", b, "))");
    case kMinimum:
      return cat_str("(", a, " != ", a, ") ? ", a, " : ((", b, " != ", b, ") ? ", b, " : (", a,
                     " < ", b, " ? ", a, " : ", b, "))");
    case kAddC:
      return a + " + " + c;
    case kSubC:
      return a + " - " + c;
    case kRSubC:
      return c + " - " + a;
    case kMulC:
      return a + " * " + c;
    case kDivC:
      return a + " / " + c;
    case kRDivC:
      return c + " / " + a;
    case kPowC:
      return cat_str("F(pow)(", a, ", ", c, ")");
    case kLeakyRelu:
      return cat_str(a, " > A(0) ? ", a, " : ", a, " * ", c);
    case kClampLo:
      return cat_str(a, " <= ", c, " ? ", c, " : ", a);
    case kClampHi:
      return cat_str(a, " >= ", c, " ? ", c, " : ", a);
    case kNeg:
      return "-" + a;
    case kAbs:
      return cat_str(a, " < A(0) ? A(-", a, ") : ", a);
    case kRelu:
      return cat_str("(", a, " > A(0) || ", a, " != ", a, ") ? ", a, " : A(0)");
    case kSigmoid:
      return cat_str("A(1) / (A(1) + F(exp)(-", a, "))");
    case kTanh:
      return cat_str("F(tanh)(", a, ")");
    case kExp:
      return cat_str("F(exp)(", a, ")");
    case kLog:
      return cat_str("F(log)(", a, ")");
    case kSqrt:
      return cat_str("F(sqrt)(", a, ")");
    case kRsqrt:
      return cat_str("F(rsqrt)(", a, ")");
    case kReciprocal:
      return cat_str("A(1) / ", a);
    case kErf:
      return cat_str("F(erf)(", a, ")");
    case kGelu:
      return cat_str("A(0.5) * ", a, " * F(erfc)(-", a, " * A(0.70710678118654752440))");
    case kGeluTanh:
      return cat_str("A(0.5) * ", a, " * (A(1) + F(tanh)(A(0.79788456080286535588) * (", a,
                     " + A(0.044715) * ", a, " * ", a, " * ", a, ")))");
    case kSilu:
      return cat_str(a, " / (A(1) + F(exp)(-", a, "))");
    case kSin:
      return cat_str("F(sin)(", a, ")");
    case kCos:
      return cat_str("F(cos)(", a, ")");
    default:
      fail(ErrorKind::Value, "_fused_elementwise: unknown op code ", in.op);
  }
}

// A double as an exact literal of the compute type (hex float: no rounding through text).
std::string literal(double c, bool single) {
  if (std::isnan(c))
    return single ? "__int_as_float(0x7fc00000)" : "__longlong_as_double(0x7ff8000000000000LL)";
  if (std::isinf(c)) {
    if (single) return c > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
    return c > 0 ? "__longlong_as_double(0x7ff0000000000000LL)"
                 : "__longlong_as_double(0xfff0000000000000LL)";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "A(%a)", c);  // the eager kernels cast the double to A too
  return buf;
}

// The kernel's argument block: input pointers, output pointers, the element count, the
// merged sizes and each input's element strides (the layout of FusedParams in the source).
size_t param_bytes(int n_in, int n_out, int nd) {
  return sizeof(void*) * size_t(n_in + n_out) + 8 + 8 * size_t(nd) * size_t(1 + n_in);
}

// The source of `p` for dtype t (float or double), nd merged dims and index type I.
std::string fused_source(const FusedProgram& p, ScalarType t, int nd, bool idx32,
                         const std::string& name) {
  const bool single = t == ScalarType::Float;
  const int n_in = p.n_inputs, n_out = int(p.outputs.size());
  const char* I = idx32 ? "i32" : "i64";
  std::string s = kPrelude;
  s += cat_str("typedef ", single ? "float" : "double", " A;\n");
  s += cat_str("struct FusedParams { const A* in[", n_in, "]; A* out[", n_out,
               "]; i64 n; i64 size[", nd, "]; i64 st[", n_in, "][", nd, "]; };\n");
  s += cat_str("extern \"C\" __global__ void ", name, "(FusedParams p) {\n");
  s += cat_str("  for (", I, " i = (", I, ")blockIdx.x * blockDim.x + threadIdx.x; i < (", I,
               ")p.n; i += (", I, ")gridDim.x * blockDim.x) {\n");
  s += cat_str("    ", I, " rem = i, o[", n_in, "] = {0};\n");
  s += cat_str("#pragma unroll\n    for (int d = ", nd - 1, "; d >= 0; d--) {\n");
  s +=
      cat_str("      ", I, " sz = (", I, ")p.size[d], q = rem / sz, id = rem - q * sz; rem = q;\n");
  s += cat_str("#pragma unroll\n      for (int k = 0; k < ", n_in, "; k++) o[k] += id * (", I,
               ")p.st[k][d];\n    }\n");
  for (int j = 0; j < n_in; j++) s += cat_str("    A r", j, " = p.in[", j, "][o[", j, "]];\n");
  for (int r = n_in; r < p.n_regs; r++) s += cat_str("    A r", r, ";\n");
  for (const FusedInstr& in : p.code)
    s += cat_str("    r", in.d, " = ", math_names(op_expr(in, literal(in.c, single)), single),
                 ";\n");
  for (int k = 0; k < n_out; k++) s += cat_str("    p.out[", k, "][i] = r", p.outputs[k], ";\n");
  s += "  }\n}\n";
  return s;
}

// Compiled kernels by (device, dtype, dims, index type, program): the source is made once.
CUfunction fused_function(const FusedProgram& p, ScalarType t, int nd, bool idx32) {
  std::string key = cat_str(current_device(), ' ', int(t), ' ', nd, ' ', idx32, ' ', p.n_inputs);
  for (const FusedInstr& in : p.code) {
    uint64_t bits;
    std::memcpy(&bits, &in.c, 8);
    key += cat_str(' ', in.op, ',', in.d, ',', in.a, ',', in.b, ',', bits);
  }
  for (int r : p.outputs) key += cat_str(" o", r);
  static std::map<std::string, CUfunction> cache;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)std::hash<std::string>{}(key));
  std::string name = cat_str("fused_", dtype_name(t), '_', hex);
  CUfunction f = function(fused_source(p, t, nd, idx32, name), name);
  cache.emplace(std::move(key), f);
  return f;
}

}  // namespace

std::vector<Tensor> run_fused(const FusedProgram& p, const std::vector<Tensor>& inputs,
                              const Shape& shape) {
  const ScalarType t = inputs[0].dtype();
  const int n_in = p.n_inputs, n_out = int(p.outputs.size());
  MergedDims m = merge_dims(inputs, shape);
  const int nd = int(m.sizes.size());
  const size_t bytes = param_bytes(n_in, n_out, nd);
  if (bytes > kMaxParamBytes) return {};
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<Tensor> outs;
  for (int k = 0; k < n_out; k++) outs.push_back(empty(shape, t, inputs[0].device()));
  if (n == 0) return outs;
  use_device_of(inputs[0]);
  const int64_t blocks =
      std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t(sm_count(current_device())) * 32);
  // 32-bit index math where every element index (and the grid-stride step past the last one)
  // and every input offset fits
  bool idx32 = n + blocks * kThreads < (int64_t(1) << 31);
  for (int j = 0; j < n_in; j++) {
    int64_t span = 0;
    for (int d = 0; d < nd; d++) span += std::abs(m.strides[j][d]) * (m.sizes[d] - 1);
    idx32 &= span < (int64_t(1) << 31);
  }
  CUfunction f = fused_function(p, t, nd, idx32);
  // The argument block, laid out as FusedParams: 8-byte fields, no padding.
  std::vector<int64_t> block(bytes / 8);
  size_t at = 0;
  for (int j = 0; j < n_in; j++)
    block[at++] = int64_t(reinterpret_cast<uintptr_t>(inputs[j].data()));
  for (int k = 0; k < n_out; k++)
    block[at++] = int64_t(reinterpret_cast<uintptr_t>(outs[size_t(k)].data()));
  block[at++] = n;
  for (int d = 0; d < nd; d++) block[at++] = m.sizes[size_t(d)];
  for (int j = 0; j < n_in; j++)
    for (int d = 0; d < nd; d++) block[at++] = m.strides[size_t(j)][size_t(d)];
  void* args[] = {block.data()};
  launch(f, unsigned(blocks), 1, kThreads, args);
  return outs;
}

void append_fused_kernel_sources(std::vector<std::pair<std::string, std::string>>& all) {
  // Every op code once, in a chain over two inputs, for both dtypes and index types.
  FusedProgram p;
  p.n_inputs = 2;
  int top = 2, last = 0;
  for (int op = 0; op < kNumOps; op++) {
    FusedInstr in{op, top, last, 1, op == kPowC ? 1.5 : 0.25};
    p.code.push_back(in);
    last = top++;
  }
  p.n_regs = top;
  p.outputs = {last, 2};
  for (ScalarType t : {ScalarType::Float, ScalarType::Double})
    for (bool idx32 : {true, false}) {
      std::string name = cat_str("fused_every_op_", dtype_name(t), idx32 ? "_i32" : "_i64");
      all.emplace_back(name, fused_source(p, t, 3, idx32, name));
    }
}

}  // namespace tc::cuda
