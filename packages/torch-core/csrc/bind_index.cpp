// bind_index.cpp — Tensor indexing (__getitem__/__setitem__) and the index ops' bindings.
#include "bind.h"

namespace tc {

// ---------------------------------------------------------------- basic indexing
static bool is_index_int(py::handle h) {
  if (PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr())) return true;
  if (py::isinstance<Tensor>(h)) {
    const Tensor& t = h.cast<const Tensor&>();
    return t.dim() == 0 && is_integral(t.dtype(), false);
  }
  return !py::isinstance<py::str>(h) && !PySequence_Check(h.ptr()) &&
         PyObject_HasAttrString(h.ptr(), "__index__") && !PyBool_Check(h.ptr());
}

static int64_t index_value(py::handle h) {
  if (py::isinstance<Tensor>(h)) return item(h.cast<const Tensor&>()).i;
  return h.attr("__index__")().cast<int64_t>();
}

// ints select, slices narrow (with steps), None inserts a dim, Ellipsis skips dims.
static Tensor basic_index(const Tensor& t, py::handle idx) {
  std::vector<py::handle> items;
  if (PyTuple_Check(idx.ptr())) {
    for (auto h : py::reinterpret_borrow<py::tuple>(idx)) items.push_back(h);
  } else {
    items.push_back(idx);
  }
  int64_t consumed = 0, ellipses = 0;
  for (auto h : items) {
    if (h.ptr() == Py_Ellipsis)
      ellipses++;
    else if (h.is_none())
      continue;
    else if (is_index_int(h) || PySlice_Check(h.ptr()))
      consumed++;
    else if (py::isinstance<py::str>(h) ||
             (!py::isinstance<Tensor>(h) && !PySequence_Check(h.ptr()) && !PyBool_Check(h.ptr())))
      fail(ErrorKind::Index,
           "only integers, slices (`:`), ellipsis (`...`), None and integer or "
           "boolean tensors are valid indices (got ",
           type_name(h), ")");
    else
      fail(ErrorKind::NotImplemented, "indexing with ", type_name(h),
           " (advanced indexing with tensors, lists or bool masks) is not supported yet; "
           "use index_select or masked ops");
  }
  TC_CHECK(ellipses <= 1, Index, "an index can only have a single ellipsis ('...')");
  TC_CHECK(consumed <= t.dim(), Index, "too many indices for tensor of dimension ", t.dim(),
           " (got ", consumed, ")");
  Tensor r = t;
  int64_t d = 0;
  for (auto h : items) {
    if (h.ptr() == Py_Ellipsis) {
      d += t.dim() - consumed;
    } else if (h.is_none()) {
      r = unsqueeze(r, d++);
    } else if (PySlice_Check(h.ptr())) {
      Py_ssize_t start, stop, step;
      PySlice_Unpack(h.ptr(), &start, &stop, &step);
      TC_CHECK(step > 0, Value, "step must be greater than zero");
      int64_t n = r.size(d);
      PySlice_AdjustIndices(n, &start, &stop, step);
      r = slice(r, d++, start, std::max<int64_t>(stop, start), step);
    } else {
      int64_t i = index_value(h), n = r.size(d);
      if (i < -n || i >= n)
        fail(ErrorKind::Index, "index ", i, " is out of bounds for dimension ", d, " with size ",
             n);
      r = select(r, d, i);
    }
  }
  return r.same(t) ? alias(t) : r;
}

void bind_index(py::module_& m, py::class_<Tensor>& cls) {
  cls.def("__getitem__", &basic_index)
      .def("__setitem__", [](const Tensor& t, py::handle idx, py::handle value) {
        Tensor dst = basic_index(t, idx);
        if (is_number(value))
          fill_(dst, to_scalar(value, "__setitem__", "value"));
        else
          copy_(dst, tensor_or_scalar(value, "__setitem__", "value"));
        t.bump_version();
      });
}

}  // namespace tc
