// k_binary.cpp — CPU kernels of binary ops and comparisons.
#include "kernels.h"
#include "vecmath.h"

namespace tc {

std::atomic<int> g_kernel_error{0};

template <class A>
struct AddF {  // x + alpha * y
  A alpha;
  explicit AddF(const Scalar* a) : alpha(a[0].to<A>()) {}
  A operator()(A x, A y) const { return A(x + alpha * y); }
};
template <class A>
struct SubF {
  A alpha;
  explicit SubF(const Scalar* a) : alpha(a[0].to<A>()) {}
  A operator()(A x, A y) const { return A(x - alpha * y); }
};

// Integer division that never traps: by zero flags an error, MIN / -1 wraps.
template <class A>
A int_div_trunc(A x, A y) {
  if (y == 0) {
    flag_kernel_error(KernelError::IntDivByZero);
    return 0;
  }
  if constexpr (std::is_signed_v<A>)
    if (y == -1) return A(0 - x);
  return A(x / y);
}
template <class A>
A int_mod_trunc(A x, A y) {
  if (y == 0) {
    flag_kernel_error(KernelError::IntDivByZero);
    return 0;
  }
  if constexpr (std::is_signed_v<A>)
    if (y == -1) return 0;
  return A(x % y);
}

template <class A>
A div_floor_impl(A x, A y) {
  if constexpr (std::is_floating_point_v<A>) {
    if (y == 0) return x / y;
    A m = std::fmod(x, y), q = (x - m) / y;
    if (m != 0 && ((y < 0) != (m < 0))) q -= 1;
    A fq = std::floor(q);
    if (q - fq > A(0.5)) fq += 1;
    return q == 0 ? std::copysign(A(0), x / y) : fq;
  } else {
    A q = int_div_trunc(x, y);
    if constexpr (std::is_signed_v<A>)
      if (y != 0 && x % y != 0 && ((x < 0) != (y < 0))) q -= 1;
    return q;
  }
}
template <class A>
A div_trunc_impl(A x, A y) {
  if constexpr (std::is_floating_point_v<A>)
    return std::trunc(x / y);
  else
    return int_div_trunc(x, y);
}
template <class A>
A remainder_impl(A x, A y) {  // sign of the divisor, like Python's %
  if constexpr (std::is_floating_point_v<A>) {
    A m = std::fmod(x, y);
    return (m != 0 && ((y < 0) != (m < 0))) ? m + y : m;
  } else {
    A m = int_mod_trunc(x, y);
    if constexpr (std::is_signed_v<A>)
      if (m != 0 && ((y < 0) != (m < 0))) m += y;
    return m;
  }
}
template <class A>
A fmod_impl(A x, A y) {
  if constexpr (std::is_floating_point_v<A>)
    return std::fmod(x, y);
  else
    return int_mod_trunc(x, y);
}
template <class A>
A pow_impl(A x, A y) {
  if constexpr (std::is_floating_point_v<A> || IsComplex<A>::value) {
    return std::pow(x, y);
  } else if constexpr (std::is_same_v<A, bool>) {
    return x || !y;
  } else {
    if constexpr (std::is_signed_v<A>) {
      if (y < 0) {
        if (x == 1) return 1;
        if (x == -1) return (y & 1) ? -1 : 1;
        flag_kernel_error(KernelError::NegativeIntPower);
        return 0;
      }
    }
    A r = 1, b = x;
    for (auto e = y; e; e >>= 1) {  // squaring; overflow wraps like C
      if (e & 1) r = A(uint64_t(r) * uint64_t(b));
      b = A(uint64_t(b) * uint64_t(b));
    }
    return r;
  }
}
template <class A>
A max_impl(A x, A y) {
  if constexpr (std::is_floating_point_v<A>)
    if (x != x || y != y) return x != x ? x : y;
  return x > y ? x : y;
}
template <class A>
A min_impl(A x, A y) {
  if constexpr (std::is_floating_point_v<A>)
    if (x != x || y != y) return x != x ? x : y;
  return x < y ? x : y;
}

TC_FN2(MulF, x* y)
TC_FN2(DivF, x / y)
TC_FN2(DivFloorF, div_floor_impl(x, y))
TC_FN2(DivTruncF, div_trunc_impl(x, y))
TC_FN2(PowF, pow_impl(x, y))
TC_FN2(Atan2F, std::atan2(x, y))

// float and double through glibc's vector form of F's function ("atan2", "pow": at most
// 4 ulp, see vecmath.h) where this machine has one, else F's scalar loop. Broadcast and
// strided runs go through buffers, 256 values at a time.
template <class T, template <class> class F, const char* name>
struct libmvec2_kernel {
  static void run(ElementwiseIter& it) {
    static const VecMath v = find_vec_math2<T>(name);
    if (!v.fn) return binary_kernel<T, F>::run(it);
    it.for_each([&](char** d, const int64_t* s, int64_t n) { block(v, d, s, n); });
  }
  static void block(const VecMath& v, char** d, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(T) && s[1] == sizeof(T) && s[2] == sizeof(T))
      return vec_apply2(v, reinterpret_cast<const T*>(d[1]), reinterpret_cast<const T*>(d[2]),
                        reinterpret_cast<T*>(d[0]), n);
    T a[256], b[256];
    for (int64_t k = 0; k < n; k += 256) {
      const int64_t m = std::min<int64_t>(256, n - k);
      for (int64_t i = 0; i < m; i++) {
        a[i] = *reinterpret_cast<const T*>(d[1] + (k + i) * s[1]);
        b[i] = *reinterpret_cast<const T*>(d[2] + (k + i) * s[2]);
      }
      vec_apply2(v, a, b, a, m);
      for (int64_t i = 0; i < m; i++) *reinterpret_cast<T*>(d[0] + (k + i) * s[0]) = a[i];
    }
  }
};
constexpr char kAtan2[] = "atan2", kPow[] = "pow";

