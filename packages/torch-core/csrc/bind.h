// bind.h — shared helpers of the Python binding (the bind_*.cpp files). The binding only
// converts arguments and names things; the ops live in ops.h.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "ops.h"

namespace py = pybind11;

namespace tc {

// An int argument of a binding (a dim, an index, a length). Like int64_t, except that a Python
// int outside int64's range raises ValueError naming the value, as in PyTorch (pybind11's own
// caster would answer "incompatible function arguments" with every signature).
struct Int64 {
  int64_t v;
  Int64(int64_t x = 0) : v(x) {}  // NOLINT: implicit, so bodies use it as an int64_t
  operator int64_t() const { return v; }
};
}  // namespace tc

namespace pybind11::detail {
template <>
struct type_caster<tc::Int64> {
  PYBIND11_TYPE_CASTER(tc::Int64, const_name("int"));
  bool load(handle src, bool) {
    if (PyFloat_Check(src.ptr()) || !PyIndex_Check(src.ptr())) return false;
    object i = reinterpret_steal<object>(PyNumber_Index(src.ptr()));
    if (!i) {
      PyErr_Clear();
      return false;
    }
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow)
      tc::fail(tc::ErrorKind::Value, "integer ", std::string(str(i)),
               " overflows int64 (Overflow when unpacking long long)");
    value = tc::Int64(x);
    return true;
  }
  static handle cast(tc::Int64 src, return_value_policy, handle) {
    return PyLong_FromLongLong(src.v);
  }
};
}  // namespace pybind11::detail

namespace tc {
// A new reference to a method's `self` (methods that return their tensor itself).
inline py::object self_ref(py::handle self) { return py::reinterpret_borrow<py::object>(self); }

// `nograd` on a binding: the op's results carry no gradient (bool or integer results,
// creation, random sampling, queries, autograd's own hooks). Every other op of torch._C and
// torch.Tensor gets a grad gate with an empty formula slot at module init, which
// torch-autograd fills (bind_grad.cpp). Tables of ops write NoGrad{!has_gradient(op)}.
struct NoGrad {
  bool on = true;
};
inline constexpr NoGrad nograd{};
void note_no_grad(const char* name, bool method);  // for the attribute below
}  // namespace tc

namespace pybind11::detail {
template <>
struct process_attribute<tc::NoGrad> : process_attribute_default<tc::NoGrad> {
  static void init(const tc::NoGrad& a, function_record* r) {
    if (a.on) tc::note_no_grad(r->name, r->is_method);  // `name` and `is_method` come first
  }
};
}  // namespace pybind11::detail

namespace tc {

// A dtype object (torch.float32 ...): one singleton per ScalarType.
struct DTypeObj {
  ScalarType type;
};

inline std::string type_name(py::handle h) {  // for messages: "str", "list", ...
  return py::str(py::type::handle_of(h).attr("__name__"));
}
py::object dtype_object(ScalarType t);  // the singleton
ScalarType to_dtype_arg(py::handle h,
                        const char* op);             // dtype object or Python type (float/int/bool)
ScalarType opt_dtype(py::handle h, const char* op);  // None -> Undefined
Device to_device_arg(py::handle h);                  // device, "cpu", "cuda:0", int
Scalar to_scalar(py::handle h, const char* op, const char* arg);
bool is_number(py::handle h);
// A Tensor argument that may also be a Python number (then a wrapped 0-d tensor).
Tensor tensor_or_scalar(py::handle h, const char* op, const char* arg);
Tensor opt_tensor(py::handle h);                              // None -> undefined
int64_t to_int64(py::handle h, const char* op);               // int or __index__, range-checked
Shape to_shape(py::handle h, const char* op);                 // int or sequence of ints
Shape shape_from_args(const py::args& args, const char* op);  // f(2, 3) or f((2, 3))
DimList to_dims(py::handle h, const char* op);                // None, int, or sequence
py::object size_object(const Shape& s);                       // torch.Size
Generator* opt_generator(py::handle h);

void bind_tensor(py::module_& m, py::class_<Tensor>& cls);
void bind_ops(py::module_& m, py::class_<Tensor>& cls);
void bind_interop(py::module_& m, py::class_<Tensor>& cls);
void bind_index(py::module_& m, py::class_<Tensor>& cls);     // bind_index.cpp: indexing, index ops
void bind_shape(py::module_& m, py::class_<Tensor>& cls);     // bind_shape.cpp: cat, flip, ...
void bind_sort(py::module_& m, py::class_<Tensor>& cls);      // bind_sort.cpp: scans, sort, topk
void bind_linalg(py::module_& m, py::class_<Tensor>& cls);    // bind_linalg.cpp: LAPACK
void bind_grad(py::module_& m, py::class_<Tensor>& cls);      // bind_grad.cpp: autograd's hook
void apply_op_docs(py::module_& m, py::class_<Tensor>& cls);  // op_docs.cpp: docstrings
void make_grad_gates(py::module_& m, py::class_<Tensor>& cls);  // last: the ops' grad gates
void bind_conv(py::module_& m, py::class_<Tensor>& cls);        // bind_conv.cpp: convolutions
void bind_nn(py::module_& m, py::class_<Tensor>& cls);          // bind_nn.cpp: other NN kernels
void bind_cuda(py::module_& m);  // bind_cuda.cpp: the CUDA backend's runtime (torch.cuda)

}  // namespace tc
