// tensor.cpp — dtypes, storage allocation, tensor creation and view ops.
#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <vector>

#include "iter.h"
#include "ops.h"

namespace tc {

std::string shape_str(const Shape& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); i++) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

const char* device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::CPU:
      return "cpu";
    case DeviceType::CUDA:
      return "cuda";
    case DeviceType::Meta:
      return "meta";
    case DeviceType::SparseBase:
      return "sparse";
  }
  return "?";
}

std::string Device::str() const {
  std::string r = device_type_name(type);
  return index >= 0 ? r + ":" + std::to_string(index) : r;
}

// ---------------------------------------------------------------- 16-bit floats
Half::Half(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000, a = u & 0x7fffffff;
  if (a >= 0x7f800000) {  // inf or nan
    x = uint16_t(sign | 0x7c00 | (a > 0x7f800000 ? 0x200 : 0));
  } else if (a >= 0x477ff000) {  // rounds to >= 65520: overflow to inf
    x = uint16_t(sign | 0x7c00);
  } else if (a < 0x38800000) {  // subnormal half (or zero): scale and round
    float af;
    std::memcpy(&af, &a, 4);
    x = uint16_t(sign | uint32_t(std::nearbyint(af * 16777216.0f)));  // 2^24
  } else {
    uint32_t m = a + 0xfff + ((a >> 13) & 1);  // round to nearest even at bit 13
    x = uint16_t(sign | ((m - 0x38000000) >> 13));
  }
}

