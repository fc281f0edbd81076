// reduce.cpp — the reduction engine and its CPU kernels.
//
// A reduction splits the input's dims into kept dims (one output element each) and
// reduced dims (folded into that element). The reduced dims keep their original order,
// so a running counter over them is the flat index that argmax reports; neighbours
// that form one run of memory are merged. Kernels then see three shapes of work:
// one contiguous run per output (vectorised, threads split it when there is one output),
// runs of contiguous outputs fed row by row (reducing over an outer dim), or strided.
#include "ops.h"

namespace tc {

// ---------------------------------------------------------------- reduction ops
// Each op: Acc init(), Acc step(Acc, A), Acc merge(Acc, Acc), Out finish(Acc).
template <class T>
struct SumR {
  using A = typename AccOf<T>::type;
  static constexpr bool kInexact = std::is_floating_point_v<A> || IsComplex<A>::value;
  using Acc = std::conditional_t<kInexact, A, int64_t>;  // integers sum in int64
  using Out = std::conditional_t<kInexact, T, int64_t>;
  static Acc init() { return 0; }
  static Acc step(Acc a, A x) { return a + Acc(x); }
  static Acc merge(Acc a, Acc b) { return a + b; }
  static Out finish(Acc a) { return Out(a); }
};
template <class T>
struct SumSqR : SumR<T> {  // sum of squares (floating types: the 2-norm's reduction)
  using typename SumR<T>::Acc;
  using typename SumR<T>::A;
  static Acc step(Acc a, A x) { return a + Acc(x) * Acc(x); }
};
template <class T>
struct ProdR : SumR<T> {
  using typename SumR<T>::Acc;
  using typename SumR<T>::A;
  static Acc init() { return 1; }
  static Acc step(Acc a, A x) { return a * Acc(x); }
  static Acc merge(Acc a, Acc b) { return a * b; }
};
template <class T>
struct MaxR {
  using A = typename AccOf<T>::type;
  using Acc = A;
  using Out = T;
  static Acc init() {
    if constexpr (std::is_floating_point_v<A>)
      return -std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::lowest();
  }
  static Acc step(Acc a, A x) { return (x > a || x != x) && a == a ? x : a; }  // NaN wins
  static Acc merge(Acc a, Acc b) { return step(a, b); }
  static Out finish(Acc a) { return Out(a); }
};
template <class T>
struct MinR : MaxR<T> {
  using typename MaxR<T>::Acc;
  using typename MaxR<T>::A;
  static Acc init() {
    if constexpr (std::is_floating_point_v<A>)
      return std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::max();
  }
  static Acc step(Acc a, A x) { return (x < a || x != x) && a == a ? x : a; }
  static Acc merge(Acc a, Acc b) { return step(a, b); }
};
template <class T>
struct AllR {
  using A = typename AccOf<T>::type;
  using Acc = bool;
  using Out = std::conditional_t<std::is_same_v<T, uint8_t>, uint8_t, bool>;
  static Acc init() { return true; }
  static Acc step(Acc a, A x) { return a && x != A(0); }
  static Acc merge(Acc a, Acc b) { return a && b; }
  static Out finish(Acc a) { return Out(a); }
};
template <class T>
struct AnyR : AllR<T> {
  using typename AllR<T>::A;
  static bool init() { return false; }
  static bool step(bool a, A x) { return a || x != A(0); }
  static bool merge(bool a, bool b) { return a || b; }
};

// One contiguous run. Floating sums add 32-byte vectors (one AVX register, two SSE ones)
// into four accumulators per block of 4096 and add the blocks in a wider accumulator, which
// keeps the error near pairwise summation.
// (Sq: the sum of the squares.)
template <class A, bool Sq = false>
[[gnu::always_inline]] inline A sum_block(const A* p, int64_t n) {
  constexpr int L = 32 / sizeof(A);
  typedef A V __attribute__((vector_size(32)));
  V acc[4] = {};
  int64_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L)
    for (int k = 0; k < 4; k++) {
      V v;
      std::memcpy(&v, p + i + k * L, sizeof v);
      acc[k] += Sq ? v * v : v;
    }
  V total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  A s = 0;
  for (; i < n; i++) s += Sq ? p[i] * p[i] : p[i];
  for (int l = 0; l < L; l++) s += total[l];
  return s;
}

