"""torch.legacy.optim: Lua's ``optim`` package, functional and Lua-named.

Every algorithm is ``x, fx = optim.<name>(opfunc, x, config=None, state=None)``: ``opfunc(x)``
returns ``(f, df/dx)``, x (a floating-point tensor, usually flat) is updated in place and
returned, config holds Lua's keys (defaults as in Lua) and state, which defaults to config,
carries between calls under Lua's key names. Differences from Lua: fx is a number rather
than ``{fx}``; lbfgs and cg return ``(x, f_hist, nEvals)``, rprop ``(x, [fx, ...])`` and
asgd ``(x, fx, ax)``; the gradient opfunc returns is never written to.
"""

from .adadelta import adadelta
from .adagrad import adagrad
from .adam import adam
from .adamax import adamax
from .aggmo import aggmo
from .asgd import asgd
from .cg import cg
from .lbfgs import lbfgs
from .lswolfe import lswolfe
from .nag import nag
from .polyinterp import polyinterp
from .rmsprop import rmsprop
from .rprop import rprop
from .sgd import sgd

__all__ = [
    "adadelta",
    "adagrad",
    "adam",
    "adamax",
    "aggmo",
    "asgd",
    "cg",
    "lbfgs",
    "lswolfe",
    "nag",
    "polyinterp",
    "rmsprop",
    "rprop",
    "sgd",
]