Half::operator float() const {
  uint32_t sign = uint32_t(x & 0x8000) << 16, e = (x >> 10) & 0x1f, m = x & 0x3ff, u;
  if (e == 0) {
    float f = float(m) / 16777216.0f;
    std::memcpy(&u, &f, 4);
    u |= sign;
  } else if (e == 31) {
    u = sign | 0x7f800000 | (m << 13);
  } else {
    u = sign | ((e + 112) << 23) | (m << 13);
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// ---------------------------------------------------------------- dtypes
size_t itemsize(ScalarType t) {
  static const size_t sizes[] = {
#define TC_SIZE(name, T, py) sizeof(T),
      TC_FORALL_DTYPES_AND_COMPLEX(TC_SIZE)
#undef TC_SIZE
  };
  return sizes[int(t)];
}

const char* dtype_name(ScalarType t) {
  static const char* names[] = {
#define TC_NAME(name, T, py) py,
      TC_FORALL_DTYPES_AND_COMPLEX(TC_NAME)
#undef TC_NAME
  };
  return t < ScalarType::NumTypes ? names[int(t)] : "undefined";
}

const char* legacy_name(ScalarType t) {
  static const char* names[] = {
#define TC_NAME(name, T, py) #name,
      TC_FORALL_DTYPES_AND_COMPLEX(TC_NAME)
#undef TC_NAME
  };
  return names[int(t)];
}

static ScalarType g_default_dtype = ScalarType::Float;
ScalarType default_dtype() { return g_default_dtype; }
void set_default_dtype(ScalarType t) {
  TC_CHECK(is_floating(t), Type,
           "set_default_dtype: only floating-point types are supported as the "
           "default type, got ",
           dtype_name(t));
  g_default_dtype = t;
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  using S = ScalarType;
  if (a == b) return a;
  if (a == S::Bool) return b;
  if (b == S::Bool) return a;
  if (is_complex(a) || is_complex(b)) {  // complex128 if either side needs float64's range
    bool wide = a == S::Double || b == S::Double || a == S::ComplexDouble || b == S::ComplexDouble;
    return wide ? S::ComplexDouble : S::ComplexFloat;
  }
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa != fb) return fa ? a : b;
  if (fa) {  // both floating
    if ((a == S::Half && b == S::BFloat16) || (a == S::BFloat16 && b == S::Half)) return S::Float;
    return itemsize(a) >= itemsize(b) ? a : b;
  }
  // both integral; uint8 is the only unsigned type
  if (a == S::Byte || b == S::Byte) {
    ScalarType other = a == S::Byte ? b : a;
    return other == S::Char ? S::Short : other;
  }
  return itemsize(a) >= itemsize(b) ? a : b;
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && is_integral(to, true)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

// ---------------------------------------------------------------- allocation
namespace {
// Note [Large-buffer cache]: a freed buffer of 32 MiB or more is kept (up to 512 MiB in all)
// and handed out again for the next request of the same rounded size, so that a loop over
// big tensors does not fault its pages in afresh each time: a fresh mapping costs a page
// fault per page, and where the kernel must first compact memory into huge pages, a 128 MiB
// buffer took 200-280 ms instead of ~30 ms. A request the cache cannot serve first frees
// everything cached, so the process never holds more than its live tensors held at an
// earlier moment (peak memory is unchanged).
class LargeBufferCache {
 public:
  static constexpr size_t kLimit = size_t(512) << 20;
  void* take(size_t nbytes) {
    std::vector<void*> drop;
    void* found = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (size_t i = 0; i < blocks_.size(); i++)
        if (blocks_[i].second == nbytes) {
          found = blocks_[i].first;
          blocks_.erase(blocks_.begin() + i);
          held_ -= nbytes;
          break;
        }
      if (!found) {
        for (auto& b : blocks_) drop.push_back(b.first);
        blocks_.clear();
        held_ = 0;
      }
    }
    for (void* p : drop) std::free(p);
    return found;
  }
  void put(void* p, size_t nbytes) {
    std::vector<void*> drop;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (nbytes > kLimit) {
        drop.push_back(p);
      } else {
        while (held_ + nbytes > kLimit) {  // oldest first
          drop.push_back(blocks_.front().first);
          held_ -= blocks_.front().second;
          blocks_.erase(blocks_.begin());
        }
        blocks_.emplace_back(p, nbytes);
        held_ += nbytes;
      }
    }
    for (void* q : drop) std::free(q);
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<void*, size_t>> blocks_;  // (buffer, rounded size), oldest first
  size_t held_ = 0;
};
// Never destroyed: a tensor may be freed during static destruction at exit.
LargeBufferCache& large_buffers() {
  static auto* cache = new LargeBufferCache;
  return *cache;
}

// 64-byte aligned. Buffers of 32 MiB and more (which glibc always maps fresh rather than
// reuses) are aligned to 2 MiB and asked to be backed by huge pages, so that first touching
// them costs one page fault per 2 MiB instead of per 4 KiB; freed, they go to the cache above.
struct CPUAllocator : Allocator {
  CPUAllocator() {
    // Keep freed buffers below 64 MiB in the heap for reuse instead of returning them to the
    // kernel (glibc's defaults map and unmap anything over 128 KiB-32 MiB each time, so a
    // training step's temporaries page-faulted afresh at every step). The heap's free top
    // goes back to the kernel only beyond 512 MiB: with 128 MiB, every other load of a
    // 200 MB checkpoint page-faulted all of it again (54,000 faults, 3x the load's time).
    // What stays is memory the process already held at its peak.
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
  }
  StoragePtr allocate(size_t nbytes) override {
    constexpr size_t kHugePage = size_t(2) << 20, kLarge = size_t(32) << 20;
    auto s = std::make_shared<Storage>();
    s->nbytes = nbytes;
    if (nbytes < kLarge) {
      s->data = std::aligned_alloc(64, (std::max<size_t>(nbytes, 1) + 63) / 64 * 64);
      TC_CHECK(s->data, Runtime, "DefaultCPUAllocator: can't allocate memory: you tried to ",
               "allocate ", nbytes, " bytes (out of memory)");
      s->deleter = [](void* p, void*) { std::free(p); };
      return s;
    }
    size_t rounded = (nbytes + kHugePage - 1) / kHugePage * kHugePage;
    s->data = large_buffers().take(rounded);
    if (!s->data) {
      s->data = std::aligned_alloc(kHugePage, rounded);
      TC_CHECK(s->data, Runtime, "DefaultCPUAllocator: can't allocate memory: you tried to ",
               "allocate ", nbytes, " bytes (out of memory)");
#ifdef MADV_HUGEPAGE
      madvise(s->data, rounded, MADV_HUGEPAGE);
#endif
    }
    s->ctx = reinterpret_cast<void*>(rounded);
    s->deleter = [](void* p, void* ctx) { large_buffers().put(p, reinterpret_cast<size_t>(ctx)); };
    return s;
  }
};
CPUAllocator g_cpu_allocator;
// meta and sparse: meta.cpp
Allocator* g_allocators[kNumDevices] = {&g_cpu_allocator, nullptr, nullptr, nullptr};
}  // namespace

Allocator* get_allocator(DeviceType d) {
  Allocator* a = g_allocators[int(d)];
  TC_CHECK(a, Runtime, "no allocator for device '", Device{d, -1}.str(),
           "': this build has no backend for it");
  return a;
}
void set_allocator(DeviceType d, Allocator* a) { g_allocators[int(d)] = a; }

Shape contiguous_strides(const Shape& sizes) {
  Shape st(sizes.size());
  int64_t s = 1;
  for (int64_t i = int64_t(sizes.size()) - 1; i >= 0; i--) {
    st[i] = s;
    // saturates: only an empty tensor (a 0 among its sizes) can get here with a huge product
    if (__builtin_mul_overflow(s, std::max<int64_t>(sizes[i], 1), &s)) s = INT64_MAX;
  }
  return st;
}

// Element count of a tensor to allocate: at most 2^50 (a (2^60, 0) tensor is empty, fine).
static int64_t checked_numel(const Shape& sizes, const char* op) {
  int64_t n = safe_numel(sizes, op);
  TC_CHECK(n <= (int64_t(1) << 50), Runtime, op, ": shape ", shape_str(sizes), " is too large");
  return n;
}

static thread_local bool t_inference_mode = false;
bool inference_mode() { return t_inference_mode; }
void set_inference_mode(bool on) { t_inference_mode = on; }
void check_same_device(const Tensor& a, const Tensor& b, const char* op) {
  TC_CHECK(a.device() == b.device(), Runtime, op,
           ": expected all tensors to be on the same device, but found ", a.device().str(), " and ",
           b.device().str());
}

void check_not_inference(const Tensor& t, const char* op) {
  TC_CHECK(!t.impl()->inference || t_inference_mode, Runtime, op,
           ": Inplace update to inference tensor outside InferenceMode is not allowed. You can "
           "make a clone to get a normal tensor before doing inplace update.");
}

Tensor empty(const Shape& sizes, ScalarType dtype, Device device) {
  int64_t n = checked_numel(sizes, "empty");
  auto impl = std::make_shared<TensorImpl>();
  impl->inference = t_inference_mode;
  impl->storage = get_allocator(device.type)->allocate(size_t(n) * itemsize(dtype));
  // "cuda" without an index is the current device, which the allocator filled in
  if (device.type != DeviceType::CUDA || device.index >= 0) impl->storage->device = device;
  impl->sizes = sizes;
  impl->strides = contiguous_strides(sizes);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

Tensor empty_like(const Tensor& t, ScalarType dtype) {
  return empty(t.sizes(), dtype == ScalarType::Undefined ? t.dtype() : dtype, t.device());
}

int64_t safe_numel(const Shape& sizes, const char* op) {
  int64_t n = 1;
  for (auto s : sizes) {
    TC_CHECK(s >= 0, Runtime, op, ": negative dimension ", s, " in shape ", shape_str(sizes));
    TC_CHECK(!__builtin_mul_overflow(n, s, &n), Runtime, op, ": shape ", shape_str(sizes),
             " has more elements than int64 can count (numel: integer multiplication overflow)");
  }
  return n;
}

// The one bounds check of every view (make_view, hence view, reshape, expand, narrow,
// as_strided, set_ and a checkpoint's tensor rebuild): the element count fits int64 and every
// element the layout can address, lowest to highest offset, lies inside the storage. All the
// arithmetic is overflow-checked, so no size, stride or offset from a user or a file can make
// a tensor read or write outside its buffer.
static void check_view_bounds(const TensorImpl& v, const char* op) {
  int64_t n = safe_numel(v.sizes, op);
  int64_t capacity = int64_t(v.storage->nbytes / itemsize(v.dtype));
  // An empty view may sit past its storage's end (x[1] of a (2, 0) tensor), as in PyTorch;
  // its offset is only bounded so that offset arithmetic (data(), resize_) cannot overflow.
  bool ok = v.offset >= 0 && v.offset <= std::max(capacity, int64_t(1) << 50);
  int64_t lo = v.offset, hi = v.offset;
  for (size_t i = 0; ok && n > 0 && i < v.sizes.size(); i++) {
    int64_t span;
    int64_t& end = v.strides[i] < 0 ? lo : hi;
    ok = !__builtin_mul_overflow(v.sizes[i] - 1, v.strides[i], &span) &&
         !__builtin_add_overflow(end, span, &end);
  }
  TC_CHECK(ok && (n == 0 || (lo >= 0 && hi < capacity)), Runtime, op, ": a view of shape ",
           shape_str(v.sizes), ", strides ", shape_str(v.strides), " and storage offset ", v.offset,
           " reaches outside its storage of ", capacity, " elements of ", dtype_name(v.dtype),
           " (storage size calculation overflowed or is out of bounds)");
}

Tensor make_view(const Tensor& base, Shape sizes, Shape strides, int64_t offset, const char* op,
                 ScalarType dtype) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = base.impl()->storage;
  impl->offset = offset;
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->dtype = dtype == ScalarType::Undefined ? base.dtype() : dtype;
  impl->inference = base.impl()->inference;
  check_view_bounds(*impl, op);
  return Tensor(std::move(impl));
}

Tensor alias(const Tensor& t) { return make_view(t, t.sizes(), t.strides(), t.offset()); }

Tensor scalar_tensor(const Scalar& s, ScalarType dtype) {
  Tensor t = empty({}, dtype);
  visit_dtype_complex(dtype, [&](auto v) {
    using T = decltype(v);
    *t.data_as<T>() = s.to<T>();
  });
  return t;
}

void check_fits(const Scalar& s, ScalarType dtype, const char* op) {
  if (s.kind == Scalar::Complex && !is_complex(dtype))
    TC_CHECK(s.im == 0, Runtime, op, ": value (", s.d, "+", s.im, "j) cannot be converted to type ",
             dtype_name(dtype), " without overflow");
  if (s.kind == Scalar::Bool || dtype == ScalarType::Bool || dtype == ScalarType::Double ||
      is_complex(dtype))
    return;
  bool ok = visit_dtype(dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_integral_v<T>) {
      constexpr double lo = std::is_signed_v<T> ? double(std::numeric_limits<T>::min())
                                                : -double(std::numeric_limits<T>::max());
      constexpr double hi = double(std::numeric_limits<T>::max());
      if (s.kind == Scalar::Float) return s.d >= lo && s.d <= hi;  // false for NaN
      return s.i >= int64_t(lo) && (std::is_same_v<T, int64_t> || s.i <= int64_t(hi));
    } else if constexpr (std::is_same_v<T, float>) {
      double m = std::numeric_limits<float>::max();
      return s.kind != Scalar::Float || !std::isfinite(s.d) || std::fabs(s.d) <= m;
    }
    return true;  // half, bfloat16: out-of-range values round to infinity, as in PyTorch
  });
  TC_CHECK(ok, Runtime, op, ": value ",
           s.kind == Scalar::Float ? std::to_string(s.d) : std::to_string(s.i),
           " cannot be converted to type ", dtype_name(dtype), " without overflow");
}

