"""Which callables are ops, what each is called in the IR, and how an op name runs.

Op names are namespace-qualified: ``torch.<name>`` (the core's functions), ``Tensor.<name>``
(methods, operators included: ``Tensor.__add__``), ``F.<name>`` (torch.nn.functional),
``operator.<name>`` (integer arithmetic on traced sizes), ``nn.<Class>`` (a recurrent layer
recorded whole) and the ``prim::`` nodes the executor knows.

The interception point: while a trace runs, :func:`patch` replaces the entries of the
``torch``, ``torch._C``, ``torch.Tensor`` and ``torch.nn.functional`` namespaces with
recording wrappers (see ``_trace.py``) and puts them back afterwards. Only the outermost
op call is recorded: ``F.linear`` is one node, not the matmul inside it. torch-core's
grad gates sit only in front of differentiable ops and call the recorder only when an
input needs a gradient, so they cannot see creation ops, integer ops or a trace of a
model run without gradients; the namespaces can.
"""

import builtins
import functools
import math
import operator

import torch
from torch import _C

Tensor = torch.Tensor

# torch.* names that are not ops (queries, global state, constructors of Python data).
_TORCH_SKIP = set(
    """compile load save manual_seed seed initial_seed typename no_grad enable_grad
    inference_mode set_grad_enabled autocast from_numpy tensor as_tensor asarray frombuffer
    from_dlpack broadcast_shapes result_type promote_types can_cast numel
    use_deterministic_algorithms Size Generator device dtype Tensor default_generator vmap
    cond""".split()
)
_TENSOR_SKIP = set(
    """__class__ __init__ __new__ __repr__ __str__ __format__ __hash__ __getattribute__
    __setattr__ __delattr__ __dir__ __reduce__ __reduce_ex__ __getstate__ __setstate__
    __sizeof__ __init_subclass__ __subclasshook__ __array__ __array_wrap__ __deepcopy__
    __copy__ __len__ __iter__ __contains__ __dlpack__ __dlpack_device__ __array_priority__
    __torch_function__ __reversed__ backward register_hook retain_grad requires_grad_
    data_ptr storage untyped_storage is_contiguous stride storage_offset element_size numel
    nelement dim ndimension is_floating_point is_complex is_signed numpy detach_ get_device
    is_shared share_memory_ is_pinned pin_memory size item tolist __bool__ __int__ __float__
    __index__ __complex__ __array_interface__ new_tensor is_set_to type_as_tensor
    register_post_accumulate_grad_hook is_inference dim_order _is_view is_nonzero
    __weakref__ __module__ __doc__ __dict__""".split()
)
# Functions of torch.nn.functional that are compositions: not recorded whole (their core
# ops are), so the exporters see matmul/softmax/... instead of one attention op.
_F_TRANSPARENT = set(
    """multi_head_attention_forward scaled_dot_product_attention _in_projection normalize
    pairwise_distance cosine_similarity pdist bilinear one_hot upsample""".split()
)
# Tensor methods that turn a tensor into Python data (a TracerWarning when traced).
TO_PYTHON = ("item", "tolist", "__bool__", "__int__", "__float__", "__index__")

_INT_OPS = ("add", "sub", "mul", "floordiv", "mod", "neg")


def _functional():
    from torch.nn import functional as F

    for name in list(getattr(F, "_CORE_KERNELS", {})):
        try:
            getattr(F, name)
        except (AttributeError, NotImplementedError):
            pass
    return F


