// bind_interop.cpp — tensors from Python data, NumPy (shared memory), DLPack (CPU and CUDA)
// and the CUDA Array Interface (CuPy, Numba).
#include <pybind11/numpy.h>

#include "bind.h"
#include "cuda.h"

namespace tc {

// ---------------------------------------------------------------- Python data
namespace {
enum Kind { KBool, KInt, KFloat, KComplex };

struct DataScan {
  Shape shape;
  int kind = KBool;
  bool any = false;
};

bool is_seq(py::handle h) {
  return (PyList_Check(h.ptr()) || PyTuple_Check(h.ptr()) ||
          (PySequence_Check(h.ptr()) && !py::isinstance<py::str>(h) &&
           !py::isinstance<py::bytes>(h) && !py::isinstance<Tensor>(h)));
}

int kind_of_dtype(ScalarType t) {
  return t == ScalarType::Bool ? KBool : is_floating(t) ? KFloat : is_complex(t) ? KComplex : KInt;
}

void scan(py::handle h, size_t depth, DataScan& s) {
  if (py::isinstance<Tensor>(h)) {
    const Tensor& t = h.cast<const Tensor&>();
    if (depth == s.shape.size())
      for (auto d : t.sizes()) s.shape.push_back(d);
    s.kind = std::max(s.kind, kind_of_dtype(t.dtype()));
    s.any = true;
    return;
  }
  if (is_seq(h)) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
    if (depth == s.shape.size()) s.shape.push_back(int64_t(seq.size()));
    for (auto item : seq) scan(item, depth + 1, s);
    return;
  }
  PyObject* o = h.ptr();
  if (PyBool_Check(o))
    s.kind = std::max<int>(s.kind, KBool);
  else if (PyLong_Check(o) || (PyObject_HasAttrString(o, "__index__") && !PyFloat_Check(o)))
    s.kind = std::max<int>(s.kind, KInt);
  else if (PyComplex_Check(o))
    s.kind = KComplex;
  else if (PyFloat_Check(o) || PyObject_HasAttrString(o, "__float__"))
    s.kind = std::max<int>(s.kind, KFloat);
  else
    fail(ErrorKind::Type, "tensor(): could not infer dtype of ", type_name(h));
  s.any = true;
}

template <class T>
void fill_data(py::handle h, const Shape& shape, size_t depth, T*& p) {
  if (py::isinstance<Tensor>(h)) {
    const Tensor& t = h.cast<const Tensor&>();
    Shape rest(shape.begin() + depth, shape.end());
    TC_CHECK(t.sizes() == rest, Value, "tensor(): expected a tensor of shape ", shape_str(rest),
             " at dim ", depth, " (got ", shape_str(t.sizes()), ")");
    Tensor c = contiguous(to_dtype(t, DTypeOf<T>::value));
    std::memcpy(p, c.data(), size_t(c.numel()) * sizeof(T));
    p += c.numel();
    return;
  }
  if (depth < shape.size()) {
    TC_CHECK(is_seq(h), Value, "tensor(): expected a sequence of length ", shape[depth], " at dim ",
             depth, " (got ", type_name(h), ")");
    py::sequence seq = py::reinterpret_borrow<py::sequence>(h);
    TC_CHECK(int64_t(seq.size()) == shape[depth], Value, "tensor(): expected sequence of length ",
             shape[depth], " at dim ", depth, " (got ", seq.size(), ")");
    for (auto item : seq) fill_data<T>(item, shape, depth + 1, p);
    return;
  }
  TC_CHECK(!is_seq(h), Value, "tensor(): too many dimensions in the data (ragged nesting at dim ",
           depth, ")");
  Scalar v = to_scalar(h, "tensor", "data");
  if constexpr (std::is_integral_v<T>) check_fits(v, DTypeOf<T>::value, "tensor");  // floats: inf
  if (v.kind == Scalar::Complex) check_fits(v, DTypeOf<T>::value, "tensor");
  *p++ = v.to<T>();
}
}  // namespace

