"""torch.autograd.functional: derivatives of a whole function at a point.

Each function calls ``func`` once on fresh leaves made from ``inputs`` and differentiates its
outputs with :func:`torch.autograd.grad`, so ``func`` must be written in differentiable
tensor ops:

- :func:`vjp` and :func:`jvp`: a vector-Jacobian / Jacobian-vector product (``jvp`` by the
  double-vjp trick: the vjp is linear in its vector, so its own vjp is the jvp);
- :func:`jacobian` and :func:`hessian`: full matrices, one backward pass per output element
  (``vectorize=True`` is accepted and computes the same rows in the same loop: there is no
  batched backward yet);
- :func:`vhp` and :func:`hvp`: products with the Hessian of a scalar function.

``create_graph=True`` keeps the results differentiable (with respect to ``inputs`` that
require grad); otherwise they are detached. ``strict=True`` raises where an output does not
depend on an input, instead of returning zeros there.
"""

import torch
from torch.autograd import grad as _autograd_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _as_tuple(value, what, fn):
    """(was a tuple, tuple of tensors); `what` names the argument in errors."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    if not is_tuple and not isinstance(value, torch.Tensor):
        raise TypeError(
            f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but the "
            f"given {what} has type {type(value)}."
        )
    for i, item in enumerate(items):
        if not isinstance(item, torch.Tensor):
            raise TypeError(
                f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but "
                f"the value at index {i} has type {type(item)}."
            )
    return is_tuple, items


def _leaves(inputs, create_graph):
    """Leaves to differentiate at; with create_graph an input that requires grad stays
    connected (a view of it), so the results can be differentiated with respect to it."""
    return tuple(
        x.view_as(x) if create_graph and x.requires_grad else x.detach().requires_grad_(True)
        for x in inputs
    )


def _call(func, inputs, fn):
    with torch.enable_grad():
        out = func(*inputs)
    return _as_tuple(out, "outputs of the user-provided function", fn)


def _check_v(v, ref, what, fn):
    """v as a tuple matching the tensors `ref` in number and shapes; None for one element."""
    if v is None:
        if len(ref) != 1 or ref[0].numel() != 1:
            raise RuntimeError(
                f"The vector v can only be None if the {what} a single Tensor with a single "
                "element."
            )
        return (torch.ones_like(ref[0]),)
    _, v = _as_tuple(v, "v", fn)
    if len(v) != len(ref):
        raise RuntimeError(
            f"v is a tuple of invalid length: should be {len(ref)} but got {len(v)}."
        )
    for vi, r in zip(v, ref):
        if vi.shape != r.shape:
            raise RuntimeError(f"v has invalid size: should be {r.shape} but got {vi.shape}.")
    return v


def _grad(outputs, inputs, grad_outputs, create_graph):
    """The vjp of `outputs` at `inputs`, None for an input nothing depends on. Outputs that
    do not require grad contribute nothing (their derivative is zero)."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, gos = zip(*pairs)
    with torch.enable_grad():
        return _autograd_grad(
            outs, inputs, gos, retain_graph=True, create_graph=create_graph, allow_unused=True
        )


def _fill(grads, like, strict, message, create_graph):
    """None gradients as zeros (strict: an error naming the input); detached unless
    create_graph."""
    result = []
    for i, (g, x) in enumerate(zip(grads, like)):
        if g is None:
            if strict:
                raise RuntimeError(message.format(i=i))
            g = torch.zeros_like(x)
        result.append(g if create_graph else g.detach())
    return tuple(result)


def _strict_outputs(outputs, strict, fn):
    if strict:
        for i, o in enumerate(outputs):
            if not o.requires_grad:
                raise RuntimeError(
                    f"Output {i} of the user-provided function does not require gradients. The "
                    "outputs must be computed in a differentiable manner from the input when "
                    "running in strict mode."
                )


def _result(values, is_tuple, create_graph):
    values = tuple(v if create_graph else v.detach() for v in values)
    return values if is_tuple else values[0]


_INDEPENDENT = (
    "The output of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode."
)


