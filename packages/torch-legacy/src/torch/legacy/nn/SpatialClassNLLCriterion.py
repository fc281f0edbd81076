from .ClassNLLCriterion import nll_grad, nll_loss
from .Criterion import Criterion, check_tensor


class SpatialClassNLLCriterion(Criterion):
    """ClassNLLCriterion at every pixel: input (N, C, H, W) or (C, H, W) of log-probabilities,
    target (N, H, W) or (H, W) of 0-based classes; with ``sizeAverage`` the sum is divided
    by the summed weights of all targets."""

    def __init__(self, weights=None, sizeAverage=True, ignore_index=-100):
        super().__init__()
        if weights is not None:
            check_tensor("SpatialClassNLLCriterion", "weights", weights)
        self.weights = weights
        self.sizeAverage = sizeAverage
        self.ignore_index = ignore_index

    def _ignore_index(self):
        return getattr(self, "ignore_index", -100)  # absent from modules read from .t7 files

    def _args(self, input, target):
        name = "nn.SpatialClassNLLCriterion"
        check_tensor("SpatialClassNLLCriterion", "input", input)
        check_tensor("SpatialClassNLLCriterion", "target", target)
        if input.dim() not in (3, 4):
            raise ValueError(
                f"{name}: expected input of shape (N, C, H, W) or (C, H, W), got "
                f"{tuple(input.shape)}"
            )
        x = input if input.dim() == 4 else input.unsqueeze(0)
        n, c, h, w = x.shape
        if target.numel() != n * h * w or tuple(target.shape)[-2:] != (h, w):
            raise ValueError(
                f"{name}: expected target of shape {(n, h, w) if input.dim() == 4 else (h, w)} "
                f"for input of shape {tuple(input.shape)}, got {tuple(target.shape)}"
            )
        if self.weights is not None and self.weights.numel() != c:
            raise ValueError(
                f"{name}: weights has {self.weights.numel()} values but input of shape "
                f"{tuple(input.shape)} has {c} classes"
            )
        return x.reshape(n, c, h * w), target.reshape(n, h * w).long()

    def updateOutput(self, input, target):
        x, t = self._args(input, target)
        self.output = nll_loss(x, t, self.weights, self.sizeAverage, self._ignore_index())[0].item()
        return self.output

    def updateGradInput(self, input, target):
        x, t = self._args(input, target)
        grad = nll_grad(x, t, self.weights, self.sizeAverage, self._ignore_index())
        self.gradInput = grad.reshape(input.shape)
        return self.gradInput
