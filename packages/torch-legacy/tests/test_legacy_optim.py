"""torch.legacy.optim against NumPy re-statements of Lua's optim update rules.

Each first-order algorithm runs several steps with its state carried in config (Lua's default),
and every step's x and f are compared with a NumPy version of the same rule written from the
Lua formulas. lbfgs and cg are checked for convergence (quadratic, Rosenbrock), lbfgs also
step by step without a line search, lswolfe for the Wolfe conditions and polyinterp against
the exact minimum of the polynomial it interpolates. Only torch-core is needed.
"""

import math

import numpy as np
import pytest

import torch
import torch.legacy.optim as optim

CURVATURE = np.array([0.5, 1.0, 2.0, 3.0, 0.25, 1.5])
X0 = np.array([0.8, -1.3, 0.4, 2.1, -0.6, 1.1])


def objective(x):
    """f = sum(c x^2 / 2 + sin x): the gradient changes sign and size from step to step."""
    return float(np.sum(0.5 * CURVATURE * x**2 + np.sin(x))), CURVATURE * x + np.cos(x)


def opfunc(x):
    f, g = objective(x.numpy().copy())
    return f, torch.tensor(g)


# --- NumPy re-statements of Lua's rules: each takes (x, config, state) and returns (x, f) ---


def ref_sgd(x, c, s):
    f, g = objective(x)
    lr, lrd = c.get("learningRate", 1e-3), c.get("learningRateDecay", 0)
    wd, mom = c.get("weightDecay", 0), c.get("momentum", 0)
    damp = c.get("dampening", mom)
    n = s.setdefault("n", 0)
    if wd:
        g = g + wd * x
    elif "weightDecays" in c:
        g = g + c["weightDecays"] * x
    if mom:
        s["buf"] = g.copy() if "buf" not in s else mom * s["buf"] + (1 - damp) * g
        g = g + mom * s["buf"] if c.get("nesterov") else s["buf"]
    if "learningRates" in c:
        g = c["learningRates"] * g
    s["n"] = n + 1
    return x - lr / (1 + n * lrd) * g, f


def ref_nag(x, c, s):
    lr, lrd = c.get("learningRate", 1e-3), c.get("learningRateDecay", 0)
    wd, mom = c.get("weightDecay", 0), c.get("momentum", 0.9)
    n = s.setdefault("n", 0)
    v = s.get("v", np.zeros_like(x))
    ahead = x + mom * v
    f, g = objective(ahead)
    g = g + wd * ahead
    if "learningRates" in c:
        g = c["learningRates"] * g
    s["v"] = mom * v - lr / (1 + n * lrd) * g
    s["n"] = n + 1
    return x + s["v"], f


def ref_adagrad(x, c, s):
    f, g = objective(x)
    lr, lrd = c.get("learningRate", 1e-3), c.get("learningRateDecay", 0)
    wd = c.get("weightDecay", 0)
    n = s.setdefault("n", 0)
    g = g + wd * x
    s["var"] = s.get("var", 0) + g * g
    s["n"] = n + 1
    return x - lr / (1 + n * lrd) * g / (np.sqrt(s["var"]) + 1e-10), f


def ref_adadelta(x, c, s):
    f, g = objective(x)
    rho, eps, wd = c.get("rho", 0.9), c.get("eps", 1e-6), c.get("weightDecay", 0)
    g = g + wd * x
    s["var"] = rho * s.get("var", 0) + (1 - rho) * g * g
    delta = np.sqrt(s.get("acc", 0) + eps) / np.sqrt(s["var"] + eps) * g
    s["acc"] = rho * s.get("acc", 0) + (1 - rho) * delta * delta
    return x - delta, f


def ref_adam(x, c, s):
    f, g = objective(x)
    lr, b1, b2 = c.get("learningRate", 1e-3), c.get("beta1", 0.9), c.get("beta2", 0.999)
    eps, wd = c.get("epsilon", 1e-8), c.get("weightDecay", 0)
    g = g + wd * x
    t = s["t"] = s.get("t", 0) + 1
    s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
    step = lr * math.sqrt(1 - b2**t) / (1 - b1**t)
    return x - step * s["m"] / (np.sqrt(s["v"]) + eps), f


