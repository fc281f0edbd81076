import math

import torch

from .Module import Module, _check_input, _check_size

EPS = 1e-12


class Cosine(Module):
    """``y_k = x . w_k / (|x| |w_k|)`` for each row ``w_k`` of the learnt ``weight``
    (outputSize, inputSize); a 1D input or a 2D batch of rows."""

    def __init__(self, inputSize, outputSize):
        super().__init__()
        self.weight = torch.empty(outputSize, inputSize)
        self.gradWeight = torch.zeros(outputSize, inputSize)
        self.reset()

    def reset(self, stdv=None):
        stdv = stdv if stdv is not None else 1.0 / math.sqrt(self.weight.size(1))
        self.weight.uniform_(-stdv, stdv)
        return self

    def _rows(self, input):
        _check_input(self, input, 1, 2)
        _check_size(self, input, -1, self.weight.size(1), "inputSize")
        return input.view(1, -1) if input.dim() == 1 else input

    def _parts(self, input):
        x = self._rows(input)
        nx = ((x * x).sum(1, keepdim=True) + EPS).sqrt()  # (N, 1)
        nw = ((self.weight * self.weight).sum(1) + EPS).sqrt()  # (K,)
        dot = x.mm(self.weight.t())  # (N, K)
        return x, nx, nw, dot

    def updateOutput(self, input):
        _, nx, nw, dot = self._parts(input)
        out = dot / (nx * nw)
        self.output = out.view(-1) if input.dim() == 1 else out
        return self.output

    def updateGradInput(self, input, gradOutput):
        x, nx, nw, dot = self._parts(input)
        go = gradOutput.reshape(dot.shape)
        cos = dot / (nx * nw)
        # d cos_k / dx = w_k / (|x| |w_k|) - cos_k x / |x|^2
        grad = (go / (nx * nw)).mm(self.weight) - x * (go * cos).sum(1, keepdim=True) / (nx * nx)
        self.gradInput = grad.view(input.shape)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        x, nx, nw, dot = self._parts(input)
        go = gradOutput.reshape(dot.shape)
        cos = dot / (nx * nw)
        # d cos_k / dw_k = x / (|x| |w_k|) - cos_k w_k / |w_k|^2
        shrink = ((go * cos).sum(0) / (nw * nw)).view(-1, 1)
        self.gradWeight.add_((go / (nx * nw)).t().mm(x) - self.weight * shrink, alpha=scale)

    def __repr__(self):
        return f"nn.Cosine({self.weight.size(1)} -> {self.weight.size(0)})"
