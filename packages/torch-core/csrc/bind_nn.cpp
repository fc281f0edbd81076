// bind_nn.cpp — the other neural-network kernels: pooling, normalisation, softmax, losses,
// embedding, dropout, interpolation, padding.
#include "bind.h"

namespace tc {

void bind_nn(py::module_& m, py::class_<Tensor>&) {}

}  // namespace tc
