// shape.cpp — shape ops that need their own pass over the data: cat, flip, roll, tril/triu,
// repeat_interleave and tril/triu_indices. Each front end checks its arguments and names the
// op in its errors; the copying kernels are registered per dtype under their Op.
#include "shape_ops.h"

namespace tc {

// ---------------------------------------------------------------- cat
// PyTorch's legacy rule: a 1-D tensor with no elements may be concatenated with anything.
static bool skipped_in_cat(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

Tensor cat(const std::vector<Tensor>& ts, int64_t dim, const Tensor& out) {
  TC_CHECK(!ts.empty(), Value, "cat(): expected a non-empty list of Tensors");
  const Tensor* ref = nullptr;
  ScalarType dtype = ts[0].dtype();
  for (size_t i = 0; i < ts.size(); i++) {
    TC_CHECK(ts[i].dim() > 0, Runtime, "cat: zero-dimensional tensor (at position ", i,
             ") cannot be concatenated");
    TC_CHECK(ts[i].device() == ts[0].device(), Runtime,
             "cat: expected all tensors on the same device, but tensor 0 is on ",
             ts[0].device().str(), " and tensor ", i, " on ", ts[i].device().str());
    dtype = promote_types(dtype, ts[i].dtype());
    if (!ref && !skipped_in_cat(ts[i])) ref = &ts[i];
  }
  if (!ref) ref = &ts[0];
  dim = wrap_dim(dim, ref->dim(), "cat", &ref->sizes());
  size_t ri = size_t(ref - ts.data());
  Shape shape = ref->sizes();
  shape[dim] = 0;
  std::vector<Tensor> parts;
  for (size_t i = 0; i < ts.size(); i++) {
    const Tensor& t = ts[i];
    if (skipped_in_cat(t) && &t != ref) continue;
    TC_CHECK(t.dim() == ref->dim(), Runtime,
             "cat: tensors must have the same number of dimensions, but tensor ", ri, " has shape ",
             shape_str(ref->sizes()), " and tensor ", i, " has shape ", shape_str(t.sizes()));
    for (int64_t d = 0; d < t.dim(); d++)
      TC_CHECK(d == dim || t.size(d) == ref->size(d), Runtime,
               "cat: sizes of tensors must match except in dimension ", dim, ", but tensor ", ri,
               " has shape ", shape_str(ref->sizes()), " and tensor ", i, " has shape ",
               shape_str(t.sizes()), " (mismatch in dimension ", d, ")");
    shape[dim] += t.size(dim);
    parts.push_back(t);
  }
  Tensor r = out;
  if (r.defined()) {
    TC_CHECK(can_cast(dtype, r.dtype()), Type, "cat: result type ", dtype_name(dtype),
             " can't be cast to the desired output type ", dtype_name(r.dtype()));
    for (size_t i = 0; i < parts.size(); i++)
      TC_CHECK(!may_overlap(r, parts[i]), Runtime, "cat: unsupported operation: the output ",
               "overlaps input ", i, "; clone() the input first");
    if (r.sizes() != shape) resize_(r, shape);
  } else {
    r = empty(shape, dtype, ref->device());
  }
  if (r.numel() > 0) find_kernel<CatFn>(Op::cat, r.device(), r.dtype())(r, parts, dim);
  if (out.defined()) out.bump_version();
  return r;
}

// memcpy in up to `nt` pieces (big single blocks: outer == 1).
static void parallel_memcpy(char* dst, const char* src, int64_t nbytes, int nt) {
  int64_t chunk = (nbytes + nt - 1) / nt;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int t = 0; t < nt; t++) {
    int64_t b = std::min(nbytes, t * chunk), e = std::min(nbytes, b + chunk);
    if (b < e) std::memcpy(dst + b, src + b, size_t(e - b));
  }
}

// Contiguous inputs of the output's dtype into a contiguous output: rows of bytes. The output
// is [outer, sum of n_i * inner]; input i is [outer, n_i * inner].
static void cat_cpu(const Tensor& out, const std::vector<Tensor>& ins, int64_t dim) {
  bool rows = out.is_contiguous();
  for (const Tensor& t : ins) rows &= t.is_contiguous() && t.dtype() == out.dtype();
  if (!rows) {
    int64_t off = 0;
    for (const Tensor& t : ins) {
      copy_(narrow(out, dim, off, t.size(dim)), t);
      off += t.size(dim);
    }
    return;
  }
  int64_t outer = 1, isz = int64_t(out.itemsize());
  for (int64_t d = 0; d < dim; d++) outer *= out.size(d);
  int64_t out_row = out.numel() / std::max<int64_t>(outer, 1) * isz;
  int nt = out.numel() >= kCheapGrain ? get_num_threads() : 1;
  char* dst = out.data();
  if (outer < 4 * nt) {  // few long rows: split each copy across the threads
    for (int64_t o = 0; o < outer; o++) {
      int64_t off = o * out_row;
      for (const Tensor& t : ins) {
        int64_t row = t.numel() / outer * isz;
        parallel_memcpy(dst + off, t.data() + o * row, row, row >= (1 << 18) ? nt : 1);
        off += row;
      }
    }
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t o = 0; o < outer; o++) {
    int64_t off = o * out_row;
    for (const Tensor& t : ins) {
      int64_t row = t.numel() / outer * isz;
      std::memcpy(dst + off, t.data() + o * row, size_t(row));
      off += row;
    }
  }
}

// ---------------------------------------------------------------- flip, roll
// flip copies through a view whose flipped dims walk backwards (negative strides). The copy
// engine orders dims by |stride| and merges them, so a flipped contiguous tensor is one loop;
// the kernel's inner loop reads backwards when the source stride is minus one element.
template <class T>
static void flip_cpu(const Tensor& out, const Tensor& reversed_view) {
  ElementwiseIter it = ElementwiseIter::for_copy(out, reversed_view);
  it.for_each([](char** d, const int64_t* s, int64_t n) {
    T* o = reinterpret_cast<T*>(d[0]);
    const T* a = reinterpret_cast<const T*>(d[1]);
    if (s[0] == int64_t(sizeof(T)) && s[1] == -int64_t(sizeof(T))) {
      for (int64_t i = 0; i < n; i++) o[i] = a[-i];
    } else if (s[0] == int64_t(sizeof(T)) && s[1] == int64_t(sizeof(T))) {  // an unflipped run
      std::memcpy(o, a, size_t(n) * sizeof(T));
    } else {
      for (int64_t i = 0; i < n; i++)
        *reinterpret_cast<T*>(d[0] + i * s[0]) = *reinterpret_cast<const T*>(d[1] + i * s[1]);
    }
  });
}

Tensor flip(const Tensor& x, const Shape& dims) {
  std::vector<bool> seen(size_t(std::max<int64_t>(x.dim(), 1)), false);
  Shape strides = x.strides();
  int64_t offset = x.offset();
  for (int64_t d : dims) {
    d = wrap_dim(d, x.dim(), "flip", &x.sizes());
    TC_CHECK(!seen[d], Runtime, "flip: dim ", d, " appears multiple times in the list of dims");
    seen[d] = true;
    if (x.dim() == 0 || x.size(d) <= 1) continue;
    offset += (x.size(d) - 1) * strides[d];
    strides[d] = -strides[d];
  }
  Tensor r = empty(x.sizes(), x.dtype(), x.device());
  Tensor reversed = make_view(x, x.sizes(), strides, offset);
  if (x.numel() > 0) find_kernel<FlipFn>(Op::flip, r.device(), r.dtype())(r, reversed);
  return r;
}

// Each element is copied once: with k rolled dims, the output is 2^k blocks, each a shifted
// block of the input (along a dim rolled by s, out[s:] = in[:n-s] and out[:s] = in[n-s:]).
static void roll_cpu(const Tensor& out, const Tensor& in, const Shape& dims, const Shape& shifts) {
  size_t k = dims.size();
  for (uint64_t mask = 0; mask < (uint64_t(1) << k); mask++) {
    Tensor o = out, i = in;
    for (size_t j = 0; j < k; j++) {
      int64_t d = dims[j], n = in.size(d), s = shifts[j];
      bool wrapped = (mask >> j) & 1;
      o = wrapped ? narrow(o, d, 0, s) : narrow(o, d, s, n - s);
      i = wrapped ? narrow(i, d, n - s, s) : narrow(i, d, 0, n - s);
    }
    if (o.numel() > 0) copy_(o, i);
  }
}

Tensor roll(const Tensor& x, const Shape& shifts, const Shape& dims) {
  if (dims.empty()) {
    TC_CHECK(shifts.size() == 1, Runtime,
             "roll: shifts and dimensions must align. shifts: ", shifts.size(), ", dims: 0");
    return reshape(roll(flatten(x, 0, -1), shifts, {0}), x.sizes());
  }
  TC_CHECK(shifts.size() == dims.size(), Runtime,
           "roll: shifts and dimensions must align. shifts: ", shifts.size(),
           ", dims: ", dims.size());
  // One total shift per distinct dim, in [0, n); dims that do not move are left out.
  std::vector<int64_t> total(size_t(std::max<int64_t>(x.dim(), 1)), 0);
  for (size_t k = 0; k < dims.size(); k++) {
    int64_t d = wrap_dim(dims[k], x.dim(), "roll", &x.sizes());
    int64_t n = x.dim() == 0 ? 1 : x.size(d);
    if (n > 0) total[d] = ((total[d] + shifts[k] % n) % n + n) % n;
  }
  Shape moved, amounts;
  for (int64_t d = 0; d < x.dim(); d++)
    if (total[d] != 0) {
      moved.push_back(d);
      amounts.push_back(total[d]);
    }
  Tensor r = empty(x.sizes(), x.dtype(), x.device());
  if (x.numel() == 0) return r;
  if (moved.empty()) {
    copy_(r, x);
    return r;
  }
  find_kernel<RollFn>(Op::roll, r.device(), r.dtype())(r, x, moved, amounts);
  return r;
}

// ---------------------------------------------------------------- tril, triu
template <class T>
static void tri_cpu(const Tensor& dst, const Tensor& src, int64_t k, bool upper) {
  int64_t nd = dst.dim(), R = dst.size(nd - 2), C = dst.size(nd - 1);
  int64_t batch = dst.numel() / std::max<int64_t>(R * C, 1);
  bool inplace = dst.data() == src.data() && dst.strides() == src.strides();
  int64_t drs = dst.stride(nd - 2), dcs = dst.stride(nd - 1);
  int64_t srs = src.stride(nd - 2), scs = src.stride(nd - 1);
  int nt = dst.numel() >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t row = 0; row < batch * R; row++) {
    int64_t b = row / R, i = row % R, doff = 0, soff = 0;
    for (int64_t d = nd - 3, rem = b; d >= 0; d--) {  // batch index -> element offsets
      int64_t idx = rem % dst.size(d);
      rem /= dst.size(d);
      doff += idx * dst.stride(d);
      soff += idx * src.stride(d);
    }
    T* o = dst.data_as<T>() + doff + i * drs;
    const T* s = src.data_as<T>() + soff + i * srs;
    // columns [lo, hi) are kept: tril keeps j <= i + k, triu keeps j >= i + k
    int64_t lo = upper ? std::clamp<int64_t>(i + k, 0, C) : 0;
    int64_t hi = upper ? C : std::clamp<int64_t>(i + k + 1, 0, C);
    for (int64_t j = 0; j < lo; j++) o[j * dcs] = T(0);
    if (!inplace)
      for (int64_t j = lo; j < hi; j++) o[j * dcs] = s[j * scs];
    for (int64_t j = hi; j < C; j++) o[j * dcs] = T(0);
  }
}

