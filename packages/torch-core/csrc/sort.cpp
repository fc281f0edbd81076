// sort.cpp — scans and order statistics (cumsum, sort, topk, median, mode, unique, ...).
//
// Every kernel works on rows: the elements along `dim` at one index of the other dims.
// The front end allocates contiguous outputs of the input's (or the reduced) shape; the
// kernel lists the rows' first elements for each operand in the same order and walks
// rows in parallel. A single long row (sort or topk of a 1-D tensor) is split into
// chunks instead: sorted per thread and merged, or selected per thread and combined.
// NaN sorts as the largest value (Note [NaN order] in sort_ops.h).
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "sort_ops.h"

namespace tc {

// ---------------------------------------------------------------- rows

// Offsets (elements, from data()) of each row's first element, in row-major order of the
// other dims: tensors of the same shape list their rows in the same order.
static std::vector<int64_t> row_offsets(const Tensor& t, int64_t dim) {
  int64_t nd = t.dim(), rows = 1;
  for (int64_t d = 0; d < nd; d++)
    if (d != dim) rows *= t.size(d);
  std::vector<int64_t> off(size_t(rows), 0);
  Shape idx(size_t(nd), 0);
  int64_t cur = 0;
  for (int64_t r = 0; r < rows; r++) {
    off[size_t(r)] = cur;
    for (int64_t d = nd - 1; d >= 0; d--) {
      if (d == dim) continue;
      if (++idx[d] < t.size(d)) {
        cur += t.stride(d);
        break;
      }
      cur -= (t.size(d) - 1) * t.stride(d);
      idx[d] = 0;
    }
  }
  return off;
}

template <class F>
static void parallel_rows(int64_t rows, int64_t row_len, const F& f) {
  int nt = rows > 1 && rows * std::max<int64_t>(row_len, 1) >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 16) if (nt > 1)
  for (int64_t r = 0; r < rows; r++) f(r);
}

template <class A>
inline bool is_nan(A v) {
  if constexpr (std::is_floating_point_v<A>)
    return v != v;
  else
    return false;
}

// A value and where it came from.
template <class A>
struct Item {
  A v;
  int64_t i;
};
template <class A>
struct Ascending {  // NaN last
  bool operator()(const Item<A>& x, const Item<A>& y) const {
    return x.v < y.v || (is_nan(y.v) && !is_nan(x.v));
  }
};
template <class A>
struct Descending {  // NaN first
  bool operator()(const Item<A>& x, const Item<A>& y) const {
    return x.v > y.v || (is_nan(x.v) && !is_nan(y.v));
  }
};

// Short rows reuse one buffer per thread; long ones get their own, freed after the row.
template <class A>
static std::vector<Item<A>>& row_buffer(int64_t n, std::vector<Item<A>>& own) {
  thread_local std::vector<Item<A>> cache;
  return n <= 4096 ? cache : own;
}

template <class T, class A = typename AccOf<T>::type>
static void load_row(const T* p, int64_t stride, int64_t n, std::vector<Item<A>>& buf) {
  buf.resize(size_t(n));
  for (int64_t i = 0; i < n; i++) buf[size_t(i)] = {A(p[i * stride]), i};
}

template <class T, class A>
static void store_row(const std::vector<Item<A>>& buf, T* v, int64_t* idx, int64_t stride) {
  for (size_t i = 0; i < buf.size(); i++) {
    v[int64_t(i) * stride] = T(buf[i].v);
    idx[int64_t(i) * stride] = buf[i].i;
  }
}

// ---------------------------------------------------------------- scans
template <class A>
struct SumS {
  static A init() { return A(0); }
  static A step(A a, A x) { return a + x; }
};
template <class A>
struct ProdS {
  static A init() { return A(1); }
  static A step(A a, A x) { return a * x; }
};
template <class A>
struct LogAddExpS {  // log(exp(a) + exp(x)) without overflow
  static A init() { return -std::numeric_limits<A>::infinity(); }
  static A step(A a, A x) {
    if (a == x) return a + A(std::log(2.0));  // also +-inf, where a - x is NaN
    A m = std::max(a, x);
    return is_nan(a) || is_nan(x) ? a + x : m + std::log1p(std::exp(-std::abs(a - x)));
  }
};

