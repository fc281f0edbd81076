// fused.cpp — one-pass kernels for chains of elementwise ops (torch.jit's fusion groups).
//
// torch.jit compiles a fusion group into a small register-machine program (torch/jit/_fuser.py)
// and runs it here: the inputs are broadcast to one output shape, the elements are processed
// in blocks of kBlock, and each instruction is one vectorised loop over the block between
// registers of kBlock elements that stay in L1, so intermediates never reach main memory.
// Registers 0..n_inputs-1 are the inputs (read only); the others are temporaries and the
// outputs. An instruction is four ints (op, dst, a, b) and one double (the scalar c).
//
// The per-element functions are the eager kernels' own (kernels.h, libmvec through
// vecmath.h), so a fused group computes the numbers of its ops run one by one.
#include "fused.h"

#include <omp.h>

#include <algorithm>
#include <memory>

#include "bind.h"
#include "cpu_gemm.h"
#include "cuda.h"
#include "kernels.h"
#include "vecmath.h"

namespace tc {

namespace {

constexpr int kBlock = 512;  // elements of a block (2 KiB of float32 a register)
constexpr int kMinRow = 64;  // rows of at least this many elements are walked row by row

using Instr = FusedInstr;
using Program = FusedProgram;

}  // namespace

FusedProgram check_program(const std::vector<int64_t>& code, const std::vector<double>& consts,
                           int64_t n_inputs, const std::vector<int64_t>& outputs) {
  const char* op = "_fused_elementwise";
  TC_CHECK(code.size() % 4 == 0, Value, op,
           ": the code holds 4 ints an instruction (op, dst, a, b), got ", code.size(), " ints");
  size_t n = code.size() / 4;
  TC_CHECK(consts.size() == n, Value, op, ": expected one constant an instruction (", n, "), got ",
           consts.size());
  TC_CHECK(n_inputs >= 1 && n_inputs < kMaxRegs, Value, op, ": expected 1 to ", kMaxRegs - 1,
           " inputs, got ", n_inputs);
  TC_CHECK(!outputs.empty(), Value, op, ": a program needs at least one output register");
  Program p;
  p.n_inputs = int(n_inputs);
  bool written[kMaxRegs] = {};
  for (int i = 0; i < n_inputs; i++) written[i] = true;
  int top = int(n_inputs);
  auto reg = [&](int64_t r, size_t i, const char* what) {
    TC_CHECK(r >= 0 && r < kMaxRegs, Value, op, ": instruction ", i, ": ", what, " register ", r,
             " is out of range [0, ", kMaxRegs, ")");
    return int(r);
  };
  for (size_t i = 0; i < n; i++) {
    int64_t code_op = code[4 * i];
    TC_CHECK(code_op >= 0 && code_op < kNumOps, Value, op, ": instruction ", i,
             ": unknown op code ", code_op);
    Instr in{int(code_op), reg(code[4 * i + 1], i, "destination"),
             reg(code[4 * i + 2], i, "source"), 0, consts[i]};
    bool binary = in.op < kFirstScalarOp;
    if (binary) in.b = reg(code[4 * i + 3], i, "second source");
    TC_CHECK(in.d >= n_inputs, Value, op, ": instruction ", i, " writes input register ", in.d,
             " (inputs are registers 0 to ", n_inputs - 1, ", read only)");
    TC_CHECK(written[in.a] && (!binary || written[in.b]), Value, op, ": instruction ", i,
             " reads a register that holds no value yet");
    TC_CHECK(in.d != in.a && (!binary || in.d != in.b), Value, op, ": instruction ", i,
             ": the destination register must differ from the sources");
    written[in.d] = true;
    top = std::max(top, in.d + 1);
    p.code.push_back(in);
  }
  for (size_t k = 0; k < outputs.size(); k++) {
    int64_t r = outputs[k];
    TC_CHECK(r >= n_inputs && r < kMaxRegs && written[r], Value, op, ": output ", k, ": register ",
             r, " is not a register the program writes");
    for (size_t j = 0; j < k; j++)
      TC_CHECK(outputs[j] != r, Value, op, ": register ", r, " is listed twice as an output");
    p.outputs.push_back(int(r));
  }
  p.n_regs = top;
  for (int j = 0; j < p.n_inputs; j++) p.deps[j] = uint64_t(1) << j;
  for (const Instr& in : p.code)
    p.deps[in.d] = p.deps[in.a] | (in.op < kFirstScalarOp ? p.deps[in.b] : 0);
  return p;
}

MergedDims merge_dims(const std::vector<Tensor>& inputs, const Shape& shape) {
  const int nd = int(shape.size());
  std::vector<std::vector<int64_t>> st(inputs.size(), std::vector<int64_t>(nd, 0));
  for (size_t j = 0; j < inputs.size(); j++) {
    const Tensor& t = inputs[j];
    int lead = nd - int(t.dim());
    for (int d = 0; d < t.dim(); d++) st[j][lead + d] = t.size(d) == 1 ? 0 : t.stride(d);
  }
  MergedDims m;
  m.strides.resize(inputs.size());
  for (int d = 0; d < nd; d++) {
    if (shape[d] == 1) continue;
    bool merge = !m.sizes.empty();
    for (size_t j = 0; merge && j < inputs.size(); j++)
      merge = m.strides[j].back() == st[j][d] * shape[d];
    if (merge) {
      m.sizes.back() *= shape[d];
      for (size_t j = 0; j < inputs.size(); j++) m.strides[j].back() = st[j][d];
    } else {
      m.sizes.push_back(shape[d]);
      for (size_t j = 0; j < inputs.size(); j++) m.strides[j].push_back(st[j][d]);
    }
  }
  if (m.sizes.empty()) {  // one element
    m.sizes.push_back(1);
    for (auto& s : m.strides) s.push_back(0);
  }
  return m;
}

namespace {

template <class T>
struct MathFns {  // libmvec versions (vecmath.h); null where this CPU has none (or, for
                  // float32 tanh, where eager's kernel takes the own rational instead)
  VecMath tanh = std::is_same_v<T, float> ? VecMath{} : find_vec_math<T>("tanh"),
          erf = find_vec_math<T>("erf"), sin = find_vec_math<T>("sin"),
          cos = find_vec_math<T>("cos");
};
template <class T>
const MathFns<T>& math_fns() {
  static const MathFns<T> fns;
  return fns;
}

// The loops: the functors are the eager kernels' (k_unary.cpp, k_binary.cpp) in inline form.
#define TC_LOOP1(expr)                                                             \
  {                                                                                \
    const T* a = R[in.a];                                                          \
    T* d = R[in.d];                                                                \
    _Pragma("GCC ivdep") _Pragma("GCC unroll 4") for (int64_t i = 0; i < n; i++) { \
      T x = a[i];                                                                  \
      d[i] = T(expr);                                                              \
    }                                                                              \
    break;                                                                         \
  }
#define TC_LOOP2(expr)                                                             \
  {                                                                                \
    const T *a = R[in.a], *b = R[in.b];                                            \
    T* d = R[in.d];                                                                \
    _Pragma("GCC ivdep") _Pragma("GCC unroll 4") for (int64_t i = 0; i < n; i++) { \
      T x = a[i], y = b[i];                                                        \
      d[i] = T(expr);                                                              \
    }                                                                              \
    break;                                                                         \
  }
#define TC_LOOP_MVEC(name, expr)                \
  {                                             \
    if (fns.name.fn) {                          \
      vec_apply(fns.name, R[in.a], R[in.d], n); \
      break;                                    \
    }                                           \
    TC_LOOP1(expr)                              \
  }

template <class T>
TC_INLINE T sigmoid_of(T x) {
  return T(1) / (T(1) + fast_exp(-x));
}
template <class T>
TC_INLINE T max_of(T x, T y) {
  return (x != x || y != y) ? (x != x ? x : y) : (x > y ? x : y);
}
template <class T>
TC_INLINE T min_of(T x, T y) {
  return (x != x || y != y) ? (x != x ? x : y) : (x < y ? x : y);
}
template <class T>
TC_INLINE T tanh_of(T x) {  // float32: the own rational, as the eager kernel
  return rational_tanh(x);
}
template <class T>
TC_INLINE T erf_of(T x) {
  return fast_erf(x);
}

// Runs the program over one block of n <= kBlock elements; R[r] points at register r's
// elements of this block.
template <class T>
TC_MULTIVERSION void run_block(const Instr* code, int n_code, T* const* R, int64_t n,
                               const MathFns<T>& fns) {
  for (int k = 0; k < n_code; k++) {
    const Instr& in = code[k];
    const T c = T(in.c);
    (void)c;
    switch (in.op) {
      case kAdd:
        TC_LOOP2(x + y)
      case kSub:
        TC_LOOP2(x - y)
      case kMul:
        TC_LOOP2(x * y)
      case kDiv:
        TC_LOOP2(x / y)
      case kMaximum:
        TC_LOOP2(max_of(x, y))
      case kMinimum:
        TC_LOOP2(min_of(x, y))
      case kAddC:
        TC_LOOP1(x + c)
      case kSubC:
        TC_LOOP1(x - c)
      case kRSubC:
        TC_LOOP1(c - x)
      case kMulC:
        TC_LOOP1(x * c)
      case kDivC:
        TC_LOOP1(x / c)
      case kRDivC:
        TC_LOOP1(c / x)
      case kPowC:
        TC_LOOP1(std::pow(x, c))
      case kLeakyRelu:
        TC_LOOP1(x > T(0) ? x : x * c)
      case kClampLo:
        TC_LOOP1(x <= c ? c : x)
      case kClampHi:
        TC_LOOP1(x >= c ? c : x)
      case kNeg:
        TC_LOOP1(-x)
      case kAbs:
        TC_LOOP1(std::fabs(x))
      case kRelu:
        TC_LOOP1((x > T(0) || x != x) ? x : T(0))
      case kSigmoid:
        TC_LOOP1(sigmoid_of(x))
      case kTanh:  // as eager's kernel: float32's own rational, float64's glibc vector tanh
        TC_LOOP_MVEC(tanh, tanh_of(x))
      case kExp:
        TC_LOOP1(fast_exp(x))
      case kLog:
        TC_LOOP1(fast_log(x))
      case kSqrt:
        TC_LOOP1(std::sqrt(x))
      case kRsqrt:
        TC_LOOP1(T(1) / std::sqrt(x))
      case kReciprocal:
        TC_LOOP1(T(1) / x)
      case kErf:
        if constexpr (std::is_same_v<T, double>)
          TC_LOOP_MVEC(erf, erf_of(x))
        else
          TC_LOOP1(erf_of(x))
      case kGelu:
        TC_LOOP1(x * fast_gelu_cdf(x))
      case kGeluTanh:
        TC_LOOP1(T(0.5) * x *
                 (T(1) + fast_tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x))))
      case kSilu:
        TC_LOOP1(x / (T(1) + fast_exp(-x)))
      case kSin:
        TC_LOOP_MVEC(sin, std::sin(x))
      case kCos:
        TC_LOOP_MVEC(cos, std::cos(x))
      default:
        break;  // (check_program refuses other codes)
    }
  }
}
#undef TC_LOOP1
#undef TC_LOOP2
#undef TC_LOOP_MVEC

