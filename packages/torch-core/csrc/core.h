// core.h — the tensor core's data model.
//
// A Tensor is a handle to a TensorImpl: a view (offset, sizes, strides, dtype) onto a
// Storage (a refcounted byte buffer with a device and a deleter). Views share the storage.
//
//   Tensor x = empty({2, 3}, ScalarType::Float);   // contiguous: strides {3, 1}
//   Tensor y = transpose(x, 0, 1);                  // sizes {3, 2}, strides {1, 3}, same storage
//
// Note [Layout]: sizes and strides are counted in elements, not bytes; offset too. The
// element (i0, i1, ...) lives at data_ptr + (offset + sum_k i_k * stride_k) * itemsize.
// Strides may be zero (expand) and need not be sorted (transpose).
//
// Note [Versions]: every in-place write bumps the storage's version counter; all views of
// a storage share it, which is what autograd checks when a saved tensor is reused.
//
// Note [Errors]: user errors are thrown as TorchError with a Python exception kind; the
// binding translates them. Nothing here aborts on bad input.
#pragma once

#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tc {

// ---------------------------------------------------------------- errors
enum class ErrorKind { Runtime, Index, Type, Value, NotImplemented, OutOfMemory };

struct TorchError : std::runtime_error {
  ErrorKind kind;
  TorchError(ErrorKind k, const std::string& msg) : std::runtime_error(msg), kind(k) {}
};

// Messages are built without iostreams for strings and numbers: a stream's number formatting
// goes through the process's std::locale, which crashed inside our module where another
// libstdc++ had been loaded first (seen on the GPU machine, Python 3.12).
namespace detail {
template <class T>
void append(std::string& s, const T& v) {
  if constexpr (std::is_convertible_v<const T&, const char*>) {
    const char* p = v;
    s += p ? p : "(null)";
  } else if constexpr (std::is_convertible_v<const T&, const std::string&>) {
    s += static_cast<const std::string&>(v);
  } else if constexpr (std::is_same_v<T, char> || std::is_same_v<T, signed char> ||
                       std::is_same_v<T, unsigned char>) {
    s += char(v);  // as a stream prints them
  } else if constexpr (std::is_same_v<T, bool>) {
    s += v ? '1' : '0';
  } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    if constexpr (std::is_enum_v<T>)
      s += std::to_string(static_cast<std::underlying_type_t<T>>(v));
    else
      s += std::to_string(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", double(v));  // a stream's default: 6 significant digits
    s += b;
  } else {
    std::ostringstream ss;
    ss << v;
    s += ss.str();
  }
}
}  // namespace detail

template <class... Args>
std::string cat_str(const Args&... args) {
  std::string s;
  (detail::append(s, args), ...);
  return s;
}

template <class... Args>
[[noreturn]] void fail(ErrorKind kind, const Args&... args) {
  throw TorchError(kind, cat_str(args...));
}

#define TC_CHECK(cond, kind, ...)                                \
  do {                                                           \
    if (!(cond)) ::tc::fail(::tc::ErrorKind::kind, __VA_ARGS__); \
  } while (0)

