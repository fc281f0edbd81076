"""Activation modules (thin wrappers over torch.nn.functional) and MultiheadAttention."""

import torch
from torch.nn import functional as F
from torch.nn import init
from torch.nn.modules.linear import NonDynamicallyQuantizableLinear
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter

__all__ = [
    "Threshold", "ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh",
    "SiLU", "Mish", "Hardswish", "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink",
    "LeakyReLU", "LogSigmoid", "Softplus", "Softshrink", "MultiheadAttention", "PReLU",
    "Softsign", "Tanhshrink", "Softmin", "Softmax", "Softmax2d", "LogSoftmax",
]  # fmt: skip


class _Pointwise(Module):
    """An activation that is ``function(input, *arguments, inplace)``.

    Subclasses with arguments set them in their ``__init__`` (whose signature is the
    public one), name them in ``_shown`` and write ``forward``; extra_repr prints them as
    ``name=value``, then ``inplace=True`` when set (PyTorch's order)."""

    _function = None  # the name of its torch.nn.functional function, per subclass
    _shown = ()

    @property
    def function(self):
        # looked up on each call, so that what replaces F's functions (torch.fx's tracing
        # stand-ins, a user's patch) sees the call, as with PyTorch's `F.<name>(...)`
        return getattr(F, self._function)

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return self.function(input, self.inplace)

    def extra_repr(self):
        parts = [f"{name}={getattr(self, name)}" for name in self._shown]
        if self.inplace:
            parts.append("inplace=True")
        return ", ".join(parts)


class _AlphaPointwise(_Pointwise):
    """An activation that is ``function(input, alpha, inplace)`` (ELU, CELU)."""

    _shown = ("alpha",)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(inplace)
        self.alpha = alpha

    def forward(self, input):
        return self.function(input, self.alpha, self.inplace)


class _DimActivation(Module):
    """An activation over dimension ``dim`` (Softmin, Softmax, LogSoftmax)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self):
        return f"dim={self.dim}"


class _Shrink(Module):
    """``function(input, lambd)`` (Hardshrink, Softshrink); extra_repr is lambd alone."""

    _function = None
    function = _Pointwise.function

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return self.function(input, self.lambd)

    def extra_repr(self):
        return str(self.lambd)


class Threshold(_Pointwise):
    """y = x if x > threshold else value."""

    _shown = ("threshold", "value")

    def __init__(self, threshold, value, inplace=False):
        super().__init__(inplace)
        self.threshold, self.value = threshold, value

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)


class ReLU(_Pointwise):
    """y = max(0, x)."""

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)


class RReLU(_Pointwise):
    """Randomised leaky ReLU (slope from U(lower, upper) in training)."""

    _shown = ("lower", "upper")

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__(inplace)
        self.lower, self.upper = lower, upper

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)


class Hardtanh(_Pointwise):
    """y = clamp(x, min_val, max_val)."""

    _shown = ("min_val", "max_val")

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__(inplace)
        if min_value is not None or max_value is not None:
            import warnings

            warnings.warn(
                "keyword argument `min_value`/`max_value` is deprecated and renamed to "
                "`min_val`/`max_val`",
                FutureWarning,
                stacklevel=2,
            )
            min_val = min_value if min_value is not None else min_val
            max_val = max_value if max_value is not None else max_val
        if max_val <= min_val:
            raise ValueError("Hardtanh: max_val must be greater than min_val")
        self.min_val, self.max_val = min_val, max_val

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)


class ReLU6(Hardtanh):
    """y = min(max(0, x), 6)."""

    _shown = ()

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)


class Sigmoid(Module):
    """``y = 1 / (1 + exp(-x))``, elementwise."""

    def forward(self, input):
        return torch.sigmoid(input)


class Tanh(Module):
    """``y = tanh(x)``, elementwise."""

    def forward(self, input):
        return torch.tanh(input)


class Hardsigmoid(_Pointwise):
    """y = relu6(x + 3) / 6."""

    _function = "hardsigmoid"

    def extra_repr(self):  # PyTorch prints no inplace flag for this one
        return ""


class SiLU(_Pointwise):
    """y = x * sigmoid(x) (also called swish)."""

    _function = "silu"


class Mish(_Pointwise):
    """y = x * tanh(softplus(x))."""

    _function = "mish"


class Hardswish(_Pointwise):
    """y = x * relu6(x + 3) / 6."""

    _function = "hardswish"

    def extra_repr(self):  # PyTorch prints no inplace flag for this one
        return ""


class ELU(_AlphaPointwise):
    """y = x if x > 0 else alpha * (exp(x) - 1)."""

    _function = "elu"


class CELU(_AlphaPointwise):
    """y = x if x > 0 else alpha * (exp(x / alpha) - 1)."""

    _function = "celu"


class SELU(_Pointwise):
    """y = scale * elu(x, alpha), with the self-normalising constants."""

    _function = "selu"


class GLU(Module):
    """a * sigmoid(b), a and b the halves of the input along ``dim``."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    """y = x * Phi(x); ``approximate='tanh'`` for the tanh approximation."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Hardshrink(_Shrink):
    """``y = x`` where ``|x| > lambd``, else 0."""

    _function = "hardshrink"


