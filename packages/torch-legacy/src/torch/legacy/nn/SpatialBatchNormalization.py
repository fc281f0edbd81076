import torch
from torch import _C

from ._spatial import add_scaled_, check_dtype, check_grad_output
from .Module import Module, _check_input


class SpatialBatchNormalization(Module):
    """Batch normalisation of each plane of (N, C, H, W) input: in training, by the batch's
    mean and variance over N, H, W (updating running_mean and running_var with
    ``momentum``, the variance unbiased); in evaluation, by the running statistics. Then
    times weight and plus bias (with ``affine``; weight starts in U(0, 1), bias at 0)."""

    nDim = 4

    def __init__(self, nOutput, eps=1e-5, momentum=0.1, affine=True):
        super().__init__()
        if nOutput <= 0:
            raise ValueError(f"nn.{type(self).__name__}: nOutput must be positive, got {nOutput}")
        self.eps, self.momentum, self.affine = eps, momentum, affine
        self.train = True
        self.running_mean = torch.zeros(nOutput)
        self.running_var = torch.ones(nOutput)
        self.save_mean = self.save_std = None
        if affine:
            self.weight = torch.empty(nOutput)
            self.bias = torch.empty(nOutput)
            self.gradWeight = torch.zeros(nOutput)
            self.gradBias = torch.zeros(nOutput)
            self.reset()
        else:
            self.weight = self.bias = self.gradWeight = self.gradBias = None

    def reset(self, stdv=None):
        if self.weight is not None:
            self.weight.uniform_()
            self.bias.zero_()
        self.running_mean.zero_()
        self.running_var.fill_(1)
        return self

    def clearState(self):
        self.save_mean = self.save_std = None
        return super().clearState()

    def _flat(self, input):
        """input as (N, C, rest) after the checks."""
        _check_input(self, input, self.nDim)
        c = self.running_mean.numel()
        if input.shape[1] != c:
            raise RuntimeError(
                f"{self!r}: input of size {tuple(input.shape)} has {input.shape[1]} planes in "
                f"dimension 1, expected {c}"
            )
        check_dtype(self, input, self.running_mean)
        return input.reshape(input.shape[0], c, -1)

    def updateOutput(self, input):
        x = self._flat(input)
        if self.train and x.shape[0] * x.shape[2] == 1:
            raise RuntimeError(
                f"{self!r}: training needs more than one value per plane, got input of size "
                f"{tuple(input.shape)}"
            )
        out, self.save_mean, self.save_std = _C._batch_norm(
            x,
            self.weight,
            self.bias,
            self.running_mean,
            self.running_var,
            bool(self.train),
            float(self.momentum),
            float(self.eps),
        )  # save_std holds 1 / std, as Lua's does
        self.output = out.reshape(input.shape)
        return self.output

    def _grads(self, input, gradOutput):
        x = self._flat(input)
        check_grad_output(self, gradOutput, self.output)
        g = gradOutput.reshape(x.shape)
        return _C._batch_norm_backward(
            g, x, self.weight, self.save_mean, self.save_std, bool(self.train)
        )

    def updateGradInput(self, input, gradOutput):
        self.gradInput = self._grads(input, gradOutput)[0].reshape(input.shape)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        if self.weight is not None:
            _, gw, gb = self._grads(input, gradOutput)
            add_scaled_(self.gradWeight, gw, scale)
            add_scaled_(self.gradBias, gb, scale)

    def __repr__(self):
        return f"{super().__repr__()} ({self.running_mean.numel()})"