def ref_adamax(x, c, s):
    f, g = objective(x)
    lr, b1, b2 = c.get("learningRate", 2e-3), c.get("beta1", 0.9), c.get("beta2", 0.999)
    eps, wd = c.get("epsilon", 1e-38), c.get("weightDecay", 0)
    g = g + wd * x
    t = s["t"] = s.get("t", 0) + 1
    s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
    s["u"] = np.maximum(b2 * s.get("u", 0), np.abs(g) + eps)
    return x - lr / (1 - b1**t) * s["m"] / s["u"], f


def ref_rmsprop(x, c, s):
    f, g = objective(x)
    lr, alpha = c.get("learningRate", 1e-2), c.get("alpha", 0.99)
    eps, wd = c.get("epsilon", 1e-8), c.get("weightDecay", 0)
    g = g + wd * x
    s["m"] = alpha * s.get("m", 0) + (1 - alpha) * g * g
    return x - lr * g / (np.sqrt(s["m"]) + eps), f


def ref_aggmo(x, c, s):
    f, g = objective(x)
    lr, lrd = c.get("learningRate", 1e-3), c.get("learningRateDecay", 0)
    wd = c.get("weightDecay", 0)
    betas = c.get("momentum", [0.0, 0.9, 0.99])
    n = s.setdefault("n", 0)
    g = g + wd * x
    s["v"] = [b * v - g for b, v in zip(betas, s.get("v", [0.0] * len(betas)))]
    s["n"] = n + 1
    return x + lr / (1 + n * lrd) / len(betas) * sum(s["v"]), f


def ref_rprop(x, c, s):
    fs = []
    for _ in range(c.get("niter", 1)):
        f, g = objective(x)
        prev = s.get("prev", np.zeros_like(x))
        step = s.get("step", np.full_like(x, c.get("stepsize", 0.1)))
        sign = np.sign(g * prev)
        step = step * np.where(sign > 0, c.get("etaplus", 1.2), 1.0)
        step = step * np.where(sign < 0, c.get("etaminus", 0.5), 1.0)
        step = np.clip(step, c.get("stepsizemin", 1e-6), c.get("stepsizemax", 50.0))
        g = np.where(sign < 0, 0.0, g)
        x = x - np.sign(g) * step
        s["prev"], s["step"] = g, step
        fs.append(f)
    return x, fs


def ref_asgd(x, c, s):
    f, g = objective(x)
    eta0, lam, alpha, t0 = c["eta0"], c["lambda"], c["alpha"], c["t0"]
    eta, mu, t = s.get("eta", eta0), s.get("mu", 1.0), s.get("t", 0)
    x = (1 - lam * eta) * x - eta * g
    s["ax"] = x.copy() if mu == 1 else s["ax"] + mu * (x - s["ax"])
    t += 1
    s["eta"], s["mu"], s["t"] = eta0 / (1 + lam * eta0 * t) ** alpha, 1 / max(1, t - t0), t
    return x, f


PER_ELEMENT = np.array([1.0, 0.5, 2.0, 0.1, 1.5, 0.0])

CASES = [
    ("sgd", {}, ref_sgd),
    ("sgd", {"learningRate": 0.1, "learningRateDecay": 0.3, "weightDecay": 0.05}, ref_sgd),
    ("sgd", {"learningRate": 0.1, "momentum": 0.9}, ref_sgd),
    ("sgd", {"learningRate": 0.1, "momentum": 0.8, "dampening": 0.3}, ref_sgd),
    ("sgd", {"learningRate": 0.1, "momentum": 0.9, "dampening": 0, "nesterov": True}, ref_sgd),
    (
        "sgd",
        {"learningRate": 0.2, "learningRates": PER_ELEMENT, "weightDecays": PER_ELEMENT / 10},
        ref_sgd,
    ),
    ("nag", {"learningRate": 0.05}, ref_nag),
    (
        "nag",
        {"learningRate": 0.05, "momentum": 0.5, "weightDecay": 0.1, "learningRates": PER_ELEMENT},
        ref_nag,
    ),
    ("adagrad", {"learningRate": 0.3, "learningRateDecay": 0.1, "weightDecay": 0.02}, ref_adagrad),
    ("adadelta", {}, ref_adadelta),
    ("adadelta", {"rho": 0.5, "eps": 1e-3, "weightDecay": 0.1}, ref_adadelta),
    ("adam", {}, ref_adam),
    ("adam", {"learningRate": 0.1, "beta1": 0.5, "beta2": 0.9, "weightDecay": 0.1}, ref_adam),
    ("adamax", {"learningRate": 0.1, "weightDecay": 0.05}, ref_adamax),
    ("rmsprop", {"learningRate": 0.05, "alpha": 0.8, "weightDecay": 0.1}, ref_rmsprop),
    ("aggmo", {}, ref_aggmo),
    ("aggmo", {"learningRate": 0.1, "learningRateDecay": 0.2, "weightDecay": 0.1}, ref_aggmo),
    ("aggmo", {"learningRate": 0.05, "momentum": [0.5, 0.999]}, ref_aggmo),
    ("rprop", {"niter": 3}, ref_rprop),
    ("rprop", {"stepsize": 0.5, "etaplus": 1.5, "etaminus": 0.2, "stepsizemax": 1.0}, ref_rprop),
    ("asgd", {"eta0": 0.1, "lambda": 0.01, "alpha": 0.75, "t0": 2}, ref_asgd),
]