// A thread's registers: one block of kBlock elements each (for inputs that cannot be read
// in place, and temporaries), a few cache lines off 4 KiB multiples (loads and stores 4 KiB
// apart stall each other). R[r] is where register r's elements are now (an input may point
// into its tensor), slot[r] its own block.
template <class T>
struct Registers {
  static constexpr size_t kStride = kBlock + 48;
  std::unique_ptr<T[]> mem;
  T *R[kMaxRegs], *slot[kMaxRegs];
  explicit Registers(int n_regs) : mem(new T[size_t(n_regs) * kStride + 64]) {
    T* first = mem.get() + (64 - (reinterpret_cast<uintptr_t>(mem.get()) / sizeof(T)) % 64) % 64;
    for (int r = 0; r < n_regs; r++) R[r] = slot[r] = first + size_t(r) * kStride + 16 * (r % 4);
  }
  void fill(int r, T value) { std::fill(slot[r], slot[r] + kBlock, value); }  // (a number)
};

// An input's walk over the output's (merged) shape: element strides, 0 where it broadcasts.
struct InputWalk {
  const char* base;
  std::vector<int64_t> strides;
  bool direct = false;    // contiguous in the output's order: read in place
  bool constant = false;  // one element for all (a 0-d tensor, or all strides 0)
};

