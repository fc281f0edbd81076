// bind_sort.cpp — Python bindings of sort.cpp: private _C._<op> functions that return
// plain tensors or tuples; torch/_sorting.py gives them PyTorch's signatures, named
// results and Tensor methods.
#include "bind.h"
#include "sort_ops.h"

namespace tc {

static py::tuple pair(const ValuesIndices& r) { return py::make_tuple(r.first, r.second); }

void bind_sort(py::module_& m, py::class_<Tensor>&) {
  for (Op op : {Op::cumsum, Op::cumprod, Op::logcumsumexp}) {
    m.def((std::string("_") + op_name(op)).c_str(),
          [op](const Tensor& x, Int64 dim, py::handle dtype) {
            return scan(op, x, dim, opt_dtype(dtype, op_name(op)));
          });
  }
  for (Op op : {Op::cummax, Op::cummin}) {
    m.def((std::string("_") + op_name(op)).c_str(),
          [op](const Tensor& x, Int64 dim) { return pair(cum_arg(op, x, dim)); });
  }
  m.def("_sort",
        [](const Tensor& x, Int64 dim, bool descending) { return pair(sort(x, dim, descending)); });
  m.def("_topk", [](const Tensor& x, Int64 k, Int64 dim, bool largest) {
    return pair(topk(x, k, dim, largest));
  });
  m.def("_kthvalue", [](const Tensor& x, Int64 k, Int64 dim, bool keepdim) {
    return pair(kthvalue(x, k, dim, keepdim));
  });
  m.def("_median_dim", [](const Tensor& x, Int64 dim, bool keepdim, bool ignore_nan) {
    return pair(median_dim(x, dim, keepdim, ignore_nan));
  });
  m.def("_median_all", &median_all);
  m.def("_mode",
        [](const Tensor& x, Int64 dim, bool keepdim) { return pair(mode(x, dim, keepdim)); });
  m.def("_quantile", &quantile);
  m.def(
      "_unique",
      [](const Tensor& x, bool consecutive, py::handle dim) {
        UniqueResult r =
            unique(x, consecutive, !dim.is_none(), dim.is_none() ? 0 : to_int64(dim, "unique"));
        return py::make_tuple(r.values, r.inverse, r.counts);
      },
      nograd);
}

}  // namespace tc
