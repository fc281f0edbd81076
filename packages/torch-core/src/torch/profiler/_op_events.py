"""Op events for ``torch.profiler``: while a profiler records, the tensor ops reachable from
``torch``, ``torch.nn.functional``, ``torch.linalg``, ``torch.special``, ``torch.fft`` and the
``Tensor`` methods (operators included) are replaced by wrappers that time each call as an
``aten::<name>`` event, as PyTorch's profiler names them (``aten::linear``, ``aten::add``
for ``a + b``, ``aten::add_`` for ``a += b``). When the last profiler stops recording, the
namespaces get their own functions back, so code that is not profiled pays nothing.

What is not seen: a function bound to another name before profiling began (``from torch
import relu`` at import time), and the work of the autograd engine between the ops of a
backward pass (the ops its nodes call are seen)."""

import functools
import sys
import threading
import types

# names of the namespaces' callables that are not tensor ops (queries of global state,
# settings, serialization, constructors of Python data)
_SKIP = set(
    """compile load save manual_seed seed initial_seed typename no_grad enable_grad
    inference_mode set_grad_enabled autocast vmap cond broadcast_shapes result_type
    promote_types can_cast use_deterministic_algorithms install_missing_package_hints
    set_printoptions tensor as_tensor asarray from_numpy frombuffer from_dlpack""".split()
)
_SKIP_PREFIXES = ("is_", "set_", "get_", "are_", "use_")
# Tensor methods that read metadata or convert to Python (no tensor work to time)
_TENSOR_SKIP = set(
    """size dim ndimension stride storage_offset numel nelement element_size data_ptr
    is_contiguous is_floating_point is_complex is_signed is_leaf is_shared is_pinned
    is_inference is_set_to get_device storage untyped_storage tolist numpy register_hook
    register_post_accumulate_grad_hook retain_grad requires_grad_ backward dim_order
    share_memory_ pin_memory type_as_tensor is_nonzero""".split()
)
# the Tensor operators timed, by the op PyTorch names them after
_OPERATORS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
    "__rsub__": "rsub", "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul",
    "__imul__": "mul_", "__truediv__": "div", "__rtruediv__": "div", "__itruediv__": "div_",
    "__floordiv__": "floor_divide", "__rfloordiv__": "floor_divide", "__mod__": "remainder",
    "__rmod__": "remainder", "__pow__": "pow", "__rpow__": "pow", "__ipow__": "pow_",
    "__matmul__": "matmul", "__rmatmul__": "matmul", "__neg__": "neg", "__abs__": "abs",
    "__invert__": "bitwise_not", "__and__": "bitwise_and", "__or__": "bitwise_or",
    "__xor__": "bitwise_xor", "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le",
    "__gt__": "gt", "__ge__": "ge", "__getitem__": "index", "__setitem__": "index_put_",
}  # fmt: skip
_NAMESPACES = ("torch", "torch.nn.functional", "torch.linalg", "torch.special", "torch.fft")

_lock = threading.Lock()
_replaced = []  # (holder, attribute, what it held before) while installed
_open = threading.local()  # .event: the op being timed on this thread


def _is_op(name, obj):
    if name.startswith("_") or name in _SKIP or name.startswith(_SKIP_PREFIXES):
        return False
    if isinstance(obj, (type, types.ModuleType)) or not callable(obj):
        return False
    module = getattr(obj, "__module__", None) or ""
    return type(obj).__name__ == "_GradGate" or (
        module.startswith("torch")
        and not module.startswith(("torch.jit", "torch.onnx", "torch.fx", "torch.profiler"))
        and module not in ("torch.serialization", "torch.backends", "torch.amp.autocast_mode")
    )


def _wrap(op, event, recording, clock, record):
    """``op`` timed as ``event`` while ``recording`` (a list of profilers) is not empty:
    ``record(event, args, start)`` after each call, ``start`` read from ``clock()``."""

    def timed_op(*args, **kwargs):
        # not recording: a wrapper someone kept after the profiler stopped; the same op
        # inside itself (F.relu calling torch.relu) is one event
        outer = getattr(_open, "event", None)
        if not recording or outer == event:
            return op(*args, **kwargs)
        _open.event = event
        start = clock()
        try:
            return op(*args, **kwargs)
        finally:
            record(event, args, start)
            _open.event = outer

    functools.update_wrapper(timed_op, op)
    timed_op._profiled_op = op
    return timed_op


def _plan():
    """[(holder, attribute, op, event name)] of every attribute to wrap; a function held
    under several names keeps the event name of the first one met (``install`` then makes
    one wrapper for it)."""
    import torch

    plan, events = [], {}  # events: id(op) -> its event name (the first name it is met by)
    for space_name in _NAMESPACES:
        space = sys.modules.get(space_name)
        if space is None:
            continue
        for name in getattr(space, "_CORE_KERNELS", ()):  # F's kernels, found on first use
            try:
                getattr(space, name)
            except (AttributeError, NotImplementedError):
                pass
        for name, obj in list(vars(space).items()):
            if _is_op(name, obj) and not hasattr(obj, "_profiled_op"):
                plan.append((space, name, obj, events.setdefault(id(obj), "aten::" + name)))
    tensor = torch.Tensor
    for name, obj in list(vars(tensor).items()):
        if name in _OPERATORS:
            event = "aten::" + _OPERATORS[name]
        elif name.startswith("_") or name in _TENSOR_SKIP:
            continue
        elif isinstance(obj, (property, staticmethod, classmethod)) or not callable(obj):
            continue
        else:
            event = "aten::" + name
        if not hasattr(obj, "_profiled_op"):
            plan.append((tensor, name, obj, event))
    return plan


def install(recording, clock, record):
    """Put the timing wrappers in place (called when a profiler starts recording)."""
    with _lock:
        if _replaced:
            return
        wrappers = {}  # (id(op), event) -> its wrapper: one per function and event name
        for holder, name, obj, event in _plan():
            if isinstance(holder, type):  # a method: call it through the class
                op = getattr(holder, name)
            else:
                op = obj
            key = (id(obj), event)
            if key not in wrappers:
                wrappers[key] = _wrap(op, event, recording, clock, record)
            _replaced.append((holder, name, obj))
            setattr(holder, name, wrappers[key])


def uninstall():
    """Give every namespace its own functions back (when no profiler records any more)."""
    with _lock:
        while _replaced:
            holder, name, obj = _replaced.pop()
            setattr(holder, name, obj)