_JACOBIAN_INDEPENDENT = (
    "{fn}: the jacobian of the user-provided function with respect to input {i} is "
    "independent of the input, so its derivative is zero, which strict mode does not allow: "
    "make the function twice differentiable in that input (a linear one is not), or pass "
    "strict=False to get zeros."
)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), v^T J)``: the vector-Jacobian product of ``func`` at ``inputs``.

    ``v`` has the shape of ``func``'s output(s); it may be None only when the output is a
    single element. The product has the shape of ``inputs`` (a tuple when they are)."""
    fn = "vjp"
    in_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    leaves = _leaves(inputs, create_graph)
    out_tuple, outputs = _call(func, leaves, fn)
    _strict_outputs(outputs, strict, fn)
    v = _check_v(v, outputs, "user-provided function returns", fn)
    grads = _fill(
        _grad(outputs, leaves, v, create_graph), leaves, strict, _INDEPENDENT, create_graph
    )
    return _result(outputs, out_tuple, create_graph), (grads if in_tuple else grads[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), J v)``: the Jacobian-vector product of ``func`` at ``inputs``.

    ``v`` has the shape of ``inputs``; it may be None only when the input is a single
    element. Computed by the double-vjp trick: ``u -> J^T u`` is linear, and its vjp with
    ``v`` is ``J v``, so ``func`` needs differentiable backward formulas (all ours are)."""
    fn = "jvp"
    in_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    leaves = _leaves(inputs, create_graph)
    v = _check_v(v, leaves, "input to the user-provided function is", fn)
    out_tuple, outputs = _call(func, leaves, fn)
    _strict_outputs(outputs, strict, fn)
    with torch.enable_grad():
        dummies = tuple(torch.zeros_like(o, requires_grad=True) for o in outputs)
        vjps = _grad(outputs, leaves, dummies, create_graph=True)
        pairs = [(g, vi) for g, vi in zip(vjps, v) if g is not None and g.requires_grad]
        if pairs:
            gs, vs = zip(*pairs)
            jvps = _autograd_grad(
                gs, dummies, vs, retain_graph=True, create_graph=create_graph, allow_unused=True
            )
        else:
            jvps = (None,) * len(outputs)
    message = (
        "The jacobian of the user-provided function is independent of input {i}'s vector. "
        "This is not allowed in strict mode."
    )
    if strict:
        for i, g in enumerate(vjps):
            if g is None:
                raise RuntimeError(_INDEPENDENT.format(i=i))
    jvps = _fill(jvps, outputs, strict, message, create_graph)
    return _result(outputs, out_tuple, create_graph), (jvps if out_tuple else jvps[0])


def _check_strategy(fn, strict, vectorize, strategy):
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(
            f'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            f'function has more outputs than inputs, "forward-mode" tends to be more '
            f'performant. Otherwise, prefer to use "reverse-mode". Got {strategy!r}.'
        )
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError(
            'torch.autograd.functional.jacobian: `strategy="forward-mode"` is only '
            "implemented together with `vectorize=True`."
        )
    if strict and vectorize:
        raise RuntimeError(
            f"torch.autograd.functional.{fn}: `strict=True` and `vectorized=True` are not "
            "supported together. Please either set `strict=False` or `vectorize=False`."
        )


def jacobian(
    func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"
):
    """The Jacobian of ``func`` at ``inputs``: for output i and input j, a tensor of shape
    ``outputs[i].shape + inputs[j].shape``. A single tensor for a tensor input and a tensor
    output; a tuple over inputs (or outputs) when they are a tuple; a tuple of tuples
    (outputs, then inputs) when both are.

    Computed with one backward pass per output element. ``vectorize`` and
    ``strategy="forward-mode"`` (with ``vectorize=True``) are accepted and give the same
    values through the same loop; an input an output does not depend on gets zeros (strict:
    an error)."""
    fn = "jacobian"
    _check_strategy(fn, strict, vectorize, strategy)
    in_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    leaves = _leaves(inputs, create_graph)
    out_tuple, outputs = _call(func, leaves, fn)
    _strict_outputs(outputs, strict, fn)
    blocks = []  # blocks[i][j]: d outputs[i] / d inputs[j]
    for i, out in enumerate(outputs):
        rows = [[] for _ in leaves]
        flat = out.reshape(-1)
        for k in range(flat.numel()):
            seed = torch.zeros_like(flat)
            seed[k] = 1
            grads = _grad((flat,), leaves, (seed,), create_graph)
            for j, (g, x) in enumerate(zip(grads, leaves)):
                if g is None:
                    if strict:
                        raise RuntimeError(
                            f"Output {i} of the user-provided function is independent of input "
                            f"{j}. This is not allowed in strict mode."
                        )
                    g = torch.zeros_like(x)
                rows[j].append(g if create_graph else g.detach())
        blocks.append(
            tuple(
                torch.stack(r).reshape(out.shape + x.shape)
                if r
                else torch.zeros(out.shape + x.shape, dtype=x.dtype, device=x.device)
                for r, x in zip(rows, leaves)
            )
        )
    if out_tuple and in_tuple:
        return tuple(blocks)
    if out_tuple:
        return tuple(b[0] for b in blocks)
    return blocks[0] if in_tuple else blocks[0][0]


