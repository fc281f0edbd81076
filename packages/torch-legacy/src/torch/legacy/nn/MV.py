from ._tables import check_tensor_table
from .Module import Module, _name


class MV(Module):
    """``y = M @ v`` for ``input = [M, v]``: a 2D matrix and a 1D vector, or a 3D batch of
    matrices and a 2D batch of vectors; ``trans`` transposes M first."""

    def __init__(self, trans=False):
        super().__init__()
        self.trans = trans

    def _operands(self, input):
        m, v = check_tensor_table(self, input, 2)
        if (m.dim(), v.dim()) not in ((2, 1), (3, 2)):
            raise RuntimeError(
                f"{_name(self)}: expected a 2D matrix and a 1D vector or a 3D and a 2D batch, "
                f"got sizes {tuple(m.shape)} and {tuple(v.shape)}"
            )
        m = m.transpose(-1, -2) if self.trans else m
        if m.size(-1) != v.size(-1) or (v.dim() == 2 and m.size(0) != v.size(0)):
            raise RuntimeError(
                f"{_name(self)}: cannot multiply {tuple(m.shape)} by {tuple(v.shape)}"
            )
        return m, v

    def updateOutput(self, input):
        m, v = self._operands(input)
        self.output = m.matmul(v.unsqueeze(-1)).squeeze(-1)
        return self.output

    def updateGradInput(self, input, gradOutput):
        m, v = self._operands(input)
        gm = gradOutput.unsqueeze(-1) * v.unsqueeze(-2)  # outer products
        gv = m.transpose(-1, -2).matmul(gradOutput.unsqueeze(-1)).squeeze(-1)
        self.gradInput = [gm.transpose(-1, -2).contiguous() if self.trans else gm, gv]
        return self.gradInput