// dst[0..n) = the input's elements of output elements start..start+n.
template <class T>
void gather(const InputWalk& w, const std::vector<int64_t>& sizes, int64_t start, int64_t n,
            T* dst) {
  int nd = int(sizes.size());
  int64_t idx[64];
  int64_t off = 0, rem = start;
  for (int d = nd - 1; d >= 0; d--) {
    idx[d] = rem % sizes[d];
    rem /= sizes[d];
    off += idx[d] * w.strides[d];
  }
  const T* base = reinterpret_cast<const T*>(w.base);
  const int64_t inner = sizes[nd - 1], s = w.strides[nd - 1];
  for (int64_t i = 0; i < n;) {
    int64_t run = std::min(n - i, inner - idx[nd - 1]);
    const T* p = base + off;
    if (s == 1)
      std::memcpy(dst + i, p, size_t(run) * sizeof(T));
    else if (s == 0)
      std::fill(dst + i, dst + i + run, *p);
    else
      for (int64_t k = 0; k < run; k++) dst[i + k] = p[k * s];
    i += run;
    off += run * s;
    idx[nd - 1] += run;
    for (int d = nd - 1; d > 0 && idx[d] == sizes[d]; d--) {
      off -= idx[d] * w.strides[d];
      idx[d] = 0;
      idx[d - 1]++;
      off += w.strides[d - 1];
    }
  }
}

