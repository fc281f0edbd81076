// index.cpp — indexing kernels: advanced-index take/put over element offsets, boolean-mask
// selection, nonzero, index_select, gather and searchsorted.
//
// Front ends (shape and index checks, output allocation) come first in each section; the
// kernels are registered per (device, dtype) at the bottom. Big loops split over OpenMP
// threads; bad indices found inside a parallel loop are recorded and raised after it.
#include "index_ops.h"

namespace tc {

namespace {

int threads_for(int64_t work) { return work >= kGrain ? get_num_threads() : 1; }

Tensor long_contiguous(const Tensor& idx, const char* op) {
  TC_CHECK(is_integral(idx.dtype(), false), Index, op,
           ": tensors used as indices must be long, int, byte or bool tensors (got ",
           dtype_name(idx.dtype()), ")");
  return contiguous(to_dtype(idx, ScalarType::Long));
}

// A CPU tensor (indices, values, a mask) used with a CUDA tensor: copied to its device, as
// PyTorch accepts them. Anything else is returned as is (the callers check devices).
Tensor to_device_of(const Tensor& t, Device d) {
  if (t.device() == d || t.device().type != DeviceType::CPU || d.type != DeviceType::CUDA) return t;
  Tensor r = empty(t.sizes(), t.dtype(), d);
  copy_(r, t);
  return r;
}

// Element offset of row-major position i in a strided view (sizes/strides in elements).
inline int64_t strided_offset(int64_t i, const Shape& sizes, const Shape& strides) {
  int64_t off = 0;
  for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; d--) {
    off += (i % sizes[d]) * strides[d];
    i /= sizes[d];
  }
  return off;
}

// ---------------------------------------------------------------- CPU kernels
void index_offsets_kernel(const std::vector<Tensor>& idx, const Shape& sizes, const Shape& strides,
                          const Tensor& out, BadIndex& bad) {
  int64_t* o = out.data_as<int64_t>();
  int64_t total = out.numel(), k = int64_t(idx.size());
#pragma omp parallel for num_threads(threads_for(total* k)) schedule(static)
  for (int64_t i = 0; i < total; i++) {
    int64_t off = 0;
    for (int64_t j = 0; j < k; j++) {
      int64_t v = idx[j].data_as<int64_t>()[i], n = sizes[j];
      if (v < -n || v >= n) {
        bad.record(v, j);
        v = 0;
      }
      off += (v < 0 ? v + n : v) * strides[j];
    }
    o[i] = off;
  }
}

template <class T>
void take_kernel(const Tensor& sub, const int64_t* off, int64_t nb, char* out_bytes) {
  T* out = reinterpret_cast<T*>(out_bytes);
  const T* base = sub.data_as<T>();
  int64_t n = sub.numel();
  bool contig = sub.is_contiguous();
  const Shape &sz = sub.sizes(), &st = sub.strides();
#pragma omp parallel for num_threads(threads_for(nb* n)) schedule(static)
  for (int64_t b = 0; b < nb; b++) {
    const T* src = base + off[b];
    T* dst = out + b * n;
    if (contig) {
      for (int64_t i = 0; i < n; i++) dst[i] = src[i];
    } else {
      for (int64_t i = 0; i < n; i++) dst[i] = src[strided_offset(i, sz, st)];
    }
  }
}

template <class T>
inline void put_one(T& dst, T v, PutMode mode) {
  using A = typename AccOf<T>::type;
  switch (mode) {
    case PutMode::Set:
      dst = v;
      break;
    case PutMode::Add:
      dst = T(A(dst) + A(v));
      break;
    case PutMode::Mul:
      dst = T(A(dst) * A(v));
      break;
    case PutMode::Max:
    case PutMode::Min:
      if constexpr (IsComplex<T>::value) {
        fail(ErrorKind::Runtime, "scatter_reduce: amax/amin are not supported for complex dtypes");
      } else if (mode == PutMode::Max) {
        dst = (A(v) > A(dst) || A(v) != A(v)) ? v : dst;
      } else {
        dst = (A(v) < A(dst) || A(v) != A(v)) ? v : dst;
      }
      break;
  }
}
template <>
inline void put_one<bool>(bool& dst, bool v, PutMode mode) {
  switch (mode) {
    case PutMode::Set:
      dst = v;
      break;
    case PutMode::Add:
    case PutMode::Max:
      dst = dst || v;
      break;
    case PutMode::Mul:
    case PutMode::Min:
      dst = dst && v;
      break;
  }
}

// Serial: repeated offsets must combine in order (and deterministically for Set).
template <class T>
void put_kernel(const Tensor& sub, const int64_t* off, int64_t nb, const char* values,
                PutMode mode) {
  const T* v = reinterpret_cast<const T*>(values);
  T* base = sub.data_as<T>();
  int64_t n = sub.numel();
  const Shape &sz = sub.sizes(), &st = sub.strides();
  if (sub.is_contiguous()) {
    for (int64_t b = 0; b < nb; b++)
      for (int64_t i = 0; i < n; i++) put_one(base[off[b] + i], v[b * n + i], mode);
    return;
  }
  for (int64_t b = 0; b < nb; b++)
    for (int64_t i = 0; i < n; i++)
      put_one(base[off[b] + strided_offset(i, sz, st)], v[b * n + i], mode);
}

template <class T>
TC_MULTIVERSION void mask_rows_kernel(const Tensor& xt, const Tensor& mask, int64_t inner,
                                      const CountPlan& plan, const Tensor& out_t) {
  const T* x = xt.data_as<T>();
  T* out = out_t.data_as<T>();
  const uint8_t* m = reinterpret_cast<const uint8_t*>(mask.data());
  int64_t rows = mask.numel();
  int parts = int(plan.starts.size()) - 1;
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int c = 0; c < parts; c++) {
    int64_t b = std::min(rows, c * plan.chunk), e = std::min(rows, b + plan.chunk);
    T* o = out + plan.starts[c] * inner;
    if (inner == 1) {
      while (e > b && !m[e - 1]) e--;  // stop at the last selected row: no write past the chunk
      int64_t w = 0;
      for (int64_t i = b; i < e; i++) {  // branch-free: write always, advance when selected
        o[w] = x[i];
        w += m[i];
      }
    } else {
      for (int64_t i = b; i < e; i++)
        if (m[i]) {
          std::memcpy(o, x + i * inner, sizeof(T) * inner);
          o += inner;
        }
    }
  }
}