def as_torch(config):
    return {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in config.items()}


@pytest.mark.parametrize(("name", "config", "reference"), CASES)
def test_steps_match_numpy_restatement(name, config, reference):
    x = torch.tensor(X0)
    ours, ref_state, xn = as_torch(config), {}, X0.copy()
    for _ in range(6):
        out = getattr(optim, name)(opfunc, x, ours)
        xn, fn = reference(xn, config, ref_state)
        assert out[0] is x  # updated in place and returned
        assert out[1] == pytest.approx(fn, rel=1e-12)
        np.testing.assert_allclose(x.numpy(), xn, rtol=1e-10, atol=1e-12)
        if name == "asgd":
            np.testing.assert_allclose(out[2].numpy(), ref_state["ax"], rtol=1e-10, atol=1e-12)


def test_float32_x_keeps_its_dtype_and_follows_the_rule():
    x = torch.tensor(X0.astype(np.float32))
    config, ref_state, xn = {"learningRate": 0.1, "momentum": 0.9}, {}, X0.copy()
    for _ in range(3):
        optim.sgd(opfunc, x, config)
        xn, _ = ref_sgd(xn, config, ref_state)
    assert x.dtype == torch.float32 and config["dfdx"].dtype == torch.float32
    np.testing.assert_allclose(x.numpy(), xn, rtol=1e-5)


def test_state_defaults_to_config_and_gets_lua_keys():
    config = {"learningRate": 0.1, "momentum": 0.9}
    optim.sgd(opfunc, torch.tensor(X0), config)
    assert config["evalCounter"] == 1 and config["dfdx"].shape == (6,)
    # with a separate state table, config stays untouched
    config, state = {"learningRate": 0.1}, {}
    optim.sgd(opfunc, torch.tensor(X0), config, state)
    optim.sgd(opfunc, torch.tensor(X0), config, state)
    assert config == {"learningRate": 0.1} and state == {"evalCounter": 2}
    adam_state = {}
    optim.adam(opfunc, torch.tensor(X0), None, adam_state)
    assert adam_state["t"] == 1 and {"m", "v"} <= set(adam_state)
    # asgd writes its defaults into config, as Lua does
    config = {}
    optim.asgd(opfunc, torch.tensor(X0), config)
    assert (config["eta0"], config["lambda"], config["alpha"], config["t0"]) == (
        1e-4,
        1e-4,
        0.75,
        1e6,
    )
    assert config["t"] == 1 and config["mu_t"] == 1
    assert config["eta_t"] == pytest.approx(1e-4 / (1 + 1e-8) ** 0.75)
    # rprop's per-element step sizes replace the initial number under the same key
    config = {"stepsize": 0.25}
    optim.rprop(opfunc, torch.tensor(X0), config)
    np.testing.assert_allclose(config["stepsize"].numpy(), np.full(6, 0.25))
    optim.rprop(opfunc, torch.tensor(X0), config)
    assert config["stepsize"].shape == (6,)