template <class T, template <class> class S>
struct ScanK {
  static void run(const RowArgs& a) {
    // float32 runs in float64, as PyTorch's: a 64K-value running sum in float32 was off by
    // up to 1e-3, PyTorch's (each value the float64 sum rounded once) by 8e-6
    using A = std::conditional_t<std::is_same_v<T, float>, double, typename AccOf<T>::type>;
    auto io = row_offsets(a.in, a.dim), oo = row_offsets(a.out, a.dim);
    int64_t n = a.in.size(a.dim), si = a.in.stride(a.dim), so = a.out.stride(a.dim);
    const T* in = a.in.data_as<T>();
    T* out = a.out.data_as<T>();
    parallel_rows(int64_t(io.size()), n, [&](int64_t r) {
      const T* p = in + io[size_t(r)];
      T* q = out + oo[size_t(r)];
      A acc = S<A>::init();
      for (int64_t i = 0; i < n; i++) {
        acc = S<A>::step(acc, A(p[i * si]));
        q[i * so] = T(acc);
      }
    });
  }
};

// cummax/cummin: a later equal value takes over the index; NaN, once met, stays.
template <class T, bool Max>
struct CumArgK {
  static void run(const RowArgs& a) {
    using A = typename AccOf<T>::type;
    auto io = row_offsets(a.in, a.dim), oo = row_offsets(a.out, a.dim);
    int64_t n = a.in.size(a.dim), si = a.in.stride(a.dim), so = a.out.stride(a.dim);
    parallel_rows(int64_t(io.size()), n, [&](int64_t r) {
      const T* p = a.in.data_as<T>() + io[size_t(r)];
      T* q = a.out.data_as<T>() + oo[size_t(r)];
      int64_t* qi = a.idx.data_as<int64_t>() + oo[size_t(r)];
      A best = A(p[0]);
      int64_t bi = 0;
      for (int64_t i = 0; i < n; i++) {
        A v = A(p[i * si]);
        if (is_nan(v) || (!is_nan(best) && (Max ? v >= best : v <= best))) best = v, bi = i;
        q[i * so] = T(best);
        qi[i * so] = bi;
      }
    });
  }
};
template <class T>
using CummaxK = CumArgK<T, true>;
template <class T>
using CumminK = CumArgK<T, false>;

// ---------------------------------------------------------------- sort
// Stable sort of a row; short rows by insertion, which allocates nothing.
template <class A, class Cmp>
static void small_stable_sort(std::vector<Item<A>>& v, Cmp cmp) {
  if (v.size() > 32) {
    std::stable_sort(v.begin(), v.end(), cmp);
    return;
  }
  for (size_t i = 1; i < v.size(); i++) {
    Item<A> x = v[i];
    size_t j = i;
    for (; j > 0 && cmp(x, v[j - 1]); j--) v[j] = v[j - 1];
    v[j] = x;
  }
}

// Stable sort of one long row: chunks sorted in parallel, then merged pairwise.
template <class A, class Cmp>
static void parallel_stable_sort(std::vector<Item<A>>& v, Cmp cmp) {
  int nt = get_num_threads();
  int64_t n = int64_t(v.size());
  if (nt <= 1 || n < (1 << 16)) {
    std::stable_sort(v.begin(), v.end(), cmp);
    return;
  }
  std::vector<int64_t> b(size_t(nt) + 1);
  for (int c = 0; c <= nt; c++) b[size_t(c)] = n * c / nt;
#pragma omp parallel for num_threads(nt)
  for (int c = 0; c < nt; c++) std::stable_sort(v.begin() + b[c], v.begin() + b[c + 1], cmp);
  std::vector<Item<A>> tmp(v.size());
  for (int w = 1; w < nt; w *= 2) {
#pragma omp parallel for num_threads(nt)
    for (int c = 0; c < nt; c += 2 * w) {
      auto lo = b[c], mid = b[std::min(c + w, nt)], hi = b[std::min(c + 2 * w, nt)];
      std::merge(v.begin() + lo, v.begin() + mid, v.begin() + mid, v.begin() + hi, tmp.begin() + lo,
                 cmp);
    }
    v.swap(tmp);
  }
}

