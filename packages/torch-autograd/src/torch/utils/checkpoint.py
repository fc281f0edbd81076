"""torch.utils.checkpoint: trade compute for memory (the torch-autograd wheel).

:func:`checkpoint` runs a function without keeping its intermediate results for backward;
the backward pass runs the function again (with the random-number state it saw the first
time, so dropout masks repeat) and differentiates that second run. :func:`checkpoint_sequential`
does this for the segments of a sequential model.

Both ``use_reentrant`` modes run the same way here: one autograd node stands for the whole
function, and its backward differentiates the recomputed run with :func:`torch.autograd.backward`,
which accumulates into the ``.grad`` of every leaf the function reaches (module parameters
and tensors it closes over) and returns the gradients of its tensor arguments to the outer
pass. ``use_reentrant=False`` adds PyTorch's non-reentrant behaviour that users see: the
outputs require grad whenever the function's own computation does (parameters requiring
grad make them so even when no argument does), and keyword arguments are passed on. In both
modes tensors other than the arguments get their gradients by accumulation, so
``torch.autograd.grad`` (or ``backward(inputs=...)``) sees only the arguments of a
checkpointed function.
"""

import contextlib
import warnings

import torch
from torch.autograd.function import Function

__all__ = ["checkpoint", "checkpoint_sequential"]


def _rng_context(state):
    """Runs the block with the CPU generator at ``state``, restoring its own state after."""

    @contextlib.contextmanager
    def context():
        if state is None:
            yield
            return
        now = torch.get_rng_state()
        torch.set_rng_state(state)
        try:
            yield
        finally:
            torch.set_rng_state(now)

    return context()


class _Checkpoint(Function):
    """One node for a whole checkpointed call: forward keeps only the arguments, backward
    recomputes and differentiates."""

    @staticmethod
    def forward(ctx, run, rng_state, recompute_context, precomputed, *args):
        ctx.run, ctx.rng_state, ctx.recompute_context = run, rng_state, recompute_context
        ctx.is_tensor = tuple(isinstance(a, torch.Tensor) for a in args)
        ctx.requires = tuple(isinstance(a, torch.Tensor) and a.requires_grad for a in args)
        ctx.others = tuple(None if t else a for a, t in zip(args, ctx.is_tensor))
        ctx.save_for_backward(*(a for a, t in zip(args, ctx.is_tensor) if t))
        if precomputed is None:  # reentrant: run here, without recording (apply's no_grad)
            outputs = run(*args)
            ctx.single = not isinstance(outputs, tuple)
            outputs = (outputs,) if ctx.single else outputs
            return tuple(o.detach() if isinstance(o, torch.Tensor) else o for o in outputs)
        outputs, differentiable = precomputed
        ctx.single = False
        ctx.mark_non_differentiable(
            *(o for o, d in zip(outputs, differentiable) if isinstance(o, torch.Tensor) and not d)
        )
        return outputs

    @staticmethod
    def backward(ctx, *grads):
        saved = iter(ctx.saved_tensors)
        args = [
            next(saved).detach().requires_grad_(r) if t else o
            for t, r, o in zip(ctx.is_tensor, ctx.requires, ctx.others)
        ]
        with _rng_context(ctx.rng_state), ctx.recompute_context, torch.enable_grad():
            outputs = ctx.run(*args)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [
            (o, g)
            for o, g in zip(outputs, grads)
            if isinstance(o, torch.Tensor) and o.requires_grad and g is not None
        ]
        if not pairs:
            raise RuntimeError(
                "checkpoint: none of the outputs of the recomputed function requires grad, so "
                "there is nothing to backpropagate: at least one argument or parameter of the "
                "checkpointed function must require grad"
            )
        torch.autograd.backward(*zip(*pairs))
        arg_grads = tuple(
            a.grad if t and r else None for a, t, r in zip(args, ctx.is_tensor, ctx.requires)
        )
        return (None, None, None, None, *arg_grads)