template <class T>
void run_program(const Program& p, const std::vector<Tensor>& inputs,
                 const std::vector<Tensor>& outs, const Shape& shape) {
  int64_t numel = 1;
  for (auto s : shape) numel *= s;
  if (numel == 0) return;
  MergedDims merged = merge_dims(inputs, shape);
  const std::vector<int64_t>& sizes = merged.sizes;
  const std::vector<std::vector<int64_t>>& mst = merged.strides;
  std::vector<InputWalk> walks(inputs.size());
  for (size_t j = 0; j < inputs.size(); j++) {
    InputWalk& w = walks[j];
    w.base = inputs[j].data();
    w.strides = mst[j];
    int64_t expect = 1;  // contiguous over the merged dims: element i at base + i
    w.direct = true;
    for (int d = int(sizes.size()) - 1; d >= 0; d--) {
      w.direct = w.direct && (sizes[d] == 1 || mst[j][d] == expect);
      expect *= sizes[d];
    }
    w.constant = std::all_of(mst[j].begin(), mst[j].end(), [](int64_t s) { return s == 0; });
  }
  const int n_in = p.n_inputs;
  std::vector<T*> out_base(p.n_regs, nullptr);
  for (size_t k = 0; k < p.outputs.size(); k++) out_base[p.outputs[k]] = outs[k].data_as<T>();
  const MathFns<T>& fns = math_fns<T>();
  // The units of work: with rows of at least kMinRow elements, pieces of one row (an input
  // whose row is contiguous is then read in place: a chunk of a bigger tensor, a bias),
  // else blocks of kBlock elements in the output's order, gathered.
  const int nd2 = int(sizes.size());
  const int64_t L = sizes.back();
  const bool by_rows = L >= kMinRow;
  const int64_t per_row = by_rows ? (L + kBlock - 1) / kBlock : 1;
  const int64_t piece = by_rows ? (L + per_row - 1) / per_row : kBlock;
  const int64_t nunits = by_rows ? (numel / L) * per_row : (numel + kBlock - 1) / kBlock;
  // Threads pay off sooner the more work an element takes (see ops.cpp's grains).
  int64_t grain = std::max<int64_t>(kGrain / 2, kCheapGrain / int64_t(p.code.size() + 1));
  int nt = numel >= grain ? int(std::min<int64_t>(get_num_threads(), nunits)) : 1;

  auto setup = [&](Registers<T>& regs) {
    for (int j = 0; j < n_in; j++)
      if (walks[j].constant) regs.fill(j, *reinterpret_cast<const T*>(walks[j].base));
  };
  auto work = [&](int64_t u0, int64_t u1, T** R, T** slot) {
    int64_t idx[64];
    for (int64_t u = u0; u < u1; u++) {
      int64_t start, n;
      if (by_rows) {
        int64_t row = u / per_row, j0 = (u % per_row) * piece;
        start = row * L + j0;
        n = std::min(piece, L - j0);
        for (int d = nd2 - 2; d >= 0; d--) {
          idx[d] = row % sizes[d];
          row /= sizes[d];
        }
        for (int j = 0; j < n_in; j++) {
          const InputWalk& w = walks[j];
          if (w.constant) continue;
          int64_t off = j0 * w.strides[nd2 - 1];
          for (int d = 0; d < nd2 - 1; d++) off += idx[d] * w.strides[d];
          const T* src = reinterpret_cast<const T*>(w.base) + off;
          const int64_t s = w.strides[nd2 - 1];
          if (s == 1) {
            R[j] = const_cast<T*>(src);
          } else {
            R[j] = slot[j];
            if (s == 0)
              std::fill(R[j], R[j] + n, *src);
            else
              for (int64_t i = 0; i < n; i++) R[j][i] = src[i * s];
          }
        }
      } else {
        start = u * kBlock;
        n = std::min<int64_t>(kBlock, numel - start);
        for (int j = 0; j < n_in; j++) {
          const InputWalk& w = walks[j];
          if (w.constant) continue;
          if (w.direct)
            R[j] = const_cast<T*>(reinterpret_cast<const T*>(w.base)) + start;
          else
            gather(w, sizes, start, n, R[j] = slot[j]);
        }
      }
      for (int r = n_in; r < p.n_regs; r++)
        if (out_base[r]) R[r] = out_base[r] + start;
      run_block<T>(p.code.data(), int(p.code.size()), R, n, fns);
    }
  };
  if (nt <= 1) {
    Registers<T> regs(p.n_regs);
    setup(regs);
    work(0, nunits, regs.R, regs.slot);
    return;
  }
  // Threads take runs of units as they go (on a shared machine one may be held up).
  const int64_t run = std::max<int64_t>(1, nunits / (int64_t(nt) * 16));
  const int64_t nruns = (nunits + run - 1) / run;
#pragma omp parallel num_threads(nt)
  {
    Registers<T> regs(p.n_regs);
    setup(regs);
#pragma omp for schedule(dynamic, 1)
    for (int64_t k = 0; k < nruns; k++)
      work(k * run, std::min(nunits, (k + 1) * run), regs.R, regs.slot);
  }
}

