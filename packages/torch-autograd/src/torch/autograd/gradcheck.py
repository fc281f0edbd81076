"""Check analytical gradients against finite differences (use float64 inputs)."""

import itertools

import torch

Tensor = torch.Tensor


class GradcheckError(RuntimeError):
    """Analytical and numerical gradients differ (or backward failed its contract)."""


def _flat_outputs(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if isinstance(o, Tensor) and (o.is_floating_point() or o.is_complex())]


# A complex number counts as two real ones (real part, then imaginary part), so the Jacobian
# compared is the real one of the map between the real components of inputs and outputs.


def _real_values(t):
    """The real components of t, flattened (re, im interleaved for complex t)."""
    t = t.detach()
    return (torch.view_as_real(t.resolve_conj()) if t.is_complex() else t).reshape(-1).tolist()


def _indices(t):
    return itertools.product(*[range(n) for n in t.shape])


def _poke(x, idx, value):
    with torch.no_grad():
        x[idx] = value


def _numerical(fn, inputs, diff, eps):
    """Jacobian column by column: the outputs' real components' central differences, per
    real component of each input element."""
    cols = []
    for i in diff:
        x = inputs[i]
        steps = (eps, eps * 1j) if x.is_complex() else (eps,)
        for idx in _indices(x):
            orig = x[idx].item()
            for step in steps:
                _poke(x, idx, orig + step)
                plus = [v for o in _flat_outputs(fn(*inputs)) for v in _real_values(o)]
                _poke(x, idx, orig - step)
                minus = [v for o in _flat_outputs(fn(*inputs)) for v in _real_values(o)]
                _poke(x, idx, orig)
                cols.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
    return cols


def _forward(fn, inputs, diff):
    """Jacobian column by column through forward-mode AD: one dual evaluation per real
    component of each input element (a one-hot tangent), the outputs' tangents read back."""
    from torch.autograd import forward_ad

    cols = []
    for i in diff:
        x = inputs[i]
        if x.is_complex():
            raise TypeError("gradcheck: check_forward_ad=True takes real inputs only here")
        for idx in _indices(x):
            tangent = torch.zeros_like(x)
            tangent[idx] = 1.0
            with forward_ad.dual_level():
                args = list(inputs)
                args[i] = forward_ad.make_dual(x.detach(), tangent)
                outs = _flat_outputs(fn(*args))
                col = []
                for o in outs:
                    t = forward_ad.unpack_dual(o).tangent
                    col += _real_values(torch.zeros_like(o) if t is None else t)
            cols.append(col)
    return cols


def _analytical(inputs, diff, outputs):
    """Jacobian row by row: one backward per real component of each output element.  With
    PyTorch's convention the gradient of a complex input z = x + iy is dL/dx + i dL/dy, and
    a grad_output of 1 (or 1j) makes L the real (imaginary) part of that output element."""
    rows = []
    targets = [inputs[i] for i in diff]
    width = sum(t.numel() * (2 if t.is_complex() else 1) for t in targets)
    for o in outputs:
        seeds = (1.0, 1j) if o.is_complex() else (1.0,)
        if not o.requires_grad:  # constant in the inputs: a zero Jacobian block
            rows.extend([0.0] * width for _ in range(o.numel() * len(seeds)))
            continue
        for idx in _indices(o):
            for seed in seeds:
                go = torch.zeros_like(o)
                go[idx] = seed
                gs = torch.autograd.grad(o, targets, go, retain_graph=True, allow_unused=True)
                row = []
                for g, t in zip(gs, targets):
                    row += _real_values(torch.zeros_like(t) if g is None else g)
                rows.append(row)
    return rows


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def _unsupported(**flags):
    """gradcheck's keywords for what this autograd lacks (forward mode, masked layouts)."""
    for name, (value, allowed) in flags.items():
        if value != allowed:
            raise TypeError(
                f"gradcheck: {name}={value!r} is not supported (this autograd has reverse mode "
                f"only); leave it at {allowed!r}"
            )