// Max or min of a run in vector lanes; a NaN anywhere makes the result NaN (as in PyTorch),
// tracked in a separate mask so the lanes stay branch-free selects.
template <class A, bool kMax>
[[gnu::always_inline]] inline A minmax_run(const A* p, int64_t n, A init) {
  constexpr int L = 32 / sizeof(A);
  using I = std::conditional_t<sizeof(A) == 4, int32_t, int64_t>;
  typedef A V __attribute__((vector_size(32)));
  typedef I IV __attribute__((vector_size(32)));
#define TC_PICK(a, b) (kMax ? ((a) > (b) ? (a) : (b)) : ((a) < (b) ? (a) : (b)))
  // Four independent accumulators: one would wait on its own compare every step.
  V acc[4] = {V{} + init, V{} + init, V{} + init, V{} + init};
  IV nan[4] = {};
  int64_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L)
    for (int k = 0; k < 4; k++) {
      V x;
      std::memcpy(&x, p + i + k * L, sizeof x);
      nan[k] |= x != x;
      acc[k] = TC_PICK(x, acc[k]);
    }
  for (; i + L <= n; i += L) {
    V x;
    std::memcpy(&x, p + i, sizeof x);
    nan[0] |= x != x;
    acc[0] = TC_PICK(x, acc[0]);
  }
  acc[0] = TC_PICK(acc[0], acc[1]);
  acc[2] = TC_PICK(acc[2], acc[3]);
  acc[0] = TC_PICK(acc[0], acc[2]);
#undef TC_PICK
  nan[0] |= nan[1] | nan[2] | nan[3];
  A r = init;
  bool seen_nan = false;
  for (int l = 0; l < L; l++) {
    seen_nan |= nan[0][l] != 0;
    r = kMax ? (acc[0][l] > r ? acc[0][l] : r) : (acc[0][l] < r ? acc[0][l] : r);
  }
  for (; i < n; i++) {
    seen_nan |= p[i] != p[i];
    r = kMax ? (p[i] > r ? p[i] : r) : (p[i] < r ? p[i] : r);
  }
  return seen_nan ? std::numeric_limits<A>::quiet_NaN() : r;
}

// Product of a run in vector lanes (the order of the multiplications changes, as in PyTorch).
template <class A>
[[gnu::always_inline]] inline A prod_run(const A* p, int64_t n) {
  constexpr int L = 32 / sizeof(A);
  typedef A V __attribute__((vector_size(32)));
  V acc = V{} + A(1);
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    V x;
    std::memcpy(&x, p + i, sizeof x);
    acc *= x;
  }
  A r = 1;
  for (int l = 0; l < L; l++) r *= acc[l];
  for (; i < n; i++) r *= p[i];
  return r;
}

template <class T, class R>
TC_MULTIVERSION typename R::Acc reduce_run(const T* p, int64_t n) {
  using A = typename R::A;
  using Acc = typename R::Acc;
  constexpr bool kSq = std::is_same_v<R, SumSqR<T>>;
  if constexpr ((std::is_same_v<R, SumR<T>> || kSq) && std::is_same_v<T, A> &&
                std::is_floating_point_v<A>) {
    using Wide = std::conditional_t<std::is_same_v<A, float>, double, A>;
    Wide total = 0;
    for (int64_t b = 0; b < n; b += 4096)
      total += sum_block<A, kSq>(p + b, std::min<int64_t>(n - b, 4096));
    return Acc(total);
  } else if constexpr ((std::is_same_v<R, SumR<T>> || kSq) && std::is_floating_point_v<A>) {
    double total = 0;  // 16-bit floats: each block widened to float first
    A buf[4096];
    for (int64_t b = 0; b < n; b += 4096) {
      int64_t m = std::min<int64_t>(n - b, 4096);
      for (int64_t j = 0; j < m; j++) buf[j] = A(p[b + j]);
      total += sum_block<A, kSq>(buf, m);
    }
    return Acc(total);
  } else if constexpr (std::is_same_v<T, A> && std::is_floating_point_v<A> &&
                       (std::is_same_v<R, MaxR<T>> || std::is_same_v<R, MinR<T>>)) {
    return minmax_run<A, std::is_same_v<R, MaxR<T>>>(p, n, R::init());
  } else if constexpr (std::is_same_v<T, A> && std::is_floating_point_v<A> &&
                       std::is_same_v<R, ProdR<T>>) {
    return prod_run(p, n);
  } else {
    Acc a = R::init();
    for (int64_t i = 0; i < n; i++) a = R::step(a, A(p[i]));
    return a;
  }
}

