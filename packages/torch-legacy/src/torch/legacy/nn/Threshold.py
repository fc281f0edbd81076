import torch

from ._pointwise import _Pointwise


class Threshold(_Pointwise):
    """``y = x if x > threshold else value``."""

    def __init__(self, threshold=1e-6, value=0, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace
        if inplace and value > threshold:
            raise ValueError(f"nn.Threshold: in-place mode requires value ({value}) <= threshold")

    def _output(self, x):
        return torch.where(x > self.threshold, x, self.value).to(x.dtype)

    def _grad(self, x, y, g):
        # y > threshold iff x > threshold (value <= threshold in place, where x is gone).
        kept = (y if self.inplace else x) > self.threshold
        return g * kept.to(g.dtype)

    def __repr__(self):
        return f"nn.{type(self).__name__}({self.threshold}, {self.value})"