// A long row of a type of at most 32 bits sorts by radix on a 32-bit key that orders like
// the values: stable (least significant digit first), four passes of 8 bits over items
// key << 32 | position, a pass skipped when one digit holds every item.
template <class A>
static uint32_t radix_key(A v, bool descending) {
  uint32_t k;
  if constexpr (std::is_floating_point_v<A>) {  // float, and 16-bit floats loaded as float
    float f = v == 0 ? 0.0f : float(v);         // -0 and +0 tie
    std::memcpy(&k, &f, 4);
    k = v != v ? 0xFFFFFFFFu : (k & 0x80000000u) ? ~k : k | 0x80000000u;  // NaN the largest
  } else if constexpr (std::is_signed_v<A>) {
    k = uint32_t(int32_t(v)) ^ 0x80000000u;
  } else {
    k = uint32_t(v);
  }
  return descending ? ~k : k;
}

// The value of a key; false where the key cannot tell (zero's sign, NaN's payload).
template <class A>
static bool radix_value(uint32_t k, bool descending, A& v) {
  if (descending) k = ~k;
  if constexpr (std::is_floating_point_v<A>) {
    if (k == 0x80000000u || k == 0xFFFFFFFFu) return false;
    k = (k & 0x80000000u) ? k & 0x7FFFFFFFu : ~k;
    float f;
    std::memcpy(&f, &k, 4);
    v = A(f);
  } else if constexpr (std::is_signed_v<A>) {
    v = A(int32_t(k ^ 0x80000000u));
  } else {
    v = A(k);
  }
  return true;
}

static void radix_sort_by_high_word(std::vector<uint64_t>& v) {
  int nt = get_num_threads();
  int64_t n = int64_t(v.size());
  std::vector<uint64_t> tmp(v.size());
  std::vector<std::array<int64_t, 256>> count(static_cast<size_t>(nt));
  auto lo = [&](int c) { return n * c / nt; };
  for (int shift = 32; shift < 64; shift += 8) {
#pragma omp parallel for num_threads(nt)
    for (int c = 0; c < nt; c++) {
      auto& h = count[size_t(c)];
      h.fill(0);
      for (int64_t i = lo(c); i < lo(c + 1); i++) h[(v[size_t(i)] >> shift) & 255]++;
    }
    int64_t off = 0;
    bool one_digit = false;
    for (int d = 0; d < 256; d++) {
      int64_t start = off;
      for (auto& h : count) {
        int64_t c = h[size_t(d)];
        h[size_t(d)] = off;
        off += c;
      }
      one_digit = one_digit || off - start == n;
    }
    if (one_digit) continue;
#pragma omp parallel for num_threads(nt)
    for (int c = 0; c < nt; c++) {
      auto& o = count[size_t(c)];
      for (int64_t i = lo(c); i < lo(c + 1); i++) {
        uint64_t x = v[size_t(i)];
        tmp[size_t(o[(x >> shift) & 255]++)] = x;
      }
    }
    v.swap(tmp);
  }
}

template <class T>
static void radix_sort_row(const T* in, int64_t si, int64_t n, bool descending, T* out,
                           int64_t* idx, int64_t so) {
  using A = typename AccOf<T>::type;
  std::vector<uint64_t> v(static_cast<size_t>(n));
  int nt = get_num_threads();
#pragma omp parallel for num_threads(nt)
  for (int64_t i = 0; i < n; i++)
    v[size_t(i)] = uint64_t(radix_key(A(in[i * si]), descending)) << 32 | uint64_t(i);
  radix_sort_by_high_word(v);
#pragma omp parallel for num_threads(nt)
  for (int64_t i = 0; i < n; i++) {
    int64_t j = int64_t(v[size_t(i)] & 0xFFFFFFFFu);
    A value;  // from the key, which saves a random read of the input
    out[i * so] =
        radix_value(uint32_t(v[size_t(i)] >> 32), descending, value) ? T(value) : in[j * si];
    idx[i * so] = j;
  }
}