// The outputs, or None when an output's own shape (the broadcast shape of the inputs it
// depends on) is not the broadcast shape of all inputs: the caller then runs the ops one by
// one.
py::object fused_elementwise(const std::vector<int64_t>& code, const std::vector<double>& consts,
                             const std::vector<Tensor>& inputs,
                             const std::vector<int64_t>& outputs) {
  const char* op = "_fused_elementwise";
  Program p = check_program(code, consts, int64_t(inputs.size()), outputs);
  ScalarType dt = inputs[0].dtype();
  Shape shape;
  for (size_t j = 0; j < inputs.size(); j++) {
    const Tensor& t = inputs[j];
    TC_CHECK(t.defined(), Type, op, ": input ", j, " is an undefined tensor");
    TC_CHECK(t.dtype() == ScalarType::Float || t.dtype() == ScalarType::Double, Type, op,
             ": expected float32 or float64 inputs, got ", dtype_name(t.dtype()), " (input ", j,
             ")");
    TC_CHECK(t.dtype() == dt, Type, op, ": every input needs one dtype, got ", dtype_name(dt),
             " and ", dtype_name(t.dtype()), " (input ", j, ")");
    TC_CHECK(t.device() == inputs[0].device(), Type, op, ": every input needs one device, got ",
             inputs[0].device().str(), " and ", t.device().str(), " (input ", j, ")");
    TC_CHECK(t.dim() < 64, Value, op, ": too many dims (", t.dim(), ")");
    shape = j == 0 ? t.sizes() : broadcast_shapes(shape, t.sizes(), op);
  }
  for (int r : p.outputs) {
    Shape own;
    bool first = true;
    for (int j = 0; j < p.n_inputs; j++)
      if (p.deps[r] >> j & 1) {
        own = first ? inputs[j].sizes() : broadcast_shapes(own, inputs[j].sizes(), op);
        first = false;
      }
    if (own != shape) return py::none();
  }
  DeviceType where = inputs[0].device().type;
  TC_CHECK(where == DeviceType::CPU || where == DeviceType::CUDA, Type, op,
           ": expected CPU or CUDA tensors, got ", inputs[0].device().str());
  if (where == DeviceType::CUDA) {
    std::vector<Tensor> outs = cuda::run_fused(p, inputs, shape);
    if (outs.empty()) return py::none();
    return py::cast(outs);
  }
  std::vector<Tensor> outs;
  for (size_t k = 0; k < p.outputs.size(); k++) outs.push_back(empty(shape, dt));
  if (dt == ScalarType::Float)
    run_program<float>(p, inputs, outs, shape);
  else
    run_program<double>(p, inputs, outs, shape);
  return py::cast(outs);
}

