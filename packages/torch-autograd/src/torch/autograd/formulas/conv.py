"""Backward formulas: convolutions and unfold/fold.

Every gradient is again one of the core's convolution ops, so double backward works:

* conv(x, w): dx = conv_transpose(g, w) (sized like x through output_padding),
  dw = _conv_weight_grad(x, g), db = g summed over batch and space;
* conv_transpose(x, w): dx = conv(g, w) (cut to x's size), dw = _conv_weight_grad(g, x);
* _conv_weight_grad(x, g) is bilinear: with gg the gradient of the weight it made,
  dx = conv_transpose(g, gg) and dg = conv(x, gg);
* unfold (im2col) and fold (col2im) are each other's adjoint.
"""

from torch import _C
from torch.autograd.graph import Formula


def _input_grad(g, w, size, stride, padding, dilation, groups):
    """The gradient of conv(x, w) with respect to x (of spatial size `size`), given the
    output's gradient g: the transposed convolution, its output_padding making it x's size."""
    k = w.shape[2:]
    out_pad = [
        size[i] - ((g.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k[i] - 1) + 1)
        for i in range(len(k))
    ]
    return _C._conv(g, w, None, stride, padding, dilation, groups, True, out_pad)


def _forward_conv(x, w, size, stride, padding, dilation, groups):
    """conv(x, w) cut to spatial size `size` (a transposed conv with an output_padding of a
    stride or more yields inputs whose convolution has extra trailing positions)."""
    out = _C._conv(x, w, None, stride, padding, dilation, groups, False, [0] * len(size))
    for i, n in enumerate(size):
        if out.shape[2 + i] != n:
            out = out.narrow(2 + i, 0, n)
    return out


class ConvolutionBackward0(Formula):
    names = ("_conv",)

    def save(self, out, x, w, b, stride, padding, dilation, groups, transposed, output_padding):
        self.save_for_backward(x if w.requires_grad else None, w if x.requires_grad else None)
        self.args = (tuple(stride), tuple(padding), tuple(dilation), groups)
        self.transposed = transposed
        self.x_size = tuple(x.shape[2:])
        self.w_shape = tuple(w.shape)
        return x, w, b

    def backward(self, g):
        x, w = self.saved_tensors
        need = self.needs_input_grad
        gx = gw = gb = None
        if self.transposed:
            if need[0]:
                gx = _forward_conv(g, w, self.x_size, *self.args)
            if need[1]:
                gw = _C._conv_weight_grad(g, x, self.w_shape, *self.args)
        else:
            if need[0]:
                gx = _input_grad(g, w, self.x_size, *self.args)
            if need[1]:
                gw = _C._conv_weight_grad(x, g, self.w_shape, *self.args)
        if len(need) > 2 and need[2]:
            gb = g.sum((0, *range(2, g.dim())))
        return gx, gw, gb


class ConvWeightGradBackward0(Formula):
    """_conv_weight_grad(x, gy) is linear in x and in gy."""

    names = ("_conv_weight_grad",)

    def save(self, out, x, gy, weight_size, stride, padding, dilation, groups):
        self.save_for_backward(x if gy.requires_grad else None, gy if x.requires_grad else None)
        self.args = (tuple(stride), tuple(padding), tuple(dilation), groups)
        self.x_size = tuple(x.shape[2:])
        self.gy_size = tuple(gy.shape[2:])
        return x, gy

    def backward(self, gg):
        x, gy = self.saved_tensors
        need = self.needs_input_grad
        gx = _input_grad(gy, gg, self.x_size, *self.args) if need[0] else None
        ggy = _forward_conv(x, gg, self.gy_size, *self.args) if need[1] else None
        return gx, ggy


class Im2ColBackward0(Formula):
    names = ("_im2col",)

    def save(self, out, x, kernel, dilation, padding, stride):
        self.size = tuple(x.shape[2:])
        self.args = (tuple(kernel), tuple(dilation), tuple(padding), tuple(stride))
        return (x,)

    def backward(self, g):
        return (_C._col2im(g, self.size, *self.args),)


class Col2ImBackward0(Formula):
    names = ("_col2im",)

    def save(self, out, col, output_size, kernel, dilation, padding, stride):
        self.args = (tuple(kernel), tuple(dilation), tuple(padding), tuple(stride))
        return (col,)

    def backward(self, g):
        return (_C._im2col(g, *self.args),)
