"""torch.nn.functional: the layers, activations and losses as functions.

Two kinds live here.  The heavy kernels (convolution, pooling, normalisation, softmax,
nll/cross-entropy, embedding, dropout, interpolation, padding) are torch-core ops in
``torch._conv`` and ``torch._nn_ops`` with these exact signatures; they are looked up when
first used (module ``__getattr__``), so this module imports even with a core that lacks
them.  Everything else (activations, most losses, attention, distances) is composed of
differentiable core ops, so autograd needs nothing more; that code is in the modules of
``torch.nn._functional`` (activation, loss, attention, ...), and this module re-exports it.
"""

# (itertools, math, warnings, torch, Tensor: names this module has always offered)
import importlib
import itertools  # noqa: F401
import math  # noqa: F401
import warnings  # noqa: F401

import torch
from torch.nn._functional.activation import (  # noqa: F401
    celu,
    celu_,
    elu,
    elu_,
    gelu,
    glu,
    gumbel_softmax,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    logsigmoid,
    mish,
    prelu,
    relu,
    relu6,
    relu_,
    rrelu,
    rrelu_,
    selu,
    selu_,
    sigmoid,
    silu,
    softplus,
    softshrink,
    softsign,
    softsign_,
    tanh,
    tanhshrink,
    threshold,
    threshold_,
)
from torch.nn._functional.attention import (  # noqa: F401
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from torch.nn._functional.distance import (  # noqa: F401
    cosine_similarity,
    pairwise_distance,
    pdist,
)
from torch.nn._functional.linear import (  # noqa: F401
    bilinear,
    linear,
)
from torch.nn._functional.loss import (  # noqa: F401
    _Reduction,  # (torch.nn.modules.loss imports it from here)
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    l1_loss,
    margin_ranking_loss,
    mse_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from torch.nn._functional.normalization import (  # noqa: F401
    local_response_norm,
    normalize,
    rms_norm,
)
from torch.nn._functional.pooling import (  # noqa: F401
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d_with_indices,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d_with_indices,
    max_pool2d_with_indices,
    max_pool3d_with_indices,
)
from torch.nn._functional.sampling import (  # noqa: F401
    affine_grid,
    grid_sample,
)
from torch.nn._functional.sparse import (  # noqa: F401
    one_hot,
)
from torch.nn._functional.vision import (  # noqa: F401
    channel_shuffle,
    pixel_shuffle,
    pixel_unshuffle,
    upsample,
    upsample_bilinear,
    upsample_nearest,
)

Tensor = torch.Tensor

# The kernels that torch-core provides: name -> module.
_CONV_OPS = "conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d unfold fold"
_NN_OPS = (
    "max_pool1d max_pool2d max_pool3d avg_pool1d avg_pool2d avg_pool3d adaptive_avg_pool1d "
    "adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d adaptive_max_pool2d "
    "adaptive_max_pool3d max_unpool1d max_unpool2d max_unpool3d feature_alpha_dropout softmax "
    "log_softmax softmin batch_norm layer_norm group_norm instance_norm nll_loss cross_entropy "
    "embedding embedding_bag dropout dropout1d dropout2d dropout3d alpha_dropout interpolate pad"
)
_CORE_KERNELS = {
    **{n: "torch._conv" for n in _CONV_OPS.split()},
    **{n: "torch._nn_ops" for n in _NN_OPS.split()},
}


def __getattr__(name):
    module = _CORE_KERNELS.get(name)
    if module is None:
        raise AttributeError(f"module 'torch.nn.functional' has no attribute '{name}'")
    fn = getattr(importlib.import_module(module), name, None)
    if fn is None:
        raise NotImplementedError(
            f"torch.nn.functional.{name} is the core kernel {module}.{name}, which this "
            "build of torch-core does not provide: update torch-core"
        )
    globals()[name] = fn  # later lookups find it directly
    return fn


def __dir__():
    return sorted(set(globals()) | set(_CORE_KERNELS))


# The functions keep this module as their home wherever their code lives: reprs, pickles
# and torch.load's allow-lists name them torch.nn.functional.<name>, as before the split.
for _obj in list(globals().values()):
    if getattr(_obj, "__module__", "").startswith("torch.nn._functional."):
        _obj.__module__ = __name__
del _obj