def checkpoint(
    function,
    *args,
    use_reentrant=None,
    context_fn=None,
    determinism_check="default",
    debug=False,
    preserve_rng_state=True,
    **kwargs,
):
    """``function(*args, **kwargs)``, computed without keeping its intermediate tensors; the
    backward pass calls ``function`` again with the same arguments and differentiates that.

    ``function`` must compute the same thing both times: with ``preserve_rng_state=True``
    (the default) the second call starts from the random-number state of the first, so
    dropout draws the same mask. Pass ``use_reentrant`` explicitly (``False`` is the
    recommended mode; leaving it out warns and uses ``True``, as PyTorch does).
    ``context_fn`` (non-reentrant only) returns two context managers, entered around the
    first call and around the recomputation. Returns what ``function`` returns: a tensor or a
    tuple of them (other values pass through)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: pass use_reentrant explicitly (use_reentrant=False is the "
            "recommended mode); it defaults to True for now.",
            stacklevel=2,
        )
        use_reentrant = True
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"checkpoint: determinism_check must be 'default' or 'none', got {determinism_check!r}"
        )
    rng_state = torch.get_rng_state() if preserve_rng_state else None
    if use_reentrant:
        if context_fn is not None or kwargs:
            raise ValueError(
                "checkpoint: context_fn and keyword arguments to the function need "
                f"use_reentrant=False (got keyword arguments {sorted(kwargs)})"
            )
        if torch.is_grad_enabled() and not any(
            isinstance(a, torch.Tensor) and a.requires_grad for a in args
        ):
            warnings.warn(
                "checkpoint (use_reentrant=True): none of the inputs has requires_grad=True, so "
                "the output will not require grad and the function's parameters get no "
                "gradient; use use_reentrant=False",
                stacklevel=2,
            )
        single = []

        def run_reentrant(*a):
            out = function(*a)
            single[:] = [not isinstance(out, tuple)]
            return out

        out = _Checkpoint.apply(run_reentrant, rng_state, contextlib.nullcontext(), None, *args)
        return out[0] if single[0] else out
    forward_context, recompute_context = (
        context_fn() if context_fn is not None else (contextlib.nullcontext(),) * 2
    )

    n_args = len(args)

    def run(*a):  # the anchor below is no argument of the function
        return function(*a[:n_args], **kwargs)

    with forward_context:
        outputs = run(*args)
    if not torch.is_grad_enabled():
        return outputs
    single = not isinstance(outputs, tuple)
    outputs = (outputs,) if single else outputs
    differentiable = tuple(isinstance(o, torch.Tensor) and o.requires_grad for o in outputs)
    if not any(differentiable):
        return outputs[0] if single else outputs
    detached = tuple(o.detach() if isinstance(o, torch.Tensor) else o for o in outputs)
    anchor = ()  # an input that requires grad, so that the node records when only
    if not any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):  # parameters do
        anchor = (torch.empty(0, requires_grad=True),)
    result = _Checkpoint.apply(
        run, rng_state, recompute_context, (detached, differentiable), *args, *anchor
    )
    return result[0] if single else result


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs a sequential model (an ``nn.Sequential`` or a list of callables) in ``segments``
    chunks, each but the last under :func:`checkpoint`; only the segment boundaries are kept
    for backward. ``kwargs`` (``preserve_rng_state``, ...) go to :func:`checkpoint`."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: pass use_reentrant explicitly "
            "(use_reentrant=False is the recommended mode); it defaults to True for now.",
            stacklevel=2,
        )
        use_reentrant = True
    if hasattr(functions, "children") and callable(functions.children):
        functions = list(functions.children())
    functions = list(functions)
    if segments < 1:
        raise ValueError(f"checkpoint_sequential: segments must be at least 1, got {segments}")
    size = max(len(functions) // segments, 1)

    def run_segment(start, end):
        def forward(x):
            for f in functions[start:end]:
                x = f(x)
            return x

        return forward

    start = 0
    for _ in range(segments - 1):  # each segment but the last is checkpointed
        if start + size >= len(functions):
            break
        input = checkpoint(
            run_segment(start, start + size), input, use_reentrant=use_reentrant, **kwargs
        )
        start += size
    return run_segment(start, len(functions))(input)