// ---------------------------------------------------------------- a product's epilogue
// Note [Epilogue fusion]: `F.linear(x, w, b)` followed by a fusion group that reads its
// result y (M x N) and nothing else of that size. The rows of y are made in chunks that fit
// in L2, each thread its own chunks: the chunk is filled with the bias, the single-threaded
// product is added into it (as eager's addmm does: bias copied, then beta = 1), and the
// program runs on the chunk's rows at once. y itself is never written to memory.
// With a second linear (w2, b2) that alone reads the group's one output z (an MLP block:
// linear, activation, linear), z's chunk stays in cache too and the chunk's rows of
// F.linear(z, w2, b2) are made from it: neither y nor z is written whole.
template <class T>
struct SecondLinear {
  const T* w = nullptr;  // (N2, N), contiguous
  const T* b = nullptr;  // (N2,) or null
  int64_t n = 0;         // N2
};
template <class T>
void run_linear_program(const Program& p, const Tensor& x, const Tensor& w, const Tensor* bias,
                        const std::vector<Tensor>& inputs, int slot,
                        const std::vector<Tensor>& outs, const SecondLinear<T>& then) {
  const int64_t M = x.size(0), K = x.size(1), N = w.size(0);
  if (M == 0 || N == 0) return;
  const int n_in = p.n_inputs;
  // each input's (row, column) element strides against (M, N); 0 where it broadcasts
  std::vector<int64_t> srow(n_in, 0), scol(n_in, 0);
  for (int j = 0; j < n_in; j++) {
    if (j == slot) continue;
    const Tensor& t = inputs[j];
    if (t.dim() >= 1 && t.size(t.dim() - 1) != 1) scol[j] = t.stride(t.dim() - 1);
    if (t.dim() == 2 && t.size(0) != 1) srow[j] = t.stride(0);
  }
  // Chunks of about 64 KiB of y, at least 8 rows; one row at a time through the program.
  const int64_t rows = std::max<int64_t>(8, (int64_t(64) << 10) / int64_t(sizeof(T) * N));
  const int64_t nchunks = (M + rows - 1) / rows;
  const double flops = double(M) * double(N) * double(K + then.n);
  int nt = flops >= kParallelGemm ? int(std::min<int64_t>(get_num_threads(), nchunks)) : 1;
  const T* px = x.data_as<T>();
  const T* pw = w.data_as<T>();
  const T* pb = bias ? bias->data_as<T>() : nullptr;
  std::vector<T*> out_base(p.n_regs, nullptr);
  if (!then.w)
    for (size_t k = 0; k < p.outputs.size(); k++) out_base[p.outputs[k]] = outs[k].data_as<T>();
  const MathFns<T>& fns = math_fns<T>();
  const int64_t piece = std::min<int64_t>(N, kBlock);
  // Where every other input is a number or a dense (M, N) tensor, a chunk's rows are one run
  // (pieces span rows); else each row goes by itself (a bias row, a column, strides).
  bool flat = true;
  for (int j = 0; j < n_in; j++)
    if (j != slot)
      flat = flat && ((srow[j] == 0 && scol[j] == 0) || (srow[j] == N && scol[j] == 1));
  const int z_reg = then.w ? p.outputs[0] : -1;  // (the one output, with a second linear)
  T* const out2 = then.w ? outs[0].data_as<T>() : nullptr;
  auto chunk_work = [&](int64_t c0, int64_t c1) {
    std::unique_ptr<T[]> y(new T[size_t(rows * N)]);
    std::unique_ptr<T[]> z(then.w ? new T[size_t(rows * N)] : nullptr);
    T* dst[kMaxRegs];  // where each output register's rows of this chunk go
    Registers<T> regs(p.n_regs);
    T** R = regs.R;
    if (flat)  // (numbers: one block of the value, read for every piece)
      for (int j = 0; j < n_in; j++)
        if (j != slot && srow[j] == 0) regs.fill(j, *inputs[j].data_as<T>());
    for (int64_t c = c0; c < c1; c++) {
      const int64_t r0 = c * rows, m = std::min(rows, M - r0);
      for (int64_t i = 0; i < m; i++) {
        T* row = y.get() + i * N;
        if (pb)
          std::copy(pb, pb + N, row);
        else
          std::fill(row, row + N, T(0));
      }
      cpu_gemm<T>(false, true, m, N, K, T(1), px + r0 * K, K, pw, K, T(1), y.get(), N);
      for (int reg = n_in; reg < p.n_regs; reg++)
        dst[reg] = reg == z_reg ? z.get() : out_base[reg] ? out_base[reg] + r0 * N : nullptr;
      if (flat) {  // the chunk's rows as one run, in pieces of kBlock
        for (int64_t e0 = 0; e0 < m * N; e0 += kBlock) {
          const int64_t n = std::min<int64_t>(kBlock, m * N - e0);
          for (int j = 0; j < n_in; j++)
            if (j == slot)
              R[j] = y.get() + e0;
            else if (srow[j] != 0)  // (dense: else a number, filled once)
              R[j] = const_cast<T*>(inputs[j].data_as<T>()) + r0 * N + e0;
          for (int reg = n_in; reg < p.n_regs; reg++)
            if (dst[reg]) R[reg] = dst[reg] + e0;
          run_block<T>(p.code.data(), int(p.code.size()), R, n, fns);
        }
      } else {
        for (int64_t i = 0; i < m; i++) {
          const int64_t r = r0 + i;
          for (int64_t j0 = 0; j0 < N; j0 += piece) {
            const int64_t n = std::min(piece, N - j0);
            for (int j = 0; j < n_in; j++) {
              if (j == slot) {
                R[j] = y.get() + i * N + j0;
                continue;
              }
              const T* src = inputs[j].data_as<T>() + r * srow[j] + j0 * scol[j];
              if (scol[j] == 1) {
                R[j] = const_cast<T*>(src);
              } else {
                R[j] = regs.slot[j];
                for (int64_t e = 0; e < n; e++) R[j][e] = src[e * scol[j]];
              }
            }
            for (int reg = n_in; reg < p.n_regs; reg++)
              if (dst[reg]) R[reg] = dst[reg] + i * N + j0;
            run_block<T>(p.code.data(), int(p.code.size()), R, n, fns);
          }
        }
      }
      if (!then.w) continue;
      T* o = out2 + r0 * then.n;  // the chunk's rows of F.linear(z, w2, b2), as y's above
      for (int64_t i = 0; i < m; i++) {
        if (then.b)
          std::copy(then.b, then.b + then.n, o + i * then.n);
        else
          std::fill(o + i * then.n, o + (i + 1) * then.n, T(0));
      }
      cpu_gemm<T>(false, true, m, then.n, N, T(1), z.get(), N, then.w, N, T(1), o, then.n);
    }
  };
  on_threads(nt, [&](int t) {  // (BLAS single-threaded meanwhile; nt may be 1)
    chunk_work(nchunks * t / nt, nchunks * (t + 1) / nt);
  });
}