static Tensor tensor_from_data(py::handle data, py::handle dtype_arg) {
  DataScan s;
  scan(data, 0, s);
  ScalarType dt = opt_dtype(dtype_arg, "tensor");
  if (dt == ScalarType::Undefined) {
    dt = s.kind == KComplex ? complex_dtype(default_dtype())
         : s.kind == KFloat ? default_dtype()
         : s.kind == KInt   ? ScalarType::Long
                            : ScalarType::Bool;
    if (!s.any) dt = default_dtype();  // tensor([]) is float
  }
  Tensor r = empty(s.shape, dt);
  visit_dtype_complex(dt, [&](auto v) {
    using T = decltype(v);
    T* p = r.data_as<T>();
    fill_data<T>(data, s.shape, 0, p);
  });
  return r;
}

// ---------------------------------------------------------------- NumPy
// The dtypes NumPy and the CUDA Array Interface share: NumPy's format character and the
// interface's typestr (little-endian; one byte needs no order).
struct ArrayType {
  ScalarType dtype;
  const char *format, *typestr;
};
static constexpr ArrayType kArrayTypes[] = {
    {ScalarType::Bool, "?", "|b1"},
    {ScalarType::Byte, "B", "|u1"},
    {ScalarType::Char, "b", "|i1"},
    {ScalarType::Short, "h", "<i2"},
    {ScalarType::Int, "i", "<i4"},
    {ScalarType::Long, "q", "<i8"},
    {ScalarType::Half, "e", "<f2"},
    {ScalarType::Float, "f", "<f4"},
    {ScalarType::Double, "d", "<f8"},
    {ScalarType::ComplexFloat, "F", "<c8"},
    {ScalarType::ComplexDouble, "D", "<c16"},
};

static const ArrayType* array_type(ScalarType t) {
  for (const ArrayType& a : kArrayTypes)
    if (a.dtype == t) return &a;
  return nullptr;
}

static const char* numpy_format(ScalarType t) {
  const ArrayType* a = array_type(t);
  if (!a) fail(ErrorKind::Type, "numpy(): NumPy has no dtype for torch.", dtype_name(t));
  return a->format;
}

static ScalarType from_numpy_dtype(const py::dtype& d) {
  char kind = d.kind();
  size_t size = d.itemsize();
  if (kind == 'b') return ScalarType::Bool;
  if (kind == 'u' && size == 1) return ScalarType::Byte;
  if (kind == 'i') {
    switch (size) {
      case 1:
        return ScalarType::Char;
      case 2:
        return ScalarType::Short;
      case 4:
        return ScalarType::Int;
      case 8:
        return ScalarType::Long;
    }
  }
  if (kind == 'f') {
    switch (size) {
      case 2:
        return ScalarType::Half;
      case 4:
        return ScalarType::Float;
      case 8:
        return ScalarType::Double;
    }
  }
  if (kind == 'c' && size == 8) return ScalarType::ComplexFloat;
  if (kind == 'c' && size == 16) return ScalarType::ComplexDouble;
  fail(ErrorKind::Type, "can't convert np.ndarray of type ", std::string(py::str(d)),
       ". The only supported types are: complex128, complex64, float64, float32, float16, "
       "int64, int32, int16, int8, uint8, and bool.");
}

// A storage that borrows a foreign buffer and keeps its Python owner alive.
static StoragePtr borrowed_storage(void* data, size_t nbytes, py::object owner) {
  auto s = std::make_shared<Storage>();
  s->data = data;
  s->nbytes = nbytes;
  s->ctx = owner.release().ptr();
  s->resizable = false;
  s->deleter = [](void*, void* ctx) {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    Py_DECREF(static_cast<PyObject*>(ctx));
  };
  return s;
}