// acc[j] = step(acc[j], row[j]) for a row of m outputs: the inner loop of reducing an
// outer dim, compiled for the vector width of the machine.
template <class T, class R>
TC_MULTIVERSION void step_row(typename R::Acc* __restrict acc, const T* __restrict row, int64_t m) {
  for (int64_t j = 0; j < m; j++) acc[j] = R::step(acc[j], typename R::A(row[j]));
}

// Reduce the (merged) reduced dims starting at p, walking them with a counter.
template <class T, class R>
typename R::Acc reduce_block(const T* p, const ReduceIter& it) {
  int nd = int(it.red_sizes.size());
  int64_t inner = it.red_sizes[nd - 1], inner_st = it.red_strides[nd - 1];
  int64_t outer = it.n_red / std::max<int64_t>(inner, 1);
  typename R::Acc acc = R::init();
  int64_t idx[32] = {};
  for (int64_t o = 0; o < outer; o++) {
    int64_t off = 0;
    for (int d = 0; d < nd - 1; d++) off += idx[d] * it.red_strides[d];
    if (inner_st == 1) {
      acc = R::merge(acc, reduce_run<T, R>(p + off, inner));
    } else {
      for (int64_t i = 0; i < inner; i++) acc = R::step(acc, typename R::A(p[off + i * inner_st]));
    }
    for (int d = nd - 2; d >= 0; d--) {
      if (++idx[d] < it.red_sizes[d]) break;
      idx[d] = 0;
    }
  }
  return acc;
}

static int64_t kept_offset(const ReduceIter& it, int64_t o) {
  int64_t off = 0;
  for (int64_t d = int64_t(it.kept_sizes.size()) - 1; d >= 0; d--) {
    off += (o % it.kept_sizes[d]) * it.kept_strides[d];
    o /= it.kept_sizes[d];
  }
  return off;
}

