"""L-BFGS: a quasi-Newton method that keeps a short history of steps and gradient changes."""

import math

import torch

from .optimizer import Optimizer, _check_nonnegative, _closure_loss

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """Limited-memory BFGS (Nocedal & Wright, *Numerical Optimization*, chapters 3 and 7).

    ``step(closure)`` runs up to ``max_iter`` iterations (``max_eval`` closure calls, by
    default ``max_iter * 5 // 4``). Each iteration moves along the two-loop-recursion direction
    built from the last ``history_size`` pairs ``(s, y)``: by ``lr`` (the first iteration ever:
    ``lr * min(1, 1 / |g|_1)``), or, with ``line_search_fn="strong_wolfe"``, by a step length
    that satisfies the strong Wolfe conditions. It stops early once
    ``max|g| <= tolerance_grad``, or the step or the change of the loss is below
    ``tolerance_change``. Works on all parameters as one flat vector: one parameter group only.
    Returns the loss of the first closure call.
    """

    def __init__(
        self,
        params,
        lr=1,
        max_iter=20,
        max_eval=None,
        tolerance_grad=1e-7,
        tolerance_change=1e-9,
        history_size=100,
        line_search_fn=None,
    ):
        _check_nonnegative(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(
                f"line_search_fn must be None or 'strong_wolfe', but got {line_search_fn!r}"
            )
        defaults = dict(
            lr=lr,
            max_iter=max_iter,
            max_eval=max_eval,
            tolerance_grad=tolerance_grad,
            tolerance_change=tolerance_change,
            history_size=history_size,
            line_search_fn=line_search_fn,
        )
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def __setstate__(self, state):
        super().__setstate__(state)
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        grads = [
            p.new_zeros(p.numel()) if p.grad is None else p.grad.reshape(-1) for p in self._params
        ]
        return torch.cat(grads)

    def _move(self, t, direction):
        """params += t * direction (the flat direction cut back into the parameters' shapes)."""
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(direction[offset : offset + n].view_as(p), alpha=t)
            offset += n

    def _evaluate(self, closure):
        loss = float(_closure_loss(closure))
        return loss, self._flat_grad()

    @torch.no_grad()
    def step(self, closure):
        """Runs the iterations; ``closure`` must zero the gradients, run backward and return
        the loss."""
        group = self.param_groups[0]
        lr = group["lr"]
        max_iter = group["max_iter"]
        max_eval = group["max_eval"]
        tolerance_grad = group["tolerance_grad"]
        tolerance_change = group["tolerance_change"]
        history_size = group["history_size"]
        line_search = group["line_search_fn"]

        # All state lives with the first parameter (the flat vector has no entry of its own).
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        first_loss = _closure_loss(closure)
        loss = float(first_loss)
        grad = self._flat_grad()
        evals = 1
        state["func_evals"] += 1
        if grad.abs().max().item() <= tolerance_grad:
            return first_loss

        d = state.get("d")
        t = state.get("t")
        old_dirs = state.get("old_dirs")
        old_stps = state.get("old_stps")
        ro = state.get("ro")
        h_diag = state.get("H_diag")
        prev_grad = state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = grad.neg()
                old_dirs, old_stps, ro = [], [], []
                h_diag = 1.0
            else:
                y = grad.sub(prev_grad)
                s = d.mul(t)
                ys = y.dot(s).item()
                if ys > 1e-10:  # keep the curvature pair only if it is positive
                    if len(old_dirs) == history_size:
                        del old_dirs[0], old_stps[0], ro[0]
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y).item()
                d = _two_loop_direction(grad, old_dirs, old_stps, ro, float(h_diag))
            prev_grad = grad
            prev_loss = loss

            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / grad.abs().sum().item()) * lr
            else:
                t = lr
            gtd = grad.dot(d).item()
            if gtd > -tolerance_change:  # not a descent direction any more
                break

            if line_search is None:
                self._move(t, d)
                ls_evals = 0
                if n_iter != max_iter:  # the last iteration's point needs no evaluation
                    loss, grad = self._evaluate(closure)
                    ls_evals = 1
            else:
                loss, grad, t, ls_evals = self._strong_wolfe(closure, d, t, loss, grad, gtd)
            evals += ls_evals
            state["func_evals"] += ls_evals

            if evals >= max_eval:
                break
            if grad.abs().max().item() <= tolerance_grad:
                break
            if d.abs().max().item() * abs(t) <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state.update(
            d=d,
            t=t,
            old_dirs=old_dirs,
            old_stps=old_stps,
            ro=ro,
            H_diag=h_diag,
            prev_flat_grad=prev_grad,
            prev_loss=prev_loss,
        )
        return first_loss

    def _strong_wolfe(self, closure, d, t, loss, grad, gtd, c1=1e-4, c2=0.9, max_evals=25):
        """Line search along ``d`` from the current point for a step ``t`` satisfying
        ``f(t) <= f(0) + c1 t f'(0)`` and ``|f'(t)| <= c2 |f'(0)|`` (Nocedal & Wright,
        algorithms 3.5 and 3.6, cubic interpolation). Leaves the parameters at the step found;
        returns ``(loss, flat_grad, t, closure_calls)``."""
        start = [p.clone() for p in self._params]

        def trial(step):  # (step, f, flat grad, f') at start + step * d
            for p, x in zip(self._params, start):
                p.copy_(x)
            self._move(step, d)
            f, g = self._evaluate(closure)
            return (step, f, g, g.dot(d).item())

        tolerance_change = self.param_groups[0]["tolerance_change"]
        d_norm = d.abs().max().item()
        origin = (0.0, loss, grad, gtd)
        prev = origin
        evals = 0
        found = None
        bracket = None
        # Phase 1: grow the step until the minimiser is bracketed or the conditions hold.
        while evals < max_evals:
            cur = trial(t)
            evals += 1
            if cur[1] > loss + c1 * t * gtd or (evals > 1 and cur[1] >= prev[1]):
                bracket = (prev, cur)
                break
            if abs(cur[3]) <= -c2 * gtd:
                found = cur
                break
            if cur[3] >= 0:
                bracket = (cur, prev)
                break
            t = _cubic_minimizer(prev, cur, t + 0.01 * (t - prev[0]), 10 * t)
            prev = cur
        else:
            found = cur
        # Phase 2 ("zoom"): shrink the bracket [lo, hi]; lo is the best point so far.
        if found is None:
            lo, hi = bracket
            found = lo
            while evals < max_evals and abs(hi[0] - lo[0]) * d_norm >= tolerance_change:
                a, b = sorted((lo[0], hi[0]))
                t = _cubic_minimizer(lo, hi, a, b)
                if min(t - a, b - t) < 0.1 * (b - a):  # too near an end: bisect instead
                    t = (a + b) / 2
                cur = trial(t)
                evals += 1
                if cur[1] > loss + c1 * t * gtd or cur[1] >= lo[1]:
                    hi = cur
                else:
                    if abs(cur[3]) <= -c2 * gtd:
                        lo = cur
                        break
                    if cur[3] * (hi[0] - lo[0]) >= 0:
                        hi = lo
                    lo = cur
            found = lo
        for p, x in zip(self._params, start):
            p.copy_(x)
        self._move(found[0], d)
        return found[1], found[2], found[0], evals