def namespaces():
    """[(module or class, prefix, {attribute: op name})] of everything a trace patches.

    An object reachable under several names (``torch.relu`` is ``torch._C.relu``) gets the
    first name: torch, then F, then _C."""
    import types

    F = _functional()
    named = {}  # id(obj) -> op name
    plan = []

    def ops_of(space, prefix, skip, keep=lambda n, o: True):
        found = {}
        for name, obj in list(vars(space).items()):
            private = name.startswith("_") and not name.startswith("__")
            # the core's private kernels (_C._gelu) are ops too when they sit behind a grad
            # gate: composites that call them directly are still recorded
            if name in skip or (private and type(obj).__name__ != "_GradGate"):
                continue
            if prefix == "torch." and name.startswith(("is_", "set_", "get_")):
                continue
            if isinstance(obj, (type, types.ModuleType)) or not callable(obj):
                continue
            if not keep(name, obj):
                continue
            found[name] = named.setdefault(id(obj), prefix + name)
        return found

    def from_torch(name, obj):
        mod = getattr(obj, "__module__", None) or ""
        return type(obj).__name__ in ("_GradGate", "builtin_function_or_method") or (
            mod.startswith("torch") and not mod.startswith(("torch.jit", "torch.onnx"))
        )

    plan.append((torch, "torch.", ops_of(torch, "torch.", _TORCH_SKIP, from_torch)))
    plan.append((F, "F.", ops_of(F, "F.", _F_TRANSPARENT, from_torch)))
    plan.append((_C, "torch.", ops_of(_C, "torch.", _TORCH_SKIP, from_torch)))
    methods = {}
    for name, obj in vars(Tensor).items():
        if name in _TENSOR_SKIP or (name.startswith("_") and not name.startswith("__")):
            continue
        if isinstance(obj, property) or not callable(obj):
            continue
        methods[name] = "Tensor." + name
    plan.append((Tensor, "Tensor.", methods))
    return plan


_RNN_CONFIG = (
    "input_size hidden_size num_layers bias batch_first dropout bidirectional proj_size".split()
)


def module_config(module):
    """The constructor arguments of a recurrent layer recorded whole (``nn.LSTM`` ...)."""
    cfg = {k: getattr(module, k) for k in _RNN_CONFIG if hasattr(module, k)}
    if type(module).__name__ == "RNN":
        cfg["nonlinearity"] = module.nonlinearity
    if type(module).__name__ != "LSTM":
        cfg.pop("proj_size", None)
    return cfg


class _ModuleOp:
    """Runs a recorded ``nn.<Class>`` node: a shell module holding the node's weights."""

    def __init__(self, cls_name, config, training):
        import torch.nn as nn

        self.module = getattr(nn, cls_name)(**config)
        self.module.train(training)
        self.names = list(self.module._parameters)

    def __call__(self, *args, weights, **kwargs):
        for name, w in weights.items():
            self.module._parameters[name] = w
        try:
            return self.module(*args, **kwargs)
        finally:
            for name in weights:  # drop the references (the shell keeps only its config)
                self.module._parameters[name] = None


_SAFE_BUILTINS = {"len", "int", "float", "bool", "min", "max", "abs", "print", "isinstance", "str",
                  "round"}  # fmt: skip
_SAFE_OPERATOR = set(
    """add sub mul truediv floordiv mod pow neg not_ getitem is_ is_not contains eq ne lt le
    gt ge and_ or_ matmul""".split()
)
_ALLOWED = set()


def allowed(kind):
    """Whether a graph (possibly read from a file) may call ``kind``: the ops a trace can
    record, the helpers of scripted code, and a few safe builtins, nothing else."""
    if not _ALLOWED:
        for _, _, ops in namespaces():
            _ALLOWED.update(ops.values())
        _ALLOWED.update("Tensor." + n for n in dir(Tensor) if not n.startswith("_"))
        _ALLOWED.update("Tensor." + n for n in dir(Tensor) if n.startswith("__") and n not in
                        ("__class__", "__init__", "__new__", "__reduce__", "__reduce_ex__",
                         "__getattribute__", "__setattr__", "__delattr__", "__init_subclass__",
                         "__subclasshook__", "__dict__", "__module__"))  # fmt: skip
        _ALLOWED.update("builtins." + n for n in _SAFE_BUILTINS)
        _ALLOWED.update("operator." + n for n in _SAFE_OPERATOR)
        _ALLOWED.update("math." + n for n in dir(math) if not n.startswith("_"))
        _ALLOWED.update(("nn.LSTM", "nn.GRU", "nn.RNN"))
        _ALLOWED.update(PRIM)
    return kind in _ALLOWED or kind in ("prim::CallFunction", "prim::PythonOp")


