"""Finite-difference gradients for the legacy criterion and module tests (float64)."""

import numpy as np

import torch


def numeric_grad(f, x, eps=1e-6):
    """d f() / d x by central differences: ``f`` takes no argument and returns a float;
    ``x`` (a contiguous float64 tensor) is perturbed in place and restored."""
    flat = x.reshape(-1)
    grad = torch.zeros(x.numel(), dtype=torch.float64)
    for i in range(x.numel()):
        old = flat[i].item()
        flat[i] = old + eps
        up = f()
        flat[i] = old - eps
        down = f()
        flat[i] = old
        grad[i] = (up - down) / (2 * eps)
    return grad.reshape(x.shape)


def module_grads(module, input, seed=0):
    """(analytic, numeric) gradient pairs of sum(forward(input) * g) for a random g:
    first for the input, then for each parameter of the module (weight, bias). The
    analytic ones come from the module's own backward."""
    out = module.forward(input)
    g = torch.from_numpy(np.random.default_rng(seed).standard_normal(tuple(out.shape)))
    params, grad_params = module.parameters() or ([], [])
    for gp in grad_params:
        gp.zero_()
    analytic = [module.backward(input, g).clone()] + [gp.clone() for gp in grad_params]

    def loss():
        return (module.forward(input) * g).sum().item()

    return [(a, numeric_grad(loss, t)) for a, t in zip(analytic, [input, *params])]
