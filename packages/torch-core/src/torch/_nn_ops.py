"""Neural-network kernels other than convolution (the kernels are in csrc/nn_*.cpp), one
theme a module:

- torch._nn_pooling: max, average, adaptive pooling and unpooling;
- torch._nn_norms: batch_norm, layer_norm, group_norm, instance_norm;
- torch._nn_losses: softmax, log_softmax, softmin, nll_loss, cross_entropy;
- torch._nn_embedding: embedding, embedding_bag;
- torch._nn_dropout: the dropouts;
- torch._nn_resample: interpolate, pad;
- torch._nn_args: the argument parsing they share;
- torch._nn_torch_forms: the torch.<name> forms with ATen's argument order (torch.batch_norm,
  torch.embedding, the losses with an int reduction, the recurrent cells) and those that are
  torch.nn.functional's functions (torch.cosine_similarity, torch.pdist, ...).

The functions have ``torch.nn.functional``'s signatures and semantics; torch-nn re-exports
them as ``torch.nn.functional.<name>``, looking each up here (so every kernel, and the helpers
it imports, stay reachable from this module). The C++ kernels behind them (``_C._max_pool``,
``_C._softmax``, ...) take float32 or float64 tensors; layer_norm, group_norm and
instance_norm run the batch-norm kernel on a reshaped input, and cross_entropy is
log_softmax followed by nll_loss.
"""

from torch._nn_args import (  # noqa: F401  (torch-nn imports these helpers from here)
    _FLOAT_MAX,
    _float,
    _int,
    _number,
    _require_float,
    _scalar_to,
)
from torch._nn_dropout import (  # noqa: F401
    alpha_dropout,
    alpha_dropout_,
    dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    dropout_,
    feature_alpha_dropout,
    feature_alpha_dropout_,
    feature_dropout,
    feature_dropout_,
)
from torch._nn_embedding import (  # noqa: F401
    embedding,
    embedding_bag,
)
from torch._nn_losses import (  # noqa: F401
    cross_entropy,
    log_softmax,
    nll_loss,
    softmax,
    softmin,
)
from torch._nn_norms import (  # noqa: F401
    batch_norm,
    group_norm,
    instance_norm,
    layer_norm,
)
from torch._nn_pooling import (  # noqa: F401
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    adaptive_max_pool3d,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
    max_pool1d,
    max_pool2d,
    max_pool3d,
    max_unpool1d,
    max_unpool2d,
    max_unpool3d,
)
from torch._nn_resample import (  # noqa: F401
    interpolate,
    pad,
)

# torch.<name>: these have torch.nn.functional's signatures.  batch_norm, instance_norm and
# embedding are left out: PyTorch's torch.batch_norm/instance_norm/embedding take their
# arguments in another order; torch._nn_torch_forms installs those forms (and the other
# torch.<nn op> functions) at the end of this module.
__all__ = [
    "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d",
    "softmax", "log_softmax", "softmin", "layer_norm", "group_norm",
    "nll_loss", "cross_entropy", "embedding_bag", "dropout",
    "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
    "interpolate", "pad",
    # torch.<op> and torch.<op>_ forms PyTorch has for activations and dropouts
    "threshold", "threshold_", "selu", "selu_", "celu", "celu_", "rrelu", "rrelu_",
    "dropout_", "alpha_dropout_", "feature_alpha_dropout_", "feature_dropout",
    "feature_dropout_",
]  # fmt: skip


def _from_functional(name):
    """torch.<name> for an activation whose one implementation is torch.nn.functional's
    (torch-nn); without torch-nn installed the call names the package to install."""

    def fn(*args, **kwargs):
        import torch.nn.functional as F

        return getattr(F, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``torch.{name}`` is ``torch.nn.functional.{name}``."
    return fn


threshold, threshold_ = _from_functional("threshold"), _from_functional("threshold_")
selu, selu_ = _from_functional("selu"), _from_functional("selu_")
celu, celu_ = _from_functional("celu"), _from_functional("celu_")
rrelu, rrelu_ = _from_functional("rrelu"), _from_functional("rrelu_")


# torch.cosine_similarity, torch.batch_norm (ATen's argument order), torch.lstm_cell, ...
from torch import _nn_torch_forms  # noqa: E402

_nn_torch_forms.install()
