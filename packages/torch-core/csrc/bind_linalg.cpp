// bind_linalg.cpp — Python bindings of linalg.cpp: private torch._C._linalg_* primitives
// that torch.linalg (Python) builds the public functions from.
#include "bind.h"
#include "linalg_ops.h"

namespace tc {

void bind_linalg(py::module_& m, py::class_<Tensor>& cls) {
  m.def("_linalg_lu_factor", &linalg_lu_factor, py::arg("A"));
  m.def("_linalg_solve_ex", &linalg_solve_ex, py::arg("A"), py::arg("B"));
  m.def("_linalg_solve_triangular", &linalg_solve_triangular, py::arg("A"), py::arg("B"),
        py::arg("upper"), py::arg("unitriangular"));
  m.def("_linalg_cholesky_ex", &linalg_cholesky_ex, py::arg("A"), py::arg("upper"));
  m.def("_linalg_qr", &linalg_qr, py::arg("A"), py::arg("mode"));
  m.def("_linalg_svd", &linalg_svd, py::arg("A"), py::arg("full_matrices"), py::arg("compute_uv"));
  m.def("_linalg_eigh", &linalg_eigh, py::arg("A"), py::arg("upper"), py::arg("vectors"));
  m.def("_linalg_eig", &linalg_eig, py::arg("A"), py::arg("vectors"));
  m.def("_linalg_lstsq", &linalg_lstsq, py::arg("A"), py::arg("B"), py::arg("rcond"));
}

}  // namespace tc
