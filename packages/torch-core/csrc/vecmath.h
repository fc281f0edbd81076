// vecmath.h — the C library's vector math functions (glibc's libmvec), found at run time.
//
// glibc ships SIMD versions of sin, atan, log2, ... (at most 4 ulp from the exact result)
// under the x86-64 vector ABI names (_ZGVeN16v_sinf: AVX-512, 16 floats). They are looked
// up once with dlsym, for the widest vector unit this CPU has; a machine without them (no
// libmvec, or no AVX2) gets an empty VecMath and the kernels keep their scalar loops.
//
//   static const VecMath v = find_vec_math<float>("atan");
//   if (v.fn) vec_apply(v, in, out, n);
#pragma once
#include <cstdint>

namespace tc {

struct VecMath {
  void* fn = nullptr;  // the libmvec function, taking and returning one vector register
  int bytes = 0;       // its register width: 64 (AVX-512) or 32 (AVX2)
};

// name: the scalar function's double name ("sin"); float picks "sinf".
template <class T>
VecMath find_vec_math(const char* name);

// out[i] = f(in[i]) for i < n; in and out may be the same array.
void vec_apply(const VecMath& v, const float* in, float* out, int64_t n);
void vec_apply(const VecMath& v, const double* in, double* out, int64_t n);

// The two-argument functions ("atan2", "pow"): f(a, b) on two vector registers.
template <class T>
VecMath find_vec_math2(const char* name);

// out[i] = f(a[i], b[i]) for i < n; out may be a or b.
void vec_apply2(const VecMath& v, const float* a, const float* b, float* out, int64_t n);
void vec_apply2(const VecMath& v, const double* a, const double* b, double* out, int64_t n);

}  // namespace tc
