"""Identity, Linear, Bilinear, LazyLinear."""

import math

import torch
from torch.nn import functional as F
from torch.nn import init
from torch.nn.modules.lazy import LazyModuleMixin
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter, UninitializedParameter

__all__ = ["Identity", "Linear", "Bilinear", "LazyLinear"]


class Identity(Module):
    """Returns its input; takes (and ignores) any constructor arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x A^T + b.  weight (out_features, in_features) and bias (out_features) start
    from U(-k, k), k = 1 / sqrt(in_features)."""

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        kw = {"device": device, "dtype": dtype}
        self.weight = Parameter(torch.empty((out_features, in_features), **kw))
        if bias:
            self.bias = Parameter(torch.empty(out_features, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # kaiming_uniform_ with a = sqrt(5): U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1]
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        try:
            return F.linear(input, self.weight, self.bias)
        except RuntimeError:
            if input.dim() == 0 or input.shape[-1] != self.weight.shape[1]:
                raise RuntimeError(
                    f"{self!r}: expected input with last dimension {self.weight.shape[1]}, "
                    f"got shape {list(input.shape)}"
                ) from None
            raise

    def extra_repr(self):
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class NonDynamicallyQuantizableLinear(Linear):
    """Linear, under the name MultiheadAttention's output projection has in PyTorch."""


class Bilinear(Module):
    """y = x1^T A x2 + b.  weight (out, in1, in2), bias (out), both from U(-k, k),
    k = 1 / sqrt(in1_features)."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):  # fmt: skip
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        kw = {"device": device, "dtype": dtype}
        self.weight = Parameter(torch.empty((out_features, in1_features, in2_features), **kw))
        if bias:
            self.bias = Parameter(torch.empty(out_features, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        if (  # (tensors: a torch.fx Proxy records the call as it is)
            isinstance(input1, torch.Tensor)
            and isinstance(input2, torch.Tensor)
            and (input1.shape[-1] != self.in1_features or input2.shape[-1] != self.in2_features)
        ):
            raise RuntimeError(
                f"{self!r}: expected inputs with last dimensions {self.in1_features} and "
                f"{self.in2_features}, got shapes {list(input1.shape)} and {list(input2.shape)}"
            )
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose ``in_features`` is the last dimension of its first input: weight and
    bias are uninitialised until the first forward call, which materialises and initialises
    them as Linear does and makes the module a :class:`Linear`."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        kw = {"device": device, "dtype": dtype}
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(**kw)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**kw)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            with torch.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
