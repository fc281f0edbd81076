"""torch.autograd: tape-based reverse-mode automatic differentiation (the torch-autograd wheel).

Importing it (``import torch`` does, when the wheel is installed) registers the recording
layer with the tensor core: every differentiable op on a tensor that requires grad records a
node (:mod:`torch.autograd.graph`), and :func:`backward` walks the nodes in dependency order
(:mod:`torch.autograd.engine`).
"""

__version__ = "0.1.0"

import torch
from torch.autograd import (
    _tensor_api,  # noqa: F401  (Tensor.backward, hooks, ...)
    graph,
    profiler,  # noqa: F401  (torch.autograd.profiler.profile, record_function)
)
from torch.autograd.anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from torch.autograd.engine import run_backward
from torch.autograd.function import Function, InplaceFunction, NestedIOFunction, once_differentiable
from torch.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from torch.autograd.gradcheck import gradcheck, gradgradcheck
from torch.autograd.install import install as _install
from torch.autograd.variable import Variable

__all__ = [
    "Function",
    "InplaceFunction",
    "NestedIOFunction",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "inference_mode",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "once_differentiable",
    "set_detect_anomaly",
    "set_grad_enabled",
]

Tensor = torch.Tensor


def _as_tuple(x):
    if x is None:
        return None
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _roots(outputs, grads, create_graph, what):
    """(edges, seed gradients) for the outputs; implicit ones only for scalars."""
    grads = _as_tuple(grads) or (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(
            f"{what}: got {len(grads)} gradients for {len(outputs)} outputs; pass one per output"
        )
    edges, seeds = [], []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        e = graph.edge(out)
        if e is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        if g is None:
            if out.dtype.is_complex:
                raise RuntimeError(
                    "grad can be implicitly created only for real scalar outputs (the output is "
                    f"{out.dtype}); pass gradient= or take a real part or abs() first"
                )
            if out.numel() != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs (the output has "
                    f"shape {list(out.shape)}); pass gradient= with that shape"
                )
            # the implicit seed lives where the output does
            g = graph.full_on(tuple(out.shape), out.dtype, out, 1)
        elif not isinstance(g, Tensor):
            g = torch.full_like(out, g)
        elif g.shape != out.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {tuple(g.shape)} and "
                f"output[{i}] has a shape of {tuple(out.shape)}."
            )
        edges.append(e)
        seeds.append(g if create_graph else g.detach())
    return edges, seeds


def backward(
    tensors,
    grad_tensors=None,
    retain_graph=None,
    create_graph=False,
    grad_variables=None,
    inputs=None,
):
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the graph's leaves (or
    of ``inputs`` only).  The graph's saved tensors are freed unless ``retain_graph``."""
    tensors = _as_tuple(tensors)
    if grad_variables is not None:
        grad_tensors = grad_variables
    if retain_graph is None:
        retain_graph = create_graph
    edges, seeds = _roots(tensors, grad_tensors, create_graph, "backward")
    inputs = _as_tuple(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("backward(): 'inputs' argument to backward() cannot be empty.")
    results = run_backward(edges, seeds, retain_graph, create_graph, inputs)
    if inputs is not None:  # non-leaf inputs get their .grad too, as PyTorch does
        for t, g in zip(inputs, results):
            if t.grad_fn is not None and g is not None:
                t.grad = g if create_graph else g.detach() if t.grad is None else t.grad + g


def _batched_grad(
    outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads
):
    gos = _as_tuple(grad_outputs)
    if len(gos) != len(outputs) or not all(isinstance(g, Tensor) for g in gos):
        raise RuntimeError("grad(is_grads_batched=True): give one grad_outputs tensor per output")
    count = gos[0].shape[0] if gos[0].dim() else 0
    if count == 0 or any(g.dim() == 0 or g.shape[0] != count for g in gos):
        raise RuntimeError(
            "grad(is_grads_batched=True): every grad_outputs tensor needs the same batch size "
            f"as its first dimension, got shapes {[tuple(g.shape) for g in gos]}"
        )
    rows = []
    for b in range(count):
        keep = True if b < count - 1 else retain_graph
        rows.append(
            grad(
                outputs,
                inputs,
                tuple(g[b] for g in gos),
                keep,
                create_graph,
                allow_unused=allow_unused,
                materialize_grads=materialize_grads,
            )
        )
    return tuple(
        None if rows[0][k] is None else torch.stack([r[k] for r in rows])
        for k in range(len(inputs))
    )


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    only_inputs=True,
    allow_unused=None,
    is_grads_batched=False,
    materialize_grads=False,
):
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` is not
    touched).  ``allow_unused=True`` returns None for an input the outputs do not depend on."""
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if is_grads_batched:  # one backward per row of the grad_outputs (as vmap's fallback does)
        return _batched_grad(
            outputs,
            inputs,
            grad_outputs,
            retain_graph,
            create_graph,
            allow_unused,
            materialize_grads,
        )
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"grad(): inputs[{i}] is a {type(t).__name__}, not a Tensor")
        if not t.requires_grad:
            raise RuntimeError(
                f"One of the differentiated Tensors (inputs[{i}]) does not require grad"
            )
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    edges, seeds = _roots(outputs, grad_outputs, create_graph, "grad")
    results = run_backward(edges, seeds, retain_graph, create_graph, inputs, accumulate=False)
    for i, g in enumerate(results):
        if g is None:
            if materialize_grads:
                results[i] = torch.zeros_like(inputs[i])
            elif not allow_unused:
                raise RuntimeError(
                    f"One of the differentiated Tensors (inputs[{i}]) appears to not have been "
                    f"used in the graph. Set allow_unused=True if this is the desired behavior."
                )
        elif not create_graph:
            results[i] = g.detach()
    return tuple(results)


_install()

# torch.autograd.functional (jacobian, ...) and forward_ad (make_dual, unpack_dual)
from torch.autograd import forward_ad, functional  # noqa: E402,F401
