from ._tables import check_tensor_table
from .Module import Module, _name


class MM(Module):
    """``y = A @ B`` for ``input = [A, B]``, 2D matrices or 3D batches of them; ``transA`` /
    ``transB`` transpose the (last two dimensions of the) operands first."""

    def __init__(self, transA=False, transB=False):
        super().__init__()
        self.transA = transA
        self.transB = transB

    def _operands(self, input):
        a, b = check_tensor_table(self, input, 2)
        if a.dim() != b.dim() or a.dim() not in (2, 3):
            raise RuntimeError(
                f"{_name(self)}: expected two 2D matrices or two 3D batches, got sizes "
                f"{tuple(a.shape)} and {tuple(b.shape)}"
            )
        a = a.transpose(-1, -2) if self.transA else a
        b = b.transpose(-1, -2) if self.transB else b
        if a.size(-1) != b.size(-2) or (a.dim() == 3 and a.size(0) != b.size(0)):
            raise RuntimeError(
                f"{_name(self)}: cannot multiply {tuple(a.shape)} by {tuple(b.shape)} "
                f"(after transA={self.transA}, transB={self.transB})"
            )
        return a, b

    def updateOutput(self, input):
        a, b = self._operands(input)
        self.output = a.matmul(b)
        return self.output

    def updateGradInput(self, input, gradOutput):
        a, b = self._operands(input)
        ga = gradOutput.matmul(b.transpose(-1, -2))
        gb = a.transpose(-1, -2).matmul(gradOutput)
        self.gradInput = [
            ga.transpose(-1, -2).contiguous() if self.transA else ga,
            gb.transpose(-1, -2).contiguous() if self.transB else gb,
        ]
        return self.gradInput
