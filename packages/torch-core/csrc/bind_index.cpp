// bind_index.cpp — Tensor indexing (__getitem__/__setitem__) and the index ops' bindings.
#include "bind.h"
#include "index_ops.h"

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
  return to_int64(h, "index");
}

// Tensors (other than 0-d integer ones), bools and sequences are advanced indices: the
// Python layer (torch._indexing) handles those over the offset primitives of index.cpp.
static bool is_advanced(py::handle h) {
  if (PyBool_Check(h.ptr())) return true;
  if (py::isinstance<Tensor>(h)) return !is_index_int(h);
  return !py::isinstance<py::str>(h) && PySequence_Check(h.ptr());
}

static std::vector<py::handle> index_items(py::handle idx) {
  std::vector<py::handle> items;
  if (PyTuple_Check(idx.ptr())) {
    for (auto h : py::reinterpret_borrow<py::tuple>(idx)) items.push_back(h);
  } else {
    items.push_back(idx);
  }
  return items;
}

static bool any_advanced(py::handle idx) {
  for (auto h : index_items(idx))
    if (is_advanced(h)) return true;
  return false;
}

// ints select, slices narrow (with steps), None inserts a dim, Ellipsis skips dims.
static Tensor basic_index(const Tensor& t, py::handle idx) {
  std::vector<py::handle> items = index_items(idx);
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

static py::object indexing_module() { return py::module_::import("torch._indexing"); }

void bind_index(py::module_& m, py::class_<Tensor>& cls) {
  cls.def("__getitem__",
          [](py::object self, py::handle idx) -> py::object {
            if (any_advanced(idx)) return indexing_module().attr("_getitem")(self, idx);
            return py::cast(basic_index(self.cast<const Tensor&>(), idx));
          })
      .def("__setitem__", [](py::object self, py::handle idx, py::handle value) {
        if (any_advanced(idx)) {
          indexing_module().attr("_setitem")(self, idx, value);
          return;
        }
        const Tensor& t = self.cast<const Tensor&>();
        Tensor dst = basic_index(t, idx);
        if (is_number(value)) {
          fill_(dst, to_scalar(value, "__setitem__", "value"));
        } else {
          Tensor v = tensor_or_scalar(value, "__setitem__", "value");
          while (v.dim() > dst.dim() && v.size(0) == 1) v = select(v, 0, 0);  // as NumPy
          copy_(dst, v);
        }
        t.bump_version();
      });

  // Primitives of torch._indexing (see index_ops.h).
  m.def(
      "_index_offsets",
      [](const std::vector<Tensor>& idx, py::handle sizes, py::handle strides, py::handle dims) {
        return index_offsets(idx, to_shape(sizes, "index"), to_shape(strides, "index"),
                             to_shape(dims, "index"));
      },
      "offsets[b] = sum_j idx_j[b] * strides[j], checked", nograd);
  m.def("_take_rows", &take_rows, "out[b, ...] = sub[...] shifted by offsets[b] elements");
  m.def(
      "_put_rows",
      [](const Tensor& target, const Tensor& sub, const Tensor& offsets, const Tensor& values,
         int mode) {
        // `target` names the tensor written (sub is a view of its memory), so that autograd
        // and the version counter see which tensor changed.
        TC_CHECK(sub.impl()->storage == target.impl()->storage, Runtime,
                 "_put_rows: sub must view the memory of target");
        put_rows(sub, offsets, values, PutMode(mode));
        target.bump_version();
      },
      "target: sub[...] shifted by offsets[b] (op)= values[b, ...]; mode: set, add, mul, max, "
      "min");
  m.def("_mask_rows", &mask_rows, "rows of x (over mask's dims) where mask is true");
  m.def("_nonzero", &nonzero, "(count, ndim) int64 coordinates of the nonzero elements", nograd);
  m.def("_index_select",
        [](const Tensor& x, Int64 d, const Tensor& i) { return index_select(x, d, i); });
  m.def("_gather", [](const Tensor& x, Int64 d, const Tensor& i) { return gather(x, d, i); });
  m.def("_searchsorted", &searchsorted, nograd);
}

}  // namespace tc
