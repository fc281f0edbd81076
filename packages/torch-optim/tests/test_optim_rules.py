"""Each optimizer against a NumPy re-implementation of its documented update rule.

The loss is separable, ``sum(c * (x - t)^2 / 2 + (x - t)^4 / 10)``, so the oracle can compute
the gradient in NumPy; it is steep enough for gradients to change sign (Rprop, AMSGrad).
"""

import math

import numpy as np
import pytest

import torch
import torch.optim as optim

SHAPES = [(2, 3), (3,)]
STEPS = 8  # RAdam's rectified branch starts at step 6 (rho_t > 5)


def _problem(seed):
    rng = np.random.default_rng(seed)
    starts = [rng.normal(size=s) for s in SHAPES]
    targets = [rng.normal(size=s) for s in SHAPES]
    scales = [rng.uniform(0.5, 3.0, size=s) for s in SHAPES]
    return starts, targets, scales


def _np_grad(x, t, c):
    return c * (x - t) + 0.4 * (x - t) ** 3


def _torch_loss(params, targets, scales):
    loss = 0
    for p, t, c in zip(params, targets, scales):
        d = p - torch.tensor(t)
        loss = loss + (torch.tensor(c) * d * d).sum() / 2 + (d**4).sum() / 10
    return loss


# ---- the oracles: each returns step(x, g, t) for one parameter, keeping its own state ----


def np_sgd(lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False):
    buf = None

    def step(x, g, t):
        nonlocal buf
        g = -g if maximize else g
        g = g + weight_decay * x
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        return x - lr * g

    return step


def np_adam(
    lr=1e-3,
    betas=(0.9, 0.999),
    eps=1e-8,
    weight_decay=0,
    amsgrad=False,
    maximize=False,
    decoupled_weight_decay=False,
):
    b1, b2 = betas
    m = v = v_max = 0.0

    def step(x, g, t):
        nonlocal m, v, v_max
        g = -g if maximize else g
        if decoupled_weight_decay:
            x = x * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * x
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        v_max = np.maximum(v_max, v)
        v_hat = (v_max if amsgrad else v) / (1 - b2**t)
        return x - lr * (m / (1 - b1**t)) / (np.sqrt(v_hat) + eps)

    return step


def np_adamw(weight_decay=1e-2, **kw):
    return np_adam(weight_decay=weight_decay, decoupled_weight_decay=True, **kw)


def np_adagrad(
    lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10, maximize=False
):
    total = initial_accumulator_value

    def step(x, g, t):
        nonlocal total
        g = -g if maximize else g
        g = g + weight_decay * x
        total = total + g * g
        return x - lr / (1 + (t - 1) * lr_decay) * g / (np.sqrt(total) + eps)

    return step


def np_adadelta(lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, maximize=False):
    v = u = 0.0

    def step(x, g, t):
        nonlocal v, u
        g = -g if maximize else g
        g = g + weight_decay * x
        v = rho * v + (1 - rho) * g * g
        dx = np.sqrt(u + eps) / np.sqrt(v + eps) * g
        u = rho * u + (1 - rho) * dx * dx
        return x - lr * dx

    return step


def np_adamax(lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, maximize=False):
    b1, b2 = betas
    m = u = 0.0

    def step(x, g, t):
        nonlocal m, u
        g = -g if maximize else g
        g = g + weight_decay * x
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u, np.abs(g) + eps)
        return x - lr / (1 - b1**t) * m / u

    return step


def np_nadam(
    lr=2e-3,
    betas=(0.9, 0.999),
    eps=1e-8,
    weight_decay=0,
    momentum_decay=4e-3,
    decoupled_weight_decay=False,
    maximize=False,
):
    b1, b2 = betas
    m = v = 0.0
    mu_product = np.float32(1.0)  # the state keeps it as a float32 scalar tensor

    def mu(t):
        return b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))

    def step(x, g, t):
        nonlocal m, v, mu_product
        g = -g if maximize else g
        if decoupled_weight_decay:
            x = x * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * x
        mu_product = np.float32(float(mu_product) * mu(t))
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = mu(t + 1) * m / (1 - float(mu_product) * mu(t + 1)) + (1 - mu(t)) * g / (
            1 - float(mu_product)
        )
        return x - lr * m_hat / (np.sqrt(v / (1 - b2**t)) + eps)

    return step


