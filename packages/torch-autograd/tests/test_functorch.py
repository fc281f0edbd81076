"""functorch: torch.func's transforms under the old package name, and the functional-module
helpers (make_functional, make_functional_with_buffers, combine_state_for_ensemble), checked
against the modules themselves and torch.autograd."""

import functorch as ft
import pytest

import torch

nn = pytest.importorskip("torch.nn")  # (the functional-module helpers need torch-nn)


def _mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))


def test_the_transforms_are_torch_funcs():
    for name in ("vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian"):
        assert getattr(ft, name) is getattr(torch.func, name)
    with pytest.raises(AttributeError, match="no_such"):
        ft.no_such  # noqa: B018


def test_make_functional_runs_the_model_with_given_params():
    m, x = _mlp(), torch.randn(5, 3)
    f, params = ft.make_functional(m)
    assert isinstance(f, nn.Module) and len(params) == 4
    assert all(p.requires_grad for p in params)
    torch.testing.assert_close(f(params, x), m(x))
    doubled = tuple(2 * p for p in params)
    expected = torch.tanh(x @ doubled[0].T + doubled[1]) @ doubled[2].T + doubled[3]
    torch.testing.assert_close(f(doubled, x), expected)
    # the params are the function's own copy: changing them leaves the model alone
    with torch.no_grad():
        params[0].add_(1.0)
    assert not torch.equal(params[0], m[0].weight)
    _, detached = ft.make_functional(m, disable_autograd_tracking=True)
    assert not any(p.requires_grad for p in detached)
    with pytest.raises(RuntimeError, match="expected 4 params, got 2"):
        f(params[:2], x)


def test_grad_and_jvp_of_a_functional_model_match_autograd():
    m, x = _mlp(), torch.randn(5, 3)
    f, params = ft.make_functional(m)
    grads = ft.grad(lambda p: f(p, x).pow(2).sum())(params)
    expected = torch.autograd.grad(m(x).pow(2).sum(), list(m.parameters()))
    for g, e in zip(grads, expected):
        torch.testing.assert_close(g, e)
    tangents = tuple(torch.randn_like(p) for p in params)
    out, jvp_out = ft.jvp(lambda *p: f(p, x), tuple(params), tangents)
    torch.testing.assert_close(out, m(x))
    eps = 1e-3  # central difference in float64 as the oracle
    f64 = ft.make_functional(_mlp().double())[0]
    p64 = tuple(p.detach().double() for p in params)
    t64 = tuple(t.double() for t in tangents)
    plus = f64(tuple(p + eps * t for p, t in zip(p64, t64)), x.double())
    minus = f64(tuple(p - eps * t for p, t in zip(p64, t64)), x.double())
    torch.testing.assert_close(jvp_out.double(), (plus - minus) / (2 * eps), rtol=1e-4, atol=1e-5)


def test_make_functional_with_buffers():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)).eval()
    with pytest.raises(RuntimeError, match="has buffers"):
        ft.make_functional(m)
    f, params, buffers = ft.make_functional_with_buffers(m)
    assert [tuple(b.shape) for b in buffers] == [(4,), (4,), ()]
    x = torch.randn(6, 3)
    torch.testing.assert_close(f(params, buffers, x), m(x))
    shifted = (buffers[0] + 1.0, buffers[1], buffers[2])  # running_mean + 1
    torch.testing.assert_close(f(params, shifted, x), m(x) - m[1].weight / (1 + 1e-5) ** 0.5)


def test_combine_state_for_ensemble_with_vmap():
    torch.manual_seed(0)
    models = [nn.Linear(3, 2) for _ in range(4)]
    f, params, buffers = ft.combine_state_for_ensemble(models)
    assert [tuple(p.shape) for p in params] == [(4, 2, 3), (4, 2)] and buffers == ()
    assert not any(p.requires_grad for p in params)
    x = torch.randn(5, 3)
    out = torch.vmap(f, in_dims=(0, 0, None))(params, buffers, x)
    torch.testing.assert_close(out, torch.stack([m(x) for m in models]))
    with pytest.raises(RuntimeError, match="at least one model"):
        ft.combine_state_for_ensemble([])
    with pytest.raises(RuntimeError, match="same training/eval mode"):
        ft.combine_state_for_ensemble([nn.Linear(3, 2), nn.Linear(3, 2).eval()])
    with pytest.raises(RuntimeError, match="same class"):
        ft.combine_state_for_ensemble([nn.Linear(3, 2), nn.Bilinear(3, 3, 2)])
