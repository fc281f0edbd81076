// bind_conv.cpp — convolutions (1d/2d/3d, transposed, grouped) and unfold/fold (im2col).
// Private _C functions on batched inputs with explicit per-dim parameters; torch/_conv.py
// gives them PyTorch's signatures (ints or tuples, 'same'/'valid', unbatched inputs).
#include "bind.h"

namespace tc {

// conv.cpp
Tensor conv(const Tensor& input, const Tensor& weight, const Tensor& bias, const Shape& stride,
            const Shape& padding, const Shape& dilation, int64_t groups, bool transposed,
            const Shape& output_padding);
Tensor conv_weight_grad(const Tensor& input, const Tensor& grad, const Shape& weight_size,
                        const Shape& stride, const Shape& padding, const Shape& dilation,
                        int64_t groups);
Tensor im2col(const Tensor& input, const Shape& kernel, const Shape& dilation, const Shape& padding,
              const Shape& stride);
Tensor col2im(const Tensor& input, const Shape& output_size, const Shape& kernel,
              const Shape& dilation, const Shape& padding, const Shape& stride);

using Ints = std::vector<int64_t>;

void bind_conv(py::module_& m, py::class_<Tensor>&) {
  m.def(
      "_conv",
      [](const Tensor& x, const Tensor& w, py::handle bias, const Ints& stride, const Ints& padding,
         const Ints& dilation, Int64 groups, bool transposed, const Ints& output_padding) {
        return conv(x, w, opt_tensor(bias), stride, padding, dilation, groups, transposed,
                    output_padding);
      },
      "conv(input, weight, bias, stride, padding, dilation, groups, transposed, "
      "output_padding) on a batched input: a convolution, or its transpose.");
  m.def(
      "_conv_weight_grad",
      [](const Tensor& x, const Tensor& grad, const Ints& weight_size, const Ints& stride,
         const Ints& padding, const Ints& dilation, Int64 groups) {
        return conv_weight_grad(x, grad, weight_size, stride, padding, dilation, groups);
      },
      "The gradient of conv(input, weight) with respect to a weight of weight_size, given the "
      "output's gradient grad.");
  m.def(
      "_im2col",
      [](const Tensor& x, const Ints& kernel, const Ints& dilation, const Ints& padding,
         const Ints& stride) { return im2col(x, kernel, dilation, padding, stride); },
      "unfold on a batched input: (N, C, *spatial) -> (N, C * prod(kernel), blocks).");
  m.def(
      "_col2im",
      [](const Tensor& x, const Ints& output_size, const Ints& kernel, const Ints& dilation,
         const Ints& padding,
         const Ints& stride) { return col2im(x, output_size, kernel, dilation, padding, stride); },
      "fold on a batched input: (N, C * prod(kernel), blocks) -> (N, C, *output_size), "
      "summing overlaps.");
}

}  // namespace tc