template <class T>
struct SortK {
  static void run(const RowArgs& a) {
    using A = typename AccOf<T>::type;
    auto io = row_offsets(a.in, a.dim), oo = row_offsets(a.out, a.dim);
    int64_t n = a.in.size(a.dim), si = a.in.stride(a.dim), so = a.out.stride(a.dim);
    if constexpr (sizeof(T) <= 4) {
      if (io.size() == 1 && n >= (1 << 16) && n < (int64_t(1) << 32)) {
        radix_sort_row(a.in.data_as<T>() + io[0], si, n, a.flag, a.out.data_as<T>(),
                       a.idx.data_as<int64_t>(), so);
        return;
      }
    }
    auto sort_rows = [&](auto cmp) {
      if (io.size() == 1) {
        std::vector<Item<A>> buf;
        load_row(a.in.data_as<T>() + io[0], si, n, buf);
        parallel_stable_sort(buf, cmp);
        store_row(buf, a.out.data_as<T>(), a.idx.data_as<int64_t>(), so);
        return;
      }
      parallel_rows(int64_t(io.size()), n, [&](int64_t r) {
        std::vector<Item<A>> big, &buf = row_buffer(n, big);
        load_row(a.in.data_as<T>() + io[size_t(r)], si, n, buf);
        small_stable_sort(buf, cmp);
        store_row(buf, a.out.data_as<T>() + oo[size_t(r)], a.idx.data_as<int64_t>() + oo[size_t(r)],
                  so);
      });
    };
    if (a.flag)
      sort_rows(Descending<A>());
    else
      sort_rows(Ascending<A>());
  }
};

// ---------------------------------------------------------------- topk
// `Before` orders the result: largest (or smallest) first, NaN the largest, ties by index.
template <class A>
struct Before {
  bool largest;
  bool operator()(const Item<A>& x, const Item<A>& y) const {
    bool xn = is_nan(x.v), yn = is_nan(y.v);
    if (xn != yn) return largest ? xn : yn;
    if (!xn && x.v != y.v) return largest ? x.v > y.v : x.v < y.v;
    return x.i < y.i;
  }
};

// The k first (by `before`) of elements [lo, hi) of a row, in no order. A heap of the k
// best seen so far rejects most elements with one comparison; large k selects instead.
template <class T, class A>
static void select_k(const T* p, int64_t stride, int64_t lo, int64_t hi, int64_t k,
                     Before<A> before, std::vector<Item<A>>& out) {
  k = std::min(k, hi - lo);
  out.clear();
  if (k == 0) return;
  if (k * 8 >= hi - lo) {
    for (int64_t i = lo; i < hi; i++) out.push_back({A(p[i * stride]), i});
    std::nth_element(out.begin(), out.begin() + (k - 1), out.end(), before);
    out.resize(size_t(k));
    return;
  }
  out.reserve(size_t(k));
  int64_t i = lo;
  for (; i < lo + k; i++) out.push_back({A(p[i * stride]), i});
  std::make_heap(out.begin(), out.end(), before);  // front: the worst kept
  for (; i < hi; i++) {
    Item<A> it{A(p[i * stride]), i};
    if (before(it, out.front())) {
      std::pop_heap(out.begin(), out.end(), before);
      out.back() = it;
      std::push_heap(out.begin(), out.end(), before);
    }
  }
}

template <class T>
struct TopkK {
  static void run(const RowArgs& a) {
    using A = typename AccOf<T>::type;
    auto io = row_offsets(a.in, a.dim), oo = row_offsets(a.out, a.dim);
    int64_t n = a.in.size(a.dim), si = a.in.stride(a.dim), so = a.out.stride(a.dim), k = a.k;
    Before<A> before{a.flag};
    auto finish = [&](std::vector<Item<A>>& buf, int64_t r) {
      std::sort(buf.begin(), buf.end(), before);
      store_row(buf, a.out.data_as<T>() + oo[size_t(r)], a.idx.data_as<int64_t>() + oo[size_t(r)],
                so);
    };
    int nt = get_num_threads();
    if (io.size() == 1 && nt > 1 && n >= kGrain) {  // one long row: select per chunk, combine
      const T* p = a.in.data_as<T>() + io[0];
      std::vector<std::vector<Item<A>>> part(static_cast<size_t>(nt));
#pragma omp parallel for num_threads(nt)
      for (int c = 0; c < nt; c++)
        select_k(p, si, n * c / nt, n * (c + 1) / nt, k, before, part[size_t(c)]);
      std::vector<Item<A>> all;
      for (auto& v : part) all.insert(all.end(), v.begin(), v.end());
      std::nth_element(all.begin(), all.begin() + (k - 1), all.end(), before);
      all.resize(size_t(k));
      finish(all, 0);
      return;
    }
    parallel_rows(int64_t(io.size()), n, [&](int64_t r) {
      std::vector<Item<A>> big, &buf = row_buffer(n, big);
      select_k(a.in.data_as<T>() + io[size_t(r)], si, 0, n, k, before, buf);
      finish(buf, r);
    });
  }
};