def test_opfunc_gradient_is_not_written_to():
    grad = torch.tensor(np.cos(X0))

    def fixed(x):
        return 1.0, grad

    config = {"learningRate": 0.1, "weightDecay": 0.5, "momentum": 0.9, "dampening": 0}
    config["nesterov"] = True
    for _ in range(2):
        optim.sgd(fixed, torch.tensor(X0), config)
    optim.rprop(fixed, torch.tensor(X0), {})
    np.testing.assert_array_equal(grad.numpy(), np.cos(X0))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: optim.sgd(opfunc, torch.tensor(X0), {"nesterov": True}), "optim.sgd.*nesterov"),
        (
            lambda: optim.sgd(opfunc, torch.tensor(X0), {"nesterov": True, "momentum": 0.9}),
            "optim.sgd.*dampening",
        ),
        (lambda: optim.nag(opfunc, torch.tensor(X0), {"momentum": 0}), "optim.nag.*momentum"),
        (
            lambda: optim.adam(opfunc, torch.tensor(X0), {"learningRate": "0.1"}),
            r"optim.adam: config\['learningRate'\]",
        ),
        (
            lambda: optim.sgd(opfunc, torch.tensor(X0), {"learningRates": torch.ones(4)}),
            r"optim.sgd: config\['learningRates'\].*6",
        ),
        (
            lambda: optim.aggmo(opfunc, torch.tensor(X0), {"momentum": 0.9}),
            r"optim.aggmo: config\['momentum'\] must be a list",
        ),
        (lambda: optim.sgd(opfunc, torch.arange(6), {}), "optim.sgd: x must be a floating"),
        (lambda: optim.adagrad(lambda x: (1.0, torch.ones(3)), torch.tensor(X0)), "optim.adagrad"),
        (lambda: optim.rmsprop(lambda x: 1.0, torch.tensor(X0)), r"optim.rmsprop.*\(f, df/dx\)"),
        (lambda: optim.sgd(opfunc, torch.tensor(X0), [0.1]), "optim: config and state"),
        (
            lambda: optim.lbfgs(opfunc, torch.tensor(X0), {"lineSearch": "wolfe"}),
            r"optim.lbfgs: config\['lineSearch'\]",
        ),
    ],
)
def test_bad_config_names_function_and_key(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


# --- lbfgs, lswolfe, polyinterp, cg ---


def rosenbrock(x):
    a, b = x[0].item(), x[1].item()
    f = (1 - a) ** 2 + 100 * (b - a * a) ** 2
    return f, torch.tensor([-2 * (1 - a) - 400 * a * (b - a * a), 200 * (b - a * a)])


SPD = np.array(
    [[4.0, 1.0, 0.5, 0.0], [1.0, 3.0, 0.2, 0.1], [0.5, 0.2, 2.0, 0.3], [0.0, 0.1, 0.3, 1.0]]
)
RHS = np.array([1.0, -2.0, 0.5, 3.0])


def quadratic(x):
    xn = x.numpy().copy()
    return float(0.5 * xn @ SPD @ xn - RHS @ xn), torch.tensor(SPD @ xn - RHS)


@pytest.mark.parametrize("line_search", [None, optim.lswolfe])
def test_lbfgs_minimises_a_quadratic(line_search):
    x = torch.zeros(4, dtype=torch.float64)
    config = {"maxIter": 50, "lineSearch": line_search, "tolFun": 1e-12, "tolX": 1e-14}
    x, f_hist, n_evals = optim.lbfgs(quadratic, x, config)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(SPD, RHS), atol=1e-7)
    assert f_hist[0] == 0.0 and f_hist[-1] == pytest.approx(-0.5 * RHS @ np.linalg.solve(SPD, RHS))
    assert n_evals == config["funcEval"] and config["nIter"] <= 50


def test_lbfgs_with_wolfe_line_search_solves_rosenbrock():
    x = torch.zeros(2, dtype=torch.float64)
    config = {"maxIter": 100, "lineSearch": optim.lswolfe}
    x, f_hist, _ = optim.lbfgs(rosenbrock, x, config)
    np.testing.assert_allclose(x.numpy(), [1.0, 1.0], atol=1e-4)
    assert f_hist[0] == 1.0 and f_hist[-1] < 1e-8
    assert all(b <= a for a, b in zip(f_hist, f_hist[1:]))  # Wolfe steps always decrease f