// Counts the nonzeros of x[b:e] (out == nullptr) or writes their coordinates (nd per row)
// into out, walking the coordinates of a contiguous tensor of `sizes` along with i.
template <class T>
int64_t nonzero_range(const T* x, int64_t b, int64_t e, const Shape& sizes, int64_t* out) {
  using A = typename AccOf<T>::type;
  int64_t n = 0;
  if (!out) {
    for (int64_t i = b; i < e; i++) n += A(x[i]) != A(0);
    return n;
  }
  if (sizes.size() == 1) {  // branch-free, stopping at the last nonzero (no write past it)
    while (e > b && A(x[e - 1]) == A(0)) e--;
    for (int64_t i = b; i < e; i++) {
      out[n] = i;
      n += A(x[i]) != A(0);
    }
    return n;
  }
  int64_t nd = int64_t(sizes.size()), coord[16], rem = b;
  for (int64_t d = nd - 1; d >= 0; d--) {
    coord[d] = rem % sizes[d];
    rem /= sizes[d];
  }
  for (int64_t i = b; i < e; i++) {
    if (A(x[i]) != A(0)) {
      for (int64_t d = 0; d < nd; d++) out[d] = coord[d];
      out += nd;
      n++;
    }
    for (int64_t d = nd - 1; d >= 0 && ++coord[d] == sizes[d]; d--) coord[d] = 0;
  }
  return n;
}

// Parts of about equal size, one per thread when the work (elements moved) is big enough.
template <class T>
void count_nonzero_kernel(const Tensor& xt, int64_t work, CountPlan& plan) {
  const T* x = xt.data_as<T>();
  int64_t total = xt.numel();
  int parts = threads_for(work);
  plan.chunk = std::max<int64_t>((total + parts - 1) / parts, 1);
  plan.starts.assign(parts + 1, 0);
  Shape flat{total};
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int c = 0; c < parts; c++) {
    int64_t b = std::min(total, c * plan.chunk), e = std::min(total, b + plan.chunk);
    plan.starts[c + 1] = nonzero_range<T>(x, b, e, flat, nullptr);
  }
  for (int c = 0; c < parts; c++) plan.starts[c + 1] += plan.starts[c];
}