// x ** c for float and double. A block whose exponent is one number (a Python number or a
// broadcast tensor) that PyTorch computes without pow takes a one-pass loop of products or
// reciprocals, with the numbers PyTorch gives; 0.5 and -0.5 are sqrt and rsqrt only for a
// Python-number exponent (it.args[1] is 1), as in PyTorch ((-inf) ** 0.5 is then sqrt's NaN,
// C pow's inf for a tensor exponent). The other exponents go through glibc's vector pow.
template <class T>
struct pow_float_kernel {
  template <int E2>  // the exponent times two
  struct Special {
    TC_INLINE T operator()(T x) const {
      if constexpr (E2 == 2) return x;
      if constexpr (E2 == 4) return x * x;
      if constexpr (E2 == 6) return x * x * x;
      if constexpr (E2 == 1) return std::sqrt(x);
      if constexpr (E2 == -1) return T(1) / std::sqrt(x);
      if constexpr (E2 == -2) return T(1) / x;
      if constexpr (E2 == -4) return T(1) / (x * x);
      return T(1);  // x ** 0 is 1 for every x, NaN included (C's pow, PyTorch, NumPy)
    }
  };
  static void run(ElementwiseIter& it) {
    static const VecMath v = find_vec_math2<T>(kPow);
    const bool python_exponent = it.args[1].i != 0;
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      if (s[2] == 0) {
        const T c = *reinterpret_cast<const T*>(d[2]);
        if (c == T(1)) return unary_loop<T>(d, s, n, Special<2>());
        if (c == T(2)) return unary_loop<T>(d, s, n, Special<4>());
        if (c == T(3)) return unary_loop<T>(d, s, n, Special<6>());
        if (c == T(0.5) && python_exponent) return unary_loop<T>(d, s, n, Special<1>());
        if (c == T(-0.5) && python_exponent) return unary_loop<T>(d, s, n, Special<-1>());
        if (c == T(-1)) return unary_loop<T>(d, s, n, Special<-2>());
        if (c == T(-2)) return unary_loop<T>(d, s, n, Special<-4>());
        if (c == T(0)) return unary_loop<T>(d, s, n, Special<0>());
      }
      if (v.fn) return libmvec2_kernel<T, PowF, kPow>::block(v, d, s, n);
      binary_loop<T>(d, s, n, PowF<T>(nullptr));
    });
  }
};

TC_FN2(FmodF, fmod_impl(x, y))
TC_FN2(RemainderF, remainder_impl(x, y))

