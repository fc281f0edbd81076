"""LBFGS: a NumPy L-BFGS as oracle for the fixed-step variant; minimisation of a quadratic and
of the Rosenbrock function, with and without the strong Wolfe line search."""

import numpy as np
import pytest

import torch
import torch.optim as optim

A = np.array(
    [
        [4.0, 1.0, 0.5, 0.0, 0.2],
        [1.0, 3.0, 0.3, 0.1, 0.0],
        [0.5, 0.3, 2.0, 0.4, 0.1],
        [0.0, 0.1, 0.4, 1.5, 0.3],
        [0.2, 0.0, 0.1, 0.3, 1.0],
    ]
)
B = np.array([1.0, -2.0, 0.5, 3.0, -1.0])


def _quadratic_closure(opt, x):
    a, b = torch.tensor(A), torch.tensor(B)

    def closure():
        opt.zero_grad()
        loss = x @ (a @ x) / 2 - b @ x
        loss.backward()
        return loss

    return closure


def _rosenbrock_closure(opt, x):
    def closure():
        opt.zero_grad()
        u, v = x.unbind()
        loss = (1 - u) ** 2 + 100 * (v - u * u) ** 2
        loss.backward()
        return loss

    return closure


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_minimises_a_quadratic(line_search_fn):
    x = torch.zeros(5, dtype=torch.float64, requires_grad=True)
    opt = optim.LBFGS([x], line_search_fn=line_search_fn, max_iter=100)
    first = opt.step(_quadratic_closure(opt, x))
    assert first.item() == 0.0  # the loss at the start
    # it stops once the loss changes by less than tolerance_change (1e-9)
    np.testing.assert_allclose(x.detach().numpy(), np.linalg.solve(A, B), atol=1e-4)


def test_strong_wolfe_reaches_the_quadratic_minimum_closely():
    x = torch.zeros(5, dtype=torch.float64, requires_grad=True)
    opt = optim.LBFGS(
        [x],
        line_search_fn="strong_wolfe",
        max_iter=100,
        tolerance_grad=1e-12,
        tolerance_change=1e-15,
    )
    opt.step(_quadratic_closure(opt, x))
    np.testing.assert_allclose(x.detach().numpy(), np.linalg.solve(A, B), atol=1e-7)
    assert opt.state[x]["n_iter"] <= 20


@pytest.mark.parametrize("line_search_fn,calls", [("strong_wolfe", 5), (None, 10)])
def test_minimises_rosenbrock(line_search_fn, calls):
    x = torch.tensor([-1.5, 2.0], dtype=torch.float64, requires_grad=True)
    opt = optim.LBFGS([x], line_search_fn=line_search_fn, max_iter=50)
    closure = _rosenbrock_closure(opt, x)
    for _ in range(calls):
        opt.step(closure)
    np.testing.assert_allclose(x.detach().numpy(), [1.0, 1.0], atol=1e-4)
    assert closure().item() < 1e-8


def _np_lbfgs(x, grad, lr, iterations, history_size):
    """L-BFGS with a fixed step (lr; lr * min(1, 1/|g|_1) at the first iteration) and the
    two-loop recursion; pairs with y.s <= 1e-10 are skipped."""
    pairs = []
    g = grad(x)
    d = -g
    t = min(1.0, 1.0 / np.abs(g).sum()) * lr
    path = []
    for i in range(iterations):
        if i > 0:
            g_new = grad(x)
            y, s = g_new - g, d * t
            if y @ s > 1e-10:
                pairs = (pairs + [(s, y)])[-history_size:]
            g = g_new
            q = -g
            alphas = []
            for s_i, y_i in reversed(pairs):
                alpha = (s_i @ q) / (y_i @ s_i)
                q = q - alpha * y_i
                alphas.append(alpha)
            s_last, y_last = pairs[-1]
            r = q * (s_last @ y_last) / (y_last @ y_last)
            for (s_i, y_i), alpha in zip(pairs, reversed(alphas)):
                r = r + s_i * (alpha - (y_i @ r) / (y_i @ s_i))
            d = r
            t = lr
        x = x + t * d
        path.append(x)
    return path


@pytest.mark.parametrize("history_size", [2, 100])
def test_fixed_step_matches_numpy_lbfgs(history_size):
    """Two parameters (a matrix and a vector) act as one flat vector."""
    rng = np.random.default_rng(0)
    start = rng.normal(size=6)
    scales = rng.uniform(1.0, 3.0, size=6)

    def np_grad(v):
        return scales * v + 0.4 * v**3 - 1.0

    w = torch.tensor(start[:4].reshape(2, 2), requires_grad=True)
    b = torch.tensor(start[4:], requires_grad=True)
    opt = optim.LBFGS([w, b], lr=0.5, max_iter=1, history_size=history_size)
    scales_w, scales_b = torch.tensor(scales[:4].reshape(2, 2)), torch.tensor(scales[4:])

    def closure():
        opt.zero_grad()
        loss = 0
        for p, c in ((w, scales_w), (b, scales_b)):
            loss = loss + (c * p * p).sum() / 2 + (p**4).sum() / 10 - p.sum()
        loss.backward()
        return loss

    path = _np_lbfgs(start, np_grad, 0.5, 8, history_size)
    for expected in path:  # max_iter=1: one iteration per step() call
        opt.step(closure)
        got = np.concatenate([w.detach().numpy().reshape(-1), b.detach().numpy()])
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert len(opt.state[w]["old_dirs"]) <= history_size
    assert opt.state[w]["n_iter"] == 8


def test_counts_closure_calls_and_respects_max_eval():
    x = torch.tensor([-1.5, 2.0], dtype=torch.float64, requires_grad=True)
    opt = optim.LBFGS([x], lr=0.1, max_iter=10, max_eval=4)
    calls = []
    closure = _rosenbrock_closure(opt, x)
    opt.step(lambda: calls.append(1) or closure())
    assert len(calls) == 4 == opt.state[x]["func_evals"]
    assert opt.state[x]["n_iter"] == 3


def test_stops_at_once_when_the_gradient_is_small():
    x = torch.tensor([1.0, 1.0], dtype=torch.float64, requires_grad=True)
    opt = optim.LBFGS([x])
    opt.step(_rosenbrock_closure(opt, x))
    assert x.tolist() == [1.0, 1.0] and opt.state[x]["n_iter"] == 0


def test_state_dict_keeps_the_history_under_the_first_parameter():
    x = torch.zeros(5, dtype=torch.float64, requires_grad=True)
    opt = optim.LBFGS([x], max_iter=3)
    opt.step(_quadratic_closure(opt, x))
    sd = opt.state_dict()
    assert list(sd["state"]) == [0]
    assert {"func_evals", "n_iter", "d", "t", "old_dirs", "old_stps", "ro", "H_diag"} <= set(
        sd["state"][0]
    )
    assert sd["param_groups"][0]["max_eval"] == 3 * 5 // 4


def test_errors():
    x = torch.zeros(2, requires_grad=True)
    y = torch.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        optim.LBFGS([{"params": [x]}, {"params": [y]}])
    with pytest.raises(ValueError, match="line_search_fn must be None or 'strong_wolfe'"):
        optim.LBFGS([x], line_search_fn="armijo")
    with pytest.raises(TypeError):
        optim.LBFGS([x]).step()  # the closure is required
