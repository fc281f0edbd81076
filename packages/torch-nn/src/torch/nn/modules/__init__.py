"""The layers of torch.nn, one file per family (the names PyTorch's checkpoints use)."""

from torch.nn.modules.activation import *  # noqa: F403
from torch.nn.modules.batchnorm import *  # noqa: F403
from torch.nn.modules.batchnorm import SyncBatchNorm  # noqa: F401
from torch.nn.modules.container import *  # noqa: F403
from torch.nn.modules.conv import *  # noqa: F403
from torch.nn.modules.distance import *  # noqa: F403
from torch.nn.modules.dropout import *  # noqa: F403
from torch.nn.modules.flatten import *  # noqa: F403
from torch.nn.modules.fold import *  # noqa: F403
from torch.nn.modules.instancenorm import *  # noqa: F403
from torch.nn.modules.linear import *  # noqa: F403
from torch.nn.modules.loss import *  # noqa: F403
from torch.nn.modules.module import Module  # noqa: F401
from torch.nn.modules.normalization import *  # noqa: F403
from torch.nn.modules.padding import *  # noqa: F403
from torch.nn.modules.pixelshuffle import *  # noqa: F403
from torch.nn.modules.pooling import *  # noqa: F403
from torch.nn.modules.rnn import *  # noqa: F403
from torch.nn.modules.sparse import *  # noqa: F403
from torch.nn.modules.transformer import *  # noqa: F403
from torch.nn.modules.upsampling import *  # noqa: F403

_FAMILIES = (
    "activation", "batchnorm", "container", "conv", "distance", "dropout", "flatten",
    "fold", "instancenorm", "linear", "loss", "normalization", "padding", "pixelshuffle", "pooling",
    "rnn", "sparse", "transformer", "upsampling",
)  # fmt: skip
__all__ = ["Module", "SyncBatchNorm"]
for _name in _FAMILIES:
    __all__ += __import__(f"torch.nn.modules.{_name}", fromlist=["__all__"]).__all__
del _name
