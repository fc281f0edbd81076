// bind_tensor.cpp — Tensor's metadata, views, item access and casts.
#include "bind.h"

// after Python.h (from bind.h)
#include <map>

namespace tc {

namespace {
// torch.device objects are immutable, so a tensor's .device hands out one shared object per
// device rather than a new one each call (user code reads x.device on every step).
py::object device_object(const Device& d) {
  static auto& cache = *new std::map<std::pair<int, int>, py::object>();  // (never freed)
  const std::pair<int, int> key{int(d.type), d.index};
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  py::object o = py::cast(d);
  cache.emplace(key, o);
  return o;
}
}  // namespace

static py::object& g_autograd_missing =
    *new py::object();  // leaked: outlives the interpreter  // set: requires_grad=True raises until
                        // torch-autograd registers

static py::object tolist_rec(const char* p, const Tensor& t, Int64 d) {
  if (d == t.dim()) {
    return visit_dtype_complex(t.dtype(), [&](auto v) -> py::object {
      using T = decltype(v);
      T x;
      std::memcpy(&x, p, sizeof(T));
      if constexpr (IsComplex<T>::value)
        return py::reinterpret_steal<py::object>(
            PyComplex_FromDoubles(double(x.real()), double(x.imag())));
      else if constexpr (std::is_same_v<T, bool>)
        return py::bool_(x);
      else if constexpr (std::is_integral_v<T>)
        return py::int_(int64_t(x));
      else
        return py::float_(double(x));
    });
  }
  py::list l(t.size(d));
  for (int64_t i = 0; i < t.size(d); i++)
    l[i] = tolist_rec(p + i * t.stride(d) * int64_t(t.itemsize()), t, d + 1);
  return l;
}

static const Tensor& one_element(const Tensor& t) {
  TC_CHECK(t.numel() == 1, Value,
           "only one element tensors can be converted to Python scalars "
           "(got a tensor of shape ",
           shape_str(t.sizes()), ")");
  return t;
}

static py::object scalar_to_py(const Scalar& s) {
  if (s.kind == Scalar::Bool) return py::bool_(s.i != 0);
  if (s.kind == Scalar::Int) return py::int_(s.i);
  if (s.kind == Scalar::Complex)
    return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(s.d, s.im));
  return py::float_(s.d);
}

// A handle on a tensor's storage (the bytes all its views share).
struct StorageRef {
  StoragePtr s;
};

static void release_buffer(void*, void* ctx) {
  auto* v = static_cast<Py_buffer*>(ctx);
  if (Py_IsInitialized()) {
    py::gil_scoped_acquire gil;
    PyBuffer_Release(v);
  }
  delete v;
}

// Only a CPU storage's bytes are host memory: a CUDA storage's pointer is the GPU's, a meta
// storage has none. Reading either from the host would fault.
static void check_host_bytes(const StoragePtr& s, const char* what) {
  TC_CHECK(s->device.type == DeviceType::CPU, Type, "UntypedStorage.", what, ": the bytes of a '",
           s->device.str(), "' storage are not in host memory (copy the tensor to the CPU first)");
}

// A storage over another object's buffer (bytes-like, mmap slice); the object stays
// alive and its buffer exported until the last view of the storage goes.
static StoragePtr storage_over_buffer(py::handle obj) {
  auto* view = new Py_buffer();
  if (PyObject_GetBuffer(obj.ptr(), view, PyBUF_SIMPLE | PyBUF_WRITABLE) != 0) {
    delete view;
    throw py::error_already_set();
  }
  auto s = std::make_shared<Storage>();
  s->data = view->buf;
  s->nbytes = size_t(view->len);
  s->ctx = view;
  s->resizable = false;
  s->deleter = release_buffer;
  return s;
}