def np_radam(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False):
    b1, b2 = betas
    m = v = 0.0
    rho_inf = 2 / (1 - b2) - 1

    def step(x, g, t):
        nonlocal m, v
        if decoupled_weight_decay:
            x = x * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * x
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = m / (1 - b1**t)
        rho_t = rho_inf - 2 * t * b2**t / (1 - b2**t)
        if rho_t <= 5:
            return x - lr * m_hat
        adaptive = math.sqrt(1 - b2**t) / (np.sqrt(v) + eps)
        rect = math.sqrt(
            (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
        )
        return x - lr * m_hat * rect * adaptive

    return step


def np_rmsprop(
    lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, maximize=False
):
    v = g_avg = buf = 0.0

    def step(x, g, t):
        nonlocal v, g_avg, buf
        g = -g if maximize else g
        g = g + weight_decay * x
        v = alpha * v + (1 - alpha) * g * g
        v_used = v
        if centered:
            g_avg = alpha * g_avg + (1 - alpha) * g
            v_used = v - g_avg * g_avg
        if momentum > 0:
            buf = momentum * buf + g / (np.sqrt(v_used) + eps)
            return x - lr * buf
        return x - lr * g / (np.sqrt(v_used) + eps)

    return step


def np_rprop(lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False):
    prev = 0.0
    size = None

    def step(x, g, t):
        nonlocal prev, size
        g = -g if maximize else g
        if size is None:
            size = np.full_like(x, lr)
        agreement = g * prev
        factor = np.where(agreement > 0, etas[1], np.where(agreement < 0, etas[0], 1.0))
        size = np.clip(size * factor, *step_sizes)
        g = np.where(agreement < 0, 0.0, g)
        prev = g
        return x - size * np.sign(g)

    return step


def np_asgd(lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, maximize=False):
    # eta and mu live in float32 scalar tensors in the state, as in PyTorch
    eta, mu = float(np.float32(lr)), 1.0
    average = None

    def step(x, g, t):
        nonlocal eta, mu, average
        g = -g if maximize else g
        g = g + weight_decay * x
        x = x * (1 - lambd * eta) - eta * g
        average = x.copy() if mu == 1 else average + mu * (x - average)
        step.average = average
        eta = float(np.float32(lr / (1 + lambd * lr * t) ** alpha))
        mu = float(np.float32(1 / max(1, t - t0)))
        return x

    return step


ORACLES = {
    "SGD": np_sgd,
    "Adam": np_adam,
    "AdamW": np_adamw,
    "Adagrad": np_adagrad,
    "Adadelta": np_adadelta,
    "Adamax": np_adamax,
    "NAdam": np_nadam,
    "RAdam": np_radam,
    "RMSprop": np_rmsprop,
    "Rprop": np_rprop,
    "ASGD": np_asgd,
}

CASES = [
    ("SGD", dict(lr=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.05)),
    ("SGD", dict(lr=0.01, momentum=0.5, maximize=True)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1)),
    ("Adam", dict(lr=0.05, amsgrad=True)),
    ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1, eps=1e-3, maximize=True)),
    ("Adam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, weight_decay=0.3, amsgrad=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.2, weight_decay=0.1, initial_accumulator_value=0.3)),
    ("Adagrad", dict(lr=0.1, maximize=True, eps=1e-3)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.7, eps=1e-3, weight_decay=0.1)),
    ("Adadelta", dict(maximize=True)),
    ("Adamax", dict(lr=0.05)),
    ("Adamax", dict(lr=0.05, betas=(0.7, 0.8), weight_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.05)),
    ("NAdam", dict(lr=0.05, momentum_decay=0.05, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RAdam", dict(lr=0.05)),
    ("RAdam", dict(lr=0.05, betas=(0.7, 0.9), weight_decay=0.1)),
    ("RAdam", dict(lr=0.05, betas=(0.7, 0.9), weight_decay=0.1, decoupled_weight_decay=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, weight_decay=0.1, momentum=0.7)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, maximize=True)),
    ("Rprop", dict(lr=0.05)),
    ("Rprop", dict(lr=0.2, etas=(0.3, 1.5), step_sizes=(0.01, 0.25))),
    ("Rprop", dict(lr=0.05, maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, lambd=0.05, alpha=0.5, t0=2, weight_decay=0.1)),
]