template <class T, template <class> class RT>
struct reduce_kernel {
  static void run(ReduceIter& it) {
    using R = RT<T>;
    using Out = typename R::Out;
    const T* in = reinterpret_cast<const T*>(it.in);
    Out* out = reinterpret_cast<Out*>(it.out);
    int nt = it.n_out * it.n_red >= kCheapGrain ? get_num_threads() : 1;
    bool contiguous_run = it.red_sizes.size() == 1 && it.red_strides[0] == 1;
    if (it.n_out == 1 && contiguous_run && nt > 1) {  // one long run: split it across threads
      typename R::Acc part[64];
      nt = std::min(nt, 64);
      int64_t chunk = (it.n_red + nt - 1) / nt;
#pragma omp parallel for num_threads(nt)
      for (int t = 0; t < nt; t++) {
        int64_t b = std::min(it.n_red, t * chunk), e = std::min(it.n_red, b + chunk);
        part[t] = b < e ? reduce_run<T, R>(in + b, e - b) : R::init();
      }
      typename R::Acc acc = R::init();
      for (int t = 0; t < nt; t++) acc = R::merge(acc, part[t]);
      out[0] = R::finish(acc);
      return;
    }
    // Reducing outer dims of contiguous outputs: feed whole rows so the inner loop vectorises.
    int64_t kd = int64_t(it.kept_sizes.size());
    if (!contiguous_run && kd > 0 && it.kept_strides[kd - 1] == 1 && it.kept_sizes[kd - 1] >= 16) {
      int64_t m = it.kept_sizes[kd - 1], rows = it.n_out / m;
      int64_t nd = int64_t(it.red_sizes.size());
#pragma omp parallel for num_threads(nt) schedule(static)
      for (int64_t r = 0; r < rows; r++) {
        const T* base = in + kept_offset(it, r * m);
        // (not a std::vector: vector<bool> has no data() for all/any)
        std::unique_ptr<typename R::Acc[]> acc(new typename R::Acc[m]);
        std::fill(acc.get(), acc.get() + m, R::init());
        int64_t idx[32] = {};
        for (int64_t k = 0; k < it.n_red; k++) {
          int64_t off = 0;
          for (int64_t d = 0; d < nd; d++) off += idx[d] * it.red_strides[d];
          step_row<T, R>(acc.get(), base + off, m);
          for (int64_t d = nd - 1; d >= 0; d--) {
            if (++idx[d] < it.red_sizes[d]) break;
            idx[d] = 0;
          }
        }
        for (int64_t j = 0; j < m; j++) out[r * m + j] = R::finish(acc[j]);
      }
      return;
    }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t o = 0; o < it.n_out; o++)
      out[o] = R::finish(reduce_block<T, R>(in + kept_offset(it, o), it));
  }
};

// Value and flat index of the max (or min); the first one wins ties, NaN wins all.
// The first index of the max (min) of a contiguous float run, NaN counting as the largest
// (as the loop below): the extreme in vector lanes, then a scan for its first occurrence.
template <class T, bool IsMax>
TC_MULTIVERSION std::pair<T, int64_t> arg_extreme_run(const T* p, int64_t n) {
  const T init = IsMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  const T best = minmax_run<T, IsMax>(p, n, init);
  int64_t i = 0;
  if (best != best)
    while (p[i] == p[i]) i++;
  else
    while (i + 1 < n && p[i] != best) i++;  // (n >= 1; an all -inf run for max: index 0)
  return {p[i], i};
}

// arg_reduce_kernel for contiguous runs of floats: runs across threads, or one long run cut
// into a chunk per thread whose results are merged in order (ties: the first index wins).
template <class T, bool IsMax>
void arg_reduce_runs(ReduceIter& it, int nt) {
  const T* in = reinterpret_cast<const T*>(it.in);
  T* out = reinterpret_cast<T*>(it.out);
  const int64_t n = it.n_red;
  if (it.n_out > 1 || nt <= 1) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t o = 0; o < it.n_out; o++) {
      auto [v, i] = arg_extreme_run<T, IsMax>(in + kept_offset(it, o), n);
      out[o] = v;
      it.out_idx[o] = i;
    }
    return;
  }
  std::vector<std::pair<T, int64_t>> part(size_t(nt), {T(0), -1});
#pragma omp parallel num_threads(nt)
  {
    const int64_t t = omp_get_thread_num(), k = omp_get_num_threads();
    const int64_t b = n * t / k, e = n * (t + 1) / k;
    if (b < e) {
      auto r = arg_extreme_run<T, IsMax>(in + b, e - b);
      part[size_t(t)] = {r.first, b + r.second};
    }
  }
  T best = 0;
  int64_t best_i = -1;
  for (auto [v, i] : part) {  // (i < 0: an empty chunk)
    if (i >= 0 && (best_i < 0 || (best == best && (v != v || (IsMax ? v > best : v < best)))))
      best = v, best_i = i;
  }
  out[0] = best;
  it.out_idx[0] = best_i;
}