class LeakyReLU(_Pointwise):
    """y = x if x > 0 else negative_slope * x."""

    _shown = ("negative_slope",)

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__(inplace)
        self.negative_slope = negative_slope

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)


class LogSigmoid(Module):
    """``y = log(sigmoid(x))``, computed without overflow."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """y = log(1 + exp(beta x)) / beta, linear above ``threshold``."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Softshrink(_Shrink):
    """y = x - lambd where x > lambd, x + lambd where x < -lambd, else 0."""

    _function = "softshrink"


class PReLU(Module):
    """y = x if x > 0 else a * x, with a learnt slope ``a`` (one, or one per channel)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(torch.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """``y = x / (1 + |x|)``, elementwise."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """``y = x - tanh(x)``, elementwise."""

    def forward(self, input):
        return F.tanhshrink(input)


# (softmax and its kin are core kernels: F looks them up on first use, so at call time here)
class Softmin(_DimActivation):
    """softmax(-x) along ``dim``."""

    def forward(self, input):
        return F.softmin(input, self.dim)


class Softmax(_DimActivation):
    """exp(x) / sum(exp(x)) along ``dim``."""

    def forward(self, input):
        return F.softmax(input, self.dim)


class Softmax2d(Module):
    """Softmax over the channels of (N, C, H, W) or (C, H, W) input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(
                f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead"
            )
        return F.softmax(input, -3)


class LogSoftmax(_DimActivation):
    """log(softmax(x)) along ``dim``, computed stably."""

    def forward(self, input):
        return F.log_softmax(input, self.dim)


class MultiheadAttention(Module):
    """Attention from ``num_heads`` heads of size embed_dim / num_heads (Vaswani et al.).

    forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False) -> (output, weights).  Inputs are
    (L, N, E) (or (N, L, E) with ``batch_first``), or unbatched (L, E).  Boolean masks
    mark with True the positions that may *not* be attended to; float masks are added to
    the attention scores."""

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):  # fmt: skip
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} "
                f"and num_heads={num_heads} instead"
            )
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(torch.empty((embed_dim, embed_dim), **kw))
            self.k_proj_weight = Parameter(torch.empty((embed_dim, self.kdim), **kw))
            self.v_proj_weight = Parameter(torch.empty((embed_dim, self.vdim), **kw))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(torch.empty((3 * embed_dim, embed_dim), **kw))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(torch.empty(3 * embed_dim, **kw))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **kw)
        if add_bias_kv:
            self.bias_k = Parameter(torch.empty((1, 1, embed_dim), **kw))
            self.bias_v = Parameter(torch.empty((1, 1, embed_dim), **kw))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):  # fmt: skip
        if query.dim() not in (2, 3):
            raise AssertionError(
                f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D "
                "query tensor"
            )
        batched = query.dim() == 3
        if self.batch_first and batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )  # fmt: skip
        if self.batch_first and batched:
            out = out.transpose(1, 0)
        return out, weights