static Tensor from_numpy(py::handle obj) {
  TC_CHECK(py::isinstance<py::array>(obj), Type, "from_numpy(): expected np.ndarray (got ",
           type_name(obj), ")");
  py::array a = py::reinterpret_borrow<py::array>(obj);
  ScalarType dt = from_numpy_dtype(a.dtype());
  TC_CHECK(a.dtype().byteorder() != '>', Value,
           "from_numpy(): given numpy array has byte order "
           "different from the native byte order; convert it with "
           "arr.astype(arr.dtype.newbyteorder('='))");
  int64_t isz = int64_t(itemsize(dt)), extent = 1, n = 1;
  Shape sizes, strides;
  for (py::ssize_t i = 0; i < a.ndim(); i++) {
    int64_t st = a.strides(i);
    TC_CHECK(
        st >= 0, Value,
        "At least one stride in the given numpy array is negative, and tensors "
        "with negative strides are not currently supported. (You can probably work around this "
        "by making a copy of your array with array.copy().)");
    TC_CHECK(st % isz == 0, Value,
             "from_numpy(): given numpy array strides not a multiple of the "
             "element byte size. Copy the numpy array to reallocate the memory.");
    sizes.push_back(a.shape(i));
    strides.push_back(st / isz);
    extent += (a.shape(i) - 1) * (st / isz);
    n *= a.shape(i);
  }
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = borrowed_storage(const_cast<void*>(a.data()), n ? size_t(extent * isz) : 0,
                                   py::reinterpret_borrow<py::object>(obj));
  impl->sizes = sizes;
  impl->strides = strides;
  impl->dtype = dt;
  return Tensor(std::move(impl));
}

// NumPy is torch-core's optional extra: without it, say which extra brings it.
static void require_numpy(const char* op) {
  try {
    py::module_::import("numpy");
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_ImportError)) throw;
    std::string msg = std::string(op) +
                      ": NumPy is not installed; it is torch-core's optional 'numpy' extra: "
                      "pip install \"./packages/torch-core[numpy]\" from a checkout of the "
                      "repository (or pip install numpy)";
    PyErr_SetString(PyExc_ModuleNotFoundError, msg.c_str());
    throw py::error_already_set();
  }
}

