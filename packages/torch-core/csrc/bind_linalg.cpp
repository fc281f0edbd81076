// bind_linalg.cpp — Python bindings of linalg.cpp.
#include "bind.h"

namespace tc {

void bind_linalg(py::module_& m, py::class_<Tensor>& cls) {}

}  // namespace tc