Tensor wrap_scalar(const Scalar& s) {
  Tensor t = scalar_tensor(s, s.kind == Scalar::Float     ? ScalarType::Double
                              : s.kind == Scalar::Complex ? ScalarType::ComplexDouble
                              : s.kind == Scalar::Int     ? ScalarType::Long
                                                          : ScalarType::Bool);
  t.impl()->wrapped_number = true;
  return t;
}

Scalar item(const Tensor& t) {
  TC_CHECK(t.numel() == 1, Runtime, "a Tensor with ", t.numel(),
           " elements cannot be converted to Scalar");
  Tensor h = on_host(t);
  return visit_dtype_complex(t.dtype(), [&](auto v) {
    using T = decltype(v);
    T x = *h.data_as<T>();
    if constexpr (IsComplex<T>::value)
      return Scalar::from_complex(double(x.real()), double(x.imag()));
    else if constexpr (std::is_same_v<T, bool>)
      return Scalar::from_bool(x);
    else if constexpr (std::is_integral_v<T>)
      return Scalar::from_int(int64_t(x));
    else
      return Scalar::from_double(double(x));
  });
}

void resize_(const Tensor& t, const Shape& sizes) {
  int64_t n = checked_numel(sizes, "resize_");  // n and offsets are below 2^50: no overflow
  size_t need = size_t(t.offset() + n) * t.itemsize();
  Storage& st = *t.impl()->storage;
  if (need > st.nbytes) {
    TC_CHECK(st.resizable, Runtime, "resize_: trying to resize storage that is not resizable");
    StoragePtr fresh = get_allocator(st.device.type)->allocate(need);
    get_allocator(st.device.type)->copy_bytes(fresh->data, st.data, st.nbytes);
    std::swap(st.data, fresh->data);
    std::swap(st.nbytes, fresh->nbytes);
    std::swap(st.deleter, fresh->deleter);
    std::swap(st.ctx, fresh->ctx);
  }
  t.impl()->sizes = sizes;
  t.impl()->strides = contiguous_strides(sizes);
}

