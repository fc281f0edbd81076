// bind_sort.cpp — Python bindings of sort.cpp.
#include "bind.h"

namespace tc {

void bind_sort(py::module_& m, py::class_<Tensor>& cls) {}

}  // namespace tc