// Moves a storage's bytes into another object's buffer (e.g. a shared-memory mapping): every
// tensor on the storage sees the new memory from now on, and the old memory is freed.
static void move_storage_into(const StoragePtr& s, py::handle obj) {
  check_host_bytes(s, "_move_into");
  StoragePtr target = storage_over_buffer(obj);
  TC_CHECK(target->nbytes >= s->nbytes, Runtime, "UntypedStorage._move_into: buffer of ",
           target->nbytes, " bytes cannot hold a storage of ", s->nbytes, " bytes");
  if (s->nbytes) std::memcpy(target->data, s->data, s->nbytes);
  std::swap(s->data, target->data);
  std::swap(s->deleter, target->deleter);
  std::swap(s->ctx, target->ctx);
  s->resizable = false;
  target->nbytes = s->nbytes;  // `target` now owns the old memory and frees it
}

// `dst` becomes a tensor with `src`'s storage, offset, sizes, strides and dtype (set_, .data =).
static void assign_layout(const Tensor& dst, const Tensor& src) {
  TensorImpl* d = dst.impl();
  const TensorImpl* s = src.impl();
  d->storage = s->storage;
  d->offset = s->offset;
  d->sizes = s->sizes;
  d->strides = s->strides;
  d->dtype = s->dtype;
}

