import math

import torch
from torch import _C

from .Module import Module, _check_input, _check_size, _name


class BatchNormalization(Module):
    """Normalises each feature (dimension 1) of a (N, C) input by the batch's mean and
    variance in training (updating ``running_mean``/``running_var`` with ``momentum``),
    by the running ones in evaluation; then scales by ``weight`` and adds ``bias``
    (``affine``). Spatial/Volumetric variants subclass it with another ``nDim``."""

    nDim = 2

    def __init__(self, nOutput, eps=1e-5, momentum=0.1, affine=True):
        super().__init__()
        if nOutput <= 0:
            raise ValueError(f"nn.BatchNormalization: nOutput must be positive, got {nOutput}")
        self.train = True
        self.affine = affine
        self.eps = eps
        self.momentum = momentum
        self.running_mean = torch.zeros(nOutput)
        self.running_var = torch.ones(nOutput)
        self.save_mean = None
        self.save_std = None
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

    def _flat(self, input):
        """input as (N, C, S), the layout of the core's batch-norm kernels."""
        _check_input(self, input, self.nDim)
        _check_size(self, input, 1, self.running_mean.numel(), "nOutput")
        if self.train and input.numel() // input.size(1) <= 1:
            raise RuntimeError(
                f"{_name(self)}: training needs more than one value per feature, got an "
                f"input of size {tuple(input.shape)}"
            )
        return input.reshape(input.size(0), input.size(1), math.prod(input.shape[2:]))

    def updateOutput(self, input):
        x = self._flat(input)
        out, self.save_mean, self.save_std = _C._batch_norm(
            x, self.weight, self.bias, self.running_mean, self.running_var,
            bool(self.train), float(self.momentum), float(self.eps),
        )  # fmt: skip
        self.output = out.view(input.shape)
        return self.output

    def _grads(self, input, gradOutput):
        """(gradInput, gradWeight, gradBias) of this batch, from the core kernel."""
        x = self._flat(input)
        g = gradOutput.reshape(x.shape)
        gx, gw, gb = _C._batch_norm_backward(
            g, x, self.weight, self.save_mean, self.save_std, bool(self.train)
        )
        return gx.view(input.shape), gw, gb

    def updateGradInput(self, input, gradOutput):
        self.gradInput = self._grads(input, gradOutput)[0]
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        if self.weight is not None:
            _, gw, gb = self._grads(input, gradOutput)
            self.gradWeight.add_(gw, alpha=scale)
            self.gradBias.add_(gb, alpha=scale)

    def backward(self, input, gradOutput, scale=1):
        self.gradInput, gw, gb = self._grads(input, gradOutput)
        if self.weight is not None:
            self.gradWeight.add_(gw, alpha=scale)
            self.gradBias.add_(gb, alpha=scale)
        return self.gradInput

    def clearState(self):
        self.save_mean = self.save_std = None
        return super().clearState()

    def __repr__(self):
        return f"nn.{type(self).__name__} ({self.nDim}D) ({self.running_mean.numel()})"