// ---------------------------------------------------------------- small vector
// Shapes have few dims: keep up to 6 inline so creating a tensor does not allocate for them.
template <class T, int N = 6>
class SmallVec {
 public:
  SmallVec() = default;
  SmallVec(std::initializer_list<T> l) { assign(l.begin(), l.end()); }
  template <class It>
  SmallVec(It b, It e) {
    assign(b, e);
  }
  explicit SmallVec(size_t n, T v = T()) { resize(n, v); }
  SmallVec(const SmallVec& o) { assign(o.begin(), o.end()); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVec(const std::vector<T>& v) { assign(v.begin(), v.end()); }

  template <class It>
  void assign(It b, It e) {
    size_ = 0;
    for (; b != e; ++b) push_back(*b);
  }
  void push_back(T v) {
    if (size_ == cap()) grow();
    data()[size_++] = v;
  }
  void pop_back() { --size_; }
  void resize(size_t n, T v = T()) {
    while (size_ > n) --size_;
    while (size_ < n) push_back(v);
  }
  void insert(size_t pos, T v) {
    push_back(v);
    for (size_t i = size_ - 1; i > pos; --i) data()[i] = data()[i - 1];
    data()[pos] = v;
  }
  void erase(size_t pos) {
    for (size_t i = pos; i + 1 < size_; ++i) data()[i] = data()[i + 1];
    --size_;
  }
  T* data() { return heap_.empty() ? inline_ : heap_.data(); }
  const T* data() const { return heap_.empty() ? inline_ : heap_.data(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  bool operator==(const SmallVec& o) const {
    return size_ == o.size_ && std::equal(begin(), end(), o.begin());
  }
  bool operator!=(const SmallVec& o) const { return !(*this == o); }
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

 private:
  size_t cap() const { return heap_.empty() ? N : heap_.size(); }
  void grow() {
    std::vector<T> h(cap() * 2);
    std::copy(data(), data() + size_, h.begin());
    heap_.swap(h);
  }
  T inline_[N];
  std::vector<T> heap_;
  size_t size_ = 0;
};

using Shape = SmallVec<int64_t>;

std::string shape_str(const Shape& s);  // "(2, 3)"

// ---------------------------------------------------------------- 16-bit floats
// Storage formats only: arithmetic converts to float and back.
struct Half {
  uint16_t x;
  Half() = default;
  Half(float f);  // round to nearest even
  operator float() const;
};
struct BFloat16 {
  uint16_t x;
  BFloat16() = default;
  BFloat16(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffff) > 0x7f800000) {
      x = 0x7fc0;  // NaN
    } else {
      u += 0x7fff + ((u >> 16) & 1);
      x = uint16_t(u >> 16);
    }
  }
  operator float() const {
    uint32_t u = uint32_t(x) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

// ---------------------------------------------------------------- dtypes
// clang-format off
// The order is the dispatch-table index. X(enum name, C++ type, python name)
#define TC_FORALL_DTYPES(X)         \
  X(Bool, bool, "bool")             \
  X(Byte, uint8_t, "uint8")         \
  X(Char, int8_t, "int8")           \
  X(Short, int16_t, "int16")        \
  X(Int, int32_t, "int32")          \
  X(Long, int64_t, "int64")         \
  X(Half, ::tc::Half, "float16")    \
  X(BFloat16, ::tc::BFloat16, "bfloat16") \
  X(Float, float, "float32")        \
  X(Double, double, "float64")
// Complex dtypes come after the real ones. Ops that support them register kernels for them
// and visit them with visit_dtype_complex; visit_dtype covers the real dtypes only, so code
// written for ordered numbers never sees a complex type.
#define TC_FORALL_COMPLEX(X)                          \
  X(ComplexFloat, std::complex<float>, "complex64") \
  X(ComplexDouble, std::complex<double>, "complex128")
#define TC_FORALL_DTYPES_AND_COMPLEX(X) TC_FORALL_DTYPES(X) TC_FORALL_COMPLEX(X)

// clang-format on
enum class ScalarType : int8_t {
#define TC_ENUM(name, T, py) name,
  TC_FORALL_DTYPES_AND_COMPLEX(TC_ENUM)
#undef TC_ENUM
      NumTypes,
  Undefined
};
using c64 = std::complex<float>;
using c128 = std::complex<double>;
constexpr int kNumDTypes = int(ScalarType::NumTypes);

size_t itemsize(ScalarType t);
const char* dtype_name(ScalarType t);   // "float32"
const char* legacy_name(ScalarType t);  // "Float" (for "torch.FloatTensor")
inline bool is_floating(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16 || t == ScalarType::Float ||
         t == ScalarType::Double;
}
inline bool is_complex(ScalarType t) {
  return t == ScalarType::ComplexFloat || t == ScalarType::ComplexDouble;
}
// The real dtype of a complex one (complex64 -> float32); real dtypes map to themselves.
inline ScalarType real_dtype(ScalarType t) {
  return t == ScalarType::ComplexFloat    ? ScalarType::Float
         : t == ScalarType::ComplexDouble ? ScalarType::Double
                                          : t;
}
// The complex dtype holding a real floating one (float16/bfloat16/float32 -> complex64).
inline ScalarType complex_dtype(ScalarType t) {
  return t == ScalarType::Double || t == ScalarType::ComplexDouble ? ScalarType::ComplexDouble
                                                                   : ScalarType::ComplexFloat;
}
inline bool is_integral(ScalarType t, bool include_bool) {
  return (t >= ScalarType::Byte && t <= ScalarType::Long) ||
         (include_bool && t == ScalarType::Bool);
}
ScalarType promote_types(ScalarType a, ScalarType b);
ScalarType default_dtype();
void set_default_dtype(ScalarType t);
bool can_cast(ScalarType from, ScalarType to);  // PyTorch's "same kind" rule

template <class T>
struct DTypeOf;
#define TC_DTYPEOF(name, T, py)                           \
  template <>                                             \
  struct DTypeOf<T> {                                     \
    static constexpr ScalarType value = ScalarType::name; \
  };
TC_FORALL_DTYPES_AND_COMPLEX(TC_DTYPEOF)
#undef TC_DTYPEOF

// Call f.template operator()<T>() with T the C++ type of dtype t.
template <class F>
decltype(auto) visit_dtype(ScalarType t, F&& f) {
  switch (t) {
#define TC_CASE(name, T, py) \
  case ScalarType::name:     \
    return f(T());
    TC_FORALL_DTYPES(TC_CASE)
#undef TC_CASE
    default:
      fail(is_complex(t) ? ErrorKind::NotImplemented : ErrorKind::Runtime,
           is_complex(t) ? "not implemented for complex dtypes: " : "unknown dtype ",
           int(t) < kNumDTypes ? dtype_name(t) : "");
  }
}
// visit_dtype that also visits the complex dtypes.
template <class F>
decltype(auto) visit_dtype_complex(ScalarType t, F&& f) {
  if (t == ScalarType::ComplexFloat) return f(c64());
  if (t == ScalarType::ComplexDouble) return f(c128());
  return visit_dtype(t, std::forward<F>(f));
}
template <class T>
struct IsComplex : std::false_type {};
template <class T>
struct IsComplex<std::complex<T>> : std::true_type {};

// Compute type: 16-bit floats compute in float.
template <class T>
struct AccOf {
  using type = T;
};
template <>
struct AccOf<Half> {
  using type = float;
};
template <>
struct AccOf<BFloat16> {
  using type = float;
};

// ---------------------------------------------------------------- scalars
// A Python number: its kind decides how it promotes ("weak" scalars).
struct Scalar {
  enum Kind { Bool, Int, Float, Complex } kind = Int;
  double d = 0;   // the value (the real part of a complex number)
  double im = 0;  // the imaginary part of a complex number
  int64_t i = 0;
  Scalar() = default;
  static Scalar from_bool(bool b) {
    Scalar s;
    s.kind = Bool;
    s.i = b;
    s.d = b;
    return s;
  }
  static Scalar from_int(int64_t v) {
    Scalar s;
    s.kind = Int;
    s.i = v;
    s.d = double(v);
    return s;
  }
  static Scalar from_double(double v) {
    Scalar s;
    s.kind = Float;
    s.d = v;
    s.i = v > -9.2e18 && v < 9.2e18 ? int64_t(v) : 0;  // NaN, inf, huge: no UB (use d)
    return s;
  }
  static Scalar from_complex(double re, double imag) {
    Scalar s = from_double(re);
    s.kind = Complex;
    s.im = imag;
    return s;
  }
  // The value as T; a complex number converted to a real type keeps its real part.
  template <class T>
  T to() const {
    if constexpr (IsComplex<T>::value) {
      using R = typename T::value_type;
      return kind == Float || kind == Complex ? T(R(d), R(im)) : T(R(i), R(0));
    } else {
      if (kind == Float || kind == Complex) return T(static_cast<typename AccOf<T>::type>(d));
      return T(static_cast<typename AccOf<T>::type>(i));
    }
  }
  ScalarType natural_dtype() const {  // the dtype a tensor made from this number gets
    return kind == Bool      ? ScalarType::Bool
           : kind == Int     ? ScalarType::Long
           : kind == Complex ? complex_dtype(default_dtype())
                             : default_dtype();
  }
};

// Raises unless `s` can be stored as `dtype` without overflow (PyTorch's rule): integers in the
// type's range (unsigned types also take negatives down to -max, which wrap), no NaN or
// infinity for integer types, no finite value beyond float32's range for float32.
void check_fits(const Scalar& s, ScalarType dtype, const char* op);

// ---------------------------------------------------------------- devices
// meta: tensors with shapes and dtypes but no memory (meta.cpp), for shape inference
// SparseBase: the dense-shaped part of a sparse tensor (torch/_sparse.py), which holds no
// values; no kernel is registered for it, so every op that is not sparse-aware raises.
enum class DeviceType : int8_t { CPU = 0, CUDA = 1, Meta = 2, SparseBase = 3 };
constexpr int kNumDevices = 4;
const char* device_type_name(DeviceType t);  // "cpu", "cuda", "meta", "sparse"
struct Device {
  DeviceType type = DeviceType::CPU;
  int index = -1;
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  std::string str() const;
};

// ---------------------------------------------------------------- storage
// A byte buffer. The deleter runs when the last view goes; `owner` keeps a foreign
// buffer alive (a NumPy array, a DLPack capsule, a shared-memory mapping).
struct Storage {
  void* data = nullptr;
  size_t nbytes = 0;
  Device device;
  void (*deleter)(void* data, void* ctx) = nullptr;
  void* ctx = nullptr;
  int64_t version = 0;  // Note [Versions]
  bool resizable = true;
  ~Storage() {
    if (deleter) deleter(data, ctx);
  }
};
using StoragePtr = std::shared_ptr<Storage>;

// Allocators are per device: a backend (CUDA, shared memory) installs its own.
struct Allocator {
  virtual ~Allocator() = default;
  virtual StoragePtr allocate(size_t nbytes) = 0;
  // Copy bytes between two of this allocator's buffers (resize_ keeping the old contents).
  virtual void copy_bytes(void* dst, const void* src, size_t n) {
    if (n) std::memcpy(dst, src, n);
  }
};
Allocator* get_allocator(DeviceType d);
void set_allocator(DeviceType d, Allocator* a);

// ---------------------------------------------------------------- tensor
struct TensorImpl {
  StoragePtr storage;
  int64_t offset = 0;  // elements, Note [Layout]
  Shape sizes, strides;
  ScalarType dtype = ScalarType::Float;
  bool requires_grad = false;
  bool wrapped_number = false;  // made from a Python scalar: promotes weakly
  bool inference = false;       // Note [Inference tensors]
};

// Note [Inference tensors]: tensors allocated inside torch.inference_mode() (and views of
// them) are inference tensors, as in PyTorch: outside inference mode they may not be written
// in place, saved for backward or made to require grad, which keeps autograd from ever
// depending on values computed without version tracking. The mode is per thread.

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> i) : impl_(std::move(i)) {}
  bool defined() const { return bool(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }

  int64_t dim() const { return int64_t(impl_->sizes.size()); }
  const Shape& sizes() const { return impl_->sizes; }
  const Shape& strides() const { return impl_->strides; }
  int64_t size(int64_t d) const { return impl_->sizes[d]; }
  int64_t stride(int64_t d) const { return impl_->strides[d]; }
  int64_t offset() const { return impl_->offset; }
  ScalarType dtype() const { return impl_->dtype; }
  Device device() const { return impl_->storage->device; }
  size_t itemsize() const { return tc::itemsize(impl_->dtype); }
  int64_t numel() const {
    int64_t n = 1;
    for (auto s : impl_->sizes) n *= s;
    return n;
  }
  char* data() const {
    return static_cast<char*>(impl_->storage->data) + impl_->offset * int64_t(itemsize());
  }
  template <class T>
  T* data_as() const {
    return reinterpret_cast<T*>(data());
  }
  bool is_contiguous() const;
  bool same(const Tensor& o) const { return impl_ == o.impl_; }
  void bump_version() const { impl_->storage->version++; }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

// ---------------------------------------------------------------- tensor basics (tensor.cpp)
bool inference_mode();  // Note [Inference tensors]
void set_inference_mode(bool on);
void check_not_inference(const Tensor& t, const char* op);  // raises for in-place writes
void check_same_device(const Tensor& a, const Tensor& b, const char* op);  // RuntimeError
Shape contiguous_strides(const Shape& sizes);
int64_t wrap_dim(int64_t d, int64_t ndim, const char* op,
                 const Shape* shape = nullptr);  // negative dims; IndexError
Tensor empty(const Shape& sizes, ScalarType dtype, Device device = Device());
Tensor empty_like(const Tensor& t, ScalarType dtype = ScalarType::Undefined);
// A tensor sharing `base`'s storage; raises (naming `op`) unless the layout lies inside it.
// `dtype` reinterprets the elements (view_as_real); sizes, strides, offset are in its units.
Tensor make_view(const Tensor& base, Shape sizes, Shape strides, int64_t offset,
                 const char* op = "view", ScalarType dtype = ScalarType::Undefined);
int64_t safe_numel(const Shape& sizes, const char* op);  // overflow-checked element count
Tensor scalar_tensor(const Scalar& s, ScalarType dtype);
Tensor wrap_scalar(const Scalar& s);  // 0-d tensor flagged as a wrapped number
Scalar item(const Tensor& t);
void resize_(const Tensor& t, const Shape& sizes);

// views
Tensor view(const Tensor& t, Shape sizes);
Tensor reshape(const Tensor& t, Shape sizes);
Tensor transpose(const Tensor& t, int64_t d0, int64_t d1);
Tensor permute(const Tensor& t, const Shape& dims);
Tensor expand(const Tensor& t, Shape sizes);
Tensor squeeze(const Tensor& t);
Tensor squeeze_dims(const Tensor& t, const Shape& dims);
Tensor unsqueeze(const Tensor& t, int64_t d);
Tensor narrow(const Tensor& t, int64_t d, int64_t start, int64_t len);
Tensor select(const Tensor& t, int64_t d, int64_t index);
Tensor slice(const Tensor& t, int64_t d, int64_t start, int64_t stop, int64_t step);
Tensor unfold(const Tensor& t, int64_t d, int64_t size, int64_t step);
Tensor as_strided(const Tensor& t, Shape sizes, Shape strides, int64_t offset);
Tensor diagonal(const Tensor& t, int64_t offset, int64_t d1, int64_t d2);
Tensor flatten(const Tensor& t, int64_t start, int64_t end);
Tensor alias(const Tensor& t);  // a new handle onto the same view (detach, .data)

// copies
Tensor contiguous(const Tensor& t);
Tensor to_dtype(const Tensor& t, ScalarType dtype, bool copy = false);
Tensor clone(const Tensor& t);
// copy_ and fill_ do not bump versions: the user-facing in-place ops that call them do.
void copy_(const Tensor& dst, const Tensor& src);  // broadcasts src, casts dtype
bool may_overlap(const Tensor& a, const Tensor& b);

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

}  // namespace tc