def gradcheck(
    func,
    inputs,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_batched_forward_grad=False,
    check_forward_ad=False,
    check_backward_ad=True,
    fast_mode=False,
    masked=None,
):
    """True when the gradients that backward computes for ``func(*inputs)`` match central
    finite differences, for every input that requires grad (``check_backward_ad``, the
    default), and, with ``check_forward_ad``, when forward-mode AD's (dual tensors) do.

    ``nondet_tol``: how far two backward runs may differ (0: they must agree exactly).
    ``check_undefined_grad``: each output is also differentiated alone, the others' gradients
    left undefined (the Jacobian is built that way, so this always holds).
    ``check_grad_dtypes``: each gradient has its input's dtype and shape.
    ``check_batched_grad``: ``autograd.grad(is_grads_batched=True)`` agrees with the rows.
    ``fast_mode``: compare one random projection u^T J v instead of the whole Jacobian."""
    _unsupported(
        check_batched_forward_grad=(check_batched_forward_grad, False),
        masked=(bool(masked), False),
    )
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for i in diff:
        if inputs[i].dtype not in (torch.float64, torch.complex128):
            import warnings

            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point. "
                "This check will likely fail if all the inputs are not of double precision "
                "floating point.",
                UserWarning,
                stacklevel=2,
            )
    outputs = _flat_outputs(func(*inputs))
    if not outputs or all(o.numel() == 0 for o in outputs):
        return True  # nothing to differentiate (e.g. an empty split)
    if not check_backward_ad:
        return _forward_check(func, inputs, diff, eps, atol, rtol, raise_exception)
    targets = [inputs[i] for i in diff]
    if check_grad_dtypes:
        msg = _grad_dtype_error(outputs, targets)
        if msg:
            return _fail(msg, raise_exception)
    if check_batched_grad:
        msg = _batched_grad_error(outputs, targets, atol, rtol)
        if msg:
            return _fail(msg, raise_exception)
    msg = _zero_grad_output_error(outputs, targets)
    if msg:
        return _fail(msg, raise_exception)
    if fast_mode:
        return _fast_check(func, inputs, diff, outputs, eps, atol, rtol, raise_exception)
    rows = _analytical(inputs, diff, outputs)
    again = _analytical(inputs, diff, outputs)
    for r, (row, row2) in enumerate(zip(rows, again)):
        worst = max((abs(x - y) for x, y in zip(row, row2)), default=0.0)
        if worst > nondet_tol:
            return _fail(
                f"Backward is not reentrant: two runs differ by {worst} at real output "
                f"component {r}, more than nondet_tol={nondet_tol}",
                raise_exception,
            )
    cols = _numerical(func, inputs, diff, eps)
    for c, col in enumerate(cols):
        for r, n in enumerate(col):
            a = rows[r][c]
            if abs(a - n) > atol + rtol * abs(n):
                return _fail(
                    f"Jacobian mismatch at real input component {c} and real output component "
                    f"{r} (complex values count as two: real part, imaginary part):\n"
                    f"numerical: {n!r}\nanalytical: {a!r}\n",
                    raise_exception,
                )
    if check_forward_ad:
        return _forward_check(func, inputs, diff, eps, atol, rtol, raise_exception, cols)
    return True


def _forward_check(func, inputs, diff, eps, atol, rtol, raise_exception, cols=None):
    """Forward-mode AD's Jacobian against central finite differences."""
    cols = _numerical(func, inputs, diff, eps) if cols is None else cols
    for c, (col, fwd) in enumerate(zip(cols, _forward(func, inputs, diff))):
        for r, (n, a) in enumerate(zip(col, fwd)):
            if abs(a - n) > atol + rtol * abs(n):
                return _fail(
                    f"Jacobian computed with forward mode mismatch for output {r} with respect "
                    f"to input component {c},\nnumerical: {n!r}\nanalytical: {a!r}\n",
                    raise_exception,
                )
    return True


def _grads(outputs, targets, seed):
    """The targets' gradients for grad_outputs seed(o) of each output that requires grad (an
    empty list when none does)."""
    live = [o for o in outputs if o.requires_grad]
    if not live:
        return []
    seeds = [seed(o) for o in live]
    return torch.autograd.grad(live, targets, seeds, retain_graph=True, allow_unused=True)


def _zero_grad_output_error(outputs, targets):
    """Backward is linear in grad_output: zero grad_outputs must give zero gradients."""
    for k, g in enumerate(_grads(outputs, targets, torch.zeros_like)):
        if g is not None and bool((g != 0).any()):
            return f"backward not multiplied by grad_output: gradient {k} is not zero"
    return None


def _grad_dtype_error(outputs, targets):
    for k, (g, t) in enumerate(zip(_grads(outputs, targets, torch.ones_like), targets)):
        if g is not None and (g.dtype != t.dtype or g.shape != t.shape):
            return (
                f"Gradient {k} has dtype {g.dtype} and shape {tuple(g.shape)}; its input has "
                f"dtype {t.dtype} and shape {tuple(t.shape)}"
            )
    return None