def ref_lbfgs(x, iters, lr, n_correction):
    """L-BFGS with fixed steps (no line search) as Lua's lbfgs takes them, in NumPy."""
    f, g = objective(x)
    fs, dirs, stps, d, t, g_old, hdiag = [f], [], [], None, None, None, 1.0
    for it in range(1, iters + 1):
        if it == 1:
            d = -g
        else:
            y, s = g - g_old, d * t
            if y @ s > 1e-10:
                if len(dirs) == n_correction:
                    dirs.pop(0), stps.pop(0)
                dirs.append(s), stps.append(y)
                hdiag = (y @ s) / (y @ y)
            q, al = -g, []
            for s_i, y_i in reversed(list(zip(dirs, stps))):
                al.insert(0, (s_i @ q) / (y_i @ s_i))
                q = q - al[0] * y_i
            d = q * hdiag
            for (s_i, y_i), a_i in zip(zip(dirs, stps), al):
                d = d + (a_i - (y_i @ d) / (y_i @ s_i)) * s_i
        g_old = g
        t = min(1, 1 / np.abs(g).sum()) * lr if it == 1 else lr
        x = x + t * d
        if it != iters:
            f, g = objective(x)
            fs.append(f)
    return x, fs


def test_lbfgs_fixed_steps_match_numpy_restatement():
    x = torch.tensor(X0)
    config = {"maxIter": 6, "maxEval": 100, "learningRate": 0.5, "nCorrection": 3}
    _, f_hist, n_evals = optim.lbfgs(opfunc, x, config)
    xn, fs = ref_lbfgs(X0.copy(), 6, 0.5, 3)
    np.testing.assert_allclose(x.numpy(), xn, rtol=1e-10)
    np.testing.assert_allclose(f_hist, fs, rtol=1e-12)
    assert n_evals == 6 and len(config["old_dirs"]) <= 3


def test_lbfgs_state_resumes_across_calls():
    # two calls of 3 iterations take the same steps as one call of 6
    once, twice = torch.tensor(X0), torch.tensor(X0)
    optim.lbfgs(opfunc, once, {"maxIter": 6, "maxEval": 100, "learningRate": 0.5})
    config = {"maxIter": 3, "maxEval": 100, "learningRate": 0.5}
    optim.lbfgs(opfunc, twice, config)
    optim.lbfgs(opfunc, twice, config)
    np.testing.assert_allclose(twice.numpy(), once.numpy(), rtol=1e-12)
    assert config["nIter"] == 6 and config["funcEval"] == 6


def test_lbfgs_stops_at_once_at_an_optimum():
    x = torch.tensor(np.linalg.solve(SPD, RHS))
    config = {}
    _, f_hist, n_evals = optim.lbfgs(quadratic, x, config)
    assert len(f_hist) == 1 and n_evals == 1 and config["funcEval"] == 1 and config["nIter"] == 0


def test_lswolfe_returns_a_strong_wolfe_step():
    calls = []

    def counted(x):
        calls.append(1)
        return opfunc(x)

    x = torch.tensor(X0)
    f, g = opfunc(x)
    d = -g
    gtd = float(g.dot(d))
    for t0 in (1e-3, 1.0, 10.0):  # too short (extrapolates), about right, too long (zooms)
        calls.clear()
        x = torch.tensor(X0)
        f_new, g_new, x_out, t, n = optim.lswolfe(counted, x, t0, d, f, g, gtd)
        assert x_out is x and n == len(calls)
        np.testing.assert_allclose(x.numpy(), X0 + t * d.numpy(), rtol=1e-12)
        f_ref, g_ref = objective(X0 + t * d.numpy())
        assert f_new == pytest.approx(f_ref) and np.allclose(g_new.numpy(), g_ref)
        assert f_new <= f + 1e-4 * t * gtd  # sufficient decrease
        assert abs(g_ref @ d.numpy()) <= -0.9 * gtd  # curvature


def lowest_candidate(coeffs, lo, hi, points):
    """Lowest value of the polynomial among the bounds, the points and real critical points."""
    poly = np.poly1d(coeffs)
    candidates = [lo, hi] + [p for p in points]
    candidates += [r.real for r in poly.deriv().r if abs(r.imag) < 1e-12 and lo <= r.real <= hi]
    candidates = [c for c in candidates if lo <= c <= hi]
    return min(candidates, key=poly)


def local_minimum_clipped(coeffs, lo, hi):
    """The cubic's local minimiser (p' = 0, p'' > 0) clipped to [lo, hi]; the midpoint if none."""
    poly = np.poly1d(coeffs)
    minima = [r.real for r in poly.deriv().r if abs(r.imag) < 1e-12 and poly.deriv(2)(r.real) > 0]
    return min(max(minima[0], lo), hi) if minima else (lo + hi) / 2