def resolve(node, cache=True):
    """The callable that runs ``node`` (cached on the node unless ``cache`` is False: while
    a trace runs, the namespaces hold the recording wrappers)."""
    if node._fn is not None and cache:
        return node._fn
    kind = node.kind
    space, _, name = kind.partition(".")
    if not allowed(kind):
        raise RuntimeError(f"torch.jit: {kind!r} is not an op a graph may call")
    if space == "torch":
        fn = getattr(torch, name, None) or getattr(_C, name)
    elif space == "Tensor":
        fn = getattr(Tensor, name)
    elif space == "F":
        fn = getattr(_functional(), name)
    elif space == "operator":
        fn = getattr(operator, name)
    elif space == "nn":
        fn = _ModuleOp(name, node.attrs["config"], node.attrs.get("training", False))
    elif space == "builtins":
        fn = getattr(builtins, name)
    elif space == "math":
        fn = getattr(math, name)
    elif kind.startswith("prim::"):
        fn = node.attrs.get("fn") or PRIM.get(kind)
        if fn is None:
            raise RuntimeError(f"torch.jit: unknown op {kind!r}")
    else:
        raise RuntimeError(f"torch.jit: unknown op {kind!r}")
    if cache:
        node._fn = fn
    return fn


def _raise(msg):
    raise RuntimeError(f"The following operation failed in the TorchScript interpreter: {msg}")


def _list_op(name):
    return lambda lst, *a, **k: getattr(lst, name)(*a, **k)


def _public(name):
    if not isinstance(name, str) or name.startswith("_"):
        raise RuntimeError(f"torch.jit: a graph may not read the private attribute {name!r}")
    return name


def _call_method(obj, name, *args, **kwargs):
    return getattr(obj, _public(name))(*args, **kwargs)


def _get_attr(obj, path):
    for part in path.split("."):
        obj = getattr(obj, _public(part))
    return obj


_TENSOR_ATTRS = {"dtype", "device", "ndim", "is_cuda", "requires_grad", "T", "mT", "data", "grad",
                 "layout", "shape"}  # fmt: skip


def _tensor_attr(t, name):
    if name not in _TENSOR_ATTRS:
        raise RuntimeError(f"torch.jit: a graph may not read the attribute {name!r}")
    return getattr(t, name)


_PLAIN = (Tensor, torch.nn.Parameter)


def _matmul_sum(*mats):
    """``a1 @ b1 + a2 @ b2 + ...`` (``mats`` is a1, b1, a2, b2, ...), what
    :func:`torch.jit._passes.accumulate_matmuls` puts in place of a sum of products: for
    2-D products of one shape and dtype, with no gradient to record, each later product is
    added by the matrix-product kernel into the first one's result (one pass over it, no
    separate sums); else the products and their sum as eager computes them."""
    from torch.jit._trace import current

    a, b = mats[0], mats[1]
    direct = (
        current() is None  # (a trace records plain ops)
        and not (torch.is_grad_enabled() and any(m.requires_grad for m in mats))
        and all(type(m) in _PLAIN for m in mats)  # (subclasses may override the ops)
        and not torch.is_autocast_enabled("cpu")
        and a.dim() == 2
    )
    for i in range(2, len(mats), 2):  # (x @ y: 2-D, of a @ b's shape and dtype)
        if not direct:
            break
        x, y = mats[i], mats[i + 1]
        direct = (
            x.dim() == 2
            and y.dim() == 2
            and x.size(0) == a.size(0)
            and x.size(1) == y.size(0)
            and y.size(1) == b.size(1)
            and x.dtype == y.dtype == a.dtype
        )
    if not direct:
        out = torch.matmul(a, b)
        for i in range(2, len(mats), 2):
            out = out + torch.matmul(mats[i], mats[i + 1])
        return out
    out = torch.mm(a, b)
    for i in range(2, len(mats), 2):
        torch.addmm(out, mats[i], mats[i + 1], out=out)
    return out


# The helper ops of scripted code (lists, attributes, calls, logic).
PRIM = {
    "prim::list": lambda *xs: list(xs),
    "prim::dict": lambda keys, values: dict(zip(keys, values)),
    "prim::getattr": _tensor_attr,
    "prim::GetAttr": _get_attr,
    "prim::CallMethod": _call_method,
    "prim::RaiseException": _raise,
    "prim::and": lambda *xs: all(bool(x) for x in xs),
    "prim::or": lambda *xs: any(bool(x) for x in xs),
    "prim::range_len": lambda a, b, c: len(range(a, b, c)),
    "prim::matmul_sum": _matmul_sum,
    "prim::sum": lambda x, *xs: functools.reduce(operator.add, xs, x),  # (x1 + x2) + ...
    **{f"prim::list_{n}": _list_op(n) for n in ("append", "extend", "pop", "insert")},
    **{f"prim::dict_{n}": _list_op(n) for n in ("keys", "values", "items", "get")},
}