// fmod of two floats, exact, vectorisable: in float64, q = trunc(x / y) is the true quotient's
// integer part whenever |x| < 2^28 |y| (x / y rounds by at most 2^-25, and a quotient that is
// not an integer is at least 2^-24 below the next one: x and y are multiples of y's last bit),
// and x - q y is then exact too (q y fits in 28 + 24 bits; the difference is a float). The
// sign of a zero result is x's, as C's fmod gives it. y = 0, x = inf and NaNs give NaN;
// |x| < |y| (y = inf included) gives x itself. Larger quotients: see FmodNeedsLibmF.
TC_INLINE float fmod_exact(float x, float y) {
  const double xd = x, yd = y;
  const double r = xd - std::trunc(xd / yd) * yd;
  return std::fabs(x) < std::fabs(y) ? x : float(std::copysign(r, xd));
}
// The same for two doubles: below |x| < 2^51 |y|, x / y rounds by under 1/2, so trunc(x / y)
// is the true q or one past it (rounded up onto the next integer; never below, as rounding
// is monotonic). x - q y by an fma is exact for either (its true value is a double), and one
// past shows as a remainder of the other sign, which adding y back (exactly) corrects.
TC_INLINE double fmod_exact(double x, double y) {
  double r = std::fma(-std::trunc(x / y), y, x);
  r = (r != 0 && ((r < 0) != (x < 0))) ? r + ((x < 0) == (y < 0) ? y : -y) : r;
  return std::fabs(x) < std::fabs(y) ? x : std::copysign(r, x);
}
template <class A>
struct FmodFastF {
  explicit FmodFastF(const Scalar*) {}
  TC_INLINE A operator()(A x, A y) const { return fmod_exact(x, y); }
};
template <class A>
struct RemainderFastF {  // Python's modulo: fmod moved to the divisor's sign (in A, as libm's)
  explicit RemainderFastF(const Scalar*) {}
  TC_INLINE A operator()(A x, A y) const {
    const A m = fmod_exact(x, y);
    return (m != 0 && ((y < 0) != (m < 0))) ? A(m + y) : m;
  }
};
// Where fmod_exact's quotient may be wrong (|x| / |y| >= 2^28 for float, 2^51 for double; x
// finite, y nonzero); blocks with any such element take libm's fmod (1e30 % 3, ...). Both are
// exact, so they agree.
TC_PRED2(FmodNeedsLibmF,
         std::fabs(x) >= A(std::is_same_v<A, float> ? 0x1p28 : 0x1p51) * std::fabs(y) && y != 0 &&
             std::fabs(x) <= std::numeric_limits<A>::max())

// float, double and the 16-bit floats (computed in float): Fast over blocks of 1024 that
// FmodNeedsLibmF clears, else Exact (libm).
template <class T, template <class> class Fast, template <class> class Exact>
struct fmod_exact_kernel {
  static void run(ElementwiseIter& it) {
    using A = typename AccOf<T>::type;
    it.for_each([&](char** d, const int64_t* s, int64_t n) {
      constexpr int64_t B = 1024;
      bool slow[B];
      for (int64_t b = 0; b < n; b += B) {
        const int64_t m = std::min(B, n - b);
        char* bd[3] = {d[0] + b * s[0], d[1] + b * s[1], d[2] + b * s[2]};
        char* fd[3] = {reinterpret_cast<char*>(slow), bd[1], bd[2]};
        const int64_t fs[3] = {1, s[1], s[2]};
        binary_loop<T, bool>(fd, fs, m, FmodNeedsLibmF<A>(nullptr));
        if (std::memchr(slow, 1, size_t(m)))
          binary_loop<T>(bd, s, m, Exact<A>(nullptr));
        else
          binary_loop<T>(bd, s, m, Fast<A>(nullptr));
      }
    });
  }
};
TC_FN2(MaximumF, max_impl(x, y))
TC_FN2(ReluGradF, y > A(0) ? x : A(0))  // the gradient x of relu, at relu's output y
TC_FN2(MinimumF, min_impl(x, y))