bool Tensor::is_contiguous() const {
  if (numel() == 0) return true;
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; i--) {
    if (size(i) == 1) continue;
    if (size(i) == 0) return true;
    if (stride(i) != expected) return false;
    expected *= size(i);
  }
  return true;
}

int64_t wrap_dim(int64_t d, int64_t ndim, const char* op, const Shape* shape) {
  int64_t n = std::max<int64_t>(ndim, 1);
  if (d < -n || d >= n)
    throw TorchError(
        ErrorKind::Index,
        cat_str(op, ": dimension out of range (expected to be in range of [", -n, ", ", n - 1,
                "], but got ", d, ")", shape ? " for a tensor of shape " + shape_str(*shape) : ""));
  return d < 0 ? d + n : d;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  Shape r(n);
  for (size_t i = 0; i < n; i++) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    TC_CHECK(x == y || x == 1 || y == 1, Runtime, op, ": shapes ", shape_str(a), " and ",
             shape_str(b), " cannot be broadcast (size ", x, " vs ", y, " at dimension ", i, ")");
    r[i] = x == 1 ? y : x;
  }
  return r;
}

// ---------------------------------------------------------------- views
// Strides for viewing t with new sizes without copying, or false when the memory
// layout cannot express it (then reshape copies and view raises).
static bool view_strides(const Tensor& t, const Shape& sizes, Shape& out) {
  out = Shape(sizes.size());
  if (t.numel() == 0 || t.dim() == 0) {
    out = contiguous_strides(sizes);
    return true;
  }
  // Walk old dims in chunks that are contiguous among themselves and match them to new dims.
  int64_t view_d = int64_t(sizes.size()) - 1;
  int64_t chunk_base_stride = t.dim() ? t.stride(t.dim() - 1) : 1;
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t td = t.dim() - 1; td >= 0; td--) {
    tensor_numel *= t.size(td);
    if (td == 0 || (t.size(td - 1) != 1 && t.stride(td - 1) != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || sizes[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= sizes[view_d];
        view_d--;
      }
      if (view_numel != tensor_numel) return false;
      if (td > 0) {
        chunk_base_stride = t.stride(td - 1);
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

static Shape infer_size(Shape sizes, int64_t numel, const char* op, const Shape& from) {
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); i++) {
    if (sizes[i] == -1) {
      TC_CHECK(infer < 0, Runtime, op, ": only one dimension can be inferred in shape ",
               shape_str(sizes));
      infer = int64_t(i);
    } else {
      TC_CHECK(sizes[i] >= 0, Runtime, op, ": invalid shape dimension ", sizes[i], " in ",
               shape_str(sizes));
      TC_CHECK(!__builtin_mul_overflow(known, sizes[i], &known), Runtime, op, ": shape ",
               shape_str(sizes), " has more elements than int64 can count");
    }
  }
  if (infer >= 0) {
    TC_CHECK(known != 0 && numel % known == 0, Runtime, op, ": shape ", shape_str(sizes),
             " is invalid for input of shape ", shape_str(from), " (", numel, " elements)");
    sizes[infer] = numel / known;
  } else {
    TC_CHECK(known == numel, Runtime, op, ": shape ", shape_str(sizes),
             " is invalid for input of shape ", shape_str(from), " (", numel, " elements)");
  }
  return sizes;
}

Tensor view(const Tensor& t, Shape sizes) {
  sizes = infer_size(sizes, t.numel(), "view", t.sizes());
  Shape st;
  TC_CHECK(view_strides(t, sizes, st), Runtime, "view: size ", shape_str(sizes),
           " is not compatible with input of size ", shape_str(t.sizes()), " and stride ",
           shape_str(t.strides()),
           " (at least one dimension spans across two contiguous "
           "subspaces). Use .reshape(...) instead.");
  return make_view(t, sizes, st, t.offset(), "view");
}

Tensor reshape(const Tensor& t, Shape sizes) {
  sizes = infer_size(sizes, t.numel(), "reshape", t.sizes());
  Shape st;
  if (view_strides(t, sizes, st)) return make_view(t, sizes, st, t.offset());
  return view(contiguous(t), sizes);
}

Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) {
  d0 = wrap_dim(d0, t.dim(), "transpose", &t.sizes());
  d1 = wrap_dim(d1, t.dim(), "transpose", &t.sizes());
  Shape sz = t.sizes(), st = t.strides();
  if (t.dim() == 0) return alias(t);
  std::swap(sz[d0], sz[d1]);
  std::swap(st[d0], st[d1]);
  return make_view(t, sz, st, t.offset());
}

Tensor permute(const Tensor& t, const Shape& dims) {
  TC_CHECK(int64_t(dims.size()) == t.dim(), Runtime, "permute: number of dims ", dims.size(),
           " does not match the tensor's ", t.dim(), " dims (shape ", shape_str(t.sizes()), ")");
  Shape sz(dims.size()), st(dims.size());
  std::vector<bool> seen(dims.size());
  for (size_t i = 0; i < dims.size(); i++) {
    int64_t d = wrap_dim(dims[i], t.dim(), "permute", &t.sizes());
    TC_CHECK(!seen[d], Runtime, "permute: repeated dim ", d, " in ", shape_str(dims));
    seen[d] = true;
    sz[i] = t.size(d);
    st[i] = t.stride(d);
  }
  return make_view(t, sz, st, t.offset());
}

Tensor expand(const Tensor& t, Shape sizes) {
  int64_t nd = int64_t(sizes.size());
  TC_CHECK(nd >= t.dim(), Runtime, "expand: the number of sizes provided (", nd,
           ") must be greater or equal to the number of dimensions in the tensor (", t.dim(), ")");
  Shape st(nd);
  for (int64_t i = nd - 1; i >= 0; i--) {
    int64_t j = i - (nd - t.dim());
    if (j < 0) {
      TC_CHECK(sizes[i] >= 0, Runtime,
               "expand: size -1 is not allowed in a leading, new dimension");
      st[i] = 0;
      continue;
    }
    if (sizes[i] == -1) sizes[i] = t.size(j);
    if (t.size(j) == sizes[i]) {
      st[i] = t.stride(j);
    } else {
      TC_CHECK(t.size(j) == 1, Runtime, "expand: the expanded size of the tensor (", sizes[i],
               ") must match the existing size (", t.size(j), ") at non-singleton dimension ", i,
               ". Target sizes: ", shape_str(sizes), ". Tensor sizes: ", shape_str(t.sizes()));
      st[i] = 0;
    }
  }
  return make_view(t, sizes, st, t.offset(), "expand");
}

Tensor squeeze(const Tensor& t) {
  Shape sz, st;
  for (int64_t i = 0; i < t.dim(); i++)
    if (t.size(i) != 1) {
      sz.push_back(t.size(i));
      st.push_back(t.stride(i));
    }
  return make_view(t, sz, st, t.offset());
}

Tensor squeeze_dims(const Tensor& t, const Shape& dims) {
  std::vector<bool> drop(std::max<int64_t>(t.dim(), 1));
  for (auto d : dims) drop[wrap_dim(d, t.dim(), "squeeze", &t.sizes())] = true;
  Shape sz, st;
  for (int64_t i = 0; i < t.dim(); i++)
    if (!(drop[i] && t.size(i) == 1)) {
      sz.push_back(t.size(i));
      st.push_back(t.stride(i));
    }
  return make_view(t, sz, st, t.offset());
}

Tensor unsqueeze(const Tensor& t, int64_t d) {
  d = wrap_dim(d, t.dim() + 1, "unsqueeze");
  Shape sz = t.sizes(), st = t.strides();
  int64_t s = d < t.dim() ? t.size(d) * t.stride(d) : 1;
  sz.insert(d, 1);
  st.insert(d, s);
  return make_view(t, sz, st, t.offset());
}

static void check_dim_index(const Tensor& t, const char* op) {
  TC_CHECK(t.dim() > 0, Index, op, ": cannot be applied to a 0-dim tensor");
}

Tensor narrow(const Tensor& t, int64_t d, int64_t start, int64_t len) {
  check_dim_index(t, "narrow");
  d = wrap_dim(d, t.dim(), "narrow", &t.sizes());
  int64_t n = t.size(d);
  if (start < 0) start += n;
  TC_CHECK(start >= 0 && start <= n, Index, "narrow: start (", start,
           ") is out of range for dimension ", d, " of size ", n);
  TC_CHECK(len >= 0 && len <= n - start, Runtime, "narrow: start (", start, ") + length (", len,
           ") exceeds dimension ", d, " of size ", n);
  Shape sz = t.sizes();
  sz[d] = len;
  return make_view(t, sz, t.strides(), t.offset() + start * t.stride(d), "narrow");
}

Tensor select(const Tensor& t, int64_t d, int64_t index) {
  check_dim_index(t, "select");
  d = wrap_dim(d, t.dim(), "select", &t.sizes());
  int64_t n = t.size(d);
  if (index < -n || index >= n)
    throw TorchError(ErrorKind::Index,
                     cat_str("select: index ", index, " is out of bounds for dimension ", d,
                             " with size ", n, " (shape ", shape_str(t.sizes()), ")"));
  if (index < 0) index += n;
  Shape sz = t.sizes(), st = t.strides();
  int64_t off = t.offset() + index * st[d];
  sz.erase(d);
  st.erase(d);
  return make_view(t, sz, st, off);
}

Tensor slice(const Tensor& t, int64_t d, int64_t start, int64_t stop, int64_t step) {
  check_dim_index(t, "slice");
  d = wrap_dim(d, t.dim(), "slice", &t.sizes());
  TC_CHECK(step > 0, Value, "slice: step must be greater than zero, got ", step);
  int64_t n = t.size(d);
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  start = std::clamp<int64_t>(start, 0, n);
  stop = std::clamp<int64_t>(stop, start, n);
  Shape sz = t.sizes(), st = t.strides();
  sz[d] = stop == start ? 0 : (stop - start - 1) / step + 1;  // no overflow for any step
  int64_t off = t.offset() + start * st[d];
  if (sz[d] > 1) st[d] *= step;  // in range: the last element lies inside the dim
  return make_view(t, sz, st, off);
}

Tensor unfold(const Tensor& t, int64_t d, int64_t size, int64_t step) {
  d = wrap_dim(d, t.dim(), "unfold", &t.sizes());
  int64_t n = t.dim() ? t.size(d) : 1;
  TC_CHECK(size >= 0 && size <= n, Runtime, "unfold: size (", size, ") must be in [0, ", n,
           "] for dimension ", d, " of shape ", shape_str(t.sizes()));
  TC_CHECK(step > 0, Runtime, "unfold: step must be > 0, got ", step);
  Shape sz = t.sizes(), st = t.strides();
  if (t.dim() == 0) {
    sz.push_back(size);
    st.push_back(1);
    return make_view(t, sz, st, t.offset());
  }
  sz[d] = (n - size) / step + 1;
  sz.push_back(size);
  st.push_back(t.stride(d));
  st[d] = t.stride(d) * step;
  return make_view(t, sz, st, t.offset());
}

Tensor as_strided(const Tensor& t, Shape sizes, Shape strides, int64_t offset) {
  TC_CHECK(sizes.size() == strides.size(), Runtime, "as_strided: sizes ", shape_str(sizes),
           " and strides ", shape_str(strides), " must have the same length");
  for (auto st : strides)
    TC_CHECK(st >= 0, Runtime, "as_strided: negative strides are not supported, got ",
             shape_str(strides));
  TC_CHECK(offset >= 0, Runtime, "as_strided: negative storage offset ", offset);
  return make_view(t, sizes, strides, offset, "as_strided");
}

Tensor diagonal(const Tensor& t, int64_t offset, int64_t d1, int64_t d2) {
  TC_CHECK(t.dim() >= 2, Runtime, "diagonal: expected a tensor with at least 2 dims, got shape ",
           shape_str(t.sizes()));
  d1 = wrap_dim(d1, t.dim(), "diagonal", &t.sizes());
  d2 = wrap_dim(d2, t.dim(), "diagonal", &t.sizes());
  TC_CHECK(d1 != d2, Runtime, "diagonal: dimensions cannot be identical ", d1, ", ", d2);
  int64_t off = t.offset(), len;
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(t.size(d1), t.size(d2) - offset), 0);
    if (len) off += offset * t.stride(d2);
  } else {
    len = std::max<int64_t>(std::min(t.size(d1) + offset, t.size(d2)), 0);
    if (len) off -= offset * t.stride(d1);
  }
  Shape sz, st;
  for (int64_t i = 0; i < t.dim(); i++)
    if (i != d1 && i != d2) {
      sz.push_back(t.size(i));
      st.push_back(t.stride(i));
    }
  sz.push_back(len);
  st.push_back(t.stride(d1) + t.stride(d2));
  return make_view(t, sz, st, off);
}

