import torch

from ._tables import check_tensor_table
from .Module import Module, _name


class JoinTable(Module):
    """Concatenates the tensors of the input list along ``dimension``; with
    ``nInputDims``, inputs of ``nInputDims + 1`` dimensions have a batch in front."""

    # Optional Lua fields: modules read from .t7 files may lack them.
    nInputDims = None

    def __init__(self, dimension, nInputDims=None):
        super().__init__()
        self.dimension = dimension
        self.nInputDims = nInputDims

    def _dim(self, input):
        check_tensor_table(self, input)
        dim = self.dimension
        if self.nInputDims is not None and input[0].dim() == self.nInputDims + 1:
            dim += 1
        return dim

    def updateOutput(self, input):
        dim = self._dim(input)
        try:
            self.output = torch.cat(list(input), dim)
        except (RuntimeError, ValueError, IndexError) as e:
            shapes = [tuple(t.shape) for t in input]
            raise RuntimeError(f"{_name(self)}: cannot join {shapes} along {dim}: {e}") from e
        return self.output

    def updateGradInput(self, input, gradOutput):
        dim = self._dim(input)
        grads, offset = [], 0
        for t in input:
            grads.append(gradOutput.narrow(dim, offset, t.size(dim)).clone())
            offset += t.size(dim)
        self.gradInput = grads
        return self.gradInput