// ---------------------------------------------------------------- kthvalue, median
template <class T>
struct KthK {
  static void run(const RowArgs& a) {
    using A = typename AccOf<T>::type;
    auto io = row_offsets(a.in, a.dim), oo = row_offsets(a.out, a.dim);
    int64_t n = a.in.size(a.dim), si = a.in.stride(a.dim);
    parallel_rows(int64_t(io.size()), n, [&](int64_t r) {
      std::vector<Item<A>> big, &buf = row_buffer(n, big);
      load_row(a.in.data_as<T>() + io[size_t(r)], si, n, buf);
      int64_t nans = 0, first_nan = -1;
      for (auto& it : buf)
        if (is_nan(it.v) && nans++ == 0) first_nan = it.i;
      int64_t k = a.mode == 0 ? a.k - 1 : a.mode == 1 ? (n - 1) / 2 : (n - nans - 1) / 2;
      Item<A> res;
      if ((a.mode == 1 && nans > 0) || (a.mode == 2 && nans == n)) {
        res = {std::numeric_limits<A>::quiet_NaN(), first_nan};  // floating types only
      } else {
        std::nth_element(buf.begin(), buf.begin() + k, buf.end(), Ascending<A>());
        res = buf[size_t(k)];
      }
      a.out.data_as<T>()[oo[size_t(r)]] = T(res.v);
      a.idx.data_as<int64_t>()[oo[size_t(r)]] = res.i;
    });
  }
};

// mode: the most frequent value (the smallest among equally frequent ones) and the last
// index where it occurs. NaNs never compare equal, so each counts once.
template <class T>
struct ModeK {
  static void run(const RowArgs& a) {
    using A = typename AccOf<T>::type;
    auto io = row_offsets(a.in, a.dim), oo = row_offsets(a.out, a.dim);
    int64_t n = a.in.size(a.dim), si = a.in.stride(a.dim);
    parallel_rows(int64_t(io.size()), n, [&](int64_t r) {
      std::vector<Item<A>> big, &buf = row_buffer(n, big);
      load_row(a.in.data_as<T>() + io[size_t(r)], si, n, buf);
      small_stable_sort(buf, Ascending<A>());
      size_t best = 0, best_count = 0;
      for (size_t b = 0; b < buf.size();) {
        size_t e = b + 1;
        while (e < buf.size() && buf[e].v == buf[b].v) e++;
        if (e - b > best_count) best = e - 1, best_count = e - b;
        b = e;
      }
      a.out.data_as<T>()[oo[size_t(r)]] = T(buf[best].v);
      a.idx.data_as<int64_t>()[oo[size_t(r)]] = buf[best].i;
    });
  }
};

// ---------------------------------------------------------------- unique
// Groups the rows of a contiguous [rows, m] tensor: equal rows (all m values equal) form a
// group; groups are ordered by value (lexicographically), or by position if consecutive.

template <class T>
struct UniqueK {
  static void run(const Tensor& t, bool consecutive, UniqueGroups& g) {
    using A = typename AccOf<T>::type;
    int64_t rows = t.size(0), m = t.size(1);
    const T* p = t.data_as<T>();
    auto less = [&](int64_t x, int64_t y) {
      Ascending<A> lt;
      for (int64_t j = 0; j < m; j++) {
        Item<A> a{A(p[x * m + j]), 0}, b{A(p[y * m + j]), 0};
        if (lt(a, b)) return true;
        if (lt(b, a)) return false;
      }
      return false;
    };
    auto equal = [&](int64_t x, int64_t y) {
      for (int64_t j = 0; j < m; j++)
        if (!(A(p[x * m + j]) == A(p[y * m + j]))) return false;
      return true;
    };
    std::vector<int64_t> order(static_cast<size_t>(rows));
    if (m == 1 && !consecutive) {  // single values: sort them directly, not through indices
      std::vector<Item<A>> buf;
      load_row(p, 1, rows, buf);
      parallel_stable_sort(buf, Ascending<A>());
      for (int64_t j = 0; j < rows; j++) order[size_t(j)] = buf[size_t(j)].i;
    } else {
      std::iota(order.begin(), order.end(), 0);
      if (!consecutive) std::stable_sort(order.begin(), order.end(), less);
    }
    g.inverse.resize(size_t(rows));
    for (int64_t j = 0; j < rows; j++) {
      int64_t row = order[size_t(j)];
      if (j == 0 || !equal(order[size_t(j - 1)], row)) {
        g.first.push_back(row);
        g.counts.push_back(0);
      }
      g.counts.back()++;
      g.inverse[size_t(row)] = int64_t(g.first.size()) - 1;
    }
  }
};