template <class T>
void nonzero_kernel(const Tensor& xt, const CountPlan& plan, const Tensor& out) {
  const T* x = xt.data_as<T>();
  int64_t total = xt.numel(), nd = xt.dim();
  int64_t* o = out.data_as<int64_t>();
  int parts = int(plan.starts.size()) - 1;
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int c = 0; c < parts; c++) {
    int64_t b = std::min(total, c * plan.chunk), e = std::min(total, b + plan.chunk);
    if (b < e) nonzero_range<T>(x, b, e, xt.sizes(), o + plan.starts[c] * nd);
  }
}

// x contiguous; an index outside [0, x.size(dim)) is recorded and its row skipped.
template <class T>
TC_MULTIVERSION void index_select_kernel(const Tensor& xt, int64_t dim, const Tensor& idx_t,
                                         const Tensor& out_t, BadIndex& bad) {
  const T* x = xt.data_as<T>();
  const int64_t* idx = idx_t.data_as<int64_t>();
  T* out = out_t.data_as<T>();
  int64_t n = xt.size(dim), k = idx_t.numel(), outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; d++) outer *= xt.size(d);
  for (int64_t d = dim + 1; d < xt.dim(); d++) inner *= xt.size(d);
#pragma omp parallel for num_threads(threads_for(outer * k * inner)) schedule(static)
  for (int64_t r = 0; r < outer * k; r++) {
    int64_t o = outer == 1 ? 0 : r / k, j = outer == 1 ? r : r % k;
    if (idx[j] < 0 || idx[j] >= n) {
      bad.record(idx[j], dim);
      continue;
    }
    const T* src = x + (o * n + idx[j]) * inner;
    T* dst = out + r * inner;
    for (int64_t i = 0; i < inner; i++) dst[i] = src[i];
  }
}

// out[..., j] = x[... with coordinate `dim` replaced by idx[..., j]], parallel over the rows
// of idx's last dim. idx may be strided; a row whose index is broadcast along the last dim
// (stride 0, an expanded index) is one run of x.
template <class T>
TC_MULTIVERSION void gather_kernel(const Tensor& x, int64_t dim, const Tensor& idx, char* outb,
                                   BadIndex& bad) {
  const T* xd = x.data_as<T>();
  const int64_t* id = idx.data_as<int64_t>();
  T* out = reinterpret_cast<T*>(outb);
  int64_t nd = idx.dim(), last = idx.size(nd - 1), rows = idx.numel() / std::max<int64_t>(last, 1);
  int64_t n = x.size(dim), sdim = x.stride(dim), slast = x.stride(nd - 1);
  int64_t jstep = dim == nd - 1 ? 0 : slast, ilast = idx.stride(nd - 1);
  bool run = ilast == 0 && dim != nd - 1;
  const Shape& isz = idx.sizes();
#pragma omp parallel for num_threads(threads_for(idx.numel())) schedule(static)
  for (int64_t r = 0; r < rows; r++) {
    int64_t base = 0, ioff = 0, rem = r;
    for (int64_t d = nd - 2; d >= 0; d--) {
      int64_t c = rem % isz[d];
      rem /= isz[d];
      ioff += c * idx.stride(d);
      if (d != dim) base += c * x.stride(d);
    }
    T* o = out + r * last;
    if (run) {
      int64_t i = id[ioff];
      if (i < 0 || i >= n) {
        bad.record(i, dim);
        continue;
      }
      const T* src = xd + base + i * sdim;
      if (slast == 1)
        for (int64_t j = 0; j < last; j++) o[j] = src[j];
      else
        for (int64_t j = 0; j < last; j++) o[j] = src[j * slast];
      continue;
    }
    for (int64_t j = 0; j < last; j++) {
      int64_t i = id[ioff + j * ilast];
      if (i < 0 || i >= n) {
        bad.record(i, dim);
        break;
      }
      o[j] = xd[base + j * jstep + i * sdim];
    }
  }
}

