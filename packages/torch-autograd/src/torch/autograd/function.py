"""Custom differentiable ops: subclass :class:`Function` with static ``forward`` and
``backward``, and call ``MyOp.apply(...)``."""

import functools

import torch
from torch import _C
from torch.autograd import graph
from torch.autograd.graph import Node, _Saved

Tensor = torch.Tensor


class FunctionCtx(Node):
    """The ``ctx`` of a custom Function, which is also its node in the graph."""

    multi_output = True
    materialize_grads = True
    needs_input_grad = ()  # set by apply() before forward runs
    _in_meta = ()  # per input: (dtype, shape, device) of a tensor that requires grad, or None
    _to_save = ()
    _dirty = ()
    _non_differentiable = ()

    def save_for_backward(self, *tensors):
        """Call once in forward with the tensors backward needs (inputs or outputs);
        read them back in backward as ``ctx.saved_tensors``."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save tensors, but argument {t!r} is a "
                    f"{type(t).__name__}; store other values as ctx attributes"
                )
        self._to_save = tensors

    @property
    def saved_tensors(self):
        if not self._saved and self._to_save and not self._released:
            return self._to_save  # forward has not finished: plain tensors
        return Node.saved_tensors.fget(self)

    def mark_dirty(self, *tensors):
        """Declare inputs that forward modified in place (and returns)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that get no gradient (e.g. indices)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """With False, backward receives None (not zeros) for outputs that got no gradient."""
        self.materialize_grads = bool(value)

    def _materialize(self, grads):
        """Zeros for the outputs that received no gradient, each on its output's device (a
        Function's outputs may live on several)."""
        if not self.materialize_grads:
            return grads
        return [
            g
            if g is not None or meta is None
            else torch.zeros(meta[0], dtype=meta[1], device=meta[2])
            for g, meta in zip(grads, self._out_meta)
        ]

    def backward(self, *grads):
        out = self._function.backward(self, *grads)
        if not isinstance(out, tuple):
            out = (out,)
        out = tuple(_fit(self, i, g) for i, g in enumerate(out))
        n = len(self._edges)
        if len(out) < n:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {n}, got {len(out)})"
            )
        return out[:n] if all(g is None for g in out[n:]) else _too_many(self, n, len(out))


def _fit(node, i, g):
    """A user's gradient for input i in that input's dtype (as PyTorch's engine converts it);
    a wrong shape is an error, and so is a wrong device (but for a 0-d gradient, moved)."""
    meta = node._in_meta[i] if i < len(node._in_meta) else None
    if meta is None or not isinstance(g, Tensor):
        return g
    dtype, shape, device = meta
    if g.device != device:  # (PyTorch's rule: see graph.on_device)
        g = graph.on_device(g, device, f"input {i} of {node.name()}")
    if tuple(g.shape) != shape and _expands_to(shape, tuple(g.shape)):
        g = _sum_to(g, shape)  # a broadcast gradient, summed back to the input's shape
    if tuple(g.shape) != shape:
        raise RuntimeError(
            f"Function {node.name()} returned an invalid gradient at index {i} - got "
            f"{list(g.shape)} but expected shape compatible with {list(shape)}"
        )
    if g.dtype != dtype:
        g = g.real if g.dtype.is_complex and not dtype.is_complex else g
        g = g.to(dtype)
    return g


def _expands_to(shape, target):
    if len(shape) > len(target):
        return False
    return all(s in (1, t) for s, t in zip(reversed(shape), reversed(target)))


def _sum_to(g, shape):
    lead = g.dim() - len(shape)
    dims = list(range(lead)) + [lead + d for d, s in enumerate(shape) if s == 1]
    return g.sum(dims, keepdim=True).reshape(shape) if dims else g


def _too_many(node, n, got):
    raise RuntimeError(
        f"function {node.name()} returned an incorrect number of gradients "
        f"(expected {n}, got {got})"
    )


class _FunctionMeta(type):
    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        # the node class, named as PyTorch names it: MyOp -> MyOpBackward
        cls._backward_cls = type(name + "Backward", (FunctionCtx,), {"_function": cls})