static const char* tri_name(bool upper, bool inplace) {
  return upper ? (inplace ? "triu_" : "triu") : (inplace ? "tril_" : "tril");
}

// Beyond +-(rows + cols) every diagonal keeps all of a matrix or nothing: clamped there, the
// kernels' row + diagonal arithmetic cannot overflow.
static int64_t clamp_diagonal(const Tensor& x, int64_t diagonal) {
  if (x.dim() < 2) return diagonal;
  constexpr int64_t kCap = int64_t(1) << 61;
  int64_t reach = std::min(x.size(x.dim() - 2), kCap) + std::min(x.size(x.dim() - 1), kCap);
  return std::clamp<int64_t>(diagonal, -reach, reach);
}

Tensor tril(const Tensor& x, int64_t diagonal, bool upper, const Tensor& out) {
  TC_CHECK(x.dim() >= 2, Runtime, tri_name(upper, false),
           ": input tensor must have at least 2 dimensions, got shape ", shape_str(x.sizes()));
  Tensor r = out;
  if (r.defined()) {
    TC_CHECK(r.dtype() == x.dtype(), Runtime, tri_name(upper, false), ": expected out dtype ",
             dtype_name(x.dtype()), ", got ", dtype_name(r.dtype()));
    if (r.sizes() != x.sizes()) resize_(r, x.sizes());
    r.bump_version();
  } else {
    r = empty(x.sizes(), x.dtype(), x.device());
  }
  bool same_view = r.data() == x.data() && r.strides() == x.strides();
  Tensor src = may_overlap(r, x) && !same_view ? clone(x) : x;
  diagonal = clamp_diagonal(x, diagonal);
  if (r.numel() > 0)
    find_kernel<TriFn>(upper ? Op::triu : Op::tril, r.device(), r.dtype())(r, src, diagonal, upper);
  return r;
}