// ---------------------------------------------------------------- front ends
static Tensor at_least_1d(const Tensor& x) { return x.dim() == 0 ? reshape(x, {1}) : x; }

static Tensor move_dim(const Tensor& t, int64_t from, int64_t to) {
  Shape perm;
  for (int64_t d = 0; d < t.dim(); d++)
    if (d != from) perm.push_back(d);
  perm.insert(size_t(to), from);
  return permute(t, perm);
}

static void run_rows(Op op, const RowArgs& a) {
  if (a.in.numel() == 0 || a.out.numel() == 0) return;
  find_kernel<RowFn>(op, a.in.device(), a.in.dtype())(a);
}

Tensor scan(Op op, const Tensor& x, int64_t dim, ScalarType dtype) {
  const char* name = op_name(op);
  int64_t d = wrap_dim(dim, x.dim(), name, &x.sizes());
  ScalarType dt = dtype != ScalarType::Undefined                           ? dtype
                  : is_integral(x.dtype(), true) && op != Op::logcumsumexp ? ScalarType::Long
                                                                           : x.dtype();
  TC_CHECK(op != Op::logcumsumexp || is_floating(dt), NotImplemented,
           "logcumsumexp: expected a floating-point input, got ", dtype_name(dt));
  RowArgs a;
  a.in = at_least_1d(to_dtype(x, dt));
  a.out = empty(a.in.sizes(), dt, x.device());
  a.dim = x.dim() == 0 ? 0 : d;
  run_rows(op, a);
  return x.dim() == 0 ? reshape(a.out, {}) : a.out;
}

// Runs a kernel that writes values and indices of the input's shape with size(dim) = len.
static ValuesIndices run_values_indices(Op op, const Tensor& x, int64_t d, int64_t len, RowArgs a) {
  a.in = at_least_1d(x);
  Shape sizes = a.in.sizes();
  sizes[size_t(d)] = len;
  a.out = empty(sizes, x.dtype(), x.device());
  a.idx = empty(sizes, ScalarType::Long, x.device());
  a.dim = d;
  run_rows(op, a);
  if (x.dim() == 0) return {reshape(a.out, {}), reshape(a.idx, {})};
  return {a.out, a.idx};
}

static int64_t dim_size(const Tensor& x, int64_t d) { return x.dim() == 0 ? 1 : x.size(d); }

ValuesIndices cum_arg(Op op, const Tensor& x, int64_t dim) {
  int64_t d = wrap_dim(dim, x.dim(), op_name(op), &x.sizes());
  return run_values_indices(op, x, d, dim_size(x, d), RowArgs());
}

ValuesIndices sort(const Tensor& x, int64_t dim, bool descending) {
  int64_t d = wrap_dim(dim, x.dim(), "sort", &x.sizes());
  RowArgs a;
  a.flag = descending;
  return run_values_indices(Op::sort, x, d, dim_size(x, d), a);
}

ValuesIndices topk(const Tensor& x, int64_t k, int64_t dim, bool largest) {
  int64_t d = wrap_dim(dim, x.dim(), "topk", &x.sizes());
  int64_t n = dim_size(x, d);
  TC_CHECK(k >= 0 && k <= n, Runtime, "topk: k (", k, ") is out of range for dimension ", d,
           " of size ", n, " (input shape ", shape_str(x.sizes()), ")");
  RowArgs a;
  a.k = k;
  a.flag = largest;
  return run_values_indices(Op::topk, x, d, k, a);
}

// A reduction to one (value, index) per row: kthvalue, median, mode.
static ValuesIndices reduce_row(Op op, const Tensor& x, int64_t d, bool keepdim, RowArgs a) {
  auto r = run_values_indices(op, x, d, 1, a);
  if (keepdim || x.dim() == 0) return r;
  return {squeeze_dims(r.first, {d}), squeeze_dims(r.second, {d})};
}