void bind_tensor(py::module_& m, py::class_<Tensor>& cls) {
  py::class_<StorageRef>(m, "UntypedStorage", py::buffer_protocol(),
                         "The byte buffer that a tensor and its views share.")
      .def(py::init([](Int64 nbytes) {
             TC_CHECK(nbytes >= 0, Runtime, "UntypedStorage: negative size ", nbytes);
             StoragePtr st = get_allocator(DeviceType::CPU)->allocate(size_t(nbytes));
             return StorageRef{st};
           }),
           py::arg("nbytes") = 0)
      .def_static(
          "_from_buffer", [](py::handle obj) { return StorageRef{storage_over_buffer(obj)}; },
          "A storage sharing the memory of a writable buffer (bytearray, mmap, ...).")
      .def_buffer([](StorageRef& r) {
        check_host_bytes(r.s, "__buffer__");
        return py::buffer_info(r.s->data, 1, "B", 1, {py::ssize_t(r.s->nbytes)}, {1}, false);
      })
      .def("data_ptr", [](const StorageRef& r) { return reinterpret_cast<uintptr_t>(r.s->data); })
      .def("nbytes", [](const StorageRef& r) { return r.s->nbytes; })
      .def("size", [](const StorageRef& r) { return r.s->nbytes; })
      .def("__len__", [](const StorageRef& r) { return r.s->nbytes; })
      .def("element_size", [](const StorageRef&) { return 1; })
      .def_property_readonly("device",
                             [](const StorageRef& r) { return device_object(r.s->device); })
      .def("_key", [](const StorageRef& r) { return reinterpret_cast<uintptr_t>(r.s.get()); })
      .def(
          "_move_into", [](const StorageRef& r, py::handle obj) { move_storage_into(r.s, obj); },
          "Copy the bytes into a writable buffer and use its memory from now on.")
      .def(
          "_buffer_owner",
          [](const StorageRef& r) -> py::object {
            if (r.s->deleter != release_buffer) return py::none();
            return py::reinterpret_borrow<py::object>(static_cast<Py_buffer*>(r.s->ctx)->obj);
          },
          "The object whose buffer this storage uses (from _from_buffer/_move_into), or None.")
      .def("__eq__", [](const StorageRef& a, const StorageRef& b) { return a.s == b.s; })
      .def("__hash__", [](const StorageRef& r) { return std::hash<Storage*>()(r.s.get()); });
  m.attr("UntypedStorage").attr("__module__") = "torch";
  // A tensor viewing `storage` as `dtype` with the given layout (bounds checked).
  m.def(
      "_tensor_from_storage",
      [](const StorageRef& r, py::handle dtype, Int64 offset, py::handle size, py::handle stride) {
        auto impl = std::make_shared<TensorImpl>();
        impl->storage = r.s;
        impl->dtype = to_dtype_arg(dtype, "_rebuild_tensor");
        Tensor base(std::move(impl));
        return as_strided(base, to_shape(size, "_rebuild_tensor"),
                          to_shape(stride, "_rebuild_tensor"), offset);
      },
      nograd);
  cls.def("untyped_storage", [](const Tensor& t) { return StorageRef{t.impl()->storage}; }, nograd);
  // x.data = y: x takes y's storage and layout, dtype included (Module.to keeps Parameters).
  m.def("_set_data", [](const Tensor& dst, const Tensor& src) { assign_layout(dst, src); }, nograd);
  m.def(
      "_set_storage",
      [](py::handle self, const StorageRef& r, Int64 offset, py::handle size, py::handle stride) {
        const Tensor& t = self.cast<const Tensor&>();
        auto impl = std::make_shared<TensorImpl>();
        impl->storage = r.s;
        impl->dtype = t.dtype();
        Tensor view = as_strided(Tensor(std::move(impl)), to_shape(size, "set_"),
                                 to_shape(stride, "set_"), offset);
        assign_layout(t, view);
        t.bump_version();
        return self_ref(self);
      },
      nograd);

  m.def(
      "_set_autograd_missing",
      [](py::object msg) { g_autograd_missing = msg.is_none() ? py::object() : msg; }, nograd);

  // torch.Tensor(2, 3) (uninitialised), torch.Tensor([1, 2]) (data), torch.Tensor(t) (alias)
  cls.def(py::init([](py::args a) {
    if (a.size() == 0) return empty({0}, default_dtype());
    if (a.size() == 1 && py::isinstance<Tensor>(a[0])) return alias(a[0].cast<const Tensor&>());
    if (a.size() == 1 && !PyLong_Check(a[0].ptr()))
      return to_dtype(py::module_::import("torch").attr("tensor")(a[0]).cast<Tensor>(),
                      default_dtype());
    return empty(shape_from_args(a, "Tensor"), default_dtype());
  }));
  cls.def_property_readonly("shape", [](const Tensor& t) { return size_object(t.sizes()); })
      .def(
          "size",
          [](const Tensor& t, py::object dim) -> py::object {
            if (dim.is_none()) return size_object(t.sizes());
            return py::int_(t.size(wrap_dim(to_int64(dim, "size"), t.dim(), "size")));
          },
          py::arg("dim") = py::none(), nograd)
      .def(
          "stride",
          [](const Tensor& t, py::object dim) -> py::object {
            if (dim.is_none()) {
              py::tuple r(t.dim());
              for (int64_t i = 0; i < t.dim(); i++) r[i] = py::int_(t.stride(i));
              return r;
            }
            return py::int_(t.stride(wrap_dim(to_int64(dim, "stride"), t.dim(), "stride")));
          },
          py::arg("dim") = py::none(), nograd)
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def_property_readonly("device", [](const Tensor& t) { return device_object(t.device()); })
      .def_property_readonly("is_cuda",
                             [](const Tensor& t) { return t.device().type == DeviceType::CUDA; })
      .def_property_readonly("is_cpu",
                             [](const Tensor& t) { return t.device().type == DeviceType::CPU; })
      .def_property_readonly("is_meta",
                             [](const Tensor& t) { return t.device().type == DeviceType::Meta; })
      .def_property_readonly("ndim", &Tensor::dim)
      .def("dim", &Tensor::dim, nograd)
      .def("ndimension", &Tensor::dim, nograd)
      .def("numel", &Tensor::numel, nograd)
      .def("nelement", &Tensor::numel, nograd)
      .def(
          "element_size", [](const Tensor& t) { return t.itemsize(); }, nograd)
      .def_property_readonly("itemsize", [](const Tensor& t) { return t.itemsize(); })
      .def_property_readonly("nbytes",
                             [](const Tensor& t) { return t.numel() * int64_t(t.itemsize()); })
      .def("storage_offset", &Tensor::offset, nograd)
      .def(
          "data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data()); }, nograd)
      .def(
          "_storage_ptr",
          [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.impl()->storage->data); },
          nograd)
      .def(
          "_shares_storage",
          [](const Tensor& t, const Tensor& other) {
            return t.impl()->storage == other.impl()->storage;
          },
          nograd)
      .def(
          "_storage_nbytes", [](const Tensor& t) { return t.impl()->storage->nbytes; }, nograd)
      .def(
          "is_contiguous", [](const Tensor& t, py::object) { return t.is_contiguous(); },
          py::arg("memory_format") = py::none(), nograd)
      .def(
          "is_floating_point", [](const Tensor& t) { return is_floating(t.dtype()); }, nograd)
      .def(
          "is_complex", [](const Tensor&) { return false; }, nograd)
      .def_property_readonly("_version", [](const Tensor& t) { return t.impl()->storage->version; })
      .def(
          "_bump_version", [](const Tensor& t) { t.bump_version(); }, nograd)
      .def_property(
          "requires_grad", [](const Tensor& t) { return t.impl()->requires_grad; },
          [](py::handle self, bool v) {
            const Tensor& t = self.cast<const Tensor&>();
            if (v && g_autograd_missing)
              fail(ErrorKind::Runtime, std::string(py::str(g_autograd_missing)));
            TC_CHECK(v || py::getattr(self, "grad_fn", py::none()).is_none(), Runtime,
                     "you can only change requires_grad flags of leaf variables. If you want to "
                     "use a computed variable in a subgraph that doesn't require differentiation "
                     "use var_no_grad = var.detach().");
            TC_CHECK(!v || !t.impl()->inference || inference_mode(), Runtime,
                     "Setting requires_grad=True on inference tensor outside InferenceMode is "
                     "not allowed.");
            TC_CHECK(!v || is_floating(t.dtype()) || is_complex(t.dtype()), Runtime,
                     "only Tensors of floating point and complex dtype can require gradients "
                     "(got ",
                     dtype_name(t.dtype()), ")");
            t.impl()->requires_grad = v;
          });

  // ---------------------------------------------------------------- views
  cls.def("view", [](const Tensor& t, py::args a) { return view(t, shape_from_args(a, "view")); })
      .def("reshape",
           [](const Tensor& t, py::args a) { return reshape(t, shape_from_args(a, "reshape")); })
      .def("view_as", [](const Tensor& t, const Tensor& o) { return view(t, o.sizes()); })
      .def("reshape_as", [](const Tensor& t, const Tensor& o) { return reshape(t, o.sizes()); })
      .def(
          "transpose", [](const Tensor& t, Int64 a, Int64 b) { return transpose(t, a, b); },
          py::arg("dim0"), py::arg("dim1"))
      .def(
          "swapaxes", [](const Tensor& t, Int64 a, Int64 b) { return transpose(t, a, b); },
          py::arg("axis0"), py::arg("axis1"))
      .def(
          "swapdims", [](const Tensor& t, Int64 a, Int64 b) { return transpose(t, a, b); },
          py::arg("dim0"), py::arg("dim1"))
      .def("permute",
           [](const Tensor& t, py::args a) { return permute(t, shape_from_args(a, "permute")); })
      .def("t",
           [](const Tensor& t) {
             TC_CHECK(t.dim() <= 2, Runtime,
                      "t() expects a tensor with <= 2 dimensions, but self is ", t.dim(), "D");
             return t.dim() < 2 ? alias(t) : transpose(t, 0, 1);
           })
      .def_property_readonly("T",
                             [](const Tensor& t) {
                               Shape d;
                               for (int64_t i = t.dim() - 1; i >= 0; i--) d.push_back(i);
                               return permute(t, d);
                             })
      .def_property_readonly(
          "mT",
          [](const Tensor& t) {
            TC_CHECK(t.dim() >= 2, Runtime,
                     "tensor.mT is only supported on matrices or batches of matrices. "
                     "Got ",
                     t.dim(), "-D tensor.");
            return transpose(t, -2, -1);
          })
      .def("expand",
           [](const Tensor& t, py::args a) { return expand(t, shape_from_args(a, "expand")); })
      .def("expand_as", [](const Tensor& t, const Tensor& o) { return expand(t, o.sizes()); })
      .def(
          "squeeze",
          [](const Tensor& t, py::object dim) {
            return dim.is_none() ? squeeze(t) : squeeze_dims(t, to_shape(dim, "squeeze"));
          },
          py::arg("dim") = py::none())
      // NumPy's spelling axis= for dim=, as PyTorch takes it: a second overload, tried only
      // when the first refuses the call, so calls without it cost nothing more.
      .def(
          "squeeze",
          [](const Tensor& t, py::object axis) {
            return axis.is_none() ? squeeze(t) : squeeze_dims(t, to_shape(axis, "squeeze"));
          },
          py::kw_only(), py::arg("axis"))
      .def(
          "unsqueeze", [](const Tensor& t, Int64 d) { return unsqueeze(t, d); }, py::arg("dim"))
      .def(
          "unsqueeze", [](const Tensor& t, Int64 d) { return unsqueeze(t, d); }, py::kw_only(),
          py::arg("axis"))
      .def(
          "narrow",
          [](const Tensor& t, Int64 d, Int64 start, Int64 len) { return narrow(t, d, start, len); },
          py::arg("dim"), py::arg("start"), py::arg("length"))
      .def(
          "narrow",
          [](const Tensor& t, Int64 d, Int64 start, Int64 len) { return narrow(t, d, start, len); },
          py::kw_only(), py::arg("axis"), py::arg("start"), py::arg("length"))
      .def(
          "select", [](const Tensor& t, Int64 d, Int64 i) { return select(t, d, i); },
          py::arg("dim"), py::arg("index"))
      .def(
          "select", [](const Tensor& t, Int64 d, Int64 i) { return select(t, d, i); },
          py::kw_only(), py::arg("axis"), py::arg("index"))
      .def(
          "unfold",
          [](const Tensor& t, Int64 d, Int64 size, Int64 step) { return unfold(t, d, size, step); },
          py::arg("dimension"), py::arg("size"), py::arg("step"))
      .def(
          "as_strided",
          [](const Tensor& t, py::handle size, py::handle stride, py::object off) {
            return as_strided(t, to_shape(size, "as_strided"), to_shape(stride, "as_strided"),
                              off.is_none() ? t.offset() : to_int64(off, "as_strided"));
          },
          py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none())
      .def(
          "diagonal",
          [](const Tensor& t, Int64 off, Int64 d1, Int64 d2) { return diagonal(t, off, d1, d2); },
          py::arg("offset") = 0, py::arg("dim1") = 0, py::arg("dim2") = 1)
      .def(
          "flatten", [](const Tensor& t, Int64 a, Int64 b) { return flatten(t, a, b); },
          py::arg("start_dim") = 0, py::arg("end_dim") = -1)
      .def(
          "contiguous",
          [](py::handle self, py::object) -> py::object {
            const Tensor& t = self.cast<const Tensor&>();
            return t.is_contiguous() ? self_ref(self) : py::cast(clone(t));
          },
          py::arg("memory_format") = py::none())
      .def(
          "clone", [](const Tensor& t, py::object) { return clone(t); },
          py::arg("memory_format") = py::none())
      .def(
          "detach", [](const Tensor& t) { return alias(t); }, nograd)
      .def("_alias", [](const Tensor& t) { return alias(t); })
      .def(
          "__len__",
          [](const Tensor& t) {
            TC_CHECK(t.dim() > 0, Type, "len() of a 0-d tensor");
            return t.size(0);
          },
          nograd);

  // ---------------------------------------------------------------- values
  cls.def(
         "item", [](const Tensor& t) { return scalar_to_py(item(t)); }, nograd)
      .def(
          "tolist",
          [](const Tensor& t) {
            Tensor h = on_host(t);
            return tolist_rec(h.data(), h, 0);
          },
          nograd)
      .def(
          "__bool__",
          [](const Tensor& t) {
            TC_CHECK(t.numel() == 1, Runtime, "Boolean value of Tensor with ",
                     t.numel() == 0 ? "no values" : "more than one value", " is ambiguous");
            Scalar s = item(t);
            return s.d != 0 || s.im != 0;
          },
          nograd)
      .def(
          "__complex__",
          [](const Tensor& t) {
            Scalar s = item(one_element(t));
            return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(s.d, s.im));
          },
          nograd)
      .def(
          "__float__", [](const Tensor& t) { return item(one_element(t)).d; }, nograd)
      .def(
          "__int__",
          [](const Tensor& t) -> py::object {
            Scalar s = item(one_element(t));
            if (s.kind != Scalar::Float) return py::int_(s.i);
            PyObject* r = PyLong_FromDouble(s.d);  // exact, any size; NaN/inf raise as int()
            if (!r) throw py::error_already_set();
            return py::reinterpret_steal<py::object>(r);
          },
          nograd)
      .def(
          "__index__",
          [](const Tensor& t) {
            TC_CHECK(is_integral(t.dtype(), true) && t.numel() == 1, Type,
                     "only integer tensors of a single element can be converted to an index");
            return item(t).i;
          },
          nograd)
      .def("_to_dtype",
           [](py::handle self, py::handle dtype, bool copy) -> py::object {
             const Tensor& t = self.cast<const Tensor&>();
             ScalarType dt = to_dtype_arg(dtype, "to");
             if (dt == t.dtype() && !copy) return self_ref(self);
             return py::cast(to_dtype(t, dt, true));
           })
      .def("fill_",
           [](py::handle self, py::handle v) {
             fill_(self.cast<const Tensor&>(), to_scalar(v, "fill_", "value"));
             self.cast<const Tensor&>().bump_version();
             return self_ref(self);
           })
      .def("zero_",
           [](py::handle self) {
             fill_(self.cast<const Tensor&>(), Scalar::from_int(0));
             self.cast<const Tensor&>().bump_version();
             return self_ref(self);
           })
      .def(
          "copy_",
          [](py::handle self, const Tensor& src, bool) {
            copy_(self.cast<const Tensor&>(), src);
            self.cast<const Tensor&>().bump_version();
            return self_ref(self);
          },
          py::arg("src"), py::arg("non_blocking") = false)
      .def(
          "resize_",
          [](py::handle self, py::args a) {
            resize_(self.cast<const Tensor&>(), shape_from_args(a, "resize_"));
            return self_ref(self);
          },
          nograd);

  // ---------------------------------------------------------------- creation
  m.def(
      "empty",
      [](py::handle size, py::handle dtype, py::handle device) {
        ScalarType dt = opt_dtype(dtype, "empty");
        return empty(to_shape(size, "empty"), dt == ScalarType::Undefined ? default_dtype() : dt,
                     device.is_none() ? Device() : to_device_arg(device));
      },
      py::arg("size"), py::arg("dtype") = py::none(), py::arg("device") = py::none(), nograd);
  // The dense-shaped part of a sparse tensor: a shape and a dtype, no memory, no kernels.
  m.def(
      "_sparse_base",
      [](py::handle size, py::handle dtype) {
        return empty(to_shape(size, "sparse"), to_dtype_arg(dtype, "sparse"),
                     Device{DeviceType::SparseBase, -1});
      },
      py::arg("size"), py::arg("dtype"), nograd);
  m.def(
      "_full",
      [](py::handle size, py::handle value, py::handle dtype, const std::string& op) {
        Scalar v = to_scalar(value, op.c_str(), "fill_value");
        ScalarType dt = opt_dtype(dtype, op.c_str());
        Tensor r =
            empty(to_shape(size, op.c_str()), dt == ScalarType::Undefined ? v.natural_dtype() : dt);
        fill_(r, v);
        return r;
      },
      py::arg("size"), py::arg("value"), py::arg("dtype"), py::arg("op") = "full", nograd);
  m.def(
      "_arange",
      [](double start, double end, double step, py::handle dtype) {
        return arange(start, end, step, to_dtype_arg(dtype, "arange"));
      },
      nograd);
  m.def(
      "_linspace",
      [](double start, double end, Int64 steps, py::handle dtype) {
        return linspace(start, end, steps, to_dtype_arg(dtype, "linspace"));
      },
      nograd);
  m.def(
      "_eye",
      [](Int64 n, Int64 mm, py::handle dtype) { return eye(n, mm, to_dtype_arg(dtype, "eye")); },
      nograd);
  m.def(
      "_storage_view",
      [](const Tensor& base, py::handle size, py::handle stride, Int64 offset) {
        return as_strided(base, to_shape(size, "set_"), to_shape(stride, "set_"), offset);
      },
      nograd);
}

}  // namespace tc