void tril_(const Tensor& x, int64_t diagonal, bool upper) {
  diagonal = clamp_diagonal(x, diagonal);
  TC_CHECK(x.dim() >= 2, Runtime, tri_name(upper, true),
           ": input tensor must have at least 2 dimensions, got shape ", shape_str(x.sizes()));
  if (x.numel() > 0)
    find_kernel<TriFn>(upper ? Op::triu : Op::tril, x.device(), x.dtype())(x, x, diagonal, upper);
  x.bump_version();
}

// Elements on or below diagonal `offset` of a rows x cols matrix, in closed form (128-bit, so
// any int64 sizes are counted exactly before anything is allocated).
static __int128 tril_count(int64_t rows, int64_t cols, __int128 offset) {
  // Row i holds clamp(i + offset + 1, 0, cols) elements: none, then a ramp, then full rows.
  __int128 k = offset + 1;
  __int128 first = std::clamp<__int128>(-k + 1, 0, rows);       // first row with an element
  __int128 full = std::clamp<__int128>(cols - k, first, rows);  // first full row
  __int128 ramp = (full - first) * (first + full - 1 + 2 * k) / 2;
  return ramp + (rows - full) * cols;
}

Tensor tril_indices(int64_t rows, int64_t cols, int64_t offset, bool upper, ScalarType dtype) {
  const char* name = upper ? "triu_indices" : "tril_indices";
  TC_CHECK(rows >= 0 && cols >= 0, Runtime, name, ": row and col must be non-negative, got ", rows,
           " and ", cols);
  TC_CHECK(dtype == ScalarType::Long || dtype == ScalarType::Int, Runtime, name,
           ": dtype must be int32 or int64, got ", dtype_name(dtype));
  __int128 count = upper ? __int128(rows) * cols - tril_count(rows, cols, __int128(offset) - 1)
                         : tril_count(rows, cols, offset);
  TC_CHECK(count <= (int64_t(1) << 50), Runtime, name, ": a ", rows, " x ", cols,
           " matrix has too many indices to allocate");
  int64_t n = int64_t(count);
  Tensor res = empty({2, n}, ScalarType::Long);  // sized first: the loops below only fill it
  int64_t *r = res.data_as<int64_t>(), *c = r + n, k = 0;
  // Rows without elements are skipped, so the loop runs over the filled part only.
  int64_t i = upper ? 0 : int64_t(std::clamp<__int128>(-__int128(offset), 0, rows));
  for (; i < rows && k < n; i++) {
    __int128 diag = __int128(i) + offset;
    int64_t lo = upper ? int64_t(std::clamp<__int128>(diag, 0, cols)) : 0;
    int64_t hi = upper ? cols : int64_t(std::clamp<__int128>(diag + 1, 0, cols));
    for (int64_t j = lo; j < hi; j++, k++) {
      r[k] = i;
      c[k] = j;
    }
  }
  return to_dtype(res, dtype);
}

