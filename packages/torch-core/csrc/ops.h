// ops.h — the device-neutral front ends of the core's ops: argument checks, promotion and
// output allocation, then a kernel from the dispatch table. The Python binding calls these.
#pragma once
#include <random>
#include <utility>

#include "kernels.h"

namespace tc {

// Dims to reduce over: all of them, or a list (negative dims allowed).
struct DimList {
  bool all = true;
  Shape dims;
};

// ---------------------------------------------------------------- elementwise (ops.cpp)
ElementwiseSpec spec_of(Op op);
// Whether the op's results can carry a gradient: not bool or integer-only results.
bool has_gradient(Op op);
Tensor unary(Op op, const Tensor& x, const Tensor& out = Tensor());
Tensor binary(Op op, const Tensor& a, const Tensor& b, const Tensor& out = Tensor(),
              Scalar alpha = Scalar::from_int(1));
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out = Tensor());
Tensor ternary(Op op, const Tensor& x, const Tensor& a, const Tensor& b, Scalar value,
               const Tensor& out = Tensor());
void fill_(const Tensor& t, const Scalar& v);

// ---------------------------------------------------------------- reductions (reduce.cpp)
Tensor reduce(Op op, const Tensor& x, const DimList& dims, bool keepdim,
              ScalarType out_dtype = ScalarType::Undefined);
// (values, indices) of the max (Op::argmax) or min (Op::argmin)
std::pair<Tensor, Tensor> arg_reduce(Op op, const Tensor& x, const DimList& dims, bool keepdim);

// ---------------------------------------------------------------- matrix products (blas.cpp)
Tensor matmul(const Tensor& a, const Tensor& b, const Tensor& out = Tensor());
Tensor mm(const Tensor& a, const Tensor& b, const Tensor& out = Tensor());
Tensor bmm(const Tensor& a, const Tensor& b, const Tensor& out = Tensor());
Tensor mv(const Tensor& a, const Tensor& v, const Tensor& out = Tensor());
Tensor dot(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& input, const Tensor& a, const Tensor& b, Scalar beta, Scalar alpha,
             const Tensor& out = Tensor());
Tensor addmv(const Tensor& input, const Tensor& a, const Tensor& v, Scalar beta, Scalar alpha,
             const Tensor& out = Tensor());
Tensor baddbmm(const Tensor& input, const Tensor& a, const Tensor& b, Scalar beta, Scalar alpha,
               const Tensor& out = Tensor());

// ---------------------------------------------------------------- random (random.cpp)
struct Generator {
  std::mt19937_64 engine;
  uint64_t initial_seed = 67280421310721ULL;
  Generator() { engine.seed(initial_seed); }
  void manual_seed(uint64_t s) {
    initial_seed = s;
    engine.seed(s);
  }
  uint64_t next() { return engine(); }
  double uniform() { return double(engine() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
};
Generator& default_generator();
void uniform_(const Tensor& t, double from, double to, Generator* g);
void normal_(const Tensor& t, double mean, double std, Generator* g);
void random_(const Tensor& t, int64_t low, int64_t high, Generator* g);  // [low, high)
void bernoulli_(const Tensor& t, const Tensor& p, Generator* g);         // p broadcast to t
Tensor randperm(int64_t n, ScalarType dtype, Generator* g);
Tensor multinomial(const Tensor& probs, int64_t n, bool replacement, Generator* g);
// Kernel types of the samplers: fill t in row-major element order from g. uniform reads
// (a, b) = (from, to), normal (mean, std), random_int [low, low + range), bernoulli p (t's
// shape, float64, contiguous, on t's device).
struct RandomArgs {
  double a = 0, b = 0;
  int64_t low = 0;
  uint64_t range = 0;
  Tensor p;
};
using RandomFn = void (*)(const Tensor& t, Generator& g, const RandomArgs& args);
// out[r, s] = the s-th draw from the row r of p (float64, contiguous, checked by the kernel)
using MultinomialFn = void (*)(const Tensor& p, int64_t n, bool replacement, Generator& g,
                               const Tensor& out);

// ---------------------------------------------------------------- factories (factory.cpp)
Tensor arange(double start, double end, double step, ScalarType dtype);
Tensor linspace(double start, double end, int64_t steps, ScalarType dtype);
Tensor eye(int64_t n, int64_t m, ScalarType dtype);

// complex tensors (complex.cpp)
Tensor view_as_real(const Tensor& t);     // complex (...) -> real (..., 2), same storage
Tensor view_as_complex(const Tensor& t);  // real (..., 2) -> complex (...), same storage
Tensor complex_abs(const Tensor& t);      // |z|, real dtype
Tensor complex_angle(const Tensor& t);    // arg z, real dtype
Tensor complex_from_parts(const Tensor& real, const Tensor& imag);
// FFTs over `dims` (pocketfft), scaled by `scale`; results are new contiguous tensors.
// Kernel types of complex.cpp: modulus/argument of a contiguous complex z into out; an FFT of
// `in` into `out` over `axes` (pocketfft on the CPU).
using ComplexToRealFn = void (*)(const Tensor& z, const Tensor& out);
struct FftArgs {
  Tensor in, out;
  std::vector<size_t> axes;
  bool forward;
  double scale;
};
using FftFn = void (*)(const FftArgs& args);
Tensor fft_c2c(const Tensor& x, const Shape& dims, bool forward, double scale);
Tensor fft_r2c(const Tensor& x, const Shape& dims, bool forward, double scale);  // onesided
Tensor fft_c2r(const Tensor& x, const Shape& dims, int64_t last_size, bool forward, double scale);

void register_cpu_kernels();  // all CPU kernels
void register_meta_device();  // meta.cpp: the meta device's allocator and kernels

// t itself when it is on the CPU; else a contiguous CPU copy made by its device's to_host
// kernel (ToHostFn): what item() and tolist() read.
Tensor on_host(const Tensor& t);
using ToHostFn = void (*)(const Tensor& src, const Tensor& dst);

// The gemm kernel type (blas.cpp): c = alpha * a @ b + beta * c, all 2-D views; c is
// row-major with unit column stride.
struct GemmArgs {
  const Tensor *a, *b, *c;
  Scalar alpha, beta;
};
using GemmFn = void (*)(const GemmArgs&);

}  // namespace tc
