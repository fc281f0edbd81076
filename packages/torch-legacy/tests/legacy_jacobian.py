"""Finite-difference checks of legacy modules' hand-written gradients (float64).

The loss is ``L = sum(output * gradOutput)`` for a fixed random ``gradOutput``; the
module's own ``backward`` must give dL/dinput in ``gradInput`` and dL/dparam in its
gradient tensors, and central differences of L must agree.
"""

import numpy as np

import torch

EPS = 1e-6


def tensors(x):
    """The tensors of a tensor or (nested) list, in order."""
    if isinstance(x, torch.Tensor):
        return [x]
    return [t for item in x for t in tensors(item)]


def loss(module, input, grad_outputs):
    out = tensors(module.forward(input))
    return sum(float((o * g).sum()) for o, g in zip(out, grad_outputs))


def numeric_grad(module, input, grad_outputs, t):
    """dL/dt by central differences, perturbing tensor ``t`` (part of input or params)."""
    flat = t.view(-1) if t.is_contiguous() else None
    assert flat is not None, "perturbed tensors must be contiguous"
    grad = np.zeros(t.numel())
    for i in range(t.numel()):
        old = float(flat[i])
        flat[i] = old + EPS
        up = loss(module, input, grad_outputs)
        flat[i] = old - EPS
        down = loss(module, input, grad_outputs)
        flat[i] = old
        grad[i] = (up - down) / (2 * EPS)
    return grad.reshape(tuple(t.shape))


def nested_like(x, make):
    if isinstance(x, torch.Tensor):
        return make(x)
    return [nested_like(item, make) for item in x]


def check_gradients(module, input, atol=1e-5, rtol=1e-4, check_input=True, seed=0):
    """Compares ``module.backward``'s gradInput and parameter gradients with finite
    differences; returns the analytic gradInput."""
    gen = np.random.default_rng(seed)
    output = module.forward(input)
    grad_out = nested_like(output, lambda o: torch.tensor(gen.standard_normal(tuple(o.shape))))
    grad_outputs = tensors(grad_out)
    module.zeroGradParameters()
    grad_in = module.backward(input, grad_out)
    grad_in_copy = [g.clone() for g in tensors(grad_in)]
    params = module.parameters()
    analytic_params = [g.clone() for g in params[1]] if params else []
    if check_input:
        for x, g in zip(tensors(input), grad_in_copy):
            assert tuple(g.shape) == tuple(x.shape)
            np.testing.assert_allclose(
                g.numpy(), numeric_grad(module, input, grad_outputs, x), atol=atol, rtol=rtol
            )
    for p, g in zip(params[0] if params else [], analytic_params):
        np.testing.assert_allclose(
            g.numpy(), numeric_grad(module, input, grad_outputs, p), atol=atol, rtol=rtol
        )
    return grad_in


def rand(*shape, seed=0, low=-1.0, high=1.0):
    gen = np.random.default_rng(seed)
    return torch.tensor(gen.uniform(low, high, shape))