// Activation gradients g * f'(x), x the activation's input (constants: 1/sqrt(2 pi),
// sqrt(2/pi)).
template <class A>
TC_INLINE A gelu_grad_impl(A g, A x) {
  A cdf = fast_gelu_cdf(x);
  A pdf = A(0.39894228040143267794) * fast_exp(A(-0.5) * x * x);
  return g * (cdf + x * pdf);
}
template <class A>
TC_INLINE A gelu_tanh_grad_impl(A g, A x) {
  const A k = A(0.79788456080286535588), c = A(0.044715);
  A x2 = x * x, t = fast_tanh(k * (x + c * x2 * x));
  return g * (A(0.5) * (A(1) + t) + A(0.5) * x * (A(1) - t * t) * k * (A(1) + A(3) * c * x2));
}
template <class A>
TC_INLINE A silu_grad_impl(A g, A x) {
  A s = A(1) / (A(1) + fast_exp(-x));
  return g * s * (A(1) + x * (A(1) - s));
}
// tanh's and sigmoid's gradients from their output y: g (1 - y^2) and g y (1 - y)
TC_FN2(TanhGradF, (A(1) - y * y) * x)
TC_FN2(SigmoidGradF, x * y * (A(1) - y))
TC_FN2(GeluGradF, gelu_grad_impl(x, y))
TC_FN2(GeluTanhGradF, gelu_tanh_grad_impl(x, y))
TC_FN2(SiluGradF, silu_grad_impl(x, y))

// Gradients of the activations with parameters: (g, x) -> g f'(x), args as the forward's.
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;
template <class A>
struct LeakyReluGradF {
  A slope;
  explicit LeakyReluGradF(const Scalar* a) : slope(a[0].to<A>()) {}
  TC_INLINE A operator()(A g, A x) const { return x > A(0) ? g : g * slope; }
};
template <class A>
struct EluGradF {
  A c, k;
  explicit EluGradF(const Scalar* a) : c(a[0].to<A>()), k(a[1].to<A>()) {}
  TC_INLINE A operator()(A g, A x) const { return x > A(0) ? g : g * c * k * fast_exp(k * x); }
};
TC_FN2(SeluGradF, y > A(0) ? x * A(kSeluScale) : x * A(kSeluScale * kSeluAlpha) * fast_exp(y))
template <class A>
struct SoftplusGradF {  // g sigmoid(beta x), or g where the forward is linear
  A beta, threshold;
  explicit SoftplusGradF(const Scalar* a) : beta(a[0].to<A>()), threshold(a[1].to<A>()) {}
  TC_INLINE A operator()(A g, A x) const {
    A bx = x * beta;
    return bx > threshold ? g : g / (A(1) + fast_exp(-bx));
  }
};
template <class A>
struct HardtanhGradF {  // g strictly inside (lo, hi), else 0
  A lo, hi;
  explicit HardtanhGradF(const Scalar* a) : lo(a[0].to<A>()), hi(a[1].to<A>()) {}
  TC_INLINE A operator()(A g, A x) const { return x <= lo || x >= hi ? A(0) : g; }
};
TC_FN2(BitAndF, x& y)
TC_FN2(BitOrF, x | y)
TC_FN2(BitXorF, x ^ y)

// Shifts by a negative amount or by the width or more: 0 to the left; to the right, what
// shifting all bits out leaves (the sign for signed types), as PyTorch defines them.
template <class A>
A lshift_impl(A x, A y) {
  using U = std::make_unsigned_t<A>;
  if (y < 0 || uint64_t(y) >= sizeof(A) * 8) return 0;
  return A(U(x) << y);
}
template <class A>
A rshift_impl(A x, A y) {
  constexpr int bits = sizeof(A) * 8;
  if (y < 0 || uint64_t(y) >= bits) y = bits - 1 + !std::is_signed_v<A>;
  if (std::is_unsigned_v<A> && y >= A(bits)) return 0;
  return A(x >> y);  // arithmetic for signed types (C++20, and every compiler we build with)
}
TC_FN2(LshiftF, lshift_impl(x, y))
TC_FN2(RshiftF, rshift_impl(x, y))

TC_PRED2(EqF, x == y)
TC_PRED2(NeF, x != y)
TC_PRED2(LtF, x < y)
TC_PRED2(LeF, x <= y)
TC_PRED2(GtF, x > y)
TC_PRED2(GeF, x >= y)
TC_PRED2(AndF, bool(x) && bool(y))
TC_PRED2(OrF, bool(x) || bool(y))
TC_PRED2(XorF, bool(x) != bool(y))

