"""Check analytical gradients against finite differences (use float64 inputs)."""

import itertools

import torch

Tensor = torch.Tensor


class GradcheckError(RuntimeError):
    """Analytical and numerical gradients differ (or backward failed its contract)."""


def _flat_outputs(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if isinstance(o, Tensor) and o.is_floating_point()]


def _indices(t):
    return itertools.product(*[range(n) for n in t.shape])


def _poke(x, idx, value):
    with torch.no_grad():
        x[idx] = value


def _numerical(fn, inputs, diff, outputs, eps):
    """Jacobian column by column: d outputs / d input element, by central differences."""
    cols = []
    for i in diff:
        x = inputs[i]
        for idx in _indices(x):
            orig = float(x[idx])
            _poke(x, idx, orig + eps)
            plus = [o.detach().clone() for o in _flat_outputs(fn(*inputs))]
            _poke(x, idx, orig - eps)
            minus = [o.detach().clone() for o in _flat_outputs(fn(*inputs))]
            _poke(x, idx, orig)
            cols.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
    return cols


def _analytical(inputs, diff, outputs):
    """Jacobian row by row: one backward per output element."""
    rows = []  # per (output, element): list of grads per diff input
    targets = [inputs[i] for i in diff]
    for o in outputs:
        if not o.requires_grad:  # constant in the inputs: a zero Jacobian block
            rows.extend([torch.zeros_like(t) for t in targets] for _ in range(o.numel()))
            continue
        for idx in _indices(o):
            go = torch.zeros_like(o)
            go[idx] = 1.0
            gs = torch.autograd.grad(o, targets, go, retain_graph=True, allow_unused=True)
            rows.append([torch.zeros_like(t) if g is None else g for g, t in zip(gs, targets)])
    return rows


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
    fast_mode=False,
    **unused,
):
    """True when the gradients that backward computes for ``func(*inputs)`` match central
    finite differences, for every input that requires grad."""
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for i in diff:
        if inputs[i].dtype != torch.float64:
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
    rows = _analytical(inputs, diff, outputs)
    cols = _numerical(func, inputs, diff, outputs, eps)
    # compare: analytical J[r][c] vs numerical J[r][c]
    c = 0
    for k, i in enumerate(diff):
        for idx in _indices(inputs[i]):
            r = 0
            for oi, o in enumerate(outputs):
                num = cols[c][oi].reshape(-1)
                for j in range(o.numel()):
                    a = float(rows[r][k][idx])
                    n = float(num[j])
                    if abs(a - n) > atol + rtol * abs(n):
                        msg = (
                            f"Jacobian mismatch for output {oi} with respect to input {i},\n"
                            f"at input element {idx} and output element {j}:\n"
                            f"numerical: {n!r}\nanalytical: {a!r}\n"
                        )
                        if raise_exception:
                            raise GradcheckError(msg)
                        return False
                    r += 1
            c += 1
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
    **unused,
):
    """gradcheck of the gradients themselves: checks that backward (built with
    create_graph=True) is differentiable and correct."""
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    outputs = _flat_outputs(func(*inputs))
    if grad_outputs is None:
        gen = torch.Generator().manual_seed(0)
        grad_outputs = [
            torch.rand(o.shape, dtype=o.dtype, generator=gen).requires_grad_() for o in outputs
        ]
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
    )
