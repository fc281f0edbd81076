// module.cpp — the torch._C extension module: errors, dtypes, devices, generators, and
// the registration of the Tensor class (methods in bind_tensor/bind_ops/bind_interop).
#include "bind.h"
#include "cpu_gemm.h"
#include "nn_kernels.h"

namespace tc {

// Leaked on purpose: Python objects must not be destroyed after the interpreter has gone.
static py::object* g_dtype_objects = new py::object[kNumDTypes];
static py::object& g_size_class = *new py::object();

py::object dtype_object(ScalarType t) { return g_dtype_objects[int(t)]; }

ScalarType to_dtype_arg(py::handle h, const char* op) {
  if (py::isinstance<DTypeObj>(h)) return h.cast<DTypeObj&>().type;
  if (h.ptr() == (PyObject*)&PyFloat_Type) return ScalarType::Double;
  if (h.ptr() == (PyObject*)&PyLong_Type) return ScalarType::Long;
  if (h.ptr() == (PyObject*)&PyBool_Type) return ScalarType::Bool;
  fail(ErrorKind::Type, op, "(): argument 'dtype' must be torch.dtype, not ", type_name(h));
}

ScalarType opt_dtype(py::handle h, const char* op) {
  return h.is_none() ? ScalarType::Undefined : to_dtype_arg(h, op);
}

Device to_device_arg(py::handle h) {
  if (py::isinstance<Device>(h)) return h.cast<Device>();
  if (PyLong_Check(h.ptr())) return Device{DeviceType::CUDA, h.cast<int>()};
  TC_CHECK(py::isinstance<py::str>(h), Type, "expected a torch.device or a string, got ",
           type_name(h));
  std::string s = h.cast<std::string>();
  Device d;
  std::string type = s.substr(0, s.find(':'));
  if (type == "cpu")
    d.type = DeviceType::CPU;
  else if (type == "cuda")
    d.type = DeviceType::CUDA;
  else if (type == "meta")
    d.type = DeviceType::Meta;
  else
    fail(ErrorKind::Runtime,
         "Expected one of cpu, cuda, meta device type at start of device string: ", s);
  if (s.find(':') != std::string::npos) {
    std::string idx = s.substr(s.find(':') + 1);
    TC_CHECK(!idx.empty() && idx.find_first_not_of("0123456789") == std::string::npos, Runtime,
             "Invalid device string: '", s, "'");
    d.index = std::stoi(idx);
  }
  return d;
}

bool is_number(py::handle h) {
  return PyFloat_Check(h.ptr()) || PyLong_Check(h.ptr()) ||  // bool is a subclass of int
         PyComplex_Check(h.ptr());
}

Scalar to_scalar(py::handle h, const char* op, const char* arg) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return Scalar::from_bool(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    TC_CHECK(!overflow, Runtime, op, ": value for argument '", arg,
             "' cannot be converted to int64 "
             "without overflow");
    return Scalar::from_int(v);
  }
  if (PyFloat_Check(o)) return Scalar::from_double(PyFloat_AS_DOUBLE(o));
  if (PyComplex_Check(o))
    return Scalar::from_complex(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o));
  if (py::isinstance<Tensor>(h)) {
    const Tensor& t = h.cast<const Tensor&>();
    TC_CHECK(t.numel() == 1, Runtime, op, ": argument '", arg,
             "' must be a number or a one-element "
             "tensor, got a tensor of shape ",
             shape_str(t.sizes()));
    return item(t);
  }
  if (PyObject_HasAttrString(o, "__index__")) return Scalar::from_int(to_int64(h, op));
  if (PyObject_HasAttrString(o, "__float__"))
    return Scalar::from_double(h.attr("__float__")().cast<double>());
  fail(ErrorKind::Type, op, "(): argument '", arg, "' must be a Number, not ", type_name(h));
}

Tensor tensor_or_scalar(py::handle h, const char* op, const char* arg) {
  if (py::isinstance<Tensor>(h)) return h.cast<const Tensor&>();
  PyObject* o = h.ptr();
  if (PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o))
    return wrap_scalar(to_scalar(h, op, arg));
  fail(ErrorKind::Type, op, "(): argument '", arg, "' must be Tensor or Number, not ",
       type_name(h));
}

Tensor opt_tensor(py::handle h) {
  if (h.is_none()) return Tensor();
  TC_CHECK(py::isinstance<Tensor>(h), Type, "argument 'out' must be a Tensor, not ", type_name(h));
  return h.cast<const Tensor&>();
}