// ---------------------------------------------------------------- repeat_interleave
// U: an unsigned integer of the element's size (the kernel only moves values).
template <class U>
static void repeat_interleave_cpu(const Tensor& out, const Tensor& in, int64_t outer, int64_t n,
                                  int64_t inner, const int64_t* reps, const int64_t* offs) {
  int64_t total = out.numel() / outer / inner;
  const U* src = in.data_as<U>();
  U* dst = out.data_as<U>();
  int nt = out.numel() >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static) collapse(2)
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < n; i++) {
      const U* s = src + (o * n + i) * inner;
      U* d = dst + (o * total + offs[i]) * inner;
      if (inner == 1) {
        std::fill(d, d + reps[i], s[0]);
      } else {
        for (int64_t r = 0; r < reps[i]; r++)
          std::memcpy(d + r * inner, s, size_t(inner) * sizeof(U));
      }
    }
}

Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, int64_t dim) {
  TC_CHECK(!is_floating(repeats.dtype()) && repeats.dtype() != ScalarType::Bool, NotImplemented,
           "repeat_interleave: repeats has to be an integer tensor, got ",
           dtype_name(repeats.dtype()));
  TC_CHECK(repeats.dim() <= 1, Runtime,
           "repeat_interleave: repeats must be 0-dim or 1-dim tensor, got shape ",
           shape_str(repeats.sizes()));
  dim = wrap_dim(dim, x.dim(), "repeat_interleave", &x.sizes());
  Tensor src = x.dim() == 0 ? reshape(x, {1}) : x;
  int64_t n = src.size(dim);
  // the repeats decide the output's size: read on the host (a copy for other devices)
  Tensor reps = contiguous(to_dtype(on_host(repeats), ScalarType::Long));
  if (reps.numel() == 1 && n != 1) reps = contiguous(expand(reshape(reps, {1}), {n}));
  TC_CHECK(reps.numel() == n, Runtime,
           "repeat_interleave: repeats must have the same size as input along dim, but got "
           "repeats.size(0) = ",
           reps.numel(), " and input.size(", dim, ") = ", n);
  const int64_t* r = reps.data_as<int64_t>();
  std::vector<int64_t> offs(size_t(n) + 1, 0);
  for (int64_t i = 0; i < n; i++) {
    TC_CHECK(r[i] >= 0, Runtime, "repeat_interleave: repeats can not be negative, got ", r[i],
             " at index ", i);
    offs[i + 1] = offs[i] + r[i];
  }
  Shape shape = src.sizes();
  shape[dim] = offs[n];
  Tensor out = empty(shape, x.dtype(), x.device());
  if (out.numel() == 0) return out;
  src = contiguous(src);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; d++) outer *= src.size(d);
  for (int64_t d = dim + 1; d < src.dim(); d++) inner *= src.size(d);
  find_kernel<RepeatInterleaveFn>(Op::repeat_interleave, out.device(), out.dtype())(
      out, src, outer, n, inner, r, offs.data());
  return out;
}

