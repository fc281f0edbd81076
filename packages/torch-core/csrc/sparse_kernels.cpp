// sparse_kernels.cpp — kernels of the sparse layouts (torch/_sparse.py): products with dense.
#include "bind.h"

namespace tc {

void bind_sparse(py::module_& m) { (void)m; }

}  // namespace tc