def _batched_grad_error(outputs, targets, atol, rtol):
    """Two random grad_outputs, batched along a new first dim, against one at a time."""
    gen = torch.Generator().manual_seed(0)
    for o in outputs:
        if not o.requires_grad:
            continue
        batch = torch.randn((2, *o.shape), dtype=o.dtype, generator=gen).to(o.device)
        together = torch.autograd.grad(
            o, targets, batch, retain_graph=True, allow_unused=True, is_grads_batched=True
        )
        for b in range(2):
            alone = torch.autograd.grad(o, targets, batch[b], retain_graph=True, allow_unused=True)
            for k, (g, g1) in enumerate(zip(together, alone)):
                if (g is None) != (g1 is None):
                    return f"Batched gradient {k} is None where the unbatched one is not"
                if g is not None and not torch.allclose(g[b], g1, rtol=rtol, atol=atol):
                    return f"Batched gradient {k}, batch {b}, differs from the unbatched one"
    return None


def _fast_check(func, inputs, diff, outputs, eps, atol, rtol, raise_exception):
    """u^T J v for random unit u (outputs) and v (inputs): a vector-Jacobian product dotted
    with v against the directional difference along v dotted with u."""
    gen = torch.Generator().manual_seed(0)
    targets = [inputs[i] for i in diff]
    # drawn on the CPU (the generator's device), used where the tensors live
    vs = [torch.randn(t.shape, dtype=t.dtype, generator=gen).to(t.device) for t in targets]
    us = [torch.randn(o.shape, dtype=o.dtype, generator=gen).to(o.device) for o in outputs]
    live = [(o, u) for o, u in zip(outputs, us) if o.requires_grad]
    analytical = 0.0
    if live:
        grads = torch.autograd.grad(
            [o for o, _ in live],
            targets,
            [u for _, u in live],
            retain_graph=True,
            allow_unused=True,
        )
        for g, v in zip(grads, vs):
            if g is not None:  # Re<g, v> with g the conjugate-Wirtinger gradient
                analytical += (
                    float((g.conj() * v).real.sum()) if g.is_complex() else float((g * v).sum())
                )
    originals = [t.detach().clone() for t in targets]

    def shifted(sign):
        with torch.no_grad():
            for t, o, v in zip(targets, originals, vs):
                t.copy_(o + sign * eps * v)
        outs = [x.detach().clone() for x in _flat_outputs(func(*inputs))]
        with torch.no_grad():
            for t, o in zip(targets, originals):
                t.copy_(o)
        return outs

    plus, minus = shifted(1), shifted(-1)
    numerical = 0.0
    for p, m, u in zip(plus, minus, us):
        d = (p - m) / (2 * eps)
        numerical += float((u.conj() * d).real.sum()) if d.is_complex() else float((u * d).sum())
    if abs(analytical - numerical) > atol + rtol * abs(numerical):
        return _fail(
            f"Jacobian mismatch in fast mode (u^T J v for random u, v):\n"
            f"numerical: {numerical!r}\nanalytical: {analytical!r}\n",
            raise_exception,
        )
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    gen_non_contig_grad_outputs=False,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_fwd_over_rev=False,
    check_rev_over_rev=True,
    fast_mode=False,
    masked=False,
):
    """gradcheck of the gradients themselves: checks that backward (built with
    create_graph=True) is differentiable and correct.  Random grad_outputs are made when none
    are given (non-contiguous ones with ``gen_non_contig_grad_outputs``)."""
    _unsupported(
        check_fwd_over_rev=(check_fwd_over_rev, False),
        check_rev_over_rev=(check_rev_over_rev, True),
        masked=(bool(masked), False),
    )
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    outputs = _flat_outputs(func(*inputs))
    if grad_outputs is None:
        gen = torch.Generator().manual_seed(0)
        grad_outputs = []
        for o in outputs:
            shape = (*o.shape, 2) if gen_non_contig_grad_outputs else o.shape
            g = torch.randn(shape, dtype=o.dtype, generator=gen).to(o.device)
            if gen_non_contig_grad_outputs:  # every other element: strided, not contiguous
                g = g.select(-1, 0)
            grad_outputs.append(g.requires_grad_())
    grad_outputs = list(grad_outputs)
    n = len(inputs)

    def first_grads(*args):
        ins, gos = args[:n], args[n:]
        outs = _flat_outputs(func(*ins))
        targets = [ins[i] for i in diff]
        gs = torch.autograd.grad(outs, targets, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(
        first_grads,
        tuple(inputs) + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
        check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes,
        check_batched_grad=check_batched_grad,
        fast_mode=fast_mode,
    )
