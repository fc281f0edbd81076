// bind_conv.cpp — convolutions (1d/2d/3d, transposed, grouped) and unfold/fold (im2col).
#include "bind.h"

namespace tc {

void bind_conv(py::module_& m, py::class_<Tensor>&) {}

}  // namespace tc