template <class T>
void search_kernel(const Tensor& seq, const Tensor& values, bool right, char* outb,
                   bool out_int32) {
  using A = typename AccOf<T>::type;
  const T* s = seq.data_as<T>();
  const T* v = values.data_as<T>();
  int64_t n = seq.size(seq.dim() - 1), m = values.dim() ? values.size(values.dim() - 1) : 1;
  bool shared = seq.dim() == 1;
  int64_t total = values.numel();
#pragma omp parallel for num_threads(threads_for(total)) schedule(static)
  for (int64_t i = 0; i < total; i++) {
    const T* row = shared ? s : s + (i / m) * n;
    A x = A(v[i]);
    int64_t lo = 0, hi = n;
    while (lo < hi) {  // first position whose element is > x (right) or >= x (left)
      int64_t mid = (lo + hi) / 2;
      A e = A(row[mid]);
      bool go_right = right ? !(x < e) : (e < x);
      if (go_right)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (out_int32)
      reinterpret_cast<int32_t*>(outb)[i] = int32_t(lo);
    else
      reinterpret_cast<int64_t*>(outb)[i] = lo;
  }
}

}  // namespace

// ---------------------------------------------------------------- front ends
Tensor index_offsets(const std::vector<Tensor>& idx_in, const Shape& sizes, const Shape& strides,
                     const Shape& dims) {
  Shape b;
  for (auto& t : idx_in) b = broadcast_shapes(b, t.sizes(), "index");
  TC_CHECK(!idx_in.empty() && idx_in.size() == sizes.size() && sizes.size() == strides.size() &&
               strides.size() == dims.size(),
           Runtime, "index: one size, stride and dim per index tensor");
  Device device = idx_in[0].device();
  for (auto& t : idx_in)  // CPU indices go to the device of the others
    if (t.device().type != DeviceType::CPU) device = t.device();
  std::vector<Tensor> idx;
  for (auto& t_in : idx_in) {
    Tensor t = to_device_of(t_in, device);
    TC_CHECK(t.device() == device, Runtime, "index: indices on ", device.str(), " and ",
             t.device().str());
    idx.push_back(contiguous(expand(long_contiguous(t, "index"), b)));
  }
  Tensor out = empty(b, ScalarType::Long, device);
  BadIndex bad;
  if (out.numel() > 0)
    find_kernel<IndexOffsetsFn>(Op::index_offsets, device, ScalarType::Long)(idx, sizes, strides,
                                                                             out, bad);
  if (bad.seen)
    fail(ErrorKind::Index, "index ", bad.value, " is out of bounds for dimension ", dims[bad.which],
         " with size ", sizes[bad.which]);
  return out;
}

Tensor take_rows(const Tensor& sub, const Tensor& offsets_in) {
  Tensor offsets = to_device_of(offsets_in, sub.device());
  check_same_device(sub, offsets, "index");
  Tensor off = long_contiguous(offsets, "index");
  Shape shape = off.sizes();
  for (auto s : sub.sizes()) shape.push_back(s);
  Tensor out = empty(shape, sub.dtype(), sub.device());
  if (out.numel() == 0) return out;
  find_kernel<TakeFn>(Op::take, sub.device(), sub.dtype())(sub, off.data_as<int64_t>(), off.numel(),
                                                           out.data());
  return out;
}

void put_rows(const Tensor& sub, const Tensor& offsets_in, const Tensor& values_in, PutMode mode) {
  Tensor offsets = to_device_of(offsets_in, sub.device()), values = values_in;
  if (!(values.device() == sub.device())) {  // a broadcast CPU value: move one copy of it
    while (values.dim() > 0 && values.stride(0) == 0) values = select(values, 0, 0);
    values = to_device_of(values, sub.device());
  }
  check_same_device(sub, offsets, "index_put_");
  if (sub.device().type == DeviceType::CUDA || values.device().type == DeviceType::CUDA)
    check_same_device(sub, values, "index_put_");  // (a meta sub takes CPU values)
  Tensor off = long_contiguous(offsets, "index_put_");
  Shape shape = off.sizes();
  for (auto s : sub.sizes()) shape.push_back(s);
  Tensor v = contiguous(expand(to_dtype(values, sub.dtype()), shape));
  if (may_overlap(v, sub) || v.impl()->storage == sub.impl()->storage)
    v = clone(v);  // x[i] = x: read every value before writing any
  if (v.numel() == 0) return;
  find_kernel<PutFn>(Op::index_put, sub.device(), sub.dtype())(sub, off.data_as<int64_t>(),
                                                               off.numel(), v.data(), mode);
}

