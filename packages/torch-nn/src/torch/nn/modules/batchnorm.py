"""Batch normalisation: BatchNorm1d/2d/3d (the kernel is torch-core's F.batch_norm)."""

import torch
from torch.nn import functional as F
from torch.nn import init
from torch.nn.modules.lazy import LazyModuleMixin
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
]


class _NormBase(Module):
    """Parameters and running statistics shared by batch and instance norm.

    weight (ones) and bias (zeros) when ``affine``; buffers running_mean (zeros),
    running_var (ones) and num_batches_tracked (0) when ``track_running_stats``."""

    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):  # fmt: skip
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        self.use_bias = bias and affine
        if affine:
            self.weight = Parameter(torch.empty(num_features, **kw))
            if bias:
                self.bias = Parameter(torch.empty(num_features, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, **kw))
            self.register_buffer("running_var", torch.ones(num_features, **kw))
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.use_bias}, "
            f"track_running_stats={self.track_running_stats}"
        )

    def __setstate__(self, state):
        super().__setstate__(state)
        if "use_bias" not in self.__dict__:
            self.use_bias = bool(self.affine)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):  # fmt: skip
        version = local_metadata.get("version")
        if (version is None or version < 2) and self.track_running_stats:
            # checkpoints from before num_batches_tracked existed
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (
                    self.num_batches_tracked
                    if self.num_batches_tracked is not None
                    else torch.tensor(0, dtype=torch.long)
                )
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)  # fmt: skip


class _BatchNorm(_NormBase):
    _expected = ()

    def _check_input_dim(self, input):
        if input.dim() not in self._expected:
            want = " or ".join(f"{d}D" for d in self._expected)
            raise ValueError(
                f"{self._get_name()}: expected {want} input (got {input.dim()}D input of shape "
                f"{list(input.shape)})"
            )
        uses_channels = self.weight is not None or self.running_mean is not None
        if uses_channels and input.shape[1] != self.num_features:
            raise RuntimeError(
                f"{self._get_name()}({self.num_features}): expected input with "
                f"{self.num_features} channels (dimension 1), got shape {list(input.shape)}"
            )

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        # batch statistics in training, and in eval when there are no running statistics
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if use_running else None,
            self.running_var if use_running else None,
            self.weight, self.bias, bn_training, factor, self.eps,
        )  # fmt: skip


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L) input: per channel, (x - mean) / sqrt(var + eps)
    * weight + bias, with batch statistics in training (updating running_mean/var by
    ``momentum``, or their cumulative average when momentum is None) and the running ones
    in eval."""

    _expected = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) input."""

    _expected = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch norm over (N, C, D, H, W) input."""

    _expected = (5,)


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over any input of 2 or more dimensions (no process groups in this build)."""

    _expected = tuple(range(2, 9))


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features is the channel dimension of the first input: weight, bias and the
    running statistics are materialised then."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):  # fmt: skip
        kw = {"device": device, "dtype": dtype}
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        self.use_bias = affine
        if affine:
            self.weight = UninitializedParameter(**kw)
            self.bias = UninitializedParameter(**kw)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(**kw)
            self.running_var = UninitializedBuffer(**kw)
            self.num_batches_tracked = torch.tensor(0, dtype=torch.long, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def _feature_dim(self, input):
        return 1

    def initialize_parameters(self, input, *args, **kwargs):
        if not self.has_uninitialized_params():
            return
        if input.dim() < 2:
            raise ValueError(
                f"{self._get_name()}: expected an input with a channel dimension, got shape "
                f"{list(input.shape)}"
            )
        self.num_features = input.shape[self._feature_dim(input)]
        with torch.no_grad():
            if self.affine:
                self.weight.materialize((self.num_features,))
                self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """BatchNorm1d whose num_features is inferred from the first input."""

    cls_to_become = BatchNorm1d
    _expected = BatchNorm1d._expected


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """BatchNorm2d whose num_features is inferred from the first input."""

    cls_to_become = BatchNorm2d
    _expected = BatchNorm2d._expected


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """BatchNorm3d whose num_features is inferred from the first input."""

    cls_to_become = BatchNorm3d
    _expected = BatchNorm3d._expected
