"""The script frontend's errors (``torch.jit.frontend.NotSupportedError``), as PyTorch
names them."""

from torch.jit._script import FrontendError, NotSupportedError

__all__ = ["FrontendError", "NotSupportedError"]