Tensor mask_rows(const Tensor& x_in, const Tensor& mask_in) {
  TC_CHECK(mask_in.dtype() == ScalarType::Bool || mask_in.dtype() == ScalarType::Byte, Index,
           "masked_select: expected a bool mask, got ", dtype_name(mask_in.dtype()));
  int64_t k = mask_in.dim();
  bool ok = k <= x_in.dim();
  for (int64_t d = 0; ok && d < k; d++) ok = mask_in.size(d) == x_in.size(d);
  TC_CHECK(ok, Index, "The shape of the mask ", shape_str(mask_in.sizes()),
           " does not match the shape of the indexed tensor ", shape_str(x_in.sizes()));
  Tensor mask = to_device_of(mask_in, x_in.device());
  check_same_device(x_in, mask, "masked_select");
  Tensor x = contiguous(x_in);
  mask = contiguous(to_dtype(mask, ScalarType::Bool));
  int64_t rows = mask.numel(), inner = rows ? x.numel() / rows : 0;
  auto write = find_kernel<MaskRowsFn>(Op::masked_select, x.device(), x.dtype());
  CountPlan plan;
  find_kernel<CountNonzeroFn>(Op::count_nonzero, x.device(), ScalarType::Bool)(
      mask, rows * std::max<int64_t>(inner, 1), plan);
  Shape shape{plan.total()};
  for (int64_t d = k; d < x.dim(); d++) shape.push_back(x.size(d));
  Tensor out = empty(shape, x.dtype(), x.device());
  if (out.numel() > 0) write(x, mask, inner, plan, out);
  return out;
}

Tensor nonzero(const Tensor& x_in) {
  Tensor x = contiguous(x_in);
  TC_CHECK(x.dim() <= 16, Runtime, "nonzero(): at most 16 dims are supported (got ", x.dim(), ")");
  auto write = find_kernel<NonzeroFn>(Op::nonzero, x.device(), x.dtype());
  CountPlan plan;
  find_kernel<CountNonzeroFn>(Op::count_nonzero, x.device(), x.dtype())(x, x.numel(), plan);
  Tensor out = empty({plan.total(), x.dim()}, ScalarType::Long, x.device());
  if (out.numel() > 0) write(x, plan, out);
  return out;
}

Tensor index_select(const Tensor& x_in, int64_t dim, const Tensor& index) {
  TC_CHECK(index.dim() <= 1, Index, "index_select(): Index is supposed to be a vector, got ",
           index.dim(), " dims");
  TC_CHECK(index.dtype() == ScalarType::Long || index.dtype() == ScalarType::Int, Runtime,
           "index_select(): Expected dtype int32/int64 for index, got ", dtype_name(index.dtype()));
  Tensor x = x_in.dim() == 0 ? view(x_in, {1}) : contiguous(x_in);
  dim = wrap_dim(dim, x.dim(), "index_select");
  check_same_device(x_in, index, "index_select");
  Tensor idx = long_contiguous(index, "index_select");
  Shape shape = x.sizes();
  shape[dim] = idx.numel();
  Tensor out = empty(shape, x.dtype(), x.device());
  BadIndex bad;
  if (out.numel() > 0)
    find_kernel<IndexSelectFn>(Op::index_select, x.device(), x.dtype())(x, dim, idx, out, bad);
  TC_CHECK(!bad.seen, Index, "index_select(): index ", bad.value, " is out of range for dimension ",
           dim, " with size ", x.size(dim));
  if (out.numel() == 0) return x_in.dim() == 0 ? view(out, {}) : out;
  return x_in.dim() == 0 && index.dim() == 0 ? view(out, {}) : out;
}