// The outputs of the program with input `slot` taken as F.linear(x, w, bias), or with w2
// given, [F.linear(its one output, w2, b2)]; None where the shapes do not suit (the caller
// then runs the products and the group apart).
py::object fused_linear_elementwise(const Tensor& x, const Tensor& w, std::optional<Tensor> bias,
                                    const std::vector<int64_t>& code,
                                    const std::vector<double>& consts,
                                    const std::vector<std::optional<Tensor>>& given, int64_t slot,
                                    const std::vector<int64_t>& outputs, std::optional<Tensor> w2,
                                    std::optional<Tensor> b2) {
  const char* op = "_fused_linear_elementwise";
  Program p = check_program(code, consts, int64_t(given.size()), outputs);
  TC_CHECK(slot >= 0 && slot < int64_t(given.size()) && !given[size_t(slot)], Value, op, ": input ",
           slot, " must be None (the product's place)");
  ScalarType dt = x.dtype();
  TC_CHECK(dt == ScalarType::Float || dt == ScalarType::Double, Type, op,
           ": expected float32 or float64, got ", dtype_name(dt));
  auto plain = [&](const Tensor& t, const char* what) {
    TC_CHECK(t.defined() && t.dtype() == dt && t.device().type == DeviceType::CPU, Type, op, ": ",
             what, " must be a CPU tensor of ", dtype_name(dt));
  };
  plain(x, "input");
  plain(w, "weight");
  TC_CHECK(x.dim() == 2 && w.dim() == 2 && x.size(1) == w.size(1) && x.is_contiguous() &&
               w.is_contiguous(),
           Runtime, op, ": expected contiguous input (M, K) and weight (N, K), got ",
           shape_str(x.sizes()), " and ", shape_str(w.sizes()));
  const int64_t M = x.size(0), N = w.size(0);
  TC_CHECK(std::max({M, N, x.size(1)}) < (int64_t(1) << 31), Value, op,
           ": dims beyond 2^31 - 1: ", shape_str(x.sizes()), " ", shape_str(w.sizes()));
  if (bias) {
    plain(*bias, "bias");
    TC_CHECK(bias->dim() == 1 && bias->size(0) == N && bias->is_contiguous(), Runtime, op,
             ": expected a contiguous bias of shape (", N, "), got ", shape_str(bias->sizes()));
  }
  TC_CHECK(w2 || !b2, Value, op, ": bias2 without weight2");
  int64_t N2 = 0;
  if (w2) {
    plain(*w2, "weight2");
    TC_CHECK(w2->dim() == 2 && w2->size(1) == N && w2->is_contiguous(), Runtime, op,
             ": expected a contiguous weight2 of shape (N2, ", N, "), got ",
             shape_str(w2->sizes()));
    N2 = w2->size(0);
    TC_CHECK(N2 < (int64_t(1) << 31), Value, op, ": weight2 dims beyond 2^31 - 1");
    TC_CHECK(p.outputs.size() == 1, Value, op,
             ": a second linear needs a program with one output, got ", p.outputs.size());
    if (N == 0) return py::none();  // (z is empty: the output is b2's rows, made apart)
    if (b2) {
      plain(*b2, "bias2");
      TC_CHECK(b2->dim() == 1 && b2->size(0) == N2 && b2->is_contiguous(), Runtime, op,
               ": expected a contiguous bias2 of shape (", N2, "), got ", shape_str(b2->sizes()));
    }
  }
  const Shape shape{M, N};
  std::vector<Tensor> inputs(given.size());
  for (size_t j = 0; j < given.size(); j++) {
    if (int64_t(j) == slot) continue;
    TC_CHECK(given[j].has_value(), Value, op, ": input ", j, " is None");
    const Tensor& t = *given[j];
    plain(t, "every input");
    TC_CHECK(t.dim() <= 2 && broadcast_shapes(shape, t.sizes(), op) == shape, Runtime, op,
             ": input ", j, " of shape ", shape_str(t.sizes()), " does not broadcast to ",
             shape_str(shape));
    inputs[j] = t;
  }
  // each output must depend on y or a full-size input (see fused_elementwise)
  for (int r : p.outputs) {
    bool full = false;
    for (int j = 0; j < p.n_inputs && !full; j++)
      full = (p.deps[r] >> j & 1) && (j == slot || inputs[size_t(j)].sizes() == shape);
    if (!full) return py::none();
  }
  std::vector<Tensor> outs;
  if (w2)
    outs.push_back(empty({M, N2}, dt));
  else
    for (size_t k = 0; k < p.outputs.size(); k++) outs.push_back(empty(shape, dt));
  const Tensor* b = bias ? &*bias : nullptr;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    SecondLinear<T> then;
    if (w2) then = {w2->data_as<T>(), b2 ? b2->data_as<T>() : nullptr, N2};
    run_linear_program<T>(p, x, w, b, inputs, int(slot), outs, then);
  };
  if (dt == ScalarType::Float)
    run(0.0f);
  else
    run(0.0);
  return py::cast(outs);
}

}  // namespace

