"""Backward formulas of the core's ops, one small class per op, grouped by topic.

Each class is a :class:`torch.autograd.graph.Formula`: ``names`` lists the core ops
(Tensor methods and ``torch._C`` functions) it differentiates, ``save`` keeps what the
backward needs, ``backward`` returns one gradient per input, written with tensor ops so
that it is differentiable again.
"""

from torch.autograd.formulas import (
    blas,
    complex,
    conv,
    indexing,
    linalg,
    nn,
    pointwise,
    reduce,
    shape,
    sort,
    views,
)

MODULES = [pointwise, reduce, blas, views, indexing, shape, sort, linalg, conv, nn, complex]


def all_formulas():
    from torch.autograd.graph import Formula

    found = []
    for mod in MODULES:
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, Formula) and obj.names + obj.inplace_names:
                found.append(obj)
    return found