ValuesIndices kthvalue(const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
  int64_t d = wrap_dim(dim, x.dim(), "kthvalue", &x.sizes());
  int64_t n = dim_size(x, d);
  TC_CHECK(n > 0, Index, "kthvalue(): expected reduction dim ", d,
           " to have non-zero size (input shape ", shape_str(x.sizes()), ")");
  TC_CHECK(k >= 1 && k <= n, Runtime, "kthvalue: k (", k, ") is out of range for dimension ", d,
           " of size ", n, " (input shape ", shape_str(x.sizes()), ")");
  RowArgs a;
  a.k = k;
  return reduce_row(Op::kthvalue, x, d, keepdim, a);
}

ValuesIndices median_dim(const Tensor& x, int64_t dim, bool keepdim, bool ignore_nan) {
  const char* name = ignore_nan ? "nanmedian" : "median";
  int64_t d = wrap_dim(dim, x.dim(), name, &x.sizes());
  TC_CHECK(dim_size(x, d) > 0, Index, name, "(): expected reduction dim ", d,
           " to have non-zero size (input shape ", shape_str(x.sizes()), ")");
  RowArgs a;
  a.mode = ignore_nan ? 2 : 1;
  return reduce_row(Op::kthvalue, x, d, keepdim, a);
}

Tensor median_all(const Tensor& x, bool ignore_nan) {
  if (x.numel() == 0) {
    TC_CHECK(is_floating(x.dtype()), Runtime, ignore_nan ? "nanmedian" : "median",
             "(): cannot compute the median of an empty ", dtype_name(x.dtype()), " tensor");
    return scalar_tensor(Scalar::from_double(NAN), x.dtype());
  }
  return median_dim(reshape(x, {x.numel()}), 0, false, ignore_nan).first;
}

ValuesIndices mode(const Tensor& x, int64_t dim, bool keepdim) {
  int64_t d = wrap_dim(dim, x.dim(), "mode", &x.sizes());
  TC_CHECK(dim_size(x, d) > 0, Index, "mode(): expected reduction dim ", d,
           " to have non-zero size (input shape ", shape_str(x.sizes()), ")");
  return reduce_row(Op::mode, x, d, keepdim, RowArgs());
}

Tensor quantile(const Tensor& x, const std::vector<double>& q, bool q_dim, int64_t dim,
                bool all_dims, bool keepdim, const std::string& interpolation, bool ignore_nan) {
  const char* name = ignore_nan ? "nanquantile" : "quantile";
  TC_CHECK(x.dtype() == ScalarType::Float || x.dtype() == ScalarType::Double, Runtime, name,
           "() input tensor must be either float or double dtype, got ", dtype_name(x.dtype()));
  TC_CHECK(x.numel() > 0, Runtime, name, "() input tensor must be non-empty");
  // (the interpolation below reads the sorted rows on the host)
  TC_CHECK(x.device().type == DeviceType::CPU, NotImplemented, name, "(): not implemented for ",
           dtype_name(x.dtype()), " on ", x.device().str());
  for (double v : q)
    TC_CHECK(v >= 0 && v <= 1, Runtime, name, "() q must be in the range [0, 1] but got ", v);
  static const char* kModes[] = {"linear", "lower", "higher", "midpoint", "nearest"};
  int how = int(std::find(kModes, kModes + 5, interpolation) - kModes);
  TC_CHECK(how < 5, Runtime, name,
           "() interpolation must be one of linear, lower, higher, midpoint or nearest. Got ",
           interpolation);
  // Sorted rows along the last dim, as float64, NaNs at the end.
  Tensor src = all_dims ? reshape(x, {x.numel()}) : at_least_1d(x);
  int64_t d = all_dims ? 0 : wrap_dim(dim, x.dim(), name, &x.sizes());
  Tensor s = sort(src, d, false).first;
  s = contiguous(to_dtype(move_dim(s, d, s.dim() - 1), ScalarType::Double));
  int64_t n = src.size(d), rows = s.numel() / n, nq = int64_t(q.size());
  Shape out_sizes;
  if (q_dim) out_sizes.push_back(nq);
  if (all_dims) {
    if (keepdim)
      for (int64_t i = 0; i < x.dim(); i++) out_sizes.push_back(1);
  } else {
    for (int64_t i = 0; i < x.dim(); i++)
      if (i != d || keepdim) out_sizes.push_back(i == d ? 1 : x.size(i));
  }
  Tensor out = empty(out_sizes, ScalarType::Double, x.device());
  bool single = x.dtype() == ScalarType::Float;
  const double* sp = s.data_as<double>();
  double* op = out.data_as<double>();
  for (int64_t r = 0; r < rows; r++) {
    const double* row = sp + r * n;
    int64_t valid = n;
    while (valid > 0 && std::isnan(row[valid - 1])) valid--;
    for (int64_t j = 0; j < nq; j++) {
      double& res = op[j * rows + r];
      if (valid == 0 || (!ignore_nan && valid < n)) {
        res = NAN;
        continue;
      }
      // the rank in the input's precision, as PyTorch computes it (it decides 'nearest')
      double pos = single ? double(float(q[size_t(j)]) * float(valid - 1))
                          : q[size_t(j)] * double(valid - 1);
      double lo_pos = std::floor(pos);
      double lo = row[int64_t(lo_pos)], hi = row[int64_t(std::ceil(pos))];
      switch (how) {
        case 0:
          res = lo + (pos - lo_pos) * (hi - lo);
          break;
        case 1:
          res = lo;
          break;
        case 2:
          res = hi;
          break;
        case 3:
          res = lo + 0.5 * (hi - lo);
          break;
        default:
          res = row[int64_t(std::nearbyint(pos))];
      }
    }
  }
  return to_dtype(out, x.dtype());
}