// An int argument (dim, index, offset): a Python int, else anything with __index__. Values
// outside int64 raise ValueError (PyTorch's family) rather than a pybind11 cast error; in a
// size list they raise TypeError, as PyTorch's "failed to unpack" does.
static int64_t int_arg(py::handle h, const char* op, ErrorKind overflow_kind) {
  PyObject* o = h.ptr();
  if (PyLong_Check(o) && !PyBool_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow)
      fail(overflow_kind, op, "(): integer ", std::string(py::str(o)),
           " overflows int64 (Overflow when unpacking long long)");
    return v;
  }
  TC_CHECK(PyObject_HasAttrString(o, "__index__") && !PyBool_Check(o), Type, op,
           "(): expected an int, but found an element of type ", type_name(o));
  return int_arg(h.attr("__index__")(), op, overflow_kind);
}
int64_t to_int64(py::handle h, const char* op) { return int_arg(h, op, ErrorKind::Value); }
static int64_t index_int(PyObject* o, const char* op) {
  return int_arg(py::handle(o), op, ErrorKind::Type);
}

Shape to_shape(py::handle h, const char* op) {
  Shape s;
  if (PyLong_Check(h.ptr())) {
    s.push_back(index_int(h.ptr(), op));
    return s;
  }
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) {  // the common case, without iterators
    PyObject* seq = h.ptr();
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject** items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) s.push_back(index_int(items[i], op));
    return s;
  }
  TC_CHECK(PySequence_Check(h.ptr()) && !py::isinstance<Tensor>(h), Type, op,
           "(): argument 'size' must be a tuple of ints, not ", type_name(h));
  for (auto item : py::reinterpret_borrow<py::sequence>(h)) s.push_back(index_int(item.ptr(), op));
  return s;
}

Shape shape_from_args(const py::args& args, const char* op) {
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) return to_shape(args[0], op);
  return to_shape(args, op);
}

DimList to_dims(py::handle h, const char* op) {
  DimList d;
  if (h.is_none()) return d;
  d.all = false;
  if (PyLong_Check(h.ptr()))
    d.dims = Shape{to_int64(h, op)};  // one dim: ValueError on overflow, as in PyTorch
  else
    d.dims = to_shape(h, op);
  return d;
}

py::object size_object(const Shape& s) {
  const Py_ssize_t n = Py_ssize_t(s.size());
  // torch.Size is a tuple subclass with no __dict__ (torch/_size.py): filled in place, as
  // tuple's own constructor fills a subclass, without a call through the Python class.
  PyTypeObject* tp =
      g_size_class ? reinterpret_cast<PyTypeObject*>(g_size_class.ptr()) : &PyTuple_Type;
  py::object t =
      py::reinterpret_steal<py::object>(tp == &PyTuple_Type ? PyTuple_New(n) : tp->tp_alloc(tp, n));
  if (!t) throw py::error_already_set();
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject* v = PyLong_FromLongLong(s[size_t(i)]);
    if (!v) throw py::error_already_set();
    PyTuple_SET_ITEM(t.ptr(), i, v);
  }
  return t;
}

// torch.Size's base: a tuple whose slices are of the caller's type (Size(...)[1:] is a
// Size). Indexing is tuple's own C path: `x.shape[0]` runs no Python code.
static PyObject* size_subscript(PyObject* self, PyObject* item) {
  PyObject* r = PyTuple_Type.tp_as_mapping->mp_subscript(self, item);
  if (!r || !PySlice_Check(item)) return r;
  PyObject* out = PyObject_CallOneArg(reinterpret_cast<PyObject*>(Py_TYPE(self)), r);
  Py_DECREF(r);
  return out;
}

static py::object make_size_base() {
  static PyType_Slot slots[] = {
      {Py_mp_subscript, reinterpret_cast<void*>(size_subscript)},
      {Py_tp_doc, const_cast<char*>("tuple whose slices keep the subclass (torch.Size's base)")},
      {0, nullptr}};
  static PyType_Spec spec = {"torch._C._SizeBase", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                             slots};
  py::tuple bases = py::make_tuple(py::handle(reinterpret_cast<PyObject*>(&PyTuple_Type)));
  PyObject* type = PyType_FromSpecWithBases(&spec, bases.ptr());
  if (!type) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(type);
}

Generator* opt_generator(py::handle h) { return h.is_none() ? nullptr : &h.cast<Generator&>(); }

// A generator's state as bytes (its seed and engine, as text), and the generator they describe
static py::bytes generator_state(const Generator& g) {
  std::ostringstream ss;
  ss << g.initial_seed << ' ' << g.engine;
  return py::bytes(ss.str());
}
static Generator generator_from(const py::bytes& state) {
  std::istringstream ss{std::string(state)};
  Generator fresh;
  ss >> fresh.initial_seed >> fresh.engine;
  TC_CHECK(!ss.fail(), Runtime, "Generator.set_state: invalid state");
  return fresh;
}

