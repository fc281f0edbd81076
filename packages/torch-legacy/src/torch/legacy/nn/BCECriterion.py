from .Criterion import Criterion, check_same_size, check_tensor

_EPS = 1e-12  # Lua's guard inside the logs


class BCECriterion(Criterion):
    """Binary cross-entropy of probabilities ``input`` against ``target`` in [0, 1]:
    -sum(w * (t * log(x + eps) + (1 - t) * log(1 - x + eps))), divided by the number of
    elements if ``sizeAverage``. ``weights`` has input's size, or (for an (N, C) input)
    one value per column."""

    def __init__(self, weights=None, sizeAverage=True):
        super().__init__()
        if weights is not None:
            check_tensor("BCECriterion", "weights", weights)
        self.weights = weights
        self.sizeAverage = sizeAverage

    def _args(self, input, target):
        t = check_same_size("BCECriterion", input, target)
        w = None
        if self.weights is not None:
            if self.weights.numel() == input.numel():
                w = self.weights.reshape(input.shape)
            elif input.dim() == 2 and self.weights.numel() == input.shape[1]:
                w = self.weights.reshape(1, -1)
            else:
                raise ValueError(
                    f"nn.BCECriterion: weights of shape {tuple(self.weights.shape)} match "
                    f"neither input of shape {tuple(input.shape)} nor its rows"
                )
            w = w.to(input.dtype)
        scale = 1.0 / max(input.numel(), 1) if self.sizeAverage else 1.0
        return t, w, scale

    def updateOutput(self, input, target):
        t, w, scale = self._args(input, target)
        loss = t * (input + _EPS).log() + (1 - t) * (1 - input + _EPS).log()
        if w is not None:
            loss = loss * w
        self.output = -loss.sum().item() * scale
        return self.output

    def updateGradInput(self, input, target):
        t, w, scale = self._args(input, target)
        grad = (input - t) / ((1 - input + _EPS) * (input + _EPS)) * scale
        self.gradInput = grad if w is None else grad * w
        return self.gradInput