static py::array to_numpy(py::handle self) {
  require_numpy("numpy()");
  const Tensor& t = self.cast<const Tensor&>();
  TC_CHECK(t.device().type == DeviceType::CPU, Type, "can't convert ", t.device().str(),
           " tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
  std::vector<py::ssize_t> shape, strides;
  for (int64_t i = 0; i < t.dim(); i++) {
    shape.push_back(t.size(i));
    strides.push_back(t.stride(i) * int64_t(t.itemsize()));
  }
  return py::array(py::dtype(numpy_format(t.dtype())), shape, strides, t.data(),
                   py::reinterpret_borrow<py::object>(self));
}

// ---------------------------------------------------------------- DLPack
// The DLPack ABI (v0.8 "unversioned" form), declared from the specification.
struct DLDevice {
  int32_t device_type, device_id;
};
struct DLDataType {
  uint8_t code, bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6
};

struct DLPackExport {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed;
};

static DLDataType dl_dtype(ScalarType t) {
  uint8_t bits = uint8_t(itemsize(t) * 8);
  switch (t) {
    case ScalarType::Bool:
      return {kDLBool, 8, 1};
    case ScalarType::Byte:
      return {kDLUInt, bits, 1};
    case ScalarType::Half:
    case ScalarType::Float:
    case ScalarType::Double:
      return {kDLFloat, bits, 1};
    case ScalarType::BFloat16:
      return {kDLBfloat, bits, 1};
    case ScalarType::ComplexFloat:
    case ScalarType::ComplexDouble:
      return {kDLComplex, bits, 1};
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
      return {kDLInt, bits, 1};
    default:
      fail(ErrorKind::Type, "to_dlpack: no DLPack dtype for ", dtype_name(t));
  }
}

static ScalarType from_dl_dtype(DLDataType d) {
  TC_CHECK(d.lanes == 1, Type, "from_dlpack: vector dtypes (lanes != 1) are not supported");
  for (int i = 0; i < kNumDTypes; i++) {
    DLDataType c = dl_dtype(ScalarType(i));
    if (c.code == d.code && c.bits == d.bits) return ScalarType(i);
  }
  if (d.code == kDLUInt && d.bits == 8) return ScalarType::Byte;
  fail(ErrorKind::Type, "from_dlpack: unsupported DLPack dtype (code ", int(d.code), ", bits ",
       int(d.bits), ")");
}

// A CUDA storage's device: its index, or the current device for an unindexed one.
static int32_t cuda_index(const Tensor& t) {
  return t.device().index >= 0 ? t.device().index : cuda::current_device();
}

static py::capsule to_dlpack(const Tensor& t) {
  bool on_cuda = t.device().type == DeviceType::CUDA;
  TC_CHECK(t.device().type == DeviceType::CPU || on_cuda, NotImplemented,
           "to_dlpack: only CPU and CUDA tensors can be exported, got a tensor on ",
           t.device().str());
  auto* ex = new DLPackExport{alias(t), {}, {}, {}};
  for (int64_t i = 0; i < t.dim(); i++) {
    ex->shape.push_back(t.size(i));
    ex->strides.push_back(t.stride(i));
  }
  DLTensor& d = ex->managed.dl_tensor;
  d.data = t.impl()->storage->data;
  d.byte_offset = uint64_t(t.offset()) * t.itemsize();
  d.device = on_cuda ? DLDevice{kDLCUDA, cuda_index(t)} : DLDevice{kDLCPU, 0};
  d.ndim = int32_t(t.dim());
  d.dtype = dl_dtype(t.dtype());
  d.shape = ex->shape.data();
  d.strides = ex->strides.data();
  ex->managed.manager_ctx = ex;
  ex->managed.deleter = [](DLManagedTensor* m) {
    delete static_cast<DLPackExport*>(m->manager_ctx);
  };
  // A capsule never consumed by a consumer frees itself; a consumed one is renamed.
  return py::capsule(&ex->managed, "dltensor", [](PyObject* cap) {
    if (PyCapsule_IsValid(cap, "dltensor")) {
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
      m->deleter(m);
    }
  });
}

// The stream number a DLPack consumer passes for this thread's current stream (1: the
// legacy default stream, as the protocol numbers it).
static int64_t dlpack_stream() {
  auto s = reinterpret_cast<intptr_t>(cuda::current_stream());
  return s ? int64_t(s) : 1;
}

static void need_cuda(const char* op) {
  if (!cuda::loaded()) py::module_::import("torch.cuda").attr("init")();  // raises why not
  TC_CHECK(cuda::loaded(), Runtime, op, ": a CUDA tensor, but CUDA is not available");
}

static Tensor from_dlpack(py::handle obj) {
  py::object cap;
  if (py::hasattr(obj, "__dlpack__")) {
    bool on_cuda = false;
    if (py::hasattr(obj, "__dlpack_device__"))
      on_cuda = obj.attr("__dlpack_device__")().cast<py::tuple>()[0].cast<int>() == kDLCUDA;
    if (on_cuda) {  // the producer makes its data ready for our stream
      need_cuda("from_dlpack");
      cap = obj.attr("__dlpack__")(py::arg("stream") = dlpack_stream());
    } else {
      cap = obj.attr("__dlpack__")();
    }
  } else {
    cap = py::reinterpret_borrow<py::object>(obj);
  }
  TC_CHECK(PyCapsule_IsValid(cap.ptr(), "dltensor"), Type,
           "from_dlpack: expected an object with "
           "__dlpack__ or a 'dltensor' capsule (a capsule can be consumed only once)");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), "dltensor"));
  const DLTensor& d = m->dl_tensor;
  TC_CHECK(d.device.device_type == kDLCPU || d.device.device_type == kDLCUDA, Runtime,
           "from_dlpack: only CPU and CUDA tensors are supported (DLPack device type ",
           d.device.device_type, ")");
  if (d.device.device_type == kDLCUDA) {
    need_cuda("from_dlpack");
    TC_CHECK(d.device.device_id >= 0 && d.device.device_id < cuda::device_count(), Runtime,
             "from_dlpack: CUDA device ", d.device.device_id, " does not exist here");
  }
  ScalarType dt = from_dl_dtype(d.dtype);
  Shape sizes(d.shape, d.shape + d.ndim), strides;
  int64_t extent = 1, n = 1;
  for (int i = 0; i < d.ndim; i++) {
    int64_t st = d.strides ? d.strides[i] : 0;
    strides.push_back(st);
    n *= sizes[i];
  }
  if (!d.strides) strides = contiguous_strides(sizes);
  for (int i = 0; i < d.ndim; i++) {
    TC_CHECK(strides[i] >= 0, Value, "from_dlpack: negative strides are not supported");
    extent += (sizes[i] - 1) * strides[i];
  }
  auto s = std::make_shared<Storage>();
  s->data = static_cast<char*>(d.data) + d.byte_offset;
  s->nbytes = n ? size_t(extent) * itemsize(dt) : 0;
  if (d.device.device_type == kDLCUDA) s->device = Device{DeviceType::CUDA, d.device.device_id};
  s->ctx = m;
  s->resizable = false;
  s->deleter = [](void*, void* ctx) {
    auto* mt = static_cast<DLManagedTensor*>(ctx);
    if (mt->deleter) mt->deleter(mt);
  };
  PyCapsule_SetName(cap.ptr(), "used_dltensor");
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = s;
  impl->sizes = sizes;
  impl->strides = strides;
  impl->dtype = dt;
  return Tensor(std::move(impl));
}

