// iter.h — the elementwise engine.
//
// An ElementwiseIter holds an output (operand 0) and up to three inputs, already
// broadcast to one shape, cast to one compute dtype, with byte strides per operand.
// Dims are reordered (fastest first) and merged where every operand allows, so a
// contiguous tensor of any rank is a single loop of numel elements; so is a transposed or
// channels-last one, whose new output takes the same layout.
//
// Kernels see only 1-D loops: loop(data[ntensors], strides[ntensors], n), called for
// each run of the innermost dim; for_each splits big work across OpenMP threads.
//
//   ElementwiseIter it = ElementwiseIter::build(spec, out, {a, b});
//   it.for_each([&](char** d, const int64_t* s, int64_t n) { ... });
//   return it.result();
#pragma once
#include <omp.h>

#include <algorithm>

#include "dispatch.h"

namespace tc {

constexpr int64_t kGrain = 32768;  // elements below which threads cost more than they give
// The same for memory-bound work (a copy, an add, a sum: ~0.1 ns per element). OpenMP's
// threads spin a while after each parallel region (GNU OpenMP's default policy), so between
// back-to-back kernels a fork costs ~1-2 us, not a wake-up (~10 us).
constexpr int64_t kCheapGrain = 2 * kGrain;

// How an op turns its inputs' dtypes into compute and result dtypes.
struct ElementwiseSpec {
  Op op;
  bool int_to_float = false;   // ints and bools compute in the default float dtype (exp, true div)
  bool bool_out = false;       // result is bool (comparisons, predicates)
  bool promote_inputs = true;  // inputs share one compute dtype (false: `where`'s condition)
  int64_t grain = kGrain;      // elements below which one thread does it all (kCheapGrain)
};

constexpr int kMaxOperands = 4;

int get_num_threads();
void set_num_threads(int n);

class ElementwiseIter {
 public:
  // out: an existing output (out= or in-place self) or an undefined Tensor to allocate one,
  // laid out in the inputs' memory order (Note [Output layout] in iter.cpp).
  static ElementwiseIter build(const ElementwiseSpec& spec, const Tensor& out,
                               std::initializer_list<Tensor> inputs);

  ScalarType compute_dtype() const { return compute_dtype_; }
  Device result_device() const { return out_.device(); }
  int64_t numel() const { return numel_; }
  // The geometry a kernel of any device walks: operand k (0 = the output) starts at data(k)
  // and steps strides(k)[d] bytes along dim d of shape(); dims are merged where they can be
  // and ordered fastest first. for_each is the CPU's walk over it.
  const Shape& shape() const { return shape_; }
  const SmallVec<int64_t>& strides(int k) const { return strides_[k]; }
  char* data(int k) const { return base_[k]; }
  // Operand k as a tensor: a kernel of another device finds a CPU number here (a 0-dim CPU
  // tensor may join tensors of any device) and passes its value instead of a pointer.
  const Tensor& operand(int k) const { return operands_[k]; }
  Tensor result();  // the output (copied into the user's out= when dtypes differ)
  Scalar args[2];   // extra scalar arguments (alpha, value, ...)
  int ntensors = 0;
  ScalarType input_dtype = ScalarType::Undefined;  // copy: the source dtype

  // The copy/cast iterator: dst and src (broadcast to dst), dtypes kept as they are;
  // with src undefined, dst alone (fill).
  static ElementwiseIter for_copy(const Tensor& dst, const Tensor& src);

  template <class Loop>
  void for_each(const Loop& loop) {
    if (numel_ == 0) return;
    int nt = numel_ >= grain_ ? get_num_threads() : 1;
    if (nt <= 1) {
      run(0, numel_, loop);
      return;
    }
#pragma omp parallel num_threads(nt)
    {
      int t = omp_get_thread_num(), n = omp_get_num_threads();
      int64_t chunk = (numel_ + n - 1) / n;
      int64_t b = std::min(numel_, t * chunk), e = std::min(numel_, b + chunk);
      if (b < e) run(b, e, loop);
    }
  }

