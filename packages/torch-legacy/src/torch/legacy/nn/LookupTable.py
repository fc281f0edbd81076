import torch

from .Module import Module, _check_input, _name


class LookupTable(Module):
    """Embeddings: row ``i`` of ``weight`` (nIndex, nOutput) for each 0-based index ``i``
    of a 1D or 2D index tensor. Rows equal to ``paddingValue`` get no gradient; with
    ``maxNorm``, looked-up rows are renormalised to at most that ``normType``-norm."""

    # Optional Lua fields: modules read from .t7 files may lack them.
    paddingValue = -1
    maxNorm = None
    normType = None
    shouldScaleGradByFreq = False

    def __init__(self, nIndex, nOutput, paddingValue=-1, maxNorm=None, normType=None):
        super().__init__()
        self.weight = torch.empty(nIndex, nOutput)
        self.gradWeight = torch.zeros(nIndex, nOutput)
        self.paddingValue = paddingValue
        self.maxNorm = maxNorm
        self.normType = normType
        self.shouldScaleGradByFreq = False
        self.reset()

    def reset(self, stdv=1):
        self.weight.normal_(0, stdv)
        return self

    def scaleGradByFreq(self):
        self.shouldScaleGradByFreq = True
        return self

    def _indices(self, input):
        _check_input(self, input, 1, 2)
        idx = input.reshape(-1)
        idx = idx if idx.dtype == torch.int64 else idx.to(torch.int64)
        n = self.weight.size(0)
        if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= n):
            raise IndexError(
                f"{_name(self)}: indices must be in [0, {n}), got values in "
                f"[{int(idx.min())}, {int(idx.max())}]"
            )
        return idx

    def _renorm(self, idx):
        rows = idx.unique()
        w = self.weight.index_select(0, rows)
        p = self.normType if self.normType is not None else 2
        norms = w.abs().pow(p).sum(1, keepdim=True).pow(1.0 / p)
        scale = torch.where(norms > self.maxNorm, self.maxNorm / (norms + 1e-7), 1.0)
        self.weight.index_copy_(0, rows, w * scale.to(w.dtype))

    def updateOutput(self, input):
        idx = self._indices(input)
        if self.maxNorm is not None:
            self._renorm(idx)
        out = self.weight.index_select(0, idx)
        self.output = out.view(*input.shape, self.weight.size(1))
        return self.output

    def updateGradInput(self, input, gradOutput):
        # Indices have no gradient: Lua returns zeros shaped like the input.
        self.gradInput = torch.zeros(input.shape, dtype=self.weight.dtype)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        idx = self._indices(input)
        g = gradOutput.reshape(idx.numel(), self.weight.size(1))
        keep = idx != self.paddingValue
        if self.shouldScaleGradByFreq:
            counts = torch.zeros(self.weight.size(0), dtype=g.dtype).index_add_(
                0, idx, torch.ones(idx.numel(), dtype=g.dtype)
            )
            g = g / counts.index_select(0, idx).view(-1, 1)
        g = g * keep.to(g.dtype).view(-1, 1)
        self.gradWeight.index_add_(0, idx, g, alpha=scale)

    def __repr__(self):
        return f"nn.LookupTable({self.weight.size(0)}, {self.weight.size(1)})"