template <class T, bool IsMax>
void arg_reduce_kernel(ReduceIter& it) {
  using A = typename AccOf<T>::type;
  const T* in = reinterpret_cast<const T*>(it.in);
  T* out = reinterpret_cast<T*>(it.out);
  int nd = int(it.red_sizes.size());
  int nt = it.n_out * it.n_red >= kCheapGrain ? get_num_threads() : 1;
  if constexpr (std::is_floating_point_v<T>)
    if (nd == 1 && it.red_strides[0] == 1) return arg_reduce_runs<T, IsMax>(it, nt);
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t o = 0; o < it.n_out; o++) {
    const T* p = in + kept_offset(it, o);
    int64_t idx[32] = {}, best_i = 0;
    A best = A(p[0]);
    for (int64_t k = 0; k < it.n_red; k++) {
      int64_t off = 0;
      for (int d = 0; d < nd; d++) off += idx[d] * it.red_strides[d];
      A x = A(p[off]);
      if (best == best && (x != x || (IsMax ? x > best : x < best))) {
        best = x;
        best_i = k;
      }
      for (int d = nd - 1; d >= 0; d--) {
        if (++idx[d] < it.red_sizes[d]) break;
        idx[d] = 0;
      }
    }
    out[o] = T(best);
    it.out_idx[o] = best_i;
  }
}
template <class T, template <class> class>
struct argmax_kernel {
  static void run(ReduceIter& it) { arg_reduce_kernel<T, true>(it); }
};
template <class T, template <class> class>
struct argmin_kernel {
  static void run(ReduceIter& it) { arg_reduce_kernel<T, false>(it); }
};
template <class>
struct NoR {};

void register_reduce_kernels() {
  reg<reduce_kernel, SumR, TC_ALL, TC_COMPLEX>(Op::sum);
  reg<reduce_kernel, ProdR, TC_ALL, TC_COMPLEX>(Op::prod);
  reg<reduce_kernel, MaxR, TC_ALL>(Op::amax);
  reg<reduce_kernel, MinR, TC_ALL>(Op::amin);
  reg<reduce_kernel, AllR, TC_ALL>(Op::all);
  reg<reduce_kernel, AnyR, TC_ALL>(Op::any);
  reg<reduce_kernel, SumSqR, TC_FLOATS>(Op::sum_sq);
  reg<argmax_kernel, NoR, TC_ALL>(Op::argmax);
  reg<argmin_kernel, NoR, TC_ALL>(Op::argmin);
}

// ---------------------------------------------------------------- front end
std::vector<bool> reduced_mask(const Tensor& x, const DimList& dims, const char* op) {
  std::vector<bool> mask(x.dim(), dims.all);
  if (!dims.all)
    for (auto d : dims.dims) {
      int64_t w = wrap_dim(d, x.dim(), op, &x.sizes());
      if (x.dim() == 0) continue;
      TC_CHECK(!mask[w], Runtime, op, ": dim ", w, " appears multiple times in the list of dims");
      mask[w] = true;
    }
  return mask;
}

static Shape out_shape(const Tensor& x, const std::vector<bool>& mask, bool keepdim) {
  Shape s;
  for (int64_t d = 0; d < x.dim(); d++) {
    if (!mask[d])
      s.push_back(x.size(d));
    else if (keepdim)
      s.push_back(1);
  }
  return s;
}

static ReduceIter make_iter(const Tensor& x, const std::vector<bool>& mask) {
  ReduceIter it;
  it.in = x.data();
  for (int64_t d = 0; d < x.dim(); d++) {
    Shape& sz = mask[d] ? it.red_sizes : it.kept_sizes;
    Shape& st = mask[d] ? it.red_strides : it.kept_strides;
    if (x.size(d) == 1) continue;
    if (mask[d] && !sz.empty() && st.back() == x.stride(d) * x.size(d)) {
      sz.back() *= x.size(d);  // one run with the previous reduced dim
      st.back() = x.stride(d);
      continue;
    }
    sz.push_back(x.size(d));
    st.push_back(x.stride(d));
    (mask[d] ? it.n_red : it.n_out) *= x.size(d);
  }
  it.n_red = 1;
  for (auto s : it.red_sizes) it.n_red *= s;
  if (it.red_sizes.empty()) {
    it.red_sizes.push_back(1);
    it.red_strides.push_back(1);
  }
  TC_CHECK(it.red_sizes.size() <= 32, NotImplemented, "reductions over more than 32 dims");
  return it;
}