 private:
  template <class Loop>
  void run(int64_t begin, int64_t end, const Loop& loop) const {
    // Walk [begin, end) of the linear index, one innermost run at a time.
    int nd = int(shape_.size());
    int64_t idx[16];
    char* ptr[kMaxOperands];
    int64_t rem = begin;
    for (int k = 0; k < ntensors; k++) ptr[k] = base_[k];
    for (int d = 0; d < nd; d++) {
      idx[d] = rem % shape_[d];
      rem /= shape_[d];
      for (int k = 0; k < ntensors; k++) ptr[k] += idx[d] * strides_[k][d];
    }
    int64_t inner_stride[kMaxOperands];
    for (int k = 0; k < ntensors; k++) inner_stride[k] = strides_[k][0];
    while (begin < end) {
      if (nd >= 2 && idx[0] == 0 && end - begin >= shape_[0]) {
        // Whole runs, one per step of dim 1: short runs (a transposed (B, H, T, 32) copy)
        // spent more on the carry below than on their elements.
        const int64_t rows = std::min(shape_[1] - idx[1], (end - begin) / shape_[0]);
        for (int64_t r = 0; r < rows; r++) {
          loop(ptr, inner_stride, shape_[0]);
          for (int k = 0; k < ntensors; k++) ptr[k] += strides_[k][1];
        }
        begin += rows * shape_[0];
        if ((idx[1] += rows) < shape_[1]) continue;
        for (int k = 0; k < ntensors; k++) ptr[k] -= shape_[1] * strides_[k][1];
        idx[1] = 0;
        for (int d = 2; d < nd; d++) {  // carry
          if (++idx[d] < shape_[d]) {
            for (int k = 0; k < ntensors; k++) ptr[k] += strides_[k][d];
            break;
          }
          for (int k = 0; k < ntensors; k++) ptr[k] -= (shape_[d] - 1) * strides_[k][d];
          idx[d] = 0;
        }
        continue;
      }
      int64_t n = std::min(shape_[0] - idx[0], end - begin);
      loop(ptr, inner_stride, n);
      begin += n;
      for (int k = 0; k < ntensors; k++) ptr[k] += (n - 1) * strides_[k][0];
      idx[0] += n - 1;
      for (int d = 0; d < nd; d++) {  // carry
        if (++idx[d] < shape_[d]) {
          for (int k = 0; k < ntensors; k++) ptr[k] += strides_[k][d];
          break;
        }
        for (int k = 0; k < ntensors; k++) ptr[k] -= (shape_[d] - 1) * strides_[k][d];
        idx[d] = 0;
      }
    }
  }

  void plan(const Shape& shape, const Tensor* ops);

