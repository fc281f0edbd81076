// complex.cpp — what only complex tensors have: real/imaginary views, modulus and argument,
// building from parts, and the FFTs (the vendored pocketfft, third_party/pocketfft).
#include "kernels.h"
#include "ops.h"

#define POCKETFFT_NO_MULTITHREADING  // its thread pool would not survive fork
#include "pocketfft_hdronly.h"

namespace tc {

Tensor view_as_real(const Tensor& t) {
  TC_CHECK(is_complex(t.dtype()), Runtime,
           "view_as_real is only supported for complex tensors, got ", dtype_name(t.dtype()));
  Shape sizes = t.sizes(), strides;
  for (int64_t s : t.strides()) strides.push_back(s * 2);
  sizes.push_back(2);
  strides.push_back(1);
  return make_view(t, sizes, strides, t.offset() * 2, "view_as_real", real_dtype(t.dtype()));
}

Tensor view_as_complex(const Tensor& t) {
  ScalarType dt = t.dtype();
  TC_CHECK(dt == ScalarType::Float || dt == ScalarType::Double, Runtime,
           "view_as_complex is only supported for float32 and float64 tensors, but got a tensor "
           "of dtype ",
           dtype_name(dt));
  TC_CHECK(t.dim() > 0 && t.size(t.dim() - 1) == 2, Runtime,
           "view_as_complex: tensor must have a last dimension of size 2, got shape ",
           shape_str(t.sizes()));
  TC_CHECK(t.stride(t.dim() - 1) == 1, Runtime,
           "view_as_complex: tensor must have a last dimension with stride 1");
  Shape sizes(t.sizes().begin(), t.sizes().end() - 1), strides;
  for (int64_t d = 0; d + 1 < t.dim(); d++) {
    TC_CHECK(t.stride(d) % 2 == 0, Runtime,
             "view_as_complex: tensor must have a stride divisible by 2 for all but the last "
             "dimension, got strides ",
             shape_str(t.strides()));
    strides.push_back(t.stride(d) / 2);
  }
  TC_CHECK(t.offset() % 2 == 0, Runtime,
           "view_as_complex: tensor must have a storage offset divisible by 2");
  return make_view(t, sizes, strides, t.offset() / 2, "view_as_complex", complex_dtype(dt));
}

// ---------------------------------------------------------------- modulus and argument
namespace {
// out[i] = f(z[i]); z contiguous and complex, out the matching real dtype
template <class C, class F>
void complex_to_real_cpu(const Tensor& z, const Tensor& out, F f) {
  using R = typename C::value_type;
  const C* in = z.data_as<C>();
  R* o = out.data_as<R>();
  int64_t n = z.numel();
  int nt = n >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < n; i++) o[i] = R(f(in[i]));
}
template <class C>
void abs_cpu(const Tensor& z, const Tensor& out) {
  complex_to_real_cpu<C>(z, out, [](C v) { return std::abs(v); });
}
template <class C>
void angle_cpu(const Tensor& z, const Tensor& out) {
  complex_to_real_cpu<C>(z, out, [](C v) { return std::arg(v); });
}
}  // namespace

static Tensor complex_to_real(Op op, const Tensor& t, const char* name) {
  TC_CHECK(is_complex(t.dtype()), Runtime, name, ": expected a complex tensor, got ",
           dtype_name(t.dtype()));
  Tensor z = contiguous(t), out = empty(t.sizes(), real_dtype(t.dtype()), t.device());
  if (z.numel() > 0) find_kernel<ComplexToRealFn>(op, t.device(), t.dtype())(z, out);
  return out;
}

Tensor complex_abs(const Tensor& t) { return complex_to_real(Op::complex_abs, t, "abs"); }
Tensor complex_angle(const Tensor& t) { return complex_to_real(Op::complex_angle, t, "angle"); }

Tensor complex_from_parts(const Tensor& real, const Tensor& imag) {
  ScalarType dt = real.dtype();
  TC_CHECK(dt == imag.dtype(), Runtime,
           "complex: expected real and imag to have the same dtype, but got ", dtype_name(dt),
           " and ", dtype_name(imag.dtype()));
  TC_CHECK(dt == ScalarType::Float || dt == ScalarType::Double || dt == ScalarType::Half, Runtime,
           "complex: expected both inputs to be float32 or float64 tensors, but got ",
           dtype_name(dt));
  check_same_device(real, imag, "complex");
  Shape shape = broadcast_shapes(real.sizes(), imag.sizes(), "complex");
  Tensor out = empty(shape, complex_dtype(dt), real.device()), parts = view_as_real(out);
  copy_(select(parts, -1, 0), real);
  copy_(select(parts, -1, 1), imag);
  return out;
}

// ---------------------------------------------------------------- FFT
static pocketfft::shape_t shape_of(const Shape& s) {
  return pocketfft::shape_t(s.begin(), s.end());
}
static pocketfft::stride_t byte_strides(const Tensor& t) {
  pocketfft::stride_t st;
  for (int64_t s : t.strides()) st.push_back(ptrdiff_t(s) * ptrdiff_t(t.itemsize()));
  return st;
}
// pocketfft reports bad input with std exceptions: turn them into ours.
template <class F>
static void run_fft(const char* op, F f) {
  try {
    f();
  } catch (const std::bad_alloc&) {
    fail(ErrorKind::Runtime, op, ": out of memory");
  } catch (const std::exception& e) {
    fail(ErrorKind::Runtime, op, ": ", e.what());
  }
}