def _scalar_output(func, fn):
    def checked(*args):
        out_tuple, outputs = _as_tuple(func(*args), "outputs of the user-provided function", fn)
        if out_tuple and len(outputs) != 1:
            raise RuntimeError(
                f"The function given to {fn} should return a single Tensor, got a tuple of "
                f"{len(outputs)}."
            )
        if outputs[0].numel() != 1:
            raise RuntimeError(
                f"The Tensor returned by the function given to {fn} should contain a single element"
            )
        return outputs[0].reshape(())

    return checked


def hessian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    outer_jacobian_strategy="reverse-mode",
):
    """The Hessian of a scalar-valued ``func`` at ``inputs``: the Jacobian of its gradient.
    For a single input, a tensor of shape ``inputs.shape + inputs.shape``; for a tuple, a
    tuple of tuples with block (i, j) of shape ``inputs[i].shape + inputs[j].shape``."""
    fn = "hessian"
    _check_strategy(fn, strict, vectorize, outer_jacobian_strategy)
    in_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    scalar = _scalar_output(func, fn)

    def gradient(*xs):
        out = scalar(*xs)
        if strict and not out.requires_grad:
            raise RuntimeError(
                "The function given to hessian should return a Tensor that requires gradients "
                "in strict mode (its output does not depend on the inputs)."
            )
        grads = _grad((out,), xs, (torch.ones_like(out),), create_graph=True)
        if strict:
            for i, g in enumerate(grads):
                if g is None or not g.requires_grad:
                    raise RuntimeError(_JACOBIAN_INDEPENDENT.format(fn=fn, i=i))
        return tuple(torch.zeros_like(x) if g is None else g for g, x in zip(grads, xs))

    res = jacobian(gradient, inputs, create_graph=create_graph, vectorize=vectorize)
    return res if in_tuple else res[0][0]


def _hessian_products(func, inputs, v, create_graph, strict, fn):
    """(output, gradient, leaves, v) shared by vhp and hvp."""
    in_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    leaves = _leaves(inputs, create_graph)
    v = _check_v(v, leaves, "input to the user-provided function is", fn)
    with torch.enable_grad():
        out = _scalar_output(func, fn)(*leaves)
    if strict and not out.requires_grad:
        raise RuntimeError(
            "The output of the user-provided function does not require gradients. The outputs "
            "must be computed in a differentiable manner from the input when running in strict "
            "mode."
        )
    grads = _grad((out,), leaves, (torch.ones_like(out),), create_graph=True)
    for i, g in enumerate(grads):
        if strict and g is None:
            raise RuntimeError(_INDEPENDENT.format(i=i))
        if strict and not g.requires_grad:
            raise RuntimeError(_JACOBIAN_INDEPENDENT.format(fn=fn, i=i))
    return in_tuple, out, grads, leaves, v


_HESSIAN_INDEPENDENT = (
    "The hessian of the user-provided function with respect to input {i} is independent of "
    "the input. This is not allowed in strict mode."
)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), v^T H)``: the vector-Hessian product of a scalar-valued ``func``
    (the vjp of its gradient with ``v``). ``v`` has the shape of ``inputs``."""
    in_tuple, out, grads, leaves, v = _hessian_products(
        func, inputs, v, create_graph, strict, "vhp"
    )
    pairs = [(g, vi) for g, vi in zip(grads, v) if g is not None]
    products = (None,) * len(leaves)
    if pairs:
        gs, vs = zip(*pairs)
        products = _grad(gs, leaves, vs, create_graph)
    result = _fill(products, leaves, strict, _HESSIAN_INDEPENDENT, create_graph)
    out = out if create_graph else out.detach()
    return out, (result if in_tuple else result[0])


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(*inputs), H v)``: the Hessian-vector product of a scalar-valued ``func``, by the
    double-vjp trick (``u -> H^T u`` is linear in u; its vjp with ``v`` is ``H v``). Equal to
    :func:`vhp` for functions whose Hessian is symmetric (twice continuously
    differentiable ones)."""
    in_tuple, out, grads, leaves, v = _hessian_products(
        func, inputs, v, create_graph, strict, "hvp"
    )
    with torch.enable_grad():
        dummies = tuple(torch.zeros_like(x, requires_grad=True) for x in leaves)
        used = [(g, d) for g, d in zip(grads, dummies) if g is not None]
        inner = (
            _grad(tuple(g for g, _ in used), leaves, tuple(d for _, d in used), True)
            if used
            else (None,) * len(leaves)
        )
        pairs = [(w, vi) for w, vi in zip(inner, v) if w is not None and w.requires_grad]
        if pairs:
            ws, vs = zip(*pairs)
            hv = _autograd_grad(
                ws, dummies, vs, retain_graph=True, create_graph=create_graph, allow_unused=True
            )
        else:
            hv = (None,) * len(leaves)
    result = _fill(hv, leaves, strict, _HESSIAN_INDEPENDENT, create_graph)
    out = out if create_graph else out.detach()
    return out, (result if in_tuple else result[0])
