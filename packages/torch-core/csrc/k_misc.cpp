// k_misc.cpp — CPU kernels of ternary ops, copy (with casts) and fill.
#include "kernels.h"

namespace tc {

template <class A>
struct LerpF {  // start + weight * (end - start), exact at both ends
  explicit LerpF(const Scalar*) {}
  A operator()(A start, A end, A w) const {
    return std::abs(w) < A(0.5) ? start + w * (end - start) : end - (end - start) * (A(1) - w);
  }
};
template <class A>
struct AddcmulF {
  A value;
  explicit AddcmulF(const Scalar* a) : value(a[0].to<A>()) {}
  A operator()(A x, A t1, A t2) const { return A(x + value * t1 * t2); }
};
template <class A>
struct AddcdivF {
  A value;
  explicit AddcdivF(const Scalar* a) : value(a[0].to<A>()) {}
  A operator()(A x, A t1, A t2) const { return A(x + value * t1 / t2); }
};

// where(cond, a, b): operand 1 is the bool condition, 2 and 3 the values. Both values are loaded
// and then selected, without a branch: a random condition would mispredict every other element (a
// 64K `where` took ~270 us), and the contiguous case vectorises to blends.
template <class T, bool kScalarA, bool kScalarB>
[[gnu::always_inline]] inline void where_run(T* o, const uint8_t* c, const T* a, const T* b,
                                             int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    T x = a[kScalarA ? 0 : i], y = b[kScalarB ? 0 : i];
    o[i] = c[i] ? x : y;
  }
}

template <class T>
TC_MULTIVERSION void where_loop(char** d, const int64_t* s, int64_t n) {
  T* o = reinterpret_cast<T*>(d[0]);
  const uint8_t* c = reinterpret_cast<const uint8_t*>(d[1]);
  const T* a = reinterpret_cast<const T*>(d[2]);
  const T* b = reinterpret_cast<const T*>(d[3]);
  constexpr int64_t k = sizeof(T);
  if (s[0] == k && s[1] == 1 && (s[2] == k || s[2] == 0) && (s[3] == k || s[3] == 0)) {
    if (s[2] && s[3]) return where_run<T, false, false>(o, c, a, b, n);
    if (s[3]) return where_run<T, true, false>(o, c, a, b, n);  // masked_fill: a number
    if (s[2]) return where_run<T, false, true>(o, c, a, b, n);
    return where_run<T, true, true>(o, c, a, b, n);
  }
  for (int64_t i = 0; i < n; i++) {
    T pick[2] = {*reinterpret_cast<const T*>(d[3] + i * s[3]),
                 *reinterpret_cast<const T*>(d[2] + i * s[2])};
    *reinterpret_cast<T*>(d[0] + i * s[0]) = pick[d[1][i * s[1]] != 0];
  }
}

template <class T, template <class> class>
struct where_kernel {
  static void run(ElementwiseIter& it) { it.for_each(where_loop<T>); }
};
template <class>
struct NoF {};

// Casts go through the compute types: 16-bit floats via float; to bool means "non-zero".
// Complex to real keeps the real part (PyTorch warns about it in Python); to bool, non-zero.
template <class D, class S>
inline D cast_value(S s) {
  using AD = typename AccOf<D>::type;
  using AS = typename AccOf<S>::type;
  if constexpr (IsComplex<S>::value && IsComplex<D>::value)
    return D(typename D::value_type(s.real()), typename D::value_type(s.imag()));
  else if constexpr (IsComplex<S>::value && std::is_same_v<D, bool>)
    return s != S(0);
  else if constexpr (IsComplex<S>::value)
    return cast_value<D>(s.real());
  else if constexpr (IsComplex<D>::value)
    return D(typename D::value_type(AS(s)), 0);
  else if constexpr (std::is_same_v<D, bool>)
    return AS(s) != AS(0);
  else
    return D(static_cast<AD>(AS(s)));
}

template <class D, template <class> class>
struct copy_kernel {
  static void run(ElementwiseIter& it) {
    visit_dtype_complex(it.input_dtype, [&](auto sv) {
      using S = decltype(sv);
      it.for_each([](char** d, const int64_t* s, int64_t n) {
        if (s[0] == sizeof(D) && s[1] == sizeof(S)) {
          D* o = reinterpret_cast<D*>(d[0]);
          const S* a = reinterpret_cast<const S*>(d[1]);
          for (int64_t i = 0; i < n; i++) o[i] = cast_value<D, S>(a[i]);
        } else if (s[0] == sizeof(D) && s[1] == 0) {  // an expanded value: a fill
          D* o = reinterpret_cast<D*>(d[0]);
          const D v = cast_value<D, S>(*reinterpret_cast<const S*>(d[1]));
          for (int64_t i = 0; i < n; i++) o[i] = v;
        } else {
          for (int64_t i = 0; i < n; i++)
            *reinterpret_cast<D*>(d[0] + i * s[0]) =
                cast_value<D, S>(*reinterpret_cast<const S*>(d[1] + i * s[1]));
        }
      });
    });
  }
};

template <class T, template <class> class>
struct fill_kernel {
  static void run(ElementwiseIter& it) {
    const T v = it.args[0].to<T>();
    it.for_each([v](char** d, const int64_t* s, int64_t n) {
      if (s[0] == sizeof(T)) {
        T* o = reinterpret_cast<T*>(d[0]);
        for (int64_t i = 0; i < n; i++) o[i] = v;
      } else {
        for (int64_t i = 0; i < n; i++) *reinterpret_cast<T*>(d[0] + i * s[0]) = v;
      }
    });
  }
};

void register_misc_kernels() {
  reg<ternary_kernel, LerpF, TC_FLOATS>(Op::lerp);
  reg<ternary_kernel, AddcmulF, TC_NUMERIC>(Op::addcmul);
  reg<ternary_kernel, AddcdivF, TC_FLOATS>(Op::addcdiv);
  reg<where_kernel, NoF, TC_ALL, TC_COMPLEX>(Op::where);
  reg<copy_kernel, NoF, TC_ALL, TC_COMPLEX>(Op::copy);
  reg<fill_kernel, NoF, TC_ALL, TC_COMPLEX>(Op::fill);
  reg<ternary_kernel, AddcmulF, TC_COMPLEX>(Op::addcmul);
  reg<ternary_kernel, AddcdivF, TC_COMPLEX>(Op::addcdiv);
}

}  // namespace tc
