// bind_nn.cpp — the other neural-network kernels: pooling, normalisation, softmax, losses,
// embedding, dropout, interpolation, padding. Private _C._<op> functions with plain
// arguments; torch/_nn_ops.py gives them torch.nn.functional's signatures.
#include "bind.h"
#include "nn_ops.h"

namespace tc {

static Tensor maybe(py::handle h) {  // None -> undefined
  return h.is_none() ? Tensor() : h.cast<Tensor>();
}

void bind_nn(py::module_& m, py::class_<Tensor>&) {
  // pooling
  m.def("_max_pool", [](const Tensor& x, const IntList& k, const IntList& s, const IntList& p,
                        const IntList& d, bool ceil) {
    auto r = max_pool(x, k, s, p, d, ceil);
    return py::make_tuple(r.first, r.second);
  });
  m.def("_adaptive_max_pool", [](const Tensor& x, const IntList& out) {
    auto r = adaptive_max_pool(x, out);
    return py::make_tuple(r.first, r.second);
  });
  m.def("_max_pool_backward", &max_pool_backward);
  m.def("_avg_pool", &avg_pool);
  m.def("_avg_pool_backward", &avg_pool_backward);
  m.def("_adaptive_avg_pool", &adaptive_avg_pool);
  m.def("_adaptive_avg_pool_backward", &adaptive_avg_pool_backward);
  // softmax
  m.def("_softmax", [](const Tensor& x, Int64 dim) { return softmax(x, dim, false); });
  m.def("_log_softmax", [](const Tensor& x, Int64 dim) { return softmax(x, dim, true); });
  m.def("_softmax_backward", [](const Tensor& g, const Tensor& y, Int64 dim) {
    return softmax_backward(g, y, dim, false);
  });
  m.def("_log_softmax_backward", [](const Tensor& g, const Tensor& y, Int64 dim) {
    return softmax_backward(g, y, dim, true);
  });
  // losses
  m.def("_nll_loss", [](const Tensor& x, const Tensor& target, py::handle weight, Int64 reduction,
                        Int64 ignore_index) {
    auto r = nll_loss(x, target, maybe(weight), reduction, ignore_index);
    return py::make_tuple(r.first, r.second);
  });
  m.def("_nll_loss_backward",
        [](const Tensor& g, const Tensor& target, py::handle weight, Int64 reduction,
           Int64 ignore_index, const Tensor& total_weight, Int64 classes) {
          return nll_loss_backward(g, target, maybe(weight), reduction, ignore_index, total_weight,
                                   classes);
        });
  // batch norm
  m.def("_batch_norm", [](const Tensor& x, py::handle w, py::handle b, py::handle rm, py::handle rv,
                          bool training, double momentum, double eps) {
    NormResult r = batch_norm(x, maybe(w), maybe(b), maybe(rm), maybe(rv), training, momentum, eps);
    return py::make_tuple(r.out, r.mean, r.invstd);
  });
  m.def(
      "_batch_norm_backward",
      [](const Tensor& g, const Tensor& x, py::handle w, const Tensor& mean, const Tensor& invstd,
         bool training) {
        NormResult r = batch_norm_backward(g, x, maybe(w), mean, invstd, training);
        return py::make_tuple(r.out, r.mean, r.invstd);
      },
      nograd);
  m.def("_layer_norm", [](const Tensor& x, Int64 k, py::handle w, py::handle b, double eps) {
    NormResult r = layer_norm(x, k, maybe(w), maybe(b), eps);
    return py::make_tuple(r.out, r.mean, r.invstd);
  });
  m.def(
      "_layer_norm_backward",
      [](const Tensor& g, const Tensor& x, Int64 k, py::handle w, const Tensor& mean,
         const Tensor& rstd) {
        NormResult r = layer_norm_backward(g, x, k, maybe(w), mean, rstd);
        return py::make_tuple(r.out, r.mean, r.invstd);
      },
      nograd);
  // embedding, dropout
  m.def("_embedding", [](const Tensor& weight, const Tensor& indices, int64_t, bool) {
    return embedding(weight, indices);
  });
  m.def(
      "_dropout_mask",
      [](const IntList& shape, double p, py::handle dtype, bool scale, py::handle gen,
         py::handle device) {
        return dropout_mask(Shape(shape), p, to_dtype_arg(dtype, "dropout"), scale,
                            opt_generator(gen), to_device_arg(device));
      },
      nograd);
  m.def(
      "_adam_update_",
      [](const Tensor& p, const Tensor& g, const Tensor& m_, const Tensor& v,
         std::optional<Tensor> mx, double b1, double b2, double step_size,
         double eps) { adam_update(p, g, m_, v, mx ? *mx : Tensor(), b1, b2, step_size, eps); },
      nograd);
  m.def("_lstm_cell", &lstm_cell, nograd);
  m.def("_lstm_cell_backward", &lstm_cell_backward, nograd);
  m.def(
      "_lstm_layer",
      [](const Tensor& xw, const Tensor& h0, const Tensor& c0, const Tensor& w, bool reverse) {
        LstmLayer r = lstm_layer(xw, h0, c0, w, reverse);
        return py::make_tuple(r.out, r.acts, r.c, r.tc);
      },
      nograd);
  m.def(
      "_lstm_layer_backward",
      [](const Tensor& g_out, const Tensor& g_hn, const Tensor& g_cn, const Tensor& w,
         const Tensor& acts, const Tensor& c, const Tensor& tc, const Tensor& c0, bool reverse) {
        LstmLayer r = lstm_layer_backward(g_out, g_hn, g_cn, w, acts, c, tc, c0, reverse);
        return py::make_tuple(r.out, r.acts, r.c);
      },
      nograd);
  // padding, interpolation
  m.def("_pad", &pad);
  m.def("_pad_backward", &pad_backward);
  m.def("_interpolate", &interpolate);
  m.def("_interpolate_backward", &interpolate_backward);
}

}  // namespace tc