// ---------------------------------------------------------------- CUDA Array Interface
// Version 3 of Numba's protocol (https://numba.readthedocs.io, "CUDA Array Interface"):
// a dict with shape, typestr, data = (pointer, read-only), strides in bytes or None,
// version, and stream (the producer's stream, or None when no synchronisation is needed).
static const char* typestr(ScalarType t) {
  const ArrayType* a = array_type(t);
  if (!a)
    fail(ErrorKind::Type, "__cuda_array_interface__: no typestr for ", dtype_name(t),
         " (the interface has no bfloat16)");
  return a->typestr;
}

static py::dict cuda_array_interface(const Tensor& t) {
  if (t.device().type != DeviceType::CUDA) {
    PyErr_SetString(
        PyExc_AttributeError,
        ("Can't get __cuda_array_interface__ on non-CUDA tensor type: " + t.device().str() +
         " tensor. If CUDA data is required use tensor.cuda() "
         "to copy tensor to device memory.")
            .c_str());
    throw py::error_already_set();
  }
  py::dict d;
  py::list shape, strides;
  for (int64_t i = 0; i < t.dim(); i++) {
    shape.append(t.size(i));
    strides.append(t.stride(i) * int64_t(t.itemsize()));
  }
  d["shape"] = py::tuple(shape);
  d["typestr"] = typestr(t.dtype());
  d["data"] = py::make_tuple(reinterpret_cast<uintptr_t>(t.numel() ? t.data() : nullptr), false);
  d["strides"] = t.is_contiguous() ? py::object(py::none()) : py::object(py::tuple(strides));
  d["version"] = 3;
  d["stream"] = dlpack_stream();  // the same numbering: 1 is the legacy default stream
  return d;
}

