// bind_shape.cpp — Python bindings of shape.cpp. torch.cat is bound here directly (it is hot);
// the other ops are private _C functions that torch/_shape_ops.py wraps with PyTorch's
// argument forms and Tensor methods.
#include "bind.h"
#include "shape_ops.h"

namespace tc {

static std::vector<Tensor> tensor_list(py::handle seq, const char* op) {
  TC_CHECK(py::isinstance<py::sequence>(seq) && !py::isinstance<Tensor>(seq), Type, op,
           "(): argument 'tensors' must be a tuple or list of Tensors, not ", type_name(seq));
  std::vector<Tensor> ts;
  size_t i = 0;
  for (py::handle h : seq) {
    TC_CHECK(py::isinstance<Tensor>(h), Type, op,
             "(): expected a sequence of Tensors, but element ", i, " is ", type_name(h));
    ts.push_back(h.cast<Tensor>());
    i++;
  }
  return ts;
}

void bind_shape(py::module_& m, py::class_<Tensor>& cls) {
  m.def(
      "cat",
      [](py::handle tensors, Int64 dim, py::handle out) -> py::object {
        Tensor r = cat(tensor_list(tensors, "cat"), dim, opt_tensor(out));
        return out.is_none() ? py::cast(r) : py::reinterpret_borrow<py::object>(out);
      },
      py::arg("tensors"), py::arg("dim") = 0, py::kw_only(), py::arg("out") = py::none(),
      "Concatenates tensors along an existing dim (types promote; empty 1-D tensors are "
      "skipped).");
  m.def("_flip", [](const Tensor& x, py::handle dims) { return flip(x, to_shape(dims, "flip")); });
  m.def("_roll", [](const Tensor& x, py::handle shifts, py::handle dims) {
    return roll(x, to_shape(shifts, "roll"), dims.is_none() ? Shape() : to_shape(dims, "roll"));
  });
  m.def("_tri", [](const Tensor& x, Int64 diagonal, bool upper, py::handle out) {
    return tril(x, diagonal, upper, opt_tensor(out));
  });
  m.def("_tri_", [](const Tensor& x, Int64 diagonal, bool upper) { tril_(x, diagonal, upper); });
  m.def(
      "_tri_indices",
      [](Int64 row, Int64 col, Int64 offset, bool upper, py::handle dt) {
        ScalarType t = opt_dtype(dt, upper ? "triu_indices" : "tril_indices");
        return tril_indices(row, col, offset, upper,
                            t == ScalarType::Undefined ? ScalarType::Long : t);
      },
      nograd);
  m.def("_repeat_interleave", [](const Tensor& x, const Tensor& repeats, Int64 dim) {
    return repeat_interleave(x, repeats, dim);
  });
}

}  // namespace tc
