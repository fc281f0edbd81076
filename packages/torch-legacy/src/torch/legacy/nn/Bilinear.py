import math

import torch

from ._tables import check_tensor_table
from .Module import Module, _name


class Bilinear(Module):
    """``y_k = a^T W_k b + bias_k`` for ``input = [a, b]``, 2D batches of rows of
    ``inputSize1`` and ``inputSize2`` elements; ``weight`` is (outputSize, in1, in2)."""

    def __init__(self, inputSize1, inputSize2, outputSize, bias=True):
        super().__init__()
        self.weight = torch.empty(outputSize, inputSize1, inputSize2)
        self.gradWeight = torch.zeros(outputSize, inputSize1, inputSize2)
        self.bias = torch.empty(outputSize) if bias else None
        self.gradBias = torch.zeros(outputSize) if bias else None
        self.reset()

    def reset(self, stdv=None):
        stdv = stdv if stdv is not None else 1.0 / math.sqrt(self.weight.size(1))
        self.weight.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.uniform_(-stdv, stdv)
        return self

    def _operands(self, input):
        a, b = check_tensor_table(self, input, 2)
        _, n1, n2 = self.weight.shape
        if (
            a.dim() != 2
            or b.dim() != 2
            or a.shape[1] != n1
            or b.shape[1] != n2
            or (a.shape[0] != b.shape[0])
        ):
            raise RuntimeError(
                f"{_name(self)}: expected inputs of sizes (N, {n1}) and (N, {n2}), got "
                f"{tuple(a.shape)} and {tuple(b.shape)}"
            )
        return a, b

    def updateOutput(self, input):
        a, b = self._operands(input)
        aw = a.unsqueeze(0).matmul(self.weight)  # (K, N, in2): a^T W_k per row
        out = (aw * b.unsqueeze(0)).sum(2).t()
        self.output = out + self.bias if self.bias is not None else out
        return self.output

    def updateGradInput(self, input, gradOutput):
        a, b = self._operands(input)
        g = gradOutput.t().unsqueeze(2)  # (K, N, 1)
        wb = b.unsqueeze(0).matmul(self.weight.transpose(1, 2))  # (K, N, in1): W_k b per row
        aw = a.unsqueeze(0).matmul(self.weight)  # (K, N, in2)
        self.gradInput = [(g * wb).sum(0), (g * aw).sum(0)]
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        a, b = self._operands(input)
        ga = gradOutput.t().unsqueeze(2) * a.unsqueeze(0)  # (K, N, in1)
        self.gradWeight.add_(ga.transpose(1, 2).matmul(b), alpha=scale)
        if self.bias is not None:
            self.gradBias.add_(gradOutput.sum(0), alpha=scale)

    def __repr__(self):
        k, n1, n2 = self.weight.shape
        return f"nn.Bilinear({n1}, {n2} -> {k})" + (" without bias" if self.bias is None else "")