Tensor flatten(const Tensor& t, int64_t start, int64_t end) {
  if (t.dim() == 0) return reshape(t, {1});
  start = wrap_dim(start, t.dim(), "flatten", &t.sizes());
  end = wrap_dim(end, t.dim(), "flatten", &t.sizes());
  TC_CHECK(start <= end, Runtime, "flatten: start_dim (", start, ") cannot come after end_dim (",
           end, ")");
  Shape sz;
  for (int64_t i = 0; i < start; i++) sz.push_back(t.size(i));
  int64_t n = 1;
  for (int64_t i = start; i <= end; i++) n *= t.size(i);
  sz.push_back(n);
  for (int64_t i = end + 1; i < t.dim(); i++) sz.push_back(t.size(i));
  return reshape(t, sz);
}

// ---------------------------------------------------------------- copies
bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.impl()->storage != b.impl()->storage || a.numel() == 0 || b.numel() == 0) return false;
  auto range = [](const Tensor& t, int64_t& lo, int64_t& hi) {
    lo = hi = t.offset();
    for (int64_t i = 0; i < t.dim(); i++) hi += (t.size(i) - 1) * t.stride(i);
  };
  int64_t alo, ahi, blo, bhi;
  range(a, alo, ahi);
  range(b, blo, bhi);
  return alo * int64_t(a.itemsize()) <= (bhi + 1) * int64_t(b.itemsize()) - 1 &&
         blo * int64_t(b.itemsize()) <= (ahi + 1) * int64_t(a.itemsize()) - 1;
}

Tensor contiguous(const Tensor& t) { return t.is_contiguous() ? t : clone(t); }

Tensor clone(const Tensor& t) {
  Tensor r = empty_like(t);
  copy_(r, t);
  return r;
}

Tensor to_dtype(const Tensor& t, ScalarType dtype, bool copy) {
  if (dtype == t.dtype() && !copy) return t;
  Tensor r = empty_like(t, dtype);
  copy_(r, t);
  return r;
}

}  // namespace tc