void bind_fused(py::module_& m);   // fused.cpp: torch.jit's one-pass elementwise kernels
void bind_sparse(py::module_& m);  // sparse_kernels.cpp: sparse x dense products

}  // namespace tc

using namespace tc;

PYBIND11_MODULE(_C, m) {
  m.doc() = "The compiled tensor core of torch (C++): storage, tensors, dispatch table, kernels.";
  m.attr("__version__") = TORCH_VERSION;
  register_cpu_kernels();
  register_meta_device();

  // Errors: the kind decides the Python exception type; the message already names op/shapes.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const TorchError& e) {
      PyObject* type = PyExc_RuntimeError;
      switch (e.kind) {
        case ErrorKind::Index:
          type = PyExc_IndexError;
          break;
        case ErrorKind::Type:
          type = PyExc_TypeError;
          break;
        case ErrorKind::Value:
          type = PyExc_ValueError;
          break;
        case ErrorKind::NotImplemented:
          type = PyExc_NotImplementedError;
          break;
        case ErrorKind::OutOfMemory: {  // torch.OutOfMemoryError (torch.cuda's too)
          py::object oom = py::module_::import("torch").attr("OutOfMemoryError");
          PyErr_SetString(oom.ptr(), e.what());
          return;
        }
        default:
          break;
      }
      PyErr_SetString(type, e.what());
    } catch (const std::bad_alloc&) {
      // RuntimeError, as PyTorch raises for a failed allocation (users catch that family).
      PyErr_SetString(PyExc_RuntimeError,
                      "DefaultCPUAllocator: can't allocate memory (out of memory)");
    }
  });

  // ---------------------------------------------------------------- dtypes
  py::class_<DTypeObj>(m, "dtype", "A tensor element type, e.g. torch.float32.")
      .def_property_readonly("is_floating_point",
                             [](const DTypeObj& d) { return is_floating(d.type); })
      .def_property_readonly("is_signed",
                             [](const DTypeObj& d) {
                               return d.type != ScalarType::Bool && d.type != ScalarType::Byte;
                             })
      .def_property_readonly("is_complex", [](const DTypeObj& d) { return is_complex(d.type); })
      .def_property_readonly("itemsize", [](const DTypeObj& d) { return itemsize(d.type); })
      .def("__repr__", [](const DTypeObj& d) { return std::string("torch.") + dtype_name(d.type); })
      .def("__reduce__", [](const DTypeObj& d) { return std::string(dtype_name(d.type)); })
      .def("__hash__", [](const DTypeObj& d) { return int(d.type); });
  m.attr("dtype").attr("__module__") = "torch";
  for (int i = 0; i < kNumDTypes; i++) {
    g_dtype_objects[i] = py::cast(DTypeObj{ScalarType(i)}, py::return_value_policy::move);
    m.attr(dtype_name(ScalarType(i))) = g_dtype_objects[i];
  }
  m.def("_dtype_legacy_name", [](const DTypeObj& d) { return legacy_name(d.type); }, nograd);
  m.def("get_default_dtype", []() { return dtype_object(default_dtype()); }, nograd);
  m.def(
      "set_default_dtype",
      [](py::handle d) { set_default_dtype(to_dtype_arg(d, "set_default_dtype")); }, nograd);
  m.def(
      "promote_types",
      [](py::handle a, py::handle b) {
        return dtype_object(
            promote_types(to_dtype_arg(a, "promote_types"), to_dtype_arg(b, "promote_types")));
      },
      nograd);
  m.def(
      "can_cast",
      [](py::handle a, py::handle b) {
        return can_cast(to_dtype_arg(a, "can_cast"), to_dtype_arg(b, "can_cast"));
      },
      nograd);
  m.def(
      "result_type",
      [](py::handle a, py::handle b) {
        return dtype_object(result_type({tensor_or_scalar(a, "result_type", "tensor1"),
                                         tensor_or_scalar(b, "result_type", "tensor2")}));
      },
      nograd);

  // ---------------------------------------------------------------- devices
  py::class_<Device>(m, "device",
                     "Where a tensor lives: torch.device('cpu'), torch.device('cuda', 0).")
      .def(py::init([](py::handle spec) { return to_device_arg(spec); }))
      .def(py::init([](const std::string& type, int index) {
        Device d = to_device_arg(py::str(type));
        d.index = index;
        return d;
      }))
      .def_property_readonly("type", [](const Device& d) { return device_type_name(d.type); })
      .def_property_readonly("index",
                             [](const Device& d) -> py::object {
                               return d.index < 0 ? py::none() : py::object(py::int_(d.index));
                             })
      .def("__str__", &Device::str)
      .def("__repr__",
           [](const Device& d) {
             std::string r = std::string("device(type='") + device_type_name(d.type) + "'";
             return d.index >= 0 ? r + ", index=" + std::to_string(d.index) + ")" : r + ")";
           })
      .def("__eq__",
           [](const Device& a, py::handle b) {
             return py::isinstance<Device>(b) && a == b.cast<Device>();
           })
      .def("__hash__", [](const Device& d) { return int(d.type) * 1000 + d.index; })
      .def("__reduce__", [](py::handle self) {
        return py::make_tuple(py::type::handle_of(self), py::make_tuple(py::str(self)));
      });
  m.attr("device").attr("__module__") = "torch";

  // ---------------------------------------------------------------- random
  py::class_<Generator>(m, "Generator", "A source of random numbers (Mersenne Twister).")
      .def(py::init([](py::handle device) { return Generator(); }), py::arg("device") = "cpu")
      .def("manual_seed",
           [](py::handle self, int64_t s) {
             self.cast<Generator&>().manual_seed(uint64_t(s));
             return py::reinterpret_borrow<py::object>(self);
           })
      .def("initial_seed", [](const Generator& g) { return g.initial_seed; })
      .def("seed",
           [](Generator& g) {
             uint64_t s = std::random_device()() | (uint64_t(std::random_device()()) << 32);
             g.manual_seed(s >> 1);
             return s >> 1;
           })
      .def("get_state", &generator_state)
      .def("set_state", [](Generator& g, py::bytes state) { g = generator_from(state); })
      .def_property_readonly("device", [](const Generator&) { return Device(); })
      // pickle and copy.deepcopy: the state, so the copy draws the same numbers next
      .def(py::pickle([](const Generator& g) { return py::make_tuple(generator_state(g)); },
                      [](const py::tuple& t) {
                        TC_CHECK(t.size() == 1 && py::isinstance<py::bytes>(t[0]), Runtime,
                                 "Generator.__setstate__: invalid state");
                        return generator_from(t[0].cast<py::bytes>());
                      }));
  m.attr("Generator").attr("__module__") = "torch";
  m.attr("default_generator") = py::cast(&default_generator(), py::return_value_policy::reference);
  m.def(
      "manual_seed",
      [](int64_t s) {
        default_generator().manual_seed(uint64_t(s));
        return py::module_::import("torch._C").attr("default_generator");
      },
      nograd);

  m.def("set_num_threads", &set_num_threads, "Sets the number of threads used by kernels and BLAS.",
        nograd);
  m.def("get_num_threads", &get_num_threads, "Number of threads used by kernels and BLAS.", nograd);
  m.def("_load_mkl", &load_mkl, py::arg("path"),
        "Routes float32/float64 matrix products to the MKL library at path; returns '' or why "
        "not (the products then stay OpenBLAS's).",
        nograd);
  m.def(
      "_has_mkl", [] { return mkl.sgemm != nullptr; }, "Whether matrix products use MKL.", nograd);
  m.def("_load_onednn", &load_onednn, py::arg("path"),
        "Runs float32 convolutions through the oneDNN library at path; returns '' or why not.",
        nograd);
  m.def("_has_onednn", &onednn_loaded, "Whether oneDNN is loaded.", nograd);
  m.def("_onednn_enabled", &onednn_enabled, nograd);
  m.def("_onednn_runs", &onednn_runs, "Convolutions oneDNN ran so far (for tests).", nograd);
  m.def("_set_onednn_enabled", &set_onednn_enabled, py::arg("enabled"), nograd);
  m.attr("_SizeBase") = make_size_base();
  m.def(
      "_set_size_class",
      [](py::object cls) {
        TC_CHECK(PyType_Check(cls.ptr()) &&
                     PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()), &PyTuple_Type) &&
                     reinterpret_cast<PyTypeObject*>(cls.ptr())->tp_dictoffset == 0,
                 Type, "_set_size_class: expected a tuple subclass without __dict__");
        g_size_class = cls;
      },
      nograd);

  // ---------------------------------------------------------------- tensors
  py::class_<Tensor> cls(m, "Tensor", py::dynamic_attr(),
                         "A multi-dimensional array: a view (offset, sizes, strides, dtype) onto "
                         "a shared storage.");
  cls.attr("__module__") = "torch";
  bind_tensor(m, cls);
  bind_ops(m, cls);
  bind_interop(m, cls);
  bind_index(m, cls);
  bind_shape(m, cls);
  bind_sort(m, cls);
  bind_linalg(m, cls);
  bind_conv(m, cls);
  bind_nn(m, cls);
  bind_fused(m);
  bind_sparse(m);
  bind_cuda(m);
  bind_grad(m, cls);
  apply_op_docs(m, cls);  // before the gates, which copy the ops' docstrings
  make_grad_gates(m, cls);
}