// ---------------------------------------------------------------- registration
struct Bytes16 {  // complex128 moved as raw bytes
  uint64_t lo, hi;
};

// The unsigned integer of T's size (Bytes16 for complex128): kernels that only move
// values need one instantiation per item size.
template <class T>
using SameSize = std::conditional_t<
    sizeof(T) == 1, uint8_t,
    std::conditional_t<sizeof(T) == 2, uint16_t,
                       std::conditional_t<sizeof(T) == 4, uint32_t,
                                          std::conditional_t<sizeof(T) == 8, uint64_t, Bytes16>>>>;

void register_shape_kernels() {
  auto any = [](void* fn) { return [fn](auto) { return fn; }; };  // moves bytes: any dtype
  reg_each<TC_ALL, TC_COMPLEX>(Op::cat, any((void*)&cat_cpu));
  reg_each<TC_ALL, TC_COMPLEX>(Op::roll, any((void*)&roll_cpu));
  reg_each<TC_ALL, TC_COMPLEX>(Op::flip,
                               [](auto t) { return (void*)&flip_cpu<SameSize<decltype(t)>>; });
  reg_each<TC_ALL, TC_COMPLEX>(Op::repeat_interleave, [](auto t) {
    return (void*)&repeat_interleave_cpu<SameSize<decltype(t)>>;
  });
  reg_each<TC_ALL, TC_COMPLEX>(Op::tril, TC_KERNEL(tri_cpu));
  reg_each<TC_ALL, TC_COMPLEX>(Op::triu, TC_KERNEL(tri_cpu));
}

}  // namespace tc