@pytest.mark.parametrize(
    ("coeffs", "ts"),
    [
        ([1.0, -3.0, 0.5, 2.0], [0.0, 2.5]),
        ([-0.5, 1.0, 2.0, 1.0], [-1.0, 3.0]),
        ([2.0, 0.0, -1.0, 0.0], [1.5, -1.0]),  # an end is lower than the local minimum
        ([1.0, -3.0, 0.5, 2.0], [2.5, 4.0]),  # the local minimum lies left of the interval
        ([0.0, 1.0, -2.0, 0.0], [0.0, 4.0]),  # a parabola
    ],
)
def test_polyinterp_finds_the_minimum_of_the_interpolated_cubic(coeffs, ts):
    poly = np.poly1d(coeffs)
    points = [[t, poly(t), poly.deriv()(t)] for t in ts]
    lo, hi = min(ts), max(ts)
    # no bounds: Lua's closed form gives the local minimum of the cubic through the 2 values
    # and slopes (the cubic itself), clipped to the interval
    assert optim.polyinterp(torch.tensor(points)) == pytest.approx(
        local_minimum_clipped(coeffs, lo, hi), abs=1e-9
    )
    # with bounds: the general path (solve for the coefficients, test every candidate)
    wide = (lo - 1.0, hi + 2.0)
    assert optim.polyinterp(points, *wide) == pytest.approx(
        lowest_candidate(coeffs, *wide, ts), abs=1e-9
    )


def test_polyinterp_three_points_fit_a_quintic():
    coeffs = [0.05, -0.1, -0.8, 0.6, 1.0, -0.3]
    poly = np.poly1d(coeffs)
    ts = [-2.0, 0.5, 3.0]
    points = [[t, poly(t), poly.deriv()(t)] for t in ts]
    assert optim.polyinterp(points) == pytest.approx(lowest_candidate(coeffs, -2.0, 3.0, ts))


def test_polyinterp_without_real_cubic_solution_bisects():
    # the cubic through these rises everywhere (d1^2 - g1*g2 < 0): Lua takes the mean
    assert optim.polyinterp([[0.0, 0.0, 5.0], [1.0, 10 / 3, 5.0]]) == 0.5


def test_cg_solves_rosenbrock_and_keeps_to_its_budget():
    x = torch.zeros(2, dtype=torch.float64)
    config = {"maxIter": 25, "maxEval": 100}
    x, f_hist, n_evals = optim.cg(rosenbrock, x, config)
    np.testing.assert_allclose(x.numpy(), [1.0, 1.0], atol=1e-5)
    assert f_hist[0] == 1.0 and f_hist[-1] < 1e-10
    assert all(b < a for a, b in zip(f_hist, f_hist[1:]))  # only successful searches are listed
    assert n_evals <= 100
    assert {"df0", "df1", "df2", "s", "x0"} <= set(config)


def test_cg_minimises_a_quadratic():
    x = torch.zeros(4, dtype=torch.float64)
    x, f_hist, _ = optim.cg(quadratic, x, {"maxEval": 60, "maxIter": 20})
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(SPD, RHS), atol=1e-6)


def test_cg_evaluation_budget_is_exact_when_it_runs_out():
    calls = []

    def counted(x):
        calls.append(1)
        return rosenbrock(x)

    _, _, n_evals = optim.cg(counted, torch.zeros(2, dtype=torch.float64), {"maxEval": 7})
    assert n_evals == len(calls) <= 7


def test_cg_gives_up_after_two_failed_line_searches():
    # a gradient of the wrong sign: every search goes uphill and fails after maxIter tries
    calls = []

    def uphill(x):
        calls.append(1)
        f, g = rosenbrock(x)
        return f, -g

    x0 = torch.tensor([-0.5, 0.7], dtype=torch.float64)
    x = x0.clone()
    _, f_hist, n_evals = optim.cg(uphill, x, {"maxIter": 5, "maxEval": 100})
    # 1 start + 2 searches of (1 step + 5 interpolations), then minimize.m's two-failure stop
    assert n_evals == len(calls) == 13
    assert f_hist == [rosenbrock(x0)[0]]
    np.testing.assert_array_equal(x.numpy(), x0.numpy())  # restored to the last good point