namespace {
template <class C>
void c2c_cpu(const FftArgs& a) {
  using R = typename C::value_type;
  run_fft("fft_c2c", [&] {
    pocketfft::c2c<R>(shape_of(a.in.sizes()), byte_strides(a.in), byte_strides(a.out), a.axes,
                      a.forward, a.in.data_as<C>(), a.out.data_as<C>(), R(a.scale));
  });
}
template <class R>
void r2c_cpu(const FftArgs& a) {
  run_fft("fft_r2c", [&] {
    pocketfft::r2c<R>(shape_of(a.in.sizes()), byte_strides(a.in), byte_strides(a.out), a.axes,
                      a.forward, a.in.data_as<R>(), a.out.data_as<std::complex<R>>(), R(a.scale));
  });
}
template <class C>
void c2r_cpu(const FftArgs& a) {
  using R = typename C::value_type;
  // pocketfft's multi-axis c2r reads its input in place: give it a private contiguous copy
  Tensor in = clone(a.in);
  run_fft("fft_c2r", [&] {
    pocketfft::c2r<R>(shape_of(a.out.sizes()), byte_strides(in), byte_strides(a.out), a.axes,
                      a.forward, in.data_as<C>(), a.out.data_as<R>(), R(a.scale));
  });
}
}  // namespace

static std::vector<size_t> fft_dims(const Tensor& x, const Shape& dims, const char* op) {
  std::vector<size_t> axes;
  for (int64_t d : dims) axes.push_back(size_t(wrap_dim(d, x.dim(), op)));
  for (size_t i = 0; i < axes.size(); i++)
    for (size_t j = i + 1; j < axes.size(); j++)
      TC_CHECK(axes[i] != axes[j], Runtime, op, ": dims must be unique, got ", shape_str(dims));
  return axes;
}

Tensor fft_c2c(const Tensor& x, const Shape& dims, bool forward, double scale) {
  TC_CHECK(is_complex(x.dtype()), Runtime, "fft_c2c: expected a complex tensor, got ",
           dtype_name(x.dtype()));
  auto axes = fft_dims(x, dims, "fft_c2c");
  Tensor out = empty(x.sizes(), x.dtype(), x.device());
  if (out.numel() == 0 || axes.empty()) {
    copy_(out, x);
    return out;
  }
  find_kernel<FftFn>(Op::fft_c2c, x.device(), x.dtype())({x, out, axes, forward, scale});
  return out;
}

Tensor fft_r2c(const Tensor& x, const Shape& dims, bool forward, double scale) {
  TC_CHECK(x.dtype() == ScalarType::Float || x.dtype() == ScalarType::Double, Runtime,
           "fft_r2c: expected a float32 or float64 tensor, got ", dtype_name(x.dtype()));
  auto axes = fft_dims(x, dims, "fft_r2c");
  TC_CHECK(!axes.empty(), Runtime, "fft_r2c: expected at least one dim");
  Shape out_shape = x.sizes();
  out_shape[axes.back()] = out_shape[axes.back()] / 2 + 1;
  Tensor out = empty(out_shape, complex_dtype(x.dtype()), x.device());
  if (x.numel() > 0)
    find_kernel<FftFn>(Op::fft_r2c, x.device(), x.dtype())({x, out, axes, forward, scale});
  return out;
}

Tensor fft_c2r(const Tensor& x, const Shape& dims, int64_t last_size, bool forward, double scale) {
  TC_CHECK(is_complex(x.dtype()), Runtime, "fft_c2r: expected a complex tensor, got ",
           dtype_name(x.dtype()));
  auto axes = fft_dims(x, dims, "fft_c2r");
  TC_CHECK(!axes.empty(), Runtime, "fft_c2r: expected at least one dim");
  int64_t last = int64_t(axes.back());
  TC_CHECK(last_size >= 1 && last_size / 2 + 1 == x.size(last), Runtime,
           "fft_c2r: an output of size ", last_size, " along dim ", last, " needs ",
           last_size / 2 + 1, " input elements there, got ", x.size(last));
  Shape out_shape = x.sizes();
  out_shape[last] = last_size;
  Tensor out = empty(out_shape, real_dtype(x.dtype()), x.device());
  if (out.numel() > 0)
    find_kernel<FftFn>(Op::fft_c2r, x.device(), x.dtype())({x, out, axes, forward, scale});
  return out;
}

void register_complex_kernels() {
  reg_each<c64, c128>(Op::complex_abs, TC_KERNEL(abs_cpu));
  reg_each<c64, c128>(Op::complex_angle, TC_KERNEL(angle_cpu));
  reg_each<c64, c128>(Op::fft_c2c, TC_KERNEL(c2c_cpu));
  reg_each<float, double>(Op::fft_r2c, TC_KERNEL(r2c_cpu));
  reg_each<c64, c128>(Op::fft_c2r, TC_KERNEL(c2r_cpu));
}

}  // namespace tc
