"""torch.optim: optimisers over ``param_groups`` with per-parameter state (the torch-optim wheel).

``torch.optim.lr_scheduler`` adjusts each group's learning rate over training.
"""

__version__ = "0.1.0"

from torch.optim import lr_scheduler  # noqa: E402
from torch.optim.adadelta import Adadelta  # noqa: E402
from torch.optim.adagrad import Adagrad  # noqa: E402
from torch.optim.adam import Adam  # noqa: E402
from torch.optim.adamax import Adamax  # noqa: E402
from torch.optim.adamw import AdamW  # noqa: E402
from torch.optim.asgd import ASGD  # noqa: E402
from torch.optim.lbfgs import LBFGS  # noqa: E402
from torch.optim.nadam import NAdam  # noqa: E402
from torch.optim.optimizer import Optimizer  # noqa: E402
from torch.optim.radam import RAdam  # noqa: E402
from torch.optim.rmsprop import RMSprop  # noqa: E402
from torch.optim.rprop import Rprop  # noqa: E402
from torch.optim.sgd import SGD  # noqa: E402
from torch.optim.sparse_adam import SparseAdam  # noqa: E402

__all__ = [
    "ASGD",
    "LBFGS",
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SparseAdam",
    "lr_scheduler",
]