UniqueResult unique(const Tensor& x, bool consecutive, bool has_dim, int64_t dim) {
  const char* name = consecutive ? "unique_consecutive" : "unique";
  int64_t d = has_dim ? wrap_dim(dim, x.dim(), name, &x.sizes()) : 0;
  TC_CHECK(!has_dim || x.dim() > 0, Index, name, ": a 0-d tensor has no dim ", dim);
  Tensor src = has_dim ? move_dim(x, d, 0) : reshape(x, {x.numel()});
  int64_t rows = src.size(0), m = rows ? src.numel() / rows : 0;
  Tensor flat = reshape(contiguous(src), {rows, m});
  UniqueGroups g;
  if (rows > 0) find_kernel<UniqueFn>(Op::unique, x.device(), x.dtype())(flat, consecutive, g);
  int64_t groups = int64_t(g.first.size());
  Shape sizes = src.sizes();
  sizes[0] = groups;
  UniqueResult r;
  r.values = empty(sizes, x.dtype(), x.device());
  size_t row_bytes = size_t(m) * x.itemsize();
  for (int64_t j = 0; j < groups; j++)
    std::memcpy(r.values.data() + size_t(j) * row_bytes,
                flat.data() + size_t(g.first[size_t(j)]) * row_bytes, row_bytes);
  if (has_dim) r.values = contiguous(move_dim(r.values, 0, d));
  r.inverse = empty(has_dim ? Shape{rows} : x.sizes(), ScalarType::Long, x.device());
  std::copy(g.inverse.begin(), g.inverse.end(), r.inverse.data_as<int64_t>());
  r.counts = empty({groups}, ScalarType::Long, x.device());
  std::copy(g.counts.begin(), g.counts.end(), r.counts.data_as<int64_t>());
  return r;
}

// ---------------------------------------------------------------- registration
template <template <class> class K, class... Ts>
static void reg_rows(Op op) {
  reg_each<Ts...>(op, [](auto t) { return (void*)&K<decltype(t)>::run; });
}
template <class T>
using CumsumK = ScanK<T, SumS>;
template <class T>
using CumprodK = ScanK<T, ProdS>;
template <class T>
using LogcumsumexpK = ScanK<T, LogAddExpS>;

void register_sort_kernels() {
  reg_rows<CumsumK, TC_ALL>(Op::cumsum);
  reg_rows<CumprodK, TC_ALL>(Op::cumprod);
  reg_rows<LogcumsumexpK, TC_FLOATS>(Op::logcumsumexp);
  reg_rows<CummaxK, TC_ALL>(Op::cummax);
  reg_rows<CumminK, TC_ALL>(Op::cummin);
  reg_rows<SortK, TC_ALL>(Op::sort);
  reg_rows<TopkK, TC_ALL>(Op::topk);
  reg_rows<KthK, TC_ALL>(Op::kthvalue);
  reg_rows<ModeK, TC_ALL>(Op::mode);
  reg_rows<UniqueK, TC_ALL>(Op::unique);
}

}  // namespace tc
