import torch

from .Module import Module, _check_input, _check_same_size, _check_size


class PReLU(Module):
    """``y = x if x > 0 else w * x``, with one learnt ``w`` per channel (``nOutputPlane``;
    dimension 0 of a 1D or 3D input, dimension 1 otherwise), or one shared when 0."""

    def __init__(self, nOutputPlane=0):
        super().__init__()
        self.nOutputPlane = nOutputPlane
        self.weight = torch.empty(nOutputPlane or 1).fill_(0.25)
        self.gradWeight = torch.zeros(nOutputPlane or 1)

    def _slope(self, x):
        """The weight shaped to broadcast against x."""
        if self.nOutputPlane == 0:
            return self.weight.view(*([1] * x.dim())) if x.dim() else self.weight[0]
        dim = 0 if x.dim() in (1, 3) else 1
        _check_size(self, x, dim, self.nOutputPlane, "nOutputPlane")
        shape = [1] * x.dim()
        shape[dim] = self.nOutputPlane
        return self.weight.view(shape)

    def updateOutput(self, input):
        _check_input(self, input)
        self.output = torch.where(input > 0, input, input * self._slope(input))
        return self.output

    def updateGradInput(self, input, gradOutput):
        _check_same_size(self, input, gradOutput)
        self.gradInput = torch.where(input > 0, gradOutput, gradOutput * self._slope(input))
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        contrib = torch.where(input > 0, 0.0, input * gradOutput).to(input.dtype)
        if self.nOutputPlane == 0:
            self.gradWeight.add_(contrib.sum().view(1), alpha=scale)
        else:
            dim = 0 if input.dim() in (1, 3) else 1
            per_channel = contrib.transpose(0, dim).reshape(self.nOutputPlane, -1).sum(1)
            self.gradWeight.add_(per_channel, alpha=scale)
