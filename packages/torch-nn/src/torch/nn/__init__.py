"""torch.nn: neural-network modules, parameters and ``torch.nn.functional`` (the torch-nn wheel).

Build models from :class:`Module` (parameters, buffers and submodules in three ordered
dicts), the layers in :mod:`torch.nn.modules`, the functions in :mod:`torch.nn.functional`
and the initialisations in :mod:`torch.nn.init`; the heavy kernels (convolution, pooling,
normalisation, losses) are torch-core ops.
"""

__version__ = "0.1.0"

from torch.nn import (  # noqa: E402,F401
    functional,
    init,
    parallel,
    parameter,
    utils,
)
from torch.nn.modules import *  # noqa: E402,F403
from torch.nn.modules.linear import NonDynamicallyQuantizableLinear  # noqa: E402,F401
from torch.nn.modules.module import Module  # noqa: E402,F401
from torch.nn.parallel import DataParallel  # noqa: E402,F401
from torch.nn.parameter import (  # noqa: E402,F401
    Buffer,
    Parameter,
    UninitializedBuffer,
    UninitializedParameter,
)
from torch.nn.utils.rnn import PackedSequence  # noqa: E402,F401