  Tensor out_, user_out_, written_;  // written_: a user tensor the kernel writes directly
  Tensor operands_[kMaxOperands];    // keeps casted/cloned inputs alive while base_ points in
  ScalarType compute_dtype_ = ScalarType::Float;
  int64_t numel_ = 0;
  int64_t grain_ = kGrain;
  Shape shape_;                              // fastest dim first, merged
  SmallVec<int64_t> strides_[kMaxOperands];  // bytes, per operand, same order as shape_
  char* base_[kMaxOperands] = {};
};

// Type promotion over tensors (0-d tensors and wrapped numbers promote weakly).
ScalarType result_type(std::initializer_list<Tensor> ts);

using ElementwiseFn = void (*)(ElementwiseIter&);

// Runs an elementwise op end to end: build, find the kernel, run, return the output.
Tensor run_elementwise(const ElementwiseSpec& spec, const Tensor& out,
                       std::initializer_list<Tensor> inputs, Scalar a0 = Scalar(),
                       Scalar a1 = Scalar());

// ---------------------------------------------------------------- loop helpers for kernels
// Hot loops are compiled three times, for AVX-512 machines (x86-64-v4), AVX2+FMA ones
// (x86-64-v3) and any x86-64; the loader picks one at run time (GCC function multiversioning).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TC_MULTIVERSION \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TC_MULTIVERSION
#endif

// One scalar function f, written once; these walk it over contiguous, scalar-broadcast
// and strided runs. Values are loaded as AccOf<T> (float for 16-bit floats).
template <class T, class R = T, class F>
TC_MULTIVERSION void unary_loop(char** d, const int64_t* s, int64_t n, const F& f_in) {
  using A = typename AccOf<T>::type;
  // A local copy: the output stores cannot alias its parameters (a negative slope, ...), so
  // they stay in registers and the loop vectorises.
  const F f = f_in;
  if (s[0] == sizeof(R) && s[1] == sizeof(T)) {
    R* o = reinterpret_cast<R*>(d[0]);
    const T* a = reinterpret_cast<const T*>(d[1]);
    for (int64_t i = 0; i < n; i++) o[i] = R(f(A(a[i])));
  } else if (s[0] == sizeof(R) && s[1] == 0) {  // an expanded input: one value, a fill
    R* o = reinterpret_cast<R*>(d[0]);
    const R v = R(f(A(*reinterpret_cast<const T*>(d[1]))));
    for (int64_t i = 0; i < n; i++) o[i] = v;
  } else {
    for (int64_t i = 0; i < n; i++)
      *reinterpret_cast<R*>(d[0] + i * s[0]) =
          R(f(A(*reinterpret_cast<const T*>(d[1] + i * s[1]))));
  }
}

template <class T, class R = T, class F>
TC_MULTIVERSION void binary_loop(char** d, const int64_t* s, int64_t n, const F& f_in) {
  using A = typename AccOf<T>::type;
  const F f = f_in;  // (as in unary_loop)
  R* o = reinterpret_cast<R*>(d[0]);
  const T* a = reinterpret_cast<const T*>(d[1]);
  const T* b = reinterpret_cast<const T*>(d[2]);
  constexpr int64_t t = sizeof(T), r = sizeof(R);
  if (s[0] == r && s[1] == t && s[2] == t) {
    for (int64_t i = 0; i < n; i++) o[i] = R(f(A(a[i]), A(b[i])));
  } else if (s[0] == r && s[1] == t && s[2] == 0) {
    const A bv = A(b[0]);
    for (int64_t i = 0; i < n; i++) o[i] = R(f(A(a[i]), bv));
  } else if (s[0] == r && s[1] == 0 && s[2] == t) {
    const A av = A(a[0]);
    for (int64_t i = 0; i < n; i++) o[i] = R(f(av, A(b[i])));
  } else {
    for (int64_t i = 0; i < n; i++)
      *reinterpret_cast<R*>(d[0] + i * s[0]) =
          R(f(A(*reinterpret_cast<const T*>(d[1] + i * s[1])),
              A(*reinterpret_cast<const T*>(d[2] + i * s[2]))));
  }
}

template <class T, class F>
inline void ternary_loop(char** d, const int64_t* s, int64_t n, const F& f_in) {
  using A = typename AccOf<T>::type;
  const F f = f_in;  // (as in unary_loop)
  for (int64_t i = 0; i < n; i++)
    *reinterpret_cast<T*>(d[0] + i * s[0]) = T(f(A(*reinterpret_cast<const T*>(d[1] + i * s[1])),
                                                 A(*reinterpret_cast<const T*>(d[2] + i * s[2])),
                                                 A(*reinterpret_cast<const T*>(d[3] + i * s[3]))));
}

// A reduction's geometry (reduce.cpp): the input's kept dims (one output element each) and
// reduced dims, both outermost first, in elements; the kernels read `in` and write `out`.
struct ReduceIter {
  const char* in = nullptr;
  char* out = nullptr;             // values, contiguous, n_out elements
  int64_t* out_idx = nullptr;      // arg reductions: index of the chosen element
  Shape kept_sizes, kept_strides;  // outermost first, elements
  Shape red_sizes, red_strides;    // outermost first, elements, merged
  int64_t n_out = 1, n_red = 1;
};
using ReduceFn = void (*)(ReduceIter&);

}  // namespace tc