Tensor gather(const Tensor& x_in, int64_t dim, const Tensor& index) {
  TC_CHECK(index.dtype() == ScalarType::Long || index.dtype() == ScalarType::Int, Runtime,
           "gather(): Expected dtype int32/int64 for index, got ", dtype_name(index.dtype()));
  check_same_device(x_in, index, "gather");
  Tensor x = x_in.dim() == 0 ? view(x_in, {1}) : x_in;
  Tensor idx = to_dtype(index.dim() == 0 ? view(index, {1}) : index, ScalarType::Long);
  dim = wrap_dim(dim, x.dim(), "gather");
  TC_CHECK(idx.dim() == x.dim(), Runtime,
           "gather(): Index tensor must have the same number of dimensions as input tensor (",
           shape_str(index.sizes()), " vs ", shape_str(x_in.sizes()), ")");
  for (int64_t d = 0; d < x.dim(); d++)
    TC_CHECK(d == dim || idx.size(d) <= x.size(d), Runtime,
             "gather(): Size does not match at dimension ", d, " expected index ",
             shape_str(index.sizes()), " to be smaller than self ", shape_str(x_in.sizes()),
             " apart from dimension ", dim);
  Tensor out = empty(idx.sizes(), x.dtype(), x.device());
  if (out.numel() == 0) return out;
  BadIndex bad;
  find_kernel<GatherFn>(Op::gather, x.device(), x.dtype())(x, dim, idx, out.data(), bad);
  if (bad.seen)
    fail(ErrorKind::Runtime, "gather(): index ", bad.value, " is out of bounds for dimension ",
         bad.which, " with size ", x.size(bad.which));
  return index.dim() == 0 ? view(out, {}) : out;
}

Tensor searchsorted(const Tensor& seq_in, const Tensor& values_in, bool right, bool out_int32) {
  TC_CHECK(seq_in.dim() >= 1, Runtime, "searchsorted(): sorted_sequence must have at least 1 dim");
  check_same_device(seq_in, values_in, "searchsorted");
  ScalarType ct = promote_types(seq_in.dtype(), values_in.dtype());
  Tensor seq = contiguous(to_dtype(seq_in, ct)), values = contiguous(to_dtype(values_in, ct));
  if (seq.dim() > 1) {
    bool ok = values.dim() == seq.dim();
    for (int64_t d = 0; ok && d + 1 < seq.dim(); d++) ok = seq.size(d) == values.size(d);
    TC_CHECK(ok, Runtime, "searchsorted(): boundaries ", shape_str(seq_in.sizes()),
             " and input value ", shape_str(values_in.sizes()),
             " must have the same leading dimensions");
  }
  Tensor out = empty(values.sizes(), out_int32 ? ScalarType::Int : ScalarType::Long, seq.device());
  if (out.numel() == 0) return out;
  if (seq.size(seq.dim() - 1) == 0) {
    fill_(out, Scalar::from_int(0));
    return out;
  }
  find_kernel<SearchFn>(Op::searchsorted, seq.device(), ct)(seq, values, right, out.data(),
                                                            out_int32);
  return out;
}

void register_index_kernels() {
  // data movement: every dtype, complex included
  reg_each<TC_ALL, TC_COMPLEX>(Op::take, TC_KERNEL(take_kernel));
  reg_each<TC_ALL, TC_COMPLEX>(Op::index_put, TC_KERNEL(put_kernel));
  reg_each<TC_ALL, TC_COMPLEX>(Op::masked_select, TC_KERNEL(mask_rows_kernel));
  reg_each<TC_ALL, TC_COMPLEX>(Op::count_nonzero, TC_KERNEL(count_nonzero_kernel));
  reg_each<TC_ALL, TC_COMPLEX>(Op::nonzero, TC_KERNEL(nonzero_kernel));
  reg_each<int64_t>(Op::index_offsets, [](auto) { return (void*)&index_offsets_kernel; });
  reg_each<TC_ALL, TC_COMPLEX>(Op::index_select, TC_KERNEL(index_select_kernel));
  reg_each<TC_ALL, TC_COMPLEX>(Op::gather, TC_KERNEL(gather_kernel));
  reg_each<TC_ALL>(Op::searchsorted, TC_KERNEL(search_kernel));  // needs ordered values
}

}  // namespace tc
