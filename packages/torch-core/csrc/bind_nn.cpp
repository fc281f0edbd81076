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
  // the loss alone (one output: one autograd node, no gradient of the total to make up)
  m.def("_nll_loss_value", [](const Tensor& x, const Tensor& target, py::handle weight,
                              Int64 reduction, Int64 ignore_index) {
    return nll_loss(x, target, maybe(weight), reduction, ignore_index).first;
  });
  m.def("_nll_loss_backward",
        [](const Tensor& g, const Tensor& target, py::handle weight, Int64 reduction,
           Int64 ignore_index, py::handle total_weight, Int64 classes) {
          return nll_loss_backward(g, target, maybe(weight), reduction, ignore_index,
                                   maybe(total_weight), classes);
        });
  // elementwise losses, one kernel each with its reduction: NotImplemented where the loss
  // must be composed in Python instead (broadcasting, promotion, integer or 16-bit inputs)
  const std::pair<const char*, int64_t> losses[] = {
      {"_mse_loss", kMseLoss},
      {"_l1_loss", kL1Loss},
      {"_smooth_l1_loss", kSmoothL1Loss},
      {"_huber_loss", kHuberLoss},
      {"_binary_cross_entropy", kBceLoss},
      {"_binary_cross_entropy_with_logits", kBceLogitsLoss}};
  for (auto [name, kind] : losses) {
    m.def(name,
          [kind = kind](py::handle x, py::handle y, py::handle w, py::handle pw, Int64 reduction,
                        double p) -> py::object {
            auto tensor_or_none = [](py::handle h) {
              return h.is_none() || py::isinstance<Tensor>(h);
            };
            if (!py::isinstance<Tensor>(x) || !py::isinstance<Tensor>(y) || !tensor_or_none(w) ||
                !tensor_or_none(pw))
              return py::reinterpret_borrow<py::object>(Py_NotImplemented);
            Tensor xt = x.cast<Tensor>(), yt = y.cast<Tensor>(), wt = maybe(w), pwt = maybe(pw);
            if (!pointwise_loss_fits(xt, yt, wt, pwt))
              return py::reinterpret_borrow<py::object>(Py_NotImplemented);
            return py::cast(pointwise_loss(kind, xt, yt, wt, pwt, reduction, p));
          });
  }
  m.def(
      "_pointwise_loss_backward",
      [](Int64 kind, const Tensor& g, const Tensor& x, const Tensor& y, py::handle w, py::handle pw,
         Int64 reduction, double p, bool need_x, bool need_y) {
        auto r = pointwise_loss_backward(kind, g, x, y, maybe(w), maybe(pw), reduction, p, need_x,
                                         need_y);
        return py::make_tuple(r.first.defined() ? py::cast(r.first) : py::none(),
                              r.second.defined() ? py::cast(r.second) : py::none());
      },
      nograd);
  // reductions with a fused kernel and one autograd node each
  m.def("_mean", [](const Tensor& x, py::handle dim, bool keepdim, py::handle dtype) {
    return mean(x, to_dims(dim, "mean"), keepdim, opt_dtype(dtype, "mean"));
  });
  m.def("_norm2", [](const Tensor& x, py::handle dim, bool keepdim) {  // sqrt(sum(x * x))
    Tensor r = reduce(Op::sum_sq, x, to_dims(dim, "norm"), keepdim);
    return unary(Op::sqrt, r, r);
  });
  m.def("_var", [](const Tensor& x, py::handle dim, double correction, bool keepdim) {
    return variance(x, to_dims(dim, "var"), correction, keepdim, false);
  });
  m.def("_std", [](const Tensor& x, py::handle dim, double correction, bool keepdim) {
    return variance(x, to_dims(dim, "std"), correction, keepdim, true);
  });
  m.def(
      "_var_backward",
      [](const Tensor& g, const Tensor& x, const Tensor& result, py::handle dim, double correction,
         bool keepdim, bool take_sqrt) {
        return variance_backward(g, x, result, to_dims(dim, "var"), correction, keepdim, take_sqrt);
      },
      nograd);
  m.def("_logsumexp", [](const Tensor& x, py::handle dim, bool keepdim) {
    return logsumexp(x, to_dims(dim, "logsumexp"), keepdim);
  });
  m.def(
      "_logsumexp_backward",
      [](const Tensor& g, const Tensor& x, const Tensor& result, py::handle dim, bool keepdim) {
        return logsumexp_backward(g, x, result, to_dims(dim, "logsumexp"), keepdim);
      },
      nograd);
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