def _two_loop_direction(grad, dirs, steps, ro, h_diag):
    """-H grad, with H the L-BFGS inverse-Hessian estimate from the pairs (s, y) and the
    initial scaling ``h_diag`` (Nocedal & Wright, algorithm 7.4)."""
    q = grad.neg()
    alphas = [0.0] * len(dirs)
    for i in reversed(range(len(dirs))):
        alphas[i] = steps[i].dot(q).item() * float(ro[i])
        q.add_(dirs[i], alpha=-alphas[i])
    r = q.mul_(h_diag)
    for i in range(len(dirs)):
        beta = dirs[i].dot(r).item() * float(ro[i])
        r.add_(steps[i], alpha=alphas[i] - beta)
    return r


def _cubic_minimizer(a, b, lower, upper):
    """The minimiser, clipped to [lower, upper], of the cubic through the points ``a`` and
    ``b`` (each ``(t, f, _, f')``); the midpoint of the bounds when the cubic has none."""
    t1, f1, _, g1 = a
    t2, f2, _, g2 = b
    if t1 != t2:
        d1 = g1 + g2 - 3 * (f1 - f2) / (t1 - t2)
        disc = d1 * d1 - g1 * g2
        if disc >= 0:
            d2 = math.copysign(math.sqrt(disc), t2 - t1)
            denom = g2 - g1 + 2 * d2
            if denom != 0:
                t = t2 - (t2 - t1) * (g2 + d2 - d1) / denom
                if math.isfinite(t):
                    return min(max(t, lower), upper)
    return (lower + upper) / 2
