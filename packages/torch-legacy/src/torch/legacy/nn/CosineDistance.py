from ._tables import check_tensor_table
from .Module import Module, _name

EPS = 1e-12


class CosineDistance(Module):
    """The cosine similarity ``a.b / (|a| |b|)`` of ``input = [a, b]`` (1D vectors or 2D
    batches of rows); a 1D input gives a 1-element output."""

    def _rows(self, input):
        a, b = check_tensor_table(self, input, 2, same_size=True)
        if a.dim() not in (1, 2):
            raise RuntimeError(f"{_name(self)}: expected 1D or 2D inputs, got {tuple(a.shape)}")
        return (a.view(1, -1), b.view(1, -1)) if a.dim() == 1 else (a, b)

    def updateOutput(self, input):
        a, b = self._rows(input)
        na = ((a * a).sum(1) + EPS).sqrt()
        nb = ((b * b).sum(1) + EPS).sqrt()
        self.output = (a * b).sum(1) / (na * nb)
        return self.output

    def updateGradInput(self, input, gradOutput):
        a, b = self._rows(input)
        na2 = (a * a).sum(1, keepdim=True) + EPS
        nb2 = (b * b).sum(1, keepdim=True) + EPS
        dot = (a * b).sum(1, keepdim=True)
        inv = (na2 * nb2).rsqrt()
        g = gradOutput.reshape(-1, 1)
        ga = g * inv * (b - a * dot / na2)
        gb = g * inv * (a - b * dot / nb2)
        self.gradInput = [ga.view(input[0].shape), gb.view(input[1].shape)]
        return self.gradInput