void bind_fused(py::module_& m) {
  m.def("_fused_elementwise", &fused_elementwise,
        "_fused_elementwise(code, consts, inputs, outputs) -> list of Tensor or None\n\n"
        "Runs a register-machine program of elementwise ops in one pass over memory (torch.jit's "
        "fused kernel; torch/jit/_fuser.py writes the programs). ``code`` holds 4 ints an "
        "instruction (op, dst, a, b) and ``consts`` one scalar an instruction; registers 0 to "
        "len(inputs) - 1 are the inputs, which must be float32 or float64 CPU tensors of one "
        "dtype and broadcast to one shape. ``outputs`` names the registers returned, each a "
        "tensor of that shape; the result is None when an output depends only on inputs of a "
        "smaller broadcast shape (the ops must then run one by one).",
        py::arg("code"), py::arg("consts"), py::arg("inputs"), py::arg("outputs"), nograd);
  m.def("_fused_linear_elementwise", &fused_linear_elementwise,
        "_fused_linear_elementwise(input, weight, bias, code, consts, inputs, slot, outputs) -> "
        "list of Tensor or None\n\n"
        "The program of _fused_elementwise with input ``slot`` (None in ``inputs``) taken as "
        "F.linear(input, weight, bias), made in row chunks that stay in cache and never "
        "written whole (Note [Epilogue fusion]). input (M, K) and weight (N, K) contiguous, "
        "bias (N,) or None; the other inputs broadcast to (M, N). None where an output would "
        "be smaller than (M, N). With ``weight2`` (N2, N) and ``bias2`` (N2,) or None, a "
        "program of one output z gives [F.linear(z, weight2, bias2)], z made chunk by chunk "
        "too (an MLP block).",
        py::arg("input"), py::arg("weight"), py::arg("bias"), py::arg("code"), py::arg("consts"),
        py::arg("inputs"), py::arg("slot"), py::arg("outputs"), py::arg("weight2") = py::none(),
        py::arg("bias2") = py::none(), nograd);
}

}  // namespace tc