Tensor reduce(Op op, const Tensor& x_in, const DimList& dims, bool keepdim, ScalarType out_dtype) {
  const char* name = op_name(op);
  Tensor x = x_in;
  TC_CHECK(op != Op::sum_sq || is_floating(x.dtype()), Type, name,
           ": expected a floating-point input, got ", dtype_name(x.dtype()));  // (2-norms)
  auto mask = reduced_mask(x, dims, name);
  Shape keep_shape = out_shape(x, mask, true), final_shape = out_shape(x, mask, keepdim);
  if (out_dtype == ScalarType::Undefined) {
    if (op == Op::sum || op == Op::prod)
      out_dtype = is_integral(x.dtype(), true) ? ScalarType::Long : x.dtype();
    else if (op == Op::all || op == Op::any)
      out_dtype = x.dtype() == ScalarType::Byte ? ScalarType::Byte : ScalarType::Bool;
    else
      out_dtype = x.dtype();
  } else if (x.dtype() != out_dtype) {
    x = to_dtype(x, out_dtype);  // sum(dtype=...) computes in the requested dtype
  }
  int64_t n = x.numel();
  if (n == 0) {
    // Empty reductions: identities for sum/prod/all/any, an error for max/min.
    bool empty_red = false;
    for (int64_t d = 0; d < x.dim(); d++) empty_red |= mask[d] && x.size(d) == 0;
    if (empty_red) {
      TC_CHECK(
          op == Op::sum || op == Op::sum_sq || op == Op::prod || op == Op::all || op == Op::any,
          Index, name, ": cannot reduce over a zero-size dimension of a tensor of shape ",
          shape_str(x.sizes()), " (the operation has no identity)");
      Tensor r = empty(final_shape, out_dtype, x.device());
      fill_(r, Scalar::from_int(op == Op::sum || op == Op::sum_sq || op == Op::any ? 0 : 1));
      return r;
    }
  }
  // Integer sum/prod kernels write int64 (R::Out); a narrower requested dtype is a cast of
  // that result (the same values modulo 2^bits as summing in the narrow type).
  bool wide = (op == Op::sum || op == Op::prod) && is_integral(x.dtype(), true);
  Tensor out = empty(keep_shape, wide ? ScalarType::Long : out_dtype, x.device());
  ReduceIter it = make_iter(x, mask);
  it.out = out.data();
  if (n > 0) find_kernel<ReduceFn>(op, x.device(), x.dtype())(it);
  if (out.dtype() != out_dtype) out = to_dtype(out, out_dtype);
  return keepdim ? out : view(out, final_shape);
}

std::pair<Tensor, Tensor> arg_reduce(Op op, const Tensor& x, const DimList& dims, bool keepdim) {
  const char* name = op == Op::argmax ? "max" : "min";
  auto mask = reduced_mask(x, dims, name);
  Shape keep_shape = out_shape(x, mask, true), final_shape = out_shape(x, mask, keepdim);
  for (int64_t d = 0; d < x.dim(); d++)
    TC_CHECK(!(mask[d] && x.size(d) == 0), Index, name, ": expected reduction dim ", d,
             " to have non-zero size (input shape ", shape_str(x.sizes()), ")");
  TC_CHECK(x.numel() > 0 || !dims.all, Runtime, op_name(op),
           ": expected a non-empty tensor, got shape ", shape_str(x.sizes()));
  Tensor values = empty(keep_shape, x.dtype(), x.device());
  Tensor indices = empty(keep_shape, ScalarType::Long, x.device());
  if (x.numel() > 0) {
    ReduceIter it = make_iter(x, mask);
    it.out = values.data();
    it.out_idx = indices.data_as<int64_t>();
    find_kernel<ReduceFn>(op, x.device(), x.dtype())(it);
  }
  if (!keepdim) {
    values = view(values, final_shape);
    indices = view(indices, final_shape);
  }
  return {values, indices};
}

}  // namespace tc