void register_binary_kernels() {
  reg<binary_kernel, AddF, TC_ALL>(Op::add);
  reg<binary_kernel, SubF, TC_NUMERIC>(Op::sub);
  reg<binary_kernel, MulF, TC_ALL>(Op::mul);
  reg<binary_kernel, DivF, TC_FLOATS>(Op::div);
  reg<binary_kernel, DivFloorF, TC_NUMERIC>(Op::div_floor);
  reg<binary_kernel, DivTruncF, TC_NUMERIC>(Op::div_trunc);
  reg<binary_kernel, PowF, bool, TC_INTS, Half, BFloat16>(Op::pow);
  reg_each<float, double>(Op::pow,
                          [](auto t) { return (void*)&pow_float_kernel<decltype(t)>::run; });
  reg<binary_kernel, Atan2F, Half, BFloat16>(Op::atan2);
  reg_each<float, double>(
      Op::atan2, [](auto t) { return (void*)&libmvec2_kernel<decltype(t), Atan2F, kAtan2>::run; });
  reg<binary_kernel, FmodF, TC_INTS>(Op::fmod);
  reg<binary_kernel, RemainderF, TC_INTS>(Op::remainder);
  reg_each<Half, BFloat16, float, double>(Op::fmod, [](auto t) {
    return (void*)&fmod_exact_kernel<decltype(t), FmodFastF, FmodF>::run;
  });
  reg_each<Half, BFloat16, float, double>(Op::remainder, [](auto t) {
    return (void*)&fmod_exact_kernel<decltype(t), RemainderFastF, RemainderF>::run;
  });
  reg<binary_kernel, MaximumF, TC_ALL>(Op::maximum);
  reg<binary_kernel, ReluGradF, TC_FLOATS>(Op::relu_grad);
  reg<binary_kernel, MinimumF, TC_ALL>(Op::minimum);
  reg<binary_kernel, TanhGradF, TC_FLOATS>(Op::tanh_grad);
  reg<binary_kernel, SigmoidGradF, TC_FLOATS>(Op::sigmoid_grad);
  reg<binary_kernel, GeluGradF, TC_FLOATS>(Op::gelu_grad);
  reg<binary_kernel, GeluTanhGradF, TC_FLOATS>(Op::gelu_tanh_grad);
  reg<binary_kernel, SiluGradF, TC_FLOATS>(Op::silu_grad);
  reg<binary_kernel, LeakyReluGradF, TC_FLOATS>(Op::leaky_relu_grad);
  reg<binary_kernel, EluGradF, TC_FLOATS>(Op::elu_grad);
  reg<binary_kernel, SeluGradF, TC_FLOATS>(Op::selu_grad);
  reg<binary_kernel, SoftplusGradF, TC_FLOATS>(Op::softplus_grad);
  reg<binary_kernel, HardtanhGradF, TC_FLOATS>(Op::hardtanh_grad);
  reg<binary_kernel, BitAndF, bool, TC_INTS>(Op::bitwise_and);
  reg<binary_kernel, BitOrF, bool, TC_INTS>(Op::bitwise_or);
  reg<binary_kernel, BitXorF, bool, TC_INTS>(Op::bitwise_xor);
  reg<binary_kernel, LshiftF, TC_INTS>(Op::lshift);
  reg<binary_kernel, RshiftF, TC_INTS>(Op::rshift);
  reg<compare_kernel, EqF, TC_ALL>(Op::eq);
  reg<compare_kernel, NeF, TC_ALL>(Op::ne);
  reg<compare_kernel, LtF, TC_ALL>(Op::lt);
  reg<compare_kernel, LeF, TC_ALL>(Op::le);
  reg<compare_kernel, GtF, TC_ALL>(Op::gt);
  reg<compare_kernel, GeF, TC_ALL>(Op::ge);
  reg<compare_kernel, AndF, TC_ALL>(Op::logical_and);
  reg<compare_kernel, OrF, TC_ALL>(Op::logical_or);
  reg<compare_kernel, XorF, TC_ALL>(Op::logical_xor);
  reg<binary_kernel, AddF, TC_COMPLEX>(Op::add);
  reg<binary_kernel, SubF, TC_COMPLEX>(Op::sub);
  reg<binary_kernel, MulF, TC_COMPLEX>(Op::mul);
  reg<binary_kernel, DivF, TC_COMPLEX>(Op::div);
  reg<binary_kernel, PowF, TC_COMPLEX>(Op::pow);
  reg<compare_kernel, EqF, TC_COMPLEX>(Op::eq);
  reg<compare_kernel, NeF, TC_COMPLEX>(Op::ne);
}

}  // namespace tc