class Function(metaclass=_FunctionMeta):
    """A differentiable op written by the user.

    >>> class Cube(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x**3
    ...
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return grad * 3 * x**2
    >>> x = torch.tensor([2.0], requires_grad=True)
    >>> Cube.apply(x).backward()
    >>> x.grad
    tensor([12.])
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("a Function subclass must implement forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("a Function subclass must implement backward(ctx, ...)")

    @staticmethod
    def jvp(ctx, *tangents):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    def __init__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. "
            "Define forward and backward as @staticmethod and call MyFunction.apply(...)."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = cls._backward_cls()
        record = _C.is_grad_enabled() and any(
            isinstance(a, Tensor) and a.requires_grad for a in args
        )
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        prev = _C._set_grad_enabled(False)
        try:
            out = cls.forward(ctx, *args, **kwargs)
        finally:
            _C._set_grad_enabled(prev)
        if "backward" not in _overrides(cls) and "jvp" in _overrides(cls):
            tangents = _forward_tangents(args)
            if tangents is not None:  # forward mode only: the outputs are duals of its jvp
                return _forward_duals(cls, ctx, out, tangents)
        if not record:
            return out
        return _record(ctx, args, out)


def _overrides(cls):
    """The names of Function's static methods that cls (or a base between) redefines."""
    return {n for c in cls.__mro__ if c is not Function and c is not object for n in vars(c)}


def _forward_tangents(args):
    """The forward-AD tangents of the tensor arguments (None where an argument is not dual),
    or None when no argument is dual in an open level."""
    from torch.autograd import forward_ad

    if not forward_ad._levels():
        return None
    tangents = [forward_ad.unpack_dual(a).tangent if isinstance(a, Tensor) else None for a in args]
    return tangents if any(t is not None for t in tangents) else None


def _forward_duals(cls, ctx, out, tangents):
    """A Function with jvp and no backward: its outputs become dual tensors whose tangents
    jvp gives (so tangents flow through it; backward through it has nothing to run)."""
    from torch.autograd import forward_ad

    with torch.no_grad():
        result = cls.jvp(ctx, *tangents)
    outs = out if isinstance(out, tuple) else (out,)
    tans = result if isinstance(result, tuple) else (result,)
    duals = [
        forward_ad.make_dual(o.detach(), t) if isinstance(o, Tensor) and t is not None else o
        for o, t in zip(outs, tans)
    ]
    return tuple(duals) if isinstance(out, tuple) else duals[0]


def _record(ctx, args, out):
    ctx._where = graph._user_frame()
    ctx._in_meta = [
        (a.dtype, tuple(a.shape), a.device) if isinstance(a, Tensor) and a.requires_grad else None
        for a in args
    ]
    edges = [graph.edge(a) if isinstance(a, Tensor) else None for a in args]
    outs = out if isinstance(out, tuple) else (out,)
    dirty = ctx._dirty
    for t in dirty:
        if t.grad_fn is None and t.requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation "
                f"({ctx.name()} marked it dirty)."
            )
    ctx._edges = edges
    result, meta = [], []
    for nr, t in enumerate(outs):
        if not isinstance(t, Tensor):
            result.append(t)
            meta.append(None)
            continue
        if any(t is a for a in args) and not any(t is d for d in dirty):
            t = t._alias()  # an input returned as is: a new tensor, so its history is ours
        differentiable = t.is_floating_point() or t.dtype.is_complex
        if any(t is n for n in ctx._non_differentiable) or not differentiable:
            meta.append(None)
        else:
            t.grad_fn = ctx
            t.output_nr = nr
            _C._mark_requires_grad(t)
            meta.append((tuple(t.shape), t.dtype, t.device))
        result.append(t)
    ctx.n_outputs = len(meta)
    ctx._out_meta = meta
    if ctx._to_save:
        ctx._saved = tuple(None if t is None else _Saved(t, ctx) for t in ctx._to_save)
        ctx._to_save = ()
    return tuple(result) if isinstance(out, tuple) else result[0]


def once_differentiable(backward):
    """Decorate a Function's backward that is not itself differentiable: it runs without
    recording, and differentiating its result raises an error."""

    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        with torch.no_grad():
            out = backward(ctx, *grads)
        if not (
            _C.is_grad_enabled() and any(isinstance(g, Tensor) and g.requires_grad for g in grads)
        ):
            return out
        outs = out if isinstance(out, tuple) else (out,)
        # results that depend on the incoming grads, through a node whose backward raises
        wrapped = tuple(
            _DelayedError.apply(g, *grads) if isinstance(g, Tensor) else g for g in outs
        )
        return wrapped if isinstance(out, tuple) else wrapped[0]

    return wrapper


class _DelayedError(Function):
    @staticmethod
    def forward(ctx, result, *grads):
        return result._alias()

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with @once_differentiable"
        )


class InplaceFunction(Function):
    """A :class:`Function` whose ``forward`` may modify its inputs in place (kept for old code;
    :meth:`FunctionCtx.mark_dirty` is the way to declare it)."""

    pass


class NestedIOFunction(Function):
    """A :class:`Function` taking nested inputs (kept for old code; it behaves as
    :class:`Function`)."""

    pass