// A CUDA tensor viewing the memory an object exports through __cuda_array_interface__ (no
// copy); the tensor keeps the object alive. The data is on the current device.
static Tensor from_cuda_array_interface(py::handle obj) {
  need_cuda("as_tensor");
  py::dict d = obj.attr("__cuda_array_interface__");
  TC_CHECK(!d.contains("mask") || d["mask"].is_none(), NotImplemented,
           "as_tensor: masked CUDA arrays (__cuda_array_interface__ with a mask) are not "
           "supported");
  std::string ts = d["typestr"].cast<std::string>();
  ScalarType dt = ScalarType::Undefined;
  for (const ArrayType& a : kArrayTypes)
    if (a.typestr == ts) dt = a.dtype;
  TC_CHECK(dt != ScalarType::Undefined, Type, "as_tensor: unsupported CUDA array typestr '", ts,
           "'");
  Shape sizes;
  for (py::handle h : d["shape"].cast<py::tuple>()) {
    int64_t v = h.cast<int64_t>();
    TC_CHECK(v >= 0, Value, "as_tensor: negative size ", v, " in __cuda_array_interface__");
    sizes.push_back(v);
  }
  int64_t isz = int64_t(itemsize(dt)), n = safe_numel(sizes, "as_tensor");
  Shape strides = contiguous_strides(sizes);
  if (d.contains("strides") && !d["strides"].is_none()) {
    py::tuple st = d["strides"].cast<py::tuple>();
    TC_CHECK(st.size() == sizes.size(), Value, "as_tensor: ", st.size(), " strides for ",
             sizes.size(), " dims in __cuda_array_interface__");
    for (size_t i = 0; i < sizes.size(); i++) {
      int64_t b = st[i].cast<int64_t>();
      TC_CHECK(b >= 0 && b % isz == 0, Value, "as_tensor: stride ", b,
               " bytes is negative or not a multiple of the item size ", isz);
      strides[i] = b / isz;
    }
  }
  int64_t extent = 1;  // elements spanned, overflow-checked (strides come from the object)
  for (size_t i = 0; i < sizes.size() && n; i++) {
    int64_t span = 0;
    TC_CHECK(!__builtin_mul_overflow(sizes[i] - 1, strides[i], &span) &&
                 !__builtin_add_overflow(extent, span, &extent) &&
                 !__builtin_mul_overflow(extent, isz, &span),
             Value, "as_tensor: the strides of __cuda_array_interface__ overflow");
  }
  py::tuple data = d["data"].cast<py::tuple>();
  auto ptr = data[0].cast<uintptr_t>();
  TC_CHECK(ptr != 0 || n == 0, Value, "as_tensor: a null data pointer for ", n, " elements");
  if (d.contains("stream") && !d["stream"].is_none()) {  // wait for the producer's work
    int64_t stream = d["stream"].cast<int64_t>();
    if (stream != dlpack_stream()) cuda::synchronize(cuda::current_device());
  }
  auto s = std::make_shared<Storage>();
  s->data = reinterpret_cast<void*>(ptr);
  s->nbytes = n ? size_t(extent) * size_t(isz) : 0;
  s->device = Device{DeviceType::CUDA, cuda::current_device()};
  s->resizable = false;
  s->ctx = new py::object(py::reinterpret_borrow<py::object>(obj));
  s->deleter = [](void*, void* ctx) {
    py::gil_scoped_acquire gil;
    delete static_cast<py::object*>(ctx);
  };
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = s;
  impl->sizes = sizes;
  impl->strides = strides;
  impl->dtype = dt;
  return Tensor(std::move(impl));
}

void bind_interop(py::module_& m, py::class_<Tensor>& cls) {
  m.def("_tensor_from_data", &tensor_from_data, py::arg("data"), py::arg("dtype") = py::none(),
        nograd);
  m.def("from_numpy", &from_numpy, py::arg("ndarray"),
        "A tensor sharing memory with a NumPy array (writes are seen by both).", nograd);
  cls.def(
      "numpy",
      [](py::handle self, bool force) {
        if (force) return to_numpy(py::cast(clone(self.cast<const Tensor&>())));
        return to_numpy(self);
      },
      py::arg("force") = false, nograd);
  cls.def(
      "__dlpack__",
      [](const Tensor& t, py::kwargs kw) {
        // A consumer on another stream (the protocol's number; -1: no synchronisation) gets
        // the data once this thread's stream has finished writing it.
        if (t.device().type == DeviceType::CUDA && kw.contains("stream") &&
            !kw["stream"].is_none()) {
          int64_t stream = kw["stream"].cast<int64_t>();
          if (stream != -1 && stream != dlpack_stream())
            cuda::stream_synchronize(reinterpret_cast<uintptr_t>(cuda::current_stream()));
        }
        return to_dlpack(t);
      },
      nograd);
  cls.def(
      "__dlpack_device__",
      [](const Tensor& t) {
        if (t.device().type == DeviceType::CUDA) return py::make_tuple(int(kDLCUDA), cuda_index(t));
        return py::make_tuple(int(kDLCPU), 0);
      },
      nograd);
  cls.def_property_readonly("__cuda_array_interface__", &cuda_array_interface);
  m.def("_from_cuda_array_interface", &from_cuda_array_interface, py::arg("obj"),
        "A CUDA tensor sharing memory with an object that has __cuda_array_interface__.", nograd);
  m.def("from_dlpack", &from_dlpack, py::arg("ext_tensor"),
        "A tensor sharing memory with any object that implements __dlpack__ (or a DLPack capsule).",
        nograd);
  m.def("_to_dlpack", &to_dlpack, nograd);
}

}  // namespace tc