def _ids(case):
    name, kw = case
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())


@pytest.mark.parametrize("name,kwargs", CASES, ids=[_ids(c) for c in CASES])
def test_matches_numpy_oracle(name, kwargs):
    starts, targets, scales = _problem(0)
    params = [torch.tensor(s, requires_grad=True) for s in starts]
    opt = getattr(optim, name)(params, **kwargs)
    oracles = [ORACLES[name](**kwargs) for _ in params]
    xs = [s.copy() for s in starts]
    for t in range(1, STEPS + 1):
        opt.zero_grad()
        _torch_loss(params, targets, scales).backward()
        opt.step()
        xs = [f(x, _np_grad(x, tg, c), t) for f, x, tg, c in zip(oracles, xs, targets, scales)]
        for p, x in zip(params, xs):
            np.testing.assert_allclose(p.detach().numpy(), x, rtol=1e-7, atol=1e-9)
    if name == "ASGD":  # the running average of the iterates
        for p, f in zip(params, oracles):
            np.testing.assert_allclose(opt.state[p]["ax"].numpy(), f.average, rtol=1e-7)


@pytest.mark.parametrize("name", ["Adam", "SGD", "RMSprop"])
def test_float32_parameters(name):
    kwargs = dict(lr=0.05, momentum=0.9) if name == "SGD" else dict(lr=0.05)
    starts, targets, scales = _problem(1)
    params = [torch.tensor(s, dtype=torch.float32, requires_grad=True) for s in starts]
    opt = getattr(optim, name)(params, **kwargs)
    oracles = [ORACLES[name](**kwargs) for _ in params]
    xs = [s.astype(np.float32).astype(np.float64) for s in starts]
    for t in range(1, STEPS + 1):
        grads = [
            _np_grad(p.detach().numpy().astype(np.float64), tg, c)
            for p, tg, c in zip(params, targets, scales)
        ]
        for p, g in zip(params, grads):
            p.grad = torch.tensor(g, dtype=torch.float32)
        opt.step()
        xs = [f(x, g, t) for f, x, g in zip(oracles, xs, grads)]
    for p, x in zip(params, xs):
        assert p.dtype == torch.float32
        assert opt.state[p] == {} or all(
            v.dtype == torch.float32 for k, v in opt.state[p].items() if k != "step"
        )
        np.testing.assert_allclose(p.detach().numpy(), x, rtol=1e-5, atol=1e-6)


def test_defaults_match_pytorch():
    p = [torch.zeros(1, requires_grad=True)]
    expected = {
        "SGD": dict(lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False),
        "Adam": dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False),
        "AdamW": dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False),
        "Adagrad": dict(lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0),
        "Adadelta": dict(lr=1.0, rho=0.9, eps=1e-6, weight_decay=0),
        "Adamax": dict(lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0),
        "NAdam": dict(lr=2e-3, momentum_decay=4e-3, decoupled_weight_decay=False),
        "RAdam": dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, decoupled_weight_decay=False),
        "RMSprop": dict(lr=1e-2, alpha=0.99, eps=1e-8, momentum=0, centered=False),
        "Rprop": dict(lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50)),
        "ASGD": dict(lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0),
        "LBFGS": dict(lr=1, max_iter=20, max_eval=25, tolerance_grad=1e-7, history_size=100),
    }
    for name, options in expected.items():
        group = getattr(optim, name)(p).param_groups[0]
        assert {k: group[k] for k in options} == options, name
        if name != "LBFGS":
            assert group["maximize"] is False
    assert optim.AdamW(p).param_groups[0]["decoupled_weight_decay"] is True


def test_a_parameter_without_grad_is_skipped():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    opt = optim.Adam([a, b], lr=0.1)
    a.grad = torch.ones(2)
    opt.step()
    assert b.tolist() == [1.0, 1.0] and len(opt.state) == 1
    assert a.tolist() != [1.0, 1.0]
